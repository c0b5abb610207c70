// fp64 exp, exp2, expm1, log, log2, log10, log1p, tanh, erf and erfc as
// arithmetic. The AMDGPU backend lowers these only as calls into the ROCm
// device library; expanded here, above the emulator's cut, the GPU and the
// emulator run the same instructions (fma, rndne, fp64 divide and the
// bit operations). Accuracy, measured against numpy over each function's
// domain, is stated in docs/language.md and held by test_libdevice.py.
//
// The methods: exp by k = rint(x / ln 2) and r = x - k ln 2 (ln 2 in two
// parts, so r is exact to fp64), e^r by Taylor's series to r^13, times 2^k
// in two steps so that results near the overflow and subnormal limits keep
// their digits. log by x = 2^k m with m in [sqrt(1/2), sqrt(2)), f = m - 1
// (exact) and log(1 + f) = 2 atanh(f / (2 + f)) written around f so that
// the leading term f carries no rounding. tanh(x) = u / (u + 2) for
// u = expm1(2|x|), which keeps its digits near 0 and is well conditioned
// everywhere. erf by its Taylor series below 0.75, and above as
// 1 - exp(-x^2) erfcx(x), erfcx by a Chebyshev interpolant on [0.75, 6]
// (scripts/float64-erf-coefficients.py) and a continued fraction beyond.
#include "KernelLowering.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace {

constexpr double kLn2 = 0x1.62e42fefa39efp-1, kLn2Low = 0x1.abc9e3b39803fp-56;
constexpr double kLog2e = 0x1.71547652b82fep0, kLog2eLow = 0x1.777d0ffda0d24p-56;
constexpr double kLog10_2 = 0x1.34413509f79ffp-2, kLog10_2Low = -0x1.9dc1da994fd21p-59;
constexpr double kLog10e = 0x1.bcb7b1526e50ep-2, kLog10eLow = 0x1.95355baaafad3p-57;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kTwoOverSqrtPi = 0x1.20dd750429b6dp0, kOneOverSqrtPi = 0x1.20dd750429b6dp-1;

/// erfcx on [0.75, 6] in Chebyshev polynomials of t = (2x - 6.75) / 5.25.
constexpr double kErfcxChebyshev[] = {
    0.22114369487885507,     -0.17832043500011177,    0.06857176475181533,     -0.025297454744767484,
    0.008993894551303934,    -0.0030924816455298386,  0.0010313713168876555,   -0.0003344397765879925,
    0.00010565724801646631,  -3.2577350920383115e-05, 9.818000162189374e-06,   -2.8959776604836924e-06,
    8.370269635675738e-07,   -2.373052215210731e-07,  6.605467052632708e-08,   -1.806730012124486e-08,
    4.8596790991307875e-09,  -1.2863178674886728e-09, 3.3526764474120437e-10,  -8.609769736019257e-11,
    2.1796272805546074e-11,  -5.4422762074374046e-12, 1.3408738354848746e-12,  -3.261307442262479e-13,
    7.833703228789059e-14,   -1.858993571982226e-14,  4.359912503723142e-15,   -1.0109071770788958e-15,
    2.3180058745006233e-16,  -5.257944498481511e-17,  1.1801495918039867e-17,  -2.6217492166818745e-18,
    5.765702906812199e-19,   -1.2532818831705522e-19, 2.5865364014800366e-20};

/// Builds fp64 arithmetic on values of one type: f64 or a vector of f64.
class Float64Builder {
public:
  Float64Builder(ImplicitLocOpBuilder &b, Type type) : b(b), type(type) {
    Type i64 = b.getI64Type();
    auto vector = dyn_cast<VectorType>(type);
    intType = vector ? Type(vector.clone(i64)) : i64;
  }

  Value f(double v) { return constant(type, b.getF64FloatAttr(v)); }
  Value i(int64_t v) { return constant(intType, b.getI64IntegerAttr(v)); }

