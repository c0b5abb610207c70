#include "rocktile/Analysis/LdsScratch.h"
#include "rocktile/Target/Target.h"
#include "rocktile/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/MathExtras.h"

namespace rocktile {
#define GEN_PASS_DEF_ALLOCATELDS
#include "rocktile/Transforms/Passes.h.inc"
} // namespace rocktile

using namespace mlir;
using namespace rocktile;

namespace {
struct AllocateLdsPass : public rocktile::impl::AllocateLdsBase<AllocateLdsPass> {
  using AllocateLdsBase::AllocateLdsBase;

  void runOnOperation() override {
    const Target *t = lookupTarget(target);
    if (!t) {
      getOperation().emitError() << "unknown target '" << target << "'";
      return signalPassFailure();
    }
    auto i64 = IntegerType::get(&getContext(), 64);
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      // The slots of pipelined copies live from their allocation to the
      // end: each gets its own bytes, from 0 up.
      int64_t persistent = 0;
      func.walk([&](tile::LocalAllocOp alloc) {
        RankedTensorType slot = slotType(alloc);
        alloc->setAttr("tile.lds_offset", IntegerAttr::get(i64, persistent));
        persistent += alloc.getType().getDimSize(0) * blockCopyElements(slotLayout(alloc, *t)) * exchangeBytes(slot);
        persistent = llvm::alignTo(persistent, 16);
      });
      // The slots are done with after the op (of the function's body) that
      // holds their last use: the pipelined loop, which waits for all its
      // copies before it ends.
      Block &body = func.getBody().front();
      Operation *slotsUsed = nullptr;
      func.walk([&](tile::LocalAllocOp alloc) {
        for (Operation *user : alloc->getUsers())
          if (Operation *top = body.findAncestorOpInBlock(*user);
              top && (!slotsUsed || slotsUsed->isBeforeInBlock(top)))
            slotsUsed = top;
      });
      int64_t total = persistent;
      Operation *largest = nullptr;
      func.walk([&](Operation *op) {
        int64_t bytes = getLdsScratchBytes(op, *t);
        if (!bytes)
          return;
        // Scratch is live only inside its op, which synchronizes the
        // workgroup before and after using it: every op can use the bytes
        // after the slots, and those of the slots once they are done with.
        Operation *top = body.findAncestorOpInBlock(*op);
        int64_t offset = slotsUsed && top && slotsUsed->isBeforeInBlock(top) ? 0 : persistent;
        op->setAttr("tile.lds_offset", IntegerAttr::get(i64, offset));
        if (offset + bytes > total)
          total = offset + bytes, largest = op;
      });
      if (!largest)
        func.walk([&](tile::LocalAllocOp alloc) { largest = alloc; });
      if (total > t->ldsBytes) {
        largest->emitError() << "needs " << total << " bytes of LDS but "
                             << t->chip << " has " << t->ldsBytes
                             << " bytes per workgroup";
        func->setAttr(kLdsOverflow, UnitAttr::get(func.getContext()));
        return signalPassFailure();
      }
      func->setAttr("tile.lds_bytes", IntegerAttr::get(i64, total));
    }
  }
};
} // namespace
