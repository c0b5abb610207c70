"""The front end's IR and typing rules, checked on the tile IR it builds."""
import re

import numpy as np
import pytest

import rocktile
import rocktile.language as tl
from rocktile.compiler import trace_ir

SEEN = {}  # kernels below record Python-side values here while they are traced


def line_of(marker):
    """1-based line of this file that contains `marker`."""
    with open(__file__) as f:
        return next(i for i, line in enumerate(f, 1) if marker in line)


@rocktile.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)  # LOC-program-id
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


ADD_SIG = {"x_ptr": "*fp32:16", "y_ptr": "*fp32:16", "out_ptr": "*fp32:16", "n": "i32:16"}


def test_vector_add_ir():
    ir = trace_ir(add_kernel, ADD_SIG, {"BLOCK": 1024})
    for op in ("func.func", "tile.program_id", "tile.make_range", "tile.splat", "tile.addptr",
               "tile.load", "tile.store", "arith.addf", "arith.cmpi slt", "arith.muli"):
        assert op in ir, op
    assert "tensor<1024x!tile.ptr<f32>>" in ir
    assert "tensor<1024xi1>" in ir
    assert ir.count("tile.divisibility = 16 : i32") == 4
    assert ir.count("tile.load") == 2 and ir.count("tile.store") == 1


def test_no_divisibility_without_suffix():
    sig = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}
    assert "tile.divisibility" not in trace_ir(add_kernel, sig, {"BLOCK": 256})


def test_locations_point_at_the_kernel_source():
    ir = trace_ir(add_kernel, ADD_SIG, {"BLOCK": 128}, debug_info=True)
    line = line_of("# LOC-program-id")
    col = open(__file__).read().splitlines()[line - 1].index("tl.program_id") + 1
    assert f'{__file__}":{line}:{col}' in ir


# --------------------------------------------------------------------------
# Promotion: a kernel applies OP (a constexpr) to two loaded tiles.

@rocktile.jit
def binary_kernel(a_ptr, b_ptr, OP: tl.constexpr):
    offs = tl.arange(0, 16)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    SEEN["result"] = OP(a, b)


def binary_result(a_type, b_type, op):
    ir = trace_ir(binary_kernel, {"a_ptr": "*" + a_type, "b_ptr": "*" + b_type}, {"OP": op})
    return SEEN.pop("result"), ir


