// tile-fuse-multiply-add: a float product added to something is an fma.
#include "rocktile/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"

namespace rocktile {
#define GEN_PASS_DEF_FUSEMULTIPLYADD
#include "rocktile/Transforms/Passes.h.inc"
} // namespace rocktile

using namespace mlir;

namespace {

/// `v`'s f32 or f64 product, when it is one in `user`'s block. Each add of
/// a product gets its own fma, as LLVM's aggressive fusion for AMDGPU does
/// (an fma costs what the add did); the product stays for other users.
arith::MulFOp product(Value v, Operation *user) {
  auto mul = v.getDefiningOp<arith::MulFOp>();
  if (!mul || mul->getBlock() != user->getBlock())
    return nullptr;
  Type elt = getElementTypeOrSelf(mul.getType());
  return elt.isF32() || elt.isF64() ? mul : nullptr;
}

/// a * b + c, a * b - c, c + a * b or c - a * b as one fma.
void fuse(Operation *op, Value lhs, Value rhs, bool subtract) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  arith::MulFOp mul = product(lhs, op);
  Value fma;
  if (mul) {
    Value c = subtract ? arith::NegFOp::create(b, loc, rhs).getResult() : rhs;
    fma = math::FmaOp::create(b, loc, mul.getLhs(), mul.getRhs(), c);
  } else if ((mul = product(rhs, op))) {
    Value a = subtract ? arith::NegFOp::create(b, loc, mul.getLhs()).getResult() : mul.getLhs();
    fma = math::FmaOp::create(b, loc, a, mul.getRhs(), lhs);
  } else {
    return;
  }
  op->getResult(0).replaceAllUsesWith(fma);
  op->erase();
  if (mul->use_empty())
    mul->erase();
}

struct FuseMultiplyAddPass : public rocktile::impl::FuseMultiplyAddBase<FuseMultiplyAddPass> {
  void runOnOperation() override {
    getOperation().walk([](func::FuncOp func) {
      if (auto fusion = func->getAttrOfType<IntegerAttr>("tile.fp_fusion"); fusion && fusion.getInt() == 0)
        return;
      SmallVector<Operation *> sums;
      func.walk([&](Operation *op) {
        if (isa<arith::AddFOp, arith::SubFOp>(op))
          sums.push_back(op);
      });
      for (Operation *op : sums)
        fuse(op, op->getOperand(0), op->getOperand(1), isa<arith::SubFOp>(op));
    });
  }
};

} // namespace
