"""Attention forward at the explicit level (rocktile.gluon) for gfx1250,
written as Triton's Gluon is: O = softmax(Q Kᵀ · sm_scale) V per head, for
bf16 Q, K, V of shape [batch * heads, N_CTX, HEAD_DIM] (any N_CTX).

Each program takes BLOCK_M rows of Q of one head. The Tensor Data Mover
copies Q once and K's and V's blocks of BLOCK_N rows into rings of STAGES
blocks, STAGES - 1 blocks ahead of the WMMA instructions; the copies are
zero outside the head's rows, and the scores of those columns are masked
to -inf. Kᵀ is read from K's block through a transposed view of it
(.permute([1, 0])), V's block across its rows. The softmax runs online
(the row maximum and sum carried over the blocks, in base 2), in the
layout of the WMMA accumulator, whose rows the warps split.

Replacing the rocktile imports with Triton's compiles the same kernel with
Triton's Gluon; bench/gluon.py puts the two side by side.
"""
import math

import numpy as np

import rocktile
from rocktile import gluon
import rocktile.gluon.language as gl


@gluon.jit
def gluon_attention_kernel(q_ptr, k_ptr, v_ptr, o_ptr, N_CTX, sm_scale,
                           HEAD_DIM: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr,
                           STAGES: gl.constexpr, layout: gl.constexpr, q_shared: gl.constexpr,
                           kv_shared: gl.constexpr, K_WIDTH: gl.constexpr):
    off_m = gl.program_id(0) * BLOCK_M
    head = gl.program_id(1).to(gl.int64) * N_CTX * HEAD_DIM
    q_desc = gl.amd.gfx1250.tdm.make_tensor_descriptor(q_ptr + head, [N_CTX, HEAD_DIM], [HEAD_DIM, 1],
                                                       [BLOCK_M, HEAD_DIM], q_shared)
    k_desc = gl.amd.gfx1250.tdm.make_tensor_descriptor(k_ptr + head, [N_CTX, HEAD_DIM], [HEAD_DIM, 1],
                                                       [BLOCK_N, HEAD_DIM], kv_shared)
    v_desc = gl.amd.gfx1250.tdm.make_tensor_descriptor(v_ptr + head, [N_CTX, HEAD_DIM], [HEAD_DIM, 1],
                                                       [BLOCK_N, HEAD_DIM], kv_shared)
    q_smem = gl.allocate_shared_memory(q_ptr.dtype.element_ty, [BLOCK_M, HEAD_DIM], q_shared)
    k_ring = gl.allocate_shared_memory(k_ptr.dtype.element_ty, [STAGES, BLOCK_N, HEAD_DIM], kv_shared)
    v_ring = gl.allocate_shared_memory(v_ptr.dtype.element_ty, [STAGES, BLOCK_N, HEAD_DIM], kv_shared)
    gl.amd.gfx1250.tdm.async_load(q_desc, [off_m, 0], q_smem)
    for i in gl.static_range(STAGES - 1):
        gl.amd.gfx1250.tdm.async_load(k_desc, [i * BLOCK_N, 0], k_ring.index(i))
        gl.amd.gfx1250.tdm.async_load(v_desc, [i * BLOCK_N, 0], v_ring.index(i))
    gl.amd.gfx1250.tdm.async_wait(2 * (STAGES - 1))  # Q has landed
    q = q_smem.load(gl.DotOperandLayout(0, layout, K_WIDTH))

    qk_scale = sm_scale * 1.4426950408889634  # log2(e): exp2 below
    m_i = gl.full([BLOCK_M], float("-inf"), gl.float32, layout=gl.SliceLayout(1, layout))
    l_i = gl.zeros([BLOCK_M], gl.float32, layout=gl.SliceLayout(1, layout))
    acc = gl.zeros([BLOCK_M, HEAD_DIM], gl.float32, layout=layout)
    cols = gl.arange(0, BLOCK_N, layout=gl.SliceLayout(0, layout))
    for j in range(gl.cdiv(N_CTX, BLOCK_N)):
        ahead = j + STAGES - 1
        gl.amd.gfx1250.tdm.async_load(k_desc, [ahead * BLOCK_N, 0], k_ring.index(ahead % STAGES))
        gl.amd.gfx1250.tdm.async_load(v_desc, [ahead * BLOCK_N, 0], v_ring.index(ahead % STAGES))
        gl.amd.gfx1250.tdm.async_wait(2 * (STAGES - 1))  # this block's K and V have landed
        k = k_ring.index(j % STAGES).permute([1, 0]).load(gl.DotOperandLayout(1, layout, K_WIDTH))
        qk = gl.amd.gfx1250.wmma(q, k, gl.zeros([BLOCK_M, BLOCK_N], gl.float32, layout=layout))
        qk = gl.where((j * BLOCK_N + cols < N_CTX)[None, :], qk * qk_scale, float("-inf"))
        m_new = gl.maximum(m_i, gl.max(qk, 1))
        p = gl.exp2(qk - m_new[:, None])
        alpha = gl.exp2(m_i - m_new)
        l_i = l_i * alpha + gl.sum(p, 1)
        p_op = gl.convert_layout(p.to(v_ptr.dtype.element_ty), gl.DotOperandLayout(0, layout, K_WIDTH))
        v = v_ring.index(j % STAGES).load(gl.DotOperandLayout(1, layout, K_WIDTH))
        acc = gl.amd.gfx1250.wmma(p_op, v, acc * alpha[:, None])
        m_i = m_new
    gl.amd.gfx1250.tdm.async_wait(0)
    o = acc / l_i[:, None]
    rows = off_m + gl.arange(0, BLOCK_M, layout=gl.SliceLayout(1, layout))
    dims = gl.arange(0, HEAD_DIM, layout=gl.SliceLayout(0, layout))
    gl.store(o_ptr + head + rows[:, None] * HEAD_DIM + dims[None, :], o.to(o_ptr.dtype.element_ty),
             mask=(rows < N_CTX)[:, None])


