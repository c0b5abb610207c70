"""Shared memory (LDS) of the explicit level: buffers the author allocates
with an arrangement of their choice (gl.allocate_shared_memory), writes
from registers, and reads back in any distributed layout. A buffer is a
`tile.local_alloc` of slots; a descriptor names one slot (or all of them,
to be indexed)."""
from __future__ import annotations

import math
from dataclasses import dataclass

from ...errors import SemanticError
from ..types import block_type, int32
from .tracing import _unwrap, current
from .conversions import _emit, cast, constant, to_tensor
from .shapes import broadcast_shapes, broadcast_to, check_shape
from .memory import _mask, _pointer
from .layouts import DistributedLayout, _bases, _ints, _no_clusters, _permutation, _powers_of_two, permuted_for


class SharedLayout:
    """Where the elements of a shared-memory buffer live."""

    def mlir_for(self, shape) -> str:
        raise NotImplementedError


def _shared_attr(order, vec=1, per_phase=1, max_phase=1, row_pitch=0):
    """#tile.shared: rows over `order` swizzled, or padded to `row_pitch`."""
    return (f"#tile.shared<order = [{', '.join(map(str, order))}], vec = {vec}, perPhase = {per_phase}, "
            f"maxPhase = {max_phase}, rowPitch = {row_pitch}>")


@dataclass(frozen=True)
class SwizzledSharedLayout(SharedLayout):
    """Row-major over `order` (fastest dimension first); along it, groups
    of `vec` elements trade places by XOR with their row's phase
    (row // per_phase) % max_phase, so that lanes reading down a column
    reach different banks."""
    vec: int
    per_phase: int
    max_phase: int
    order: tuple
    cga_layout: tuple = ()

    def __post_init__(self):
        for name in ("vec", "per_phase", "max_phase"):
            what = f"SwizzledSharedLayout's {name}"
            [value] = _powers_of_two(_ints([getattr(self, name)], what), what)
            object.__setattr__(self, name, value)
        object.__setattr__(self, "order", _permutation(_ints(self.order, "SwizzledSharedLayout's order"),
                                                       "SwizzledSharedLayout's order"))
        object.__setattr__(self, "cga_layout", _bases(self.cga_layout, "SwizzledSharedLayout's cga_layout"))
        _no_clusters(self, "cga_layout")

    @property
    def rank(self):
        return len(self.order)

    def mlir_for(self, shape):
        if len(shape) != len(self.order):
            raise SemanticError(f"{self!r} has rank {len(self.order)}, but the buffer's blocks have shape "
                                f"{list(shape)}")
        if self.max_phase > 1 and len(shape) < 2:
            raise SemanticError(f"{self!r} swizzles rows, but the buffer's blocks have one dimension")
        return _shared_attr(self.order, self.vec, self.per_phase, self.max_phase)

    def __repr__(self):
        return (f"SwizzledSharedLayout(vec={self.vec}, per_phase={self.per_phase}, max_phase={self.max_phase}, "
                f"order={list(self.order)})")


