"""The block-scaled matrix instructions at the explicit level
(gl.amd.cdna4.mfma_scaled, gl.amd.gfx1250.wmma_scaled) and
examples/gluon_mxfp4_matmul.py, run in the emulator against numpy."""
import os
import sys

import numpy as np
import pytest

import rocktile
from rocktile import gluon
import rocktile.gluon.language as gl
from rocktile.quantization import dequantize_mx, quantize_mx

FILE = __file__
EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(FILE)))), "examples")
sys.path.insert(0, EXAMPLES)
import gluon_mxfp4_matmul  # noqa: E402

CHIPS = ("gfx950", "gfx1250")


def line_of(marker):
    with open(FILE) as f:
        return next(i for i, line in enumerate(f, 1) if line.rstrip().endswith(marker))


def mx_operands(M, N, K, seed=0):
    rng = np.random.default_rng(seed)
    x, w = rng.standard_normal((M, K)) * 3, rng.standard_normal((K, N))
    a, a_scale = quantize_mx(x, "e2m1", axis=1)
    b, b_scale = quantize_mx(w, "e2m1", axis=0)
    reference = dequantize_mx(a, a_scale, "e2m1", axis=1) @ dequantize_mx(b, b_scale, "e2m1", axis=0)
    return a, a_scale, b, b_scale, reference


@pytest.mark.parametrize("target", CHIPS)
@pytest.mark.parametrize("shape, config", [
    ((100, 90, 192), {}),
    ((64, 64, 128), {"num_warps": 2}),
    ((130, 70, 256), {"block_m": 32, "block_n": 128, "num_warps": 8}),
])
def test_the_mxfp4_gemm(target, shape, config):
    """examples/gluon_mxfp4_matmul.py: ragged M and N, K a multiple of 32
    (192: one and a half blocks of 128), several warp splits. The products
    of E2M1 values and power-of-two scales are exact in fp32; the sums in
    another order: tolerance 1e-5 relative."""
    a, a_scale, b, b_scale, reference = mx_operands(*shape)
    c = gluon_mxfp4_matmul.mxfp4_matmul(a, a_scale, b, b_scale, target, **config)
    np.testing.assert_allclose(c, reference, rtol=1e-5, atol=1e-4)


@gluon.jit
def scaled_mistakes(a_ptr, s_ptr, c_ptr, ACC: gl.constexpr, KW: gl.constexpr, CASE: gl.constexpr):
    a_layout: gl.constexpr = gl.DotOperandLayout(0, ACC, KW)
    b_layout: gl.constexpr = gl.DotOperandLayout(1, ACC, KW)
    a = gl.full([32, 64], 0, gl.uint8, layout=a_layout)  # ERR-kwidth
    b = gl.full([64, 32], 0, gl.uint8, layout=b_layout)
    sa = gl.full([32, 4], 127, gl.uint8, layout=gl.amd.cdna4.get_mfma_scale_layout(a_layout, [32, 4]))
    sb = gl.full([32, 4], 127, gl.uint8, layout=gl.amd.cdna4.get_mfma_scale_layout(b_layout, [32, 4]))
    acc = gl.zeros([32, 32], gl.float32, layout=ACC)
    if CASE == 0:
        acc = gl.amd.cdna4.mfma_scaled(a, sa, "e2m1", b, sb, "e2m1", acc)
    elif CASE == 1:
        acc = gl.amd.cdna4.mfma_scaled(a, sb, "e2m1", b, sb, "e2m1", acc)  # ERR-scale-layout
    elif CASE == 2:
        acc = gl.amd.cdna4.mfma_scaled(a, sa, "e4m3", b, sb, "e2m1", acc)  # ERR-format
    else:
        acc = gl.amd.cdna4.mfma_scaled(a, None, "e2m1", b, sb, "e2m1", acc)  # ERR-no-scale
    gl.store(c_ptr + gl.arange(0, 32, layout=gl.SliceLayout(1, ACC))[:, None] * 32
             + gl.arange(0, 32, layout=gl.SliceLayout(0, ACC))[None, :], acc)


@pytest.mark.parametrize("case, kw, marker, message", [
    (0, 32, "# ERR-kwidth", "k_width=32 does not match mfma_f32_16x16x128_f8f6f4, whose lanes hold 16 bytes of E2M1 "
                            "pairs of A and B: use k_width=16"),
    (1, 16, "# ERR-scale-layout", "mfma_scaled: a_scale must be a [32, 4] tile of uint8 E8M0 scales (one per 32 k) "
                                  "in the layout get_mfma_scale_layout"),
    (2, 16, "# ERR-format", "mfma_scaled: a_format must be 'e2m1' (uint8 bytes of two codes), 'e4m3' (float8e4nv) "
                            "or 'e5m2' (float8e5) and match a's dtype; got 'e4m3' for uint8"),
    (3, 16, "# ERR-no-scale", "mfma_scaled without a_scale is not supported by rocktile yet"),
])
def test_scaled_mistakes(case, kw, marker, message):
    with pytest.raises(rocktile.CompilationError) as info:
        scaled_mistakes.compile({"a_ptr": "*u8", "s_ptr": "*u8", "c_ptr": "*fp32"},
                                {"ACC": gl.amd.AMDMFMALayout(4, [16, 16, 128], True, [2, 2]), "KW": kw,
                                 "CASE": case}, target="gfx950", num_warps=4)
    error = info.value
    assert (error.filename, error.lineno) == (FILE, line_of(marker)), str(error)
    assert message in str(error), str(error)