  Value add(Value x, Value y) { return arith::AddFOp::create(b, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, x, y); }
  Value fma(Value x, Value y, Value z) { return math::FmaOp::create(b, x, y, z); }
  Value abs(Value x) { return math::AbsFOp::create(b, x); }
  Value copysign(Value x, Value sign) { return math::CopySignOp::create(b, x, sign); }
  Value cmp(arith::CmpFPredicate p, Value x, Value y) { return arith::CmpFOp::create(b, p, x, y); }
  Value lt(Value x, double c) { return cmp(arith::CmpFPredicate::OLT, x, f(c)); }
  Value isNan(Value x) { return cmp(arith::CmpFPredicate::UNO, x, x); }
  Value select(Value c, Value x, Value y) { return arith::SelectOp::create(b, c, x, y); }
  /// x limited to [lo, hi]; NaN becomes lo (callers select NaN apart).
  Value clamp(Value x, double lo, double hi) {
    return arith::MaxNumFOp::create(b, arith::MinNumFOp::create(b, x, f(hi)), f(lo));
  }

  /// c[0] + x (c[1] + x (c[2] + ...)).
  Value horner(ArrayRef<double> c, Value x) {
    Value p = f(c.back());
    for (double coefficient : llvm::reverse(c.drop_back()))
      p = fma(p, x, f(coefficient));
    return p;
  }

  /// 2^k for an integral k in [-1022, 1023], from its exponent bits.
  Value pow2(Value k) {
    Value bits = arith::ShLIOp::create(b, arith::AddIOp::create(b, arith::FPToSIOp::create(b, intType, k), i(1023)),
                                       i(52));
    return arith::BitcastOp::create(b, type, bits);
  }
  /// p 2^k for an integral k in [-1076, 1024], in two steps, each a power
  /// of two in the normal range.
  Value ldexp(Value p, Value k) {
    Value half = math::FloorOp::create(b, mul(k, f(0.5)));
    return mul(mul(p, pow2(half)), pow2(sub(k, half)));
  }

  /// k = rint(x / ln 2) and r = x - k ln 2, |r| <= ln 2 / 2, for |x| <= 746.
  std::pair<Value, Value> reduceByLn2(Value x) {
    Value k = math::RoundEvenOp::create(b, mul(x, f(kLog2e)));
    Value negK = arith::NegFOp::create(b, k);
    return {k, fma(negK, f(kLn2Low), fma(negK, f(kLn2), x))};
  }
  /// e^r - 1 for |r| <= ln 2 / 2: r + r^2 (1/2! + r/3! + ... + r^11/13!).
  Value expm1Reduced(Value r) {
    SmallVector<double> c;
    double factorial = 2;
    for (int n = 2; n <= 13; factorial *= ++n)
      c.push_back(1 / factorial);
    return fma(mul(r, r), horner(c, r), r);
  }

  /// 2^k e^r, or x where x is NaN.
  Value scaledExp(Value x, Value k, Value r) {
    return select(isNan(x), x, ldexp(add(expm1Reduced(r), f(1)), k));
  }

  Value exp(Value x) {
    auto [k, r] = reduceByLn2(clamp(x, -746, 710));
    return scaledExp(x, k, r);
  }

  Value exp2(Value x) {
    Value clamped = clamp(x, -1076, 1025);
    Value k = math::RoundEvenOp::create(b, clamped);
    Value frac = sub(clamped, k);
    return scaledExp(x, k, fma(frac, f(kLn2), mul(frac, f(kLn2Low))));
  }

  /// 2^k (1 + q) - 1 as 2^k q + (2^k - 1), both exact or nearly so for
  /// |k| <= 60; beyond, 2^k (1 + q) alone (the 1 is below its rounding).
  Value expm1(Value x) {
    Value clamped = clamp(x, -60, 710);
    auto [k, r] = reduceByLn2(clamped);
    Value q = expm1Reduced(r);
    Value small = cmp(arith::CmpFPredicate::OLE, k, f(60));
    Value p = pow2(arith::MinNumFOp::create(b, k, f(60)));
    Value result = select(small, fma(p, q, sub(p, f(1))), ldexp(add(q, f(1)), k));
    // -0 stays -0, and tiny x rounds to itself.
    Value tiny = lt(abs(x), 0x1p-54);
    return select(arith::OrIOp::create(b, tiny, isNan(x)), x, result);
  }

