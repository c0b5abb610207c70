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
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

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
  // (Elements as integers of their width: LLVM has no fp8 types.)
  return LLVM::GEPOp::create(b, loc(), base.getType(), b.getIntegerType(8 * eltBytes), base,
                             ValueRange{arith::IndexCastOp::create(b, loc(), b.getI64Type(), index).getResult()});
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
  std::optional<LinearLayout> writer = copyWriterLayout(lds, eltBytes, target.waveSize, layout.getNumWarps());
  if (!writer || *writer != layout)
    return op.emitError("tile.async_load's pointers are not in the layout that copies its slot's runs in lane "
                        "order (tile-assign-layouts gives it)");
  LaneValue ptr = values.lookup(op.getPtr());
  Value mask = op.getMask() ? lookup(op.getMask()) : Value();
  bool directToLds = target.asyncLoads == AsyncLoads::DirectToLds;
  Value buffer = bufferViews.lookup(ptr.base);
  if (mask && (!directToLds || !buffer))
    return op.emitError() << "tile.async_load with a mask needs a buffer resource (a ':range32' pointer) on "
                          << target.chip << (directToLds ? "" : ", which has no async loads through one");
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
    ROCDL::GlobalLoadAsyncToLDSB128Op::create(b, loc(), global,
                                              elementPointer(view, arith::IndexCastOp::create(b, loc(), b.getIndexType(), laneFirst), 3, eltBytes), 0, 0, nullptr, nullptr,
                                              nullptr);
  }
  return success();
}
