#include "rocktile/Analysis/AxisInfo.h"
#include "rocktile/Analysis/LdsScratch.h"
#include "rocktile/Analysis/RegisterDemand.h"
#include "rocktile/Dialect/Tile/IR/Tile.h"
#include "rocktile/Target/MatrixCore.h"
#include "rocktile/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"
#include "llvm/Support/MathExtras.h"
#include <map>

namespace rocktile {
#define GEN_PASS_DEF_ASSIGNLAYOUTS
#include "rocktile/Transforms/Passes.h.inc"
} // namespace rocktile

using namespace mlir;
using namespace rocktile;
using namespace rocktile::tile;

namespace {

/// The blocked layout for tensors shaped like `shape`: `vector` consecutive
/// elements per lane along the fastest (last) dimension, then lanes, then
/// warps, each filling the fastest dimension first.
/// `rows` > 1 also gives each lane that many consecutive elements along
/// dimension `rowDim`.
BlockedLayoutAttr chooseBlocked(MLIRContext *ctx, ArrayRef<int64_t> shape,
                                int64_t vector, unsigned waveSize,
                                unsigned numWarps, unsigned rowDim = 0, int64_t rows = 1) {
  unsigned rank = shape.size();
  SmallVector<unsigned> order, spt(rank, 1), tpw(rank, 1), wpc(rank, 1);
  for (int d = rank - 1; d >= 0; --d)
    order.push_back(d);
  spt[rank - 1] = std::min<int64_t>(vector, shape[rank - 1]);
  if (rowDim != rank - 1)
    spt[rowDim] = std::min<int64_t>(rows, shape[rowDim]);
  auto distribute = [&](SmallVectorImpl<unsigned> &out, unsigned count,
                        auto perDimCovered) {
    for (unsigned i = 0; i < rank; ++i) {
      unsigned d = order[i];
      int64_t room = std::max<int64_t>(shape[d] / perDimCovered(d), 1);
      out[d] = i + 1 == rank ? count : std::min<int64_t>(count, room);
      count /= out[d];
    }
  };
  distribute(tpw, waveSize, [&](unsigned d) { return spt[d]; });
  distribute(wpc, numWarps, [&](unsigned d) { return spt[d] * tpw[d]; });
  return BlockedLayoutAttr::get(ctx, spt, tpw, wpc, order);
}

/// `layout` as an attribute: the blocked layout it equals if there is one
/// (which the heuristics below treat as the plain layout it is), else
/// spelled out linearly. The candidate takes, per dimension, the run of
/// register bases 1, 2, 4, ... as its elements per lane and the lane and
/// warp bases as its lanes and warps, fastest dimensions first as they
/// appear; lanes and warps that hold copies (a tile smaller than they
/// cover) go along the slowest dimension, where a blocked layout wraps.
Attribute layoutAttr(MLIRContext *ctx, const LinearLayout &layout) {
  unsigned rank = layout.getRank();
  SmallVector<unsigned> spt(rank, 1), tpw(rank, 1), wpc(rank, 1), order;
  SmallVector<SmallVectorImpl<unsigned> *> copies; // per base that holds a copy: whose count it adds to
  auto count = [&](LinearLayout::InDim in, SmallVectorImpl<unsigned> &per, bool runOnly) {
    for (const LinearLayout::Coord &c : layout.getBases(in)) {
      if (llvm::all_of(c, [](int64_t x) { return x == 0; }))
        copies.push_back(&per);
      for (unsigned d = 0; d < rank; ++d) {
        if (!c[d])
          continue;
        if (!llvm::is_contained(order, d))
          order.push_back(d);
        if (!runOnly || c[d] == per[d])
          per[d] *= 2;
      }
    }
  };
  count(LinearLayout::Register, spt, /*runOnly=*/true);
  count(LinearLayout::Lane, tpw, /*runOnly=*/false);
  count(LinearLayout::Warp, wpc, /*runOnly=*/false);
  for (int d = rank - 1; d >= 0; --d)
    if (!llvm::is_contained(order, unsigned(d)))
      order.push_back(d);
  for (SmallVectorImpl<unsigned> *per : copies)
    (*per)[order.back()] *= 2;
  if (LinearLayout::blocked(layout.getShape(), spt, tpw, wpc, order) == layout)
    return BlockedLayoutAttr::get(ctx, spt, tpw, wpc, order);
  return LinearLayoutAttr::get(ctx, layout);
}

/// A layout of a tile of `shape` that holds, in each lane and warp, what
/// `src` (of the same rank, size 1 where `shape` is larger) holds there,
/// broadcast: the bases of `src` that hold copies and then new register
/// bases take the bits of the broadcast dimensions.
LinearLayout expandBroadcast(const LinearLayout &src, ArrayRef<int64_t> shape) {
  SmallVector<std::pair<unsigned, int64_t>> bits; // (dim, value) still to place
  for (auto [d, size] : llvm::enumerate(shape))
    if (src.getShape()[d] == 1)
      for (int64_t v = 1; v < size; v *= 2)
        bits.push_back({unsigned(d), v});
  std::array<SmallVector<LinearLayout::Coord>, 3> bases;
  auto next = bits.begin();
  for (auto in : {LinearLayout::Register, LinearLayout::Lane, LinearLayout::Warp})
    for (LinearLayout::Coord c : src.getBases(in)) {
      if (next != bits.end() && llvm::all_of(c, [](int64_t x) { return x == 0; }))
        c[next->first] = next->second, ++next;
      bases[in].push_back(c);
    }
  for (; next != bits.end(); ++next) {
    LinearLayout::Coord c(shape.size(), 0);
    c[next->first] = next->second;
    bases[LinearLayout::Register].push_back(c);
  }
  return LinearLayout(shape, std::move(bases));
}

/// `layout` with its dimensions permuted: result dimension i is dimension
/// order[i] of the source.
BlockedLayoutAttr permute(BlockedLayoutAttr layout, ArrayRef<int32_t> order) {
  SmallVector<unsigned> spt, tpw, wpc, fastest, inverse(order.size());
  for (auto [i, d] : llvm::enumerate(order)) {
    spt.push_back(layout.getSizePerThread()[d]);
    tpw.push_back(layout.getThreadsPerWarp()[d]);
    wpc.push_back(layout.getWarpsPerCTA()[d]);
    inverse[d] = i;
  }
  for (unsigned d : layout.getOrder())
    fastest.push_back(inverse[d]);
  return BlockedLayoutAttr::get(layout.getContext(), spt, tpw, wpc, fastest);
}

/// The layout of a reduction's result along `axis` of a tensor of `shape`
/// in `parent`: its slice, a linear parent collapsed along `axis` first.
SliceLayoutAttr reducedLayout(Attribute parent, ArrayRef<int64_t> shape, unsigned axis) {
  if (auto linear = dyn_cast<LinearLayoutAttr>(parent))
    parent = LinearLayoutAttr::get(parent.getContext(), linear.toLinearLayout(shape).collapseDim(axis));
  return SliceLayoutAttr::get(parent.getContext(), axis, parent);
}

bool isElementwise(Operation *op) {
  return op->hasTrait<OpTrait::Elementwise>() || isa<AddPtrOp, AssumeOp>(op);
}

std::optional<MatrixElem> matrixElem(Type t) {
  if (t.isBF16())
    return MatrixElem::BF16;
  if (t.isF16())
    return MatrixElem::F16;
  if (isa<Float8E4M3FNType, Float8E5M2Type>(t))
    return MatrixElem::FP8;
  if (t.isInteger(8))
    return MatrixElem::I8;
  if (t.isF32())
    return MatrixElem::F32;
  if (t.isInteger(32))
    return MatrixElem::I32;
  return std::nullopt;
}

/// `x` with dimension `kDim` `factor` times longer: element k moves to
/// k * factor, zeros in between (A and B padded alike leave the product
/// unchanged). Built before the dot from ops layout assignment handles.
Value padK(Value x, unsigned kDim, int64_t factor, Operation *before) {
  OpBuilder b(before);
  Location loc = before->getLoc();
  auto type = cast<RankedTensorType>(x.getType());
  auto tensor = [&](ArrayRef<int64_t> shape, Type elt) { return RankedTensorType::get(shape, elt); };
  SmallVector<int64_t> expanded(type.getShape());
  expanded.insert(expanded.begin() + kDim + 1, 1);
  Value e = ExpandDimsOp::create(b, loc, tensor(expanded, type.getElementType()), x, kDim + 1);
  SmallVector<int64_t> spread(expanded);
  spread[kDim + 1] = factor;
  Value wide = BroadcastOp::create(b, loc, tensor(spread, type.getElementType()), e);
  // The index along the new dimension, as a tile of `spread`'s shape.
  Value index = MakeRangeOp::create(b, loc, tensor({factor}, b.getI32Type()), 0, int32_t(factor));
  SmallVector<int64_t> shape{factor};
  for (unsigned d = 0; d < spread.size(); ++d) {
    if (d == kDim + 1)
      continue;
    unsigned axis = d < kDim + 1 ? 0 : shape.size();
    shape.insert(shape.begin() + axis, 1);
    index = ExpandDimsOp::create(b, loc, tensor(shape, b.getI32Type()), index, axis);
  }
  index = BroadcastOp::create(b, loc, tensor(spread, b.getI32Type()), index);
  Value zeroIndex = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(tensor(spread, b.getI32Type()), b.getI32IntegerAttr(0)));
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, index, zeroIndex);
  auto spreadType = tensor(spread, type.getElementType());
  Value zeros = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(spreadType, b.getZeroAttr(type.getElementType())));
  Value padded = arith::SelectOp::create(b, loc, first, wide, zeros);
  SmallVector<int64_t> result(type.getShape());
  result[kDim] *= factor;
  return ReshapeOp::create(b, loc, tensor(result, type.getElementType()), padded);
}

