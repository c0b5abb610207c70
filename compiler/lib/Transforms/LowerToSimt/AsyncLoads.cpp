// tile.async_load: copies from global memory into LDS that bypass the
// registers, each lane a 16-byte run of the slot per instruction.
// gfx950: amdgpu.gather_to_lds (`buffer_load_dwordx4 ... lds` through a
// buffer resource, else `global_load_lds_dwordx4`), whose lanes write
// consecutive runs from an LDS address the wave shares (M0); a masked-off
// lane reads at 2^31 bytes, past the buffer's end, and lands zeros.
// gfx1250: `global_load_async_to_lds_b128`, to an LDS address per lane.
// The pointers come in the layout copyWriterLayout gives the slot's
// arrangement, so lane l's run is the wave's first plus l runs.
#include "KernelLowering.h"
#include "rocktile/Analysis/LdsScratch.h"
#include "rocktile/Transforms/Passes.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace rocktile;
using namespace rocktile::simt;

/// The LLVM pointer to element 0 of `memref`, as the emulator reads it back:
/// inttoptr(index_cast(extract_aligned_pointer_as_index memref)).
static Value basePointer(OpBuilder &b, Location loc, Value memref, unsigned addressSpace) {
  Value first = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  return LLVM::IntToPtrOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), addressSpace),
                                  arith::IndexCastOp::create(b, loc, b.getI64Type(), first).getResult());
}

Value KernelLowering::elementPointer(Value memref, Value index, unsigned addressSpace, int64_t eltBytes) {
  Value base = basePointer(b, loc(), memref, addressSpace);
  // (Elements as integers of their width: LLVM has no fp8 types.) LDS
  // pointers are 32-bit: a 32-bit index needs no extension, which would
  // keep LLVM from folding an access's constant into the instruction.
  Type indexType = addressSpace == 3 ? b.getI32Type() : b.getI64Type();
  return LLVM::GEPOp::create(b, loc(), base.getType(), b.getIntegerType(8 * eltBytes), base,
                             ValueRange{arith::IndexCastOp::create(b, loc(), indexType, index).getResult()},
                             LLVM::GEPNoWrapFlags::inbounds | LLVM::GEPNoWrapFlags::nuw);
}

Value KernelLowering::bytePointer(Value memref, Value bytes) {
  Value base = basePointer(b, loc(), memref, 1);
  return LLVM::GEPOp::create(b, loc(), base.getType(), b.getI8Type(), base,
                             ValueRange{arith::ExtUIOp::create(b, loc(), b.getI64Type(), bytes).getResult()});
}

/// Bytes of an element `op` copies.
static int64_t copiedElementBytes(tile::AsyncLoadOp op) {
  RankedTensorType ptr = op.getPtr().getType();
  return exchangeBytes(
      RankedTensorType::get(ptr.getShape(), cast<tile::PointerType>(ptr.getElementType()).getPointeeType()));
}

int64_t KernelLowering::asyncLoadInstructions(tile::AsyncLoadOp op) {
  return layoutOf(op.getPtr()).getNumRegisters() * copiedElementBytes(op) / kCopyRunBytes;
}

LogicalResult KernelLowering::lowerAsyncLoad(tile::AsyncLoadOp op) {
  auto slot = slotOf(op, op.getBuffer(), op.getSlot());
  if (failed(slot))
    return failure();
  auto [lds, slotFirst] = *slot;
  Type elt = cast<tile::PointerType>(op.getPtr().getType().getElementType()).getPointeeType();
  int64_t eltBytes = copiedElementBytes(op);
  int64_t run = kCopyRunBytes / eltBytes;
  LinearLayout layout = layoutOf(op.getPtr());
  if (!copiesRunsInLaneOrder(layout, lds, eltBytes))
    return op.emitError("tile.async_load's pointers are not in a layout that copies its slot's runs in lane "
                        "order (tile-assign-layouts gives one)");
  // A lane copies a whole run with one instruction: its elements must be
  // contiguous, 16-byte aligned, and all in or all out of the mask.
  unsigned dim = llvm::find_if(layout.getBases(LinearLayout::Register)[0], [](int64_t c) { return c != 0; }) -
                 layout.getBases(LinearLayout::Register)[0].begin();
  if (int64_t proven = getAccessVectorWidth(axis, op.getPtr(), op.getMask(), dim, run); proven < run)
    return op.emitError() << "each lane copies runs of " << run << " elements (" << kCopyRunBytes
                          << " bytes) with one instruction, but the compiler proves runs of only " << proven
                          << ": the pointers must be contiguous and " << kCopyRunBytes
                          << "-byte aligned along dimension " << dim
                          << " (strides and offsets multiples of 16, as the launcher specializes them), and the "
                             "mask equal over each run";
  LaneValue ptr = values.lookup(op.getPtr());
  Value mask = op.getMask() ? lookup(op.getMask()) : Value();
  bool directToLds = target.asyncLoads == AsyncLoads::DirectToLds;
  Value buffer = bufferViews.lookup(ptr.base);
  // gfx1250's async loads have no zero fill: a masked-off lane would have
  // to skip its instruction, and with it the count its waits rely on.
  if (mask && (!directToLds || !buffer))
    return op.emitError() << "tile.async_load with a mask needs " << target.chip << "'s async loads through a "
                          << "buffer resource (a ':range32' pointer), "
                          << (directToLds ? "which its pointers lack"
                                          : "which it has not: the Tensor Data Mover (tdm.async_load) zero-fills "
                                            "what lies outside the tensor");
  // The slot's element where this warp's run of each register group
  // starts: the warp bits hold the highest offset bits.
  Value warpFirst = slotFirst;
  for (auto [bit, basis] : llvm::enumerate(layout.getBases(LinearLayout::Warp))) {
    Value set = arith::AndIOp::create(b, loc(), arith::ShRUIOp::create(b, loc(), warpId, i32(bit)), i32(1));
    warpFirst = arith::AddIOp::create(b, loc(), warpFirst,
                                      arith::MulIOp::create(b, loc(), set, i32(lds.offsetOf(basis))));
  }
  Value view = lookup(op.getBuffer());
  auto transfer = VectorType::get({run}, elt);
  for (int64_t r = 0; r < layout.getNumRegisters(); r += run) {
    Value waveFirst = arith::AddIOp::create(b, loc(), warpFirst,
                                            i32(lds.offsetOf(layout.apply(LinearLayout::Register, r))));
    Value index = vector::ExtractOp::create(b, loc(), ptr.value, r);
    if (directToLds) {
      // Through a buffer resource where there is one: 32-bit offsets.
      Value src = buffer ? buffer : ptr.base;
      if (mask)
        index = bufferIndex(vector::ExtractOp::create(b, loc(), mask, r), index, eltBytes);
      amdgpu::GatherToLDSOp::create(b, loc(), src, ValueRange{index}, view,
                                    ValueRange{arith::IndexCastOp::create(b, loc(), b.getIndexType(), waveFirst)},
                                    TypeAttr::get(transfer));
      continue;
    }
    Value laneFirst = arith::AddIOp::create(b, loc(), waveFirst, arith::MulIOp::create(b, loc(), laneId, i32(run)));
    // Under 2 GiB (':range32'), the address is the argument's plus a 32-bit
    // byte offset: the scalar base and a VGPR offset of global loads' saddr
    // form, where a 64-bit address per copy costs a 64-bit add.
    Value global = buffer ? bytePointer(ptr.base, arith::MulIOp::create(b, loc(), arith::IndexCastOp::create(
                                                                             b, loc(), b.getI32Type(), index),
                                                                         i32(eltBytes)))
                          : elementPointer(ptr.base, index, 1, eltBytes);
    ROCDL::GlobalLoadAsyncToLDSB128Op::create(
        b, loc(), global,
        elementPointer(view, arith::IndexCastOp::create(b, loc(), b.getIndexType(), laneFirst), 3, eltBytes), 0, 0,
        nullptr, nullptr, nullptr);
  }
  return success();
}

