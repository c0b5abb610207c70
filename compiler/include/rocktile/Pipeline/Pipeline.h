// The compilation pipeline, readable as one list per stage. Stages stop at
// the points where rocktile shows its IR: tile (layouts assigned), simt (the
// emulator's cut), llir, amdgcn.
#ifndef ROCKTILE_PIPELINE_PIPELINE_H
#define ROCKTILE_PIPELINE_PIPELINE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "rocktile/CodeObject/CodeObject.h"
#include <map>
#include <string>

namespace rocktile {

struct CompileOptions {
  std::string target = "gfx950";
  unsigned numWarps = 4;
  /// Stop at the SIMT program when the kernel uses what only the emulator
  /// runs (device_print, device_assert) instead of reporting an error.
  bool allowEmulatorOnly = false;
  /// Stop at the SIMT program in any case (what the emulator runs); the
  /// code object can be made from it later (emitCodeObject).
  bool stopAtSimt = false;
};

/// Every dialect, interface and translation the pipeline uses.
void registerDialects(mlir::DialectRegistry &registry);

/// Cleanup, layout assignment and LDS allocation on the tile dialect.
void buildTilePipeline(mlir::OpPassManager &pm, const CompileOptions &options);
/// Tile -> SIMT code in upstream dialects.
void buildSimtPipeline(mlir::OpPassManager &pm, const CompileOptions &options);
/// SIMT -> LLVM dialect with ROCDL intrinsics.
void buildLLVMPipeline(mlir::OpPassManager &pm, const CompileOptions &options);
/// Registers the three stages as named pipelines for rocktile-opt.
void registerPipelines();

struct CompileResult {
  std::string tile, simt, llir, amdgcn, hsaco;
  /// The SIMT program with source locations: what the emulator runs.
  std::string simtWithLocations;
  /// Set when the kernel runs only in the emulator: no LLVM IR, assembly or
  /// code object were made.
  bool emulatorOnly = false;
  std::map<std::string, int64_t> metadata;
  std::string kernelName;
  std::vector<KernargSlot> kernargs;
};

/// `op` as MLIR text, with source locations if asked.
std::string printIR(mlir::Operation *op, bool withLocations = false);

/// Compiles a module holding one tile-dialect kernel down to a code object
/// (or to its SIMT program: options.stopAtSimt). Errors are reported
/// through the context's diagnostic handler.
mlir::FailureOr<CompileResult> compile(mlir::ModuleOp module,
                                       const CompileOptions &options);

/// The code object of a SIMT program (CompileResult::simtWithLocations, as
/// text): fills in `result`'s LLVM IR, assembly, code object, kernargs and
/// metadata.
mlir::LogicalResult emitCodeObject(mlir::ModuleOp simt, const CompileOptions &options, CompileResult &result);

} // namespace rocktile

#endif
