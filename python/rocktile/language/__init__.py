"""rocktile.language: the names a kernel uses, as in triton.language.

    import rocktile.language as tl
"""
from . import math
from .core import (
    abs, arange, argmax, argmin, bfloat16, block_type, broadcast_to, cast, cdiv, ceil, constexpr, cos,
    dtype, erf, exp, exp2, expand_dims, float16, float32, float64, floor, fma, full, int1, int8, int16,
    int32, int64, load, log, log2, max, maximum, min, minimum, num_programs, pointer_type, program_id,
    range, rsqrt, sigmoid, sin, sqrt, static_assert, static_print, static_range, store, sum, tensor,
    uint8, uint16, uint32, uint64, where, zeros,
)

__all__ = [
    "abs", "arange", "argmax", "argmin", "bfloat16", "block_type", "broadcast_to", "cast", "cdiv", "ceil",
    "constexpr", "cos", "dtype", "erf", "exp", "exp2", "expand_dims", "float16", "float32", "float64",
    "floor", "fma", "full", "int1", "int8", "int16", "int32", "int64", "load", "log", "log2", "math", "max",
    "maximum", "min", "minimum", "num_programs", "pointer_type", "program_id", "range", "rsqrt", "sigmoid",
    "sin", "sqrt", "static_assert", "static_print", "static_range", "store", "sum", "tensor", "uint8",
    "uint16", "uint32", "uint64", "where", "zeros",
]
