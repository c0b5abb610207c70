// Loads, stores and atomics: vectorized global accesses under uniform masks,
// side effects once per element.
#include "KernelLowering.h"
#include "rocktile/Analysis/LdsScratch.h"
#include "rocktile/Conversion/FlatMemory.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace rocktile;
using namespace rocktile::simt;

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

Value KernelLowering::ChunkLoop::privateArray(Type elt) {
  OpBuilder entry = OpBuilder::atBlockBegin(&k.kernel.getBody().front());
  auto space = gpu::AddressSpaceAttr::get(entry.getContext(), gpu::AddressSpace::Private);
  return memref::AllocaOp::create(entry, k.loc(), MemRefType::get({elements}, elt, MemRefLayoutAttrInterface(), space));
}

/// Whether `op` comes before the builder's insertion point on every path to
/// it (in its block, or in a block of an op there that holds the point).
static bool precedesInsertion(Operation *op, OpBuilder &b) {
  Block *block = b.getInsertionBlock();
  Operation *at = b.getInsertionPoint() == block->end() ? nullptr : &*b.getInsertionPoint();
  while (block && block != op->getBlock()) {
    at = block->getParentOp();
    block = at ? at->getBlock() : nullptr;
  }
  return block && (!at || op->isBeforeInBlock(at));
}

Value KernelLowering::ChunkLoop::operand(Value v) {
  if (!looped || !v)
    return v;
  OpBuilder &b = k.b;
  // A lane vector's private copy is written once: later accesses it
  // precedes read it again (a loaded tile stored, one index vector for a
  // load and a store).
  if (auto it = k.privateCopies.find(v); it != k.privateCopies.end() && precedesInsertion(it->second.second, b))
    return it->second.first;
  Value original = v;
  auto type = cast<VectorType>(v.getType());
  // Masks go to memory as bytes: a vector of i1 is stored as packed bits.
  if (type.getElementType().isInteger(1))
    v = arith::ExtUIOp::create(b, k.loc(), type.clone(b.getI8Type()), v);
  Value array = privateArray(cast<VectorType>(v.getType()).getElementType());
  k.privateCopies[original] = {array, vector::StoreOp::create(b, k.loc(), v, array, ValueRange{k.idx(0)})};
  return array;
}

Value KernelLowering::ChunkLoop::at(Value operand, OpFoldResult g, int64_t n) {
  if (auto first = dyn_cast<Attribute>(g))
    return k.slice(operand, cast<IntegerAttr>(first).getInt(), n);
  Value index = cast<Value>(g);
  if (n == 1)
    return memref::LoadOp::create(k.b, k.loc(), operand, ValueRange{index});
  Type elt = cast<MemRefType>(operand.getType()).getElementType();
  return vector::LoadOp::create(k.b, k.loc(), VectorType::get({n}, elt), operand, ValueRange{index});
}

Value KernelLowering::ChunkLoop::predicateAt(Value mask, OpFoldResult g) {
  Value element = at(mask, g, 1);
  if (element.getType().isInteger(1))
    return element;
  return arith::CmpIOp::create(k.b, k.loc(), arith::CmpIPredicate::ne, element, k.i8(0));
}

Value KernelLowering::ChunkLoop::run(function_ref<Value(OpFoldResult)> body, VectorType type) {
  OpBuilder &b = k.b;
  if (!looped) {
    SmallVector<Value> chunks;
    for (int64_t g = 0; g < elements; g += width)
      if (Value chunk = body(b.getIndexAttr(g)))
        chunks.push_back(chunk);
    return type ? k.concat(chunks, type) : Value();
  }
  Value result = type ? privateArray(type.getElementType()) : Value();
  auto loop = scf::ForOp::create(b, k.loc(), k.idx(0), k.idx(elements), k.idx(width));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    Value g = loop.getInductionVar(), chunk = body(g);
    if (type && width == 1)
      memref::StoreOp::create(b, k.loc(), chunk, result, ValueRange{g});
    else if (type)
      vector::StoreOp::create(b, k.loc(), chunk, result, ValueRange{g});
  }
  if (!type)
    return Value();
  auto whole = vector::LoadOp::create(b, k.loc(), type, result, ValueRange{k.idx(0)});
  k.privateCopies[whole] = {result, whole};
  return whole;
}