  /// log(x) as scale (k log 2 + log(m)), with `scale` = 1 (log), 1 / log 2
  /// (log2) or 1 / log 10 (log10), each constant in two parts.
  Value log(Value x, double scaleHigh, double scaleLow, double kScaleHigh, double kScaleLow) {
    // Subnormals are scaled into the normal range first.
    Value subnormal = lt(x, 0x1p-1022);
    Value scaled = select(subnormal, mul(x, f(0x1p54)), x);
    Value bits = arith::BitcastOp::create(b, intType, scaled);
    Value exponent = arith::SubIOp::create(b, arith::ShRUIOp::create(b, bits, i(52)),
                                           arith::SelectOp::create(b, subnormal, i(1023 + 54), i(1023)));
    Value mantissa = arith::BitcastOp::create(
        b, type, arith::OrIOp::create(b, arith::AndIOp::create(b, bits, i((int64_t(1) << 52) - 1)), i(int64_t(1023) << 52)));
    Value high = cmp(arith::CmpFPredicate::OGT, mantissa, f(0x1.6a09e667f3bcdp0));
    Value m = select(high, mul(mantissa, f(0.5)), mantissa);
    Value k = add(arith::SIToFPOp::create(b, type, exponent), select(high, f(1), f(0)));
    // log(1 + f) = 2s + s R(s^2), s = f / (2 + f), R(z) = sum 2 z^n / (2n + 1),
    // and 2s = f - f^2/2 + s f^2/2.
    Value fr = sub(m, f(1));
    Value s = div(fr, add(f(2), fr));
    Value z = mul(s, s);
    SmallVector<double> c;
    for (int n = 1; n <= 10; ++n)
      c.push_back(2.0 / (2 * n + 1));
    Value halfSquare = mul(mul(fr, fr), f(0.5));
    Value correction = mul(s, add(halfSquare, mul(z, horner(c, z))));
    Value logM = sub(fr, sub(halfSquare, correction));
    Value scaledM = scaleHigh == 1 ? logM : fma(logM, f(scaleHigh), mul(logM, f(scaleLow)));
    Value result = fma(k, f(kScaleHigh), fma(k, f(kScaleLow), scaledM));
    // log(+-0) = -inf, log(+inf) = +inf, log(x < 0) = NaN, log(NaN) = NaN.
    result = select(cmp(arith::CmpFPredicate::OEQ, x, f(0)), f(-kInf), result);
    result = select(cmp(arith::CmpFPredicate::OEQ, x, f(kInf)), x, result);
    result = select(lt(x, 0), f(std::numeric_limits<double>::quiet_NaN()), result);
    return select(isNan(x), x, result);
  }
  Value log(Value x) { return log(x, 1, 0, kLn2, kLn2Low); }

  /// log(u) x / (u - 1) for u = 1 + x: the rounding of 1 + x cancels.
  Value log1p(Value x) {
    Value u = add(x, f(1));
    Value result = mul(log(u), div(x, sub(u, f(1))));
    Value exact = arith::OrIOp::create(b, cmp(arith::CmpFPredicate::OEQ, u, f(1)),
                                       cmp(arith::CmpFPredicate::OEQ, x, f(kInf)));
    return select(exact, x, result);
  }

  Value tanh(Value x) {
    Value a = abs(x);
    Value u = expm1(mul(a, f(2)));
    Value t = select(cmp(arith::CmpFPredicate::OGT, a, f(22)), f(1), div(u, add(u, f(2))));
    return copysign(t, x);
  }

  /// x 2/sqrt(pi) sum (-1)^n x^2n / (n! (2n + 1)), for |x| < 0.75.
  Value erfSeries(Value x) {
    SmallVector<double> c;
    double factorial = 1;
    for (int n = 0; n <= 17; factorial *= ++n)
      c.push_back((n % 2 ? -kTwoOverSqrtPi : kTwoOverSqrtPi) / (factorial * (2 * n + 1)));
    return mul(x, horner(c, mul(x, x)));
  }
  /// erfc(a) for a >= 0.75: exp(-a^2) erfcx(a), exp(-a^2) with a^2 in two
  /// parts (its rounding would otherwise cost up to 16 ulps at 6); with
  /// `beyondSix`, a >= 6 too (erf needs only a < 6: it is 1 beyond).
  Value erfcTail(Value a, bool beyondSix) {
    Value square = mul(a, a);
    Value squareLow = fma(a, a, arith::NegFOp::create(b, square));
    Value gauss = mul(exp(arith::NegFOp::create(b, square)), sub(f(1), squareLow));
    // Chebyshev's sum by Clenshaw's recurrence.
    Value t = mul(sub(mul(a, f(2)), f(6.75)), f(1 / 5.25));
    Value twoT = mul(t, f(2)), b1 = f(0), b2 = f(0);
    for (double c : llvm::reverse(ArrayRef(kErfcxChebyshev).drop_front())) {
      Value next = add(fma(twoT, b1, arith::NegFOp::create(b, b2)), f(c));
      b2 = b1;
      b1 = next;
    }
    Value chebyshev = add(fma(t, b1, arith::NegFOp::create(b, b2)), f(kErfcxChebyshev[0]));
    if (!beyondSix)
      return mul(gauss, chebyshev);
    // Beyond 6: 1/sqrt(pi) / (a + (1/2) / (a + 1 / (a + (3/2) / (a + ...)))).
    Value fraction = f(0);
    for (int n = 16; n >= 1; --n)
      fraction = div(f(n * 0.5), add(a, fraction));
    Value continued = div(f(kOneOverSqrtPi), add(a, fraction));
    return mul(gauss, select(lt(a, 6), chebyshev, continued));
  }

