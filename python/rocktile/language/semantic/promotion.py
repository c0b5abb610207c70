"""Triton's promotion rules: the dtype and shape a binary op computes in."""
from __future__ import annotations

from ...errors import SemanticError
from ..types import float16, float32, float64
from .tracing import tensor
from .conversions import _is_number, _value, cast, python_dtype
from .shapes import broadcast_shapes, broadcast_to


def _integer_promote(a, b):
    """C's usual arithmetic conversions, without promotion to int: the wider
    type wins; between signed and unsigned, unsigned wins unless the signed
    type is wider."""
    if a.is_int_signed() == b.is_int_signed():
        return a if a.primitive_bitwidth >= b.primitive_bitwidth else b
    signed, unsigned = (a, b) if a.is_int_signed() else (b, a)
    return unsigned if unsigned.primitive_bitwidth >= signed.primitive_bitwidth else signed


def computation_type(a, b, op, div_or_mod=False):
    """The dtype in which a binary arithmetic op between `a` and `b` is
    computed (Triton's rules): fp64 > fp32 > fp16/bf16 > fp8 > integers; `/`
    and `%` on half and fp8 types compute in fp32; fp16 with bf16 gives fp32,
    the two fp8 types together give fp16."""
    for t in (a, b):
        if t.is_ptr():
            raise SemanticError(f"operator '{op}' is not defined for pointers ({a} {op} {b})")
    if a.is_fp64() or b.is_fp64():
        return float64
    if a.is_fp32() or b.is_fp32():
        return float32
    if a.is_half() or b.is_half():
        if div_or_mod or (a.is_half() and b.is_half() and a != b):
            return float32
        return a if a.is_half() else b
    if a.is_fp8() or b.is_fp8():
        if div_or_mod:
            return float32
        if a.is_fp8() and b.is_fp8() and a != b:
            return float16
        return a if a.is_fp8() else b
    if div_or_mod and a.is_int_signed() != b.is_int_signed():
        raise SemanticError(f"cannot use '{op}' with {a} and {b}: they have different signedness, which is unlikely "
                            "to give a useful answer (as in Triton); cast them to the same signedness")
    return _integer_promote(a, b)


def _kind(ty):
    """Triton's kinds of dtype: bool < integer < floating point."""
    return 0 if ty.is_bool() else 1 if ty.is_int() else 2


def _operands(a, b, op, div_or_mod=False):
    """Check and convert the operands of a binary elementwise op: both get the
    promoted dtype and the broadcast shape.  Returns (a, b, dtype)."""
    a, b = _value(a), _value(b)
    a_ty, b_ty = _operand_dtype(a, op), _operand_dtype(b, op)
    a_num, b_num = _is_number(a), _is_number(b)
    ty = None
    if a_num != b_num:
        # A Python number of a lower or equal kind than the tensor it meets
        # takes the tensor's type (Triton's rule, as PyTorch's): x_i8 + 1 is
        # int8, x_fp16 * 0.5 is fp16, x_i32 * 0.5 is fp32.
        number_ty, tensor_ty = (a_ty, b_ty) if a_num else (b_ty, a_ty)
        if _kind(number_ty) <= _kind(tensor_ty) and not tensor_ty.is_ptr():
            ty = float32 if div_or_mod and _narrow_float(tensor_ty) else tensor_ty
    if ty is None:
        ty = computation_type(a_ty, b_ty, op, div_or_mod)
    if ty.is_int() and not ty.is_bool():
        for x in (a, b):
            if _is_number(x) and not isinstance(x, bool) and isinstance(x, int):
                _check_int_range(x, ty, op)
    shape = broadcast_shapes(_shape(a), _shape(b), f"'{op}'")
    return broadcast_to(cast(a, ty), shape), broadcast_to(cast(b, ty), shape), ty


def _check_int_range(x, ty, op):
    bits = ty.primitive_bitwidth
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if ty.is_int_signed() else (0, (1 << bits) - 1)
    if x < 0 and ty.is_int_unsigned():
        raise SemanticError(f"cannot apply '{op}' to an unsigned tensor ({ty}) and the negative number {x}; "
                            "cast one of them explicitly")
    if not low <= x <= high:
        raise SemanticError(f"the number {x} is out of range for {ty} in '{op}'; cast the tensor to a wider type")


def _narrow_float(ty):
    """fp16, bf16 and fp8: math functions (and, for fp8, every operation but
    conversions) are computed in fp32."""
    return ty.is_half() or ty.is_fp8()


def _operand_dtype(x, op):
    if isinstance(x, tensor):
        return x.dtype
    if _is_number(x):
        return python_dtype(x)
    raise SemanticError(f"unsupported operand for '{op}': {type(x).__name__} {x!r}")


def _shape(x):
    return x.shape if isinstance(x, tensor) else ()


def _is_ptr(x):
    return isinstance(x, tensor) and x.dtype.is_ptr()