/// A dot operand loaded (directly or through a tl.trans) with K not its
/// contiguous (last) dimension, as a row-major B is: the loaded tile and
/// its K dimension; none for any other operand.
std::optional<std::pair<Value, unsigned>> loadedAcrossK(Value operand, unsigned kDim) {
  if (auto trans = operand.getDefiningOp<TransOp>())
    operand = trans.getSrc(), kDim = trans.getOrder()[kDim];
  // A tile the pipeliner loaded an iteration ahead is carried by the loop.
  if (auto arg = dyn_cast<BlockArgument>(operand))
    if (auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()))
      if (OpOperand *yielded = loop.getTiedLoopYieldedValue(arg))
        operand = yielded->get();
  if (!operand.getDefiningOp<LoadOp>() || kDim == cast<RankedTensorType>(operand.getType()).getRank() - 1)
    return std::nullopt;
  return std::pair{operand, kDim};
}

/// The elements a lane reads from LDS at a time of a 2-D dot operand: a
/// 128-bit read along K, or where the operand is loaded contiguous along M
/// or N, the target's transpose read (gfx950's carry half as many).
int64_t operandReadElements(Value operand, unsigned kDim, const Target &target) {
  int64_t eltBytes = std::max<int64_t>(cast<RankedTensorType>(operand.getType()).getElementTypeBitWidth() / 8, 1);
  LdsTransposeRead transposed = target.transposeRead(eltBytes);
  if (loadedAcrossK(operand, kDim) && transposed.lanes)
    return transposed.elements;
  return 16 / eltBytes;
}

/// The matrix instruction for `dot`, with K taken `kFactor` times longer, of
/// m = n = `nonKDim` where the kernel's matrix_instr_nonkdim does not say;
/// null when the types or shapes have none. Computed `transposed` (Dᵀ =
/// Bᵀ Aᵀ, as chooseDotLayouts computes every dot), the instruction's m runs
/// along N and its n along M.
const MatrixCoreInstr *chooseDotInstr(DotOp dot, const Target &target, bool transposed, int64_t kFactor = 1,
                                      int64_t nonKDim = 0) {
  auto d = dot.getType();
  // E2M1 bytes and FP6 codes go to the f8f6f4 instructions, as fp8 does;
  // E2M1 on both sides first to an instruction of E2M1 alone, if one fits.
  auto elem = [](Value v, std::optional<StringRef> format) {
    return format ? std::optional(MatrixElem::FP8) : matrixElem(getElementTypeOrSelf(v));
  };
  std::optional<MatrixElem> ab = elem(dot.getA(), dot.getAFormat()), acc = matrixElem(d.getElementType());
  if (!ab || !acc || ab != elem(dot.getB(), dot.getBFormat()))
    return nullptr;
  unsigned rank = d.getRank();
  auto func = dot->getParentOfType<func::FuncOp>();
  auto option = func ? func->getAttrOfType<IntegerAttr>("tile.matrix_instr_nonkdim") : IntegerAttr();
  if (option && option.getInt())
    nonKDim = option.getInt();
  int64_t rows = d.getDimSize(rank - 2), cols = d.getDimSize(rank - 1);
  if (transposed)
    std::swap(rows, cols);
  auto choose = [&](MatrixElem elems) {
    return chooseMatrixInstr(target, elems, *acc, rows, cols, dot.getReductionSize() * kFactor, nonKDim,
                             dot.getScaleBlock());
  };
  if (dot.getAFormat() == "e2m1" && dot.getBFormat() == "e2m1")
    if (const MatrixCoreInstr *fp4 = choose(MatrixElem::FP4); fp4 && (!nonKDim || fp4->m == nonKDim))
      return fp4;
  return choose(*ab);
}

/// Dots whose K is below every matching instruction's k get A and B padded
/// with zeros along K, as Triton does, before layouts are chosen.
void padShortDots(func::FuncOp func, const Target &target) {
  func.walk([&](DotOp dot) {
    unsigned rank = dot.getType().getRank();
    int64_t K = dot.getA().getType().getDimSize(rank - 1);
    if (dot.getAScale() || chooseDotInstr(dot, target, /*transposed=*/true))
      return;
    for (int64_t factor = 2; factor <= 16; factor *= 2)
      if (const MatrixCoreInstr *padded = chooseDotInstr(dot, target, /*transposed=*/true, factor);
          padded && padded->k == K * factor) {
        dot.getAMutable().assign(padK(dot.getA(), rank - 1, factor, dot));
        dot.getBMutable().assign(padK(dot.getB(), rank - 2, factor, dot));
        return;
      }
  });
}

std::string describeInstrs(const Target &target) {
  std::string out;
  llvm::raw_string_ostream os(out);
  llvm::interleaveComma(target.matrixInstrs, os, [&](const MatrixCoreInstr &m) { os << m.name; });
  return out;
}

/// The blocked layout of a tensor that nothing else constrains: the one
/// chosen for its shape's loads and stores, else its rank's (shaped for the
/// rank's largest tile).
struct DefaultLayouts {
  DenseMap<unsigned, Attribute> byRank;
  std::map<SmallVector<int64_t, 4>, Attribute> byShape;

  Attribute get(ArrayRef<int64_t> shape) const {
    auto it = byShape.find(SmallVector<int64_t, 4>(shape));
    return it != byShape.end() ? it->second : byRank.lookup(shape.size());
  }
};

/// The layout an operand of `def` must have for `def`'s result to have
/// `layout`, or null when no such layout exists.
Attribute operandLayout(Operation *def, Attribute layout) {
  // expand_dims' operand is the slice of its result's layout (a linear
  // one has size 1 along the axis already, as a slice's parent must); a
  // slice result is spelled out linearly first, so that chains of
  // expand_dims (an index along one axis of a 4-D tile) are recomputed in
  // any layout.
  if (auto e = dyn_cast<ExpandDimsOp>(def)) {
    if (auto slice = dyn_cast_or_null<SliceLayoutAttr>(layout))
      layout = LinearLayoutAttr::get(def->getContext(), *getLinearLayout(e.getType().cloneWithEncoding(slice)));
    return isa_and_nonnull<BlockedLayoutAttr, LinearLayoutAttr>(layout)
               ? SliceLayoutAttr::get(def->getContext(), e.getAxis(), layout)
               : Attribute();
  }
  // A store's shape is its value's.
  Value shaped = def->getNumResults() ? def->getResult(0) : def->getOperand(0);
  auto shapedType = cast<RankedTensorType>(shaped.getType());
  auto shape = shapedType.getShape();
  // A slice of a linear layout is, like it, written for one shape: a
  // broadcast's operand takes it collapsed as below.
  if (auto slice = dyn_cast_or_null<SliceLayoutAttr>(layout);
      slice && isa<LinearLayoutAttr>(slice.getParent()) && isa<BroadcastOp>(def))
    layout = LinearLayoutAttr::get(def->getContext(), *getLinearLayout(shapedType.cloneWithEncoding(slice)));
  auto linear = dyn_cast_or_null<LinearLayoutAttr>(layout);
  if (!linear)
    return layout;
  // A broadcast's operand: the lanes' elements along the broadcast dims
  // collapse onto the one the operand has.
  if (auto broadcast = dyn_cast<BroadcastOp>(def)) {
    LinearLayout l = linear.toLinearLayout(shape);
    for (auto [d, size] : llvm::enumerate(broadcast.getSrc().getType().getShape()))
      if (size == 1 && shape[d] != 1)
        l = l.collapseDim(d);
    return LinearLayoutAttr::get(def->getContext(), l);
  }
  // A linear layout is written for one shape: it passes only to operands
  // of the result's shape.
  for (Value o : def->getOperands())
    if (auto t = dyn_cast<RankedTensorType>(o.getType()); t && t.getShape() != shape)
      return {};
  return layout;
}

