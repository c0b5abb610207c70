"""gfx1250's Tensor Data Mover under tensor descriptors and block pointers:
the K loop of a descriptor GEMM copies its blocks with tensor_load_to_lds,
the emulator runs the copies (their descriptors decoded from the bits) with
numerics checked against numpy for trip counts 0, 1, 2 and many and ragged
edges, and compiler bugs planted in the SIMT program are caught: a wait too
weak or missing, a barrier missing on either side of the copy."""
import functools
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
from descriptor_matmul import matmul, matmul_descriptor_kernel  # noqa: E402

SIGNATURE = {"a_ptr": "*bf16:16", "b_ptr": "*bf16:16", "c_ptr": "*fp32:16", "M": "i32", "N": "i32", "K": "i32",
             "stride_am": "i32:16", "stride_bk": "i32:16", "stride_cm": "i32:16"}


def compiled(target, blocks=(64, 64, 32), num_warps=4, num_stages=2):
    bm, bn, bk = blocks
    return rocktile.compile(matmul_descriptor_kernel, SIGNATURE, {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk},
                            target=target, num_warps=num_warps, num_stages=num_stages)


def test_k_loop_copies_blocks_with_the_tensor_data_mover():
    kernel = compiled("gfx1250", (128, 128, 64))
    assert kernel.asm["tile"].count("tile.async_copy") == 4  # prologue and loop, A and B
    asm = kernel.asm["amdgcn"]
    # Both operands are copied (a block per warp, or row by row for a
    # negative offset) and waited for; nothing is loaded through pointers.
    assert len(re.findall(r"\btensor_load_to_lds\b", asm)) >= 2, asm
    assert re.search(r"\bs_wait_tensorcnt 0x0\b", asm)
    assert not re.search(r"\b(global|buffer)_load", asm)
    assert "ds_load_tr16_b128" in asm  # B (N-contiguous) read transposed from the copy
    assert kernel.n_spills == 0
    # gfx950 has no Tensor Data Mover: its blocks are masked loads.
    other = compiled("gfx950", (128, 128, 64))
    assert "tile.async_copy" not in other.asm["tile"] and "tile.descriptor_load" not in other.asm["tile"]
    assert "tensor_load_to_lds" not in other.asm["amdgcn"]


@pytest.mark.parametrize("num_stages", [1, 3])
def test_copied_blocks_are_read_without_bank_conflicts(num_stages):
    # Rows of 128 and 256 bytes read by lanes a row apart would meet in the
    # same banks: the copies pad them (G1's pad fields), and the emulator
    # measures the reads.
    a, b = np.ones((128, 128), ml_dtypes.bfloat16), np.ones((128, 128), ml_dtypes.bfloat16)
    c = np.zeros((128, 128), np.float32)
    kernel = matmul_descriptor_kernel[(1, 1)](a, b, c, 128, 128, 128, 128, 128, 128, BLOCK_M=128, BLOCK_N=128,
                                              BLOCK_K=64, num_warps=4, num_stages=num_stages, target="gfx1250")
    np.testing.assert_array_equal(c, 128)
    conflicts = kernel.lds_bank_conflicts()
    assert conflicts and all(extra == 0 for _, extra in conflicts.values()), conflicts
    assert re.search(r"tile.local_load|tile.descriptor_load", kernel.asm["tile"])


