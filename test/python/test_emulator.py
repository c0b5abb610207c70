"""Kernels run in the CPU emulator on both targets, checked against numpy."""
import os
import re

import numpy as np
import pytest

import rocktile
import rocktile.language as tl
from softmax import softmax_kernel
from vector_add import add_kernel

TARGETS = ["gfx950", "gfx1250"]


def softmax_ref(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("n", [1, 1000, 4097, 65536 + 3])
def test_vector_add(target, n):
    rng = np.random.default_rng(n)
    x, y = rng.standard_normal(n, np.float32), rng.standard_normal(n, np.float32)
    out = np.full(n, np.nan, np.float32)
    add_kernel[(rocktile.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024, target=target)
    np.testing.assert_array_equal(out, x + y)  # one rounding, same as numpy: exact


@rocktile.jit
def masked_increment(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n, other=-1.0) + 1.0)


@rocktile.jit
def strided_copy(x_ptr, y_ptr, z_ptr, n, stride, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs * stride, mask=mask, other=2.0)
    tl.store(y_ptr + offs, v + 1.0, mask=mask)
    tl.store(z_ptr + offs, v)


# One warp holding 2^20 elements, 16384 per lane on gfx950 and 32768 on
# gfx1250, far past the register file: each access is a loop over private
# copies of the lane's values (unrolled, the compile took minutes).
@pytest.mark.parametrize("target", TARGETS)
def test_a_tile_past_the_register_file(target):
    block = 1 << 20
    x = np.random.default_rng(0).standard_normal(block - 5, np.float32)
    y = np.full(block, np.nan, np.float32)
    with pytest.warns(rocktile.CompilationWarning, match="registers in each lane"):
        masked_increment[(1,)](x, y, block - 5, BLOCK=block, num_warps=1, target=target)
    np.testing.assert_array_equal(y, np.concatenate([x + 1, np.zeros(5, np.float32)]))


# The same with `other`, a masked store and scalar (strided) accesses.
@pytest.mark.parametrize("target", TARGETS)
def test_strided_accesses_past_the_register_file(target):
    block, stride = 1 << 17, 3
    n = block - 5
    x = np.random.default_rng(1).standard_normal(n * stride, np.float32)
    y, z = np.full(block, np.nan, np.float32), np.full(block, np.nan, np.float32)
    with pytest.warns(rocktile.CompilationWarning, match="registers in each lane"):
        strided_copy[(1,)](x, y, z, n, stride, BLOCK=block, num_warps=1, target=target)
    np.testing.assert_array_equal(y[:n], x[::stride] + 1)
    assert np.isnan(y[n:]).all()
    np.testing.assert_array_equal(z, np.concatenate([x[::stride], np.full(5, 2.0, np.float32)]))


@pytest.mark.parametrize("target", TARGETS)
def test_a_fault_in_a_looped_access_names_its_element(target):
    x, y, z = np.ones((1 << 17) - 8, np.float32), np.zeros(1 << 17, np.float32), np.zeros(1 << 17, np.float32)
    with pytest.warns(rocktile.CompilationWarning), pytest.raises(rocktile.EmulatorError) as e:
        strided_copy[(1,)](x, y, z, 1 << 17, 1, BLOCK=1 << 17, num_warps=1, target=target)
    assert "at index 131064" in str(e.value) and "'x_ptr'" in str(e.value)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("shape", [(37, 1000), (256, 4096), (1, 1), (5, 17), (3, 64)])
def test_softmax(target, shape):
    rows, cols = shape
    x = np.random.default_rng(rows * cols).standard_normal(shape, np.float32) * 4
    out = np.full_like(x, np.nan)
    softmax_kernel[(rows,)](out, x, x.shape[1], out.shape[1], cols,
                            BLOCK=rocktile.next_power_of_2(cols), target=target)
    # f32 exp and sums in a different order than numpy: a few ulps.
    np.testing.assert_allclose(out, softmax_ref(x), rtol=2e-6, atol=1e-7)


@rocktile.jit
def row_col_sums(x_ptr, rows_ptr, cols_ptr, M: tl.constexpr, N: tl.constexpr):
    r = tl.arange(0, M)
    c = tl.arange(0, N)
    x = tl.load(x_ptr + r[:, None] * N + c[None, :])
    tl.store(rows_ptr + r, tl.sum(x, axis=1))
    tl.store(cols_ptr + c, tl.sum(x, axis=0))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("shape", [(4, 256), (64, 64), (256, 4), (32, 128)])
@pytest.mark.parametrize("num_warps", [1, 4, 8])
def test_2d_reductions(target, shape, num_warps):
    """Reductions along each axis: within lanes, across lanes and across warps."""
    m, n = shape
    x = np.random.default_rng(m + n).integers(-100, 100, shape).astype(np.int32)
    rows, cols = np.zeros(m, np.int32), np.zeros(n, np.int32)
    row_col_sums[(1,)](x, rows, cols, M=m, N=n, target=target, num_warps=num_warps)
    np.testing.assert_array_equal(rows, x.sum(axis=1))
    np.testing.assert_array_equal(cols, x.sum(axis=0))


@rocktile.jit
def block_stats(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0).to(tl.float32)
    tl.store(out_ptr + tl.program_id(0) * 3 + 0, tl.max(tl.where(offs < n, x, -1e30), axis=0))
    tl.store(out_ptr + tl.program_id(0) * 3 + 1, tl.min(tl.where(offs < n, x, 1e30), axis=0))
    tl.store(out_ptr + tl.program_id(0) * 3 + 2, tl.sum(tl.exp(x) * (offs < n), axis=0))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_block_stats(target, dtype):
    n, block = 3000, 512
    x = np.random.default_rng(3).standard_normal(n).astype(dtype)
    out = np.zeros(3 * rocktile.cdiv(n, block), np.float32)
    block_stats[(rocktile.cdiv(n, block),)](x, out, n, BLOCK=block, target=target)
    xs = x.astype(np.float32)
    for b in range(rocktile.cdiv(n, block)):
        part = xs[b * block:(b + 1) * block]
        assert out[3 * b] == part.max() and out[3 * b + 1] == part.min()
        np.testing.assert_allclose(out[3 * b + 2], np.exp(part).sum(), rtol=1e-5)


@rocktile.jit
def read_past_end(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs <= n)  # one element too many
    tl.store(out_ptr + offs, x, mask=offs < n)


@rocktile.jit
def write_past_end(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, offs)


LOAD_LINE = read_past_end.fn.__code__.co_firstlineno + 3
STORE_LINE = write_past_end.fn.__code__.co_firstlineno + 3


@pytest.mark.parametrize("target", TARGETS)
def test_read_past_end_is_reported(target):
    x, out = np.ones(100, np.float32), np.zeros(100, np.float32)
    with pytest.raises(rocktile.EmulatorError) as e:
        read_past_end[(1,)](x, out, 100, BLOCK=128, target=target)
    message = str(e.value)
    wave = 64 if target == "gfx950" else 32
    assert "kernel read_past_end, workgroup (0, 0, 0)" in message
    assert f"wave {100 // wave}, lane {100 % wave}" in message
    assert "load of 1 element(s) at index 100" in message
    assert "'x_ptr' (100 elements of 4 bytes" in message
    assert f"{__file__}:{LOAD_LINE}:" in message


@pytest.mark.parametrize("target", TARGETS)
def test_write_past_end_is_reported(target):
    # A view may reach the rest of its allocation (as on a GPU); the fault is
    # past the end of the allocation, at element 300.
    buffer = np.full(300, -1, np.int32)
    with pytest.raises(rocktile.EmulatorError) as e:
        write_past_end[(3,)](buffer[:256], 256, BLOCK=128, target=target)
    message = str(e.value)
    assert "store of" in message and "at index 300" in message
    assert "'out_ptr' (300 elements of 4 bytes" in message
    assert f"{__file__}:{STORE_LINE}:" in message
    np.testing.assert_array_equal(buffer[:256], np.arange(256))


@rocktile.jit
def masked_read(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n, other=1.0))


