"""Kernels written the ways Triton users write them, for bench/patterns.py:
the same source compiles under rocktile and, with the imports swapped,
under Triton 3.9. Each is what a kernel library holds, not what rocktile
was tuned on: `acc +=` and `acc = tl.dot(.., acc)`, a column-major B, a
split-K GEMM that adds fp32 partials with atomics, bias and GELU/SiLU
epilogues, a decode-shaped skinny GEMM, an fp8 GEMM with block scales,
RMSNorm and softmax rows."""
import rocktile
import rocktile.language as tl


@rocktile.jit
def gemm_acc_plus(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_bn, stride_cm,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, FOLD_STYLE: tl.constexpr):
    """C = A B with the accumulator added by hand (FOLD_STYLE 0: `acc +=`,
    1: `acc = acc + dot`, 2: `acc = tl.dot(a, b, acc)`); B's strides are
    arguments, so it may be column-major (stride_bk = 1)."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        if FOLD_STYLE == 0:
            acc += tl.dot(a, b)
        elif FOLD_STYLE == 1:
            acc = acc + tl.dot(a, b)
        else:
            acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@rocktile.jit
def gemm_split_k(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, SPLIT_K: tl.constexpr):
    """Split-K: program (m, n, s) sums every SPLIT_K-th K block and adds its
    fp32 partial tile into C with atomics."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    pid_k = tl.program_id(2)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = pid_k * BLOCK_K + tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K * SPLIT_K)):
        k_left = K - (k * SPLIT_K + pid_k) * BLOCK_K
        a = tl.load(a_ptrs, mask=tl.arange(0, BLOCK_K)[None, :] < k_left, other=0.0)
        b = tl.load(b_ptrs, mask=tl.arange(0, BLOCK_K)[:, None] < k_left, other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K * SPLIT_K
        b_ptrs += BLOCK_K * SPLIT_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    tl.atomic_add(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@rocktile.jit
def gemm_bias_act(a_ptr, b_ptr, bias_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, ACTIVATION: tl.constexpr):
    """C = act(A B + bias), act GELU (tanh form, through tl.exp) or SiLU
    (through tl.sigmoid), cast to C's type."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        acc += tl.dot(tl.load(a_ptrs), tl.load(b_ptrs))
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    acc += tl.load(bias_ptr + offs_n)[None, :]
    if ACTIVATION == "gelu":
        inner = 0.7978845608028654 * (acc + 0.044715 * acc * acc * acc)
        tanh = 2.0 / (1.0 + tl.exp(-2.0 * inner)) - 1.0
        acc = 0.5 * acc * (1.0 + tanh)
    else:
        acc = acc * tl.sigmoid(acc)
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@rocktile.jit
def gemm_fp8_block_scale(a_ptr, b_ptr, c_ptr, a_scale_ptr, b_scale_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                         stride_asm, stride_bsk, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """C = (A * a_scale)(B * b_scale) with fp8 A and B, as block-quantized
    models store them: one fp32 scale per row of A and 128 K (1 x 128
    groups, M x K/128) and one per 128 x 128 block of B (K/128 x N/128);
    BLOCK_K is the group, 128, and BLOCK_N divides 128. Each K step's
    product is scaled into the fp32 accumulator."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_m % M)[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + (offs_n % N)[None, :]
    a_scales = a_scale_ptr + (offs_m % M) * stride_asm
    b_scales = b_scale_ptr + (pid_n * BLOCK_N) // 128
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        a_s = tl.load(a_scales + k)
        b_s = tl.load(b_scales + k * stride_bsk)
        acc += tl.dot(a, b) * a_s[:, None] * b_s
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@rocktile.jit
def rmsnorm(x_ptr, w_ptr, y_ptr, N, eps, BLOCK_N: tl.constexpr):
    """One row: y = x / sqrt(mean(x^2) + eps) * w, in fp32, stored as y's type."""
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_N)
    mask = offs < N
    x = tl.load(x_ptr + row * N + offs, mask=mask, other=0.0).to(tl.float32)
    rstd = tl.rsqrt(tl.sum(x * x, axis=0) / N + eps)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * N + offs, (x * rstd * w).to(y_ptr.dtype.element_ty), mask=mask)


@rocktile.jit
def softmax_row(x_ptr, y_ptr, N, BLOCK_N: tl.constexpr):
    """One row of softmax, the tutorial's way (max subtracted, tl.exp)."""
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + row * N + offs, mask=offs < N, other=-float("inf")).to(tl.float32)
    num = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * N + offs, (num / tl.sum(num, axis=0)).to(y_ptr.dtype.element_ty), mask=offs < N)
