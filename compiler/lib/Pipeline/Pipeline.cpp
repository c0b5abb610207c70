#include "rocktile/Pipeline/Pipeline.h"
#include "rocktile/CodeObject/CodeObject.h"
#include "rocktile/Target/Target.h"
#include "rocktile/Transforms/Passes.h"
#include "mlir/Conversion/ArithToAMDGPU/ArithToAMDGPU.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "rocktile/Dialect/Tile/IR/Tile.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace rocktile;

void rocktile::registerDialects(DialectRegistry &registry) {
  registry.insert<tile::TileDialect, func::FuncDialect, arith::ArithDialect,
                  math::MathDialect, scf::SCFDialect, cf::ControlFlowDialect,
                  gpu::GPUDialect, memref::MemRefDialect, vector::VectorDialect,
                  amdgpu::AMDGPUDialect, ROCDL::ROCDLDialect, LLVM::LLVMDialect>();
  func::registerInlinerExtension(registry);
  // convert-gpu-to-rocdl lowers every dialect that offers these interfaces.
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  vector::registerConvertVectorToLLVMInterface(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerROCDLDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
}

void rocktile::buildTilePipeline(OpPassManager &pm, const CompileOptions &o) {
  // Before the canonicalizer (which the inliner also runs), which erases a
  // loop free of effects: `while tl.load(flag) == 0: pass` would vanish.
  pm.addPass(createCheckSpinWaits());
  pm.addPass(createInlinerPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createFuseMultiplyAdd());
  // The hardware converts only fp32 to and from fp8, and computes nothing in
  // fp8. The front end does fp8 arithmetic in fp32, but the canonicalizer
  // fuses truncf(sitofp) into an int -> fp8 sitofp.
  pm.addPass(arith::createArithEmulateUnsupportedFloats({{"f8E4M3FN", "f8E5M2"}, "f32"}));
  pm.addPass(createPipelineCopies({o.target, o.numWarps}));
  pm.addPass(createInsertBarriers());
  pm.addPass(createAssignLayouts({o.target, o.numWarps}));
  pm.addPass(createAllocateLds({o.target}));
}

void rocktile::buildSimtPipeline(OpPassManager &pm, const CompileOptions &o) {
  pm.addPass(createLowerToSimt({o.target}));
  // fp8 <-> fp32 conversions become the hardware's packed conversions, so
  // the emulator runs them too. Finite values beyond the fp8 range saturate.
  pm.addPass(createArithToAMDGPUConversionPass({o.target, /*saturateFP8Truncf=*/true}));
  // Loops here carry each register of a tile as a value of its own (515 in
  // an int8 GEMM's pipelined K loop on gfx1250), and MLIR's pattern that
  // merges loop-carried values that are always equal took 1.5 of that
  // kernel's 2.3 s compile, to no effect: tiles carried twice were merged at
  // the tile level, and LLVM merges equal phis (test/Transforms/
  // simt-pipeline.mlir checks that the pattern stays off).
  pm.addPass(createCanonicalizerPass(GreedyRewriteConfig(),
                                     /*disabledPatterns=*/{"(anonymous namespace)::RemoveDuplicateSuccessorInputUses"}));
  pm.addPass(createCSEPass());
}

void rocktile::buildLLVMPipeline(OpPassManager &pm, const CompileOptions &o) {
  pm.addPass(createSCFToControlFlowPass());
  pm.nest<gpu::GPUModuleOp>().addPass(createConvertSimtToLLVM({o.target}));
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void rocktile::registerPipelines() {
  struct Options : public PassPipelineOptions<Options> {
    Option<std::string> target{*this, "target", llvm::cl::init("gfx950")};
    Option<unsigned> numWarps{*this, "num-warps", llvm::cl::init(4)};
    CompileOptions get() const { return {target, numWarps}; }
  };
  PassPipelineRegistration<Options>(
      "rocktile-tile-pipeline", "Tile-level passes up to layouts and LDS",
      [](OpPassManager &pm, const Options &o) { buildTilePipeline(pm, o.get()); });
  PassPipelineRegistration<Options>(
      "rocktile-simt-pipeline", "Tile -> SIMT (the emulator's cut)",
      [](OpPassManager &pm, const Options &o) { buildSimtPipeline(pm, o.get()); });
  PassPipelineRegistration<Options>(
      "rocktile-llvm-pipeline", "SIMT -> LLVM dialect with ROCDL",
      [](OpPassManager &pm, const Options &o) { buildLLVMPipeline(pm, o.get()); });
}

std::string rocktile::printIR(Operation *op, bool withLocations) {
  std::string s;
  llvm::raw_string_ostream os(s);
  OpPrintingFlags flags;
  if (withLocations)
    flags.enableDebugInfo();
  op->print(os, flags);
  return s;
}

static LogicalResult runPipeline(ModuleOp module, const CompileOptions &options,
                                 void (*build)(OpPassManager &, const CompileOptions &)) {
  PassManager pm(module.getContext());
  build(pm, options);
  return pm.run(module);
}

/// Runs the tile pipeline. Copies into 2 LDS slots (at 2 stages, as
/// Triton's default on gfx950, or where the LDS holds no more) can leave
/// too little LDS for the rest of a kernel that compiled with those loads
/// waiting in registers: such a kernel is compiled again with copies only
/// where a loop gets 3 stages or more, and the first try's diagnostics are
/// dropped.
static LogicalResult runTilePipeline(ModuleOp module, const CompileOptions &options) {
  OwningOpRef<ModuleOp> original(module.clone());
  std::vector<Diagnostic> held;
  LogicalResult tiled = [&] {
    ScopedDiagnosticHandler hold(module.getContext(), [&](Diagnostic &d) {
      held.push_back(std::move(d));
      return success();
    });
    return runPipeline(module, options, buildTilePipeline);
  }();
  bool copies = false, ldsOverflow = false;
  module.walk([&](tile::AsyncLoadOp) { copies = true; });
  module.walk([&](func::FuncOp f) { ldsOverflow |= f->hasAttr(kLdsOverflow); });
  if (failed(tiled) && copies && ldsOverflow) {
    module.getBodyRegion().takeBody(original->getBodyRegion());
    MLIRContext *ctx = module.getContext();
    module.walk([&](func::FuncOp f) {
      f->setAttr(kAsyncCopiesFromStages, IntegerAttr::get(IntegerType::get(ctx, 32), 3));
    });
    return runPipeline(module, options, buildTilePipeline);
  }
  for (Diagnostic &d : held)
    module.getContext()->getDiagEngine().emit(std::move(d));
  return tiled;
}

FailureOr<CompileResult> rocktile::compile(ModuleOp module, const CompileOptions &options) {
  CompileResult result;
  auto run = [&](auto build) { return runPipeline(module, options, build); };
  if (failed(runTilePipeline(module, options)))
    return failure();
  result.tile = printIR(module);
  if (failed(run(buildSimtPipeline)))
    return failure();
  result.simt = printIR(module);
  result.simtWithLocations = printIR(module, /*withLocations=*/true);
  std::optional<Location> emulatorOnly;
  module.walk([&](gpu::GPUFuncOp f) {
    if (auto where = f->getAttrOfType<LocationAttr>("rocktile.emulator_only"))
      emulatorOnly = Location(where);
    result.kernelName = f.getName().str();
  });
  if (emulatorOnly && !options.allowEmulatorOnly)
    return emitError(*emulatorOnly) << "tl.device_print and tl.device_assert run only in the "
                                       "emulator for now; they cannot be compiled for "
                                    << options.target << " hardware",
           failure();
  if (emulatorOnly || options.stopAtSimt) {
    result.emulatorOnly = bool(emulatorOnly);
    result.metadata["wave_size"] = lookupTarget(options.target)->waveSize;
    result.metadata["lds_banks"] = lookupTarget(options.target)->ldsBanks;
    return result;
  }
  if (failed(emitCodeObject(module, options, result)))
    return failure();
  return result;
}

LogicalResult rocktile::emitCodeObject(ModuleOp module, const CompileOptions &options, CompileResult &result) {
  if (failed(runPipeline(module, options, buildLLVMPipeline)))
    return failure();

  auto gpuModules = module.getOps<gpu::GPUModuleOp>();
  if (gpuModules.empty())
    return module.emitError("the module holds no kernel"), failure();
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(*gpuModules.begin(), llvmContext, "rocktile");
  if (!llvmModule)
    return module.emitError("translation to LLVM IR failed"), failure();
  auto fail = [&](llvm::Error err) {
    module.emitError() << llvm::toString(std::move(err));
    return failure();
  };
  int64_t occupancy = 0;
  if (llvm::Error err = emitCode(*llvmModule, options.target, result.simtWithLocations, result.amdgcn, result.hsaco, occupancy))
    return fail(std::move(err));
  llvm::raw_string_ostream(result.llir) << *llvmModule;
  auto linked = linkCodeObject(result.hsaco);
  if (!linked)
    return fail(linked.takeError());
  result.hsaco = std::move(*linked);
  auto metadata = readKernelMetadata(result.hsaco, result.kernelName, result.kernargs);
  if (!metadata)
    return fail(metadata.takeError());
  result.metadata = std::move(*metadata);
  result.metadata["occupancy"] = occupancy;
  result.metadata["lds_banks"] = lookupTarget(options.target)->ldsBanks;
  return success();
}
