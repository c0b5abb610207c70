// The tile -> SIMT lowering of one kernel, shared by the files of this
// folder, one per op family: LowerToSimt.cpp (the pass, control flow,
// elementwise ops), Memory.cpp (loads, stores, atomics), Layouts.cpp
// (layout conversions through registers or LDS), Reductions.cpp, Dot.cpp
// (matrix instructions), TensorDataMover.cpp (block copies to LDS, slots,
// waits), AsyncLoads.cpp (pointer loads copied to LDS), Debug.cpp
// (device_print, device_assert), Float64Math.cpp (fp64 math as
// arithmetic).
#ifndef ROCKTILE_TRANSFORMS_LOWERTOSIMT_KERNELLOWERING_H
#define ROCKTILE_TRANSFORMS_LOWERTOSIMT_KERNELLOWERING_H

#include "rocktile/Analysis/AxisInfo.h"
#include "rocktile/Analysis/LdsLayout.h"
#include "rocktile/Analysis/LdsScratch.h"
#include "rocktile/Dialect/Tile/IR/Tile.h"
#include "rocktile/Target/Target.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace rocktile::simt {

using namespace mlir;

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
  unsigned numWarps() { return (*kernel.getKnownBlockSize())[0] / target.waveSize; }

  // --- index arithmetic -------------------------------------------------
  Value i32(int64_t v) {
    return arith::ConstantIntOp::create(b, loc(), v, 32);
  }
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc(), v); }
  Value i8(int64_t v) { return arith::ConstantIntOp::create(b, loc(), v, 8); }

  /// x + y, or x ^ y in a layout whose coordinates do not add up (the XOR
  /// of its bases' parts).
  Value combine(bool additive, Value x, Value y) {
    if (additive)
      return arith::AddIOp::create(b, loc(), x, y);
    return arith::XOrIOp::create(b, loc(), x, y);
  }
  /// The part of a coordinate along `dim` contributed by this lane's lane
  /// and warp index (the register part is a compile-time constant, which
  /// combines with it by `combine`: an add where the layout's coordinates
  /// add up, else an XOR).
  Value threadCoord(const LinearLayout &layout, unsigned dim) {
    Value sum = i32(0);
    bool additive = layout.isAdditive();
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
        sum = combine(additive, sum, arith::MulIOp::create(b, loc(), field, i32(step)));
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
  LogicalResult lowerDescriptorLoad(tile::DescriptorLoadOp op);
  LogicalResult lowerDescriptorStore(tile::DescriptorStoreOp op);
  LogicalResult lowerLocalAlloc(tile::LocalAllocOp op);
  LogicalResult lowerAsyncCopy(tile::AsyncCopyOp op);
  LogicalResult lowerAsyncWait(tile::AsyncWaitOp op);
  LogicalResult lowerLocalLoad(tile::LocalLoadOp op);
  LogicalResult lowerLocalStore(tile::LocalStoreOp op);
  LogicalResult lowerWaitTensorCopies(tile::WaitTensorCopiesOp op);
  LogicalResult lowerAsyncLoad(tile::AsyncLoadOp op);
  LogicalResult lowerWaitGroups(tile::WaitGroupsOp op);
  LogicalResult lowerBarrier(tile::BarrierOp op);
  /// The copy instructions each wave issues for `op` (one 16-byte run per lane each).
  int64_t asyncLoadInstructions(tile::AsyncLoadOp op);
  /// An LLVM pointer (in `addressSpace`) to element `index` of `memref`,
  /// formed so that the emulator can read the memref and index back.
  Value elementPointer(Value memref, Value index, unsigned addressSpace, int64_t eltBytes);
  /// A global pointer `bytes` (an unsigned i32) into `memref`, formed the same way.
  Value bytePointer(Value memref, Value bytes);
  /// Starts the Tensor Data Mover copies (each warp its rows) of the block
  /// of `type` at `offsets` of the tensor at `base` (tile values) into
  /// `view` from element `slotElement` on, laid out as `lds` (rows padded or
  /// not), after zeroing it if the block crosses the tensor's edge; or,
  /// `toGlobal`, from `view` (unpadded) into the tensor. Waiting for them is
  /// the caller's.
  void copyBlock(Value base, ValueRange offsets, ValueRange shape, ValueRange strides, RankedTensorType type,
                 const LdsLayout &lds, Value view, Value slotElement, bool toGlobal = false);
  /// How a slot of `buffer` (a tile.local_alloc) lies in LDS, and the index
  /// of slot `slot`'s first element in the buffer's view.
  FailureOr<std::pair<LdsLayout, Value>> slotOf(Operation *op, Value buffer, Value slot);
  LogicalResult lowerReduce(tile::ReduceOp op);
  LogicalResult lowerAtomic(Operation *op);
  LogicalResult lowerRealtime(tile::RealtimeOp op);
  /// `op`'s scalar result as thread 0 computes it (where `pred` holds, if
  /// given), handed to every thread through its LDS scratch.
  LogicalResult fromFirstThread(Operation *op, Value pred, function_ref<Value(OpBuilder &, Location)> compute);
  LogicalResult lowerConvertLayout(tile::ConvertLayoutOp op);
  LogicalResult lowerTrans(tile::TransOp op);
  LogicalResult lowerGather(tile::GatherOp op);
  LogicalResult lowerInlineAsm(tile::ElementwiseInlineAsmOp op);
  LogicalResult lowerMapElementwise(tile::MapElementwiseOp op);
  /// Binds `results` to what `run` computes on each group of `pack`
  /// consecutive elements of this lane's `operands`: it takes `pack`
  /// scalars per operand (operand-major) and gives `pack` per result
  /// (result-major). A last group short of `pack` is filled up by repeating
  /// the lane's last element; what it gives for those is dropped. With
  /// `pack` 1, an element whose index has any of `equalBits` set is not
  /// computed but copied from the one with those bits clear.
  LogicalResult mapElementGroups(ValueRange operands, ValueRange results, int64_t pack,
                                 function_ref<FailureOr<SmallVector<Value>>(ArrayRef<Value>)> run,
                                 uint64_t equalBits = 0);
  /// The register bits of `v`'s layout that keep an element inside one of
  /// the runs of equal values AxisInfo proves for it along every dimension.
  uint64_t equalRegisterBits(Value v);
  LogicalResult lowerDot(tile::DotOp op);
  LogicalResult lowerScaledUpcast(tile::ScaledUpcastOp op);
  LogicalResult lowerPrint(tile::PrintOp op);
  LogicalResult lowerAssert(tile::AssertOp op);
  /// Marks the kernel as runnable only in the emulator, because of `op`.
  void markEmulatorOnly(Operation *op);
  /// Moves `op`'s operand into its result's layout (and shape, in row-major
  /// order) by way of its LDS scratch.
  LogicalResult exchangeThroughLds(Operation *op);
  /// The exchange of `srcVector` (`pieces.from`'s registers, then
  /// `pieces.to`'s), in vectors through an LDS arrangement chosen for both
  /// sides (row-major for a reshape): layouts whose coordinates add up.
  Value exchangeVectorized(Value srcVector, const ExchangePieces &pieces, Value view, Type elt, int64_t eltBytes,
                           bool reshape);
  /// The same, element by element at row-major indices: any layouts.
  Value exchangeElementwise(Value srcVector, const ExchangePieces &pieces, Value view, Type elt);
  /// Writes `values` (registers of `layout`) to `view` as `lds` places them,
  /// between barriers.
  void storeToLds(Value values, const LinearLayout &layout, const LdsLayout &lds, const LdsAccess &write,
                  Value view, int64_t eltBytes);
  /// What storeToLds writes, without its barriers, from element `first` of
  /// `view` on (a slot of a tile.local_alloc).
  void writeLds(Value values, const LinearLayout &layout, const LdsLayout &lds, const LdsAccess &write, Value view,
                int64_t eltBytes, Value first = Value(), ArrayRef<int64_t> origin = {});
  /// Reads `to`'s registers (those of piece `piece` of an exchange in
  /// pieces, whose register bits are `pieceBits`) from `view` laid out as
  /// `lds`: appends the reads to `parts` and records in `source`, for each
  /// register, its position in the concatenated parts.
  void readLds(const LinearLayout &to, const LdsLayout &lds, Value view, Type elt, int64_t eltBytes,
               ArrayRef<unsigned> pieceBits, int64_t piece, SmallVectorImpl<Value> &parts,
               MutableArrayRef<int64_t> source, Value first = Value(), ArrayRef<int64_t> origin = {});
  /// The lane vector of `to` read from `view` laid out as `lds` from
  /// element `first` on (0 when null), of the sub-block at `origin` (none:
  /// `to` covers the slot).
  Value loadFromLds(const LinearLayout &to, const LdsLayout &lds, Value view, Type elt, int64_t eltBytes,
                    Value first = Value(), ArrayRef<int64_t> origin = {});
  /// This lane's part of the LDS offset of its elements of `layout` in
  /// `lds`, `layout` a sub-block's at `origin` when given.
  Value ldsThreadOffset(const LinearLayout &layout, const LdsLayout &lds, ArrayRef<int64_t> origin = {});
  /// The first register and LDS index of each of this lane's `access`es
  /// (registers that copy others skipped when asked), in the slot whose
  /// first element is `first` (an i32, or none: the view's start).
  SmallVector<std::pair<int64_t, Value>> ldsAccessIndices(const LinearLayout &layout, const LdsLayout &lds,
                                                          const LdsAccess &access, bool skipCopies,
                                                          Value first = Value(), ArrayRef<int64_t> origin = {});
  /// `index` with the bits at positions `bits` (the original positions of
  /// bits removed from it) set as the bits of `values` say, in order.
  static int64_t insertBits(int64_t index, ArrayRef<unsigned> bits, int64_t values) {
    SmallVector<std::pair<unsigned, int64_t>> sorted;
    for (auto [i, bit] : llvm::enumerate(bits))
      sorted.push_back({bit, values >> i & 1});
    llvm::sort(sorted);
    for (auto [bit, value] : sorted)
      index = ((index >> bit) << (bit + 1)) | (value << bit) | (index & ((int64_t(1) << bit) - 1));
    return index;
  }
  /// The registers `regs` of the lane vector `from`, as one vector.
  Value gatherBytes(Value from, ArrayRef<int64_t> regs);
  /// A transpose read (`read`) of a `type` vector at element `at` of an LDS
  /// view.
  Value transposeLoad(VectorType type, Value view, Value at, const LdsTransposeRead &read);
  /// The vectors of `parts` (all of one length, a power of two of them)
  /// end to end.
  Value concatParts(ArrayRef<Value> parts) {
    SmallVector<Value> level(parts);
    while (level.size() > 1) {
      SmallVector<Value> next;
      for (size_t i = 0; i < level.size(); i += 2) {
        int64_t n = cast<VectorType>(level[i].getType()).getNumElements();
        next.push_back(vector::ShuffleOp::create(b, loc(), level[i], level[i + 1],
                                                 llvm::to_vector(llvm::seq<int64_t>(0, 2 * n))));
      }
      level = std::move(next);
    }
    return level.front();
  }
  /// The coordinates (i32, one per dimension) of each of this lane's
  /// registers of `layout` (its parts combined as `combine` does).
  SmallVector<SmallVector<Value>> registerCoords(const LinearLayout &layout);
  /// The row-major index of `coords` in a tile of `shape`.
  Value rowMajorIndex(ArrayRef<Value> coords, ArrayRef<int64_t> shape);
  /// The row-major index (in the tile) of each of this lane's registers.
  SmallVector<Value> rowMajorIndices(const LinearLayout &layout);
  /// One element's atomic update at `index` of `base`, returning the old value.
  Value emitAtomic(OpBuilder &bb, Location l, Operation *op, Value base, Value index, Value value,
                   Value cmp);
  /// The LLVM synchronization scope of an atomic tile op's `scope`.
  static StringRef syncScope(Operation *op);
  /// The fence an atomic tile op's `sem` asks for before its element
  /// updates (release) or after them (acquire), if any.
  void fence(OpBuilder &bb, Location l, Operation *op, bool after);
  /// True in thread 0 of the workgroup, which does what happens once per
  /// program (scalar stores and atomics, printing scalars).
  Value firstThread() {
    return arith::CmpIOp::create(b, loc(), arith::CmpIPredicate::eq,
                                 arith::OrIOp::create(b, loc(), laneId, warpId), i32(0));
  }
  /// True in the one lane and warp that own each element of `layout` (the
  /// others hold broadcast copies); null when every lane owns its elements.
  Value ownsElements(const LinearLayout &layout);
  /// The index a chunk of `eltBytes`-byte elements is accessed at through a
  /// buffer resource: `index` where `pred` holds, else 2^31 bytes, past the
  /// end of any buffer under 2 GiB, where loads read zeros and stores are
  /// dropped (a masked access without a branch).
  Value bufferIndex(Value pred, Value index, int64_t eltBytes) {
    return arith::SelectOp::create(b, loc(), pred, index, idx((int64_t(1) << 31) / eltBytes));
  }
  /// A tile of integer offsets as a part every thread shares (`uniform`, an
  /// index; null for 0) plus a per-lane part (`lanes`, an i32 vector in the
  /// tile's layout; null for 0) whose elements lie in [lo, hi].
  struct SplitOffsets {
    Value uniform, lanes;
    int64_t lo = 0, hi = 0;
  };
  std::optional<SplitOffsets> splitOffsets(Value offsets);
  /// The sum of two split offsets (none if its range overflows).
  std::optional<SplitOffsets> addSplits(const SplitOffsets &x, const SplitOffsets &y);
  /// For a masked access to `width` elements of `eltBytes` per chunk
  /// through `ptr` in a buffer of unknown size: a buffer resource that
  /// starts at the part of the addresses every thread shares, and the lane
  /// vector of element indices into it, when the per-lane part provably lies
  /// in [0, 2^31) bytes. Masked-off chunks then read zeros and write
  /// nothing without a branch (bufferIndex).
  std::optional<std::pair<Value, Value>> sharedBaseBuffer(Value ptr, int64_t width, int64_t eltBytes);
  /// Emits `emit`'s ops so that only the owners of `layout`'s elements run
  /// them (LDS writes that copies in other waves would race with).
  void byOwners(const LinearLayout &layout, function_ref<void()> emit);
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
  /// `op`'s combiner on partials (one value per source): scalars, or
  /// vectors of partials combined element by element.
  SmallVector<Value> combine(tile::ReduceOp op, ValueRange acc, ValueRange next);
  /// The combiner on each pair (lhs[k], rhs[k]), as one vector op per
  /// combiner op.
  SmallVector<SmallVector<Value>> combinePairs(tile::ReduceOp op, ArrayRef<SmallVector<Value>> lhs,
                                               ArrayRef<SmallVector<Value>> rhs);
  /// Whether laneHalves takes values of `type` `distance` lanes apart: 32
  /// bits or fewer, where the target's swap is its best exchange.
  bool swapsHalves(Type type, unsigned distance);
  /// The values of `v` in the two lanes that differ only in lane bit
  /// `distance`, the one with it clear first, from one v_permlane16_swap /
  /// v_permlane32_swap.
  std::pair<Value, Value> laneHalves(Value v, unsigned distance);
  /// Every lane's value of `v` from lane ^ `mask`. `uniformBelow`: lanes
  /// that differ only in bits below the mask's hold one value (those bits
  /// are reduced already), so a mirror within the row serves.
  Value shuffleXor(Value v, unsigned mask, bool uniformBelow);
  /// Elements per memory access of `op`, and the byte alignment it has.
  std::pair<int64_t, int64_t> accessWidth(Value ptr, Value mask);
  /// The chunks of one access to a lane vector run as one loop over
  /// private copies of the lane vectors they read and write, not unrolled,
  /// where the vector cannot live in registers anyway (more of them than a
  /// wave of this kernel has; LLVM spills it) or has more chunks than this.
  /// Unrolled, a 2^20-element tile on one wave (16384 elements per lane) is
  /// thousands of accesses, each a branch or a check, whose compile time
  /// (the emulator's host LLVM, the GPU's) grows faster than their number.
  static constexpr int64_t kMaxUnrolledChunks = 1024;
  /// Whether a lane vector of `elements` of `eltBytes` needs more registers
  /// than a wave of this kernel has (LLVM spills it whatever the code): it
  /// is then handled whole or in loops, never element by element.
  bool pastRegisterFile(int64_t elements, int64_t eltBytes) {
    return elements * std::max<int64_t>(eltBytes, 4) / 4 > target.waveRegisters(numWarps());
  }
  /// The chunks of `width` elements of one access to a lane vector of
  /// `elements` of `eltBytes`: unrolled, or a loop (kMaxUnrolledChunks).
  class ChunkLoop {
  public:
    ChunkLoop(KernelLowering &k, int64_t elements, int64_t width, int64_t eltBytes)
        : k(k), elements(elements), width(width),
          looped(elements / width > kMaxUnrolledChunks || k.pastRegisterFile(elements, eltBytes)) {}
    /// `v` (a lane vector of `elements`, or null) as `at` reads it: itself,
    /// or, in a loop, a private copy.
    Value operand(Value v);
    /// Elements [g, g + n) of an operand (n = 1: the element).
    Value at(Value operand, OpFoldResult g, int64_t n);
    /// Element g of a mask operand.
    Value predicateAt(Value mask, OpFoldResult g);
    /// Runs `body` on every chunk's first element; the chunks it returns,
    /// if it returns them, make up the lane vector of `type` returned.
    Value run(function_ref<Value(OpFoldResult)> body, VectorType type = {});

  private:
    Value privateArray(Type elt);
    KernelLowering &k;
    int64_t elements, width;
    bool looped;
  };

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
  /// The lane vector of `type` made of `parts` (scalars, or vectors of its
  /// element type) laid end to end, joined pairwise in a balanced tree:
  /// inserting each part into the whole vector makes IR quadratic in a
  /// lane's elements (a 2^20-element tile on one warp: 16384 per lane).
  Value concat(ArrayRef<Value> parts, VectorType type) {
    if (!isa<VectorType>(parts.front().getType()))
      return vector::FromElementsOp::create(b, loc(), type, parts);
    SmallVector<Value> level(parts);
    while (level.size() > 1) {
      SmallVector<Value> joined;
      for (size_t i = 0; i + 1 < level.size(); i += 2) {
        int64_t n = cast<VectorType>(level[i].getType()).getNumElements() +
                    cast<VectorType>(level[i + 1].getType()).getNumElements();
        joined.push_back(vector::ShuffleOp::create(b, loc(), level[i], level[i + 1],
                                                   llvm::to_vector(llvm::seq<int64_t>(0, n))));
      }
      if (level.size() % 2)
        joined.push_back(level.back());
      level = std::move(joined);
    }
    return level.front();
  }

  func::FuncOp func;
  gpu::GPUFuncOp kernel;
  const Target &target;
  AxisInfoAnalysis axis;
  OpBuilder b;
  Location currentLoc = UnknownLoc::get(func.getContext());
  Value threadId, laneId, warpId; // i32
  DenseMap<Value, LaneValue> values;
  /// Kernel-argument memrefs as buffer resources (#amdgpu.fat_raw_buffer),
  /// for arguments specialized as under 2 GiB.
  DenseMap<Value, Value> bufferViews;
  /// Lane vectors in private arrays (ChunkLoop), with the op after which
  /// the array holds them.
  DenseMap<Value, std::pair<Value, Operation *>> privateCopies;
  /// Memory from address 0 on, per element type: the base of pointers made
  /// from integers (tile.int_to_ptr), created at the kernel's entry.
  DenseMap<Type, Value> flatMemories;
  Value flatMemory(Type elementType);
  /// `v` (an index), broadcast to a vector when `type` (a lane's) is one.
  Value indexLike(Type type, Value v);
  LogicalResult lowerIntToPtr(tile::IntToPtrOp op);
  LogicalResult lowerPtrToInt(tile::PtrToIntOp op);
  /// The byte address of each lane's element of `ptr` (as its value's type,
  /// of index elements).
  Value addressBytes(LaneValue ptr, int64_t eltBytes);
  /// `ptr` (of type `pointerLike`) as an index into flatMemory: how pointers
  /// into different kernel arguments meet (a select or a branch between them).
  LaneValue flatPointer(LaneValue ptr, Type pointerLike);
  /// arith.select between pointers (scalars or tiles).
  LogicalResult lowerPointerSelect(arith::SelectOp op);
};

/// fp64 exp, exp2, expm1, log, log2, log10, log1p, tanh, erf and erfc as
/// arithmetic (Float64Math.cpp): LLVM lowers them for AMDGPU only as calls
/// into the ROCm device library.
void populateFloat64MathExpansions(RewritePatternSet &patterns);

} // namespace rocktile::simt

#endif
