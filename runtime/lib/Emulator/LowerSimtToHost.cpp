#include "rocktile/Emulator/Passes.h"
#include "rocktile/Emulator/MatrixInstr.h"
#include "rocktile/Emulator/Emulator.h"
#include "rocktile/Conversion/FlatMemory.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

namespace rocktile::emulator {
#define GEN_PASS_DEF_LOWERSIMTTOHOST
#include "rocktile/Emulator/Passes.h.inc"
} // namespace rocktile::emulator

using namespace mlir;
using namespace rocktile::emulator;

std::optional<MatrixFormat> rocktile::emulator::matrixFormat(Type type) {
  Type t = getElementTypeOrSelf(type);
  if (t.isBF16())
    return MatrixFormat::BF16;
  if (t.isF16())
    return MatrixFormat::F16;
  if (isa<Float8E4M3FNType>(t))
    return MatrixFormat::E4M3;
  if (isa<Float8E5M2Type>(t))
    return MatrixFormat::E5M2;
  if (isa<Float4E2M1FNType>(t))
    return MatrixFormat::E2M1;
  if (isa<Float6E2M3FNType>(t))
    return MatrixFormat::E2M3;
  if (isa<Float6E3M2FNType>(t))
    return MatrixFormat::E3M2;
  if (t.isF32())
    return MatrixFormat::F32;
  if (t.isInteger(8))
    return MatrixFormat::I8;
  return std::nullopt;
}

namespace {

/// Where a memref of the kernel comes from, for fault reports.
struct BufferOrigin {
  int argIndex = -1;   // kernel argument, -1 for LDS, or kAddressedMemory
  int64_t ldsOffset = 0;
};

/// Marks the lane exchange of a transpose read (see splitTransposeReads).
constexpr llvm::StringLiteral kLaneTranspose = "rocktile.lane_transpose";
/// Marks the LDS side of a direct-to-LDS or async load (see
/// splitAsyncLoads): true where the wave's first lane's index places every
/// lane's run (gfx950's M0).
constexpr llvm::StringLiteral kAsyncLoad = "rocktile.async_load";
/// Marks one result of a permlane swap (see splitLaneSwaps): [row length,
/// which result].
constexpr llvm::StringLiteral kLaneSwap = "rocktile.lane_swap";

/// Ops after which the lanes of a wave must be in lockstep.
bool isCrossLane(Operation *op) {
  return isa<ROCDL::DPPUpdateOp, amdgpu::SwizzleBitModeOp, amdgpu::PermlaneSwapOp, ROCDL::PermlaneX16Op, gpu::ShuffleOp, amdgpu::MFMAOp,
             amdgpu::ScaledMFMAOp, amdgpu::WMMAOp, amdgpu::ScaledWMMAOp, amdgpu::ScaledExtPackedMatrixOp, ROCDL::TensorLoadToLDSD2Op, ROCDL::TensorStoreFromLDSD2Op,
             ROCDL::WaitTensorcntOp, ROCDL::WaitAsynccntOp, amdgpu::MemoryCounterWaitOp, ROCDL::ReadfirstlaneOp>(op) ||
         (isa<UnrealizedConversionCastOp>(op) && (op->hasAttr(kLaneTranspose) || op->hasAttr(kAsyncLoad) || op->hasAttr(kLaneSwap)));
}

/// Workgroup and grid ids and sizes nested in regions (a program id read
/// under an `if`) move to the kernel's entry: they take no operands, and
/// there they are values computed once per workgroup.
void hoistWorkgroupIds(gpu::GPUFuncOp kernel) {
  Block &entry = kernel.getBody().front();
  SmallVector<Operation *> nested;
  kernel.walk([&](Operation *op) {
    if (isa<gpu::BlockIdOp, gpu::GridDimOp, gpu::BlockDimOp>(op) && op->getBlock() != &entry)
      nested.push_back(op);
  });
  for (Operation *op : nested)
    op->moveBefore(&entry, entry.begin());
}

/// The most bytes of per-thread arrays a workgroup's host function keeps
/// on its stack.
constexpr int64_t kStackArrayBytes = int64_t(1) << 20;

/// Bytes of a scalar (a byte for i1); index values (exchanged pointer
/// offsets) are 64-bit, as the GPU lowering makes them.
int64_t scalarBytes(Type type) {
  return type.isIndex() ? 8 : std::max<int64_t>(type.getIntOrFloatBitWidth() / 8, 1);
}

/// Bytes per element of a buffer.
int64_t elementBytes(MemRefType type) {
  Type elt = type.getElementType();
  if (auto vector = dyn_cast<VectorType>(elt)) // a memref of vectors: whole vectors per index
    return vector.getNumElements() * scalarBytes(vector.getElementType());
  return scalarBytes(elt);
}

/// The memref and element index that a pointer given to a rocdl op (an LDS
/// transpose read, an async load) addresses: the compiler forms it as
/// gep(inttoptr(index_cast(extract_aligned_pointer_as_index memref)), at).
FailureOr<std::pair<Value, Value>> elementOf(Value ptr, OpBuilder &b) {
  auto gep = ptr.getDefiningOp<LLVM::GEPOp>();
  auto base = gep ? gep.getBase().getDefiningOp<LLVM::IntToPtrOp>() : nullptr;
  auto address = base ? base.getArg().getDefiningOp<arith::IndexCastOp>() : nullptr;
  auto first = address ? address.getIn().getDefiningOp<memref::ExtractAlignedPointerAsIndexOp>() : nullptr;
  if (!first || gep.getIndices().size() != 1)
    return failure();
  auto index = gep.getIndices()[0];
  Value at = isa<Value>(index)
                 ? arith::IndexCastOp::create(b, gep.getLoc(), b.getIndexType(), cast<Value>(index)).getResult()
                 : arith::ConstantIndexOp::create(b, gep.getLoc(), cast<IntegerAttr>(index).getInt()).getResult();
  // An index of bytes (a 32-bit offset) into wider elements.
  int64_t gepBytes = scalarBytes(gep.getElemType()), eltBytes = elementBytes(cast<MemRefType>(first.getSource().getType()));
  if (gepBytes != eltBytes)
    at = arith::DivUIOp::create(b, gep.getLoc(), arith::MulIOp::create(b, gep.getLoc(), at, arith::ConstantIndexOp::create(b, gep.getLoc(), gepBytes)),
                                arith::ConstantIndexOp::create(b, gep.getLoc(), eltBytes));
  return std::pair<Value, Value>{first.getSource(), at};
}

/// The kernel's ops of the given types, collected before they are rewritten.
template <typename... Ops> SmallVector<Operation *> opsOf(gpu::GPUFuncOp kernel) {
  SmallVector<Operation *> ops;
  kernel.walk([&](Operation *op) {
    if (isa<Ops...>(op))
      ops.push_back(op);
  });
  return ops;
}

/// Erases the unused chain that forms a rocdl op's pointer (see elementOf),
/// which has no host lowering.
void erasePointerChain(Value ptr) {
  for (Operation *dead = ptr ? ptr.getDefiningOp() : nullptr; dead && dead->use_empty();) {
    Operation *next = dead->getNumOperands() ? dead->getOperand(0).getDefiningOp() : nullptr;
    dead->erase();
    dead = next;
  }
}

/// A rocdl permlane swap yields a struct of its two swapped operands, which
/// only llvm.extractvalue reads: each extraction becomes one marked exchange
/// of both operands, so the emulator handles no struct values.
LogicalResult splitLaneSwaps(gpu::GPUFuncOp kernel) {
  for (Operation *op : opsOf<ROCDL::Permlane16SwapOp, ROCDL::Permlane32SwapOp>(kernel)) {
    int64_t rowLength = isa<ROCDL::Permlane16SwapOp>(op) ? 16 : 32;
    for (Operation *user : llvm::make_early_inc_range(op->getUsers())) {
      auto extract = dyn_cast<LLVM::ExtractValueOp>(user);
      if (!extract)
        return op->emitError("the emulator reads permlane swaps' results only through llvm.extractvalue");
      OpBuilder b(extract);
      auto half = UnrealizedConversionCastOp::create(b, extract.getLoc(), extract.getType(), op->getOperands());
      half->setAttr(kLaneSwap, b.getDenseI64ArrayAttr({rowLength, extract.getPosition()[0]}));
      extract.replaceAllUsesWith(half.getResult(0));
      extract.erase();
    }
    op->erase();
  }
  return success();
}

/// An LDS transpose read is each lane's plain read of a vector at its own
/// address (checked for bounds, races and banks as any LDS read), then an
/// exchange of elements between lanes: this splits it so.
LogicalResult splitTransposeReads(gpu::GPUFuncOp kernel) {
  for (Operation *op : opsOf<amdgpu::TransposeLoadOp, ROCDL::DsLoadTr16_B128, ROCDL::DsLoadTr8_B64>(kernel)) {
    OpBuilder b(op);
    auto type = cast<VectorType>(op->getResult(0).getType());
    Value view, at, ptr; // ptr: a rocdl read's pointer chain
    if (auto load = dyn_cast<amdgpu::TransposeLoadOp>(op)) {
      view = load.getSrc();
      at = load.getSrcIndices()[0];
    } else {
      ptr = op->getOperand(0);
      FailureOr<std::pair<Value, Value>> element = elementOf(ptr, b);
      if (failed(element))
        return op->emitError("the emulator reads rocdl transpose loads only at pointers into an LDS view");
      std::tie(view, at) = *element;
    }
    // Elements of the view's type, as many as the read's bytes hold.
    Type elt = cast<MemRefType>(view.getType()).getElementType();
    auto lanesType = VectorType::get({type.getNumElements() * scalarBytes(type.getElementType()) / scalarBytes(elt)}, elt);
    auto load = vector::LoadOp::create(b, op->getLoc(), lanesType, view, ValueRange{at});
    auto exchange = UnrealizedConversionCastOp::create(b, op->getLoc(), lanesType, load.getResult());
    exchange->setAttr(kLaneTranspose, b.getUnitAttr());
    Value result = exchange.getResult(0);
    if (lanesType != type)
      result = vector::BitCastOp::create(b, op->getLoc(), type, result);
    op->getResult(0).replaceAllUsesWith(result);
    op->erase();
    erasePointerChain(ptr);
  }
  return success();
}

/// A direct-to-LDS or async load is each lane's plain read of its run from
/// global memory (checked as any load: bounds, a buffer's masked-off lanes
/// reading zeros), then the runs queued for LDS in every wave, landing at
/// the wait that covers them (rocktile_emu_async_load): this splits it so.
LogicalResult splitAsyncLoads(gpu::GPUFuncOp kernel) {
  for (Operation *op : opsOf<amdgpu::GatherToLDSOp, ROCDL::GlobalLoadAsyncToLDSB128Op>(kernel)) {
    OpBuilder b(op);
    Value src, at, view, dstAt, globalPtr, ldsPtr;
    int64_t bytes = 16;
    bool waveShared = false;
    if (auto gather = dyn_cast<amdgpu::GatherToLDSOp>(op)) {
      src = gather.getSrc(), at = gather.getSrcIndices()[0];
      view = gather.getDst(), dstAt = gather.getDstIndices()[0];
      auto transfer = dyn_cast<VectorType>(gather.getTransferType());
      bytes = transfer ? transfer.getNumElements() * scalarBytes(transfer.getElementType())
                       : scalarBytes(gather.getTransferType());
      waveShared = true;
    } else {
      auto async = cast<ROCDL::GlobalLoadAsyncToLDSB128Op>(op);
      globalPtr = async.getGlobalPtr(), ldsPtr = async.getLdsPtr();
      FailureOr<std::pair<Value, Value>> global = elementOf(globalPtr, b), lds = elementOf(ldsPtr, b);
      if (failed(global) || failed(lds))
        return op->emitError("the emulator runs async loads only between pointers into memrefs");
      std::tie(src, at) = *global;
      std::tie(view, dstAt) = *lds;
    }
    Type elt = cast<MemRefType>(src.getType()).getElementType();
    auto type = VectorType::get({bytes / scalarBytes(elt)}, elt);
    Value data = vector::LoadOp::create(b, op->getLoc(), type, src, ValueRange{at});
    UnrealizedConversionCastOp::create(b, op->getLoc(), TypeRange{}, ValueRange{data, dstAt, view})
        ->setAttr(kAsyncLoad, b.getBoolAttr(waveShared));
    op->erase();
    erasePointerChain(globalPtr);
    erasePointerChain(ldsPtr);
  }
  return success();
}

bool isSegmentBoundary(Operation *op) {
  return isCrossLane(op) || isa<gpu::BarrierOp>(op);
}

/// A constant of `type` (a scalar, or a vector splat of `scalar`).
Value constantLike(OpBuilder &b, Location loc, Type type, TypedAttr scalar) {
  auto vector = dyn_cast<VectorType>(type);
  return arith::ConstantOp::create(b, loc, vector ? TypedAttr(DenseElementsAttr::get(vector, scalar)) : scalar);
}

/// The chips convert floats to 32-bit integers saturating (v_cvt_i32_f32,
/// v_cvt_u32_f32, v_cvt_i32_f64: an out-of-range value clamps, NaN gives 0)
/// where LLVM's fptosi/fptoui leave such values poison and the host's
/// instructions give other numbers; the emulator clamps first (in f64, which
/// holds every bound exactly), so it computes what the GPU does.
void saturateFloatToInt(gpu::GPUFuncOp kernel) {
  kernel.walk([](Operation *op) {
    if (!isa<arith::FPToSIOp, arith::FPToUIOp>(op) || !getElementTypeOrSelf(op->getResult(0)).isInteger(32))
      return;
    bool isSigned = isa<arith::FPToSIOp>(op);
    OpBuilder b(op);
    Location loc = op->getLoc();
    Value x = op->getOperand(0);
    auto vector = dyn_cast<VectorType>(x.getType());
    Type f64 = vector ? Type(VectorType::get(vector.getShape(), b.getF64Type())) : b.getF64Type();
    Value wide = getElementTypeOrSelf(x).isF64() ? x : arith::ExtFOp::create(b, loc, f64, x).getResult();
    Value lo = constantLike(b, loc, f64, b.getF64FloatAttr(isSigned ? -2147483648.0 : 0.0));
    Value hi = constantLike(b, loc, f64, b.getF64FloatAttr(isSigned ? 2147483647.0 : 4294967295.0));
    Value clamped = arith::MinNumFOp::create(b, loc, arith::MaxNumFOp::create(b, loc, wide, lo), hi);
    Type i32 = op->getResult(0).getType();
    Value converted = isSigned ? arith::FPToSIOp::create(b, loc, i32, clamped).getResult()
                               : arith::FPToUIOp::create(b, loc, i32, clamped).getResult();
    Value isNan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
    op->getResult(0).replaceAllUsesWith(
        arith::SelectOp::create(b, loc, isNan, constantLike(b, loc, i32, b.getI32IntegerAttr(0)), converted)
            .getResult());
    op->erase();
  });
}

/// Integer division traps on the host (SIGFPE) where the GPU's divide
/// sequence does not: a zero divisor is a fault at the division (reported,
/// the host then divides by 1), and INT_MIN / -1 gives INT_MIN (remainder 0),
/// the wrapped result the GPU computes.
void guardIntegerDivision(gpu::GPUFuncOp kernel) {
  kernel.walk([](Operation *op) {
    if (!isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp, arith::CeilDivSIOp, arith::CeilDivUIOp,
             arith::FloorDivSIOp>(op))
      return;
    Value lhs = op->getOperand(0), rhs = op->getOperand(1);
    APInt divisor;
    if (matchPattern(rhs, m_ConstantInt(&divisor)) && !divisor.isZero() && !divisor.isAllOnes())
      return; // a constant that neither traps nor overflows
    OpBuilder b(op);
    Location loc = op->getLoc();
    Type type = rhs.getType();
    auto elt = cast<IntegerType>(getElementTypeOrSelf(type));
    auto constant = [&](const APInt &v) { return constantLike(b, loc, type, b.getIntegerAttr(elt, v)); };
    unsigned bits = elt.getWidth();
    Value one = constant(APInt(bits, 1));
    Value isZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rhs, constant(APInt(bits, 0)));
    Value anyZero = isa<VectorType>(type) ? vector::ReductionOp::create(b, loc, vector::CombiningKind::OR, isZero)
                                                .getResult()
                                          : isZero;
    Value none = arith::XOrIOp::create(b, loc, anyZero, arith::ConstantIntOp::create(b, loc, 1, 1));
    cf::AssertOp::create(b, loc, none, "integer division by zero")->setAttr(rocktile::kEmulatorCheck, b.getUnitAttr());
    Value safe = arith::SelectOp::create(b, loc, isZero, one, rhs);
    if (isa<arith::DivSIOp, arith::RemSIOp, arith::CeilDivSIOp, arith::FloorDivSIOp>(op)) {
      Value isMin = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lhs,
                                          constant(APInt::getSignedMinValue(bits)));
      Value isMinusOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rhs, constant(APInt::getAllOnes(bits)));
      Value overflow = arith::AndIOp::create(b, loc, isMin, isMinusOne);
      safe = arith::SelectOp::create(b, loc, overflow, one, safe);
    }
    op->setOperand(1, safe);
  });
}

