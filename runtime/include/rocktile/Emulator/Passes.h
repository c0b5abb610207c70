#ifndef ROCKTILE_EMULATOR_PASSES_H
#define ROCKTILE_EMULATOR_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
namespace func { class FuncDialect; }
namespace scf { class SCFDialect; }
namespace memref { class MemRefDialect; }
namespace arith { class ArithDialect; }
} // namespace mlir

namespace rocktile::emulator {
#define GEN_PASS_DECL
#include "rocktile/Emulator/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "rocktile/Emulator/Passes.h.inc"

/// The host program (after tile-lower-simt-to-host) to the LLVM dialect
/// (HostToLLVM.cpp).
std::unique_ptr<mlir::Pass> createHostToLLVM();
} // namespace rocktile::emulator

#endif
