// tile-insert-barriers: the barriers between an explicit-level kernel's
// shared-memory accesses that different warps could otherwise race on.
#include "rocktile/Transforms/Passes.h"
#include "rocktile/Dialect/Tile/IR/Tile.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

namespace rocktile {
#define GEN_PASS_DEF_INSERTBARRIERS
#include "rocktile/Transforms/Passes.h.inc"
} // namespace rocktile

using namespace mlir;
using namespace rocktile;

namespace {

/// An access to a slot of an LDS buffer since the last barrier.
struct Access {
  Value buffer;
  std::optional<int64_t> slot; // unknown: any slot
  bool write;
  bool operator==(const Access &o) const { return buffer == o.buffer && slot == o.slot && write == o.write; }
  bool conflictsWith(const Access &o) const {
    return buffer == o.buffer && (write || o.write) && (!slot || !o.slot || *slot == *o.slot);
  }
};

/// The accesses on some path from the last barrier.
struct Pending {
  SmallVector<Access> accesses;
  void add(const Access &a) {
    if (!llvm::is_contained(accesses, a))
      accesses.push_back(a);
  }
  void join(const Pending &o) {
    for (const Access &a : o.accesses)
      add(a);
  }
  bool operator==(const Pending &o) const {
    return accesses.size() == o.accesses.size() && llvm::all_of(o.accesses, [&](const Access &a) {
             return llvm::is_contained(accesses, a);
           });
  }
};

/// The LDS access `op` makes, if it makes one.
std::optional<Access> accessOf(Operation *op) {
  auto make = [](Value buffer, Value slot, bool write) {
    APInt constant;
    std::optional<int64_t> index;
    if (matchPattern(slot, m_ConstantInt(&constant)))
      index = constant.getSExtValue();
    return Access{buffer, index, write};
  };
  if (auto load = dyn_cast<tile::LocalLoadOp>(op))
    return make(load.getBuffer(), load.getSlot(), false);
  if (auto store = dyn_cast<tile::LocalStoreOp>(op))
    return make(store.getBuffer(), store.getSlot(), true);
  if (auto copy = dyn_cast<tile::AsyncCopyOp>(op))
    return make(copy.getBuffer(), copy.getSlot(), true);
  if (auto load = dyn_cast<tile::AsyncLoadOp>(op))
    return make(load.getBuffer(), load.getSlot(), true);
  return std::nullopt;
}

/// Walks `block` from `pending`, the accesses since the last barrier;
/// with `insert`, places a barrier before each access that conflicts with
/// one of them. Returns the accesses pending at the block's end.
Pending visit(Block &block, Pending pending, bool insert);

/// A loop's body runs after what came before it and after itself: its
/// entry state is the fixed point of the two joined (accesses only
/// accumulate, so this ends).
Pending visitLoop(ArrayRef<Region *> body, const Pending &before, bool insert) {
  auto once = [&](Pending state, bool place) {
    for (Region *region : body)
      state = visit(region->front(), state, place);
    return state;
  };
  Pending entry = before;
  while (true) {
    Pending next = before;
    next.join(once(entry, false));
    if (next == entry)
      break;
    entry = next;
  }
  Pending exit = once(entry, insert);
  exit.join(entry); // a loop that runs no iterations (scf.for)
  return exit;
}

Pending visit(Block &block, Pending pending, bool insert) {
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (isa<tile::BarrierOp, tile::AsyncWaitOp>(op)) {
      pending = {};
      continue;
    }
    if (std::optional<Access> access = accessOf(&op)) {
      if (llvm::any_of(pending.accesses, [&](const Access &a) { return access->conflictsWith(a); })) {
        if (insert) {
          OpBuilder b(&op);
          tile::BarrierOp::create(b, op.getLoc(), /*lds=*/true);
        }
        pending = {};
      }
      pending.add(*access);
      continue;
    }
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      pending = visitLoop({&loop.getRegion()}, pending, insert);
    } else if (auto loop = dyn_cast<scf::WhileOp>(op)) {
      pending = visitLoop({&loop.getBefore(), &loop.getAfter()}, pending, insert);
    } else if (op.getNumRegions()) {
      // Branches (scf.if) or any other op with regions: one of them runs,
      // or none where one is empty (an scf.if without else).
      bool mayRunNone = op.getNumRegions() == 1 ||
                        llvm::any_of(op.getRegions(), [](Region &r) { return r.empty(); });
      Pending after = mayRunNone ? pending : Pending{};
      for (Region &region : op.getRegions())
        if (!region.empty())
          after.join(visit(region.front(), pending, insert));
      pending = after;
    }
  }
  return pending;
}

struct InsertBarriers : rocktile::impl::InsertBarriersBase<InsertBarriers> {
  void runOnOperation() override {
    getOperation().walk([](func::FuncOp func) {
      if (!func.isExternal() && tile::hasExplicitLayouts(func))
        visit(func.getBody().front(), {}, true);
    });
  }
};

} // namespace
