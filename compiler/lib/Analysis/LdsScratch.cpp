#include "rocktile/Analysis/LdsScratch.h"

using namespace mlir;
using namespace rocktile;

SmallVector<unsigned> rocktile::getReducedWarpBits(tile::ReduceOp op) {
  auto type = cast<RankedTensorType>(op.getSrcs()[0].getType());
  LinearLayout layout = *tile::getLinearLayout(type);
  SmallVector<unsigned> bits;
  for (auto [bit, basis] : llvm::enumerate(layout.getBases(LinearLayout::Warp)))
    if (basis[op.getAxis()] != 0)
      bits.push_back(bit);
  return bits;
}

int64_t rocktile::exchangeBytes(RankedTensorType type) {
  Type elt = type.getElementType();
  if (isa<tile::PointerType>(elt))
    return 8; // element indices
  return std::max<int64_t>(elt.getIntOrFloatBitWidth() / 8, 1);
}

bool rocktile::needsLdsExchange(tile::ConvertLayoutOp op) {
  LinearLayout from = *tile::getLinearLayout(op.getSrc().getType());
  LinearLayout to = *tile::getLinearLayout(op.getType());
  for (auto in : {LinearLayout::Lane, LinearLayout::Warp})
    if (from.getBases(in) != to.getBases(in))
      return true;
  // Same lanes and warps: the registers hold the same set of elements.
  llvm::SmallVector<LinearLayout::Coord> a, b;
  for (int64_t r = 0; r < from.getNumRegisters(); ++r)
    a.push_back(from.apply(LinearLayout::Register, r));
  for (int64_t r = 0; r < to.getNumRegisters(); ++r)
    b.push_back(to.apply(LinearLayout::Register, r));
  llvm::sort(a);
  llvm::sort(b);
  return a != b;
}

int64_t rocktile::getLdsScratchBytes(Operation *op) {
  // A scalar atomic runs in one thread, which hands the old value to all.
  if (isa<tile::AtomicRMWOp, tile::AtomicCASOp>(op) && !isa<RankedTensorType>(op->getResult(0).getType()))
    return std::max<int64_t>(op->getResult(0).getType().getIntOrFloatBitWidth() / 8, 4);
  if (auto reshape = dyn_cast<tile::ReshapeOp>(op))
    return reshape.getType().getNumElements() * exchangeBytes(reshape.getType());
  if (auto convert = dyn_cast<tile::ConvertLayoutOp>(op))
    return needsLdsExchange(convert) ? convert.getType().getNumElements() * exchangeBytes(convert.getType())
                                     : 0;
  auto reduce = dyn_cast<tile::ReduceOp>(op);
  if (!reduce)
    return 0;
  int64_t warps = int64_t(1) << getReducedWarpBits(reduce).size();
  if (warps == 1)
    return 0;
  int64_t bytes = 0;
  for (Value r : reduce.getResults()) {
    auto t = dyn_cast<RankedTensorType>(r.getType());
    int64_t elements = t ? t.getNumElements() : 1;
    int64_t eltBytes =
        std::max<int64_t>(tile::getElementTypeOrSelf(r.getType()).getIntOrFloatBitWidth() / 8, 1);
    // One slot per (warp along the axis, output element).
    bytes += warps * elements * ((eltBytes + 3) / 4 * 4);
  }
  return bytes;
}
