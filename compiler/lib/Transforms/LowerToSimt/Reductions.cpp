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
  auto vector = dyn_cast<VectorType>(acc.front().getType());
  IRMapping map;
  unsigned n = acc.size();
  for (unsigned i = 0; i < n; ++i) {
    map.map(body.getArgument(i), acc[i]);
    map.map(body.getArgument(n + i), next[i]);
  }
  for (Operation &inner : body.without_terminator()) {
    // Values from outside the combiner (e.g. constants CSE hoisted out of
    // it) are used in their lowered form, splat over vectors of partials.
    for (Value operand : inner.getOperands())
      if (!map.contains(operand) && operand.getParentBlock() != &body) {
        Value lowered = lookup(operand);
        map.map(operand, vector ? vector::BroadcastOp::create(
                                      b, loc(), VectorType::get(vector.getShape(), lowered.getType()), lowered)
                                      .getResult()
                                : lowered);
      }
    Operation *cloned = b.clone(inner, map);
    if (vector)
      for (Value r : cloned->getResults())
        r.setType(VectorType::get(vector.getShape(), r.getType()));
  }
  SmallVector<Value> out;
  for (Value v : body.getTerminator()->getOperands())
    out.push_back(map.contains(v) ? map.lookup(v) : lookup(v));
  return out;
}

SmallVector<SmallVector<Value>> KernelLowering::combinePairs(tile::ReduceOp op,
                                                             ArrayRef<SmallVector<Value>> lhs,
                                                             ArrayRef<SmallVector<Value>> rhs) {
  if (lhs.size() == 1)
    return {combine(op, lhs[0], rhs[0])};
  auto gather = [&](ArrayRef<SmallVector<Value>> tuples, unsigned i) {
    SmallVector<Value> elems;
    for (const SmallVector<Value> &t : tuples)
      elems.push_back(t[i]);
    return vector::FromElementsOp::create(b, loc(), VectorType::get(int64_t(elems.size()), elems[0].getType()),
                                          elems)
        .getResult();
  };
  SmallVector<Value> x, y;
  for (unsigned i = 0; i < lhs.front().size(); ++i) {
    x.push_back(gather(lhs, i));
    y.push_back(gather(rhs, i));
  }
  SmallVector<Value> combined = combine(op, x, y);
  SmallVector<SmallVector<Value>> out(lhs.size());
  for (auto [k, pair] : llvm::enumerate(out))
    for (Value v : combined)
      pair.push_back(vector::ExtractOp::create(b, loc(), v, int64_t(k)));
  return out;
}

/// How many partials of a key with `size` left a packed step combines
/// with as many next ones.
static size_t pairWidth(size_t size) { return size >= 4 ? 2 : size / 2; }

/// Float adds and multiplies have packed forms on both targets
/// (v_pk_add_f32, v_pk_mul_f32); other combiners fold best as a chain,
/// which LLVM fuses into three-operand forms (v_max3_f32).
static bool combinesPacked(tile::ReduceOp op) {
  return llvm::all_of(op.getCombiner().front().without_terminator(),
                      [](Operation &inner) { return isa<arith::AddFOp, arith::MulFOp>(inner); });
}

// Lanes exchange 32-bit words; narrower values travel zero-extended.
static Value toLaneWord(OpBuilder &b, Location loc, Value v) {
  Type bitsType = b.getIntegerType(v.getType().getIntOrFloatBitWidth());
  Value word = v.getType() == bitsType ? v : arith::BitcastOp::create(b, loc, bitsType, v).getResult();
  return bitsType.getIntOrFloatBitWidth() < 32 ? arith::ExtUIOp::create(b, loc, b.getI32Type(), word).getResult()
                                               : word;
}

static Value fromLaneWord(OpBuilder &b, Location loc, Value word, Type type) {
  Type bitsType = b.getIntegerType(type.getIntOrFloatBitWidth());
  if (bitsType != word.getType())
    word = arith::TruncIOp::create(b, loc, bitsType, word);
  return type == bitsType ? word : arith::BitcastOp::create(b, loc, type, word).getResult();
}

bool KernelLowering::swapsHalves(Type type, unsigned distance) {
  // A permlanex16 exchanges rows in one instruction; a swap overwrites both
  // its operands and so costs a copy besides.
  bool swaps = distance == 16 ? target.hasPermlane16Swap && !target.hasPermlaneX16
                              : distance == 32 && target.hasPermlane32Swap;
  return swaps && type.isIntOrFloat() && type.getIntOrFloatBitWidth() <= 32;
}

std::pair<Value, Value> KernelLowering::laneHalves(Value v, unsigned distance) {
  Value word = toLaneWord(b, loc(), v);
  // Both operands v: the first result holds, in every lane, the value of
  // the lane with the bit clear; the second the one with it set.
  auto pair = LLVM::LLVMStructType::getLiteral(b.getContext(), {b.getI32Type(), b.getI32Type()});
  Value swapped = distance == 16
                      ? ROCDL::Permlane16SwapOp::create(b, loc(), pair, word, word, false, false).getResult()
                      : ROCDL::Permlane32SwapOp::create(b, loc(), pair, word, word, false, false).getResult();
  auto half = [&](int64_t k) {
    return fromLaneWord(b, loc(), LLVM::ExtractValueOp::create(b, loc(), swapped, k), v.getType());
  };
  Value lower = half(0);
  return {lower, half(1)};
}