def bf16(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(ml_dtypes.bfloat16)


def test_pipelined_k_loop_keeps_copies_in_flight():
    # 3 stages: 3 slots per operand; in the loop, a wait that leaves the
    # next iteration's 2 copies in flight (0 in the last iteration).
    kernel = compiled("gfx1250", (128, 128, 64), num_stages=3)
    assert "memref<3x128x64xbf16" in kernel.asm["tile"] and "memref<3x64x128xbf16" in kernel.asm["tile"]
    # 3 slots of 16 KiB per operand, their rows padded by at most 32 bytes.
    assert 3 * 2 * 128 * 64 * 2 <= kernel.metadata["lds_bytes"] <= 3 * (128 * (128 + 32) + 64 * (256 + 32))
    assert re.search(r"\bs_wait_tensorcnt 0x2\b", kernel.asm["amdgcn"])
    assert kernel.n_spills == 0
    # One stage: no slots, each block copied and waited for where it is read.
    assert "tile.local_alloc" not in compiled("gfx1250", (128, 128, 64), num_stages=1).asm["tile"]


# K = 0, 16, 64 and 200 with BLOCK_K = 32: 0, 1 (a partial block), 2 and 7
# (the last partial) trips; M and N not multiples of the blocks.
@pytest.mark.parametrize("num_stages", [1, 2, 3, 4])
@pytest.mark.parametrize("K", [0, 16, 64, 200])
def test_gemm_stages_trip_counts_and_edges(K, num_stages):
    a, b = bf16((72, K), 1), bf16((K, 40), 2)
    c = np.empty((72, 40), np.float32)
    matmul_descriptor_kernel[(3, 2)](a, b, c, 72, 40, K, max(K, 8), 40, 40, BLOCK_M=32, BLOCK_N=32, BLOCK_K=32,
                                     num_warps=2, num_stages=num_stages, target="gfx1250")
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-5, atol=1e-4)


@rocktile.jit
def staged_loop(a_ptr, out_ptr, M, K, STAGES: tl.constexpr, BM: tl.constexpr, BK: tl.constexpr):
    desc = tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [BM, BK])
    acc = tl.zeros((BM, BK), tl.float32)
    for k in tl.range(0, tl.cdiv(K, BK), num_stages=STAGES):
        acc += desc.load([0, k * BK]).to(tl.float32)
    rows, cols = tl.arange(0, BM), tl.arange(0, BK)
    tl.store(out_ptr + rows[:, None] * BK + cols[None, :], acc)


def test_range_num_stages_overrides_the_launch():
    a = bf16((32, 96), 7)
    out = np.empty((32, 32), np.float32)
    staged_loop[(1,)](a, out, 32, 96, STAGES=3, BM=32, BK=32, num_warps=2, num_stages=1, target="gfx1250")
    np.testing.assert_allclose(out, a.astype(np.float32).reshape(32, 3, 32).sum(axis=1), rtol=1e-6)
    kernel = staged_loop.warmup(a, out, 32, 96, STAGES=3, BM=32, BK=32, num_warps=2, num_stages=1,
                                target="gfx1250")
    assert "memref<3x32x32xbf16" in kernel.asm["tile"]


