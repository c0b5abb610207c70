"""The language surface beyond elementwise basics, in the emulator on both
targets against numpy: math functions, argmax/argmin, every integer width
and signedness, float64, 3-D grids, autotune/heuristics/Config."""
import math
import re
import warnings

import numpy as np
import pytest

import rocktile
import rocktile.language as tl
from rocktile.compiler import trace_ir

TARGETS = ["gfx950", "gfx1250"]


@rocktile.jit
def unary(x_ptr, out_ptr, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, OP(tl.load(x_ptr + offs)))


MATH = {
    "sin": (tl.sin, np.sin),
    "cos": (tl.cos, np.cos),
    "exp2": (tl.exp2, np.exp2),
    "log2": (lambda v: tl.log2(tl.abs(v) + 1), lambda v: np.log2(np.abs(v) + 1)),
    "sigmoid": (tl.sigmoid, lambda v: 1 / (1 + np.exp(-v))),
    "floor": (tl.floor, np.floor),
    "ceil": (tl.ceil, np.ceil),
    "fma": (lambda v: tl.fma(v, v, 1.0), lambda v: v * v + 1),
    "math.rsqrt": (lambda v: tl.math.rsqrt(tl.abs(v) + 1), lambda v: 1 / np.sqrt(np.abs(v) + 1)),
    "method": (lambda v: v.sigmoid() + v.sin(), lambda v: 1 / (1 + np.exp(-v)) + np.sin(v)),
}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", list(MATH))
@pytest.mark.parametrize("dtype", [np.float32, pytest.param(np.float16, id="float16")])
def test_math(target, name, dtype):
    op, ref = MATH[name]
    x = np.linspace(-4, 4, 256).astype(dtype)
    out = np.zeros_like(x)
    unary[(1,)](x, out, OP=op, BLOCK=256, target=target)
    tol = 2e-6 if dtype == np.float32 else 2e-3
    np.testing.assert_allclose(out, ref(x.astype(np.float64)).astype(dtype), rtol=tol, atol=tol * 4)


def test_sigmoid_and_fma_ops():
    ir = trace_ir(unary, {"x_ptr": "*fp16", "out_ptr": "*fp16"}, {"OP": tl.sigmoid, "BLOCK": 16})
    assert "math.exp" in ir and "arith.extf" in ir  # half types are computed in fp32
    assert "math.fma" in trace_ir(unary, {"x_ptr": "*fp32", "out_ptr": "*fp32"},
                                  {"OP": MATH["fma"][0], "BLOCK": 16})


@pytest.mark.parametrize("target", TARGETS)
def test_erf(target):
    # erf is expanded into a polynomial at the SIMT level (no device library)

    x = np.linspace(-3, 3, 64).astype(np.float32)
    out = np.zeros_like(x)
    unary[(1,)](x, out, OP=tl.erf, BLOCK=64, target=target)
    np.testing.assert_allclose(out, [math.erf(v) for v in x], rtol=1e-6, atol=1e-7)


def test_erf_emits_math_erf():
    assert "math.erf" in trace_ir(unary, {"x_ptr": "*fp32", "out_ptr": "*fp32"}, {"OP": tl.erf, "BLOCK": 16})


# --------------------------------------------------------------------------
# argmax / argmin

@rocktile.jit
def arg_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    r = tl.arange(0, M)
    c = tl.arange(0, N)
    x = tl.load(x_ptr + r[:, None] * N + c[None, :])
    tl.store(out_ptr + r, tl.argmax(x, axis=1))
    tl.store(out_ptr + M + c, tl.argmin(x, axis=0))
    value, index = tl.max(tl.load(x_ptr + c), axis=0, return_indices=True)
    tl.store(out_ptr + M + N, index)
    tl.store(out_ptr + M + N + 1, value.to(tl.int32))
    tl.store(out_ptr + M + N + 2, tl.load(x_ptr + c).argmin(0))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("num_warps", [1, 4])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint8])
def test_argmax_argmin_ties_go_to_the_smallest_index(target, num_warps, dtype):
    x = np.random.default_rng(7).integers(0, 4, (16, 64)).astype(dtype)  # many ties
    out = np.zeros(16 + 64 + 3, np.int32)
    arg_kernel[(1,)](x, out, M=16, N=64, target=target, num_warps=num_warps)
    np.testing.assert_array_equal(out[:16], x.argmax(axis=1))
    np.testing.assert_array_equal(out[16:80], x.argmin(axis=0))
    assert out[80:].tolist() == [x[0].argmax(), x[0].max(), x[0].argmin()]


# --------------------------------------------------------------------------
# Integer widths, signedness, float64: C semantics (division truncates).

