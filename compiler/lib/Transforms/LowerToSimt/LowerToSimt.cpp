// Tile -> SIMT: every tile becomes, in each lane, the vector of elements its
// layout gives that lane. The output uses upstream dialects only; this is
// the cut where the CPU emulator takes over (DESIGN.md). This file holds the
// pass, the walk over the kernel, control flow and elementwise ops.
#include "KernelLowering.h"
#include "rocktile/Analysis/LdsScratch.h"
#include "rocktile/Analysis/RegisterDemand.h"
#include "rocktile/Transforms/Passes.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace rocktile;
using namespace rocktile::simt;

namespace rocktile {
#define GEN_PASS_DEF_LOWERTOSIMT
#include "rocktile/Transforms/Passes.h.inc"
} // namespace rocktile

/// Pure ops ahead of an LDS exchange whose results are only used after it
/// move past it, so that values such as a store's pointers and mask (a
/// 64-bit lane mask each, in SGPRs) do not stay live across the exchange's
/// barriers. Exchanges in program order, each over the ops since the last.
static void sinkPastExchanges(func::FuncOp func) {
  auto isExchange = [](Operation *op) { return isa<tile::ConvertLayoutOp>(op) && op->hasAttr("tile.lds_offset"); };
  SmallVector<Operation *> exchanges;
  func.walk([&](Operation *op) {
    if (isExchange(op))
      exchanges.push_back(op);
  });
  for (Operation *exchange : exchanges) {
    Block *block = exchange->getBlock();
    SmallVector<Operation *> earlier;
    for (Operation *op = exchange->getPrevNode(); op && !isExchange(op); op = op->getPrevNode())
      earlier.push_back(op);
    for (Operation *op : earlier) { // last first, so that chains move whole
      bool usedAfter = !op->use_empty() && llvm::all_of(op->getUsers(), [&](Operation *user) {
        Operation *inBlock = block->findAncestorOpInBlock(*user);
        return inBlock && exchange->isBeforeInBlock(inBlock);
      });
      if (usedAfter && isMemoryEffectFree(op) && !op->getNumRegions())
        op->moveAfter(exchange);
    }
  }
}

