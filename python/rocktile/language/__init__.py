"""rocktile.language: the names a kernel uses, as in triton.language.

    import rocktile.language as tl
"""
from . import extra, math, target_info
from .random import (pair_uniform_to_normal, philox, philox_impl, rand, rand4x, randint, randint4x, randn,
                     randn4x, uint_to_uniform_float)
from .microscaling import dot_scaled
from .debug import assume, device_assert, device_print, expect_zero, max_constancy, max_contiguous, multiple_of
from .core import (
    abs, add, advance, arange, argmax, argmin, associative_scan, atomic_add, atomic_and, atomic_cas, atomic_load, atomic_max, atomic_min, atomic_or,
    atomic_poll, atomic_store, atomic_xchg, atomic_xor, bfloat16, bitonic_merge, block_type, broadcast, broadcast_to, cast, cat, cdiv, ceil, clamp,
    condition, constexpr, cos, cumprod, cumsum, debug_barrier, div_rn, dot, dtype, erf, exp, exp2, expand_dims, fdiv, flip, float16,
    float32, float64, float8e4b8, float8e4nv, float8e5, float8e5b16, floor, fma, full, full_like, gather, histogram, inline_asm_elementwise, int1, int16, int32, int64, int8,
    interleave, join, load, load_tensor_descriptor, log, log2, map_elementwise, max, maximum, min, minimum, mul, num_programs, permute, pointer_type,
    make_block_ptr, make_tensor_descriptor, program_id, PropagateNan, range, ravel, reduce, reduce_or, reshape, rsqrt, sigmoid, sin, softmax, sort,
    split, sqrt, sqrt_rn, squeeze, static_assert, static_print, static_range, store, store_tensor_descriptor, sub, sum, swizzle2d,
    tensor, tensor_descriptor, to_tensor, topk, trans, TRITON_MAX_TENSOR_NUMEL, uint16, uint32, uint64, uint8, umulhi, unsqueeze, view,
    where, xor_sum, zeros, zeros_like,
)

__all__ = [
    "abs", "add", "advance", "arange", "argmax", "argmin", "associative_scan", "assume", "atomic_add", "atomic_and", "atomic_cas", "atomic_load", "atomic_max",
    "atomic_min", "atomic_or", "atomic_poll", "atomic_store", "atomic_xchg", "atomic_xor", "bfloat16", "bitonic_merge", "block_type", "broadcast",
    "broadcast_to", "cast", "cat", "cdiv", "ceil", "clamp", "condition", "constexpr", "cos", "cumprod", "cumsum", "debug_barrier",
    "device_assert", "device_print", "div_rn", "dot", "dot_scaled", "dtype", "erf", "exp", "exp2", "expand_dims", "expect_zero", "extra", "fdiv",
    "flip", "float16", "float32", "float64", "float8e4b8", "float8e4nv", "float8e5", "float8e5b16", "floor", "fma", "full", "full_like", "gather", "histogram",
    "inline_asm_elementwise", "int1", "int16", "int32", "int64", "int8", "interleave", "join", "load", "load_tensor_descriptor", "log", "log2", "map_elementwise", "math", "max",
    "max_constancy", "max_contiguous", "make_block_ptr", "make_tensor_descriptor", "maximum", "min", "minimum", "mul", "multiple_of", "num_programs",
    "pair_uniform_to_normal", "permute", "philox", "philox_impl", "pointer_type", "program_id",
    "PropagateNan", "rand", "rand4x", "randint", "randint4x", "randn", "randn4x", "range", "ravel", "reduce",
    "reduce_or", "reshape", "rsqrt", "sigmoid", "sin", "softmax", "sort", "split", "sqrt", "sqrt_rn",
    "squeeze", "static_assert", "static_print", "static_range", "store", "store_tensor_descriptor", "sub", "sum", "swizzle2d", "target_info", "tensor", "tensor_descriptor",
    "to_tensor", "topk", "trans", "TRITON_MAX_TENSOR_NUMEL", "uint16", "uint32", "uint64", "uint8",
    "uint_to_uniform_float", "umulhi", "unsqueeze", "view", "where", "xor_sum", "zeros", "zeros_like",
]

# Triton's name for make_tensor_descriptor before 3.4, which older kernels use.
_experimental_make_tensor_descriptor = make_tensor_descriptor
