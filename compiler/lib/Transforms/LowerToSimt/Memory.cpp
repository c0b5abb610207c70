// Loads, stores and atomics: vectorized global accesses under uniform masks,
// side effects once per element.
#include "KernelLowering.h"
#include "rocktile/Analysis/LdsScratch.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace rocktile;
using namespace rocktile::simt;

/// A constant tile (or splat of a constant) whose bits are all zero (+0.0,
/// not -0.0).
static bool isZeroBits(Value v) {
  if (auto splat = v.getDefiningOp<tile::SplatOp>())
    v = splat.getSrc();
  Attribute a;
  if (!matchPattern(v, m_Constant(&a)))
    return false;
  if (auto dense = dyn_cast<DenseElementsAttr>(a))
    a = dense.isSplat() ? dense.getSplatValue<Attribute>() : Attribute();
  if (auto i = dyn_cast_or_null<IntegerAttr>(a))
    return i.getValue().isZero();
  if (auto f = dyn_cast_or_null<FloatAttr>(a))
    return f.getValue().bitcastToAPInt().isZero();
  return false;
}

std::pair<int64_t, int64_t> KernelLowering::accessWidth(Value ptr, Value mask) {
  auto type = cast<RankedTensorType>(ptr.getType());
  LinearLayout layout = layoutOf(ptr);
  unsigned dim = type.getRank() - 1;
  for (const auto &basis : layout.getBases(LinearLayout::Register))
    for (unsigned d = 0; d < basis.size(); ++d)
      if (basis[d] != 0) {
        dim = d;
        goto found;
      }
found:
  int64_t width = getAccessVectorWidth(axis, ptr, mask, dim,
                                       layout.getContiguousRegisters(dim));
  int64_t eltBytes = tile::getElementTypeOrSelf(
                         cast<tile::PointerType>(type.getElementType()).getPointeeType())
                         .getIntOrFloatBitWidth() / 8;
  int64_t divisibility = axis.get(ptr).divisibility[dim];
  int64_t align = std::min<int64_t>(divisibility & -divisibility, width * eltBytes);
  return {width, std::max<int64_t>(align, eltBytes)};
}