LogicalResult KernelLowering::run() {
  sinkPastExchanges(func);
  Block &entry = kernel.getBody().front();
  b.setInsertionPointToStart(&entry);
  currentLoc = func.getLoc();
  threadId = arith::IndexCastOp::create(
      b, loc(), b.getI32Type(), gpu::ThreadIdOp::create(b, loc(), gpu::Dimension::x));
  unsigned waveBits = llvm::Log2_32(target.waveSize);
  laneId = arith::AndIOp::create(b, loc(), threadId, i32(target.waveSize - 1));
  // The same in every lane of a wave, which the backend cannot prove of
  // the shift: read from the first lane, it lives in a scalar register, and
  // so does what is computed from it (an async load's M0).
  warpId = ROCDL::ReadfirstlaneOp::create(b, loc(), b.getI32Type(),
                                          arith::ShRUIOp::create(b, loc(), threadId, i32(waveBits)));

  for (auto [arg, lowered] : llvm::zip(func.getArguments(), kernel.getArguments())) {
    if (!isa<tile::PointerType>(arg.getType())) {
      values[arg] = {Value(), lowered};
      continue;
    }
    Value base = lowered;
    auto div = func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(), "tile.divisibility");
    if (div && div.getInt() > 1)
      base = memref::AssumeAlignmentOp::create(b, loc(), base, div.getInt());
    values[arg] = {base, idx(0)};
    // A buffer known to be under 2 GiB is also reached as a buffer resource,
    // whose out-of-range loads read zeros: masked loads need no branches.
    auto range = func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(), "tile.pointer_range");
    if (range && range.getInt() == 32)
      bufferViews[base] = amdgpu::FatRawBufferCastOp::create(b, loc(), base, /*validBytes=*/Value(),
                                                             /*cacheSwizzleStride=*/Value());
  }
  // Every layout must spread over exactly this kernel's lanes and warps.
  unsigned numWarps = func->getAttrOfType<IntegerAttr>("tile.num_warps").getInt();
  WalkResult walk = func.walk([&](Operation *op) {
    for (Type type : op->getResultTypes()) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      std::optional<LinearLayout> layout = tensor ? tile::getLinearLayout(tensor) : std::nullopt;
      if (tensor && !layout) {
        op->emitError("tile has no layout: run tile-assign-layouts first");
        return WalkResult::interrupt();
      }
      if (layout && (layout->getNumLanes() != target.waveSize || layout->getNumWarps() != numWarps)) {
        func.emitError() << "layout " << tensor.getEncoding() << " spreads over "
                         << layout->getNumLanes() << " lanes and " << layout->getNumWarps()
                         << " warps, but " << target.chip << " runs this kernel as " << numWarps
                         << " warps of " << target.waveSize << " lanes";
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  for (Operation &op : func.getBody().front())
    if (failed(lower(&op)))
      return failure();
  return success();
}

LogicalResult KernelLowering::lowerBlock(Block &block) {
  for (Operation &op : block.without_terminator())
    if (failed(lower(&op)))
      return failure();
  return success();
}

Type KernelLowering::loweredType(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return laneVectorType(tensor, *tile::getLinearLayout(tensor));
  if (isa<tile::PointerType>(type))
    return IndexType::get(type.getContext());
  return type;
}

FailureOr<SmallVector<Value>> KernelLowering::carried(Operation *op, ValueRange tileValues,
                                                      ArrayRef<Value> bases) {
  SmallVector<Value> out;
  for (auto [v, base] : llvm::zip(tileValues, bases)) {
    LaneValue lv = values.lookup(v);
    if (lv.base != base)
      return op->emitError("a pointer carried through control flow must keep pointing "
                           "into the same kernel argument");
    out.push_back(lv.value);
  }
  return out;
}

void KernelLowering::bind(ValueRange tileValues, ValueRange laneValues, ArrayRef<Value> bases) {
  for (auto [v, lane, base] : llvm::zip(tileValues, laneValues, bases))
    values[v] = {base, lane};
}

LogicalResult KernelLowering::lowerFor(scf::ForOp loop) {
  SmallVector<Value> inits, bases;
  for (Value init : loop.getInitArgs()) {
    inits.push_back(lookup(init));
    bases.push_back(values.lookup(init).base);
  }
  // Offsets into a buffer under 2 GiB go around the loop as i32 scalars:
  // they add up modulo 2^32 to the same low bits, and every offset the
  // kernel dereferences fits in 32 bits, so sign-extending them in the body
  // is exact where it matters. The backend then increments 32-bit registers
  // instead of pairs, and only the offsets the body reads (scalars, not
  // vectors, so that LLVM drops the others).
  SmallVector<int64_t> widths; // per carried value: its number of i32 scalars, or 0
  for (auto [init, base] : llvm::zip(inits, bases)) {
    auto vector = dyn_cast<VectorType>(init.getType());
    widths.push_back(base && bufferViews.contains(base) ? (vector ? vector.getNumElements() : 1) : 0);
  }
  auto toScalars = [&](ValueRange wide) {
    SmallVector<Value> out;
    for (auto [v, width] : llvm::zip(wide, widths)) {
      if (!width) {
        out.push_back(v);
        continue;
      }
      for (int64_t i = 0; i < width; ++i) {
        Value offset = isa<VectorType>(v.getType()) ? vector::ExtractOp::create(b, loc(), v, i).getResult() : v;
        out.push_back(arith::IndexCastOp::create(b, loc(), b.getI32Type(), offset));
      }
    }
    return out;
  };
  auto fromScalars = [&](ValueRange narrow, ValueRange like) {
    SmallVector<Value> out;
    for (auto [v, width] : llvm::zip(like, widths)) {
      if (!width) {
        out.push_back(narrow.front());
        narrow = narrow.drop_front();
        continue;
      }
      SmallVector<Value> offsets;
      for (Value offset : narrow.take_front(width))
        offsets.push_back(arith::IndexCastOp::create(b, loc(), b.getIndexType(), offset));
      narrow = narrow.drop_front(width);
      out.push_back(isa<VectorType>(v.getType())
                        ? vector::FromElementsOp::create(b, loc(), cast<VectorType>(v.getType()), offsets).getResult()
                        : offsets.front());
    }
    return out;
  };
  LogicalResult status = success();
  auto lowered = scf::ForOp::create(
      b, loc(), lookup(loop.getLowerBound()), lookup(loop.getUpperBound()), lookup(loop.getStep()),
      toScalars(inits), [&](OpBuilder &nb, Location l, Value iv, ValueRange args) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
        values[loop.getInductionVar()] = {Value(), iv};
        bind(loop.getRegionIterArgs(), fromScalars(args, inits), bases);
        status = lowerBlock(*loop.getBody());
        FailureOr<SmallVector<Value>> next = failure();
        if (succeeded(status))
          next = carried(loop, loop.getYieldedValues(), bases);
        if (failed(next))
          status = failure();
        scf::YieldOp::create(b, l, succeeded(next) ? toScalars(*next) : SmallVector<Value>(args));
      });
  bind(loop.getResults(), fromScalars(lowered.getResults(), inits), bases);
  return status;
}

LogicalResult KernelLowering::lowerIf(scf::IfOp branch) {
  LogicalResult status = success();
  SmallVector<Value> thenBases(branch.getNumResults()), elseBases(branch.getNumResults());
  auto buildBranch = [&](Region &region) {
    return [&](OpBuilder &nb, Location l) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
      if (failed(lowerBlock(region.front())))
        status = failure();
      SmallVector<Value> yielded;
      for (auto [i, v] : llvm::enumerate(region.front().getTerminator()->getOperands())) {
        LaneValue lv = values.lookup(v);
        (&region == &branch.getThenRegion() ? thenBases : elseBases)[i] = lv.base;
        yielded.push_back(lv.value);
      }
      scf::YieldOp::create(b, l, yielded);
    };
  };
  scf::IfOp lowered;
  if (branch.getElseRegion().empty())
    lowered = scf::IfOp::create(b, loc(), lookup(branch.getCondition()),
                                buildBranch(branch.getThenRegion()));
  else
    lowered = scf::IfOp::create(b, loc(), lookup(branch.getCondition()),
                                buildBranch(branch.getThenRegion()),
                                buildBranch(branch.getElseRegion()));
  // Pointers into different arguments leave each branch as addresses.
  SmallVector<Value> bases = thenBases;
  for (auto [i, result] : llvm::enumerate(branch.getResults())) {
    if (thenBases[i] == elseBases[i])
      continue;
    OpBuilder::InsertionGuard guard(b);
    for (auto [region, base] : {std::pair{&lowered.getThenRegion(), thenBases[i]},
                                std::pair{&lowered.getElseRegion(), elseBases[i]}}) {
      Operation *yield = region->front().getTerminator();
      b.setInsertionPoint(yield);
      LaneValue flat = flatPointer({base, yield->getOperand(i)}, result.getType());
      yield->setOperand(i, flat.value);
      bases[i] = flat.base;
    }
  }
  bind(branch.getResults(), lowered.getResults(), bases);
  return status;
}

