"""rocktile.language: the names a kernel uses, as in triton.language.

    import rocktile.language as tl
"""
from . import math
from .debug import device_assert, device_print, max_constancy, max_contiguous, multiple_of
from .core import (
    abs, arange, argmax, argmin, atomic_add, atomic_and, atomic_cas, atomic_max, atomic_min,
    atomic_or, atomic_xchg, atomic_xor, bfloat16, block_type, broadcast_to, cast, cdiv, ceil, clamp,
    constexpr, cos, debug_barrier, div_rn, dot, dtype, erf, exp, exp2, expand_dims, fdiv, flip, float16,
    float32, float64, float8e4nv, float8e5, floor, fma, full, full_like, int1, int16, int32, int64,
    int8, interleave, join, load, log, log2, max, maximum, min, minimum, num_programs, permute,
    pointer_type, program_id, range, ravel, reduce, reshape, rsqrt, sigmoid, sin, sort, split, sqrt,
    static_assert, static_print, static_range, store, sum, tensor, trans, uint16, uint32, uint64,
    uint8, umulhi, view, where, xor_sum, zeros, zeros_like,
)

__all__ = [
    "abs", "arange", "argmax", "argmin", "atomic_add", "atomic_and", "atomic_cas", "atomic_max",
    "atomic_min", "atomic_or", "atomic_xchg", "atomic_xor", "bfloat16", "block_type",
    "broadcast_to", "cast", "cdiv", "ceil", "clamp", "constexpr", "cos", "debug_barrier",
    "device_assert", "device_print", "div_rn", "dot", "dtype", "erf", "exp", "exp2", "expand_dims", "fdiv",
    "flip", "float16", "float32", "float64", "float8e4nv", "float8e5", "floor", "fma", "full",
    "full_like", "int1", "int16", "int32", "int64", "int8", "interleave", "join", "load", "log",
    "log2", "math", "max", "max_constancy", "max_contiguous", "maximum", "min", "minimum",
    "multiple_of", "num_programs", "permute", "pointer_type", "program_id", "range", "ravel",
    "reduce", "reshape", "rsqrt", "sigmoid", "sin", "sort", "split", "sqrt", "static_assert",
    "static_print", "static_range", "store", "sum", "tensor", "trans", "uint16", "uint32", "uint64",
    "uint8", "umulhi", "view", "where", "xor_sum", "zeros", "zeros_like",
]
