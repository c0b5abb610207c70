#include "rocktile/Transforms/Passes.h"
#include "rocktile/Conversion/FlatMemory.h"
#include "mlir/Conversion/AMDGPUToROCDL/AMDGPUToROCDL.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUToROCDL/GPUToROCDLPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Dialect/AMDGPU/Utils/Chipset.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"

namespace rocktile {
#define GEN_PASS_DEF_CONVERTSIMTTOLLVM
#include "rocktile/Transforms/Passes.h.inc"
} // namespace rocktile

using namespace mlir;

namespace {

/// The grid size in workgroups, from the code object's hidden kernel
/// arguments (block_count_x/y/z at bytes 0/4/8), instead of upstream's call
/// into the ROCm device library.
struct GridDimFromHiddenArgs : public ConvertOpToLLVMPattern<gpu::GridDimOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(gpu::GridDimOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto constant = LLVM::LLVMPointerType::get(rewriter.getContext(), 4);
    Value hidden = LLVM::CallIntrinsicOp::create(rewriter, loc, constant,
                                                 rewriter.getStringAttr("llvm.amdgcn.implicitarg.ptr"),
                                                 ValueRange{})
                       .getResult(0);
    Value field = LLVM::GEPOp::create(rewriter, loc, constant, rewriter.getI8Type(), hidden,
                                      ArrayRef<LLVM::GEPArg>{int32_t(4 * unsigned(op.getDimension()))});
    Value count = LLVM::LoadOp::create(rewriter, loc, rewriter.getI32Type(), field, /*alignment=*/4,
                                       /*isVolatile=*/false, /*isNonTemporal=*/false,
                                       /*isInvariant=*/true);
    rewriter.replaceOpWithNewOp<LLVM::ZExtOp>(op, getTypeConverter()->getIndexType(), count);
    return success();
  }
};

/// f32 math with `afn` is the hardware's instruction, as in Triton's AMD
/// backend: `tl.exp2` v_exp_f32 (without LLVM's rescaling for results below
/// 2^-126, which then flush to 0: four instructions fewer per element),
/// `tl.sqrt` v_sqrt_f32 and `tl.rsqrt` v_rsq_f32 (within 1 ulp, where
/// LLVM's sqrt is a correctly rounded sequence and rsqrt a divide of it).
template <typename MathOp>
struct HardwareMath : public ConvertOpToLLVMPattern<MathOp> {
  HardwareMath(const LLVMTypeConverter &converter, StringRef intrinsic)
      : ConvertOpToLLVMPattern<MathOp>(converter, /*benefit=*/11), intrinsic(intrinsic) {}
  LogicalResult matchAndRewrite(MathOp op, typename MathOp::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto vector = dyn_cast<VectorType>(op.getType());
    if (!arith::bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::afn) ||
        !getElementTypeOrSelf(op.getType()).isF32() || (vector && vector.getRank() != 1))
      return failure();
    Location loc = op.getLoc();
    Value x = adaptor.getOperand();
    auto apply = [&](Value element) -> Value {
      return LLVM::CallIntrinsicOp::create(rewriter, loc, rewriter.getF32Type(), rewriter.getStringAttr(intrinsic),
                                           ValueRange{element})
          .getResult(0);
    };
    if (!vector) {
      rewriter.replaceOp(op, apply(x));
      return success();
    }
    Value out = LLVM::PoisonOp::create(rewriter, loc, x.getType());
    for (int64_t i = 0; i < vector.getNumElements(); ++i) {
      Value index = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI32Type(), i);
      Value element = LLVM::ExtractElementOp::create(rewriter, loc, x, index);
      out = LLVM::InsertElementOp::create(rewriter, loc, out, apply(element), index);
    }
    rewriter.replaceOp(op, out);
    return success();
  }

  std::string intrinsic;
};

