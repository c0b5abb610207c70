#include "rocktile/CodeObject/CodeObject.h"
#include "lld/Common/Driver.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsAMDGPU.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCAsmBackend.h"
#include "llvm/MC/MCCodeEmitter.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCObjectFileInfo.h"
#include "llvm/MC/MCObjectWriter.h"
#include "llvm/MC/MCParser/MCAsmParser.h"
#include "llvm/MC/MCParser/MCTargetAsmParser.h"
#include "llvm/MC/MCStreamer.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/Compression.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Scalar/Scalarizer.h"
#include <mutex>

LLD_HAS_DRIVER(elf)

using namespace llvm;

static constexpr const char *kTriple = "amdgcn-amd-amdhsa";

static Expected<std::unique_ptr<TargetMachine>> createTargetMachine(StringRef chip) {
  static std::once_flag initialized;
  std::call_once(initialized, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
    LLVMInitializeAMDGPUAsmParser();
  });
  Triple triple(kTriple);
  std::string error;
  const Target *target = TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return createStringError(error);
  TargetOptions options;
  std::unique_ptr<TargetMachine> tm(target->createTargetMachine(
      triple, chip, "", options, Reloc::PIC_, std::nullopt, CodeGenOptLevel::Aggressive));
  if (!tm)
    return createStringError("cannot create a target machine for " + chip.str());
  return tm;
}

