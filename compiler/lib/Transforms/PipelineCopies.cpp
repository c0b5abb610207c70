#include "rocktile/Analysis/AxisInfo.h"
#include "rocktile/Analysis/LdsLayout.h"
#include "rocktile/Dialect/Tile/IR/Tile.h"
#include "rocktile/Target/Target.h"
#include "rocktile/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace rocktile {
#define GEN_PASS_DEF_PIPELINECOPIES
#include "rocktile/Transforms/Passes.h.inc"
} // namespace rocktile

using namespace mlir;
using namespace rocktile;
using namespace rocktile::tile;

namespace {

constexpr llvm::StringLiteral kNumStages = "tile.num_stages";
/// Without a loop's or function's num_stages: Triton's AMD default.
constexpr int64_t kDefaultStages = 2;
/// The most 32-bit words per lane a load that feeds no dot operand may
/// take to be loaded ahead with them.
constexpr int64_t kSideLoadWords = 8;

/// A load started N - 1 iterations ahead of its use: a block copy
/// (`tile.descriptor_load`) into LDS slots, or a dot operand loaded through
/// pointers (`tile.load`), copied into LDS slots where the target's async
/// loads can copy it (`async`), else carried to its iteration in registers.
struct Pipelined {
  Operation *load;
  bool async = false;
  Value buffer; // a copy's slots
  bool copies() const { return isa<DescriptorLoadOp>(load) || async; }
};

/// The kernel argument a tile of pointers is computed from (through
/// pointer arithmetic, splats, broadcasts and the values `loop` carries),
/// or null.
static BlockArgument pointerArgument(Value ptr, scf::ForOp loop) {
  while (true) {
    if (auto arg = dyn_cast<BlockArgument>(ptr)) {
      if (arg.getOwner() == loop.getBody() && arg != loop.getInductionVar()) {
        ptr = loop.getTiedLoopInit(arg)->get();
        continue;
      }
      return isa<func::FuncOp>(arg.getOwner()->getParentOp()) ? arg : BlockArgument();
    }
    Operation *def = ptr.getDefiningOp();
    if (!isa_and_nonnull<AddPtrOp, AssumeOp, SplatOp, BroadcastOp, ExpandDimsOp, ConvertLayoutOp>(def))
      return BlockArgument();
    ptr = def->getOperand(0);
  }
}

/// Whether the target's async loads can copy `load` into LDS: 16-byte runs
/// along the last dimension (contiguous, aligned, one mask value per run),
/// at least one run per lane of the workgroup, masked-off elements zero
/// (masks only where a buffer resource reads zeros for them).
static bool asyncLoadable(LoadOp load, const AxisInfoAnalysis &axis, const Target &target, unsigned numWarps) {
  auto type = cast<RankedTensorType>(load.getType());
  int64_t eltBytes = type.getElementTypeBitWidth() / 8;
  if (eltBytes == 0 || (load.getOther() && !isZeroBits(load.getOther())))
    return false;
  if (llvm::any_of(type.getShape(), [](int64_t n) { return !llvm::isPowerOf2_64(n); }) ||
      type.getNumElements() * eltBytes < kCopyRunBytes * target.waveSize * numWarps)
    return false;
  int64_t run = getAccessVectorWidth(axis, load.getPtr(), load.getMask(), 1, type.getDimSize(1));
  if (run * eltBytes != kCopyRunBytes)
    return false;
  if (!load.getMask())
    return true;
  if (target.asyncLoads != AsyncLoads::DirectToLds)
    return false;
  auto func = load->getParentOfType<func::FuncOp>();
  BlockArgument arg = pointerArgument(load.getPtr(), load->getParentOfType<scf::ForOp>());
  auto range = arg ? func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(), "tile.pointer_range") : nullptr;
  return range && range.getInt() == 32;
}

class LoopPipeliner {
public:
  explicit LoopPipeliner(scf::ForOp loop) : loop(loop), b(loop) {}