@dataclass(frozen=True)
class PaddedSharedLayout(SharedLayout):
    """After every `interval` elements, `padding` elements of nothing
    (interval_padding_pairs = [[interval, padding]]), the elements placed
    in offset order by `offset_bases` (each offset bit's coordinate).
    rocktile takes one pair whose interval is a row, with the identity
    placement of `with_identity_for`."""
    interval_padding_pairs: tuple
    offset_bases: tuple
    cga_layout: tuple
    shape: tuple

    def __post_init__(self):
        object.__setattr__(self, "interval_padding_pairs",
                           _bases(self.interval_padding_pairs, "PaddedSharedLayout's interval_padding_pairs", 2))
        object.__setattr__(self, "shape", _ints(self.shape, "PaddedSharedLayout's shape"))
        object.__setattr__(self, "offset_bases", _bases(self.offset_bases, "PaddedSharedLayout's offset_bases",
                                                        len(self.shape)))
        object.__setattr__(self, "cga_layout", _bases(self.cga_layout, "PaddedSharedLayout's cga_layout"))
        _powers_of_two([v for pair in self.interval_padding_pairs for v in pair],
                       "PaddedSharedLayout's intervals and paddings")
        _no_clusters(self, "cga_layout")

    @property
    def rank(self):
        return len(self.shape)

    @staticmethod
    def with_identity_for(interval_padding_pairs, shape, order, cga_layout=()):
        """The padded layout of `shape` whose offsets run row-major over
        `order` (fastest dimension first)."""
        shape, order = _ints(shape, "shape"), _ints(order, "order")
        bases = [[1 << bit if i == dim else 0 for i in range(len(shape))]
                 for dim in order for bit in range(int(math.log2(shape[dim])))]
        return PaddedSharedLayout(interval_padding_pairs, bases, cga_layout, shape)

    def _order(self):
        """The dimensions fastest first, if the offsets run row-major."""
        order, expected = [], []
        for basis in self.offset_bases:
            dim = next((d for d, v in enumerate(basis) if v), None)
            if dim is None:
                return None
            if not order or order[-1] != dim:
                order.append(dim)
                expected = 1
            if basis != tuple(expected if d == dim else 0 for d in range(len(basis))):
                return None
            expected *= 2
        return order if sorted(order) == list(range(len(self.shape))) else None

    def mlir_for(self, shape):
        if tuple(shape) != self.shape:
            raise SemanticError(f"{self!r} is written for blocks of shape {list(self.shape)}, but the buffer's "
                                f"blocks have shape {list(shape)}")
        order = self._order()
        pairs = self.interval_padding_pairs
        if order is None or len(pairs) != 1 or len(shape) < 2 or pairs[0][0] != shape[order[0]]:
            raise SemanticError(f"rocktile takes a PaddedSharedLayout with one [interval, padding] pair whose "
                                f"interval is a row ({shape[order[0]] if order else '?'} elements) and row-major "
                                f"offsets (PaddedSharedLayout.with_identity_for), got {self!r}")
        return _shared_attr(order, row_pitch=pairs[0][0] + pairs[0][1])

    def __repr__(self):
        return (f"PaddedSharedLayout(interval_padding_pairs={[list(p) for p in self.interval_padding_pairs]}, "
                f"offset_bases={[list(b) for b in self.offset_bases]}, shape={list(self.shape)})")


class SharedLinearLayout(SharedLayout):
    """Gluon's SharedLinearLayout: named so that a kernel using it gets a clear error."""

    def __init__(self, *args, **kwargs):
        raise SemanticError("SharedLinearLayout is not supported by rocktile yet: use a SwizzledSharedLayout or a "
                            "PaddedSharedLayout (see docs/gluon.md)")


class shared_memory_type:
    """The type of a buffer: `slots` blocks of `shape` and `element_ty`."""

    def __init__(self, element_ty, slots, shape, layout):
        self.element_ty, self.slots, self.shape, self.layout = element_ty, slots, tuple(shape), layout

    def is_block(self):
        return False

    @property
    def mlir(self):
        dims = "x".join(map(str, (self.slots, *self.shape)))
        return f"memref<{dims}x{self.element_ty.storage.mlir}, #gpu.address_space<workgroup>>"