namespace {

/// InstCombine narrows fptrunc(frem(fpext x, fpext y)) to a bf16 frem, which
/// LLVM 22's AMDGPU backend cannot select ("no libcall available for frem",
/// fuzz seeds 100197, 100499). frem is exact, so computing it in fp32 again
/// gives the same bits.
void widenBf16Frem(Module &module) {
  for (Function &f : module)
    for (Instruction &inst : make_early_inc_range(instructions(f))) {
      if (inst.getOpcode() != Instruction::FRem || !inst.getType()->getScalarType()->isBFloatTy())
        continue;
      IRBuilder<> b(&inst);
      Type *wide = inst.getType()->getWithNewType(b.getFloatTy());
      Value *r = b.CreateFRem(b.CreateFPExt(inst.getOperand(0), wide), b.CreateFPExt(inst.getOperand(1), wide));
      inst.replaceAllUsesWith(b.CreateFPTrunc(r, inst.getType()));
      inst.eraseFromParent();
    }
}

/// Moves each compare down to its first user in its block. Instruction
/// selection keeps compares in program order, and a tile's mask is computed
/// all at once where the kernel computes it, so each element's condition
/// would hold a scalar register pair (two on wave64) up to the access that
/// uses it: with many elements per lane these spill (a softmax row of 32768
/// elements: 164 spilled SGPRs on gfx950 before this, none after).
void sinkCompares(Module &module) {
  for (Function &f : module)
    for (BasicBlock &block : f) {
      SmallVector<CmpInst *> compares;
      for (Instruction &inst : block)
        if (auto *cmp = dyn_cast<CmpInst>(&inst))
          compares.push_back(cmp);
      for (CmpInst *cmp : compares) {
        Instruction *first = nullptr;
        for (User *u : cmp->users()) {
          auto *user = cast<Instruction>(u);
          if (user->getParent() == &block && !isa<PHINode>(user) && (!first || user->comesBefore(first)))
            first = user;
        }
        if (first)
          cmp->moveBefore(first->getIterator());
      }
    }
}

/// The byte offset a masked buffer access takes for its masked lanes: past
/// the end of every buffer (KernelLowering::bufferIndex), so it reads 0 and
/// writes nothing.
constexpr uint64_t kPastTheEnd = uint64_t(1) << 31;
constexpr unsigned kBufferFatPointer = 7; // AMDGPUAS::BUFFER_FAT_POINTER

/// Rewrites a masked buffer access's `gep T, p, select(c, i, 2^31 / sizeof(T))`
/// (KernelLowering::bufferIndex) as `gep i8, p, select(c, i * sizeof(T), 2^31)`.
/// In the element form the backend scales the selected offset in every
/// iteration; in bytes the scaling belongs to the offset itself, which loop
/// strength reduction can then carry in bytes (foldTruncatingExtracts): no
/// shift is left in a GEMM's K loop (test/Target/matmul.py).
void selectBufferOffsetsInBytes(Module &module) {
  for (Function &f : module)
    for (Instruction &inst : llvm::make_early_inc_range(instructions(f))) {
      auto *gep = dyn_cast<GetElementPtrInst>(&inst);
      if (!gep || gep->getAddressSpace() != kBufferFatPointer || gep->getNumIndices() != 1)
        continue;
      uint64_t size = module.getDataLayout().getTypeAllocSize(gep->getSourceElementType());
      auto *select = dyn_cast<SelectInst>(gep->getOperand(1));
      auto *pastTheEnd = select ? dyn_cast<ConstantInt>(select->getFalseValue()) : nullptr;
      if (size <= 1 || !pastTheEnd || pastTheEnd->getZExtValue() * size != kPastTheEnd)
        continue;
      IRBuilder<> b(gep);
      Type *type = pastTheEnd->getType();
      Value *bytes = b.CreateSelect(select->getCondition(),
                                    b.CreateMul(select->getTrueValue(), ConstantInt::get(type, size)),
                                    ConstantInt::get(type, kPastTheEnd));
      gep->replaceAllUsesWith(b.CreateGEP(b.getInt8Ty(), gep->getPointerOperand(), bytes));
      gep->eraseFromParent();
    }
}

/// Folds `extractelement (bitcast iN x to <k x iM>), 0` into `trunc x`
/// (AMDGPU is little-endian). The scalarizer splits a vector of i64 offsets
/// truncated to i32 this way, which hides the loop-carried offsets from
/// scalar evolution; as truncations they are induction variables again, and
/// the backend's strength reduction carries them in bytes
/// (selectBufferOffsetsInBytes) instead of scaling them in every iteration.
void foldTruncatingExtracts(Module &module) {
  for (Function &f : module)
    for (Instruction &inst : llvm::make_early_inc_range(instructions(f))) {
      auto *extract = dyn_cast<ExtractElementInst>(&inst);
      auto *cast = extract ? dyn_cast<BitCastInst>(extract->getVectorOperand()) : nullptr;
      auto *index = extract ? dyn_cast<ConstantInt>(extract->getIndexOperand()) : nullptr;
      if (!cast || !index || !index->isZero() || !cast->getSrcTy()->isIntegerTy() ||
          !extract->getType()->isIntegerTy())
        continue;
      IRBuilder<> b(extract);
      extract->replaceAllUsesWith(b.CreateTrunc(cast->getOperand(0), extract->getType()));
      extract->eraseFromParent();
    }
}

/// A masked buffer load reads at `select(c, offset, 2^31)`, and
/// `select(c, value, other)` puts `other` where the mask is off. Testing the
/// selected offset against 2^31 in the second select, instead of `c` again,
/// ends each condition's life where its offset is made: conditions take a
/// scalar register pair each on wave64, and scheduled for register pressure
/// a 65536-element softmax row made all its offsets first and held every
/// condition until its load (422 spilled SGPRs; none after this).
void maskLoadedValuesByOffset(Module &module) {
  for (Function &f : module)
    for (Instruction &inst : instructions(f)) {
      auto *select = dyn_cast<SelectInst>(&inst);
      auto *load = select ? dyn_cast<LoadInst>(select->getTrueValue()) : nullptr;
      auto *gep = load ? dyn_cast<GetElementPtrInst>(load->getPointerOperand()) : nullptr;
      if (!gep || gep->getAddressSpace() != kBufferFatPointer || gep->getNumIndices() != 1)
        continue;
      auto *offset = dyn_cast<SelectInst>(gep->getOperand(1));
      auto *pastTheEnd = offset ? dyn_cast<ConstantInt>(offset->getFalseValue()) : nullptr;
      if (!pastTheEnd || pastTheEnd->getZExtValue() != kPastTheEnd || offset->getCondition() != select->getCondition())
        continue;
      // Frozen, or the simplifier, knowing the offset is below 2^31 where
      // `c` holds, folds the test back into `c`.
      IRBuilder<> b(gep);
      Value *frozen = b.CreateFreeze(offset);
      gep->setOperand(1, frozen);
      b.SetInsertPoint(select);
      select->setCondition(b.CreateICmpNE(frozen, pastTheEnd));
    }
}

/// gfx950's direct-to-LDS loads write LDS through vmcnt, and without alias
/// information the backend waits for all of them (vmcnt(0)) before every
/// LDS read, which would drain the copies tile.async_wait leaves in flight.
/// The copies and the LDS reads get disjoint alias scopes: the kernel's own
/// waits and barriers (fences in the IR) order a slot's copy before its
/// reads, so the backend need not.
void scopeDirectToLdsCopies(Module &module) {
  auto isCopy = [](Instruction &inst) {
    auto *call = dyn_cast<IntrinsicInst>(&inst);
    // (LLVM's optimizations turn the buffer form into load.to.lds of a
    // buffer fat pointer.)
    return call && (call->getIntrinsicID() == Intrinsic::amdgcn_raw_ptr_buffer_load_lds ||
                    call->getIntrinsicID() == Intrinsic::amdgcn_global_load_lds ||
                    call->getIntrinsicID() == Intrinsic::amdgcn_load_to_lds);
  };
  for (Function &f : module) {
    if (llvm::none_of(instructions(f), isCopy))
      continue;
    MDBuilder md(module.getContext());
    MDNode *domain = md.createAnonymousAliasScopeDomain("rocktile.lds");
    MDNode *copies = MDNode::get(module.getContext(), md.createAnonymousAliasScope(domain, "copies"));
    MDNode *reads = MDNode::get(module.getContext(), md.createAnonymousAliasScope(domain, "reads"));
    // LDS reads: loads, and the intrinsics that only read memory through
    // an LDS pointer (transpose reads).
    auto readsLds = [](Instruction &inst) {
      if (auto *load = dyn_cast<LoadInst>(&inst))
        return load->getPointerAddressSpace() == 3;
      auto *call = dyn_cast<CallInst>(&inst);
      return call && call->onlyReadsMemory() && llvm::any_of(call->args(), [](const Use &arg) {
               auto *type = dyn_cast<PointerType>(arg->getType());
               return type && type->getAddressSpace() == 3;
             });
    };
    for (Instruction &inst : instructions(f)) {
      if (isCopy(inst)) {
        inst.setMetadata(LLVMContext::MD_alias_scope, copies);
        inst.setMetadata(LLVMContext::MD_noalias, reads);
      } else if (readsLds(inst)) {
        inst.setMetadata(LLVMContext::MD_alias_scope, reads);
        inst.setMetadata(LLVMContext::MD_noalias, copies);
      }
    }
  }
}

/// The assembly of a section the loader ignores (no SHF_ALLOC) holding the
/// kernel's SIMT program, zlib-compressed after its 8-byte little-endian
/// size: the emulator's HIP library runs the program from it.
std::string simtSection(StringRef simt) {
  SmallVector<uint8_t> compressed;
  compression::zlib::compress(arrayRefFromStringRef(simt), compressed);
  std::string out = "\n.section " + std::string(rocktile::kSimtSection) + ",\"\",@progbits\n.byte ";
  raw_string_ostream os(out);
  uint64_t size = simt.size();
  for (int i = 0; i < 8; ++i)
    os << (i ? "," : "") << ((size >> (8 * i)) & 0xff);
  for (uint8_t byte : compressed)
    os << "," << unsigned(byte);
  os << "\n";
  return out;
}

/// The backend reports what it cannot select through the context; by
/// default that exits the process. This collects the errors instead, and
/// reads the occupancy from the backend's resource-usage remark.
struct BackendDiagnostics : public DiagnosticHandler {
  std::string errors;
  int64_t occupancy = 0;

