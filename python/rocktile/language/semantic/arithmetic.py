"""Arithmetic, bitwise ops, comparisons, selects and math functions."""
from __future__ import annotations

import json

from ...errors import SemanticError
from ..types import block_type, dtype, float32, float64, int1, int32, uint32, uint64
from .tracing import current, tensor
from .conversions import _emit, _is_number, _value, cast, compare, constant, to_tensor
from .shapes import broadcast_shapes, broadcast_to
from .promotion import _is_ptr, _narrow_float, _operand_dtype, _operands


def addptr(ptr, offset, op="+"):
    """ptr + offset or ptr - offset (in elements); the pointer and the offset
    are splat/broadcast to their common shape."""
    offset, symbol = _value(offset), op
    off_ty = _operand_dtype(offset, op)
    if not off_ty.is_int():
        verb, prep = ("add", "to") if op == "+" else ("subtract", "from")
        raise SemanticError(f"cannot {verb} {off_ty} {prep} a pointer ({ptr.dtype}): "
                            "expected an integer offset (a number of elements)")
    if off_ty.primitive_bitwidth < 32:
        off_ty = int32 if off_ty.is_int_signed() or off_ty.is_bool() else uint32
    if op == "-" and _is_number(offset):
        offset, op = -offset, "+"
    offset = cast(offset, off_ty)
    if op == "-":
        offset = neg(offset)
    shape = broadcast_shapes(ptr.shape, offset.shape, f"'{symbol}'")
    ptr, offset = broadcast_to(ptr, shape), broadcast_to(offset, shape)
    return _emit("tile.addptr", [ptr, offset], ptr.type)


def add(a, b):
    a, b = _value(a), _value(b)
    if _is_ptr(b) and not _is_ptr(a):
        a, b = b, a
    if _is_ptr(a):
        if _is_ptr(b):
            raise SemanticError(f"cannot add two pointers ({a.dtype} + {b.dtype})")
        return addptr(a, b, "+")
    x, y, ty = _operands(a, b, "+")
    return _emit("arith.addf" if ty.is_floating() else "arith.addi", [x, y], x.type)


def sub(a, b):
    a, b = _value(a), _value(b)
    if _is_ptr(b):
        raise SemanticError(f"cannot subtract a pointer ({b.dtype}); only integer offsets can be subtracted")
    if _is_ptr(a):
        return addptr(a, b, "-")
    x, y, ty = _operands(a, b, "-")
    return _emit("arith.subf" if ty.is_floating() else "arith.subi", [x, y], x.type)


def mul(a, b):
    x, y, ty = _operands(a, b, "*")
    return _emit("arith.mulf" if ty.is_floating() else "arith.muli", [x, y], x.type)


def truediv(a, b):
    """'/': integers are divided as float32, as in Triton."""
    x, y, ty = _operands(a, b, "/", div_or_mod=True)
    if ty.is_int():
        x, y = cast(x, float32), cast(y, float32)
    return _emit("arith.divf", [x, y], x.type)


def floordiv(a, b):
    """'//' on integers truncates toward zero (C semantics), as in Triton."""
    x, y, ty = _operands(a, b, "//", div_or_mod=True)
    if not ty.is_int():
        raise SemanticError(f"'//' needs integer operands, got {ty}; use '/' for floating-point division")
    return _emit("arith.divsi" if ty.is_int_signed() else "arith.divui", [x, y], x.type)


def mod(a, b):
    """'%': the remainder has the sign of the dividend (C's %, fmod for floats)."""
    x, y, ty = _operands(a, b, "%", div_or_mod=True)
    if ty.is_floating():
        return _emit("arith.remf", [x, y], x.type)
    return _emit("arith.remsi" if ty.is_int_signed() else "arith.remui", [x, y], x.type)


def _broadcast_tiles(values, fname):
    """`values` broadcast to their common shape, at least one of them a
    tile: (values, shape)."""
    shape = []
    for v in values:
        shape = broadcast_shapes(shape, v.shape, fname)
    if not shape:
        raise SemanticError(f"{fname} needs at least one tile among its arguments")
    return [broadcast_to(v, shape) for v in values], shape


def inline_asm_elementwise(asm, constraints, args, result_dtype, is_pure, pack):
    fname = "tl.inline_asm_elementwise"
    if not isinstance(asm, str) or not isinstance(constraints, str):
        raise SemanticError(f"{fname}: the assembly and its constraints must be strings")
    if isinstance(pack, bool) or not isinstance(pack, int) or pack < 1 or pack & (pack - 1):
        raise SemanticError(f"{fname}: pack must be a power of two, got {pack!r}")
    dtypes = list(result_dtype) if isinstance(result_dtype, (list, tuple)) else [result_dtype]
    if not dtypes or not all(isinstance(d, dtype) and not d.is_ptr() for d in dtypes):
        raise SemanticError(f"{fname}: dtype must be a dtype or a sequence of dtypes, got {result_dtype!r}")
    values, shape = _broadcast_tiles([to_tensor(a) for a in args], fname)
    outputs = [block_type(d, shape) for d in dtypes]
    attrs = {"asm_string": json.dumps(asm), "constraints": json.dumps(constraints), "pack": f"{pack} : i32"}
    if is_pure:
        attrs["pure"] = "unit"
    op = current().create("tile.elementwise_inline_asm", values, outputs, attrs)
    results = [tensor(op.result(i), t) for i, t in enumerate(outputs)]
    return tuple(results) if isinstance(result_dtype, (list, tuple)) else results[0]


