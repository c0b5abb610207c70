"""The tutorial GEMM: C = activation(A @ B + bias), on the matrix cores.

Programs walk the output tiles in groups of GROUP_SIZE_M rows of tiles, so
that neighbouring programs share A's rows and B's columns (the L2-friendly
order of Triton's tutorial). Loads past K are masked to zero, and rows past
M and columns past N are read from valid rows (the `% M`, `% N`) and not
stored, so any M, N, K work. A, B: bf16 or fp16; accumulation in fp32; the
epilogue adds the bias, applies the activation and casts to C's type.
Replacing the rocktile imports with Triton's runs the kernel under Triton.
"""
import numpy as np

import rocktile
import rocktile.language as tl


@rocktile.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, bias_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                  GROUP_SIZE_M: tl.constexpr, HAS_BIAS: tl.constexpr, ACTIVATION: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    if HAS_BIAS:
        accumulator += tl.load(bias_ptr + offs_bn)[None, :]
    if ACTIVATION == "leaky_relu":
        accumulator = tl.where(accumulator >= 0, accumulator, 0.01 * accumulator)
    c = accumulator.to(c_ptr.dtype.element_ty)

    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


# Configurations per target (the first is used without a GPU to time them).
CONFIGS = {
    "gfx950": [rocktile.Config({"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8},
                               num_warps=4, num_stages=2),
               rocktile.Config({"BLOCK_SIZE_M": 256, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8},
                               num_warps=8, num_stages=2)],
    "gfx1250": [rocktile.Config({"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8},
                                num_warps=4, num_stages=2),
                rocktile.Config({"BLOCK_SIZE_M": 256, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8},
                                num_warps=8, num_stages=2)],
}
autotuned = {target: rocktile.autotune(configs, key=["M", "N", "K"])(matmul_kernel)
             for target, configs in CONFIGS.items()}


def matmul(a, b, bias=None, activation="", out_dtype=np.float32, target="gfx950", blocks=None, num_warps=4):
    """C = activation(a @ b + bias) as numpy arrays (in the emulator without
    a GPU). `blocks` = (BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K) fixes the
    tiles; without it the target's autotuned configurations are used."""
    (M, K), (_, N) = a.shape, b.shape
    c = np.empty((M, N), out_dtype)
    bias_arg = bias if bias is not None else c  # not read without HAS_BIAS
    args = (a, b, c, bias_arg, M, N, K, *a.strides, *b.strides, *c.strides)
    args = args[:7] + tuple(s // x.itemsize for s, x in zip(args[7:], (a, a, b, b, c, c)))
    meta = dict(HAS_BIAS=bias is not None, ACTIVATION=activation, target=target)
    if blocks is None:
        def grid(m):
            return (rocktile.cdiv(M, m["BLOCK_SIZE_M"]) * rocktile.cdiv(N, m["BLOCK_SIZE_N"]),)
        autotuned[target][grid](*args, **meta)
        return c
    bm, bn, bk = blocks
    grid = (rocktile.cdiv(M, bm) * rocktile.cdiv(N, bn),)
    matmul_kernel[grid](*args, BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk, GROUP_SIZE_M=4,
                        num_warps=num_warps, **meta)
    return c


def reference(a, b, bias=None, activation=""):
    c = a.astype(np.float32) @ b.astype(np.float32)
    if bias is not None:
        c = c + bias.astype(np.float32)[None, :]
    if activation == "leaky_relu":
        c = np.where(c >= 0, c, np.float32(0.01) * c)
    return c


if __name__ == "__main__":
    import ml_dtypes
    rng = np.random.default_rng(0)
    a = rng.standard_normal((300, 200)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((200, 170)).astype(ml_dtypes.bfloat16)
    for target in CONFIGS:
        c = matmul(a, b, target=target, blocks=(64, 64, 32))
        print(target, "max |error|:", np.abs(c - reference(a, b)).max())
