#include "rocktile/Dialect/Tile/IR/Tile.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace rocktile::tile;

#define GET_OP_CLASSES
#include "rocktile/Dialect/Tile/IR/TileOps.cpp.inc"

static ArrayRef<int64_t> shapeOf(Type type) {
  if (auto t = dyn_cast<RankedTensorType>(type))
    return t.getShape();
  return {};
}

LogicalResult MakeRangeOp::verify() {
  int64_t start = getStart(), end = getEnd();
  if (end <= start)
    return emitOpError() << "needs start < end, got [" << start << ", " << end
                         << ")";
  if (!llvm::isPowerOf2_64(end - start))
    return emitOpError() << "range size " << end - start
                         << " must be a power of two";
  auto type = getType();
  if (type.getRank() != 1 || type.getDimSize(0) != end - start)
    return emitOpError() << "result must be a 1-D tensor of " << end - start
                         << " elements, got " << type;
  return success();
}

LogicalResult SplatOp::verify() {
  if (getType().getElementType() != getSrc().getType())
    return emitOpError() << "result element type " << getType().getElementType()
                         << " differs from the scalar's type "
                         << getSrc().getType();
  return success();
}

LogicalResult BroadcastOp::verify() {
  auto src = getSrc().getType(), dst = getType();
  if (src.getElementType() != dst.getElementType())
    return emitOpError() << "element types differ: " << src.getElementType()
                         << " vs " << dst.getElementType();
  if (src.getRank() != dst.getRank())
    return emitOpError() << "ranks differ: " << src.getRank() << " vs "
                         << dst.getRank();
  for (int64_t d = 0; d < src.getRank(); ++d)
    if (src.getDimSize(d) != 1 && src.getDimSize(d) != dst.getDimSize(d))
      return emitOpError() << "dimension " << d << " of size "
                           << src.getDimSize(d)
                           << " can only be broadcast from size 1 or kept, "
                              "but the result has size "
                           << dst.getDimSize(d);
  return success();
}

LogicalResult ExpandDimsOp::verify() {
  auto src = getSrc().getType(), dst = getType();
  int64_t axis = getAxis();
  if (axis < 0 || axis > src.getRank())
    return emitOpError() << "axis " << axis << " is out of range for rank "
                         << src.getRank();
  SmallVector<int64_t> expected(src.getShape());
  expected.insert(expected.begin() + axis, 1);
  if (dst.getShape() != ArrayRef<int64_t>(expected) ||
      dst.getElementType() != src.getElementType())
    return emitOpError() << "result must be " << src.clone(expected)
                         << " (a size-1 dimension inserted at " << axis
                         << "), got " << dst;
  return success();
}

LogicalResult AssumeOp::verify() {
  size_t rank = std::max<size_t>(shapeOf(getSrc().getType()).size(), 1);
  for (auto [name, values] : {std::pair{"divisibility", getDivisibility()},
                              {"contiguity", getContiguity()}, {"constancy", getConstancy()}}) {
    if (!values)
      continue;
    if (values->size() != rank)
      return emitOpError() << name << " needs one value per dimension (" << rank << "), got "
                           << values->size();
    for (int64_t v : *values)
      if (v < 1 || !llvm::isPowerOf2_64(v))
        return emitOpError() << name << " values must be powers of two, got " << v;
  }
  return success();
}

LogicalResult TransOp::verify() {
  auto src = getSrc().getType(), dst = getType();
  ArrayRef<int32_t> order = getOrder();
  SmallVector<int32_t> sorted(order);
  llvm::sort(sorted);
  if (int64_t(order.size()) != src.getRank() ||
      !llvm::equal(sorted, llvm::seq<int32_t>(0, src.getRank())))
    return emitOpError() << "order must be a permutation of the " << src.getRank()
                         << " dimensions";
  SmallVector<int64_t> shape;
  for (int32_t d : order)
    shape.push_back(src.getDimSize(d));
  if (dst.getShape() != ArrayRef<int64_t>(shape) || dst.getElementType() != src.getElementType())
    return emitOpError() << "result must be " << src.clone(shape) << ", got " << dst;
  return success();
}

