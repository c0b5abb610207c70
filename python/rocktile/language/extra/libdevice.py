"""tl.extra.libdevice: the math functions Triton kernels call under CUDA's
libdevice names, in float32 (float16 and bfloat16 are computed in float32).

None of them calls a vendor library: each is the math dialect op the name
stands for, and the compiler expands those LLVM has no AMDGPU lowering for
(tanh, atan, asin, pow, erfc, ...) into arithmetic above the emulator's cut
(MLIR's polynomial approximations and expansions; asinh, acosh, atanh,
erfinv and hypot are composed here), so the emulator runs
the arithmetic the GPU runs. docs/language.md gives each function's
measured accuracy. float64 works for the exact functions (abs, floor, ceil,
trunc, round, rint, sqrt, fma, fmin, fmax, copysign, fmod, the
classifications) and for exp, exp2, expm1, log, log2, log10, log1p, tanh,
erf, erfc and what is built on them, which the compiler expands into fp64
arithmetic of its own; it reports the others (sin, cos, ...) at the line.
"""
from __future__ import annotations

from .. import core, semantic
from ..semantic import SemanticError, _unwrap

def _float(x, fname):
    return semantic.floating_operand(_unwrap(x), f"libdevice.{fname}")


def _unary(op, fname):
    def fn(x):
        return semantic.float_math(op, _float(x, fname), fname)
    fn.__name__ = fn.__qualname__ = fname
    fn.__doc__ = f"`{op}` elementwise."
    return fn


def _binary(op, fname):
    def fn(x, y):
        return semantic.float_math2(op, _unwrap(x), _unwrap(y), f"libdevice.{fname}")
    fn.__name__ = fn.__qualname__ = fname
    fn.__doc__ = f"`{op}` elementwise, after promotion and broadcasting."
    return fn


_UNARY = {
    "math.absf": ["abs", "fabs"], "math.floor": ["floor"], "math.ceil": ["ceil"], "math.trunc": ["trunc"],
    "math.round": ["round"], "math.roundeven": ["rint", "nearbyint"], "math.sqrt": ["sqrt", "sqrt_rn"],
    "math.rsqrt": ["rsqrt"], "math.exp": ["exp", "fast_expf"], "math.exp2": ["exp2"],
    "math.log": ["log", "fast_logf"], "math.log2": ["log2", "fast_log2f"], "math.log10": ["log10", "fast_log10f"],
    "math.log1p": ["log1p"], "math.expm1": ["expm1"], "math.sin": ["sin", "fast_sinf"],
    "math.cos": ["cos", "fast_cosf"], "math.tan": ["tan", "fast_tanf"], "math.tanh": ["tanh"],
    "math.asin": ["asin"], "math.acos": ["acos"],
    "math.atan": ["atan"], "math.erf": ["erf"], "math.erfc": ["erfc"], "math.cbrt": ["cbrt"],
}
_BINARY = {
    "math.atan2": ["atan2"], "math.powf": ["pow", "powf", "fast_powf"], "math.copysign": ["copysign"],
    "arith.remf": ["fmod"], "arith.minnumf": ["fmin"], "arith.maxnumf": ["fmax"],
}
for _op, _names in _UNARY.items():
    for _name in _names:
        globals()[_name] = _unary(_op, _name)
for _op, _names in _BINARY.items():
    for _name in _names:
        globals()[_name] = _binary(_op, _name)
del _op, _names, _name


def _wide(x, fname):
    """x as a float tensor, in float32 if it is narrower, and its own type."""
    x = _float(x, fname)
    return (semantic.cast(x, core.float32) if semantic._narrow_float(x.dtype) else x), x.dtype


def _half_exp_squared(a):
    """e^a / 2 as (h / 2) h for h = e^(a / 2): finite up to the type's
    largest value, where e^a itself has overflowed."""
    h = exp(a * 0.5)  # noqa: F821 (defined above)
    return (h * 0.5) * h