std::optional<KernelLowering::SplitOffsets> KernelLowering::addSplits(const SplitOffsets &x,
                                                                      const SplitOffsets &y) {
  std::optional<int64_t> lo = llvm::checkedAdd(x.lo, y.lo), hi = llvm::checkedAdd(x.hi, y.hi);
  if (!lo || !hi)
    return std::nullopt;
  auto sum = [&](Value a, Value c) -> Value {
    return !a ? c : !c ? a : arith::AddIOp::create(b, loc(), a, c).getResult();
  };
  return SplitOffsets{sum(x.uniform, y.uniform), sum(x.lanes, y.lanes), *lo, *hi};
}

std::optional<KernelLowering::SplitOffsets> KernelLowering::splitOffsets(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  Operation *def = v.getDefiningOp();
  if (!type || !def || !type.getElementType().isIntOrIndex())
    return std::nullopt;
  // The per-lane part is computed in i32: exact modulo 2^32, which is
  // enough because the sum that is used is proven to lie in [0, 2^31).
  auto laneVector = VectorType::get({layoutOf(v).getNumRegisters()}, b.getI32Type());
  auto lanesOf = [&](Value tile) -> Value {
    Value lanes = lookup(tile);
    unsigned bits = cast<VectorType>(lanes.getType()).getElementTypeBitWidth();
    if (bits > 32)
      return arith::TruncIOp::create(b, loc(), laneVector, lanes);
    if (bits < 32)
      return arith::ExtSIOp::create(b, loc(), laneVector, lanes);
    return lanes;
  };
  // The shared part is an index: the tile's own arithmetic agrees with it
  // where that does not overflow.
  if (std::optional<int64_t> c = getConstantInt(v))
    return SplitOffsets{idx(*c), Value()};
  if (auto splat = dyn_cast<tile::SplatOp>(def))
    return SplitOffsets{arith::IndexCastOp::create(b, loc(), b.getIndexType(), lookup(splat.getSrc())), Value()};
  if (auto range = dyn_cast<tile::MakeRangeOp>(def))
    return SplitOffsets{Value(), lanesOf(v), range.getStart(), int64_t(range.getEnd()) - 1};
  if (auto add = dyn_cast<arith::AddIOp>(def)) {
    std::optional<SplitOffsets> x = splitOffsets(add.getLhs()), y = x ? splitOffsets(add.getRhs()) : std::nullopt;
    return y ? addSplits(*x, *y) : std::nullopt;
  }
  if (auto mul = dyn_cast<arith::MulIOp>(def)) {
    Value x = mul.getLhs(), y = mul.getRhs();
    if (!getConstantInt(y))
      std::swap(x, y);
    std::optional<int64_t> factor = getConstantInt(y);
    std::optional<SplitOffsets> sx = factor ? splitOffsets(x) : std::nullopt;
    if (!sx)
      return std::nullopt;
    int64_t c = *factor;
    std::optional<int64_t> lo = llvm::checkedMul(sx->lo, c), hi = llvm::checkedMul(sx->hi, c);
    if (!lo || !hi)
      return std::nullopt;
    Value uniform = sx->uniform ? arith::MulIOp::create(b, loc(), sx->uniform, idx(c)).getResult() : Value();
    Value lanes = sx->lanes ? arith::MulIOp::create(b, loc(), sx->lanes,
                                                    arith::ConstantOp::create(b, loc(), DenseElementsAttr::get(
                                                                                  laneVector, int32_t(c))))
                                  .getResult()
                            : Value();
    return SplitOffsets{uniform, lanes, std::min(*lo, *hi), std::max(*lo, *hi)};
  }
  // Widening and facts keep the layout and the values.
  if (isa<arith::ExtSIOp, tile::AssumeOp>(def))
    return splitOffsets(def->getOperand(0));
  // Ops that move elements between lanes keep their range; their per-lane
  // part is what they give minus the shared part.
  if (isa<tile::BroadcastOp, tile::ExpandDimsOp, tile::ConvertLayoutOp>(def)) {
    std::optional<SplitOffsets> src = splitOffsets(def->getOperand(0));
    if (!src || !src->lanes)
      return src;
    src->lanes = lanesOf(v);
    if (src->uniform) {
      Value shared = arith::IndexCastOp::create(b, loc(), b.getI32Type(), src->uniform);
      src->lanes =
          arith::SubIOp::create(b, loc(), src->lanes, vector::BroadcastOp::create(b, loc(), laneVector, shared));
    }
    return src;
  }
  return std::nullopt;
}

