// Tile -> SIMT: every tile becomes, in each lane, the vector of elements its
// layout gives that lane. The output uses upstream dialects only; this is
// the cut where the CPU emulator takes over (DESIGN.md).
#include "rocktile/Analysis/AxisInfo.h"
#include "rocktile/Analysis/LdsScratch.h"
#include "rocktile/Dialect/Tile/IR/Tile.h"
#include "rocktile/Target/Target.h"
#include "rocktile/Transforms/Passes.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

namespace rocktile {
#define GEN_PASS_DEF_LOWERTOSIMT
#include "rocktile/Transforms/Passes.h.inc"
} // namespace rocktile

using namespace mlir;
using namespace rocktile;
namespace tile = rocktile::tile;

namespace {

/// A tile value in one lane. For pointers, `base` is the memref of the
/// kernel argument they point into and `value` the element indices.
struct LaneValue {
  Value base;
  Value value;
};

class KernelLowering {
public:
  KernelLowering(func::FuncOp func, gpu::GPUFuncOp kernel, const Target &target)
      : func(func), kernel(kernel), target(target), axis(func),
        b(kernel.getContext()) {}

  LogicalResult run();

private:
  Location loc() const { return currentLoc; }

  // --- index arithmetic -------------------------------------------------
  Value i32(int64_t v) {
    return arith::ConstantIntOp::create(b, loc(), v, 32);
  }
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc(), v); }

  /// The part of a coordinate along `dim` contributed by this lane's lane
  /// and warp index (the register part is a compile-time constant).
  Value threadCoord(const LinearLayout &layout, unsigned dim) {
    Value sum = i32(0);
    auto addBits = [&](LinearLayout::InDim in, Value index) {
      auto bases = layout.getBases(in);
      for (unsigned bit = 0; bit < bases.size();) {
        int64_t step = bases[bit][dim];
        if (step == 0) {
          ++bit;
          continue;
        }
        // A run of bits whose bases double is one field: (index >> bit) & mask.
        unsigned width = 1;
        while (bit + width < bases.size() && bases[bit + width][dim] == step << width)
          ++width;
        Value field = arith::AndIOp::create(
            b, loc(), arith::ShRUIOp::create(b, loc(), index, i32(bit)),
            i32((int64_t(1) << width) - 1));
        sum = arith::AddIOp::create(b, loc(), sum,
                                    arith::MulIOp::create(b, loc(), field, i32(step)));
        bit += width;
      }
    };
    addBits(LinearLayout::Lane, laneId);
    addBits(LinearLayout::Warp, warpId);
    return sum;
  }

  static VectorType laneVectorType(RankedTensorType type,
                                   const LinearLayout &layout) {
    Type elt = type.getElementType();
    if (isa<tile::PointerType>(elt))
      elt = IndexType::get(type.getContext());
    return VectorType::get({layout.getNumRegisters()}, elt);
  }

  LinearLayout layoutOf(Value v) {
    return *tile::getLinearLayout(cast<RankedTensorType>(v.getType()));
  }

  // --- ops ----------------------------------------------------------------
  LogicalResult lower(Operation *op);
  LogicalResult lowerMakeRange(tile::MakeRangeOp op);
  LogicalResult lowerRegisterRemap(Operation *op, Value src,
                                   function_ref<LinearLayout::Coord(LinearLayout::Coord)> toSrc);
  LogicalResult lowerLoad(tile::LoadOp op);
  LogicalResult lowerStore(tile::StoreOp op);
  LogicalResult lowerReduce(tile::ReduceOp op);
  LogicalResult lowerAtomic(Operation *op);
  LogicalResult lowerConvertLayout(tile::ConvertLayoutOp op);
  LogicalResult lowerTrans(tile::TransOp op);
  LogicalResult lowerPrint(tile::PrintOp op);
  LogicalResult lowerAssert(tile::AssertOp op);
  /// Marks the kernel as runnable only in the emulator, because of `op`.
  void markEmulatorOnly(Operation *op);
  /// Moves `op`'s operand into its result's layout (and shape, in row-major
  /// order) by way of its LDS scratch.
  LogicalResult exchangeThroughLds(Operation *op);
  /// The row-major index (in the tile) of each of this lane's registers.
  SmallVector<Value> rowMajorIndices(const LinearLayout &layout);
  /// One element's atomic update at `index` of `base`, returning the old value.
  Value emitAtomic(OpBuilder &bb, Location l, Operation *op, Value base, Value index, Value value,
                   Value cmp);
  /// True in thread 0 of the workgroup, which does what happens once per
  /// program (scalar stores and atomics, printing scalars).
  Value firstThread() {
    return arith::CmpIOp::create(b, loc(), arith::CmpIPredicate::eq,
                                 arith::OrIOp::create(b, loc(), laneId, warpId), i32(0));
  }
  /// True in the one lane and warp that own each element of `layout` (the
  /// others hold broadcast copies); null when every lane owns its elements.
  Value ownsElements(const LinearLayout &layout);
  /// A view of `op`'s LDS scratch holding `count` elements of `elt`,
  /// `byteOffset` bytes into it.
  FailureOr<Value> scratchView(Operation *op, Type elt, int64_t count, int64_t byteOffset = 0);
  LogicalResult lowerElementwise(Operation *op);
  LogicalResult lowerBlock(Block &block);
  LogicalResult lowerFor(scf::ForOp loop);
  LogicalResult lowerIf(scf::IfOp branch);
  LogicalResult lowerWhile(scf::WhileOp loop);
  /// The lane values of `values` for a control-flow edge whose pointers
  /// must point into `bases` (a null base: not a pointer).
  FailureOr<SmallVector<Value>> carried(Operation *op, ValueRange values, ArrayRef<Value> bases);
  /// Binds `tileValues` to `laneValues`, pointers to their `bases`.
  void bind(ValueRange tileValues, ValueRange laneValues, ArrayRef<Value> bases);
  Type loweredType(Type type);
  SmallVector<Value> combine(tile::ReduceOp op, ValueRange acc, ValueRange next);
  Value shuffleXor(Value v, unsigned mask);
  /// Elements per memory access of `op`, and the byte alignment it has.
  std::pair<int64_t, int64_t> accessWidth(Value ptr, Value mask);

  Value lookup(Value v) { return values.lookup(v).value; }
  /// Elements [start, start + width) of a lane vector (a scalar for width
  /// 1).
  Value slice(Value v, int64_t start, int64_t width) {
    if (width == 1)
      return vector::ExtractOp::create(b, loc(), v, start);
    if (width == cast<VectorType>(v.getType()).getNumElements())
      return v;
    return vector::ShuffleOp::create(b, loc(), v, v,
                                     llvm::to_vector(llvm::seq<int64_t>(start, start + width)));
  }
  /// `into` with elements [start, start + width) replaced by `part`.
  Value insertSlice(Value part, Value into, int64_t start) {
    if (!isa<VectorType>(part.getType()))
      return vector::InsertOp::create(b, loc(), part, into, start);
    int64_t n = cast<VectorType>(into.getType()).getNumElements();
    int64_t width = cast<VectorType>(part.getType()).getNumElements();
    if (width == n)
      return part;
    SmallVector<int64_t> mask;
    for (int64_t i = 0; i < n; ++i)
      mask.push_back(i >= start && i < start + width ? n + i - start : i);
    return vector::ShuffleOp::create(b, loc(), into, part, mask);
  }

  func::FuncOp func;
  gpu::GPUFuncOp kernel;
  const Target &target;
  AxisInfoAnalysis axis;
  OpBuilder b;
  Location currentLoc = UnknownLoc::get(func.getContext());
  Value laneId, warpId;
  DenseMap<Value, LaneValue> values;
};

