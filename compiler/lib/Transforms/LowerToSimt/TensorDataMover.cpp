// Block copies on gfx1250's Tensor Data Mover. tile.descriptor_load: each
// warp copies its share of the block's rows from global memory to LDS with
// one tensor_load_to_lds, waits for it (s_wait_tensorcnt), and after a
// barrier every lane reads its elements of the result's layout from LDS.
// tile.descriptor_store: the lanes write the block to LDS, and after a
// barrier each warp copies its rows out with one tensor_store_from_lds.
// The pipelined form splits this into tile.async_copy (the copy into a slot),
// tile.async_wait (the wait and the barrier) and tile.local_load (the read).
// The descriptor's bits are built here, field by field as
// ../shared/isa/README.md gives them, rather than by
// amdgpu.make_dma_descriptor (whose MLIR 22 lowering sets the early-timeout
// bit with a workgroup mask, and misplaces tile_dim3): the emulator decodes
// the same bits.
#include "KernelLowering.h"
#include "mlir/IR/Matchers.h"
#include "rocktile/Transforms/Passes.h"
#include "rocktile/Analysis/LdsScratch.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace rocktile;
using namespace rocktile::simt;

/// Why `type`'s blocks cannot be copied with `numWarps` warps on the
/// target, or an empty string.
static std::string cannotCopy(const Target &target, RankedTensorType type, unsigned numWarps) {
  if (!target.hasTensorDataMover || type.getRank() != 2 || type.getDimSize(0) % numWarps)
    return (llvm::Twine("copies 2-D blocks of at least one row per warp with a Tensor Data Mover, which ") +
            target.chip + (target.hasTensorDataMover ? " has" : " lacks") + "; load other blocks with masked tile.load")
        .str();
  return "";
}