/// The bits of `v` (a scalar or a 1-D vector) folded into an i64, for the
/// runtime to tell whether a value it observes changed.
Value foldBits(OpBuilder &b, Location l, Value v) {
  Type i64 = b.getI64Type();
  auto bitsOf = [&](Value s) -> Value {
    if (s.getType().isIndex())
      return arith::IndexCastOp::create(b, l, i64, s);
    if (auto f = dyn_cast<FloatType>(s.getType()))
      s = arith::BitcastOp::create(b, l, b.getIntegerType(f.getWidth()), s);
    return s.getType().getIntOrFloatBitWidth() == 64 ? s : arith::ExtUIOp::create(b, l, i64, s).getResult();
  };
  auto vector = dyn_cast<VectorType>(v.getType());
  if (!vector)
    return bitsOf(v);
  Value folded = arith::ConstantIntOp::create(b, l, 0, 64);
  Value odd = arith::ConstantIntOp::create(b, l, int64_t(0x9E3779B97F4A7C15ull), 64);
  for (int64_t i = 0; i < vector.getNumElements(); ++i)
    folded = arith::XOrIOp::create(b, l, arith::MulIOp::create(b, l, folded, odd),
                                   bitsOf(vector::ExtractOp::create(b, l, v, i)));
  return folded;
}

