// How many registers per lane a kernel's tiles need at once, from their
// layouts: what decides whether LLVM schedules the kernel for latency or
// for register pressure.
#ifndef ROCKTILE_ANALYSIS_REGISTERDEMAND_H
#define ROCKTILE_ANALYSIS_REGISTERDEMAND_H

#include "mlir/IR/Operation.h"

namespace rocktile {

/// The most 32-bit registers per lane that the tiles live at one point of
/// `func` hold (liveness over its blocks and loops; a tile's share is its
/// layout's registers per lane, packed 32 bits to a register; conditions
/// count none, as lane masks live in scalar registers, and pointers one per
/// access, a 32-bit offset from a base for up to 16 contiguous bytes).
/// Scalars and temporaries are left out. `peak`, if given, gets an op
/// across which that many are live.
int64_t registerDemand(mlir::Operation *func, mlir::Operation **peak = nullptr);

} // namespace rocktile

#endif
