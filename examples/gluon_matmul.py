"""A GEMM at the explicit level (rocktile.gluon), written as Triton's Gluon
is: the author gives every tile its layout. Each K step loads blocks of A
and B in coalesced blocked layouts, writes them into shared memory in the
author's swizzled arrangement, and reads them back in the matrix
instruction's operand layouts: MFMA on gfx950 (AMDMFMALayout), WMMA on
gfx1250 (AMDWMMALayout). C = A @ B for bf16 or fp16 A and B, accumulated
in fp32; any M, N, K (loads past K are zero, rows past M and columns past
N are read from valid ones and not stored). gluon_async_matmul_kernel is
gfx950's with direct-to-LDS loads filling rings of shared memory ahead of
the MFMA instructions (commit groups and their waits); and
gluon_tdm_matmul_kernel gfx1250's with the Tensor Data Mover copying the
blocks into rings (bf16, fp16 or fp8), with explicit waits.

Replacing the rocktile imports with Triton's (`from triton.experimental
import gluon`, `import triton.experimental.gluon.language as gl`) compiles
the same kernel with Triton's Gluon; bench/gluon.py puts the two side by
side.
"""
import numpy as np

import rocktile
from rocktile import gluon
import rocktile.gluon.language as gl


@gluon.jit
def block_offsets(M, N, stride_am, stride_bk, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr,
                  BLOCK_K: gl.constexpr, load_a: gl.constexpr, load_b: gl.constexpr):
    """The element offsets of this program's first blocks of A (BLOCK_M x
    BLOCK_K) and B (BLOCK_K x BLOCK_N) in the load layouts, rows past M and
    columns past N wrapped onto valid ones; and the blocks' k indices."""
    rm = (gl.program_id(0) * BLOCK_M + gl.arange(0, BLOCK_M, layout=gl.SliceLayout(1, load_a))) % M
    ka = gl.arange(0, BLOCK_K, layout=gl.SliceLayout(0, load_a))
    kb = gl.arange(0, BLOCK_K, layout=gl.SliceLayout(1, load_b))
    rn = (gl.program_id(1) * BLOCK_N + gl.arange(0, BLOCK_N, layout=gl.SliceLayout(0, load_b))) % N
    return rm[:, None] * stride_am + ka[None, :], kb[:, None] * stride_bk + rn[None, :], ka, kb