def umulhi(a, b):
    """The high half of the double-width product of 32- or 64-bit integers,
    read as unsigned whatever their type (Triton's tt.mulhiui: umulhi(-1, -1)
    of int32 is -2)."""
    x, y, ty = _int_operands(a, b, "tl.umulhi")
    if ty.primitive_bitwidth not in (32, 64):
        raise SemanticError(f"tl.umulhi takes 32- or 64-bit integers, got {ty}")
    if ty.primitive_bitwidth == 32:
        u, v = (cast(cast(t, uint32, bitcast=True), uint64) for t in (x, y))
        return cast(cast(shr(mul(u, v), 32), uint32), ty, bitcast=True)
    # Four 32 x 32 -> 64-bit products of the halves.
    u, v = cast(x, uint64, bitcast=True), cast(y, uint64, bitcast=True)
    low = lambda t: and_(t, 0xFFFFFFFF)  # noqa: E731
    (ul, uh), (vl, vh) = (low(u), shr(u, 32)), (low(v), shr(v, 32))
    cross = add(add(shr(mul(ul, vl), 32), low(mul(uh, vl))), mul(ul, vh))
    high = add(add(mul(uh, vh), shr(mul(uh, vl), 32)), shr(cross, 32))
    return cast(high, ty, bitcast=True)


def float_div(a, b, fname):
    x, y, ty = _operands(a, b, fname, div_or_mod=True)
    if not ty.is_floating():
        raise SemanticError(f"{fname} takes floating-point operands, got {_operand_dtype(a, fname)} and "
                            f"{_operand_dtype(b, fname)}")
    return truediv(x, y)


def _int_operands(a, b, op):
    x, y, ty = _operands(a, b, op)
    if not ty.is_int():
        raise SemanticError(f"'{op}' needs integer or boolean operands, got {ty}")
    return x, y, ty


def _bitwise(op_name, symbol):
    def build(a, b):
        x, y, _ = _int_operands(a, b, symbol)
        return _emit(op_name, [x, y], x.type)
    return build


and_, or_, xor, shl = (_bitwise(f"arith.{name}", symbol)
                       for name, symbol in [("andi", "&"), ("ori", "|"), ("xori", "^"), ("shli", "<<")])


def shr(a, b):
    """'>>' is arithmetic when its left operand is signed, logical when it is
    unsigned, whatever type the operands are then promoted to (as in Triton:
    int8 >> uint8 shifts the uint8 bits arithmetically); a Python number on
    the left takes the right operand's signedness."""
    signed = (a if isinstance(a, tensor) else b).dtype.is_int_signed()
    x, y, _ = _int_operands(a, b, ">>")
    return _emit("arith.shrsi" if signed else "arith.shrui", [x, y], x.type)


def _numeric(x, op):
    x = to_tensor(x)
    if x.dtype.is_ptr():
        raise SemanticError(f"operator '{op}' is not defined for pointers ({x.dtype})")
    return x


def neg(x):
    x = _numeric(x, "-")
    if x.dtype.is_floating():
        return _emit("arith.negf", [x], x.type)
    zero = broadcast_to(constant(0, x.dtype), x.shape)
    return _emit("arith.subi", [zero, x], x.type)


def pos(x):
    return _numeric(x, "+")


def invert(x):
    x = _numeric(x, "~")
    if not x.dtype.is_int():
        raise SemanticError(f"'~' needs an integer or boolean operand, got {x.dtype}")
    ones = broadcast_to(constant(-1, x.dtype), x.shape)
    return _emit("arith.xori", [x, ones], x.type)


def _compare(a, b, op):
    x, y, _ = _operands(a, b, op)
    return compare(x, y, op)


def less(a, b): return _compare(a, b, "<")
def less_equal(a, b): return _compare(a, b, "<=")
def greater(a, b): return _compare(a, b, ">")
def greater_equal(a, b): return _compare(a, b, ">=")
def equal(a, b): return _compare(a, b, "==")
def not_equal(a, b): return _compare(a, b, "!=")


def _minmax(a, b, which, propagate_nan=False):
    x, y, ty = _operands(a, b, f"tl.{which}imum")
    if ty.is_floating():
        # Triton's default: a NaN operand yields the other operand;
        # PropagateNan.ALL: NaN.
        name = f"arith.{which}imumf" if propagate_nan else f"arith.{which}numf"
    else:
        name = f"arith.{which}{'si' if ty.is_int_signed() else 'ui'}"
    return _emit(name, [x, y], x.type)


