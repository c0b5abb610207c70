"""A W8A8 GEMM: int8 activations times int8 weights, accumulated exactly in
int32 on the matrix cores, then either stored as int32 or dequantized with a
scale per row of A and per column of B (C = (A @ B) * sa[:, None] * sb[None, :])
into fp32. Masks handle any M, N, K. Replacing the rocktile imports with
Triton's runs the kernel under Triton.
"""
import numpy as np

import rocktile
import rocktile.language as tl


@rocktile.jit
def int8_matmul_kernel(a_ptr, b_ptr, c_ptr, a_scale_ptr, b_scale_ptr, M, N, K,
                       stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                       DEQUANTIZE: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    if DEQUANTIZE:
        sa = tl.load(a_scale_ptr + offs_m, mask=offs_m < M, other=0.0)
        sb = tl.load(b_scale_ptr + offs_n, mask=offs_n < N, other=0.0)
        tl.store(c_ptrs, acc.to(tl.float32) * sa[:, None] * sb[None, :], mask=c_mask)
    else:
        tl.store(c_ptrs, acc, mask=c_mask)


def int8_matmul(a, b, a_scale=None, b_scale=None, target="gfx950", blocks=(64, 64, 64), num_warps=4):
    """a (M x K) int8 times b (K x N) int8: int32, or fp32 dequantized by
    a_scale (M) and b_scale (N) when they are given."""
    (M, K), (_, N) = a.shape, b.shape
    dequantize = a_scale is not None
    c = np.empty((M, N), np.float32 if dequantize else np.int32)
    scales = (a_scale, b_scale) if dequantize else (c, c)  # not read without DEQUANTIZE
    bm, bn, bk = blocks
    strides = [s // x.itemsize for x in (a, b, c) for s in x.strides]
    int8_matmul_kernel[(rocktile.cdiv(M, bm), rocktile.cdiv(N, bn))](
        a, b, c, *scales, M, N, K, *strides, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, DEQUANTIZE=dequantize,
        num_warps=num_warps, target=target)
    return c


def quantize(x, axis):
    """Symmetric int8 quantization with one scale per row (axis=1) or column
    (axis=0): x ~ q * scale."""
    scale = np.maximum(np.abs(x).max(axis=axis), 1e-8).astype(np.float32) / 127
    q = np.clip(np.rint(x / np.expand_dims(scale, axis)), -127, 127).astype(np.int8)
    return q, scale


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((200, 300)), rng.standard_normal((300, 150))
    (qa, sa), (qb, sb) = quantize(x, axis=1), quantize(w, axis=0)
    for target in ("gfx950", "gfx1250"):
        exact = int8_matmul(qa, qb, target=target)
        assert (exact == qa.astype(np.int32) @ qb.astype(np.int32)).all()
        y = int8_matmul(qa, qb, sa, sb, target=target)
        print(target, "int32 exact; dequantized max |error| vs fp64 x @ w:", np.abs(y - x @ w).max())