@rocktile.jit
def batched_heads_matmul(a_ptr, b_ptr, c_ptr, Z, H, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                         BK: tl.constexpr):
    # 4-D descriptors of [1, 1, BLOCK, BLOCK] blocks, as attention kernels write them.
    z, h = tl.program_id(1) // H, tl.program_id(1) % H
    a = tl.make_tensor_descriptor(a_ptr, [Z, H, M, K], [H * M * K, M * K, K, 1], [1, 1, BM, BK])
    b = tl.make_tensor_descriptor(b_ptr, [Z, H, K, N], [H * K * N, K * N, N, 1], [1, 1, BK, BN])
    c = tl.make_tensor_descriptor(c_ptr, [Z, H, M, N], [H * M * N, M * N, N, 1], [1, 1, BM, BN])
    off_m, off_n = tl.program_id(0) * BM, tl.program_id(2) * BN
    acc = tl.zeros([BM, BN], tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        acc = tl.dot(a.load([z, h, off_m, k * BK]).reshape(BM, BK), b.load([z, h, k * BK, off_n]).reshape(BK, BN),
                     acc)
    c.store([z, h, off_m, off_n], acc.reshape(1, 1, BM, BN))


@pytest.mark.parametrize("num_stages", [1, 3])
@pytest.mark.parametrize("K", [0, 16, 200])
def test_four_dimensional_descriptors_take_the_copies(K, num_stages):
    Z, H, M, N = 2, 3, 40, 48
    a, b = bf16((Z, H, M, K), 3), bf16((Z, H, K, N), 4)
    c = np.empty((Z, H, M, N), np.float32)
    batched_heads_matmul[(2, Z * H, 2)](a, b, c, Z, H, M, N, K, BM=32, BN=32, BK=32, num_warps=2,
                                        num_stages=num_stages, target="gfx1250")
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-5, atol=1e-4)
    signature = {**{k: v for k, v in SIGNATURE.items() if "stride" not in k}, "Z": "i32", "H": "i32"}
    kernel = rocktile.compile(batched_heads_matmul, signature, {"BM": 128, "BN": 128, "BK": 64}, target="gfx1250",
                              num_stages=num_stages)
    # The leading offsets move the base before the loop, whose copies are
    # pipelined as the 2-D descriptor GEMM's are.
    copies = ("tile.descriptor_load", 2) if num_stages == 1 else ("tile.async_copy", 6)  # 3: 2 ahead, 1 in the loop
    assert kernel.asm["tile"].count(copies[0]) == copies[1]
    loop = k_loop(kernel.asm["amdgcn"])
    assert "tensor_load_to_lds" in loop
    assert "tensor_store_from_lds" in kernel.asm["amdgcn"] and kernel.n_spills == 0


@rocktile.jit
def block_pointer_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                         BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    a = tl.make_block_ptr(a_ptr, (M, K), (stride_am, 1), (tl.program_id(0) * BM, 0), (BM, BK), (1, 0))
    b = tl.make_block_ptr(b_ptr, (K, N), (stride_bk, 1), (0, tl.program_id(1) * BN), (BK, BN), (1, 0))
    acc = tl.zeros((BM, BN), tl.float32)
    for _ in range(0, K, BK):
        acc += tl.dot(tl.load(a, boundary_check=(0, 1)), tl.load(b, boundary_check=(0, 1)))
        a = tl.advance(a, (0, BK))
        b = tl.advance(b, (BK, 0))
    c = tl.make_block_ptr(c_ptr, (M, N), (stride_cm, 1), (tl.program_id(0) * BM, tl.program_id(1) * BN),
                          (BM, BN), (1, 0))
    tl.store(c, acc, boundary_check=(0, 1))


def test_block_pointers_take_the_same_copies():
    M, N, K = 50, 48, 72
    a, b = bf16((M, K), 3), bf16((K, N), 4)
    c = np.zeros((M, N), np.float32)
    block_pointer_matmul[(2, 2)](a, b, c, M, N, K, K, N, N, BM=32, BN=32, BK=32, num_warps=2, target="gfx1250")
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-5, atol=1e-4)
    signature = {**SIGNATURE, **{n: "i32" for n in ("M", "N", "K", "stride_am", "stride_bk", "stride_cm")}}
    compile = functools.partial(rocktile.compile, block_pointer_matmul, signature, {"BM": 32, "BN": 32, "BK": 32},
                                target="gfx1250", num_warps=2)
    assert compile(num_stages=1).asm["tile"].count("tile.descriptor_load") == 2
    # Advanced each iteration, the blocks' offsets are carried by the loop;
    # the pipeliner steps them ahead: two copies in the prologue, two in
    # the loop, none left unpipelined.
    tile_ir = compile().asm["tile"]
    assert tile_ir.count("tile.async_copy") == 4 and "tile.descriptor_load" not in tile_ir