/// What `op` (with the ops it nests) does to global memory. An op whose
/// effects are unknown and that takes a global buffer counts as a write.
enum class GlobalAccess { None, Read, Write };
GlobalAccess globalAccess(Operation *op) {
  auto isGlobal = [](Value v) {
    auto type = dyn_cast<MemRefType>(v.getType());
    auto space = type ? dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace()) : nullptr;
    // Kernel arguments, the flat memory and their buffer-resource views.
    return type && (!space || space.getValue() == gpu::AddressSpace::Global);
  };
  GlobalAccess access = GlobalAccess::None;
  op->walk([&](Operation *inner) {
    auto interface = dyn_cast<MemoryEffectOpInterface>(inner);
    if (!interface) {
      if (!inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>() && llvm::any_of(inner->getOperands(), isGlobal))
        access = GlobalAccess::Write;
      return;
    }
    SmallVector<MemoryEffects::EffectInstance> effects;
    interface.getEffects(effects);
    for (MemoryEffects::EffectInstance &effect : effects) {
      if (!effect.getValue() || !isGlobal(effect.getValue()))
        continue;
      if (isa<MemoryEffects::Write>(effect.getEffect()))
        access = GlobalAccess::Write;
      else if (isa<MemoryEffects::Read>(effect.getEffect()) && access == GlobalAccess::None)
        access = GlobalAccess::Read;
    }
  });
  return access;
}

class WorkgroupLowering {
public:
  WorkgroupLowering(gpu::GPUFuncOp kernel, ModuleOp module, unsigned waveSize,
                    SmallVectorImpl<DictionaryAttr> &sites)
      : kernel(kernel), module(module), waveSize(waveSize), sites(sites),
        b(kernel.getContext()) {}

  LogicalResult run();
  /// Whether a workgroup may wait for another (see rocktile_emu_spin).
  bool spins() const { return hasSpinPoints; }

private:
  Location loc() { return currentLoc; }
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc(), v); }
  Value i64(int64_t v) { return arith::ConstantIntOp::create(b, loc(), v, 64); }
  Value asI64(Value index) { return arith::IndexCastOp::create(b, loc(), b.getI64Type(), index); }
  /// The address of a per-thread array's first element, for the runtime.
  Value addressOf(Value array) {
    return asI64(memref::ExtractAlignedPointerAsIndexOp::create(b, loc(), array));
  }

  bool isUniform(Operation *op);
  LogicalResult processBlock(Block &block);
  LogicalResult emitHostFor(scf::ForOp loop);
  LogicalResult emitHostIf(scf::IfOp branch);
  /// Stores each thread's `from` values into the arrays of `to`.
  void copyToArrays(ValueRange from, ValueRange to, Block &block);
  Value arrayFor(Value v);
  /// The array of every thread's value of `v`, an operand of `op`: a value
  /// the workgroup computes once is copied into one first.
  Value threadArray(Value v, Operation *op);
  Value laneValue(Value v, Value tid, IRMapping &segment);
  LogicalResult emitSegment(Block &block, ArrayRef<Operation *> ops);
  LogicalResult emitCrossLane(Operation *op);
  /// A matrix instruction over every wave: MatrixInstr.cpp's semantics.
  LogicalResult emitMatrix(Operation *op, StringRef target, unsigned m, unsigned n, unsigned k);
  LogicalResult emitUniform(Operation *op);
  LogicalResult cloneChecked(Operation *op, IRMapping &map, Value tid);
  /// A fault site of `op`; `accessBytes` (0: the element's) is what every
  /// execution of an access reads or writes, aligned to that size.
  int64_t addSite(Operation *op, StringRef kind, Value memref, int64_t eltBytes,
                  StringRef message = "", int64_t accessBytes = 0);
  std::optional<BufferOrigin> originOf(Value memref);
  func::FuncOp runtimeFunction(StringRef name, unsigned numArgs, bool returnsI64 = false);
  /// Thread 0's value of a per-thread condition or loop bound, which every
  /// thread must share (control flow around lockstep ops); a disagreement is
  /// a fault at `op` (of `kind`).
  Value sharedValue(Operation *op, Value v, StringRef kind = "divergent");
  LogicalResult emitHostWhile(scf::WhileOp loop);

  gpu::GPUFuncOp kernel;
  ModuleOp module;
  unsigned waveSize;
  SmallVectorImpl<DictionaryAttr> &sites;
  OpBuilder b;
  Location currentLoc = UnknownLoc::get(kernel.getContext());
  func::FuncOp host;
  Value ctx, numThreadsValue;
  int64_t numThreads = 0;
  IRMapping uniform;                    // values computed once per workgroup
  DenseMap<Value, Value> arrays;        // value -> memref<numThreads x T>
  DenseMap<Value, BufferOrigin> origins;
  DenseMap<Value, int64_t> privateArrays; // a private array -> its elements per thread
  SmallVector<Value> allocations;
  bool hasSpinPoints = false;
  /// Views that start further into a kernel argument (a buffer resource
  /// based at a pointer the threads share): the argument's memref and the
  /// element the view starts at, both device values. An access through one
  /// is checked against the whole argument.
  DenseMap<Value, std::pair<Value, Value>> shiftedViews;
  /// Records `op` if it makes such a view (binding its result to the
  /// argument's host memref in `to`).
  bool mapShiftedView(Operation *op, IRMapping &to);
  /// The host value of device value `v`: computed once per workgroup, or
  /// in `map` (a segment's, or `uniform` itself).
  Value hostValue(Value v, IRMapping &map) { return map.lookupOrDefault(uniform.lookupOrDefault(v)); }
};

func::FuncOp WorkgroupLowering::runtimeFunction(StringRef name, unsigned numArgs, bool returnsI64) {
  if (auto f = module.lookupSymbol<func::FuncOp>(name))
    return f;
  OpBuilder mb = OpBuilder::atBlockBegin(module.getBody());
  SmallVector<Type> args(numArgs, mb.getI64Type());
  SmallVector<Type> results;
  if (returnsI64)
    results.push_back(mb.getI64Type());
  auto f = func::FuncOp::create(mb, module.getLoc(), name, mb.getFunctionType(args, results));
  f.setPrivate();
  return f;
}

/// A lane's private array (LowerToSimt's ChunkLoop), if `op` makes one.
static memref::AllocaOp privateArray(Operation *op) {
  auto alloca = dyn_cast<memref::AllocaOp>(op);
  auto space = alloca ? dyn_cast_or_null<gpu::AddressSpaceAttr>(alloca.getType().getMemorySpace()) : nullptr;
  return space && space.getValue() == gpu::AddressSpace::Private ? alloca : memref::AllocaOp();
}

/// Computed once per workgroup: pure ops of values every thread shares.
/// (A private array is one array for the workgroup, each thread's part
/// at its own offset: see cloneChecked.)
bool WorkgroupLowering::isUniform(Operation *op) {
  if (isa<gpu::BlockIdOp, gpu::GridDimOp, gpu::BlockDimOp, memref::AssumeAlignmentOp>(op) || privateArray(op))
    return true;
  if (isa<gpu::ThreadIdOp, gpu::LaneIdOp>(op) || op->getNumRegions() || isSegmentBoundary(op) ||
      !isMemoryEffectFree(op) || op->hasTrait<OpTrait::IsTerminator>())
    return false;
  return llvm::all_of(op->getOperands(), [&](Value v) { return uniform.contains(v); });
}

static bool containsSegmentBoundary(Operation *op) {
  return op->walk([&](Operation *inner) {
           return inner != op && isSegmentBoundary(inner) ? WalkResult::interrupt()
                                                          : WalkResult::advance();
         })
      .wasInterrupted();
}

/// The per-thread array holding `v` between segments (created on first use).
Value WorkgroupLowering::arrayFor(Value v) {
  if (Value a = arrays.lookup(v))
    return a;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&host.getBody().front());
  auto type = MemRefType::get({numThreads}, v.getType());
  Value array = memref::AllocOp::create(b, loc(), type);
  allocations.push_back(array);
  return arrays[v] = array;
}

Value WorkgroupLowering::threadArray(Value v, Operation *op) {
  if (uniform.contains(v))
    copyToArrays(v, v, *op->getBlock());
  return arrayFor(v);
}

std::optional<BufferOrigin> WorkgroupLowering::originOf(Value memref) {
  if (auto it = origins.find(memref); it != origins.end())
    return it->second;
  return std::nullopt;
}

