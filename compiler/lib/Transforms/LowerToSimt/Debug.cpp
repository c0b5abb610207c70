// device_print and device_assert: gpu.printf and cf.assert, which only the
// emulator runs for now.
#include "KernelLowering.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace rocktile;
using namespace rocktile::simt;

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