LogicalResult KernelLowering::lowerLoad(tile::LoadOp op) {
  LaneValue ptr = values.lookup(op.getPtr());
  Value mask = op.getMask() ? lookup(op.getMask()) : Value();
  Value other = op.getOther() ? lookup(op.getOther()) : Value();
  auto tensorType = dyn_cast<RankedTensorType>(op.getType());
  if (!tensorType) {
    Type elt = op.getType();
    auto load = [&](OpBuilder &bb, Location l) {
      return memref::LoadOp::create(bb, l, ptr.base, ValueRange{ptr.value});
    };
    if (!mask) {
      values[op] = {Value(), load(b, loc())};
      return success();
    }
    Value fallback = other ? other : arith::ConstantOp::create(b, loc(), b.getZeroAttr(elt)).getResult();
    auto ifOp = scf::IfOp::create(
        b, loc(), mask,
        [&](OpBuilder &bb, Location l) { scf::YieldOp::create(bb, l, Value(load(bb, l))); },
        [&](OpBuilder &bb, Location l) { scf::YieldOp::create(bb, l, fallback); });
    values[op] = {Value(), ifOp.getResult(0)};
    return success();
  }
  auto [width, align] = accessWidth(op.getPtr(), op.getMask());
  auto vtype = laneVectorType(tensorType, layoutOf(op));
  int64_t eltBytes = std::max<int64_t>(vtype.getElementTypeBitWidth() / 8, 1);
  // `other` of all-zero bits is what a buffer load gives masked-off lanes.
  bool otherIsZero = op.getOther() && isZeroBits(op.getOther());
  Type chunkType = width == 1 ? vtype.getElementType()
                              : Type(VectorType::get({width}, vtype.getElementType()));
  Value result = arith::ConstantOp::create(b, loc(), b.getZeroAttr(vtype));
  Value buffer = bufferViews.lookup(ptr.base);
  auto load = [&](OpBuilder &bb, Location l, Value base, Value index) -> Value {
    if (width == 1)
      return memref::LoadOp::create(bb, l, base, ValueRange{index});
    return vector::LoadOp::create(bb, l, chunkType, base, ValueRange{index},
                                  /*nontemporal=*/false, llvm::MaybeAlign(align));
  };
  for (int64_t g = 0; g < vtype.getNumElements(); g += width) {
    Value index = vector::ExtractOp::create(b, loc(), ptr.value, g);
    Value pred = mask ? vector::ExtractOp::create(b, loc(), mask, g).getResult() : Value();
    Value chunk;
    if (!mask) {
      chunk = load(b, loc(), ptr.base, index);
    } else if (buffer) {
      chunk = load(b, loc(), buffer, bufferIndex(pred, index, eltBytes));
      if (other && !otherIsZero)
        chunk = arith::SelectOp::create(b, loc(), pred, chunk, slice(other, g, width));
    } else {
      Value fallback =
          other ? slice(other, g, width)
                : arith::ConstantOp::create(b, loc(), b.getZeroAttr(chunkType)).getResult();
      chunk = scf::IfOp::create(
                  b, loc(), pred,
                  [&](OpBuilder &bb, Location l) { scf::YieldOp::create(bb, l, load(bb, l, ptr.base, index)); },
                  [&](OpBuilder &bb, Location l) { scf::YieldOp::create(bb, l, fallback); })
                  .getResult(0);
    }
    result = insertSlice(chunk, result, g);
  }
  values[op] = {Value(), result};
  return success();
}

LogicalResult KernelLowering::lowerStore(tile::StoreOp op) {
  LaneValue ptr = values.lookup(op.getPtr());
  Value value = lookup(op.getValue());
  Value mask = op.getMask() ? lookup(op.getMask()) : Value();
  // Each element is written once: by the lane and warp that own it, or for
  // a scalar by thread 0 (the other copies would only repeat the write).
  auto tensorType = dyn_cast<RankedTensorType>(op.getValue().getType());
  Value owns = tensorType ? ownsElements(layoutOf(op.getValue()))
                          : firstThread();
  // The condition of writing a chunk whose mask is `pred` (or null).
  auto writes = [&](Value pred) -> Value {
    if (owns)
      return pred ? arith::AndIOp::create(b, loc(), owns, pred).getResult() : owns;
    return pred;
  };
  auto guarded = [&](Value pred, function_ref<void(OpBuilder &, Location)> store) {
    if (!pred)
      return store(b, loc());
    scf::IfOp::create(b, loc(), pred, [&](OpBuilder &bb, Location l) {
      store(bb, l);
      scf::YieldOp::create(bb, l);
    });
  };
  if (!tensorType) {
    guarded(writes(mask), [&](OpBuilder &bb, Location l) {
      memref::StoreOp::create(bb, l, value, ptr.base, ValueRange{ptr.value});
    });
    return success();
  }
  auto [width, align] = accessWidth(op.getPtr(), op.getMask());
  auto vtype = cast<VectorType>(value.getType());
  int64_t eltBytes = std::max<int64_t>(vtype.getElementTypeBitWidth() / 8, 1);
  Value buffer = bufferViews.lookup(ptr.base);
  auto store = [&](OpBuilder &bb, Location l, Value chunk, Value base, Value index) {
    if (width == 1)
      memref::StoreOp::create(bb, l, chunk, base, ValueRange{index});
    else
      vector::StoreOp::create(bb, l, chunk, base, ValueRange{index}, /*nontemporal=*/false,
                              llvm::MaybeAlign(align));
  };
  for (int64_t g = 0; g < vtype.getNumElements(); g += width) {
    Value index = vector::ExtractOp::create(b, loc(), ptr.value, g);
    Value chunk = slice(value, g, width);
    Value pred = writes(mask ? vector::ExtractOp::create(b, loc(), mask, g).getResult() : Value());
    if (buffer && pred) {
      store(b, loc(), chunk, buffer, bufferIndex(pred, index, eltBytes));
      continue;
    }
    guarded(pred, [&](OpBuilder &bb, Location l) { store(bb, l, chunk, ptr.base, index); });
  }
  return success();
}

