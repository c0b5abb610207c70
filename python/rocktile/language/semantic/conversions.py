"""How ops are built (`_emit`: fp8 arithmetic is computed in fp32, so building needs
conversions), Python values as constants, comparisons, and conversions between dtypes."""
from __future__ import annotations

import math
import struct

import numpy as np

from ...errors import SemanticError
from ..types import float32, int1, int32, int64, uint32, uint64
from .tracing import Unbound, _shape_of, _typed, constexpr, current, tensor


# Ops that move or convert fp8 values as they are; every other arith or math
# op on fp8 is computed in fp32 and rounded back to fp8.
_FP8_AS_IS = {"arith.constant", "arith.select", "arith.extf", "arith.truncf", "arith.bitcast"}


def _emit(name, operands, ty, attrs=None):
    """Build a one-result op and wrap its result."""
    if (name.startswith(("arith.", "math.")) and name not in _FP8_AS_IS
            and any(t.scalar.is_fp8() for t in [ty] + [o.type for o in operands])):
        wide = [cast(o, float32) if o.dtype.is_fp8() else o for o in operands]
        result = _emit(name, wide, _typed(_shape_of(ty), float32) if ty.scalar.is_fp8() else ty, attrs)
        return cast(result, ty.scalar)
    op = current().create(name, operands, [ty], attrs)
    return tensor(op.result(0), ty)


def _value(x):
    """Unwrap constexprs and numpy scalars into plain Python values."""
    if isinstance(x, Unbound):
        raise SemanticError(x.message)
    if isinstance(x, constexpr):
        x = x.value
    if isinstance(x, np.generic):
        x = x.item()
    return x


def _is_number(x):
    return isinstance(x, (bool, int, float))


def python_dtype(x):
    """The dtype of a Python number, as Triton gives it: bool -> int1, int ->
    int32 (uint32, int64 or uint64 if it does not fit), float -> float32."""
    if isinstance(x, bool):
        return int1
    if isinstance(x, int):
        if -2**31 <= x < 2**31:
            return int32
        if 2**31 <= x < 2**32:
            return uint32
        if -2**63 <= x < 2**63:
            return int64
        if 0 <= x < 2**64:
            return uint64
        raise SemanticError(f"the integer {x} does not fit in 64 bits")
    if isinstance(x, float):
        return float32
    raise SemanticError(f"expected a tensor or a Python number, got {type(x).__name__} {x!r}")


def to_tensor(x, dtype=None):
    """A tensor for `x`; a Python number becomes a constant of `dtype`
    (default: its own python_dtype)."""
    x = _value(x)
    if isinstance(x, tensor):
        return x
    return constant(x, dtype or python_dtype(x))


def constant_tensor(x):
    """A scalar tensor for the Python number `x` that remembers it
    (`tensor.constant_value`), for control.assigned."""
    t = to_tensor(x)
    t.constant_value = x
    return t


def constant(value, dt):
    value = _value(value)
    if not _is_number(value):
        raise SemanticError(f"expected a Python number for a {dt} constant, got {type(value).__name__} {value!r}")
    if dt.is_fp8():
        # Rounded by the same conversion as any other fp32 -> fp8 value.
        return cast(constant(value, float32), dt)
    return _emit("arith.constant", [], dt, {"value": _literal(value, dt)})


def _literal(value, dt) -> str:
    """MLIR attribute text for `value` as a `dt` constant.  Floats are written
    as their exact bit pattern: MLIR's float syntax has no inf/nan and
    needs a '.' in every literal."""
    if dt.is_bool():
        return "true" if value else "false"
    if dt.is_int():
        if isinstance(value, float):
            if not math.isfinite(value):
                raise SemanticError(f"cannot convert {value} to {dt}")
            value = int(value)
        width = dt.primitive_bitwidth
        value = int(value) & ((1 << width) - 1)  # two's complement in `width` bits
        if value >= 1 << (width - 1):
            value -= 1 << width
        return f"{value} : {dt.mlir}"
    bits = _float_bits(float(value), dt)
    return f"0x{bits:0{dt.primitive_bitwidth // 4}X} : {dt.mlir}"


def _float_bits(value: float, dt) -> int:
    with np.errstate(over="ignore"):
        if dt.is_fp64():
            return struct.unpack("<Q", struct.pack("<d", value))[0]
        if dt.is_fp16():
            return int(np.float16(value).view(np.uint16))
        f32 = int(np.float32(value).view(np.uint32))
    if dt.is_fp32():
        return f32
    # bfloat16: the high half of the float32, rounded to nearest even.
    if math.isnan(value):
        return 0x7FC0
    return ((f32 + 0x7FFF + ((f32 >> 16) & 1)) >> 16) & 0xFFFF