namespace {
/// The instructions of the `groups` newest groups of async loads committed
/// before an op, on every path to it: the fewest (a smaller count waits
/// longer, which is always safe). Walks back from the op through its block,
/// around a loop's back edge (the previous iterations) and out before the
/// loop (the first one), and out of any other region to before its op.
struct CommittedGroups {
  int64_t groups;
  function_ref<int64_t(tile::AsyncLoadOp)> instructions;

  static bool startsCopies(Operation &op) {
    return op.walk([](Operation *o) {
               return isa<tile::AsyncLoadOp, tile::CommitGroupOp>(o) ? WalkResult::interrupt()
                                                                     : WalkResult::advance();
             }).wasInterrupted();
  }

  /// From just before `it` in `block`, `seen` groups counted so far
  /// holding `count` instructions, with `wraps` more back edges to take.
  int64_t before(Block *block, Block::iterator it, int64_t seen, int64_t count, int64_t wraps) {
    for (Operation *op = it == block->begin() ? nullptr : &*std::prev(it); op; op = op->getPrevNode()) {
      if (isa<tile::CommitGroupOp>(op)) {
        if (++seen > groups)
          return count;
      } else if (auto load = dyn_cast<tile::AsyncLoadOp>(op)) {
        if (!seen)
          return 0; // started after the last commit: waited for
        count += instructions(load);
      } else if (op->getNumRegions() && startsCopies(*op)) {
        return count; // groups in a nested region: wait for all before it
      }
    }
    Operation *parent = block->getParentOp();
    if (isa<func::FuncOp>(parent))
      return count; // no older groups
    int64_t outside = before(parent->getBlock(), parent->getIterator(), seen, count, wraps);
    if (isa<scf::ForOp, scf::WhileOp>(parent) && wraps > 0 && startsCopies(*parent))
      return std::min(outside, before(block, block->end(), seen, count, wraps - 1));
    return outside;
  }
};
} // namespace

LogicalResult KernelLowering::lowerWaitGroups(tile::WaitGroupsOp op) {
  int64_t groups = op.getOutstanding();
  CommittedGroups walk{groups, [&](tile::AsyncLoadOp load) { return asyncLoadInstructions(load); }};
  int64_t count = groups ? walk.before(op->getBlock(), op->getIterator(), 0, 0, groups + 1) : 0;
  // The counters hold at most 63: a larger count waits for more.
  count = std::min<int64_t>(count, 63);
  if (target.asyncLoads == AsyncLoads::DirectToLds)
    amdgpu::MemoryCounterWaitOp::create(b, loc(), /*load=*/b.getI32IntegerAttr(count), nullptr, nullptr, nullptr,
                                        nullptr);
  else
    ROCDL::WaitAsynccntOp::create(b, loc(), count);
  return success();
}

LogicalResult KernelLowering::lowerBarrier(tile::BarrierOp op) {
  if (!op.getLds()) {
    gpu::BarrierOp::create(b, loc());
    return success();
  }
  // This wave's LDS accesses are done; copies in flight go on.
  amdgpu::MemoryCounterWaitOp::create(b, loc(), nullptr, nullptr, /*ds=*/b.getI32IntegerAttr(0), nullptr, nullptr);
  gpu::BarrierOp::create(b, loc())->setAttr(kBarrierAfterWaits, b.getUnitAttr());
  return success();
}
