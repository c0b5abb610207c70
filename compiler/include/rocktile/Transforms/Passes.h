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
/// On a kernel function: the fewest stages a loop must get for
/// tile-pipeline-copies to copy its dot operands loaded through pointers
/// into LDS (default 2); with fewer they wait in registers. rocktile::compile
/// sets 3 where copies into 2 slots left too little LDS for the rest of the
/// kernel.
constexpr llvm::StringLiteral kAsyncCopiesFromStages = "tile.async_copies_from_stages";
/// On a kernel function whose LDS tile-allocate-lds found too small (beside
/// its error), for rocktile::compile to tell that failure from others.
constexpr llvm::StringLiteral kLdsOverflow = "tile.lds_overflow";

#define GEN_PASS_DECL
#include "rocktile/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "rocktile/Transforms/Passes.h.inc"
} // namespace rocktile

#endif