/// The scaled dot's own rules (operand formats, packing, scales).
static LogicalResult verifyScaledDot(DotOp op) {
  if (!op.getAScale() || !op.getBScale())
    return op.emitOpError() << "scales come in pairs: one for A and one for B";
  auto a = op.getA().getType(), b = op.getB().getType(), d = op.getType();
  // Elements along K per element of the operand: two E2M1 codes per byte,
  // one FP6 code.
  auto perElement = [&](std::optional<StringRef> format, Type elt) -> int64_t {
    if (!format)
      return isa<Float8E4M3FNType, Float8E5M2Type>(elt) ? 1 : 0;
    if (!elt.isInteger(8))
      return 0;
    return *format == "e2m1" ? 2 : *format == "e2m3" || *format == "e3m2" ? 1 : 0;
  };
  int64_t packA = perElement(op.getAFormat(), a.getElementType()),
          packB = perElement(op.getBFormat(), b.getElementType());
  if (d.getRank() != 2 || a.getRank() != 2 || b.getRank() != 2 || !packA || !packB ||
      !d.getElementType().isF32())
    return op.emitOpError() << "a scaled dot is a 2-D product of fp8 operands (f8E4M3FN, f8E5M2), of i8 bytes "
                               "of E2M1 pairs (format \"e2m1\") or of i8 FP6 codes (\"e2m3\", \"e3m2\") into "
                               "f32, got "
                            << a << " x " << b << " -> " << d;
  int64_t K = a.getDimSize(1) * packA;
  if (b.getDimSize(0) * packB != K || d.getDimSize(0) != a.getDimSize(0) || d.getDimSize(1) != b.getDimSize(1))
    return op.emitOpError() << "shapes do not multiply: " << a << " x " << b << " -> " << d;
  if (op.getKOrder())
    return op.emitOpError() << "a scaled dot keeps its k order (a scale covers consecutive k)";
  // E8M0 scales (i8) per 32 k, or E4M3 scales (NVFP4) per 16.
  Type scaleElt = cast<RankedTensorType>(op.getAScale().getType()).getElementType();
  bool e4m3 = isa<Float8E4M3FNType>(scaleElt);
  int64_t block = e4m3 ? 16 : 32;
  if (e4m3 && (packA != 2 || packB != 2))
    return op.emitOpError() << "E4M3 scales (NVFP4) scale E2M1 operands only, got " << a << " x " << b;
  for (auto [scale, rows, side] : {std::tuple{op.getAScale(), a.getDimSize(0), "a_scale"},
                                   std::tuple{op.getBScale(), b.getDimSize(1), "b_scale"}}) {
    auto type = cast<RankedTensorType>(scale.getType());
    if (K % block || type.getRank() != 2 || type.getDimSize(0) != rows || type.getDimSize(1) != K / block ||
        type.getElementType() != (e4m3 ? scaleElt : IntegerType::get(op.getContext(), 8)))
      return op.emitOpError() << side << " must be a " << rows << "x" << K / block
                              << (e4m3 ? "xf8E4M3FN tile (one E4M3 scale per 16 k" : "xi8 tile (one E8M0 scale per 32 k")
                              << ", K = " << K << "), got " << type;
  }
  return success();
}

namespace {
/// Whether `v` is a tile of zeros (a splat of a zero constant).
bool isZeroTile(Value v) {
  if (auto splat = v.getDefiningOp<SplatOp>())
    v = splat.getSrc();
  return matchPattern(v, m_AnyZeroFloat()) || matchPattern(v, m_Zero());
}

/// acc + dot(a, b, 0) -> dot(a, b, acc): see DotOp's description.
template <typename AddOp> struct FoldAddIntoDot : OpRewritePattern<AddOp> {
  using OpRewritePattern<AddOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(AddOp add, PatternRewriter &rewriter) const override {
    for (auto [product, other] : {std::pair{add.getLhs(), add.getRhs()}, std::pair{add.getRhs(), add.getLhs()}}) {
      auto dot = product.template getDefiningOp<DotOp>();
      if (!dot || !dot->hasOneUse() || !isZeroTile(dot.getAcc()) || other.getType() != dot.getType())
        continue;
      // The dot now needs `other`: defined after it in its block, the dot
      // moves down to it (the add is after both); elsewhere it must dominate.
      Operation *def = other.getDefiningOp();
      bool sameBlock = def && def->getBlock() == dot->getBlock();
      if (!sameBlock && !DominanceInfo().properlyDominates(other, dot))
        continue;
      rewriter.modifyOpInPlace(dot, [&] { dot.getAccMutable().assign(other); });
      if (sameBlock && dot->isBeforeInBlock(def))
        rewriter.moveOpAfter(dot, def);
      rewriter.replaceOp(add, dot.getResult());
      return success();
    }
    return failure();
  }
};
} // namespace