Value KernelLowering::ownsElements(const LinearLayout &layout) {
  Value owns;
  for (auto [in, index] : {std::pair{LinearLayout::Lane, laneId}, {LinearLayout::Warp, warpId}}) {
    int64_t copies = layout.getCopyBits(in);
    if (!copies)
      continue;
    Value first = arith::CmpIOp::create(b, loc(), arith::CmpIPredicate::eq,
                                        arith::AndIOp::create(b, loc(), index, i32(copies)), i32(0));
    owns = owns ? arith::AndIOp::create(b, loc(), owns, first).getResult() : first;
  }
  return owns;
}

Value KernelLowering::emitAtomic(OpBuilder &bb, Location l, Operation *op, Value base, Value index,
                                 Value value, Value cmp) {
  Type elt = value.getType();
  bool isFloat = isa<FloatType>(elt);
  auto generic = [&](auto combine) -> Value {
    auto rmw = memref::GenericAtomicRMWOp::create(bb, l, base, ValueRange{index});
    OpBuilder body = OpBuilder::atBlockEnd(rmw.getBody());
    memref::AtomicYieldOp::create(body, l, combine(body, rmw.getCurrentValue()));
    return rmw.getResult();
  };
  if (cmp)
    return generic([&](OpBuilder &body, Value current) -> Value {
      Value same = arith::CmpIOp::create(body, l, arith::CmpIPredicate::eq, current, cmp);
      return arith::SelectOp::create(body, l, same, value, current);
    });
  using K = arith::AtomicRMWKind;
  K kind{}; // every AtomicKind sets it below
  switch (cast<tile::AtomicRMWOp>(op).getKind()) {
  case tile::AtomicKind::add: kind = isFloat ? K::addf : K::addi; break;
  case tile::AtomicKind::max: kind = isFloat ? K::maximumf : K::maxs; break;
  case tile::AtomicKind::min: kind = isFloat ? K::minimumf : K::mins; break;
  case tile::AtomicKind::umax: kind = K::maxu; break;
  case tile::AtomicKind::umin: kind = K::minu; break;
  case tile::AtomicKind::xchg: kind = K::assign; break;
  case tile::AtomicKind::and_: kind = K::andi; break;
  case tile::AtomicKind::or_: kind = K::ori; break;
  case tile::AtomicKind::xor_: // no memref.atomic_rmw kind: a compare-and-swap loop
    return generic([&](OpBuilder &body, Value current) -> Value {
      return arith::XOrIOp::create(body, l, current, value);
    });
  }
  return memref::AtomicRMWOp::create(bb, l, kind, value, base, ValueRange{index});
}

LogicalResult KernelLowering::fromFirstThread(Operation *op, Value pred,
                                              function_ref<Value(OpBuilder &, Location)> compute) {
  Type type = op->getResult(0).getType();
  FailureOr<Value> view = scratchView(op, type, 1);
  if (failed(view))
    return failure();
  Value first = firstThread();
  gpu::BarrierOp::create(b, loc());
  scf::IfOp::create(b, loc(), pred ? arith::AndIOp::create(b, loc(), first, pred).getResult() : first,
                    [&](OpBuilder &bb, Location l) {
                      memref::StoreOp::create(bb, l, compute(bb, l), *view, ValueRange{idx(0)});
                      scf::YieldOp::create(bb, l);
                    });
  gpu::BarrierOp::create(b, loc());
  values[op->getResult(0)] = {Value(), memref::LoadOp::create(b, loc(), *view, ValueRange{idx(0)})};
  return success();
}

