"""The functions of the explicit level that differ from the tile
language's: those that make a tile take its layout as an argument (in
Gluon the layout of a new tile is the author's to give), and those about
layouts and warps. Everything else is rocktile.language's own function,
which keeps its operands' layouts (see rocktile.language.semantic)."""
from __future__ import annotations

from ...language import core as tl
from ...language import semantic
from ...language.semantic import SemanticError, _unwrap, constexpr


def _layout_arg(layout, fname):
    layout = _unwrap(layout)
    if layout is None:
        raise SemanticError(f"{fname} needs a layout: rocktile's explicit level has no AutoLayout yet "
                            "(give layout=gl.BlockedLayout(...) or another distributed layout)")
    if not isinstance(layout, semantic.layouts.DistributedLayout):
        raise SemanticError(f"{fname}'s layout must be a distributed layout (BlockedLayout, SliceLayout, "
                            f"DistributedLinearLayout, ...), got {layout!r}")
    return layout


def arange(start, end, layout=None):
    """The int32 tile [start, ..., end-1] in `layout` (1-D)."""
    return semantic.arange(tl._int_arg(start, "start"), tl._int_arg(end, "end"), _layout_arg(layout, "gl.arange"))


def full(shape, value, dtype, layout=None):
    """A tile of `shape` in `layout`, every element `value`."""
    return semantic.full(tl._shape_arg(shape), _unwrap(value), tl._dtype_arg(dtype), _layout_arg(layout, "gl.full"))


def zeros(shape, dtype, layout=None):
    """A tile of `shape` in `layout` filled with zeros."""
    return full(shape, 0, dtype, layout)


def full_like(input, value, shape=None, dtype=None, layout=None):
    """A tile like `input` (its shape, dtype and layout unless given) filled with `value`."""
    x = semantic.to_tensor(_unwrap(input))
    return full(x.shape if _unwrap(shape) is None else shape, value, x.dtype if _unwrap(dtype) is None else dtype,
                x.type.layout if _unwrap(layout) is None else layout)


def zeros_like(input, shape=None, dtype=None, layout=None):
    """A tile like `input` (its shape, dtype and layout unless given) filled with zeros."""
    return full_like(input, 0, shape, dtype, layout)


def convert_layout(value, layout, assert_trivial=False):
    """`value` moved to the lanes of `layout`. `assert_trivial` (that no
    element moves between lanes) is not checked."""
    return semantic.convert_layout(_unwrap(value), _layout_arg(layout, "gl.convert_layout"))


def set_auto_layout(value, layout):
    raise SemanticError("gl.set_auto_layout resolves an AutoLayout, which rocktile's explicit level does not have "
                        "yet: give the tile its layout where it is made")


def num_warps():
    """The number of warps the kernel is compiled for (a constexpr)."""
    return constexpr(semantic.current().num_warps)


def num_ctas():
    """Workgroups per cluster: rocktile launches no clusters, so 1."""
    return constexpr(1)


def barrier(*, cluster=False):
    """Synchronize the warps of the workgroup (its LDS and global memory)."""
    if _unwrap(cluster):
        raise SemanticError("gl.barrier(cluster=True) synchronizes a cluster of workgroups, which rocktile does "
                            "not launch")
    return tl.debug_barrier()


def allocate_shared_memory(element_ty, shape, layout, value=None):
    """A buffer in LDS of `shape` (a block, or a number of blocks and a
    block, picked with .index(i)) whose elements lie as the shared
    `layout` places them; written with `value` if given."""
    value = _unwrap(value)
    shape = _unwrap(shape)
    if not isinstance(shape, (list, tuple)):
        raise SemanticError(f"gl.allocate_shared_memory's shape must be a list of ints, got {shape!r}")
    shape = [tl._int_arg(d, "each dimension of a shape") for d in shape]
    return semantic.shared.allocate_shared(tl._dtype_arg(element_ty), shape, layout,
                                           None if value is None else semantic.to_tensor(value))