class shared_memory_descriptor:
    """A block of a shared-memory buffer (`slot` of it), or with `indexed`
    False all of its blocks, to be picked with .index(i)."""

    def __init__(self, handle, type, slot, indexed, dims=None, origin=None, extent=None):
        self.handle, self.type, self.slot, self.indexed = handle, type, slot, indexed
        self.dtype, self.layout = type.element_ty, type.layout
        # A sub-block of the block (.slice): `extent` elements from `origin`;
        # and a permuted view of that (.permute): its dimension i is the
        # sub-block's dimension dims[i].
        self.origin = tuple(origin) if origin is not None else None
        self.extent = tuple(extent) if extent is not None else (type.shape if indexed else
                                                                 (type.slots, *type.shape))
        self.dims = tuple(dims) if dims is not None else None
        self.shape = tuple(self.extent[d] for d in self.dims) if self.dims else self.extent
        self.rank = len(self.shape)
        self.numel = math.prod(self.shape)

    def __repr__(self):
        view = (f", from {list(self.origin)}" if self.origin else "") + (
            f", permuted {list(self.dims)}" if self.dims else "")
        return f"shared_memory_descriptor({self.dtype}, {list(self.shape)}, {self.layout!r}{view})"

    def _block(self, what):
        if not self.indexed:
            raise SemanticError(f"{what} of a buffer of {self.type.slots} blocks needs one of them: "
                                f".index(i) first")
        return self.slot

    def load(self, layout):
        """The block, read into registers in `layout`."""
        layout = _unwrap(layout)
        if not isinstance(layout, DistributedLayout):
            raise SemanticError(f"shared memory .load needs a distributed layout, got {layout!r}")
        ty = block_type(self.dtype.storage, self.shape, layout)
        if not self.dims:
            return cast(_emit("tile.local_load", [self.handle, self._block(".load")], ty, self._origin()), self.dtype)
        # A permuted view: the block is read in the layout that permutes to
        # `layout`, then permuted (which moves no element between lanes).
        inverse = [self.dims.index(d) for d in range(self.rank)]
        stored = permuted_for(layout, inverse, self.shape, self.dtype)
        if stored is None:
            raise SemanticError(f".load of a permuted shared-memory view in {layout!r}: rocktile cannot write "
                                "that layout permuted; use a BlockedLayout, DistributedLinearLayout or matrix "
                                "layout")
        block = _emit("tile.local_load", [self.handle, self._block(".load")],
                      block_type(self.dtype.storage, self.extent, stored), self._origin())
        value = _emit("tile.trans", [block], ty, {"order": f"array<i32: {', '.join(map(str, self.dims))}>"})
        return cast(value, self.dtype)

    def permute(self, order):
        """A view of the block with its dimensions permuted (a transposed
        view of a 2-D block: .permute([1, 0]))."""
        order = _permutation(_ints(order, ".permute's order"), ".permute's order")
        if not self.indexed or len(order) != self.rank:
            raise SemanticError(f".permute({list(order)}) needs a block of rank {len(order)}: "
                                f"{'.index(i) first' if not self.indexed else f'this one has rank {self.rank}'}")
        dims = [self.dims[d] for d in order] if self.dims else list(order)
        return shared_memory_descriptor(self.handle, self.type, self.slot, True, dims, self.origin, self.extent)

    def slice(self, start, length, dim=0):
        """The sub-block of `length` elements from `start` along `dim`: a
        power-of-two length, `start` a multiple of it."""
        start, length, dim = _unwrap(start), _unwrap(length), _unwrap(dim)
        if not self.indexed or self.dims:
            raise SemanticError(".slice needs a block (.index(i) first), not permuted (slice, then permute)")
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in (start, length, dim)) or \
                not 0 <= dim < self.rank:
            raise SemanticError(f".slice(start, length, dim) takes constant ints and a dimension of the block's "
                                f"{self.rank}, got {start!r}, {length!r}, {dim!r}")
        if length <= 0 or length & (length - 1) or start % length or start < 0 or \
                start + length > self.extent[dim]:
            raise SemanticError(f".slice({start}, {length}, dim={dim}) of a block of {list(self.shape)}: rocktile "
                                "takes a power-of-two length and a start that is a multiple of it, inside the block")
        origin = list(self.origin or [0] * self.rank)
        origin[dim] += start
        extent = list(self.extent)
        extent[dim] = length
        return shared_memory_descriptor(self.handle, self.type, self.slot, True, None, origin, extent)

    def _origin(self):
        """tile.local_load's and local_store's attribute for a sub-block."""
        return {"offsets": f"array<i64: {', '.join(map(str, self.origin))}>"} if self.origin else {}

    def store(self, value):
        """Writes `value` (a tile of the block's shape and dtype) into the block."""
        value = to_tensor(_unwrap(value))
        slot = self._block(".store")
        if self.dims:
            raise SemanticError(".store into a permuted shared-memory view is not supported by rocktile yet: "
                                "permute the tile instead (gl.permute)")
        if tuple(value.shape) != tuple(self.shape) or value.dtype != self.dtype:
            raise SemanticError(f"shared memory .store of a {value.type} into a block of {list(self.shape)} "
                                f"{self.dtype}: the shape and dtype must match")
        current().create("tile.local_store", [cast(value, self.dtype.storage), self.handle, slot], [], self._origin())

    def index(self, i):
        """Block `i` of a buffer of several (a ring of stages)."""
        if self.indexed:
            raise SemanticError(".index picks a block of a buffer allocated with several; this descriptor is one "
                                "block already")
        i = _unwrap(i)
        slot = constant(i, int32) if isinstance(i, int) else cast(to_tensor(i), int32)
        if slot.shape:
            raise SemanticError(f".index needs a scalar, got a tile of shape {list(slot.shape)}")
        return shared_memory_descriptor(self.handle, self.type, slot, True)

    def _not_yet(self, what):
        def fail(*args, **kwargs):
            raise SemanticError(f"shared memory .{what} is not supported by rocktile yet (see docs/gluon.md)")
        return fail

    def __getattr__(self, name):
        if name in ("reshape", "reinterpret", "gather", "scatter", "_keep_alive"):
            return self._not_yet(name)
        raise AttributeError(name)