def _pointer_cast(x, src, dst):
    """A pointer from a 64-bit integer address, a pointer's address, or a
    pointer to another element type (through its address), as Triton casts."""
    def is_address(t):
        return t.is_int() and t.primitive_bitwidth == 64
    if src.is_ptr() and dst.is_ptr():
        return _pointer_cast(_pointer_cast(x, src, int64), int64, dst)
    if dst.is_ptr():
        if not is_address(src):
            raise SemanticError(f"cannot convert {src} to {dst}: addresses are 64-bit integers (int64 or uint64)")
        return _emit("tile.int_to_ptr", [x], _typed(x.shape, dst))
    if not is_address(dst):
        raise SemanticError(f"cannot convert {src} to {dst}: a pointer converts to its address, an int64 or uint64")
    return _emit("tile.ptr_to_int", [x], _typed(x.shape, dst))


# Comparison predicates: arith.cmpf's (ordered; '!=' is unordered, true for
# NaN) and arith.cmpi's signed and unsigned ones.
_CMPF = {"==": 1, "!=": 13, "<": 4, "<=": 5, ">": 2, ">=": 3}
_CMPI_SIGNED = {"==": 0, "!=": 1, "<": 2, "<=": 3, ">": 4, ">=": 5}
_CMPI_UNSIGNED = {"==": 0, "!=": 1, "<": 6, "<=": 7, ">": 8, ">=": 9}


def compare(x, y, op):
    """`x op y` of two values of one dtype and shape, as int1."""
    result = _typed(x.shape, int1)
    if x.dtype.is_floating():
        return _emit("arith.cmpf", [x, y], result, {"predicate": f"{_CMPF[op]} : i64"})
    table = _CMPI_SIGNED if x.dtype.is_int_signed() else _CMPI_UNSIGNED
    return _emit("arith.cmpi", [x, y], result, {"predicate": f"{table[op]} : i64"})


def _nonzero(x):
    """x != 0: a number's conversion to bool (NaN is true)."""
    zero = constant(0, x.dtype)
    if x.shape:
        zero = _emit("tile.splat", [zero], x.type)
    return compare(x, zero, "!=")


def cast(x, dst, bitcast=False):
    """Convert `x` to dtype `dst` (values of the same shape)."""
    x = _value(x)
    if not isinstance(x, tensor):
        if not bitcast:
            return constant(x, dst)
        x = to_tensor(x)  # a number's bits: of the type Triton gives it (0x4A800000 is int32)
    src = x.dtype
    if src == dst:
        return x
    if src.is_ptr() or dst.is_ptr():
        return _pointer_cast(x, src, dst)
    ty = _typed(x.shape, dst)
    if src.mlir == dst.mlir:  # e.g. int32 <-> uint32: the same bits, another reading
        return tensor(x.handle, ty)
    if bitcast:
        if src.primitive_bitwidth != dst.primitive_bitwidth:
            raise SemanticError(f"cannot bitcast {src} to {dst}: they have different bit widths")
        return _emit("arith.bitcast", [x], ty)
    src_bits, dst_bits = src.primitive_bitwidth, dst.primitive_bitwidth
    if (src.is_fp8() or dst.is_fp8()) and float32 not in (src, dst):
        # The hardware converts fp8 only from and to fp32.
        return cast(cast(x, float32), dst)
    if src.is_floating() and dst.is_floating():
        if src_bits == dst_bits:  # fp16 <-> bf16 goes through fp32
            return cast(cast(x, float32), dst)
        return _emit("arith.extf" if src_bits < dst_bits else "arith.truncf", [x], ty)
    if src.is_int() and dst.is_int():
        if dst.is_bool():
            return _nonzero(x)
        if src_bits < dst_bits:
            return _emit("arith.extsi" if src.is_int_signed() else "arith.extui", [x], ty)
        return _emit("arith.trunci", [x], ty)
    if src.is_int() and dst.is_floating():
        return _emit("arith.sitofp" if src.is_int_signed() else "arith.uitofp", [x], ty)
    if src.is_floating() and dst.is_int():
        if dst.is_bool():
            return _nonzero(x)
        if dst_bits < 32:
            # Through int32 and its low bits, as the chips' code converts them
            # (v_cvt_i32_*), so that an out-of-range value (-3.0 to uint8: 253)
            # is the same number on the GPU and in the emulator, not poison.
            return cast(cast(x, int32), dst)
        return _emit("arith.fptosi" if dst.is_int_signed() else "arith.fptoui", [x], ty)
    raise SemanticError(f"cannot convert {src} to {dst}")