void DotOp::getCanonicalizationPatterns(RewritePatternSet &patterns, MLIRContext *context) {
  patterns.add<FoldAddIntoDot<arith::AddFOp>, FoldAddIntoDot<arith::AddIOp>>(context);
}

LogicalResult DotOp::verify() {
  if (getAScale() || getBScale() || getAFormat() || getBFormat())
    return verifyScaledDot(*this);
  auto a = getA().getType(), b = getB().getType(), d = getType();
  int64_t rank = d.getRank();
  if (a.getRank() != rank || b.getRank() != rank || (rank != 2 && rank != 3))
    return emitOpError() << "operands must be all 2-D or all 3-D (batched), got " << a << ", " << b
                         << " and " << d;
  int64_t m = rank - 2, k = rank - 1;
  if (a.getDimSize(k) != b.getDimSize(m) || d.getDimSize(m) != a.getDimSize(m) ||
      d.getDimSize(k) != b.getDimSize(k) ||
      (rank == 3 && (a.getDimSize(0) != d.getDimSize(0) || b.getDimSize(0) != d.getDimSize(0))))
    return emitOpError() << "shapes do not multiply: " << a << " x " << b << " -> " << d;
  Type ea = a.getElementType(), eb = b.getElementType(), ed = d.getElementType();
  if (isa<FloatType>(ea) != isa<FloatType>(eb) || !ea.isIntOrFloat() || !eb.isIntOrFloat())
    return emitOpError() << "A and B must both be floats or both integers, got " << ea << " and " << eb;
  if (isa<FloatType>(ea) != isa<FloatType>(ed))
    return emitOpError() << "the accumulator " << ed << " must be a "
                         << (isa<FloatType>(ea) ? "float" : "integer") << " like A and B";
  if (auto order = getKOrder()) {
    int64_t K = a.getDimSize(k), seen = 0;
    for (int64_t bit : *order)
      if (bit <= 0 || !llvm::isPowerOf2_64(bit) || bit >= K || (seen & bit))
        return emitOpError() << "k_order must name each bit of K = " << K << " once, got " << bit;
      else
        seen |= bit;
    if (seen != K - 1)
      return emitOpError() << "k_order must name each bit of K = " << K << " once";
  }
  if (getWarpsN() && !llvm::isPowerOf2_32(*getWarpsN()))
    return emitOpError() << "warps_n must be a power of two, got " << *getWarpsN();
  return success();
}

LogicalResult ReshapeOp::verify() {
  auto src = getSrc().getType(), dst = getType();
  if (src.getNumElements() != dst.getNumElements() || src.getElementType() != dst.getElementType())
    return emitOpError() << "cannot reshape " << src << " into " << dst
                         << ": element counts or types differ";
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  auto inner = getSrc().getDefiningOp<ReshapeOp>();
  if (inner)
    getSrcMutable().assign(inner.getSrc());
  if (getSrc().getType() == getType())
    return getSrc();
  return inner ? getResult() : OpFoldResult();
}

LogicalResult GatherOp::verify() {
  auto src = getSrc().getType(), index = getIndex().getType(), dst = getType();
  int64_t axis = getAxis(), rank = src.getRank();
  if (index.getRank() != rank)
    return emitOpError() << "index must have the rank of the source (" << rank << "), got " << index;
  if (axis < 0 || axis >= rank)
    return emitOpError() << "axis " << axis << " is out of range for rank " << rank;
  if (!index.getElementType().isInteger())
    return emitOpError() << "index must hold integers, got " << index;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis && index.getDimSize(d) != src.getDimSize(d))
      return emitOpError() << "index must have the source's size in every dimension but the axis (" << axis
                           << "), got " << index << " for " << src;
  if (dst.getShape() != index.getShape() || dst.getElementType() != src.getElementType())
    return emitOpError() << "result must be " << src.clone(index.getShape()) << ", got " << dst;
  return success();
}

