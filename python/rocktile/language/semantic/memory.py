"""Program indices, ranges, constant tiles, loads and stores."""
from __future__ import annotations

from ...errors import SemanticError
from ..types import block_type, int32, shape_tuple
from .tracing import _typed, current, tensor
from .conversions import _emit, _value, cast, constant, to_tensor
from .shapes import broadcast_shapes, broadcast_to, check_shape, splat
from .promotion import _is_ptr


def program_id(axis):
    if axis not in (0, 1, 2):
        raise SemanticError(f"program_id axis must be 0, 1 or 2, got {axis}")
    return _emit("tile.program_id", [], int32, {"axis": f"{axis} : i32"})


def num_programs(axis):
    if axis not in (0, 1, 2):
        raise SemanticError(f"num_programs axis must be 0, 1 or 2, got {axis}")
    return _emit("tile.num_programs", [], int32, {"axis": f"{axis} : i32"})


def arange(start, end, layout=None):
    if end <= start:
        raise SemanticError(f"tl.arange needs start < end, got start={start}, end={end}")
    if not (-2**31 <= start and end < 2**31):
        raise SemanticError(f"tl.arange bounds must fit in int32, got start={start}, end={end}")
    shape = check_shape([end - start])
    return _emit("tile.make_range", [], block_type(int32, shape, layout),
                 {"start": f"{start} : i32", "end": f"{end} : i32"})


def full(shape, value, dtype, layout=None):
    value = _value(value)
    if isinstance(value, tensor):
        if value.shape:
            raise SemanticError(f"tl.full needs a scalar value, got a tensor of shape {list(value.shape)}")
        scalar = cast(value, dtype)
    else:
        scalar = constant(value, dtype)
    return splat(scalar, shape_tuple(shape, layout)) if shape else scalar


def _pointer(ptr, fname):
    ptr = _value(ptr)
    if not _is_ptr(ptr):
        got = ptr.type if isinstance(ptr, tensor) else f"{type(ptr).__name__} {ptr!r}"
        raise SemanticError(f"{fname} expects a pointer or a tensor of pointers, got {got}")
    return ptr


def _mask(mask, fname):
    mask = to_tensor(mask)
    if not mask.dtype.is_bool():
        raise SemanticError(f"the mask of {fname} must be boolean (int1), got {mask.dtype}; "
                            "build it with a comparison, e.g. offsets < n")
    return mask


def load(ptr, mask, other, volatile=False, nontemporal=False):
    ptr = _pointer(ptr, "tl.load")
    if other is not None and mask is None:
        raise SemanticError("tl.load got `other` without `mask`: `other` is the value where the mask is false")
    elt = ptr.dtype.element_ty
    shape = ptr.shape
    if mask is not None:
        mask = _mask(mask, "tl.load")
        shape = broadcast_shapes(shape, mask.shape, "tl.load's pointer and mask")
    if other is not None:
        other = cast(other, elt)
        shape = broadcast_shapes(shape, other.shape, "tl.load's pointer and other")
    operands = [broadcast_to(ptr, shape)]
    if mask is not None:
        operands.append(broadcast_to(mask, shape))
    if other is not None:
        operands.append(broadcast_to(cast(other, elt.storage), shape))
    attrs = {"operandSegmentSizes": f"array<i32: 1, {int(mask is not None)}, {int(other is not None)}>"}
    if volatile:
        attrs["isVolatile"] = "unit"
    if nontemporal:
        attrs["isNontemporal"] = "unit"
    value = _emit("tile.load", operands, _typed(shape, elt.storage), attrs)
    return cast(value, elt)  # a no-op except for int1, stored as bytes


def store(ptr, value, mask, nontemporal=False):
    ptr = _pointer(ptr, "tl.store")
    elt = ptr.dtype.element_ty
    value = cast(value, elt)
    if value.shape and not ptr.shape:
        raise SemanticError(f"cannot store a tile of shape {list(value.shape)} through a scalar pointer")
    value = broadcast_to(value, ptr.shape, "the stored value")
    operands = [ptr, cast(value, elt.storage)]
    if mask is not None:
        operands.append(broadcast_to(_mask(mask, "tl.store"), ptr.shape, "the mask of tl.store"))
    current().create("tile.store", operands, [], {"isNontemporal": "unit"} if nontemporal else {})