LogicalResult KernelLowering::lowerRealtime(tile::RealtimeOp op) {
  // Waves read the counter at different times: thread 0's reading is the
  // program's, so that what is decided on it agrees.
  return fromFirstThread(op, Value(), [](OpBuilder &bb, Location l) -> Value {
    return LLVM::CallIntrinsicOp::create(bb, l, bb.getI64Type(), bb.getStringAttr("llvm.readsteadycounter"),
                                         ValueRange{})
        .getResult(0);
  });
}

LogicalResult KernelLowering::lowerAtomic(Operation *op) {
  auto rmw = dyn_cast<tile::AtomicRMWOp>(op);
  auto cas = dyn_cast<tile::AtomicCASOp>(op);
  LaneValue ptr = values.lookup(op->getOperand(0));
  Value value = lookup(rmw ? rmw.getValue() : cas.getValue());
  Value cmp = cas ? lookup(cas.getCmp()) : Value();
  Value mask = rmw && rmw.getMask() ? lookup(rmw.getMask()) : Value();
  Type resultType = op->getResult(0).getType();
  auto guarded = [&](Value pred, Value index, Value v, Value c, Type elt) -> Value {
    if (!pred)
      return emitAtomic(b, loc(), op, ptr.base, index, v, c);
    return scf::IfOp::create(
               b, loc(), pred,
               [&](OpBuilder &bb, Location l) {
                 scf::YieldOp::create(bb, l, emitAtomic(bb, l, op, ptr.base, index, v, c));
               },
               [&](OpBuilder &bb, Location l) {
                 scf::YieldOp::create(bb, l, Value(arith::ConstantOp::create(bb, l, bb.getZeroAttr(elt))));
               })
        .getResult(0);
  };
  auto tensorType = dyn_cast<RankedTensorType>(resultType);
  if (!tensorType) // one thread updates memory
    return fromFirstThread(op, mask, [&](OpBuilder &bb, Location l) {
      return emitAtomic(bb, l, op, ptr.base, ptr.value, value, cmp);
    });
  Value owns = ownsElements(layoutOf(op->getResult(0)));
  Type elt = tensorType.getElementType();
  SmallVector<Value> olds;
  for (int64_t r = 0, n = cast<VectorType>(value.getType()).getNumElements(); r < n; ++r) {
    Value pred = owns;
    if (mask) {
      Value m = vector::ExtractOp::create(b, loc(), mask, r);
      pred = pred ? arith::AndIOp::create(b, loc(), pred, m).getResult() : m;
    }
    Value index = vector::ExtractOp::create(b, loc(), ptr.value, r);
    Value v = vector::ExtractOp::create(b, loc(), value, r);
    Value c = cmp ? vector::ExtractOp::create(b, loc(), cmp, r).getResult() : Value();
    olds.push_back(guarded(pred, index, v, c, elt));
  }
  Value old = vector::FromElementsOp::create(b, loc(), cast<VectorType>(value.getType()), olds);
  if (atomicHandsOver(op)) {
    // Only the owners updated memory: the lanes and warps that hold copies
    // get the old values from them through LDS.
    LinearLayout layout = layoutOf(op->getResult(0));
    LdsLayout lds = LdsLayout::rowMajor(layout.getShape());
    int64_t eltBytes = exchangeBytes(tensorType);
    FailureOr<Value> view = scratchView(op, elt, tensorType.getNumElements());
    if (failed(view))
      return failure();
    storeToLds(old, layout, lds, ldsAccess(layout, lds, eltBytes), *view, eltBytes);
    old = loadFromLds(layout, lds, *view, elt, eltBytes);
  }
  values[op->getResult(0)] = {Value(), old};
  return success();
}