LogicalResult ScaledUpcastOp::verify() {
  auto codes = getCodes().getType(), scales = getScales().getType(), dst = getType();
  int64_t axis = getAxis(), rank = dst.getRank();
  if (axis < 0 || axis >= rank)
    return emitOpError() << "axis " << axis << " is out of range for rank " << rank;
  if (!dst.getElementType().isBF16() && !dst.getElementType().isF16())
    return emitOpError() << "result must hold bf16 or f16, got " << dst;
  if (!codes.getElementType().isInteger(8) || !scales.getElementType().isInteger(8))
    return emitOpError() << "codes and scales must be i8 tiles (E2M1 pairs, E8M0 bits), got " << codes << " and "
                         << scales;
  SmallVector<int64_t> packed(dst.getShape());
  packed[axis] /= 2;
  if (codes.getShape() != ArrayRef<int64_t>(packed))
    return emitOpError() << "codes must be " << dst.clone(packed, codes.getElementType())
                         << " (two codes per byte along axis " << axis << "), got " << codes;
  int64_t blocks = scales.getRank() == rank ? scales.getDimSize(axis) : 0;
  SmallVector<int64_t> blocked(dst.getShape());
  blocked[axis] = blocks;
  if (scales.getRank() != rank || scales.getShape() != ArrayRef<int64_t>(blocked) || blocks == 0 ||
      dst.getDimSize(axis) % blocks || dst.getDimSize(axis) / blocks < 8)
    return emitOpError() << "scales must have the result's shape but along axis " << axis
                         << ", where each covers a block of 8 or more elements, got " << scales << " for " << dst;
  return success();
}

LogicalResult ConvertLayoutOp::verify() {
  auto src = getSrc().getType(), dst = getType();
  if (src.getShape() != dst.getShape() || src.getElementType() != dst.getElementType())
    return emitOpError() << "changes only the layout: " << src << " and " << dst
                         << " must have the same shape and element type";
  return success();
}

LogicalResult AddPtrOp::verify() {
  if (shapeOf(getPtr().getType()) != shapeOf(getOffset().getType()))
    return emitOpError() << "pointer and offset shapes differ: "
                         << getPtr().getType() << " vs "
                         << getOffset().getType();
  return success();
}

/// An address is a 64-bit integer.
static LogicalResult verifyAddress(Operation *op, Type address) {
  if (!rocktile::tile::getElementTypeOrSelf(address).isInteger(64))
    return op->emitOpError() << "addresses are 64-bit integers, not " << address;
  return success();
}

LogicalResult IntToPtrOp::verify() { return verifyAddress(*this, getSrc().getType()); }

LogicalResult PtrToIntOp::verify() { return verifyAddress(*this, getType()); }

/// Checks what load and store share: the pointee matches the value and the
/// mask has the pointers' shape.
static LogicalResult verifyAccess(Operation *op, Type ptrType, Type valueType,
                                  Value mask) {
  auto ptr = cast<PointerType>(rocktile::tile::getElementTypeOrSelf(ptrType));
  Type expected = cloneWithElementType(ptrType, ptr.getPointeeType());
  if (isa<RankedTensorType>(valueType) && isa<RankedTensorType>(expected))
    expected = cast<RankedTensorType>(expected).cloneWithEncoding(
        cast<RankedTensorType>(valueType).getEncoding());
  if (valueType != expected)
    return op->emitOpError() << "value type " << valueType
                             << " does not match the pointers, which need "
                             << expected;
  if (mask && shapeOf(mask.getType()) != shapeOf(ptrType))
    return op->emitOpError() << "mask shape does not match the pointers: "
                             << mask.getType() << " vs " << ptrType;
  return success();
}

LogicalResult LoadOp::verify() {
  if (getOther() && !getMask())
    return emitOpError() << "'other' is only meaningful with a mask";
  return verifyAccess(*this, getPtr().getType(), getType(), getMask());
}

/// A block of a tensor descriptor's op: `block`'s elements are the
/// pointee's, and each dimension has an offset, an extent and a stride.
static LogicalResult verifyBlockAccess(Operation *op, StringRef verb, Value base, ValueRange offsets,
                                       ValueRange shape, ValueRange strides, RankedTensorType block) {
  int64_t rank = block.getRank();
  if (int64_t(offsets.size()) != rank || int64_t(shape.size()) != rank || int64_t(strides.size()) != rank)
    return op->emitOpError() << "needs one offset, extent and stride per dimension of the " << rank
                             << "-D block, got " << offsets.size() << ", " << shape.size() << " and "
                             << strides.size();
  Type pointee = cast<PointerType>(base.getType()).getPointeeType();
  if (pointee != block.getElementType())
    return op->emitOpError() << verb << " " << block.getElementType() << " through a pointer to " << pointee;
  return success();
}

