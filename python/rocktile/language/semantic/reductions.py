"""Reductions, scans, sorts, gathers and user combine functions; joins and splits of
size-2 dimensions, which are built from them."""
from __future__ import annotations

from ...errors import SemanticError
from ..types import block_type, dtype, int1, int32, uint32
from .tracing import current, tensor
from .conversions import _emit, _value, cast, constant, to_tensor
from .shapes import broadcast_shapes, broadcast_to, common_layout, expand_dims, reshape
from .arithmetic import (_broadcast_tiles, _numeric, add, and_, equal, greater, invert, less, maximum, minimum, mul,
                         not_equal, or_, shr, where, xor)
from .memory import arange, full
from .layouts import SliceLayout


def _reduce_axis(inputs, axis, combine):
    """One tile.reduce over `axis`; `combine(lhs, rhs)` builds the combiner
    from two lists of scalars and returns the list of combined scalars."""
    ir = current()
    shape = inputs[0].shape
    for t in inputs[1:]:
        common_layout(shape, t.shape, "a reduction's inputs")
    out_shape = shape[:axis] + shape[axis + 1:]
    layout = SliceLayout(axis, shape.layout) if shape.layout is not None and out_shape else None
    result_types = [block_type(t.dtype, out_shape, layout) if out_shape else t.dtype for t in inputs]
    op = ir.create("tile.reduce", inputs, result_types, {"axis": f"{axis} : i32"}, num_regions=1)
    scalar_types = [ir.type(t.dtype) for t in inputs]
    block = op.add_block(0, scalar_types * 2, ir.loc())
    with ir.inside(block):
        n = len(inputs)
        lhs = [tensor(block.arg(i), t.dtype) for i, t in enumerate(inputs)]
        rhs = [tensor(block.arg(n + i), t.dtype) for i, t in enumerate(inputs)]
        ir.create("tile.reduce.return", combine(lhs, rhs), [])
    return [tensor(op.result(i), ty) for i, ty in enumerate(result_types)]


def reduce(inputs, axis, combine, keep_dims, fname):
    rank = len(inputs[0].shape)
    if axis is None:
        if rank == 0:
            return inputs
        # Reduce every axis, innermost first; each step is a one-axis tile.reduce.
        results = inputs
        for ax in reversed(range(rank)):
            results = _reduce_axis(results, ax, combine)
        axes = range(rank)
    else:
        if not -rank <= axis < rank:
            raise SemanticError(f"{fname}: axis {axis} is out of range for a tensor of rank {rank}")
        axis %= rank
        results, axes = _reduce_axis(inputs, axis, combine), [axis]
    if keep_dims:
        for ax in axes:
            results = [expand_dims(r, ax) for r in results]
    return results


def _pair_partner(y, axis):
    """Each element's partner across a size-2 `axis`: x ^ xor_sum(x) over the
    pair is the other element (on the bits, for floats)."""
    ty = y.dtype
    bits = ty.storage if ty.is_bool() else dtype(f"int{ty.primitive_bitwidth}")
    b = cast(y, bits, bitcast=ty.is_floating()) if bits != ty else y
    both = reduce([b], axis, lambda l, r: [xor(l[0], r[0])], True, "tl.flip")[0]
    other = xor(b, both)
    return cast(other, ty, bitcast=ty.is_floating()) if bits != ty else other


def flip(x, dim):
    """The elements of `x` in reverse order along `dim`: the dimension is
    split into size-2 ones whose two elements are swapped in turn."""
    x = _numeric(x, "tl.flip")
    shape = list(x.shape)
    if not shape:
        raise SemanticError("tl.flip needs a tile, got a scalar")
    if not -len(shape) <= dim < len(shape):
        raise SemanticError(f"tl.flip: dimension {dim} is out of range for a tile of rank {len(shape)}")
    dim %= len(shape)
    steps = shape[dim].bit_length() - 1
    if steps == 0:
        return x
    y = reshape(x, shape[:dim] + [2] * steps + shape[dim + 1:], "tl.flip")
    for axis in range(dim, dim + steps):
        y = _pair_partner(y, axis)
    return reshape(y, shape, "tl.flip")


