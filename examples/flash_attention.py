"""Attention forward, one pass with an online softmax (flash attention):
O = softmax(Q Kᵀ · scale) V per batch and head. Each program takes BLOCK_M
queries of one head and walks the keys BLOCK_N at a time; the inner step is
dot(dot(q, kᵀ).to(bf16), v). Masks handle any sequence lengths; CAUSAL masks
keys after the query. bf16 or fp16 inputs, fp32 softmax and accumulation.
Replacing the rocktile imports with Triton's runs the kernel under Triton.
"""
import numpy as np

import rocktile
import rocktile.language as tl


@rocktile.jit
def attention_kernel(q_ptr, k_ptr, v_ptr, o_ptr, sm_scale, N_Q, N_KV,
                     stride_qh, stride_qm, stride_kh, stride_kn, stride_vh, stride_vn, stride_oh, stride_om,
                     HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    head = tl.program_id(1)
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + head * stride_qh + offs_m[:, None] * stride_qm + offs_d[None, :],
                mask=offs_m[:, None] < N_Q, other=0.0)
    m_i = tl.full((BLOCK_M,), float("-inf"), tl.float32)
    l_i = tl.zeros((BLOCK_M,), tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), tl.float32)
    qk_scale = sm_scale * 1.4426950408889634  # exp(x) = exp2(x * log2(e))
    end = tl.minimum(N_KV, (tl.program_id(0) + 1) * BLOCK_M) if CAUSAL else N_KV
    for start in range(0, end, BLOCK_N):
        offs_n = start + tl.arange(0, BLOCK_N)
        k = tl.load(k_ptr + head * stride_kh + offs_n[:, None] * stride_kn + offs_d[None, :],
                    mask=offs_n[:, None] < N_KV, other=0.0)
        v = tl.load(v_ptr + head * stride_vh + offs_n[:, None] * stride_vn + offs_d[None, :],
                    mask=offs_n[:, None] < N_KV, other=0.0)
        s = tl.dot(q, tl.trans(k)) * qk_scale
        keep = offs_n[None, :] < N_KV
        if CAUSAL:
            keep = keep & (offs_n[None, :] <= offs_m[:, None])
        s = tl.where(keep, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        # A row whose keys are all masked so far keeps m = -inf; shift by 0 then.
        shift = tl.where(m_new == float("-inf"), 0.0, m_new)
        p = tl.exp2(s - shift[:, None])
        alpha = tl.exp2(m_i - shift)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = tl.dot(p.to(q.dtype), v, acc * alpha[:, None])
        m_i = m_new
    out = acc / tl.where(l_i == 0.0, 1.0, l_i)[:, None]
    tl.store(o_ptr + head * stride_oh + offs_m[:, None] * stride_om + offs_d[None, :], out.to(o_ptr.dtype.element_ty),
             mask=offs_m[:, None] < N_Q)


def attention(q, k, v, causal=False, target="gfx950", blocks=(64, 32), num_warps=4, num_stages=2):
    """q (heads x N_Q x D), k and v (heads x N_KV x D), bf16 or fp16 numpy arrays:
    softmax(q kᵀ / sqrt(D)) v per head, in q's dtype."""
    (heads, n_q, d), n_kv = q.shape, k.shape[1]
    o = np.empty_like(q)
    bm, bn = blocks
    strides = [s // x.itemsize for x in (q, k, v, o) for s in x.strides[:2]]
    attention_kernel[(rocktile.cdiv(n_q, bm), heads)](
        q, k, v, o, 1.0 / np.sqrt(d), n_q, n_kv, *strides, HEAD_DIM=d, BLOCK_M=bm, BLOCK_N=bn, CAUSAL=causal,
        num_warps=num_warps, num_stages=num_stages, target=target)
    return o


def attention_reference(q, k, v, causal=False):
    """The same in float64 numpy."""
    q, k, v = (x.astype(np.float64) for x in (q, k, v))
    s = q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1])
    if causal:
        s = np.where(np.arange(k.shape[1])[None, :] <= np.arange(q.shape[1])[:, None], s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


if __name__ == "__main__":
    import ml_dtypes
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((2, n, 64)).astype(ml_dtypes.bfloat16) for n in (100, 70, 70))
    for target in ("gfx950", "gfx1250"):
        o = attention(q, k, v, target=target)
        print(target, "max |error|:", np.abs(o.astype(np.float64) - attention_reference(q, k, v)).max())