std::optional<std::pair<Value, Value>> KernelLowering::sharedBaseBuffer(Value ptr, int64_t width,
                                                                         int64_t eltBytes) {
  std::optional<SplitOffsets> offsets = SplitOffsets{};
  for (Operation *def = ptr.getDefiningOp(); isa_and_nonnull<tile::AddPtrOp, tile::AssumeOp>(def);
       def = ptr.getDefiningOp()) {
    if (auto add = dyn_cast<tile::AddPtrOp>(def)) {
      std::optional<SplitOffsets> part = splitOffsets(add.getOffset());
      if (!part || !(offsets = addSplits(*offsets, *part)))
        return std::nullopt;
    }
    ptr = def->getOperand(0); // facts (tile.assume) change no address
  }
  auto splat = ptr.getDefiningOp<tile::SplatOp>();
  std::optional<int64_t> last = llvm::checkedAdd(offsets->hi, width);
  std::optional<int64_t> end = last ? llvm::checkedMul(*last, eltBytes) : std::nullopt;
  if (!splat || offsets->lo < 0 || !end || *end > INT32_MAX)
    return std::nullopt;
  Value shared = offsets->uniform, lanes = offsets->lanes;
  // The buffer starts at element `shared` of the argument and reaches 2^31
  // - 1 bytes on: only masked-off chunks (at 2^31 bytes) fall outside.
  LaneValue scalar = values.lookup(splat.getSrc());
  shared = shared ? arith::AddIOp::create(b, loc(), shared, scalar.value).getResult() : scalar.value;
  auto baseType = cast<MemRefType>(scalar.base.getType());
  auto viewType = MemRefType::get({ShapedType::kDynamic}, baseType.getElementType(),
                                  StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, {1}),
                                  baseType.getMemorySpace());
  Value size = arith::SubIOp::create(b, loc(), memref::DimOp::create(b, loc(), scalar.base, 0), shared);
  Value view = memref::ReinterpretCastOp::create(b, loc(), viewType, scalar.base, OpFoldResult(shared),
                                                  OpFoldResult(size), OpFoldResult(b.getIndexAttr(1)));
  Value validBytes = arith::ConstantIntOp::create(b, loc(), INT32_MAX, 64);
  Value buffer = amdgpu::FatRawBufferCastOp::create(b, loc(), view, validBytes, /*cacheSwizzleStride=*/Value(),
                                                    /*boundsCheck=*/true, /*resetOffset=*/true);
  auto indexVector = VectorType::get({layoutOf(ptr).getNumRegisters()}, b.getIndexType());
  lanes = lanes ? arith::IndexCastOp::create(b, loc(), indexVector, lanes).getResult()
                : arith::ConstantOp::create(b, loc(), b.getZeroAttr(indexVector)).getResult();
  return std::pair{buffer, lanes};
}

Value KernelLowering::flatMemory(Type elementType) {
  Value &memory = flatMemories[elementType];
  if (!memory) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&kernel.getBody().front());
    auto global = gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Global);
    auto type = MemRefType::get({ShapedType::kDynamic}, elementType, MemRefLayoutAttrInterface(), global);
    memory = createFlatMemory(b, loc(), type);
  }
  return memory;
}