int64_t WorkgroupLowering::addSite(Operation *op, StringRef kind, Value memref, int64_t eltBytes,
                                   StringRef message, int64_t accessBytes) {
  std::optional<BufferOrigin> origin = originOf(memref);
  Builder attrs(op->getContext());
  std::string where;
  llvm::raw_string_ostream os(where);
  op->getLoc()->walk([&](Location l) {
    if (auto f = dyn_cast<FileLineColLoc>(l)) {
      os << f.getFilename().getValue() << ":" << f.getLine() << ":" << f.getColumn();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  sites.push_back(attrs.getDictionaryAttr({
      attrs.getNamedAttr("kind", attrs.getStringAttr(kind)),
      attrs.getNamedAttr("arg", attrs.getI64IntegerAttr(origin ? origin->argIndex : -2)),
      attrs.getNamedAttr("lds_offset", attrs.getI64IntegerAttr(origin ? origin->ldsOffset : 0)),
      attrs.getNamedAttr("element_bytes", attrs.getI64IntegerAttr(eltBytes)),
      attrs.getNamedAttr("access_bytes", attrs.getI64IntegerAttr(accessBytes ? accessBytes : eltBytes)),
      attrs.getNamedAttr("location", attrs.getStringAttr(where)),
      attrs.getNamedAttr("message", attrs.getStringAttr(message)),
  }));
  return sites.size() - 1;
}

LogicalResult WorkgroupLowering::run() {
  MLIRContext *ctxt = kernel.getContext();
  auto blockSize = kernel.getKnownBlockSizeAttr();
  if (!blockSize || blockSize[1] != 1 || blockSize[2] != 1)
    return kernel.emitError("the emulator needs a 1-D known_block_size");
  numThreads = blockSize[0];
  if (numThreads % waveSize)
    return kernel.emitError("workgroup size is not a whole number of waves");
  WalkResult inlineAsm = kernel.walk([](LLVM::InlineAsmOp op) {
    op.emitError("the emulator cannot run AMDGPU inline assembly (tl.inline_asm_elementwise); "
                 "compile this kernel for a GPU, or give the emulator a version without it");
    return WalkResult::interrupt();
  });
  if (inlineAsm.wasInterrupted())
    return failure();
  // The GPU's constant-rate clock is the host's, in the same ticks.
  kernel.walk([&](LLVM::CallIntrinsicOp op) {
    if (op.getIntrin() != "llvm.readsteadycounter")
      return;
    OpBuilder ob(op);
    op->replaceAllUsesWith(func::CallOp::create(ob, op.getLoc(), runtimeFunction("rocktile_emu_realtime", 0, true),
                                                ValueRange{}));
    op->erase();
  });

  // (ctx, block ids, grid dims, kernel arguments..., LDS)
  SmallVector<Type> argTypes(7, IndexType::get(ctxt));
  llvm::append_range(argTypes, kernel.getArgumentTypes());
  for (BlockArgument lds : kernel.getWorkgroupAttributions())
    argTypes.push_back(lds.getType());
  b.setInsertionPointToEnd(module.getBody());
  currentLoc = kernel.getLoc();
  host = func::FuncOp::create(b, kernel.getLoc(), (kernel.getName() + "_workgroup").str(),
                              b.getFunctionType(argTypes, {}));
  Block *entry = host.addEntryBlock();
  b.setInsertionPointToStart(entry);
  ctx = asI64(entry->getArgument(0));
  for (auto [i, arg] : llvm::enumerate(kernel.getArguments())) {
    uniform.map(arg, entry->getArgument(7 + i));
    origins[entry->getArgument(7 + i)] = {int(i), 0};
  }
  for (auto [i, lds] : llvm::enumerate(kernel.getWorkgroupAttributions())) {
    Value hostLds = entry->getArgument(7 + kernel.getNumArguments() + i);
    uniform.map(lds, hostLds);
    origins[hostLds] = {-1, 0};
  }
  numThreadsValue = idx(numThreads);

  hoistWorkgroupIds(kernel);
  // Scheduling fences for LLVM's backend: the emulator runs ops in order.
  kernel.walk([](ROCDL::SchedBarrier fence) { fence.erase(); });
  saturateFloatToInt(kernel);
  guardIntegerDivision(kernel);
  if (failed(splitTransposeReads(kernel)) || failed(splitAsyncLoads(kernel)) || failed(splitLaneSwaps(kernel)))
    return failure();
  if (failed(processBlock(kernel.getBody().front())))
    return failure();
  b.setInsertionPointToEnd(entry);
  currentLoc = kernel.getLoc();
  // The per-thread arrays live on the stack when they fit well within it
  // (a host thread's or fiber's 8 MiB): a malloc and free of each per
  // workgroup cost more than small kernels' work.
  int64_t arrayBytes = 0;
  for (Value a : allocations) {
    auto type = cast<MemRefType>(a.getType());
    auto vector = dyn_cast<VectorType>(type.getElementType());
    Type scalar = vector ? vector.getElementType() : type.getElementType();
    arrayBytes += type.getNumElements() * (vector ? vector.getNumElements() : 1) *
                  (scalar.isIntOrIndexOrFloat() ? scalarBytes(scalar) : int64_t(8));
  }
  for (Value a : allocations) {
    if (arrayBytes > kStackArrayBytes) {
      memref::DeallocOp::create(b, loc(), a);
      continue;
    }
    Operation *alloc = a.getDefiningOp();
    OpBuilder at(alloc);
    a.replaceAllUsesWith(memref::AllocaOp::create(at, alloc->getLoc(), cast<MemRefType>(a.getType())).getResult());
    alloc->erase();
  }
  func::ReturnOp::create(b, loc());
  return success();
}

/// Emits `block`'s ops at the current host-level point: once-per-workgroup
/// values directly, runs of per-thread ops as thread loops, lockstep ops as
/// runtime calls, and uniform control flow around lockstep ops as host
/// control flow whose body is processed the same way.
LogicalResult WorkgroupLowering::processBlock(Block &block) {
  SmallVector<Operation *> segment;
  GlobalAccess segmentAccess = GlobalAccess::None; // the most the segment does to global memory
  auto flush = [&]() -> LogicalResult {
    LogicalResult r = segment.empty() ? success() : emitSegment(block, segment);
    segment.clear();
    segmentAccess = GlobalAccess::None;
    return r;
  };
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      break; // the parent handles what a block yields
    if (isUniform(&op)) {
      if (failed(emitUniform(&op)))
        return failure();
      continue;
    }
    if (isSegmentBoundary(&op)) {
      if (failed(flush()) || (isCrossLane(&op) && failed(emitCrossLane(&op))))
        return failure();
      if (isa<gpu::BarrierOp>(op)) { // LDS accesses before it no longer race with those after
        currentLoc = op.getLoc();
        func::CallOp::create(b, loc(), runtimeFunction("rocktile_emu_lds_barrier", 1), ValueRange{ctx});
      }
      continue;
    }
    if (!containsSegmentBoundary(&op)) {
      // A segment runs its threads one after another, where a wave runs
      // each instruction for all its lanes at once: a global write shares
      // no segment with another global access, so that no lane sees a
      // write that comes later in program order, or misses an earlier one.
      GlobalAccess access = globalAccess(&op);
      if (((access == GlobalAccess::Write && segmentAccess != GlobalAccess::None) ||
           (access != GlobalAccess::None && segmentAccess == GlobalAccess::Write)) &&
          failed(flush()))
        return failure();
      segment.push_back(&op);
      segmentAccess = std::max(segmentAccess, access);
      continue;
    }
    if (failed(flush()))
      return failure();
    // Lockstep ops inside control flow: every thread must take the same path.
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      if (failed(emitHostFor(loop)))
        return failure();
      continue;
    }
    if (auto branch = dyn_cast<scf::IfOp>(op)) {
      if (failed(emitHostIf(branch)))
        return failure();
      continue;
    }
    if (auto loop = dyn_cast<scf::WhileOp>(op)) {
      if (failed(emitHostWhile(loop)))
        return failure();
      continue;
    }
    return op.emitError() << "the emulator runs barriers and cross-lane ops inside scf.for, scf.if and "
                             "scf.while only, not inside " << op.getName();
  }
  return flush();
}

void WorkgroupLowering::copyToArrays(ValueRange from, ValueRange to, Block &block) {
  if (from.empty())
    return;
  currentLoc = from.front().getLoc();
  auto loop = scf::ForOp::create(b, loc(), idx(0), numThreadsValue, idx(1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(loop.getBody()->getTerminator());
  Value tid = loop.getInductionVar();
  IRMapping map;
  // Read every value before writing any: `to` may hold some of `from`.
  SmallVector<Value> lanes;
  for (Value v : from)
    lanes.push_back(laneValue(v, tid, map));
  for (auto [lane, dst] : llvm::zip(lanes, to))
    memref::StoreOp::create(b, loc(), lane, arrayFor(dst), ValueRange{tid});
}

LogicalResult WorkgroupLowering::emitHostFor(scf::ForOp loop) {
  currentLoc = loop.getLoc();
  // Loop-carried values live in per-thread arrays, shared by the iteration
  // arguments and the results.
  for (auto [arg, result] : llvm::zip(loop.getRegionIterArgs(), loop.getResults()))
    arrays[result] = arrayFor(arg);
  copyToArrays(loop.getInitArgs(), loop.getRegionIterArgs(), *loop->getBlock());
  // Bounds computed per thread (from a loaded length, say) must agree
  // across the workgroup, as they do on a GPU: checked when the loop starts.
  Value lower = sharedValue(loop, loop.getLowerBound(), "divergent-loop");
  Value upper = sharedValue(loop, loop.getUpperBound(), "divergent-loop");
  Value step = sharedValue(loop, loop.getStep(), "divergent-loop");
  currentLoc = loop.getLoc();
  auto host = scf::ForOp::create(b, loc(), lower, upper, step);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(host.getBody()->getTerminator());
  uniform.map(loop.getInductionVar(), host.getInductionVar());
  if (failed(processBlock(*loop.getBody())))
    return failure();
  copyToArrays(loop.getYieldedValues(), loop.getRegionIterArgs(), *loop.getBody());
  return success();
}

Value WorkgroupLowering::sharedValue(Operation *op, Value v, StringRef kind) {
  if (Value u = uniform.lookupOrNull(v))
    return u;
  currentLoc = op->getLoc();
  int64_t site = addSite(op, kind, Value(), 1);
  Type type = v.getType();
  Value first = func::CallOp::create(b, loc(), runtimeFunction("rocktile_emu_shared_value", 5, true),
                                     ValueRange{ctx, i64(site), addressOf(arrayFor(v)), i64(numThreads),
                                                i64(scalarBytes(type))})
                    .getResult(0);
  if (type.isIndex())
    return arith::IndexCastOp::create(b, loc(), type, first);
  return type.isInteger(64) ? first : arith::TruncIOp::create(b, loc(), type, first).getResult();
}

LogicalResult WorkgroupLowering::emitHostWhile(scf::WhileOp loop) {
  currentLoc = loop.getLoc();
  for (auto [arg, result] : llvm::zip(loop.getAfterArguments(), loop.getResults()))
    arrays[result] = arrayFor(arg);
  copyToArrays(loop.getInits(), loop.getBeforeArguments(), *loop->getBlock());
  LogicalResult status = success();
  scf::WhileOp::create(
      b, loc(), TypeRange{}, ValueRange{},
      [&](OpBuilder &nb, Location l, ValueRange) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
        Block &before = loop.getBefore().front();
        if (failed(processBlock(before)))
          status = failure();
        scf::ConditionOp condition = loop.getConditionOp();
        copyToArrays(condition.getArgs(), loop.getAfterArguments(), before);
        scf::ConditionOp::create(b, l, sharedValue(loop, condition.getCondition()), ValueRange{});
      },
      [&](OpBuilder &nb, Location l, ValueRange) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
        Block &after = loop.getAfter().front();
        if (failed(processBlock(after)))
          status = failure();
        copyToArrays(after.getTerminator()->getOperands(), loop.getBeforeArguments(), after);
        scf::YieldOp::create(b, l);
      });
  return status;
}

LogicalResult WorkgroupLowering::emitHostIf(scf::IfOp branch) {
  currentLoc = branch.getLoc();
  auto host = scf::IfOp::create(b, loc(), sharedValue(branch, branch.getCondition()),
                                /*withElseRegion=*/!branch.getElseRegion().empty());
  for (auto [from, to] : {std::pair{&branch.getThenRegion(), &host.getThenRegion()},
                          {&branch.getElseRegion(), &host.getElseRegion()}}) {
    if (from->empty())
      continue;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(to->front().getTerminator());
    if (failed(processBlock(from->front())))
      return failure();
    copyToArrays(from->front().getTerminator()->getOperands(), branch.getResults(), from->front());
  }
  return success();
}

LogicalResult WorkgroupLowering::emitUniform(Operation *op) {
  currentLoc = op->getLoc();
  Value result;
  if (auto id = dyn_cast<gpu::BlockIdOp>(op))
    result = host.getArgument(1 + unsigned(id.getDimension()));
  else if (auto dim = dyn_cast<gpu::GridDimOp>(op))
    result = host.getArgument(4 + unsigned(dim.getDimension()));
  else if (auto dim = dyn_cast<gpu::BlockDimOp>(op))
    result = idx(dim.getDimension() == gpu::Dimension::x ? numThreads : 1);
  if (result) {
    uniform.map(op->getResult(0), result);
    return success();
  }
  if (mapShiftedView(op, uniform))
    return success();
  if (memref::AllocaOp alloca = privateArray(op)) {
    MemRefType type = alloca.getType();
    if (type.getRank() != 1 || !type.hasStaticShape())
      return op->emitError("the emulator supports only 1-D private arrays of static size");
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&host.getBody().front());
    Value array = memref::AllocOp::create(
        b, loc(), MemRefType::get({numThreads * type.getNumElements()}, type.getElementType()));
    allocations.push_back(array);
    uniform.map(alloca.getResult(), array);
    privateArrays[alloca.getResult()] = type.getNumElements();
    return success();
  }
  if (auto assume = dyn_cast<memref::AssumeAlignmentOp>(op)) {
    // The kernel was specialized for this alignment: check the claim.
    Value memref = uniform.lookup(assume.getMemref());
    Value address = memref::ExtractAlignedPointerAsIndexOp::create(b, loc(), memref);
    Value rem = arith::RemUIOp::create(b, loc(), address, idx(assume.getAlignment()));
    Value bad = arith::CmpIOp::create(b, loc(), arith::CmpIPredicate::ne, rem, idx(0));
    int64_t site = addSite(op, "alignment", memref, assume.getAlignment());
    func::FuncOp fault = runtimeFunction("rocktile_emu_fault", 6);
    scf::IfOp::create(b, loc(), bad, [&](OpBuilder &bb, Location l) {
      func::CallOp::create(bb, l, fault,
                           ValueRange{ctx, i64(site), asI64(address), i64(0), i64(0), i64(0)});
      scf::YieldOp::create(bb, l);
    });
    uniform.map(assume.getResult(), memref);
    origins[memref] = *originOf(memref);
    return success();
  }
  Operation *clone = b.clone(*op, uniform);
  if (rocktile::isFlatMemory(clone))
    origins[clone->getResult(0)] = {kAddressedMemory, 0};
  if (auto view = dyn_cast<memref::ViewOp>(clone)) {
    std::optional<BufferOrigin> origin = originOf(view.getSource());
    auto offset = getConstantIntValue(view.getByteShift());
    auto source = cast<MemRefType>(view.getSource().getType());
    auto type = view.getType();
    int64_t bytes = type.getNumElements() * elementBytes(type);
    if (!offset || !source.hasStaticShape() || !type.hasStaticShape() ||
        *offset + bytes > source.getNumElements())
      return op->emitError("LDS view outside the workgroup's LDS allocation");
    if (origin)
      origins[view.getResult()] = {origin->argIndex, origin->ldsOffset + *offset};
  }
  return success();
}

