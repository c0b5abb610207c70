"""Block-scaled GEMMs with tl.dot_scaled: MXFP4 weights (two e2m1 codes
per byte along K, one E8M0 scale per 32) times bf16 (or fp16) activations, or times
MXFP8 (e4m3) activations with their own scales; and NVFP4 (E4M3 scales per
16, rocktile's `*_scale_format="e4m3"`) with the per-tensor scales applied
to the result. Masks handle any M and N; K is a multiple of 32. Replacing
the rocktile imports with Triton's runs the MX kernels under Triton.
"""
import numpy as np

import rocktile
import rocktile.language as tl


@rocktile.jit
def mx_matmul_kernel(a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, c_ptr, M, N, K,
                     stride_am, stride_bk, stride_cm, stride_asm, stride_bsn,
                     A_FORMAT: tl.constexpr, B_FORMAT: tl.constexpr, SCALE_FORMAT: tl.constexpr,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    SCALE_BLOCK: tl.constexpr = 16 if SCALE_FORMAT == "e4m3" else 32
    A_PACK: tl.constexpr = 2 if A_FORMAT == "e2m1" else 1
    B_PACK: tl.constexpr = 2 if B_FORMAT == "e2m1" else 1
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_ak = tl.arange(0, BLOCK_K // A_PACK)
    offs_bk = tl.arange(0, BLOCK_K // B_PACK)
    offs_s = tl.arange(0, BLOCK_K // SCALE_BLOCK)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_ak[None, :]
    b_ptrs = b_ptr + offs_bk[:, None] * stride_bk + offs_n[None, :]
    a_scale_ptrs = a_scale_ptr + offs_m[:, None] * stride_asm + offs_s[None, :]
    b_scale_ptrs = b_scale_ptr + offs_n[:, None] * stride_bsn + offs_s[None, :]
    a_rows = offs_m[:, None] < M
    b_cols = offs_n[None, :] < N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=a_rows & (offs_ak[None, :] < k_left // A_PACK), other=0)
        b = tl.load(b_ptrs, mask=(offs_bk[:, None] < k_left // B_PACK) & b_cols, other=0)
        s_in = offs_s[None, :] < k_left // SCALE_BLOCK
        a_scale = None
        if A_FORMAT != "bf16" and A_FORMAT != "fp16":
            a_scale = tl.load(a_scale_ptrs, mask=a_rows & s_in, other=0)
        b_scale = None
        if B_FORMAT != "bf16" and B_FORMAT != "fp16":
            b_scale = tl.load(b_scale_ptrs, mask=(offs_n[:, None] < N) & s_in, other=0)
        if SCALE_FORMAT == "e4m3":  # rocktile's NVFP4 extension
            acc = tl.dot_scaled(a, a_scale, A_FORMAT, b, b_scale, B_FORMAT, acc,
                                lhs_scale_format="e4m3", rhs_scale_format="e4m3")
        else:
            acc = tl.dot_scaled(a, a_scale, A_FORMAT, b, b_scale, B_FORMAT, acc)
        a_ptrs += BLOCK_K // A_PACK
        b_ptrs += (BLOCK_K // B_PACK) * stride_bk
        a_scale_ptrs += BLOCK_K // SCALE_BLOCK
        b_scale_ptrs += BLOCK_K // SCALE_BLOCK
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    tl.store(c_ptrs, acc, mask=a_rows & b_cols)


def mx_matmul(a, a_scale, a_format, b, b_scale, b_format, scale_format="e8m0", target="gfx950",
              blocks=(64, 64, 64), num_warps=4):
    """a (M x K) times b (K x N) in fp32: each bf16 or fp16, or codes (e2m1
    packed two per byte along K) with scales [M, K/block] and [N, K/block]."""
    M, N = a.shape[0], b.shape[1]
    K = b.shape[0] * (2 if b_format == "e2m1" else 1)
    c = np.empty((M, N), np.float32)
    # Not read for bf16 and fp16 operands.
    a_scale, b_scale = (c if s is None else s for s in (a_scale, b_scale))
    bm, bn, bk = blocks
    mx_matmul_kernel[(rocktile.cdiv(M, bm), rocktile.cdiv(N, bn))](
        a, a_scale, b, b_scale, c, M, N, K, a.strides[0] // a.itemsize, b.strides[0] // b.itemsize, N,
        a_scale.strides[0] // a_scale.itemsize, b_scale.strides[0] // b_scale.itemsize,
        A_FORMAT=a_format, B_FORMAT=b_format, SCALE_FORMAT=scale_format, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
        num_warps=num_warps, target=target)
    return c


def nvfp4_matmul(x, w, target="gfx1250", blocks=(64, 64, 64), num_warps=4):
    """x (M x K) times w (K x N), both quantized to NVFP4 along K."""
    from rocktile import quantization
    (xa, xs, xg), (wb, ws, wg) = quantization.quantize_nvfp4(x, axis=1), quantization.quantize_nvfp4(w, axis=0)
    c = mx_matmul(xa, xs, "e2m1", wb, ws, "e2m1", "e4m3", target, blocks, num_warps)
    return c * (xg * wg), (xa, xs, xg), (wb, ws, wg)


if __name__ == "__main__":
    import ml_dtypes
    from rocktile import quantization
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((200, 256)), rng.standard_normal((256, 150))
    wb, ws = quantization.quantize_mx(w, "e2m1", axis=0)
    w_mx = quantization.dequantize_mx(wb, ws, "e2m1", axis=0).astype(np.float64)
    xa, xs = quantization.quantize_mx(x, "e4m3", axis=1)
    x_mx = quantization.dequantize_mx(xa, xs, "e4m3", axis=1).astype(np.float64)
    x16 = x.astype(ml_dtypes.bfloat16)
    for target in ("gfx950", "gfx1250"):
        y = mx_matmul(x16, None, "bf16", wb, ws, "e2m1", target=target)
        assert np.allclose(y, x16.astype(np.float64) @ w_mx, rtol=1e-5, atol=1e-4)
        y = mx_matmul(xa, xs, "e4m3", wb, ws, "e2m1", target=target)
        assert np.allclose(y, x_mx @ w_mx, rtol=1e-5, atol=1e-4)
        y, (xa4, xs4, xg), (wb4, ws4, wg) = nvfp4_matmul(x, w, target=target)
        want = (quantization.dequantize_nvfp4(xa4, xs4, xg, axis=1).astype(np.float64) @
                quantization.dequantize_nvfp4(wb4, ws4, wg, axis=0).astype(np.float64))
        assert np.allclose(y, want, rtol=1e-5, atol=1e-4)
        print(target, "bf16 x mxfp4, mxfp8 x mxfp4 and nvfp4 match their dequantized products; nvfp4's max "
              f"|error| vs fp64 x @ w: {np.abs(y - x @ w).max():.2f} (max |x @ w| {np.abs(x @ w).max():.1f})")