def gather(src, index, axis):
    src = _numeric(src, "tl.gather")
    rank = len(src.shape)
    if not rank or len(index.shape) != rank or not index.dtype.is_int():
        raise SemanticError(f"tl.gather needs a tile and an integer tile of its rank as the index, got "
                            f"{src.type} and {index.type}")
    if not -rank <= axis < rank:
        raise SemanticError(f"tl.gather: axis {axis} is out of range for a tile of rank {rank}")
    axis %= rank
    if any(a != b for d, (a, b) in enumerate(zip(src.shape, index.shape)) if d != axis):
        raise SemanticError(f"tl.gather: the index's shape {list(index.shape)} must be the source's "
                            f"{list(src.shape)} in every dimension but the axis ({axis})")
    return _emit("tile.gather", [src, index], block_type(src.dtype, index.shape), {"axis": f"{axis} : i32"})


def _sorting_dim(x, dim, fname):
    """`x` checked for a sort along `dim`, which must be its last one: (x,
    its shape)."""
    x = _numeric(x, fname)
    shape = list(x.shape)
    if not shape:
        raise SemanticError(f"{fname} needs a tile, got a scalar")
    if dim not in (len(shape) - 1, -1):
        raise SemanticError(f"{fname} works along the last dimension only ({len(shape) - 1}), got dim={dim}")
    return x, shape


