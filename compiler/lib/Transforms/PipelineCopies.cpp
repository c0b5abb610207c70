#include "rocktile/Dialect/Tile/IR/Tile.h"
#include "rocktile/Target/Target.h"
#include "rocktile/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"

namespace rocktile {
#define GEN_PASS_DEF_PIPELINECOPIES
#include "rocktile/Transforms/Passes.h.inc"
} // namespace rocktile

using namespace mlir;
using namespace rocktile;
using namespace rocktile::tile;

namespace {

constexpr llvm::StringLiteral kNumStages = "tile.num_stages";
/// Without a loop's or function's num_stages: Triton's AMD default.
constexpr int64_t kDefaultStages = 2;

/// The ops of `loop`'s body that compute `values` from the induction
/// variable and values defined outside the loop, in program order; nullopt
/// when some value depends on anything else (a loop-carried value, a load).
std::optional<SmallVector<Operation *>> offsetSlice(scf::ForOp loop, ValueRange values) {
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> work(values.begin(), values.end());
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (v == loop.getInductionVar() || loop.isDefinedOutsideOfLoop(v))
      continue;
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != loop.getBody() || def->getNumRegions() || !isMemoryEffectFree(def))
      return std::nullopt;
    if (slice.insert(def))
      llvm::append_range(work, def->getOperands());
  }
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

struct Pipelined {
  DescriptorLoadOp load;
  SmallVector<Operation *> slice;
  Value buffer;
};

class LoopPipeliner {
public:
  explicit LoopPipeliner(scf::ForOp loop) : loop(loop), b(loop) {}

  /// Finds the loads to pipeline; false when there are none.
  bool findLoads() {
    if (!loop.getInductionVar().getType().isInteger(32))
      return false;
    for (Operation &op : *loop.getBody())
      if (auto load = dyn_cast<DescriptorLoadOp>(op)) {
        bool invariant = loop.isDefinedOutsideOfLoop(load.getBase()) &&
                         llvm::all_of(load.getShape(), [&](Value v) { return loop.isDefinedOutsideOfLoop(v); }) &&
                         llvm::all_of(load.getStrides(), [&](Value v) { return loop.isDefinedOutsideOfLoop(v); });
        std::optional<SmallVector<Operation *>> slice = offsetSlice(loop, load.getOffsets());
        if (invariant && slice)
          loads.push_back({load, std::move(*slice), Value()});
      }
    return !loads.empty();
  }

  /// LDS bytes of one block of each load.
  int64_t blockBytes() {
    int64_t bytes = 0;
    for (Pipelined &p : loads)
      bytes += p.load.getType().getNumElements() * std::max<int64_t>(p.load.getType().getElementTypeBitWidth() / 8, 1);
    return bytes;
  }

  /// Pipelines the loop over `stages` stages.
  void run(int64_t stages) {
    Location loc = loop.getLoc();
    for (Pipelined &p : loads) {
      RankedTensorType type = p.load.getType();
      SmallVector<int64_t> shape{stages};
      llvm::append_range(shape, type.getShape());
      auto space = gpu::AddressSpaceAttr::get(loop.getContext(), gpu::AddressSpace::Workgroup);
      p.buffer = LocalAllocOp::create(b, p.load.getLoc(), MemRefType::get(shape, type.getElementType(),
                                                                          MemRefLayoutAttrInterface(), space));
    }
    // Prologue: the copies of iterations 0 .. N - 2 that exist.
    Value lb = loop.getLowerBound(), ub = loop.getUpperBound(), step = loop.getStep();
    for (int64_t s = 0; s + 1 < stages; ++s)
      startCopies(b.createOrFold<arith::AddIOp>(loc, lb, mul(step, s)), constant(s), /*guarded=*/true);
    // The loop splits in two: the iterations whose copy N - 1 ahead exists
    // (all but the last N - 1), and the others, which start no copy and
    // wait for all. The second starts where the first's iterations end.
    Value mainUb = b.createOrFold<arith::SubIOp>(loc, ub, mul(step, stages - 1));
    Value mainTrips = b.createOrFold<arith::MaxSIOp>(
        loc, constant(0),
        b.createOrFold<arith::CeilDivSIOp>(loc, b.createOrFold<arith::SubIOp>(loc, mainUb, lb), step));
    Value tailLb = b.createOrFold<arith::AddIOp>(loc, lb, b.createOrFold<arith::MulIOp>(loc, mainTrips, step));
    b.setInsertionPointAfter(loop);
    IRMapping cloned;
    auto tail = cast<scf::ForOp>(b.clone(*loop, cloned));
    for (auto [result, final] : llvm::zip(loop.getResults(), tail.getResults()))
      result.replaceAllUsesWith(final);
    tail.getInitArgsMutable().assign(loop.getResults());
    tail.setLowerBound(tailLb);
    loop.setUpperBound(mainUb);

    // Each iteration of the first part: wait for its copies (leaving the
    // next N - 2 iterations' in flight), start the one N - 1 ahead, read.
    b.setInsertionPointToStart(loop.getBody());
    Value i = iteration(loop, lb);
    Value slot = b.createOrFold<arith::RemSIOp>(loc, i, constant(stages));
    AsyncWaitOp::create(b, loc, (stages - 2) * int64_t(loads.size()));
    Value nextSlot = b.createOrFold<arith::RemSIOp>(loc, b.createOrFold<arith::AddIOp>(loc, i, constant(stages - 1)),
                                                    constant(stages));
    startCopies(b.createOrFold<arith::AddIOp>(loc, loop.getInductionVar(), mul(step, stages - 1)), nextSlot,
                /*guarded=*/false);
    for (Pipelined &p : loads)
      replaceWithRead(p.load, p.buffer, slot);
    // The last N - 1: wait for all, read.
    b.setInsertionPointToStart(tail.getBody());
    Value tailSlot = b.createOrFold<arith::RemSIOp>(loc, iteration(tail, lb), constant(stages));
    AsyncWaitOp::create(b, loc, 0);
    for (Pipelined &p : loads)
      replaceWithRead(cast<DescriptorLoadOp>(cloned.lookup(p.load.getOperation())), p.buffer, tailSlot);
  }

private:
  Value constant(int64_t v) { return arith::ConstantIntOp::create(b, loop.getLoc(), v, 32); }
  Value mul(Value x, int64_t k) { return b.createOrFold<arith::MulIOp>(loop.getLoc(), x, constant(k)); }