/// The pointee type of a pointer or tile of pointers, and its bytes.
static std::pair<Type, int64_t> pointee(Type ptrLike) {
  Type elt = cast<tile::PointerType>(tile::getElementTypeOrSelf(ptrLike)).getPointeeType();
  return {elt, std::max<int64_t>(elt.getIntOrFloatBitWidth() / 8, 1)};
}

/// `type` (a scalar or a lane's vector) with `elt` elements.
static Type withElementType(Type type, Type elt) {
  auto vector = dyn_cast<VectorType>(type);
  return vector ? Type(vector.clone(elt)) : elt;
}

Value KernelLowering::indexLike(Type type, Value v) {
  auto vector = dyn_cast<VectorType>(type);
  return vector ? vector::BroadcastOp::create(b, loc(), vector.clone(b.getIndexType()), v).getResult() : v;
}

LogicalResult KernelLowering::lowerIntToPtr(tile::IntToPtrOp op) {
  auto [elt, eltBytes] = pointee(op.getType());
  Value address = lookup(op.getSrc());
  Type indexType = withElementType(address.getType(), b.getIndexType());
  Value index = arith::IndexCastOp::create(b, loc(), indexType, address);
  // An address between elements would be read at the element below it:
  // the emulator reports it at the cast's line.
  Value aligned = arith::CmpIOp::create(
      b, loc(), arith::CmpIPredicate::eq,
      arith::AndIOp::create(b, loc(), index, indexLike(indexType, idx(eltBytes - 1))), indexLike(indexType, idx(0)));
  std::string message = "int64 -> pointer cast of an address that is not a multiple of " + std::to_string(eltBytes) +
                        " bytes (the element size)";
  auto vector = dyn_cast<VectorType>(indexType);
  for (int64_t r = 0, n = vector ? vector.getNumElements() : 1; r < n; ++r)
    cf::AssertOp::create(b, loc(), vector ? vector::ExtractOp::create(b, loc(), aligned, r).getResult() : aligned,
                         message)
        ->setAttr(kEmulatorCheck, b.getUnitAttr());
  values[op] = {flatMemory(elt),
                arith::ShRUIOp::create(b, loc(), index, indexLike(indexType, idx(llvm::Log2_64(eltBytes))))};
  return success();
}

Value KernelLowering::addressBytes(LaneValue ptr, int64_t eltBytes) {
  // The address of the base memref's element 0, plus the index's bytes.
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc(), ptr.base);
  Value start = arith::AddIOp::create(b, loc(), memref::ExtractAlignedPointerAsIndexOp::create(b, loc(), ptr.base),
                                      arith::MulIOp::create(b, loc(), metadata.getOffset(), idx(eltBytes)));
  Type type = ptr.value.getType();
  return arith::AddIOp::create(b, loc(), indexLike(type, start),
                               arith::MulIOp::create(b, loc(), ptr.value, indexLike(type, idx(eltBytes))));
}

LogicalResult KernelLowering::lowerPtrToInt(tile::PtrToIntOp op) {
  LaneValue ptr = values.lookup(op.getSrc());
  Value bytes = addressBytes(ptr, pointee(op.getSrc().getType()).second);
  values[op] = {Value(), arith::IndexCastOp::create(b, loc(), withElementType(bytes.getType(), b.getI64Type()),
                                                    bytes)};
  return success();
}

LaneValue KernelLowering::flatPointer(LaneValue ptr, Type pointerLike) {
  auto [elt, eltBytes] = pointee(pointerLike);
  Value memory = flatMemory(elt);
  if (ptr.base == memory)
    return ptr;
  Value bytes = addressBytes(ptr, eltBytes);
  Type type = bytes.getType();
  return {memory, arith::ShRUIOp::create(b, loc(), bytes, indexLike(type, idx(llvm::Log2_64(eltBytes))))};
}

LogicalResult KernelLowering::lowerPointerSelect(arith::SelectOp op) {
  LaneValue x = values.lookup(op.getTrueValue()), y = values.lookup(op.getFalseValue());
  if (x.base != y.base) // into different arguments: both as addresses
    x = flatPointer(x, op.getType()), y = flatPointer(y, op.getType());
  values[op] = {x.base, arith::SelectOp::create(b, loc(), lookup(op.getCondition()), x.value, y.value)};
  return success();
}