LogicalResult KernelLowering::lowerWhile(scf::WhileOp loop) {
  SmallVector<Value> inits, bases;
  SmallVector<Type> types;
  for (Value init : loop.getInits()) {
    inits.push_back(lookup(init));
    bases.push_back(values.lookup(init).base);
    types.push_back(inits.back().getType());
  }
  LogicalResult status = success();
  auto region = [&](Block &from, bool before) {
    return [&, before](OpBuilder &nb, Location l, ValueRange args) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
      bind(from.getArguments(), args, bases);
      if (failed(lowerBlock(from))) {
        status = failure();
      }
      Operation *term = from.getTerminator();
      ValueRange forwarded = before ? cast<scf::ConditionOp>(term).getArgs() : term->getOperands();
      FailureOr<SmallVector<Value>> next = carried(loop, forwarded, bases);
      if (failed(next))
        status = failure();
      SmallVector<Value> out = succeeded(next) ? *next : SmallVector<Value>(args);
      if (before)
        scf::ConditionOp::create(b, l, lookup(cast<scf::ConditionOp>(term).getCondition()), out);
      else
        scf::YieldOp::create(b, l, out);
    };
  };
  auto lowered = scf::WhileOp::create(b, loc(), types, inits, region(loop.getBefore().front(), true),
                                      region(loop.getAfter().front(), false));
  bind(loop.getResults(), lowered.getResults(), bases);
  return status;
}