/// The value `v` as seen by thread `tid` inside a segment.
Value WorkgroupLowering::laneValue(Value v, Value tid, IRMapping &segment) {
  if (Value m = segment.lookupOrNull(v))
    return m;
  if (Value u = uniform.lookupOrNull(v))
    return u;
  // A view (a buffer resource, a reinterpreted memref) made in another
  // segment is made again here, from its operands: no array holds memrefs.
  if (Operation *def = v.getDefiningOp(); def && isa<MemRefType>(v.getType()) && isMemoryEffectFree(def) &&
                                          !def->getNumRegions()) {
    for (Value operand : def->getOperands())
      if (!segment.contains(operand))
        segment.map(operand, laneValue(operand, tid, segment));
    if (succeeded(cloneChecked(def, segment, tid)) && segment.contains(v))
      return segment.lookup(v);
  }
  Value loaded = memref::LoadOp::create(b, loc(), arrayFor(v), ValueRange{tid});
  segment.map(v, loaded);
  return loaded;
}

LogicalResult WorkgroupLowering::emitSegment(Block &block, ArrayRef<Operation *> ops) {
  currentLoc = ops.front()->getLoc();
  auto loop = scf::ForOp::create(b, loc(), idx(0), numThreadsValue, idx(1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(loop.getBody()->getTerminator());
  Value tid = loop.getInductionVar();
  IRMapping map;
  DenseSet<Operation *> inSegment(ops.begin(), ops.end());
  for (Operation *op : ops) {
    currentLoc = op->getLoc();
    // Values from other segments come from their arrays.
    op->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands()) {
        Operation *def = operand.getDefiningOp();
        bool local = def && inSegment.contains(block.findAncestorOpInBlock(*def));
        if (!local && !map.contains(operand) &&
            !(isa<BlockArgument>(operand) && op->isAncestor(operand.getParentRegion()->getParentOp())))
          map.map(operand, laneValue(operand, tid, map));
      }
    });
    if (failed(cloneChecked(op, map, tid)))
      return failure();
    for (Value r : op->getResults()) {
      if (isa<MemRefType>(r.getType()))
        continue; // made again where it is used (laneValue)
      bool usedLater = llvm::any_of(r.getUsers(), [&](Operation *user) {
        return !inSegment.contains(block.findAncestorOpInBlock(*user));
      });
      if (usedLater)
        memref::StoreOp::create(b, loc(), map.lookup(r), arrayFor(r), ValueRange{tid});
    }
  }
  return success();
}

bool WorkgroupLowering::mapShiftedView(Operation *op, IRMapping &to) {
  if (auto buffer = dyn_cast<amdgpu::FatRawBufferCastOp>(op)) {
    // The same elements, reached through a buffer resource (see the loads).
    to.map(buffer.getResult(), hostValue(buffer.getSource(), to));
    if (auto it = shiftedViews.find(buffer.getSource()); it != shiftedViews.end())
      shiftedViews[buffer.getResult()] = it->second;
    return true;
  }
  auto cast = dyn_cast<memref::ReinterpretCastOp>(op);
  if (!cast || cast.getType().getRank() != 1)
    return false;
  Value offset = cast.getOffsets().empty() ? idx(cast.getStaticOffsets()[0]) : cast.getOffsets()[0];
  shiftedViews[cast.getResult()] = {cast.getSource(), offset};
  to.map(cast.getResult(), hostValue(cast.getSource(), to));
  return true;
}

