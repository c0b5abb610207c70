#include "rocktile/Analysis/RegisterDemand.h"
#include "rocktile/Dialect/Tile/IR/Tile.h"
#include "mlir/Analysis/Liveness.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace rocktile;

static int64_t registersPerLane(Value v) {
  auto tensor = dyn_cast<RankedTensorType>(v.getType());
  std::optional<LinearLayout> layout = tensor ? tile::getLinearLayout(tensor) : std::nullopt;
  // A splat is its scalar in every lane; a broadcast, its operand's registers.
  if (!layout || v.getDefiningOp<tile::SplatOp>())
    return 0;
  if (auto broadcast = v.getDefiningOp<tile::BroadcastOp>())
    return registersPerLane(broadcast.getSrc());
  Type element = tensor.getElementType();
  // Pointers: a 32-bit offset per access, of up to 16 bytes contiguous in a
  // lane's registers.
  if (auto pointer = dyn_cast<tile::PointerType>(element)) {
    int64_t bytes = std::max<int64_t>(pointer.getPointeeType().getIntOrFloatBitWidth() / 8, 1);
    int64_t run = std::min(layout->getContiguousRegisters(tensor.getRank() - 1), std::max<int64_t>(16 / bytes, 1));
    return llvm::divideCeil(layout->getNumRegisters(), run);
  }
  int64_t bits = element.getIntOrFloatBitWidth();
  return bits == 1 ? 0 : llvm::divideCeil(layout->getNumRegisters() * bits, 32);
}

/// The most registers live across an op of `block` or of the regions
/// nested in it, `around` being those live around the block's parent op.
/// One walk back from the block's end: a loop's body also keeps what it
/// takes in, needed again by the next iteration.
static int64_t demandIn(Block &block, const Liveness &liveness, int64_t around, bool nested, Operation *&peak) {
  const LivenessBlockInfo *info = liveness.getLiveness(&block);
  llvm::DenseSet<Value> live(info->out().begin(), info->out().end());
  if (nested)
    live.insert(info->in().begin(), info->in().end());
  int64_t words = 0, most = 0;
  for (Value v : live)
    words += registersPerLane(v);
  for (Operation &op : llvm::reverse(block)) {
    // Across `op`: what is live after it, and its results.
    int64_t results = 0;
    for (Value r : op.getResults())
      if (live.erase(r))
        words -= registersPerLane(r), results += registersPerLane(r);
      else
        results += registersPerLane(r);
    if (around + words + results > most)
      most = around + words + results, peak = &op;
    for (Region &region : op.getRegions())
      for (Block &inner : region) {
        Operation *innerPeak = nullptr;
        int64_t demand = demandIn(inner, liveness, around + words, /*nested=*/true, innerPeak);
        if (demand > most)
          most = demand, peak = innerPeak;
      }
    for (Value v : op.getOperands())
      if (live.insert(v).second)
        words += registersPerLane(v);
  }
  return most;
}

int64_t rocktile::registerDemand(Operation *func, Operation **peak) {
  Liveness liveness(func);
  int64_t most = 0;
  for (Region &region : func->getRegions())
    for (Block &block : region) {
      Operation *at = nullptr;
      int64_t demand = demandIn(block, liveness, 0, /*nested=*/false, at);
      if (demand > most && (most = demand, peak))
        *peak = at;
    }
  return most;
}