def allocate_shared(element_ty, shape, layout, value=None):
    """A buffer of `shape` in `layout`; a shape of rank r + 1 whose layout
    has rank r is that many blocks (.index(i) picks one)."""
    layout = _unwrap(layout)
    if not isinstance(layout, SharedLayout):
        raise SemanticError(f"gl.allocate_shared_memory needs a shared layout (SwizzledSharedLayout, "
                            f"PaddedSharedLayout), got {layout!r}")
    rank = layout.rank
    shape = tuple(shape)
    if len(shape) not in (rank, rank + 1):
        raise SemanticError(f"gl.allocate_shared_memory of shape {list(shape)} in {layout!r} (rank {rank}): the "
                            f"shape is a block, or a number of blocks and a block")
    slots, block = (1, shape) if len(shape) == rank else (shape[0], shape[1:])
    check_shape(block)
    if slots < 1:
        raise SemanticError(f"gl.allocate_shared_memory of {slots} blocks")
    ty = shared_memory_type(element_ty, slots, block, layout)
    handle = current().create("tile.local_alloc", [], [ty], {"arrangement": layout.mlir_for(block)}).result(0)
    single = len(shape) == rank
    descriptor = shared_memory_descriptor(handle, ty, constant(0, int32) if single else None, single)
    if value is not None:
        descriptor.store(value)
    return descriptor


@dataclass
class tensor_copy_descriptor:
    """A strided 2-D tensor in global memory whose blocks the Tensor Data
    Mover copies into shared memory laid out as `layout` (Gluon's
    gl.amd.gfx1250.tdm descriptors)."""
    base: object
    shape: list
    strides: list
    block_shape: tuple
    layout: SharedLayout

    @property
    def dtype(self):
        return self.base.dtype.element_ty


def _i32_values(values, what):
    out = []
    for v in values:
        v = _unwrap(v)
        v = constant(v, int32) if isinstance(v, int) else to_tensor(v)
        if v.shape or not v.dtype.is_int() or v.dtype.primitive_bitwidth > 32:
            raise SemanticError(f"{what} must be 32-bit integers, got {v.type}")
        out.append(cast(v, int32))
    return out


def _tensor_data_mover(what):
    """The IR builder of a kernel compiled for a chip with a Tensor Data
    Mover, or an error naming `what` needs one."""
    ir = current()
    if not ir.C.has_tensor_data_mover(ir.target):
        raise SemanticError(f"{ir.target} has no Tensor Data Mover: {what} is gfx1250's")
    return ir


def make_tensor_copy_descriptor(base, shape, strides, block_shape, layout):
    base = to_tensor(_unwrap(base))
    if base.shape or not base.dtype.is_ptr():
        raise SemanticError(f"a tensor descriptor's base must be a pointer, got {base.type}")
    shape, strides = [_unwrap(x) for x in _unwrap(shape)], [_unwrap(x) for x in _unwrap(strides)]
    block_shape = _ints(block_shape, "block_shape")
    ir = _tensor_data_mover("gl.amd.gfx1250.tdm")
    if not len(shape) == len(strides) == len(block_shape) == 2:
        raise SemanticError(f"rocktile's tensor descriptors are 2-D for now, got shape {shape} and block "
                            f"{list(block_shape)}")
    if not (isinstance(strides[-1], int) and strides[-1] == 1):
        raise SemanticError("a tensor descriptor's last stride must be the constant 1 (rows are contiguous)")
    if block_shape[0] % ir.num_warps:
        raise SemanticError(f"rocktile's Tensor Data Mover copies give each warp whole rows: the block's "
                            f"{block_shape[0]} rows must be a multiple of num_warps ({ir.num_warps})")
    layout = _unwrap(layout)
    if not isinstance(layout, (SwizzledSharedLayout, PaddedSharedLayout)) or (
            isinstance(layout, SwizzledSharedLayout) and (layout.max_phase != 1 or layout.order[0] != 1)):
        raise SemanticError(f"the Tensor Data Mover lands a block's rows in order, unswizzled: its layout must be "
                            f"a PaddedSharedLayout or a SwizzledSharedLayout with max_phase 1 and order [1, 0], "
                            f"got {layout!r}")
    return tensor_copy_descriptor(base, _i32_values(shape, "shape"), _i32_values(strides, "strides"), block_shape,
                                  layout)


