"""Many small GEMMs at once: C[i] = A[i] @ B[i] for a batch of matrices, with
a 3-D tl.dot. Each program takes BLOCK_B matrices of the batch and one
BLOCK_M x BLOCK_N tile of their products, looping over K; masks handle any
batch size, M, N and K. bf16 or fp16 inputs, fp32 accumulation and output.
Replacing the rocktile imports with Triton's runs the kernel under Triton.
"""
import numpy as np

import rocktile
import rocktile.language as tl


@rocktile.jit
def batched_matmul_kernel(a_ptr, b_ptr, c_ptr, BATCH, M, N, K,
                          stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn,
                          stride_cb, stride_cm, stride_cn,
                          BLOCK_B: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                          BLOCK_K: tl.constexpr):
    offs_b = tl.program_id(0) * BLOCK_B + tl.arange(0, BLOCK_B)
    offs_m = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(2) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    in_batch = offs_b[:, None, None] < BATCH
    a_ptrs = (a_ptr + offs_b[:, None, None] * stride_ab + offs_m[None, :, None] * stride_am
              + offs_k[None, None, :] * stride_ak)
    b_ptrs = (b_ptr + offs_b[:, None, None] * stride_bb + offs_k[None, :, None] * stride_bk
              + offs_n[None, None, :] * stride_bn)
    acc = tl.zeros((BLOCK_B, BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=in_batch & (offs_m[None, :, None] < M) & (offs_k[None, None, :] < k_left),
                    other=0.0)
        b = tl.load(b_ptrs, mask=in_batch & (offs_k[None, :, None] < k_left) & (offs_n[None, None, :] < N),
                    other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = (c_ptr + offs_b[:, None, None] * stride_cb + offs_m[None, :, None] * stride_cm
              + offs_n[None, None, :] * stride_cn)
    tl.store(c_ptrs, acc, mask=in_batch & (offs_m[None, :, None] < M) & (offs_n[None, None, :] < N))


def batched_matmul(a, b, target="gfx950", blocks=(4, 32, 32, 32), num_warps=4):
    """a (batch x M x K) @ b (batch x K x N) as fp32 numpy arrays."""
    (batch, M, K), N = a.shape, b.shape[2]
    c = np.empty((batch, M, N), np.float32)
    bb, bm, bn, bk = blocks
    strides = [s // x.itemsize for x in (a, b, c) for s in x.strides]
    grid = (rocktile.cdiv(batch, bb), rocktile.cdiv(M, bm), rocktile.cdiv(N, bn))
    batched_matmul_kernel[grid](a, b, c, batch, M, N, K, *strides, BLOCK_B=bb, BLOCK_M=bm, BLOCK_N=bn,
                                BLOCK_K=bk, num_warps=num_warps, target=target)
    return c


if __name__ == "__main__":
    import ml_dtypes
    rng = np.random.default_rng(0)
    a = rng.standard_normal((10, 40, 50)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((10, 50, 30)).astype(ml_dtypes.bfloat16)
    for target in ("gfx950", "gfx1250"):
        c = batched_matmul(a, b, target=target)
        print(target, "max |error|:", np.abs(c - np.matmul(a.astype(np.float32), b.astype(np.float32))).max())