@pytest.mark.parametrize("target", TARGETS)
def test_buffer_loads_still_report_reads_past_the_end(target):
    """Under ':range32' masked loads read through a buffer resource, where the
    hardware returns zeros past the end. Masked-off lanes read so on purpose;
    a lane whose mask is true but whose element is past the end is still
    reported (a kernel bug that a GPU would hide)."""
    x, out = np.arange(64, dtype=np.float32), np.zeros(128, np.float32)
    kernel = masked_read[(1,)](x, out, 64, BLOCK=128, target=target)
    assert kernel.signature["x_ptr"].endswith(":range32") and "buffer_load" in kernel.asm["amdgcn"]
    np.testing.assert_array_equal(out, np.where(np.arange(128) < 64, np.arange(128), 1.0))
    with pytest.raises(rocktile.EmulatorError) as e:
        masked_read[(1,)](x, out, 65, BLOCK=128, target=target)
    assert "at index 64" in str(e.value) and "'x_ptr' (64 elements of 4 bytes" in str(e.value)


@rocktile.jit
def masked_row_read(x_ptr, out_ptr, stride, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x_ptr += row * stride
    tl.store(out_ptr + row * BLOCK + offs, tl.load(x_ptr + offs, mask=offs < n, other=1.0))


@pytest.mark.parametrize("target", TARGETS)
def test_shared_base_buffers_report_reads_past_the_end(target):
    """Without ':range32', a row's pointer plus offsets in [0, BLOCK) reads
    through a buffer resource based at the row. The emulator checks each
    access against the whole argument: a lane whose mask is true but whose
    element is past the argument's end is reported at its index there."""
    kernel = rocktile.compile(masked_row_read, {"x_ptr": "*fp32:16", "out_ptr": "*fp32:16", "stride": "i32",
                                                "n": "i32"}, {"BLOCK": 128}, target=target)
    assert "buffer_load" in kernel.asm["amdgcn"] and "s_cbranch_execz" not in kernel.asm["amdgcn"]
    x, out = np.arange(3 * 64, dtype=np.float32), np.zeros((3, 128), np.float32)
    kernel[(3,)](x, out, 64, 64)
    cols = np.arange(128)
    np.testing.assert_array_equal(out, np.where(cols < 64, x.reshape(3, 64)[:, np.minimum(cols, 63)], 1.0))
    with pytest.raises(rocktile.EmulatorError) as e:
        kernel[(3,)](x, out, 64, 65)  # rows 0 and 1 read the next row's first element, row 2 past the end
    assert "at index 192" in str(e.value) and "'x_ptr' (192 elements of 4 bytes" in str(e.value)


@rocktile.jit
def normalize_rows(x_ptr, out_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_ptr += row * stride
    out_ptr += row * stride
    total = 0.0
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        total += tl.sum(tl.load(x_ptr + cols, mask=cols < n_cols, other=0.0), axis=0)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        tl.store(out_ptr + cols, tl.load(x_ptr + cols, mask=cols < n_cols, other=0.0) / total, mask=cols < n_cols)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("n_cols", [1, 100, 300])
def test_row_loops_read_through_buffers_based_at_each_block(target, n_cols):
    """The loop's offset (off) joins the row's pointer as the shared base of
    each block's buffer resource: masked blocks need no branch."""
    sig = {"x_ptr": "*fp32:16", "out_ptr": "*fp32:16", "stride": "i32", "n_cols": "i32"}
    kernel = rocktile.compile(normalize_rows, sig, {"BLOCK": 128}, target=target)
    asm = kernel.asm["amdgcn"]
    assert asm.count("buffer_load") >= 2 and "buffer_store" in asm and "s_cbranch_execz" not in asm
    x = np.random.default_rng(n_cols).uniform(1, 2, (3, 320)).astype(np.float32)
    out = np.full_like(x, -1)
    kernel[(3,)](x, out, 320, n_cols)
    np.testing.assert_allclose(out[:, :n_cols], x[:, :n_cols] / x[:, :n_cols].sum(1, keepdims=True), rtol=1e-6)
    np.testing.assert_array_equal(out[:, n_cols:], -1)


@rocktile.jit
def reverse_row(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + (n - 1) + offs * -1, mask=offs < n, other=0.0), mask=offs < n)


@pytest.mark.parametrize("target", TARGETS)
def test_offsets_below_the_shared_base_keep_their_branches(target):
    """Per-lane offsets that may be negative cannot index a buffer resource
    based at the shared part (the hardware would read zeros below it)."""
    kernel = rocktile.compile(reverse_row, {"x_ptr": "*fp32:16", "out_ptr": "*fp32:16", "n": "i32"},
                              {"BLOCK": 128}, target=target)
    assert "s_cbranch_execz" in kernel.asm["amdgcn"]
    x, out = np.arange(100, dtype=np.float32), np.full(128, -1, np.float32)
    kernel[(1,)](x, out, 100)
    np.testing.assert_array_equal(out, np.concatenate([x[::-1], np.full(28, -1, np.float32)]))


@pytest.mark.parametrize("target", TARGETS)
def test_target_selection(target, monkeypatch):
    x = np.zeros(64, np.float32)
    monkeypatch.setenv("ROCKTILE_TARGET", target)
    kernel = add_kernel[(1,)](x, x, x, 64, BLOCK=64)
    assert kernel.target == target
    rocktile.set_target("gfx950")
    try:
        assert add_kernel[(1,)](x, x, x, 64, BLOCK=64).target == "gfx950"
        assert add_kernel[(1,)](x, x, x, 64, BLOCK=64, target="gfx1250").target == "gfx1250"
    finally:
        rocktile.set_target(None)


def test_device_selection(monkeypatch):
    """(The HIP device path is test_device.py's.)"""
    x = np.zeros(64, np.float32)
    monkeypatch.setenv("ROCKTILE_DEVICE", "cuda")
    with pytest.raises(ValueError, match="must be 'emulator' or 'hip'"):
        add_kernel[(1,)](x, x, x, 64, BLOCK=64)


def test_bad_launch_arguments():
    x = np.zeros(64, np.float32)
    with pytest.raises(TypeError):
        add_kernel[(1,)](x, x, x, BLOCK=64)  # n missing
    with pytest.raises(TypeError, match="cannot pass str"):
        add_kernel[(1,)](x, x, "out", 64, BLOCK=64)
    with pytest.raises(ValueError, match="1 to 3 dimensions"):
        add_kernel[(1, 1, 1, 1)](x, x, x, 64, BLOCK=64)


@rocktile.jit
def store_int(out, v):
    tl.store(out, v)


def test_integer_arguments_beyond_64_bits_overflow():
    """Ints take i32, i64 or u64 by their value (2^63 and up are uint64, as
    in Triton); one that fits in none is an OverflowError naming it (2^64
    was passed as 0)."""
    out = np.zeros(1, np.int64)
    for value, stored in ((2**63 - 1, 2**63 - 1), (-2**63, -2**63), (2**64 - 1, -1)):
        store_int[(1,)](out, value)
        assert out[0] == stored
    for value in (2**64, -2**63 - 1):
        with pytest.raises(OverflowError, match=f"integer argument 'v' = {value} does not fit in 64 bits"):
            store_int[(1,)](out, value)


def test_grid_from_meta():
    n = 5000
    x = np.ones(n, np.float32)
    out = np.zeros(n, np.float32)
    add_kernel[lambda meta: (rocktile.cdiv(meta["n_elements"], meta["BLOCK"]),)](x, x, out, n, BLOCK=256)
    np.testing.assert_array_equal(out, 2)


# Loops holding reductions whose bounds come from memory: a decode-attention
# style pass over each sequence's own length, and a persistent grid-stride
# loop over a loaded tile count. On a GPU such bounds are the same for the
# whole workgroup; the emulator runs thread 0's and checks the others agree.
@rocktile.jit
def per_sequence_stats(x_ptr, lens_ptr, out_ptr, stride, BLOCK: tl.constexpr):
    seq = tl.program_id(0)
    n = tl.load(lens_ptr + seq)
    m = tl.full([BLOCK], float("-inf"), tl.float32)
    total = 0.0
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + seq * stride + offs, mask=offs < n, other=float("-inf"))
        m = tl.maximum(m, x)
        total += tl.sum(tl.where(offs < n, x, 0.0))
    tl.store(out_ptr + seq * 2, tl.max(m))
    tl.store(out_ptr + seq * 2 + 1, total)


