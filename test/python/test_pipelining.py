"""Software pipelining of dot operands loaded through pointers (the tutorial
GEMM): at num_stages >= 2 each K-loop iteration loads the next iteration's
tiles after its own are in LDS, the tiles waiting in registers (gfx1250) or
copied straight into LDS slots (gfx950); numerics
against numpy for stages x trip counts x targets, ragged edges included."""
import os
import re
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

import rocktile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
from amdgcn import k_loop  # noqa: E402
from flash_attention import attention_kernel  # noqa: E402
from matmul import matmul_kernel  # noqa: E402

SIGNATURE = {"a_ptr": "*bf16:16:range32", "b_ptr": "*bf16:16:range32", "c_ptr": "*fp32:16:range32",
             "bias_ptr": "*fp32:16:range32", "M": "i32:16", "N": "i32:16", "K": "i32:16",
             "stride_am": "i32:16", "stride_bk": "i32:16", "stride_cm": "i32:16"}


def compiled(target, num_stages, blocks=(128, 128, 64), num_warps=4):
    bm, bn, bk = blocks
    constexprs = dict(BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk, GROUP_SIZE_M=8, HAS_BIAS=False,
                      ACTIVATION="", stride_ak=1, stride_bn=1, stride_cn=1)
    return rocktile.compile(matmul_kernel, signature=SIGNATURE, constexprs=constexprs, target=target,
                            num_warps=num_warps, num_stages=num_stages)


# What each target's waits for global loads look like.
LOAD_WAIT = {"gfx950": r"s_waitcnt vmcnt", "gfx1250": r"s_wait_loadcnt"}


def test_k_loop_loads_the_next_tiles_and_does_not_wait_for_them():
    # gfx1250, whose async loads take no mask: the tiles wait in registers.
    kernel = compiled("gfx1250", num_stages=2)
    tile_ir = kernel.asm["tile"]
    # The loop carries A's and B's bf16 tiles; the prologue loads the first.
    loop_types = re.search(r"scf\.for .*? -> \((.*)\)", tile_ir).group(1)
    assert "tensor<128x64xbf16" in loop_types and "tensor<64x128xbf16" in loop_types, loop_types
    assert re.search(r"scf\.if .* -> \(tensor<128x64xbf16", tile_ir)
    # In the K loop, no wait for a global load follows the last one: the
    # next iteration writes those tiles to LDS. Unpipelined, each
    # iteration waits for its own loads.
    body = k_loop(kernel.asm["amdgcn"])
    after_loads = body[max(m.end() for m in re.finditer(r"buffer_load\w*", body)):]
    assert not re.search(LOAD_WAIT["gfx1250"], after_loads), after_loads
    assert kernel.n_spills == 0
    unpipelined = k_loop(compiled("gfx1250", num_stages=1).asm["amdgcn"])
    after_loads = unpipelined[max(m.end() for m in re.finditer(r"buffer_load\w*", unpipelined)):]
    assert re.search(LOAD_WAIT["gfx1250"], after_loads)


def test_gfx950_copies_the_next_tiles_into_lds_at_two_stages():
    # As Triton's default: each iteration waits for its own copies, then
    # one barrier (every wave's copies are in LDS, and every wave is done
    # reading the slot the next copies overwrite), then starts the next
    # iteration's copies, direct to LDS, into A's and B's second slots.
    kernel = compiled("gfx950", num_stages=2)
    tile_ir = kernel.asm["tile"]
    assert re.findall(r"tile\.local_alloc .*: memref<(\w+)", tile_ir) == ["2x128x64xbf16", "2x64x128xbf16"], tile_ir
    body = k_loop(kernel.asm["amdgcn"])
    assert len(re.findall(r"buffer_load_dwordx4 .* lds", body)) == 8, body
    assert not re.search(r"ds_write", body), body
    assert body.count("s_barrier") == 1, body
    # No wait for the copies after they start: the next iteration waits.
    after_copies = body[max(m.end() for m in re.finditer(r"buffer_load\w*", body)):]
    assert not re.search(r"vmcnt", after_copies), after_copies
    assert kernel.n_spills == 0


