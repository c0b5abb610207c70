// Moving elements between layouts: register renaming where the lanes already
// hold them, LDS exchanges otherwise.
#include "KernelLowering.h"
#include "rocktile/Analysis/LdsScratch.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
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

SmallVector<SmallVector<Value>> KernelLowering::registerCoords(const LinearLayout &layout) {
  SmallVector<Value> threadPart;
  for (unsigned d = 0; d < layout.getRank(); ++d)
    threadPart.push_back(threadCoord(layout, d));
  SmallVector<SmallVector<Value>> coords;
  for (int64_t r = 0; r < layout.getNumRegisters(); ++r) {
    LinearLayout::Coord c = layout.apply(LinearLayout::Register, r);
    SmallVector<Value> &coord = coords.emplace_back();
    for (unsigned d = 0; d < layout.getRank(); ++d)
      coord.push_back(combine(layout.isAdditive(), threadPart[d], i32(c[d])));
  }
  return coords;
}

Value KernelLowering::rowMajorIndex(ArrayRef<Value> coords, ArrayRef<int64_t> shape) {
  Value linear = i32(0);
  for (auto [coord, size] : llvm::zip(coords, shape))
    linear = arith::AddIOp::create(b, loc(), arith::MulIOp::create(b, loc(), linear, i32(size)), coord);
  return linear;
}