LogicalResult KernelLowering::lowerLoad(tile::LoadOp op) {
  LaneValue ptr = values.lookup(op.getPtr());
  Value mask = op.getMask() ? lookup(op.getMask()) : Value();
  Value other = op.getOther() ? lookup(op.getOther()) : Value();
  auto tensorType = dyn_cast<RankedTensorType>(op.getType());
  bool nontemporal = op.getIsNontemporal();
  // A volatile load reads memory each time it runs (the GPU's lowering
  // makes it an LLVM volatile load; the emulator lets other workgroups run).
  // The single-thread fence after it, no instruction on either side, keeps
  // a loop that only reads it (a spin-wait) from counting as free of
  // effects, which the canonicalizer would delete.
  auto markVolatile = [&](Operation *access) -> Value {
    if (op.getIsVolatile()) {
      access->setAttr(kVolatileAccess, b.getUnitAttr());
      OpBuilder after(access);
      after.setInsertionPointAfter(access);
      LLVM::FenceOp::create(after, access->getLoc(), LLVM::AtomicOrdering::acquire, "singlethread");
    }
    return access->getResult(0);
  };
  if (!tensorType) {
    Type elt = op.getType();
    auto load = [&](OpBuilder &bb, Location l) {
      return markVolatile(memref::LoadOp::create(bb, l, ptr.base, ValueRange{ptr.value}, nontemporal,
                                                 IntegerAttr()));
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
  // Through a buffer resource where one reaches the pointers (32-bit
  // offsets, as Triton's buffer loads); unmasked, not from an integer
  // address (whose extent the emulator checks by address). Volatile loads
  // stay plain loads (buffer loads have no volatile form).
  Value buffer = op.getIsVolatile() ? Value() : bufferViews.lookup(ptr.base);
  bool addressed = ptr.base && isFlatMemory(ptr.base.getDefiningOp());
  if (!buffer && !op.getIsVolatile() && (mask || !addressed))
    if (auto shared = sharedBaseBuffer(op.getPtr(), width, eltBytes))
      std::tie(buffer, ptr.value) = *shared;
  auto load = [&](OpBuilder &bb, Location l, Value base, Value index) -> Value {
    if (width == 1)
      return markVolatile(memref::LoadOp::create(bb, l, base, ValueRange{index}, nontemporal, IntegerAttr()));
    return markVolatile(vector::LoadOp::create(bb, l, chunkType, base, ValueRange{index}, nontemporal,
                                               llvm::MaybeAlign(align)));
  };
  ChunkLoop chunks(*this, vtype.getNumElements(), width, eltBytes);
  Value indices = chunks.operand(ptr.value), preds = chunks.operand(mask);
  Value others = chunks.operand(other && (!buffer || !otherIsZero) ? other : Value());
  values[op] = {Value(), chunks.run(
                             [&](OpFoldResult g) -> Value {
                               Value index = chunks.at(indices, g, 1);
                               if (!mask)
                                 return load(b, loc(), buffer ? buffer : ptr.base, index);
                               Value pred = chunks.predicateAt(preds, g);
                               if (buffer) {
                                 Value chunk = load(b, loc(), buffer, bufferIndex(pred, index, eltBytes));
                                 return others ? arith::SelectOp::create(b, loc(), pred, chunk,
                                                                         chunks.at(others, g, width))
                                               : chunk;
                               }
                               Value fallback = others ? chunks.at(others, g, width)
                                                       : arith::ConstantOp::create(b, loc(), b.getZeroAttr(chunkType))
                                                             .getResult();
                               return scf::IfOp::create(
                                          b, loc(), pred,
                                          [&](OpBuilder &bb, Location l) {
                                            scf::YieldOp::create(bb, l, load(bb, l, ptr.base, index));
                                          },
                                          [&](OpBuilder &bb, Location l) { scf::YieldOp::create(bb, l, fallback); })
                                   .getResult(0);
                             },
                             vtype)};
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
      memref::StoreOp::create(bb, l, value, ptr.base, ValueRange{ptr.value}, op.getIsNontemporal(),
                              IntegerAttr());
    });
    return success();
  }
  auto [width, align] = accessWidth(op.getPtr(), op.getMask());
  auto vtype = cast<VectorType>(value.getType());
  int64_t eltBytes = std::max<int64_t>(vtype.getElementTypeBitWidth() / 8, 1);
  Value buffer = bufferViews.lookup(ptr.base);
  // Predicated stores (under a mask, or in layouts with copies) need no
  // branch through a buffer resource.
  if (!buffer && (mask || owns))
    if (auto shared = sharedBaseBuffer(op.getPtr(), width, eltBytes))
      std::tie(buffer, ptr.value) = *shared;
  auto store = [&](OpBuilder &bb, Location l, Value chunk, Value base, Value index) {
    if (width == 1)
      memref::StoreOp::create(bb, l, chunk, base, ValueRange{index}, op.getIsNontemporal(), IntegerAttr());
    else
      vector::StoreOp::create(bb, l, chunk, base, ValueRange{index}, op.getIsNontemporal(),
                              llvm::MaybeAlign(align));
  };
  ChunkLoop chunks(*this, vtype.getNumElements(), width, eltBytes);
  Value indices = chunks.operand(ptr.value), preds = chunks.operand(mask), stored = chunks.operand(value);
  chunks.run([&](OpFoldResult g) -> Value {
    Value index = chunks.at(indices, g, 1);
    Value chunk = chunks.at(stored, g, width);
    Value pred = writes(mask ? chunks.predicateAt(preds, g) : Value());
    if (buffer && pred)
      store(b, loc(), chunk, buffer, bufferIndex(pred, index, eltBytes));
    else
      guarded(pred, [&](OpBuilder &bb, Location l) { store(bb, l, chunk, ptr.base, index); });
    return Value();
  });
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
  if (cmp) {
    Value old = generic([&](OpBuilder &body, Value current) -> Value {
      Value same = arith::CmpIOp::create(body, l, arith::CmpIPredicate::eq, current, cmp);
      return arith::SelectOp::create(body, l, same, value, current);
    });
    Operation *rmw = old.getDefiningOp();
    rmw->setAttr(kAtomicScope, bb.getStringAttr(syncScope(op)));
    rmw->setAttr(kCompareExchange, bb.getUnitAttr());
    return old;
  }
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
  auto atomic = memref::AtomicRMWOp::create(bb, l, kind, value, base, ValueRange{index});
  atomic->setAttr(kAtomicScope, bb.getStringAttr(syncScope(op)));
  return atomic;
}

