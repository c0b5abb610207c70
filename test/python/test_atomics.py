"""Atomics, tl.debug_barrier, and tiles rearranged by trans/permute/reshape:
in the emulator on both targets, against numpy."""
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import rocktile
import rocktile.language as tl
from rocktile.compiler import trace_ir

TARGETS = ["gfx950", "gfx1250"]


def check_chain(addresses, values, olds, init, final, combine):
    """The old values returned by colliding atomics must be the states of one
    serial order of the updates: at each address, following the old values
    from `init` through `combine(state, value)` reaches `final`, using every
    lane once."""
    for a in np.unique(addresses):
        lanes = np.flatnonzero(addresses == a)
        by_old = {}
        for lane in lanes:
            by_old.setdefault(olds[lane].item(), []).append(values[lane].item())
        state = init[a].item()
        for _ in lanes:
            assert by_old.get(state), (a, state, by_old)
            # Updates that leave the state as it is (max with a smaller value, ...) come first.
            stable = [v for v in by_old[state] if combine(state, v) == state]
            value = stable[0] if stable else by_old[state][0]
            by_old[state].remove(value)
            state = combine(state, value)
        assert state == final[a].item(), (a, state, final[a])


# --------------------------------------------------------------------------
# Read-modify-write on a 1-D tile, masked, with colliding addresses.

@rocktile.jit
def rmw_1d(x_ptr, idx_ptr, mem_ptr, old_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    idx = tl.load(idx_ptr + offs, mask=mask, other=0)
    old = OP(mem_ptr + idx, x, mask=mask)
    tl.store(old_ptr + offs, old, mask=mask)


OPS = {  # name -> (tl function, numpy ufunc folding the values into memory, combine for one step)
    "add": (tl.atomic_add, np.add, lambda s, v: s + v),
    "max": (tl.atomic_max, np.maximum, max),
    "min": (tl.atomic_min, np.minimum, min),
    "and": (tl.atomic_and, np.bitwise_and, lambda s, v: s & v),
    "or": (tl.atomic_or, np.bitwise_or, lambda s, v: s | v),
    "xor": (tl.atomic_xor, np.bitwise_xor, lambda s, v: s ^ v),
}


def rmw_case(name, dtype, n=200, slots=7, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        x = rng.integers(-20, 20, n).astype(dtype)  # integers: sums are exact in any order
        init = rng.integers(-5, 5, slots).astype(dtype)
    elif np.dtype(dtype).kind == "u":
        x = rng.integers(0, 2**31, n).astype(dtype) | (dtype(1) << dtype(np.dtype(dtype).itemsize * 8 - 1)) * (
            rng.random(n) < 0.3).astype(dtype)  # some with the top bit set: unsigned order matters
        init = rng.integers(0, 1000, slots).astype(dtype)
    else:
        x = rng.integers(-1000, 1000, n).astype(dtype)
        init = rng.integers(-50, 50, slots).astype(dtype)
    if name == "add":  # positive: the states of one address never repeat
        x = (np.abs(x) % 1000 + 1).astype(dtype)
    idx = rng.integers(0, slots, n).astype(np.int32)
    return x, idx, init


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name,dtype", [
    ("add", np.int32), ("add", np.float32), ("add", np.int64), ("add", np.float64), ("add", np.uint32),
    ("max", np.int32), ("max", np.float32), ("max", np.uint32), ("max", np.uint64), ("min", np.int64),
    ("min", np.float64), ("min", np.uint32), ("and", np.int32), ("or", np.uint64), ("xor", np.int64),
])
def test_rmw_with_collisions_and_mask(target, name, dtype):
    op, fold, combine = OPS[name]
    n = 200
    x, idx, init = rmw_case(name, dtype, n)
    mem, old = init.copy(), np.zeros(n, dtype)
    rmw_1d[(rocktile.cdiv(n, 64),)](x, idx, mem, old, n, OP=op, BLOCK=64, target=target)
    expected = init.copy()
    fold.at(expected, idx, x)
    np.testing.assert_array_equal(mem, expected)
    if name != "xor":  # xor states repeat: the chain is ambiguous
        check_chain(idx, x, old, init, mem, combine)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.int64])