void KernelLowering::copyBlock(Value baseTile, ValueRange offsets, ValueRange shape, ValueRange strides,
                               RankedTensorType type, const LdsLayout &lds, Value view, Value slotElement,
                               bool toGlobal) {
  unsigned numWarps = func->getAttrOfType<IntegerAttr>("tile.num_warps").getInt();
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1), pitch = lds.rowPitch ? lds.rowPitch : cols;
  int64_t elements = blockCopyElements(lds);
  Type elt = type.getElementType();
  int64_t eltBytes = exchangeBytes(type), warpRows = rows / numWarps;
  // Padded rows: pad after every row (interval log2(dwords) - 1, amount - 1).
  int64_t padWord = 0;
  if (lds.rowPitch)
    padWord = int64_t(1) << 20 | int64_t(llvm::Log2_64(cols * eltBytes / 4) - 1) << 22 |
              ((pitch - cols) * eltBytes / 4 - 1) << 25;
  Type i64 = b.getI64Type(), i32Type = b.getI32Type();
  auto add = [&](Value x, Value y) { return arith::AddIOp::create(b, loc(), x, y).getResult(); };
  auto mul = [&](Value x, Value y) { return arith::MulIOp::create(b, loc(), x, y).getResult(); };
  auto shl = [&](Value x, int64_t n) { return arith::ShLIOp::create(b, loc(), x, i32(n)).getResult(); };
  auto shr = [&](Value x, int64_t n) { return arith::ShRUIOp::create(b, loc(), x, i32(n)).getResult(); };
  auto bitOr = [&](Value x, Value y) { return arith::OrIOp::create(b, loc(), x, y).getResult(); };
  auto wide = [&](Value x) { return arith::ExtSIOp::create(b, loc(), i64, x).getResult(); };
  auto unsignedWide = [&](Value x) { return arith::ExtUIOp::create(b, loc(), i64, x).getResult(); };
  auto low32 = [&](Value x) { return arith::TruncIOp::create(b, loc(), i32Type, x).getResult(); };
  auto addressOf = [&](Value memref) {
    Value p = memref::ExtractAlignedPointerAsIndexOp::create(b, loc(), memref);
    return arith::IndexCastOp::create(b, loc(), i64, p).getResult();
  };

  Value stride = lookup(strides[0]);
  LaneValue base = values.lookup(baseTile);
  Value ldsBase = add(low32(addressOf(view)), mul(slotElement, i32(eltBytes)));
  auto maxZero = [&](Value x) { return arith::MaxSIOp::create(b, loc(), x, i32(0)).getResult(); };
  auto sub = [&](Value x, Value y) { return arith::SubIOp::create(b, loc(), x, y).getResult(); };
  // One tensor_load_to_lds of `tileRows` x `tileCols` elements from the
  // tensor's element (row, col) >= (0, 0) to LDS byte `ldsOffset` of the
  // scratch (none of them where `inside` is false), or tensor_store_from_lds
  // the other way. The descriptor describes
  // the tensor from that element, so its extents shrink by the offsets (to
  // 0 past the end: out of bounds).
  auto copy = [&](Value row, Value col, int64_t tileRows, Value tileCols, Value ldsOffset, Value inside) {
    // Row and column are >= 0: they widen with zeros, no sign to compute.
    Value element = add(arith::IndexCastOp::create(b, loc(), i64, base.value),
                        add(mul(unsignedWide(row), wide(stride)), unsignedWide(col)));
    Value global = add(addressOf(base.base), mul(element, arith::ConstantIntOp::create(b, loc(), eltBytes, 64)));
    Value dim0 = maxZero(sub(lookup(shape[1]), col)), dim1 = maxZero(sub(lookup(shape[0]), row));
    if (inside)
      dim1 = arith::SelectOp::create(b, loc(), inside, dim1, i32(0));
    // G0: valid, LDS address, global address [56:0], type 2.
    Value globalHigh = arith::AndIOp::create(
        b, loc(), low32(arith::ShRUIOp::create(b, loc(), global, arith::ConstantIntOp::create(b, loc(), 32, 64))),
        i32(0x1FFFFFF));
    SmallVector<Value> g0 = {i32(1), add(ldsBase, ldsOffset), low32(global),
                             bitOr(globalHigh, i32(int64_t(2) << 30))};
    // G1: element size; tensor_dim0/1 (innermost first), tile_dim0/1, and
    // the stride between rows, 48 bits of which the high 16 stay 0.
    SmallVector<Value> g1 = {i32(int64_t(llvm::Log2_64(eltBytes)) << 16 | padWord),
                             shl(dim0, 16),
                             bitOr(shr(dim0, 16), shl(dim1, 16)),
                             bitOr(shr(dim1, 16), shl(tileCols, 16)),
                             i32(tileRows),
                             stride,
                             i32(0),
                             i32(0)};
    auto group = [&](ArrayRef<Value> words) {
      return vector::FromElementsOp::create(b, loc(), VectorType::get({int64_t(words.size())}, i32Type), words)
          .getResult();
    };
    if (toGlobal)
      ROCDL::TensorStoreFromLDSD2Op::create(b, loc(), group(g0), group(g1), /*cachePolicy=*/0u, nullptr, nullptr,
                                            nullptr);
    else
      ROCDL::TensorLoadToLDSD2Op::create(b, loc(), group(g0), group(g1), /*cachePolicy=*/0u, nullptr, nullptr,
                                         nullptr);
  };
  auto compare = [&](arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc(), p, x, y).getResult();
  };
  Value row0 = lookup(offsets[0]), col0 = lookup(offsets[1]);
  // Offsets provably >= 0 (program ids times block sizes, loop indices)
  // need no row-by-row path: it would only take code in the loop.
  bool mayBeNegative = !isNonNegative(offsets[0]) || !isNonNegative(offsets[1]);
  Value negative = mayBeNegative ? bitOr(compare(arith::CmpIPredicate::slt, row0, i32(0)),
                                         compare(arith::CmpIPredicate::slt, col0, i32(0)))
                                 : arith::ConstantIntOp::create(b, loc(), 0, 1).getResult();
  // A copy drops the elements outside the tensor (zero fill is not a
  // documented guarantee): a block that crosses an edge starts from zeros.
  if (!toGlobal) {
    // offset + block > size as offset > size - block: the right side stays
    // the same across a loop (hoisted), and no offset near 2^31 wraps.
    auto crosses = [&](Value offset, Value size, int64_t block) {
      return compare(arith::CmpIPredicate::sgt, offset, sub(size, i32(block)));
    };
    Value edge =
        bitOr(negative, bitOr(crosses(row0, lookup(shape[0]), rows), crosses(col0, lookup(shape[1]), cols)));
    // Rare in a K loop (its last iteration, the grid's last row or column):
    // expected false, the zeroing goes out of the loop's straight line.
    edge = LLVM::ExpectOp::create(b, loc(), edge, arith::ConstantIntOp::create(b, loc(), 0, 1));
    auto zeroFill = scf::IfOp::create(b, loc(), edge, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(zeroFill.thenBlock()->getTerminator());
    int64_t threads = int64_t(numWarps) * target.waveSize, vec = std::max<int64_t>(16 / eltBytes, 1);
    Value zeros = arith::ConstantOp::create(b, loc(), b.getZeroAttr(VectorType::get({vec}, elt)));
    for (int64_t first = 0; first < elements; first += threads * vec) {
      Value at = add(add(mul(threadId, i32(vec)), i32(first)), slotElement);
      auto store = [&] {
        vector::StoreOp::create(b, loc(), zeros, view,
                                ValueRange{arith::IndexCastOp::create(b, loc(), b.getIndexType(), at)},
                                /*nontemporal=*/false, llvm::Align(vec * eltBytes));
      };
      if (first + threads * vec <= elements) {
        store();
        continue;
      }
      // A last round with fewer stores than threads (padded rows, small blocks).
      auto inside = scf::IfOp::create(b, loc(),
                                      compare(arith::CmpIPredicate::slt, add(mul(threadId, i32(vec)), i32(first)),
                                              i32(elements)),
                                      /*withElseRegion=*/false);
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPoint(inside.thenBlock()->getTerminator());
      store();
    }
    gpu::BarrierOp::create(b, loc());
  }
  // Each warp copies its rows: as one block where the offsets are >= 0;
  // else row by row, each from its first column inside the tensor to where
  // that column goes in the block. A row outside the tensor is described
  // with no rows (tensor_dim1 = 0): all of it out of bounds, none copied.
  Value firstRow = mul(warpId, i32(warpRows));
  auto copyWhole = [&] {
    copy(add(row0, firstRow), col0, warpRows, i32(cols), mul(firstRow, i32(pitch * eltBytes)), Value());
  };
  if (!mayBeNegative)
    return copyWhole();
  auto byRows = scf::IfOp::create(b, loc(), negative, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(byRows.elseBlock()->getTerminator());
    copyWhole();
    b.setInsertionPoint(byRows.thenBlock()->getTerminator());
    Value col = maxZero(col0), skipped = sub(col, col0);
    Value leftOf = compare(arith::CmpIPredicate::sge, skipped, i32(cols));
    auto select = [&](Value c, Value x, Value y) { return arith::SelectOp::create(b, loc(), c, x, y).getResult(); };
    Value shift = select(leftOf, i32(0), skipped), tileCols = select(leftOf, i32(cols), sub(i32(cols), skipped));
    auto rowLoop = scf::ForOp::create(b, loc(), i32(0), i32(warpRows), i32(1));
    b.setInsertionPoint(rowLoop.getBody()->getTerminator());
    Value r = add(firstRow, rowLoop.getInductionVar()), row = add(row0, r);
    Value inside = arith::AndIOp::create(b, loc(), compare(arith::CmpIPredicate::sge, row, i32(0)),
                                         arith::XOrIOp::create(b, loc(), leftOf,
                                                               arith::ConstantIntOp::create(b, loc(), 1, 1)));
    copy(maxZero(row), col, 1, tileCols, mul(add(mul(r, i32(pitch)), shift), i32(eltBytes)), inside);
    ROCDL::WaitTensorcntOp::create(b, loc(), 0);
  }
}

