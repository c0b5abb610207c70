"""tl.dot_scaled, rocktile.quantization and examples/mx_quantize.py, in the
emulator on both targets:
the host helpers against ml_dtypes and the OCP MX scale rule; every element
code of every format decoded in the kernel under several scales, exactly
(a dot with the identity), and by gfx950's scaled matrix instructions for
fp8; examples/mxfp4_matmul.py's GEMMs over formats x
ragged shapes against numpy's product of the dequantized operands (the
products are exact in fp32: rtol 1e-5, atol 1e-5 * K * max|a| * max|b|);
located errors for bad formats and shapes."""
import ml_dtypes
import numpy as np
import pytest

import mx_quantize
import mxfp4_matmul
import rocktile
import rocktile.language as tl
from rocktile import quantization
from rocktile.language import semantic

TARGETS = ["gfx950", "gfx1250"]
EMAX = {"e2m1": 2, "e2m3": 2, "e3m2": 4, "e4m3": 8, "e5m2": 15}


@pytest.mark.parametrize("fmt", sorted(EMAX))
def test_quantize_mx_follows_the_ocp_rule(fmt):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((8, 128)) * np.exp2(rng.integers(-20, 20, (8, 1)))
    x[3, 32:64] = 0  # an all-zero block
    codes, scales = quantization.quantize_mx(x, fmt, axis=1)
    assert codes.shape == ((8, 64) if fmt == "e2m1" else (8, 128)) and scales.shape == (8, 4)
    blocks = x.reshape(8, 4, 32)
    amax = np.abs(blocks).max(axis=-1)
    exponent = scales.astype(np.int64) - 127
    nonzero = amax > 0
    assert (exponent[nonzero] == np.floor(np.log2(amax[nonzero])) - EMAX[fmt]).all()
    # Elements: x / 2^exponent rounded to nearest even in the format, saturated.
    kind = quantization.ELEMENTS[fmt]
    limit = float(ml_dtypes.finfo(kind).max)
    want = np.clip(blocks / np.exp2(exponent)[..., None], -limit, limit).astype(np.float32).astype(kind)
    got = quantization.dequantize_mx(codes, scales, fmt, axis=1).reshape(8, 4, 32) / np.exp2(exponent)[..., None]
    assert (got == want.astype(np.float32)).all()


def test_e2m1_packs_the_first_element_in_the_low_nibble():
    x = np.array([[0.5, 6.0] + [0.0] * 30])  # codes 1 and 7; scale 2^0 (amax 6: floor(log2 6) - 2 = 0)
    codes, scales = quantization.quantize_mx(x, "e2m1")
    assert scales[0, 0] == 127 and codes[0, 0] == 0x71


def test_nvfp4_round_trip_and_scales():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((16, 64))
    codes, scales, global_scale = quantization.quantize_nvfp4(x, axis=0)
    assert codes.shape == (8, 64) and scales.shape == (64, 1) and scales.dtype == np.uint8
    y = quantization.dequantize_nvfp4(codes, scales, global_scale, axis=0)
    block_max = np.abs(x).max(axis=0)
    # e2m1 keeps 1 mantissa bit: within a quarter of each block's maximum.
    assert (np.abs(y - x) <= 0.25 * block_max + 1e-6).all()