LogicalResult KernelLowering::lower(Operation *op) {
  currentLoc = op->getLoc();
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](tile::ProgramIdOp p) {
        Value id = gpu::BlockIdOp::create(b, loc(), gpu::Dimension(p.getAxis()));
        values[p] = {Value(), arith::IndexCastOp::create(b, loc(), b.getI32Type(), id)};
        return success();
      })
      .Case([&](tile::NumProgramsOp p) {
        Value n = gpu::GridDimOp::create(b, loc(), gpu::Dimension(p.getAxis()));
        values[p] = {Value(), arith::IndexCastOp::create(b, loc(), b.getI32Type(), n)};
        return success();
      })
      .Case([&](tile::MakeRangeOp r) { return lowerMakeRange(r); })
      .Case([&](tile::SplatOp s) {
        LaneValue src = values.lookup(s.getSrc());
        auto type = laneVectorType(s.getType(), layoutOf(s));
        values[s] = {src.base, vector::BroadcastOp::create(b, loc(), type, src.value)};
        return success();
      })
      .Case([&](tile::BroadcastOp bc) {
        auto srcShape = bc.getSrc().getType().getShape();
        return lowerRegisterRemap(op, bc.getSrc(), [&](LinearLayout::Coord c) {
          for (unsigned d = 0; d < c.size(); ++d)
            if (srcShape[d] == 1)
              c[d] = 0;
          return c;
        });
      })
      .Case([&](tile::ExpandDimsOp e) {
        unsigned ax = e.getAxis();
        return lowerRegisterRemap(op, e.getSrc(), [&](LinearLayout::Coord c) {
          c.erase(c.begin() + ax);
          return c;
        });
      })
      .Case([&](tile::AddPtrOp a) {
        LaneValue ptr = values.lookup(a.getPtr());
        Value off = lookup(a.getOffset());
        Type indexType = ptr.value.getType();
        off = arith::IndexCastOp::create(b, loc(), indexType, off);
        values[a] = {ptr.base, arith::AddIOp::create(b, loc(), ptr.value, off)};
        return success();
      })
      .Case([&](arith::SelectOp s) -> LogicalResult {
        if (isa<tile::PointerType>(tile::getElementTypeOrSelf(s.getType())))
          return lowerPointerSelect(s);
        return lowerElementwise(s);
      })
      .Case([&](tile::IntToPtrOp c) { return lowerIntToPtr(c); })
      .Case([&](tile::PtrToIntOp c) { return lowerPtrToInt(c); })
      .Case([&](tile::LoadOp l) { return lowerLoad(l); })
      .Case([&](tile::DescriptorLoadOp l) { return lowerDescriptorLoad(l); })
      .Case([&](tile::DescriptorStoreOp s) { return lowerDescriptorStore(s); })
      .Case([&](tile::LocalAllocOp a) { return lowerLocalAlloc(a); })
      .Case([&](tile::AsyncCopyOp c) { return lowerAsyncCopy(c); })
      .Case([&](tile::AsyncLoadOp l) { return lowerAsyncLoad(l); })
      .Case([&](tile::AsyncWaitOp w) { return lowerAsyncWait(w); })
      .Case([&](tile::LocalLoadOp l) { return lowerLocalLoad(l); })
      .Case([&](tile::LocalStoreOp s) { return lowerLocalStore(s); })
      .Case([&](tile::WaitTensorCopiesOp w) { return lowerWaitTensorCopies(w); })
      .Case([&](tile::StoreOp s) { return lowerStore(s); })
      .Case([&](tile::ReduceOp r) { return lowerReduce(r); })
      .Case([&](tile::ConvertLayoutOp c) { return lowerConvertLayout(c); })
      .Case([&](tile::TransOp t) { return lowerTrans(t); })
      .Case([&](tile::DotOp d) { return lowerDot(d); })
      .Case([&](tile::PrintOp p) { return lowerPrint(p); })
      .Case([&](tile::AssertOp a) { return lowerAssert(a); })
      .Case([&](tile::AssumeOp a) {
        values[a] = values.lookup(a.getSrc()); // facts only: used by the axis analysis
        return success();
      })
      .Case([&](tile::ReshapeOp r) {
        if (needsLdsExchange(r))
          return exchangeThroughLds(r);
        values[r] = values.lookup(r.getSrc()); // each lane keeps its elements
        return success();
      })
      .Case([&](tile::GatherOp g) { return lowerGather(g); })
      .Case([&](tile::ScaledUpcastOp u) { return lowerScaledUpcast(u); })
      .Case([&](tile::ElementwiseInlineAsmOp a) { return lowerInlineAsm(a); })
      .Case([&](tile::MapElementwiseOp m) { return lowerMapElementwise(m); })
      .Case<tile::AtomicRMWOp, tile::AtomicCASOp>([&](Operation *a) { return lowerAtomic(a); })
      .Case([&](tile::RealtimeOp r) { return lowerRealtime(r); })
      .Case([&](tile::BarrierOp barrier) { return lowerBarrier(barrier); })
      .Case([&](tile::CommitGroupOp) { return success(); })
      .Case([&](tile::WaitGroupsOp w) { return lowerWaitGroups(w); })
      .Case([&](scf::ForOp loop) { return lowerFor(loop); })
      .Case([&](scf::IfOp branch) { return lowerIf(branch); })
      .Case([&](scf::WhileOp loop) { return lowerWhile(loop); })
      .Case([&](func::ReturnOp) {
        gpu::ReturnOp::create(b, loc());
        return success();
      })
      .Default([&](Operation *op) -> LogicalResult {
        // The AMDGPU backend has no f64 transcendental functions (they live in
        // the ROCm device library): exact f64 math is lowered, and the
        // functions Float64Math.cpp expands (and those MLIR expands into them).
        if (isa<math::MathDialect>(op->getDialect()) &&
            !isa<math::SqrtOp, math::AbsFOp, math::FmaOp, math::FloorOp, math::CeilOp, math::TruncOp,
                 math::RoundOp, math::RoundEvenOp, math::CopySignOp, math::RsqrtOp, math::IsNaNOp,
                 math::IsInfOp, math::IsFiniteOp, math::ExpOp, math::Exp2Op, math::ExpM1Op, math::LogOp,
                 math::Log2Op, math::Log10Op, math::Log1pOp, math::TanhOp, math::ErfOp, math::ErfcOp,
                 math::SinhOp, math::CoshOp, math::PowFOp>(op) &&
            llvm::any_of(op->getOperandTypes(), [](Type t) {
              return tile::getElementTypeOrSelf(t).isF64();
            }))
          return op->emitError() << "'" << op->getName()
                                 << "' on fp64 is not supported on AMD GPUs yet (it needs the ROCm "
                                    "device library); compute in fp32";
        if (isa<arith::ArithDialect, math::MathDialect>(op->getDialect()))
          return lowerElementwise(op);
        return op->emitError() << "'" << op->getName()
                               << "' cannot be lowered to SIMT code yet";
      });
}