/// Clones `op` into the thread loop: thread ids become the loop's index and
/// memory accesses are bounds-checked.
LogicalResult WorkgroupLowering::cloneChecked(Operation *op, IRMapping &map, Value tid) {
  OpBuilder &builder = b;
  if (auto t = dyn_cast<gpu::ThreadIdOp>(op)) {
    map.map(t.getResult(), t.getDimension() == gpu::Dimension::x ? tid : idx(0));
    return success();
  }
  if (auto check = dyn_cast<cf::AssertOp>(op)) {
    // device_assert's, or a check of the emulator's own (reported as itself).
    int64_t site = addSite(op, op->hasAttr(rocktile::kEmulatorCheck) ? "check" : "assert", Value(), 0, check.getMsg());
    Value failed = arith::XOrIOp::create(b, loc(), map.lookupOrDefault(check.getArg()),
                                         arith::ConstantIntOp::create(b, loc(), 1, 1));
    func::FuncOp fault = runtimeFunction("rocktile_emu_fault", 6);
    scf::IfOp::create(b, loc(), failed, [&](OpBuilder &bb, Location l) {
      func::CallOp::create(bb, l, fault, ValueRange{ctx, i64(site), i64(0), i64(0), i64(0), asI64(tid)});
      scf::YieldOp::create(bb, l);
    });
    return success();
  }
  if (auto fence = dyn_cast<LLVM::FenceOp>(op)) {
    // Fences at device or system scope order workgroups (racecheck).
    std::optional<StringRef> scope = fence.getSyncscope();
    if (!scope || scope->empty() || *scope == "agent") {
      bool release = fence.getOrdering() != LLVM::AtomicOrdering::acquire;
      bool acquire = fence.getOrdering() != LLVM::AtomicOrdering::release;
      if (release)
        func::CallOp::create(b, loc(), runtimeFunction("rocktile_emu_release", 1), ValueRange{ctx});
      if (acquire)
        func::CallOp::create(b, loc(), runtimeFunction("rocktile_emu_acquire", 1), ValueRange{ctx});
    }
    builder.clone(*op, map);
    return success();
  }
  if (auto lane = dyn_cast<gpu::LaneIdOp>(op)) {
    map.map(lane.getResult(), arith::RemUIOp::create(builder, loc(), tid, idx(waveSize)));
    return success();
  }
  // Memory accesses: (memref, first index, element count, is store).
  Value memref, index, stored;
  int64_t count = 1;
  Type resultType;
  if (auto l = dyn_cast<memref::LoadOp>(op))
    memref = l.getMemref(), index = l.getIndices().front(), resultType = l.getType();
  else if (auto s = dyn_cast<memref::StoreOp>(op))
    memref = s.getMemref(), index = s.getIndices().front(), stored = s.getValue();
  else if (auto l = dyn_cast<vector::LoadOp>(op))
    memref = l.getBase(), index = l.getIndices().front(), resultType = l.getType(),
    count = l.getVectorType().getNumElements();
  else if (auto s = dyn_cast<vector::StoreOp>(op))
    memref = s.getBase(), index = s.getIndices().front(), stored = s.getValueToStore(),
    count = s.getVectorType().getNumElements();
  else if (auto a = dyn_cast<memref::AtomicRMWOp>(op))
    memref = a.getMemref(), index = a.getIndices().front(), resultType = a.getType();
  else if (auto a = dyn_cast<memref::GenericAtomicRMWOp>(op))
    memref = a.getMemref(), index = a.getIndices().front(), resultType = a.getType();

  // A thread's private array is its part of the workgroup's: compiler
  // made (its accesses in bounds by construction), owned by one thread.
  // Every access op takes its indices right after its memref.
  auto indexOperand = [&] {
    return llvm::find_if(op->getOpOperands(), [&](OpOperand &o) { return o.get() == memref; })->getOperandNumber() +
           1;
  };
  if (auto size = privateArrays.find(memref); size != privateArrays.end()) {
    Value first = arith::MulIOp::create(builder, loc(), tid, idx(size->second));
    Value at = arith::AddIOp::create(builder, loc(), map.lookupOrDefault(index), first);
    Operation *clone = builder.clone(*op, map);
    clone->setOperand(indexOperand(), at);
    clone->removeAttr("alignment");
    return success();
  }
  if (!memref) {
    if (mapShiftedView(op, map))
      return success();
    // Structured ops: clone the shell, then their bodies op by op so that
    // accesses inside branches are checked too.
    if (op->getNumRegions() == 0) {
      builder.clone(*op, map);
      return success();
    }
    Operation *shell = builder.cloneWithoutRegions(*op, map);
    for (auto [from, to] : llvm::zip(op->getRegions(), shell->getRegions())) {
      for (Block &block : from) {
        Block *nb = builder.createBlock(&to);
        for (BlockArgument a : block.getArguments())
          map.map(a, nb->addArgument(a.getType(), a.getLoc()));
        for (Operation &child : block)
          if (failed(cloneChecked(&child, map, tid)))
            return failure();
      }
    }
    for (auto [r, nr] : llvm::zip(op->getResults(), shell->getResults()))
      map.map(r, nr);
    builder.setInsertionPointAfter(shell);
    return success();
  }
  if (cast<MemRefType>(memref.getType()).getRank() != 1)
    return op->emitError("the emulator checks only 1-D memory accesses");
  Value hostMemref = hostValue(memref, map);
  int64_t eltBytes = elementBytes(cast<MemRefType>(memref.getType()));
  // A volatile load reads a flag another workgroup sets: racecheck orders
  // nothing by it, nor takes it for a read the flag's writes race with.
  StringRef kind = isa<memref::AtomicRMWOp, memref::GenericAtomicRMWOp>(op) ? "atomic update"
                   : stored                                                 ? "store"
                   : op->hasAttr(rocktile::kVolatileAccess)                 ? "volatile load"
                                                                            : "load";
  // A vector access whose alignment (checked below) is its size covers
  // whole blocks of that size: racecheck may track the buffer so.
  auto claimed = op->getAttrOfType<IntegerAttr>("alignment");
  int64_t accessBytes = count * eltBytes;
  bool wholeBlocks = llvm::isPowerOf2_64(accessBytes) && claimed && claimed.getInt() >= accessBytes;
  int64_t site = addSite(op, kind, hostMemref, eltBytes, "", wholeBlocks ? accessBytes : eltBytes);
  // Through a shifted view, `index` counts from the view's start.
  Value viewIndex = map.lookupOrDefault(index), hostIndex = viewIndex;
  auto shifted = shiftedViews.find(memref);
  if (shifted != shiftedViews.end())
    hostIndex = arith::AddIOp::create(builder, loc(), hostValue(shifted->second.second, map), viewIndex);
  Value size = memref::DimOp::create(builder, loc(), hostMemref, 0);
  Value end = arith::AddIOp::create(builder, loc(), hostIndex, idx(count));
  Value inBounds = arith::AndIOp::create(
      builder, loc(),
      arith::CmpIOp::create(builder, loc(), arith::CmpIPredicate::sge, hostIndex, idx(0)),
      arith::CmpIOp::create(builder, loc(), arith::CmpIPredicate::sle, end, size));
  // Before a view's start is outside its buffer resource (the hardware
  // would read zeros there): a fault even inside the argument.
  if (shifted != shiftedViews.end())
    inBounds = arith::AndIOp::create(
        builder, loc(), inBounds,
        arith::CmpIOp::create(builder, loc(), arith::CmpIPredicate::sge, viewIndex, idx(0)));
  std::optional<BufferOrigin> origin = originOf(hostMemref);
  bool atomic = isa<memref::AtomicRMWOp, memref::GenericAtomicRMWOp>(op);
  // Memory reached from an integer address has no extent of its own: the
  // runtime decides from the address (rocktile_emu_addressed_access), and
  // checks an access inside a buffer argument as one through it.
  if (origin && origin->argIndex == kAddressedMemory) {
    Value address = arith::MulIOp::create(builder, loc(), hostIndex, idx(eltBytes));
    Value ok = func::CallOp::create(builder, loc(), runtimeFunction("rocktile_emu_addressed_access", 6, true),
                                    ValueRange{ctx, i64(site), asI64(address), i64(count * eltBytes), asI64(tid),
                                               i64(atomic ? 2 : stored ? 1 : 0)})
                   .getResult(0);
    inBounds = arith::AndIOp::create(builder, loc(), inBounds,
                                     arith::CmpIOp::create(builder, loc(), arith::CmpIPredicate::ne, ok, i64(0)));
  }
  func::FuncOp fault = runtimeFunction("rocktile_emu_fault", 6);
  auto reportFault = [&](OpBuilder &bb, Location l) {
    func::CallOp::create(bb, l, fault,
                         ValueRange{ctx, i64(site), asI64(hostIndex), i64(count), asI64(size),
                                    asI64(tid)});
  };
  bool lds = origin && origin->argIndex == -1 && !atomic;
  bool spins = !lds && (op->hasAttr(rocktile::kVolatileAccess) || (atomic && op->getParentOfType<scf::WhileOp>()));
  hasSpinPoints |= spins;
  // A vector access claims an alignment (a 128-bit LDS access needs 16
  // bytes): check it on the device address, which for LDS is the offset.
  auto align = op->getAttrOfType<IntegerAttr>("alignment");
  if (align && align.getInt() > eltBytes && origin) {
    Value start = lds ? idx(origin->ldsOffset)
                      : memref::ExtractAlignedPointerAsIndexOp::create(builder, loc(), hostMemref).getResult();
    Value address = arith::AddIOp::create(builder, loc(), start,
                                          arith::MulIOp::create(builder, loc(), hostIndex, idx(eltBytes)));
    Value bad = arith::CmpIOp::create(builder, loc(), arith::CmpIPredicate::ne,
                                      arith::RemUIOp::create(builder, loc(), address, idx(align.getInt())),
                                      idx(0));
    int64_t alignSite = addSite(op, "misaligned", hostMemref, eltBytes);
    scf::IfOp::create(builder, loc(), bad, [&](OpBuilder &bb, Location l) {
      func::CallOp::create(bb, l, fault,
                           ValueRange{ctx, i64(alignSite), asI64(hostIndex), i64(align.getInt()), asI64(size),
                                      asI64(tid)});
      scf::YieldOp::create(bb, l);
    });
  }
  // An LDS address every thread shares, in an op every thread runs (the
  // segment's own, not nested in a branch), is recorded for all of them at
  // thread 0's turn: a row's partial results read back by every lane made
  // one call per thread.
  bool allThreadsShare = builder.getInsertionBlock() == tid.getParentBlock() &&
                         !tid.getParentBlock()->getParentOp()->isAncestor(hostIndex.getParentBlock()->getParentOp());
  auto access = [&](OpBuilder &bb, Location l) -> Operation * {
    // Which wave touched each LDS byte since the last barrier: the runtime
    // reports an access that conflicts with another wave's.
    if (lds && allThreadsShare) {
      Value first = arith::CmpIOp::create(bb, l, arith::CmpIPredicate::eq, tid, idx(0));
      scf::IfOp::create(bb, l, first, [&](OpBuilder &ib, Location il) {
        func::CallOp::create(ib, il, runtimeFunction("rocktile_emu_lds_access_all", 5),
                             ValueRange{ctx, i64(site), asI64(hostIndex), i64(count * eltBytes),
                                        i64(stored ? 1 : 0)});
        scf::YieldOp::create(ib, il);
      });
    } else if (lds) {
      func::CallOp::create(bb, l, runtimeFunction("rocktile_emu_lds_access", 6),
                           ValueRange{ctx, i64(site), asI64(hostIndex), i64(count * eltBytes), asI64(tid),
                                      i64(stored ? 1 : 0)});
    }
    // What each wave did to a buffer argument's bytes since its last
    // barrier, and which workgroup wrote them: racecheck and initcheck.
    if (origin && origin->argIndex >= 0)
      func::CallOp::create(bb, l, runtimeFunction("rocktile_emu_global_access", 6),
                           ValueRange{ctx, i64(site), asI64(hostIndex), i64(count), asI64(tid),
                                      i64(atomic ? 2 : stored ? 1 : 0)});
    Operation *clone = bb.clone(*op, map);
    clone->setOperand(indexOperand(), hostIndex);
    // Host vector accesses need no alignment; the device's claim was checked.
    clone->removeAttr("alignment");
    // Where a workgroup may wait for another (a volatile load, an atomic in
    // a while loop), the runtime sees what it read and lets the other
    // workgroups of the launch run (rocktile_emu_spin): opaque to the host
    // compiler, the call also keeps the next read from being hoisted.
    if (spins)
      func::CallOp::create(bb, l, runtimeFunction("rocktile_emu_spin", 3),
                           ValueRange{ctx, i64(site), foldBits(bb, l, clone->getResult(0))});
    return clone;
  };
  // An access through a buffer resource past its last byte reads zeros or
  // writes nothing. Only a lane whose access was masked off goes to 2^31
  // bytes or beyond (rocktile buffers are < 2 GiB): anything else out of
  // range is still a fault.
  Value checked; // null: every out-of-range access is a fault
  auto space = dyn_cast_or_null<amdgpu::AddressSpaceAttr>(cast<MemRefType>(memref.getType()).getMemorySpace());
  if (space && space.getValue() == amdgpu::AddressSpace::FatRawBuffer) {
    Value byte = arith::MulIOp::create(builder, loc(), viewIndex, idx(eltBytes));
    checked = arith::CmpIOp::create(builder, loc(), arith::CmpIPredicate::slt, byte, idx(int64_t(1) << 31));
    inBounds = arith::AndIOp::create(builder, loc(), inBounds, checked);
  }
  auto faultUnlessMasked = [&](OpBuilder &bb, Location l) {
    if (!checked)
      return reportFault(bb, l);
    scf::IfOp::create(bb, l, checked, [&](OpBuilder &fb, Location fl) {
      reportFault(fb, fl);
      scf::YieldOp::create(fb, fl);
    });
  };
  if (stored) {
    scf::IfOp::create(builder, loc(), inBounds,
                      [&](OpBuilder &bb, Location l) {
                        access(bb, l);
                        scf::YieldOp::create(bb, l);
                      },
                      [&](OpBuilder &bb, Location l) {
                        faultUnlessMasked(bb, l);
                        scf::YieldOp::create(bb, l);
                      });
    return success();
  }
  auto ifOp = scf::IfOp::create(
      builder, loc(), inBounds,
      [&](OpBuilder &bb, Location l) { scf::YieldOp::create(bb, l, access(bb, l)->getResult(0)); },
      [&](OpBuilder &bb, Location l) {
        faultUnlessMasked(bb, l);
        Value zero = arith::ConstantOp::create(bb, l, bb.getZeroAttr(resultType));
        scf::YieldOp::create(bb, l, zero);
      });
  map.map(op->getResult(0), ifOp.getResult(0));
  return success();
}