@rocktile.jit
def int_ops(a_ptr, b_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    results = (a + b, a - b, a * b, a // b, a % b, a & b, a | b, a ^ b, tl.maximum(a, b), tl.minimum(a, b),
               (a < b).to(a.dtype), a >> 1, (a > 3).to(a.dtype) * 7, a + 1)
    for i in tl.static_range(len(results)):
        tl.store(out_ptr + i * BLOCK + offs, results[i])


def c_reference(a, b, dtype):
    """The 14 results of int_ops computed on Python ints, wrapped to `dtype`."""
    bits = np.iinfo(dtype).bits
    pa, pb = [int(v) for v in a], [int(v) for v in b]
    trunc_div = [(abs(x) // abs(y)) * (1 if (x < 0) == (y < 0) else -1) for x, y in zip(pa, pb)]
    cols = [[x + y for x, y in zip(pa, pb)], [x - y for x, y in zip(pa, pb)], [x * y for x, y in zip(pa, pb)],
            trunc_div, [x - q * y for x, y, q in zip(pa, pb, trunc_div)],
            [x & y for x, y in zip(pa, pb)], [x | y for x, y in zip(pa, pb)], [x ^ y for x, y in zip(pa, pb)],
            [max(x, y) for x, y in zip(pa, pb)], [min(x, y) for x, y in zip(pa, pb)],
            [int(x < y) for x, y in zip(pa, pb)], [x >> 1 for x in pa], [7 * (x > 3) for x in pa],
            [x + 1 for x in pa]]
    mask = (1 << bits) - 1
    return np.array([[v & mask for v in col] for col in cols], dtype=object).astype(np.uint64).astype(dtype)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                                   np.uint64])
def test_integer_types(target, dtype):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(info.bits)
    low, high = max(info.min, -1000), min(info.max, 1000)
    a = rng.integers(low, high, 64, endpoint=True).astype(dtype)
    b = rng.integers(1, min(high, 50), 64, endpoint=True).astype(dtype)
    b[::3] = np.where(info.min < 0, -b[::3], b[::3]).astype(dtype)  # negative divisors where signed
    a[:4] = [info.max, info.min, info.max - 1, 0]  # wrap-around at the extremes
    out = np.zeros(14 * 64, dtype)
    int_ops[(1,)](a, b, out, BLOCK=64, target=target)
    np.testing.assert_array_equal(out.reshape(14, 64), c_reference(a, b, dtype))


@rocktile.jit
def f64_kernel(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(out_ptr + offs, x * y + x / y - tl.sqrt(tl.abs(x)))
    tl.store(out_ptr + BLOCK + offs, (x.to(tl.float32) + 1.5).to(tl.float64))


@pytest.mark.parametrize("target", TARGETS)
def test_float64(target):
    rng = np.random.default_rng(9)
    x, y = rng.standard_normal(64), rng.standard_normal(64) + 3
    out = np.zeros(2 * 64)
    f64_kernel[(1,)](x, y, out, BLOCK=64, target=target)
    np.testing.assert_allclose(out[:64], x * y + x / y - np.sqrt(np.abs(x)), rtol=1e-14)
    np.testing.assert_array_equal(out[64:], (x.astype(np.float32) + np.float32(1.5)).astype(np.float64))


def test_python_and_numpy_float64_scalars_are_fp32():
    """As in Triton, every Python float argument is fp32, numpy.float64 (a
    float subclass) too; other numpy float scalars keep their type."""
    from rocktile.compiler import signature_of_value
    assert signature_of_value(0.1, "x") == signature_of_value(np.float64(0.1), "x") == "fp32"
    assert signature_of_value(np.float16(1), "x") == "fp16"


@rocktile.jit
def sum64(x_ptr, out_ptr, BLOCK: tl.constexpr):
    tl.store(out_ptr, tl.sum(tl.load(x_ptr + tl.arange(0, BLOCK)), axis=0))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_64_bit_reductions(target, dtype):
    x = (np.arange(256) * 3 - 100).astype(dtype)
    out = np.zeros(1, dtype)
    sum64[(1,)](x, out, BLOCK=256, target=target)
    assert out[0] == x.sum()


# --------------------------------------------------------------------------
# 3-D grids

@rocktile.jit
def grid3(out_ptr):
    x, y, z = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    nx, ny, nz = tl.num_programs(0), tl.num_programs(1), tl.num_programs(2)
    flat = (z * ny + y) * nx + x
    tl.store(out_ptr + flat * 4 + tl.arange(0, 4), tl.where(tl.arange(0, 4) == 0, flat, nx * 100 + ny * 10 + nz))


@pytest.mark.parametrize("target", TARGETS)
def test_three_dimensional_grid(target):
    out = np.zeros((4, 3, 5, 4), np.int32)
    grid3[(5, 3, 4)](out, target=target)
    assert out[..., 0].ravel().tolist() == list(range(60))
    assert (out[..., 1:] == 534).all()


# --------------------------------------------------------------------------
# autotune, Config, heuristics

@rocktile.autotune(configs=[rocktile.Config({"BLOCK": 128}, num_warps=2),
                            rocktile.Config({"BLOCK": 64}, num_warps=4, num_stages=2)], key=["n"])
@rocktile.jit
def tuned_add(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1, mask=offs < n)


@pytest.mark.parametrize("target", TARGETS)
def test_autotune_runs_the_first_config_and_warns_once(target):
    x = np.arange(1000, dtype=np.float32)
    out = np.zeros_like(x)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tuned_add._warned = False
        tuned_add.cache.clear()  # the choice is kept per tuning key, as Triton keeps its timed one
        for _ in range(2):
            tuned_add[lambda meta: (rocktile.cdiv(meta["n"], meta["BLOCK"]),)](x, out, x.size, target=target)
    assert sum("needs a GPU" in str(w.message) for w in caught) == 1
    np.testing.assert_array_equal(out, x + 1)
    assert tuned_add.best_config.kwargs == {"BLOCK": 128}
    assert tuned_add.best_config.num_warps == 2


def test_autotune_rejects_passing_a_tuned_parameter():
    x = np.zeros(4, np.float32)
    with pytest.raises(ValueError, match="BLOCK"):
        tuned_add[(1,)](x, x, 4, BLOCK=64)


@rocktile.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@rocktile.jit
def heuristic_kernel(out_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    if EVEN:
        tl.store(out_ptr + offs, 1)
    else:
        tl.store(out_ptr + offs, 2, mask=offs < n)


@pytest.mark.parametrize("target", TARGETS)
def test_heuristics(target):
    out = np.zeros(32, np.int32)
    heuristic_kernel[(1,)](out, 32, BLOCK=32, target=target)
    assert (out == 1).all()
    out = np.zeros(32, np.int32)
    heuristic_kernel[(1,)](out, 20, BLOCK=32, target=target)
    assert (out[:20] == 2).all() and (out[20:] == 0).all()


# --------------------------------------------------------------------------
# Compile-time helpers.

@rocktile.jit
def static_checks(x_ptr, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK % 16 == 0, "BLOCK must be a multiple of 16")
    tl.static_print("BLOCK is", BLOCK)
    offs = tl.arange(0, BLOCK)
    x = tl.broadcast_to(tl.expand_dims(tl.load(x_ptr + offs), 0), (2, BLOCK))
    tl.store(x_ptr + offs, tl.sum(x, axis=0))


def test_static_assert_and_static_print(capsys):
    trace_ir(static_checks, {"x_ptr": "*fp32"}, {"BLOCK": 32})
    assert capsys.readouterr().out == "BLOCK is 32\n"
    with pytest.raises(rocktile.CompilationError, match="BLOCK must be a multiple of 16"):
        rocktile.compile(static_checks, {"x_ptr": "*fp32"}, {"BLOCK": 8})


@rocktile.jit
def print_in_branch(x_ptr, n):
    if n > 0:
        tl.static_print("traced")
        y = 1.0
    else:
        y = 2.0
    tl.store(x_ptr, y)


def test_static_print_in_a_runtime_branch_prints_once(capsys):
    trace_ir(print_in_branch, {"x_ptr": "*fp32", "n": "i32"})
    assert capsys.readouterr().out == "traced\n"


# --------------------------------------------------------------------------
# @jit helpers with their own constexprs

@rocktile.jit
def scaled(x, FACTOR: tl.constexpr, SHIFT: tl.constexpr = 0):
    if FACTOR > 2:  # decided while tracing, per call
        return x * FACTOR + SHIFT
    return x - FACTOR


@rocktile.jit
def helper_constexprs(x_ptr, y_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    tl.store(y_ptr + i, scaled(x, 3) + scaled(x, 2) + scaled(x, FACTOR=4, SHIFT=1))


@pytest.mark.parametrize("target", ["gfx950", "gfx1250"])
def test_jit_helpers_are_specialized_by_their_own_constexprs(target):
    x = np.arange(16, dtype=np.float32)
    y = np.zeros_like(x)
    helper_constexprs[(1,)](x, y, N=16, target=target)
    np.testing.assert_array_equal(y, x * 3 + (x - 2) + (x * 4 + 1))
    ir = trace_ir(helper_constexprs, {"x_ptr": "*fp32", "y_ptr": "*fp32"}, {"N": 16})
    assert ir.count("func.func") == 1 and ir.count("arith.subf") == 1  # inlined, one branch each


# --------------------------------------------------------------------------
# tl.reduce with combine functions, xor_sum, and the small helpers

@rocktile.jit
def max_abs(a, b):
    return tl.maximum(tl.abs(a), tl.abs(b))


@rocktile.jit
def first_max(v1, i1, v2, i2):
    take_left = (v1 > v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(take_left, v1, v2), tl.where(take_left, i1, i2)


@rocktile.jit
def product(a, b):
    return a * b


@rocktile.jit
def larger(a, b):  # runtime control flow in a combine function
    if a > b:
        return a
    return b


@rocktile.jit
def user_reductions(x_ptr, n_ptr, out_ptr, idx_ptr, ints_ptr, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :])
    n = tl.load(n_ptr + rows[:, None] * N + cols[None, :])
    tl.store(out_ptr + rows, tl.reduce(x, 1, max_abs))
    value, index = tl.reduce((x, tl.broadcast_to(cols[None, :], (M, N))), 1, first_max)
    tl.store(out_ptr + M + rows, value)
    tl.store(idx_ptr + rows, index)
    tl.store(ints_ptr + cols, tl.reduce(n, 0, product))
    tl.store(ints_ptr + N + rows, tl.xor_sum(n, axis=1))
    tl.store(ints_ptr + N + M + cols[None, :], n.xor_sum(0, keep_dims=True))
    tl.store(out_ptr + 2 * M + cols[None, :], x.reduce(0, max_abs, keep_dims=True))
    tl.store(out_ptr + 2 * M + N + rows, tl.reduce(x, 1, larger))


@pytest.mark.parametrize("target", TARGETS)
def test_reduce_with_combine_functions(target):
    m, n = 8, 32
    rng = np.random.default_rng(6)
    x = rng.standard_normal((m, n)).astype(np.float32)
    x[3, 5] = x[3, 20] = 9.0  # a tie: the first index wins
    ints = rng.integers(-9, 9, (m, n)).astype(np.int32)
    out, idx = np.zeros(3 * m + n, np.float32), np.zeros(m, np.int32)
    red = np.zeros(2 * n + m, np.int32)
    user_reductions[(1,)](x, ints, out, idx, red, M=m, N=n, target=target)
    np.testing.assert_array_equal(out[:m], np.abs(x).max(axis=1))
    np.testing.assert_array_equal(out[m:2 * m], x.max(axis=1))
    np.testing.assert_array_equal(idx, x.argmax(axis=1))
    assert idx[3] == 5
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(red[:n], np.prod(ints, axis=0, dtype=np.int32))
    np.testing.assert_array_equal(red[n:n + m], np.bitwise_xor.reduce(ints, axis=1))
    np.testing.assert_array_equal(red[n + m:], np.bitwise_xor.reduce(ints, axis=0))
    np.testing.assert_array_equal(out[2 * m:2 * m + n], np.abs(x).max(axis=0))
    np.testing.assert_array_equal(out[2 * m + n:], x.max(axis=1))


@rocktile.jit
def not_jit_combine(x_ptr, CASE: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    if CASE == 0:
        tl.reduce(x, 0, lambda a, b: a + b)
    elif CASE == 1:
        tl.reduce(x, 0, first_max)
    elif CASE == 2:
        tl.reduce((x, x), 0, max_abs)
    elif CASE == 3:
        tl.reduce((x, x), 0, one_of_two)
    elif CASE == 4:
        tl.reduce(x, 0, to_int)
    elif CASE == 5:
        tl.umulhi(x.to(tl.int16), x.to(tl.int16))
    else:
        tl.umulhi(x, x)


@rocktile.jit
def one_of_two(a, i, b, j):
    return a + b


@rocktile.jit
def to_int(a, b):
    return (a + b).to(tl.int32)


@pytest.mark.parametrize("case,message", [
    (0, "needs a @rocktile.jit combine function"),
    (1, "first_max\\(\\) missing 2 required positional arguments"),
    (2, "max_abs\\(\\) takes 2 positional arguments but 4 were given"),
    (3, "returned 1 value\\(s\\) for 2 input\\(s\\)"),
    (4, "must return fp32 scalars, one per input, got int32"),
    (5, "tl.umulhi takes 32- or 64-bit integers, got int16"),
    (6, "'tl.umulhi' needs integer or boolean operands, got fp32"),
])
def test_reduce_errors(case, message):
    with pytest.raises(rocktile.CompilationError, match=message):
        rocktile.compile(not_jit_combine, {"x_ptr": "*fp32"}, {"CASE": case})


@rocktile.jit
def small_helpers(x_ptr, a_ptr, b_ptr, f_ptr, i_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    tl.store(f_ptr + offs, tl.clamp(x, -0.5, 0.5))
    tl.store(f_ptr + N + offs, tl.fdiv(x, 3.0) + tl.zeros_like(x))
    tl.store(f_ptr + 2 * N + offs, tl.div_rn(x, x + 4.0) + tl.full_like(x, 2))
    tl.store(f_ptr + 3 * N + tl.arange(0, 2 * N), tl.interleave(x, -x))
    grid = tl.reshape(x, (2, N // 2))
    tl.store(f_ptr + 5 * N + offs, tl.ravel(grid * 2) + tl.full_like(a, 1, tl.float32))
    tl.store(i_ptr + offs, tl.umulhi(a, b))
    tl.store(i_ptr + N + offs, tl.math.umulhi(a.to(tl.uint32), b.to(tl.uint32)).to(tl.int32))


@pytest.mark.parametrize("target", TARGETS)
def test_small_helpers(target):
    n = 64
    rng = np.random.default_rng(7)
    x = rng.standard_normal(n).astype(np.float32)
    a = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    b = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    f, i = np.zeros(6 * n, np.float32), np.zeros(2 * n, np.int32)
    small_helpers[(1,)](x, a, b, f, i, N=n, target=target)
    np.testing.assert_array_equal(f[:n], np.clip(x, -0.5, 0.5))
    np.testing.assert_array_equal(f[n:2 * n], x / np.float32(3))
    np.testing.assert_array_equal(f[2 * n:3 * n], x / (x + np.float32(4)) + 2)
    np.testing.assert_array_equal(f[3 * n:5 * n], np.stack([x, -x], axis=1).ravel())
    np.testing.assert_array_equal(f[5 * n:], x * 2 + 1)
    # umulhi reads int32 operands as unsigned, as Triton's tt.mulhiui does
    # (its interpreter: umulhi(-1, -1) = -2, umulhi(-5, 3) = 2).
    unsigned = (a.view(np.uint32).astype(np.uint64) * b.view(np.uint32)) >> 32
    np.testing.assert_array_equal(i[:n], unsigned.astype(np.uint32).view(np.int32))
    np.testing.assert_array_equal(i[n:], unsigned.astype(np.uint32).view(np.int32))


@rocktile.jit
def wide_umulhi(x_ptr, y_ptr, out_ptr):
    offs = tl.arange(0, 16)
    tl.store(out_ptr + offs, tl.umulhi(tl.load(x_ptr + offs), tl.load(y_ptr + offs)))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint64])
def test_umulhi_is_the_unsigned_high_half(target, dtype):
    bits = np.dtype(dtype).itemsize * 8
    rng = np.random.default_rng(bits)
    x, y = (rng.integers(0, 2**bits, 16, dtype=np.uint64 if bits == 64 else np.int64).astype(np.uint64)
            for _ in range(2))
    x[:3], y[:3] = [2**bits - 1, 2**bits - 5, 7], [2**bits - 1, 3, 2**bits - 9]  # -1*-1, -5*3, 7*-9 when signed
    want = np.array([(int(a) * int(b)) >> bits for a, b in zip(x, y)], dtype=np.uint64)
    unsigned = np.uint32 if bits == 32 else np.uint64
    cast = lambda v: v.astype(unsigned).view(dtype)  # noqa: E731
    out = np.zeros(16, dtype)
    wide_umulhi[(1,)](cast(x), cast(y), out, target=target)
    np.testing.assert_array_equal(out, cast(want))
    if dtype == np.int32:
        assert out[:3].tolist() == [-2, 2, 6]  # Triton 3.9's interpreter gives these


@rocktile.jit
def all_axes(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :])
    tl.store(out_ptr, tl.sum(x))
    tl.store(out_ptr + 1, tl.max(x, axis=None))
    tl.store(out_ptr + 2, tl.argmax(x, None).to(tl.float32))


@pytest.mark.parametrize("target", TARGETS)
def test_reductions_over_every_axis_of_a_2d_tile(target):
    x = np.random.default_rng(8).standard_normal((16, 32)).astype(np.float32)
    out = np.zeros(3, np.float32)
    all_axes[(1,)](x, out, M=16, N=32, target=target)
    np.testing.assert_allclose(out[0], x.sum(), rtol=1e-5)
    assert out[1] == x.max() and out[2] == x.argmax()


@rocktile.jit
def flips(x_ptr, y_ptr, i_ptr, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :])
    tl.store(y_ptr + rows[:, None] * N + cols[None, :], tl.flip(x))
    tl.store(y_ptr + M * N + rows[:, None] * N + cols[None, :], tl.flip(x, 0))
    tl.store(i_ptr + tl.arange(0, M * N), tl.flip(tl.arange(0, M * N)))
    tl.store(i_ptr + M * N + cols, tl.flip(cols < 3).to(tl.int32))


@pytest.mark.parametrize("target", TARGETS)
def test_flip(target):
    m, n = 8, 32
    x = np.random.default_rng(9).standard_normal((m, n)).astype(np.float32)
    y, i = np.zeros(2 * m * n, np.float32), np.zeros(m * n + n, np.int32)
    flips[(1,)](x, y, i, M=m, N=n, target=target)
    np.testing.assert_array_equal(y[:m * n].reshape(m, n), x[:, ::-1])
    np.testing.assert_array_equal(y[m * n:].reshape(m, n), x[::-1])
    np.testing.assert_array_equal(i[:m * n], np.arange(m * n)[::-1])
    np.testing.assert_array_equal(i[m * n:], (np.arange(n) < 3)[::-1])


@rocktile.jit
def sorts(x_ptr, y_ptr, i_ptr, j_ptr, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :])
    tl.store(y_ptr + rows[:, None] * N + cols[None, :], tl.sort(x))
    tl.store(y_ptr + M * N + rows[:, None] * N + cols[None, :], tl.sort(x, dim=1, descending=True))
    v = tl.load(i_ptr + tl.arange(0, 2 * N))
    tl.store(j_ptr + tl.arange(0, 2 * N), tl.sort(v))


@pytest.mark.parametrize("target", TARGETS)
def test_sort(target):
    m, n = 4, 32
    rng = np.random.default_rng(10)
    x = rng.standard_normal((m, n)).astype(np.float32)
    x[1, 3] = x[1, 7] = x[1, 9]  # ties
    i = rng.integers(-20, 20, 2 * n).astype(np.int32)
    y, j = np.zeros(2 * m * n, np.float32), np.zeros(2 * n, np.int32)
    sorts[(1,)](x, y, i, j, M=m, N=n, target=target)
    np.testing.assert_array_equal(y[:m * n].reshape(m, n), np.sort(x, axis=1))
    np.testing.assert_array_equal(y[m * n:].reshape(m, n), np.sort(x, axis=1)[:, ::-1])
    np.testing.assert_array_equal(j, np.sort(i))


@rocktile.jit
def long_sort(x_ptr, y_ptr, i_ptr, j_ptr, N: tl.constexpr, K: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(y_ptr + offs, tl.sort(tl.load(x_ptr + offs), descending=True))
    tl.store(j_ptr + tl.arange(0, K), tl.topk(tl.load(i_ptr + offs), K))


@pytest.mark.parametrize("target", TARGETS)
def test_sort_of_thousands(target):
    """1024 elements over every lane and warp: the network's partners are
    in other registers, lanes and warps."""
    rng = np.random.default_rng(11)
    x = rng.standard_normal(1024).astype(np.float32)
    i = rng.permutation(1024).astype(np.int32)
    y, j = np.zeros_like(x), np.zeros(16, np.int32)
    long_sort[(1,)](x, y, i, j, N=1024, K=16, target=target)
    np.testing.assert_array_equal(y, np.sort(x)[::-1])
    np.testing.assert_array_equal(j, np.arange(1023, 1007, -1))


@rocktile.jit
def bad_sort(x_ptr, N: tl.constexpr, DIM: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, 2)[:, None] * N + tl.arange(0, N)[None, :])
    tl.sort(x, dim=DIM)


@pytest.mark.parametrize("n,dim,message", [
    (4, 0, "works along the last dimension only \\(1\\), got dim=0"),
])
def test_sort_errors(n, dim, message):
    with pytest.raises(rocktile.CompilationError, match=message):
        rocktile.compile(bad_sort, {"x_ptr": "*fp32"}, {"N": n, "DIM": dim})


@rocktile.jit
def top_k(x_ptr, y_ptr, i_ptr, j_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    """The style of a sampling kernel's top-k over logits, and of a MoE
    router's over expert scores (integers)."""
    rows = tl.arange(0, M)
    x = tl.load(x_ptr + rows[:, None] * N + tl.arange(0, N)[None, :])
    out = rows[:, None] * K + tl.arange(0, K)[None, :]
    tl.store(y_ptr + out, tl.topk(x, K))
    tl.store(y_ptr + M * K + out, x.topk(K, descending=False))
    v = tl.load(i_ptr + tl.arange(0, N))
    tl.store(j_ptr + tl.arange(0, K), tl.topk(v, K, dim=0))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("n,k", [(32, 4), (32, 32), (16, 1), (64, 8)])
def test_topk(target, n, k):
    m = 4
    rng = np.random.default_rng(n + k)
    x = rng.standard_normal((m, n)).astype(np.float32)
    x[1, 3] = x[1, 5]  # a tie
    i = rng.integers(-50, 50, n).astype(np.int32)
    y, j = np.zeros(2 * m * k, np.float32), np.zeros(k, np.int32)
    top_k[(1,)](x, y, i, j, M=m, N=n, K=k, target=target)
    np.testing.assert_array_equal(y[:m * k].reshape(m, k), np.sort(x, axis=1)[:, ::-1][:, :k])
    np.testing.assert_array_equal(y[m * k:].reshape(m, k), np.sort(x, axis=1)[:, :k])
    np.testing.assert_array_equal(j, np.sort(i)[::-1][:k])


@rocktile.jit
def bitonic_merges(x_ptr, y_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(y_ptr + tl.arange(0, N), tl.bitonic_merge(x))
    tl.store(y_ptr + N + tl.arange(0, N), tl.bitonic_merge(x, descending=True))


@pytest.mark.parametrize("target", TARGETS)
def test_bitonic_merge(target):
    n = 64
    rng = np.random.default_rng(3)
    rising, falling = np.sort(rng.standard_normal(40)), np.sort(rng.standard_normal(n - 40))[::-1]
    x = np.concatenate([rising, falling]).astype(np.float32)  # bitonic: rises, then falls
    y = np.zeros(2 * n, np.float32)
    bitonic_merges[(1,)](x, y, N=n, target=target)
    np.testing.assert_array_equal(y[:n], np.sort(x))
    np.testing.assert_array_equal(y[n:], np.sort(x)[::-1])


@rocktile.jit
def bad_topk(x_ptr, K: tl.constexpr):
    tl.topk(tl.load(x_ptr + tl.arange(0, 16)), K)


@pytest.mark.parametrize("k", [3, 32, 0])
def test_topk_errors(k):
    with pytest.raises(rocktile.CompilationError, match=f"k must be a power of two between 1 and the "
                                                        f"dimension's 16, got {k}"):
        rocktile.compile(bad_topk, {"x_ptr": "*fp32"}, {"K": k})


@rocktile.jit
def gathers(x_ptr, i_ptr, j_ptr, y_ptr, z_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    """Rows gathered by a per-row index (a MoE kernel's token order, a
    sampler's chosen ids) along axis 1, and columns along axis 0."""
    rows = tl.arange(0, M)
    x = tl.load(x_ptr + rows[:, None] * N + tl.arange(0, N)[None, :])
    i = tl.load(i_ptr + rows[:, None] * K + tl.arange(0, K)[None, :])
    tl.store(y_ptr + rows[:, None] * K + tl.arange(0, K)[None, :], tl.gather(x, i, 1))
    j = tl.load(j_ptr + tl.arange(0, K)[:, None] * N + tl.arange(0, N)[None, :])
    tl.store(z_ptr + tl.arange(0, K)[:, None] * N + tl.arange(0, N)[None, :], x.gather(j, axis=0))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8, np.bool_])
@pytest.mark.parametrize("m,n,k", [(16, 64, 32), (4, 8, 16)])
def test_gather(target, dtype, m, n, k):
    rng = np.random.default_rng(m + n + k)
    x = (rng.standard_normal((m, n)) * 50).astype(dtype)
    i = rng.integers(0, n, (m, k)).astype(np.int32)
    j = rng.integers(0, m, (k, n)).astype(np.int64)  # any integer type indexes
    y, z = np.zeros((m, k), dtype), np.zeros((k, n), dtype)
    gathers[(1,)](x, i, j, y, z, M=m, N=n, K=k, target=target)
    np.testing.assert_array_equal(y, np.take_along_axis(x, i, 1))
    np.testing.assert_array_equal(z, np.take_along_axis(x, j, 0))


@rocktile.jit
def gather_1d(x_ptr, i_ptr, y_ptr, N: tl.constexpr, K: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(y_ptr + tl.arange(0, K), tl.gather(x, tl.load(i_ptr + tl.arange(0, K)), 0))


@pytest.mark.parametrize("target", TARGETS)
def test_gather_1d_reverse_and_repeat(target):
    x = np.arange(256, dtype=np.float32) * 0.5
    i = np.concatenate([np.arange(256)[::-1], np.full(256, 7)]).astype(np.int32)
    y = np.zeros(512, np.float32)
    gather_1d[(1,)](x, i, y, N=256, K=512, target=target)
    np.testing.assert_array_equal(y, x[i])


@rocktile.jit
def bad_gather(x_ptr, CASE: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, 16)[:, None] * 8 + tl.arange(0, 8)[None, :])
    if CASE == 0:
        tl.gather(x, tl.arange(0, 8), 1)
    elif CASE == 1:
        tl.gather(x, tl.zeros((16, 4), tl.int32), 2)
    elif CASE == 2:
        tl.gather(x, tl.zeros((8, 4), tl.int32), 1)
    else:
        tl.gather(x, tl.zeros((16, 4), tl.float32), 1)


@pytest.mark.parametrize("case,message", [
    (0, "tl.gather needs a tile and an integer tile of its rank as the index"),
    (1, "tl.gather: axis 2 is out of range for a tile of rank 2"),
    (2, r"the index's shape \[8, 4\] must be the source's \[16, 8\] in every dimension but the axis \(1\)"),
    (3, "tl.gather needs a tile and an integer tile of its rank as the index"),
])
def test_gather_errors(case, message):
    with pytest.raises(rocktile.CompilationError, match=message) as e:
        rocktile.compile(bad_gather, {"x_ptr": "*fp32"}, {"CASE": case})
    assert "test_surface.py" in str(e.value)


# --------------------------------------------------------------------------
# Launch arguments and options as Triton kernels use them

@rocktile.jit
def optional_weight(x_ptr, w_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    if w_ptr is not None:
        x = x * tl.load(w_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, x, mask=offs < n)


@pytest.mark.parametrize("target", TARGETS)
def test_none_arguments_are_constexprs(target):
    x = np.arange(100, dtype=np.float32)
    w = np.full(100, 3, np.float32)
    for weight, want in ((None, x), (w, 3 * x)):
        y = np.zeros_like(x)
        kernel = optional_weight[(1,)](x, weight, y, 100, BLOCK=128, target=target)
        np.testing.assert_array_equal(y, want)
    assert kernel.constexprs != optional_weight[(1,)](x, None, y, 100, BLOCK=128, target=target).constexprs


@rocktile.jit
def launch_shape(out_ptr, num_warps: tl.constexpr, num_stages: tl.constexpr):
    tl.store(out_ptr, num_warps)
    tl.store(out_ptr + 1, num_stages)


@rocktile.autotune(configs=[rocktile.Config({"waves_per_eu": 2, "kpack": 2}, num_warps=8, num_stages=3)], key=[])
@rocktile.jit
def tuned_launch_shape(out_ptr, num_warps: tl.constexpr, num_stages: tl.constexpr):
    tl.store(out_ptr, num_warps)
    tl.store(out_ptr + 1, num_stages)


@pytest.mark.parametrize("target", TARGETS)
def test_num_warps_and_num_stages_parameters_get_the_launch_options(target):
    out = np.zeros(2, np.int32)
    kernel = launch_shape[(1,)](out, num_warps=2, target=target)
    assert list(out) == [2, 2] and kernel.num_warps == 2  # num_stages: Triton's AMD default, 2
    launch_shape[(1,)](out, num_stages=1, target=target)
    assert list(out) == [4, 1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # autotune without a GPU runs its first config
        kernel = tuned_launch_shape[(1,)](out, target=target)
    assert list(out) == [8, 3] and kernel.num_warps == 8


@rocktile.jit
def small_dot(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b))


@pytest.mark.parametrize("target", TARGETS)
def test_amd_launch_options(target):
    import ml_dtypes
    rng = np.random.default_rng(5)
    a = rng.standard_normal((64, 32)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((32, 64)).astype(ml_dtypes.bfloat16)
    c = np.zeros((64, 64), np.float32)
    want = a.astype(np.float32) @ b.astype(np.float32)
    # matrix_instr_nonkdim picks the 32x32 MFMA on gfx950; gfx1250's WMMA are all 16x16.
    for nonkdim, instr in ((16, "16x16x32"), (32, "32x32x16" if target == "gfx950" else "16x16x32")):
        kernel = small_dot[(1,)](a, b, c, M=64, N=64, K=32, matrix_instr_nonkdim=nonkdim, target=target)
        assert re.search(rf"v_(mfma|wmma)_f32_{instr}_bf16", kernel.asm["amdgcn"]), nonkdim
        np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-5)
    # waves_per_eu is LLVM's occupancy hint; the others Triton users pass are accepted.
    kernel = small_dot[(1,)](a, b, c, M=64, N=64, K=32, waves_per_eu=2, kpack=2, num_ctas=1, launch_pdl=False,
                             maxnreg=128, enable_fp_fusion=True, allow_flush_denorm=True, target=target)
    assert '"amdgpu-waves-per-eu"="2"' in kernel.asm["llir"]
    with pytest.raises(ValueError, match="num_ctas must be 1"):
        small_dot[(1,)](a, b, c, M=64, N=64, K=32, num_ctas=2, target=target)
    with pytest.raises(ValueError, match="enable_fp_fusion must be True or False"):
        small_dot[(1,)](a, b, c, M=64, N=64, K=32, enable_fp_fusion="yes", target=target)
    with pytest.raises(ValueError, match="matrix_instr_nonkdim must be 0, 16 or 32"):
        small_dot[(1,)](a, b, c, M=64, N=64, K=32, matrix_instr_nonkdim=64, target=target)
    with pytest.raises(TypeError, match="unknown option"):
        rocktile.compile(small_dot, {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*fp32"},
                         {"M": 64, "N": 64, "K": 32}, target=target, wave_per_eu=2)


# --------------------------------------------------------------------------
# Smaller Triton names: add/sub/mul, broadcast, to_tensor, sqrt_rn, squeeze,
# unsqueeze, reduce_or, softmax, cat, swizzle2d, PropagateNan

@rocktile.jit
def small_names(x_ptr, i_ptr, f_ptr, n_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    bits = tl.load(i_ptr + offs)
    tl.store(f_ptr + offs, tl.mul(tl.add(x, 1.0), tl.sub(x, tl.to_tensor(2.0))))
    col, row = tl.broadcast(x[:, None], x[None, :])
    tl.store(f_ptr + N + offs, tl.sum(col * row, axis=1))
    tl.store(f_ptr + 2 * N + offs, tl.sqrt_rn(tl.abs(x)) + x.abs().sqrt_rn())
    sq = tl.squeeze(tl.unsqueeze(x, 0), 0)
    tl.store(f_ptr + 3 * N + offs, tl.softmax(sq[None, :], dim=1).reshape(N))
    tl.store(f_ptr + 4 * N + offs, tl.softmax(tl.reshape(x, (N // 8, 8)), dim=0).reshape(N))
    tl.store(f_ptr + 5 * N + tl.arange(0, 2 * N), tl.cat(x, x * 10, can_reorder=True))
    tl.store(i_ptr + N, tl.reduce_or(bits, 0))
    tl.store(i_ptr + N + 1 + tl.arange(0, N // 8), bits.reshape(N // 8, 8).reduce_or(1))
    nan = tl.load(n_ptr + offs)
    tl.assume(N > 0)
    tl.assume(offs >= 0)
    tl.store(f_ptr + 7 * N + offs, tl.maximum(x, nan, propagate_nan=tl.PropagateNan.ALL))
    tl.store(f_ptr + 8 * N + offs, tl.maximum(x, nan))
    tl.store(f_ptr + 9 * N + offs, tl.clamp(nan, -1.0, 1.0, propagate_nan=tl.PropagateNan.ALL))


@pytest.mark.parametrize("target", TARGETS)
def test_small_triton_names(target):
    n = 64
    rng = np.random.default_rng(11)
    x = rng.standard_normal(n).astype(np.float32)
    bits = np.zeros(n + 1 + n // 8, np.int32)
    bits[:n] = np.int32(1) << rng.integers(0, 31, n).astype(np.int32)
    nan = np.where(np.arange(n) % 3 == 0, np.float32(np.nan), np.float32(5))
    f = np.zeros(10 * n, np.float32)
    small_names[(1,)](x, bits, f, nan, N=n, target=target)
    np.testing.assert_allclose(f[:n], (x + 1) * (x - 2), rtol=1e-6)
    np.testing.assert_allclose(f[n:2 * n], x * x.sum(), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(f[2 * n:3 * n], 2 * np.sqrt(np.abs(x)))
    e = np.exp(x - x.max())
    np.testing.assert_allclose(f[3 * n:4 * n], e / e.sum(), rtol=1e-5)
    cols = np.exp(x.reshape(8, 8) - x.reshape(8, 8).max(0))
    np.testing.assert_allclose(f[4 * n:5 * n], (cols / cols.sum(0)).ravel(), rtol=1e-5)
    np.testing.assert_array_equal(f[5 * n:7 * n], np.concatenate([x, x * 10]))
    assert bits[n] == np.bitwise_or.reduce(bits[:n])
    np.testing.assert_array_equal(bits[n + 1:], np.bitwise_or.reduce(bits[:n].reshape(8, 8), axis=1))
    np.testing.assert_array_equal(f[7 * n:8 * n], np.maximum(x, nan))  # numpy propagates NaN
    np.testing.assert_array_equal(f[8 * n:9 * n], np.fmax(x, nan))
    np.testing.assert_array_equal(f[9 * n:], np.clip(nan, -1, 1))


@rocktile.jit
def swizzled_ids(out_ptr, SIZE_I: tl.constexpr, SIZE_J: tl.constexpr, SIZE_G: tl.constexpr):
    i = tl.arange(0, SIZE_I)[:, None] + tl.zeros([SIZE_I, SIZE_J], tl.int32)
    j = tl.arange(0, SIZE_J)[None, :] + tl.zeros([SIZE_I, SIZE_J], tl.int32)
    new_i, new_j = tl.swizzle2d(i, j, SIZE_I, SIZE_J, SIZE_G)
    idx = tl.arange(0, SIZE_I)[:, None] * SIZE_J + tl.arange(0, SIZE_J)[None, :]
    tl.store(out_ptr + idx, new_i * SIZE_J + new_j)


def swizzle2d_reference(i, j, size_i, size_j, size_g):
    """Groups of size_g rows numbered column by column (Triton's documented rule)."""
    ij = i * size_j + j
    group, within = ij // (size_g * size_j), ij % (size_g * size_j)
    first = group * size_g
    rows = np.minimum(size_i - first, size_g)
    return first + within % rows, within // rows


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("sizes", [(4, 4, 2), (8, 4, 3), (16, 8, 4)])
def test_swizzle2d(target, sizes):
    size_i, size_j, size_g = sizes
    out = np.zeros(size_i * size_j, np.int32)
    swizzled_ids[(1,)](out, SIZE_I=size_i, SIZE_J=size_j, SIZE_G=size_g, target=target)
    i, j = np.meshgrid(np.arange(size_i), np.arange(size_j), indexing="ij")
    ni, nj = swizzle2d_reference(i, j, size_i, size_j, size_g)
    np.testing.assert_array_equal(out, (ni * size_j + nj).ravel())
    if sizes == (4, 4, 2):  # Triton's documented example: where each row-major index goes
        placed = np.empty(16, np.int32)
        placed[out] = np.arange(16)
        assert placed.reshape(4, 4).tolist() == [[0, 2, 4, 6], [1, 3, 5, 7], [8, 10, 12, 14], [9, 11, 13, 15]]


@rocktile.jit
def histograms(x_ptr, out_ptr, N: tl.constexpr, BINS: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + tl.arange(0, BINS), tl.histogram(x, BINS))
    tl.store(out_ptr + BINS + tl.arange(0, BINS), x.histogram(BINS, mask=offs % 2 == 0))


@pytest.mark.parametrize("target", TARGETS)
def test_histogram(target):
    n, bins = 512, 16
    x = np.random.default_rng(4).integers(-2, 20, n).astype(np.int32)  # some outside the bins
    out = np.zeros(2 * bins, np.int32)
    histograms[(1,)](x, out, N=n, BINS=bins, target=target)
    inside = lambda v: np.bincount(v[(v >= 0) & (v < bins)], minlength=bins)  # noqa: E731
    np.testing.assert_array_equal(out[:bins], inside(x))
    np.testing.assert_array_equal(out[bins:], inside(x[::2]))


@rocktile.jit
def too_large_histogram(x_ptr, out_ptr):
    x = tl.load(x_ptr + tl.arange(0, 65536))
    tl.store(out_ptr + tl.arange(0, 64), tl.histogram(x, 64))  # ERR-histogram


def test_histogram_too_large_is_a_clear_error():
    with pytest.raises(rocktile.CompilationError, match="at most 1048576") as info:
        rocktile.compile(too_large_histogram, {"x_ptr": "*i32", "out_ptr": "*i32"})
    assert info.value.lineno == next(i for i, t in enumerate(open(__file__), 1) if "# ERR-histogram" in t)


# Triton's tl.target_info and constexpr_function: a kernel that picks its
# code by target (as portable kernels guard inline assembly or tile sizes),
# decided while compiling.
@rocktile.constexpr_function
def lanes_times(target, factor):
    return target.warp_size * factor


@rocktile.jit
def by_target(out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    if tl.target_info.is_hip_cdna4():
        v = offs + 950
    elif tl.target_info.is_hip_gfx1250():
        v = offs + 1250
    else:
        v = offs
    if tl.target_info.is_cuda() or tl.target_info.cuda_capability_geq(9, 0) or tl.target_info.is_hip_cdna3():
        v = -v
    SCALE: tl.constexpr = lanes_times(tl.target_info.current_target(), 1000)
    tl.store(out_ptr + offs, v + SCALE * tl.target_info.is_hip())


@pytest.mark.parametrize("target, base, lanes", [("gfx950", 950, 64), ("gfx1250", 1250, 32)])
def test_target_info_decides_while_compiling(target, base, lanes):
    out = np.zeros(16, np.int32)
    by_target[(1,)](out, BLOCK=16, target=target)
    np.testing.assert_array_equal(out, np.arange(16) + base + lanes * 1000)
    # Outside a compile there is no target, as Triton's without a driver.
    assert tl.target_info.current_target() is None and not tl.target_info.is_hip()


@rocktile.constexpr_function
def doubled(n):
    return 2 * n


@rocktile.jit
def doubled_of_tensor(out_ptr):
    n = tl.load(out_ptr)
    tl.store(out_ptr, doubled(n))  # ERR-constexpr-function


def test_constexpr_function_rejects_a_tensor_at_its_line():
    with pytest.raises(rocktile.CompilationError) as info:
        rocktile.compile(doubled_of_tensor, signature={"out_ptr": "*i32"}, target="gfx950")
    line = next(i for i, text in enumerate(open(__file__), 1) if "# ERR-constexpr-function" in text)
    assert f"{__file__}:{line}:" in str(info.value)
    assert "doubled is a constexpr_function" in str(info.value) and "tensor of int32" in str(info.value)
    assert doubled(rocktile.constexpr(3)) == 6  # and from host code