LogicalResult KernelLowering::lowerMakeRange(tile::MakeRangeOp op) {
  LinearLayout layout = layoutOf(op);
  // The coordinate, then the start: in a layout whose coordinates do not
  // add up (async loads' pointers) the register and thread parts XOR.
  bool additive = layout.isAdditive();
  SmallVector<int32_t> regs;
  for (int64_t r = 0; r < layout.getNumRegisters(); ++r)
    regs.push_back(layout.apply(LinearLayout::Register, r)[0] + (additive ? op.getStart() : 0));
  auto type = VectorType::get({layout.getNumRegisters()}, b.getI32Type());
  Value constant = arith::ConstantOp::create(b, loc(), DenseElementsAttr::get(type, ArrayRef(regs)));
  Value thread = vector::BroadcastOp::create(b, loc(), type, threadCoord(layout, 0));
  Value range = combine(additive, constant, thread);
  if (!additive && op.getStart())
    range = arith::AddIOp::create(b, loc(), range,
                                  arith::ConstantOp::create(b, loc(), DenseElementsAttr::get(type, int32_t(op.getStart()))));
  values[op] = {Value(), range};
  return success();
}

LogicalResult KernelLowering::lowerElementwise(Operation *op) {
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    auto type = dyn_cast<RankedTensorType>(c.getType());
    if (!type) {
      values[c] = {Value(), b.clone(*op)->getResult(0)};
      return success();
    }
    auto dense = dyn_cast<SplatElementsAttr>(c.getValue());
    if (!dense)
      return op->emitError("only splat tile constants can be lowered");
    auto vtype = laneVectorType(type, layoutOf(c));
    values[c] = {Value(), arith::ConstantOp::create(
                              b, loc(), DenseElementsAttr::get(vtype, dense.getSplatValue<Attribute>()))};
    return success();
  }
  // Masks are built element by element: LLVM keeps a compare of whole
  // vectors as one value, so that each mask lives from its first use to its
  // last in scalar registers (spilled when a lane holds many). Not past the
  // register file, where the elements would be thousands of ops.
  auto isMask = [&](Value r) {
    auto tensor = dyn_cast<RankedTensorType>(r.getType());
    return tensor && tensor.getElementType().isInteger(1) &&
           !pastRegisterFile(layoutOf(r).getNumRegisters(), 4);
  };
  // Registers that AxisInfo proves equal (a bound compared with a run of
  // offsets that cannot cross it) share one compare.
  if (op->getNumResults() == 1 && isMask(op->getResult(0)))
    return mapElementGroups(
        op->getOperands(), op->getResults(), 1,
        [&](ArrayRef<Value> scalars) {
          OperationState state(loc(), op->getName());
          state.addOperands(scalars);
          state.addTypes(b.getI1Type());
          state.addAttributes(op->getAttrs());
          return FailureOr<SmallVector<Value>>(SmallVector<Value>{b.create(state)->getResult(0)});
        },
        equalRegisterBits(op->getResult(0)));
  OperationState state(loc(), op->getName());
  for (Value o : op->getOperands())
    state.addOperands(lookup(o));
  for (Value r : op->getResults())
    state.addTypes(isa<RankedTensorType>(r.getType())
                       ? Type(laneVectorType(cast<RankedTensorType>(r.getType()), layoutOf(r)))
                       : r.getType());
  state.addAttributes(op->getAttrs());
  Operation *lowered = b.create(state);
  for (auto [r, l] : llvm::zip(op->getResults(), lowered->getResults()))
    values[r] = {Value(), l};
  return success();
}

