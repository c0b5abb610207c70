// The emulator's host program (upstream dialects, after
// tile-lower-simt-to-host) to the LLVM dialect: upstream conversions with
// every GPU address space as host memory, and the host's forms of the ops
// that have no upstream host lowering (gpu.printf, the fp8 conversions,
// tl.exp2's hardware instruction).
#include "rocktile/Conversion/FlatMemory.h"
#include "rocktile/Emulator/Fp8.h"
#include "rocktile/Emulator/MatrixInstr.h"
#include "rocktile/Emulator/Passes.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace rocktile::emulator;

namespace {

/// The host function `name`, declared on first use.
LLVM::LLVMFuncOp hostFunction(OpBuilder &builder, Operation *user, StringRef name,
                              LLVM::LLVMFunctionType type) {
  auto module = user->getParentOfType<ModuleOp>();
  if (auto f = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return f;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(module.getBody());
  return LLVM::LLVMFuncOp::create(builder, user->getLoc(), name, type);
}

/// gpu.printf on the host: the C library's printf, with C's argument
/// promotions (narrow floats to double, narrow integers to int).
struct HostPrintf : public ConvertOpToLLVMPattern<gpu::PrintfOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(gpu::PrintfOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto module = op->getParentOfType<ModuleOp>();
    auto ptr = LLVM::LLVMPointerType::get(rewriter.getContext());
    auto printf = hostFunction(rewriter, op, "printf",
                               LLVM::LLVMFunctionType::get(rewriter.getI32Type(), {ptr},
                                                           /*isVarArg=*/true));
    std::string text = op.getFormat().str();
    text.push_back('\0');
    std::string name = "rocktile_format_" + std::to_string(llvm::hash_value(text));
    auto global = module.lookupSymbol<LLVM::GlobalOp>(name);
    if (!global) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      auto type = LLVM::LLVMArrayType::get(rewriter.getI8Type(), text.size());
      global = LLVM::GlobalOp::create(rewriter, loc, type, /*isConstant=*/true,
                                      LLVM::Linkage::Internal, name, rewriter.getStringAttr(text));
    }
    SmallVector<Value> args{LLVM::AddressOfOp::create(rewriter, loc, global)};
    for (Value v : adaptor.getArgs()) {
      Type t = v.getType();
      if (isa<FloatType>(t) && t.getIntOrFloatBitWidth() < 64)
        v = LLVM::FPExtOp::create(rewriter, loc, rewriter.getF64Type(), v);
      else if (isa<IntegerType>(t) && t.getIntOrFloatBitWidth() < 32)
        v = LLVM::SExtOp::create(rewriter, loc, rewriter.getI32Type(), v);
      args.push_back(v);
    }
    LLVM::CallOp::create(rewriter, loc, printf, args);
    rewriter.eraseOp(op);
    return success();
  }
};

/// The fp8 conversion instructions, one byte at a time through Fp8.cpp.
Value convertFp8(ConversionPatternRewriter &rewriter, Operation *op, Type fp8, Value byteOrFloat) {
  Location loc = op->getLoc();
  Type i32 = rewriter.getI32Type(), f32 = rewriter.getF32Type();
  auto format = Fp8Format(isa<Float8E5M2Type>(fp8));
  Value formatValue = LLVM::ConstantOp::create(rewriter, loc, i32, int32_t(format));
  if (byteOrFloat.getType() == f32) {
    auto fn = hostFunction(rewriter, op, "rocktile_emu_cvt_fp8_f32",
                           LLVM::LLVMFunctionType::get(i32, {f32, i32}));
    Value code = LLVM::CallOp::create(rewriter, loc, fn, ValueRange{byteOrFloat, formatValue}).getResult();
    return LLVM::TruncOp::create(rewriter, loc, rewriter.getI8Type(), code);
  }
  auto fn = hostFunction(rewriter, op, "rocktile_emu_cvt_f32_fp8",
                         LLVM::LLVMFunctionType::get(f32, {i32, i32}));
  Value bits = LLVM::ZExtOp::create(rewriter, loc, i32, byteOrFloat);
  return LLVM::CallOp::create(rewriter, loc, fn, ValueRange{bits, formatValue}).getResult();
}

Value constantIndex(ConversionPatternRewriter &rewriter, Location loc, int64_t i) {
  return LLVM::ConstantOp::create(rewriter, loc, rewriter.getI32Type(), int32_t(i));
}