def maximum(a, b, propagate_nan=False): return _minmax(a, b, "max", propagate_nan)
def minimum(a, b, propagate_nan=False): return _minmax(a, b, "min", propagate_nan)


def where(condition, x, y):
    condition = to_tensor(condition)
    if not condition.dtype.is_bool():
        condition = cast(condition, int1)
    x, y = _value(x), _value(y)
    if _is_ptr(x) or _is_ptr(y):
        if not (_is_ptr(x) and _is_ptr(y) and x.dtype == y.dtype):
            raise SemanticError(f"tl.where needs two pointers of the same type or two numbers, got "
                                f"{_operand_dtype(x, 'where')} and {_operand_dtype(y, 'where')}")
        shape = broadcast_shapes(x.shape, y.shape, "tl.where")
    else:
        x, y, _ = _operands(x, y, "tl.where")
        shape = x.shape
    shape = broadcast_shapes(condition.shape, shape, "tl.where")
    condition, x, y = (broadcast_to(t, shape) for t in (condition, x, y))
    return _emit("arith.select", [condition, x, y], x.type)


def floating_operand(x, fname):
    """`x` as a tensor of floats; anything else is an error naming `fname`."""
    x = _numeric(x, fname)
    if not x.dtype.is_floating():
        raise SemanticError(f"{fname} expects a floating-point tensor, got {x.dtype}; "
                            "convert it first, e.g. x.to(tl.float32)")
    return x


def float_math(op_name, x, fname, approximate=False):
    """A math-dialect function of a float (fp16/bf16/fp8 computed in fp32);
    `approximate`: in fp32, the hardware's instruction where there is one
    (`afn`), not the correctly scaled expansion."""
    x = floating_operand(x, f"tl.{fname}")
    return _in_float32(op_name, [x], {"fastmath": "#arith.fastmath<afn>"} if approximate else None)


def float_math2(op_name, a, b, fname):
    """A math-dialect function of two floats, after promotion and
    broadcasting; integer operands become float32."""
    x, y, ty = _operands(a, b, fname)
    if not ty.is_floating():
        x, y = cast(x, float32), cast(y, float32)
    return _in_float32(op_name, [x, y])


def _in_float32(op_name, operands, fp32_attrs=None):
    """`op_name` of operands of one float type; fp16/bf16/fp8 computed in
    fp32 (the AMDGPU backend handles fp32 transcendentals best), with
    `fp32_attrs` there."""
    ty = operands[0].dtype
    if _narrow_float(ty):
        wide = [cast(o, float32) for o in operands]
        return cast(_emit(op_name, wide, wide[0].type, fp32_attrs), ty)
    return _emit(op_name, operands, operands[0].type, fp32_attrs if ty == float32 else None)


_LOG2E = 1.4426950408889634


def exp(x, fname="exp"):
    """e^x as Triton's AMD backend computes it: in fp32 (fp16/bf16 widened
    to it) 2^(x log2 e) with the product rounded, on the hardware's exp2
    (math.exp2 without `afn`: LLVM scales results below 2^-126 into range,
    as for Triton's llvm.exp2.f32); its error grows with |x| (docs/language.md).
    fp64: math.exp, within 1 ulp. libdevice.exp is math.exp in fp32 too."""
    x = floating_operand(x, f"tl.{fname}")
    if x.dtype == float64:
        return _emit("math.exp", [x], x.type)
    wide = cast(x, float32) if _narrow_float(x.dtype) else x
    scaled = mul(wide, broadcast_to(constant(_LOG2E, float32), wide.shape))
    return cast(_emit("math.exp2", [scaled], wide.type), x.dtype)


def sigmoid(x):
    """1 / (1 + exp(-x)) with tl.exp, in fp32 for half types."""
    x = _numeric(x, "tl.sigmoid")
    if not x.dtype.is_floating():
        raise SemanticError(f"tl.sigmoid expects a floating-point tensor, got {x.dtype}")
    wide = cast(x, float32) if _narrow_float(x.dtype) else x
    one = broadcast_to(constant(1.0, wide.dtype), wide.shape)
    y = truediv(one, add(one, exp(neg(wide), "sigmoid")))
    return cast(y, x.dtype)


def fma(x, y, z):
    """x * y + z with one rounding (math.fma), after promotion and broadcasting."""
    x, y, z = _value(x), _value(y), _value(z)
    x, y, _ = _operands(x, y, "tl.fma")
    x, z, ty = _operands(x, z, "tl.fma")
    y = broadcast_to(cast(y, ty), x.shape)
    if not ty.is_floating():
        raise SemanticError(f"tl.fma expects floating-point operands, got {ty}")
    return _emit("math.fma", [x, y, z], x.type)


def abs_(x):
    x = _numeric(x, "tl.abs")
    if x.dtype.is_floating():
        return _emit("math.absf", [x], x.type)
    if x.dtype.is_int_signed():
        return _emit("math.absi", [x], x.type)
    return x  # unsigned
