"""Tile shapes: Triton's limits, broadcasting, splats, new dimensions, permutations and reshapes."""
from __future__ import annotations

import math

from ...errors import SemanticError
from ..types import block_type, shape_tuple
from .conversions import _emit, to_tensor
from .layouts import DistributedLayout, SliceLayout


# Triton's limit on the number of elements of one tile.
MAX_NUMEL = 1 << 20


def check_shape(shape):
    """Tile shapes are powers of two with at most MAX_NUMEL elements, as in Triton."""
    shape = tuple(shape)
    for i, d in enumerate(shape):
        if d <= 0 or d & (d - 1):
            raise SemanticError(f"tile shapes must be powers of two, got {list(shape)} "
                                f"(dimension {i} is {d})")
    if math.prod(shape) > MAX_NUMEL:
        raise SemanticError(f"a tile of shape {list(shape)} has more than {MAX_NUMEL} elements")
    return shape


def _layout(shape):
    return getattr(shape, "layout", None)


def common_layout(a, b, what):
    """The layout of the result of an op on tiles of shapes `a` and `b`: at
    the explicit level both must have the same one (as in Gluon: the author
    converts one with gl.convert_layout), or a scalar none."""
    la, lb = _layout(a), _layout(b)
    if la is not None and lb is not None and la != lb:
        raise SemanticError(f"layout mismatch in {what}: {la!r} and {lb!r}; convert one operand to the other's "
                            "layout with gl.convert_layout")
    return la if la is not None else lb


def broadcast_shapes(a, b, what):
    """The common shape of two operands.  Scalars and size-1 dimensions
    grow; a lower rank gets size-1 dimensions prepended (numpy's and
    Triton's rule).  Nothing is ever appended: write x[:, None] for that.
    At the explicit level the shape carries the operands' common layout,
    and ranks must match, as Gluon's."""
    layout = common_layout(a, b, what)
    if layout is not None and a and b and len(a) != len(b):
        raise SemanticError(f"rank mismatch in {what}: {list(a)} and {list(b)}; at the explicit level a tile of "
                            "lower rank is expanded with gl.expand_dims first")
    a, b = tuple(a), tuple(b)
    if a == b or not b:
        return shape_tuple(a, layout)
    if not a:
        return shape_tuple(b, layout)
    rank = max(len(a), len(b))
    pa, pb = (1,) * (rank - len(a)) + a, (1,) * (rank - len(b)) + b
    out = []
    for i, (x, y) in enumerate(zip(pa, pb)):
        if x != y and 1 not in (x, y):
            raise SemanticError(f"shape mismatch in {what}: {list(a)} and {list(b)} cannot be broadcast "
                                f"together (dimension {i}: {x} vs {y})")
        out.append(max(x, y))
    return shape_tuple(out, layout)


def splat(x, shape):
    return _emit("tile.splat", [x], block_type(x.dtype, shape))


def expand_dims(x, axis):
    x = to_tensor(x)
    if not x.shape:
        return splat(x, (1,))
    if not 0 <= axis <= len(x.shape):
        raise SemanticError(f"expand_dims axis {axis} is out of range for a tensor of rank {len(x.shape)}")
    shape = x.shape[:axis] + (1,) + x.shape[axis:]
    return _emit("tile.expand_dims", [x], block_type(x.dtype, shape, _expanded_layout(x.type.layout, axis)),
                 {"axis": f"{axis} : i32"})


def _expanded_layout(layout, axis):
    """The layout of a tile of `layout` with a dimension inserted at `axis`:
    the parent of a slice along `axis`, as in Gluon."""
    if layout is None:
        return None
    if not isinstance(layout, SliceLayout) or layout.dim != axis:
        raise SemanticError(f"expand_dims at axis {axis} needs a tile whose layout is a SliceLayout along {axis} "
                            f"(it becomes the slice's parent), got {layout!r}")
    return layout.parent


