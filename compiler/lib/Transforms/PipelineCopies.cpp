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

  void run(int64_t n) {
    stages = n;
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
      startCopies(b.createOrFold<arith::AddIOp>(loc, lb, mul(step, s)), constant(s));
    // Each iteration: wait for its copies, start the one N - 1 ahead, read.
    b.setInsertionPointToStart(loop.getBody());
    Value iv = loop.getInductionVar();
    Value i = b.createOrFold<arith::DivSIOp>(loc, b.createOrFold<arith::SubIOp>(loc, iv, lb), step);
    Value slot = b.createOrFold<arith::RemSIOp>(loc, i, constant(stages));
    auto before = [&](int64_t ahead) {
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                   b.createOrFold<arith::AddIOp>(loc, iv, mul(step, ahead)), ub);
    };
    int64_t inFlight = (stages - 2) * int64_t(loads.size());
    if (inFlight == 0) {
      AsyncWaitOp::create(b, loc, 0);
    } else {
      // The last N - 2 iterations have fewer copies after theirs.
      auto wait = scf::IfOp::create(b, loc, before(stages - 2), /*withElseRegion=*/true);
      OpBuilder::atBlockTerminator(wait.thenBlock()).create<AsyncWaitOp>(loc, inFlight);
      OpBuilder::atBlockTerminator(wait.elseBlock()).create<AsyncWaitOp>(loc, 0);
    }
    Value next = b.createOrFold<arith::AddIOp>(loc, iv, mul(step, stages - 1));
    Value nextSlot = b.createOrFold<arith::RemSIOp>(loc, b.createOrFold<arith::AddIOp>(loc, i, constant(stages - 1)),
                                            constant(stages));
    startCopies(next, nextSlot);
    for (Pipelined &p : loads) {
      OpBuilder at(p.load);
      p.load.replaceAllUsesWith(LocalLoadOp::create(at, p.load.getLoc(), p.load.getType(), p.buffer, slot).getResult());
      p.load.erase();
    }
  }

private:
  Value constant(int64_t v) { return arith::ConstantIntOp::create(b, loop.getLoc(), v, 32); }
  Value mul(Value x, int64_t k) { return b.createOrFold<arith::MulIOp>(loop.getLoc(), x, constant(k)); }

  /// If `iv` is an iteration of the loop, starts its copies into `slot`.
  void startCopies(Value iv, Value slot) {
    Location loc = loop.getLoc();
    auto inLoop = scf::IfOp::create(
        b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, iv, loop.getUpperBound()),
        /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(inLoop.thenBlock()->getTerminator());
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
  int64_t stages = 0;
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