@rocktile.jit
def decode_kernel(a_ptr, a_scale_ptr, eye_ptr, c_ptr, K: tl.constexpr, A_FORMAT: tl.constexpr,
                  A_PACK: tl.constexpr):
    rows = tl.arange(0, 32)
    ka = tl.arange(0, K // A_PACK)
    k = tl.arange(0, K)
    a = tl.load(a_ptr + rows[:, None] * (K // A_PACK) + ka[None, :])
    a_scale = tl.load(a_scale_ptr + rows[:, None] * (K // 32) + tl.arange(0, K // 32)[None, :])
    eye = tl.load(eye_ptr + k[:, None] * K + k[None, :])
    c = tl.dot_scaled(a, a_scale, A_FORMAT, eye, None, "bf16")
    tl.store(c_ptr + rows[:, None] * K + k[None, :], c)


# Scales that keep every finite value x scale inside bf16's normal range.
DECODE_SCALES = np.array([100, 127, 140, 200], np.uint8)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fmt", sorted(EMAX))
def test_every_code_decodes_exactly(target, fmt):
    """Row r holds every finite code of `fmt` (repeated), scaled by one of
    DECODE_SCALES per block; A x I must be A's exact values."""
    bits = {"e2m1": 4, "e2m3": 6, "e3m2": 6, "e4m3": 8, "e5m2": 8}[fmt]
    kind = quantization.ELEMENTS[fmt]
    every = np.arange(1 << bits, dtype=np.uint8)
    finite = every[np.isfinite(every.view(kind).astype(np.float32))] if bits == 8 else every
    K = 256
    rng = np.random.default_rng(3)
    codes = np.stack([np.resize(np.roll(finite, r), K) for r in range(32)]).astype(np.uint8)
    scales = rng.choice(DECODE_SCALES, (32, K // 32)).astype(np.uint8)
    packed = codes[:, 0::2] | (codes[:, 1::2] << 4) if fmt == "e2m1" else codes
    want = quantization.dequantize_mx(packed, scales, fmt, axis=1)
    eye = np.eye(K, dtype=ml_dtypes.bfloat16)
    c = np.zeros((32, K), np.float32)
    kernel = decode_kernel[(1,)](packed, scales, eye, c, K, fmt, 2 if fmt == "e2m1" else 1, target=target)
    assert (c == want).all(), np.argwhere(c != want)[:5]
    if fmt == "e2m1":  # against bf16: the hardware's scaled conversion
        assert SCALED_CONVERSION[target] in kernel.asm["amdgcn"]


# E2M1 codes times E8M0 scales into 16-bit floats: one instruction per byte
# on gfx950, per four bytes on gfx1250 (tile.scaled_upcast).
SCALED_CONVERSION = {"gfx950": "v_cvt_scalef32_pk_bf16_fp4", "gfx1250": "v_cvt_scale_pk8_bf16_fp4"}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fmt,one", [("e4m3", 0x38), ("e2m1", 0x22)])
def test_an_e8m0_nan_scale_makes_nan(target, fmt, one):
    pack = 2 if fmt == "e2m1" else 1
    codes = np.full((32, 64 // pack), one, np.uint8)  # every element 1.0
    scales = np.full((32, 2), 127, np.uint8)
    scales[5, 1] = 0xFF
    eye = np.eye(64, dtype=ml_dtypes.bfloat16)
    c = np.zeros((32, 64), np.float32)
    decode_kernel[(1,)](codes, scales, eye, c, 64, fmt, pack, target=target)
    # Row 5 holds NaNs, which the identity's zeros carry into every column.
    assert np.isnan(c[5]).all() and (np.delete(c, 5, axis=0) == 1).all()


@pytest.mark.parametrize("target", TARGETS)
def test_an_e8m0_zero_scale_is_two_to_the_minus_127(target):
    """E8M0 0 is 2^-127 (fp32's one subnormal power of two here), not 0:
    e4m3 values from 2 up, so that every product is a normal bf16."""
    codes = np.resize(np.arange(0x40, 0x7F, dtype=np.uint8), (32, 64))  # e4m3 2.0 ... 448
    scales = np.zeros((32, 2), np.uint8)
    eye = np.eye(64, dtype=ml_dtypes.bfloat16)
    c = np.zeros((32, 64), np.float32)
    decode_kernel[(1,)](codes, scales, eye, c, 64, "e4m3", 1, target=target)
    want = codes.view(ml_dtypes.float8_e4m3fn).astype(np.float64) * 2.0 ** -127
    assert (c == want).all() and (c > 0).all()


@rocktile.jit
def scaled_decode_kernel(a_ptr, a_scale_ptr, eye_ptr, c_ptr, K: tl.constexpr, A_FORMAT: tl.constexpr,
                         B_FORMAT: tl.constexpr, SCALE_FORMAT: tl.constexpr = "e8m0", N: tl.constexpr = 0):
    """The first N (all K, for 0) columns of a's decoded codes."""
    A_PACK: tl.constexpr = 2 if A_FORMAT == "e2m1" else 1
    B_PACK: tl.constexpr = 2 if B_FORMAT == "e2m1" else 1
    BLOCK: tl.constexpr = 16 if SCALE_FORMAT == "e4m3" else 32
    COLS: tl.constexpr = N if N else K
    rows = tl.arange(0, 32)
    cols = tl.arange(0, COLS)
    a = tl.load(a_ptr + rows[:, None] * (K // A_PACK) + tl.arange(0, K // A_PACK)[None, :])
    a_scale = tl.load(a_scale_ptr + rows[:, None] * (K // BLOCK) + tl.arange(0, K // BLOCK)[None, :])
    eye = tl.load(eye_ptr + tl.arange(0, K // B_PACK)[:, None] * K + cols[None, :])
    c = tl.dot_scaled(a, a_scale, A_FORMAT, eye, None, B_FORMAT, lhs_scale_format=SCALE_FORMAT,
                      rhs_scale_format=SCALE_FORMAT)
    tl.store(c_ptr + rows[:, None] * COLS + cols[None, :], c)


def _identity(K, fmt):
    """The K x K identity in `fmt` (e2m1: 1.0 is code 2, packed along K)."""
    if fmt != "e2m1":
        return np.eye(K, dtype=np.float32).astype(ml_dtypes.float8_e4m3fn).view(np.uint8)
    codes = (2 * np.eye(K)).astype(np.uint8)
    return codes[0::2] | (codes[1::2] << 4)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fmt,eye_format", [("e4m3", "e4m3"), ("e5m2", "e4m3"), ("e2m1", "e4m3"),
                                            ("e4m3", "e2m1"), ("e2m1", "e2m1"), ("e2m3", "e4m3"),
                                            ("e3m2", "e2m1")])
@pytest.mark.parametrize("K", [64, 256])
def test_scaled_instructions_scale_every_code_by_its_block(target, fmt, eye_format, K):
    """MX fp8, fp6 and fp4 run on the scaled matrix instructions: gfx950's
    v_mfma_scale_f32_*_f8f6f4 (32x32x64 for K 64, 16x16x128 for 256),
    gfx1250's v_wmma_scale_f32_16x16x128_f8f6f4 (for K 256 and fp8/fp4; K 64
    is below its k, and fp6 goes through bf16), or its 32x16x128_f4 for E2M1
    on both sides: every finite code of `fmt`
    in each row, a different scale per block of 32 k, times the identity in
    `eye_format` (its side unscaled, E8M0 127), gives each code's value
    times its block's scale, exactly."""
    kind = quantization.ELEMENTS[fmt]
    bits = {"e2m1": 4, "e2m3": 6, "e3m2": 6}.get(fmt, 8)
    every = np.arange(1 << bits, dtype=np.uint8)
    finite = every[np.isfinite(every.view(kind).astype(np.float32))] if bits == 8 else every
    rng = np.random.default_rng(5)
    codes = np.stack([np.resize(np.roll(finite, 7 * r), K) for r in range(32)]).astype(np.uint8)
    scales = rng.choice(DECODE_SCALES, (32, K // 32)).astype(np.uint8)
    packed = codes[:, 0::2] | (codes[:, 1::2] << 4) if fmt == "e2m1" else codes
    c = np.zeros((32, K), np.float32)
    kernel = scaled_decode_kernel[(1,)](packed, scales, _identity(K, eye_format), c, K, fmt, eye_format,
                                        target=target)
    want = quantization.dequantize_mx(packed, scales, fmt, axis=1)
    assert (c == want).all(), np.argwhere(c != want)[:5]
    asm = kernel.asm["amdgcn"]
    if target == "gfx950":
        shape = "32x32x64" if K == 64 else "16x16x128"
        assert f"v_mfma_scale_f32_{shape}_f8f6f4" in asm and "bf16" not in asm
    elif K == 256 and fmt in ("e4m3", "e5m2", "e2m1"):
        instr = "32x16x128_f4" if fmt == eye_format == "e2m1" else "16x16x128_f8f6f4"
        assert f"v_wmma_scale_f32_{instr}" in asm and "bf16" not in asm


# E4M3 scales that keep every E2M1 value times them normal in fp32: the
# smallest normal, 1, and up to 448; a negative one too.
NVFP4_SCALES = np.array([0x08, 0x38, 0x3F, 0x7E, 0xB8], np.uint8)


@pytest.mark.parametrize("N,instr", [(256, "32x16x128_f4"), (16, "16x16x128_f8f6f4")])
def test_nvfp4_runs_on_the_scale16_instructions(N, instr):
    """NVFP4 (E2M1, E4M3 scales per 16 k) on gfx1250's scale16 forms (the
    32x16x128 f4 one where N, the instruction's 32 rows, allows): every E2M1
    code in each row, a different E4M3 scale per block of 16, times the
    E2M1 identity (its side unscaled: E4M3 1.0), gives each code's value
    times its block's scale, exactly."""
    K = 256
    rng = np.random.default_rng(6)
    codes = np.stack([np.resize(np.roll(np.arange(16, dtype=np.uint8), 5 * r), K) for r in range(32)])
    scales = rng.choice(NVFP4_SCALES, (32, K // 16)).astype(np.uint8)
    packed = (codes[:, 0::2] | (codes[:, 1::2] << 4)).astype(np.uint8)
    c = np.zeros((32, N), np.float32)
    kernel = scaled_decode_kernel[(1,)](packed, scales, _identity(K, "e2m1"), c, K, "e2m1", "e2m1", "e4m3", N,
                                        target="gfx1250")
    values = quantization.dequantize_mx(packed, np.full((32, K // 32), 127, np.uint8), "e2m1", axis=1)
    want = (values * np.repeat(scales.view(ml_dtypes.float8_e4m3fn).astype(np.float64), 16, axis=1))[:, :N]
    assert (c == want).all(), np.argwhere(c != want)[:5]
    asm = kernel.asm["amdgcn"]
    assert f"v_wmma_scale16_f32_{instr}" in asm and "bf16" not in asm


def _operand(x, fmt, axis, scale_format="e8m0"):
    """(codes, scales, values) of `x` in `fmt` quantized along `axis`."""
    if fmt in ("bf16", "fp16"):
        codes = x.astype(ml_dtypes.bfloat16 if fmt == "bf16" else np.float16)
        return codes, None, codes.astype(np.float64)
    codes, scales = quantization.quantize_mx(x, fmt, axis=axis)
    return codes, scales, quantization.dequantize_mx(codes, scales, fmt, axis=axis).astype(np.float64)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("a_format,b_format", [("bf16", "e2m1"), ("e4m3", "e2m1"), ("e2m1", "e2m1"),
                                               ("e5m2", "e4m3"), ("e2m3", "e3m2"), ("e5m2", "bf16"),
                                               ("fp16", "e2m1")])
@pytest.mark.parametrize("M,N,K", [(64, 64, 64), (100, 70, 96)])
def test_mx_matmul(target, a_format, b_format, M, N, K):
    rng = np.random.default_rng(4)
    a_codes, a_scales, a = _operand(rng.standard_normal((M, K)), a_format, 1)
    b_codes, b_scales, b = _operand(rng.standard_normal((K, N)), b_format, 0)
    c = mxfp4_matmul.mx_matmul(a_codes, a_scales, a_format, b_codes, b_scales, b_format, target=target)
    atol = 1e-5 * K * np.abs(a).max() * np.abs(b).max()
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=atol)
    if a_format == "fp16":  # E2M1 x fp16: the scaled conversion to fp16
        kernels = [k for spec, k in mxfp4_matmul.mx_matmul_kernel.cache.items()
                   if spec.target == target and ("A_FORMAT", "fp16") in spec.constexprs]
        conversion = SCALED_CONVERSION[target].replace("bf16", "f16")
        assert kernels and all(conversion in k.asm["amdgcn"] for k in kernels)


SCALED_INSTR = {"gfx950": "v_mfma_scale_f32_16x16x128_f8f6f4", "gfx1250": "v_wmma_scale_f32_16x16x128_f8f6f4",
                ("gfx1250", "e2m1", "e2m1"): "v_wmma_scale_f32_32x16x128_f4"}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("a_format,b_format", [("e4m3", "e2m1"), ("e2m1", "e2m1"), ("e5m2", "e4m3")])
def test_mx_matmul_on_the_scaled_instructions(target, a_format, b_format):
    """BLOCK_K 128 puts MX GEMMs on both targets' scaled instructions, ragged
    in M, N and K (the masked tail of K reads zero codes)."""
    rng = np.random.default_rng(7)
    M, N, K = 100, 70, 320
    a_codes, a_scales, a = _operand(rng.standard_normal((M, K)), a_format, 1)
    b_codes, b_scales, b = _operand(rng.standard_normal((K, N)), b_format, 0)
    c = mxfp4_matmul.mx_matmul(a_codes, a_scales, a_format, b_codes, b_scales, b_format, target=target,
                               blocks=(64, 64, 128))
    atol = 1e-5 * K * np.abs(a).max() * np.abs(b).max()
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=atol)
    want = {"A_FORMAT": a_format, "B_FORMAT": b_format, "BLOCK_K": 128}
    [kernel] = [k for spec, k in mxfp4_matmul.mx_matmul_kernel.cache.items()
                if spec.target == target and want.items() <= dict(spec.constexprs).items()]
    instr = SCALED_INSTR.get((target, a_format, b_format), SCALED_INSTR[target])
    assert instr in kernel.asm["amdgcn"] and "bf16" not in kernel.asm["amdgcn"]


@pytest.mark.parametrize("target", TARGETS)
def test_nvfp4_matmul(target):
    rng = np.random.default_rng(5)
    x, w = rng.standard_normal((80, 128)), rng.standard_normal((128, 48))
    for blocks in ((64, 64, 64), (64, 64, 128)):
        c, (xa, xs, xg), (wb, ws, wg) = mxfp4_matmul.nvfp4_matmul(x, w, target=target, blocks=blocks)
        want = (quantization.dequantize_nvfp4(xa, xs, xg, axis=1).astype(np.float64) @
                quantization.dequantize_nvfp4(wb, ws, wg, axis=0).astype(np.float64))
        np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-5 * 128 * np.abs(want).max())
    if target == "gfx1250":  # BLOCK_K 128 is the scale16 instructions' k
        [kernel] = [k for spec, k in mxfp4_matmul.mx_matmul_kernel.cache.items()
                    if spec.target == target and ("SCALE_FORMAT", "e4m3") in spec.constexprs
                    and ("BLOCK_K", 128) in spec.constexprs]
        assert "v_wmma_scale16_f32_32x16x128_f4" in kernel.asm["amdgcn"]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("M,K,blocks", [(100, 96, (32, 64)), (7, 32, (16, 32)), (64, 256, (64, 128))])
def test_quantize_kernels_match_the_host(target, M, K, blocks):
    """examples/mx_quantize.py's MXFP4 and NVFP4 codes and scales equal
    quantize_mx's and quantize_nvfp4's bit for bit: magnitudes over
    2^-20..2^20 per row, an all-zero block, -0, ties."""
    rng = np.random.default_rng(M + K)
    x = rng.standard_normal((M, K)) * np.exp2(rng.integers(-20, 20, (M, 1)))
    x[0, :32] = 0
    x[-1, :32] = [-0.0, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0, 6.0] * 4  # ties (amax 6: scale 2^0)
    x = x.astype(ml_dtypes.bfloat16)
    q, s = mx_quantize.mxfp4_quantize(x, target=target, blocks=blocks)
    want_q, want_s = quantization.quantize_mx(x.astype(np.float64), "e2m1", axis=1)
    np.testing.assert_array_equal(s, want_s)
    np.testing.assert_array_equal(q, want_q)
    # NVFP4: E4M3 scales per 16 under one fp32 scale, the same arithmetic in fp32.
    q, s, g = mx_quantize.nvfp4_quantize(x, target=target, blocks=blocks)
    want_q, want_s, want_g = quantization.quantize_nvfp4(x.astype(np.float64), axis=1)
    assert g == want_g
    np.testing.assert_array_equal(s, want_s)
    np.testing.assert_array_equal(q, want_q)


BAD = {
    "format": ('tl.dot_scaled(a, s, "e3m3", a, s, "e2m1")', "lhs_format must be one of e2m1, e2m3"),
    "scale_format": ('tl.dot_scaled(a, s, "e2m1", a, s, "e2m1", lhs_scale_format="ue8")',
                     "lhs_scale_format must be 'e8m0'"),
    "k_pack": ('tl.dot_scaled(a, s, "e4m3", a, s, "e4m3", lhs_k_pack=False)',
               "only e2m1 operands can be packed along M or N"),
    "scale_shape": ('tl.dot_scaled(a, s, "e4m3", a, s, "e4m3")',
                    r"lhs_scale must be a \[32, 1\] tile .* got \[32, 2\]"),
    "dtype": ('tl.dot_scaled(a, None, "bf16", a, None, "bf16")', "lhs in bf16 must be bf16 or uint16, got uint8"),
    "out_dtype": ('tl.dot_scaled(a, s, "e2m1", a, s, "e2m1", out_dtype=tl.float16)',
                  "out_dtype must be tl.float32"),
    "inner": ('tl.dot_scaled(a, None, "e4m3", a, None, "e2m1")',
              "lhs holds 32 elements along K and rhs 64"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_dot_scaled_are_located_errors(case, located_error):
    call, message = BAD[case]
    located_error("a_ptr, s_ptr", ["r = tl.arange(0, 32)", "a = tl.load(a_ptr + r[:, None] * 32 + r[None, :])",
                                   "s = tl.load(s_ptr + r[:, None] * 2 + tl.arange(0, 2)[None, :])", call],
                  {"a_ptr": "*u8", "s_ptr": "*u8"}, message)


@pytest.mark.parametrize("a_format,b_format", [("e4m3", "e4m3"), ("bf16", "e2m1"), ("e2m1", "e2m1")])
def test_scaled_operands_do_not_spill(a_format, b_format):
    """A row mask shared by the operand's load and its scales' load once took
    the scales' layout, replicated 32 times over the operand (gfx950: 512
    VGPRs and 282 spilled). Loads and broadcasts now keep layouts that do not
    replicate them (AssignLayouts). MXFP4 pairs are two dots over the low and
    high nibbles, without interleaving the codes (113 spills before)."""
    signature = {"a_ptr": "*bf16" if a_format == "bf16" else "*u8", "a_scale_ptr": "*u8", "b_ptr": "*u8",
                 "b_scale_ptr": "*u8", "c_ptr": "*fp32", **{p: "i32" for p in (
                     "M", "N", "K", "stride_am", "stride_bk", "stride_cm", "stride_asm", "stride_bsn")}}
    kernel = rocktile.compile(mxfp4_matmul.mx_matmul_kernel, signature, dict(
        A_FORMAT=a_format, B_FORMAT=b_format, SCALE_FORMAT="e8m0", BLOCK_M=64, BLOCK_N=64, BLOCK_K=64),
        target="gfx950")
    assert kernel.metadata["vgpr_spill_count"] == 0 and kernel.metadata["vgpr_count"] <= 288


@rocktile.jit
def upcast_kernel(c_ptr, s_ptr, o_ptr, ROWS: tl.constexpr, K: tl.constexpr, AXIS: tl.constexpr):
    # tile.scaled_upcast reached directly (tl.dot_scaled makes it only for a
    # dot, in the dot operand's layout): stored, it takes a blocked layout,
    # whose lanes 16 apart hold other rows' scales.
    rows = tl.arange(0, ROWS)
    if AXIS == 1:
        codes = tl.load(c_ptr + rows[:, None] * (K // 2) + tl.arange(0, K // 2)[None, :])
        scales = tl.load(s_ptr + rows[:, None] * (K // 32) + tl.arange(0, K // 32)[None, :])
        tl.store(o_ptr + rows[:, None] * K + tl.arange(0, K)[None, :],
                 semantic.scaled_upcast(codes, scales, 1, tl.bfloat16))
    else:
        codes = tl.load(c_ptr + tl.arange(0, K // 2)[:, None] * ROWS + rows[None, :])
        scales = tl.load(s_ptr + tl.arange(0, K // 32)[:, None] * ROWS + rows[None, :])
        tl.store(o_ptr + tl.arange(0, K)[:, None] * ROWS + rows[None, :],
                 semantic.scaled_upcast(codes, scales, 0, tl.bfloat16))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("axis", [0, 1])
def test_scaled_upcast_in_a_blocked_layout(target, axis):
    """Every E2M1 code pair times random scales, converted along either axis
    in a layout no dot gives it, exactly as dequantize_mx computes them."""
    rng = np.random.default_rng(8)
    rows, K = 32, 64
    packed = rng.integers(0, 256, (rows, K // 2), dtype=np.uint8)
    scales = rng.integers(100, 150, (rows, K // 32), dtype=np.uint8)
    want = quantization.dequantize_mx(packed, scales, "e2m1", axis=1).astype(np.float32)
    out = np.zeros((rows, K) if axis == 1 else (K, rows), ml_dtypes.bfloat16)
    args = (packed, scales) if axis == 1 else (np.ascontiguousarray(packed.T), np.ascontiguousarray(scales.T))
    kernel = upcast_kernel[(1,)](*args, out, rows, K, axis, target=target)
    got = out.astype(np.float32) if axis == 1 else out.astype(np.float32).T
    assert (got == want).all(), np.argwhere(got != want)[:5]
    assert SCALED_CONVERSION[target] in kernel.asm["amdgcn"]
