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
from .tracing import _unwrap, current
from ..types import float8e4nv, uint8


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


def _powers_of_two(values, what):
    """`values` (ints), each a power of two, or an error naming `what`."""
    if any(v <= 0 or v & (v - 1) for v in values):
        raise SemanticError(f"{what} must be powers of two, got {list(values)}")
    return values


def _permutation(order, what):
    """`order` (a layout's dimensions, fastest first), a permutation, or an error."""
    if sorted(order) != list(range(len(order))):
        raise SemanticError(f"{what} must be a permutation of 0..{len(order) - 1}, got {list(order)}")
    return order


def _no_clusters(layout, field):
    """Bases over a cluster of workgroups (cga_layout, block_bases), which
    rocktile does not launch: an error unless there are none."""
    if getattr(layout, field):
        raise SemanticError(f"{type(layout).__name__}'s {field} spreads over a cluster of workgroups, which "
                            "rocktile does not launch: leave it empty")


def _list(values):
    return "[" + ", ".join(map(str, values)) + "]"


def _linear_attr(bases):
    """#tile.linear of (register, lane, warp) bases."""
    def spelled(bs):
        return "[" + ", ".join(_list(b) for b in bs) + "]"
    return f"#tile.linear<register = {spelled(bases[0])}, lane = {spelled(bases[1])}, warp = {spelled(bases[2])}>"


class DistributedLayout:
    """A layout of a tile over registers, lanes and warps."""

    @property
    def mlir(self) -> str:
        raise NotImplementedError

    def mlir_for(self, shape, element_ty) -> str:
        """The attribute of this layout on a tile of `shape` and
        `element_ty`: the same for every tile but for the matrix-instruction
        layouts, spelled out linearly per shape."""
        return self.mlir

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
        _permutation(self.order, "BlockedLayout's order")
        for name in ("size_per_thread", "threads_per_warp", "warps_per_cta"):
            _powers_of_two(getattr(self, name), f"BlockedLayout's {name}")
        _no_clusters(self, "cga_layout")

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

    def mlir_for(self, shape, element_ty):
        if isinstance(self.parent, SliceLayout):
            raise SemanticError("a SliceLayout whose parent is a SliceLayout is not supported by rocktile yet; "
                                "write the layout as a DistributedLinearLayout")
        parent_shape = list(shape[:self.dim]) + [1] + list(shape[self.dim:])
        return f"#tile.slice<dim = {self.dim}, parent = {self.parent.mlir_for(parent_shape, element_ty)}>"

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
        _no_clusters(self, "block_bases")

    @property
    def rank(self):
        return len(self.shape)

    @property
    def mlir(self):
        return _linear_attr((self.reg_bases, self.lane_bases, self.warp_bases))

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


# The element types of the targets' matrix instructions (rocktile._C.matrix_instrs).
_MATRIX_ELEMENTS = {"bf16": "bf16", "fp16": "f16", "fp8e4nv": "fp8", "fp8e5": "fp8", "int8": "i8", "uint8": "i8",
                    "fp32": "f32", "int32": "i32"}


def _matrix_instr(kind, instr_shape, element_ty, operand):
    """The target's matrix instruction of `kind` ("mfma", "wmma") with
    `instr_shape` (m, n, k) taking `element_ty` as its A and B (for a dot
    operand), or any of that shape (for D, whose layout only its m and n
    decide)."""
    ir = current()
    instrs = [i for i in ir.C.matrix_instrs(ir.target) if i["op"] == kind]
    if not instrs:
        other = "WMMA (gl.amd.AMDWMMALayout)" if kind == "mfma" else "MFMA (gl.amd.AMDMFMALayout)"
        raise SemanticError(f"{ir.target} has no {kind.upper()} instructions: its matrix instructions are {other}")
    shaped = [i for i in instrs if [i["m"], i["n"], i["k"]] == list(instr_shape)]
    if operand != 2:
        shaped = [i for i in shaped if i["ab"] == _MATRIX_ELEMENTS.get(element_ty.name)]
    if not shaped:
        listed = ", ".join(f"{i['m']}x{i['n']}x{i['k']} ({i['ab']})" for i in instrs)
        what = f"for {element_ty} operands " if operand != 2 else ""
        raise SemanticError(f"{ir.target} has no {kind.upper()} instruction of shape {list(instr_shape)} {what}"
                            f"(instr_shape [m, n, k]); it has {listed}")
    return shaped[0]


