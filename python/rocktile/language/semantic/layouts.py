"""Distributed layouts: how a tile's elements are spread over the registers,
lanes and warps of a workgroup, as the explicit level (rocktile.gluon)
writes them. Each is a `tile` dialect layout attribute (`mlir`), the same
one layout assignment produces at the tile level, so everything below the
front end treats a hand-placed tile and a compiler-placed one alike.

The names and fields are those of Triton's Gluon (`BlockedLayout`,
`SliceLayout`, `DistributedLinearLayout`); `AutoLayout` and
`CoalescedLayout`, which ask the compiler to choose, are named so that a
kernel using them gets a clear error."""
from __future__ import annotations

from dataclasses import dataclass

from ...errors import SemanticError
from .tracing import _unwrap


def _ints(values, what):
    values = _unwrap(values)
    if not isinstance(values, (list, tuple)):
        raise SemanticError(f"{what} must be a list of ints, got {values!r}")
    out = tuple(_unwrap(v) for v in values)
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in out):
        raise SemanticError(f"{what} must be a list of ints, got {list(out)}")
    return out


def _bases(values, what, rank=None):
    bases = tuple(_ints(b, f"each basis of {what}") for b in _unwrap(values) or ())
    if rank is not None and any(len(b) != rank for b in bases):
        raise SemanticError(f"every basis of {what} must have {rank} coordinates, got {[list(b) for b in bases]}")
    return bases


def _list(values):
    return "[" + ", ".join(map(str, values)) + "]"


class DistributedLayout:
    """A layout of a tile over registers, lanes and warps."""

    @property
    def mlir(self) -> str:
        raise NotImplementedError

    def permuted(self, dims):
        """This layout with its dimensions permuted as tl.permute(x, dims)
        permutes a tile's, or None where that cannot be written."""
        return None


@dataclass(frozen=True)
class BlockedLayout(DistributedLayout):
    """Each lane holds `size_per_thread` consecutive elements per dimension;
    a warp tiles `threads_per_warp` lanes and the workgroup `warps_per_cta`
    warps; the tile repeats over registers until the tensor is covered,
    dimensions listed fastest first in `order`. The lanes multiply to the
    wave size (64 on gfx950, 32 on gfx1250), the warps to num_warps."""
    size_per_thread: tuple
    threads_per_warp: tuple
    warps_per_cta: tuple
    order: tuple
    cga_layout: tuple = ()

    def __post_init__(self):
        for name in ("size_per_thread", "threads_per_warp", "warps_per_cta", "order"):
            object.__setattr__(self, name, _ints(getattr(self, name), f"BlockedLayout's {name}"))
        object.__setattr__(self, "cga_layout", _bases(self.cga_layout, "BlockedLayout's cga_layout"))
        rank = len(self.order)
        if any(len(getattr(self, n)) != rank for n in ("size_per_thread", "threads_per_warp", "warps_per_cta")):
            raise SemanticError("BlockedLayout's size_per_thread, threads_per_warp, warps_per_cta and order must "
                                f"have the same length, got {self}")
        if sorted(self.order) != list(range(rank)):
            raise SemanticError(f"BlockedLayout's order must be a permutation of 0..{rank - 1}, got "
                                f"{list(self.order)}")
        for name in ("size_per_thread", "threads_per_warp", "warps_per_cta"):
            if any(v <= 0 or v & (v - 1) for v in getattr(self, name)):
                raise SemanticError(f"BlockedLayout's {name} must be powers of two, got {list(getattr(self, name))}")
        if self.cga_layout:
            raise SemanticError("BlockedLayout's cga_layout spreads a tile over a cluster of workgroups, which "
                                "rocktile does not launch: leave it empty")

    @property
    def rank(self):
        return len(self.order)

    @property
    def mlir(self):
        return (f"#tile.blocked<sizePerThread = {_list(self.size_per_thread)}, threadsPerWarp = "
                f"{_list(self.threads_per_warp)}, warpsPerCTA = {_list(self.warps_per_cta)}, order = "
                f"{_list(self.order)}>")

    def permuted(self, dims):
        inverse = {d: i for i, d in enumerate(dims)}
        return BlockedLayout([self.size_per_thread[d] for d in dims], [self.threads_per_warp[d] for d in dims],
                             [self.warps_per_cta[d] for d in dims], [inverse[d] for d in self.order])

    def __repr__(self):
        return (f"BlockedLayout(size_per_thread={list(self.size_per_thread)}, threads_per_warp="
                f"{list(self.threads_per_warp)}, warps_per_cta={list(self.warps_per_cta)}, order={list(self.order)})")