LogicalResult KernelLowering::run() {
  Block &entry = kernel.getBody().front();
  b.setInsertionPointToStart(&entry);
  currentLoc = func.getLoc();
  Value tid = arith::IndexCastOp::create(
      b, loc(), b.getI32Type(), gpu::ThreadIdOp::create(b, loc(), gpu::Dimension::x));
  unsigned waveBits = llvm::Log2_32(target.waveSize);
  laneId = arith::AndIOp::create(b, loc(), tid, i32(target.waveSize - 1));
  warpId = arith::ShRUIOp::create(b, loc(), tid, i32(waveBits));

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
  LogicalResult status = success();
  auto lowered = scf::ForOp::create(
      b, loc(), lookup(loop.getLowerBound()), lookup(loop.getUpperBound()), lookup(loop.getStep()),
      inits, [&](OpBuilder &nb, Location l, Value iv, ValueRange args) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
        values[loop.getInductionVar()] = {Value(), iv};
        bind(loop.getRegionIterArgs(), args, bases);
        status = lowerBlock(*loop.getBody());
        FailureOr<SmallVector<Value>> next = failure();
        if (succeeded(status))
          next = carried(loop, loop.getYieldedValues(), bases);
        if (failed(next))
          status = failure();
        scf::YieldOp::create(b, l, succeeded(next) ? *next : SmallVector<Value>(args));
      });
  bind(loop.getResults(), lowered.getResults(), bases);
  return status;
}