  /// The index (from 0 at `lb`) of `part`'s current iteration.
  Value iteration(scf::ForOp part, Value lb) {
    Location loc = loop.getLoc();
    return b.createOrFold<arith::DivSIOp>(loc, b.createOrFold<arith::SubIOp>(loc, part.getInductionVar(), lb),
                                          part.getStep());
  }

  void replaceWithRead(DescriptorLoadOp load, Value buffer, Value slot) {
    OpBuilder at(load);
    load.replaceAllUsesWith(LocalLoadOp::create(at, load.getLoc(), load.getType(), buffer, slot).getResult());
    load.erase();
  }

  /// Starts the copies of iteration `iv` into `slot` (`guarded`: if `iv` is
  /// one of the loop's).
  void startCopies(Value iv, Value slot, bool guarded) {
    Location loc = loop.getLoc();
    OpBuilder::InsertionGuard guard(b);
    if (guarded) {
      auto inLoop = scf::IfOp::create(
          b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, iv, loop.getUpperBound()),
          /*withElseRegion=*/false);
      b.setInsertionPoint(inLoop.thenBlock()->getTerminator());
    }
    for (Pipelined &p : loads) {
      IRMapping map;
      map.map(loop.getInductionVar(), iv);
      for (Operation *op : p.slice)
        b.clone(*op, map);
      SmallVector<Value> offsets;
      for (Value o : p.load.getOffsets())
        offsets.push_back(map.lookupOrDefault(o));
      AsyncCopyOp::create(b, p.load.getLoc(), p.load.getBase(), offsets, p.load.getShape(), p.load.getStrides(),
                          p.buffer, slot);
    }
  }

  scf::ForOp loop;
  OpBuilder b;
  SmallVector<Pipelined> loads;
};

struct PipelineCopiesPass : public rocktile::impl::PipelineCopiesBase<PipelineCopiesPass> {
  using PipelineCopiesBase::PipelineCopiesBase;

  void runOnOperation() override {
    const Target *t = lookupTarget(target);
    if (!t) {
      getOperation().emitError() << "unknown target '" << target << "'";
      return signalPassFailure();
    }
    getOperation().walk([&](scf::ForOp loop) {
      auto stages = loop->getAttrOfType<IntegerAttr>(kNumStages);
      if (!stages)
        if (auto func = loop->getParentOfType<func::FuncOp>())
          stages = func->getAttrOfType<IntegerAttr>(kNumStages);
      int64_t asked = stages ? stages.getInt() : kDefaultStages, n = asked;
      LoopPipeliner pipeliner(loop);
      if (n < 2 || !pipeliner.findLoads())
        return;
      // As many stages as the LDS holds, leaving a block's room per load
      // for the loop's other LDS uses.
      while (n >= 2 && (n + 1) * pipeliner.blockBytes() > t->ldsBytes)
        --n;
      if (n < asked)
        loop.emitWarning() << "num_stages=" << asked << " needs "
                           << (asked + 1) * pipeliner.blockBytes() << " bytes of LDS for this loop's copies; "
                           << t->chip << " has " << t->ldsBytes << ": pipelined with " << std::max<int64_t>(n, 1)
                           << " stage" << (n < 2 ? "" : "s");
      if (n >= 2)
        pipeliner.run(n);
    });
  }
};

} // namespace