class LayoutAssigner {
public:
  LayoutAssigner(func::FuncOp func, DefaultLayouts defaults, const Target &target,
                 unsigned numWarps)
      : func(func), defaults(std::move(defaults)), target(target), numWarps(numWarps) {}

  LogicalResult run() {
    Block &body = func.getBody().front();
    for (BlockArgument arg : func.getArguments())
      if (isa<RankedTensorType>(arg.getType()))
        return func.emitError("kernel arguments must be scalars or pointers, got ")
               << arg.getType();
    if (failed(chooseDotLayouts()))
      return failure();
    choosePreferences(body);
    if (failed(assignBlock(body)))
      return failure();
    eraseDeadOps(body);
    hoistInvariantConversions();
    return success();
  }

  /// A conversion of a value from outside a loop (attention's Q, converted
  /// where the dot inside the loop uses it) happens once, before the loop;
  /// and once for all such loops (the pipeliner's main loop and its tail):
  /// a later loop takes an earlier conversion, so that the value need not
  /// stay in its own layout across the earlier loop for a conversion of its
  /// own.
  void hoistInvariantConversions() {
    SmallVector<ConvertLayoutOp> hoisted;
    func.walk([&](ConvertLayoutOp convert) {
      bool moved = false;
      while (auto loop = dyn_cast<LoopLikeOpInterface>(convert->getParentOp())) {
        if (!loop.isDefinedOutsideOfLoop(convert.getSrc()))
          break;
        loop.moveOutOfLoop(convert);
        moved = true;
      }
      if (moved)
        hoisted.push_back(convert);
    });
    DominanceInfo dominance(func);
    SmallVector<ConvertLayoutOp> kept;
    for (ConvertLayoutOp convert : hoisted) {
      auto earlier = llvm::find_if(kept, [&](ConvertLayoutOp k) {
        return k.getSrc() == convert.getSrc() && k.getType() == convert.getType() &&
               dominance.properlyDominates(k.getOperation(), convert.getOperation());
      });
      if (earlier == kept.end()) {
        kept.push_back(convert);
        continue;
      }
      convert.replaceAllUsesWith(earlier->getResult());
      convert.erase();
    }
  }

private:
  /// The dot whose result `v` is computed from element by element, if any:
  /// attention's P = exp(Q Kᵀ - m).
  static DotOp producingDot(Value v, DenseSet<Value> &seen) {
    Operation *def = v.getDefiningOp();
    if (auto dot = dyn_cast_or_null<DotOp>(def))
      return dot;
    if (!def || !isElementwise(def) || !seen.insert(v).second)
      return {};
    for (Value o : def->getOperands())
      if (DotOp dot = producingDot(o, seen))
        return dot;
    return {};
  }

  /// The layout `v` will have if it is made element by element from a
  /// dot's result or from reductions of one: D's, or a slice of it.
  Attribute predictedLayout(Value v, DenseSet<Value> &seen) {
    Operation *def = v.getDefiningOp();
    if (!def || !seen.insert(v).second)
      return {};
    if (isa<DotOp>(def))
      return std::get<2>(dots.lookup(def));
    if (auto loop = dyn_cast<scf::ForOp>(def))
      return predictedLayout(loop.getYieldedValues()[cast<OpResult>(v).getResultNumber()], seen);
    if (auto reduce = dyn_cast<ReduceOp>(def)) {
      Value src = reduce.getSrcs()[0];
      auto linear = dyn_cast_or_null<LinearLayoutAttr>(predictedLayout(src, seen));
      if (!linear || !isa<RankedTensorType>(v.getType()))
        return {};
      return reducedLayout(linear, cast<RankedTensorType>(src.getType()).getShape(), reduce.getAxis());
    }
    if (isElementwise(def))
      for (Value o : def->getOperands())
        if (Attribute layout = predictedLayout(o, seen))
          return layout;
    return {};
  }

  /// Each 2-D dot whose A is made element by element from an earlier dot's
  /// result takes it in the registers that hold it: both are computed
  /// transposed (lanes along M, as A's lanes are), all warps along M, and
  /// the second renames K so that the first's N bits are where its
  /// instruction reads K. Where the instructions' layouts do not allow
  /// it, A goes through LDS as usual. Where each warp's rows allow, both take
  /// 32x32 instructions (as Triton's AMD backend does for dots of 32 rows
  /// and columns and more): fewer lanes share a row of the first's result,
  /// so the row reductions between the two exchange less (attention
  /// 128x64x64 on gfx950: 18.44 against 16.81 non-matrix instructions per
  /// 16384 MACs), while GEMMs, which reduce nothing, keep the first.
  DenseMap<Operation *, DotOptions> chooseDotChains() {
    DenseMap<Operation *, DotOptions> options;
    func.walk([&](DotOp second) {
      DenseSet<Value> seen;
      DotOp first = producingDot(second.getA(), seen);
      // A scaled dot keeps K in order: its scales cover 32 consecutive k.
      if (!first || first.getType().getRank() != 2 || second.getType().getRank() != 2 || second.getAScale())
        return;
      int64_t rowsPerWarp = first.getType().getDimSize(0) / numWarps;
      auto layouts = [&](DotOp dot, const MatrixCoreInstr *instr, const DotOptions &o) {
        auto a = dot.getA().getType(), d = dot.getType();
        return dotLayouts(*instr, d.getDimSize(0), d.getDimSize(1), a.getDimSize(1), numWarps, 0, o);
      };
      for (int64_t nonKDim : {int64_t(32), int64_t(0)}) {
        const MatrixCoreInstr *i1 = chooseDotInstr(first, target, /*transposed=*/true, 1, nonKDim),
                              *i2 = chooseDotInstr(second, target, /*transposed=*/true, 1, nonKDim);
        // Fewer rows than one instruction's per warp would leave warps
        // computing the same rows: those dots split their warps as any other.
        if (!i1 || !i2 || (nonKDim && (i1->m != nonKDim || i2->m != nonKDim)) || rowsPerWarp < int64_t(i1->m) ||
            rowsPerWarp < int64_t(i2->m))
          continue;
        DotOptions o1 = options.lookup(first), o2;
        o1.transposed = o2.transposed = true;
        o1.warpsN = o2.warpsN = 1;
        o1.nonKDim = o2.nonKDim = nonKDim;
        std::optional<SmallVector<int64_t>> order = kOrderFor(layouts(first, i1, o1).d, layouts(second, i2, o2).a);
        if (!order)
          continue;
        if (!llvm::all_of(llvm::enumerate(*order), [](auto e) { return e.value() == int64_t(1) << e.index(); }))
          o2.kOrder = std::move(*order);
        options[first] = o1;
        options[second] = o2;
        return;
      }
    });
    return options;
  }