LogicalResult WorkgroupLowering::emitMatrix(Operation *op, StringRef target, unsigned m, unsigned n,
                                            unsigned k) {
  auto instrs = allMatrixInstrs();
  Type acc = getElementTypeOrSelf(op->getResult(0).getType());
  auto it = llvm::find_if(instrs, [&](const MatrixInstr &i) {
    return i.target == target && i.M == m && i.N == n && i.K == k && i.integer == acc.isInteger(32);
  });
  auto fa = matrixFormat(op->getOperand(0).getType()), fb = matrixFormat(op->getOperand(1).getType());
  auto isF8F6F4 = [](MatrixFormat f) {
    return f == MatrixFormat::E4M3 || f == MatrixFormat::E5M2 || f == MatrixFormat::E2M1 ||
           f == MatrixFormat::E2M3 || f == MatrixFormat::E3M2;
  };
  // Operands share one type, except the f8f6f4 instructions', which mix.
  bool pair = fa && fb && (fa == fb || (isF8F6F4(*fa) && isF8F6F4(*fb)));
  bool accOk = fa == MatrixFormat::I8 ? acc.isInteger(32) : acc.isF32();
  if (it == instrs.end() || !pair || !accOk)
    return op->emitError("the emulator has no semantics for this matrix instruction");
  SmallVector<Value> arrays;
  for (Value v : op->getOperands())
    arrays.push_back(addressOf(threadArray(v, op)));
  arrays.push_back(addressOf(arrayFor(op->getResult(0))));
  SmallVector<Value> args{i64(it - instrs.begin())};
  args.append(arrays);
  args.append({i64(numThreads), i64(int64_t(*fa)), i64(int64_t(*fb))});
  StringRef entry = "rocktile_emu_matrix";
  // A scaled instruction's scale format, and per operand its scale bytes
  // per lane (a scalar scale is the word's low byte, zero-extended) and
  // selector (gfx950's opsel byte, gfx1250's first scale lane).
  std::optional<std::array<std::pair<Value, int64_t>, 2>> scales;
  if (auto scaled = dyn_cast<amdgpu::ScaledMFMAOp>(op))
    scales = {{{scaled.getScalesA(), scaled.getScalesIdxA()}, {scaled.getScalesB(), scaled.getScalesIdxB()}}};
  if (auto scaled = dyn_cast<amdgpu::ScaledWMMAOp>(op))
    scales = {{{scaled.getScaleA(), scaled.getAFirstScaleLane()}, {scaled.getScaleB(), scaled.getBFirstScaleLane()}}};
  if (scales) {
    entry = "rocktile_emu_scaled_matrix";
    bool e4m3 = isa<Float8E4M3FNType>(getElementTypeOrSelf((*scales)[0].first.getType()));
    args.push_back(i64(int64_t(e4m3 ? ScaleFormat::E4M3 : ScaleFormat::E8M0)));
    for (auto [scale, select] : *scales) {
      auto vector = dyn_cast<VectorType>(scale.getType());
      args.append({i64(vector ? vector.getNumElements() : 1), i64(select)});
    }
  }
  func::CallOp::create(b, loc(), runtimeFunction(entry, args.size()), args);
  return success();
}