SmallVector<Value> KernelLowering::rowMajorIndices(const LinearLayout &layout) {
  SmallVector<Value> indices;
  for (ArrayRef<Value> coord : registerCoords(layout))
    indices.push_back(rowMajorIndex(coord, layout.getShape()));
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

Value KernelLowering::ldsThreadOffset(const LinearLayout &layout, const LdsLayout &lds, ArrayRef<int64_t> origin) {
  SmallVector<Value> coord;
  for (unsigned d = 0; d < layout.getRank(); ++d) {
    coord.push_back(threadCoord(layout, d));
    if (!origin.empty() && origin[d])
      coord.back() = arith::AddIOp::create(b, loc(), coord.back(), i32(origin[d]));
  }
  Value row = lds.order.size() > 1 ? coord[lds.order[1]] : Value();
  if (lds.maxPhase > 1) {
    Value phase = i32(0);
    for (int64_t shift : lds.phaseShifts)
      phase = arith::XOrIOp::create(b, loc(), phase,
                                    shift >= 0 ? arith::ShRUIOp::create(b, loc(), row, i32(shift)).getResult()
                                               : arith::ShLIOp::create(b, loc(), row, i32(-shift)).getResult());
    phase = arith::AndIOp::create(b, loc(), phase, i32(lds.maxPhase - 1));
    Value &fast = coord[lds.order[0]];
    fast = arith::XOrIOp::create(b, loc(), fast,
                                 arith::ShLIOp::create(b, loc(), phase, i32(llvm::Log2_64(lds.vec))));
  }
  if (lds.rowShift)
    coord[lds.order[1]] = arith::XOrIOp::create(
        b, loc(), row,
        arith::AndIOp::create(b, loc(), arith::ShRUIOp::create(b, loc(), row, i32(lds.rowShift)), i32(1)));
  Value offset = i32(0);
  int64_t stride = 1;
  for (unsigned d : lds.order) {
    offset = arith::AddIOp::create(b, loc(), offset, arith::MulIOp::create(b, loc(), coord[d], i32(stride)));
    stride *= d == lds.order[0] && lds.rowPitch ? lds.rowPitch : lds.shape[d];
  }
  return offset;
}

SmallVector<std::pair<int64_t, Value>>
KernelLowering::ldsAccessIndices(const LinearLayout &layout, const LdsLayout &lds, const LdsAccess &access,
                                 bool skipCopies, Value first, ArrayRef<int64_t> origin) {
  // The map is linear over GF(2): a register's offset is the thread's XOR a
  // constant, which is an add (folded into the instruction's offset field)
  // when it shares no bit with what the thread part can hold. A sub-block's
  // origin (aligned to its power-of-two extents) is the thread part's.
  Value base = ldsThreadOffset(layout, lds, origin);
  int64_t threadBits = origin.empty() ? 0 : lds.offsetOf(origin);
  for (auto in : {LinearLayout::Lane, LinearLayout::Warp})
    for (const LinearLayout::Coord &basis : layout.getBases(in))
      threadBits |= lds.offsetOf(basis);
  // The thread's offset in the slot, made once: an access whose constant
  // only adds is that plus the constant, which the instruction's offset
  // field holds. (Added after the constant instead, LLVM hoists each
  // access's thread part out of a loop over a turning slot and adds the
  // slot to every one of them each iteration: a VALU per access.)
  Value slotBase;
  SmallVector<std::pair<int64_t, Value>> out;
  for (int64_t reg : access.firstRegisters(layout, skipCopies)) {
    int64_t k = lds.offsetOf(layout.apply(LinearLayout::Register, reg));
    // Constants that share bits with the thread part XOR (offsets in padded
    // rows add up). With a slot, only the shared bits XOR and the others
    // add, so that accesses whose constants differ in those alone share an
    // address register: in a loop reading a turning slot, each register
    // costs a VALU per iteration. Elsewhere the addresses are computed
    // once, and the backend merged reads that share a register into
    // ds_load_2addr pairs whose halves then took moves into the matrix
    // operands (gfx1250 fp8 256x256x64: 17 more VALU).
    int64_t mixed = lds.rowPitch ? 0 : k & threadBits;
    if (mixed && !first)
      mixed = k;
    Value at;
    if (!mixed && first) {
      if (!slotBase)
        slotBase = arith::AddIOp::create(b, loc(), base, first);
      at = k ? arith::AddIOp::create(b, loc(), slotBase, i32(k)).getResult() : slotBase;
    } else {
      at = mixed ? arith::XOrIOp::create(b, loc(), base, i32(mixed)).getResult() : base;
      if (k != mixed)
        at = arith::AddIOp::create(b, loc(), at, i32(k ^ mixed));
      if (first)
        at = arith::AddIOp::create(b, loc(), at, first);
    }
    out.emplace_back(reg, arith::IndexCastOp::create(b, loc(), b.getIndexType(), at));
  }
  return out;
}

Value KernelLowering::gatherBytes(Value from, ArrayRef<int64_t> regs) {
  auto type = cast<VectorType>(from.getType());
  int64_t n = type.getNumElements();
  Type elt = type.getElementType();
  if (!elt.isIntOrFloat() || elt.getIntOrFloatBitWidth() != 8 || regs.size() % 4 || n % 4)
    return vector::ShuffleOp::create(b, loc(), from, from, regs);
  // Bytes gathered as dwords of shifted, masked bytes: the AMDGPU backend
  // makes v_perm_b32 of these, where an i8 shuffle becomes 16-bit halves.
  Type word32 = b.getI32Type();
  Value words = vector::BitCastOp::create(b, loc(), VectorType::get({n / 4}, word32),
                                          arith::BitcastOp::create(b, loc(), VectorType::get({n}, b.getI8Type()), from));
  // Byte r of `from` in bits [8 * at, 8 * at + 8) of an otherwise zero dword.
  auto byteAt = [&](int64_t r, int64_t at) -> Value {
    Value src = vector::ExtractOp::create(b, loc(), words, r / 4);
    int64_t shift = 8 * (at - r % 4);
    Value moved = shift > 0   ? arith::ShLIOp::create(b, loc(), src, i32(shift)).getResult()
                  : shift < 0 ? arith::ShRUIOp::create(b, loc(), src, i32(-shift)).getResult()
                              : src;
    return arith::AndIOp::create(b, loc(), moved, i32(int64_t(0xff) << (8 * at)));
  };
  // Two bytes at a time (each pair one v_perm_b32 of two dwords), then the
  // two halves.
  SmallVector<Value> out;
  for (size_t w = 0; w < regs.size() / 4; ++w) {
    Value lo = arith::OrIOp::create(b, loc(), byteAt(regs[4 * w], 0), byteAt(regs[4 * w + 1], 1));
    Value hi = arith::OrIOp::create(b, loc(), byteAt(regs[4 * w + 2], 2), byteAt(regs[4 * w + 3], 3));
    out.push_back(arith::OrIOp::create(b, loc(), lo, hi));
  }
  Value packed = vector::FromElementsOp::create(b, loc(), VectorType::get({int64_t(out.size())}, word32), out);
  Value bytes = vector::BitCastOp::create(b, loc(), VectorType::get({int64_t(regs.size())}, b.getI8Type()), packed);
  return arith::BitcastOp::create(b, loc(), VectorType::get({int64_t(regs.size())}, type.getElementType()), bytes);
}

LogicalResult KernelLowering::exchangeThroughLds(Operation *op) {
  Value srcValue = op->getOperand(0), result = op->getResult(0);
  LinearLayout from = layoutOf(srcValue), to = layoutOf(result);
  LaneValue src = values.lookup(srcValue);
  auto resultType = cast<RankedTensorType>(result.getType());
  auto vtype = laneVectorType(resultType, to);
  // i1 goes through LDS as bytes: vectors of i1 would be packed bits.
  Type elt = vtype.getElementType().isInteger(1) ? b.getI8Type() : vtype.getElementType();
  Value srcVector = src.value;
  if (elt != vtype.getElementType())
    srcVector = arith::ExtUIOp::create(
        b, loc(), VectorType::get(cast<VectorType>(srcVector.getType()).getShape(), elt), srcVector);
  int64_t eltBytes = exchangeBytes(resultType);
  bool reshape = isa<tile::ReshapeOp>(op);
  ExchangePieces pieces = reshape ? ExchangePieces{{}, {}, from, to} : splitExchange(from, to, eltBytes);
  FailureOr<Value> view = scratchView(op, elt, resultType.getNumElements() / pieces.count());
  if (failed(view))
    return failure();
  Value out = from.isAdditive() && to.isAdditive()
                  ? exchangeVectorized(srcVector, pieces, *view, elt, eltBytes, reshape)
                  : exchangeElementwise(srcVector, pieces, *view, elt);
  if (elt != vtype.getElementType())
    out = arith::TruncIOp::create(b, loc(), vtype, out);
  values[result] = {src.base, out};
  return success();
}

Value KernelLowering::exchangeVectorized(Value srcVector, const ExchangePieces &pieces, Value view, Type elt,
                                         int64_t eltBytes, bool reshape) {
  // A reshape keeps the row-major order of the elements; a conversion lays
  // them out as both sides' accesses are fastest, in pieces if large.
  LdsTransposeRead transposeRead = target.transposeRead(eltBytes);
  LdsLayout writeLds = reshape ? LdsLayout::rowMajor(pieces.from.getShape())
                               : chooseLdsLayout(pieces.from, pieces.to, eltBytes, target.ldsBanks, transposeRead);
  LdsLayout readArrangement = reshape ? LdsLayout::rowMajor(pieces.to.getShape()) : writeLds;
  LdsAccess write = ldsAccess(pieces.from, writeLds, eltBytes);
  SmallVector<Value> parts;
  SmallVector<int64_t> source(pieces.to.getNumRegisters() * pieces.count());
  for (int64_t piece = 0; piece < pieces.count(); ++piece) {
    // The lanes that own elements write them (a copy in another wave would
    // race with them, even with the same value), then every lane reads what
    // the new layout gives it.
    SmallVector<int64_t> held;
    for (int64_t r = 0; r < pieces.from.getNumRegisters(); ++r)
      held.push_back(insertBits(r, pieces.fromBits, piece));
    Value pieceValues = vector::ShuffleOp::create(b, loc(), srcVector, srcVector, held);
    storeToLds(pieceValues, pieces.from, writeLds, write, view, eltBytes);
    readLds(pieces.to, readArrangement, view, elt, eltBytes, pieces.toBits, piece, parts, source);
  }
  Value out = concatParts(parts);
  return vector::ShuffleOp::create(b, loc(), out, out, source);
}

Value KernelLowering::exchangeElementwise(Value srcVector, const ExchangePieces &pieces, Value view, Type elt) {
  // Layouts whose coordinates combine by XOR (the swizzled layouts of
  // gfx950's direct-to-LDS copies, and what slicing and broadcasting them
  // gives) have no per-register address offsets to vectorize over: each
  // element goes through LDS alone, at its row-major index.
  auto index = [&](ArrayRef<Value> coord, const LinearLayout &layout) {
    return arith::IndexCastOp::create(b, loc(), b.getIndexType(), rowMajorIndex(coord, layout.getShape()))
        .getResult();
  };
  SmallVector<Value> out(pieces.to.getNumRegisters() * pieces.count());
  SmallVector<SmallVector<Value>> fromCoords = registerCoords(pieces.from), toCoords = registerCoords(pieces.to);
  for (int64_t piece = 0; piece < pieces.count(); ++piece) {
    gpu::BarrierOp::create(b, loc());
    byOwners(pieces.from, [&] {
      for (int64_t r = 0; r < pieces.from.getNumRegisters(); ++r) {
        Value element = vector::ExtractOp::create(b, loc(), srcVector, insertBits(r, pieces.fromBits, piece));
        memref::StoreOp::create(b, loc(), element, view, ValueRange{index(fromCoords[r], pieces.from)});
      }
    });
    gpu::BarrierOp::create(b, loc());
    for (int64_t r = 0; r < pieces.to.getNumRegisters(); ++r)
      out[insertBits(r, pieces.toBits, piece)] =
          memref::LoadOp::create(b, loc(), view, ValueRange{index(toCoords[r], pieces.to)});
  }
  return vector::FromElementsOp::create(b, loc(), VectorType::get({int64_t(out.size())}, elt), out);
}

void KernelLowering::readLds(const LinearLayout &to, const LdsLayout &lds, Value view, Type elt, int64_t eltBytes,
                             ArrayRef<unsigned> pieceBits, int64_t piece, SmallVectorImpl<Value> &parts,
                             MutableArrayRef<int64_t> source, Value first, ArrayRef<int64_t> origin) {
  // Transpose reads: each lane reads at the addresses of the layout that
  // transposeReadLayout gives, and receives `to`'s registers.
  LdsTransposeRead transposeRead = target.transposeRead(eltBytes);
  LinearLayout readLayout = lds.transposedRead ? *transposeReadLayout(to, transposeRead, eltBytes) : to;
  int64_t readBytes = lds.transposedRead ? transposeRead.elements * eltBytes : 16;
  LdsAccess read = ldsAccess(readLayout, lds, eltBytes, readBytes);
  for (auto [reg, at] : ldsAccessIndices(readLayout, lds, read, /*skipCopies=*/false, first, origin)) {
    auto type = VectorType::get({read.width()}, elt);
    int64_t position = int64_t(parts.size()) * read.width(); // every part is one such read
    for (auto [j, r] : llvm::enumerate(read.registers(reg)))
      source[insertBits(lds.transposedRead ? reg + j : r, pieceBits, piece)] = position + int64_t(j);
    parts.push_back(lds.transposedRead
                        ? transposeLoad(type, view, at, transposeRead)
                        : vector::LoadOp::create(b, loc(), type, view, ValueRange{at}, /*nontemporal=*/false,
                                                 llvm::Align(read.width() * eltBytes))
                              .getResult());
  }
}

Value KernelLowering::loadFromLds(const LinearLayout &to, const LdsLayout &lds, Value view, Type elt,
                                  int64_t eltBytes, Value first, ArrayRef<int64_t> origin) {
  SmallVector<Value> parts;
  SmallVector<int64_t> source(to.getNumRegisters());
  readLds(to, lds, view, elt, eltBytes, {}, 0, parts, source, first, origin);
  Value out = concatParts(parts);
  return vector::ShuffleOp::create(b, loc(), out, out, source);
}

void KernelLowering::storeToLds(Value values, const LinearLayout &layout, const LdsLayout &lds,
                                const LdsAccess &write, Value view, int64_t eltBytes) {
  gpu::BarrierOp::create(b, loc());
  writeLds(values, layout, lds, write, view, eltBytes);
  gpu::BarrierOp::create(b, loc());
}

void KernelLowering::writeLds(Value values, const LinearLayout &layout, const LdsLayout &lds, const LdsAccess &write,
                              Value view, int64_t eltBytes, Value first, ArrayRef<int64_t> origin) {
  // The lanes that own elements write them: a copy in another wave would
  // race with them, even with the same value.
  byOwners(layout, [&] {
    for (auto [reg, at] : ldsAccessIndices(layout, lds, write, /*skipCopies=*/true, first, origin)) {
      Value part = gatherBytes(values, write.registers(reg));
      vector::StoreOp::create(b, loc(), part, view, ValueRange{at}, /*nontemporal=*/false,
                              llvm::Align(write.width() * eltBytes));
    }
  });
}

LogicalResult KernelLowering::lowerGather(tile::GatherOp op) {
  LinearLayout from = layoutOf(op.getSrc()), to = layoutOf(op);
  if (!from.isAdditive() || !to.isAdditive())
    return op->emitError("moving elements between lanes needs layouts whose coordinates add up");
  auto srcType = op.getSrc().getType();
  auto vtype = laneVectorType(op.getType(), to);
  // i1 goes through LDS as bytes, as in exchangeThroughLds.
  Type elt = vtype.getElementType().isInteger(1) ? b.getI8Type() : vtype.getElementType();
  Value src = lookup(op.getSrc());
  if (elt != vtype.getElementType())
    src = arith::ExtUIOp::create(b, loc(), VectorType::get(cast<VectorType>(src.getType()).getShape(), elt), src);
  int64_t eltBytes = exchangeBytes(srcType);
  FailureOr<Value> view = scratchView(op, elt, srcType.getNumElements());
  if (failed(view))
    return failure();
  // The source in row-major order, written as whole vectors.
  LdsLayout lds = LdsLayout::rowMajor(from.getShape());
  storeToLds(src, from, lds, ldsAccess(from, lds, eltBytes), *view, eltBytes);
  // Each result element from the source's row-major position of its own
  // coordinates, the index in place of the axis's.
  Value index = lookup(op.getIndex());
  SmallVector<Value> elements;
  for (auto [r, coord] : llvm::enumerate(registerCoords(to))) {
    Value at = vector::ExtractOp::create(b, loc(), index, int64_t(r));
    if (at.getType() != b.getI32Type()) // any integer width indexes
      at = arith::IndexCastOp::create(b, loc(), b.getI32Type(),
                                      arith::IndexCastOp::create(b, loc(), b.getIndexType(), at));
    coord[op.getAxis()] = at;
    elements.push_back(memref::LoadOp::create(
        b, loc(), *view,
        ValueRange{arith::IndexCastOp::create(b, loc(), b.getIndexType(), rowMajorIndex(coord, srcType.getShape()))}));
  }
  Value out = vector::FromElementsOp::create(b, loc(), VectorType::get({to.getNumRegisters()}, elt), elements);
  if (elt != vtype.getElementType())
    out = arith::TruncIOp::create(b, loc(), vtype, out);
  values[op] = {values.lookup(op.getSrc()).base, out};
  return success();
}

Value KernelLowering::transposeLoad(VectorType type, Value view, Value at, const LdsTransposeRead &read) {
  if (!read.rocdl)
    return amdgpu::TransposeLoadOp::create(b, loc(), type, view, ValueRange{at});
  // rocdl's forms take an LDS pointer: the view's element `at`.
  Value ptr = elementPointer(view, at, 3, read.elementBytes);
  if (read.elementBytes == 2)
    return ROCDL::DsLoadTr16_B128::create(b, loc(), type, ptr);
  // The backend selects the 8-bit form for dwords only.
  Value words = ROCDL::DsLoadTr8_B64::create(b, loc(), VectorType::get({2}, b.getI32Type()), ptr);
  return vector::BitCastOp::create(b, loc(), type, words);
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
