"""Tile views of strided tensors in global memory: Triton's tensor
descriptors (`tl.make_tensor_descriptor`, `desc.load`, `desc.store`) and
its older block pointers (`tl.make_block_ptr`, `tl.advance`, `tl.load` /
`tl.store` with `boundary_check` and `padding_option`).

Element (i0, i1, ...) of a block at `offsets` is at base + sum((offsets[d]
+ i_d) * strides[d]), and is in bounds when 0 <= offsets[d] + i_d < shape[d]
in every (checked) dimension. Out-of-bounds elements read as the padding
(zero, or NaN) and are not written. On a target with a Tensor Data Mover
(gfx1250), a zero-padded load of a 2-D block of at least a row per warp,
with 32-bit extents and strides (or of such a block behind leading
dimensions of 1: the 3-D to 5-D descriptors of [1, 1, BLOCK, D] blocks that
attention kernels use), is one `tile.descriptor_load`, which copies the block to LDS whole,
and a store of such a block (every dimension checked, at most
STORE_STAGING_BYTES) one `tile.descriptor_store`, which copies it out of LDS;
every other access is expanded here into a pointer tile with a mask, whose
ordinary loads and stores take the range-checked buffer instructions for
buffers under 2 GiB.

Both are NamedTuples of their runtime values (tensors, or numbers) and one
static part, so loops carry them like any tuple (`ptr = tl.advance(ptr,
...)` in a loop).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import NamedTuple

from . import semantic
from .semantic import SemanticError, _unwrap, _value
from .types import block_type, int32, int64, uint32, uint64

PADDINGS = ("zero", "nan")


@dataclass(frozen=True)
class _Static:
    """What a descriptor or block pointer fixes at compile time."""
    block_shape: tuple
    padding: str = "zero"
    order: tuple = ()


def _list(x, what, n=None):
    x = _unwrap(x)
    if not isinstance(x, (list, tuple)):
        raise SemanticError(f"{what} must be a list or tuple, got {type(x).__name__} {x!r}")
    x = [_value(v) for v in x]
    if n is not None and len(x) != n:
        raise SemanticError(f"{what} has {len(x)} entries; the block has {n} dimensions")
    return x


def _block_shape(block_shape, what):
    shape = []
    for d in _list(block_shape, what):
        if isinstance(d, bool) or not isinstance(d, int) or d < 1 or d & (d - 1):
            raise SemanticError(f"each entry of {what} must be a power-of-two Python int or tl.constexpr, got {d!r}")
        shape.append(d)
    return tuple(shape)


def _index(x, what):
    x = _value(x)
    if isinstance(x, semantic.tensor):
        if x.shape or not x.dtype.is_int():
            raise SemanticError(f"{what} must be an integer scalar, got a tensor of type {x.type}")
        return x
    if isinstance(x, bool) or not isinstance(x, int):
        raise SemanticError(f"{what} must be an integer, got {type(x).__name__} {x!r}")
    return x


def _base(base, fname):
    base = _value(base)
    if not semantic._is_ptr(base) or base.shape:
        got = base.type if isinstance(base, semantic.tensor) else f"{type(base).__name__} {base!r}"
        raise SemanticError(f"the base of {fname} must be a scalar pointer (a kernel's pointer argument), got {got}")
    return base


def _unit(stride):
    """Whether `stride` is the compile-time 1 (a runtime stride may be anything)."""
    return isinstance(stride, int) and stride == 1


def _block(base, shape, strides, offsets, static, checked, fname):
    """(pointers, mask or None): the block at `offsets`; `checked` are the
    dimensions whose bounds are checked."""
    n = len(static.block_shape)
    within, start, mask = 0, 0, None
    for d, size in enumerate(static.block_shape):
        index = semantic.arange(0, size)
        for axis in range(n):
            if axis != d:
                index = semantic.expand_dims(index, axis)
        if d in checked:
            inside = _in_range(semantic.add(index, offsets[d]), shape[d])
            mask = inside if mask is None else semantic.and_(mask, inside)
        unit = _unit(strides[d])
        within = semantic.add(within, index if unit else semantic.mul(index, strides[d]))
        start = semantic.add(start, offsets[d] if unit else semantic.mul(offsets[d], strides[d]))
    # Element offsets as a scalar (the offsets times the strides) plus a tile
    # that is the same at every offset (hoisted out of a loop), rather than
    # (offset + i) * stride per element: a block that moves costs one add per
    # register. Wrapping integer arithmetic gives the same offsets either way.
    pointers = semantic.broadcast_to(semantic.addptr(base, semantic.add(within, start)), list(static.block_shape))
    return pointers, mask


def _in_range(index, extent):
    """0 <= index < extent, as one unsigned compare: a negative index reads
    as one above every extent (a negative extent holds nothing)."""
    unsigned = uint64 if index.dtype.primitive_bitwidth == 64 else uint32
    extent = semantic.maximum(semantic.cast(extent, index.dtype), 0)
    return semantic.less(semantic.cast(index, unsigned), semantic.cast(extent, unsigned))


def _copyable(base, shape, strides, offsets, static):
    """Whether the target copies this block whole (tile.descriptor_load): it
    has a Tensor Data Mover, and the block fits its 2-D descriptor with at
    least one row per warp (each warp copies its rows) and rows contiguous
    (a last stride of the compile-time 1: a block pointer's may be any)."""
    def i32(x):
        return -2**31 <= x < 2**31 if isinstance(x, int) else x.dtype == int32

    ir = semantic.current()
    rows, cols = static.block_shape
    return (static.padding == "zero" and rows and rows % ir.num_warps == 0 and max(rows, cols) <= 0xFFFF
            and not base.dtype.element_ty.is_bool() and ir.C.has_tensor_data_mover(ir.target)
            and _unit(strides[-1])
            and all(i32(x) for x in (*offsets, *shape, *strides)))


def _block_operands(base, offsets, shape, strides):
    """The operands of a tile.descriptor_load / descriptor_store: the base,
    then the offsets, extents and strides as i32 values."""
    return [base, *(semantic.constant(x, int32) if isinstance(x, int) else x for x in (*offsets, *shape, *strides))]


def _copied_view(base, shape, strides, offsets, static):
    """(base, shape, strides, offsets, static) of the 2-D block a copy takes
    whole, or None where the target copies none: a 2-D block is itself; a
    block whose dimensions before the last two are all 1 is the block of
    those two at the base moved by the leading offsets, with no rows (all out
    of bounds) when a leading offset is outside the tensor."""
    block = static.block_shape
    if len(block) < 2 or any(b != 1 for b in block[:-2]):
        return None
    view = replace(static, block_shape=block[-2:])
    if not _copyable(base, shape[-2:], strides[-2:], offsets[-2:], view):
        return None
    rows = shape[-2]
    for offset, extent, stride in zip(offsets[:-2], shape[:-2], strides[:-2]):
        base = semantic.addptr(base, semantic.mul(semantic.cast(offset, int64), stride))
        inside = semantic.and_(semantic.greater_equal(offset, 0), semantic.less(offset, extent))
        rows = semantic.where(inside, rows, 0)
    return base, (rows, shape[-1]), strides[-2:], offsets[-2:], view


def _copy(view):
    """The 2-D block `view` (base, shape, strides, offsets, static) copies
    whole (tile.descriptor_load)."""
    vbase, vshape, vstrides, voffsets, vstatic = view
    ty = block_type(vbase.dtype.element_ty, list(vstatic.block_shape))
    return semantic._emit("tile.descriptor_load", _block_operands(vbase, voffsets, vshape, vstrides), ty,
                          {"operandSegmentSizes": "array<i32: 1, 2, 2, 2>"})


def _load(base, shape, strides, offsets, static, checked, fname):
    """The block at `offsets`: copied whole where the target can, else by
    masked loads. A 2-D block whose first dimension is the contiguous one (a
    block pointer of order (0, 1), attention's K^T over a row-major K) is
    the transpose of the block copied with the dimensions swapped."""
    view = _copied_view(base, shape, strides, offsets, static)
    if view:
        return semantic.reshape(_copy(view), list(static.block_shape))
    if len(static.block_shape) == 2 and _unit(strides[0]):
        swapped = (base, shape[::-1], strides[::-1], offsets[::-1],
                   replace(static, block_shape=static.block_shape[::-1]))
        if _copyable(*swapped):
            return semantic.trans(_copy(swapped), ())
    pointers, mask = _block(base, shape, strides, offsets, static, checked, fname)
    other = None if mask is None else _padding_value(base.dtype.element_ty, static.padding, fname)
    return semantic.load(pointers, mask, other)


# A block stored by a copy is staged in LDS first: up to this many bytes
# (a 128x128 fp32 block), so that the staging stays a fraction of the LDS.
STORE_STAGING_BYTES = 64 * 1024


def _store(base, shape, strides, offsets, static, checked, value, fname):
    """Stores the block at `offsets`: copied out whole where the target can,
    every dimension is checked (a copy writes nothing outside the tensor)
    and the block fits its LDS staging, else by masked stores."""
    n = len(static.block_shape)
    staged = math.prod(static.block_shape) * max(1, base.dtype.element_ty.primitive_bitwidth // 8)
    if len(checked) == n and staged <= STORE_STAGING_BYTES and (
            view := _copied_view(base, shape, strides, offsets, replace(static, padding="zero"))):
        vbase, vshape, vstrides, voffsets, vstatic = view
        value = semantic.reshape(semantic.cast(value, base.dtype.element_ty), list(vstatic.block_shape))
        semantic.current().create("tile.descriptor_store",
                                  [*_block_operands(vbase, voffsets, vshape, vstrides), value],
                                  [], {"operandSegmentSizes": "array<i32: 1, 2, 2, 2, 1>"})
        return
    pointers, mask = _block(base, shape, strides, offsets, static, checked, fname)
    return semantic.store(pointers, value, mask)


def _padding_value(dtype, padding, fname):
    if padding == "nan":
        if not dtype.is_floating():
            raise SemanticError(f"{fname}: padding_option='nan' needs a floating-point tensor, not {dtype}")
        return math.nan
    return 0


class tensor_descriptor(NamedTuple):
    """`tl.make_tensor_descriptor(...)`: loads and stores blocks of
    `block_shape` at element offsets."""
    base: object
    shape: tuple
    strides: tuple
    static: _Static
    _fixed_fields = ("shape", "strides")  # a loop carries their numbers as the constants they are

    @property
    def block_shape(self):
        return list(self.static.block_shape)

    @property
    def dtype(self):
        return self.base.dtype.element_ty

    @property
    def block_type(self):
        return block_type(self.dtype, self.block_shape)

    def _offsets(self, offsets, fname):
        return [_index(o, f"each offset of {fname}")
                for o in _list(offsets, f"the offsets of {fname}", len(self.static.block_shape))]

    def load(self, offsets):
        """The block at `offsets`; elements outside the tensor read as the padding."""
        offsets = self._offsets(offsets, "desc.load")
        return _load(self.base, self.shape, self.strides, offsets, self.static, range(len(offsets)), "desc.load")

    def store(self, offsets, value):
        """Stores `value` (of the block's shape) at `offsets`; elements outside
        the tensor are not written."""
        value = semantic.to_tensor(_value(value))
        if list(value.shape) != self.block_shape:
            raise SemanticError(f"desc.store: the value has shape {list(value.shape)}, the descriptor's blocks "
                                f"{self.block_shape}")
        offsets = self._offsets(offsets, "desc.store")
        return _store(self.base, self.shape, self.strides, offsets, self.static, range(len(offsets)), value,
                      "desc.store")

    def gather(self, *args, **kwargs):
        raise SemanticError("tensor descriptor gather is not supported; load rows with tl.load")

    def scatter(self, *args, **kwargs):
        raise SemanticError("tensor descriptor scatter is not supported; store rows with tl.store")


def make_tensor_descriptor(base, shape, strides, block_shape, padding_option="zero"):
    fname = "tl.make_tensor_descriptor"
    base = _base(base, fname)
    static = _Static(_block_shape(block_shape, "block_shape"), _unwrap(padding_option))
    n = len(static.block_shape)
    if not 1 <= n <= 5:
        raise SemanticError(f"{fname}: tensor descriptors have 1 to 5 dimensions, got {n}")
    shape = [_index(s, "each entry of shape") for s in _list(shape, "shape", n)]
    strides = [_index(s, "each entry of strides") for s in _list(strides, "strides", n)]
    if static.padding not in PADDINGS:
        raise SemanticError(f"{fname}: padding_option must be 'zero' or 'nan', got {static.padding!r}")
    _padding_value(base.dtype.element_ty, static.padding, fname)
    elt_bytes = max(1, base.dtype.element_ty.primitive_bitwidth // 8)
    if static.block_shape[-1] * elt_bytes < 16:
        raise SemanticError(f"{fname}: the last dimension of a block must hold at least 16 bytes, got "
                            f"{static.block_shape[-1]} x {elt_bytes}")
    last = strides[-1]
    if not _unit(last):
        raise SemanticError(f"{fname}: the last dimension must be contiguous: its stride must be the "
                            f"compile-time 1, got {last.type if isinstance(last, semantic.tensor) else last!r}")
    for s in strides[:-1]:
        if isinstance(s, int) and s * elt_bytes % 16:
            raise SemanticError(f"{fname}: strides other than the last must be multiples of 16 bytes, got "
                                f"{s} x {elt_bytes}")
    return tensor_descriptor(base, tuple(shape), tuple(strides), static)


class block_pointer(NamedTuple):
    """`tl.make_block_ptr(...)`: a block of `block_shape` at `offsets`."""
    base: object
    shape: tuple
    strides: tuple
    offsets: tuple
    static: _Static
    _fixed_fields = ("shape", "strides")  # a loop carries their numbers as the constants they are

    @property
    def dtype(self):
        return self.base.dtype.element_ty

    @property
    def type(self):
        return block_type(self.dtype, list(self.static.block_shape))


def make_block_ptr(base, shape, strides, offsets, block_shape, order):
    fname = "tl.make_block_ptr"
    base = _base(base, fname)
    block_shape = _block_shape(block_shape, "block_shape")
    n = len(block_shape)
    order = tuple(_list(order, "order", n))
    if sorted(order) != list(range(n)):
        raise SemanticError(f"{fname}: order must be a permutation of 0..{n - 1}, got {list(order)}")
    shape = tuple(_index(s, "each entry of shape") for s in _list(shape, "shape", n))
    strides = tuple(_index(s, "each entry of strides") for s in _list(strides, "strides", n))
    offsets = tuple(o if isinstance(o, int) else semantic.cast(o, int32)
                    for o in (_index(o, "each offset") for o in _list(offsets, "offsets", n)))
    return block_pointer(base, shape, strides, offsets, _Static(block_shape, order=order))


def advance(ptr, offsets):
    if not isinstance(ptr, block_pointer):
        raise SemanticError(f"tl.advance moves a block pointer (tl.make_block_ptr), got {type(ptr).__name__}")
    deltas = [_index(o, "each offset of tl.advance") for o in _list(offsets, "the offsets of tl.advance",
                                                                    len(ptr.offsets))]
    return ptr._replace(offsets=tuple(semantic.add(o, d) if not (isinstance(o, int) and isinstance(d, int))
                                      else o + d for o, d in zip(ptr.offsets, deltas)))


def _checked(ptr, boundary_check, fname):
    dims = _unwrap(boundary_check)
    dims = [dims] if isinstance(dims, int) else list(dims or ())
    n = len(ptr.static.block_shape)
    for d in dims:
        if isinstance(d, bool) or not isinstance(d, int) or not 0 <= d < n:
            raise SemanticError(f"{fname}: boundary_check names dimensions 0..{n - 1} of the block, got {d!r}")
    return dims


def load_block(ptr, boundary_check, padding_option):
    """tl.load of a block pointer. Unchecked dimensions are read as they are;
    outside a checked one, elements read as the padding (zero when none is
    given, where Triton leaves them undefined)."""
    checked = _checked(ptr, boundary_check, "tl.load")
    padding = _unwrap(padding_option) or "zero"
    if padding not in PADDINGS:
        raise SemanticError(f"tl.load: padding_option must be '', 'zero' or 'nan', got {padding!r}")
    # Outside an unchecked dimension any value is right: a copy's zeros too.
    return _load(ptr.base, ptr.shape, ptr.strides, ptr.offsets, replace(ptr.static, padding=padding), checked,
                 "tl.load")


def store_block(ptr, value, boundary_check):
    checked = _checked(ptr, boundary_check, "tl.store")
    value = semantic.to_tensor(_value(value))
    if list(value.shape) != list(ptr.static.block_shape):
        raise SemanticError(f"tl.store: the value has shape {list(value.shape)}, the block pointer's block "
                            f"{list(ptr.static.block_shape)}")
    return _store(ptr.base, ptr.shape, ptr.strides, ptr.offsets, ptr.static, checked, value, "tl.store")
