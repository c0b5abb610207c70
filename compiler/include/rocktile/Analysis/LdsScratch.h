// LDS that an op needs only while it runs (to exchange values between
// warps, or to hand a scalar atomic's result to every thread). Shared by the allocator, which sizes it, and the lowering, which
// lays it out, so both agree by construction.
#ifndef ROCKTILE_ANALYSIS_LDSSCRATCH_H
#define ROCKTILE_ANALYSIS_LDSSCRATCH_H

#include "rocktile/Dialect/Tile/IR/Tile.h"

namespace rocktile {

/// For a reduction across warps: the warp-index bits that move along the
/// reduced axis (their count is log2 of the warps holding partial results).
llvm::SmallVector<unsigned> getReducedWarpBits(tile::ReduceOp op);

/// Whether a layout conversion must move elements between lanes (through
/// LDS) rather than only rename registers.
bool needsLdsExchange(tile::ConvertLayoutOp op);
/// Bytes per element when `type`'s elements go through LDS.
int64_t exchangeBytes(mlir::RankedTensorType type);

/// Bytes of LDS scratch `op` needs; 0 when it needs none.
int64_t getLdsScratchBytes(mlir::Operation *op);

} // namespace rocktile

#endif
