"""A GEMM through tensor descriptors, as newer Triton kernels write it:
C = A @ B with A, B and C described once (shape, strides, block shape) and
blocks loaded and stored at element offsets. Blocks past the edges read as
zero and are not written, so any M, N and K work without masks. bf16 or
fp16 inputs, fp32 accumulation, C in A's dtype or fp32. Replacing the
rocktile imports with Triton's runs the kernel under Triton.
"""
import numpy as np

import rocktile
import rocktile.language as tl


@rocktile.jit
def matmul_descriptor_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[stride_am, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[stride_bk, 1], block_shape=[BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[stride_cm, 1], block_shape=[BLOCK_M, BLOCK_N])
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([off_m, k * BLOCK_K])
        b = b_desc.load([k * BLOCK_K, off_n])
        acc = tl.dot(a, b, acc)
    c_desc.store([off_m, off_n], acc.to(c_desc.dtype))


def matmul(a, b, out_dtype=np.float32, target="gfx950", blocks=(64, 64, 32), num_warps=4, num_stages=None):
    """a (M x K) @ b (K x N), numpy arrays whose rows are 16-byte multiples
    (descriptors need 16-byte strides)."""
    (M, K), N = a.shape, b.shape[1]
    c = np.empty((M, N), out_dtype)
    bm, bn, bk = blocks
    grid = (rocktile.cdiv(M, bm), rocktile.cdiv(N, bn))
    matmul_descriptor_kernel[grid](a, b, c, M, N, K, a.strides[0] // a.itemsize, b.strides[0] // b.itemsize,
                                   c.strides[0] // c.itemsize, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                                   num_warps=num_warps, num_stages=num_stages, target=target)
    return c


if __name__ == "__main__":
    import ml_dtypes
    rng = np.random.default_rng(0)
    a = rng.standard_normal((200, 96)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((96, 72)).astype(ml_dtypes.bfloat16)
    for target in ("gfx950", "gfx1250"):
        c = matmul(a, b, target=target)
        print(target, "max |error|:", np.abs(c - a.astype(np.float32) @ b.astype(np.float32)).max())