def _dot_layout_attr(instr, operand, shape, parent):
    """The #tile.linear of `operand` (0: A, 1: B, 2: D) of `instr` on a tile
    of `shape`, its warps where the accumulator layout `parent` puts them."""
    return _linear_attr(_dot_layout_bases(instr, operand, shape, parent))


def _dot_layout_bases(instr, operand, shape, parent):
    """_dot_layout_attr's (register, lane, warp) bases."""
    ir = current()
    if len(shape) != 2 or parent.rank != 2:
        raise SemanticError(f"rocktile's matrix-instruction layouts are 2-D for now, got a tile of shape "
                            f"{list(shape)} in {parent!r}")
    try:
        bases = ir.C.explicit_dot_layout(ir.target, instr["name"], operand, list(shape), ir.num_warps,
                                         [list(w) for w in parent.warp_tiles], parent.transposed)
    except ValueError as e:
        raise SemanticError(f"a tile of shape {list(shape)} cannot take {instr['name']}'s "
                            f"{'ABD'[operand]} layout: {e}") from None
    return bases


def permuted_for(layout, dims, shape, element_ty):
    """`layout` of a tile of `shape` with its dimensions permuted as
    tl.permute(x, dims) permutes a tile's: the layout of the tile that
    permutes to one in `layout` (a matrix-instruction layout spelled out
    as a DistributedLinearLayout), or None where that cannot be written."""
    if isinstance(layout, DotOperandLayout):
        bases = _dot_layout_bases(layout.instr(element_ty), layout.operand_index, shape, layout.parent)
    elif isinstance(layout, (AMDMFMALayout, AMDWMMALayout)):
        bases = _dot_layout_bases(_matrix_instr(layout.kind, layout.instr_shape, element_ty, 2), 2, shape, layout)
    else:
        return layout.permuted(dims)
    return DistributedLinearLayout(*bases, [], list(shape)).permuted(dims)


@dataclass(frozen=True)
class AMDMFMALayout(DistributedLayout):
    """The accumulator layout of gfx950's MFMA instructions (Gluon's
    gl.amd.AMDMFMALayout): `instr_shape` [m, n, k] names the instruction,
    `warps_per_cta` [along M, along N] the warps, and `transposed` computes
    Dᵀ = Bᵀ Aᵀ, so that each lane holds consecutive elements of a row."""
    version: int
    instr_shape: tuple
    transposed: bool
    warps_per_cta: tuple
    element_bitwidth: int = None
    tiles_per_warp: tuple = None
    cga_layout: tuple = ()

    def __post_init__(self):
        object.__setattr__(self, "version", _unwrap(self.version))
        object.__setattr__(self, "transposed", bool(_unwrap(self.transposed)))
        object.__setattr__(self, "instr_shape", _ints(self.instr_shape, "AMDMFMALayout's instr_shape"))
        object.__setattr__(self, "warps_per_cta", _ints(self.warps_per_cta, "AMDMFMALayout's warps_per_cta"))
        object.__setattr__(self, "element_bitwidth", _unwrap(self.element_bitwidth) or 32)
        tiles = _unwrap(self.tiles_per_warp)
        object.__setattr__(self, "tiles_per_warp", _ints(tiles, "AMDMFMALayout's tiles_per_warp") if tiles
                           else (1,) * len(self.warps_per_cta))
        object.__setattr__(self, "cga_layout", _bases(self.cga_layout, "AMDMFMALayout's cga_layout"))
        if len(self.instr_shape) != 3:
            raise SemanticError(f"AMDMFMALayout's instr_shape is [m, n, k], got {list(self.instr_shape)}")
        if self.element_bitwidth != 32:
            raise SemanticError("AMDMFMALayout's element_bitwidth=64 (fp64 MFMA) is not supported by rocktile")
        if any(t != 1 for t in self.tiles_per_warp):
            raise SemanticError("AMDMFMALayout's tiles_per_warp is not supported by rocktile yet: leave it at 1")
        _no_clusters(self, "cga_layout")

    kind = "mfma"

    @property
    def rank(self):
        return len(self.warps_per_cta)

    @property
    def warp_tiles(self):
        """Each warp bit's step in instruction tiles (along M, along N):
        along N first, as Triton's Gluon orders them."""
        def steps(count, d):
            return [(0, 1 << i) if d else (1 << i, 0) for i in range(count.bit_length() - 1)]
        ir = current()
        if self.warps_per_cta[0] * self.warps_per_cta[1] != ir.num_warps:
            raise SemanticError(f"{self!r}: warps_per_cta must multiply to num_warps ({ir.num_warps})")
        return steps(self.warps_per_cta[1], 1) + steps(self.warps_per_cta[0], 0)

    def mlir_for(self, shape, element_ty):
        return _dot_layout_attr(_matrix_instr(self.kind, self.instr_shape, element_ty, 2), 2, shape, self)

    def __repr__(self):
        return (f"AMDMFMALayout(version={self.version}, instr_shape={list(self.instr_shape)}, transposed="
                f"{self.transposed}, warps_per_cta={list(self.warps_per_cta)})")