  /// Every dot's instruction and layouts, chosen first so that accumulators
  /// (and the loops carrying them) can be built in the D layout.
  LogicalResult chooseDotLayouts() {
    DenseMap<Operation *, DotOptions> options = chooseDotChains();
    WalkResult walk = func.walk([&](DotOp dot) {
      auto a = dot.getA().getType(), b = dot.getB().getType(), d = dot.getType();
      int64_t rank = d.getRank(), batch = rank == 3 ? d.getDimSize(0) : 0;
      int64_t M = d.getDimSize(rank - 2), N = d.getDimSize(rank - 1), K = dot.getReductionSize();
      DotOptions &o = options.try_emplace(dot, DotOptions{0, /*transposed=*/true, {}}).first->second;
      const MatrixCoreInstr *instr = chooseDotInstr(dot, target, o.transposed, 1, o.nonKDim);
      if (!instr && dot.getAScale()) {
        dot.emitError() << "no scaled matrix instruction of " << target.chip << " computes a " << M << "x" << K
                        << " by " << K << "x" << N << " product with "
                        << (dot.getScaleBlock() == 32 ? "E8M0 scales per 32 k" : "E4M3 scales per 16 k")
                        << " (M, N and K must be multiples of the instruction's)";
        return WalkResult::interrupt();
      }
      if (!instr) {
        dot.emitError() << "no matrix instruction of " << target.chip << " computes a " << M << "x"
                        << K << " " << a.getElementType() << " by " << K << "x" << N << " "
                        << b.getElementType() << " product into " << d.getElementType()
                        << "; it has " << describeInstrs(target)
                        << " (M, N and K must be multiples of the instruction's)";
        return WalkResult::interrupt();
      }
      // Otherwise the warps split as the operands' LDS reads are fewest.
      if (!o.warpsN && !batch)
        o.warpsN = chooseWarpsN(*instr, M, N, K, numWarps, operandReadElements(dot.getA(), 1, target),
                                operandReadElements(dot.getB(), 0, target), o.transposed);
      DotLayouts l = dotLayouts(*instr, M, N, K, numWarps, batch, o);
      MLIRContext *ctx = dot.getContext();
      if (dot.getAScale()) {
        auto fp6 = [](std::optional<StringRef> f) { return f == "e2m3" || f == "e3m2"; };
        if ((fp6(dot.getAFormat()) || fp6(dot.getBFormat())) && !instr->scaled->fp6) {
          dot.emitError() << instr->name << " on " << target.chip << " takes no FP6 operands in rocktile";
          return WalkResult::interrupt();
        }
        ScaledDotLayouts scaled = scaledDotLayouts(*instr, M, N, K, numWarps, o, dot.getAFormat() == "e2m1",
                                                   dot.getBFormat() == "e2m1", dot.getScaleBlock());
        dotScales[dot] = {LinearLayoutAttr::get(ctx, scaled.aScale), LinearLayoutAttr::get(ctx, scaled.bScale)};
        l.a = scaled.a, l.b = scaled.b;
      }
      dot.setInstr(instr->name);
      if (o.warpsN)
        dot.setWarpsN(o.warpsN);
      dot.setTransposed(o.transposed);
      if (!o.kOrder.empty())
        dot.setKOrder(o.kOrder);
      dots[dot] = {LinearLayoutAttr::get(ctx, l.a), LinearLayoutAttr::get(ctx, l.b),
                   LinearLayoutAttr::get(ctx, l.d)};
      return WalkResult::advance();
    });
    return failure(walk.wasInterrupted());
  }

  LogicalResult assignDot(DotOp dot) {
    auto [a, b, d] = dots.lookup(dot);
    auto [aScale, bScale] = dotScales.lookup(dot);
    if (failed(unifyEach(dot, {a, b, d, aScale, bScale})))
      return failure();
    setEncoding(dot.getResult(), d);
    return success();
  }

  /// A scaled upcast is made in the layout of the dot operand it feeds, so
  /// that its codes cross lanes as bytes (a quarter of the 16-bit values)
  /// and its conversions sit beside the matrix instructions; its codes and
  /// scales take that layout divided along the axis (by 2, by the scale
  /// block). Each lane must hold runs of the consecutive elements one of
  /// the target's conversions makes; where the dot operand's layout has
  /// none (or nothing is), a blocked layout with them.
  LogicalResult assignScaledUpcast(ScaledUpcastOp op) {
    RankedTensorType type = op.getType();
    unsigned axis = op.getAxis();
    int64_t run = target.scaledUpcastElements();
    auto holdsRuns = [&](Attribute layout) {
      std::optional<LinearLayout> l = getLinearLayout(type.cloneWithEncoding(layout));
      return l && l->isAdditive() && l->getContiguousRegisters(axis) >= run;
    };
    Attribute layout;
    if (op->hasOneUse())
      if (auto dot = dyn_cast<DotOp>(*op->user_begin()); dot && dots.count(dot))
        layout = dot.getA() == op.getResult() ? std::get<0>(dots.lookup(dot)) : std::get<1>(dots.lookup(dot));
    if (!layout || !holdsRuns(layout)) // `run` elements per lane along the axis, the last one or another
      layout = chooseBlocked(op.getContext(), type.getShape(), axis + 1 == type.getRank() ? run : 1,
                             target.waveSize, numWarps, axis, run);
    LinearLayout result = *getLinearLayout(type.cloneWithEncoding(layout));
    Attribute codes = layoutAttr(op.getContext(), result.divideDim(axis, 2));
    Attribute scales = layoutAttr(op.getContext(), result.divideDim(axis, op.getScaleBlock()));
    if (failed(unifyEach(op, {codes, scales})))
      return failure();
    setEncoding(op.getResult(), layout);
    return success();
  }

  LogicalResult assignBlock(Block &block) {
    for (Operation &op : llvm::make_early_inc_range(block))
      if (failed(assign(&op)))
        return failure();
    return success();
  }

