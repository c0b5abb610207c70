"""fp8 (OCP float8e4nv = e4m3fn, float8e5 = e5m2): storage, conversions and
arithmetic, against numpy with ml_dtypes' fp8 types as the reference.

rocktile's rules: fp32 -> fp8 rounds to nearest even and saturates finite
values to the largest fp8 value (inf stays inf for e5m2 and becomes NaN for
e4m3fn, which has no inf); arithmetic on fp8 is computed in fp32 and rounded
back after each operation."""
import ml_dtypes
import numpy as np
import pytest

import rocktile
import rocktile.language as tl

TARGETS = ["gfx950", "gfx1250"]
FORMATS = {  # tl dtype -> (numpy dtype, largest finite value)
    "e4m3": (tl.float8e4nv, ml_dtypes.float8_e4m3fn, 448.0),
    "e5m2": (tl.float8e5, ml_dtypes.float8_e5m2, 57344.0),
}


def to_fp8(x, np_type, largest):
    """The reference conversion: saturate finite values, then round."""
    x = np.asarray(x, np.float32)
    return np.where(np.isfinite(x), np.clip(x, -largest, largest), x).astype(np_type)


def assert_same_fp8(got, want):
    got_bits, want_bits = got.view(np.uint8), want.view(np.uint8)
    nan = np.isnan(want.astype(np.float32))
    assert np.array_equal(np.isnan(got.astype(np.float32)), nan)
    mismatch = np.flatnonzero((got_bits != want_bits) & ~nan)
    assert mismatch.size == 0, f"{mismatch.size} differ, first at {mismatch[0]}: " \
        f"{got[mismatch[0]]} vs {want[mismatch[0]]}"


@rocktile.jit
def convert(x_ptr, y_ptr, n, DST: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask).to(DST), mask=mask)


def interesting_floats(largest):
    """Random values over the fp8 range and beyond, and the edge cases."""
    rng = np.random.default_rng(1)
    random = rng.standard_normal(3000) * np.exp2(rng.integers(-20, 20, 3000))
    edges = [0.0, -0.0, np.inf, -np.inf, np.nan, largest, -largest, largest * 1.03, largest * 1.1,
             largest * 4, 1e30, 2.0 ** -9, 2.0 ** -10, 2.0 ** -16, 2.0 ** -17, 3 * 2.0 ** -11]
    return np.concatenate([random, edges]).astype(np.float32)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fmt", FORMATS)
def test_fp32_to_fp8_rounds_to_nearest_even_and_saturates(target, fmt):
    tl_type, np_type, largest = FORMATS[fmt]
    x = interesting_floats(largest)
    # every midpoint between neighbouring fp8 values (ties go to even)
    codes = np.arange(256, dtype=np.uint8).view(np_type).astype(np.float32)
    codes = np.sort(codes[np.isfinite(codes)])
    x = np.concatenate([x, (codes[1:] + codes[:-1]) / 2, codes]).astype(np.float32)
    y = np.zeros(x.size, np_type)
    convert[(rocktile.cdiv(x.size, 1024),)](x, y, x.size, DST=tl_type, BLOCK=1024, target=target)
    assert_same_fp8(y, to_fp8(x, np_type, largest))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("dst", [np.float32, np.float16, np.float64, ml_dtypes.bfloat16])
def test_every_fp8_value_widens_exactly(target, fmt, dst):
    tl_type, np_type, _ = FORMATS[fmt]
    x = np.arange(256, dtype=np.uint8).view(np_type)
    y = np.zeros(256, dst)
    tl_dst = {np.float32: tl.float32, np.float16: tl.float16, np.float64: tl.float64,
              ml_dtypes.bfloat16: tl.bfloat16}[dst]
    convert[(1,)](x, y, 256, DST=tl_dst, BLOCK=256, target=target)
    want = x.astype(np.float32).astype(dst)
    nan = np.isnan(want.astype(np.float32))
    assert np.array_equal(np.isnan(y.astype(np.float32)), nan)
    assert np.array_equal(y[~nan], want[~nan])


@pytest.mark.parametrize("target", TARGETS)
def test_fp8_to_and_from_integers(target):
    _, np_type, largest = FORMATS["e4m3"]
    codes = np.arange(256, dtype=np.uint8).view(np_type)
    finite = codes[np.isfinite(codes.astype(np.float32))]
    y = np.zeros(finite.size, np.int32)
    convert[(1,)](finite, y, finite.size, DST=tl.int32, BLOCK=256, target=target)
    assert np.array_equal(y, np.trunc(finite.astype(np.float32)).astype(np.int32))
    ints = np.array([-1000, -448, -17, -1, 0, 1, 3, 17, 100, 447, 448, 1000], np.int32)
    z = np.zeros(ints.size, np_type)
    convert[(1,)](ints, z, ints.size, DST=tl.float8e4nv, BLOCK=16, target=target)
    assert_same_fp8(z, to_fp8(ints, np_type, largest))


