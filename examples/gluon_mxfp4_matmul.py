"""An MXFP4 GEMM at the explicit level (rocktile.gluon), written as Triton's
Gluon is: C = (A · 2^(a_scale-127)) @ (B · 2^(b_scale-127)), A and B of
e2m1 codes two per byte along K (A: M x K/2, B: K/2 x N, the first code of
a byte in its low nibble), one E8M0 scale per 32 k of each row of A
(a_scale: M x K/32) and each column of B (b_scale: N x K/32), on the
block-scaled matrix instructions: gfx950's v_mfma_scale_f32_16x16x128_f8f6f4
(gl.amd.cdna4.mfma_scaled), gfx1250's v_wmma_scale_f32_16x16x128_f8f6f4
(gl.amd.gfx1250.wmma_scaled). Each K step loads its blocks of codes and
scales straight into the instruction's operand layouts and the layouts
get_mfma_scale_layout / get_wmma_scale_layout give the scales; any M, N,
and K a multiple of 32 (codes and scales past K load as zeros).

Replacing the rocktile imports with Triton's compiles the same kernel with
Triton's Gluon; bench/gluon.py puts the two side by side.
"""
import numpy as np

import rocktile
from rocktile import gluon
import rocktile.gluon.language as gl


@gluon.jit
def gluon_mxfp4_matmul_kernel(a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, c_ptr, M, N, K,
                              stride_am, stride_bk, stride_cm, stride_asm, stride_bsn,
                              BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, BLOCK_K: gl.constexpr,
                              acc_layout: gl.constexpr, operand_parent: gl.constexpr, K_WIDTH: gl.constexpr,
                              USE_WMMA: gl.constexpr):
    a_layout: gl.constexpr = gl.DotOperandLayout(0, operand_parent, K_WIDTH)
    b_layout: gl.constexpr = gl.DotOperandLayout(1, operand_parent, K_WIDTH)
    if USE_WMMA:
        a_scale_layout: gl.constexpr = gl.amd.gfx1250.get_wmma_scale_layout(a_layout, [BLOCK_M, BLOCK_K // 32])
        b_scale_layout: gl.constexpr = gl.amd.gfx1250.get_wmma_scale_layout(b_layout, [BLOCK_N, BLOCK_K // 32])
    else:
        a_scale_layout: gl.constexpr = gl.amd.cdna4.get_mfma_scale_layout(a_layout, [BLOCK_M, BLOCK_K // 32])
        b_scale_layout: gl.constexpr = gl.amd.cdna4.get_mfma_scale_layout(b_layout, [BLOCK_N, BLOCK_K // 32])
    rm = (gl.program_id(0) * BLOCK_M + gl.arange(0, BLOCK_M, layout=gl.SliceLayout(1, a_layout))) % M
    ka = gl.arange(0, BLOCK_K // 2, layout=gl.SliceLayout(0, a_layout))
    kb = gl.arange(0, BLOCK_K // 2, layout=gl.SliceLayout(1, b_layout))
    rn = (gl.program_id(1) * BLOCK_N + gl.arange(0, BLOCK_N, layout=gl.SliceLayout(0, b_layout))) % N
    sm = (gl.program_id(0) * BLOCK_M + gl.arange(0, BLOCK_M, layout=gl.SliceLayout(1, a_scale_layout))) % M
    ska = gl.arange(0, BLOCK_K // 32, layout=gl.SliceLayout(0, a_scale_layout))
    sn = (gl.program_id(1) * BLOCK_N + gl.arange(0, BLOCK_N, layout=gl.SliceLayout(1, b_scale_layout))) % N
    skb = gl.arange(0, BLOCK_K // 32, layout=gl.SliceLayout(0, b_scale_layout))
    acc = gl.zeros([BLOCK_M, BLOCK_N], gl.float32, layout=acc_layout)
    for k in range(0, gl.cdiv(K, BLOCK_K)):
        half = k * (BLOCK_K // 2)
        blocks = k * (BLOCK_K // 32)
        a = gl.load(a_ptr + rm[:, None] * stride_am + (half + ka)[None, :], mask=(half + ka < K // 2)[None, :],
                    other=0)
        b = gl.load(b_ptr + (half + kb)[:, None] * stride_bk + rn[None, :], mask=(half + kb < K // 2)[:, None],
                    other=0)
        a_scale = gl.load(a_scale_ptr + sm[:, None] * stride_asm + (blocks + ska)[None, :],
                          mask=(blocks + ska < K // 32)[None, :], other=0)
        b_scale = gl.load(b_scale_ptr + sn[:, None] * stride_bsn + (blocks + skb)[None, :],
                          mask=(blocks + skb < K // 32)[None, :], other=0)
        if USE_WMMA:
            acc = gl.amd.gfx1250.wmma_scaled(a, a_scale, "e2m1", b, b_scale, "e2m1", acc)
        else:
            acc = gl.amd.cdna4.mfma_scaled(a, a_scale, "e2m1", b, b_scale, "e2m1", acc)
    cm = gl.program_id(0) * BLOCK_M + gl.arange(0, BLOCK_M, layout=gl.SliceLayout(1, acc_layout))
    cn = gl.program_id(1) * BLOCK_N + gl.arange(0, BLOCK_N, layout=gl.SliceLayout(0, acc_layout))
    gl.store(c_ptr + cm[:, None] * stride_cm + cn[None, :], acc, mask=(cm[:, None] < M) & (cn[None, :] < N))


def mxfp4_layouts(target, block_m=64, block_n=64, block_k=128, num_warps=4):
    """The 16x16x128 block-scaled instruction with the warps 2 along N and
    the rest along M; a lane holds 16 bytes (32 codes) of consecutive k.
    The operands' layouts name it by their parent: on gfx950 the
    accumulator's; on gfx1250, as Triton's Gluon has it, the same with k
    counted in bytes of code pairs (64)."""
    warps_m = num_warps // 2
    if target == "gfx950":
        acc = gl.amd.AMDMFMALayout(4, [16, 16, 128], True, [warps_m, 2])
        operands = acc
    else:
        warps = [[0, 1]] + [[1 << i, 0] for i in range(warps_m.bit_length() - 1)]
        acc = gl.amd.AMDWMMALayout(3, True, warps, instr_shape=[16, 16, 128])
        operands = gl.amd.AMDWMMALayout(3, True, warps, instr_shape=[16, 16, 64])
    return {"BLOCK_M": block_m, "BLOCK_N": block_n, "BLOCK_K": block_k, "acc_layout": acc,
            "operand_parent": operands, "K_WIDTH": 16, "USE_WMMA": target == "gfx1250"}


def mxfp4_matmul(a, a_scale, b, b_scale, target="gfx950", **config):
    """(a, a_scale) @ (b, b_scale) in fp32: a (M x K/2) and b (K/2 x N) uint8
    codes, a_scale (M x K/32) and b_scale (N x K/32) uint8 E8M0."""
    a, a_scale, b, b_scale = (np.ascontiguousarray(x) for x in (a, a_scale, b, b_scale))
    M, N, K = a.shape[0], b.shape[1], 2 * a.shape[1]
    cx = mxfp4_layouts(target, **config)
    c = np.empty((M, N), np.float32)
    grid = (rocktile.cdiv(M, cx["BLOCK_M"]), rocktile.cdiv(N, cx["BLOCK_N"]))
    gluon_mxfp4_matmul_kernel[grid](a, a_scale, b, b_scale, c, M, N, K, a.shape[1], b.shape[1], c.shape[1],
                                    a_scale.shape[1], b_scale.shape[1], **cx, target=target,
                                    num_warps=config.get("num_warps", 4))
    return c


if __name__ == "__main__":
    from rocktile.quantization import dequantize_mx, quantize_mx
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((100, 192)), rng.standard_normal((192, 90))
    a, a_scale = quantize_mx(x, "e2m1", axis=1)
    b, b_scale = quantize_mx(w, "e2m1", axis=0)
    reference = dequantize_mx(a, a_scale, "e2m1", axis=1) @ dequantize_mx(b, b_scale, "e2m1", axis=0)
    for target in ("gfx950", "gfx1250"):
        c = mxfp4_matmul(a, a_scale, b, b_scale, target)
        print(f"{target}: 100x90x192 MXFP4, max error {np.abs(c - reference).max():.2e}")
