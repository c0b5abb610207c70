// tile-check-spin-waits: a loop that waits on a plain load is an error.
#include "rocktile/Dialect/Tile/IR/Tile.h"
#include "rocktile/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace rocktile {
#define GEN_PASS_DEF_CHECKSPINWAITS
#include "rocktile/Transforms/Passes.h.inc"
} // namespace rocktile

using namespace mlir;
using namespace rocktile;

namespace {

/// Whether `op` (or an op it holds) may write memory.
bool mayWrite(Operation *op) {
  bool writes = false;
  op->walk([&](Operation *inner) {
    if (inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance();
    auto effects = dyn_cast<MemoryEffectOpInterface>(inner);
    writes = !effects || effects.hasEffect<MemoryEffects::Write>();
    return writes ? WalkResult::interrupt() : WalkResult::advance();
  });
  return writes;
}

/// Whether `v` is the same in every iteration of `loop`: defined outside
/// it, or by pure ops of such values inside it.
bool invariant(Value v, scf::WhileOp loop) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return !loop->isAncestor(cast<BlockArgument>(v).getOwner()->getParentOp());
  if (!loop->isAncestor(def))
    return true;
  return def->getNumRegions() == 0 && isPure(def) &&
         llvm::all_of(def->getOperands(), [&](Value operand) { return invariant(operand, loop); });
}

/// The plain load of the same memory in every iteration that a write-free
/// while loop's condition depends on, if any:
/// through the ops of the loop and the values it carries round (a before
/// block's argument is what the after block yields, and the other way).
tile::LoadOp plainSpin(scf::WhileOp loop) {
  for (Region &region : loop->getRegions())
    for (Operation &op : region.getOps())
      if (!isa<scf::ConditionOp, scf::YieldOp>(op) && mayWrite(&op))
        return nullptr;
  scf::ConditionOp condition = loop.getConditionOp();
  SmallVector<Value> work{condition.getCondition()};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() == loop.getBeforeBody())
        work.push_back(loop.getYieldOp().getOperand(arg.getArgNumber()));
      else if (arg.getOwner() == loop.getAfterBody())
        work.push_back(condition.getArgs()[arg.getArgNumber()]);
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (!loop->isAncestor(def))
      continue;
    auto load = dyn_cast<tile::LoadOp>(def);
    if (load && !load.getIsVolatile() &&
        llvm::all_of(load->getOperands(), [&](Value operand) { return invariant(operand, loop); }))
      return load;
    work.append(def->operand_begin(), def->operand_end());
  }
  return nullptr;
}

struct CheckSpinWaitsPass : public rocktile::impl::CheckSpinWaitsBase<CheckSpinWaitsPass> {
  void runOnOperation() override {
    getOperation().walk([&](scf::WhileOp loop) {
      if (tile::LoadOp load = plainSpin(loop)) {
        load.emitError() << "this loop waits on a plain load that nothing in the loop changes: the compiler may "
                            "read it once, so another program's write is never seen (on the GPU too); load it "
                            "with volatile=True, or poll with an atomic";
        signalPassFailure();
      }
    });
  }
};

} // namespace