  /// Finds the loads to pipeline; false when there are none. Pointer loads
  /// only while their tiles fit in registers beside the loop's: each then
  /// lives three times (loaded ahead, the one in use, in its operand
  /// layout) beside the carried values (accumulators), an estimate in
  /// 32-bit words per lane that must stay within two thirds of what a wave
  /// of `numWarps` may use, the rest for addresses, masks, the LDS
  /// exchanges and the backend's scheduling (measured: at 80%, 256x256
  /// tiles spilled on gfx950 and paid register-bank switches on gfx1250).
  /// With `sideLoads`, small loads that feed no dot operand (block scales)
  /// go one iteration ahead in registers beside them, where they fit.
  bool findLoads(const Target &target, unsigned numWarps, bool asyncLoads, bool sideLoads) {
    if (!loop.getInductionVar().getType().isInteger(32))
      return false;
    auto words = [&](Type type) -> int64_t {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor || isa<PointerType>(tensor.getElementType()))
        return 0;
      return tensor.getNumElements() * std::max<int64_t>(tensor.getElementTypeBitWidth(), 8) /
             (32 * int64_t(numWarps) * target.waveSize);
    };
    // A tile used by a dot, directly or transposed (attention's K in Q K^T).
    std::function<bool(Value)> dotOperand = [&](Value v) {
      return llvm::any_of(v.getUsers(), [&](Operation *user) {
        if (auto trans = dyn_cast<TransOp>(user))
          return dotOperand(trans.getResult());
        auto dot = dyn_cast<DotOp>(user);
        return dot && (dot.getA() == v || dot.getB() == v);
      });
    };
    // Used only as an operand of dots (read from LDS in its layout).
    auto directDotOperand = [&](Value v) {
      return llvm::all_of(v.getUsers(), [&](Operation *user) {
        auto dot = dyn_cast<DotOp>(user);
        return dot && !dot.getAScale() && (dot.getA() == v || dot.getB() == v);
      });
    };
    int64_t registers = 0;
    for (Value arg : loop.getRegionIterArgs())
      registers += words(arg.getType());
    // Only async loads ask what is provable of the pointers.
    std::optional<AxisInfoAnalysis> axis;
    if (asyncLoads)
      axis.emplace(loop->getParentOfType<func::FuncOp>());
    SmallVector<std::tuple<Operation *, ValueRange, bool>> candidates;
    SmallVector<Operation *> besides;
    bool writesMemory = sideLoads && loop.getBody()->walk([](Operation *op) {
      auto effects = dyn_cast<MemoryEffectOpInterface>(op);
      bool writes = effects ? effects.hasEffect<MemoryEffects::Write>()
                            : !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>();
      return writes ? WalkResult::interrupt() : WalkResult::advance();
    }).wasInterrupted();
    for (Operation &op : *loop.getBody()) {
      if (auto load = dyn_cast<DescriptorLoadOp>(op)) {
        auto same = [&](Value v) { return hoistInvariant(v); };
        if (same(load.getBase()) && llvm::all_of(load.getShape(), same) && llvm::all_of(load.getStrides(), same))
          candidates.push_back({&op, load.getOffsets(), false});
      } else if (auto load = dyn_cast<LoadOp>(op)) {
        auto type = dyn_cast<RankedTensorType>(load.getType());
        if (!type || load.getIsVolatile())
          continue;
        if (type.getRank() != 2 || !dotOperand(load.getResult())) {
          // A small tile beside the dot operands (block scales, a bias)
          // waits in registers too: loaded where it is used, its wait would
          // also wait for the copies started ahead of it. Only where
          // nothing in the loop writes memory the load could read.
          if (sideLoads && !writesMemory && words(type) <= kSideLoadWords)
            besides.push_back(&op);
          continue;
        }
        // Copied into LDS where the target can (read there in the
        // operand's layout: only a dot's direct operand), else carried in
        // registers.
        bool async = axis && directDotOperand(load.getResult()) && asyncLoadable(load, *axis, target, numWarps);
        candidates.push_back({&op, load->getOperands(), async});
        if (!async)
          registers += 3 * words(type);
      }
    }
    auto fit = [&](int64_t words) { return words * 3 <= int64_t(target.waveVgprs(numWarps)) * 2; };
    bool pointerLoadsFit = fit(registers);
    for (auto [op, operands, async] : candidates)
      if ((isa<DescriptorLoadOp>(op) || async || pointerLoadsFit) && addSlice(operands))
        loads.push_back({op, async});
    for (Operation *op : besides) {
      int64_t more = registers + 2 * words(op->getResult(0).getType());
      if (!loads.empty() && fit(more) && addSlice(op->getOperands())) {
        loads.push_back({op, false});
        registers = more;
      }
    }
    llvm::sort(ahead, [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
    return !loads.empty();
  }

  /// Whether some pointer load is copied into LDS.
  bool loadsAsync() {
    return llvm::any_of(loads, [](Pipelined &p) { return p.async; });
  }

  /// Whether some load waits in registers.
  bool loadsIntoRegisters() {
    return llvm::any_of(loads, [](Pipelined &p) { return !p.copies(); });
  }

  /// LDS bytes of one block of each copy.
  int64_t blockBytes() {
    int64_t bytes = 0;
    for (Pipelined &p : loads)
      if (p.copies()) {
        auto type = cast<RankedTensorType>(p.load->getResult(0).getType());
        bytes += type.getNumElements() * std::max<int64_t>(type.getElementTypeBitWidth() / 8, 1);
      }
    return bytes;
  }

  /// Pipelines the loop over `stages` stages.
  void run(int64_t stages) {
    Location loc = loop.getLoc();
    int64_t copies = 0;
    for (Pipelined &p : loads)
      if (p.copies()) {
        auto type = cast<RankedTensorType>(p.load->getResult(0).getType());
        SmallVector<int64_t> shape{stages};
        llvm::append_range(shape, type.getShape());
        auto space = gpu::AddressSpaceAttr::get(loop.getContext(), gpu::AddressSpace::Workgroup);
        p.buffer = LocalAllocOp::create(b, p.load->getLoc(),
                                        MemRefType::get(shape, type.getElementType(), MemRefLayoutAttrInterface(), space),
                                        /*arrangement=*/nullptr);
        ++copies;
      }
    // Prologue: the loads of iterations 0 .. N - 2 that exist, and the
    // carried values (pointers, offsets) that iteration N - 1 starts from.
    Value lb = loop.getLowerBound(), ub = loop.getUpperBound(), step = loop.getStep();
    SmallVector<Value> chainValues;
    for (BlockArgument arg : chains)
      chainValues.push_back(loop.getTiedLoopInit(arg)->get());
    SmallVector<Value> tiles; // per pointer load, its loaded tile (N = 2)
    for (int64_t s = 0; s + 1 < stages; ++s) {
      IRMapping map = startLoads(b.createOrFold<arith::AddIOp>(loc, lb, mul(step, s)), chainValues, constant(s),
                                 /*guarded=*/true, tiles, Kind::All);
      chainValues = nextChains(map);
    }
    // The loop splits in two: the iterations whose loads N - 1 ahead exist
    // (all but the last N - 1), and the others, which start none. The
    // second starts where the first's iterations end.
    Value mainUb = b.createOrFold<arith::SubIOp>(loc, ub, mul(step, stages - 1));
    // ceil((mainUb - lb) / step) for a positive step, at least 0.
    Value span = b.createOrFold<arith::AddIOp>(loc, b.createOrFold<arith::SubIOp>(loc, mainUb, lb),
                                               b.createOrFold<arith::SubIOp>(loc, step, constant(1)));
    Value mainTrips =
        b.createOrFold<arith::MaxSIOp>(loc, constant(0), b.createOrFold<arith::DivSIOp>(loc, span, step));
    Value tailLb = b.createOrFold<arith::AddIOp>(loc, lb, b.createOrFold<arith::MulIOp>(loc, mainTrips, step));
    b.setInsertionPointAfter(loop);
    IRMapping cloned;
    auto tail = cast<scf::ForOp>(b.clone(*loop, cloned));
    for (auto [result, final] : llvm::zip(loop.getResults(), tail.getResults()))
      result.replaceAllUsesWith(final);
    tail.getInitArgsMutable().assign(loop.getResults());
    tail.setLowerBound(tailLb);
    loop.setUpperBound(mainUb);

    // Each iteration of the first part: wait for its block copies (leaving
    // the next N - 2 iterations' in flight), start the loads N - 1 ahead
    // (copies into the slot read one iteration ago), use its own.
    // The slot turns with the iterations, carried by the loop (from 0) and
    // wrapped by a select: as i % N, LLVM's strength reduction turns each
    // slot address into an induction variable of its own, less the
    // wrapped-around multiples (two VALU per LDS read at N = 3). The slot
    // copied into, (i + N - 1) % N, is the one the previous iteration read,
    // carried beside it (from N - 1) rather than turned again.
    SmallVector<Value> inits(chainValues);
    llvm::append_range(inits, tiles);
    if (copies) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(loop);
      inits.push_back(constant(0));
      inits.push_back(constant(stages - 1));
    }
    size_t numChains = chains.size(), numOriginal = loop.getNumRegionIterArgs();
    auto turn = [&](Value slot) { // (slot + 1) % N
      Value next = b.createOrFold<arith::AddIOp>(loc, slot, constant(1));
      Value wraps = b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, next, constant(stages));
      return b.createOrFold<arith::SelectOp>(loc, wraps, constant(0), next);
    };
    auto main = withCarried(loop, inits, [&](ValueRange args) {
      Value iv = loop.getInductionVar();
      Value slot, nextSlot, followingSlot;
      if (copies) {
        slot = args[args.size() - 2];
        nextSlot = args.back();
        AsyncWaitOp::create(b, loc, (stages - 2) * copies);
        followingSlot = turn(slot);
      }
      // Copies start first, into the slot all warps are done reading; the
      // pointer loads at the end, once this iteration's carried tiles are
      // in LDS, so that they take those tiles' registers.
      Value ahead = b.createOrFold<arith::AddIOp>(loc, iv, mul(step, stages - 1));
      SmallVector<Value> started;
      IRMapping map;
      if (copies)
        map = startLoads(ahead, args.take_front(numChains), nextSlot, /*guarded=*/false, started, Kind::Copies);
      if (copies < int64_t(loads.size())) {
        b.setInsertionPoint(loop.getBody()->getTerminator());
        map = startLoads(ahead, args.take_front(numChains), nextSlot, /*guarded=*/false, started,
                         Kind::PointerLoads);
      }
      SmallVector<Value> yields = nextChains(map);
      useLoads(loads, args.drop_front(numChains).take_front(tiles.size()), slot, yields, started);
      if (copies)
        yields.append({followingSlot, slot});
      return yields;
    });
    // The last N - 1: wait for all copies, use the loads already made.
    SmallVector<Pipelined> tailLoads;
    for (Pipelined &p : loads)
      tailLoads.push_back({cloned.lookup(p.load), p.async, p.buffer});
    SmallVector<Value> carriedTiles(main.getResults().drop_front(numOriginal + numChains).take_front(tiles.size()));
    withCarried(tail, carriedTiles, [&](ValueRange args) {
      Value slot;
      if (copies) {
        slot = b.createOrFold<arith::RemSIOp>(loc, iteration(tail.getInductionVar(), step, lb), constant(stages));
        AsyncWaitOp::create(b, loc, 0);
      }
      SmallVector<Value> yields;
      useLoads(tailLoads, args, slot, yields, /*started=*/{});
      return yields;
    });
  }