def copy_tensor_block(desc, offsets, dest):
    """Starts copying the block of `desc` at `offsets` into `dest` (a block
    of shared memory in the descriptor's layout)."""
    if not isinstance(desc, tensor_copy_descriptor):
        raise SemanticError(f"tdm.async_load needs a descriptor of tdm.make_tensor_descriptor, got {desc!r}")
    if not isinstance(dest, shared_memory_descriptor):
        raise SemanticError(f"tdm.async_load copies into shared memory (gl.allocate_shared_memory), got {dest!r}")
    slot = dest._block("tdm.async_load")
    if tuple(dest.shape) != tuple(desc.block_shape) or dest.dtype != desc.dtype or dest.layout != desc.layout:
        raise SemanticError(f"tdm.async_load of a {list(desc.block_shape)} {desc.dtype} block in {desc.layout!r} "
                            f"into {dest!r}: the shape, dtype and layout must match")
    offsets = _i32_values(_unwrap(offsets), "offsets")
    if len(offsets) != 2:
        raise SemanticError(f"tdm.async_load needs 2 offsets, got {len(offsets)}")
    current().create("tile.async_copy", [desc.base, *offsets, *desc.shape, *desc.strides, dest.handle, slot], [],
                     {"operandSegmentSizes": "array<i32: 1, 2, 2, 2, 1, 1>"})


def wait_tensor_copies(outstanding):
    outstanding = _unwrap(outstanding)
    if isinstance(outstanding, bool) or not isinstance(outstanding, int) or outstanding < 0:
        raise SemanticError(f"tdm.async_wait needs a non-negative Python int, got {outstanding!r}")
    _tensor_data_mover("gl.amd.gfx1250.tdm").create("tile.wait_tensor_copies", [], [], {"outstanding": f"{outstanding} : i32"})


def load_to_shared(dest, ptr, mask, other, fname):
    """Starts loading the elements of the tile of pointers `ptr` into
    `dest` without passing through registers (Gluon's async copies); they
    land at a wait_group that covers their group. Masked-off elements land
    as zeros."""
    if not isinstance(dest, shared_memory_descriptor):
        raise SemanticError(f"{fname} copies into shared memory (gl.allocate_shared_memory), got {dest!r}")
    slot = dest._block(fname)
    ptr = _pointer(ptr, fname)
    if tuple(ptr.shape) != tuple(dest.shape) or ptr.dtype.element_ty != dest.dtype:
        raise SemanticError(f"{fname} of {ptr.type} into {dest!r}: the pointers must address a block of the "
                            f"destination's shape and dtype")
    if other is not None:
        other = _unwrap(other)
        if not (isinstance(other, (int, float)) and other == 0):
            raise SemanticError(f"{fname}'s masked-off elements land as zeros: other must be 0 or None, got "
                                f"{other!r}")
    operands = [ptr]
    if mask is not None:
        mask = _mask(mask, fname)
        broadcast_shapes(ptr.shape, mask.shape, f"{fname}'s pointers and mask")
        operands.append(broadcast_to(mask, ptr.shape, f"the mask of {fname}"))
    current().create("tile.async_load", [*operands, dest.handle, slot], [], {})


def commit_group():
    current().create("tile.commit_group", [], [], {})


def wait_groups(outstanding, fname):
    outstanding = _unwrap(outstanding)
    if isinstance(outstanding, bool) or not isinstance(outstanding, int) or outstanding < 0:
        raise SemanticError(f"{fname} needs a non-negative Python int, got {outstanding!r}")
    current().create("tile.wait_groups", [], [], {"outstanding": f"{outstanding} : i32"})