  bool isAnalysisRemarkEnabled(StringRef pass) const override {
    return pass == "kernel-resource-usage";
  }
  bool isAnyRemarkEnabled() const override { return true; }
  bool handleDiagnostics(const DiagnosticInfo &info) override {
    if (auto *remark = dyn_cast<DiagnosticInfoOptimizationBase>(&info)) {
      for (const DiagnosticInfoOptimizationBase::Argument &arg : remark->getArgs())
        if (arg.Key == "Occupancy")
          to_integer(arg.Val, occupancy);
      return true;
    }
    if (info.getSeverity() == DS_Error) {
      raw_string_ostream os(errors);
      DiagnosticPrinterRawOStream printer(os);
      info.print(printer);
      os << "\n";
    }
    return true;
  }
};

/// Assembles the backend's assembly text into a relocatable object with the
/// target's MC layer, as llvm-mc does: a second run of code generation for
/// the object would double the backend's time, which dominates compiling.
Expected<std::string> assemble(const TargetMachine &tm, StringRef assembly) {
  const Triple &triple = tm.getTargetTriple();
  const Target &target = tm.getTarget();
  const MCSubtargetInfo &sti = *tm.getMCSubtargetInfo();
  const MCRegisterInfo &mri = *tm.getMCRegisterInfo();
  const MCTargetOptions &options = tm.Options.MCOptions;
  std::string errors;
  SourceMgr sources;
  sources.AddNewSourceBuffer(MemoryBuffer::getMemBuffer(assembly, "amdgcn", false), SMLoc());
  sources.setDiagHandler(
      [](const SMDiagnostic &d, void *out) {
        raw_string_ostream os(*static_cast<std::string *>(out));
        d.print(nullptr, os, false);
      },
      &errors);
  MCContext context(triple, tm.getMCAsmInfo(), &mri, &sti, &sources, &options);
  std::unique_ptr<MCObjectFileInfo> files(target.createMCObjectFileInfo(context, /*PIC=*/true));
  context.setObjectFileInfo(files.get());
  SmallString<0> object;
  raw_svector_ostream os(object);
  std::unique_ptr<MCAsmBackend> backend(target.createMCAsmBackend(sti, mri, options));
  std::unique_ptr<MCObjectWriter> writer = backend->createObjectWriter(os);
  std::unique_ptr<MCStreamer> streamer(target.createMCObjectStreamer(
      triple, context, std::move(backend), std::move(writer),
      std::unique_ptr<MCCodeEmitter>(target.createMCCodeEmitter(*tm.getMCInstrInfo(), context)), sti));
  std::unique_ptr<MCAsmParser> parser(createMCAsmParser(sources, context, *streamer, *tm.getMCAsmInfo()));
  std::unique_ptr<MCTargetAsmParser> targetParser(
      target.createMCAsmParser(sti, *parser, *tm.getMCInstrInfo(), options));
  parser->setTargetParser(*targetParser);
  if (parser->Run(/*NoInitialTextSection=*/false) || !errors.empty())
    return createStringError("the AMDGPU assembler rejected the backend's output: " + errors);
  return std::string(object.str());
}
} // namespace