LogicalResult KernelLowering::lowerDescriptorLoad(tile::DescriptorLoadOp op) {
  RankedTensorType type = op.getType();
  LinearLayout to = layoutOf(op);
  if (std::string why = cannotCopy(target, type, to.getNumWarps()); !why.empty())
    return op.emitError() << "tile.descriptor_load " << why;
  LdsLayout lds = blockCopyLayout(type, target);
  FailureOr<Value> view = scratchView(op, type.getElementType(), blockCopyElements(lds));
  if (failed(view))
    return failure();
  // Other waves may still read the previous block in this scratch.
  gpu::BarrierOp::create(b, loc());
  copyBlock(op.getBase(), op.getOffsets(), op.getShape(), op.getStrides(), type, lds, *view, i32(0));
  ROCDL::WaitTensorcntOp::create(b, loc(), 0);
  gpu::BarrierOp::create(b, loc());
  values[op] = {Value(), loadFromLds(to, lds, *view, type.getElementType(), exchangeBytes(type))};
  return success();
}

LogicalResult KernelLowering::lowerDescriptorStore(tile::DescriptorStoreOp op) {
  RankedTensorType type = op.getValue().getType();
  LinearLayout from = layoutOf(op.getValue());
  if (std::string why = cannotCopy(target, type, from.getNumWarps()); !why.empty())
    return op.emitError() << "tile.descriptor_store " << why;
  // Row-major: the Tensor Data Mover pads LDS rows only when it loads.
  LdsLayout lds = LdsLayout::rowMajor(type.getShape());
  FailureOr<Value> view = scratchView(op, type.getElementType(), type.getNumElements());
  if (failed(view))
    return failure();
  int64_t eltBytes = exchangeBytes(type);
  storeToLds(lookup(op.getValue()), from, lds, ldsAccess(from, lds, eltBytes), *view, eltBytes);
  copyBlock(op.getBase(), op.getOffsets(), op.getShape(), op.getStrides(), type, lds, *view, i32(0),
            /*toGlobal=*/true);
  // The copies read LDS until their wait: no wave may reuse it before all
  // have waited.
  ROCDL::WaitTensorcntOp::create(b, loc(), 0);
  gpu::BarrierOp::create(b, loc());
  return success();
}

