// LDS that an op needs only while it runs (to exchange values between
// warps, or to hand a scalar atomic's result to every thread). Shared by the allocator, which sizes it, and the lowering, which
// lays it out, so both agree by construction.
#ifndef ROCKTILE_ANALYSIS_LDSSCRATCH_H
#define ROCKTILE_ANALYSIS_LDSSCRATCH_H

#include "rocktile/Analysis/LdsLayout.h"
#include "rocktile/Dialect/Tile/IR/Tile.h"

namespace rocktile {

/// For a reduction across warps: the warp-index bits that move along the
/// reduced axis (their count is log2 of the warps holding partial results).
llvm::SmallVector<unsigned> getReducedWarpBits(tile::ReduceOp op);

/// Whether a layout conversion must move elements between lanes (through
/// LDS) rather than only rename registers.
bool needsLdsExchange(tile::ConvertLayoutOp op);
/// Whether a reshape must move elements between lanes (through LDS): unless
/// its result's layout is its source's reshaped, where every lane keeps the
/// elements it holds.
bool needsLdsExchange(tile::ReshapeOp op);
/// Whether a tile atomic's old values go from the lanes and warps that own
/// its elements (which alone update memory) to those that hold copies.
bool atomicHandsOver(mlir::Operation *op);
/// Bytes per element when `type`'s elements go through LDS.
int64_t exchangeBytes(mlir::RankedTensorType type);

/// A layout conversion through LDS done in pieces, so that large tiles (a
/// 256x256 fp32 accumulator) fit: each piece is the part of the tile with
/// fixed values of some coordinate bits that both layouts hold in registers.
struct ExchangePieces {
  llvm::SmallVector<unsigned, 4> fromBits, toBits; // register bits indexing the pieces
  LinearLayout from, to;                           // the layouts of one piece
  int64_t count() const { return int64_t(1) << fromBits.size(); }
};
/// The conversion from `from` to `to` in the fewest pieces of at most
/// kMaxExchangeBytes each (one piece when no common register bit exists).
ExchangePieces splitExchange(const LinearLayout &from, const LinearLayout &to, int64_t eltBytes);
/// Beyond this many bytes an exchange goes in pieces: LDS kept for the
/// kernel's other uses and for more workgroups per CU.
constexpr int64_t kMaxExchangeBytes = 64 * 1024;

/// Bytes of LDS scratch `op` needs on `target`; 0 when it needs none.
int64_t getLdsScratchBytes(mlir::Operation *op, const Target &target);

/// How a block copied to LDS (tile.descriptor_load, tile.async_copy) lies
/// there: row-major, its rows padded by the Tensor Data Mover (by 0, 4 or 8
/// dwords, where its pad interval can be a row) as makes reading it in
/// `block`'s layout cheapest in the target's banks; with the read chosen.
LdsLayout blockCopyLayout(mlir::RankedTensorType block, const Target &target);
/// Elements of LDS a block copied so takes, padding included.
int64_t blockCopyElements(const LdsLayout &lds);
/// The type (and layout) in which the slots of `buffer` are read; the
/// unread slots of a buffer without a tile.local_load are of no layout.
mlir::RankedTensorType slotType(tile::LocalAllocOp buffer);

/// How tile.async_load copies a tile read in `read`'s layout lie in LDS
/// (chooseCopiedLdsLayout along the last dimension).
LdsLayout asyncLoadLayout(mlir::RankedTensorType read, const Target &target);
/// How the slots of `buffer` lie in LDS: as its author arranged them (the
/// explicit level), as tile.async_load copies them (asyncLoadLayout), or
/// as block copies land (blockCopyLayout).
LdsLayout slotLayout(tile::LocalAllocOp buffer, const Target &target);

} // namespace rocktile

#endif