def test_xchg_returns_a_permutation(target, dtype):
    n = 150
    x = np.arange(100, 100 + n).astype(dtype)
    idx = (np.arange(n) % 5).astype(np.int32)
    init = np.arange(5).astype(dtype)
    mem, old = init.copy(), np.zeros(n, dtype)
    rmw_1d[(3,)](x, idx, mem, old, n, OP=tl.atomic_xchg, BLOCK=64, target=target)
    for a in range(5):  # the old values and the final one are the initial value and every value written
        lanes = idx == a
        assert sorted(old[lanes].tolist() + [mem[a]]) == sorted(x[lanes].tolist() + [init[a]])


@pytest.mark.parametrize("target", TARGETS)
def test_masked_off_lanes_do_not_update(target):
    n = 64
    x = np.ones(n, np.int32)
    idx = np.arange(n, dtype=np.int32)
    mem, old = np.full(n, 7, np.int32), np.full(n, -1, np.int32)
    rmw_1d[(1,)](x, idx, mem, old, 40, OP=tl.atomic_add, BLOCK=n, target=target)
    assert mem.tolist() == [8] * 40 + [7] * 24
    assert old.tolist() == [7] * 40 + [-1] * 24


# --------------------------------------------------------------------------
# 2-D tiles, scalar values and masks broadcast to the pointers, methods.

@rocktile.jit
def rmw_2d(mem_ptr, old_ptr, rows, M: tl.constexpr, N: tl.constexpr):
    r = tl.arange(0, M)
    c = tl.arange(0, N)
    ptrs = mem_ptr + r[:, None] * N + c[None, :]
    old = tl.atomic_add(ptrs, 1.5, mask=r[:, None] < rows, sem="acq_rel", scope="gpu")
    tl.store(old_ptr + r[:, None] * N + c[None, :], old)
    tl.atomic_max(ptrs, c[None, :].to(tl.float32) * 10, sem="relaxed")  # a row of values for every row
    ptrs.atomic_min(r[:, None].to(tl.float32) + 100, mask=c[None, :] < 2)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("shape,num_warps", [((16, 64), 4), ((8, 8), 1), ((64, 4), 8)])
def test_rmw_on_2d_tiles(target, shape, num_warps):
    m, n = shape
    rows = m // 2 + 1
    init = np.random.default_rng(m).integers(0, 5, shape).astype(np.float32)
    mem, old = init.copy(), np.zeros(shape, np.float32)
    rmw_2d[(1,)](mem, old, rows, M=m, N=n, target=target, num_warps=num_warps)
    expected = init.copy()
    expected[:rows] += 1.5
    np.testing.assert_array_equal(old[:rows], init[:rows])
    expected = np.maximum(expected, np.arange(n, dtype=np.float32)[None, :] * 10)
    expected[:, :2] = np.minimum(expected[:, :2], np.arange(m, dtype=np.float32)[:, None] + 100)
    np.testing.assert_array_equal(mem, expected)


# --------------------------------------------------------------------------
# Scalar pointers: updated once per program; the old value reaches every lane.