@gluon.jit
def gluon_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                        BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, BLOCK_K: gl.constexpr,
                        load_a: gl.constexpr, load_b: gl.constexpr, acc_layout: gl.constexpr,
                        a_shared: gl.constexpr, b_shared: gl.constexpr, K_WIDTH: gl.constexpr,
                        USE_WMMA: gl.constexpr):
    pid_m = gl.program_id(0)
    pid_n = gl.program_id(1)
    a_offs, b_offs, ka, kb = block_offsets(M, N, stride_am, stride_bk, BLOCK_M, BLOCK_N, BLOCK_K, load_a, load_b)
    a_ptrs = a_ptr + a_offs
    b_ptrs = b_ptr + b_offs
    a_smem = gl.allocate_shared_memory(a_ptr.dtype.element_ty, [BLOCK_M, BLOCK_K], a_shared)
    b_smem = gl.allocate_shared_memory(b_ptr.dtype.element_ty, [BLOCK_K, BLOCK_N], b_shared)
    acc = gl.zeros([BLOCK_M, BLOCK_N], gl.float32, layout=acc_layout)
    for k in range(0, gl.cdiv(K, BLOCK_K)):
        a = gl.load(a_ptrs, mask=ka[None, :] < K - k * BLOCK_K, other=0.0)
        b = gl.load(b_ptrs, mask=kb[:, None] < K - k * BLOCK_K, other=0.0)
        gl.barrier()  # every warp has read the previous step's blocks
        a_smem.store(a)
        b_smem.store(b)
        gl.barrier()  # ... and every warp's part of these is written
        a_op = a_smem.load(gl.DotOperandLayout(0, acc_layout, K_WIDTH))
        b_op = b_smem.load(gl.DotOperandLayout(1, acc_layout, K_WIDTH))
        if USE_WMMA:
            acc = gl.amd.gfx1250.wmma(a_op, b_op, acc)
        else:
            acc = gl.amd.cdna4.mfma(a_op, b_op, acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    cm = pid_m * BLOCK_M + gl.arange(0, BLOCK_M, layout=gl.SliceLayout(1, acc_layout))
    cn = pid_n * BLOCK_N + gl.arange(0, BLOCK_N, layout=gl.SliceLayout(0, acc_layout))
    c = acc.to(c_ptr.dtype.element_ty)
    gl.store(c_ptr + cm[:, None] * stride_cm + cn[None, :], c, mask=(cm[:, None] < M) & (cn[None, :] < N))


@gluon.jit
def gluon_tdm_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                            BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, BLOCK_K: gl.constexpr,
                            STAGES: gl.constexpr, acc_layout: gl.constexpr, a_shared: gl.constexpr,
                            b_shared: gl.constexpr, K_WIDTH: gl.constexpr, IN_FLIGHT: gl.constexpr = None):
    """gfx1250: C = A @ B with A's and B's blocks copied by the Tensor Data
    Mover into rings of STAGES blocks, STAGES - 1 steps ahead of the WMMA
    instructions. Each step waits until at most IN_FLIGHT of this warp's
    copies are in flight (by default the two of each step ahead, so this
    step's have landed), then meets the other warps, whose rows of the
    blocks are readable after the barrier."""
    a_desc = gl.amd.gfx1250.tdm.make_tensor_descriptor(a_ptr, [M, K], [stride_am, 1], [BLOCK_M, BLOCK_K], a_shared)
    b_desc = gl.amd.gfx1250.tdm.make_tensor_descriptor(b_ptr, [K, N], [stride_bk, 1], [BLOCK_K, BLOCK_N], b_shared)
    a_ring = gl.allocate_shared_memory(a_ptr.dtype.element_ty, [STAGES, BLOCK_M, BLOCK_K], a_shared)
    b_ring = gl.allocate_shared_memory(b_ptr.dtype.element_ty, [STAGES, BLOCK_K, BLOCK_N], b_shared)
    off_m = gl.program_id(0) * BLOCK_M
    off_n = gl.program_id(1) * BLOCK_N
    for s in gl.static_range(STAGES - 1):
        gl.amd.gfx1250.tdm.async_load(a_desc, [off_m, s * BLOCK_K], a_ring.index(s))
        gl.amd.gfx1250.tdm.async_load(b_desc, [s * BLOCK_K, off_n], b_ring.index(s))  # first-copies
    acc = gl.zeros([BLOCK_M, BLOCK_N], gl.float32, layout=acc_layout)
    for k in range(gl.cdiv(K, BLOCK_K)):
        ahead = k + STAGES - 1
        gl.barrier()  # every warp is done with the blocks the next copies overwrite
        gl.amd.gfx1250.tdm.async_load(a_desc, [off_m, ahead * BLOCK_K], a_ring.index(ahead % STAGES))
        gl.amd.gfx1250.tdm.async_load(b_desc, [ahead * BLOCK_K, off_n], b_ring.index(ahead % STAGES))
        if IN_FLIGHT is None:
            gl.amd.gfx1250.tdm.async_wait(2 * (STAGES - 1))
        else:
            gl.amd.gfx1250.tdm.async_wait(IN_FLIGHT)
        gl.barrier()
        a = a_ring.index(k % STAGES).load(gl.DotOperandLayout(0, acc_layout, K_WIDTH))
        b = b_ring.index(k % STAGES).load(gl.DotOperandLayout(1, acc_layout, K_WIDTH))  # operand-read
        acc = gl.amd.gfx1250.wmma(a, b, acc)
    gl.amd.gfx1250.tdm.async_wait(0)
    cm = off_m + gl.arange(0, BLOCK_M, layout=gl.SliceLayout(1, acc_layout))
    cn = off_n + gl.arange(0, BLOCK_N, layout=gl.SliceLayout(0, acc_layout))
    c = acc.to(c_ptr.dtype.element_ty)
    gl.store(c_ptr + cm[:, None] * stride_cm + cn[None, :], c, mask=(cm[:, None] < M) & (cn[None, :] < N))


