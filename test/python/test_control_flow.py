"""Dynamic control flow: for/while/if on runtime values become scf ops; each
pitfall of tracing DSLs either runs correctly in the emulator (both targets,
checked against numpy) or is a CompilationError at the right line."""
import numpy as np
import pytest

import rocktile
import rocktile.language as tl
from rocktile.compiler import trace_ir

TARGETS = ["gfx950", "gfx1250"]
FILE = __file__


def line_of(marker):
    with open(FILE) as f:
        return next(i for i, line in enumerate(f, 1) if marker in line)


def compile_error(kernel, signature, constexprs=None):
    with pytest.raises(rocktile.CompilationError) as info:
        rocktile.compile(kernel, signature=signature, constexprs=constexprs or {}, target="gfx950")
    return info.value


def check_error(error, marker, *parts):
    """The error is at the line holding `marker` and mentions every part."""
    assert error.filename == FILE and error.lineno == line_of(marker), str(error)
    for part in parts:
        assert part in error.message, error.message
    assert marker in str(error).splitlines()[1]  # the source line is shown


# --------------------------------------------------------------------------
# for over range / tl.range

@rocktile.jit
def row_sums(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], tl.float32)
    ptrs = x_ptr + row * stride + tl.arange(0, BLOCK)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(ptrs, mask=cols < n_cols, other=0.0)
        ptrs += BLOCK  # a pointer carried through the loop
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("cols", [1, 64, 1000, 0])
def test_accumulate_over_a_runtime_range(target, cols):
    x = np.random.default_rng(cols).standard_normal((5, max(cols, 1)), np.float32)
    out = np.full(5, np.nan, np.float32)
    row_sums[(5,)](x, out, cols, x.shape[1], BLOCK=64, target=target)
    np.testing.assert_allclose(out, x[:, :cols].sum(axis=1), rtol=1e-5, atol=1e-5)


def test_range_becomes_scf_for_with_iter_args():
    ir = trace_ir(row_sums, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n_cols": "i32", "stride": "i32"},
                  {"BLOCK": 64})
    assert "scf.for" in ir and "iter_args" in ir
    assert "-> (tensor<64xf32>, tensor<64x!tile.ptr<f32>>)" in ir
    assert ir.count("scf.yield") == 1


@rocktile.jit
def tl_range_kernel(out_ptr, n, start, STEP: tl.constexpr):
    total = 0
    count = 0
    for i in tl.range(start, n, STEP, num_stages=3):
        total += i
        count += 1
    tl.store(out_ptr, total)
    tl.store(out_ptr + 1, count)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("start, n, step", [(0, 10, 1), (3, 100, 7), (5, 5, 2), (10, 2, 1), (-6, 6, 4)])
def test_tl_range_with_num_stages(target, start, n, step):
    out = np.zeros(2, np.int32)
    tl_range_kernel[(1,)](out, n, start, STEP=step, target=target)
    expected = list(range(start, n, step))
    assert out.tolist() == [sum(expected), len(expected)]


@rocktile.jit
def descending(out_ptr, n):
    k = 0
    for i in range(n, 0, -3):  # a negative constant step counts down
        tl.store(out_ptr + k, i)
        k += 1


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("n", [0, 1, 9, 10])
def test_descending_range(target, n):
    out = np.full(8, -1, np.int32)
    descending[(1,)](out, n, target=target)
    expected = list(range(n, 0, -3))
    assert out[:len(expected)].tolist() == expected and (out[len(expected):] == -1).all()


@rocktile.jit
def constant_bounds(out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.int32)
    for i in range(4):  # Python ints: still an scf.for, as in Triton
        acc += offs * i
    tl.store(out_ptr + offs, acc)


@pytest.mark.parametrize("target", TARGETS)
def test_loop_with_constant_bounds(target):
    out = np.zeros(32, np.int32)
    constant_bounds[(1,)](out, BLOCK=32, target=target)
    np.testing.assert_array_equal(out, np.arange(32) * 6)
    assert "scf.for" in trace_ir(constant_bounds, {"out_ptr": "*i32"}, {"BLOCK": 32})


@rocktile.jit
def wide_bounds(out_ptr, n):
    total = tl.zeros([1], tl.int64).sum(axis=0)
    for i in range(0, n, 2**33):
        total += 1
    tl.store(out_ptr, total)


def test_i64_bound_gives_an_i64_loop():
    ir = trace_ir(wide_bounds, {"out_ptr": "*i64", "n": "i64"})
    assert "scf.for" in ir and ": i64 {" in ir


# --------------------------------------------------------------------------
# Tuples and lists carried through loops; nested loops.

