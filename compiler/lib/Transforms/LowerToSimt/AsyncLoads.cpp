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

Value KernelLowering::elementPointer(Value memref, Value index, unsigned addressSpace, int64_t eltBytes) {
  // The emulator finds the memref and the index in this chain.
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), addressSpace);
  Type i64 = b.getI64Type();
  Value first = memref::ExtractAlignedPointerAsIndexOp::create(b, loc(), memref);
  Value base = LLVM::IntToPtrOp::create(b, loc(), ptrType, arith::IndexCastOp::create(b, loc(), i64, first).getResult());
  // (Elements as integers of their width: LLVM has no fp8 types.)
  return LLVM::GEPOp::create(b, loc(), ptrType, b.getIntegerType(8 * eltBytes), base,
                             ValueRange{arith::IndexCastOp::create(b, loc(), i64, index).getResult()});
}

Value KernelLowering::bytePointer(Value memref, Value bytes) {
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), 1);
  Value first = memref::ExtractAlignedPointerAsIndexOp::create(b, loc(), memref);
  Value base = LLVM::IntToPtrOp::create(b, loc(), ptrType,
                                        arith::IndexCastOp::create(b, loc(), b.getI64Type(), first).getResult());
  return LLVM::GEPOp::create(b, loc(), ptrType, b.getI8Type(), base,
                             ValueRange{arith::ExtUIOp::create(b, loc(), b.getI64Type(), bytes).getResult()});
}

int64_t KernelLowering::asyncLoadInstructions(tile::AsyncLoadOp op) {
  auto type = op.getPtr().getType();
  int64_t eltBytes = std::max<int64_t>(exchangeBytes(RankedTensorType::get(
                                           type.getShape(), cast<tile::PointerType>(type.getElementType()).getPointeeType())),
                                       1);
  return layoutOf(op.getPtr()).getNumRegisters() * eltBytes / kCopyRunBytes;
}

LogicalResult KernelLowering::lowerAsyncLoad(tile::AsyncLoadOp op) {
  auto slot = slotOf(op, op.getBuffer(), op.getSlot());
  if (failed(slot))
    return failure();
  auto [lds, slotFirst] = *slot;
  RankedTensorType type = op.getPtr().getType();
  Type elt = cast<tile::PointerType>(type.getElementType()).getPointeeType();
  int64_t eltBytes = exchangeBytes(RankedTensorType::get(type.getShape(), elt));
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