@pytest.mark.parametrize("a_type, b_type, op, expected", [
    ("fp16", "fp32", lambda a, b: a + b, tl.float32),
    ("fp16", "fp16", lambda a, b: a * b, tl.float16),
    ("bf16", "fp16", lambda a, b: a + b, tl.float32),
    ("i32", "fp16", lambda a, b: a - b, tl.float16),
    ("i64", "i32", lambda a, b: a + b, tl.int64),
    ("i8", "u8", lambda a, b: a + b, tl.uint8),
    ("i32", "u8", lambda a, b: a + b, tl.int32),
    ("i32", "i32", lambda a, b: a / b, tl.float32),
    ("fp16", "fp16", lambda a, b: a / b, tl.float32),
    ("i32", "i32", lambda a, b: a // b, tl.int32),
    ("i32", "i64", lambda a, b: a % b, tl.int64),
    ("fp32", "fp32", lambda a, b: a < b, tl.int1),
    ("i32", "i32", lambda a, b: a == b, tl.int1),
    ("fp16", "fp16", lambda a, b: a + 1.5, tl.float16),
    ("bf16", "bf16", lambda a, b: 2 * a, tl.bfloat16),
    ("i32", "i32", lambda a, b: a + 1.5, tl.float32),
    ("i8", "i8", lambda a, b: a + 1, tl.int8),  # a Python int of the same kind takes the tensor's type
    ("u8", "u8", lambda a, b: a * 2, tl.uint8),
    ("fp16", "fp16", lambda a, b: a / 2, tl.float32),
    ("i16", "i16", lambda a, b: a + 2.0, tl.float32),
    ("i64", "i64", lambda a, b: a * 3, tl.int64),
    ("i32", "i32", lambda a, b: tl.maximum(a, b), tl.int32),
    ("fp16", "fp32", lambda a, b: tl.minimum(a, b), tl.float32),
    ("i32", "fp32", lambda a, b: tl.where(a > 0, a, b), tl.float32),
])
def test_promotion(a_type, b_type, op, expected):
    result, _ = binary_result(a_type, b_type, op)
    assert result.dtype == expected
    assert result.shape == (16,)


@pytest.mark.parametrize("a_type, op, expected_ops", [
    ("i32", lambda a, b: a // b, ["arith.divsi"]),
    ("u32", lambda a, b: a // b, ["arith.divui"]),
    ("i32", lambda a, b: a % b, ["arith.remsi"]),
    ("fp32", lambda a, b: a % b, ["arith.remf"]),
    ("i32", lambda a, b: a / b, ["arith.sitofp", "arith.divf"]),
    ("i32", lambda a, b: a >> b, ["arith.shrsi"]),
    ("u32", lambda a, b: a >> b, ["arith.shrui"]),
    ("i32", lambda a, b: a << b, ["arith.shli"]),
    ("i32", lambda a, b: a & b | a ^ b, ["arith.andi", "arith.ori", "arith.xori"]),
    ("u32", lambda a, b: a < b, ["arith.cmpi ult"]),
    ("fp32", lambda a, b: a != b, ["arith.cmpf une"]),
    ("fp32", lambda a, b: a >= b, ["arith.cmpf oge"]),
    ("fp32", lambda a, b: tl.maximum(a, b), ["arith.maxnumf"]),
    ("i32", lambda a, b: tl.minimum(a, b), ["arith.minsi"]),
    ("fp32", lambda a, b: -a, ["arith.negf"]),
    ("i32", lambda a, b: -a, ["arith.subi"]),
    ("fp32", lambda a, b: tl.where(a < b, a, b), ["arith.select"]),
])
def test_ops(a_type, op, expected_ops):
    _, ir = binary_result(a_type, a_type, op)
    for name in expected_ops:
        assert name in ir, name


@pytest.mark.parametrize("a_type, op, message", [
    ("i32", lambda a, b: a + 2**31, "out of range for int32"),
    ("i8", lambda a, b: a * 300, "out of range for int8"),
    ("u32", lambda a, b: a - 1 + (-1), "unsigned tensor (uint32) and the negative number -1"),
])
def test_python_ints_must_fit_the_tensor_type(a_type, op, message):
    with pytest.raises(rocktile.CompilationError, match=re.escape(message)):
        binary_result(a_type, a_type, op)


def test_python_int_types():
    from rocktile.language.semantic import python_dtype
    assert [python_dtype(v) for v in (True, 1, 2**31, -2**31 - 1, 2**63)] == [
        tl.int1, tl.int32, tl.uint32, tl.int64, tl.uint64]


def test_int_literals_and_weak_floats_make_constants_of_the_result_type():
    result, ir = binary_result("fp16", "fp16", lambda a, b: a * 0.5)
    assert result.dtype == tl.float16
    assert re.search(r"arith\.constant .*: f16", ir)
    assert "arith.extf" not in ir  # no fp32 detour for a weak float literal


@pytest.mark.parametrize("src, dst, expected_op", [
    ("fp32", tl.float16, "arith.truncf"),
    ("fp16", tl.float32, "arith.extf"),
    ("i32", tl.float32, "arith.sitofp"),
    ("u32", tl.float32, "arith.uitofp"),
    ("fp32", tl.int32, "arith.fptosi"),
    ("i32", tl.int64, "arith.extsi"),
    ("u8", tl.int32, "arith.extui"),
    ("i64", tl.int16, "arith.trunci"),
    ("fp32", tl.int1, "arith.cmpf une"),
    ("i32", tl.int1, "arith.cmpi ne"),
    ("fp32", tl.int32, "arith.fptosi"),
])
def test_casts(src, dst, expected_op):
    result, ir = binary_result(src, src, lambda a, b: a.to(dst))
    assert result.dtype == dst
    assert expected_op in ir


def test_bitcast():
    result, ir = binary_result("fp32", "fp32", lambda a, b: a.to(tl.int32, bitcast=True))
    assert result.dtype == tl.int32 and "arith.bitcast" in ir


# --------------------------------------------------------------------------
# Shapes: broadcasting, indexing, reductions.

@rocktile.jit
def shape_kernel(x_ptr, FN: tl.constexpr):
    rows = tl.load(x_ptr + tl.arange(0, 16))
    cols = tl.load(x_ptr + tl.arange(0, 32))
    SEEN["result"] = FN(rows, cols)


def shape_result(fn, ptr="*fp32"):
    ir = trace_ir(shape_kernel, {"x_ptr": ptr}, {"FN": fn})
    return SEEN.pop("result"), ir


def test_outer_broadcast_with_none_indexing():
    result, ir = shape_result(lambda r, c: r[:, None] * c[None, :])
    assert result.shape == (16, 32)
    assert "tile.expand_dims" in ir and "tile.broadcast" in ir
    assert "tensor<16x32xf32>" in ir


def test_lower_rank_operand_gets_leading_dims():
    result, _ = shape_result(lambda r, c: r[:, None] + c[None, :] + c)
    assert result.shape == (16, 32)


def test_scalar_broadcasts():
    result, ir = shape_result(lambda r, c: r * tl.program_id(0))
    assert result.shape == (16,) and result.dtype == tl.float32
    assert "arith.sitofp" in ir and "tile.splat" in ir


@pytest.mark.parametrize("fn, shape, dtype", [
    (lambda r, c: tl.sum(r[:, None] * c[None, :], axis=1), (16,), tl.float32),
    (lambda r, c: tl.max(r[:, None] * c[None, :], axis=0), (32,), tl.float32),
    (lambda r, c: tl.min(r[:, None] * c[None, :], axis=-1, keep_dims=True), (16, 1), tl.float32),
    (lambda r, c: tl.sum(r[:, None] * c[None, :]), (), tl.float32),
    (lambda r, c: tl.sum(r[:, None] * c[None, :], keep_dims=True), (1, 1), tl.float32),
    (lambda r, c: tl.sum(r), (), tl.float32),
    (lambda r, c: r.sum(axis=0), (), tl.float32),
    (lambda r, c: tl.sum(r.to(tl.int8)), (), tl.int32),
    (lambda r, c: tl.sum(r.to(tl.float16)), (), tl.float16),
    (lambda r, c: tl.sum(r.to(tl.float16), dtype=tl.float32), (), tl.float32),
])
def test_reductions(fn, shape, dtype):
    result, ir = shape_result(fn)
    assert result.shape == shape and result.dtype == dtype
    assert "tile.reduce" in ir and "tile.reduce.return" in ir


def test_max_reduction_combiner():
    _, ir = shape_result(lambda r, c: tl.max(r, axis=0))
    assert "arith.maxnumf" in ir


def test_full_zeros_and_where():
    result, ir = shape_result(lambda r, c: tl.where(r > 0, r, tl.zeros([16], tl.float32)) + tl.full((16,), 2, tl.float32))
    assert result.shape == (16,) and result.dtype == tl.float32
    assert "arith.select" in ir and "arith.constant" in ir


def test_expand_dims_broadcast_to_and_num_programs():
    result, ir = shape_result(lambda r, c: tl.broadcast_to(tl.expand_dims(r, 1), (16, 32)) + tl.num_programs(1))
    assert result.shape == (16, 32) and result.dtype == tl.float32
    assert "tile.num_programs" in ir and "tile.expand_dims" in ir and "tile.broadcast" in ir


def test_full_with_a_scalar_tensor_value():
    result, _ = shape_result(lambda r, c: tl.full([8, 4], tl.program_id(0), tl.float16))
    assert result.shape == (8, 4) and result.dtype == tl.float16


def test_masks_combine_with_bitwise_operators():
    result, ir = shape_result(lambda r, c: ~((r > 0) & (r < 1) | (r == 2)))
    assert result.dtype == tl.int1 and "arith.andi" in ir and "arith.xori" in ir


def test_math_on_half_computes_in_fp32():
    result, ir = shape_result(lambda r, c: tl.exp(r.to(tl.float16)))
    assert result.dtype == tl.float16
    assert re.search(r"math\.exp2 .*: tensor<16xf32>", ir)
    assert "arith.truncf" in ir


@pytest.mark.parametrize("name", ["exp", "exp2", "log", "log2", "sqrt", "rsqrt"])
def test_math_functions(name):
    result, ir = shape_result(lambda r, c: getattr(tl, name)(r))
    assert result.dtype == tl.float32 and f"math.{name}" in ir


def test_abs():
    _, ir = shape_result(lambda r, c: tl.abs(r) + tl.abs(r.to(tl.int32)).to(tl.float32))
    assert "math.absf" in ir and "math.absi" in ir


def test_bool_pointers_are_bytes():
    result, ir = shape_result(lambda r, c: r, ptr="*i1")
    assert result.dtype == tl.int1
    assert "!tile.ptr<i8>" in ir and "arith.cmpi ne" in ir


@rocktile.jit
def masked_load_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=-float("inf"))
    tl.store(x_ptr + offs, x, mask=offs < n)


def test_load_other_minus_inf():
    ir = trace_ir(masked_load_kernel, {"x_ptr": "*fp32", "n": "i32"}, {"BLOCK": 64})
    assert "0xFF800000" in ir  # -inf, written as its bit pattern


# --------------------------------------------------------------------------
# constexprs, helpers, nested @jit functions.

@rocktile.jit
def double(x):
    return x * 2


@rocktile.jit
def helper_kernel(x_ptr, N: tl.constexpr, REPEAT: tl.constexpr = 3):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    for _ in tl.static_range(REPEAT):
        x = double(x)
    SEEN["blocks"] = tl.cdiv(N, 16)  # a Python int (assigned to a name, it would be a scalar tensor)
    tl.store(x_ptr + offs, x + tl.cdiv(offs, 4).to(tl.float32))


def test_constexpr_defaults_static_range_nested_jit_and_cdiv():
    ir = trace_ir(helper_kernel, {"x_ptr": "*fp32"}, {"N": 64})
    assert ir.count("arith.mulf") == 3
    assert SEEN.pop("blocks") == 4
    assert "arith.divsi" in ir  # tensor cdiv


def test_cdiv_and_next_power_of_2_on_python_ints():
    assert rocktile.cdiv(1000, 128) == 8 and tl.cdiv(1024, 128) == 8
    assert [rocktile.next_power_of_2(n) for n in (1, 2, 3, 1000, 1024)] == [1, 2, 4, 1024, 1024]


def test_dtypes():
    assert str(tl.float32) == "fp32" and tl.float16.is_floating() and tl.int1.is_bool()
    assert tl.pointer_type(tl.float32) == tl.pointer_type(tl.float32)
    assert tl.pointer_type(tl.float32).element_ty == tl.float32
    assert tl.block_type(tl.float16, [4, 8]).mlir == "tensor<4x8xf16>"
    assert tl.bfloat16.mlir == "bf16"


def test_language_functions_outside_a_kernel_fail_clearly():
    with pytest.raises(Exception, match="inside a @rocktile.jit function"):
        tl.program_id(0)


@rocktile.jit
def narrow_max_min(x_ptr, out_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    hi, lo = tl.max(x, 0), x.min(0)
    tl.static_assert(hi.dtype == tl.float32 if x.dtype.is_floating() else hi.dtype == tl.int32)
    tl.static_assert(lo.dtype == hi.dtype)
    tl.store(out_ptr, hi.to(tl.float32))
    tl.store(out_ptr + 1, lo.to(tl.float32))


@pytest.mark.parametrize("target", ["gfx950", "gfx1250"])
@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "int8", "uint8", "int16"])
def test_max_and_min_of_narrow_types_are_32_bit(target, dtype):
    """Triton's tl.max/tl.min reduce values narrower than 32 bits as fp32 or
    int32 (unsigned too), so their results are of those dtypes."""
    import ml_dtypes
    np_type = ml_dtypes.bfloat16 if dtype == "bfloat16" else getattr(np, dtype)
    x = (np.arange(64) * 3 % 61 + 2).astype(np_type)
    out = np.zeros(2, np.float32)
    narrow_max_min[(1,)](x, out, N=64, target=target)
    assert list(out) == [float(x.astype(np.float32).max()), float(x.astype(np.float32).min())]


@rocktile.jit
def shapes_as_triton_compares_them(x_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.static_assert(x.shape == [N])
    tl.static_assert(x.shape != [N, 1])
    tl.static_assert(x.shape == (N,))
    tl.static_assert(x.type.get_block_shapes() == [N])
    tl.static_assert(x.type.is_block() and x.type.scalar == tl.float32 and x.type.numel == N)
    tl.static_assert(x.type.nbytes == 4 * N and x.type.with_element_ty(tl.int8).nbytes == N)
    tl.store(x_ptr + tl.arange(0, N), x + 1)


def test_shapes_compare_with_lists_and_block_type_methods():
    """tl.static_assert(x.shape == [N]) holds (Triton's tuples equal lists),
    and the block_type methods real kernels call exist."""
    x = np.zeros(16, np.float32)
    shapes_as_triton_compares_them[(1,)](x, N=16)
    np.testing.assert_array_equal(x, 1)


@rocktile.jit
def shift_and_divide(a_ptr, b_ptr, out_ptr, OP: tl.constexpr):
    offs = tl.arange(0, 16)
    a, b = tl.load(a_ptr + offs), tl.load(b_ptr + offs)
    if OP == ">>":
        r = a >> b
    elif OP == "//":
        r = a // b
    else:
        r = a % b
    tl.store(out_ptr + offs, r)


@pytest.mark.parametrize("target", ["gfx950", "gfx1250"])
def test_mixed_signedness_as_triton(target):
    """int8 >> uint8: arithmetic, as the left operand is signed, on the
    operands promoted to uint8 (Triton's rule); `//` and `%` between signed
    and unsigned tensors are errors, as in Triton."""
    a = np.array([-128, -64, -1, 5] * 4, np.int8)
    b = np.array([1, 2, 3, 7] * 4, np.uint8)
    out = np.zeros(16, np.uint8)
    shift_and_divide[(1,)](a, b, out, OP=">>", target=target)
    np.testing.assert_array_equal(out[:4], [192, 240, 255, 0])
    for op in ("//", "%"):
        with pytest.raises(rocktile.CompilationError, match=f"cannot use '{op}' with int8 and uint8: they have "
                                                            "different signedness"):
            shift_and_divide[(1,)](a, b, out, OP=op, target=target)


@rocktile.jit
def bitcast_numbers(out):
    tl.store(out, tl.cast(0x4A800000, tl.float32, bitcast=True))  # an int32's bits: 2^22
    tl.store(out + 1, tl.cast(1.0, tl.int32, bitcast=True).to(tl.float32))  # fp32 1.0's bits


def test_bitcast_of_a_python_number_reinterprets_its_bits():
    """tl.cast(<int constexpr>, tl.float32, bitcast=True) reinterprets the
    number's bits, typed as Triton types it (int32 here): it converted the
    value (0x4A800000 gave 1.25e9, not 2^22)."""
    out = np.zeros(2, np.float32)
    bitcast_numbers[(1,)](out)
    assert out[0] == 2.0 ** 22 and out[1] == float(0x3F800000)
