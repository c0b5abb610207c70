"""User errors: each is a CompilationError at file:line:col with the source
line and a caret under the offending expression."""
import pytest

import rocktile
import rocktile.language as tl
from rocktile.errors import error_from_compile_error

FILE = __file__


def position_of(marker, expression):
    """(line, column) of `expression` on the line of this file holding `marker`."""
    with open(FILE) as f:
        for lineno, line in enumerate(f, 1):
            if marker in line:
                return lineno, line.index(expression) + 1
    raise AssertionError(marker)


def compile_error(kernel, signature, constexprs=None) -> rocktile.CompilationError:
    with pytest.raises(rocktile.CompilationError) as info:
        rocktile.compile(kernel, signature=signature, constexprs=constexprs or {}, target="gfx950")
    return info.value


def check_located(error, marker, expression, message_part):
    line, col = position_of(marker, expression)
    text = str(error)
    assert f"{FILE}:{line}:{col}: error: " in text
    assert message_part in text
    source_line, caret_line = text.splitlines()[1:3]
    assert marker in source_line
    assert caret_line == " " * (col - 1) + "^" + "~" * (len(expression) - 1)
    assert (error.filename, error.lineno, error.col) == (FILE, line, col)


@rocktile.jit
def pointer_plus_float(x_ptr):
    y = x_ptr + 1.5  # ERR-ptr-float
    tl.store(y, 1.0)


def test_pointer_plus_float():
    error = compile_error(pointer_plus_float, {"x_ptr": "*fp32"})
    check_located(error, "# ERR-ptr-float", "x_ptr + 1.5", "expected an integer offset")
    # As Triton's: the cause is the error found, without rocktile's internal frames.
    assert "expected an integer offset" in str(error.__cause__) and error.__cause__.__traceback__ is None


@rocktile.jit
def shape_mismatch(x_ptr):
    a = tl.load(x_ptr + tl.arange(0, 128))
    b = tl.load(x_ptr + tl.arange(0, 64))
    tl.store(x_ptr + tl.arange(0, 128), a + b)  # ERR-shape


def test_shape_mismatch():
    error = compile_error(shape_mismatch, {"x_ptr": "*fp32"})
    check_located(error, "# ERR-shape", "a + b", "[128] and [64]")


@rocktile.jit
def unknown_name(x_ptr):
    x = tl.foo(x_ptr)  # ERR-unknown
    tl.store(x_ptr, x)


def test_unknown_tl_name():
    error = compile_error(unknown_name, {"x_ptr": "*fp32"})
    check_located(error, "# ERR-unknown", "tl.foo", "'foo'")
    assert "rocktile.language" in error.message
    assert isinstance(error.__cause__, AttributeError) and error.__cause__.__traceback__ is None


@rocktile.jit
def tensor_condition(x_ptr, n):
    offs = tl.arange(0, 16)
    if offs < n:  # ERR-if
        tl.store(x_ptr, 1.0)


def test_python_if_on_a_tile():
    error = compile_error(tensor_condition, {"x_ptr": "*fp32", "n": "i32"})
    check_located(error, "# ERR-if", "if offs < n", "tl.where")


@rocktile.jit
def not_power_of_two(x_ptr):
    offs = tl.arange(0, 100)  # ERR-pow2
    tl.store(x_ptr + offs, 1.0)


def test_non_power_of_two_shape():
    error = compile_error(not_power_of_two, {"x_ptr": "*fp32"})
    check_located(error, "# ERR-pow2", "tl.arange(0, 100)", "powers of two")


@rocktile.jit
def bad_mask(x_ptr):
    offs = tl.arange(0, 16)
    x = tl.load(x_ptr + offs, mask=offs)  # ERR-mask
    tl.store(x_ptr + offs, x)


def test_non_boolean_mask():
    error = compile_error(bad_mask, {"x_ptr": "*fp32"})
    check_located(error, "# ERR-mask", "tl.load(x_ptr + offs, mask=offs)", "must be boolean")


@rocktile.jit
def broken_helper(x):
    return tl.exp(x)  # ERR-helper


@rocktile.jit
def calls_helper(x_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, broken_helper(offs))


def test_error_inside_a_called_jit_function_points_into_it():
    error = compile_error(calls_helper, {"x_ptr": "*fp32"})
    check_located(error, "# ERR-helper", "tl.exp(x)", "floating-point")


@rocktile.jit
def tile_through_scalar_pointer(x_ptr):
    tl.store(x_ptr, tl.zeros([16], tl.float32))  # ERR-store


def test_store_of_a_tile_through_a_scalar_pointer():
    error = compile_error(tile_through_scalar_pointer, {"x_ptr": "*fp32"})
    check_located(error, "# ERR-store", "tl.store(x_ptr, tl.zeros([16], tl.float32))", "scalar pointer")


@rocktile.jit
def returns_a_value(x_ptr):
    return tl.load(x_ptr)


def test_kernel_returning_a_value():
    error = compile_error(returns_a_value, {"x_ptr": "*fp32"})
    assert "cannot return a value" in str(error) and error.filename == FILE


@rocktile.jit
def python_bug(x_ptr):
    return {}["missing"]  # ERR-python


def test_other_python_exceptions_are_located_too():
    error = compile_error(python_bug, {"x_ptr": "*fp32"})
    check_located(error, "# ERR-python", '{}["missing"]', "KeyError")


# --------------------------------------------------------------------------
# Errors of the compile API.

@rocktile.jit
def simple(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, 1.0, mask=offs < n)


