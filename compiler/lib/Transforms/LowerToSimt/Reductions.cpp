// Reductions: within a lane, across lanes (DPP, ds_swizzle, permlane), across
// warps through LDS.
#include "KernelLowering.h"
#include "rocktile/Analysis/LdsScratch.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace rocktile;
using namespace rocktile::simt;

SmallVector<Value> KernelLowering::combine(tile::ReduceOp op, ValueRange acc,
                                           ValueRange next) {
  Block &body = op.getCombiner().front();
  IRMapping map;
  unsigned n = acc.size();
  for (unsigned i = 0; i < n; ++i) {
    map.map(body.getArgument(i), acc[i]);
    map.map(body.getArgument(n + i), next[i]);
  }
  for (Operation &inner : body.without_terminator()) {
    // Values from outside the combiner (e.g. constants CSE hoisted out of
    // it) are used in their lowered form.
    for (Value operand : inner.getOperands())
      if (!map.contains(operand) && operand.getParentBlock() != &body)
        map.map(operand, lookup(operand));
    b.clone(inner, map);
  }
  SmallVector<Value> out;
  for (Value v : body.getTerminator()->getOperands())
    out.push_back(map.contains(v) ? map.lookup(v) : lookup(v));
  return out;
}

Value KernelLowering::shuffleXor(Value v, unsigned mask) {
  Type type = v.getType();
  unsigned bits = type.getIntOrFloatBitWidth();
  // Lanes exchange 32-bit words; narrower values travel zero-extended.
  if (bits < 32) {
    Value word = arith::ExtUIOp::create(
        b, loc(), b.getI32Type(),
        arith::BitcastOp::create(b, loc(), b.getIntegerType(bits), v));
    Value moved = shuffleXor(word, mask);
    return arith::BitcastOp::create(
        b, loc(), type, arith::TruncIOp::create(b, loc(), b.getIntegerType(bits), moved));
  }
  // The cheapest exchange the hardware has for each distance: DPP within a
  // quad, ds_swizzle within 32 lanes, a permlane swap between wave halves.
  if (bits == 32 && mask <= 2) {
    SmallVector<Attribute> perm;
    for (unsigned lane = 0; lane < 4; ++lane)
      perm.push_back(b.getI32IntegerAttr(lane ^ mask));
    return amdgpu::DPPOp::create(b, loc(), type, v, v, amdgpu::DPPPerm::quad_perm,
                                 b.getArrayAttr(perm));
  }
  if (bits == 32 && mask < 32)
    return amdgpu::SwizzleBitModeOp::create(b, loc(), v, /*and_mask=*/31,
                                            /*or_mask=*/0, /*xor_mask=*/mask);
  if (bits == 32 && mask == 32 && target.hasPermlane32Swap)
    return amdgpu::PermlaneSwapOp::create(b, loc(), type, v, 32);
  return gpu::ShuffleOp::create(b, loc(), v, i32(mask), i32(target.waveSize),
                                gpu::ShuffleMode::XOR)
      .getShuffleResult();
}