LogicalResult DescriptorLoadOp::verify() {
  return verifyBlockAccess(*this, "loads", getBase(), getOffsets(), getShape(), getStrides(), getType());
}

LogicalResult DescriptorStoreOp::verify() {
  return verifyBlockAccess(*this, "stores", getBase(), getOffsets(), getShape(), getStrides(),
                           getValue().getType());
}

/// A slot of `buffer` holds a block of type `block`.
static LogicalResult verifySlots(Operation *op, MemRefType buffer, RankedTensorType block) {
  if (buffer.getShape().drop_front() != block.getShape() || buffer.getElementType() != block.getElementType())
    return op->emitOpError() << "a slot of " << buffer << " does not hold a " << block;
  return success();
}

/// A sub-block of a slot at `offsets` (none: the whole slot): power-of-two
/// extents, each offset a multiple of its extent and inside the slot.
static LogicalResult verifySubBlock(Operation *op, MemRefType buffer, RankedTensorType block,
                                    std::optional<ArrayRef<int64_t>> offsets) {
  if (!offsets)
    return verifySlots(op, buffer, block);
  ArrayRef<int64_t> slot = buffer.getShape().drop_front();
  if (buffer.getElementType() != block.getElementType() || offsets->size() != slot.size() ||
      block.getRank() != int64_t(slot.size()))
    return op->emitOpError() << "a sub-block of a slot of " << buffer << " cannot be a " << block;
  for (auto [at, extent, whole] : llvm::zip(*offsets, block.getShape(), slot))
    if (!llvm::isPowerOf2_64(extent) || at < 0 || at % extent || at + extent > whole)
      return op->emitOpError() << "a sub-block of " << block << " at offsets [" << *offsets
                               << "]: each extent must be a power of two, each offset a multiple of it, inside the "
                               << "slot of " << buffer;
  return success();
}

LogicalResult LocalAllocOp::verify() {
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(getType().getMemorySpace());
  if (!space || space.getValue() != gpu::AddressSpace::Workgroup || !getType().hasStaticShape())
    return emitOpError() << "allocates static workgroup memory, not " << getType();
  if (auto arrangement = getArrangementAttr(); arrangement && arrangement.getOrder().size() + 1 != size_t(getType().getRank()))
    return emitOpError() << "arrangement " << arrangement << " does not have the rank of a slot of " << getType();
  return success();
}

LogicalResult LocalStoreOp::verify() {
  if (failed(verifySubBlock(*this, getBuffer().getType(), getValue().getType(), getOffsets())))
    return failure();
  if (!getBuffer().getDefiningOp<LocalAllocOp>())
    return emitOpError("writes a slot of a tile.local_alloc");
  return success();
}

LogicalResult AsyncCopyOp::verify() {
  MemRefType buffer = getBuffer().getType();
  Type pointee = cast<PointerType>(getBase().getType()).getPointeeType();
  auto block = RankedTensorType::get(buffer.getShape().drop_front(), pointee);
  if (int64_t(getOffsets().size()) != block.getRank() || int64_t(getShape().size()) != block.getRank() ||
      int64_t(getStrides().size()) != block.getRank())
    return emitOpError() << "needs one offset, extent and stride per dimension of the " << block.getRank()
                         << "-D block";
  return verifySlots(*this, buffer, block);
}

LogicalResult AsyncLoadOp::verify() {
  auto ptr = getPtr().getType();
  auto block = RankedTensorType::get(ptr.getShape(), cast<PointerType>(ptr.getElementType()).getPointeeType());
  if (getMask() && getMask().getType().getShape() != ptr.getShape())
    return emitOpError() << "mask shape does not match the pointers: " << getMask().getType() << " vs " << ptr;
  return verifySlots(*this, getBuffer().getType(), block);
}

LogicalResult LocalLoadOp::verify() {
  return verifySubBlock(*this, getBuffer().getType(), getType(), getOffsets());
}

LogicalResult StoreOp::verify() {
  return verifyAccess(*this, getPtr().getType(), getValue().getType(),
                      getMask());
}