def sinh(x):
    """(expm1(x) - expm1(-x)) / 2: no cancellation near 0, where
    (exp(x) - exp(-x)) / 2 loses all its digits; beyond 20, where e^-|x|
    no longer counts, sign(x) e^|x| / 2."""
    w, dtype = _wide(x, "sinh")
    a = core.abs(w)
    near = (expm1(w) - expm1(-w)) * 0.5  # noqa: F821
    return semantic.cast(core.where(a > 20.0, copysign(_half_exp_squared(a), w), near), dtype)  # noqa: F821


def cosh(x):
    """(e^|x| + 1 / e^|x|) / 2; beyond 20, e^|x| / 2."""
    w, dtype = _wide(x, "cosh")
    a = core.abs(w)
    e = exp(a)  # noqa: F821
    return semantic.cast(core.where(a > 20.0, _half_exp_squared(a), (e + 1.0 / e) * 0.5), dtype)


_LN2 = 0.6931471805599453
_HUGE = 2.0 ** 28  # beyond it x * x would lose x's low bits (and overflow later)


def asinh(x):
    """sign(x) log1p(|x| + x^2 / (1 + sqrt(1 + x^2))), which keeps its digits
    near 0; log(|x|) + ln 2 beyond 2^28."""
    w, dtype = _wide(x, "asinh")
    a = core.abs(w)
    near = log1p(a + a * a / (1.0 + sqrt(1.0 + a * a)))  # noqa: F821 (defined above)
    far = log(a) + _LN2  # noqa: F821
    return semantic.cast(copysign(core.where(a > _HUGE, far, near), w), dtype)  # noqa: F821


def acosh(x):
    """log1p(t + sqrt(2t + t^2)) for t = x - 1 (exact), which keeps its
    digits near 1; log(x) + ln 2 beyond 2^28; NaN below 1."""
    w, dtype = _wide(x, "acosh")
    t = w - 1.0
    near = log1p(t + sqrt(2.0 * t + t * t))  # noqa: F821
    far = log(w) + _LN2  # noqa: F821
    return semantic.cast(core.where(w < 1.0, float("nan"), core.where(w > _HUGE, far, near)), dtype)


def atanh(x):
    """sign(x) log1p(2|x| / (1 - |x|)) / 2: no cancellation near 0 (and
    log1p's argument is never near -1, where its rounding would grow);
    +-inf at +-1, NaN beyond."""
    w, dtype = _wide(x, "atanh")
    a = core.abs(w)
    return semantic.cast(copysign(log1p(2.0 * a / (1.0 - a)) * 0.5, w), dtype)  # noqa: F821


# Giles, "Approximating the erfinv function" (GPU Computing Gems Jade, 2011):
# polynomials in w = -log(1 - x^2), the central one in w - 2.5 for w < 5,
# the tail one in sqrt(w) - 3, highest degree first.
_ERFINV_CENTRAL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                   -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_ERFINV_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)


def _horner(coefficients, w):
    p = w * coefficients[0] + coefficients[1]
    for c in coefficients[2:]:
        p = core.fma(p, w, c)
    return p


def erfinv(x):
    """The inverse of erf on (-1, 1): Giles' float32 polynomials; +-inf at
    +-1, NaN beyond."""
    v, dtype = _wide(x, "erfinv")
    w = -log((1.0 - v) * (1.0 + v))  # noqa: F821
    central = _horner(_ERFINV_CENTRAL, w - 2.5)
    tail = _horner(_ERFINV_TAIL, sqrt(w) - 3.0)  # noqa: F821
    p = core.where(w < 5.0, central, tail) * v
    return semantic.cast(core.where(core.abs(v) == 1.0, v * float("inf"), p), dtype)


def hypot(x, y):
    """sqrt(x^2 + y^2) without overflow or underflow, as m sqrt(1 + (n/m)^2)
    for m = max(|x|, |y|), n = min; infinite where either is (even beside a
    NaN), NaN where either is otherwise."""
    a, b, ty = semantic._operands(_unwrap(x), _unwrap(y), "libdevice.hypot")
    if not ty.is_floating() or semantic._narrow_float(ty):  # integers become float32, as in float_math2
        a, b = semantic.cast(a, core.float32), semantic.cast(b, core.float32)
    a, b = core.abs(a), core.abs(b)
    m = core.maximum(a, b, propagate_nan=core.PropagateNan.ALL)
    n = core.minimum(a, b, propagate_nan=core.PropagateNan.ALL)
    r = n / m
    h = core.where(m == 0.0, 0.0, m * sqrt(1.0 + r * r))  # noqa: F821
    h = core.where((a == float("inf")) | (b == float("inf")), float("inf"), h)
    return semantic.cast(h, ty) if ty.is_floating() else h


