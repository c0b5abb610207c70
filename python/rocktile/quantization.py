"""Host helpers for block-scaled formats: numpy (or torch CPU) arrays to the
codes and scales `tl.dot_scaled` takes, and back.

    codes, scales = quantize_mx(w, "e2m1", axis=0)   # w: [K, N] -> codes [K/2, N], scales [N, K/32]
    w2 = dequantize_mx(codes, scales, "e2m1", axis=0)

MX (OCP Microscaling Formats v1.0): one E8M0 scale per 32 consecutive
elements along `axis`, 2^(floor(log2(amax)) - emax) where emax is the
element format's largest exponent; elements are the inputs divided by it,
rounded to nearest even and saturated to the format's largest value.
NVFP4: E2M1 elements, one E4M3 scale per 16, and one fp32 scale for the
whole array that brings the block scales into E4M3's range.

Codes are uint8, one per element, except e2m1: two per byte along `axis`,
the first in the low nibble (as Triton packs them).  Scales come with the
blocks on the last axis: quantizing a [K, N] operand along K (axis=0) gives
[N, K/32] scales, the shape `tl.dot_scaled` wants for its rhs."""
from __future__ import annotations

import ml_dtypes
import numpy as np

ELEMENTS = {"e2m1": ml_dtypes.float4_e2m1fn, "e2m3": ml_dtypes.float6_e2m3fn, "e3m2": ml_dtypes.float6_e3m2fn,
            "e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2}
MX_BLOCK, NVFP4_BLOCK = 32, 16


def _element(fmt):
    if fmt not in ELEMENTS:
        raise ValueError(f"unknown element format {fmt!r}; one of {', '.join(ELEMENTS)}")
    return ELEMENTS[fmt]


def _blocks(x, axis, block):
    """x (float64) with `axis` last, split into blocks of `block`: [..., n, block]."""
    x = np.moveaxis(np.asarray(x, dtype=np.float64), axis, -1)
    if x.shape[-1] % block:
        raise ValueError(f"the quantized axis has {x.shape[-1]} elements, not a multiple of {block}")
    return x.reshape(*x.shape[:-1], x.shape[-1] // block, block)


def _codes(values, fmt, axis, shape):
    """Elements (float64, [..., n, block], already in range) as uint8 codes
    in `shape`'s layout along `axis`; e2m1 two per byte."""
    kind = _element(fmt)
    limit = float(ml_dtypes.finfo(kind).max)
    codes = np.clip(values, -limit, limit).astype(np.float32).astype(kind).view(np.uint8)
    codes = codes.reshape(*codes.shape[:-2], -1)
    if fmt == "e2m1":
        codes = codes[..., 0::2] | (codes[..., 1::2] << 4)
    return np.ascontiguousarray(np.moveaxis(codes, -1, axis % len(shape)))


def _values(codes, fmt, axis):
    """uint8 codes (e2m1 two per byte) as float64, with `axis` last."""
    codes = np.moveaxis(np.asarray(codes, dtype=np.uint8), axis, -1)
    if fmt == "e2m1":
        codes = np.stack([codes & 0xF, codes >> 4], axis=-1).reshape(*codes.shape[:-1], -1)
    return codes.view(_element(fmt)).astype(np.float64)


def _scaled(values, factor, block, axis):
    """float32 of values (with `axis` last) times their block's factor."""
    out = values.reshape(*values.shape[:-1], -1, block) * factor[..., None]
    return np.moveaxis(out.reshape(values.shape), -1, axis).astype(np.float32)


def quantize_mx(x, fmt, axis=-1):
    """(codes, scales): `x` in MX format `fmt` along `axis`, scales uint8 E8M0."""
    shape = np.shape(x)
    blocks = _blocks(x, axis, MX_BLOCK)
    emax = int(np.floor(np.log2(float(ml_dtypes.finfo(_element(fmt)).max))))
    amax = np.abs(blocks).max(axis=-1, keepdims=True)
    with np.errstate(divide="ignore"):
        exponent = np.where(amax > 0, np.floor(np.log2(np.where(amax > 0, amax, 1))) - emax, -127)
    exponent = np.clip(exponent, -127, 127)
    codes = _codes(blocks / np.exp2(exponent), fmt, axis, shape)
    return codes, np.ascontiguousarray(exponent[..., 0] + 127, dtype=np.uint8)


def dequantize_mx(codes, scales, fmt, axis=-1):
    """float32 values of MX codes along `axis` with their E8M0 scales (0xFF: NaN)."""
    values = _values(codes, fmt, axis)
    scales = np.asarray(scales, dtype=np.uint8)
    factor = np.where(scales == 0xFF, np.nan, np.exp2(scales.astype(np.float64) - 127))
    return _scaled(values, factor, MX_BLOCK, axis)


def nvfp4_global_scale(x):
    """NVFP4's fp32 scale of a whole array: max |x| / (6 * 448), which brings
    the largest block scale to E4M3's largest value (1 for an all-zero x)."""
    top = float(np.abs(np.asarray(x, dtype=np.float32)).max()) if np.size(x) else 0.0
    return np.float32(top / (6.0 * 448.0) if top > 0 else 1.0)


def quantize_nvfp4(x, axis=-1):
    """(codes, scales, global_scale): `x` as NVFP4 along `axis`: e2m1 codes two
    per byte, uint8 E4M3 scales per 16 elements, and an fp32 scale for all.
    Computed in fp32 from `x` rounded to fp32, as a kernel computes it
    (examples/mx_quantize.py's NVFP4 kernel gives the same bits)."""
    shape = np.shape(x)
    blocks = _blocks(x, axis, NVFP4_BLOCK).astype(np.float32)
    amax = np.abs(blocks).max(axis=-1, keepdims=True)
    global_scale = nvfp4_global_scale(blocks)
    block_scale = np.minimum(amax / np.float32(6) / global_scale, np.float32(448))
    scales = block_scale.astype(ml_dtypes.float8_e4m3fn)
    decoded = scales.astype(np.float32) * global_scale
    with np.errstate(divide="ignore", invalid="ignore"):
        elements = np.where(decoded > 0, blocks / np.where(decoded > 0, decoded, np.float32(1)), np.float32(0))
    return _codes(elements, "e2m1", axis, shape), np.ascontiguousarray(scales[..., 0].view(np.uint8)), global_scale


def dequantize_nvfp4(codes, scales, global_scale, axis=-1):
    """float32 values of NVFP4 codes along `axis`."""
    values = _values(codes, "e2m1", axis)
    factor = np.asarray(scales, dtype=np.uint8).view(ml_dtypes.float8_e4m3fn).astype(np.float64)
    return _scaled(values, factor * float(global_scale), NVFP4_BLOCK, axis)
