"""tl.extra.libdevice: the math functions Triton kernels call under CUDA's
libdevice names, in float32 (float16 and bfloat16 are computed in float32).

None of them calls a vendor library: each is the math dialect op the name
stands for, and the compiler expands those LLVM has no AMDGPU lowering for
(tanh, atan, asin, pow, ...) into arithmetic above the emulator's cut
(MLIR's polynomial approximations and expansions), so the emulator runs
the arithmetic the GPU runs. docs/language.md gives each function's
measured accuracy. float64 works for the exact functions (abs, floor, ceil,
trunc, round, rint, sqrt, fma, fmin, fmax, copysign, fmod, the
classifications); the compiler reports the others at the line.
"""
from __future__ import annotations

from .. import core, semantic
from ..semantic import SemanticError, _unwrap

def _float(x, fname):
    x = semantic._numeric(_unwrap(x), f"libdevice.{fname}")
    if not x.dtype.is_floating():
        raise SemanticError(f"libdevice.{fname} expects a floating-point tensor, got {x.dtype}; convert it "
                            "first, e.g. x.to(tl.float32)")
    return x


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
    "math.cosh": ["cosh"], "math.asin": ["asin"], "math.acos": ["acos"],
    "math.atan": ["atan"], "math.erf": ["erf"], "math.cbrt": ["cbrt"],
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


def sinh(x):
    """(expm1(x) - expm1(-x)) / 2: no cancellation near 0, where
    (exp(x) - exp(-x)) / 2 loses all its digits."""
    x = _float(x, "sinh")
    return (expm1(x) - expm1(-x)) * 0.5  # noqa: F821 (defined above)


def exp10(x):
    """10^x, as exp2(t) * (1 + e ln 2), where t + e = x log2(10) to twice
    float32's precision (an fma recovers the product's rounding error)."""
    x = _float(x, "exp10")
    wide = semantic.cast(x, core.float32) if semantic._narrow_float(x.dtype) else x
    hi, lo = 3.321928024291992, 7.0595369e-08  # log2(10) = hi + lo, hi a float32
    t = wide * hi
    e = core.fma(wide, hi, -t) + wide * lo
    return semantic.cast(exp2(t) * (1.0 + e * 0.6931471805599453), x.dtype)  # noqa: F821


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
                 ["sinh", "exp10", "fast_exp10f", "fast_dividef", "div_rn", "isnan", "isinf", "isfinited", "signbit",
                  "fma"])
