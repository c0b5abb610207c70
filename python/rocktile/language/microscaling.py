"""tl.dot_scaled: products of block-scaled operands (the OCP MX formats, and
NVFP4's E4M3 scales per 16 elements as rocktile's extension).

fp8 (e4m3, e5m2) and e2m1 (packed along K) operands with E8M0 scales run
on the scaled matrix instructions (a tile.dot with scales) of both targets,
FP6 (e2m3, e3m2) on gfx950's, and on gfx1250 NVFP4 (e2m1 with E4M3 scales
per 16) too. Otherwise each operand is decoded to 16-bit floats in registers: its element
codes become values, multiplied by their block's scale, and the product runs on
the targets' bf16 (or fp16) matrix instructions; E2M1 codes beside a
16-bit operand are converted with their E8M0 scales by the targets'
scaled conversion instructions.  Every element format's
value times a power-of-two scale is exact in bf16 (at most 3 mantissa bits
against bf16's 7, the same exponent range), so the result is the exact
products accumulated in fp32, as the hardware's scaled instructions compute
them; an E4M3 scale (3 mantissa bits) times an FP4 value (1) is exact too.
These are traced like @jit helpers: the decoding is integer and float
arithmetic in the kernel, which the emulator runs as the GPU does."""
from __future__ import annotations

from . import core, semantic
from .semantic import SemanticError, _unwrap

# Element formats: (exponent bits, mantissa bits), codes in the low bits of
# a uint8; e2m1 packs two codes per byte, the first in the low nibble.
# e4m3/e5m2 may also come as tl.float8e4nv/tl.float8e5, bf16/fp16 as
# themselves or as uint16.
SUB_BYTE = {"e2m1": (2, 1), "e2m3": (2, 3), "e3m2": (3, 2)}
FP8 = {"e4m3": core.float8e4nv, "e5m2": core.float8e5}
SIXTEEN = {"bf16": core.bfloat16, "fp16": core.float16}
FORMATS = (*SUB_BYTE, *FP8, *SIXTEEN)
# Scale formats and the number of consecutive K elements each scale covers.
SCALE_BLOCK = {"e8m0": 32, "e4m3": 16}


def _f32_power_of_two(exponent):
    """2^exponent as fp32 for int32 exponents in [-126, 127]."""
    return ((exponent + 127) << 23).to(core.float32, bitcast=True)


def _decode_e2m1(codes):
    """e2m1 codes (uint8, 0-15) to fp32 by their bits: magnitudes 2-7 are
    1, 1.5, 2, 3, 4, 6, whose fp32 bits are (magnitude + 252) << 22; 1 is
    0.5 and 0 is 0; bit 3 is the sign."""
    codes = codes.to(core.int32)
    magnitude = codes & 7
    bits = core.where(magnitude >= 2, (magnitude + 252) << 22, magnitude * 0x3F000000)
    return (bits | ((codes & 8) << 28)).to(core.float32, bitcast=True)


def _decode_sub_byte(codes, fmt):
    """FP4/FP6 codes (uint8, one per element) to their fp32 values: no
    infinities or NaNs in these formats, subnormals where the exponent is 0."""
    ebits, mbits = SUB_BYTE[fmt]
    bias = (1 << (ebits - 1)) - 1
    codes = codes.to(core.int32)
    exponent = (codes >> mbits) & ((1 << ebits) - 1)
    mantissa = (codes & ((1 << mbits) - 1)).to(core.float32)
    normal = (mantissa + float(1 << mbits)) * _f32_power_of_two(exponent - (bias + mbits))
    subnormal = mantissa * 2.0 ** (1 - bias - mbits)
    value = core.where(exponent == 0, subnormal, normal)
    return core.where(((codes >> (ebits + mbits)) & 1) == 1, -value, value)


def _unpack_nibbles(x, axis):
    """Two e2m1 codes per byte (the first in the low nibble) along `axis`
    into one per byte: each byte repeated along a new axis after `axis`,
    the two copies merged into one axis twice as long, then each element
    shifted to its own nibble."""
    wide = list(x.shape)
    wide.insert(axis + 1, 2)
    shape = list(x.shape)
    shape[axis] *= 2
    bytes_ = core.reshape(core.broadcast_to(core.expand_dims(x, axis + 1), wide), shape)
    index = core.arange(0, shape[axis])
    for d in range(len(shape)):
        if d != axis:
            index = core.expand_dims(index, d)
    return (bytes_ >> ((index & 1) * 4).to(core.uint8)) & 0xF


