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
#define GEN_PASS_DECL
#include "rocktile/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "rocktile/Transforms/Passes.h.inc"
} // namespace rocktile

#endif