@rocktile.jit
def transposed_block(k_ptr, out_ptr, back_ptr, N, stride_kk, stride_kn, D: tl.constexpr, BN: tl.constexpr):
    # K^T as Triton's fused-attention tutorial reads it: a (D, N) block
    # pointer of order (0, 1) over a row-major (N, D) K (stride_kk = 1),
    # stored back the same way.
    start = tl.program_id(0) * BN
    kt = tl.make_block_ptr(k_ptr, (D, N), (stride_kk, stride_kn), (0, start), (D, BN), (0, 1))
    x = tl.load(kt, boundary_check=(0, 1))
    d, n = tl.arange(0, D), start + tl.arange(0, BN)
    tl.store(out_ptr + d[:, None] * N + n[None, :], x, mask=n[None, :] < N)
    tl.store(tl.make_block_ptr(back_ptr, (D, N), (stride_kk, stride_kn), (0, start), (D, BN), (0, 1)), x,
             boundary_check=(0, 1))


@pytest.mark.parametrize("target", ["gfx950", "gfx1250"])
@pytest.mark.parametrize("step", [1, 2])
def test_blocks_whose_rows_are_not_contiguous(target, step):
    # Columns contiguous (step 1): on gfx1250 the block of the swapped
    # dimensions, whose rows are, is copied and transposed. Every other
    # element (step 2): masked loads. A copy of the block as it is would read
    # each row's elements at a stride of 1 (as it did before this test).
    # Stores are masked stores in both cases.
    N, D = 70, 32
    k = bf16((N, D * step), 7)
    out, back = np.zeros((D, N), ml_dtypes.bfloat16), np.zeros_like(k)
    launched = transposed_block[(3,)](k, out, back, N, step, D * step, D=D, BN=32, num_warps=2, target=target)
    np.testing.assert_array_equal(out, k[:, ::step].T)
    np.testing.assert_array_equal(back[:, ::step], k[:, ::step])
    if step == 2:
        assert not back[:, 1::2].any()  # nothing written between the elements
    assert ("tensor_load_to_lds" in launched.asm["amdgcn"]) == (target == "gfx1250" and step == 1)


# Planted bugs: the compiler's SIMT program for a 2-trip K loop on 2 waves,
# edited as a compiler bug would leave it, then run in the emulator.
def planted(edit=None, num_stages=1):
    kernel = compiled("gfx1250", (32, 32, 32), num_warps=2, num_stages=num_stages)
    simt = kernel._simt_with_locations
    if edit:
        edited = "\n".join(edit(simt.splitlines()))
        assert edited != simt, "the edit changed nothing"
        simt = edited
    emulator = load_C().Emulator(simt, 32, 64)
    a, b = bf16((32, 128), 5), bf16((128, 32), 6)
    c = np.zeros((32, 32), np.float32)
    args = [("buffer", "a_ptr", a.ctypes.data, a.size), ("buffer", "b_ptr", b.ctypes.data, b.size),
            ("buffer", "c_ptr", c.ctypes.data, c.size), ("int", "M", 32), ("int", "N", 32), ("int", "K", 128),
            ("int", "stride_am", 128), ("int", "stride_bk", 32), ("int", "stride_cm", 32)]
    emulator.launch((1, 1, 1), args, 1)
    return c, a.astype(np.float32) @ b.astype(np.float32)


@pytest.mark.parametrize("num_stages", [1, 3])
def test_unplanted_program_runs(num_stages):
    c, want = planted(num_stages=num_stages)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("bug", ["missing", "too weak"])
def test_wait_too_weak_is_a_read_before_the_copy(bug):
    C = load_C()

    def edit(lines):
        return [("" if bug == "missing" else line.replace("tensorcnt 0", "tensorcnt 1"))
                if "rocdl.s.wait.tensorcnt" in line else line for line in lines]
    with pytest.raises(C.EmulatorFault) as info:
        planted(edit)
    message = str(info.value)
    assert "before its copy was waited for" in message, message
    # The copy of A (line 24) and the read of its block, which the copy feeds.
    assert "the tensor copy at" in message and "descriptor_matmul.py:24:13" in message, message