  /// Values recomputed in other layouts may have left their originals unused.
  static void eraseDeadOps(Block &block) {
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block))) {
      for (Region &region : op.getRegions())
        for (Block &inner : region)
          eraseDeadOps(inner);
      if (isOpTriviallyDead(&op))
        op.erase();
    }
  }

  static Attribute encodingOf(Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t ? t.getEncoding() : Attribute();
  }

  static void setEncoding(Value v, Attribute layout) {
    auto t = cast<RankedTensorType>(v.getType());
    v.setType(t.cloneWithEncoding(layout));
  }

  /// Values built only from ranges, splats and constants are recomputed in
  /// whatever layout a user needs, instead of being converted. (The walks
  /// below remember what they found: such values are DAGs that share their
  /// operands, e.g. the rounds of a Philox generator, and a walk that
  /// forgot would take exponential time.)
  bool isRematerializable(Value v) {
    DenseMap<Value, bool> known;
    return isRematerializable(v, known);
  }

  bool isRematerializable(Value v, DenseMap<Value, bool> &known) {
    if (auto it = known.find(v); it != known.end())
      return it->second;
    Operation *def = v.getDefiningOp();
    bool result = false;
    if (!def || def->getNumResults() != 1 || def->getNumRegions())
      result = false;
    else if (isa<MakeRangeOp, SplatOp>(def) || isa<arith::ConstantOp>(def))
      result = true;
    else if ((isElementwise(def) || isa<BroadcastOp, ExpandDimsOp>(def)) && isMemoryEffectFree(def))
      result = llvm::all_of(def->getOperands(), [&](Value o) {
        return !isa<RankedTensorType>(o.getType()) || isRematerializable(o, known);
      });
    return known[v] = result;
  }

  /// Whether `v` can be recomputed with `layout`: each op of its chain must
  /// have operands in a layout the attributes can express.
  bool canRematerializeAs(Value v, Attribute layout) {
    DenseMap<std::pair<Value, Attribute>, bool> known;
    return canRematerializeAs(v, layout, known);
  }

  bool canRematerializeAs(Value v, Attribute layout, DenseMap<std::pair<Value, Attribute>, bool> &known) {
    if (auto it = known.find({v, layout}); it != known.end())
      return it->second;
    Operation *def = v.getDefiningOp();
    Attribute operand = operandLayout(def, layout);
    return known[{v, layout}] = llvm::all_of(def->getOperands(), [&](Value o) {
             return !isa<RankedTensorType>(o.getType()) || encodingOf(o) == operand ||
                    (operand && canRematerializeAs(o, operand, known));
           });
  }

  /// A copy of `v`'s computation producing `layout`, placed right after the
  /// original so that it dominates every use the original had.
  Value rematerialize(Value v, Attribute layout) {
    auto key = std::make_pair(v, layout);
    if (auto it = remat.find(key); it != remat.end())
      return it->second;
    Operation *def = v.getDefiningOp();
    IRMapping map;
    for (Value o : def->getOperands())
      if (isa<RankedTensorType>(o.getType()) && encodingOf(o) != operandLayout(def, layout))
        map.map(o, rematerialize(o, operandLayout(def, layout)));
    OpBuilder b(def->getContext());
    b.setInsertionPointAfter(def);
    Operation *clone = b.clone(*def, map);
    setEncoding(clone->getResult(0), layout);
    if (auto c = dyn_cast<arith::ConstantOp>(clone))
      c.setValueAttr(cast<DenseElementsAttr>(c.getValue())
                         .reshape(cast<ShapedType>(c.getType())));
    return remat[key] = clone->getResult(0);
  }

  /// The layout of a value carried through a loop: its initial value's
  /// unless that one is recomputable, else the preferred or default one.
  Attribute carriedLayout(Value init) {
    auto type = dyn_cast<RankedTensorType>(init.getType());
    if (!type)
      return {};
    if (!isRematerializable(init))
      return encodingOf(init);
    Attribute preferred = preferences.lookup(init);
    return preferred ? preferred : defaults.get(type.getShape());
  }

  /// Gives each tensor operand of `op` (from `first` on) its layout.
  LogicalResult unifyEach(Operation *op, ArrayRef<Attribute> layouts, unsigned first = 0) {
    for (auto [i, layout] : llvm::enumerate(layouts))
      if (layout && failed(unifyOperand(op, op->getOpOperand(first + i), layout)))
        return failure();
    return success();
  }

  static void setEncodings(ValueRange values, ArrayRef<Attribute> layouts) {
    for (auto [v, layout] : llvm::zip(values, layouts))
      if (layout)
        setEncoding(v, layout);
  }

  LogicalResult assignFor(scf::ForOp loop) {
    SmallVector<Attribute> layouts;
    for (Value init : loop.getInitArgs())
      layouts.push_back(carriedLayout(init));
    if (failed(unifyEach(loop, layouts, loop.getNumControlOperands())))
      return failure();
    setEncodings(loop.getRegionIterArgs(), layouts);
    setEncodings(loop.getResults(), layouts);
    if (failed(assignBlock(*loop.getBody())))
      return failure();
    return unifyEach(loop.getBody()->getTerminator(), layouts);
  }

  LogicalResult assignIf(scf::IfOp branch) {
    for (Region *r : {&branch.getThenRegion(), &branch.getElseRegion()})
      if (!r->empty() && failed(assignBlock(r->front())))
        return failure();
    if (branch.getNumResults() == 0)
      return success();
    SmallVector<Attribute> layouts;
    for (auto [t, e] : llvm::zip(branch.thenYield().getOperands(), branch.elseYield().getOperands()))
      layouts.push_back(!isa<RankedTensorType>(t.getType()) ? Attribute()
                        : isRematerializable(t)              ? encodingOf(e)
                                                             : encodingOf(t));
    setEncodings(branch.getResults(), layouts);
    if (failed(unifyEach(branch.thenYield(), layouts)))
      return failure();
    return unifyEach(branch.elseYield(), layouts);
  }

  LogicalResult assignWhile(scf::WhileOp loop) {
    if (loop.getInits().size() != loop.getNumResults())
      return loop.emitError("while loops must carry the same values they return");
    SmallVector<Attribute> layouts;
    for (Value init : loop.getInits())
      layouts.push_back(carriedLayout(init));
    if (failed(unifyEach(loop, layouts)))
      return failure();
    setEncodings(loop.getBeforeArguments(), layouts);
    if (failed(assignBlock(loop.getBefore().front())))
      return failure();
    if (failed(unifyEach(loop.getConditionOp(), layouts, /*first=*/1)))
      return failure();
    setEncodings(loop.getAfterArguments(), layouts);
    setEncodings(loop.getResults(), layouts);
    if (failed(assignBlock(loop.getAfter().front())))
      return failure();
    return unifyEach(loop.getAfter().front().getTerminator(), layouts);
  }

  LogicalResult assign(Operation *op) {
    if (auto loop = dyn_cast<scf::ForOp>(op))
      return assignFor(loop);
    if (auto branch = dyn_cast<scf::IfOp>(op))
      return assignIf(branch);
    if (auto loop = dyn_cast<scf::WhileOp>(op))
      return assignWhile(loop);
    if (auto dot = dyn_cast<DotOp>(op))
      return assignDot(dot);
    if (auto upcast = dyn_cast<ScaledUpcastOp>(op))
      return assignScaledUpcast(upcast);
    // Terminators take the layouts their parent op gives them.
    if (op->hasTrait<OpTrait::IsTerminator>())
      return success();
    if (auto trans = dyn_cast<TransOp>(op)) {
      // Lanes keep their elements; only the dimensions are renamed.
      auto src = dyn_cast<BlockedLayoutAttr>(encodingOf(trans.getSrc()));
      if (!src) {
        src = cast<BlockedLayoutAttr>(defaults.get(trans.getSrc().getType().getShape()));
        if (failed(unifyOperand(op, op->getOpOperand(0), src)))
          return failure();
      }
      setEncoding(trans.getResult(), permute(src, trans.getOrder()));
      return success();
    }
    if (auto reshape = dyn_cast<ReshapeOp>(op)) {
      // Each lane keeps the elements it holds: the reshape moves nothing.
      std::optional<LinearLayout> src = getLinearLayout(reshape.getSrc().getType());
      setEncoding(reshape.getResult(), layoutAttr(op->getContext(), src->reshape(reshape.getType().getShape())));
      return success();
    }
    if (auto gather = dyn_cast<GatherOp>(op)) {
      // The source stays where it is (the lowering writes it to LDS); the
      // result takes the index's layout.
      Attribute layout = encodingOf(gather.getIndex());
      if (isRematerializable(gather.getIndex())) {
        Attribute preferred = preferences.lookup(gather.getResult());
        layout = preferred ? preferred : defaults.get(gather.getType().getShape());
      }
      if (failed(unifyOperand(op, op->getOpOperand(1), layout)))
        return failure();
      setEncoding(gather.getResult(), layout);
      return success();
    }
    // A block copied out of LDS is written there row-major, unpadded (the
    // copy takes it so): from the blocked layout, whose lanes write along
    // rows, without bank conflicts. A matrix-instruction layout's lanes
    // would write down a column of rows 2^k bytes apart, all in one bank.
    if (auto store = dyn_cast<DescriptorStoreOp>(op))
      return unifyOperand(op, store.getValueMutable(),
                          defaults.get(store.getValue().getType().getShape()));
    // An async load's lanes copy consecutive 16-byte runs of its slot's
    // arrangement (which the slot's reads choose): its pointers and mask
    // take the layout that hands each lane its runs.
    if (auto copy = dyn_cast<AsyncLoadOp>(op)) {
      Attribute layout = copyLayout(copy);
      if (!layout)
        return op->emitError("tile.async_load copies power-of-two tiles of at least 16 bytes per thread");
      return unify(op, layout);
    }
    if (auto reduce = dyn_cast<ReduceOp>(op)) {
      auto srcType = cast<RankedTensorType>(reduce.getSrcs()[0].getType());
      Attribute parent = encodingOf(reduce.getSrcs()[0]);
      if (!isa_and_nonnull<BlockedLayoutAttr, LinearLayoutAttr>(parent)) // a reduction's result: spread it over a blocked layout first
        parent = defaults.get(srcType.getShape());
      if (failed(unify(op, parent)))
        return failure();
      for (Value r : reduce.getResults())
        if (isa<RankedTensorType>(r.getType()))
          setEncoding(r, reducedLayout(parent, srcType.getShape(), reduce.getAxis()));
      return success();
    }
    bool hasTensor = llvm::any_of(op->getResultTypes(), llvm::IsaPred<RankedTensorType>) ||
                     llvm::any_of(op->getOperandTypes(), llvm::IsaPred<RankedTensorType>);
    if (!hasTensor)
      return success();
    Attribute layout = resultLayout(op);
    if (!layout)
      return op->emitError("rocktile found no layout for this op's result (a compiler bug)");
    // A matrix-instruction layout may spread rows over registers: then a
    // store goes in the (vectorized) blocked layout, its value converted to
    // it, rather than its pointers converted to the value's layout. A
    // layout whose lanes hold runs along the last dimension as long as the
    // blocked one's (a transposed dot's D) keeps its value where it is.
    if (auto store = dyn_cast<StoreOp>(op); store && isa<LinearLayoutAttr>(layout)) {
      auto type = cast<RankedTensorType>(store.getValue().getType());
      Attribute blocked = encodingOf(store.getPtr());
      bool recomputable = !blocked || isRematerializable(store.getPtr());
      if (recomputable)
        blocked = defaults.get(type.getShape());
      auto run = [&](Attribute l) {
        int64_t maxRun = std::max<int64_t>(128 / std::max<unsigned>(type.getElementTypeBitWidth(), 8), 1);
        return std::min(getLinearLayout(type.cloneWithEncoding(l))->getContiguousRegisters(type.getRank() - 1),
                        maxRun);
      };
      if (!recomputable || run(layout) < run(blocked))
        layout = blocked;
    }
    if (failed(unify(op, operandLayout(op, layout))))
      return failure();
    for (Value r : op->getResults())
      setEncoding(r, layout);
    if (auto c = dyn_cast<arith::ConstantOp>(op))
      c.setValueAttr(cast<DenseElementsAttr>(c.getValue())
                         .reshape(cast<ShapedType>(c.getType())));
    return success();
  }

  /// Whether `layout`, blocked or a slice of a blocked one, gives each lane
  /// more registers of `op`'s result (or first operand) than the default
  /// layout: it then replicates the tile over lanes, as a slice does along
  /// the dimension it drops or a blocked layout made for another shape
  /// where a dimension is shorter than its lanes. A small tile's layout (a
  /// row of scales) taken by a large one (the full mask that shares its
  /// rows) would multiply its registers. (Matrix-instruction layouts and
  /// their slices, a dot's row maximum, replicate by design.)
  bool replicates(Operation *op, Attribute layout) {
    auto slice = dyn_cast<SliceLayoutAttr>(layout);
    if (!isa<BlockedLayoutAttr>(slice ? slice.getParent() : layout))
      return false;
    auto type = cast<RankedTensorType>(op->getNumResults() ? op->getResult(0).getType() : op->getOperand(0).getType());
    auto registers = [&](Attribute l) { return getLinearLayout(type.cloneWithEncoding(l))->getNumRegisters(); };
    return registers(layout) > registers(defaults.get(type.getShape()));
  }

  /// The layout of `op`'s results: its operands' where they have one that
  /// cannot be recomputed, else the default blocked layout of the rank.
  Attribute resultLayout(Operation *op) {
    auto expand = dyn_cast<ExpandDimsOp>(op);
    if (expand) {
      auto slice = dyn_cast<SliceLayoutAttr>(encodingOf(expand.getSrc()));
      if (slice && slice.getDim() == expand.getAxis() && !replicates(op, slice.getParent()))
        return slice.getParent();
    } else if (auto broadcast = dyn_cast<BroadcastOp>(op);
               broadcast && isa<LinearLayoutAttr>(encodingOf(broadcast.getSrc()))) {
      // A linear layout broadcast in registers: to the layout its users want
      // if that one collapses onto the operand's, else to the operand's
      // expanded (its copies, then new registers, spread along the
      // broadcast dimensions), which collapses onto it as well.
      Attribute preferred = preferences.lookup(broadcast.getResult());
      if (isa_and_nonnull<LinearLayoutAttr>(preferred) &&
          operandLayout(op, preferred) == encodingOf(broadcast.getSrc()))
        return preferred;
      return LinearLayoutAttr::get(op->getContext(), expandBroadcast(*getLinearLayout(broadcast.getSrc().getType()),
                                                                     broadcast.getType().getShape()));
    } else {
      for (Value o : op->getOperands())
        if (isa<RankedTensorType>(o.getType()) && !isRematerializable(o) && !replicates(op, encodingOf(o)))
          return encodingOf(o);
    }
    ArrayRef<int64_t> shape = op->getNumResults()
                                  ? cast<RankedTensorType>(op->getResult(0).getType()).getShape()
                                  : cast<RankedTensorType>(op->getOperand(0).getType()).getShape();
    Attribute preferred = op->getNumResults() ? preferences.lookup(op->getResult(0)) : Attribute();
    // Loads stay blocked (vectorized, coalesced); their values are converted
    // to a matrix-instruction layout or a slice (what an expand_dims of them
    // wants), not their pointers.
    if (isa<LoadOp>(op) && isa_and_nonnull<LinearLayoutAttr, SliceLayoutAttr>(preferred))
      preferred = {};
    // expand_dims' operand takes the slice of its result's layout.
    if (expand && !isa_and_nonnull<BlockedLayoutAttr, LinearLayoutAttr>(preferred))
      preferred = {};
    // Global loads and broadcasts are not made in a layout that replicates
    // them beyond the default (their users convert the few elements they need).
    if (preferred && isa<LoadOp, BroadcastOp>(op) && replicates(op, preferred))
      preferred = {};
    return preferred ? preferred : defaults.get(shape);
  }

  /// Walking uses before definitions, asks each value that no other layout
  /// constrains to be built in the layout its users need: a 1-D tile that
  /// `x[:, None]` expands is produced directly in the slice of the 2-D layout,
  /// so no conversion is needed later.
  void choosePreferences(Block &body) {
    auto prefer = [&](Value v, Attribute layout) {
      if (layout && isa<RankedTensorType>(v.getType()))
        preferences.try_emplace(v, layout);
    };
    for (Operation &op : llvm::reverse(body)) {
      for (Region &region : op.getRegions())
        for (Block &inner : region)
          choosePreferences(inner);
      // A loop carrying a dot's accumulator (or a value made from it, as a
      // running row sum) starts it in the layout it will have.
      if (auto loop = dyn_cast<scf::ForOp>(op))
        for (auto [init, arg, next] : llvm::zip(loop.getInitArgs(), loop.getRegionIterArgs(),
                                                loop.getYieldedValues())) {
          Attribute layout = preferences.lookup(arg);
          DenseSet<Value> seen;
          if (!layout)
            layout = predictedLayout(next, seen);
          // Over what later users of the same constant asked: they can
          // recompute it, the loop would convert it every iteration.
          if (layout && isa<RankedTensorType>(init.getType()))
            preferences[init] = layout;
        }
      if (auto dot = dyn_cast<DotOp>(op)) {
        prefer(dot.getAcc(), std::get<2>(dots.lookup(dot)));
        // A block copied to LDS is read back in any layout: the operand's.
        auto copied = [](Value v) { return v.getDefiningOp<DescriptorLoadOp>() || v.getDefiningOp<LocalLoadOp>(); };
        if (copied(dot.getA()))
          prefer(dot.getA(), std::get<0>(dots.lookup(dot)));
        if (copied(dot.getB()))
          prefer(dot.getB(), std::get<1>(dots.lookup(dot)));
        continue; // its operands' layouts are its own, not its result's
      }
      if (auto copy = dyn_cast<AsyncLoadOp>(op)) {
        Attribute layout = copyLayout(copy);
        prefer(copy.getPtr(), layout);
        if (copy.getMask())
          prefer(copy.getMask(), layout);
        continue;
      }
      if (auto e = dyn_cast<ExpandDimsOp>(op)) {
        Attribute parent = preferences.lookup(e.getResult());
        if (!parent)
          parent = defaults.get(e.getType().getShape());
        if (isa_and_nonnull<BlockedLayoutAttr, LinearLayoutAttr>(parent))
          prefer(e.getSrc(), SliceLayoutAttr::get(op.getContext(), e.getAxis(), parent));
        continue;
      }
      // A reshape, trans or scaled upcast places its operand's elements
      // elsewhere: the layout its result wants says nothing about the
      // operand's.
      if (op.getNumResults() != 1 || isa<ReduceOp, ReshapeOp, TransOp, ScaledUpcastOp>(op))
        continue;
      Attribute layout = preferences.lookup(op.getResult(0));
      if (isa_and_nonnull<LinearLayoutAttr, SliceLayoutAttr>(layout) && isa<LoadOp>(op))
        continue; // nor do their pointers (a loop would carry them so)
      // What nothing asks for but is computed element by element from a
      // dot's result will be in that dot's D layout: its other operands
      // (a broadcast row maximum, a mask) should be built in it too.
      DenseSet<Value> seen;
      if (!layout && isElementwise(&op))
        layout = predictedLayout(op.getResult(0), seen);
      for (Value o : op.getOperands())
        prefer(o, operandLayout(&op, layout));
    }
  }

  /// The layout of an async load's pointers and mask: each lane copies
  /// consecutive 16-byte runs of its slot's arrangement, which the slot's
  /// reads (in their users' layout) choose. Null when none fits.
  Attribute copyLayout(AsyncLoadOp copy) {
    RankedTensorType read = slotType(copy.getBuffer().getDefiningOp<LocalAllocOp>());
    Attribute readLayout = read.getEncoding();
    for (Operation *user : copy.getBuffer().getUsers())
      if (auto load = dyn_cast<LocalLoadOp>(user); load && !readLayout)
        readLayout = preferences.lookup(load.getResult());
    read = read.cloneWithEncoding(readLayout ? readLayout : defaults.get(read.getShape()));
    std::optional<LinearLayout> writer =
        copyWriterLayout(asyncLoadLayout(read, target), exchangeBytes(read), target.waveSize, numWarps);
    return writer ? layoutAttr(copy.getContext(), *writer) : Attribute();
  }

  /// Gives every tensor operand of `op` the layout `layout`.
  LogicalResult unify(Operation *op, Attribute layout) {
    for (OpOperand &use : op->getOpOperands())
      if (isa<RankedTensorType>(use.get().getType()) && failed(unifyOperand(op, use, layout)))
        return failure();
    return success();
  }

  LogicalResult unifyOperand(Operation *op, OpOperand &use, Attribute layout) {
    Value o = use.get();
    if (encodingOf(o) == layout)
      return success();
    if (isRematerializable(o) && canRematerializeAs(o, layout)) {
      use.set(rematerialize(o, layout));
      return success();
    }
    // A broadcast or expand_dims is redone in the layout (in place when
    // used only here), its smaller operand converted instead; a conversion
    // converts its source to the layout directly.
    Operation *def = o.getDefiningOp();
    bool convert = isa_and_nonnull<ConvertLayoutOp>(def);
    Attribute operand = isa_and_nonnull<BroadcastOp, ExpandDimsOp>(def) ? operandLayout(def, layout) : Attribute();
    if (convert && encodingOf(def->getOperand(0)) == layout) {
      use.set(def->getOperand(0));
      if (o.use_empty())
        def->erase();
      return success();
    }
    if (convert || operand) {
      auto key = std::make_pair(o, layout);
      if (auto it = remat.find(key); it != remat.end()) {
        use.set(it->second);
        return success();
      }
      if (!o.hasOneUse()) {
        OpBuilder b(def->getContext());
        b.setInsertionPointAfter(def);
        def = b.clone(*def);
        use.set(def->getResult(0));
      }
      setEncoding(def->getResult(0), layout);
      remat[key] = def->getResult(0);
      return convert ? success() : unifyOperand(def, def->getOpOperand(0), operand);
    }
    OpBuilder b(op);
    auto type = cast<RankedTensorType>(o.getType()).cloneWithEncoding(layout);
    use.set(ConvertLayoutOp::create(b, op->getLoc(), type, o));
    return success();
  }

  func::FuncOp func;
  DefaultLayouts defaults;
  const Target &target;
  unsigned numWarps;
  DenseMap<Operation *, std::tuple<Attribute, Attribute, Attribute>> dots; // A, B, D layouts
  DenseMap<Operation *, std::pair<Attribute, Attribute>> dotScales;        // of scaled dots' scales
  DenseMap<Value, Attribute> preferences;
  DenseMap<std::pair<Value, Attribute>, Value> remat;
};