LogicalResult KernelLowering::lowerReduce(tile::ReduceOp op) {
  LinearLayout layout = layoutOf(op.getSrcs()[0]);
  unsigned ax = op.getAxis();
  if (!layout.isAdditive())
    return op.emitError("reduction needs a layout whose coordinates add up");
  unsigned n = op.getSrcs().size();

  // 1. Within a lane: registers that differ only along the axis.
  SmallVector<LinearLayout::Coord> keys;
  SmallVector<SmallVector<Value>> partial;
  for (int64_t r = 0; r < layout.getNumRegisters(); ++r) {
    LinearLayout::Coord key = layout.apply(LinearLayout::Register, r);
    key.erase(key.begin() + ax);
    SmallVector<Value> elems;
    for (Value src : op.getSrcs())
      elems.push_back(vector::ExtractOp::create(b, loc(), lookup(src), r));
    auto it = llvm::find(keys, key);
    if (it == keys.end()) {
      keys.push_back(key);
      partial.push_back(elems);
    } else {
      auto &acc = partial[it - keys.begin()];
      acc = combine(op, acc, elems);
    }
  }

  // 2. Across the lanes of a wave: butterfly over the lane bits along the axis.
  for (auto [bit, basis] : llvm::enumerate(layout.getBases(LinearLayout::Lane))) {
    if (basis[ax] == 0)
      continue;
    for (auto &acc : partial) {
      SmallVector<Value> other;
      for (Value v : acc)
        other.push_back(shuffleXor(v, 1u << bit));
      acc = combine(op, acc, other);
    }
  }

  // Where each result register's element sits among the partials.
  auto resultType = dyn_cast<RankedTensorType>(op.getResult(0).getType());
  LinearLayout resultLayout = resultType ? layoutOf(op.getResult(0)) : layout.dropDim(ax);
  if (resultLayout != layout.dropDim(ax))
    return op.emitError("result layout is not the slice of the operand's");
  SmallVector<unsigned> resultSlot;
  for (int64_t r = 0; r < resultLayout.getNumRegisters(); ++r)
    resultSlot.push_back(llvm::find(keys, resultLayout.apply(LinearLayout::Register, r)) - keys.begin());

  // 3. Across warps: each warp leaves its partials in LDS, then every lane
  //    combines the partials of all warps along the axis in the same order.
  SmallVector<unsigned> warpBits = getReducedWarpBits(op);
  if (!warpBits.empty()) {
    int64_t warps = int64_t(1) << warpBits.size();
    int64_t outputs = resultType ? resultType.getNumElements() : 1;
    Value slot = i32(0);
    for (auto [i, bit] : llvm::enumerate(warpBits)) {
      Value w = arith::AndIOp::create(b, loc(), arith::ShRUIOp::create(b, loc(), warpId, i32(bit)), i32(1));
      slot = arith::OrIOp::create(b, loc(), slot, arith::ShLIOp::create(b, loc(), w, i32(i)));
    }
    SmallVector<Value> elementIndex = rowMajorIndices(resultLayout);
    int64_t byteOffset = 0;
    SmallVector<Value> views;
    for (Value r : op.getResults()) {
      Type elt = tile::getElementTypeOrSelf(r.getType());
      FailureOr<Value> view = scratchView(op, elt, warps * outputs, byteOffset);
      if (failed(view))
        return failure();
      views.push_back(*view);
      byteOffset += warps * outputs * ((elt.getIntOrFloatBitWidth() / 8 + 3) / 4 * 4);
    }
    auto toIndex = [&](Value v) { return arith::IndexCastOp::create(b, loc(), b.getIndexType(), v); };
    gpu::BarrierOp::create(b, loc());
    byOwners(layout, [&] { // warps holding copies of the operand would write the same partials
      for (auto [r, slotOfR] : llvm::enumerate(resultSlot)) {
        Value at = arith::AddIOp::create(
            b, loc(), arith::MulIOp::create(b, loc(), slot, i32(outputs)), elementIndex[r]);
        for (unsigned i = 0; i < n; ++i)
          memref::StoreOp::create(b, loc(), partial[slotOfR][i], views[i], ValueRange{toIndex(at)});
      }
    });
    gpu::BarrierOp::create(b, loc());
    SmallVector<SmallVector<Value>> totals;
    for (auto [r, slotOfR] : llvm::enumerate(resultSlot)) {
      SmallVector<Value> acc;
      for (int64_t w = 0; w < warps; ++w) {
        SmallVector<Value> loaded;
        Value at = arith::AddIOp::create(b, loc(), i32(w * outputs), elementIndex[r]);
        for (unsigned i = 0; i < n; ++i)
          loaded.push_back(memref::LoadOp::create(b, loc(), views[i], ValueRange{toIndex(at)}));
        acc = w == 0 ? loaded : combine(op, acc, loaded);
      }
      totals.push_back(acc);
    }
    // Result registers now index `totals` directly.
    partial = std::move(totals);
    for (unsigned r = 0; r < resultSlot.size(); ++r)
      resultSlot[r] = r;
  }

  for (unsigned i = 0; i < n; ++i) {
    Value result = op.getResult(i);
    if (!resultType) {
      values[result] = {Value(), partial[resultSlot[0]][i]};
      continue;
    }
    SmallVector<Value> elems;
    for (unsigned s : resultSlot)
      elems.push_back(partial[s][i]);
    auto vtype = laneVectorType(cast<RankedTensorType>(result.getType()), resultLayout);
    values[result] = {Value(), vector::FromElementsOp::create(b, loc(), vtype, elems)};
  }
  return success();
}
