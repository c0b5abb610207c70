"""rocktile.language.math: the math functions under the names Triton's
`tl.math` gives them (the same functions as in rocktile.language)."""
from .core import (abs, cdiv, ceil, cos, div_rn, erf, exp, exp2, fdiv, floor, fma, log, log2, rsqrt, sigmoid, sin,
                   sqrt, sqrt_rn, umulhi)

__all__ = ["abs", "cdiv", "ceil", "cos", "div_rn", "erf", "exp", "exp2", "fdiv", "floor", "fma", "log", "log2",
           "rsqrt", "sigmoid", "sin", "sqrt", "sqrt_rn", "umulhi"]