/// Every tensor got a layout of its rank: a mistake here must stop the
/// compile rather than distribute elements wrongly.
LogicalResult verifyLayouts(func::FuncOp func) {
  return forEachDefinedValue(func, [](Value v, Operation *where) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    auto layout = type ? dyn_cast_or_null<VerifiableTensorEncoding>(type.getEncoding()) : nullptr;
    return success(!layout || succeeded(layout.verifyEncoding(type.getShape(), type.getElementType(),
                                                              [&] { return where->emitError(); })));
  });
}

/// `v` in `layout`: elementwise ops and splats are rebuilt in it down to
/// the values they start from, which are converted where they are defined,
/// so that a pointer advanced in a loop from loop-invariant offsets is
/// converted once, before the loop (hoistConversions). Returns the new
/// value and collects the conversions.
Value inLayout(Value v, Attribute layout, SmallVectorImpl<Operation *> &converts) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getEncoding() == layout)
    return v;
  Operation *def = v.getDefiningOp();
  OpBuilder b(v.getContext());
  bool rebuild = def && def->getNumResults() == 1 && def->getNumRegions() == 0 && isPure(def) &&
                 (isa<SplatOp, AddPtrOp, BroadcastOp>(def) || def->hasTrait<OpTrait::Elementwise>());
  if (!rebuild) {
    if (def)
      b.setInsertionPointAfter(def);
    else
      b.setInsertionPointToStart(cast<BlockArgument>(v).getOwner());
    Operation *convert = ConvertLayoutOp::create(b, v.getLoc(), type.cloneWithEncoding(layout), v);
    converts.push_back(convert);
    return convert->getResult(0);
  }
  // (A broadcast's source in `layout` collapsed along the broadcast dims.)
  Attribute operandsLayout = isa<BroadcastOp>(def) ? operandLayout(def, layout) : layout;
  SmallVector<Value> operands;
  for (Value operand : def->getOperands())
    operands.push_back(isa<RankedTensorType>(operand.getType()) ? inLayout(operand, operandsLayout, converts)
                                                                : operand);
  b.setInsertionPointAfter(def);
  Operation *copy = b.clone(*def);
  copy->setOperands(operands);
  copy->getResult(0).setType(type.cloneWithEncoding(layout));
  return copy->getResult(0);
}