  Value erf(Value x) {
    Value a = abs(x);
    Value tail = select(lt(a, 6), sub(f(1), erfcTail(a, /*beyondSix=*/false)), f(1));
    Value result = select(lt(a, 0.75), erfSeries(x), copysign(tail, x));
    return select(isNan(x), x, result);
  }

  Value erfc(Value x) {
    Value a = abs(x);
    // erfc underflows beyond 27.3, where a^2's low part would be inf - inf.
    Value tail = select(lt(a, 27.3), erfcTail(clamp(a, 0, 27.3), /*beyondSix=*/true), f(0));
    Value outer = select(lt(x, 0), sub(f(2), tail), tail);
    Value result = select(lt(a, 0.75), sub(f(1), erfSeries(x)), outer);
    return select(isNan(x), x, result);
  }

private:
  Value constant(Type t, TypedAttr scalar) {
    if (auto vector = dyn_cast<VectorType>(t))
      return arith::ConstantOp::create(b, DenseElementsAttr::get(vector, scalar));
    return arith::ConstantOp::create(b, scalar);
  }

  ImplicitLocOpBuilder &b;
  Type type, intType;
};

template <typename MathOp>
struct ExpandFloat64 : public OpRewritePattern<MathOp> {
  using Expand = Value (*)(Float64Builder &, Value);
  ExpandFloat64(MLIRContext *ctx, Expand expand) : OpRewritePattern<MathOp>(ctx), expand(expand) {}

  LogicalResult matchAndRewrite(MathOp op, PatternRewriter &rewriter) const override {
    Value x = op->getOperand(0);
    if (!getElementTypeOrSelf(x.getType()).isF64())
      return failure();
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Float64Builder math(b, x.getType());
    rewriter.replaceOp(op, expand(math, x));
    return success();
  }

  Expand expand;
};

} // namespace

void rocktile::simt::populateFloat64MathExpansions(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ExpandFloat64<math::ExpOp>>(ctx, [](Float64Builder &m, Value x) { return m.exp(x); });
  patterns.add<ExpandFloat64<math::Exp2Op>>(ctx, [](Float64Builder &m, Value x) { return m.exp2(x); });
  patterns.add<ExpandFloat64<math::ExpM1Op>>(ctx, [](Float64Builder &m, Value x) { return m.expm1(x); });
  patterns.add<ExpandFloat64<math::LogOp>>(ctx, [](Float64Builder &m, Value x) { return m.log(x); });
  patterns.add<ExpandFloat64<math::Log2Op>>(
      ctx, [](Float64Builder &m, Value x) { return m.log(x, kLog2e, kLog2eLow, 1, 0); });
  patterns.add<ExpandFloat64<math::Log10Op>>(
      ctx, [](Float64Builder &m, Value x) { return m.log(x, kLog10e, kLog10eLow, kLog10_2, kLog10_2Low); });
  patterns.add<ExpandFloat64<math::Log1pOp>>(ctx, [](Float64Builder &m, Value x) { return m.log1p(x); });
  patterns.add<ExpandFloat64<math::TanhOp>>(ctx, [](Float64Builder &m, Value x) { return m.tanh(x); });
  patterns.add<ExpandFloat64<math::ErfOp>>(ctx, [](Float64Builder &m, Value x) { return m.erf(x); });
  patterns.add<ExpandFloat64<math::ErfcOp>>(ctx, [](Float64Builder &m, Value x) { return m.erfc(x); });
}
