#include "rocktile/Analysis/LdsScratch.h"
#include "rocktile/Target/Target.h"
#include "rocktile/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

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
      int64_t total = 0;
      Operation *largest = nullptr;
      func.walk([&](Operation *op) {
        int64_t bytes = getLdsScratchBytes(op);
        if (!bytes)
          return;
        // Scratch is live only inside its op, which synchronizes the
        // workgroup before and after using it: every op can use offset 0.
        op->setAttr("tile.lds_offset", IntegerAttr::get(i64, 0));
        if (bytes > total)
          total = bytes, largest = op;
      });
      if (total > t->ldsBytes) {
        largest->emitError() << "needs " << total << " bytes of LDS but "
                             << t->chip << " has " << t->ldsBytes
                             << " bytes per workgroup";
        return signalPassFailure();
      }
      func->setAttr("tile.lds_bytes", IntegerAttr::get(i64, total));
    }
  }
};
} // namespace