def _decode_scales(scale, scale_format, fast_math):
    """E8M0 (2^(s-127); 0xFF is NaN unless fast_math) or E4M3 scales, as fp32."""
    if scale_format == "e4m3":
        return scale.to(core.float8e4nv, bitcast=True).to(core.float32)
    s = scale.to(core.int32)
    # 2^-127 is the one fp32 subnormal among them.
    value = core.where(s == 0, 0x00400000, s << 23).to(core.float32, bitcast=True)
    return value if fast_math else core.where(s == 0xFF, float("nan"), value)


def _typed(x, fmt, side):
    """An operand as the type it is computed in: fp8 and 16-bit floats as
    their float type (given as such, or as their bits in uint8 / uint16),
    FP4/FP6 codes as the uint8 they must come in."""
    if fmt in SUB_BYTE:
        if x.dtype != core.uint8:
            raise SemanticError(f"tl.dot_scaled: {side} in {fmt} must be uint8 codes"
                                f"{' (two per byte)' if fmt == 'e2m1' else ''}, got {x.dtype}")
        return x
    want = FP8.get(fmt) or SIXTEEN[fmt]
    bits = core.uint8 if fmt in FP8 else core.uint16
    if x.dtype == bits:
        return x.to(want, bitcast=True)
    if x.dtype != want:
        raise SemanticError(f"tl.dot_scaled: {side} in {fmt} must be {want} or {bits}, got {x.dtype}")
    return x