LogicalResult WorkgroupLowering::emitCrossLane(Operation *op) {
  currentLoc = op->getLoc();
  if (auto mfma = dyn_cast<amdgpu::MFMAOp>(op))
    return emitMatrix(op, "gfx950", mfma.getM(), mfma.getN(), mfma.getK());
  if (auto mfma = dyn_cast<amdgpu::ScaledMFMAOp>(op))
    return emitMatrix(op, "gfx950", mfma.getM(), mfma.getN(), mfma.getK());
  if (auto wmma = dyn_cast<amdgpu::WMMAOp>(op))
    return emitMatrix(op, "gfx1250", wmma.getM(), wmma.getN(), wmma.getK());
  if (auto wmma = dyn_cast<amdgpu::ScaledWMMAOp>(op))
    return emitMatrix(op, "gfx1250", wmma.getM(), wmma.getN(), wmma.getK());
  if (auto ext = dyn_cast<amdgpu::ScaledExtPackedMatrixOp>(op)) {
    // Lanes read their scales from other lanes' registers.
    auto source = cast<VectorType>(ext.getSource().getType());
    auto out = matrixFormat(getElementTypeOrSelf(ext.getType()));
    if (matrixFormat(source) != MatrixFormat::E2M1 || !out)
      return op->emitError("the emulator runs scaled_ext_packed_matrix on E2M1 codes only");
    func::CallOp::create(b, loc(), runtimeFunction("rocktile_emu_scaled_ext_matrix", 9),
                         ValueRange{addressOf(threadArray(ext.getSource(), op)), addressOf(threadArray(ext.getScale(), op)),
                                    addressOf(arrayFor(ext.getResult())), i64(numThreads), i64(waveSize),
                                    i64(int64_t(*out)), i64(ext.getBlockSize()), i64(ext.getFirstScaleLane()),
                                    i64(ext.getFirstScaleByte())});
    return success();
  }
  if (auto wait = dyn_cast<amdgpu::MemoryCounterWaitOp>(op)) {
    // vmcnt counts the direct-to-LDS loads (other loads complete at issue
    // here); dscnt nothing (LDS accesses complete at once).
    if (auto load = wait.getLoadAttr())
      func::CallOp::create(b, loc(), runtimeFunction("rocktile_emu_wait_async_loads", 2),
                           ValueRange{ctx, i64(load.getInt())});
    if (auto tensor = wait.getTensorAttr())
      func::CallOp::create(b, loc(), runtimeFunction("rocktile_emu_wait_tensorcnt", 2),
                           ValueRange{ctx, i64(tensor.getInt())});
    return success();
  }
  if (auto wait = dyn_cast<ROCDL::WaitAsynccntOp>(op)) {
    func::CallOp::create(b, loc(), runtimeFunction("rocktile_emu_wait_async_loads", 2),
                         ValueRange{ctx, i64(wait.getCount())});
    return success();
  }
  if (auto copy = op->getAttrOfType<BoolAttr>(kAsyncLoad)) {
    Value data = op->getOperand(0), index = op->getOperand(1), view = op->getOperand(2);
    Value hostView = uniform.lookupOrNull(view);
    std::optional<BufferOrigin> origin = hostView ? originOf(hostView) : std::nullopt;
    if (!origin || origin->argIndex != -1)
      return op->emitError("the emulator runs async loads only into LDS views the workgroup shares");
    auto type = cast<VectorType>(data.getType());
    int64_t eltBytes = elementBytes(cast<MemRefType>(view.getType()));
    int64_t bytes = type.getNumElements() * scalarBytes(type.getElementType());
    int64_t site = addSite(op, "async copy", hostView, eltBytes);
    func::CallOp::create(b, loc(), runtimeFunction("rocktile_emu_async_load", 9),
                         ValueRange{ctx, i64(site), addressOf(threadArray(data, op)), addressOf(threadArray(index, op)),
                                    i64(numThreads), i64(eltBytes), i64(bytes), i64(origin->ldsOffset),
                                    i64(copy.getValue())});
    return success();
  }
  if (auto wait = dyn_cast<ROCDL::WaitTensorcntOp>(op)) {
    func::CallOp::create(b, loc(), runtimeFunction("rocktile_emu_wait_tensorcnt", 2),
                         ValueRange{ctx, i64(wait.getCount())});
    return success();
  }
  if (isa<ROCDL::TensorLoadToLDSD2Op, ROCDL::TensorStoreFromLDSD2Op>(op)) {
    // Each wave's descriptor, from every lane's copy of it (Emulator.cpp).
    bool store = isa<ROCDL::TensorStoreFromLDSD2Op>(op);
    SmallVector<Value> args{ctx, i64(addSite(op, "tensor copy", Value(), 1))};
    for (Value group : {op->getOperand(0), op->getOperand(1)})
      args.push_back(addressOf(threadArray(group, op)));
    args.push_back(i64(numThreads));
    func::CallOp::create(b, loc(),
                         runtimeFunction(store ? "rocktile_emu_tensor_store" : "rocktile_emu_tensor_load", args.size()),
                         args);
    return success();
  }
  Value src = op->getOperand(0);
  if (op->hasAttr(kLaneTranspose)) {
    // Groups of a quarter wave's lanes exchange (test/unit/isa/lds_transpose_reads.json).
    auto type = cast<VectorType>(src.getType());
    func::CallOp::create(b, loc(), runtimeFunction("rocktile_emu_lds_transpose", 6),
                         ValueRange{addressOf(threadArray(src, op)), addressOf(arrayFor(op->getResult(0))),
                                    i64(numThreads), i64(scalarBytes(type.getElementType())),
                                    i64(type.getNumElements()), i64(waveSize / 4)});
    return success();
  }
  if (auto swap = op->getAttrOfType<DenseI64ArrayAttr>(kLaneSwap)) {
    func::CallOp::create(b, loc(), runtimeFunction("rocktile_emu_permlane_swap_result", 6),
                         ValueRange{addressOf(threadArray(op->getOperand(0), op)),
                                    addressOf(threadArray(op->getOperand(1), op)),
                                    addressOf(arrayFor(op->getResult(0))), i64(numThreads), i64(swap[0]),
                                    i64(swap[1])});
    return success();
  }
  int64_t bits = src.getType().isIntOrFloat() ? src.getType().getIntOrFloatBitWidth() : 0;
  if (bits != 32 && bits != 64)
    return op->emitError("the emulator exchanges only 32- and 64-bit values between lanes");
  Value srcArray = threadArray(src, op);
  Value dst = arrayFor(op->getResult(0));
  Value n = i64(numThreads);
  Value bytes = i64(bits / 8);
  auto call = [&](StringRef name, SmallVector<Value> args) {
    func::CallOp::create(b, loc(), runtimeFunction(name, args.size()), args);
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](ROCDL::DPPUpdateOp dpp) -> LogicalResult {
        uint32_t ctrl = dpp.getDppCtrl();
        if (ctrl > 0x16f || (ctrl >= 0x130 && ctrl < 0x140) || (ctrl > 0x141 && ctrl < 0x150) ||
            ctrl == 0x100 || ctrl == 0x110 || ctrl == 0x120)
          return op->emitError("the emulator implements DPP quad_perm, row_shl, row_shr, row_ror, row_mirror, "
                               "row_half_mirror, row_share and row_xmask, not DPP control 0x")
                 << llvm::utohexstr(ctrl);
        // Operand 0, `srcArray` above, is the old value; the lanes read `src`.
        call("rocktile_emu_dpp", {addressOf(srcArray), addressOf(threadArray(dpp.getSrc(), op)), addressOf(dst), n,
                                  bytes, i64(waveSize), i64(ctrl), i64(dpp.getRowMask()), i64(dpp.getBankMask()),
                                  i64(dpp.getBoundCtrl())});
        return success();
      })
      .Case([&](amdgpu::SwizzleBitModeOp s) {
        call("rocktile_emu_ds_swizzle", {addressOf(srcArray), addressOf(dst), n, bytes, i64(s.getAndMask()),
                                         i64(s.getOrMask()), i64(s.getXorMask())});
        return success();
      })
      .Case([&](ROCDL::ReadfirstlaneOp) {
        // Every lane of a wave gets its first lane's value (all lanes run).
        call("rocktile_emu_readfirstlane", {addressOf(srcArray), addressOf(dst), n, bytes, i64(waveSize)});
        return success();
      })
      .Case([&](amdgpu::PermlaneSwapOp p) {
        call("rocktile_emu_permlane_swap",
             {addressOf(srcArray), addressOf(dst), n, bytes, i64(waveSize), i64(p.getRowLength())});
        return success();
      })
      .Case([&](ROCDL::PermlaneX16Op p) -> LogicalResult {
        auto sel0 = getConstantIntValue(uniform.lookupOrDefault(p.getSrc1()));
        auto sel1 = getConstantIntValue(uniform.lookupOrDefault(p.getSrc2()));
        if (!sel0 || !sel1 || !p.getFi() || bits != 32 || p.getOld() != p.getSrc0())
          return op->emitError("the emulator implements permlanex16 of 32-bit values with constant selects, "
                               "fetching all lanes, with old the source");
        call("rocktile_emu_permlanex16", {addressOf(srcArray), addressOf(dst), n, bytes, i64(*sel0), i64(*sel1)});
        return success();
      })
      .Case([&](gpu::ShuffleOp s) -> LogicalResult {
        auto offset = getConstantIntValue(uniform.lookupOrDefault(s.getOffset()));
        auto width = getConstantIntValue(uniform.lookupOrDefault(s.getWidth()));
        if (!offset || !width)
          return op->emitError("the emulator needs constant shuffle offsets and widths");
        Value valid = arrayFor(s.getValid());
        call("rocktile_emu_shuffle", {addressOf(srcArray), addressOf(dst), addressOf(valid), n, bytes,
                                      i64(waveSize), i64(*offset), i64(*width),
                                      i64(int64_t(s.getMode()))});
        return success();
      })
      .Default([&](Operation *) { return op->emitError("unknown cross-lane op"); });
}

struct LowerSimtToHostPass
    : public rocktile::emulator::impl::LowerSimtToHostBase<LowerSimtToHostPass> {
  using LowerSimtToHostBase::LowerSimtToHostBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUFuncOp> kernels;
    module.walk([&](gpu::GPUFuncOp f) {
      if (f.isKernel())
        kernels.push_back(f);
    });
    SmallVector<DictionaryAttr> sites;
    for (gpu::GPUFuncOp kernel : kernels) {
      WorkgroupLowering lowering(kernel, module, waveSize, sites);
      if (failed(lowering.run()))
        return signalPassFailure();
      if (lowering.spins())
        module->setAttr(kSpinPoints, UnitAttr::get(&getContext()));
    }
    // The emulator reads the fault sites back from here.
    module->setAttr("rocktile.emulator_sites",
                    ArrayAttr::get(&getContext(), SmallVector<Attribute>(sites.begin(), sites.end())));
    for (auto gpuModule : llvm::make_early_inc_range(module.getOps<gpu::GPUModuleOp>()))
      gpuModule.erase();
    module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
  }
};

} // namespace