/// An atomic's memory order and scope, as Triton names them.
static LogicalResult verifyMemoryOrder(Operation *op, StringRef sem, StringRef scope) {
  if (!llvm::is_contained({"acquire", "release", "acq_rel", "relaxed"}, sem))
    return op->emitOpError() << "sem must be acquire, release, acq_rel or relaxed, got '" << sem << "'";
  if (!llvm::is_contained({"gpu", "cta", "sys"}, scope))
    return op->emitOpError() << "scope must be gpu, cta or sys, got '" << scope << "'";
  return success();
}

LogicalResult AtomicRMWOp::verify() {
  if (failed(verifyMemoryOrder(*this, getSem(), getScope())))
    return failure();
  Type elt = rocktile::tile::getElementTypeOrSelf(getValue().getType());
  bool isFloat = isa<FloatType>(elt);
  switch (getKind()) {
  case AtomicKind::umax:
  case AtomicKind::umin:
  case AtomicKind::and_:
  case AtomicKind::or_:
  case AtomicKind::xor_:
    if (isFloat)
      return emitOpError() << "'" << stringifyAtomicKind(getKind())
                           << "' needs integer values, got " << elt;
    break;
  default:
    break;
  }
  unsigned bits = elt.getIntOrFloatBitWidth();
  bool halfAdd = getKind() == AtomicKind::add && (elt.isF16() || elt.isBF16());
  if (bits != 32 && bits != 64 && !halfAdd)
    return emitOpError() << "atomics need 32- or 64-bit elements (or f16/bf16 for add), got " << elt;
  return verifyAccess(*this, getPtr().getType(), getValue().getType(), getMask());
}

LogicalResult ElementwiseInlineAsmOp::verify() {
  if (getOutputs().empty())
    return emitOpError("needs at least one output");
  // Outputs come first in the constraints; one entry per output and input,
  // then any clobbers ("~{vcc}"), which name no operand.
  StringRef constraints = getConstraints();
  int64_t entries = 0, outputs = 0;
  bool clobbers = false;
  for (StringRef c : llvm::split(constraints, ',')) {
    if (c.starts_with("~")) {
      clobbers = true;
      continue;
    }
    if (clobbers)
      return emitOpError() << "constraints \"" << constraints << "\" must list clobbers (\"~{...}\") last";
    ++entries;
    outputs += c.starts_with("=");
  }
  if (constraints.empty())
    entries = 0;
  int64_t pack = getPack();
  if (!llvm::isPowerOf2_64(pack))
    return emitOpError() << "pack " << pack << " must be a power of two";
  auto operandsFor = [&](TypeRange types) {
    int64_t n = 0;
    for (Type t : types)
      n += pack / elementsPerOperand(rocktile::tile::getElementTypeOrSelf(t), pack);
    return n;
  };
  int64_t wantOutputs = operandsFor(getOutputs().getTypes()), wantInputs = operandsFor(getArgs().getTypes());
  if (outputs != wantOutputs || entries != outputs + wantInputs)
    return emitOpError() << "constraints \"" << constraints << "\" must give " << wantOutputs
                         << " output(s) (\"=...\") and then " << wantInputs << " input(s)"
                         << (pack > 1 ? " for pack " + std::to_string(pack) : std::string());
  return success();
}

int64_t ElementwiseInlineAsmOp::elementsPerOperand(Type element, int64_t pack) {
  unsigned bits = element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 64;
  return std::min<int64_t>(bits < 32 ? 32 / bits : 1, pack);
}

void LoadOp::getEffects(SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  effects.emplace_back(MemoryEffects::Read::get());
  if (getIsVolatile())
    effects.emplace_back(MemoryEffects::Write::get());
}

void ElementwiseInlineAsmOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  if (getPure())
    return;
  effects.emplace_back(MemoryEffects::Read::get());
  effects.emplace_back(MemoryEffects::Write::get());
}

LogicalResult AtomicCASOp::verify() {
  if (failed(verifyMemoryOrder(*this, getSem(), getScope())))
    return failure();
  Type elt = rocktile::tile::getElementTypeOrSelf(getValue().getType());
  if (!isa<IntegerType>(elt) || (elt.getIntOrFloatBitWidth() != 32 && elt.getIntOrFloatBitWidth() != 64))
    return emitOpError() << "compare-and-swap needs 32- or 64-bit integers, got " << elt;
  return verifyAccess(*this, getPtr().getType(), getValue().getType(), Value());
}