/// A memref.atomic_rmw marked with a scope (kAtomicScope) is a relaxed
/// atomicrmw at that scope: its tile op's ordering is in fences around the
/// whole op, not in each element's update. Below the system scope it may
/// take the chips' native float atomics (global_atomic_add_f32), as
/// Triton's buffer atomics do: the memory is neither fine-grained nor
/// another device's, and the add need not honour the denormal mode.
struct ScopedAtomicRMW : public ConvertOpToLLVMPattern<memref::AtomicRMWOp> {
  explicit ScopedAtomicRMW(const LLVMTypeConverter &converter) : ConvertOpToLLVMPattern(converter, /*benefit=*/10) {}
  LogicalResult matchAndRewrite(memref::AtomicRMWOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto scope = op->getAttrOfType<StringAttr>(rocktile::kAtomicScope);
    if (!scope)
      return failure();
    using K = arith::AtomicRMWKind;
    using B = LLVM::AtomicBinOp;
    std::optional<B> bin;
    switch (op.getKind()) {
    case K::addf: bin = B::fadd; break;
    case K::addi: bin = B::add; break;
    case K::assign: bin = B::xchg; break;
    case K::maximumf: bin = B::fmaximum; break;
    case K::minimumf: bin = B::fminimum; break;
    case K::maxnumf: bin = B::fmax; break;
    case K::minnumf: bin = B::fmin; break;
    case K::maxs: bin = B::max; break;
    case K::mins: bin = B::min; break;
    case K::maxu: bin = B::umax; break;
    case K::minu: bin = B::umin; break;
    case K::ori: bin = B::_or; break;
    case K::andi: bin = B::_and; break;
    default: return failure();
    }
    Value address = getStridedElementPtr(rewriter, op.getLoc(), op.getMemRefType(), adaptor.getMemref(),
                                         adaptor.getIndices());
    auto atomic = rewriter.replaceOpWithNewOp<LLVM::AtomicRMWOp>(op, *bin, address, adaptor.getValue(),
                                                                 LLVM::AtomicOrdering::monotonic, scope.getValue());
    if (!scope.getValue().empty()) {
      auto rocdl = rewriter.getContext()->getLoadedDialect<ROCDL::ROCDLDialect>();
      rocdl->getNoFineGrainedMemoryAttrHelper().setAttr(atomic, rewriter.getUnitAttr());
      rocdl->getNoRemoteMemoryAttrHelper().setAttr(atomic, rewriter.getUnitAttr());
      rocdl->getIgnoreDenormalModeAttrHelper().setAttr(atomic, rewriter.getUnitAttr());
    }
    return success();
  }
};

/// A compare-and-swap (kCompareExchange) is one relaxed cmpxchg at its
/// scope, as Triton's atomic_cas (the generic lowering's retry loop would
/// also write memory back where the comparison fails).
struct ScopedCompareExchange : public ConvertOpToLLVMPattern<memref::GenericAtomicRMWOp> {
  explicit ScopedCompareExchange(const LLVMTypeConverter &converter)
      : ConvertOpToLLVMPattern(converter, /*benefit=*/10) {}
  LogicalResult matchAndRewrite(memref::GenericAtomicRMWOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto scope = op->getAttrOfType<StringAttr>(rocktile::kAtomicScope);
    if (!scope || !op->hasAttr(rocktile::kCompareExchange))
      return failure();
    Location loc = op.getLoc();
    Value yielded = op.getBody()->getTerminator()->getOperand(0);
    Value compared, exchanged;
    if (yielded == op.getCurrentValue()) {
      // The canonicalizer folded `select(old == c, c, old)` (a CAS whose
      // compare and new values are one) to `old`: comparing with and
      // writing any one value reads memory atomically, as that CAS does.
      compared = exchanged = LLVM::ConstantOp::create(rewriter, loc, yielded.getType(),
                                                      rewriter.getIntegerAttr(yielded.getType(), 0));
    } else {
      auto select = yielded.getDefiningOp<arith::SelectOp>();
      auto same = select ? select.getCondition().getDefiningOp<arith::CmpIOp>() : nullptr;
      if (!same)
        return failure();
      compared = rewriter.getRemappedValue(same.getRhs());
      exchanged = rewriter.getRemappedValue(select.getTrueValue());
    }
    Value address = getStridedElementPtr(rewriter, loc, op.getMemRefType(), adaptor.getMemref(),
                                         adaptor.getIndices());
    auto exchange = LLVM::AtomicCmpXchgOp::create(rewriter, loc, address, compared, exchanged,
                                                  LLVM::AtomicOrdering::monotonic,
                                                  LLVM::AtomicOrdering::monotonic, scope.getValue());
    rewriter.replaceOpWithNewOp<LLVM::ExtractValueOp>(op, exchange, ArrayRef<int64_t>{0});
    return success();
  }
};

