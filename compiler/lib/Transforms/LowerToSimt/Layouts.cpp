// Moving elements between layouts: register renaming where the lanes already
// hold them, LDS exchanges otherwise.
#include "KernelLowering.h"
#include "rocktile/Analysis/LdsScratch.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace rocktile;
using namespace rocktile::simt;

/// Ops that only rename which register holds which element (broadcast,
/// expand_dims): each result register takes the source register holding the
/// element `toSrc` maps its coordinate to. The lane and warp parts of the two
/// layouts must agree, or data would have to move between lanes.
LogicalResult KernelLowering::lowerRegisterRemap(
    Operation *op, Value src,
    function_ref<LinearLayout::Coord(LinearLayout::Coord)> toSrc) {
  LinearLayout srcLayout = layoutOf(src), dstLayout = layoutOf(op->getResult(0));
  for (auto in : {LinearLayout::Lane, LinearLayout::Warp})
    for (auto [d, s] : llvm::zip(dstLayout.getBases(in), srcLayout.getBases(in)))
      if (toSrc(d) != s)
        return op->emitError("the source and result layouts distribute lanes "
                             "differently; a layout conversion is needed");
  SmallVector<int64_t> mask;
  for (int64_t r = 0; r < dstLayout.getNumRegisters(); ++r) {
    LinearLayout::Coord want = toSrc(dstLayout.apply(LinearLayout::Register, r));
    int64_t found = -1;
    for (int64_t s = 0; s < srcLayout.getNumRegisters() && found < 0; ++s)
      if (srcLayout.apply(LinearLayout::Register, s) == want)
        found = s;
    if (found < 0)
      return op->emitError("result element not held by the lane's source registers");
    mask.push_back(found);
  }
  LaneValue in = values.lookup(src);
  bool identity = mask.size() == size_t(srcLayout.getNumRegisters()) &&
                  llvm::equal(mask, llvm::seq<int64_t>(0, mask.size()));
  values[op->getResult(0)] = {
      in.base, identity ? in.value
                        : vector::ShuffleOp::create(b, loc(), in.value, in.value, mask).getResult()};
  return success();
}

SmallVector<Value> KernelLowering::rowMajorIndices(const LinearLayout &layout) {
  SmallVector<Value> threadPart, indices;
  for (unsigned d = 0; d < layout.getRank(); ++d)
    threadPart.push_back(threadCoord(layout, d));
  for (int64_t r = 0; r < layout.getNumRegisters(); ++r) {
    LinearLayout::Coord c = layout.apply(LinearLayout::Register, r);
    Value linear = i32(0);
    for (unsigned d = 0; d < layout.getRank(); ++d) {
      Value coord = arith::AddIOp::create(b, loc(), threadPart[d], i32(c[d]));
      linear = arith::AddIOp::create(
          b, loc(), arith::MulIOp::create(b, loc(), linear, i32(layout.getShape()[d])), coord);
    }
    indices.push_back(linear);
  }
  return indices;
}

LogicalResult KernelLowering::lowerConvertLayout(tile::ConvertLayoutOp op) {
  if (!needsLdsExchange(op))
    return lowerRegisterRemap(op, op.getSrc(), [](LinearLayout::Coord c) { return c; });
  return exchangeThroughLds(op);
}

LogicalResult KernelLowering::lowerTrans(tile::TransOp op) {
  LinearLayout from = layoutOf(op.getSrc()), to = layoutOf(op);
  auto permuted = [&](LinearLayout::Coord c) {
    LinearLayout::Coord out;
    for (int32_t d : op.getOrder())
      out.push_back(c[d]);
    return out;
  };
  for (auto in : {LinearLayout::Register, LinearLayout::Lane, LinearLayout::Warp})
    for (auto [s, d] : llvm::zip_equal(from.getBases(in), to.getBases(in)))
      if (permuted(s) != d)
        return op.emitError("the result's layout must be the source's with permuted dimensions");
  values[op] = values.lookup(op.getSrc());
  return success();
}

void KernelLowering::byOwners(const LinearLayout &layout, function_ref<void()> emit) {
  Value owns = ownsElements(layout);
  if (!owns)
    return emit();
  auto guard = scf::IfOp::create(b, loc(), owns, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard restore(b);
  b.setInsertionPoint(guard.thenBlock()->getTerminator());
  emit();
}

LogicalResult KernelLowering::exchangeThroughLds(Operation *op) {
  Value srcValue = op->getOperand(0), result = op->getResult(0);
  LinearLayout from = layoutOf(srcValue), to = layoutOf(result);
  if (!from.isAdditive() || !to.isAdditive())
    return op->emitError("moving elements between lanes needs layouts whose coordinates add up");
  LaneValue src = values.lookup(srcValue);
  auto resultType = cast<RankedTensorType>(result.getType());
  auto vtype = laneVectorType(resultType, to);
  FailureOr<Value> view = scratchView(op, vtype.getElementType(), resultType.getNumElements());
  if (failed(view))
    return failure();
  auto toIndex = [&](Value v) { return arith::IndexCastOp::create(b, loc(), b.getIndexType(), v); };
  // The lanes that own elements write them (a copy in another wave would
  // race with them, even with the same value), then every lane reads what
  // the new layout gives it.
  gpu::BarrierOp::create(b, loc());
  SmallVector<Value> at = rowMajorIndices(from);
  byOwners(from, [&] {
    for (auto [r, index] : llvm::enumerate(at))
      memref::StoreOp::create(b, loc(), vector::ExtractOp::create(b, loc(), src.value, r), *view,
                              ValueRange{toIndex(index)});
  });
  gpu::BarrierOp::create(b, loc());
  SmallVector<Value> elems;
  for (Value at : rowMajorIndices(to))
    elems.push_back(memref::LoadOp::create(b, loc(), *view, ValueRange{toIndex(at)}));
  values[result] = {src.base, vector::FromElementsOp::create(b, loc(), vtype, elems)};
  return success();
}

FailureOr<Value> KernelLowering::scratchView(Operation *op, Type elt, int64_t count,
                                             int64_t byteOffset) {
  auto offset = op->getAttrOfType<IntegerAttr>("tile.lds_offset");
  if (!offset || kernel.getWorkgroupAttributions().empty())
    return op->emitError("needs LDS scratch: run tile-allocate-lds first");
  Value lds = kernel.getWorkgroupAttributions()[0];
  auto type = MemRefType::get({count}, elt, MemRefLayoutAttrInterface(),
                              cast<MemRefType>(lds.getType()).getMemorySpace());
  return memref::ViewOp::create(b, loc(), type, lds, idx(offset.getInt() + byteOffset), ValueRange{})
      .getResult();
}
