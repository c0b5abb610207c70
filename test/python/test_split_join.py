"""tl.join / tl.split (Triton's semantics) in the emulator on both targets."""
import numpy as np
import pytest

import rocktile
import rocktile.language as tl

TARGETS = ["gfx950", "gfx1250"]


@rocktile.jit
def join_split(a_ptr, b_ptr, pairs_ptr, a_out, b_out, M: tl.constexpr, N: tl.constexpr):
    r = tl.arange(0, M)[:, None]
    c = tl.arange(0, N)[None, :]
    a = tl.load(a_ptr + r * N + c)
    b = tl.load(b_ptr + r * N + c)
    pairs = tl.join(a, b)  # M x N x 2
    k = tl.arange(0, 2)[None, None, :]
    tl.store(pairs_ptr + (r[:, :, None] * N + c[:, :, None]) * 2 + k, pairs)
    x, y = tl.split(pairs * 2)
    tl.store(a_out + r * N + c, x)
    tl.store(b_out + r * N + c, y)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_join_then_split(target, dtype):
    m, n = 8, 16
    rng = np.random.default_rng(5)
    a = rng.integers(-50, 50, (m, n)).astype(dtype)
    b = rng.integers(-50, 50, (m, n)).astype(dtype)
    pairs = np.zeros((m, n, 2), dtype)
    a_out, b_out = np.zeros_like(a), np.zeros_like(b)
    join_split[(1,)](a, b, pairs, a_out, b_out, M=m, N=n, target=target)
    np.testing.assert_array_equal(pairs, np.stack([a, b], axis=-1))
    np.testing.assert_array_equal(a_out, 2 * a)
    np.testing.assert_array_equal(b_out, 2 * b)


@rocktile.jit
def join_scalars(out_ptr, x):
    tl.store(out_ptr + tl.arange(0, 2), tl.join(x, x + 1))


def test_join_scalars_and_errors():
    out = np.zeros(2, np.int32)
    join_scalars[(1,)](out, 7)
    np.testing.assert_array_equal(out, [7, 8])

    @rocktile.jit
    def bad(x_ptr):
        tl.split(tl.load(x_ptr + tl.arange(0, 4)))

    with pytest.raises(rocktile.CompilationError, match="last dimension of size 2"):
        rocktile.compile(bad, signature={"x_ptr": "*fp32"})


@rocktile.jit
def scalar_shapes(out):
    s = tl.load(out)
    tl.store(out + 1 + tl.arange(0, 2), tl.interleave(s, s + 1))  # two scalars: their join
    tl.store(out + 3 + tl.arange(0, 1), s[None] * 2)  # a rank-0 tensor indexed with None


@pytest.mark.parametrize("target", TARGETS)
def test_interleave_of_scalars_and_indexing_a_scalar(target):
    """tl.interleave of two scalars is their join (shape [2]), as in Triton
    (it failed with an IndexError); s[None] of a scalar has shape [1]."""
    out = np.array([5, 0, 0, 0], np.float32)
    scalar_shapes[(1,)](out, target=target)
    np.testing.assert_array_equal(out, [5, 5, 6, 10])
