// Marks on the SIMT program's memory accesses that the GPU's and the
// emulator's lowerings to LLVM both honour.
//
// Pointers made from integer addresses (tile.int_to_ptr) index a memref
// whose base is address 0: in the SIMT program, a zero-operand
// unrealized_conversion_cast marked `rocktile.flat_memory`, which both
// lowerings replace by a descriptor of null pointers in their own address
// space (FlatMemoryToLLVM). A load marked `rocktile.volatile` is an LLVM
// volatile load (VolatileLoadToLLVM).
#ifndef ROCKTILE_CONVERSION_FLATMEMORY_H
#define ROCKTILE_CONVERSION_FLATMEMORY_H

#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace rocktile {

inline constexpr llvm::StringLiteral kFlatMemory = "rocktile.flat_memory";

/// Memory from address 0 on, as elements of `type`'s (a 1-D memref).
inline mlir::Value createFlatMemory(mlir::OpBuilder &b, mlir::Location loc, mlir::MemRefType type) {
  auto cast = mlir::UnrealizedConversionCastOp::create(b, loc, mlir::TypeRange{type}, mlir::ValueRange{});
  cast->setAttr(kFlatMemory, b.getUnitAttr());
  return cast.getResult(0);
}

inline bool isFlatMemory(mlir::Operation *op) {
  return mlir::isa_and_nonnull<mlir::UnrealizedConversionCastOp>(op) && op->hasAttr(kFlatMemory);
}

/// A flat-memory marker becomes the descriptor its memref converts to, with
/// null pointers, offset 0, stride 1 and every element up to 2^63 bytes.
struct FlatMemoryToLLVM : public mlir::ConvertOpToLLVMPattern<mlir::UnrealizedConversionCastOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  mlir::LogicalResult matchAndRewrite(mlir::UnrealizedConversionCastOp op, OpAdaptor,
                                      mlir::ConversionPatternRewriter &rewriter) const override {
    if (!isFlatMemory(op))
      return mlir::failure();
    mlir::Location loc = op.getLoc();
    auto type = mlir::cast<mlir::MemRefType>(op.getResult(0).getType());
    auto desc = mlir::MemRefDescriptor::poison(rewriter, loc, getTypeConverter()->convertType(type));
    mlir::Value null = mlir::LLVM::ZeroOp::create(rewriter, loc, desc.getElementPtrType());
    desc.setAllocatedPtr(rewriter, loc, null);
    desc.setAlignedPtr(rewriter, loc, null);
    auto constant = [&](int64_t v) { return createIndexAttrConstant(rewriter, loc, getIndexType(), v); };
    int64_t eltBytes = std::max<int64_t>(type.getElementTypeBitWidth() / 8, 1);
    desc.setOffset(rewriter, loc, constant(0));
    desc.setSize(rewriter, loc, 0, constant(INT64_MAX / eltBytes));
    desc.setStride(rewriter, loc, 0, constant(1));
    rewriter.replaceOp(op, mlir::Value(desc));
    return mlir::success();
  }
};

inline constexpr llvm::StringLiteral kVolatileAccess = "rocktile.volatile";

/// A memref.load or vector.load marked `rocktile.volatile` (a volatile
/// tile.load) becomes an LLVM volatile load: read each time it runs, never
/// merged with another or moved out of a loop.
template <typename LoadOp>
struct VolatileLoadToLLVM : public mlir::ConvertOpToLLVMPattern<LoadOp> {
  VolatileLoadToLLVM(const mlir::LLVMTypeConverter &converter)
      : mlir::ConvertOpToLLVMPattern<LoadOp>(converter, /*benefit=*/10) {}
  mlir::LogicalResult matchAndRewrite(LoadOp op, typename LoadOp::Adaptor adaptor,
                                      mlir::ConversionPatternRewriter &rewriter) const override {
    if (!op->hasAttr(kVolatileAccess))
      return mlir::failure();
    mlir::Value address = this->getStridedElementPtr(rewriter, op.getLoc(), op.getMemRefType(),
                                                     adaptor.getOperands().front(), adaptor.getIndices());
    mlir::Type type = this->getTypeConverter()->convertType(op.getResult().getType());
    unsigned align = 0;
    if (auto attr = op->template getAttrOfType<mlir::IntegerAttr>("alignment"))
      align = unsigned(attr.getInt());
    rewriter.replaceOpWithNewOp<mlir::LLVM::LoadOp>(op, type, address, align, /*isVolatile=*/true);
    return mlir::success();
  }
};

/// Marks a memref.atomic_rmw with the LLVM synchronization scope its tile
/// op asked for ("agent", "workgroup", or "" for the system): the GPU's
/// lowering makes it a relaxed atomic at that scope (the op's ordering is
/// in fences around it); the emulator's atomics stay sequentially
/// consistent, which is stronger.
inline constexpr llvm::StringLiteral kAtomicScope = "rocktile.syncscope";
/// Marks a memref.generic_atomic_rmw whose body is a compare-and-swap
/// (`select(current == cmp, value, current)`): the GPU's lowering makes it
/// one cmpxchg at its kAtomicScope.
inline constexpr llvm::StringLiteral kCompareExchange = "rocktile.compare_exchange";

/// Marks a cf.assert that only the emulator checks (an int_to_ptr address
/// between elements).
inline constexpr llvm::StringLiteral kEmulatorCheck = "rocktile.emulator_check";

/// The GPU's lowering drops the emulator's checks: the hardware would read
/// the element below a misaligned address, and checking costs every kernel.
struct DropEmulatorChecks : public mlir::ConvertOpToLLVMPattern<mlir::cf::AssertOp> {
  DropEmulatorChecks(const mlir::LLVMTypeConverter &converter)
      : ConvertOpToLLVMPattern(converter, /*benefit=*/10) {}
  mlir::LogicalResult matchAndRewrite(mlir::cf::AssertOp op, OpAdaptor,
                                      mlir::ConversionPatternRewriter &rewriter) const override {
    if (!op->hasAttr(kEmulatorCheck))
      return mlir::failure();
    rewriter.eraseOp(op);
    return mlir::success();
  }
};

} // namespace rocktile

#endif
