"""rocktile.gluon.language: the names a kernel of the explicit level uses,
as in triton.experimental.gluon.language.

    import rocktile.gluon.language as gl
"""
from ...language import extra
from ...language.core import (
    abs, add, associative_scan, atomic_add, atomic_and, atomic_cas, atomic_load, atomic_max, atomic_min, atomic_or,
    atomic_poll, atomic_store, atomic_xchg, atomic_xor, bfloat16, block_type, broadcast, cast, cdiv, ceil, clamp,
    constexpr, cos, cumprod, cumsum, div_rn, dtype, erf, exp, exp2, expand_dims, fdiv, float16, float32, float64,
    float8e4b8, float8e4nv, float8e5, float8e5b16, floor, fma, gather, inline_asm_elementwise, int1, int8, int16,
    int32, int64, join, load, log, log2, map_elementwise, max, maximum, min, minimum, mul, num_programs, permute,
    pointer_type, program_id, ravel, reduce, reduce_or, reshape, rsqrt, sin, split, sqrt, sqrt_rn, static_assert,
    static_print, static_range, store, sub, sum, tensor, to_tensor, uint8, uint16, uint32, uint64, umulhi, where,
    xor_sum,
)
from ...language.debug import assume, device_assert, device_print, expect_zero, max_constancy, max_contiguous, \
    multiple_of
from ...language.semantic.layouts import (AutoLayout, BlockedLayout, CoalescedLayout, DistributedLayout,
                                          DistributedLinearLayout, DotOperandLayout, SliceLayout)
from . import amd
from ...language.semantic.shared import (PaddedSharedLayout, SharedLayout, SharedLinearLayout,
                                         SwizzledSharedLayout, shared_memory_descriptor)
from .core import (allocate_shared_memory, arange, barrier, convert_layout, full, full_like, num_ctas, num_warps,
                   set_auto_layout, zeros, zeros_like)

__all__ = [
    "abs", "add", "allocate_shared_memory", "amd", "arange", "associative_scan", "assume", "atomic_add", "atomic_and", "atomic_cas", "atomic_load",
    "atomic_max", "atomic_min", "atomic_or", "atomic_poll", "atomic_store", "atomic_xchg", "atomic_xor",
    "AutoLayout", "barrier", "bfloat16", "block_type", "BlockedLayout", "broadcast", "cast", "cdiv", "ceil",
    "clamp", "CoalescedLayout", "constexpr", "convert_layout", "cos", "cumprod", "cumsum", "device_assert",
    "device_print", "DistributedLayout", "DistributedLinearLayout", "div_rn", "DotOperandLayout", "dtype", "erf", "exp", "exp2",
    "expand_dims", "expect_zero", "extra", "fdiv", "float16", "float32", "float64", "float8e4b8", "float8e4nv",
    "float8e5", "float8e5b16", "floor", "fma", "full", "full_like", "gather", "inline_asm_elementwise", "int1",
    "int8", "int16", "int32", "int64", "join", "load", "log", "log2", "map_elementwise", "max", "max_constancy",
    "max_contiguous", "maximum", "min", "minimum", "mul", "multiple_of", "num_ctas", "num_programs", "num_warps", "PaddedSharedLayout",
    "permute", "pointer_type", "program_id", "ravel", "reduce", "reduce_or", "reshape", "rsqrt", "set_auto_layout",
    "shared_memory_descriptor", "SharedLayout", "SharedLinearLayout", "sin", "SliceLayout", "split", "sqrt", "sqrt_rn", "static_assert", "static_print", "static_range", "store",
    "sub", "sum", "SwizzledSharedLayout", "tensor", "to_tensor", "uint8", "uint16", "uint32", "uint64", "umulhi", "where", "xor_sum",
    "zeros", "zeros_like",
]
