"""rocktile.language.standard: the functions Triton's `triton.language.standard`
defines, under its module name (the same functions as in rocktile.language),
for kernels and helpers that import them from there."""
from ..jit import jit
from .core import (argmax, argmin, bitonic_merge, cdiv, constexpr_function, cumprod, cumsum, flip, interleave, max,
                   min, ravel, reduce_or, sigmoid, softmax, sort, squeeze, sum, swizzle2d, topk, unsqueeze, xor_sum,
                   zeros, zeros_like)

__all__ = ["argmax", "argmin", "bitonic_merge", "cdiv", "constexpr_function", "cumprod", "cumsum", "flip",
           "interleave", "jit", "max", "min", "ravel", "reduce_or", "sigmoid", "softmax", "sort", "squeeze", "sum",
           "swizzle2d", "topk", "unsqueeze", "xor_sum", "zeros", "zeros_like"]