/// A barrier after explicit waits (kBarrierAfterWaits): s_barrier between
/// wavefront-scope fences, which order memory accesses in the compiler and
/// wait for nothing.
struct BarrierAfterWaits : public ConvertOpToLLVMPattern<gpu::BarrierOp> {
  explicit BarrierAfterWaits(const LLVMTypeConverter &converter) : ConvertOpToLLVMPattern(converter, /*benefit=*/11) {}
  LogicalResult matchAndRewrite(gpu::BarrierOp op, OpAdaptor, ConversionPatternRewriter &rewriter) const override {
    if (!op->hasAttr(rocktile::kBarrierAfterWaits))
      return failure();
    Location loc = op.getLoc();
    LLVM::FenceOp::create(rewriter, loc, LLVM::AtomicOrdering::release, "wavefront");
    ROCDL::SBarrierOp::create(rewriter, loc);
    rewriter.replaceOpWithNewOp<LLVM::FenceOp>(op, LLVM::AtomicOrdering::acquire, "wavefront");
    return success();
  }
};

struct ConvertSimtToLLVMPass
    : public rocktile::impl::ConvertSimtToLLVMBase<ConvertSimtToLLVMPass> {
  using ConvertSimtToLLVMBase::ConvertSimtToLLVMBase;

  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    FailureOr<amdgpu::Chipset> chip = amdgpu::Chipset::parse(chipset);
    if (failed(chip)) {
      module.emitError() << "invalid chipset '" << chipset << "'";
      return signalPassFailure();
    }
    // The exact workgroup size lets the backend budget registers for it (and
    // it is what the code object's metadata then states).
    module.walk([&](gpu::GPUFuncOp f) {
      auto block = dyn_cast_or_null<DenseI32ArrayAttr>(f->removeAttr(f.getKnownBlockSizeAttrName()));
      if (!block)
        return;
      int64_t threads = 1;
      for (int32_t size : block.asArrayRef())
        threads *= size;
      f->setAttr(ROCDL::ROCDLDialect::getReqdWorkGroupSizeAttrName(), block);
      f->setAttr(ROCDL::ROCDLDialect::getFlatWorkGroupSizeAttrName(),
                 StringAttr::get(ctx, Twine(threads) + "," + Twine(threads)));
    });
    LowerToLLVMOptions options(ctx, DataLayout(module));
    LLVMTypeConverter converter(ctx, options);
    populateGpuMemorySpaceAttributeConversions(converter, [](gpu::AddressSpace space) -> unsigned {
      switch (space) {
      case gpu::AddressSpace::Global:
        return 1;
      case gpu::AddressSpace::Workgroup:
        return 3;
      case gpu::AddressSpace::Private:
        return 5;
      }
      llvm_unreachable("unknown address space");
    });
    populateAMDGPUTypeAndAttributeConversions(converter);

    RewritePatternSet patterns(ctx);
    // Ahead of any device-library lowering of the same ops (and of
    // math.exp2's to llvm.exp2, HardwareMath's).
    patterns.add<HardwareMath<math::Exp2Op>>(converter, "llvm.amdgcn.exp2");
    patterns.add<HardwareMath<math::SqrtOp>>(converter, "llvm.amdgcn.sqrt");
    patterns.add<HardwareMath<math::RsqrtOp>>(converter, "llvm.amdgcn.rsq");
    patterns.add<BarrierAfterWaits>(converter);
    populateMathToLLVMConversionPatterns(converter, patterns, /*approximateLog1p=*/true,
                                         /*benefit=*/10);
    patterns.add<GridDimFromHiddenArgs>(converter, /*benefit=*/10);
    patterns.add<rocktile::FlatMemoryToLLVM, rocktile::DropEmulatorChecks,
                 rocktile::VolatileLoadToLLVM<memref::LoadOp>, rocktile::VolatileLoadToLLVM<vector::LoadOp>,
                 ScopedAtomicRMW, ScopedCompareExchange>(
        converter);
    populateGpuToROCDLConversionPatterns(converter, patterns, gpu::amd::Runtime::HIP, *chip);
    populateAMDGPUToROCDLConversionPatterns(converter, patterns, *chip);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    populateFuncToLLVMConversionPatterns(converter, patterns);
    index::populateIndexToLLVMConversionPatterns(converter, patterns);
    populateFinalizeMemRefToLLVMConversionPatterns(converter, patterns);
    ub::populateUBToLLVMConversionPatterns(converter, patterns);
    populateVectorToLLVMConversionPatterns(converter, patterns);
    // The fp8 conversions slice packed vectors.
    vector::populateVectorInsertExtractStridedSliceTransforms(patterns);

    LLVMConversionTarget target(*ctx);
    target.addLegalDialect<ROCDL::ROCDLDialect>();
    target.addIllegalDialect<gpu::GPUDialect>();
    target.addLegalOp<gpu::GPUModuleOp>();
    target.addIllegalOp<UnrealizedConversionCastOp>();
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