Error rocktile::emitCode(Module &module, StringRef chip, StringRef simt, std::string &assembly,
                         std::string &object, int64_t &occupancy) {
  auto handler = std::make_unique<BackendDiagnostics>();
  BackendDiagnostics &diagnostics = *handler;
  module.getContext().setDiagnosticHandler(std::move(handler));
  auto checkBackend = [&]() -> Error {
    occupancy = diagnostics.occupancy;
    if (diagnostics.errors.empty())
      return Error::success();
    return createStringError("the AMDGPU backend cannot compile this kernel for " +
                             chip.str() + ": " + diagnostics.errors);
  };
  auto tm = createTargetMachine(chip);
  if (!tm)
    return tm.takeError();
  module.setTargetTriple(Triple(kTriple));
  module.setDataLayout((*tm)->createDataLayout());

  LoopAnalysisManager lam;
  FunctionAnalysisManager fam;
  CGSCCAnalysisManager cgam;
  ModuleAnalysisManager mam;
  PassBuilder pb(tm->get());
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  selectBufferOffsetsInBytes(module);
  ModulePassManager passes = pb.buildPerModuleDefaultPipeline(OptimizationLevel::O3);
  // One-element vectors (the SIMT code's single-register tiles) can send
  // LLVM 22's SelectionDAG combiner into an endless loop on both targets
  // (test/fuzz/repro). Splitting them into scalars avoids it; 64-bit pieces
  // keep packed math (v_pk_add_f32, v_pk_fma_f16, ...).
  ScalarizerPassOptions scalarize;
  scalarize.ScalarizeMinBits = 64;
  passes.addPass(createModuleToFunctionPassAdaptor(ScalarizerPass(scalarize)));
  passes.run(module, mam);
  widenBf16Frem(module);
  maskLoadedValuesByOffset(module);
  sinkCompares(module);
  foldTruncatingExtracts(module);
  scopeDirectToLdsCopies(module);

  {
    raw_string_ostream os(assembly);
    buffer_ostream bos(os);
    legacy::PassManager pm;
    if ((*tm)->addPassesToEmitFile(pm, bos, nullptr, CodeGenFileType::AssemblyFile))
      return createStringError("the AMDGPU backend cannot emit assembly");
    pm.run(module);
  }
  if (Error e = checkBackend())
    return e;
  auto assembled = assemble(**tm, assembly + simtSection(simt));
  if (!assembled)
    return assembled.takeError();
  object = std::move(*assembled);
  return Error::success();
}