@gluon.jit
def gluon_async_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                              BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, BLOCK_K: gl.constexpr,
                              STAGES: gl.constexpr, load_a: gl.constexpr, load_b: gl.constexpr,
                              acc_layout: gl.constexpr, a_shared: gl.constexpr, b_shared: gl.constexpr,
                              K_WIDTH: gl.constexpr, IN_FLIGHT: gl.constexpr = None):
    """gfx950: C = A @ B with A's and B's blocks loaded straight into rings
    of STAGES blocks of shared memory (buffer_load ... lds, through
    cdna4.async_copy.buffer_load_to_shared), STAGES - 1 steps ahead of the
    MFMA instructions, one commit group per step; each step waits until at
    most IN_FLIGHT groups are in flight (by default the STAGES - 1 ahead of
    it). The compiler places the barriers. Rows are copied in 16-byte
    runs: K and N multiples of 16 (as the launcher specializes them)."""
    pid_m = gl.program_id(0)
    pid_n = gl.program_id(1)
    a_offs, b_offs, ka, kb = block_offsets(M, N, stride_am, stride_bk, BLOCK_M, BLOCK_N, BLOCK_K, load_a, load_b)
    a_ring = gl.allocate_shared_memory(a_ptr.dtype.element_ty, [STAGES, BLOCK_M, BLOCK_K], a_shared)
    b_ring = gl.allocate_shared_memory(b_ptr.dtype.element_ty, [STAGES, BLOCK_K, BLOCK_N], b_shared)
    for s in gl.static_range(STAGES - 1):
        gl.amd.cdna4.async_copy.buffer_load_to_shared(a_ring.index(s), a_ptr, a_offs + s * BLOCK_K,
                                                      mask=ka[None, :] < K - s * BLOCK_K)
        gl.amd.cdna4.async_copy.buffer_load_to_shared(b_ring.index(s), b_ptr, b_offs + s * BLOCK_K * stride_bk,
                                                      mask=kb[:, None] < K - s * BLOCK_K)  # first-group
        gl.amd.cdna4.async_copy.commit_group()
    acc = gl.zeros([BLOCK_M, BLOCK_N], gl.float32, layout=acc_layout)
    for k in range(gl.cdiv(K, BLOCK_K)):
        ahead = k + STAGES - 1
        gl.amd.cdna4.async_copy.buffer_load_to_shared(a_ring.index(ahead % STAGES), a_ptr, a_offs + ahead * BLOCK_K,
                                                      mask=ka[None, :] < K - ahead * BLOCK_K)
        gl.amd.cdna4.async_copy.buffer_load_to_shared(b_ring.index(ahead % STAGES), b_ptr,
                                                      b_offs + ahead * BLOCK_K * stride_bk,
                                                      mask=kb[:, None] < K - ahead * BLOCK_K)
        gl.amd.cdna4.async_copy.commit_group()
        if IN_FLIGHT is None:
            gl.amd.cdna4.async_copy.wait_group(STAGES - 1)
        else:
            gl.amd.cdna4.async_copy.wait_group(IN_FLIGHT)
        a = a_ring.index(k % STAGES).load(gl.DotOperandLayout(0, acc_layout, K_WIDTH))  # async-read
        b = b_ring.index(k % STAGES).load(gl.DotOperandLayout(1, acc_layout, K_WIDTH))
        acc = gl.amd.cdna4.mfma(a, b, acc)
    gl.amd.cdna4.async_copy.wait_group(0)
    cm = pid_m * BLOCK_M + gl.arange(0, BLOCK_M, layout=gl.SliceLayout(1, acc_layout))
    cn = pid_n * BLOCK_N + gl.arange(0, BLOCK_N, layout=gl.SliceLayout(0, acc_layout))
    c = acc.to(c_ptr.dtype.element_ty)
    gl.store(c_ptr + cm[:, None] * stride_cm + cn[None, :], c, mask=(cm[:, None] < M) & (cn[None, :] < N))


def async_layouts(block_m=128, block_n=128, block_k=64, num_warps=4, stages=3):
    """gfx950's async-copy GEMM: layouts()'s, in rings of `stages`."""
    cx = layouts("gfx950", block_m, block_n, block_k, num_warps)
    del cx["USE_WMMA"]
    return {**cx, "STAGES": stages}


def tdm_layouts(block_m=128, block_n=128, block_k=64, num_warps=4, stages=3, fp8=False):
    """gfx1250's TDM GEMM: the copies land rows padded by 16 bytes (the
    Tensor Data Mover pads, it does not swizzle); WMMA with 2 warps along
    N: 16x16x32 for bf16 and fp16, 16x16x128 for fp8 (BLOCK_K a multiple
    of 128)."""
    warps_m = num_warps // 2
    pad = 16 if fp8 else 8
    return {"BLOCK_M": block_m, "BLOCK_N": block_n, "BLOCK_K": block_k, "STAGES": stages,
            "acc_layout": gl.amd.AMDWMMALayout(3, True, [[0, 1]] + [[1 << i, 0] for i in range(warps_m.bit_length() - 1)],
                                               instr_shape=[16, 16, 128 if fp8 else 32]),
            "a_shared": gl.PaddedSharedLayout.with_identity_for([[block_k, pad]], [block_m, block_k], [1, 0]),
            "b_shared": gl.PaddedSharedLayout.with_identity_for([[block_n, pad]], [block_k, block_n], [1, 0]),
            "K_WIDTH": 8}


