"""rocktile.language: the names a kernel uses, as in triton.language.

    import rocktile.language as tl
"""
from .core import (
    abs, arange, bfloat16, block_type, broadcast_to, cast, cdiv, constexpr, dtype, exp, exp2,
    expand_dims, float16, float32, float64, full, int1, int8, int16, int32, int64, load, log, log2,
    max, maximum, min, minimum, num_programs, pointer_type, program_id, rsqrt, sqrt, static_assert,
    static_print, static_range, store, sum, tensor, uint8, uint16, uint32, uint64, where, zeros,
)

__all__ = [
    "abs", "arange", "bfloat16", "block_type", "broadcast_to", "cast", "cdiv", "constexpr", "dtype",
    "exp", "exp2", "expand_dims", "float16", "float32", "float64", "full", "int1", "int8", "int16",
    "int32", "int64", "load", "log", "log2", "max", "maximum", "min", "minimum", "num_programs",
    "pointer_type", "program_id", "rsqrt", "sqrt", "static_assert", "static_print", "static_range",
    "store", "sum", "tensor", "uint8", "uint16", "uint32", "uint64", "where", "zeros",
]
