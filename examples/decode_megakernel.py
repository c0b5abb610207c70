"""A decode megakernel: one transformer block of a small model for one
decoding step of a batch of 1-8 sequences, as one persistent launch.

The block: RMSNorm, the QKV projection with RoPE on queries and keys (the
new token's keys and values written into a paged KV cache), grouped-query
attention over each sequence's pages, the output projection plus the
residual, RMSNorm, and a SwiGLU MLP whose weights are MXFP4 (e2m1 codes with
an E8M0 scale per 32) plus the residual. Activations are bf16 into each
product, fp32 out of it; the residual stream is fp32.

The work is cut into tasks of five stages: a QKV task per projected head
(the RMSNorm of the batch's rows recomputed in each), an attention task per
sequence and KV head, and an output-projection, gate/up and down task per
BLOCK_N columns. In `decode_block_kernel` every program takes the next task
from a queue (an atomic counter), waits until the tasks its inputs come
from have finished, runs it and counts it done: each KV head's group has a
counter of finished projections (its query heads, its key and its value),
which its attention tasks wait on; each later stage waits for the whole
stage before it. Tasks are taken in order and wait only for earlier ones,
which running programs hold, so the launch finishes; it asks that every
program be resident (`launch_cooperative_grid=True`). `decode_stage_kernel`
runs one stage's tasks as one program each: the same block as five
launches, for comparison. Both hand the same intermediates (q, the
attention output, x2, the SwiGLU activations) between tasks through global
memory, since a persistent program hands its results to others through
memory too: the example prints the launches and, measured by the emulator
(`CompiledKernel.global_memory_traffic()`), the bytes of each intermediate
written and read back. What the megakernel saves is the launches and the
drain between them: its attention tasks start as soon as their group's
projections are done. Replacing the rocktile imports with Triton's runs
both under Triton.
"""
import numpy as np

import rocktile
import rocktile.language as tl

# The model: hidden size, query heads, KV heads, head size, MLP width.
D, H, HKV, HD, F = 256, 4, 2, 64, 512
PAGE, MAX_PAGES = 16, 8   # tokens per KV-cache page, pages per sequence
BLOCK_M, BLOCK_N = 16, 64  # the batch's rows padded to a matrix tile; columns per task
EPS = 1e-5
STAGES = ("QKV projection + RoPE", "attention", "output projection + residual", "gate/up + SwiGLU",
          "down projection + residual")


@rocktile.jit
def rms_norm_rows(x_ptr, weight_ptr, batch, D: tl.constexpr, BLOCK_M: tl.constexpr, EPS: tl.constexpr):
    """The batch's rows of x (fp32, D wide) normalized, in bf16; padding rows are zero."""
    rows = tl.arange(0, BLOCK_M)
    cols = tl.arange(0, D)
    x = tl.load(x_ptr + rows[:, None] * D + cols[None, :], mask=rows[:, None] < batch, other=0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=1) / D + EPS)
    return (x * rstd[:, None] * tl.load(weight_ptr + cols)[None, :]).to(tl.bfloat16)