def layouts(target, block_m=128, block_n=128, block_k=64, num_warps=4):
    """The layouts of a bf16/fp16 GEMM's tiles on `target`: 16-byte loads,
    the warps 2 along N and the rest along M over the output, the 16x16x32
    matrix instruction; A's and B's rows swizzled in groups of 8 elements,
    B's 16 groups of a 128-element row over 16 phases (of the arrangements
    bench/gluon.py's `bank` measured, the fewest conflicts that still lets
    B be read across its rows with the chips' transpose reads)."""
    wave = {"gfx950": 64, "gfx1250": 32}[target]
    lanes_k, lanes_n = block_k // 8, block_n // 8
    warps_m = num_warps // 2
    if target == "gfx950":
        acc = gl.amd.AMDMFMALayout(4, [16, 16, 32], True, [warps_m, 2])
    else:
        acc = gl.amd.AMDWMMALayout(3, True, [[0, 1]] + [[1 << i, 0] for i in range(warps_m.bit_length() - 1)],
                                   instr_shape=[16, 16, 32])
    return {"BLOCK_M": block_m, "BLOCK_N": block_n, "BLOCK_K": block_k,
            "load_a": gl.BlockedLayout([1, 8], [wave // lanes_k, lanes_k], [num_warps, 1], [1, 0]),
            "load_b": gl.BlockedLayout([1, 8], [wave // lanes_n, lanes_n], [num_warps, 1], [1, 0]),
            "acc_layout": acc, "a_shared": gl.SwizzledSharedLayout(8, 2, 4, [1, 0]),
            "b_shared": gl.SwizzledSharedLayout(8, 1, 16, [1, 0]), "K_WIDTH": 8, "USE_WMMA": target == "gfx1250"}


def matmul(a, b, target="gfx950", kind="lds", **config):
    """A @ B in fp32 (A: M x K, B: K x N, both bf16 or fp16) by the kernel
    `kind` names: "lds" (gluon_matmul_kernel), "async"
    (gluon_async_matmul_kernel, gfx950) or "tdm" (gluon_tdm_matmul_kernel,
    gfx1250)."""
    M, K = a.shape
    N = b.shape[1]
    c = np.empty((M, N), np.float32)
    kernel, cx = {"lds": lambda: (gluon_matmul_kernel, layouts(target, **config)),
                  "async": lambda: (gluon_async_matmul_kernel, async_layouts(**config)),
                  "tdm": lambda: (gluon_tdm_matmul_kernel, tdm_layouts(**config))}[kind]()
    grid = (rocktile.cdiv(M, cx["BLOCK_M"]), rocktile.cdiv(N, cx["BLOCK_N"]))
    kernel[grid](a, b, c, M, N, K, a.shape[1], b.shape[1], c.shape[1], **cx, target=target,
                 num_warps=config.get("num_warps", 4))
    return c


if __name__ == "__main__":
    import ml_dtypes
    rng = np.random.default_rng(0)
    # The async copies move 16-byte runs of rows: K and N multiples of 16.
    a = rng.standard_normal((300, 208)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((208, 240)).astype(ml_dtypes.bfloat16)
    for target, kind in (("gfx950", "lds"), ("gfx950", "async"), ("gfx1250", "lds"), ("gfx1250", "tdm")):
        c = matmul(a, b, target, kind)
        error = np.abs(c - a.astype(np.float32) @ b.astype(np.float32)).max()
        print(f"{target} {kind}: 300x240x208 bf16, max error {error:.2e}")
    a8, b8 = a.astype(ml_dtypes.float8_e4m3fn), b.astype(ml_dtypes.float8_e4m3fn)
    c = matmul(a8, b8, "gfx1250", "tdm", block_k=128, fp8=True)
    error = np.abs(c - a8.astype(np.float32) @ b8.astype(np.float32)).max()
    print(f"gfx1250 tdm: 300x240x208 fp8 e4m3, max error {error:.2e}")