@dataclass(frozen=True)
class AMDWMMALayout(DistributedLayout):
    """The accumulator layout of gfx1250's WMMA instructions (Gluon's
    gl.amd.AMDWMMALayout, version 3): `instr_shape` [m, n, k] names the
    instruction, `warp_bases` say where each warp bit steps, in instruction
    tiles along (M, N), and `transposed` computes Dᵀ = Bᵀ Aᵀ."""
    version: int
    transposed: bool
    warp_bases: tuple
    reg_bases: tuple = None
    instr_shape: tuple = None
    cga_layout: tuple = ()
    rank: int = None

    def __post_init__(self):
        object.__setattr__(self, "version", _unwrap(self.version))
        object.__setattr__(self, "transposed", bool(_unwrap(self.transposed)))
        object.__setattr__(self, "warp_bases", _bases(self.warp_bases, "AMDWMMALayout's warp_bases"))
        object.__setattr__(self, "reg_bases", _bases(self.reg_bases, "AMDWMMALayout's reg_bases"))
        shape = _unwrap(self.instr_shape)
        object.__setattr__(self, "instr_shape", _ints(shape if shape is not None else [16, 16, 16],
                                                      "AMDWMMALayout's instr_shape"))
        object.__setattr__(self, "cga_layout", _bases(self.cga_layout, "AMDWMMALayout's cga_layout"))
        object.__setattr__(self, "rank", _unwrap(self.rank) or 2)
        if self.version != 3:
            raise SemanticError(f"AMDWMMALayout version {self.version} is RDNA's; gfx1250's is version 3")
        if self.reg_bases:
            raise SemanticError("AMDWMMALayout's reg_bases are not supported by rocktile yet: leave them out (the "
                                "instruction's tiles then repeat over registers)")
        _no_clusters(self, "cga_layout")

    kind = "wmma"
    warp_tiles = property(lambda self: self.warp_bases)
    mlir_for = AMDMFMALayout.mlir_for

    def __repr__(self):
        return (f"AMDWMMALayout(version=3, transposed={self.transposed}, warp_bases="
                f"{[list(b) for b in self.warp_bases]}, instr_shape={list(self.instr_shape)})")