@rocktile.jit
def arithmetic(a_ptr, b_ptr, c_ptr, e5_ptr, out8_ptr, out32_ptr, out16_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a, b, c = tl.load(a_ptr + offs), tl.load(b_ptr + offs), tl.load(c_ptr + offs)
    e5 = tl.load(e5_ptr + offs)
    fma_like = a * b + c
    tl.static_assert(fma_like.dtype == tl.float8e4nv)
    quotient = a / b
    tl.static_assert(quotient.dtype == tl.float32)
    mixed = a + e5
    tl.static_assert(mixed.dtype == tl.float16)
    scaled = a * 2.5
    tl.static_assert(scaled.dtype == tl.float8e4nv)
    half = a + b.to(tl.float16)
    tl.static_assert(half.dtype == tl.float16)
    tl.store(out8_ptr + 0 * BLOCK + offs, fma_like)
    tl.store(out8_ptr + 1 * BLOCK + offs, scaled)
    tl.store(out8_ptr + 2 * BLOCK + offs, tl.maximum(a, b))
    tl.store(out8_ptr + 3 * BLOCK + offs, -a)
    tl.store(out8_ptr + 4 * BLOCK + offs, tl.abs(c))
    tl.store(out8_ptr + 5 * BLOCK + offs, tl.where(a < b, a, c))
    tl.store(out8_ptr + 6 * BLOCK + offs, tl.exp(a))
    tl.store(out32_ptr + offs, quotient)
    tl.store(out16_ptr + 0 * BLOCK + offs, mixed)
    tl.store(out16_ptr + 1 * BLOCK + offs, half)


@pytest.mark.parametrize("target", TARGETS)
def test_fp8_arithmetic_is_computed_in_fp32_and_rounded_back(target):
    _, e4, largest = FORMATS["e4m3"]
    _, e5, e5_largest = FORMATS["e5m2"]
    rng = np.random.default_rng(2)
    n = 256
    a, b, c = (to_fp8(rng.standard_normal(n) * 8, e4, largest) for _ in range(3))
    b[b.astype(np.float32) == 0] = 1
    a[:4] = np.array([448, -448, 300, 2.0 ** -9]).astype(e4)  # products and sums that saturate
    b[:4] = np.array([2, 3, 300, 0.5]).astype(e4)
    e5_values = to_fp8(rng.standard_normal(n) * 100, e5, e5_largest)
    out8, out32, out16 = np.zeros(7 * n, e4), np.zeros(n, np.float32), np.zeros(2 * n, np.float16)
    arithmetic[(1,)](a, b, c, e5_values, out8, out32, out16, BLOCK=n, target=target)

    f = lambda v: v.astype(np.float32)  # noqa: E731
    r = lambda v: to_fp8(v, e4, largest)  # noqa: E731
    exact = [r(f(r(f(a) * f(b))) + f(c)), r(f(a) * 2.5), r(np.maximum(f(a), f(b))), r(-f(a)), r(np.abs(f(c))),
             np.where(f(a) < f(b), a, c)]
    for i, want in enumerate(exact):
        assert_same_fp8(out8[i * n:(i + 1) * n], want)
    # exp is fp32's exp (within 2 ulp) rounded once: at most one fp8 step off.
    # exp(448) overflows fp32 to inf, which e4m3fn turns into NaN.
    with np.errstate(over="ignore"):
        got_exp, want_exp = f(out8[6 * n:]), np.exp(f(a))
    small, large = want_exp < largest, (want_exp >= largest) & np.isfinite(want_exp)
    assert np.allclose(got_exp[small], f(r(want_exp))[small], rtol=2.0 ** -3)
    assert np.all(got_exp[large] == largest)
    assert np.all(np.isnan(got_exp[np.isinf(want_exp)])) and np.isinf(want_exp).any()
    np.testing.assert_allclose(out32, f(a) / f(b), rtol=1e-6)
    assert np.array_equal(out16[:n], (f(a) + f(e5_values)).astype(np.float16))
    assert np.array_equal(out16[n:], (a.astype(np.float16) + b.astype(np.float16)))


@rocktile.jit
def fp8_rows(x_ptr, max_ptr, sum_ptr, copy_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-448.0)
    tl.store(max_ptr + row, tl.max(x, axis=0))
    tl.store(sum_ptr + row, tl.sum(x.to(tl.float32) * mask, axis=0))
    tl.store(copy_ptr + row * n_cols + cols, x, mask=mask)


@pytest.mark.parametrize("target", TARGETS)
def test_fp8_masked_loads_reductions_and_stores(target):
    _, e4, largest = FORMATS["e4m3"]
    rows, cols = 5, 300
    x = to_fp8(np.random.default_rng(3).standard_normal((rows, cols)) * 50, e4, largest)
    mx, sm, copy = np.zeros(rows, e4), np.zeros(rows, np.float32), np.zeros((rows, cols), e4)
    fp8_rows[(rows,)](x, mx, sm, copy, cols, BLOCK=512, target=target)
    assert_same_fp8(mx, x.astype(np.float32).max(axis=1).astype(e4))
    np.testing.assert_allclose(sm, x.astype(np.float32).sum(axis=1), rtol=1e-5, atol=1e-3)
    assert_same_fp8(copy.ravel(), x.ravel())


@pytest.mark.parametrize("target", TARGETS)
def test_reinterpret_passes_bytes_as_fp8(target):
    _, e5, _ = FORMATS["e5m2"]
    raw = np.arange(256, dtype=np.uint8)
    y = np.zeros(256, np.float32)
    convert[(1,)](rocktile.reinterpret(raw, tl.float8e5), y, 256, DST=tl.float32, BLOCK=256, target=target)
    want = raw.view(e5).astype(np.float32)
    assert np.array_equal(np.isnan(y), np.isnan(want))
    assert np.array_equal(y[~np.isnan(want)], want[~np.isnan(want)])


@rocktile.jit
def fp8_constants(out_ptr):
    offs = tl.arange(0, 4)
    tl.store(out_ptr + offs, tl.full((4,), 1000.0, tl.float8e4nv))
    tl.store(out_ptr + 4 + offs, tl.full((4,), 1000, tl.int32).to(tl.float8e4nv))
    tl.store(out_ptr + 8 + offs, tl.full((4,), 0.3, tl.float8e4nv))
    tl.store(out_ptr + 12 + offs, tl.zeros((4,), tl.float8e4nv) - 500.0)


@pytest.mark.parametrize("target", TARGETS)
def test_fp8_constants_round_like_conversions(target):
    _, e4, largest = FORMATS["e4m3"]
    out = np.zeros(16, e4)
    fp8_constants[(1,)](out, target=target)
    assert_same_fp8(out, to_fp8(np.repeat([1000.0, 1000.0, 0.3, -500.0], 4), e4, largest))


def test_fp8_errors():
    with pytest.raises(ValueError, match="fp8 values can be passed only in arrays"):
        rocktile.compile(convert, {"x_ptr": "fp8e4nv", "y_ptr": "*fp32", "n": "i32"},
                         {"DST": tl.float32, "BLOCK": 16})
    with pytest.raises(TypeError, match="cannot reinterpret elements of 4 byte"):
        rocktile.reinterpret(np.zeros(4, np.float32), tl.float8e4nv)

    @rocktile.jit
    def fp8_atomic(p):
        tl.atomic_add(p + tl.arange(0, 4), 1.0)

    with pytest.raises(rocktile.CompilationError, match="32- or 64-bit"):
        rocktile.compile(fp8_atomic, {"p": "*fp8e4nv"})


@rocktile.jit
def rounding_modes(x_ptr, y_ptr, MODE: tl.constexpr):
    offs = tl.arange(0, 16)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs).to(tl.float8e4nv, fp_downcast_rounding=MODE))