def exp10(x):
    """10^x, as exp2(t) * (1 + e ln 2), where t + e = x log2(10) to twice
    float32's precision (an fma recovers the product's rounding error)."""
    wide, dtype = _wide(x, "exp10")
    hi, lo = 3.321928024291992, 7.0595369e-08  # log2(10) = hi + lo, hi a float32
    t = wide * hi
    e = core.fma(wide, hi, -t) + wide * lo
    return semantic.cast(exp2(t) * (1.0 + e * _LN2), dtype)  # noqa: F821


def fast_exp10f(x):
    """10^x, as exp10."""
    return exp10(x)


def fast_dividef(x, y):
    """x / y (correctly rounded here)."""
    return semantic.float_div(_unwrap(x), _unwrap(y), "libdevice.fast_dividef")


def div_rn(x, y):
    """x / y, rounded to nearest even."""
    return semantic.float_div(_unwrap(x), _unwrap(y), "libdevice.div_rn")


def isnan(x):
    """Whether each element is a NaN (int1): x != x."""
    x = _float(x, "isnan")
    return x != x


def isinf(x):
    """Whether each element is +-infinity (int1)."""
    return core.abs(_float(x, "isinf")) == float("inf")


def isfinited(x):
    """Whether each element is finite, neither infinite nor NaN (int1)."""
    return core.abs(_float(x, "isfinited")) < float("inf")


def signbit(x):
    """The sign bit of each element (1 for -0.0 and negative NaNs), as int32."""
    x = _float(x, "signbit")
    bits = {16: core.int16, 32: core.int32, 64: core.int64}[x.dtype.primitive_bitwidth]
    return (semantic.cast(x, bits, bitcast=True) < 0).to(core.int32)


def fma(x, y, z):
    """x * y + z with one rounding."""
    return core.fma(x, y, z)


__all__ = sorted([n for names in (*_UNARY.values(), *_BINARY.values()) for n in names] +
                 ["sinh", "cosh", "asinh", "acosh", "atanh", "erfinv", "hypot", "exp10", "fast_exp10f", "fast_dividef",
                  "div_rn", "isnan", "isinf", "isfinited", "signbit", "fma"])


def ldexp(x, n):
    """x * 2^n (n an integer tensor or int), rounded once: computed in
    float64, which holds every float32 x times 2^n for |n| <= 300 exactly
    (beyond that a float32 result is 0 or infinite anyway)."""
    v, dtype = _wide(x, "ldexp")
    if dtype == core.float64:
        raise SemanticError("libdevice.ldexp takes float32 (or narrower) values; float64 is not provided yet")
    n = semantic.to_tensor(_unwrap(n))
    if not n.dtype.is_int():
        raise SemanticError(f"the exponent of libdevice.ldexp must be an integer, got {n.dtype}")
    n = core.minimum(core.maximum(semantic.cast(n, core.int64), -300), 300)
    scale = semantic.cast((n + 1023) << 52, core.float64, bitcast=True)
    return semantic.cast(semantic.cast(v, core.float64) * scale, dtype)


# Lanczos' approximation (g = 7, 9 terms): Gamma(z + 1) = sqrt(2 pi)
# (z + g + 1/2)^(z + 1/2) e^-(z + g + 1/2) A(z). A's terms cancel (the
# coefficients alternate in sign and reach 1259), so A is summed in float64.
_LANCZOS_G = 7.0
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
            1.5056327351493116e-7)
_HALF_LOG_2PI, _PI, _LOG_PI = 0.9189385332046727, 3.141592653589793, 1.1447298858494002


def _lgamma_positive(z):
    """log Gamma(z) for z >= 1/2, by Lanczos."""
    w = z - 1.0
    w64 = semantic.cast(w, core.float64)
    a = w64 * 0.0 + _LANCZOS[0]
    for i, c in enumerate(_LANCZOS[1:], 1):
        a = a + c / (w64 + float(i))
    t = w + (_LANCZOS_G + 0.5)
    return _HALF_LOG_2PI + (w + 0.5) * log(t) - t + log(semantic.cast(a, core.float32))  # noqa: F821