/// v_cvt_f32_fp8 / v_cvt_pk_f32_fp8: byte `index`, or bytes 2*index and
/// 2*index+1, of the packed source.
struct HostExtPackedFp8 : public ConvertOpToLLVMPattern<amdgpu::ExtPackedFp8Op> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(amdgpu::ExtPackedFp8Op op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value source = adaptor.getSource();
    Type fp8 = getElementTypeOrSelf(op.getSource().getType());
    auto sourceVector = dyn_cast<VectorType>(source.getType());
    auto byteAt = [&](int64_t i) -> Value {
      if (!sourceVector)
        return source; // the op takes a scalar only at index 0
      if (i >= sourceVector.getNumElements()) // undefined bytes of a short vector
        return LLVM::ConstantOp::create(rewriter, loc, rewriter.getI8Type(), 0);
      return LLVM::ExtractElementOp::create(rewriter, loc, source, constantIndex(rewriter, loc, i));
    };
    int64_t index = op.getIndex();
    auto pair = dyn_cast<VectorType>(op.getType());
    if (!pair) {
      rewriter.replaceOp(op, convertFp8(rewriter, op, fp8, byteAt(index)));
      return success();
    }
    Value result = LLVM::PoisonOp::create(rewriter, loc, pair);
    for (int64_t k = 0; k < 2; ++k)
      result = LLVM::InsertElementOp::create(rewriter, loc, result,
                                             convertFp8(rewriter, op, fp8, byteAt(2 * index + k)),
                                             constantIndex(rewriter, loc, k));
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// v_cvt_pk_fp8_f32: two floats into word `wordIndex` of four packed bytes.
struct HostPackedTrunc2xFp8 : public ConvertOpToLLVMPattern<amdgpu::PackedTrunc2xFp8Op> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(amdgpu::PackedTrunc2xFp8Op op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type packed = getTypeConverter()->convertType(op.getType());
    Value result = adaptor.getExisting();
    if (!result) // the untouched word is undefined; zeros keep runs reproducible
      result = LLVM::ZeroOp::create(rewriter, loc, packed);
    Type fp8 = op.getType().getElementType();
    SmallVector<Value> sources{adaptor.getSourceA()};
    if (Value b = adaptor.getSourceB())
      sources.push_back(b);
    for (auto [k, source] : llvm::enumerate(sources))
      result = LLVM::InsertElementOp::create(
          rewriter, loc, result, convertFp8(rewriter, op, fp8, source),
          constantIndex(rewriter, loc, 2 * int64_t(op.getWordIndex()) + int64_t(k)));
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// gfx950's v_cvt_scalef32_pk_{f32,f16,bf16}_{fp4,fp8,bf8}: elements
/// 2*index and 2*index+1 of the packed source (undefined past a short one:
/// zeros here) times the f32 scale, rounded to the result's type, through
/// MatrixInstr.cpp.
struct HostScaledExtPacked : public ConvertOpToLLVMPattern<amdgpu::ScaledExtPackedOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(amdgpu::ScaledExtPackedOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type(), f32 = rewriter.getF32Type();
    auto sourceType = cast<VectorType>(op.getSource().getType());
    Type out = getElementTypeOrSelf(op.getType());
    MatrixFormat format = *matrixFormat(sourceType), outFormat = *matrixFormat(out);
    auto fn = hostFunction(rewriter, op, "rocktile_emu_scaled_ext",
                           LLVM::LLVMFunctionType::get(i32, {i32, i32, f32, i32}));
    Type resultType = getTypeConverter()->convertType(op.getType());
    Value result = LLVM::PoisonOp::create(rewriter, loc, resultType);
    Type bits = rewriter.getIntegerType(out.getIntOrFloatBitWidth());
    for (int64_t k = 0; k < 2; ++k) {
      int64_t i = 2 * int64_t(op.getIndex()) + k;
      Value code = LLVM::ConstantOp::create(rewriter, loc, i32, 0);
      if (i < sourceType.getNumElements()) {
        Value e = LLVM::ExtractElementOp::create(rewriter, loc, adaptor.getSource(), constantIndex(rewriter, loc, i));
        code = LLVM::ZExtOp::create(rewriter, loc, i32, e);
      }
      Value value = LLVM::CallOp::create(rewriter, loc, fn,
                                         ValueRange{code, constantIndex(rewriter, loc, int64_t(format)),
                                                    adaptor.getScale(),
                                                    constantIndex(rewriter, loc, int64_t(outFormat))})
                        .getResult();
      if (bits.getIntOrFloatBitWidth() < 32)
        value = LLVM::TruncOp::create(rewriter, loc, bits, value);
      value = LLVM::BitcastOp::create(rewriter, loc, cast<VectorType>(resultType).getElementType(), value);
      result = LLVM::InsertElementOp::create(rewriter, loc, result, value, constantIndex(rewriter, loc, k));
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// math.exp2 with `afn` on f32 runs as the GPU's v_exp_f32 (SimtToLLVM's
/// HardwareMath): exp2, with results below 2^-126 flushed to +0. (The
/// hardware's result is within 1 ulp of the host's; its exact bits are not
/// documented.)
struct HostHardwareExp2 : public ConvertOpToLLVMPattern<math::Exp2Op> {
  explicit HostHardwareExp2(const LLVMTypeConverter &converter) : ConvertOpToLLVMPattern(converter, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(math::Exp2Op op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (!arith::bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::afn) ||
        !getElementTypeOrSelf(op.getType()).isF32())
      return failure();
    Location loc = op.getLoc();
    Type type = getTypeConverter()->convertType(op.getType());
    if (!LLVM::isCompatibleType(type) || isa<LLVM::LLVMArrayType>(type))
      return failure();
    Value exp = LLVM::Exp2Op::create(rewriter, loc, type, adaptor.getOperand());
    auto splat = [&](float v) -> Value {
      Attribute value = rewriter.getF32FloatAttr(v);
      if (auto vector = dyn_cast<VectorType>(type))
        value = SplatElementsAttr::get(vector, value);
      return LLVM::ConstantOp::create(rewriter, loc, type, cast<TypedAttr>(value));
    };
    Value tiny = LLVM::FCmpOp::create(rewriter, loc, LLVM::FCmpPredicate::olt, exp, splat(0x1p-126f));
    rewriter.replaceOpWithNewOp<LLVM::SelectOp>(op, tiny, splat(0.0f), exp);
    return success();
  }
};

/// The host program in upstream dialects -> LLVM dialect. Every GPU address
/// space is host memory.
struct HostToLLVM : public PassWrapper<HostToLLVM, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(HostToLLVM)
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    // tl.sqrt and tl.rsqrt (`afn`) are the GPU's v_sqrt_f32 and v_rsq_f32,
    // within 1 ulp of the correctly rounded results the host computes here;
    // `afn` would let the host's backend use its own, coarser estimates.
    getOperation().walk([&](Operation *op) {
      if (isa<math::SqrtOp, math::RsqrtOp>(op))
        op->setAttr("fastmath", arith::FastMathFlagsAttr::get(ctx, arith::FastMathFlags::none));
    });
    LLVMTypeConverter converter(ctx);
    populateGpuMemorySpaceAttributeConversions(converter, [](gpu::AddressSpace) { return 0u; });
    RewritePatternSet patterns(ctx);
    patterns.add<HostPrintf, HostExtPackedFp8, HostPackedTrunc2xFp8, HostScaledExtPacked, HostHardwareExp2,
                 rocktile::FlatMemoryToLLVM>(
        converter);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    populateFuncToLLVMConversionPatterns(converter, patterns);
    index::populateIndexToLLVMConversionPatterns(converter, patterns);
    populateMathToLLVMConversionPatterns(converter, patterns);
    populateFinalizeMemRefToLLVMConversionPatterns(converter, patterns);
    ub::populateUBToLLVMConversionPatterns(converter, patterns);
    populateVectorToLLVMConversionPatterns(converter, patterns);
    // The fp8 conversions slice packed vectors.
    vector::populateVectorInsertExtractStridedSliceTransforms(patterns);
    LLVMConversionTarget target(*ctx);
    target.addDynamicallyLegalOp<UnrealizedConversionCastOp>(
        [](Operation *op) { return !rocktile::isFlatMemory(op); });
    if (failed(applyPartialConversion(getOperation(), target, std::move(patterns))))
      return signalPassFailure();
    // Pointers made from integers count from address 0 (FlatMemoryToLLVM),
    // which LLVM must not take for an invalid address.
    getOperation().walk([&](LLVM::LLVMFuncOp f) {
      f.setPassthroughAttr(ArrayAttr::get(ctx, {StringAttr::get(ctx, "null_pointer_is_valid")}));
    });
  }
};

} // namespace

std::unique_ptr<Pass> rocktile::emulator::createHostToLLVM() { return std::make_unique<HostToLLVM>(); }