@rocktile.jit
def persistent_row_sums(x_ptr, out_ptr, count_ptr, BLOCK: tl.constexpr):
    num_tiles = tl.load(count_ptr)
    for tile in range(tl.program_id(0), num_tiles, tl.num_programs(0)):
        offs = tile * BLOCK + tl.arange(0, BLOCK)
        tl.store(out_ptr + tile, tl.sum(tl.load(x_ptr + offs)))


@pytest.mark.parametrize("target", TARGETS)
def test_loops_with_loaded_bounds(target):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 300)).astype(np.float32)
    lens = np.array([300, 17, 0], np.int32)
    out = np.zeros(6, np.float32)
    per_sequence_stats[(3,)](x, lens, out, 300, BLOCK=64, target=target)
    want = [[x[i, :n].max() if n else -np.inf, x[i, :n].sum()] for i, n in enumerate(lens)]
    np.testing.assert_allclose(out.reshape(3, 2), want, rtol=1e-5, atol=1e-5)
    tiles = rng.standard_normal(10 * 128).astype(np.float32)
    sums = np.zeros(10, np.float32)
    persistent_row_sums[(4,)](tiles, sums, np.array([10], np.int32), BLOCK=128, target=target)
    np.testing.assert_allclose(sums, tiles.reshape(10, 128).sum(1), rtol=1e-5, atol=1e-5)


