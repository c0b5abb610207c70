"""Lean attention: attention for decoding, stream-K style. Each head has a
few query rows (BLOCK_M: a batch of decode steps or a group of query heads
sharing the key/value head) and a long context. The key/value blocks of all
heads are laid end to end and cut into one equal run per program, so that a
grid of one program per CU stays busy whatever the number of heads.

A program keeps the online softmax of its run in each head it touches (the
running row maxima m, row sums l and the unnormalized output acc). The
program that holds a head's first block owns the head: after its part, it
waits for each later program that covers the rest, merges their (m, l,
acc) into its own and writes the output. A program whose run starts inside
a head publishes its partial to its slot of a workspace, then releases its
flag. As in examples/stream_k.py, programs only wait for later ones, which
publish before they wait, so the launch finishes when all programs are
resident: it asks for that (`launch_cooperative_grid=True`). Q, K, V: bf16
or fp16; fp32 softmax and accumulation. Replacing the rocktile imports with
Triton's runs the kernel under Triton.
"""
import numpy as np

import rocktile
import rocktile.language as tl


@rocktile.jit
def lean_attention_kernel(q_ptr, k_ptr, v_ptr, out_ptr, partial_ptr, stats_ptr, flags_ptr, heads, n_ctx, sm_scale,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr):
    pid = tl.program_id(0)
    programs = tl.num_programs(0)
    blocks = tl.cdiv(n_ctx, BLOCK_N)
    total = heads * blocks
    per_program = tl.cdiv(total, programs)
    it = pid * per_program
    end = tl.minimum(it + per_program, total)
    rows = tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    d = tl.arange(0, HEAD_DIM)
    row_offs = rows[:, None] * HEAD_DIM + d[None, :]
    while it < end:
        head = it // blocks
        head_start = head * blocks
        head_end = head_start + blocks
        stop = tl.minimum(end, head_end)
        q = tl.load(q_ptr + head * BLOCK_M * HEAD_DIM + row_offs)
        m = tl.full((BLOCK_M,), -float("inf"), tl.float32)
        l = tl.zeros((BLOCK_M,), tl.float32)
        acc = tl.zeros((BLOCK_M, HEAD_DIM), tl.float32)
        for kb in range(it - head_start, stop - head_start):
            offs_n = kb * BLOCK_N + cols
            kv = head * n_ctx * HEAD_DIM + offs_n[:, None] * HEAD_DIM + d[None, :]
            k = tl.load(k_ptr + kv, mask=offs_n[:, None] < n_ctx, other=0.0)
            v = tl.load(v_ptr + kv, mask=offs_n[:, None] < n_ctx, other=0.0)
            s = tl.dot(q, tl.trans(k)) * sm_scale
            s = tl.where(offs_n[None, :] < n_ctx, s, -float("inf"))
            m_new = tl.maximum(m, tl.max(s, axis=1))
            p = tl.exp(s - m_new[:, None])
            alpha = tl.exp(m - m_new)
            l = l * alpha + tl.sum(p, axis=1)
            acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
            m = m_new
        if it != head_start:
            # The tail of a head an earlier program owns: publish it.
            mine = pid * BLOCK_M + rows
            tl.store(partial_ptr + pid * BLOCK_M * HEAD_DIM + row_offs, acc)
            tl.store(stats_ptr + mine * 2, m)
            tl.store(stats_ptr + mine * 2 + 1, l)
            tl.atomic_xchg(flags_ptr + pid, 1, sem="release")
        else:
            # Owned: merge the later programs' parts of this head, then write it.
            other = pid + 1
            while other * per_program < head_end:
                while tl.atomic_add(flags_ptr + other, 0, sem="acquire") == 0:
                    pass
                theirs = other * BLOCK_M + rows
                m_other = tl.load(stats_ptr + theirs * 2)
                l_other = tl.load(stats_ptr + theirs * 2 + 1)
                acc_other = tl.load(partial_ptr + other * BLOCK_M * HEAD_DIM + row_offs)
                m_new = tl.maximum(m, m_other)
                alpha = tl.exp(m - m_new)
                beta = tl.exp(m_other - m_new)
                acc = acc * alpha[:, None] + acc_other * beta[:, None]
                l = l * alpha + l_other * beta
                m = m_new
                other += 1
            out = acc / l[:, None]
            tl.store(out_ptr + head * BLOCK_M * HEAD_DIM + row_offs, out.to(out_ptr.dtype.element_ty))
        it = stop


def lean_attention(q, k, v, programs=8, block_n=64, target="gfx950"):
    """softmax(q k^T / sqrt(d)) v per head (fp32) on `programs` persistent
    programs, and the flags of those that handed a partial on. q: [heads,
    rows, d]; k, v: [heads, n_ctx, d]."""
    heads, rows, dim = q.shape
    n_ctx = k.shape[1]
    out = np.zeros((heads, rows, dim), np.float32)
    partial = np.zeros((programs, rows, dim), np.float32)
    stats = np.zeros((programs, rows, 2), np.float32)
    flags = np.zeros(programs, np.int32)
    lean_attention_kernel[(programs,)](q, k, v, out, partial, stats, flags, heads, n_ctx, float(dim) ** -0.5,
                                       BLOCK_M=rows, BLOCK_N=block_n, HEAD_DIM=dim, launch_cooperative_grid=True,
                                       target=target)
    return out, flags


def reference(q, k, v):
    q, k, v = (x.astype(np.float32) for x in (q, k, v))
    s = q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1])
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return (p / p.sum(axis=-1, keepdims=True)) @ v


if __name__ == "__main__":
    import ml_dtypes
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal(shape).astype(ml_dtypes.bfloat16)
               for shape in [(3, 16, 64), (3, 300, 64), (3, 300, 64)])
    for target in ("gfx950", "gfx1250"):
        out, flags = lean_attention(q, k, v, target=target)
        print(f"{target}: max |error| {np.abs(out - reference(q, k, v)).max():.2e}, "
              f"{flags.sum()} of 8 programs handed a partial head on")