@dataclass(frozen=True)
class SliceLayout(DistributedLayout):
    """The layout of `parent` with dimension `dim` removed: element c is
    held by whoever holds c (with `dim` re-inserted) in the parent. A
    reduction along `dim` gives it; expand_dims along `dim` takes it back."""
    dim: int
    parent: DistributedLayout

    def __post_init__(self):
        object.__setattr__(self, "dim", _unwrap(self.dim))
        object.__setattr__(self, "parent", _unwrap(self.parent))
        if not isinstance(self.parent, DistributedLayout):
            raise SemanticError(f"SliceLayout's parent must be a distributed layout, got {self.parent!r}")
        if not isinstance(self.dim, int) or not 0 <= self.dim < self.parent.rank:
            raise SemanticError(f"SliceLayout's dim must be a dimension of its parent (rank {self.parent.rank}), "
                                f"got {self.dim!r}")

    @property
    def rank(self):
        return self.parent.rank - 1

    @property
    def mlir(self):
        if isinstance(self.parent, SliceLayout):
            raise SemanticError("a SliceLayout whose parent is a SliceLayout is not supported by rocktile yet; "
                                "write the layout as a DistributedLinearLayout")
        return f"#tile.slice<dim = {self.dim}, parent = {self.parent.mlir}>"

    def __repr__(self):
        return f"SliceLayout(dim={self.dim}, parent={self.parent!r})"


@dataclass(frozen=True)
class DistributedLinearLayout(DistributedLayout):
    """A linear layout spelled out: for each bit of the register, lane and
    warp index, the coordinate it contributes (an element's owner is the
    XOR of the bases of its set bits), for a tile of `shape`."""
    reg_bases: tuple
    lane_bases: tuple
    warp_bases: tuple
    block_bases: tuple
    shape: tuple

    def __post_init__(self):
        object.__setattr__(self, "shape", _ints(self.shape, "DistributedLinearLayout's shape"))
        for name in ("reg_bases", "lane_bases", "warp_bases", "block_bases"):
            object.__setattr__(self, name, _bases(getattr(self, name), f"DistributedLinearLayout's {name}",
                                                  len(self.shape)))
        if self.block_bases:
            raise SemanticError("DistributedLinearLayout's block_bases spread a tile over a cluster of workgroups, "
                                "which rocktile does not launch: leave them empty")

    @property
    def rank(self):
        return len(self.shape)

    @property
    def mlir(self):
        def bases(bs):
            return "[" + ", ".join(_list(b) for b in bs) + "]"
        return (f"#tile.linear<register = {bases(self.reg_bases)}, lane = {bases(self.lane_bases)}, "
                f"warp = {bases(self.warp_bases)}>")

    def permuted(self, dims):
        def move(bs):
            return [[b[d] for d in dims] for b in bs]
        return DistributedLinearLayout(move(self.reg_bases), move(self.lane_bases), move(self.warp_bases), [],
                                       [self.shape[d] for d in dims])

    def __repr__(self):
        def bases(bs):
            return [list(b) for b in bs]
        return (f"DistributedLinearLayout(reg_bases={bases(self.reg_bases)}, lane_bases={bases(self.lane_bases)}, "
                f"warp_bases={bases(self.warp_bases)}, block_bases=[], shape={list(self.shape)})")


class _CompilerChosen(DistributedLayout):
    """A layout that asks the compiler to choose (Gluon's AutoLayout and
    CoalescedLayout): rocktile's explicit level takes only written ones."""

    def __eq__(self, other):
        return type(other) is type(self)

    def __hash__(self):
        return hash(type(self).__name__)

    def __repr__(self):
        return f"{type(self).__name__}()"

    def _unsupported(self):
        raise SemanticError(f"{type(self).__name__} (a layout the compiler chooses) is not supported by rocktile's "
                            "explicit level yet: give the tile a BlockedLayout, SliceLayout or "
                            "DistributedLinearLayout (see docs/gluon.md)")

    rank = mlir = property(_unsupported)


class AutoLayout(_CompilerChosen):
    pass


class CoalescedLayout(_CompilerChosen):
    pass