uint64_t KernelLowering::equalRegisterBits(Value v) {
  auto tensor = dyn_cast<RankedTensorType>(v.getType());
  if (!tensor)
    return 0;
  ArrayRef<int64_t> constancy = axis.get(v).constancy;
  LinearLayout layout = layoutOf(v);
  uint64_t bits = 0;
  for (auto [i, basis] : llvm::enumerate(layout.getBases(LinearLayout::Register)))
    if (llvm::all_of(llvm::seq<unsigned>(0, basis.size()), [&](unsigned d) { return basis[d] < constancy[d]; }))
      bits |= uint64_t(1) << i;
  return bits;
}

LogicalResult KernelLowering::mapElementGroups(
    ValueRange operands, ValueRange results, int64_t pack,
    function_ref<FailureOr<SmallVector<Value>>(ArrayRef<Value>)> run, uint64_t equalBits) {
  assert((pack == 1 || !equalBits) && "equal elements are shared one by one");
  int64_t count = 1;
  SmallVector<Value> lanes;
  for (Value operand : operands) {
    lanes.push_back(lookup(operand));
    if (auto vector = dyn_cast<VectorType>(lanes.back().getType()))
      count = vector.getNumElements();
  }
  SmallVector<SmallVector<Value>> elements(results.size());
  for (int64_t first = 0; first < count; first += pack) {
    if (first & equalBits) {
      for (SmallVector<Value> &result : elements)
        result.push_back(result[first & ~equalBits]);
      continue;
    }
    SmallVector<Value> scalars;
    for (Value lane : lanes)
      for (int64_t j = 0; j < pack; ++j)
        scalars.push_back(isa<VectorType>(lane.getType())
                              ? vector::ExtractOp::create(b, loc(), lane, std::min(first + j, count - 1)).getResult()
                              : lane);
    FailureOr<SmallVector<Value>> out = run(scalars);
    if (failed(out))
      return failure();
    for (auto [k, result] : llvm::enumerate(elements))
      for (int64_t j = 0; j < pack && first + j < count; ++j)
        result.push_back((*out)[k * pack + j]);
  }
  for (auto [r, scalars] : llvm::zip(results, elements)) {
    auto tensor = dyn_cast<RankedTensorType>(r.getType());
    values[r] = {Value(), tensor ? vector::FromElementsOp::create(b, loc(), laneVectorType(tensor, layoutOf(r)),
                                                                  scalars)
                                       .getResult()
                                 : scalars.front()};
  }
  return success();
}