LogicalResult ReduceOp::verifyRegions() {
  if (getSrcs().empty())
    return emitOpError() << "needs at least one operand";
  auto first = cast<RankedTensorType>(getSrcs()[0].getType());
  int64_t axis = getAxis();
  if (axis < 0 || axis >= first.getRank())
    return emitOpError() << "axis " << axis << " is out of range for rank "
                         << first.getRank();
  if (getNumResults() != getSrcs().size())
    return emitOpError() << "has " << getSrcs().size() << " operands but "
                         << getNumResults() << " results";
  SmallVector<int64_t> reduced(first.getShape());
  reduced.erase(reduced.begin() + axis);
  Block &body = getCombiner().front();
  unsigned n = getSrcs().size();
  if (body.getNumArguments() != 2 * n)
    return emitOpError() << "combiner must take " << 2 * n
                         << " scalar arguments (accumulators, then next "
                            "elements), got "
                         << body.getNumArguments();
  for (unsigned i = 0; i < n; ++i) {
    auto src = cast<RankedTensorType>(getSrcs()[i].getType());
    if (src.getShape() != first.getShape())
      return emitOpError() << "operands must share one shape";
    Type elt = src.getElementType();
    Type res = getResult(i).getType();
    bool scalarResult = reduced.empty();
    if (scalarResult ? res != elt
                     : (!isa<RankedTensorType>(res) ||
                        cast<RankedTensorType>(res).getShape() !=
                            ArrayRef<int64_t>(reduced) ||
                        rocktile::tile::getElementTypeOrSelf(res) != elt))
      return emitOpError() << "result " << i << " must be "
                           << (scalarResult ? Type(elt)
                                            : Type(RankedTensorType::get(
                                                  reduced, elt)))
                           << " (the operand without axis " << axis
                           << "), got " << res;
    if (body.getArgument(i).getType() != elt ||
        body.getArgument(n + i).getType() != elt)
      return emitOpError() << "combiner arguments " << i << " and " << n + i
                           << " must be " << elt;
  }
  auto ret = body.empty() ? nullptr : dyn_cast<ReduceReturnOp>(&body.back());
  if (!ret)
    return emitOpError() << "combiner must end in tile.reduce.return";
  if (ret.getValues().size() != n)
    return ret.emitOpError() << "must return " << n << " values, got "
                             << ret.getValues().size();
  for (unsigned i = 0; i < n; ++i)
    if (ret.getValues()[i].getType() != body.getArgument(i).getType())
      return ret.emitOpError() << "value " << i << " must be "
                               << body.getArgument(i).getType();
  return success();
}

LogicalResult MapElementwiseOp::verifyRegions() {
  if (getSrcs().empty() || getResults().empty())
    return emitOpError() << "needs at least one operand and one result";
  auto isPointer = [](Value v) { return isa<PointerType>(cast<RankedTensorType>(v.getType()).getElementType()); };
  if (llvm::any_of(getSrcs(), isPointer) || llvm::any_of(getResults(), isPointer))
    return emitOpError() << "maps numbers, not pointers";
  int64_t pack = getPack();
  Block &body = getBody().front();
  if (body.getNumArguments() != pack * getSrcs().size())
    return emitOpError() << "body must take " << pack * getSrcs().size() << " scalars (" << pack
                         << " per operand), got " << body.getNumArguments();
  for (auto [i, src] : llvm::enumerate(getSrcs()))
    for (int64_t j = 0; j < pack; ++j)
      if (body.getArgument(i * pack + j).getType() != rocktile::tile::getElementTypeOrSelf(src.getType()))
        return emitOpError() << "body argument " << i * pack + j << " must be "
                             << rocktile::tile::getElementTypeOrSelf(src.getType()) << ", the element type of operand " << i;
  auto ret = body.empty() ? nullptr : dyn_cast<MapElementwiseReturnOp>(&body.back());
  if (!ret)
    return emitOpError() << "body must end in tile.map_elementwise.return";
  if (ret.getValues().size() != pack * getResults().size())
    return ret.emitOpError() << "must return " << pack * getResults().size() << " scalars (" << pack
                             << " per result), got " << ret.getValues().size();
  for (auto [k, result] : llvm::enumerate(getResults()))
    for (int64_t j = 0; j < pack; ++j)
      if (ret.getValues()[k * pack + j].getType() != rocktile::tile::getElementTypeOrSelf(result.getType()))
        return ret.emitOpError() << "value " << k * pack + j << " must be "
                                 << rocktile::tile::getElementTypeOrSelf(result.getType()) << ", the element type of result " << k;
  return success();
}
