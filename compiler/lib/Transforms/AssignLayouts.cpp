#include "rocktile/Analysis/AxisInfo.h"
#include "rocktile/Dialect/Tile/IR/Tile.h"
#include "rocktile/Target/Target.h"
#include "rocktile/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/MathExtras.h"

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
BlockedLayoutAttr chooseBlocked(MLIRContext *ctx, ArrayRef<int64_t> shape,
                                int64_t vector, unsigned waveSize,
                                unsigned numWarps) {
  unsigned rank = shape.size();
  SmallVector<unsigned> order, spt(rank, 1), tpw(rank, 1), wpc(rank, 1);
  for (int d = rank - 1; d >= 0; --d)
    order.push_back(d);
  spt[rank - 1] = std::min<int64_t>(vector, shape[rank - 1]);
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

bool isElementwise(Operation *op) {
  return op->hasTrait<OpTrait::Elementwise>() || isa<AddPtrOp>(op);
}

class LayoutAssigner {
public:
  LayoutAssigner(func::FuncOp func, DenseMap<unsigned, Attribute> defaults)
      : func(func), defaults(std::move(defaults)) {}

  LogicalResult run() {
    Block &body = func.getBody().front();
    for (BlockArgument arg : func.getArguments())
      if (isa<RankedTensorType>(arg.getType()))
        return func.emitError("kernel arguments must be scalars or pointers, got ")
               << arg.getType();
    choosePreferences(body);
    for (Operation &op : llvm::make_early_inc_range(body))
      if (failed(assign(&op)))
        return failure();
    // Values recomputed in other layouts may have left their originals unused.
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
      if (isOpTriviallyDead(&op))
        op.erase();
    return success();
  }

private:
  static Attribute encodingOf(Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t ? t.getEncoding() : Attribute();
  }

  static void setEncoding(Value v, Attribute layout) {
    auto t = cast<RankedTensorType>(v.getType());
    v.setType(t.cloneWithEncoding(layout));
  }

  /// Values built only from ranges, splats and constants are recomputed in
  /// whatever layout a user needs, instead of being converted.
  bool isRematerializable(Value v) {
    Operation *def = v.getDefiningOp();
    if (!def || def->getNumResults() != 1 || def->getNumRegions())
      return false;
    if (isa<MakeRangeOp, SplatOp>(def) || isa<arith::ConstantOp>(def))
      return true;
    if (!isElementwise(def) && !isa<BroadcastOp, ExpandDimsOp>(def))
      return false;
    if (!isMemoryEffectFree(def))
      return false;
    return llvm::all_of(def->getOperands(), [&](Value o) {
      return !isa<RankedTensorType>(o.getType()) || isRematerializable(o);
    });
  }

  /// The layout an operand of `def` must have for `def`'s result to have
  /// `layout`, or null when no such layout exists.
  static Attribute operandLayout(Operation *def, Attribute layout) {
    if (auto e = dyn_cast<ExpandDimsOp>(def)) {
      auto blocked = dyn_cast<BlockedLayoutAttr>(layout);
      return blocked ? SliceLayoutAttr::get(def->getContext(), e.getAxis(),
                                            blocked)
                     : Attribute();
    }
    return layout;
  }

  Value rematerialize(Value v, Attribute layout, Operation *before) {
    auto key = std::make_pair(v, layout);
    if (auto it = remat.find(key); it != remat.end())
      return it->second;
    Operation *def = v.getDefiningOp();
    IRMapping map;
    for (Value o : def->getOperands())
      if (isa<RankedTensorType>(o.getType()) && encodingOf(o) != operandLayout(def, layout))
        map.map(o, rematerialize(o, operandLayout(def, layout), before));
    OpBuilder b(before);
    Operation *clone = b.clone(*def, map);
    setEncoding(clone->getResult(0), layout);
    if (auto c = dyn_cast<arith::ConstantOp>(clone))
      c.setValueAttr(cast<DenseElementsAttr>(c.getValue())
                         .reshape(cast<ShapedType>(c.getType())));
    return remat[key] = clone->getResult(0);
  }

  LogicalResult assign(Operation *op) {
    if (auto reduce = dyn_cast<ReduceOp>(op)) {
      auto parent = dyn_cast_or_null<BlockedLayoutAttr>(encodingOf(reduce.getSrcs()[0]));
      if (!parent)
        return op->emitError("reducing a tile that is itself a reduction "
                             "result is not supported yet");
      if (failed(unify(op, parent)))
        return failure();
      for (Value r : reduce.getResults())
        if (isa<RankedTensorType>(r.getType()))
          setEncoding(r, SliceLayoutAttr::get(op->getContext(),
                                              reduce.getAxis(), parent));
      return success();
    }
    bool hasTensor = llvm::any_of(op->getResultTypes(), llvm::IsaPred<RankedTensorType>) ||
                     llvm::any_of(op->getOperandTypes(), llvm::IsaPred<RankedTensorType>);
    if (!hasTensor)
      return success();
    Attribute layout = resultLayout(op);
    if (!layout)
      return failure();
    if (failed(unify(op, operandLayout(op, layout))))
      return failure();
    for (Value r : op->getResults())
      setEncoding(r, layout);
    if (auto c = dyn_cast<arith::ConstantOp>(op))
      c.setValueAttr(cast<DenseElementsAttr>(c.getValue())
                         .reshape(cast<ShapedType>(c.getType())));
    return success();
  }

  /// The layout of `op`'s results: its operands' where they have one that
  /// cannot be recomputed, else the default blocked layout of the rank.
  Attribute resultLayout(Operation *op) {
    if (auto e = dyn_cast<ExpandDimsOp>(op)) {
      auto slice = dyn_cast<SliceLayoutAttr>(encodingOf(e.getSrc()));
      if (slice && slice.getDim() == e.getAxis())
        return slice.getParent();
      if (!isRematerializable(e.getSrc())) {
        op->emitError("expanding a dimension of this tile needs a layout "
                      "conversion, which rocktile does not support yet");
        return {};
      }
    }
    for (Value o : op->getOperands())
      if (isa<RankedTensorType>(o.getType()) && !isRematerializable(o))
        return encodingOf(o);
    unsigned rank = op->getNumResults()
                        ? cast<RankedTensorType>(op->getResult(0).getType()).getRank()
                        : cast<RankedTensorType>(op->getOperand(0).getType()).getRank();
    Attribute preferred = preferences.lookup(op->getResult(0));
    return preferred ? preferred : defaults.lookup(rank);
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
      if (auto e = dyn_cast<ExpandDimsOp>(op)) {
        Attribute parent = preferences.lookup(e.getResult());
        if (!parent)
          parent = defaults.lookup(e.getType().getRank());
        if (auto blocked = dyn_cast_or_null<BlockedLayoutAttr>(parent))
          prefer(e.getSrc(), SliceLayoutAttr::get(op.getContext(), e.getAxis(), blocked));
        continue;
      }
      if (op.getNumResults() != 1 || isa<ReduceOp>(op))
        continue;
      Attribute layout = preferences.lookup(op.getResult(0));
      for (Value o : op.getOperands())
        prefer(o, layout);
    }
  }

  /// Gives every tensor operand of `op` the layout `layout`.
  LogicalResult unify(Operation *op, Attribute layout) {
    for (OpOperand &use : op->getOpOperands()) {
      Value o = use.get();
      if (!isa<RankedTensorType>(o.getType()) || encodingOf(o) == layout)
        continue;
      if (!isRematerializable(o))
        return op->emitError() << "operands have different layouts ("
                               << encodingOf(o) << " vs " << layout
                               << "); converting between them is not "
                                  "supported yet";
      use.set(rematerialize(o, layout, op));
    }
    return success();
  }

  func::FuncOp func;
  DenseMap<unsigned, Attribute> defaults;
  DenseMap<Value, Attribute> preferences;
  DenseMap<std::pair<Value, Attribute>, Value> remat;
};

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
        func.emitError("kernels with control flow are not supported yet");
        return signalPassFailure();
      }
      LayoutAssigner assigner(func, chooseDefaults(func, *t));
      if (failed(assigner.run()))
        return signalPassFailure();
      func->setAttr("tile.num_warps",
                    IntegerAttr::get(IntegerType::get(&getContext(), 32), numWarps));
    }
  }

  /// One blocked layout per tensor rank, shaped for that rank's largest tile
  /// and as wide per lane as its widest vectorizable memory access.
  DenseMap<unsigned, Attribute> chooseDefaults(func::FuncOp func,
                                               const Target &t) {
    AxisInfoAnalysis axis(func);
    DenseMap<unsigned, SmallVector<int64_t>> largest;
    DenseMap<unsigned, int64_t> vector;
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
      }
    });
    DenseMap<unsigned, Attribute> defaults;
    for (auto &[rank, shape] : largest)
      defaults[rank] = chooseBlocked(&getContext(), shape,
                                     std::max<int64_t>(vector.lookup(rank), 1),
                                     t.waveSize, numWarps);
    return defaults;
  }
};

} // namespace