LogicalResult KernelLowering::lowerInlineAsm(tile::ElementwiseInlineAsmOp op) {
  // One llvm.inline_asm per group of `pack` elements. Narrow elements travel
  // packed, several to an operand of 32 bits at most, which the assembly
  // sees as an integer of those bits (the backend has no register class
  // for vectors such as <4 x i8>).
  int64_t pack = op.getPack();
  auto perOperand = [&](Value v) {
    return tile::ElementwiseInlineAsmOp::elementsPerOperand(tile::getElementTypeOrSelf(v.getType()), pack);
  };
  auto pieceType = [&](Value v) -> Type {
    Type element = tile::getElementTypeOrSelf(v.getType());
    int64_t per = perOperand(v);
    return per == 1 ? element : b.getIntegerType(per * element.getIntOrFloatBitWidth());
  };
  SmallVector<Type> pieceTypes;
  for (Value r : op.getOutputs())
    pieceTypes.append(pack / perOperand(r), pieceType(r));
  Type resultType = pieceTypes.size() == 1 ? pieceTypes.front()
                                           : LLVM::LLVMStructType::getLiteral(op.getContext(), pieceTypes);
  return mapElementGroups(op.getArgs(), op.getOutputs(), pack, [&](ArrayRef<Value> scalars) {
    SmallVector<Value> pieces;
    for (auto [i, arg] : llvm::enumerate(op.getArgs())) {
      int64_t per = perOperand(arg);
      for (int64_t j = 0; j < pack; j += per) {
        ArrayRef<Value> group = scalars.slice(i * pack + j, per);
        if (per == 1) {
          pieces.push_back(group[0]);
          continue;
        }
        Value packed = vector::FromElementsOp::create(b, loc(), VectorType::get({per}, group[0].getType()), group);
        pieces.push_back(LLVM::BitcastOp::create(b, loc(), pieceType(arg), packed));
      }
    }
    Value result = LLVM::InlineAsmOp::create(b, loc(), resultType, pieces, op.getAsmString(), op.getConstraints(),
                                             /*has_side_effects=*/!op.getPure(), /*is_align_stack=*/false,
                                             LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
                                             ArrayAttr())
                       .getResult(0);
    SmallVector<Value> out;
    int64_t p = 0;
    for (Value r : op.getOutputs()) {
      int64_t per = perOperand(r);
      Type element = tile::getElementTypeOrSelf(r.getType());
      for (int64_t j = 0; j < pack; j += per, ++p) {
        Value piece = pieceTypes.size() == 1
                          ? result
                          : LLVM::ExtractValueOp::create(b, loc(), result, ArrayRef<int64_t>{p}).getResult();
        if (per == 1) {
          out.push_back(piece);
          continue;
        }
        Value unpacked = LLVM::BitcastOp::create(b, loc(), VectorType::get({per}, element), piece);
        for (int64_t e = 0; e < per; ++e)
          out.push_back(vector::ExtractOp::create(b, loc(), unpacked, e));
      }
    }
    return FailureOr<SmallVector<Value>>(out);
  });
}

LogicalResult KernelLowering::lowerMapElementwise(tile::MapElementwiseOp op) {
  // The body, lowered once per group of elements on the lane's scalars.
  Block &body = op.getBody().front();
  return mapElementGroups(op.getSrcs(), op.getResults(), op.getPack(),
                          [&](ArrayRef<Value> scalars) -> FailureOr<SmallVector<Value>> {
                            for (auto [arg, scalar] : llvm::zip(body.getArguments(), scalars))
                              values[arg] = {Value(), scalar};
                            if (failed(lowerBlock(body)))
                              return failure();
                            SmallVector<Value> out;
                            for (Value v : body.getTerminator()->getOperands())
                              out.push_back(lookup(v));
                            return out;
                          });
}

void KernelLowering::markEmulatorOnly(Operation *op) {
  if (!kernel->hasAttr("rocktile.emulator_only"))
    kernel->setAttr("rocktile.emulator_only", op->getLoc());
}