StringRef KernelLowering::syncScope(Operation *op) {
  StringRef scope = op->getAttrOfType<StringAttr>("scope").getValue();
  return scope == "gpu" ? "agent" : scope == "cta" ? "workgroup" : "";
}

void KernelLowering::fence(OpBuilder &bb, Location l, Operation *op, bool after) {
  StringRef sem = op->getAttrOfType<StringAttr>("sem").getValue();
  if (sem == "relaxed" || sem == (after ? "release" : "acquire"))
    return;
  LLVM::FenceOp::create(bb, l, after ? LLVM::AtomicOrdering::acquire : LLVM::AtomicOrdering::release,
                        syncScope(op));
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
  // The op's ordering, once for all its elements: a release fence before
  // them, an acquire fence after (each where `sem` asks for it).
  auto tensorType = dyn_cast<RankedTensorType>(resultType);
  if (!tensorType) // one thread updates memory
    return fromFirstThread(op, mask, [&](OpBuilder &bb, Location l) {
      fence(bb, l, op, /*after=*/false);
      Value old = emitAtomic(bb, l, op, ptr.base, ptr.value, value, cmp);
      fence(bb, l, op, /*after=*/true);
      return old;
    });
  Value owns = ownsElements(layoutOf(op->getResult(0)));
  fence(b, loc(), op, /*after=*/false);
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
  fence(b, loc(), op, /*after=*/true);
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