def barriers(lines, before):
    """The barriers that follow a wait for a load's copy, or (`before`) that
    open a copy: those at the same depth, not the one closing the zeroing of
    a block that crosses an edge (inside its `if`)."""
    def depth(line):
        return len(line) - len(line.lstrip())

    def waits_for_a_load(i):
        copies = [line for line in lines[:i] if "rocdl.tensor." in line]
        return "tensorcnt" in lines[i - 1] and "tensor.load.to.lds" in copies[-1]
    after = {i for i, line in enumerate(lines) if "gpu.barrier" in line and waits_for_a_load(i)}
    if not before:
        return after
    depths = {depth(lines[i]) for i in after}
    return {i for i, line in enumerate(lines) if "gpu.barrier" in line and i not in after and depth(line) in depths}


@pytest.mark.parametrize("before", [False, True], ids=["after the wait", "before the copy"])
def test_missing_barrier_is_a_race(before):
    C = load_C()

    def edit(lines):
        drop = barriers(lines, before)
        assert len(drop) == 2  # one per operand
        return [line for i, line in enumerate(lines) if i not in drop]
    with pytest.raises(C.EmulatorFault) as info:
        planted(edit)
    assert "LDS race on byte" in str(info.value), str(info.value)


# Planted in the 3-stage pipeline (a 4-trip loop, so that the steady state
# runs): the wait in the loop one too weak; the copy ahead into the slot of
# the next iteration (one stage early), which still has a copy in flight; no
# barrier after the wait, so a warp copies into a slot another still reads.
def edit_pipeline(lines, bug):
    text = "\n".join(lines)
    if bug == "weak wait":
        text = text.replace("rocdl.s.wait.tensorcnt 2", "rocdl.s.wait.tensorcnt 3")
    elif bug == "slot":
        # The slot the loop's first iteration copies into starts at 1,
        # not 2 (the loop carries it beside the slot it reads, from 0):
        # the slot the next iteration reads, whose copy is in flight.
        text, n = re.subn(r"(iter_args\([^\n]*, %arg\d+ = %c0_i32, %arg\d+ = )%c2_i32\)", r"\1%c1_i32)", text,
                          count=1)
        assert n == 1
    else:
        text = re.sub(r"(rocdl.s.wait.tensorcnt 2 loc\(#loc\d+\)\n)\s*gpu.barrier[^\n]*\n", r"\1", text)
    return text.splitlines()


@pytest.mark.parametrize("bug, message", [("weak wait", "read before its copy was waited for"),
                                          ("slot", "written before its copy was waited for"),
                                          ("barrier", "LDS race on byte")])
def test_planted_pipeline_bugs_are_caught(bug, message):
    C = load_C()
    with pytest.raises(C.EmulatorFault) as info:
        planted(lambda lines: edit_pipeline(lines, bug), num_stages=3)
    assert message in str(info.value), str(info.value)


@rocktile.jit
def big_blocks(a_ptr, out_ptr, M, K, STAGES: tl.constexpr, BM: tl.constexpr, BK: tl.constexpr):
    desc = tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [BM, BK])
    total = 0.0
    for k in tl.range(0, tl.cdiv(K, BK), num_stages=STAGES):
        total += tl.sum(desc.load([0, k * BK]).to(tl.float32))
    tl.store(out_ptr, total)


def test_stages_beyond_the_lds_are_fewer_with_a_warning():
    signature = {"a_ptr": "*bf16:16", "out_ptr": "*fp32", "M": "i32", "K": "i32"}
    line = big_blocks.fn.__code__.co_firstlineno + 4  # the loop
    with pytest.warns(rocktile.CompilationWarning, match=rf"test_tensor_data_mover.py:{line}:\d+: warning: "
                      r"num_stages=5 needs 393216 bytes .* pipelined with 4 stages"):
        kernel = rocktile.compile(big_blocks, signature, {"STAGES": 5, "BM": 128, "BK": 256}, target="gfx1250",
                                  num_warps=8)
    assert "memref<4x128x256xbf16" in kernel.asm["tile"]