@gluon.jit
def mixed_scaled_product(a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, c_ptr, acc_layout: gl.constexpr,
                         b_parent: gl.constexpr, A_WIDTH: gl.constexpr, USE_WMMA: gl.constexpr):
    """C (32x32) = (A * a_scale) @ (B * b_scale): A e4m3 (32x128), B e2m1
    bytes (64x32), one block of K."""
    a_layout: gl.constexpr = gl.DotOperandLayout(0, acc_layout, A_WIDTH)
    b_layout: gl.constexpr = gl.DotOperandLayout(1, b_parent, 16)
    if USE_WMMA:
        sa_layout: gl.constexpr = gl.amd.gfx1250.get_wmma_scale_layout(a_layout, [32, 4])
        sb_layout: gl.constexpr = gl.amd.gfx1250.get_wmma_scale_layout(b_layout, [32, 4])
    else:
        sa_layout: gl.constexpr = gl.amd.cdna4.get_mfma_scale_layout(a_layout, [32, 4])
        sb_layout: gl.constexpr = gl.amd.cdna4.get_mfma_scale_layout(b_layout, [32, 4])
    a = load_block(a_ptr, 32, 128, a_layout)
    b = load_block(b_ptr, 64, 32, b_layout)
    a_scale = load_block(a_scale_ptr, 32, 4, sa_layout)
    b_scale = load_block(b_scale_ptr, 32, 4, sb_layout)
    acc = gl.zeros([32, 32], gl.float32, layout=acc_layout)
    if USE_WMMA:
        acc = gl.amd.gfx1250.wmma_scaled(a, a_scale, "e4m3", b, b_scale, "e2m1", acc)
    else:
        acc = gl.amd.cdna4.mfma_scaled(a, a_scale, "e4m3", b, b_scale, "e2m1", acc)
    rc = gl.arange(0, 32, layout=gl.SliceLayout(1, acc_layout))
    cc = gl.arange(0, 32, layout=gl.SliceLayout(0, acc_layout))
    gl.store(c_ptr + rc[:, None] * 32 + cc[None, :], acc)


@gluon.jit
def load_block(ptr, ROWS: gl.constexpr, COLS: gl.constexpr, layout: gl.constexpr):
    """The row-major ROWS x COLS block at `ptr`, in `layout`."""
    rows = gl.arange(0, ROWS, layout=gl.SliceLayout(1, layout))
    cols = gl.arange(0, COLS, layout=gl.SliceLayout(0, layout))
    return gl.load(ptr + rows[:, None] * COLS + cols[None, :])


@pytest.mark.parametrize("target", CHIPS)
def test_an_mxfp8_by_mxfp4_product(target):
    """Mixed formats: MXFP8 (e4m3) A, MXFP4 B; on gfx1250 B's parent counts
    k in bytes (Triton's convention) and A's in codes, with k_width 8 for
    fp8 there (32 on gfx950)."""
    rng = np.random.default_rng(4)
    a, a_scale = quantize_mx(rng.standard_normal((32, 128)), "e4m3", axis=1)
    b, b_scale = quantize_mx(rng.standard_normal((128, 32)), "e2m1", axis=0)
    reference = dequantize_mx(a, a_scale, "e4m3", axis=1) @ dequantize_mx(b, b_scale, "e2m1", axis=0)
    c = np.zeros((32, 32), np.float32)
    if target == "gfx950":
        acc = gl.amd.AMDMFMALayout(4, [16, 16, 128], True, [2, 2])
        b_parent, a_width = acc, 32
    else:
        acc = gl.amd.AMDWMMALayout(3, True, [[0, 1], [1, 0]], instr_shape=[16, 16, 128])
        b_parent, a_width = gl.amd.AMDWMMALayout(3, True, [[0, 1], [1, 0]], instr_shape=[16, 16, 64]), 8
    import ml_dtypes
    mixed_scaled_product[(1,)](np.ascontiguousarray(a).view(ml_dtypes.float8_e4m3fn), a_scale, b, b_scale, c,
                               acc_layout=acc, b_parent=b_parent, A_WIDTH=a_width, USE_WMMA=target == "gfx1250",
                               target=target)
    np.testing.assert_allclose(c, reference, rtol=1e-5, atol=1e-4)
