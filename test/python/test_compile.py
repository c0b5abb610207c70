"""Compiling to code objects: both targets, metadata, specialization and
the in-process cache."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import rocktile
import rocktile.language as tl
from rocktile import _C

TARGETS = ["gfx950", "gfx1250"]
METADATA_KEYS = {"name", "target", "wave_size", "num_warps", "vgpr_count", "sgpr_count", "agpr_count",
                 "vgpr_spill_count", "sgpr_spill_count", "lds_bytes", "scratch_bytes", "code_size", "occupancy"}


@rocktile.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


ALIGNED = {"x_ptr": "*fp32:16", "y_ptr": "*fp32:16", "out_ptr": "*fp32:16", "n": "i32:16"}
# What a launch with arrays under 2 GiB specializes.
LAUNCHED = {k: v + ":range32" if v.startswith("*") else v for k, v in ALIGNED.items()}


def aligned_array(n, offset=0):
    """A float32 array whose data starts `offset` elements after a 16-byte boundary."""
    raw = np.zeros(n + 8, dtype=np.float32)
    start = (-raw.ctypes.data % 16) // 4 + offset
    arr = raw[start:start + n]
    assert arr.ctypes.data % 16 == (offset * 4) % 16
    return arr


def test_targets():
    assert set(TARGETS) <= set(_C.targets())


@pytest.mark.parametrize("target", TARGETS)
def test_vector_add_code_object(target):
    kernel = rocktile.compile(add_kernel, signature=ALIGNED, constexprs={"BLOCK": 1024}, target=target)
    assert isinstance(kernel, rocktile.CompiledKernel)
    assert kernel.hsaco[:4] == b"\x7fELF"
    assert METADATA_KEYS <= set(kernel.metadata)
    assert kernel.metadata["name"] == kernel.name == "add_kernel"
    assert kernel.metadata["target"] == target and kernel.metadata["num_warps"] == 4
    assert kernel.metadata["wave_size"] == {"gfx950": 64, "gfx1250": 32}[target]
    assert kernel.metadata["vgpr_spill_count"] == 0 and kernel.metadata["sgpr_spill_count"] == 0
    # The backend is told the exact workgroup size (num_warps waves).
    assert kernel.metadata["max_flat_workgroup_size"] == 4 * kernel.metadata["wave_size"]
    for stage in ("tile", "simt", "llir", "amdgcn"):
        assert isinstance(kernel.asm[stage], str) and kernel.asm[stage]
    assert "add_kernel" in kernel.asm["amdgcn"]
    assert kernel.signature == ALIGNED and kernel.constexprs == {"BLOCK": 1024}
    # Read by attribute too, as ported Triton host code does (shared: LDS bytes).
    assert kernel.metadata.num_warps == 4 and kernel.metadata.shared == kernel.metadata["lds_bytes"]
    with pytest.raises(AttributeError, match="has no 'registers'"):
        kernel.metadata.registers


# VGPRs per SIMD lane (shared/isa) and the most waves a SIMD holds (8 on
# CDNA, 16 on gfx12): the occupancy the backend reports must fit the
# kernel's registers in the file, and not waste much of it.
REGISTER_FILE = {"gfx950": (512, 8), "gfx1250": (1024, 16)}


@pytest.mark.parametrize("target", TARGETS)
def test_occupancy_follows_register_use(target):
    registers, max_waves = REGISTER_FILE[target]
    seen = []
    for block in (256, 4096, 8192):  # more elements per lane, more registers
        m = rocktile.compile(add_kernel, signature=ALIGNED, constexprs={"BLOCK": block}, target=target,
                             num_warps=1).metadata
        used = m["vgpr_count"] + m["agpr_count"]
        assert 1 <= m["occupancy"] <= max_waves
        assert m["occupancy"] * used <= registers  # the waves' registers fit in the file
        assert m["occupancy"] == max_waves or (m["occupancy"] + 1) * used > registers * 0.75
        seen.append((used, m["occupancy"]))
    assert seen[0][1] == max_waves and seen[-1][1] < seen[1][1] < max_waves, seen
    if target == "gfx950":  # CDNA3 allocates VGPRs in blocks of 8
        assert all(occ == min(8, 512 // (-(-used // 8) * 8)) for used, occ in seen), seen


def test_same_specialization_is_memoized():
    first = rocktile.compile(add_kernel, signature=ALIGNED, constexprs={"BLOCK": 256})
    again = add_kernel.compile(dict(ALIGNED), {"BLOCK": 256})
    assert again is first
    assert first.specialization in add_kernel.cache


@pytest.mark.parametrize("change", [
    dict(signature={**ALIGNED, "x_ptr": "*fp32"}),  # alignment
    dict(signature={**ALIGNED, "n": "i32"}),  # divisibility
    dict(signature={**ALIGNED, "x_ptr": "*fp16:16"}),  # type
    dict(constexprs={"BLOCK": 512}),
    dict(target="gfx1250"),
    dict(num_warps=8),
])
def test_each_part_of_the_key_makes_a_new_variant(change):
    base = dict(signature=ALIGNED, constexprs={"BLOCK": 256}, target="gfx950", num_warps=4)
    first = rocktile.compile(add_kernel, **base)
    other = rocktile.compile(add_kernel, **{**base, **change})
    assert other is not first
    assert rocktile.compile(add_kernel, **{**base, **change}) is other


def test_warmup_specializes_on_alignment_and_divisibility():
    n = 4096
    x, y, out = aligned_array(n), aligned_array(n), aligned_array(n)
    kernel = add_kernel.warmup(x, y, out, n, BLOCK=256, grid=(16,))
    assert kernel.signature == LAUNCHED
    assert kernel is rocktile.compile(add_kernel, signature=LAUNCHED, constexprs={"BLOCK": 256})
    misaligned = add_kernel.warmup(aligned_array(n, offset=1), y, out, n, BLOCK=256)
    assert misaligned.signature["x_ptr"] == "*fp32:range32" and misaligned is not kernel
    odd = add_kernel.warmup(x, y, out, 1000, BLOCK=256)
    assert odd.signature["n"] == "i32" and odd is not kernel


def test_warmup_argument_types():
    kernel = add_kernel.warmup(np.zeros(8, np.float16), np.zeros(8, np.float16), np.zeros(8, np.float16),
                               2**40, BLOCK=64, target="gfx1250", num_warps=2)
    assert kernel.signature["x_ptr"].startswith("*fp16") and kernel.signature["n"] == "i64:16"
    assert kernel.target == "gfx1250" and kernel.num_warps == 2


@rocktile.jit(do_not_specialize=["n"])
def not_specialized(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, 0.0, mask=offs < n)


def test_do_not_specialize():
    kernel = not_specialized.warmup(aligned_array(64), 64, BLOCK=64)
    assert kernel.signature == {"x_ptr": "*fp32:16:range32", "n": "i32"}


@rocktile.jit
def strided_copy(x_ptr, y_ptr, stride, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs * stride))


def test_unit_integers_are_specialized_as_constants():
    """As in Triton, an int argument equal to 1 (a unit stride) is compiled
    in: the strided load becomes 128-bit loads, and the launch is right."""
    x, y = aligned_array(256), aligned_array(256)
    x[:] = np.arange(256)
    unit = strided_copy.warmup(x, y, 1, BLOCK=256)
    assert "stride" not in unit.signature and unit.constexprs["stride"] == 1
    assert re.search(r"(global|buffer)_load_dwordx4", unit.asm["amdgcn"])
    general = strided_copy.warmup(x, y, 2, BLOCK=128)
    assert general.signature["stride"] == "i32" and not re.search(r"(global|buffer)_load_dwordx4", general.asm["amdgcn"])
    strided_copy[(1,)](x, y, 1, BLOCK=256)
    np.testing.assert_array_equal(y, x)
    strided_copy[(1,)](x, y, 2, BLOCK=128)
    np.testing.assert_array_equal(y[:128], x[::2])
    kept = not_specialized.warmup(aligned_array(64), 1, BLOCK=64)
    assert kept.signature == {"x_ptr": "*fp32:16:range32", "n": "i32"}


@rocktile.jit
def masked_copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr, OTHER: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n, other=OTHER))


@rocktile.jit
def masked_strided_copy(x_ptr, y_ptr, n, stride, BLOCK: tl.constexpr, OTHER: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs * stride, mask=offs < n, other=OTHER))


@pytest.mark.parametrize("target", ["gfx950", "gfx1250"])
@pytest.mark.parametrize("other", [0.0, -0.0, 7.0])
def test_buffers_under_2gib_load_masked_chunks_without_branches(target, other):
    """As Triton on AMD: a pointer into a buffer under 2 GiB (':range32', set
    by launches) reads through a buffer resource, whose masked-off lanes read
    zeros past its end: no branch per chunk; `other` is selected unless it is
    +0.0 (-0.0 keeps its sign). Without ':range32' the same holds for offsets
    from a shared base within 2 GiB (a buffer resource starts at the base);
    offsets scaled by a runtime stride have no bound: each masked chunk is a
    branch."""
    x, y = aligned_array(256), aligned_array(256)
    x[:] = np.arange(256) + 1
    kernel = masked_copy.warmup(x, y, 96, BLOCK=256, OTHER=other, target=target)
    assert kernel.signature["x_ptr"] == "*fp32:16:range32"
    asm = kernel.asm["amdgcn"]
    assert re.search(r"buffer_load_(dwordx4|b128)", asm) and "s_cbranch_execz" not in asm
    masked_copy[(1,)](x, y, 96, BLOCK=256, OTHER=other, target=target)
    np.testing.assert_array_equal(y, np.where(np.arange(256) < 96, x, np.float32(other)))
    assert np.array_equal(np.signbit(y[96:]), np.signbit(np.full(160, other, np.float32)))
    plain = rocktile.compile(masked_copy, signature={"x_ptr": "*fp32:16", "y_ptr": "*fp32:16", "n": "i32:16"},
                             constexprs={"BLOCK": 256, "OTHER": other}, target=target)
    assert re.search(r"buffer_load_(dwordx4|b128)", plain.asm["amdgcn"])
    assert "s_cbranch_execz" not in plain.asm["amdgcn"]
    strided = rocktile.compile(masked_strided_copy, signature={"x_ptr": "*fp32:16", "y_ptr": "*fp32:16", "n": "i32",
                                                               "stride": "i32"},
                               constexprs={"BLOCK": 256, "OTHER": other}, target=target)
    assert "buffer_load" not in strided.asm["amdgcn"] and "s_cbranch_execz" in strided.asm["amdgcn"]
    y[:] = 0
    strided[(1,)](x, y, 40, 2)
    np.testing.assert_array_equal(y[:40], np.where(np.arange(40) < 40, x[:80:2], 0))
    np.testing.assert_array_equal(y[40:], np.float32(other))


def test_triton_style_constexpr_in_signature():
    kernel = rocktile.compile(add_kernel, signature={**ALIGNED, "BLOCK": "constexpr"}, constexprs={"BLOCK": 128})
    assert kernel.constexprs == {"BLOCK": 128}


@rocktile.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf"))
    num = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * out_row_stride + cols, num / tl.sum(num, axis=0), mask=mask)


@pytest.mark.parametrize("target", TARGETS)
def test_softmax_compiles_without_spills(target):
    sig = {"out_ptr": "*fp32:16", "in_ptr": "*fp32:16", "in_row_stride": "i32", "out_row_stride": "i32",
           "n_cols": "i32"}
    kernel = rocktile.compile(softmax_kernel, signature=sig, constexprs={"BLOCK": 1024}, target=target)
    assert kernel.hsaco[:4] == b"\x7fELF"
    assert kernel.metadata["vgpr_spill_count"] == 0
    assert kernel.metadata["sgpr_spill_count"] == 0
    assert kernel.metadata["scratch_bytes"] == 0
    assert kernel.n_spills == 0


def test_long_softmax_rows_keep_their_masks_out_of_spills():
    """128 elements per lane on gfx950: each mask element is computed just
    before its load (sinkCompares), not all up front, where their SGPR pairs
    spilled (164 of them); the loads need no branch (buffer resources based
    at each row)."""
    sig = {"out_ptr": "*fp32:16", "in_ptr": "*fp32:16", "in_row_stride": "i32", "out_row_stride": "i32",
           "n_cols": "i32"}
    kernel = rocktile.compile(softmax_kernel, signature=sig, constexprs={"BLOCK": 32768}, target="gfx950")
    assert kernel.n_spills == 0 and kernel.metadata["scratch_bytes"] == 0
    assert "s_cbranch_execz" not in kernel.asm["amdgcn"]


@pytest.mark.parametrize("target", TARGETS)
def test_matrix_kernels_keep_latency_scheduling(target):
    """Tiles that fill the register file get LLVM's scheduling for register
    pressure (a 65536-element softmax row, test/Target/softmax.py), but not
    in a matrix kernel: a 256x256 GEMM's accumulator, operands and store
    addresses come close to a wave's 256 registers at 8 warps, and its
    matrix instructions need their latency hidden."""
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
    from matmul import matmul_kernel
    sig = {"a_ptr": "*bf16:16:range32", "b_ptr": "*bf16:16:range32", "c_ptr": "*fp32:16:range32",
           "bias_ptr": "*fp32:16:range32", "M": "i32:16",
           "N": "i32:16", "K": "i32:16", "stride_am": "i32:16", "stride_bk": "i32:16", "stride_cm": "i32:16"}
    constexprs = {"BLOCK_SIZE_M": 256, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8, "HAS_BIAS": False,
                  "ACTIVATION": "", "stride_ak": 1, "stride_bn": 1, "stride_cn": 1}
    kernel = rocktile.compile(matmul_kernel, sig, constexprs, target=target, num_warps=8)
    assert "amdgpu-sched-strategy" not in kernel.asm["llir"]
    assert kernel.n_spills == 0


TEMP_DIRECTORY_PROGRAM = """
import rocktile, rocktile.language as tl
@rocktile.jit
def fill(x_ptr, N: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, N), tl.zeros([N], tl.float32) + 1)
try:
    rocktile.compile(fill, {"x_ptr": "*fp32"}, {"N": 64}, target="gfx950")
except rocktile.CompilationError as e:
    print(str(e).splitlines()[0])
"""


def test_a_temporary_directory_that_cannot_be_written_is_an_error(tmp_path):
    """The code object goes through a temporary file for lld: a missing or
    full temporary directory is a CompilationError naming it (a full one
    ended the process with 'LLVM ERROR: ... No space left on device')."""
    def compile_with(tmpdir):
        env = {**os.environ, "TMPDIR": str(tmpdir), "ROCKTILE_CACHE": "0"}
        done = subprocess.run([sys.executable, "-c", TEMP_DIRECTORY_PROGRAM], env=env, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout
    out = compile_with(tmp_path / "missing")
    assert f"cannot write the code object's temporary object in {tmp_path / 'missing'}: No such file" in out
    full = tmp_path / "full"
    full.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8k", "tmpfs", str(full)],
                                           capture_output=True).returncode:
        return  # no tmpfs of our own to fill here: the missing directory above is the check
    try:
        (full / "filler").write_bytes(b"\0" * 8192)
        assert "No space left on device" in compile_with(full)
    finally:
        subprocess.run(["umount", str(full)])