@rocktile.jit
def carried_structures(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    stats = (tl.zeros([BLOCK], tl.float32), tl.full([BLOCK], -float("inf"), tl.float32))
    extra = [tl.zeros([BLOCK], tl.int32), 0]
    for r in range(n):
        x = tl.load(x_ptr + r * BLOCK + offs)
        stats = (stats[0] + x, tl.maximum(stats[1], x))
        extra = [extra[0] + (x > 0).to(tl.int32), extra[1] + 1]
    tl.store(out_ptr + offs, stats[0])
    tl.store(out_ptr + BLOCK + offs, stats[1])
    tl.store(out_ptr + 2 * BLOCK + offs, extra[0].to(tl.float32) + extra[1])


@pytest.mark.parametrize("target", TARGETS)
def test_tuples_and_lists_carried_through_a_loop(target):
    x = np.random.default_rng(1).standard_normal((7, 64), np.float32)
    out = np.zeros(3 * 64, np.float32)
    carried_structures[(1,)](x, out, 7, BLOCK=64, target=target)
    np.testing.assert_allclose(out[:64], x.sum(axis=0), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(out[64:128], x.max(axis=0))
    np.testing.assert_array_equal(out[128:], (x > 0).sum(axis=0) + 7)


@rocktile.jit
def matrix_sum(x_ptr, out_ptr, rows, cols, BLOCK: tl.constexpr):
    total = 0.0
    for r in range(rows):
        row_acc = tl.zeros([BLOCK], tl.float32)
        for c in range(0, cols, BLOCK):
            offs = c + tl.arange(0, BLOCK)
            row_acc += tl.load(x_ptr + r * cols + offs, mask=offs < cols, other=0.0)
        tl.store(out_ptr + 1 + r, tl.sum(row_acc, axis=0))  # a reduction inside a loop
        total += tl.sum(row_acc, axis=0)
    tl.store(out_ptr, total)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("num_warps", [1, 4])
def test_nested_loops_with_reductions(target, num_warps):
    x = np.random.default_rng(2).standard_normal((6, 300), np.float32)
    out = np.zeros(7, np.float32)
    matrix_sum[(1,)](x, out, 6, 300, BLOCK=128, target=target, num_warps=num_warps)
    np.testing.assert_allclose(out[1:], x.sum(axis=1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out[0], x.sum(), rtol=1e-5, atol=1e-4)


@rocktile.jit
def static_and_dynamic(out_ptr, n, REPEAT: tl.constexpr):
    acc = 0
    for k in tl.static_range(REPEAT):  # unrolled: k is a Python int
        for i in range(n):
            acc += i * (k + 1)
    tl.store(out_ptr, acc)


@pytest.mark.parametrize("target", TARGETS)
def test_static_range_around_a_dynamic_loop(target):
    out = np.zeros(1, np.int32)
    static_and_dynamic[(1,)](out, 10, REPEAT=3, target=target)
    assert out[0] == 45 * 6
    ir = trace_ir(static_and_dynamic, {"out_ptr": "*i32", "n": "i32"}, {"REPEAT": 3})
    assert ir.count("scf.for") == 3


# --------------------------------------------------------------------------
# while

@rocktile.jit
def collatz_steps(x_ptr, out_ptr):
    pid = tl.program_id(0)
    v = tl.load(x_ptr + pid)
    steps = 0
    while v != 1:
        v = tl.where(v % 2 == 0, v // 2, 3 * v + 1)
        steps += 1
    tl.store(out_ptr + pid, steps)


def collatz(v):
    steps = 0
    while v != 1:
        v, steps = (v // 2 if v % 2 == 0 else 3 * v + 1), steps + 1
    return steps


@pytest.mark.parametrize("target", TARGETS)
def test_while_loop(target):
    x = np.array([1, 2, 3, 7, 27, 97], np.int32)
    out = np.zeros_like(x)
    collatz_steps[(len(x),)](x, out, target=target)
    assert out.tolist() == [collatz(int(v)) for v in x]
    ir = trace_ir(collatz_steps, {"x_ptr": "*i32", "out_ptr": "*i32"})
    assert "scf.while" in ir and "scf.condition" in ir


# --------------------------------------------------------------------------
# if / else

@rocktile.jit
def branches(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    s = tl.sum(x, axis=0)
    positive = s > 0  # the condition computed before the `if`
    if positive:
        y = x * 2
        scale = 1.0
    elif s < -10:
        y = -x
        scale = 3.0
    else:
        y = x
        scale = 2.0
    tl.store(out_ptr + offs, y * scale, mask=offs < n)


@pytest.mark.parametrize("target", TARGETS)
def test_if_elif_else_merges_tensors_and_numbers(target):
    x = np.random.default_rng(4).standard_normal(16 * 64).astype(np.float32) * 3
    out = np.zeros_like(x)
    branches[(16,)](x, out, x.size, BLOCK=64, target=target)
    blocks = x.reshape(16, 64)
    s = blocks.sum(axis=1, keepdims=True)
    expected = np.where(s > 0, blocks * 2, np.where(s < -10, -blocks * 3, blocks * 2))
    np.testing.assert_allclose(out.reshape(16, 64), expected, rtol=1e-6)
    ir = trace_ir(branches, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}, {"BLOCK": 64})
    assert "scf.if" in ir and "-> (f32, tensor<64xf32>)" in ir


@rocktile.jit
def early_return(x_ptr, n):
    pid = tl.program_id(0)
    if pid >= n:
        return
    tl.store(x_ptr + pid, pid * 10)


@pytest.mark.parametrize("target", TARGETS)
def test_early_return_at_the_top_level(target):
    out = np.full(16, -1, np.int32)
    early_return[(16,)](out, 11, target=target)
    assert out.tolist() == [i * 10 for i in range(11)] + [-1] * 5


@rocktile.jit
def return_inside_loop(x_ptr, n):
    for i in range(n):
        if i > 3:
            return  # ERR-return-loop
        tl.store(x_ptr + i, 1.0)


def test_return_inside_a_dynamic_loop_is_a_clear_error():
    error = compile_error(return_inside_loop, {"x_ptr": "*fp32", "n": "i32"})
    check_error(error, "# ERR-return-loop", "`return` inside a loop or an `if` on runtime values")


@rocktile.jit
def pick(x, y):
    if tl.sum(x, axis=0) > tl.sum(y, axis=0):
        return x
    return y  # a @jit helper returning from both sides of a runtime `if`


@rocktile.jit
def uses_pick(a_ptr, b_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, pick(tl.load(a_ptr + offs), tl.load(b_ptr + offs)))


@pytest.mark.parametrize("target", TARGETS)
def test_helper_returning_from_both_branches(target):
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((2, 8 * 32), np.float32)
    out = np.zeros_like(a)
    uses_pick[(8,)](a, b, out, BLOCK=32, target=target)
    ab, bb = a.reshape(8, 32), b.reshape(8, 32)
    expected = np.where(ab.sum(axis=1, keepdims=True) > bb.sum(axis=1, keepdims=True), ab, bb)
    np.testing.assert_array_equal(out.reshape(8, 32), expected)


@rocktile.jit
def one_branch_only_marker(x_ptr, n):
    if n > 0:
        y = 1.0
    tl.store(x_ptr, y)  # ERR-one-branch


def test_variable_defined_in_one_branch_and_used_after_is_an_error():
    error = compile_error(one_branch_only_marker, {"x_ptr": "*fp32", "n": "i32"})
    check_error(error, "# ERR-one-branch", "'y' is defined only in the then branch", "before the `if`")


@rocktile.jit
def one_branch_local(x_ptr, n):
    if n > 0:
        t = 2.0  # not used after the `if`: fine
        tl.store(x_ptr, t)
    tl.store(x_ptr + 1, 3.0)


@pytest.mark.parametrize("target", TARGETS)
def test_variable_defined_in_one_branch_and_not_used_after(target):
    out = np.zeros(2, np.float32)
    one_branch_local[(1,)](out, 1, target=target)
    assert out.tolist() == [2.0, 3.0]
    out = np.zeros(2, np.float32)
    one_branch_local[(1,)](out, 0, target=target)
    assert out.tolist() == [0.0, 3.0]


@rocktile.jit
def branch_type_mismatch(x_ptr, n):
    if n > 0:  # ERR-branch-type
        y = tl.load(x_ptr + tl.arange(0, 16))
    else:
        y = tl.zeros([32], tl.float32)
    tl.store(x_ptr + tl.arange(0, 16), y)


def test_branches_giving_different_types_is_an_error():
    error = compile_error(branch_type_mismatch, {"x_ptr": "*fp32", "n": "i32"})
    check_error(error, "# ERR-branch-type", "'y' is fp32[16] in the then branch and fp32[32] in the else")


@rocktile.jit
def range_in_branch(out_ptr, n, flag):
    total = 0
    if flag != 0:
        for i in range(n):  # a loop inside a traced branch
            total += i
    else:
        total = -1
    tl.store(out_ptr, total)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("flag", [0, 1])
def test_range_inside_a_traced_branch(target, flag):
    out = np.zeros(1, np.int32)
    range_in_branch[(1,)](out, 10, flag, target=target)
    assert out[0] == (45 if flag else -1)


@rocktile.jit
def constexpr_if(x_ptr, MODE: tl.constexpr):
    if MODE == "double":
        y = 2.0
    elif MODE == "skip":
        return
    tl.store(x_ptr, y)  # defined only when MODE == "double": fine, it is Python


def test_if_on_a_constexpr_is_plain_python():
    ir = trace_ir(constexpr_if, {"x_ptr": "*fp32"}, {"MODE": "double"})
    assert "scf.if" not in ir and "tile.store" in ir
    assert "tile.store" not in trace_ir(constexpr_if, {"x_ptr": "*fp32"}, {"MODE": "skip"})
    error = compile_error(constexpr_if, {"x_ptr": "*fp32"}, {"MODE": "other"})
    assert "UnboundLocalError" in error.message or "NameError" in error.message


@rocktile.jit
def tensor_condition(x_ptr):
    offs = tl.arange(0, 16)
    x = tl.load(x_ptr + offs)
    if x > 0:  # ERR-tensor-cond
        tl.store(x_ptr + offs, x)


def test_condition_on_a_tile_is_an_error():
    error = compile_error(tensor_condition, {"x_ptr": "*fp32"})
    check_error(error, "# ERR-tensor-cond", "shape [16]", "tl.where")


@rocktile.jit(do_not_specialize=["a", "b"])  # runtime values, even when 1
def conditions(out_ptr, a, b, x):
    tl.store(out_ptr + 0, (a > 0 and b > 0).to(tl.int32))
    tl.store(out_ptr + 1, (a > 0 or b > 0).to(tl.int32))
    tl.store(out_ptr + 2, (not a).to(tl.int32))
    if a > 0 and not b > 0 or x == 2.5:
        tl.store(out_ptr + 3, 1)
    tl.store(out_ptr + 4, 7 if a > b else 8)  # a conditional expression on a runtime value
    tl.store(out_ptr + 5, x if a else 0.5)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("a, b, x", [(1, 1, 0.0), (1, 0, 0.0), (0, 1, 0.0), (0, 0, 2.5), (-2, 5, 1.0)])
def test_and_or_not_and_conditional_expressions(target, a, b, x):
    out = np.zeros(6, np.int32)
    conditions[(1,)](out, a, b, x, target=target)
    expected = [int(a > 0 and b > 0), int(a > 0 or b > 0), int(not a),
                int(a > 0 and not b > 0 or x == 2.5), 7 if a > b else 8, int(x if a else 0.5)]
    assert out.tolist() == expected


# --------------------------------------------------------------------------
# Loop errors and continue.

@rocktile.jit
def with_break(x_ptr, n):
    for i in range(n):
        if i == 3:
            break  # ERR-break
        tl.store(x_ptr + i, 1.0)


def test_break_in_a_dynamic_loop_is_a_clear_error():
    error = compile_error(with_break, {"x_ptr": "*fp32", "n": "i32"})
    check_error(error, "# ERR-break", "break is not supported in a dynamic loop; use a while loop with a condition")


@rocktile.jit
def with_continue(x_ptr, n):
    for i in range(n):
        if i % 3 == 0:
            continue
        tl.store(x_ptr + i, 1.0)


@pytest.mark.parametrize("target", TARGETS)
def test_continue_ending_a_branch(target):
    out = np.zeros(10, np.float32)
    with_continue[(1,)](out, 10, target=target)
    assert out.tolist() == [0.0 if i % 3 == 0 else 1.0 for i in range(10)]


@rocktile.jit
def with_nested_continue(x_ptr, n):
    for i in range(n):
        for j in tl.static_range(3):
            if i == j:
                continue  # skips the rest of this unrolled iteration only
            tl.store(x_ptr + 3 * i + j, 1.0)


@pytest.mark.parametrize("target", TARGETS)
def test_continue_of_an_unrolled_loop_inside_a_runtime_if(target):
    out = np.zeros(12, np.float32)
    with_nested_continue[(1,)](out, 4, target=target)
    assert out.tolist() == [0.0 if i == j else 1.0 for i in range(4) for j in range(3)]


@rocktile.jit
def with_nested_break(x_ptr, n):
    for i in range(n):
        for j in tl.static_range(2):
            if i == j:
                break  # ERR-nested-break
            tl.store(x_ptr + i, 1.0)


def test_break_of_an_unrolled_loop_inside_a_runtime_if_is_an_error():
    error = compile_error(with_nested_break, {"x_ptr": "*fp32", "n": "i32"})
    check_error(error, "# ERR-nested-break", "break inside an `if` on a runtime condition")


@rocktile.jit
def dtype_change(x_ptr, n):
    acc = 0
    for i in range(n):  # ERR-dtype
        acc += tl.load(x_ptr + i)
    tl.store(x_ptr, acc)


def test_loop_carried_dtype_change_is_an_error():
    error = compile_error(dtype_change, {"x_ptr": "*fp32", "n": "i32"})
    check_error(error, "# ERR-dtype", "'acc' is int32 before the loop and fp32 at the end of its body")


@rocktile.jit
def shape_change(x_ptr, n):
    acc = tl.zeros([16], tl.float32)
    for i in range(n):  # ERR-shape
        acc = acc[:, None] + tl.zeros([16, 16], tl.float32)
    tl.store(x_ptr, tl.sum(tl.sum(acc, axis=1), axis=0))


def test_loop_carried_shape_change_is_an_error():
    error = compile_error(shape_change, {"x_ptr": "*fp32", "n": "i32"})
    check_error(error, "# ERR-shape", "'acc' is fp32[16] before the loop and fp32[16, 16]")


@rocktile.jit
def no_initial_value(x_ptr, n):
    for i in range(n):
        last = tl.load(x_ptr + i)
    tl.store(x_ptr, last)  # ERR-no-init


@rocktile.jit
def no_initial_value_next_iteration(x_ptr, n):
    for i in range(n):
        if i > 0:
            tl.store(x_ptr + i, prev)  # ERR-no-init-next
        prev = tl.load(x_ptr + i)


def test_loop_variable_without_initial_value_is_an_error_where_used():
    for kernel, marker in [(no_initial_value, "# ERR-no-init"), (no_initial_value_next_iteration,
                                                                 "# ERR-no-init-next")]:
        error = compile_error(kernel, {"x_ptr": "*fp32", "n": "i32"})
        check_error(error, marker, "has no value before the loop", "initial value before the loop")


# Variables assigned only under a compile-time `if` in a loop (a softcap as
# LLM-kernel libraries write it): not carried when they have no value before
# the loop, whichever way the `if` goes, and used in the same iteration.
@rocktile.jit
def softcap_rows(x_ptr, y_ptr, n_cols, softcap, HAS_SOFTCAPPING: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    for i in range(0, n_cols, BLOCK):
        offs = i + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=0.0)
        if HAS_SOFTCAPPING:
            intermediate = tl.sigmoid(x / softcap)
            x = softcap * intermediate
        y = x * 2
        if HAS_SOFTCAPPING:
            y = y * (1 - intermediate)
        tl.store(y_ptr + row * n_cols + offs, y, mask=offs < n_cols)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("cap", [False, True])
def test_variables_assigned_under_a_constexpr_if_in_a_loop(target, cap):
    x = np.random.default_rng(0).standard_normal((3, 100)).astype(np.float32)
    y = np.zeros_like(x)
    softcap_rows[(3,)](x, y, 100, 2.0, HAS_SOFTCAPPING=cap, BLOCK=32, target=target)
    s = 1 / (1 + np.exp(-x.astype(np.float64) / 2))
    want = 4 * s * (1 - s) if cap else 2 * x
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)


@rocktile.jit
def float_bound(x_ptr, n):
    for i in range(0, n * 1.5):  # ERR-float-bound
        tl.store(x_ptr + i, 1.0)


def test_float_range_bound_is_an_error():
    error = compile_error(float_bound, {"x_ptr": "*fp32", "n": "i32"})
    check_error(error, "# ERR-float-bound", "range() bounds must be integer scalars, got fp32")


@rocktile.jit
def temporaries(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    t = 0  # an unrelated earlier use of the name does not make the loop carry it
    tl.store(out_ptr + BLOCK, t)
    acc = tl.zeros([BLOCK], tl.float32)
    for i in range(n):
        t = tl.load(x_ptr + i * BLOCK + offs)  # a temporary of another type, dead after the loop
        acc += t * t
    tl.store(out_ptr + offs, acc)


@pytest.mark.parametrize("target", TARGETS)
def test_body_temporaries_are_not_carried(target):
    x = np.random.default_rng(6).standard_normal((3, 32), np.float32)
    out = np.zeros(33, np.float32)
    temporaries[(1,)](x, out, 3, BLOCK=32, target=target)
    np.testing.assert_allclose(out[:32], (x * x).sum(axis=0), rtol=1e-6)


def make_running_argmax(scale):
    @rocktile.jit
    def running_argmax(x_ptr, out_ptr, n):  # a closure over `scale`, defined in a function
        best = -float("inf")
        best_i = 0
        for i in range(n):
            v = tl.load(x_ptr + i) * scale
            if v > best:  # an `if` inside a loop updating carried values in one branch
                best = v
                best_i = i
        tl.store(out_ptr, best)
        tl.store(out_ptr + 1, best_i.to(tl.float32))
    return running_argmax


@pytest.mark.parametrize("target", TARGETS)
def test_if_inside_a_loop_in_a_closure_kernel(target):
    x = np.array([1, 5, 3, 9, 2, 9], np.float32)
    out = np.zeros(2, np.float32)
    make_running_argmax(2.0)[(1,)](x, out, 6, target=target)
    assert out.tolist() == [18.0, 3.0]


@rocktile.jit
def tile_conditions(x_ptr, out_ptr, n):
    offs = tl.arange(0, 16)
    x = tl.load(x_ptr + offs)
    if tl.sum(x[None, :], axis=1) > 0:  # a one-element tile is a valid condition
        tl.store(out_ptr, 1.0)
    in_range = offs < n and offs >= 2  # `and` on tiles is elementwise
    tl.store(out_ptr + 1 + offs, x, mask=in_range)


@pytest.mark.parametrize("target", TARGETS)
def test_one_element_condition_and_elementwise_and(target):
    x = np.arange(1, 17, dtype=np.float32)
    out = np.zeros(17, np.float32)
    tile_conditions[(1,)](x, out, 5, target=target)
    assert out[0] == 1.0 and out[1:].tolist() == [v if 2 <= i < 5 else 0.0 for i, v in enumerate(x)]


@rocktile.jit
def nested_ifs(out_ptr, a, b, c):
    y = 0
    if a > 0:
        if b > 0:
            y = 1
            if c > 0:
                y = 2
        else:
            y = 3
    tl.store(out_ptr, y)


@pytest.mark.parametrize("target", TARGETS)
def test_nested_ifs(target):
    for a, b, c in [(0, 1, 1), (1, 0, 1), (1, 1, 0), (1, 1, 1)]:
        out = np.full(1, -1, np.int32)
        nested_ifs[(1,)](out, a, b, c, target=target)
        assert out[0] == (0 if a <= 0 else 3 if b <= 0 else 2 if c > 0 else 1)


@rocktile.jit
def python_value_in_branches(x_ptr, n):
    f = tl.exp
    if n > 0:  # ERR-python-value
        f = tl.log
    tl.store(x_ptr, f(1.0))


def test_python_values_differing_between_branches_is_an_error():
    error = compile_error(python_value_in_branches, {"x_ptr": "*fp32", "n": "i32"})
    check_error(error, "# ERR-python-value", "'f' is the Python function log in the then branch",
                "cannot differ between the branches")


@rocktile.jit
def escaping_value(x_ptr, n):
    found = []
    if n > 0:
        found.append(tl.load(x_ptr))  # mutation, not an assignment: nothing is merged
    tl.store(x_ptr + 1, found[0])  # ERR-escape


def test_value_escaping_a_branch_without_assignment_is_an_error():
    error = compile_error(escaping_value, {"x_ptr": "*fp32", "n": "i32"})
    check_error(error, "# ERR-escape", "used outside it without being assigned")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("shape", [(4, 1000), (3, 256), (2, 7)])
def test_layer_norm_example(target, shape):
    from layer_norm import layer_norm
    rng = np.random.default_rng(shape[1])
    x = rng.standard_normal(shape, np.float32) * 3 + 1
    w, b = rng.standard_normal((2, shape[1]), np.float32)
    y, mean, rstd = layer_norm(x, w, b, target=target)
    ref_rstd = 1 / np.sqrt(x.var(axis=1) + 1e-5)
    np.testing.assert_allclose(mean, x.mean(axis=1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(rstd, ref_rstd, rtol=1e-4)
    ref = (x - x.mean(axis=1, keepdims=True)) * ref_rstd[:, None] * w + b
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-4)


# --------------------------------------------------------------------------
# Python's min and max: on runtime values they are tl.minimum / tl.maximum,
# as in Triton (the tutorial GEMM's grouped program ordering needs them).

@rocktile.jit
def grouped_order(out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  GROUP_SIZE_M: tl.constexpr):
    pid = tl.program_id(0)
    first_pid_m = pid // (GROUP_SIZE_M * tl.cdiv(N, BLOCK_N)) * GROUP_SIZE_M
    group_size_m = min(tl.cdiv(M, BLOCK_M) - first_pid_m, GROUP_SIZE_M)  # the tutorial GEMM's line
    STATIC: tl.constexpr = max(BLOCK_M, BLOCK_N, 3)  # Python values: Python's max
    lanes = tl.arange(0, 4)
    # three runtime values, a tuple, and a Python number with a tile
    extreme = max(lanes, 2, group_size_m % 4) + min((lanes, pid)) * 10 + STATIC * 100
    tl.store(out_ptr + pid * 5 + lanes, extreme)
    tl.store(out_ptr + pid * 5 + 4, group_size_m)


def grouped_order_reference(M, N, BM, BN, G):
    out = []
    num_m, num_n = -(-M // BM), -(-N // BN)
    for pid in range(num_m * num_n):
        size = min(num_m - pid // (G * num_n) * G, G)
        lanes = np.arange(4)
        extreme = np.maximum(np.maximum(lanes, 2), size % 4) + np.minimum(lanes, pid) * 10 + max(BM, BN, 3) * 100
        out.append(np.concatenate([extreme, [size]]))
    return np.array(out, np.int32)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("M,N,G", [(1000, 300, 4), (64, 640, 8), (130, 70, 2)])
def test_builtin_min_max_on_runtime_values(target, M, N, G):
    want = grouped_order_reference(M, N, 32, 64, G)
    out = np.zeros(want.size, np.int32)
    grouped_order[(want.shape[0],)](out, M, N, BLOCK_M=32, BLOCK_N=64, GROUP_SIZE_M=G, target=target)
    np.testing.assert_array_equal(out.reshape(want.shape), want)


@rocktile.jit
def min_of_one_tile(x_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(x_ptr, min(x))  # ONE TILE


def test_builtin_min_of_one_tile_is_a_clear_error():
    check_error(compile_error(min_of_one_tile, {"x_ptr": "*fp32"}, {"N": 16}), "# ONE TILE",
                "min() of one tile", "tl.min(x, axis=...)")


# An early return under an `if` on a runtime value nested in a compile-time
# `if` (a cross-entropy kernel's ignored label): what follows the outer `if`
# moves into the branches that fall through.
@rocktile.jit
def ignore_label_rows(x_ptr, y_ptr, label_ptr, n_cols, ignore_index, HAS_LABEL: tl.constexpr,
                      BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    if HAS_LABEL:
        label = tl.load(label_ptr + row)
        if label == ignore_index:
            tl.store(y_ptr + row * n_cols + offs, 0.0, mask=mask)
            return
        scale = 3.0
    else:
        scale = 2.0
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0)
    tl.store(y_ptr + row * n_cols + offs, x * scale, mask=mask)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("has_label", [False, True])
def test_early_return_nested_in_a_constexpr_if(target, has_label):
    x = np.random.default_rng(1).standard_normal((4, 20)).astype(np.float32)
    labels = np.array([1, -100, 3, -100], np.int32)
    y = np.full_like(x, 7)
    ignore_label_rows[(4,)](x, y, labels, 20, -100, HAS_LABEL=has_label, BLOCK=32, target=target)
    want = (3 if has_label else 2) * x
    if has_label:
        want[labels == -100] = 0
    np.testing.assert_array_equal(y, want)


# Program ids of every axis read under an `if` on a runtime value and after
# an early return (they are per-workgroup values in the emulator too).
@rocktile.jit
def ids_after_return(y_ptr, n):
    pid0 = tl.program_id(0)
    if pid0 >= n:
        return
    tl.store(y_ptr + pid0 * 4 + tl.program_id(1), (pid0 * 10 + tl.program_id(1)).to(tl.float32))


@rocktile.jit
def ids_under_if(y_ptr, n):
    pid0 = tl.program_id(0)
    v = 0
    if pid0 < n:
        v = tl.program_id(1) + tl.num_programs(1) * 100
    tl.store(y_ptr + pid0 * 4 + tl.program_id(1), v.to(tl.float32))


@pytest.mark.parametrize("target", TARGETS)
def test_program_ids_under_runtime_ifs(target):
    grid = np.arange(6)[:, None], np.arange(4)[None, :]
    y = np.zeros((6, 4), np.float32)
    ids_after_return[(6, 4)](y, 5, target=target)
    np.testing.assert_array_equal(y, np.where(grid[0] < 5, grid[0] * 10 + grid[1], 0))
    ids_under_if[(6, 4)](y, 5, target=target)
    np.testing.assert_array_equal(y, np.where(grid[0] < 5, grid[1] + 400, 0))


# Triton's while-loop condition wrapper: `while tl.condition(c, disable_licm)`.
@rocktile.jit
def halvings(out_ptr, n):
    count = 0
    while tl.condition(n > 1, disable_licm=True):
        n = n // 2
        count += 1
    tl.store(out_ptr, tl.expect_zero(count * 0, count > 0) + count)


@pytest.mark.parametrize("target", ["gfx950", "gfx1250"])
@pytest.mark.parametrize("n", [0, 1, 2, 1000])
def test_while_condition_wrapper(target, n):
    out = np.zeros(1, np.int32)
    halvings[(1,)](out, n, target=target)
    assert out[0] == max(n.bit_length() - 1, 0)


@rocktile.jit
def condition_in_if(out_ptr, n):
    if tl.condition(n > 1):  # ERR-condition-if
        tl.store(out_ptr, 1)


def test_condition_outside_a_while_is_an_error():
    with pytest.raises(rocktile.CompilationError, match="tl.condition wraps the condition of a while loop"):
        rocktile.compile(condition_in_if, signature={"out_ptr": "*i32", "n": "i32"}, target="gfx950")


@rocktile.jit(do_not_specialize=["choose"])
def choose_pointers(out, c_out, flag, choose, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    p = c_out if choose else out  # a select between two arguments
    tl.store(p + offs, offs.to(tl.float32))
    if choose > 1:  # pointers made in each branch: an scf.if giving a pointer
        q = out + (choose - 2)
        tl.store(flag, 2)
    else:
        q = c_out + choose // 3
        tl.store(flag, 1)
    tl.store(q + offs, tl.load(q + offs) + 10.0)
    r = tl.where(offs % 2 == 0, out + offs, c_out + offs)  # a tile of pointers into either
    tl.store(r, tl.load(r) + 100.0)


@pytest.mark.parametrize("target", ["gfx950", "gfx1250"])
@pytest.mark.parametrize("choose", [0, 1, 2])
def test_pointers_chosen_at_run_time_between_arguments(target, choose):
    """A runtime choice between pointers into different arguments (Triton's
    `p = c_out if choose else out`): the compile crashed the process. One
    wave: with more, each would hold a copy of the 64 elements, and reading
    back what another wave stored races (the emulator checks accesses
    through such pointers as through the argument they land in)."""
    n = 64
    out, c_out, flag = np.zeros(n, np.float32), np.zeros(n, np.float32), np.zeros(1, np.int32)
    choose_pointers[(1,)](out, c_out, flag, choose, BLOCK=n, num_warps=1, target=target)
    want = {"out": np.zeros(n, np.float32), "c_out": np.zeros(n, np.float32)}
    want["c_out" if choose else "out"] += np.arange(n)
    want["out" if choose > 1 else "c_out"] += 10
    want["out"][0::2] += 100
    want["c_out"][1::2] += 100
    np.testing.assert_array_equal(out, want["out"])
    np.testing.assert_array_equal(c_out, want["c_out"])
    assert flag[0] == (2 if choose > 1 else 1)


@rocktile.jit
def assigned_numbers(out_ptr, u_ptr, A, BLOCK: tl.constexpr):
    s = 1
    half = (1 / s).to(tl.float32) / 2  # a Python 1 would have no .to
    val = 1.0
    is_fp32 = val.dtype == tl.float32  # nor a .dtype
    v = (A - 127) << 23
    u = tl.load(u_ptr)
    u += v  # uint32 + int32 wraps in 32 bits
    tl.store(u_ptr, u)
    n = BLOCK  # a tensor now, and still a compile-time int for arange
    k: tl.constexpr = 2
    offs = tl.arange(0, n)
    tl.store(out_ptr + offs, half + is_fp32 + offs * k)


@pytest.mark.parametrize("target", TARGETS)
def test_assigned_python_numbers_are_scalar_tensors(target):
    out, u = np.zeros(16, np.float32), np.array([0xFFFFFFFF], np.uint32)
    assigned_numbers[(1,)](out, u, 130, BLOCK=16, target=target)
    np.testing.assert_array_equal(out, 0.5 + 1 + 2 * np.arange(16))
    assert u[0] == (0xFFFFFFFF + (3 << 23)) & 0xFFFFFFFF


@rocktile.jit
def doubled_if_positive(x, c):
    for _ in range(c):
        x += 1.0
    if c > 3:
        return x * 2


@rocktile.jit
def falls_off_the_end(out_ptr, c):
    offs = tl.arange(0, 16)
    tl.store(out_ptr + offs, doubled_if_positive(offs.to(tl.float32), c) + 1)


@pytest.mark.parametrize("target", TARGETS)
def test_a_helper_that_falls_off_its_end_returns_zeros(target):
    """Triton returns poison on the path without a return; rocktile zeros."""
    out = np.zeros(16, np.float32)
    falls_off_the_end[(1,)](out, 5, target=target)
    np.testing.assert_array_equal(out, (np.arange(16) + 5) * 2 + 1)
    falls_off_the_end[(1,)](out, 2, target=target)
    np.testing.assert_array_equal(out, np.ones(16))