/// Erases the pure op defining `v` if nothing uses it, and so on up.
void eraseUnused(Value v) {
  Operation *def = v ? v.getDefiningOp() : nullptr;
  if (!def || !def->use_empty() || !isPure(def))
    return;
  SmallVector<Value> operands(def->getOperands());
  def->erase();
  for (Value operand : operands)
    eraseUnused(operand);
}

/// Moves `converts` and the loop-invariant ops they read out of the loops
/// around them (only those: hoisting everything invariant would lengthen
/// the kernel's live ranges).
void hoistConversions(ArrayRef<Operation *> converts) {
  llvm::SetVector<Operation *> slice;
  for (Operation *convert : converts) {
    slice.insert(convert);
    BackwardSliceOptions options;
    options.omitBlockArguments = true;
    (void)getBackwardSlice(convert, &slice, options);
  }
  SmallVector<LoopLikeOpInterface> loops;
  for (Operation *op : slice)
    for (auto loop = op->getParentOfType<LoopLikeOpInterface>(); loop;
         loop = loop->getParentOfType<LoopLikeOpInterface>())
      if (!llvm::is_contained(loops, loop))
        loops.push_back(loop);
  // Innermost first, so that what leaves an inner loop may leave its outer one.
  for (LoopLikeOpInterface loop : loops)
    moveLoopInvariantCode(
        loop.getLoopRegions(), [&](Value v, Region *r) { return loop.isDefinedOutsideOfLoop(v); },
        [&](Operation *op, Region *) { return slice.contains(op) && isPure(op); },
        [&](Operation *op, Region *) { loop.moveOutOfLoop(op); });
}

/// An explicit-level async load (Gluon's buffer_load_to_shared and
/// global_load_to_shared) takes its pointers in the author's layout; the
/// copy writes each wave's lanes' runs consecutively, so where that layout
/// does not (a swizzled slot read by lanes in row order), its pointers and
/// mask are rebuilt in copyWriterLayout's (inLayout), as Triton's lowering
/// permutes the lanes' addresses.
LogicalResult placeAsyncLoadPointers(func::FuncOp func, const Target &target, unsigned numWarps) {
  SmallVector<Operation *> converts;
  WalkResult walk = func.walk([&](AsyncLoadOp copy) {
    auto alloc = copy.getBuffer().getDefiningOp<LocalAllocOp>();
    RankedTensorType ptrs = copy.getPtr().getType();
    std::optional<LinearLayout> layout = getLinearLayout(ptrs);
    if (!alloc || !layout)
      return WalkResult::advance();
    LdsLayout lds = slotLayout(alloc, target);
    int64_t eltBytes = exchangeBytes(
        RankedTensorType::get(ptrs.getShape(), cast<PointerType>(ptrs.getElementType()).getPointeeType()));
    if (copiesRunsInLaneOrder(*layout, lds, eltBytes))
      return WalkResult::advance();
    std::optional<LinearLayout> writer = copyWriterLayout(lds, eltBytes, target.waveSize, numWarps);
    if (!writer) {
      copy.emitError() << target.chip << "'s async copies write each wave's lanes' " << kCopyRunBytes
                       << "-byte runs consecutively, which cannot fill this shared layout (" << lds.str()
                       << "): use a power-of-two block of at least one run per lane, unpadded";
      return WalkResult::interrupt();
    }
    Attribute attr = layoutAttr(copy.getContext(), *writer);
    Value ptr = copy.getPtr(), mask = copy.getMask();
    copy.getPtrMutable().assign(inLayout(ptr, attr, converts));
    if (mask)
      copy.getMaskMutable().assign(inLayout(mask, attr, converts));
    eraseUnused(ptr);
    eraseUnused(mask);
    return WalkResult::advance();
  });
  hoistConversions(converts);
  return failure(walk.wasInterrupted());
}

/// The layouts an author wrote (a kernel of the explicit level) must place
/// each tile on the target's waves and the kernel's warps: an error at the
/// first op making a tile that does not fit, naming what would.
LogicalResult verifyExplicitLayouts(func::FuncOp func, const Target &target, unsigned numWarps) {
  return forEachDefinedValue(func, [&](Value v, Operation *where) -> LogicalResult {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    std::optional<LinearLayout> layout = type ? getLinearLayout(type) : std::nullopt;
    if (!layout)
      return success();
    Attribute written = type.getEncoding();
    if (auto slice = dyn_cast<SliceLayoutAttr>(written))
      written = slice.getParent();
    bool blocked = isa<BlockedLayoutAttr>(written);
    // `has` lanes or warps where `wanted` fit, which `blockedField` or as
    // many `basis` bases give.
    auto mismatch = [&](int64_t has, int64_t wanted, StringRef what, const llvm::Twine &fits,
                        StringRef blockedField, StringRef basis) {
      InFlightDiagnostic d = where->emitError()
                             << "the layout of this tile places it on " << has << " " << what << ", but " << fits;
      if (blocked)
        d << ": a BlockedLayout's " << blockedField << " must multiply to " << wanted;
      else
        d << ": a linear layout needs " << llvm::Log2_64(wanted) << " " << basis << " bases";
      return d;
    };
    if (layout->getNumLanes() != target.waveSize)
      return mismatch(layout->getNumLanes(), target.waveSize, "lanes per warp",
                      "a " + target.chip + " wave has " + llvm::Twine(target.waveSize), "threads_per_warp", "lane");
    if (layout->getNumWarps() != numWarps)
      return mismatch(layout->getNumWarps(), numWarps, "warps",
                      "the kernel is compiled for num_warps=" + llvm::Twine(numWarps), "warps_per_cta", "warp");
    return success();
  });
}