def test_fp_downcast_rounding():
    x = np.linspace(-3, 3, 16).astype(np.float32)
    y = np.zeros(16, ml_dtypes.float8_e4m3fn)
    rounding_modes[(1,)](x, y, MODE="rtne")
    assert_same_fp8(y, x.astype(ml_dtypes.float8_e4m3fn))
    with pytest.raises(rocktile.CompilationError, match="fp_downcast_rounding='rtz' is not supported"):
        rocktile.compile(rounding_modes, {"x_ptr": "*fp32", "y_ptr": "*fp8e4nv"}, {"MODE": "rtz"})


@rocktile.jit
def to_gfx942_fp8(x_ptr, out_ptr):
    offs = tl.arange(0, 16)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs).to(tl.float8e4b8).to(tl.float32))


def test_gfx942_fp8_types_are_names_and_an_error_in_kernels():
    """tl.float8e4b8 and tl.float8e5b16 exist (libraries build dtype tables
    with them at import); using one in a kernel names the OCP types."""
    assert str(tl.float8e4b8) == "fp8e4b8" and str(tl.float8e5b16) == "fp8e5b16"
    x = np.zeros(16, np.float32)
    with pytest.raises(rocktile.CompilationError, match=r"float8e4b8 is the 8-bit float of gfx942.*float8e4nv"):
        to_gfx942_fp8[(1,)](x, x)