@rocktile.jit
def copy_block(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    x = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [BM, BN])
    y = tl.make_tensor_descriptor(y_ptr, [M, N], [N, 1], [BM, BN])
    y.store([tl.program_id(0) * BM, 0], x.load([tl.program_id(0) * BM, 0]) * 2)


@rocktile.jit
def copy_row(x_ptr, y_ptr, N, BN: tl.constexpr):
    x = tl.make_tensor_descriptor(x_ptr, [N], [1], [BN])
    y = tl.make_tensor_descriptor(y_ptr, [N], [1], [BN])
    y.store([tl.program_id(0) * BN], x.load([tl.program_id(0) * BN]) + 1)


@pytest.mark.parametrize("bm", [2, 8])
def test_blocks_the_copy_does_not_take_are_loaded(bm):
    # 2 rows for 4 warps (a copy gives each warp a row at least), and 1-D
    # blocks: masked loads; 8 rows: copied.
    x = np.arange(10 * 16, dtype=np.float32).reshape(10, 16)
    y = np.zeros_like(x)
    copy_block[(rocktile.cdiv(10, bm),)](x, y, 10, 16, BM=bm, BN=16, num_warps=4, target="gfx1250")
    np.testing.assert_array_equal(y, 2 * x)
    kernel = copy_block.warmup(x, y, 10, 16, BM=bm, BN=16, num_warps=4, target="gfx1250")
    assert ("tile.descriptor_load" in kernel.asm["tile"]) == (bm == 8)
    v = np.arange(40, dtype=np.float32)
    w = np.zeros_like(v)
    copy_row[(3,)](v, w, 40, BN=16, num_warps=4, target="gfx1250")
    np.testing.assert_array_equal(w, v + 1)


@rocktile.jit
def block_at(x_ptr, y_ptr, M, N, row, col, BM: tl.constexpr, BN: tl.constexpr):
    x = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [BM, BN])
    block = x.load([row, col])  # offsets of any sign
    rows, cols = tl.arange(0, BM), tl.arange(0, BN)
    tl.store(y_ptr + rows[:, None] * BN + cols[None, :], block)


@pytest.mark.parametrize("row, col", [(-3, -5), (-3, 4), (2, -7), (-20, 0), (5, 9)])
def test_blocks_at_offsets_of_any_sign_read_zeros_outside(row, col):
    # Offsets the compiler cannot prove >= 0 keep the row-by-row copy for a
    # negative start; the GEMM's (program id and loop index multiples) do
    # without it: one copy per operand in its K loop.
    M, N, BM, BN = 20, 24, 16, 16
    x = np.arange(M * N, dtype=np.float32).reshape(M, N) + 1
    y = np.full((BM, BN), np.nan, np.float32)
    block_at[(1,)](x, y, M, N, row, col, BM=BM, BN=BN, num_warps=4, target="gfx1250")
    padded = np.zeros((M + 2 * 32, N + 2 * 32), np.float32)
    padded[32:32 + M, 32:32 + N] = x
    np.testing.assert_array_equal(y, padded[32 + row:32 + row + BM, 32 + col:32 + col + BN])
    kernel = block_at.warmup(x, y, M, N, row, col, BM=BM, BN=BN, num_warps=4, target="gfx1250")
    assert len(re.findall(r"\btensor_load_to_lds\b", kernel.asm["amdgcn"])) >= 2  # by rows, and whole
    gemm = compiled("gfx1250", (128, 128, 64), num_stages=1)
    loop = k_loop(gemm.asm["amdgcn"])
    assert len(re.findall(r"\btensor_load_to_lds\b", loop)) == 2, loop


