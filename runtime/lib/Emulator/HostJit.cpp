#include "rocktile/Emulator/HostJit.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ExecutionEngine/Orc/AbsoluteSymbols.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ObjectTransformLayer.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include <algorithm>
#include <mutex>
#include <set>

using namespace mlir;
using namespace rocktile::emulator;
namespace orc = llvm::orc;

namespace {

/// `void <name>_packed(ptr args)`: calls `f` with *args[0], *args[1], ...
/// so that launches need not know how memrefs were expanded into scalars.
void addPackedEntry(llvm::Module &m, llvm::Function &f, llvm::StringRef name) {
  llvm::LLVMContext &ctx = m.getContext();
  auto *ptr = llvm::PointerType::get(ctx, 0);
  auto *wrapper = llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr}, false),
                                         llvm::GlobalValue::ExternalLinkage, name, m);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "", wrapper));
  llvm::SmallVector<llvm::Value *> args;
  for (llvm::Argument &arg : f.args()) {
    llvm::Value *slot = b.CreateConstGEP1_64(ptr, wrapper->getArg(0), arg.getArgNo());
    args.push_back(b.CreateLoad(arg.getType(), b.CreateLoad(ptr, slot)));
  }
  b.CreateCall(&f, args);
  b.CreateRetVoid();
}

std::vector<std::string> undefinedSymbols(llvm::MemoryBufferRef object) {
  std::set<std::string> names;
  auto file = llvm::object::ObjectFile::createObjectFile(object);
  if (!file) {
    llvm::consumeError(file.takeError());
    return {};
  }
  for (const llvm::object::SymbolRef &s : (*file)->symbols()) {
    auto flags = s.getFlags();
    auto name = s.getName();
    if (flags && name && (*flags & llvm::object::SymbolRef::SF_Undefined) && !name->empty())
      names.insert(name->str());
    if (!flags)
      llvm::consumeError(flags.takeError());
    if (!name)
      llvm::consumeError(name.takeError());
  }
  return {names.begin(), names.end()};
}

} // namespace

HostJit::~HostJit() = default;

FailureOr<std::unique_ptr<HostJit>> HostJit::create(ModuleOp module, llvm::StringRef entryName,
                                                    llvm::StringRef cpu,
                                                    llvm::ArrayRef<HostSymbol> symbols) {
  static std::once_flag nativeTarget;
  std::call_once(nativeTarget, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  auto fail = [&](const llvm::Twine &message) {
    module.emitError() << "JIT compilation for the host failed: " << message.str();
    return failure();
  };

  orc::JITTargetMachineBuilder machine(llvm::Triple(llvm::sys::getProcessTriple()));
  if (cpu.empty()) {
    auto host = orc::JITTargetMachineBuilder::detectHost();
    if (!host)
      return fail(llvm::toString(host.takeError()));
    machine = std::move(*host);
    // LLVM 22's x86 instruction selection fails on some wide float
    // compares of converted bf16 values when AVX512-BF16 is on ("Cannot
    // select: v16f32 = X86ISD::CMPP", the fuzzer's kernel seed 20261637):
    // the host code's bf16 conversions are rocktile's own anyway.
    machine.getFeatures().AddFeature("avx512bf16", false);
  } else {
    machine.setCPU(cpu.str());
  }
  auto tm = machine.createTargetMachine();
  if (!tm)
    return fail(llvm::toString(tm.takeError()));

  auto context = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> llvmModule = translateModuleToLLVMIR(module, *context);
  if (!llvmModule)
    return fail("the host program does not translate to LLVM IR");
  llvmModule->setDataLayout((*tm)->createDataLayout());
  llvmModule->setTargetTriple((*tm)->getTargetTriple());
  llvm::Function *target = llvmModule->getFunction(entryName);
  if (!target || !target->getReturnType()->isVoidTy())
    return fail("no host function " + entryName + " without results");
  std::string packedName = (entryName + "_packed").str();
  addPackedEntry(*llvmModule, *target, packedName);
  if (llvm::Error e = makeOptimizingTransformer(/*optLevel=*/2, /*sizeLevel=*/0, tm->get())(llvmModule.get()))
    return fail(llvm::toString(std::move(e)));

  std::unique_ptr<HostJit> result(new HostJit());
  auto jit = orc::LLJITBuilder()
                 .setJITTargetMachineBuilder(std::move(machine))
                 .setLinkProcessSymbolsByDefault(false)
                 .setPlatformSetUp(orc::setUpInactivePlatform)
                 .create();
  if (!jit)
    return fail(llvm::toString(jit.takeError()));
  result->jit = std::move(*jit);
  // Failures come back from lookup and are reported there, with the names.
  result->jit->getExecutionSession().setErrorReporter([](llvm::Error e) { llvm::consumeError(std::move(e)); });
  HostJit *self = result.get();
  result->jit->getObjTransformLayer().setTransform(
      [self](std::unique_ptr<llvm::MemoryBuffer> object) -> llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> {
        self->imports = undefinedSymbols(object->getMemBufferRef());
        return std::move(object);
      });

  orc::SymbolMap provided;
  for (const HostSymbol &s : symbols)
    provided[result->jit->mangleAndIntern(s.name)] = {
        orc::ExecutorAddr::fromPtr(s.address),
        llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  if (llvm::Error e = result->jit->getMainJITDylib().define(orc::absoluteSymbols(std::move(provided))))
    return fail(llvm::toString(std::move(e)));
  if (llvm::Error e = result->jit->addIRModule(orc::ThreadSafeModule(std::move(llvmModule), std::move(context))))
    return fail(llvm::toString(std::move(e)));

  auto address = result->jit->lookup(packedName);
  if (!address) {
    std::string error = llvm::toString(address.takeError());
    std::vector<std::string> missing;
    for (const std::string &name : result->imports)
      if (std::none_of(symbols.begin(), symbols.end(), [&](const HostSymbol &s) { return name == s.name; }))
        missing.push_back(name);
    if (missing.empty())
      return fail(error);
    return fail("the host program calls " + llvm::join(missing, ", ") +
                ", which the emulator's runtime does not provide");
  }
  result->entry = address->toPtr<void (*)(void **)>();
  return result;
}
