"""Dot operands loaded through pointers at num_stages >= 3 are copied into LDS
slots without passing through registers (tile.async_load): gfx950's
direct-to-LDS buffer loads, whose masked-off lanes read zeros past the
buffer's end, and gfx1250's global_load_async_to_lds_b128 for unmasked loads.
The K loop starts the copies N - 1 iterations ahead and waits with exact
counts (vmcnt, asynccnt); numerics against numpy for stages x trip counts x
targets, ragged edges included; compiler bugs planted in the SIMT program are
caught by the emulator: a wait one count too weak, a copy into the slot one
stage early, a missing barrier."""
import os
import re
import sys

import ml_dtypes
import numpy as np
import pytest

import rocktile
import rocktile.language as tl
from rocktile.compiler import load_C

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
from amdgcn import k_loop  # noqa: E402
from matmul import matmul_kernel  # noqa: E402


@rocktile.jit
def gemm_unmasked(a_ptr, b_ptr, c_ptr, K, stride_am, stride_bk, stride_cm,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """A GEMM whose K is a multiple of BK and whose M and N are multiples of
    the blocks: no masks, so gfx1250's async loads can copy its operands."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :]
    acc = tl.zeros((BM, BN), tl.float32)
    for _ in range(0, K, BK):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc)


UNMASKED_SIGNATURE = {"a_ptr": "*bf16:16:range32", "b_ptr": "*bf16:16:range32", "c_ptr": "*fp32:16:range32",
                      "K": "i32:16", "stride_am": "i32:16", "stride_bk": "i32:16", "stride_cm": "i32:16"}
TUTORIAL_SIGNATURE = {"a_ptr": "*bf16:16:range32", "b_ptr": "*bf16:16:range32", "c_ptr": "*fp32:16:range32",
                      "bias_ptr": "*fp32:16:range32", "M": "i32:16", "N": "i32:16", "K": "i32:16",
                      "stride_am": "i32:16", "stride_bk": "i32:16", "stride_cm": "i32:16"}


def unmasked(target, num_stages, blocks=(128, 128, 64), num_warps=4):
    bm, bn, bk = blocks
    return rocktile.compile(gemm_unmasked, UNMASKED_SIGNATURE, dict(BM=bm, BN=bn, BK=bk), target=target,
                            num_warps=num_warps, num_stages=num_stages)


def tutorial(target, num_stages):
    constexprs = dict(BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=64, GROUP_SIZE_M=8, HAS_BIAS=False,
                      ACTIVATION="", stride_ak=1, stride_bn=1, stride_cn=1)
    return rocktile.compile(matmul_kernel, TUTORIAL_SIGNATURE, constexprs, target=target, num_warps=4,
                            num_stages=num_stages)


def bf16(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(ml_dtypes.bfloat16)


# Per K iteration and wave (4 warps), A's 128x64 and B's 64x128 bf16 tiles
# are 8 runs of 16 bytes per lane on wave64, 16 on wave32: that many copies,
# and at 3 stages the wait leaves one iteration's in flight.
@pytest.mark.parametrize("target, kernel, copy, wait, copies", [
    ("gfx950", tutorial, r"buffer_load_dwordx4 .* lds", r"s_waitcnt vmcnt\((\d+)\)", 8),
    ("gfx950", unmasked, r"buffer_load_dwordx4 .* lds", r"s_waitcnt vmcnt\((\d+)\)", 8),
    ("gfx1250", unmasked, r"global_load_async_to_lds_b128", r"s_wait_asynccnt (0x\w+)", 16)])
def test_k_loop_copies_ahead_and_waits_for_one_iteration(target, kernel, copy, wait, copies):
    compiled = kernel(target, num_stages=3)
    # A and B: iterations 0 and 1 in the prologue, one copy each in the loop.
    assert compiled.asm["tile"].count("tile.async_load") == 6
    body = k_loop(compiled.asm["amdgcn"])
    assert len(re.findall(copy, body)) == copies, body
    # No register loads, no LDS writes: the copies land there themselves.
    assert not re.search(r"ds_(write|store)", body) and not re.search(r"(buffer|global)_load_(b128|dwordx4) v\[", body)
    counts = [int(c, 0) for c in re.findall(wait, body)]
    assert copies in counts and 0 not in counts, (counts, body)
    assert compiled.n_spills == 0


@pytest.mark.parametrize("target, lds_wait", [("gfx950", r"s_waitcnt[^\n]*lgkmcnt"), ("gfx1250", r"s_wait_dscnt")])
def test_matrix_instructions_wait_once_for_their_operand_reads(target, lds_wait):
    # The iteration's reads of its slots are all issued ahead of the matrix
    # instructions and waited for once, before the first: no LDS wait among
    # the matrix instructions (the backend's own schedule waited before each
    # first use of a later read, 6 waits on gfx950).
    body = k_loop(unmasked(target, num_stages=3).asm["amdgcn"])
    matrix = [m.start() for m in re.finditer(r"v_(mfma|wmma)", body)]
    reads = [m.start() for m in re.finditer(r"ds_(read|load)", body)]
    assert reads and max(reads) < matrix[0], body
    assert len(re.findall(lds_wait, body[reads[-1]:matrix[0]])) == 1, body
    assert not re.search(lds_wait, body[matrix[0]:matrix[-1]]), body


def test_gfx1250_keeps_masked_loads_in_registers():
    # global_load_async_to_lds has no buffer form: a masked lane would need a
    # branch, which skips the count when a whole wave is masked off.
    assert "tile.async_load" not in tutorial("gfx1250", num_stages=3).asm["tile"]


def test_tiles_beyond_the_lds_fall_back_to_registers():
    # 256x256x64 bf16: 3 stages of async copies would take 3 x 64 KiB of
    # gfx950's 160; the loop is pipelined as without async loads.
    constexprs = dict(BM=256, BN=256, BK=64)
    compiled = rocktile.compile(gemm_unmasked, UNMASKED_SIGNATURE, constexprs, target="gfx950", num_warps=8,
                                num_stages=3)
    assert "tile.async_load" not in compiled.asm["tile"] and compiled.n_spills == 0


# K = 0, 64, 128, 192 and 448 with BK = 64: 0, 1, 2, 3 and 7 trips.
@pytest.mark.parametrize("target", ["gfx950", "gfx1250"])
@pytest.mark.parametrize("num_stages", [3, 4])
@pytest.mark.parametrize("K", [0, 64, 128, 192, 448])
def test_unmasked_gemm_stages_and_trip_counts(target, num_stages, K):
    M, N = 128, 64
    a, b = bf16((M, K), 1), bf16((K, N), 2)
    c = np.full((M, N), np.nan, np.float32)
    kernel = gemm_unmasked[(M // 64, N // 32)](a, b, c, K, max(K, 64), N, N, BM=64, BN=32, BK=64, num_warps=2,
                                               num_stages=num_stages, target=target)
    assert "tile.async_load" in kernel.asm["tile"]
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-5, atol=1e-4)


# The tutorial GEMM's masked loads on gfx950: ragged M, N and K (the last
# block partly past the end), trip counts 0, 1, 2 and 7 with BLOCK_K = 32.
# Copies in 16-byte runs need 16-byte aligned rows (A's row stride is K
# rounded up to 16 elements) and one mask value per run: K specialized as a
# multiple of 16.
@pytest.mark.parametrize("num_stages", [3, 4])
@pytest.mark.parametrize("K", [0, 16, 48, 208])
def test_masked_copies_read_zeros_past_the_edges(num_stages, K):
    M, N = 72, 48
    lda = max(-(-K // 16) * 16, 16)
    a, b = bf16((M, lda), 3), bf16((K, N), 4)
    c = np.empty((M, N), np.float32)
    grid = (rocktile.cdiv(M, 32) * rocktile.cdiv(N, 32),)
    kernel = matmul_kernel[grid](a, b, c, c, M, N, K, lda, 1, N, 1, N, 1, BLOCK_SIZE_M=32, BLOCK_SIZE_N=32,
                                 BLOCK_SIZE_K=32, GROUP_SIZE_M=2, HAS_BIAS=False, ACTIVATION="", num_warps=2,
                                 num_stages=num_stages, target="gfx950")
    assert kernel.asm["tile"].count("tile.async_load") == 2 * num_stages  # A and B
    want = a[:, :K].astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("target", ["gfx950", "gfx1250"])
def test_copied_operands_are_read_without_bank_conflicts(target):
    a, b = bf16((128, 256), 5), bf16((256, 128), 6)
    c = np.empty((128, 128), np.float32)
    kernel = gemm_unmasked[(1, 1)](a, b, c, 256, 256, 128, 128, BM=128, BN=128, BK=64, num_warps=4,
                                   num_stages=3, target=target)
    assert "tile.async_load" in kernel.asm["tile"]
    extra = {site: e for site, (_, e) in kernel.lds_bank_conflicts().items() if site[1] == "load"}
    assert extra and not any(extra.values()), extra


# Planted bugs: the compiler's SIMT program for a 4-trip K loop on 2 waves at
# 3 stages (so that the steady state runs), edited as a compiler bug would
# leave it, then run in the emulator.
def planted(target, edit=None):
    kernel = unmasked(target, num_stages=3, blocks=(64, 32, 64), num_warps=2)
    simt = kernel._simt_with_locations
    if edit:
        edited = edit(simt)
        assert edited != simt, "the edit changed nothing"
        simt = edited
    emulator = load_C().Emulator(simt, kernel.metadata["wave_size"], kernel.metadata["lds_banks"])
    a, b = bf16((64, 256), 7), bf16((256, 32), 8)
    c = np.zeros((64, 32), np.float32)
    args = [("buffer", "a_ptr", a.ctypes.data, a.size), ("buffer", "b_ptr", b.ctypes.data, b.size),
            ("buffer", "c_ptr", c.ctypes.data, c.size), ("int", "K", 256), ("int", "stride_am", 256),
            ("int", "stride_bk", 32), ("int", "stride_cm", 32)]
    emulator.launch((1, 1, 1), args, 1)
    return c, a.astype(np.float32) @ b.astype(np.float32)


# The loop's wait: gfx950's vmcnt leaves one iteration's copies (A's 64x64
# and B's 64x32 bf16: 4 + 2 runs per lane on 2 waves of 64) in flight,
# gfx1250's asynccnt 12 (8 + 4 on waves of 32).
LOOP_WAIT = {"gfx950": ("load(6) ds(0)", "load(7) ds(0)"),
             "gfx1250": ("rocdl.s.wait.asynccnt 12", "rocdl.s.wait.asynccnt 13")}


@pytest.mark.parametrize("target", ["gfx950", "gfx1250"])
def test_unplanted_program_runs(target):
    c, want = planted(target)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-4)


def edit_pipeline(simt, target, bug):
    if bug == "weak wait":
        right, weak = LOOP_WAIT[target]
        assert simt.count(right) == 1
        return simt.replace(right, weak)
    if bug == "slot":
        # The slot the loop's first iteration copies into starts at 1, not 2
        # (the loop carries it beside the slot it reads, from 0): the slot
        # the next iteration reads, whose copy is in flight.
        return re.sub(r"(iter_args\([^\n]*, %arg\d+ = %c0_i32, %arg\d+ = )%c2_i32\)", r"\1%c1_i32)", simt, count=1)
    if bug == "barrier":
        return re.sub(r"(" + re.escape(LOOP_WAIT[target][0]) + r" loc\(#loc\d+\)\n)\s*gpu.barrier[^\n]*\n", r"\1",
                      simt)
    raise ValueError(bug)


@pytest.mark.parametrize("target", ["gfx950", "gfx1250"])
@pytest.mark.parametrize("bug, message", [("weak wait", "read before its copy was waited for"),
                                          ("slot", "written before its copy was waited for"),
                                          ("barrier", "LDS race on byte")])
def test_planted_pipeline_bugs_are_caught(target, bug, message):
    C = load_C()
    with pytest.raises(C.EmulatorFault) as info:
        planted(target, lambda simt: edit_pipeline(simt, target, bug))
    assert message in str(info.value), str(info.value)
    # The copy the read or write ran into is named, at its Python line.
    if bug != "barrier":
        assert "the async copy at" in str(info.value) and "test_async_loads.py:" in str(info.value), str(info.value)


@rocktile.jit
def gathered_rows_dot(p_ptr, c_ptr, order_ptr, out_ptr, D, stride_c, n_rows,
                      BM: tl.constexpr, BV: tl.constexpr, BD: tl.constexpr):
    """out = p @ c[order], column block by column block: the rows of the
    copied operand come through indices loaded from memory, and a mask on
    them, as cut-cross-entropy's backward kernel gathers its classifier."""
    rows = tl.load(order_ptr + tl.arange(0, BV))
    p = tl.load(p_ptr + tl.arange(0, BM)[:, None] * BV + tl.arange(0, BV)[None, :])
    cols = tl.arange(0, BD)[None, :]
    c_ptrs = c_ptr + rows[:, None] * stride_c + cols
    out_ptrs = out_ptr + tl.arange(0, BM)[:, None] * D + cols
    for _ in range(0, tl.cdiv(D, BD)):
        c = tl.load(c_ptrs, mask=tl.arange(0, BV)[:, None] < n_rows, other=0.0)
        tl.store(out_ptrs, tl.dot(p, c))
        c_ptrs += BD
        out_ptrs += BD


@pytest.mark.parametrize("target", ["gfx950", "gfx1250"])
def test_copy_pointers_built_from_loaded_indices(target):
    """The copy's pointer and mask tiles take the copy's swizzled layout,
    whose coordinates combine by XOR; the loaded indices move into it through
    LDS element by element (this was "moving elements between lanes needs
    layouts whose coordinates add up" on gfx950)."""
    BM, BV, D = 128, 128, 256
    rng = np.random.default_rng(3)
    p = rng.standard_normal((BM, BV)).astype(ml_dtypes.bfloat16)
    c = rng.standard_normal((300, D)).astype(ml_dtypes.bfloat16)
    order = rng.permutation(300)[:BV].astype(np.int32)
    out = np.zeros((BM, D), np.float32)
    args = (p, c, order, out, D, D, BV - 3)
    options = dict(BM=BM, BV=BV, BD=64, num_stages=4, target=target)
    gathered_rows_dot[(1,)](*args, **options)
    want = p.astype(np.float32)[:, :BV - 3] @ c[order[:BV - 3]].astype(np.float32)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-4)
    if target == "gfx950":
        assert "tile.async_load" in gathered_rows_dot.warmup(*args, **options).asm["tile"]