def attention_layouts(head_dim=64, block_m=64, block_n=64, num_warps=4, stages=3):
    """WMMA 16x16x32 with the warps along M (each holds whole rows, so the
    row maximum and sum stay in a warp); K, V and Q land in rows padded by
    8 elements."""
    return {"HEAD_DIM": head_dim, "BLOCK_M": block_m, "BLOCK_N": block_n, "STAGES": stages,
            "layout": gl.amd.AMDWMMALayout(3, True, [[1 << i, 0] for i in range(num_warps.bit_length() - 1)],
                                           instr_shape=[16, 16, 32]),
            "q_shared": gl.PaddedSharedLayout.with_identity_for([[head_dim, 8]], [block_m, head_dim], [1, 0]),
            "kv_shared": gl.PaddedSharedLayout.with_identity_for([[head_dim, 8]], [block_n, head_dim], [1, 0]),
            "K_WIDTH": 8}


def attention(q, k, v, sm_scale=None, **config):
    """softmax(q kᵀ · sm_scale) v for q, k, v of shape [heads, N_CTX, HEAD_DIM] (bf16), in bf16."""
    heads, n_ctx, head_dim = q.shape
    cx = attention_layouts(head_dim, **config)
    o = np.empty_like(q)
    scale = 1 / math.sqrt(head_dim) if sm_scale is None else sm_scale
    gluon_attention_kernel[(rocktile.cdiv(n_ctx, cx["BLOCK_M"]), heads)](
        q, k, v, o, n_ctx, scale, **cx, target="gfx1250", num_warps=config.get("num_warps", 4))
    return o


def reference(q, k, v, sm_scale=None):
    q, k, v = (x.astype(np.float32) for x in (q, k, v))
    s = q @ k.transpose(0, 2, 1) * (1 / math.sqrt(q.shape[-1]) if sm_scale is None else sm_scale)
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


if __name__ == "__main__":
    import ml_dtypes
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((2, 200, 64)).astype(ml_dtypes.bfloat16) for _ in range(3))
    o = attention(q, k, v)
    error = np.abs(o.astype(np.float32) - reference(q, k, v)).max()
    print(f"gfx1250: 2 heads, N_CTX 200, HEAD_DIM 64, bf16: max error {error:.2e}")