def _gamma_parts(x, fname):
    """(log |Gamma(x)|, sin(pi x), whether x < 1/2, x in float32, x's dtype):
    below 1/2 by the reflection Gamma(x) Gamma(1 - x) = pi / sin(pi x)."""
    v, dtype = _wide(x, fname)
    if dtype == core.float64:
        raise SemanticError(f"libdevice.{fname} takes float32 (or narrower) values; float64 is not provided yet")
    small = v < 0.5
    # sin(pi x) = (-1)^k sin(pi (x - k)) for the nearest integer k: an
    # argument within pi/2, exact, so no digits are lost near the poles.
    k = rint(v)  # noqa: F821
    s = sin(_PI * (v - k))  # noqa: F821
    s = core.where(k % 2.0 == 0.0, s, -s)
    lg_z = _lgamma_positive(core.where(small, 1.0 - v, v))
    return core.where(small, _LOG_PI - log(core.abs(s)) - lg_z, lg_z), s, small, v, dtype  # noqa: F821


def lgamma(x):
    """log |Gamma(x)|: Lanczos' approximation for x >= 1/2, the reflection
    formula below it; +inf at 0, the negative integers and +-inf."""
    lg, s, small, v, dtype = _gamma_parts(x, "lgamma")
    lg = core.where((small & (s == 0.0)) | isinf(v), float("inf"), lg)
    return semantic.cast(lg, dtype)


def tgamma(x):
    """Gamma(x), as its sign times exp(log |Gamma(x)|): +-inf at +-0, NaN at
    the negative integers and -inf, +inf beyond 35.04 and at +inf."""
    lg, s, small, v, dtype = _gamma_parts(x, "tgamma")
    g = exp(lg)  # noqa: F821
    g = core.where(small & (s < 0.0), -g, g)
    g = core.where(v == 0.0, copysign(float("inf"), v), g)  # noqa: F821
    g = core.where((small & (s == 0.0) & (v != 0.0)) | (v == float("-inf")), float("nan"), g)
    return semantic.cast(core.where(v == float("inf"), v, g), dtype)


# (bits, exponent bits' shift and bias, the int type) of float32 and float64.
_FLOAT_LAYOUT = {32: (core.int32, 23, 0xFF, 127), 64: (core.int64, 52, 0x7FF, 1023)}


def _exponent(x, fname):
    """(the unbiased binary exponent of each finite nonzero x, as an int of
    x's width, subnormals included; x in float32 or float64)."""
    v, dtype = _wide(x, fname)
    ints, shift, mask, bias = _FLOAT_LAYOUT[v.dtype.primitive_bitwidth]
    # Scaling subnormals by 2^64 makes them normal; their exponent is then 64 less.
    sub = core.abs(v) < float.fromhex("0x1p-126" if ints == core.int32 else "0x1p-1022")
    w = core.where(sub, v * float(2 ** 64), v)
    e = ((semantic.cast(w, ints, bitcast=True) >> shift) & mask) - bias
    return core.where(sub, e - 64, e), v, dtype


def ilogb(x):
    """The unbiased exponent of x as an int32 (floor(log2 |x|)), subnormals
    included; -2147483648 for 0 and NaN, 2147483647 for +-inf (glibc's
    FP_ILOGB0, FP_ILOGBNAN and INT_MAX)."""
    e, v, _ = _exponent(x, "ilogb")
    e = semantic.cast(e, core.int32)
    e = core.where((v == 0.0) | isnan(v), -2147483648, e)
    return core.where(isinf(v), 2147483647, e)


def logb(x):
    """The unbiased exponent of x as a float: -inf at 0, +inf at +-inf, NaN at NaN."""
    e, v, dtype = _exponent(x, "logb")
    e = semantic.cast(e, v.dtype)
    e = core.where(v == 0.0, float("-inf"), e)
    return semantic.cast(core.where(isinf(v), float("inf"), core.where(isnan(v), v, e)), dtype)