private:
  /// Whether `v` is the same in every iteration: defined outside the loop,
  /// or computed in it by pure ops from such values (a descriptor's base
  /// moved by leading offsets), which then move before the loop.
  bool hoistInvariant(Value v) {
    if (loop.isDefinedOutsideOfLoop(v))
      return true;
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != loop.getBody() || def->getNumRegions() || !isPure(def) ||
        !llvm::all_of(def->getOperands(), [&](Value x) { return hoistInvariant(x); }))
      return false;
    def->moveBefore(loop);
    return true;
  }

  Value constant(int64_t v) { return arith::ConstantIntOp::create(b, loop.getLoc(), v, 32); }
  Value mul(Value x, int64_t k) { return b.createOrFold<arith::MulIOp>(loop.getLoc(), x, constant(k)); }

  /// Adds the ops computing `roots` from the induction variable, values
  /// defined outside the loop and carried values the loop itself advances
  /// that way (a pointer or offset stepped each iteration) to `ahead`;
  /// false, adding nothing, when some value depends on anything else (a
  /// load, a value carried otherwise).
  bool addSlice(ValueRange roots) {
    llvm::SetVector<Operation *> slice;
    llvm::SetVector<BlockArgument> carried;
    SmallVector<Value> work(roots.begin(), roots.end());
    while (!work.empty()) {
      Value v = work.pop_back_val();
      if (v == loop.getInductionVar() || loop.isDefinedOutsideOfLoop(v))
        continue;
      if (auto arg = dyn_cast<BlockArgument>(v)) {
        if (carried.insert(arg))
          work.push_back(loop.getTiedLoopYieldedValue(arg)->get());
        continue;
      }
      Operation *def = v.getDefiningOp();
      if (def->getBlock() != loop.getBody() || def->getNumRegions() || !isMemoryEffectFree(def))
        return false;
      if (slice.insert(def))
        llvm::append_range(work, def->getOperands());
    }
    for (Operation *op : slice)
      if (!llvm::is_contained(ahead, op))
        ahead.push_back(op);
    for (BlockArgument arg : carried)
      if (!llvm::is_contained(chains, arg))
        chains.push_back(arg);
    return true;
  }

  /// `part` carrying `inits` besides its own values: `body` builds, at the
  /// start of its body, what the next iteration carries from the values
  /// this one carries (`args`). Returns the loop that replaces `part`.
  scf::ForOp withCarried(scf::ForOp part, ValueRange inits, function_ref<SmallVector<Value>(ValueRange)> body) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(part.getBody());
    if (inits.empty()) {
      body({});
      return part;
    }
    IRRewriter rewriter(part.getContext());
    auto replaced = part.replaceWithAdditionalYields(
        rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
          // The new loop's arguments, used in the old body, which then moves.
          b.setInsertionPointToStart(part.getBody());
          return body(SmallVector<Value>(args.begin(), args.end()));
        });
    return cast<scf::ForOp>(replaced->getOperation());
  }

  /// The index (from 0 at `lb`) of the iteration at `iv`.
  Value iteration(Value iv, Value step, Value lb) {
    Location loc = loop.getLoc();
    return b.createOrFold<arith::DivSIOp>(loc, b.createOrFold<arith::SubIOp>(loc, iv, lb), step);
  }

  enum class Kind { All, Copies, PointerLoads };

  /// Starts the loads of `kind` of iteration `iv` whose carried values are
  /// `chainValues`: copies into `slot`, pointer loads appended to `tiles`
  /// (`guarded`: only if `iv` is one of the loop's). Returns the mapping of
  /// the loop's values to that iteration's.
  IRMapping startLoads(Value iv, ValueRange chainValues, Value slot, bool guarded, SmallVector<Value> &tiles,
                       Kind kind) {
    Location loc = loop.getLoc();
    IRMapping map;
    map.map(loop.getInductionVar(), iv);
    for (auto [arg, v] : llvm::zip(chains, chainValues))
      map.map(arg, v);
    for (Operation *op : ahead)
      b.clone(*op, map);
    Value exists = guarded ? arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, iv, loop.getUpperBound())
                           : Value();
    for (Pipelined &p : loads) {
      if (kind != Kind::All && p.copies() != (kind == Kind::Copies))
        continue;
      if (p.copies()) {
        OpBuilder::InsertionGuard guard(b);
        if (exists)
          b.setInsertionPoint(scf::IfOp::create(b, loc, exists, /*withElseRegion=*/false).thenBlock()->getTerminator());
        if (auto load = dyn_cast<LoadOp>(p.load)) {
          AsyncLoadOp::create(b, load.getLoc(), map.lookupOrDefault(load.getPtr()),
                              load.getMask() ? map.lookupOrDefault(load.getMask()) : Value(), p.buffer, slot);
          continue;
        }
        auto load = cast<DescriptorLoadOp>(p.load);
        SmallVector<Value> offsets;
        for (Value o : load.getOffsets())
          offsets.push_back(map.lookupOrDefault(o));
        AsyncCopyOp::create(b, load.getLoc(), load.getBase(), offsets, load.getShape(), load.getStrides(), p.buffer,
                            slot);
        continue;
      }
      if (!exists) {
        tiles.push_back(b.clone(*p.load, map)->getResult(0));
        continue;
      }
      // A tile of zeros for an iteration that does not exist: never used.
      auto type = cast<RankedTensorType>(p.load->getResult(0).getType());
      auto inLoop = scf::IfOp::create(
          b, loc, exists,
          [&](OpBuilder &bb, Location l) { scf::YieldOp::create(bb, l, bb.clone(*p.load, map)->getResult(0)); },
          [&](OpBuilder &bb, Location l) {
            Value zero = arith::ConstantOp::create(bb, l, bb.getZeroAttr(type.getElementType()));
            scf::YieldOp::create(bb, l, SplatOp::create(bb, l, type, zero).getResult());
          });
      tiles.push_back(inLoop.getResult(0));
    }
    return map;
  }

  /// The carried values of the iteration after the one `map` maps to.
  SmallVector<Value> nextChains(IRMapping &map) {
    SmallVector<Value> next;
    for (BlockArgument arg : chains)
      next.push_back(map.lookupOrDefault(loop.getTiedLoopYieldedValue(arg)->get()));
    return next;
  }

  /// Replaces each of `uses` by what was loaded for its iteration: a block
  /// copy by the read of `slot`; a pointer load by its carried tile (of
  /// `carried`, in order), appending the tile the next iteration carries to
  /// `yields`: the one `started` (or, without one, the same again).
  void useLoads(ArrayRef<Pipelined> uses, ValueRange carried, Value slot, SmallVector<Value> &yields,
                ArrayRef<Value> started) {
    size_t pointerLoad = 0;
    for (const Pipelined &p : uses) {
      OpBuilder at(p.load);
      Value value;
      if (p.copies()) {
        value = LocalLoadOp::create(at, p.load->getLoc(), p.load->getResult(0).getType(), p.buffer, slot, nullptr);
      } else {
        value = carried[pointerLoad];
        yields.push_back(started.empty() ? value : started[pointerLoad]);
        ++pointerLoad;
      }
      p.load->getResult(0).replaceAllUsesWith(value);
      p.load->erase();
    }
  }

  scf::ForOp loop;
  OpBuilder b;
  SmallVector<Pipelined> loads;
  SmallVector<Operation *> ahead; // the loads' operands' ops, in program order
  SmallVector<BlockArgument> chains; // the carried values they read
};

