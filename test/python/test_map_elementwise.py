"""tl.map_elementwise: a @jit scalar function run per element, branches and
loops on each element's own values, several results, `pack` > 1 (also where
a lane holds fewer elements than a pack), against numpy on both targets; the
lowered code branches instead of computing both sides; misuse is a
CompilationError at the Python line."""
import inspect
import re

import numpy as np
import pytest

import rocktile
import rocktile.language as tl

TARGETS = ["gfx950", "gfx1250"]


@rocktile.jit
def selu_scalar(x, alpha):
    if x > 0:
        return x
    else:
        return alpha * (tl.exp(x) - 1)


@rocktile.jit
def selu_kernel(x_ptr, o_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(o_ptr + offs, tl.map_elementwise(selu_scalar, x, alpha), mask=mask)


@pytest.mark.parametrize("target", TARGETS)
def test_a_branch_per_element(target):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(1000).astype(np.float32)
    out = np.zeros_like(x)
    selu_kernel[(4,)](x, out, x.size, 1.5, BLOCK=256, target=target)
    np.testing.assert_allclose(out, np.where(x > 0, x, 1.5 * np.expm1(x)), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("target", TARGETS)
def test_each_element_branches_to_its_side(target):
    kernel = rocktile.compile(selu_kernel, {"x_ptr": "*fp32", "o_ptr": "*fp32", "n": "i32", "alpha": "fp32"},
                              {"BLOCK": 256}, target=target)
    # The exp sits in the branch taken by the elements that need it (LLVM
    # may still flatten a branch this short into selects).
    assert re.search(r"scf\.if %\S+ -> \(f32\) \{\s*scf\.yield %\S+ : f32\s*\} else \{\s*%\S+ = arith\.mulf [^\n]*\n"
                     r"\s*%\S+ = math\.exp2", kernel.asm["simt"]), kernel.asm["simt"]


@rocktile.jit
def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@rocktile.jit
def collatz_kernel(x_ptr, o_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(o_ptr + offs, tl.map_elementwise(collatz_steps, tl.load(x_ptr + offs)))


@pytest.mark.parametrize("target", TARGETS)
def test_a_loop_per_element(target):
    """Each element loops as often as its own value needs (a divergent
    while loop)."""
    x = np.arange(1, 129, dtype=np.int32)
    out = np.zeros_like(x)
    collatz_kernel[(1,)](x, out, BLOCK=128, target=target)

    def steps(n):
        count = 0
        while n != 1:
            n, count = (n // 2 if n % 2 == 0 else 3 * n + 1), count + 1
        return count
    np.testing.assert_array_equal(out, [steps(int(v)) for v in x])


@rocktile.jit
def divmod_pairs(a0, a1, b0, b1):
    """Two elements of a and of b a call; returns both quotients, then both
    remainders (Triton's order: result by result)."""
    return a0 // b0, a1 // b1, a0 % b0, a1 % b1


@rocktile.jit
def divmod_kernel(a_ptr, b_ptr, q_ptr, r_ptr, M: tl.constexpr, N: tl.constexpr, PACK: tl.constexpr):
    rows, cols = tl.arange(0, M)[:, None], tl.arange(0, N)[None, :]
    a = tl.load(a_ptr + rows * N + cols)
    b = tl.load(b_ptr + cols)  # one row, broadcast over the rows of a
    if PACK == 2:
        q, r = tl.map_elementwise(divmod_pairs, a, b, pack=2)
    else:
        q, r = tl.map_elementwise(divmod_single, a, b)
    tl.store(q_ptr + rows * N + cols, q)
    tl.store(r_ptr + rows * N + cols, r)


@rocktile.jit
def divmod_single(a, b):
    return a // b, (a % b).to(tl.int16)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("shape", [(16, 32), (2, 8)], ids=["many-per-lane", "fewer-than-a-pack"])
@pytest.mark.parametrize("pack", [1, 2])
def test_several_results_and_packs(target, shape, pack):
    """(2, 8) leaves each lane one element: the pack is filled up and the
    extra results dropped."""
    m, n = shape
    rng = np.random.default_rng(1)
    a = rng.integers(0, 1000, size=(m, n), dtype=np.int32)
    b = rng.integers(1, 17, size=n, dtype=np.int32)
    q = np.zeros_like(a)
    r = np.zeros(a.shape, np.int32 if pack == 2 else np.int16)
    divmod_kernel[(1,)](a, b, q, r, M=m, N=n, PACK=pack, target=target)
    np.testing.assert_array_equal(q, a // b)
    np.testing.assert_array_equal(r, a % b)


@rocktile.jit
def square(x):
    return x * x


@rocktile.jit
def two_per_result(x0, x1):
    return x0, x1.to(tl.float16)


@rocktile.jit
def tile_result(x):
    return tl.full([4], 1.0, tl.float32)


@rocktile.jit
def bad_kernel(x_ptr, o_ptr, MODE: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, 64))
    if MODE == 0:
        y = tl.map_elementwise(lambda v: v, x)
    elif MODE == 1:
        y = tl.map_elementwise(square, x, pack=0)
    elif MODE == 2:
        y = tl.map_elementwise(tile_result, x)
    elif MODE == 3:
        y = tl.map_elementwise(two_per_result, x, pack=2)[0]
    elif MODE == 4:
        y = tl.map_elementwise(square, 2.0)
    else:
        y = tl.map_elementwise(square, x_ptr + tl.arange(0, 64))
    tl.store(o_ptr + tl.arange(0, 64), y)


@pytest.mark.parametrize("mode,message", [
    (0, r"needs a @rocktile.jit scalar function"),
    (1, r"pack must be a positive int, got 0"),
    (2, r"must return scalar numbers, 1 per result"),
    (3, r"must return the 2 scalars of each result in one dtype"),
    (4, r"needs at least one tile among its arguments"),
    (5, r"not defined for pointers"),
])
def test_misuse_is_an_error_at_the_line(mode, message):
    lines, first = inspect.getsourcelines(bad_kernel)
    calls = [first + i for i, text in enumerate(lines) if "tl.map_elementwise(" in text]
    with pytest.raises(rocktile.CompilationError, match=message) as info:
        rocktile.compile(bad_kernel, {"x_ptr": "*fp32", "o_ptr": "*fp32"}, {"MODE": mode}, target="gfx950")
    assert f"test_map_elementwise.py:{calls[mode]}:" in str(info.value), str(info.value)