@rocktile.jit
def qkv_rope_task(j, x_ptr, norm_ptr, w_qkv_ptr, cos_sin_ptr, q_ptr, kv_cache_ptr, block_table_ptr, ctx_lens_ptr,
                  batch, D: tl.constexpr, H: tl.constexpr, HKV: tl.constexpr, HD: tl.constexpr,
                  PAGE: tl.constexpr, MAX_PAGES: tl.constexpr, BLOCK_M: tl.constexpr, EPS: tl.constexpr):
    """Projects head j of the H query, HKV key and HKV value heads; RoPE
    rotates each pair (i, i + HD/2) of a query or key by the token's angles."""
    HALF: tl.constexpr = HD // 2
    h = rms_norm_rows(x_ptr, norm_ptr, batch, D, BLOCK_M, EPS)
    rows = tl.arange(0, BLOCK_M)
    live = rows < batch
    half = tl.arange(0, HALF)
    w = w_qkv_ptr + tl.arange(0, D)[:, None] * ((H + 2 * HKV) * HD) + j * HD + half[None, :]
    lo = tl.dot(h, tl.load(w))
    hi = tl.dot(h, tl.load(w + HALF))
    pos = tl.load(ctx_lens_ptr + rows, mask=live, other=0)  # the new token's position
    if j < H + HKV:
        angles = cos_sin_ptr + pos[:, None] * HD + half[None, :]
        cos = tl.load(angles, mask=live[:, None], other=0.0)
        sin = tl.load(angles + HALF, mask=live[:, None], other=0.0)
        lo, hi = lo * cos - hi * sin, hi * cos + lo * sin
    if j < H:
        dst = q_ptr + rows[:, None] * (H * HD) + j * HD + half[None, :]
    else:
        # kv_cache: [pages, 2 (keys, values), HKV, PAGE, HD]
        page = tl.load(block_table_ptr + rows * MAX_PAGES + pos // PAGE, mask=live, other=0)
        slot = ((page * 2 + (j - H) // HKV) * HKV + (j - H) % HKV) * PAGE + pos % PAGE
        dst = kv_cache_ptr + slot[:, None] * HD + half[None, :]
    tl.store(dst, lo.to(tl.bfloat16), mask=live[:, None])
    tl.store(dst + HALF, hi.to(tl.bfloat16), mask=live[:, None])


@rocktile.jit
def attention_task(t, q_ptr, kv_cache_ptr, block_table_ptr, ctx_lens_ptr, attn_ptr, sm_scale,
                   H: tl.constexpr, HKV: tl.constexpr, HD: tl.constexpr, PAGE: tl.constexpr,
                   MAX_PAGES: tl.constexpr, BLOCK_M: tl.constexpr):
    """Sequence t // HKV's query heads of KV head t % HKV (rows of one
    tile) over its pages, with an online softmax."""
    G: tl.constexpr = H // HKV
    b = t // HKV
    g = t % HKV
    r = tl.arange(0, BLOCK_M)
    d = tl.arange(0, HD)
    s_idx = tl.arange(0, PAGE)
    heads = (r[:, None] < G) & (d[None, :] < HD)
    rows = b * H * HD + (g * G + r)[:, None] * HD + d[None, :]
    q = tl.load(q_ptr + rows, mask=heads, other=0.0)
    n = tl.load(ctx_lens_ptr + b) + 1
    m = tl.full((BLOCK_M,), -float("inf"), tl.float32)
    l = tl.zeros((BLOCK_M,), tl.float32)
    acc = tl.zeros((BLOCK_M, HD), tl.float32)
    for p in range(0, tl.cdiv(n, PAGE)):
        page = tl.load(block_table_ptr + b * MAX_PAGES + p)
        valid = p * PAGE + s_idx < n
        keys = kv_cache_ptr + ((page * 2 * HKV + g) * PAGE + s_idx)[:, None] * HD + d[None, :]
        k = tl.load(keys, mask=valid[:, None], other=0.0)
        v = tl.load(keys + HKV * PAGE * HD, mask=valid[:, None], other=0.0)
        s = tl.where(valid[None, :], tl.dot(q, tl.trans(k)) * sm_scale, -float("inf"))
        m_new = tl.maximum(m, tl.max(s, axis=1))
        e = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m - m_new)
        l = l * alpha + tl.sum(e, axis=1)
        acc = acc * alpha[:, None] + tl.dot(e.to(tl.bfloat16), v)
        m = m_new
    tl.store(attn_ptr + rows, (acc / l[:, None]).to(tl.bfloat16), mask=heads)


@rocktile.jit
def out_proj_task(n, x_ptr, attn_ptr, w_o_ptr, x2_ptr, batch, D: tl.constexpr, K: tl.constexpr,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """Columns n * BLOCK_N... of x2 = x + attn @ w_o."""
    rows = tl.arange(0, BLOCK_M)
    cols = n * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, K)
    live = rows[:, None] < batch
    a = tl.load(attn_ptr + rows[:, None] * K + ks[None, :], mask=live, other=0.0)
    y = tl.dot(a, tl.load(w_o_ptr + ks[:, None] * D + cols[None, :]))
    out = rows[:, None] * D + cols[None, :]
    tl.store(x2_ptr + out, tl.load(x_ptr + out, mask=live, other=0.0) + y, mask=live)


@rocktile.jit
def gate_up_task(n, x2_ptr, norm_ptr, w_gate_ptr, gate_scale_ptr, w_up_ptr, up_scale_ptr, act_ptr, batch,
                 D: tl.constexpr, F: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                 EPS: tl.constexpr):
    """Columns n * BLOCK_N... of act = silu(h @ w_gate) * (h @ w_up), h the
    RMSNorm of x2; the weights MXFP4 along D."""
    h = rms_norm_rows(x2_ptr, norm_ptr, batch, D, BLOCK_M, EPS)
    rows = tl.arange(0, BLOCK_M)
    cols = n * BLOCK_N + tl.arange(0, BLOCK_N)
    codes = tl.arange(0, D // 2)[:, None] * F + cols[None, :]
    scales = cols[:, None] * (D // 32) + tl.arange(0, D // 32)[None, :]
    gate = tl.dot_scaled(h, None, "bf16", tl.load(w_gate_ptr + codes), tl.load(gate_scale_ptr + scales), "e2m1")
    up = tl.dot_scaled(h, None, "bf16", tl.load(w_up_ptr + codes), tl.load(up_scale_ptr + scales), "e2m1")
    act = gate * tl.sigmoid(gate) * up
    tl.store(act_ptr + rows[:, None] * F + cols[None, :], act.to(tl.bfloat16), mask=rows[:, None] < batch)


@rocktile.jit
def down_task(n, x2_ptr, act_ptr, w_down_ptr, down_scale_ptr, out_ptr, batch, D: tl.constexpr, F: tl.constexpr,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """Columns n * BLOCK_N... of out = x2 + act @ w_down (MXFP4 along F)."""
    rows = tl.arange(0, BLOCK_M)
    cols = n * BLOCK_N + tl.arange(0, BLOCK_N)
    live = rows[:, None] < batch
    a = tl.load(act_ptr + rows[:, None] * F + tl.arange(0, F)[None, :], mask=live, other=0.0)
    w = tl.load(w_down_ptr + tl.arange(0, F // 2)[:, None] * D + cols[None, :])
    s = tl.load(down_scale_ptr + cols[:, None] * (F // 32) + tl.arange(0, F // 32)[None, :])
    out = rows[:, None] * D + cols[None, :]
    y = tl.dot_scaled(a, None, "bf16", w, s, "e2m1")
    tl.store(out_ptr + out, tl.load(x2_ptr + out, mask=live, other=0.0) + y, mask=live)


@rocktile.jit
def run_task(stage, i, x_ptr, norm1_ptr, w_qkv_ptr, cos_sin_ptr, w_o_ptr, norm2_ptr, w_gate_ptr, gate_scale_ptr,
             w_up_ptr, up_scale_ptr, w_down_ptr, down_scale_ptr, kv_cache_ptr, block_table_ptr, ctx_lens_ptr,
             q_ptr, attn_ptr, x2_ptr, act_ptr, out_ptr, batch, sm_scale,
             D: tl.constexpr, H: tl.constexpr, HKV: tl.constexpr, HD: tl.constexpr, F: tl.constexpr,
             PAGE: tl.constexpr, MAX_PAGES: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
             EPS: tl.constexpr):
    """Task i of `stage` (0-4, the order of STAGES)."""
    if stage == 0:
        qkv_rope_task(i, x_ptr, norm1_ptr, w_qkv_ptr, cos_sin_ptr, q_ptr, kv_cache_ptr, block_table_ptr,
                      ctx_lens_ptr, batch, D, H, HKV, HD, PAGE, MAX_PAGES, BLOCK_M, EPS)
    elif stage == 1:
        attention_task(i, q_ptr, kv_cache_ptr, block_table_ptr, ctx_lens_ptr, attn_ptr, sm_scale, H, HKV, HD, PAGE,
                       MAX_PAGES, BLOCK_M)
    elif stage == 2:
        out_proj_task(i, x_ptr, attn_ptr, w_o_ptr, x2_ptr, batch, D, H * HD, BLOCK_M, BLOCK_N)
    elif stage == 3:
        gate_up_task(i, x2_ptr, norm2_ptr, w_gate_ptr, gate_scale_ptr, w_up_ptr, up_scale_ptr, act_ptr, batch, D, F,
                     BLOCK_M, BLOCK_N, EPS)
    else:
        down_task(i, x2_ptr, act_ptr, w_down_ptr, down_scale_ptr, out_ptr, batch, D, F, BLOCK_M, BLOCK_N)


@rocktile.jit
def wait_until(counter_ptr, count):
    while tl.atomic_add(counter_ptr, 0, sem="acquire") < count:
        pass


@rocktile.jit
def decode_block_kernel(x_ptr, norm1_ptr, w_qkv_ptr, cos_sin_ptr, w_o_ptr, norm2_ptr, w_gate_ptr, gate_scale_ptr,
                        w_up_ptr, up_scale_ptr, w_down_ptr, down_scale_ptr, kv_cache_ptr, block_table_ptr,
                        ctx_lens_ptr, q_ptr, attn_ptr, x2_ptr, act_ptr, out_ptr, queue_ptr, done_ptr, batch,
                        sm_scale, D: tl.constexpr, H: tl.constexpr, HKV: tl.constexpr, HD: tl.constexpr,
                        F: tl.constexpr, PAGE: tl.constexpr, MAX_PAGES: tl.constexpr, BLOCK_M: tl.constexpr,
                        BLOCK_N: tl.constexpr, EPS: tl.constexpr, SKIP_WAIT: tl.constexpr = -1):
    """The whole block, persistent. done_ptr: HKV + 3 counters, zero at the
    launch (per KV head: its projections done; then attention, output
    projection and gate/up tasks done). SKIP_WAIT = s plants a bug: stage
    s's tasks start without waiting for their inputs."""
    G: tl.constexpr = H // HKV
    COLUMN_TASKS: tl.constexpr = D // BLOCK_N
    n_attention = batch * HKV
    starts = (0, H + 2 * HKV, H + 2 * HKV + n_attention, H + 2 * HKV + n_attention + COLUMN_TASKS,
              H + 2 * HKV + n_attention + COLUMN_TASKS + F // BLOCK_N)
    total = starts[4] + COLUMN_TASKS
    task = tl.atomic_add(queue_ptr, 1, sem="relaxed")
    while task < total:
        stage = ((task >= starts[1]).to(tl.int32) + (task >= starts[2]).to(tl.int32) +
                 (task >= starts[3]).to(tl.int32) + (task >= starts[4]).to(tl.int32))
        i = task - tl.where(stage == 0, starts[0], tl.where(stage == 1, starts[1], tl.where(
            stage == 2, starts[2], tl.where(stage == 3, starts[3], starts[4]))))
        if stage == 1:
            if SKIP_WAIT != 1:
                wait_until(done_ptr + i % HKV, G + 2)  # the group's query heads, its key and value
        elif stage == 2:
            if SKIP_WAIT != 2:
                wait_until(done_ptr + HKV, n_attention)
        elif stage == 3:
            if SKIP_WAIT != 3:
                wait_until(done_ptr + HKV + 1, COLUMN_TASKS)
        elif stage == 4:
            if SKIP_WAIT != 4:
                wait_until(done_ptr + HKV + 2, F // BLOCK_N)
        run_task(stage, i, x_ptr, norm1_ptr, w_qkv_ptr, cos_sin_ptr, w_o_ptr, norm2_ptr, w_gate_ptr, gate_scale_ptr,
                 w_up_ptr, up_scale_ptr, w_down_ptr, down_scale_ptr, kv_cache_ptr, block_table_ptr, ctx_lens_ptr,
                 q_ptr, attn_ptr, x2_ptr, act_ptr, out_ptr, batch, sm_scale, D, H, HKV, HD, F, PAGE, MAX_PAGES,
                 BLOCK_M, BLOCK_N, EPS)
        if stage == 0:
            group = tl.where(i < H, i // G, (i - H) % HKV)
            tl.atomic_add(done_ptr + group, 1, sem="release")
        elif stage < 4:
            tl.atomic_add(done_ptr + HKV + stage - 1, 1, sem="release")
        task = tl.atomic_add(queue_ptr, 1, sem="relaxed")


@rocktile.jit
def decode_stage_kernel(x_ptr, norm1_ptr, w_qkv_ptr, cos_sin_ptr, w_o_ptr, norm2_ptr, w_gate_ptr, gate_scale_ptr,
                        w_up_ptr, up_scale_ptr, w_down_ptr, down_scale_ptr, kv_cache_ptr, block_table_ptr,
                        ctx_lens_ptr, q_ptr, attn_ptr, x2_ptr, act_ptr, out_ptr, batch, sm_scale,
                        D: tl.constexpr, H: tl.constexpr, HKV: tl.constexpr, HD: tl.constexpr, F: tl.constexpr,
                        PAGE: tl.constexpr, MAX_PAGES: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                        EPS: tl.constexpr, STAGE: tl.constexpr):
    """One stage of the block, a task per program."""
    run_task(STAGE, tl.program_id(0), x_ptr, norm1_ptr, w_qkv_ptr, cos_sin_ptr, w_o_ptr, norm2_ptr, w_gate_ptr,
             gate_scale_ptr, w_up_ptr, up_scale_ptr, w_down_ptr, down_scale_ptr, kv_cache_ptr, block_table_ptr,
             ctx_lens_ptr, q_ptr, attn_ptr, x2_ptr, act_ptr, out_ptr, batch, sm_scale, D, H, HKV, HD, F, PAGE,
             MAX_PAGES, BLOCK_M, BLOCK_N, EPS)


CONSTEXPRS = dict(D=D, H=H, HKV=HKV, HD=HD, F=F, PAGE=PAGE, MAX_PAGES=MAX_PAGES, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                  EPS=EPS)


def stage_tasks(batch):
    return (H + 2 * HKV, batch * HKV, D // BLOCK_N, F // BLOCK_N, D // BLOCK_N)


def make_block(batch, seed=0):
    """A block's weights and a decoding step's state: x (the batch's
    residual rows), a KV cache with ctx_lens[b] tokens of sequence b in
    pages its block table scatters, and RoPE's cos/sin per position."""
    import ml_dtypes
    from rocktile import quantization
    rng = np.random.default_rng(seed)
    bf16 = ml_dtypes.bfloat16
    w = {"x": rng.standard_normal((batch, D)).astype(np.float32),
         "norm1": (1 + 0.1 * rng.standard_normal(D)).astype(np.float32),
         "norm2": (1 + 0.1 * rng.standard_normal(D)).astype(np.float32),
         "w_qkv": (rng.standard_normal((D, (H + 2 * HKV) * HD)) / np.sqrt(D)).astype(bf16),
         "w_o": (rng.standard_normal((H * HD, D)) / np.sqrt(H * HD)).astype(bf16)}
    for name, shape in (("gate", (D, F)), ("up", (D, F)), ("down", (F, D))):
        w[f"w_{name}"], w[f"{name}_scale"] = quantization.quantize_mx(
            rng.standard_normal(shape) / np.sqrt(shape[0]), "e2m1", axis=0)
    ctx_lens = rng.integers(1, PAGE * MAX_PAGES - 1, batch).astype(np.int32)
    pages = rng.permutation(batch * MAX_PAGES + 3)[:batch * MAX_PAGES].astype(np.int32)
    w["block_table"] = pages.reshape(batch, MAX_PAGES)
    w["ctx_lens"] = ctx_lens
    w["kv_cache"] = np.zeros((batch * MAX_PAGES + 3, 2, HKV, PAGE, HD), bf16)
    for b, n in enumerate(ctx_lens):
        for p in range(n):  # the tokens already decoded
            w["kv_cache"][w["block_table"][b, p // PAGE], :, :, p % PAGE] = rng.standard_normal((2, HKV, HD))
    angles = np.arange(PAGE * MAX_PAGES)[:, None] * 10000.0 ** (-np.arange(HD // 2) * 2 / HD)[None, :]
    w["cos_sin"] = np.concatenate([np.cos(angles), np.sin(angles)], axis=1).astype(np.float32)
    return w


def _arguments(w):
    batch = w["x"].shape[0]
    scratch = {"q": np.zeros((batch, H, HD), w["w_qkv"].dtype), "attn": np.zeros((batch, H * HD), w["w_o"].dtype),
               "x2": np.zeros((batch, D), np.float32), "act": np.zeros((batch, F), w["w_o"].dtype),
               "out": np.zeros((batch, D), np.float32)}
    args = [w[k] for k in ("x", "norm1", "w_qkv", "cos_sin", "w_o", "norm2", "w_gate", "gate_scale", "w_up",
                           "up_scale", "w_down", "down_scale", "kv_cache", "block_table", "ctx_lens")]
    return args + list(scratch.values()), scratch


INTERMEDIATES = ("q_ptr", "attn_ptr", "x2_ptr", "act_ptr")


def _handed_over(kernels):
    """What the launches `kernels` (the CompiledKernels they returned) did
    with the intermediates, measured by the emulator: {"launches": n,
    "intermediates": {name: (bytes written, bytes read back)}}, each lane's
    access counted."""
    handed = {}
    for name in INTERMEDIATES:
        traffic = [k.global_memory_traffic()[name] for k in kernels]
        handed[name[:-4]] = (sum(t["written"] for t in traffic), sum(t["read"] for t in traffic))
    return {"launches": len(kernels), "intermediates": handed}


def decode_block(w, programs=8, target="gfx950", skip_wait=-1):
    """The block in one persistent launch: (out, the KV cache it wrote,
    what _handed_over reports)."""
    batch = w["x"].shape[0]
    kv_cache = w["kv_cache"].copy()
    args, scratch = _arguments({**w, "kv_cache": kv_cache})
    queue, done = np.zeros(1, np.int32), np.zeros(HKV + 3, np.int32)
    kernel = decode_block_kernel[(programs,)](*args, queue, done, batch, HD ** -0.5, **CONSTEXPRS,
                                              SKIP_WAIT=skip_wait, launch_cooperative_grid=True, target=target)
    return scratch["out"], kv_cache, _handed_over([kernel])


def decode_block_by_stages(w, target="gfx950"):
    """The same block as five launches, one per stage."""
    batch = w["x"].shape[0]
    kv_cache = w["kv_cache"].copy()
    args, scratch = _arguments({**w, "kv_cache": kv_cache})
    kernels = [decode_stage_kernel[(tasks,)](*args, batch, HD ** -0.5, **CONSTEXPRS, STAGE=stage, target=target)
               for stage, tasks in enumerate(stage_tasks(batch))]
    return scratch["out"], kv_cache, _handed_over(kernels)


def reference(w):
    """The block in numpy (fp32, with the kernels' bf16 roundings of the
    products' inputs): (out, the KV cache with the new token's entries)."""
    import ml_dtypes
    from rocktile import quantization
    bf16 = lambda a: np.asarray(a, np.float32).astype(ml_dtypes.bfloat16).astype(np.float32)  # noqa: E731
    f32 = lambda a: np.asarray(a).astype(np.float32)  # noqa: E731

    def rms_norm(x, weight):
        return bf16(x / np.sqrt((x * x).mean(axis=1, keepdims=True) + EPS) * weight)

    x, ctx_lens, table = w["x"], w["ctx_lens"], w["block_table"]
    batch, half = x.shape[0], HD // 2
    kv_cache = w["kv_cache"].copy()
    heads = (rms_norm(x, w["norm1"]) @ f32(w["w_qkv"])).reshape(batch, H + 2 * HKV, HD)
    cos, sin = w["cos_sin"][ctx_lens, None, :half], w["cos_sin"][ctx_lens, None, half:]
    lo, hi = heads[:, :H + HKV, :half].copy(), heads[:, :H + HKV, half:].copy()
    heads[:, :H + HKV, :half], heads[:, :H + HKV, half:] = lo * cos - hi * sin, hi * cos + lo * sin
    heads = bf16(heads)
    attn = np.zeros((batch, H, HD), np.float32)
    for b, n in enumerate(ctx_lens):
        kv_cache[table[b, n // PAGE], :, :, n % PAGE] = heads[b, H:].reshape(2, HKV, HD)
        keys = f32(np.stack([kv_cache[table[b, p // PAGE], :, :, p % PAGE] for p in range(n + 1)], axis=2))
        for head in range(H):
            k, v = keys[0, head // (H // HKV)], keys[1, head // (H // HKV)]
            s = heads[b, head] @ k.T * HD ** -0.5
            p = np.exp(s - s.max())
            attn[b, head] = (p / p.sum()) @ v
    x2 = x + bf16(attn.reshape(batch, H * HD)) @ f32(w["w_o"])
    h2 = rms_norm(x2, w["norm2"])
    weight = {n: quantization.dequantize_mx(w[f"w_{n}"], w[f"{n}_scale"], "e2m1", axis=0)
              for n in ("gate", "up", "down")}
    gate, up = h2 @ weight["gate"], h2 @ weight["up"]
    act = bf16(gate / (1 + np.exp(-gate)) * up)
    return x2 + act @ weight["down"], kv_cache


if __name__ == "__main__":
    for batch in (1, 8):
        w = make_block(batch)
        want, want_cache = reference(w)
        for target in ("gfx950", "gfx1250"):
            out, cache, mega = decode_block(w, target=target)
            staged, _, stages = decode_block_by_stages(w, target=target)
            tasks = ", ".join(f"{stage} {n}" for stage, n in zip(STAGES, stage_tasks(batch)))
            print(f"batch {batch} {target}: tasks {tasks}; max |error| megakernel "
                  f"{np.abs(out - want).max():.2e}, by stages {np.abs(staged - want).max():.2e} (max |out| "
                  f"{np.abs(want).max():.1f})")
            for way, report in (("megakernel", mega), ("by stages", stages)):
                handed = ", ".join(f"{name} {wrote} -> {read}"
                                   for name, (wrote, read) in report["intermediates"].items())
                print(f"  {way}: {report['launches']} launch(es); intermediates through global memory, bytes "
                      f"written -> read back: {handed}")