Expected<std::string> rocktile::linkCodeObject(StringRef object) {
  SmallString<128> input, output;
  int fd;
  // lld links files: the object goes through the temporary directory, whose
  // failures (full, unwritable) are errors, not LLVM's abort of the process.
  auto tempError = [](std::error_code ec, StringRef what) {
    SmallString<128> dir;
    sys::path::system_temp_directory(/*erasedOnReboot=*/true, dir);
    return createStringError(ec, "cannot write the code object's temporary " + what + " in " + dir + ": " +
                                     ec.message() + " (TMPDIR names another directory)");
  };
  if (auto ec = sys::fs::createTemporaryFile("rocktile", "o", fd, input))
    return tempError(ec, "object");
  {
    raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << object;
    os.close();
    if (std::error_code ec = os.error()) {
      os.clear_error();
      sys::fs::remove(input);
      return tempError(ec, "object");
    }
  }
  if (auto ec = sys::fs::createTemporaryFile("rocktile", "hsaco", output)) {
    sys::fs::remove(input);
    return tempError(ec, "code object");
  }
  std::string diagnostics;
  raw_string_ostream errs(diagnostics);
  // lld keeps global state: one link at a time.
  static std::mutex lldMutex;
  lld::Result result;
  {
    std::lock_guard<std::mutex> lock(lldMutex);
    const char *args[] = {"ld.lld", "-shared", input.c_str(), "-o", output.c_str()};
    result = lld::lldMain(args, nulls(), errs, {{lld::Gnu, &lld::elf::link}});
  }
  sys::fs::remove(input);
  auto buffer = MemoryBuffer::getFile(output);
  sys::fs::remove(output);
  if (result.retCode != 0 || !buffer)
    return createStringError("lld failed to link the code object: " + diagnostics);
  return (*buffer)->getBuffer().str();
}

Expected<std::map<std::string, int64_t>>
rocktile::readKernelMetadata(StringRef hsaco, std::string &kernelName, std::vector<KernargSlot> &kernargs) {
  auto file = object::ELF64LEObjectFile::create(MemoryBufferRef(hsaco, "hsaco"));
  if (!file)
    return file.takeError();
  const auto &elf = file->getELFFile();
  auto sections = elf.sections();
  if (!sections)
    return sections.takeError();
  msgpack::Document doc;
  bool found = false;
  for (const auto &section : *sections) {
    if (section.sh_type != ELF::SHT_NOTE)
      continue;
    Error err = Error::success();
    for (const auto &note : elf.notes(section, err))
      if (note.getName() == "AMDGPU" && note.getType() == ELF::NT_AMDGPU_METADATA)
        found = doc.readFromBlob(toStringRef(note.getDesc(4)), false);
    if (err)
      return std::move(err);
  }
  if (!found)
    return createStringError("the code object has no AMDGPU metadata note");
  auto kernels = doc.getRoot().getMap()["amdhsa.kernels"];
  if (kernels.isEmpty() || kernels.getArray().size() == 0)
    return createStringError("the code object describes no kernel");
  msgpack::MapDocNode kernel = kernels.getArray()[0].getMap();
  kernelName = kernel[".name"].getString().str();
  std::map<std::string, int64_t> md;
  auto integer = [&](StringRef key) -> int64_t {
    auto node = kernel.find(doc.getNode(key));
    if (node == kernel.end())
      return 0;
    return node->second.getKind() == msgpack::Type::Int ? node->second.getInt()
                                                         : int64_t(node->second.getUInt());
  };
  md["vgpr_count"] = integer(".vgpr_count");
  md["sgpr_count"] = integer(".sgpr_count");
  md["agpr_count"] = integer(".agpr_count");
  md["vgpr_spill_count"] = integer(".vgpr_spill_count");
  md["sgpr_spill_count"] = integer(".sgpr_spill_count");
  md["lds_bytes"] = integer(".group_segment_fixed_size");
  md["scratch_bytes"] = integer(".private_segment_fixed_size");
  md["wave_size"] = integer(".wavefront_size");
  md["kernarg_bytes"] = integer(".kernarg_segment_size");
  md["max_flat_workgroup_size"] = integer(".max_flat_workgroup_size");
  kernargs.clear();
  if (auto args = kernel.find(doc.getNode(".args")); args != kernel.end())
    for (msgpack::DocNode &arg : args->second.getArray()) {
      msgpack::MapDocNode slot = arg.getMap();
      kernargs.push_back({int64_t(slot[".offset"].getUInt()), int64_t(slot[".size"].getUInt()),
                          slot[".value_kind"].getString().str()});
    }
  md["code_size"] = 0;
  for (const object::ELFSymbolRef &sym : file->symbols()) {
    auto name = sym.getName();
    // Nothing is linked beside the kernel: a call out would fail to load.
    auto flags = sym.getFlags();
    if (name && !name->empty() && flags && (*flags & object::SymbolRef::SF_Undefined))
      return createStringError("the kernel calls '" + name->str() +
                               "', which is not available without the ROCm device library");
    if (name && *name == kernelName && sym.getELFType() == ELF::STT_FUNC)
      md["code_size"] = sym.getSize();
  }
  return md;
}