struct PipelineCopiesPass : public rocktile::impl::PipelineCopiesBase<PipelineCopiesPass> {
  using PipelineCopiesBase::PipelineCopiesBase;

  void runOnOperation() override {
    const Target *t = lookupTarget(target);
    if (!t) {
      getOperation().emitError() << "unknown target '" << target << "'";
      return signalPassFailure();
    }
    // A kernel of the explicit level places its copies itself.
    DenseSet<Operation *> explicitFuncs;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (tile::hasExplicitLayouts(func))
        explicitFuncs.insert(func);
    getOperation().walk([&](scf::ForOp loop) {
      auto func = loop->getParentOfType<func::FuncOp>();
      if (explicitFuncs.contains(func))
        return;
      auto stages = loop->getAttrOfType<IntegerAttr>(kNumStages);
      if (!stages && func)
        stages = func->getAttrOfType<IntegerAttr>(kNumStages);
      int64_t asked = stages ? stages.getInt() : kDefaultStages;
      // Dot operands loaded through pointers are copied into LDS where the
      // target's async loads can, from 2 stages on as Triton's default on
      // gfx950 (measured against the register pipeline on gfx950's bf16
      // GEMM 128x128x64: one barrier and two waits per iteration instead of
      // four and 16, the K loop 5.69 -> 5.75 non-matrix instructions per
      // 16384 MACs, 18 VGPRs fewer; gfx1250's unmasked one: two barriers
      // instead of eight, 7.88 -> 6.88), else they wait in registers, one
      // tile in flight: a second one would cost a copy of each tile every
      // iteration (and spills where the accumulators are large).
      auto fitting = [&](LoopPipeliner &p) { // as many stages as the LDS holds, with a block's room per copy
        int64_t n = asked;
        while (n >= 2 && (n + 1) * p.blockBytes() > t->ldsBytes)
          --n;
        return p.loadsIntoRegisters() ? std::min<int64_t>(n, 2) : n;
      };
      std::optional<LoopPipeliner> pipeliner;
      pipeliner.emplace(loop);
      // Loads beside the dot operands wait in registers, one tile in
      // flight: only where the loop keeps 2 stages.
      auto from = func ? func->getAttrOfType<IntegerAttr>(kAsyncCopiesFromStages) : nullptr;
      int64_t asyncFrom = from ? from.getInt() : 2;
      if (asked < 2 || !pipeliner->findLoads(*t, numWarps, asked >= asyncFrom, /*sideLoads=*/asked == 2))
        return;
      int64_t n = fitting(*pipeliner);
      if (pipeliner->loadsAsync() && n < asyncFrom) { // registers, then
        pipeliner.emplace(loop);
        if (!pipeliner->findLoads(*t, numWarps, /*asyncLoads=*/false, /*sideLoads=*/asked == 2))
          return;
        n = fitting(*pipeliner);
      }
      int64_t possible = pipeliner->loadsIntoRegisters() ? std::min<int64_t>(asked, 2) : asked;
      if (n < possible)
        loop.emitWarning() << "num_stages=" << asked << " needs " << (possible + 1) * pipeliner->blockBytes()
                           << " bytes of LDS for this loop's copies; " << t->chip << " has " << t->ldsBytes
                           << ": pipelined with " << std::max<int64_t>(n, 1) << " stage" << (n < 2 ? "" : "s");
      if (n >= 2)
        pipeliner->run(n);
    });
  }
};

} // namespace