LogicalResult KernelLowering::lowerIf(scf::IfOp branch) {
  LogicalResult status = success();
  SmallVector<Value> bases(branch.getNumResults());
  auto buildBranch = [&](Region &region) {
    return [&](OpBuilder &nb, Location l) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
      if (failed(lowerBlock(region.front())))
        status = failure();
      SmallVector<Value> yielded;
      for (auto [i, v] : llvm::enumerate(region.front().getTerminator()->getOperands())) {
        LaneValue lv = values.lookup(v);
        if (&region == &branch.getThenRegion())
          bases[i] = lv.base;
        else if (lv.base != bases[i])
          status = branch.emitError("both branches must give a pointer into the same kernel argument");
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
      .Case([&](tile::LoadOp l) { return lowerLoad(l); })
      .Case([&](tile::StoreOp s) { return lowerStore(s); })
      .Case([&](tile::ReduceOp r) { return lowerReduce(r); })
      .Case([&](tile::ConvertLayoutOp c) { return lowerConvertLayout(c); })
      .Case([&](tile::TransOp t) { return lowerTrans(t); })
      .Case([&](tile::PrintOp p) { return lowerPrint(p); })
      .Case([&](tile::AssertOp a) { return lowerAssert(a); })
      .Case([&](tile::AssumeOp a) {
        values[a] = values.lookup(a.getSrc()); // facts only: used by the axis analysis
        return success();
      })
      .Case([&](tile::ReshapeOp r) { return exchangeThroughLds(r); })
      .Case<tile::AtomicRMWOp, tile::AtomicCASOp>([&](Operation *a) { return lowerAtomic(a); })
      .Case([&](tile::BarrierOp) {
        gpu::BarrierOp::create(b, loc());
        return success();
      })
      .Case([&](scf::ForOp loop) { return lowerFor(loop); })
      .Case([&](scf::IfOp branch) { return lowerIf(branch); })
      .Case([&](scf::WhileOp loop) { return lowerWhile(loop); })
      .Case([&](func::ReturnOp) {
        gpu::ReturnOp::create(b, loc());
        return success();
      })
      .Default([&](Operation *op) -> LogicalResult {
        // The AMDGPU backend has no f64 transcendental functions (they live in
        // the ROCm device library); only exact f64 math is lowered.
        if (isa<math::MathDialect>(op->getDialect()) &&
            !isa<math::SqrtOp, math::AbsFOp, math::FmaOp, math::FloorOp, math::CeilOp,
                 math::CopySignOp, math::RsqrtOp>(op) &&
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
  if (!layout.isAdditive())
    return op.emitError("make_range needs a layout whose coordinates add up");
  SmallVector<int32_t> regs;
  for (int64_t r = 0; r < layout.getNumRegisters(); ++r)
    regs.push_back(layout.apply(LinearLayout::Register, r)[0] + op.getStart());
  auto type = VectorType::get({layout.getNumRegisters()}, b.getI32Type());
  Value constant = arith::ConstantOp::create(b, loc(), DenseElementsAttr::get(type, ArrayRef(regs)));
  Value thread = vector::BroadcastOp::create(b, loc(), type, threadCoord(layout, 0));
  values[op] = {Value(), arith::AddIOp::create(b, loc(), constant, thread)};
  return success();
}

/// Ops that only rename which register holds which element (broadcast,
/// expand_dims): each result register takes the source register holding the
/// element `toSrc` maps its coordinate to. The lane and warp parts of the two
/// layouts must agree, or data would have to move between lanes.
LogicalResult KernelLowering::lowerRegisterRemap(
    Operation *op, Value src,
    function_ref<LinearLayout::Coord(LinearLayout::Coord)> toSrc) {
  LinearLayout srcLayout = layoutOf(src), dstLayout = layoutOf(op->getResult(0));
  for (auto in : {LinearLayout::Lane, LinearLayout::Warp})
    for (auto [d, s] : llvm::zip(dstLayout.getBases(in), srcLayout.getBases(in)))
      if (toSrc(d) != s)
        return op->emitError("the source and result layouts distribute lanes "
                             "differently; a layout conversion is needed");
  SmallVector<int64_t> mask;
  for (int64_t r = 0; r < dstLayout.getNumRegisters(); ++r) {
    LinearLayout::Coord want = toSrc(dstLayout.apply(LinearLayout::Register, r));
    int64_t found = -1;
    for (int64_t s = 0; s < srcLayout.getNumRegisters() && found < 0; ++s)
      if (srcLayout.apply(LinearLayout::Register, s) == want)
        found = s;
    if (found < 0)
      return op->emitError("result element not held by the lane's source registers");
    mask.push_back(found);
  }
  LaneValue in = values.lookup(src);
  bool identity = mask.size() == size_t(srcLayout.getNumRegisters()) &&
                  llvm::equal(mask, llvm::seq<int64_t>(0, mask.size()));
  values[op->getResult(0)] = {
      in.base, identity ? in.value
                        : vector::ShuffleOp::create(b, loc(), in.value, in.value, mask).getResult()};
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

std::pair<int64_t, int64_t> KernelLowering::accessWidth(Value ptr, Value mask) {
  auto type = cast<RankedTensorType>(ptr.getType());
  LinearLayout layout = layoutOf(ptr);
  unsigned dim = type.getRank() - 1;
  for (const auto &basis : layout.getBases(LinearLayout::Register))
    for (unsigned d = 0; d < basis.size(); ++d)
      if (basis[d] != 0) {
        dim = d;
        goto found;
      }
found:
  int64_t width = getAccessVectorWidth(axis, ptr, mask, dim,
                                       layout.getContiguousRegisters(dim));
  int64_t eltBytes = tile::getElementTypeOrSelf(
                         cast<tile::PointerType>(type.getElementType()).getPointeeType())
                         .getIntOrFloatBitWidth() / 8;
  int64_t divisibility = axis.get(ptr).divisibility[dim];
  int64_t align = std::min<int64_t>(divisibility & -divisibility, width * eltBytes);
  return {width, std::max<int64_t>(align, eltBytes)};
}

LogicalResult KernelLowering::lowerLoad(tile::LoadOp op) {
  LaneValue ptr = values.lookup(op.getPtr());
  Value mask = op.getMask() ? lookup(op.getMask()) : Value();
  Value other = op.getOther() ? lookup(op.getOther()) : Value();
  auto tensorType = dyn_cast<RankedTensorType>(op.getType());
  if (!tensorType) {
    Type elt = op.getType();
    auto load = [&](OpBuilder &bb, Location l) {
      return memref::LoadOp::create(bb, l, ptr.base, ValueRange{ptr.value});
    };
    if (!mask) {
      values[op] = {Value(), load(b, loc())};
      return success();
    }
    Value fallback = other ? other : arith::ConstantOp::create(b, loc(), b.getZeroAttr(elt)).getResult();
    auto ifOp = scf::IfOp::create(
        b, loc(), mask,
        [&](OpBuilder &bb, Location l) { scf::YieldOp::create(bb, l, Value(load(bb, l))); },
        [&](OpBuilder &bb, Location l) { scf::YieldOp::create(bb, l, fallback); });
    values[op] = {Value(), ifOp.getResult(0)};
    return success();
  }
  auto [width, align] = accessWidth(op.getPtr(), op.getMask());
  auto vtype = laneVectorType(tensorType, layoutOf(op));
  Type chunkType = width == 1 ? vtype.getElementType()
                              : Type(VectorType::get({width}, vtype.getElementType()));
  Value result = arith::ConstantOp::create(b, loc(), b.getZeroAttr(vtype));
  for (int64_t g = 0; g < vtype.getNumElements(); g += width) {
    Value index = vector::ExtractOp::create(b, loc(), ptr.value, g);
    auto load = [&](OpBuilder &bb, Location l) -> Value {
      if (width == 1)
        return memref::LoadOp::create(bb, l, ptr.base, ValueRange{index});
      return vector::LoadOp::create(bb, l, chunkType, ptr.base, ValueRange{index},
                                    /*nontemporal=*/false, llvm::MaybeAlign(align));
    };
    Value chunk;
    if (!mask) {
      chunk = load(b, loc());
    } else {
      Value pred = vector::ExtractOp::create(b, loc(), mask, g);
      Value fallback =
          other ? slice(other, g, width)
                : arith::ConstantOp::create(b, loc(), b.getZeroAttr(chunkType)).getResult();
      chunk = scf::IfOp::create(
                  b, loc(), pred,
                  [&](OpBuilder &bb, Location l) { scf::YieldOp::create(bb, l, load(bb, l)); },
                  [&](OpBuilder &bb, Location l) { scf::YieldOp::create(bb, l, fallback); })
                  .getResult(0);
    }
    result = insertSlice(chunk, result, g);
  }
  values[op] = {Value(), result};
  return success();
}

LogicalResult KernelLowering::lowerStore(tile::StoreOp op) {
  LaneValue ptr = values.lookup(op.getPtr());
  Value value = lookup(op.getValue());
  Value mask = op.getMask() ? lookup(op.getMask()) : Value();
  // Each element is written once: by the lane and warp that own it, or for
  // a scalar by thread 0 (the other copies would only repeat the write).
  auto tensorType = dyn_cast<RankedTensorType>(op.getValue().getType());
  Value owns = tensorType ? ownsElements(layoutOf(op.getValue()))
                          : firstThread();
  auto guarded = [&](Value pred, function_ref<void(OpBuilder &, Location)> store) {
    if (owns)
      pred = pred ? arith::AndIOp::create(b, loc(), owns, pred).getResult() : owns;
    if (!pred)
      return store(b, loc());
    scf::IfOp::create(b, loc(), pred, [&](OpBuilder &bb, Location l) {
      store(bb, l);
      scf::YieldOp::create(bb, l);
    });
  };
  if (!tensorType) {
    guarded(mask, [&](OpBuilder &bb, Location l) {
      memref::StoreOp::create(bb, l, value, ptr.base, ValueRange{ptr.value});
    });
    return success();
  }
  auto [width, align] = accessWidth(op.getPtr(), op.getMask());
  int64_t n = cast<VectorType>(value.getType()).getNumElements();
  for (int64_t g = 0; g < n; g += width) {
    Value index = vector::ExtractOp::create(b, loc(), ptr.value, g);
    Value chunk = slice(value, g, width);
    Value pred = mask ? vector::ExtractOp::create(b, loc(), mask, g).getResult() : Value();
    guarded(pred, [&](OpBuilder &bb, Location l) {
      if (width == 1)
        memref::StoreOp::create(bb, l, chunk, ptr.base, ValueRange{index});
      else
        vector::StoreOp::create(bb, l, chunk, ptr.base, ValueRange{index},
                                /*nontemporal=*/false, llvm::MaybeAlign(align));
    });
  }
  return success();
}

SmallVector<Value> KernelLowering::combine(tile::ReduceOp op, ValueRange acc,
                                           ValueRange next) {
  Block &body = op.getCombiner().front();
  IRMapping map;
  unsigned n = acc.size();
  for (unsigned i = 0; i < n; ++i) {
    map.map(body.getArgument(i), acc[i]);
    map.map(body.getArgument(n + i), next[i]);
  }
  for (Operation &inner : body.without_terminator()) {
    // Values from outside the combiner (e.g. constants CSE hoisted out of
    // it) are used in their lowered form.
    for (Value operand : inner.getOperands())
      if (!map.contains(operand) && operand.getParentBlock() != &body)
        map.map(operand, lookup(operand));
    b.clone(inner, map);
  }
  SmallVector<Value> out;
  for (Value v : body.getTerminator()->getOperands())
    out.push_back(map.contains(v) ? map.lookup(v) : lookup(v));
  return out;
}

SmallVector<Value> KernelLowering::rowMajorIndices(const LinearLayout &layout) {
  SmallVector<Value> threadPart, indices;
  for (unsigned d = 0; d < layout.getRank(); ++d)
    threadPart.push_back(threadCoord(layout, d));
  for (int64_t r = 0; r < layout.getNumRegisters(); ++r) {
    LinearLayout::Coord c = layout.apply(LinearLayout::Register, r);
    Value linear = i32(0);
    for (unsigned d = 0; d < layout.getRank(); ++d) {
      Value coord = arith::AddIOp::create(b, loc(), threadPart[d], i32(c[d]));
      linear = arith::AddIOp::create(
          b, loc(), arith::MulIOp::create(b, loc(), linear, i32(layout.getShape()[d])), coord);
    }
    indices.push_back(linear);
  }
  return indices;
}

LogicalResult KernelLowering::lowerConvertLayout(tile::ConvertLayoutOp op) {
  if (!needsLdsExchange(op))
    return lowerRegisterRemap(op, op.getSrc(), [](LinearLayout::Coord c) { return c; });
  return exchangeThroughLds(op);
}

LogicalResult KernelLowering::lowerTrans(tile::TransOp op) {
  LinearLayout from = layoutOf(op.getSrc()), to = layoutOf(op);
  auto permuted = [&](LinearLayout::Coord c) {
    LinearLayout::Coord out;
    for (int32_t d : op.getOrder())
      out.push_back(c[d]);
    return out;
  };
  for (auto in : {LinearLayout::Register, LinearLayout::Lane, LinearLayout::Warp})
    for (auto [s, d] : llvm::zip_equal(from.getBases(in), to.getBases(in)))
      if (permuted(s) != d)
        return op.emitError("the result's layout must be the source's with permuted dimensions");
  values[op] = values.lookup(op.getSrc());
  return success();
}

void KernelLowering::markEmulatorOnly(Operation *op) {
  if (!kernel->hasAttr("rocktile.emulator_only"))
    kernel->setAttr("rocktile.emulator_only", op->getLoc());
}

/// printf's conversion for a value of `type` (narrow values are widened by
/// the printf lowering's argument promotion; hh/h print them at their width).
static std::string printfConversion(Type type, bool hex) {
  if (isa<FloatType>(type))
    return "%f";
  unsigned bits = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
  if (!hex || bits == 1)
    return bits > 32 ? "%lld" : "%d";
  StringRef length = bits == 8 ? "hh" : bits == 16 ? "h" : bits == 64 ? "ll" : "";
  return ("0x%0" + Twine(bits / 4) + length + "x").str();
}

LogicalResult KernelLowering::lowerPrint(tile::PrintOp op) {
  markEmulatorOnly(op);
  std::string prefix;
  for (char c : op.getPrefix())
    prefix += c == '%' ? std::string("%%") : std::string(1, c);
  SmallVector<Value> pid;
  for (auto dim : {gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z})
    pid.push_back(arith::IndexCastOp::create(b, loc(), b.getI32Type(),
                                             gpu::BlockIdOp::create(b, loc(), dim)));
  auto print = [&](Value pred, Value index, Value value) {
    // printf takes neither fp8 nor, for hex, a float's bits as they are.
    auto floatType = dyn_cast<FloatType>(value.getType());
    if (floatType && op.getHex())
      value = arith::BitcastOp::create(b, loc(), b.getIntegerType(floatType.getWidth()), value);
    else if (floatType && floatType.getWidth() == 8)
      value = arith::ExtFOp::create(b, loc(), b.getF32Type(), value);
    auto emit = [&](OpBuilder &bb, Location l) {
      std::string format = "pid (%d, %d, %d) ";
      SmallVector<Value> args(pid);
      if (index) {
        format += "idx (%d) ";
        args.push_back(index);
      }
      format += prefix + printfConversion(value.getType(), op.getHex()) + "\n";
      args.push_back(value);
      gpu::PrintfOp::create(bb, l, bb.getStringAttr(format), args);
    };
    if (!pred)
      return emit(b, loc());
    scf::IfOp::create(b, loc(), pred, [&](OpBuilder &bb, Location l) {
      emit(bb, l);
      scf::YieldOp::create(bb, l);
    });
  };
  Value first = firstThread();
  for (Value arg : op.getArgs()) {
    Value lane = lookup(arg);
    if (!isa<RankedTensorType>(arg.getType())) {
      print(first, Value(), lane);
      continue;
    }
    LinearLayout layout = layoutOf(arg);
    Value owns = ownsElements(layout);
    for (auto [r, index] : llvm::enumerate(rowMajorIndices(layout)))
      print(owns, index, vector::ExtractOp::create(b, loc(), lane, r));
  }
  return success();
}

LogicalResult KernelLowering::lowerAssert(tile::AssertOp op) {
  markEmulatorOnly(op);
  Value cond = lookup(op.getCondition());
  if (!isa<VectorType>(cond.getType())) {
    cf::AssertOp::create(b, loc(), cond, op.getMessage());
    return success();
  }
  for (int64_t r = 0, n = cast<VectorType>(cond.getType()).getNumElements(); r < n; ++r)
    cf::AssertOp::create(b, loc(), vector::ExtractOp::create(b, loc(), cond, r), op.getMessage());
  return success();
}

LogicalResult KernelLowering::exchangeThroughLds(Operation *op) {
  Value srcValue = op->getOperand(0), result = op->getResult(0);
  LinearLayout from = layoutOf(srcValue), to = layoutOf(result);
  if (!from.isAdditive() || !to.isAdditive())
    return op->emitError("moving elements between lanes needs layouts whose coordinates add up");
  LaneValue src = values.lookup(srcValue);
  auto resultType = cast<RankedTensorType>(result.getType());
  auto vtype = laneVectorType(resultType, to);
  FailureOr<Value> view = scratchView(op, vtype.getElementType(), resultType.getNumElements());
  if (failed(view))
    return failure();
  auto toIndex = [&](Value v) { return arith::IndexCastOp::create(b, loc(), b.getIndexType(), v); };
  // Every lane writes what it holds (copies write the same value), then
  // reads what the new layout gives it.
  gpu::BarrierOp::create(b, loc());
  for (auto [r, at] : llvm::enumerate(rowMajorIndices(from)))
    memref::StoreOp::create(b, loc(), vector::ExtractOp::create(b, loc(), src.value, r), *view,
                            ValueRange{toIndex(at)});
  gpu::BarrierOp::create(b, loc());
  SmallVector<Value> elems;
  for (Value at : rowMajorIndices(to))
    elems.push_back(memref::LoadOp::create(b, loc(), *view, ValueRange{toIndex(at)}));
  values[result] = {src.base, vector::FromElementsOp::create(b, loc(), vtype, elems)};
  return success();
}

Value KernelLowering::ownsElements(const LinearLayout &layout) {
  Value owns;
  for (auto [in, index] : {std::pair{LinearLayout::Lane, laneId}, {LinearLayout::Warp, warpId}}) {
    int64_t copies = 0;
    for (auto [bit, basis] : llvm::enumerate(layout.getBases(in)))
      if (llvm::all_of(basis, [](int64_t v) { return v == 0; }))
        copies |= int64_t(1) << bit;
    if (!copies)
      continue;
    Value first = arith::CmpIOp::create(b, loc(), arith::CmpIPredicate::eq,
                                        arith::AndIOp::create(b, loc(), index, i32(copies)), i32(0));
    owns = owns ? arith::AndIOp::create(b, loc(), owns, first).getResult() : first;
  }
  return owns;
}

FailureOr<Value> KernelLowering::scratchView(Operation *op, Type elt, int64_t count,
                                             int64_t byteOffset) {
  auto offset = op->getAttrOfType<IntegerAttr>("tile.lds_offset");
  if (!offset || kernel.getWorkgroupAttributions().empty())
    return op->emitError("needs LDS scratch: run tile-allocate-lds first");
  Value lds = kernel.getWorkgroupAttributions()[0];
  auto type = MemRefType::get({count}, elt, MemRefLayoutAttrInterface(),
                              cast<MemRefType>(lds.getType()).getMemorySpace());
  return memref::ViewOp::create(b, loc(), type, lds, idx(offset.getInt() + byteOffset), ValueRange{})
      .getResult();
}

Value KernelLowering::emitAtomic(OpBuilder &bb, Location l, Operation *op, Value base, Value index,
                                 Value value, Value cmp) {
  Type elt = value.getType();
  bool isFloat = isa<FloatType>(elt);
  auto generic = [&](auto combine) -> Value {
    auto rmw = memref::GenericAtomicRMWOp::create(bb, l, base, ValueRange{index});
    OpBuilder body = OpBuilder::atBlockEnd(rmw.getBody());
    memref::AtomicYieldOp::create(body, l, combine(body, rmw.getCurrentValue()));
    return rmw.getResult();
  };
  if (cmp)
    return generic([&](OpBuilder &body, Value current) -> Value {
      Value same = arith::CmpIOp::create(body, l, arith::CmpIPredicate::eq, current, cmp);
      return arith::SelectOp::create(body, l, same, value, current);
    });
  using K = arith::AtomicRMWKind;
  K kind;
  switch (cast<tile::AtomicRMWOp>(op).getKind()) {
  case tile::AtomicKind::add: kind = isFloat ? K::addf : K::addi; break;
  case tile::AtomicKind::max: kind = isFloat ? K::maximumf : K::maxs; break;
  case tile::AtomicKind::min: kind = isFloat ? K::minimumf : K::mins; break;
  case tile::AtomicKind::umax: kind = K::maxu; break;
  case tile::AtomicKind::umin: kind = K::minu; break;
  case tile::AtomicKind::xchg: kind = K::assign; break;
  case tile::AtomicKind::and_: kind = K::andi; break;
  case tile::AtomicKind::or_: kind = K::ori; break;
  case tile::AtomicKind::xor_: // no memref.atomic_rmw kind: a compare-and-swap loop
    return generic([&](OpBuilder &body, Value current) -> Value {
      return arith::XOrIOp::create(body, l, current, value);
    });
  }
  return memref::AtomicRMWOp::create(bb, l, kind, value, base, ValueRange{index});
}

LogicalResult KernelLowering::lowerAtomic(Operation *op) {
  auto rmw = dyn_cast<tile::AtomicRMWOp>(op);
  auto cas = dyn_cast<tile::AtomicCASOp>(op);
  LaneValue ptr = values.lookup(op->getOperand(0));
  Value value = lookup(rmw ? rmw.getValue() : cas.getValue());
  Value cmp = cas ? lookup(cas.getCmp()) : Value();
  Value mask = rmw && rmw.getMask() ? lookup(rmw.getMask()) : Value();
  Type resultType = op->getResult(0).getType();
  auto guarded = [&](Value pred, Value index, Value v, Value c, Type elt) -> Value {
    if (!pred)
      return emitAtomic(b, loc(), op, ptr.base, index, v, c);
    return scf::IfOp::create(
               b, loc(), pred,
               [&](OpBuilder &bb, Location l) {
                 scf::YieldOp::create(bb, l, emitAtomic(bb, l, op, ptr.base, index, v, c));
               },
               [&](OpBuilder &bb, Location l) {
                 scf::YieldOp::create(bb, l, Value(arith::ConstantOp::create(bb, l, bb.getZeroAttr(elt))));
               })
        .getResult(0);
  };
  auto tensorType = dyn_cast<RankedTensorType>(resultType);
  if (!tensorType) {
    // One thread updates memory; the old value reaches all through LDS.
    FailureOr<Value> view = scratchView(op, resultType, 1);
    if (failed(view))
      return failure();
    Value first = firstThread();
    Value pred = mask ? arith::AndIOp::create(b, loc(), first, mask).getResult() : first;
    gpu::BarrierOp::create(b, loc());
    scf::IfOp::create(b, loc(), pred, [&](OpBuilder &bb, Location l) {
      Value old = emitAtomic(bb, l, op, ptr.base, ptr.value, value, cmp);
      memref::StoreOp::create(bb, l, old, *view, ValueRange{idx(0)});
      scf::YieldOp::create(bb, l);
    });
    gpu::BarrierOp::create(b, loc());
    values[op->getResult(0)] = {Value(), memref::LoadOp::create(b, loc(), *view, ValueRange{idx(0)})};
    return success();
  }
  Value owns = ownsElements(layoutOf(op->getResult(0)));
  Type elt = tensorType.getElementType();
  SmallVector<Value> olds;
  for (int64_t r = 0, n = cast<VectorType>(value.getType()).getNumElements(); r < n; ++r) {
    Value pred = owns;
    if (mask) {
      Value m = vector::ExtractOp::create(b, loc(), mask, r);
      pred = pred ? arith::AndIOp::create(b, loc(), pred, m).getResult() : m;
    }
    Value index = vector::ExtractOp::create(b, loc(), ptr.value, r);
    Value v = vector::ExtractOp::create(b, loc(), value, r);
    Value c = cmp ? vector::ExtractOp::create(b, loc(), cmp, r).getResult() : Value();
    olds.push_back(guarded(pred, index, v, c, elt));
  }
  values[op->getResult(0)] = {
      Value(), vector::FromElementsOp::create(b, loc(), cast<VectorType>(value.getType()), olds)};
  return success();
}

Value KernelLowering::shuffleXor(Value v, unsigned mask) {
  Type type = v.getType();
  unsigned bits = type.getIntOrFloatBitWidth();
  // Lanes exchange 32-bit words; narrower values travel zero-extended.
  if (bits < 32) {
    Value word = arith::ExtUIOp::create(
        b, loc(), b.getI32Type(),
        arith::BitcastOp::create(b, loc(), b.getIntegerType(bits), v));
    Value moved = shuffleXor(word, mask);
    return arith::BitcastOp::create(
        b, loc(), type, arith::TruncIOp::create(b, loc(), b.getIntegerType(bits), moved));
  }
  // The cheapest exchange the hardware has for each distance: DPP within a
  // quad, ds_swizzle within 32 lanes, a permlane swap between wave halves.
  if (bits == 32 && mask <= 2) {
    SmallVector<Attribute> perm;
    for (unsigned lane = 0; lane < 4; ++lane)
      perm.push_back(b.getI32IntegerAttr(lane ^ mask));
    return amdgpu::DPPOp::create(b, loc(), type, v, v, amdgpu::DPPPerm::quad_perm,
                                 b.getArrayAttr(perm));
  }
  if (bits == 32 && mask < 32)
    return amdgpu::SwizzleBitModeOp::create(b, loc(), v, /*and_mask=*/31,
                                            /*or_mask=*/0, /*xor_mask=*/mask);
  if (bits == 32 && mask == 32 && target.hasPermlane32Swap)
    return amdgpu::PermlaneSwapOp::create(b, loc(), type, v, 32);
  return gpu::ShuffleOp::create(b, loc(), v, i32(mask), i32(target.waveSize),
                                gpu::ShuffleMode::XOR)
      .getShuffleResult();
}

LogicalResult KernelLowering::lowerReduce(tile::ReduceOp op) {
  LinearLayout layout = layoutOf(op.getSrcs()[0]);
  unsigned ax = op.getAxis();
  if (!layout.isAdditive())
    return op.emitError("reduction needs a layout whose coordinates add up");
  unsigned n = op.getSrcs().size();

  // 1. Within a lane: registers that differ only along the axis.
  SmallVector<LinearLayout::Coord> keys;
  SmallVector<SmallVector<Value>> partial;
  for (int64_t r = 0; r < layout.getNumRegisters(); ++r) {
    LinearLayout::Coord key = layout.apply(LinearLayout::Register, r);
    key.erase(key.begin() + ax);
    SmallVector<Value> elems;
    for (Value src : op.getSrcs())
      elems.push_back(vector::ExtractOp::create(b, loc(), lookup(src), r));
    auto it = llvm::find(keys, key);
    if (it == keys.end()) {
      keys.push_back(key);
      partial.push_back(elems);
    } else {
      auto &acc = partial[it - keys.begin()];
      acc = combine(op, acc, elems);
    }
  }

  // 2. Across the lanes of a wave: butterfly over the lane bits along the axis.
  for (auto [bit, basis] : llvm::enumerate(layout.getBases(LinearLayout::Lane))) {
    if (basis[ax] == 0)
      continue;
    for (auto &acc : partial) {
      SmallVector<Value> other;
      for (Value v : acc)
        other.push_back(shuffleXor(v, 1u << bit));
      acc = combine(op, acc, other);
    }
  }

  // Where each result register's element sits among the partials.
  auto resultType = dyn_cast<RankedTensorType>(op.getResult(0).getType());
  LinearLayout resultLayout = resultType ? layoutOf(op.getResult(0)) : layout.dropDim(ax);
  if (resultLayout != layout.dropDim(ax))
    return op.emitError("result layout is not the slice of the operand's");
  SmallVector<unsigned> resultSlot;
  for (int64_t r = 0; r < resultLayout.getNumRegisters(); ++r)
    resultSlot.push_back(llvm::find(keys, resultLayout.apply(LinearLayout::Register, r)) - keys.begin());

  // 3. Across warps: each warp leaves its partials in LDS, then every lane
  //    combines the partials of all warps along the axis in the same order.
  SmallVector<unsigned> warpBits = getReducedWarpBits(op);
  if (!warpBits.empty()) {
    int64_t warps = int64_t(1) << warpBits.size();
    int64_t outputs = resultType ? resultType.getNumElements() : 1;
    Value slot = i32(0);
    for (auto [i, bit] : llvm::enumerate(warpBits)) {
      Value w = arith::AndIOp::create(b, loc(), arith::ShRUIOp::create(b, loc(), warpId, i32(bit)), i32(1));
      slot = arith::OrIOp::create(b, loc(), slot, arith::ShLIOp::create(b, loc(), w, i32(i)));
    }
    SmallVector<Value> elementIndex = rowMajorIndices(resultLayout);
    int64_t byteOffset = 0;
    SmallVector<Value> views;
    for (Value r : op.getResults()) {
      Type elt = tile::getElementTypeOrSelf(r.getType());
      FailureOr<Value> view = scratchView(op, elt, warps * outputs, byteOffset);
      if (failed(view))
        return failure();
      views.push_back(*view);
      byteOffset += warps * outputs * ((elt.getIntOrFloatBitWidth() / 8 + 3) / 4 * 4);
    }
    auto toIndex = [&](Value v) { return arith::IndexCastOp::create(b, loc(), b.getIndexType(), v); };
    gpu::BarrierOp::create(b, loc());
    for (auto [r, slotOfR] : llvm::enumerate(resultSlot)) {
      Value at = arith::AddIOp::create(
          b, loc(), arith::MulIOp::create(b, loc(), slot, i32(outputs)), elementIndex[r]);
      for (unsigned i = 0; i < n; ++i)
        memref::StoreOp::create(b, loc(), partial[slotOfR][i], views[i], ValueRange{toIndex(at)});
    }
    gpu::BarrierOp::create(b, loc());
    SmallVector<SmallVector<Value>> totals;
    for (auto [r, slotOfR] : llvm::enumerate(resultSlot)) {
      SmallVector<Value> acc;
      for (int64_t w = 0; w < warps; ++w) {
        SmallVector<Value> loaded;
        Value at = arith::AddIOp::create(b, loc(), i32(w * outputs), elementIndex[r]);
        for (unsigned i = 0; i < n; ++i)
          loaded.push_back(memref::LoadOp::create(b, loc(), views[i], ValueRange{toIndex(at)}));
        acc = w == 0 ? loaded : combine(op, acc, loaded);
      }
      totals.push_back(acc);
    }
    // Result registers now index `totals` directly.
    partial = std::move(totals);
    for (unsigned r = 0; r < resultSlot.size(); ++r)
      resultSlot[r] = r;
  }

  for (unsigned i = 0; i < n; ++i) {
    Value result = op.getResult(i);
    if (!resultType) {
      values[result] = {Value(), partial[resultSlot[0]][i]};
      continue;
    }
    SmallVector<Value> elems;
    for (unsigned s : resultSlot)
      elems.push_back(partial[s][i]);
    auto vtype = laneVectorType(cast<RankedTensorType>(result.getType()), resultLayout);
    values[result] = {Value(), vector::FromElementsOp::create(b, loc(), vtype, elems)};
  }
  return success();
}

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
      int32_t threads = numWarps.getInt() * t->waveSize;
      kernel.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({threads, 1, 1}));
      KernelLowering lowering(func, kernel, *t);
      if (failed(lowering.run()))
        return signalPassFailure();
      func.erase();
    }
    // The greedy rewrite below folds ops, which assumes valid IR.
    if (failed(verify(gpuModule)))
      return signalPassFailure();
    // Math without an LLVM intrinsic becomes arithmetic here, so that the GPU
    // and the emulator run the same expansion.
    RewritePatternSet expansions(ctx);
    populatePolynomialApproximateErfPattern(expansions);
    if (failed(applyPatternsGreedily(gpuModule, std::move(expansions))))
      return signalPassFailure();
  }
};

} // namespace