@rocktile.jit
def scalar_atomics(counter_ptr, max_ptr, out_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    ticket = tl.atomic_add(counter_ptr, 1)
    tl.atomic_max(max_ptr, pid * 3)
    tl.store(out_ptr + pid * BLOCK + tl.arange(0, BLOCK), ticket + tl.zeros([BLOCK], tl.int32))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("num_warps", [1, 4])
def test_scalar_atomics_once_per_program(target, num_warps):
    programs, block = 37, 128
    counter, top = np.zeros(1, np.int32), np.full(1, -1, np.int32)
    out = np.full((programs, block), -1, np.int32)
    scalar_atomics[(programs,)](counter, top, out, BLOCK=block, target=target, num_warps=num_warps)
    assert counter[0] == programs and top[0] == 3 * (programs - 1)
    assert (out == out[:, :1]).all()  # every lane got its program's old value
    assert sorted(out[:, 0].tolist()) == list(range(programs))  # one ticket each


# --------------------------------------------------------------------------
# A histogram: many lanes and programs hitting the same bins.

@rocktile.jit
def histogram_kernel(x_ptr, hist_ptr, n, BINS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    bin = tl.minimum(tl.maximum((x * BINS).to(tl.int32), 0), BINS - 1)
    tl.atomic_add(hist_ptr + bin, 1, mask=mask)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("n", [1, 1000, 5000])
def test_histogram(target, n):
    x = np.random.default_rng(n).beta(2, 5, n).astype(np.float32)  # skewed: most lanes share a few bins
    hist = np.zeros(16, np.int32)
    histogram_kernel[(rocktile.cdiv(n, 256),)](x, hist, n, BINS=16, BLOCK=256, target=target)
    expected = np.bincount(np.clip((x * 16).astype(np.int32), 0, 15), minlength=16)
    np.testing.assert_array_equal(hist, expected)


# --------------------------------------------------------------------------
# Compare-and-swap: elementwise, and a lock around non-atomic updates.

@rocktile.jit
def cas_tile(mem_ptr, cmp_ptr, old_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    old = tl.atomic_cas(mem_ptr + offs, tl.load(cmp_ptr + offs), offs + 1000)
    tl.store(old_ptr + offs, old)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint32])
def test_cas_elementwise(target, dtype):
    rng = np.random.default_rng(1)
    init = rng.integers(0, 3, 128).astype(dtype)
    cmp = rng.integers(0, 3, 128).astype(dtype)
    mem, old = init.copy(), np.zeros(128, dtype)
    cas_tile[(1,)](mem, cmp, old, BLOCK=128, target=target)
    np.testing.assert_array_equal(old, init)
    np.testing.assert_array_equal(mem, np.where(init == cmp, np.arange(128) + 1000, init).astype(dtype))


@rocktile.jit
def cas_same_values(mem_ptr, old_ptr):
    # Compare and new value one constant: an atomic read (a spin on a flag).
    tl.store(old_ptr + tl.program_id(0), tl.atomic_cas(mem_ptr + tl.program_id(0), 1, 1))


@pytest.mark.parametrize("target", TARGETS)
def test_cas_of_equal_compare_and_new_values_reads(target):
    """tl.atomic_cas(p, 1, 1), as a published lean attention kernel spins on
    its locks, compiles (it crashed the LLVM lowering once the body folded
    away) to one cmpxchg, and returns the memory it leaves unchanged."""
    mem, old = np.array([0, 1, 5], np.int32), np.zeros(3, np.int32)
    kernel = cas_same_values[(3,)](mem, old, target=target)
    np.testing.assert_array_equal(old, [0, 1, 5])
    np.testing.assert_array_equal(mem, [0, 1, 5])
    assert kernel.asm["llir"].count("cmpxchg") == 1


@rocktile.jit
def locked_increment(lock_ptr, value_ptr, log_ptr, BLOCK: tl.constexpr):
    # Each program reads, increments and writes two cells without atomics,
    # under a spin lock: no update may be lost.
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    v = tl.load(value_ptr)
    tl.store(value_ptr, v + 1)
    offs = tl.arange(0, BLOCK)
    tl.store(log_ptr + offs, tl.load(log_ptr + offs) + offs)
    tl.atomic_xchg(lock_ptr, 0)


@pytest.mark.parametrize("target", TARGETS)
def test_spin_lock(target):
    programs = 64
    lock, value, log = np.zeros(1, np.int32), np.zeros(1, np.int32), np.zeros(32, np.int64)
    locked_increment[(programs,)](lock, value, log, BLOCK=32, target=target)
    assert lock[0] == 0 and value[0] == programs
    np.testing.assert_array_equal(log, np.arange(32) * programs)


# --------------------------------------------------------------------------
# What atomics reject, at the line of the call.

@rocktile.jit
def bad_atomic(p_ptr, CASE: tl.constexpr):
    offs = tl.arange(0, 16)
    if CASE == 0:
        tl.atomic_max(p_ptr + offs, 1.0)  # p_ptr: *fp16 (only adds take 16-bit floats)
    elif CASE == 1:
        tl.atomic_and(p_ptr + offs, 1)  # p_ptr: *fp32
    elif CASE == 2:
        tl.atomic_cas(p_ptr, 0.0, 1.0)  # p_ptr: *fp32
    elif CASE == 3:
        tl.atomic_add(p_ptr, 1, sem="seq_cst")
    elif CASE == 4:
        tl.atomic_add(p_ptr, offs)  # a tile through a scalar pointer
    elif CASE == 5:
        tl.atomic_add(offs, 1)
    elif CASE == 6:
        tl.atomic_xchg(p_ptr, 1, scope="device")
    else:
        tl.atomic_add(p_ptr + offs, tl.zeros([32], tl.int32))


@pytest.mark.parametrize("case,ptr,message", [
    (0, "*fp16", "32- or 64-bit elements"), (1, "*fp32", "needs integer elements"),
    (2, "*fp32", "integer elements"), (3, "*i32", "sem must be one of"),
    (4, "*i32", "the pointer is a scalar"), (5, "*i32", "expects a pointer"),
    (6, "*i32", "scope must be one of"), (7, "*i32", "cannot broadcast"),
])
def test_atomic_errors(case, ptr, message):
    with pytest.raises(rocktile.CompilationError, match=message) as info:
        rocktile.compile(bad_atomic, {"p_ptr": ptr}, {"CASE": case})
    assert info.value.lineno > bad_atomic.fn.__code__.co_firstlineno


def test_atomic_ir():
    ir = trace_ir(rmw_1d, {"x_ptr": "*u32", "idx_ptr": "*i32", "mem_ptr": "*u32", "old_ptr": "*u32", "n": "i32"},
                  {"OP": tl.atomic_max, "BLOCK": 16})
    assert "tile.atomic_rmw <umax>" in ir
    ir = trace_ir(locked_increment, {"lock_ptr": "*i32", "value_ptr": "*i32", "log_ptr": "*i64"}, {"BLOCK": 16})
    assert "tile.atomic_cas" in ir and "tile.atomic_rmw <xchg>" in ir and "scf.while" in ir


# --------------------------------------------------------------------------
# debug_barrier: stores before it are seen by the program's other threads.

@rocktile.jit
def barrier_kernel(x_ptr, scratch_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    base = tl.program_id(0) * BLOCK
    tl.store(scratch_ptr + base + offs, tl.load(x_ptr + base + offs) * 2)
    tl.debug_barrier()
    tl.store(out_ptr + base + offs, tl.load(scratch_ptr + base + BLOCK - 1 - offs))


@pytest.mark.parametrize("target", TARGETS)
def test_debug_barrier(target):
    x = np.arange(4 * 512, dtype=np.float32)
    scratch, out = np.zeros_like(x), np.zeros_like(x)
    barrier_kernel[(4,)](x, scratch, out, BLOCK=512, target=target)
    np.testing.assert_array_equal(out, (x * 2).reshape(4, 512)[:, ::-1].ravel())
    assert "tile.barrier" in trace_ir(barrier_kernel, {"x_ptr": "*fp32", "scratch_ptr": "*fp32",
                                                      "out_ptr": "*fp32"}, {"BLOCK": 16})


# --------------------------------------------------------------------------
# trans, permute, reshape, view

@rocktile.jit
def transpose_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    r = tl.arange(0, M)
    c = tl.arange(0, N)
    x = tl.load(x_ptr + r[:, None] * N + c[None, :])
    tl.store(out_ptr + c[:, None] * M + r[None, :], tl.trans(x))
    tl.store(out_ptr + M * N + c[:, None] * M + r[None, :], x.T + 1)
    tl.store(out_ptr + 2 * M * N + c[:, None] * M + r[None, :], tl.permute(x, (1, 0)) * 2)
    back = x.trans(1, 0).permute(1, 0)  # a round trip
    tl.store(out_ptr + 3 * M * N + r[:, None] * N + c[None, :], back - x)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("shape,dtype", [((16, 32), np.float32), ((64, 4), np.int32), ((1, 64), np.float16),
                                         ((32, 32), np.int64), ((128, 8), np.float32)])
def test_trans(target, shape, dtype):
    m, n = shape
    x = np.random.default_rng(m * n).integers(-50, 50, shape).astype(dtype)
    out = np.zeros((4, n, m), dtype)
    transpose_kernel[(1,)](x, out, M=m, N=n, target=target)
    np.testing.assert_array_equal(out[0], x.T)
    np.testing.assert_array_equal(out[1], x.T + 1)
    np.testing.assert_array_equal(out[2], x.T * 2)
    assert (out[3].ravel() == 0).all()


@rocktile.jit
def trans_arith(a_ptr, b_ptr, out_ptr, rows_ptr, M: tl.constexpr, N: tl.constexpr):
    # a is M x N, b is N x M: a + b^T, and the row sums of b^T (column sums of b).
    r = tl.arange(0, M)
    c = tl.arange(0, N)
    a = tl.load(a_ptr + r[:, None] * N + c[None, :])
    b = tl.load(b_ptr + c[:, None] * M + r[None, :])
    bt = tl.trans(b)
    tl.store(out_ptr + r[:, None] * N + c[None, :], a * 2 + bt)
    tl.store(rows_ptr + r, tl.sum(bt, axis=1) + tl.max(a, axis=1))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("num_warps", [1, 4])
def test_trans_in_arithmetic_and_reductions(target, num_warps):
    m, n = 32, 64
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((m, n), np.float32), rng.standard_normal((n, m), np.float32)
    out, rows = np.zeros((m, n), np.float32), np.zeros(m, np.float32)
    trans_arith[(1,)](a, b, out, rows, M=m, N=n, target=target, num_warps=num_warps)
    np.testing.assert_array_equal(out, a * 2 + b.T)
    np.testing.assert_allclose(rows, b.sum(axis=0) + a.max(axis=1), rtol=1e-5, atol=1e-5)


@rocktile.jit
def permute3(x_ptr, out_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    i = tl.arange(0, A)[:, None, None]
    j = tl.arange(0, B)[None, :, None]
    k = tl.arange(0, C)[None, None, :]
    x = tl.load(x_ptr + (i * B + j) * C + k)
    y = tl.permute(x, 2, 0, 1)  # shape C x A x B
    tl.store(out_ptr + (k * A + i) * B + j, tl.permute(y, 1, 2, 0))  # back to A x B x C, stored transposed
    tl.store(out_ptr + A * B * C + tl.arange(0, A * B * C), tl.reshape(y, A * B * C))


@pytest.mark.parametrize("target", TARGETS)
def test_permute_3d(target):
    a, b, c = 4, 8, 16
    x = np.arange(a * b * c, dtype=np.int32).reshape(a, b, c)
    out = np.zeros(2 * a * b * c, np.int32)
    permute3[(1,)](x, out, A=a, B=b, C=c, target=target)
    np.testing.assert_array_equal(out[:a * b * c].reshape(c, a, b), x.transpose(2, 0, 1))
    np.testing.assert_array_equal(out[a * b * c:], x.transpose(2, 0, 1).ravel())


@rocktile.jit
def reduce3(x_ptr, sums_ptr, maxs_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    i = tl.arange(0, A)
    j = tl.arange(0, B)
    k = tl.arange(0, C)
    x = tl.load(x_ptr + (i[:, None, None] * B + j[None, :, None]) * C + k[None, None, :])
    # The pointer tiles are built in a plain 2-D layout and converted (through
    # LDS, as element offsets) to the layout of the reduced 3-D tile.
    tl.store(sums_ptr + i[:, None] * C + k[None, :], tl.sum(x, axis=1))
    tl.store(maxs_ptr + j[:, None] * C + k[None, :], tl.max(x, axis=0))


@pytest.mark.parametrize("target", TARGETS)
def test_reduce_3d_into_2d_pointers(target):
    a, b, c = 4, 8, 8
    x = np.random.default_rng(5).standard_normal((a, b, c)).astype(np.float32)
    sums, maxs = np.zeros((a, c), np.float32), np.zeros((b, c), np.float32)
    reduce3[(1,)](x, sums, maxs, A=a, B=b, C=c, target=target)
    np.testing.assert_allclose(sums, x.sum(axis=1), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(maxs, x.max(axis=0))


@rocktile.jit
def reshape_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, P: tl.constexpr, Q: tl.constexpr):
    r = tl.arange(0, M)
    c = tl.arange(0, N)
    x = tl.load(x_ptr + r[:, None] * N + c[None, :])
    flat = tl.reshape(x, M * N)
    i = tl.arange(0, M * N)
    tl.store(out_ptr + i, flat)
    y = tl.reshape(flat, (P, Q))  # another 2-D shape
    p = tl.arange(0, P)
    q = tl.arange(0, Q)
    tl.store(out_ptr + M * N + p[:, None] * Q + q[None, :], y * 3)
    z = y.reshape(M, N, can_reorder=True) + tl.view(x, [M, N])  # round trip and Triton's view
    tl.store(out_ptr + 2 * M * N + r[:, None] * N + c[None, :], z)
    tl.store(out_ptr + 3 * M * N + p, tl.sum(y, axis=1))


# On gfx1250 the first case hangs in LLVM's AMDGPU instruction selection
# (see test_reshape_hang_gfx1250): it only runs on gfx950 here.
@pytest.mark.parametrize("target,shape,new,dtype", [
    ("gfx950", (16, 32), (64, 8), np.float32), *[(t, *case) for t in TARGETS for case in [
        ((4, 64), (256, 1), np.int32), ((32, 4), (2, 64), np.float64), ((8, 8), (8, 8), np.int32),
        ((16, 16), (64, 4), np.float32)]]])
def test_reshape(target, shape, new, dtype):
    m, n = shape
    p, q = new
    x = np.random.default_rng(m + n).integers(-9, 9, shape).astype(dtype)
    out = np.zeros(3 * m * n + p, dtype)
    reshape_kernel[(1,)](x, out, M=m, N=n, P=p, Q=q, target=target)
    np.testing.assert_array_equal(out[:m * n], x.ravel())
    np.testing.assert_array_equal(out[m * n:2 * m * n], (x.reshape(p, q) * 3).ravel())
    np.testing.assert_array_equal(out[2 * m * n:3 * m * n], (2 * x).ravel())
    np.testing.assert_array_equal(out[3 * m * n:], x.reshape(p, q).sum(axis=1))


@rocktile.jit
def bad_shape(x_ptr, CASE: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, 64))
    if CASE == 0:
        tl.reshape(x, 8, 4)
    elif CASE == 1:
        tl.reshape(x, (3, 16))
    elif CASE == 2:
        tl.trans(x)
    elif CASE == 3:
        tl.permute(tl.reshape(x, 8, 8), 0, 0)
    else:
        tl.trans(tl.reshape(x, 8, 8), 1, 0, 2)


@pytest.mark.parametrize("case,message", [
    (0, "cannot reshape a tensor of shape \\[64\\]"), (1, "powers of two"), (2, "swaps the last two"),
    (3, "not a permutation"), (4, "not a permutation"),
])
def test_shape_errors(case, message):
    with pytest.raises(rocktile.CompilationError, match=message):
        rocktile.compile(bad_shape, {"x_ptr": "*fp32"}, {"CASE": case})


RESHAPE_ROUND_TRIPS = textwrap.dedent("""
    import rocktile, rocktile.language as tl

    @rocktile.jit
    def k(x_ptr, out_ptr):
        r = tl.arange(0, 16)
        c = tl.arange(0, 32)
        x = tl.load(x_ptr + r[:, None] * 32 + c[None, :])
        flat = tl.reshape(x, 512)
        tl.store(out_ptr + tl.arange(0, 512), flat)
        y = tl.reshape(flat, (64, 8))
        tl.store(out_ptr + 512 + tl.arange(0, 64)[:, None] * 8 + tl.arange(0, 8)[None, :], y * 3)
        tl.store(out_ptr + 1024 + r[:, None] * 32 + c[None, :], tl.reshape(y, (16, 32)) + x)

    rocktile.compile(k, {"x_ptr": "*fp32:16", "out_ptr": "*fp32:16"}, target="gfx1250")
""")


def test_reshape_round_trips_compile_for_gfx1250():
    """This kernel used to hang LLVM 22's instruction selection (see
    emitCode); a subprocess keeps a regression from hanging the suite."""
    try:
        proc = subprocess.run([sys.executable, "-c", RESHAPE_ROUND_TRIPS], timeout=60, capture_output=True,
                              text=True)
    except subprocess.TimeoutExpired:
        pytest.fail("compiling the reshape kernel for gfx1250 hangs again:\n" + RESHAPE_ROUND_TRIPS)
    assert proc.returncode == 0, proc.stderr


@rocktile.jit
def trans_in_branch(x_ptr, out_ptr, n):
    rows = tl.arange(0, 16)
    cols = tl.arange(0, 16)
    x = tl.load(x_ptr + rows[:, None] * 16 + cols[None, :])
    v = x.T
    if n > 0:
        v = v + cols
    tl.store(out_ptr + rows[:, None] * 16 + cols[None, :], v)


@pytest.mark.parametrize("target", TARGETS)
def test_trans_in_a_runtime_branch(target):
    x = np.arange(256, dtype=np.float32).reshape(16, 16)
    out = np.zeros_like(x)
    trans_in_branch[(1,)](x, out, 1, target=target)
    np.testing.assert_array_equal(out, x.T + np.arange(16, dtype=np.float32))


# atomic_store and atomic_load (an exchange whose old values are dropped, an
# add of zero), with masks, on ints and floats; -0.0 and NaN read back as they are.
@rocktile.jit
def load_store_atomics(f_ptr, i_ptr, out_f, out_i, N: tl.constexpr):
    offs = tl.arange(0, N)
    keep = offs % 4 != 0
    tl.atomic_store(f_ptr + offs, tl.load(f_ptr + offs) * 2, mask=keep)
    (i_ptr + offs).atomic_store(offs * 3, sem="relaxed")
    tl.debug_barrier()
    tl.store(out_f + offs, tl.atomic_load(f_ptr + offs, sem="acquire"))
    tl.store(out_i + offs, (i_ptr + offs).atomic_load(mask=keep), mask=keep)


@pytest.mark.parametrize("target", TARGETS)
def test_atomic_load_and_store(target):
    n = 64
    f = np.linspace(-3, 3, n).astype(np.float32)
    f[1], f[2] = -0.0, np.nan
    before = f.copy()
    i = np.zeros(n, np.int32)
    out_f, out_i = np.zeros(n, np.float32), np.full(n, -1, np.int32)
    load_store_atomics[(1,)](f, i, out_f, out_i, N=n, target=target)
    want = np.where(np.arange(n) % 4 != 0, before * 2, before)
    np.testing.assert_array_equal(f, want)
    np.testing.assert_array_equal(out_f, want)
    assert np.signbit(out_f[1]) and np.isnan(out_f[2])
    np.testing.assert_array_equal(i, np.arange(n) * 3)
    np.testing.assert_array_equal(out_i, np.where(np.arange(n) % 4 != 0, np.arange(n) * 3, -1))


@rocktile.jit
def chained_sums(x_ptr, out_ptr, flag_ptr, BLOCK: tl.constexpr):
    """Each program adds its block's sum to the running total of the
    programs before it, waiting for the previous one's flag (a decoupled
    look-back of one step, as a cross-program scan does)."""
    pid = tl.program_id(0)
    total = tl.sum(tl.load(x_ptr + pid * BLOCK + tl.arange(0, BLOCK)))
    if pid > 0:
        tl.atomic_poll(flag_ptr + pid - 1, 1)
        total += tl.load(out_ptr + pid - 1)
    tl.store(out_ptr + pid, total)
    tl.atomic_xchg(flag_ptr + pid, 1, sem="release")


@rocktile.jit
def poll_tile(flag_ptr, ok_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    ok = tl.atomic_poll(flag_ptr + offs, offs * 3, sem="relaxed")
    tl.store(ok_ptr + offs, ok.to(tl.int32))


@pytest.mark.parametrize("target", ["gfx950", "gfx1250"])
def test_atomic_poll(target):
    """Programs wait for the ones before them (dispatched earlier, as on a
    GPU); a tile of flags already holding their values returns all true."""
    x = np.arange(8 * 64, dtype=np.int32)
    out, flags = np.zeros(8, np.int32), np.zeros(8, np.int32)
    chained_sums[(8,)](x, out, flags, BLOCK=64, target=target)
    np.testing.assert_array_equal(out, np.cumsum(x.reshape(8, 64).sum(axis=1)))
    np.testing.assert_array_equal(flags, 1)
    flags = (np.arange(128) * 3).astype(np.int64)
    ok = np.zeros(128, np.int32)
    poll_tile[(1,)](flags, ok, N=128, target=target)
    np.testing.assert_array_equal(ok, 1)


@rocktile.jit
def poll_with_timeout(flag_ptr, ok_ptr, timeout, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(ok_ptr + offs, tl.atomic_poll(flag_ptr + offs, 7, timeout_ns=timeout).to(tl.int32))
    tl.store(ok_ptr + N, tl.atomic_poll(flag_ptr, 7, timeout_ns=0).to(tl.int32))


@pytest.mark.parametrize("target", ["gfx950", "gfx1250"])
def test_atomic_poll_times_out(target):
    """Flags that never get their value: false after the timeout (the
    program agrees on one clock); those that hold it: true, even with a
    timeout of 0 (every element is loaded once)."""
    flags = np.where(np.arange(64) % 3 == 0, 7, 0).astype(np.int32)
    ok = np.full(65, -1, np.int32)
    poll_with_timeout[(1,)](flags, ok, 20_000, N=64, target=target)
    np.testing.assert_array_equal(ok[:64], np.arange(64) % 3 == 0)
    assert ok[64] == 1
    asm = rocktile.compile(poll_with_timeout, {"flag_ptr": "*i32", "ok_ptr": "*i32", "timeout": "i64"}, {"N": 64},
                           target=target).asm["amdgcn"]
    clock = {"gfx950": r"s_memrealtime", "gfx1250": r"s_sendmsg_rtn_b64 .*MSG_RTN_GET_REALTIME"}[target]
    assert re.search(clock, asm), asm


@rocktile.jit
def bad_poll(flag_ptr, f_ptr, MODE: tl.constexpr):
    if MODE == 0:
        tl.atomic_poll(flag_ptr, 1, timeout_ns=-5)
    elif MODE == 1:
        tl.atomic_poll(f_ptr, 1.0)
    else:
        tl.atomic_poll(flag_ptr, 1, sem="release")


@pytest.mark.parametrize("mode,message", [
    (0, r"timeout_ns must be a non-negative integer scalar, got -5"),
    (1, r"needs 32- or 64-bit integer elements, got a pointer to fp32"),
    (2, r"sem must be 'acquire' or 'relaxed', got 'release'"),
])
def test_atomic_poll_misuse(mode, message):
    with pytest.raises(rocktile.CompilationError, match=r"test_atomics\.py:\d+:.*" + message):
        rocktile.compile(bad_poll, {"flag_ptr": "*i32", "f_ptr": "*fp32"}, {"MODE": mode}, target="gfx950")


@rocktile.jit
def old_values_everywhere(p_ptr, N: tl.constexpr):
    """A tile smaller than the program: most lanes and warps hold copies of
    its elements. Every copy of the old values must be the owner's (the
    assertion runs in every thread)."""
    offs = tl.arange(0, N)
    old = tl.atomic_add(p_ptr + offs, 1)
    tl.device_assert(old == offs * 2, "a thread holding a copy got a wrong old value")


@pytest.mark.parametrize("target", ["gfx950", "gfx1250"])
def test_copies_of_an_atomic_get_the_old_values(target):
    p = (np.arange(16) * 2).astype(np.int32)
    old_values_everywhere[(1,)](p, N=16, target=target, num_warps=4)
    np.testing.assert_array_equal(p, np.arange(16) * 2 + 1)  # each element updated once


@rocktile.jit
def add_halves(out, old, N: tl.constexpr):
    offs = tl.arange(0, N)
    prev = tl.atomic_add(out + offs % 4, tl.full([N], 0.5, out.dtype.element_ty))
    tl.store(old + tl.program_id(0) * N + offs, prev)


@pytest.mark.parametrize("target", ["gfx950", "gfx1250"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_atomic_add_of_fp16_and_bf16(target, dtype):
    """tl.atomic_add on fp16 and bf16 elements (Triton has them; rocktile
    refused them): 3 programs x 64 lanes add 0.5 to 4 addresses, 48 times
    each; every old value is a distinct multiple of 0.5 below the total."""
    import ml_dtypes
    np_type = ml_dtypes.bfloat16 if dtype == "bfloat16" else np.float16
    out, old = np.zeros(4, np_type), np.full(3 * 64, -1, np_type)
    add_halves[(3,)](out, old, N=64, target=target)
    np.testing.assert_array_equal(out.astype(np.float32), 24.0)
    for address in range(4):
        seen = old.astype(np.float32).reshape(3, 64)[:, address::4].ravel()
        np.testing.assert_array_equal(np.sort(seen), np.arange(48) * 0.5)