// DPP controls (the ISA's DPP_CTRL field): a lane reads another lane of its
// row of 16. Full row and bank masks and bound_ctrl let LLVM fold the move
// into the VALU op that uses it (v_add_f32_dpp).
namespace dpp {
constexpr uint32_t quadPerm(unsigned mask) {
  uint32_t ctrl = 0;
  for (unsigned lane = 0; lane < 4; ++lane)
    ctrl |= (lane ^ mask) << (2 * lane);
  return ctrl;
}
constexpr uint32_t rowMirror = 0x140, rowHalfMirror = 0x141, rowXmask = 0x160;
} // namespace dpp

Value KernelLowering::shuffleXor(Value v, unsigned mask, bool uniformBelow) {
  Type type = v.getType();
  unsigned bits = type.getIntOrFloatBitWidth();
  if (bits < 32)
    return fromLaneWord(b, loc(), shuffleXor(toLaneWord(b, loc(), v), mask, uniformBelow), type);
  // The cheapest exchange the hardware has for each distance: DPP within a
  // row of 16 (any xor on GFX10+; on gfx950 within a quad, or a mirror,
  // which is the xor where the lower lanes agree), a permlanex16 between
  // rows of 16 (its selects name each lane's own position), ds_swizzle
  // within 32 lanes, a permlane swap between wave halves.
  std::optional<uint32_t> ctrl;
  if (mask < 16 && target.hasDppRowXmask)
    ctrl = dpp::rowXmask | mask;
  else if (mask <= 2)
    ctrl = dpp::quadPerm(mask);
  else if (mask == 4 && uniformBelow)
    ctrl = dpp::rowHalfMirror;
  else if (mask == 8 && uniformBelow)
    ctrl = dpp::rowMirror;
  if (bits == 32 && ctrl)
    return ROCDL::DPPUpdateOp::create(b, loc(), type, v, v, *ctrl, /*rowMask=*/0xf, /*bankMask=*/0xf,
                                      /*boundCtrl=*/true);
  if (bits == 32 && mask == 16 && target.hasPermlaneX16)
    return ROCDL::PermlaneX16Op::create(b, loc(), type, v, v, i32(0x76543210), i32(int32_t(0xfedcba98)),
                                        /*fi=*/true, /*boundControl=*/false);
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

  // 1. Within a lane: the registers of each key (the coordinate off the
  //    axis). With a packed combiner each key keeps a running pair of
  //    partials that absorbs its next two registers per step, all keys'
  //    pairs in one vector op: packed instructions, and no more partials
  //    live than a chain keeps (a 256-register row would spill under a
  //    tree). Other combiners fold in a chain.
  SmallVector<LinearLayout::Coord> keys;
  SmallVector<SmallVector<SmallVector<Value>>> members;
  for (int64_t r = 0; r < layout.getNumRegisters(); ++r) {
    LinearLayout::Coord key = layout.apply(LinearLayout::Register, r);
    key.erase(key.begin() + ax);
    SmallVector<Value> elems;
    for (Value src : op.getSrcs())
      elems.push_back(vector::ExtractOp::create(b, loc(), lookup(src), r));
    auto it = llvm::find(keys, key);
    if (it == keys.end()) {
      keys.push_back(key);
      members.emplace_back();
      it = keys.end() - 1;
    }
    members[it - keys.begin()].push_back(elems);
  }
  while (combinesPacked(op)) {
    SmallVector<SmallVector<Value>> lhs, rhs;
    for (auto &m : members)
      for (size_t j = 0, w = pairWidth(m.size()); j < w; ++j) {
        lhs.push_back(m[j]);
        rhs.push_back(m[j + w]);
      }
    if (lhs.empty())
      break;
    SmallVector<SmallVector<Value>> combined = combinePairs(op, lhs, rhs);
    auto next = combined.begin();
    for (auto &m : members) {
      size_t w = pairWidth(m.size());
      SmallVector<SmallVector<Value>> kept(next, next + w);
      kept.append(m.begin() + 2 * w, m.end());
      next += w;
      m = std::move(kept);
    }
  }
  for (auto &m : members)
    for (size_t j = 1; j < m.size(); ++j)
      m.front() = combine(op, m.front(), m[j]);
  SmallVector<SmallVector<Value>> partial;
  for (auto &m : members)
    partial.push_back(m.front());

  // 2. Across the lanes of a wave: butterfly over the lane bits along the axis.
  //    `uniform`: the lane bits across which every lane holds one value,
  //    those reduced so far and those of replicated lanes.
  unsigned uniform = 0;
  for (auto [bit, basis] : llvm::enumerate(layout.getBases(LinearLayout::Lane)))
    if (llvm::all_of(basis, [](int64_t c) { return c == 0; }))
      uniform |= 1u << bit;
  for (auto [bit, basis] : llvm::enumerate(layout.getBases(LinearLayout::Lane))) {
    if (basis[ax] == 0)
      continue;
    unsigned below = (1u << bit) - 1;
    bool uniformBelow = (uniform & below) == below;
    for (auto &acc : partial) {
      // Where a permlane swap gives both lanes' values, every lane combines
      // them in the same order, with no select after the swap.
      if (llvm::all_of(acc, [&](Value v) { return swapsHalves(v.getType(), 1u << bit); })) {
        SmallVector<Value> lower, upper;
        for (Value v : acc) {
          auto [l, u] = laneHalves(v, 1u << bit);
          lower.push_back(l);
          upper.push_back(u);
        }
        acc = combine(op, lower, upper);
        continue;
      }
      SmallVector<Value> other;
      for (Value v : acc)
        other.push_back(shuffleXor(v, 1u << bit, uniformBelow));
      acc = combine(op, acc, other);
    }
    uniform |= 1u << bit;
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