def _bitonic_merge(x, size, descending, alternate, fname):
    """Sorts each block of `size` consecutive elements along the last
    dimension, each a bitonic sequence: all `descending` (else ascending),
    or, with `alternate`, blocks whose bit `size` is set the other way (a
    bitonic sequence of 2 `size` for the next merge). Each compare-exchange
    splits the dimension into (blocks, 2, distance) and swaps an element
    with its partner across the size-2 dimension."""
    shape = list(x.shape)
    r, n = len(shape) - 1, shape[-1]
    distance = size // 2
    while distance >= 1:
        split_shape = shape[:-1] + [n // (2 * distance), 2, distance]
        y = reshape(x, split_shape, fname)
        other = _pair_partner(y, r + 1)
        right = equal(_axis_index(split_shape, r + 1), 1)
        if alternate:
            block = mul(_axis_index(split_shape, r), 2 * distance)
            flipped = not_equal(and_(block, size), 0)
            if descending:
                flipped = invert(flipped)
        else:
            flipped = full(split_shape, int(descending), int1)
        out_of_order = where(right, less(y, other), greater(y, other))
        x = reshape(where(xor(out_of_order, flipped), other, y), shape, fname)
        distance //= 2
    return x


def _sort_blocks(x, k, descending, fname):
    """Blocks of k consecutive elements along the last dimension sorted by
    merges of blocks of 2, 4, ... k elements: in alternating directions
    (pairs of them bitonic) while k is shorter than the dimension."""
    size = 2
    while size <= k:
        x = _bitonic_merge(x, size, descending, size < x.shape[-1], fname)
        size *= 2
    return x


def sort(x, dim, descending):
    """A bitonic sorting network along the last dimension."""
    x, shape = _sorting_dim(x, dim, "tl.sort")
    return _sort_blocks(x, shape[-1], descending, "tl.sort")


def bitonic_merge(x, dim, descending):
    """tl.bitonic_merge: `x`, a bitonic sequence along its last dimension,
    sorted."""
    x, shape = _sorting_dim(x, dim, "tl.bitonic_merge")
    return _bitonic_merge(x, shape[-1], descending, False, "tl.bitonic_merge")


def topk(x, k, dim, descending):
    """The k largest (or, not `descending`, smallest) elements along the last
    dimension, largest (smallest) first, as Triton's partial bitonic sort:
    blocks of k sorted in alternating directions, then, while more than k
    remain, each pair of blocks keeps the larger (smaller) of each two
    elements k apart, a bitonic sequence that is merged again."""
    x, shape = _sorting_dim(x, dim, "tl.topk")
    n = shape[-1]
    if not isinstance(k, int) or isinstance(k, bool) or k < 1 or k & (k - 1) or k > n:
        raise SemanticError(f"tl.topk: k must be a power of two between 1 and the dimension's {n}, got {k!r}")
    x = _sort_blocks(x, k, descending, "tl.topk")
    keep = greater if descending else less
    while n > k:
        pairs = reshape(x, shape[:-1] + [n // (2 * k), 2, k], "tl.topk")
        kept = reduce([pairs], len(shape), lambda l, r: [where(keep(r[0], l[0]), r[0], l[0])], False, "tl.topk")[0]
        n //= 2
        x = _bitonic_merge(reshape(kept, shape[:-1] + [n], "tl.topk"), k, descending, n > k, "tl.topk")
    return x


class KernelFunction:
    """What @rocktile.jit makes (rocktile.jit.JITFunction derives from it):
    the only functions tl.reduce takes as combiners, as in Triton."""


def _user_combiner(inputs, combine_fn, fname, scalars):
    """The inputs of tl.reduce or tl.associative_scan (tiles of one shape)
    and their combine function (a @jit one) as combine(lhs, rhs) on lists
    of values, one per input: scalars for a reduction, whole tiles for a
    scan."""
    if not isinstance(combine_fn, KernelFunction):
        raise SemanticError(f"{fname} needs a @rocktile.jit combine function, got {combine_fn!r}")
    inputs = [_numeric(x, fname) for x in inputs]
    if not inputs or any(x.shape != inputs[0].shape for x in inputs) or not inputs[0].shape:
        raise SemanticError(f"{fname} needs one tile or a tuple of tiles of the same shape, got shapes "
                            f"{[list(x.shape) for x in inputs]}")

    def combine(lhs, rhs):
        out = combine_fn(*lhs, *rhs)
        out = list(out) if isinstance(out, (tuple, list)) else [out]
        if len(out) != len(lhs):
            raise SemanticError(f"the combine function of {fname} returned {len(out)} value(s) for "
                                f"{len(lhs)} input(s)")
        results = []
        for value, like in zip(out, lhs):
            value = to_tensor(_value(value), like.dtype)
            if not scalars:
                value = broadcast_to(value, like.shape)
            if value.dtype != like.dtype or (scalars and value.shape):
                raise SemanticError(f"the combine function of {fname} must return {like.dtype} "
                                    f"{'scalars' if scalars else 'tiles'}, one per input, got {value.type}")
            results.append(value)
        return results
    return inputs, combine


def map_elementwise(scalar_fn, args, pack):
    """tl.map_elementwise: the @jit `scalar_fn` run on each element of
    `args` (broadcast to one shape), taking `pack` scalars of each argument
    and giving `pack` of each result, as a tile.map_elementwise. Its body is
    traced once to learn the result types, then again into the op."""
    fname = "tl.map_elementwise"
    if not isinstance(scalar_fn, KernelFunction):
        raise SemanticError(f"{fname} needs a @rocktile.jit scalar function, got {scalar_fn!r}")
    if isinstance(pack, bool) or not isinstance(pack, int) or pack < 1:
        raise SemanticError(f"{fname}: pack must be a positive int, got {pack!r}")
    values, shape = _broadcast_tiles([_numeric(a, fname) for a in args], fname)
    ir = current()
    scalar_types = [ir.type(v.dtype) for v in values for _ in range(pack)]

    def trace(block):
        scalars = [tensor(block.arg(i * pack + j), v.dtype) for i, v in enumerate(values) for j in range(pack)]
        out = scalar_fn(*scalars)
        single = not isinstance(out, (tuple, list))
        out = [to_tensor(_value(o)) for o in ([out] if single else out)]
        if not out or len(out) % pack or any(o.shape or o.dtype.is_ptr() for o in out):
            raise SemanticError(f"the scalar function of {fname} must return scalar numbers, {pack} per result "
                                f"(pack={pack}), got {[str(o.type) for o in out]}")
        dtypes = [o.dtype for o in out[::pack]]
        if any(o.dtype != dtypes[k // pack] for k, o in enumerate(out)):
            raise SemanticError(f"the scalar function of {fname} must return the {pack} scalars of each result in "
                                f"one dtype, got {[str(o.dtype) for o in out]}")
        return out, dtypes, single

    with ir.dry_run():
        probe = ir.create("tile.map_elementwise", values, [], {"pack": f"{pack} : i32"}, num_regions=1)
        _, dtypes, single = trace(probe.add_block(0, scalar_types, ir.loc()))
    result_types = [block_type(d, shape) for d in dtypes]
    op = ir.create("tile.map_elementwise", values, result_types, {"pack": f"{pack} : i32"}, num_regions=1)
    block = op.add_block(0, scalar_types, ir.loc())
    with ir.inside(block):
        ir.create("tile.map_elementwise.return", trace(block)[0], [])
    results = [tensor(op.result(k), t) for k, t in enumerate(result_types)]
    return results[0] if single else tuple(results)


def user_reduce(inputs, axis, combine_fn, keep_dims):
    """tl.reduce: `combine_fn` combines two sets of scalars, one per input,
    into one."""
    inputs, combine = _user_combiner(inputs, combine_fn, "tl.reduce", scalars=True)
    return reduce(inputs, axis, combine, keep_dims, "tl.reduce")


def user_scan(inputs, axis, combine_fn, reverse):
    """tl.associative_scan: `combine_fn` combines two sets of values, one per
    input, into one (called on whole tiles here)."""
    inputs, combine = _user_combiner(inputs, combine_fn, "tl.associative_scan", scalars=False)
    return scan(inputs, axis, combine, reverse, "tl.associative_scan")


def sum_(x, axis, keep_dims, dtype):
    x = _numeric(x, "tl.sum")
    if dtype is None and x.dtype.is_int() and x.dtype.primitive_bitwidth < 32:
        # Narrow integers would overflow: sum them in 32 bits, as Triton does.
        dtype = int32 if x.dtype.is_int_signed() else uint32
    if dtype is not None:
        x = cast(x, dtype)
    return reduce([x], axis, lambda a, b: [add(a[0], b[0])], keep_dims, "tl.sum")[0]


def scan(inputs, axis, combine, reverse, fname):
    """Inclusive scans of `inputs` (tiles of one shape) along `axis` with
    `combine(lhs, rhs)` (lists of tiles, lhs first in scan order): a
    butterfly over the bits of the axis index, low to high. After the level
    of bit k each element holds the combination of its aligned block of
    2^(k+1) up to itself (`prefix`) and of the whole block (`total`); the
    later half of a block puts the earlier half's total in front. Each
    level exchanges totals with the partner element across that bit (as
    tl.sort does), so combine is called in scan order and need not commute;
    `reverse` scans from the last element."""
    shape = list(inputs[0].shape)
    if not shape:
        raise SemanticError(f"{fname} needs a tile, got a scalar")
    if not -len(shape) <= axis < len(shape):
        raise SemanticError(f"{fname}: axis {axis} is out of range for a tile of rank {len(shape)}")
    axis %= len(shape)
    length = shape[axis]
    index = arange(0, length)
    for d in range(len(shape)):
        if d != axis:
            index = expand_dims(index, d)
    prefix, total = list(inputs), list(inputs)
    for k in range(length.bit_length() - 1):
        split = shape[:axis] + [length >> (k + 1), 2, 1 << k] + shape[axis + 1:]
        partner = [reshape(_pair_partner(reshape(t, split, fname), axis + 1), shape, fname) for t in total]
        bit = and_(shr(index, k), 1)
        later = broadcast_to(equal(bit, 0 if reverse else 1), shape)
        ahead = combine(partner, prefix)
        prefix = [where(later, a, p) for a, p in zip(ahead, prefix)]
        total = [where(later, hi, lo) for hi, lo in zip(combine(partner, total), combine(total, partner))]
    return prefix


def cumulative(x, axis, reverse, dtype, op, fname):
    """tl.cumsum (op add) and tl.cumprod (op mul): narrow integers and
    booleans accumulate in 32 bits, as tl.sum does, unless `dtype` is given."""
    x = _numeric(x, fname)
    if dtype is None and x.dtype.is_int() and x.dtype.primitive_bitwidth < 32:
        dtype = uint32 if x.dtype.is_int_unsigned() else int32
    if dtype is not None:
        x = cast(x, dtype)
    return scan([x], axis, lambda a, b: [op(a[0], b[0])], reverse, fname)[0]


def _index_combine(which, tie_break_left):
    """The combiner of argmax/argmin over (value, index) pairs: the larger
    (smaller) value; on a tie the smaller index, as Triton's tie_break_left."""
    better = greater if which == "max" else less

    def combine(a, b):
        (va, ia), (vb, ib) = a, b
        pick_a = better(va, vb)
        if tie_break_left:
            pick_a = or_(pick_a, and_(equal(va, vb), less(ia, ib)))
        return [where(pick_a, va, vb), where(pick_a, ia, ib)]
    return combine


def arg_reduce(x, axis, keep_dims, which, tie_break_left=True):
    """(max or min, its index) along `axis`; with axis=None over the whole
    tile, the index being the row-major flat index (as Triton's)."""
    x = _numeric(x, f"tl.arg{which}")
    if not x.shape:
        return x, constant(0, int32)
    rank = len(x.shape)
    axes = list(range(rank)) if axis is None else [axis % rank if -rank <= axis < rank else axis]
    if not 0 <= axes[0] < rank:
        raise SemanticError(f"tl.arg{which}: axis {axis} is out of range for a tensor of rank {rank}")
    index = None
    for ax in axes:  # the flat index over the reduced axes, row-major
        r = arange(0, x.shape[ax])
        for _ in range(ax):
            r = expand_dims(r, 0)
        for _ in range(ax + 1, rank):
            r = expand_dims(r, len(r.shape))
        index = r if index is None else add(mul(index, x.shape[ax]), r)
    index = broadcast_to(index, x.shape)
    return tuple(reduce([x, index], axis, _index_combine(which, tie_break_left), keep_dims, f"tl.arg{which}"))


def reduce_minmax(x, axis, keep_dims, which):
    x = _numeric(x, f"tl.{which}")
    combine = (lambda a, b: [maximum(a[0], b[0])]) if which == "max" else (lambda a, b: [minimum(a[0], b[0])])
    return reduce([x], axis, combine, keep_dims, f"tl.{which}")[0]


# Joins and splits of a last dimension of size 2.

def _last_axis_index(shape):
    """An int32 tile of `shape` holding each element's index along the last axis."""
    return _axis_index(shape, len(shape) - 1)


def _axis_index(shape, axis):
    """An int32 tile of `shape` holding each element's index along `axis`."""
    k = arange(0, shape[axis])
    for d in range(len(shape)):
        if d != axis:
            k = expand_dims(k, d)
    return broadcast_to(k, tuple(shape))


def join(a, b):
    """Triton's tl.join: a new last dimension of size 2 holding `a`, then `b`."""
    a, b = to_tensor(a), to_tensor(b)
    if a.dtype != b.dtype:
        raise SemanticError(f"tl.join needs two tensors of the same dtype, got {a.dtype} and {b.dtype}")
    shape = broadcast_shapes(a.shape, b.shape, "tl.join") + (2,)
    second = equal(_last_axis_index(shape), 1)
    a = broadcast_to(expand_dims(broadcast_to(a, shape[:-1]) if shape[:-1] else a, len(shape) - 1), shape)
    b = broadcast_to(expand_dims(broadcast_to(b, shape[:-1]) if shape[:-1] else b, len(shape) - 1), shape)
    return where(second, b, a)


def split(x):
    """Triton's tl.split: the two halves of a last dimension of size 2."""
    x = to_tensor(x)
    if not x.shape or x.shape[-1] != 2:
        raise SemanticError(f"tl.split needs a last dimension of size 2, got shape {list(x.shape)}")
    axis = len(x.shape) - 1
    index = _last_axis_index(x.shape)
    halves = []
    for want in (0, 1):
        # Keeps the element whose index is `want`, whatever order the reduction meets them in.
        def keep(lhs, rhs, want=want):
            first = equal(lhs[1], want)
            return [where(first, lhs[0], rhs[0]), where(first, lhs[1], rhs[1])]
        halves.append(_reduce_axis([x, index], axis, keep)[0])
    return halves