struct AssignLayoutsPass
    : public rocktile::impl::AssignLayoutsBase<AssignLayoutsPass> {
  using AssignLayoutsBase::AssignLayoutsBase;

  void runOnOperation() override {
    const Target *t = lookupTarget(target);
    ModuleOp module = getOperation();
    if (!t) {
      module.emitError() << "unknown target '" << target << "'";
      return signalPassFailure();
    }
    if (!llvm::isPowerOf2_32(numWarps) ||
        numWarps * t->waveSize > t->maxWorkgroupSize) {
      module.emitError() << "num_warps must be a power of two with at most "
                         << t->maxWorkgroupSize / t->waveSize << " warps of "
                         << t->waveSize << " lanes on " << t->chip << ", got "
                         << static_cast<unsigned>(numWarps);
      return signalPassFailure();
    }
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      if (!func.getBody().hasOneBlock()) {
        func.emitError("kernels with unstructured control flow (cf branches) are not supported; "
                       "use scf ops");
        return signalPassFailure();
      }
      // A dot whose accumulator alone overflows the register file cannot
      // compile to anything useful, and LLVM's register allocator takes
      // minutes to find that out (a 512x512 fp32 accumulator over 4 warps):
      // an error at the dot, naming what would fit.
      WalkResult fits = func.walk([&](tile::DotOp dot) {
        auto acc = dot.getAcc().getType();
        int64_t lanes = int64_t(numWarps) * t->waveSize, budget = t->waveRegisters(numWarps);
        int64_t registers = acc.getNumElements() * std::max(acc.getElementTypeBitWidth() / 32, 1u) / lanes;
        if (registers <= budget)
          return WalkResult::advance();
        dot.emitError() << "this dot's accumulator (" << acc.getNumElements() << " elements) needs " << registers
                        << " registers in each of the " << lanes << " lanes of " << static_cast<unsigned>(numWarps)
                        << " warps; " << t->chip << " gives each lane " << budget
                        << ": use smaller blocks or more warps";
        return WalkResult::interrupt();
      });
      if (fits.wasInterrupted())
        return signalPassFailure();
      // A kernel of the explicit level keeps the layouts its author wrote;
      // they must fit the target and the kernel's warps.
      if (tile::hasExplicitLayouts(func)) {
        if (failed(verifyLayouts(func)) || failed(verifyExplicitLayouts(func, *t, numWarps)) ||
            failed(placeAsyncLoadPointers(func, *t, numWarps)))
          return signalPassFailure();
      } else {
        padShortDots(func, *t);
        LayoutAssigner assigner(func, chooseDefaults(func, *t), *t, numWarps);
        if (failed(assigner.run()) || failed(verifyLayouts(func)))
          return signalPassFailure();
      }
      // Tiles larger than the register file compile: LLVM spills what does
      // not fit to scratch, as for Triton's kernels. But a lane's scratch is
      // bounded too, and past registers and scratch LLVM could only fail.
      // Short of that, spilling several register files' worth takes LLVM
      // minutes (65536 fp32 elements on one gfx950 warp: 2 minutes, twice
      // that: more than 5): a warning at once, naming the figures.
      Operation *peak = nullptr;
      int64_t demand = registerDemand(func, &peak);
      int64_t registers = t->waveRegisters(numWarps), scratch = t->scratchBytesPerLane / 4;
      auto figures = [&](InFlightDiagnostic d) {
        d << "the tiles live here need " << demand << " registers in each lane of "
          << static_cast<unsigned>(numWarps) << (numWarps == 1 ? " warp; " : " warps; ") << t->chip
          << " holds " << registers << " in registers";
        return d;
      };
      if (demand > registers + scratch) {
        figures(peak->emitError()) << " and " << scratch
                                   << " more in scratch: use smaller blocks or more warps";
        return signalPassFailure();
      }
      if (demand > 2 * registers)
        figures(peak->emitWarning()) << ": LLVM spills the rest to scratch, which makes the kernel slow "
                                        "and its compile take minutes; use smaller blocks or more warps";
      func->setAttr("tile.num_warps",
                    IntegerAttr::get(IntegerType::get(&getContext(), 32), numWarps));
    }
  }

  /// One blocked layout per tensor rank, shaped for that rank's largest tile
  /// and as wide per lane as its widest vectorizable memory access; and one
  /// per shape of the loads and stores, as wide as theirs (a GEMM's A, B
  /// and C tiles each get their own, with no lane holding a copy).
  DefaultLayouts chooseDefaults(func::FuncOp func, const Target &t) {
    AxisInfoAnalysis axis(func);
    DenseMap<unsigned, SmallVector<int64_t>> largest;
    DenseMap<unsigned, int64_t> vector;
    std::map<SmallVector<int64_t, 4>, int64_t> shapeVector;
    func.walk([&](Operation *op) {
      for (Type type : op->getResultTypes())
        if (auto tt = dyn_cast<RankedTensorType>(type)) {
          auto &l = largest[tt.getRank()];
          if (l.empty() || tt.getNumElements() > ShapedType::getNumElements(l))
            l.assign(tt.getShape().begin(), tt.getShape().end());
        }
      Value ptr, mask;
      if (auto load = dyn_cast<LoadOp>(op))
        ptr = load.getPtr(), mask = load.getMask();
      else if (auto store = dyn_cast<StoreOp>(op))
        ptr = store.getPtr(), mask = store.getMask();
      if (auto tt = ptr ? dyn_cast<RankedTensorType>(ptr.getType()) : nullptr) {
        int64_t w = getAccessVectorWidth(axis, ptr, mask, tt.getRank() - 1,
                                         tt.getShape().back());
        vector[tt.getRank()] = std::max(vector.lookup(tt.getRank()), w);
        int64_t &perShape = shapeVector[SmallVector<int64_t, 4>(tt.getShape())];
        perShape = std::max(perShape, w);
      }
    });
    // A dot operand loaded with K not its contiguous dimension (a row-major
    // B, a transposed A) goes to LDS K-contiguous: each lane loads a few
    // consecutive rows along K too, so that it writes vectors along K.
    std::map<SmallVector<int64_t, 4>, std::pair<unsigned, int64_t>> kRows;
    func.walk([&](DotOp dot) {
      unsigned rank = dot.getType().getRank();
      for (auto [operand, kDim] : {std::pair{dot.getA(), rank - 1}, std::pair{dot.getB(), rank - 2}}) {
        std::optional<std::pair<Value, unsigned>> loaded = loadedAcrossK(operand, kDim);
        if (!loaded)
          continue;
        kDim = loaded->second;
        auto type = cast<RankedTensorType>(loaded->first.getType());
        SmallVector<int64_t, 4> shape(type.getShape());
        int64_t vec = std::max<int64_t>(shapeVector[shape], 1);
        int64_t perLane = type.getNumElements() / (t.waveSize * numWarps);
        int64_t eltBytes = std::max<int64_t>(type.getElementTypeBitWidth() / 8, 1);
        int64_t rows = std::min<int64_t>(perLane / vec, 16 / eltBytes);
        if (rows > 1)
          kRows[shape] = {kDim, rows};
      }
    });
    DefaultLayouts defaults;
    for (auto &[rank, shape] : largest)
      defaults.byRank[rank] = chooseBlocked(&getContext(), shape,
                                            std::max<int64_t>(vector.lookup(rank), 1),
                                            t.waveSize, numWarps);
    for (auto &[shape, w] : shapeVector) {
      auto [rowDim, rows] = kRows.count(shape) ? kRows[shape] : std::pair<unsigned, int64_t>{0, 1};
      defaults.byShape[shape] = chooseBlocked(&getContext(), shape, std::max<int64_t>(w, 1), t.waveSize,
                                              numWarps, rowDim, rows);
    }
    return defaults;
  }
};

} // namespace
