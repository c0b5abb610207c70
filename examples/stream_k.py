"""A stream-K GEMM: C = A @ B with the K loops of all output tiles laid end
to end and cut into one equal run of iterations per program, so that a
small grid (one program per CU) stays busy whatever the tile count.

A program's run may start inside a tile (it holds the tail of a tile
another program began) and end inside another (it begins a tile that
others finish). The program that holds a tile's first iteration owns the
tile: after its part, it waits for the partial sums of each later program
that covers the rest, adds them and writes C. A program whose run starts
inside a tile writes that partial tile to its slot of a workspace, then
releases its flag. Programs only wait for later programs, each of which
publishes its partial before it waits for anyone, so every launch
finishes, provided all programs are resident at once: the launch asks for
that (`launch_cooperative_grid=True`), and the emulator then runs every
program at once. A, B: bf16, fp16 or fp8 (e4m3); fp32 accumulation.
Replacing the rocktile imports with Triton's runs the kernel under Triton.
"""
import numpy as np

import rocktile
import rocktile.language as tl


@rocktile.jit
def stream_k_kernel(a_ptr, b_ptr, c_ptr, workspace_ptr, flags_ptr, M, N, K,
                    stride_am, stride_bk, stride_cm,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                    PUBLISH: tl.constexpr = True):
    pid = tl.program_id(0)
    programs = tl.num_programs(0)
    tiles_n = tl.cdiv(N, BLOCK_N)
    iters_per_tile = tl.cdiv(K, BLOCK_K)
    total = tl.cdiv(M, BLOCK_M) * tiles_n * iters_per_tile
    per_program = tl.cdiv(total, programs)
    it = pid * per_program
    end = tl.minimum(it + per_program, total)
    rows = tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    tile_offs = rows[:, None] * BLOCK_N + cols[None, :]
    while it < end:
        tile = it // iters_per_tile
        tile_start = tile * iters_per_tile
        tile_end = tile_start + iters_per_tile
        stop = tl.minimum(end, tile_end)
        offs_m = (tile // tiles_n) * BLOCK_M + rows
        offs_n = (tile % tiles_n) * BLOCK_N + cols
        a_rows = a_ptr + (offs_m % M)[:, None] * stride_am
        b_cols = b_ptr + (offs_n % N)[None, :]
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for kb in range(it - tile_start, stop - tile_start):
            k = kb * BLOCK_K + ks
            a = tl.load(a_rows + k[None, :], mask=k[None, :] < K, other=0.0)
            b = tl.load(b_cols + k[:, None] * stride_bk, mask=k[:, None] < K, other=0.0)
            acc += tl.dot(a, b)
        if it != tile_start:
            # The tail of a tile an earlier program owns: publish it.
            if PUBLISH:
                tl.store(workspace_ptr + pid * BLOCK_M * BLOCK_N + tile_offs, acc)
                tl.atomic_xchg(flags_ptr + pid, 1, sem="release")
        else:
            # Owned: add the later programs' parts of this tile, then write C.
            other = pid + 1
            while other * per_program < tile_end:
                while tl.atomic_add(flags_ptr + other, 0, sem="acquire") == 0:
                    pass
                acc += tl.load(workspace_ptr + other * BLOCK_M * BLOCK_N + tile_offs)
                other += 1
            c = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
            tl.store(c, acc.to(c_ptr.dtype.element_ty), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
        it = stop


def stream_k(a, b, programs=8, blocks=(64, 64, 32), target="gfx950", publish=True):
    """C = a @ b (fp32) on `programs` persistent programs, and the workspace
    and flags they handed partial tiles through."""
    (M, K), (_, N) = a.shape, b.shape
    bm, bn, bk = blocks
    c = np.zeros((M, N), np.float32)
    workspace = np.zeros((programs, bm, bn), np.float32)
    flags = np.zeros(programs, np.int32)
    stream_k_kernel[(programs,)](a, b, c, workspace, flags, M, N, K, K, N, N, BLOCK_M=bm, BLOCK_N=bn,
                                 BLOCK_K=bk, PUBLISH=publish, launch_cooperative_grid=True, target=target)
    return c, flags


def reference(a, b):
    return a.astype(np.float32) @ b.astype(np.float32)


if __name__ == "__main__":
    import ml_dtypes
    rng = np.random.default_rng(0)
    for dtype in (ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn):
        a = rng.standard_normal((150, 200)).astype(dtype)
        b = rng.standard_normal((200, 130)).astype(dtype)
        for target in ("gfx950", "gfx1250"):
            c, flags = stream_k(a, b, target=target)
            print(f"{target} {np.dtype(dtype).name}: max |error| {np.abs(c - reference(a, b)).max():.2e}, "
                  f"{flags.sum()} of 8 programs handed a partial tile on")