@pytest.mark.parametrize("signature, constexprs, target, message", [
    ({"x_ptr": "*fp32"}, {"BLOCK": 16}, "gfx950", "no type for 'n'"),
    ({"x_ptr": "*fp32", "n": "i32", "m": "i32"}, {"BLOCK": 16}, "gfx950", "'m'"),
    ({"x_ptr": "*float", "n": "i32"}, {"BLOCK": 16}, "gfx950", "invalid signature type '*float'"),
    ({"x_ptr": "*fp32:8", "n": "i32"}, {"BLOCK": 16}, "gfx950", "':16'"),
    ({"x_ptr": "*fp32", "n": "fp32:16"}, {"BLOCK": 16}, "gfx950", "pointers and integers"),
    ({"x_ptr": "*fp32", "n": "i32"}, {}, "gfx950", "no value for the constexpr parameter(s) 'BLOCK'"),
    ({"x_ptr": "*fp32", "n": "i32", "BLOCK": "i32"}, {"BLOCK": 16}, "gfx950", "is a tl.constexpr parameter"),
    ({"x_ptr": "*fp32", "n": "i32"}, {"BLOCK": 16, "OTHER": 1}, "gfx950", "'OTHER'"),
    ({"x_ptr": "*fp32", "n": "i32"}, {"BLOCK": 16}, "gfx942", "unknown target 'gfx942'"),
])
def test_compile_argument_errors(signature, constexprs, target, message):
    with pytest.raises(ValueError) as info:
        rocktile.compile(simple, signature=signature, constexprs=constexprs, target=target)
    assert message in str(info.value)


def test_bad_num_warps():
    with pytest.raises(ValueError, match="num_warps"):
        simple.compile({"x_ptr": "*fp32", "n": "i32"}, {"BLOCK": 16}, num_warps=3)


def test_calling_a_kernel_directly_is_an_error():
    with pytest.raises(RuntimeError, match="launch it as"):
        simple(1, 2, 3)


def test_warmup_rejects_unsupported_arguments():
    with pytest.raises(TypeError, match="cannot pass str"):
        simple.warmup("x", 16, BLOCK=16)


# --------------------------------------------------------------------------
# Diagnostics from the C++ compiler.

def test_compile_error_text_becomes_a_located_compilation_error():
    line, col = position_of("# ERR-ptr-float", "x_ptr + 1.5")
    text = "\n".join([
        f"{FILE}:{line}:{col}: error: 'tile.addptr' op operand #1 must be integer",
        f"{FILE}:{line}:{col}: note: see current operation: %3 = \"tile.addptr\"(%1, %2)",
        '  %3 = "tile.addptr"(%1, %2) : (!tile.ptr<f32>, f32) -> !tile.ptr<f32>',
        f"{FILE}:{line + 1}:5: note: used here",
    ])
    error = error_from_compile_error(text, {(FILE, line, col): col + len("x_ptr + 1.5")})
    out = str(error)
    assert out.startswith(f"{FILE}:{line}:{col}: error: 'tile.addptr' op operand #1 must be integer\n")
    assert "y = x_ptr + 1.5" in out
    assert " " * (col - 1) + "^~~~~~~~~~~" in out
    assert "see current operation" not in out and '"tile.addptr"(%1' not in out
    assert f"{FILE}:{line + 1}:5: note: used here" in out
    assert [d.severity for d in error.diagnostics] == ["error", "note"]


@pytest.mark.parametrize("text", ["<unknown>:0:0: error: too many VGPRs", "error: too many VGPRs"])
def test_compile_error_without_location_uses_the_fallback(text):
    error = error_from_compile_error(text, {}, (FILE, 3, 1, None))
    assert str(error).startswith(f"{FILE}:3:1: error: too many VGPRs")


def test_bad_num_warps_is_the_error_triton_raises():
    """num_warps=3: Triton asserts (AssertionError, "num_warps must be a power
    of 2"); rocktile's error is that and a ValueError."""
    import numpy as np

    @rocktile.jit
    def one(out):
        tl.store(out, 1.0)
    for error in (AssertionError, ValueError):
        with pytest.raises(error, match="num_warps must be a power of 2"):
            one[(1,)](np.zeros(1, np.float32), num_warps=3)


@rocktile.jit
def ten_live_tiles(x_ptr, y_ptr, N: tl.constexpr):
    o = tl.arange(0, N)
    a, b, c, d, e = (tl.load(x_ptr + o + i) for i in (0, 1, 2, 3, 4))
    f, g, h, i, j = (tl.load(x_ptr + o + i) for i in (5, 6, 7, 8, 9))
    tl.store(y_ptr + o, a * b * c * d * e * f * g * h * i * j)  # ALL LIVE


@pytest.mark.parametrize("target,registers,scratch", [("gfx950", 512, 32764), ("gfx1250", 1024, 524286)])
def test_tiles_beyond_registers_and_scratch_are_an_error(target, registers, scratch):
    """Ten 2^20-element int64 tiles live at once on one warp: more than a
    lane's registers and scratch. An error at the line, at once (LLVM
    would spill for many minutes, then fail), naming both figures."""
    import time
    line = next(i for i, t in enumerate(open(__file__), 1) if "# ALL LIVE" in t)
    start = time.monotonic()
    with pytest.raises(rocktile.CompilationError) as info:
        rocktile.compile(ten_live_tiles, signature={"x_ptr": "*i64", "y_ptr": "*i64"}, constexprs={"N": 1 << 20},
                         target=target, num_warps=1)
    assert time.monotonic() - start < 30
    assert info.value.lineno == line, str(info.value)
    import re
    found = re.search(rf"the tiles live here need (\d+) registers in each lane of 1 warp; {target} holds "
                      rf"{registers} in registers and {scratch} more in scratch: use smaller blocks or more warps",
                      str(info.value))
    assert found and int(found[1]) > registers + scratch, str(info.value)