@rocktile.jit
def store_blocks(x_ptr, y_ptr, M, N, row, col, BLOCKS, BM: tl.constexpr, BN: tl.constexpr):
    y = tl.make_tensor_descriptor(y_ptr, [M, N], [N, 1], [BM, BN])
    rows, cols = tl.arange(0, BM), tl.arange(0, BN)
    for i in range(BLOCKS):  # each block staged in the same LDS
        block = tl.load(x_ptr + (i * BM + rows[:, None]) * BN + cols[None, :])
        y.store([row + i * BM, col], block)  # offsets of any sign


def store_blocks_args(x, y, row, col, blocks=2):
    M, N = y.shape
    args = [("buffer", "x_ptr", x.ctypes.data, x.size), ("buffer", "y_ptr", y.ctypes.data, y.size),
            ("int", "M", M), ("int", "N", N), ("int", "row", row), ("int", "col", col)]
    # A count of 1 is specialized into the kernel, as Triton does.
    return args + [("int", "BLOCKS", blocks)] if blocks != 1 else args


@pytest.mark.parametrize("row, col", [(-3, -5), (-20, 4), (2, -7), (5, 9), (0, 0)])
def test_stored_blocks_are_copied_out_of_lds_inside_the_tensor_only(row, col):
    # Two 16x16 blocks, one under the other, each staged in LDS and copied
    # out by tensor_store_from_lds (row by row where an offset may be
    # negative): only elements inside the 20x24 tensor are written.
    M, N, BM, BN = 20, 24, 16, 16
    x = np.arange(2 * BM * BN, dtype=np.float32).reshape(2 * BM, BN) + 1
    y = np.full((M, N), -1, np.float32)
    store_blocks[(1,)](x, y, M, N, row, col, 2, BM=BM, BN=BN, num_warps=4, target="gfx1250")
    padded = np.full((M + 2 * 32, N + 2 * 32), -1, np.float32)
    padded[32 + row:32 + row + 2 * BM, 32 + col:32 + col + BN] = x
    np.testing.assert_array_equal(y, padded[32:32 + M, 32:32 + N])
    kernel = store_blocks.warmup(x, y, M, N, row, col, 2, BM=BM, BN=BN, num_warps=4, target="gfx1250")
    asm = kernel.asm["amdgcn"]
    assert len(re.findall(r"\btensor_store_from_lds\b", asm)) >= 2  # by rows, and whole
    assert not re.search(r"\b(global|buffer)_store", asm)
    assert kernel.lds_bank_conflicts() is None or all(extra == 0 for _, extra in kernel.lds_bank_conflicts().values())
    # gfx950 has no Tensor Data Mover: masked stores.
    other = store_blocks.warmup(x, y, M, N, row, col, 2, BM=BM, BN=BN, num_warps=4, target="gfx950")
    assert "tile.descriptor_store" not in other.asm["tile"]


@pytest.mark.parametrize("bn, copied", [(128, True), (256, False)])
def test_stores_stage_at_most_64_kib(bn, copied):
    # A 128 x 128 fp32 block (64 KiB) is staged in LDS and copied out; one
    # of 128 KiB is stored by masked stores.
    M, N, BM = 128, 256, 128
    x = np.arange(2 * BM * bn, dtype=np.float32).reshape(2 * BM, bn)
    y = np.zeros((M, N), np.float32)
    kernel = store_blocks.warmup(x, y, M, N, 0, 0, 2, BM=BM, BN=bn, num_warps=4, target="gfx1250")
    assert ("tile.descriptor_store" in kernel.asm["tile"]) == copied
    assert kernel.metadata["lds_bytes"] == (BM * bn * 4 if copied else 0)


@pytest.mark.parametrize("blocks, expected", [(2, "written before its copy was waited for"),
                                             (1, "tensor_store_from_lds never waited for")])