@pytest.mark.parametrize("target", ["gfx950", "gfx1250"])
def test_attention_loads_k_and_v_one_block_ahead(target):
    # K reaches its dot transposed, V directly: both are loaded ahead, K
    # carried in registers, V too on gfx1250, copied into LDS on gfx950.
    signature = {**{p: "*bf16:16:range32" for p in ("q_ptr", "k_ptr", "v_ptr", "o_ptr")}, "sm_scale": "fp32",
                 **{n: "i32:16" for n in ("N_Q", "N_KV", "stride_qh", "stride_qm", "stride_kh", "stride_kn",
                                          "stride_vh", "stride_vn", "stride_oh", "stride_om")}}
    kernel = rocktile.compile(attention_kernel, signature,
                              {"HEAD_DIM": 64, "BLOCK_M": 128, "BLOCK_N": 64, "CAUSAL": False}, target=target,
                              num_warps=4, num_stages=2)
    loop_types = re.search(r"scf\.for .*? -> \((.*)\)", kernel.asm["tile"]).group(1)
    copied = re.findall(r"tile\.local_alloc .*: memref<(\w+)", kernel.asm["tile"])
    assert (loop_types.count("tensor<64x64xbf16"), copied) == \
        ((1, ["2x64x64xbf16"]) if target == "gfx950" else (2, [])), loop_types
    assert kernel.n_spills == 0


def test_tiles_too_large_for_registers_stay_unpipelined():
    # 256x256 fp32 accumulators (128 VGPRs per lane of 8 waves of 64) and
    # three copies of the operand tiles would not fit in gfx950's 256.
    kernel = compiled("gfx950", num_stages=2, blocks=(256, 256, 64), num_warps=8)
    loop_types = re.search(r"scf\.for .*? -> \((.*)\)", kernel.asm["tile"]).group(1)
    assert "bf16>" not in loop_types.replace("!tile.ptr<bf16>", "")
    assert kernel.n_spills == 0


def bf16(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(ml_dtypes.bfloat16)


# K = 0, 20, 64 and 200 with BLOCK_K = 32: 0, 1 (a partial block), 2 and 7
# (the last partial) trips; M and N not multiples of the blocks. num_stages
# 3 is pipelined as 2.
@pytest.mark.parametrize("target", ["gfx950", "gfx1250"])
@pytest.mark.parametrize("num_stages", [1, 2, 3])
@pytest.mark.parametrize("K", [0, 20, 64, 200])
def test_gemm_stages_trip_counts_and_edges(target, K, num_stages):
    M, N = 72, 40
    a, b = bf16((M, K), 1), bf16((K, N), 2)
    c = np.empty((M, N), np.float32)
    grid = (rocktile.cdiv(M, 32) * rocktile.cdiv(N, 32),)
    matmul_kernel[grid](a, b, c, c, M, N, K, max(K, 1), 1, N, 1, N, 1, BLOCK_SIZE_M=32, BLOCK_SIZE_N=32,
                        BLOCK_SIZE_K=32, GROUP_SIZE_M=2, HAS_BIAS=False, ACTIVATION="", num_warps=2,
                        num_stages=num_stages, target=target)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-5, atol=1e-4)


def test_schedule_tool_prints_the_pointer_pipeline():
    # scripts/pipeline-schedule.py --pointers reads the schedule back from
    # the compiled tutorial GEMM (the picture in docs/internals.md).
    script = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "pipeline-schedule.py")
    out = subprocess.run([sys.executable, script, "--pointers", "3", "4"], capture_output=True, text=True,
                         check=True).stdout
    # gfx950 copies the tiles into 3 slots with direct-to-LDS loads; gfx1250,
    # whose async loads take no mask, carries them in registers.
    assert ("gfx950, num_stages=3, through pointers: async loads into LDS, 3 LDS slots per operand; the prologue "
            "copies iterations 0..1; iteration i copies i + 2; waits leave 2 or 0 copies in flight" in out), out
    assert ("gfx1250, num_stages=3, through pointers: the loop carries 1 tile per operand in registers; "
            "the prologue loads iteration 0; iteration i writes its tiles to LDS, computes, and loads i + 1's"
            in out), out
    rows = [line.split() for line in out.splitlines() if line.startswith(("prologue", "iteration"))]
    assert rows == [["prologue", "copy->s0", "copy->s1"], ["iteration", "0", "wait,read", "s0", "in", "flight", "copy->s2"],
                    ["iteration", "1", "wait,read", "s1", "in", "flight", "copy->s0"],
                    ["iteration", "2", "wait,read", "s2", "in", "flight"], ["iteration", "3", "wait,read", "s0"],
                    ["prologue", "load"], ["iteration", "0", "LDS,dot", "load"], ["iteration", "1", "LDS,dot", "load"],
                    ["iteration", "2", "LDS,dot", "load"], ["iteration", "3", "LDS,dot"]], rows