@rocktile.jit
def copy_rows(x_ptr, y_ptr, M, N, stride_x, stride_y, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * stride_x + rn[None, :], mask=mask, other=0.0)
    tl.store(y_ptr + rm[:, None] * stride_y + rn[None, :], x, mask=mask)


@pytest.mark.parametrize("target", ["gfx950", "gfx1250"])
def test_row_strides_that_break_alignment(target):
    """Rows 69 elements apart are not 16-byte aligned although the first row
    is: the accesses must not be 128-bit (they were, and the emulator's
    alignment check caught it), while rows 80 apart (an int the launch
    specializes as divisible by 16) still are."""
    for stride in (69, 80):
        x = np.random.default_rng(stride).standard_normal((64, stride)).astype(np.float32)
        y = np.zeros((64, stride), np.float32)
        k = copy_rows[(2, 2)](x, y, 64, 64, stride, stride, BM=32, BN=32, target=target)
        np.testing.assert_array_equal(y[:, :64], x[:, :64])
        wide = len(re.findall(r"(buffer|global)_(load|store)_(dwordx4|b128)", k.asm["amdgcn"]))
        assert (wide > 0) == (stride == 80), (stride, wide)


@rocktile.jit
def bounds_mask_kernel(out_ptr, marked_ptr, M, N, lo, hi, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                       INCLUSIVE: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    keep = (offs_m[:, None] < M) & (N > offs_n[None, :]) & (offs_n[None, :] >= lo)
    if INCLUSIVE:
        keep = keep & (offs_m[:, None] > lo) & (hi >= offs_n[None, :])
    at = offs_m[:, None] * BLOCK_N + offs_n[None, :]
    tl.store(out_ptr + at, tl.where(keep, 1, 0))
    tl.store(marked_ptr + at, 1, mask=keep)  # vector stores under the mask of their first element


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("m, n, lo, hi", [(64, 48, 0, 128), (64, 128, 16, 96), (48, 16, 32, 32), (64, 0, 0, 0),
                                          (40, 100, 7, 90), (33, 64, 3, 16), (64, 112, 96, 127)])
def test_masks_of_bounds(target, m, n, lo, hi):
    """Masks from bounds that split a lane's runs of 16 or do not: x < B,
    x >= B (and B > x) change at B, x > B and B >= x at B + 1."""
    bm, bn = 64, 128
    for inclusive in (False, True):
        out, marked = np.full((bm, bn), -1, np.int32), np.zeros((bm, bn), np.int32)
        bounds_mask_kernel[(1,)](out, marked, m, n, lo, hi, BLOCK_M=bm, BLOCK_N=bn, INCLUSIVE=inclusive,
                                 num_warps=4, target=target)
        rows, cols = np.arange(bm)[:, None], np.arange(bn)[None, :]
        want = (rows < m) & (cols < n) & (cols >= lo)
        if inclusive:
            want &= (rows > lo) & (cols <= hi)
        np.testing.assert_array_equal(out, want.astype(np.int32))
        np.testing.assert_array_equal(marked, want.astype(np.int32))


@pytest.mark.parametrize("target", TARGETS)
def test_masks_shared_over_equal_runs(target):
    """Bounds divisible by 16 compared with offsets in aligned runs of 16 are
    one compare per run of a lane's registers (AxisInfo's constancy): the
    kernel makes less than half the compares it makes without divisibility."""
    def compares(bound):
        sig = {"out_ptr": "*i32:16", "marked_ptr": "*i32:16", "M": bound, "N": bound, "lo": bound, "hi": bound}
        kernel = rocktile.compile(bounds_mask_kernel, signature=sig, constexprs={"BLOCK_M": 64, "BLOCK_N": 128, "INCLUSIVE": False},
                                  target=target, num_warps=4)
        return kernel.asm["simt"].count("arith.cmpi")
    assert 2 * compares("i32:16") <= compares("i32")


@rocktile.jit
def read_modify_write(out):
    o = tl.load(out)
    tl.store(out, tl.load(out + o) + 1)


@rocktile.jit
def store_then_count(out, N: tl.constexpr, REPS: tl.constexpr):
    offs = tl.arange(0, N) % 4
    tl.store(out + offs, tl.zeros([N], tl.int32))
    for _ in tl.static_range(REPS):
        tl.atomic_add(out + offs, 1)


@pytest.mark.parametrize("target", ["gfx950", "gfx1250"])
def test_lanes_of_a_wave_access_memory_in_lockstep(target):
    """A wave's lanes run each memory instruction together: every lane loads
    before any stores, and every store lands before any later access. The
    emulator ran each thread through all of them in turn: lane 1 read the
    value lane 0 had stored (an out-of-bounds load of index 1 here), and
    the stores of later lanes wiped the atomic adds of earlier ones."""
    out = np.zeros(1, np.int32)
    read_modify_write[(1,)](out, target=target)
    assert out[0] == 1
    counts = np.full(4, 7, np.int32)
    store_then_count[(1,)](counts, N=256, REPS=4, num_warps=1, target=target)  # one wave: ordered
    np.testing.assert_array_equal(counts, 256)  # 64 elements x 4 adds per address


@rocktile.jit
def divide_by(x_ptr, out_ptr, d, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, x // d)  # ERR-divide
    tl.store(out_ptr + N + offs, x % d)


@pytest.mark.parametrize("target", TARGETS)
def test_integer_division_never_kills_the_process(target):
    """x // d and x % d with a runtime d of 0 killed Python (SIGFPE): now an
    EmulatorError at the division's line; INT32_MIN // -1 wraps to INT32_MIN
    (remainder 0), as the GPU's divide sequence computes, instead of trapping."""
    x = np.array([-2**31, 7, -7, 100] * 16, np.int32)
    out = np.zeros(128, np.int32)
    divide_by[(1,)](x, out, -1, N=64, target=target)
    np.testing.assert_array_equal(out[:4], [-2**31, -7, 7, -100])
    np.testing.assert_array_equal(out[64:], 0)
    line = next(i for i, text in enumerate(open(__file__), 1) if "# ERR-divide" in text)
    with pytest.raises(rocktile.EmulatorError, match=rf"lane \d+: integer division by zero\n  at {__file__}:{line}:"):
        divide_by[(1,)](x, out, 0, N=64, target=target)


@rocktile.jit
def multiply_add(a_ptr, b_ptr, c_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    a, b, c = tl.load(a_ptr + offs), tl.load(b_ptr + offs), tl.load(c_ptr + offs)
    tl.store(out_ptr + offs, a * b + c)
    tl.store(out_ptr + N + offs, c - a * b)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_products_added_are_fused_as_triton_fuses_them(target, dtype):
    """enable_fp_fusion (default True, Triton's): a * b + c and c - a * b are
    each one fma, rounded once, in the emulator as on the GPU (one v_fma per
    element); False keeps the product rounded before the sum. Inputs where
    the two differ: a * b's rounding error is all of the result."""
    rng = np.random.default_rng(5)
    a = (1 + rng.integers(1, 2**20, 64) * 2.0**-23).astype(dtype)
    b = (1 + rng.integers(1, 2**20, 64) * 2.0**-23).astype(dtype)
    c = -(a * b)  # the product rounded: a * b + c is the rounding error exactly, in an fma
    exact = a.astype(np.longdouble) * b.astype(np.longdouble)
    out = np.zeros(128, dtype)
    fused = multiply_add[(1,)](a, b, c, out, N=64, target=target)
    np.testing.assert_array_equal(out[:64], (exact + c).astype(dtype))
    np.testing.assert_array_equal(out[64:], (c - exact).astype(dtype))
    assert "math.fma" in fused.asm["tile"] and "arith.mulf" not in fused.asm["tile"]
    assert "v_fma_f64" in fused.asm["amdgcn"] if dtype == np.float64 else "fma_f32" in fused.asm["amdgcn"]
    unfused = multiply_add[(1,)](a, b, c, out, N=64, target=target, enable_fp_fusion=False)
    np.testing.assert_array_equal(out[:64], np.zeros(64, dtype))
    np.testing.assert_array_equal(out[64:], 2 * c)
    assert "math.fma" not in unfused.asm["tile"]