def test_store_without_its_wait_is_caught(blocks, expected):
    # Without the store's waits, the second block's staging overwrites LDS
    # that the first block's copy still reads; a single block's copy is
    # still in flight when the workgroup ends.
    x, y = np.ones((32, 16), np.float32), np.zeros((20, 24), np.float32)
    kernel = store_blocks.warmup(x, y, 20, 24, 0, 0, blocks, BM=16, BN=16, num_warps=4, target="gfx1250")
    lines = kernel._simt_with_locations.splitlines()
    first = next(i for i, line in enumerate(lines) if "rocdl.tensor.store.from.lds" in line)
    simt = "\n".join(line for i, line in enumerate(lines) if i < first or "rocdl.s.wait.tensorcnt" not in line)
    assert simt != kernel._simt_with_locations
    with pytest.raises(load_C().EmulatorFault) as info:
        load_C().Emulator(simt, 32, 128).launch((1, 1, 1), store_blocks_args(x, y, 0, 0, blocks), 1)
    message = str(info.value)
    line = store_blocks.fn.__code__.co_firstlineno + 6  # the store
    assert expected in message, message
    assert f"{__file__}:{line}:" in message, message


@rocktile.jit
def copy_blocks_2d(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    x = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [BM, BN])
    y = tl.make_tensor_descriptor(y_ptr, [M, N], [N, 1], [BM, BN])
    at = [tl.program_id(0) * BM, tl.program_id(1) * BN]
    y.store(at, x.load(at))


@pytest.mark.parametrize("dtype", [ml_dtypes.bfloat16, np.float16, ml_dtypes.float8_e4m3fn, np.int8, np.int32],
                         ids=lambda d: np.dtype(d).name)
def test_stored_blocks_of_each_element_size(dtype):
    # Elements of 1, 2 and 4 bytes (G1's log2 element size) through copies
    # both ways, ragged in both dimensions.
    M, N = 37, 80
    x = (np.arange(M * N) % 50).reshape(M, N).astype(dtype)
    y = np.zeros((M, N), dtype)
    bn = 64 if np.dtype(dtype).itemsize == 1 else 32
    copy_blocks_2d[(rocktile.cdiv(M, 16), rocktile.cdiv(N, bn))](x, y, M, N, BM=16, BN=bn, num_warps=4,
                                                               target="gfx1250")
    np.testing.assert_array_equal(y.astype(np.float32), x.astype(np.float32))
    kernel = copy_blocks_2d.warmup(x, y, M, N, BM=16, BN=bn, num_warps=4, target="gfx1250")
    assert "tensor_store_from_lds" in kernel.asm["amdgcn"]


@rocktile.jit
def load_through_a_loaded_pointer(addr_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    base = tl.load(addr_ptr).to(tl.pointer_type(tl.float16))
    desc = tl.make_tensor_descriptor(base, [M, N], [N, 1], [BM, BN])
    offs = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
    tl.store(out_ptr + offs, desc.load([BM, 0]))


@pytest.mark.parametrize("target", ["gfx950", "gfx1250"])
def test_descriptor_on_a_pointer_loaded_from_memory(target):
    """A descriptor whose base the kernel loads (tl.load(addr).to(pointer_type)):
    its tensor is no kernel argument, so the copy may read any mapped host
    memory, as loads through such pointers may (gfx1250's emulator reported
    it as outside every buffer argument); unmapped memory is still an error."""
    x = np.arange(64 * 64, dtype=np.float16).reshape(64, 64)
    out = np.zeros((32, 64), np.float16)
    kernel = load_through_a_loaded_pointer[(1,)](np.array([x.ctypes.data], np.int64), out, 64, 64, BM=32, BN=64,
                                                 target=target)
    np.testing.assert_array_equal(out, x[32:])
    assert ("tensor_load_to_lds" in kernel.asm["amdgcn"]) == (target == "gfx1250")
    with pytest.raises(rocktile.EmulatorError, match="not mapped host memory"):
        load_through_a_loaded_pointer[(1,)](np.array([4096], np.int64), out, 64, 64, BM=32, BN=64, target=target)