LogicalResult KernelLowering::lowerLocalAlloc(tile::LocalAllocOp op) {
  int64_t slotElements = blockCopyElements(slotLayout(op, target));
  FailureOr<Value> view = scratchView(op, op.getType().getElementType(), op.getType().getDimSize(0) * slotElements);
  if (failed(view))
    return failure();
  values[op] = {Value(), *view};
  return success();
}

FailureOr<std::pair<LdsLayout, Value>> KernelLowering::slotOf(Operation *op, Value buffer, Value slot) {
  auto alloc = buffer.getDefiningOp<tile::LocalAllocOp>();
  if (!alloc)
    return op->emitError("the buffer of a slot must be a tile.local_alloc");
  LdsLayout lds = slotLayout(alloc, target);
  Value index = lookup(slot);
  // A slot the loop turns (k % STAGES) is opaque to LLVM's loop strength
  // reduction: otherwise it rewrites each access of the slot into its own
  // induction value, which the instruction's offset field no longer holds
  // (gfx1250's TDM ring: two VALU per transposed read each iteration).
  if (!matchPattern(index, m_Constant()))
    index = ROCDL::ReadfirstlaneOp::create(b, loc(), index.getType(), index);
  Value first = arith::MulIOp::create(b, loc(), index, i32(blockCopyElements(lds)));
  return std::pair{lds, first};
}

LogicalResult KernelLowering::lowerAsyncCopy(tile::AsyncCopyOp op) {
  MemRefType buffer = op.getBuffer().getType();
  auto type = RankedTensorType::get(buffer.getShape().drop_front(), buffer.getElementType());
  unsigned numWarps = func->getAttrOfType<IntegerAttr>("tile.num_warps").getInt();
  if (std::string why = cannotCopy(target, type, numWarps); !why.empty())
    return op.emitError() << "tile.async_copy " << why;
  auto slot = slotOf(op, op.getBuffer(), op.getSlot());
  if (failed(slot))
    return failure();
  // An arrangement an author chose must be one the copy can land.
  if (slot->first.maxPhase > 1 || slot->first.order[0] != 1)
    return op.emitError() << "the Tensor Data Mover lands a block's rows in order, unswizzled (padded or not), "
                             "not as " << slot->first.str();
  copyBlock(op.getBase(), op.getOffsets(), op.getShape(), op.getStrides(), type, slot->first,
            lookup(op.getBuffer()), slot->second);
  return success();
}

