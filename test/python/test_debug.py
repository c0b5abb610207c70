"""device_print / device_assert in the emulator (and the error when compiled
for hardware), and the multiple_of / max_contiguous hints."""
import numpy as np
import pytest

import rocktile
import rocktile.language as tl

TARGETS = ["gfx950", "gfx1250"]


@rocktile.jit
def show(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.device_print("x", x)
    tl.device_assert(offs < n, "offs must stay below n")


ASSERT_LINE = show.fn.__code__.co_firstlineno + 5


@pytest.mark.parametrize("target", TARGETS)
def test_device_print_prints_every_element(target, capfd):
    x = np.arange(8, dtype=np.int32) * 10
    show[(1,)](x, 8, BLOCK=8, target=target)
    lines = sorted(line for line in capfd.readouterr().out.splitlines() if line.startswith("pid"))
    assert lines == sorted(f"pid (0, 0, 0) idx ({i}) x {10 * i}" for i in range(8))


@rocktile.jit
def show_hex(x_ptr):
    offs = tl.arange(0, 4)
    x = tl.load(x_ptr + offs)
    tl.device_print("i32", x, hex=True)
    tl.device_print("i8", x.to(tl.int8), hex=True)
    tl.device_print("i64", x.to(tl.int64), hex=True)
    tl.device_print("f32", x.to(tl.float32), hex=True)
    tl.device_print("fp8", x.to(tl.float8e4nv), hex=True)
    tl.device_print("fp8 value", x.to(tl.float8e4nv))
    tl.device_print("u8", x.to(tl.uint8))
    tl.device_print("u32", x.to(tl.uint32))


@pytest.mark.parametrize("target", TARGETS)
def test_device_print_hex_and_unsigned_values(target, capfd):
    x = np.array([1, -2, 200, 3], np.int32)
    show_hex[(1,)](x, target=target, num_warps=1)
    lines = set(line for line in capfd.readouterr().out.splitlines() if line.startswith("pid"))
    want = {
        (1, "i32 0x00000001"), (1, "i8 0x01"), (1, "i64 0x0000000000000001"), (1, "f32 0x3f800000"),
        (1, "fp8 0x38"), (1, "fp8 value 1.000000"),
        (-2, "i32 0xfffffffe"), (-2, "i8 0xfe"), (-2, "i64 0xfffffffffffffffe"), (-2, "f32 0xc0000000"),
        (-2, "fp8 0xc0"), (-2, "fp8 value -2.000000"), (-2, "u8 254"), (-2, "u32 4294967294"), (200, "u8 200"),
        (200, "i8 0xc8"), (200, "fp8 0x74"), (200, "fp8 value 192.000000"),  # 200 rounds to 192 in e4m3
    }
    index = {v: i for i, v in enumerate(x.tolist())}
    for value, text in want:
        assert f"pid (0, 0, 0) idx ({index[value]}) {text}" in lines


@pytest.mark.parametrize("target", TARGETS)
def test_device_assert_fails_with_message_and_line(target):
    x = np.zeros(8, np.int32)
    with pytest.raises(rocktile.EmulatorError) as e:
        show[(1,)](x, 6, BLOCK=8, target=target)
    message = str(e.value)
    assert "device_assert failed: offs must stay below n" in message
    assert f"{__file__}:{ASSERT_LINE}:" in message
    assert "lane 6" in message


def test_debug_ops_are_an_error_for_hardware():
    with pytest.raises(rocktile.CompilationError) as e:
        rocktile.compile(show, signature={"x_ptr": "*i32", "n": "i32"}, constexprs={"BLOCK": 8})
    message = str(e.value)
    assert "run only in the emulator" in message and f":{ASSERT_LINE - 1}:" in message


@rocktile.jit
def hinted_copy(x_ptr, y_ptr, start, BLOCK: tl.constexpr):
    offs = tl.max_contiguous(tl.multiple_of(start + tl.arange(0, BLOCK), 16), BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs))


@pytest.mark.parametrize("target", TARGETS)
def test_hints_vectorize_and_keep_results(target):
    sig = {"x_ptr": "*fp32:16", "y_ptr": "*fp32:16", "start": "i32"}
    plain = rocktile.compile(hinted_copy, signature=sig, constexprs={"BLOCK": 1024}, target=target)
    wide = "_load_dwordx4" if target == "gfx950" else "_load_b128"
    assert wide in plain.asm["amdgcn"] and "tile.assume" in plain.asm["tile"]
    x = np.random.rand(4096).astype(np.float32)
    y = np.zeros_like(x)
    hinted_copy[(1,)](x, y, 2048, BLOCK=1024, target=target)
    np.testing.assert_array_equal(y[2048:3072], x[2048:3072])


def test_hint_errors():
    @rocktile.jit
    def bad(x_ptr, BLOCK: tl.constexpr):
        tl.store(x_ptr + tl.multiple_of(tl.arange(0, BLOCK), 3), 1.0)

    with pytest.raises(rocktile.CompilationError, match="one power of two per dimension"):
        rocktile.compile(bad, signature={"x_ptr": "*fp32"}, constexprs={"BLOCK": 16})
