#ifndef ROCKTILE_TRANSFORMS_PASSES_H
#define ROCKTILE_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class ModuleOp;
namespace gpu { class GPUDialect; class GPUModuleOp; }
namespace LLVM { class LLVMDialect; }
namespace memref { class MemRefDialect; }
namespace vector { class VectorDialect; }
namespace scf { class SCFDialect; }
namespace arith { class ArithDialect; }
namespace ROCDL { class ROCDLDialect; }
namespace amdgpu { class AMDGPUDialect; }
namespace cf { class ControlFlowDialect; }
} // namespace mlir

namespace rocktile {
/// Marks a gpu.barrier that follows explicit waits for this wave's copies
/// and LDS accesses (tile.async_wait): tile-convert-simt-to-llvm makes it a
/// bare s_barrier, fenced for the compiler only. A workgroup fence would
/// also wait for every copy still in flight (vmcnt(0) on gfx950).
constexpr llvm::StringLiteral kBarrierAfterWaits = "rocktile.barrier_after_waits";

#define GEN_PASS_DECL
#include "rocktile/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "rocktile/Transforms/Passes.h.inc"
} // namespace rocktile

#endif