LogicalResult KernelLowering::lowerAsyncWait(tile::AsyncWaitOp op) {
  // `outstanding` counts copy ops; the counters count each wave's
  // instructions: one tensor_load_to_lds per block copy, one per run of a
  // lane per async load. A pipelined loop's wait leaves whole iterations
  // in flight, which issue the copies of its body.
  int64_t blockCopies = 0, loadInstructions = 0, ops = 0;
  if (int64_t outstanding = op.getOutstanding()) {
    for (Operation &o : *op->getBlock()) {
      if (isa<tile::AsyncCopyOp>(o))
        ++blockCopies, ++ops;
      else if (auto load = dyn_cast<tile::AsyncLoadOp>(o))
        loadInstructions += asyncLoadInstructions(load), ++ops;
    }
    if (!ops || outstanding % ops)
      return op.emitError() << "tile.async_wait leaves " << outstanding << " copies in flight, not whole "
                            << "iterations of the " << ops << " its block starts";
    blockCopies *= outstanding / ops;
    loadInstructions *= outstanding / ops;
  }
  bool copiesBlocks = false, loads = false;
  func.walk([&](Operation *o) {
    copiesBlocks |= isa<tile::AsyncCopyOp>(o);
    loads |= isa<tile::AsyncLoadOp>(o);
  });
  // This wave's LDS reads are done too (and on gfx950 its direct-to-LDS
  // loads but the newest): then the barrier is all it takes for any wave to
  // copy into what they read. Both load counters hold at most 63: a larger
  // count waits for more.
  IntegerAttr count = b.getI32IntegerAttr(std::min<int64_t>(loadInstructions, 63));
  bool vmcnt = loads && target.asyncLoads == AsyncLoads::DirectToLds;
  amdgpu::MemoryCounterWaitOp::create(b, loc(), /*load=*/vmcnt ? count : nullptr, nullptr,
                                      /*ds=*/b.getI32IntegerAttr(0), nullptr, nullptr);
  if (copiesBlocks)
    ROCDL::WaitTensorcntOp::create(b, loc(), blockCopies);
  if (loads && !vmcnt)
    ROCDL::WaitAsynccntOp::create(b, loc(), count.getInt());
  gpu::BarrierOp::create(b, loc())->setAttr(kBarrierAfterWaits, b.getUnitAttr());
  return success();
}

LogicalResult KernelLowering::lowerWaitTensorCopies(tile::WaitTensorCopiesOp op) {
  if (!target.hasTensorDataMover)
    return op.emitError() << target.chip << " has no Tensor Data Mover copies to wait for";
  ROCDL::WaitTensorcntOp::create(b, loc(), op.getOutstanding());
  return success();
}

LogicalResult KernelLowering::lowerLocalStore(tile::LocalStoreOp op) {
  auto slot = slotOf(op, op.getBuffer(), op.getSlot());
  if (failed(slot))
    return failure();
  LinearLayout layout = layoutOf(op.getValue());
  int64_t eltBytes = exchangeBytes(op.getValue().getType());
  writeLds(lookup(op.getValue()), layout, slot->first, ldsAccess(layout, slot->first, eltBytes), lookup(op.getBuffer()),
           eltBytes, slot->second, op.getOffsets().value_or(ArrayRef<int64_t>()));
  return success();
}

LogicalResult KernelLowering::lowerLocalLoad(tile::LocalLoadOp op) {
  auto slot = slotOf(op, op.getBuffer(), op.getSlot());
  if (failed(slot))
    return failure();
  int64_t eltBytes = exchangeBytes(op.getType());
  // An arrangement its author chose is read with the target's transpose
  // reads where they cost fewer cycles (a dot operand read across the
  // rows it was stored along), as a block copy's is.
  LdsLayout lds = slot->first;
  if (op.getBuffer().getDefiningOp<tile::LocalAllocOp>().getArrangement())
    lds = chooseLdsRead(lds, layoutOf(op), eltBytes, target.ldsBanks, target.transposeRead(eltBytes));
  values[op] = {Value(), loadFromLds(layoutOf(op), lds, lookup(op.getBuffer()), op.getType().getElementType(),
                                     eltBytes, slot->second, op.getOffsets().value_or(ArrayRef<int64_t>()))};
  return success();
}