@dataclass(frozen=True)
class DotOperandLayout(DistributedLayout):
    """The layout of operand `operand_index` (0: A, 1: B) of the matrix
    instruction whose accumulator layout is `parent`: each lane holds
    `k_width` consecutive k, which must be what the instruction reads."""
    operand_index: int
    parent: DistributedLayout
    k_width: int

    def __post_init__(self):
        for name in ("operand_index", "parent", "k_width"):
            object.__setattr__(self, name, _unwrap(getattr(self, name)))
        if self.operand_index not in (0, 1):
            raise SemanticError(f"DotOperandLayout's operand_index is 0 (A) or 1 (B), got {self.operand_index!r}")
        if not isinstance(self.parent, (AMDMFMALayout, AMDWMMALayout)):
            raise SemanticError("rocktile's DotOperandLayout takes an AMDMFMALayout or AMDWMMALayout parent, got "
                                f"{self.parent!r}")

    @property
    def rank(self):
        return self.parent.rank

    def resolve(self, element_ty):
        """(instruction, packed) this layout names for a tile of
        `element_ty`: the operand's own instruction, its elements bytes of
        two E2M1 codes along K where `packed` (a block-scaled instruction's
        operand: (u)int8 where the shape has a block-scaled instruction, or,
        as Triton names gfx1250's, a WMMA shape whose k counts bytes; k_width
        in bytes); for a tile of other elements in this layout (indices,
        masks, pointers), the instruction whose k_width it names."""
        m, n, k = self.parent.instr_shape
        instrs = [i for i in current().C.matrix_instrs(current().target) if i["op"] == self.parent.kind]
        shaped = [i for i in instrs if (i["m"], i["n"], i["k"]) == (m, n, k)]
        scaled = [i for i in shaped if i["scaled"]] + [
            i for i in instrs if self.parent.kind == "wmma" and (i["m"], i["n"], i["k"]) == (m, n, 2 * k) and i["scaled"]]
        ab = _MATRIX_ELEMENTS.get(element_ty.name)
        own = [i for i in shaped if i["ab"] == ab]
        if ab == "i8" and scaled and not (own and own[0]["k_width"] == self.k_width):
            if scaled[0]["k_width_e2m1"] != self.k_width:
                raise SemanticError(f"k_width={self.k_width} does not match {scaled[0]['name']}, whose lanes hold "
                                    f"{scaled[0]['k_width_e2m1']} bytes of E2M1 pairs of A and B: use "
                                    f"k_width={scaled[0]['k_width_e2m1']}")
            return scaled[0], True
        if own:
            if own[0]["k_width"] != self.k_width:
                raise SemanticError(f"k_width={self.k_width} does not match {own[0]['name']}, whose lanes hold "
                                    f"{own[0]['k_width']} consecutive k of A and B: use k_width={own[0]['k_width']}")
            return own[0], False
        for i in shaped:
            if i["k_width"] == self.k_width:
                return i, False
        for i in scaled:
            if i["k_width_e2m1"] == self.k_width:
                return i, True
        _matrix_instr(self.parent.kind, self.parent.instr_shape, element_ty, self.operand_index)  # the error
        raise SemanticError(f"no {self.parent.kind.upper()} instruction of shape {list(self.parent.instr_shape)} "
                            f"has k_width={self.k_width}")

    def instr(self, element_ty):
        """The matrix instruction this operand feeds, its k_width checked."""
        return self.resolve(element_ty)[0]

    def mlir_for(self, shape, element_ty):
        instr, packed = self.resolve(element_ty)
        if packed:
            return _linear_attr(_scaled_layout_bases(instr, self.operand_index, shape, self.parent, packed=True))
        return _dot_layout_attr(instr, self.operand_index, shape, self.parent)

    def __repr__(self):
        return f"DotOperandLayout(operand_index={self.operand_index}, parent={self.parent!r}, k_width={self.k_width})"


def _scaled_layout_bases(instr, operand, shape, parent, packed=False, block=32):
    """The bases of `operand` (0: A, 1: B, 3: A's scales, 4: B's) of the
    block-scaled form of `instr`, A or B of bytes of E2M1 pairs where
    `packed`."""
    ir = current()
    try:
        return ir.C.explicit_scaled_dot_layout(ir.target, instr["name"], operand, list(shape), ir.num_warps,
                                               [list(w) for w in parent.warp_tiles], parent.transposed,
                                               packed and operand == 0, packed and operand == 1, block)
    except ValueError as e:
        raise SemanticError(f"a tile of shape {list(shape)} cannot take the layout of "
                            f"{('A', 'B', 'D', 'the scales of A', 'the scales of B')[operand]} of "
                            f"{instr['name']}'s block-scaled form: {e}") from None


@dataclass(frozen=True)
class ScaleLayout(DistributedLayout):
    """The layout of the scales of the operand in `operand` (a
    DotOperandLayout of a block-scaled instruction), one per `scale_factor`
    k: what gl.amd.cdna4.get_mfma_scale_layout and
    gl.amd.gfx1250.get_wmma_scale_layout return (Triton's spell it out as a
    DistributedLinearLayout for a shape; this one is spelled out per
    shape)."""
    operand: DotOperandLayout
    scale_factor: int = 32

    @property
    def rank(self):
        return 2

    def mlir_for(self, shape, element_ty):
        # The block-scaled instruction the operand names: for fp8 operands,
        # else for bytes of E2M1 pairs (whose k_width differs on gfx1250).
        try:
            instr = self.operand.instr(float8e4nv)
        except SemanticError:
            instr = self.operand.instr(uint8)
        if not instr["scaled"]:
            raise SemanticError(f"{instr['name']}, which {self.operand!r} names, has no block-scaled form")
        return _linear_attr(_scaled_layout_bases(instr, 3 + self.operand.operand_index, shape, self.operand.parent,
                                                 block=self.scale_factor))

    def __repr__(self):
        return f"ScaleLayout(operand={self.operand!r}, scale_factor={self.scale_factor})"


def scale_layout(dot_operand_layout, scale_factor):
    """Gluon's get_mfma_scale_layout and get_wmma_scale_layout (whose shape
    argument a ScaleLayout does not need: it is spelled out per shape)."""
    if _unwrap(scale_factor) != 32:
        raise SemanticError("rocktile's block-scaled instructions take one E8M0 scale per 32 k (scale_factor=32)")
    return ScaleLayout(_unwrap(dot_operand_layout), 32)


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