def _check_scale(scale, rows, K, scale_format, side):
    """`scale` must be uint8, one per block of K elements of each of `rows`
    (the leading dimensions, then the operand's M or N)."""
    block = SCALE_BLOCK[scale_format]
    want_shape = list(rows) + [K // block]
    if K % block or list(scale.shape) != want_shape:
        raise SemanticError(f"tl.dot_scaled: {side}_scale must be a {want_shape} tile (one {scale_format} scale "
                            f"per {block} elements along K of each {'row' if side == 'lhs' else 'column'}), "
                            f"got {list(scale.shape)}")
    if scale.dtype != core.uint8:
        raise SemanticError(f"tl.dot_scaled: {side}_scale must be uint8 ({scale_format} bits), got {scale.dtype}")


def _native_scales(lhs, lhs_format, rhs, rhs_format, K, scale_formats, k_packs):
    """The scale format ("e8m0" or "e4m3") in which the target's scaled matrix
    instructions take this product as it is, or None: fp8 (OCP E4M3/E5M2)
    and E2M1 packed along K with E8M0 scales on gfx950's
    v_mfma_scale_f32_{16x16x128,32x32x64}_f8f6f4 (FP6 too) and gfx1250's
    v_wmma_scale_f32_16x16x128_f8f6f4; E2M1 x E2M1 with E4M3 scales per 16
    (NVFP4) on gfx1250's scale16 form; for shapes those instructions tile.
    `scale_formats` are those of the sides with scales."""
    target = semantic.current().target
    if len(lhs.shape) != 2 or len(set(scale_formats)) > 1:
        return None
    scale_format = scale_formats[0] if scale_formats else "e8m0"
    M, N = lhs.shape[0], rhs.shape[1]
    formats = (lhs_format, rhs_format)
    def takes(fmt, k_pack):
        return fmt in FP8 or (fmt == "e2m1" and k_pack) or (fmt in ("e2m3", "e3m2") and target == "gfx950")
    if not all(takes(f, pack) for f, pack in zip(formats, k_packs)):
        return None
    if scale_format == "e4m3" and (target != "gfx1250" or formats != ("e2m1", "e2m1")):
        return None
    if target == "gfx950":
        tiles = M % 16 == 0 and N % 16 == 0 and (K % 128 == 0 or (K % 64 == 0 and M % 32 == 0 and N % 32 == 0))
    else:
        tiles = M % 16 == 0 and N % 16 == 0 and K % 128 == 0
    return scale_format if tiles else None


# A scale of 1 in each scale format, for a side without scales.
SCALE_ONE = {"e8m0": 127, "e4m3": 0x38}


def _operand(x, scale, fmt, scale_format, k_pack, side, fast_math, nibble=None, sixteen=None):
    """One operand's values, [..., M, K] for lhs and [..., K, N] for rhs: fp32,
    or with `sixteen` (bf16 or fp16) those where the targets' scaled
    conversions compute them directly. `scale` is [..., M, K/block] for lhs
    and [..., N, K/block] for rhs. With `nibble` 0 or 1 (e2m1 packed along
    K), only the elements in the bytes' low or high nibbles: those at even
    or odd k, K/2 of them."""
    k_axis = len(x.shape) - (1 if side == "lhs" else 2)
    other_axis = len(x.shape) - (2 if side == "lhs" else 1)
    x = _typed(x, fmt, side)
    rows = list(x.shape[:-2]) + [x.shape[other_axis]]
    if (sixteen is not None and fmt == "e2m1" and k_pack and nibble is None and scale is not None
            and scale_format == "e8m0"):
        # MXFP4 beside a 16-bit operand: both targets convert packed codes
        # times their scales in one instruction (tile.scaled_upcast), the
        # codes staying packed until then.
        _check_scale(scale, rows, 2 * x.shape[k_axis], scale_format, side)
        return semantic.scaled_upcast(x, scale if side == "lhs" else core.trans(scale), k_axis, sixteen)
    if fmt == "e2m1" and nibble is None:
        x = _unpack_nibbles(x, k_axis if k_pack else other_axis)
    elif fmt == "e2m1":
        x = (x >> 4 * nibble) & 0xF
    if fmt in SUB_BYTE:
        value = _decode_e2m1(x) if fmt == "e2m1" else _decode_sub_byte(x & 0x3F, fmt)
    else:
        value = x.to(core.float32)
    if scale is None:
        return value
    K = x.shape[k_axis] * (1 if nibble is None else 2)
    block = SCALE_BLOCK[scale_format]
    _check_scale(scale, rows, K, scale_format, side)
    factor = _decode_scales(scale, scale_format, fast_math)
    if side == "rhs":
        factor = core.trans(factor)  # [..., K/block, N]
    # The values in blocks along K (a new axis after K's) times their block's
    # scale: the scales take the values' layout, sliced, not the reverse.
    per = block if nibble is None else block // 2  # of a block's elements, those this value holds
    blocks = list(value.shape)
    blocks[k_axis:k_axis + 1] = [K // block, per]
    value, factor = core.reshape(value, blocks), core.expand_dims(factor, k_axis + 1)
    return core.reshape(value * factor, list(x.shape))


def dot_scaled(lhs, lhs_scale, lhs_format, rhs, rhs_scale, rhs_format, acc=None, fast_math=False, lhs_k_pack=True,
               rhs_k_pack=True, out_dtype=core.float32, *, lhs_scale_format="e8m0", rhs_scale_format="e8m0"):
    """The product of block-scaled operands (Triton's tl.dot_scaled): each
    element times the scale of its block of K elements; scales are uint8
    E8M0 per 32 elements, or with rocktile's `*_scale_format="e4m3"` E4M3
    per 16 (NVFP4).  Formats: e2m1 (two per uint8 along K, or along M/N with
    *_k_pack=False), e2m3, e3m2 (one per uint8), e4m3, e5m2, bf16, fp16;
    a scale of None leaves that side unscaled."""
    lhs, lhs_scale, rhs, rhs_scale, acc = map(_unwrap, (lhs, lhs_scale, rhs, rhs_scale, acc))
    lhs_format, rhs_format, lhs_scale_format, rhs_scale_format, out_dtype = map(
        _unwrap, (lhs_format, rhs_format, lhs_scale_format, rhs_scale_format, out_dtype))
    fast_math, lhs_k_pack, rhs_k_pack = (bool(_unwrap(x)) for x in (fast_math, lhs_k_pack, rhs_k_pack))
    for side, fmt, scale_format, k_pack in (("lhs", lhs_format, lhs_scale_format, lhs_k_pack),
                                            ("rhs", rhs_format, rhs_scale_format, rhs_k_pack)):
        if fmt not in FORMATS:
            raise SemanticError(f"tl.dot_scaled: {side}_format must be one of {', '.join(FORMATS)}, got {fmt!r}")
        if scale_format not in SCALE_BLOCK:
            raise SemanticError(f"tl.dot_scaled: {side}_scale_format must be 'e8m0' (MX) or 'e4m3' (NVFP4, "
                                f"one scale per 16 elements), got {scale_format!r}")
        if not k_pack and fmt != "e2m1":
            raise SemanticError(f"tl.dot_scaled: only e2m1 operands can be packed along M or N "
                                f"({side}_k_pack=False), not {fmt}")
    if out_dtype != core.float32:
        raise SemanticError(f"tl.dot_scaled: out_dtype must be tl.float32, got {out_dtype}")
    lhs, rhs = semantic.to_tensor(lhs), semantic.to_tensor(rhs)
    if len(lhs.shape) != len(rhs.shape) or len(lhs.shape) not in (2, 3):
        raise SemanticError(f"tl.dot_scaled needs two 2-D operands, or two 3-D ones, got shapes "
                            f"{list(lhs.shape)} and {list(rhs.shape)}")
    scales = [None if s is None else semantic.to_tensor(s) for s in (lhs_scale, rhs_scale)]
    # Elements along K: e2m1 packed along K holds two per byte.
    lhs_k = lhs.shape[-1] * (2 if lhs_format == "e2m1" and lhs_k_pack else 1)
    rhs_k = rhs.shape[-2] * (2 if rhs_format == "e2m1" and rhs_k_pack else 1)
    if lhs_k != rhs_k:
        raise SemanticError(f"tl.dot_scaled: lhs holds {lhs_k} elements along K and rhs {rhs_k} "
                            f"(shapes {list(lhs.shape)} in {lhs_format} and {list(rhs.shape)} in {rhs_format})")
    present = [f for s, f in zip(scales, (lhs_scale_format, rhs_scale_format)) if s is not None]
    native = _native_scales(lhs, lhs_format, rhs, rhs_format, lhs_k, present, (lhs_k_pack, rhs_k_pack))
    if native:
        # Each scale multiplies its block in the instruction itself; a side
        # without scales has the scale 1 everywhere.
        operands = []
        block = SCALE_BLOCK[native]
        for x, scale, fmt, rows, side in ((lhs, scales[0], lhs_format, lhs.shape[0], "lhs"),
                                          (rhs, scales[1], rhs_format, rhs.shape[1], "rhs")):
            if scale is None:
                scale = semantic.full([rows, lhs_k // block], SCALE_ONE[native], core.uint8)
            _check_scale(scale, [rows], lhs_k, native, side)
            operands += [_typed(x, fmt, side), fmt, scale]
        return semantic.scaled_dot(*operands, acc, native)
    if lhs_format == rhs_format == "e2m1" and lhs_k_pack and rhs_k_pack:
        # Both packed along K: the products of the low nibbles' elements (even
        # k) and of the high ones' (odd k) are two dots, and the codes need no
        # interleaving.
        for nibble in (0, 1):
            a = _operand(lhs, scales[0], "e2m1", lhs_scale_format, True, "lhs", fast_math, nibble)
            b = _operand(rhs, scales[1], "e2m1", rhs_scale_format, True, "rhs", fast_math, nibble)
            acc = core.dot(a.to(core.bfloat16), b.to(core.bfloat16), acc, out_dtype=core.float32)
        return acc
    # fp16 values are not exact in bf16; the other side then goes to fp16 too,
    # as Triton's AMD backend does where fp16 meets a scaled format.
    sixteen = core.float16 if "fp16" in (lhs_format, rhs_format) else core.bfloat16
    a = _operand(lhs, scales[0], lhs_format, lhs_scale_format, lhs_k_pack, "lhs", fast_math, sixteen=sixteen)
    b = _operand(rhs, scales[1], rhs_format, rhs_scale_format, rhs_k_pack, "rhs", fast_math, sixteen=sixteen)
    return core.dot(a.to(sixteen), b.to(sixteen), acc, out_dtype=core.float32)