def broadcast_to(x, shape, what=None):
    layout = common_layout(x.shape, shape, what or "a broadcast")
    shape = shape_tuple(shape, layout)
    if x.shape == shape:
        return x
    if not x.shape:
        return splat(x, shape)
    if layout is not None and len(x.shape) != len(shape):
        raise SemanticError(f"cannot broadcast {what or 'a tensor'} of shape {list(x.shape)} to {list(shape)}: at "
                            "the explicit level a tile of lower rank is expanded with gl.expand_dims first")
    ok = len(x.shape) <= len(shape) and all(
        d in (1, s) for d, s in zip(x.shape[::-1], shape[::-1]))
    if not ok:
        raise SemanticError(f"cannot broadcast {what or 'a tensor'} of shape {list(x.shape)} to {list(shape)}")
    while len(x.shape) < len(shape):
        x = expand_dims(x, 0)
    if x.shape == shape:
        return x
    return _emit("tile.broadcast", [x], block_type(x.dtype, shape))


def subscript(x, index):
    """x[:, None] / x[None, :]: ':' keeps a dimension, None inserts a size-1 one."""
    items = index if isinstance(index, tuple) else (index,)
    for item in items:
        if item is not None and not (isinstance(item, slice) and item == slice(None)):
            raise SemanticError(f"unsupported index {item!r}: tensors can only be indexed with ':' "
                                "and None (e.g. x[:, None])")
    rank = len(x.shape)
    if sum(item is not None for item in items) > rank:
        raise SemanticError(f"too many ':' in the index of a tensor of rank {rank}")
    for dim, item in enumerate(items):
        if item is None:
            x = expand_dims(x, dim)
    return x


def permute(x, dims, fname="tl.permute"):
    """Result dimension i is dimension dims[i] of `x`."""
    x = to_tensor(x)
    rank = len(x.shape)
    dims = tuple(dims)
    if sorted(dims) != list(range(rank)):
        raise SemanticError(f"{fname}: the dimensions {list(dims)} are not a permutation of the {rank} "
                            f"dimension(s) of a tensor of shape {list(x.shape)}")
    if dims == tuple(range(rank)):
        return x
    shape = tuple(x.shape[d] for d in dims)
    layout = x.type.layout.permuted(dims) if x.type.layout is not None else None
    return _emit("tile.trans", [x], block_type(x.dtype, shape, layout),
                 {"order": f"array<i32: {', '.join(map(str, dims))}>"})


def trans(x, dims):
    """tl.trans: permute; without dims, swap the last two dimensions."""
    x = to_tensor(x)
    if not dims:
        rank = len(x.shape)
        if rank < 2:
            raise SemanticError(f"tl.trans without dimensions swaps the last two dimensions, but the tensor "
                                f"has shape {list(x.shape)}")
        dims = tuple(range(rank - 2)) + (rank - 1, rank - 2)
    return permute(x, dims, "tl.trans")


def reshape(x, shape, fname="tl.reshape"):
    """Element k in row-major order stays element k."""
    x = to_tensor(x)
    shape = check_shape(shape)
    if math.prod(shape) != x.numel:
        raise SemanticError(f"{fname}: cannot reshape a tensor of shape {list(x.shape)} ({x.numel} elements) "
                            f"into {list(shape)} ({math.prod(shape)} elements)")
    if shape == x.shape:
        return x
    if not shape:
        raise SemanticError(f"{fname}: the new shape must have at least one dimension")
    if not x.shape:
        return splat(x, shape)
    return _emit("tile.reshape", [x], block_type(x.dtype, shape))


def convert_layout(x, layout):
    """`x` moved to the lanes of `layout` (gl.convert_layout)."""
    x = to_tensor(x)
    if x.type.layout is None:
        raise SemanticError("convert_layout needs a tile with a layout (a tile of the explicit level), got "
                            f"{x.type}")
    if not isinstance(layout, DistributedLayout):
        raise SemanticError(f"convert_layout needs a distributed layout, got {layout!r}")
    if layout == x.type.layout:
        return x
    return _emit("tile.convert_layout", [x], block_type(x.dtype, tuple(x.shape), layout))
