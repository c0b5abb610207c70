#include "rocktile/Analysis/RegisterDemand.h"
#include "rocktile/Dialect/Tile/IR/Tile.h"
#include "mlir/Analysis/Liveness.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace rocktile;

static int64_t registersPerLane(Value v) {
  auto tensor = dyn_cast<RankedTensorType>(v.getType());
  std::optional<LinearLayout> layout = tensor ? tile::getLinearLayout(tensor) : std::nullopt;
  // A splat is its scalar in every lane.
  if (!layout || v.getDefiningOp<tile::SplatOp>())
    return 0;
  Type element = tensor.getElementType();
  int64_t bits = isa<tile::PointerType>(element) ? 32 : element.getIntOrFloatBitWidth();
  return bits == 1 ? 0 : llvm::divideCeil(layout->getNumRegisters() * bits, 32);
}

int64_t rocktile::registerDemand(Operation *func) {
  Liveness liveness(func);
  int64_t most = 0;
  func->walk([&](Operation *op) {
    // Live across `op`: its results and what its block still needs after
    // it, then the same around each enclosing op; in a loop's body, also
    // what the body takes in, needed again by the next iteration.
    llvm::DenseSet<Value> live;
    for (Operation *at = op; at != func; at = at->getParentOp()) {
      const LivenessBlockInfo *info = liveness.getLiveness(at->getBlock());
      for (Value v : info->currentlyLiveValues(at))
        if (v.getDefiningOp() == at || info->isLiveOut(v) || info->getEndOperation(v, at) != at)
          live.insert(v);
      if (at->getParentOp() != func)
        live.insert(info->in().begin(), info->in().end());
    }
    int64_t demand = 0;
    for (Value v : live)
      demand += registersPerLane(v);
    most = std::max(most, demand);
  });
  return most;
}