namespace {

struct LowerToSimtPass : public rocktile::impl::LowerToSimtBase<LowerToSimtPass> {
  using LowerToSimtBase::LowerToSimtBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    const Target *t = lookupTarget(target);
    if (!t) {
      module.emitError() << "unknown target '" << target << "'";
      return signalPassFailure();
    }
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), UnitAttr::get(ctx));
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    auto gpuModule = gpu::GPUModuleOp::create(
        b, module.getLoc(), "rocktile",
        ArrayRef<Attribute>{ROCDL::ROCDLTargetAttr::get(ctx, /*optLevel=*/3, "amdgcn-amd-amdhsa", t->chip)});
    auto global = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Global);
    auto workgroup = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);

    for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
      SmallVector<Type> argTypes;
      for (Type type : func.getArgumentTypes()) {
        if (isa<ShapedType>(type)) {
          func.emitError() << "a kernel's arguments are scalars and pointers; " << type
                           << " has no lowering (pass a pointer and load the tile)";
          return signalPassFailure();
        }
        if (auto ptr = dyn_cast<tile::PointerType>(type))
          argTypes.push_back(MemRefType::get({ShapedType::kDynamic}, ptr.getPointeeType(),
                                             MemRefLayoutAttrInterface(), global));
        else
          argTypes.push_back(type);
      }
      auto numWarps = func->getAttrOfType<IntegerAttr>("tile.num_warps");
      auto ldsBytes = func->getAttrOfType<IntegerAttr>("tile.lds_bytes");
      if (!numWarps || !ldsBytes) {
        func.emitError("run tile-assign-layouts and tile-allocate-lds first");
        return signalPassFailure();
      }
      SmallVector<Type> ldsTypes;
      if (ldsBytes.getInt() > 0)
        ldsTypes.push_back(MemRefType::get({ldsBytes.getInt()}, b.getI8Type(),
                                           MemRefLayoutAttrInterface(), workgroup));
      b.setInsertionPointToEnd(gpuModule.getBody());
      auto kernel = gpu::GPUFuncOp::create(b, func.getLoc(), func.getName(),
                                           b.getFunctionType(argTypes, {}), ldsTypes);
      kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
      // Code generation hints for LLVM (rocdl.waves_per_eu) go with the kernel.
      for (NamedAttribute attr : func->getDiscardableAttrs())
        if (attr.getName().strref().starts_with("rocdl."))
          kernel->setAttr(attr.getName(), attr.getValue());
      int32_t threads = numWarps.getInt() * t->waveSize;
      kernel.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({threads, 1, 1}));
      // Tiles that fill the register file will spill however LLVM orders
      // the code: scheduled for register pressure instead of latency, they
      // spill less, and the allocator's time no longer explodes (a 65536-
      // element softmax row on gfx950: 11 spilled registers in 1.6 s
      // against 127 in 5.5 s; on gfx1250: 8 in 11 s against 197 in 75 s).
      // Matrix kernels keep latency scheduling: their matrix instructions
      // need it, and their tiles are sized to fit (PipelineCopies' budget).
      bool hasDot = func.walk([](tile::DotOp) { return WalkResult::interrupt(); }).wasInterrupted();
      if (!hasDot && registerDemand(func) >= t->waveRegisters(numWarps.getInt()))
        kernel->setAttr("passthrough", b.getArrayAttr(b.getArrayAttr(
                                           {b.getStringAttr("amdgpu-sched-strategy"),
                                            b.getStringAttr("iterative-minreg")})));
      KernelLowering lowering(func, kernel, *t);
      if (failed(lowering.run()))
        return signalPassFailure();
      func.erase();
    }
    // The greedy rewrite below folds ops, which assumes valid IR.
    if (failed(verify(gpuModule)))
      return signalPassFailure();
    // Math that LLVM lowers for AMDGPU only as a call into a device library
    // becomes arithmetic here (MLIR's f32 polynomial approximations and
    // expansions into exp, log, sin and cos), so that the GPU and the
    // emulator run the same expansion.
    RewritePatternSet expansions(ctx);
    static constexpr llvm::StringLiteral approximated[] = {"erf", "erfc", "tanh", "atan", "atan2", "asin",
                                                           "acos", "log1p", "expm1", "cbrt"};
    populateMathPolynomialApproximationPatterns(expansions, [](StringRef op) {
      return llvm::is_contained(approximated, op.starts_with("math.") ? op.drop_front(5) : op);
    });
    math::populateExpansionPatterns(expansions, {"sinh", "cosh", "tan", "powf"});
    populateFloat64MathExpansions(expansions);
    if (failed(applyPatternsGreedily(gpuModule, std::move(expansions))))
      return signalPassFailure();
  }
};

} // namespace
