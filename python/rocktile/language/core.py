"""The public `tl.*` functions and the dtypes, `constexpr` and `tensor` a
kernel sees.  Each function normalizes its arguments and calls `semantic`,
which type-checks and builds the IR.  Functions that Triton also offers as
tensor methods are made methods of `tensor` here (`@_tensor_method`)."""
from __future__ import annotations

import builtins
import enum
import functools

from . import descriptors, semantic
from .descriptors import block_pointer, tensor_descriptor
from .semantic import SemanticError, _is_constexpr_annotation, _unwrap, constexpr, tensor
from .types import (bfloat16, block_type, dtype, float8e4b8, float8e4nv, float8e5, float8e5b16, float16, float32,
                    float64, int1, int8, int16, int32, int64, pointer_type, uint8, uint16, uint32, uint64)

# Triton's name for the default of `descending` (kernels spell it in their signatures).
CONSTEXPR_0 = constexpr(0)


def _tensor_method(fn):
    """`fn` is also a method of tensor: x.sum(axis) is tl.sum(x, axis), as in Triton."""
    setattr(tensor, fn.__name__, fn)
    return fn


# --------------------------------------------------------------------------
# The public functions of rocktile.language.


def _int_arg(x, what):
    x = _unwrap(x)
    if isinstance(x, tensor) and isinstance(x.constant_value, int):
        x = x.constant_value  # a name assigned an int (control.assigned)
    if isinstance(x, builtins.bool) or not isinstance(x, int):
        raise SemanticError(f"{what} must be a Python int or tl.constexpr, got {_describe(x)}")
    return x


def _describe(x):
    if isinstance(x, tensor):
        return f"a tensor of type {x.type}"
    return f"{type(x).__name__} {x!r}"


def _dtype_arg(x, what="dtype"):
    x = _unwrap(x)
    if not isinstance(x, dtype) or x.is_block():
        raise SemanticError(f"{what} must be a tl dtype such as tl.float32, got {_describe(x)}")
    return x


def _shape_arg(shape):
    shape = _unwrap(shape)
    if isinstance(shape, int) and not isinstance(shape, builtins.bool):
        shape = [shape]
    if not isinstance(shape, (list, tuple)):
        raise SemanticError(f"shape must be a list or tuple of ints, got {_describe(shape)}")
    return semantic.check_shape([_int_arg(d, "each dimension of a shape") for d in shape])


def _axis_arg(axis):
    return None if _unwrap(axis) is None else _int_arg(axis, "axis")


def program_id(axis):
    """The index of this program along grid axis 0, 1 or 2 (an int32 scalar)."""
    return semantic.program_id(_int_arg(axis, "axis"))


def num_programs(axis):
    """The number of programs along grid axis 0, 1 or 2 (an int32 scalar)."""
    return semantic.num_programs(_int_arg(axis, "axis"))


def arange(start, end):
    """The int32 tile [start, start+1, ..., end-1]; end - start must be a power of two."""
    return semantic.arange(_int_arg(start, "start"), _int_arg(end, "end"))


def full(shape, value, dtype):
    """A tile of `shape` filled with `value` (a Python number or scalar tensor)."""
    return semantic.full(_shape_arg(shape), _unwrap(value), _dtype_arg(dtype))


def zeros(shape, dtype):
    """A tile of `shape` filled with zeros."""
    return full(shape, 0, dtype)


def full_like(input, value, dtype=None):
    """A tile of `input`'s shape (and dtype, unless given) filled with `value`."""
    x = semantic.to_tensor(_unwrap(input))
    return full(x.shape, value, x.dtype if _unwrap(dtype) is None else dtype)


def zeros_like(input, dtype=None):
    """A tile of `input`'s shape (and dtype, unless given) filled with zeros."""
    return full_like(input, 0, dtype)


_LOAD_CACHE_MODIFIERS = ("", ".ca", ".cg", ".cs", ".cv")
_STORE_CACHE_MODIFIERS = ("", ".wb", ".cg", ".cs", ".wt")
_EVICTION_POLICIES = ("", "evict_normal", "evict_first", "evict_last")


def _check_cache_hints(cache_modifier, eviction_policy, allowed):
    """Triton's cache modifiers and eviction policies; anything else (a typo)
    is an error, as in Triton."""
    cache_modifier, eviction_policy = _unwrap(cache_modifier) or "", _unwrap(eviction_policy) or ""
    if cache_modifier not in allowed:
        raise SemanticError(f"cache_modifier {cache_modifier!r} is not one of {', '.join(map(repr, allowed[1:]))}")
    if eviction_policy not in _EVICTION_POLICIES:
        raise SemanticError(f"eviction_policy {eviction_policy!r} is not one of "
                            f"{', '.join(map(repr, _EVICTION_POLICIES[1:]))}")
    return cache_modifier


def load(pointer, mask=None, other=None, boundary_check=(), padding_option="", cache_modifier="",
         eviction_policy="", volatile=False):
    """Load from a pointer or a tile of pointers.  Where `mask` is false the
    result is `other` (undefined if `other` is not given).  `volatile`, or
    `cache_modifier=".cv"` ("don't cache, fetch again"): read memory each
    time (a spin-wait on a flag another program sets).  `".cs"` ("cache
    streaming, likely accessed once"): a nontemporal load.  The other cache
    and eviction hints are checked and have no effect."""
    modifier = _check_cache_hints(cache_modifier, eviction_policy, _LOAD_CACHE_MODIFIERS)
    volatile = bool(_unwrap(volatile)) or modifier == ".cv"
    pointer = _unwrap(pointer)
    if isinstance(pointer, block_pointer):
        if _unwrap(mask) is not None or _unwrap(other) is not None:
            raise SemanticError("tl.load of a block pointer takes boundary_check and padding_option, not mask "
                                "and other")
        return descriptors.load_block(pointer, boundary_check, padding_option)
    if _unwrap(boundary_check) or _unwrap(padding_option):
        raise SemanticError("boundary_check and padding_option apply to block pointers (tl.make_block_ptr); "
                            "for a tile of pointers use mask and other")
    return semantic.load(pointer, _unwrap(mask), _unwrap(other), volatile, nontemporal=modifier == ".cs")


@_tensor_method
def store(pointer, value, mask=None, boundary_check=(), cache_modifier="", eviction_policy=""):
    """Store `value` (converted to the pointee type) where `mask` is true.
    `cache_modifier=".cs"`: a nontemporal store; the other cache and
    eviction hints are checked and have no effect."""
    modifier = _check_cache_hints(cache_modifier, eviction_policy, _STORE_CACHE_MODIFIERS)
    pointer = _unwrap(pointer)
    if isinstance(pointer, block_pointer):
        if _unwrap(mask) is not None:
            raise SemanticError("tl.store of a block pointer takes boundary_check, not mask")
        return descriptors.store_block(pointer, _unwrap(value), boundary_check)
    if _unwrap(boundary_check):
        raise SemanticError("boundary_check applies to block pointers (tl.make_block_ptr); for a tile of "
                            "pointers use mask")
    return semantic.store(pointer, _unwrap(value), _unwrap(mask), nontemporal=modifier == ".cs")


def make_tensor_descriptor(base, shape, strides, block_shape, padding_option="zero"):
    """A descriptor of the tensor at `base` (a pointer argument) with `shape`
    and `strides` (the last the compile-time 1), whose .load(offsets) and
    .store(offsets, value) move blocks of `block_shape` (powers of two, at
    least 16 bytes along the last dimension). Elements outside the tensor
    read as the padding ('zero' or 'nan') and are not written."""
    return descriptors.make_tensor_descriptor(_unwrap(base), shape, strides, block_shape, padding_option)


def load_tensor_descriptor(desc, offsets):
    """desc.load(offsets)."""
    return _descriptor_arg(desc, "tl.load_tensor_descriptor").load(offsets)


def store_tensor_descriptor(desc, offsets, value):
    """desc.store(offsets, value)."""
    return _descriptor_arg(desc, "tl.store_tensor_descriptor").store(offsets, value)


def _descriptor_arg(desc, fname):
    desc = _unwrap(desc)
    if not isinstance(desc, tensor_descriptor):
        raise SemanticError(f"{fname} needs a tensor descriptor (tl.make_tensor_descriptor), got {_describe(desc)}")
    return desc


def make_block_ptr(base, shape, strides, offsets, block_shape, order):
    """A block pointer (Triton's older API): the block of `block_shape` at
    `offsets` in the tensor at `base` with `shape` and `strides`; `order` (the
    dimensions from fastest to slowest varying) is checked and otherwise a hint.
    tl.load/tl.store take it with boundary_check (the dimensions to mask) and
    padding_option; tl.advance moves it."""
    return descriptors.make_block_ptr(_unwrap(base), shape, strides, offsets, block_shape, order)


def advance(base, offsets):
    """The block pointer moved by `offsets` (one per dimension)."""
    return descriptors.advance(_unwrap(base), offsets)


def where(condition, x, y):
    """Elementwise `x if condition else y`, with broadcasting and promotion."""
    return semantic.where(_unwrap(condition), _unwrap(x), _unwrap(y))


@_tensor_method
def cast(input, dtype, fp_downcast_rounding=None, bitcast=False):
    """Convert to `dtype`; with bitcast=True reinterpret the bits (same width).
    Narrowing floats rounds to nearest even ("rtne", the only rounding here)."""
    rounding = _unwrap(fp_downcast_rounding)
    if rounding not in (None, "rtne"):
        raise SemanticError(f"fp_downcast_rounding={rounding!r} is not supported: float conversions round to "
                            "nearest even ('rtne')")
    return semantic.cast(_unwrap(input), _dtype_arg(dtype), bitcast=builtins.bool(_unwrap(bitcast)))


def _to(self, dtype, fp_downcast_rounding=None, bitcast=False):
    """x.to(dtype) is tl.cast(x, dtype)."""
    return cast(self, dtype, fp_downcast_rounding, bitcast)


tensor.to = _to
tensor.T = property(lambda self: trans(self), doc="The transpose of a 2-D tile (the last two dimensions swapped).")


@_tensor_method
def expand_dims(input, axis):
    """Insert size-1 dimensions at `axis` (an int or a sequence of ints)."""
    axes = _unwrap(axis)
    axes = list(axes) if isinstance(axes, (list, tuple)) else [axes]
    x = semantic.to_tensor(_unwrap(input))
    rank = len(x.shape) + len(axes)
    for a in sorted((_int_arg(a, "axis") % rank if rank else 0) for a in axes):
        x = semantic.expand_dims(x, a)
    return x


@_tensor_method
def broadcast_to(input, *shape):
    """Broadcast `input` to `shape` (size-1 dimensions and scalars grow)."""
    if len(shape) == 1 and isinstance(_unwrap(shape[0]), (list, tuple)):
        shape = _unwrap(shape[0])
    return semantic.broadcast_to(semantic.to_tensor(_unwrap(input)), _shape_arg(list(shape)))


class PropagateNan(enum.Enum):
    """Whether maximum, minimum and clamp return NaN for a NaN operand
    (ALL) or the other operand (NONE, the default), as in Triton."""
    NONE = 0x0000
    ALL = 0xFFFF


# Triton's limit on the elements of one tile.
TRITON_MAX_TENSOR_NUMEL = semantic.MAX_NUMEL


def _propagates_nan(propagate_nan):
    value = _unwrap(propagate_nan)
    if value is None or value == PropagateNan.NONE:
        return False
    if value == PropagateNan.ALL:
        return True
    raise SemanticError(f"propagate_nan must be tl.PropagateNan.NONE or .ALL, got {value!r}")


def maximum(x, y, propagate_nan=PropagateNan.NONE):
    """Elementwise maximum; with a NaN operand, the other operand (or NaN
    with propagate_nan=PropagateNan.ALL)."""
    return semantic.maximum(_unwrap(x), _unwrap(y), _propagates_nan(propagate_nan))


def minimum(x, y, propagate_nan=PropagateNan.NONE):
    """Elementwise minimum; with a NaN operand, the other operand (or NaN
    with propagate_nan=PropagateNan.ALL)."""
    return semantic.minimum(_unwrap(x), _unwrap(y), _propagates_nan(propagate_nan))


def clamp(x, min, max, propagate_nan=PropagateNan.NONE):
    """minimum(maximum(x, min), max): `x` limited to [min, max] (min > max
    is undefined, as in Triton); a NaN `x` stays NaN with PropagateNan.ALL."""
    return minimum(maximum(x, min, propagate_nan), max, propagate_nan)


def add(x, y, sanitize_overflow=True):
    """x + y (Triton's debug-mode overflow check is not made)."""
    return semantic.add(_unwrap(x), _unwrap(y))


def sub(x, y, sanitize_overflow=True):
    """x - y (Triton's debug-mode overflow check is not made)."""
    return semantic.sub(_unwrap(x), _unwrap(y))


def mul(x, y, sanitize_overflow=True):
    """x * y (Triton's debug-mode overflow check is not made)."""
    return semantic.mul(_unwrap(x), _unwrap(y))


def to_tensor(x):
    """`x` as a tensor: a Python number becomes a scalar of its dtype."""
    return semantic.to_tensor(_unwrap(x))


def broadcast(input, other):
    """Both operands broadcast to their common shape."""
    x, y = semantic.to_tensor(_unwrap(input)), semantic.to_tensor(_unwrap(other))
    shape = semantic.broadcast_shapes(x.shape, y.shape, "tl.broadcast")
    return semantic.broadcast_to(x, shape), semantic.broadcast_to(y, shape)


def inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack):
    """AMDGPU inline assembly `asm` run on each element of `args` (broadcast
    to one shape), with LLVM's `constraints` (outputs first, e.g. "=v,v,v");
    one result of `dtype`, or a tuple for a sequence of dtypes. With `pack`
    > 1 (a power of two) each run takes `pack` elements, those narrower than
    32 bits packed into vectors of 32 bits at most, as in Triton. It runs
    only on a GPU: the emulator refuses it."""
    return semantic.inline_asm_elementwise(_unwrap(asm), _unwrap(constraints), [_unwrap(a) for a in args],
                                           _unwrap(dtype), _unwrap(is_pure), _unwrap(pack))


def map_elementwise(scalar_fn, *args, pack=1):
    """The @jit `scalar_fn` run on the elements of `args` (broadcast to one
    shape), `pack` of each argument a call, in order; it returns one scalar
    per result (`pack` each when packed, result by result) and may branch
    on them, so that each element computes only its own side. One tile, or
    a tuple when it returns a tuple."""
    return semantic.map_elementwise(scalar_fn, [_unwrap(a) for a in args], _unwrap(pack))


def umulhi(x, y):
    """The high 32 bits of the 64-bit product of 32-bit integers."""
    return semantic.umulhi(_unwrap(x), _unwrap(y))


def fdiv(x, y, ieee_rounding=False):
    """x / y for floats (always correctly rounded here)."""
    return semantic.float_div(_unwrap(x), _unwrap(y), "tl.fdiv")


def div_rn(x, y):
    """x / y for floats, rounded to nearest."""
    return semantic.float_div(_unwrap(x), _unwrap(y), "tl.div_rn")


def _float_math(name, approximate=False):
    def fn(x):
        return semantic.float_math(f"math.{name}", _unwrap(x), name, approximate)
    fn.__name__ = fn.__qualname__ = name
    return _tensor_method(fn)


log, log2, sin, cos, erf, floor, ceil = (
    _float_math(name) for name in ("log", "log2", "sin", "cos", "erf", "floor", "ceil"))
# As in Triton's AMD backend, the hardware's instructions in fp32: exp2
# (results below 2^-126 are 0; libdevice.exp2 keeps them), sqrt and rsqrt
# (within 1 ulp; sqrt_rn and libdevice.sqrt/rsqrt are correctly rounded).
exp2, sqrt, rsqrt = (_float_math(name, approximate=True) for name in ("exp2", "sqrt", "rsqrt"))


@_tensor_method
def exp(x):
    """e^x: 2^(x log2 e) on the hardware's exp2 in fp32, as Triton's AMD
    backend computes it (libdevice.exp is within 1 ulp)."""
    return semantic.exp(_unwrap(x))


@_tensor_method
def sigmoid(x):
    """1 / (1 + exp(-x))."""
    return semantic.sigmoid(_unwrap(x))


def fma(x, y, z):
    """x * y + z, rounded once."""
    return semantic.fma(x, y, z)


@_tensor_method
def abs(x):
    """Elementwise absolute value."""
    return semantic.abs_(_unwrap(x))


@_tensor_method
def sum(input, axis=None, keep_dims=False, dtype=None):
    """Sum along `axis` (all axes if None).  Integers narrower than 32 bits
    are summed as 32-bit; other types keep their dtype unless `dtype` is given."""
    dtype = None if _unwrap(dtype) is None else _dtype_arg(dtype)
    return semantic.sum_(_unwrap(input), _axis_arg(axis), builtins.bool(_unwrap(keep_dims)), dtype)


def _promoted_for_minmax(x):
    """As Triton's max and min (without indices): values narrower than 32
    bits are reduced as fp32 (floats) or int32 (integers, unsigned too)."""
    if isinstance(x, tensor) and x.dtype.primitive_bitwidth < 32:
        return semantic.cast(x, float32 if x.dtype.is_floating() else int32)
    return x


@_tensor_method
def max(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False):
    """Maximum along `axis` (all axes if None), of fp32 or int32 for narrower
    inputs as in Triton; with return_indices=True, (maximum, its index) in
    the input's dtype."""
    if _unwrap(return_indices):
        return semantic.arg_reduce(_unwrap(input), _axis_arg(axis), builtins.bool(_unwrap(keep_dims)), "max",
                                   builtins.bool(_unwrap(return_indices_tie_break_left)))
    return semantic.reduce_minmax(_promoted_for_minmax(_unwrap(input)), _axis_arg(axis),
                                  builtins.bool(_unwrap(keep_dims)), "max")


@_tensor_method
def min(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False):
    """Minimum along `axis` (all axes if None), of fp32 or int32 for narrower
    inputs as in Triton; with return_indices=True, (minimum, its index) in
    the input's dtype."""
    if _unwrap(return_indices):
        return semantic.arg_reduce(_unwrap(input), _axis_arg(axis), builtins.bool(_unwrap(keep_dims)), "min",
                                   builtins.bool(_unwrap(return_indices_tie_break_left)))
    return semantic.reduce_minmax(_promoted_for_minmax(_unwrap(input)), _axis_arg(axis),
                                  builtins.bool(_unwrap(keep_dims)), "min")


@_tensor_method
def reduce(input, axis, combine_fn, keep_dims=False):
    """Reduce along `axis` (all axes if None) with `combine_fn`, a @jit
    function of two scalars returning one; for a tuple of n tiles it takes
    2n scalars (the n of one side, then of the other) and returns n.  The
    order of combination is unspecified (lanes combine in butterfly order):
    combine_fn must be associative and commutative, as in Triton."""
    input = _unwrap(input)
    inputs = list(input) if isinstance(input, (tuple, list)) else [input]
    results = semantic.user_reduce([_unwrap(x) for x in inputs], _axis_arg(axis), _unwrap(combine_fn),
                                   builtins.bool(_unwrap(keep_dims)))
    return tuple(results) if isinstance(input, (tuple, list)) else results[0]


def _bitwise_reduce(input, axis, keep_dims, combine, fname):
    x = _unwrap(input)
    if not (isinstance(x, tensor) and x.dtype.is_int()):
        raise SemanticError(f"{fname} needs an integer tile, got {getattr(x, 'type', x)}")
    return semantic.reduce([x], _axis_arg(axis), lambda a, b: [combine(a[0], b[0])],
                           builtins.bool(_unwrap(keep_dims)), fname)[0]


@_tensor_method
def xor_sum(input, axis=None, keep_dims=False):
    """Bitwise xor of the elements along `axis` (all axes if None); integers only."""
    return _bitwise_reduce(input, axis, keep_dims, semantic.xor, "tl.xor_sum")


@_tensor_method
def argmax(input, axis, tie_break_left=True, keep_dims=False):
    """The index of the maximum along `axis` (int32); ties go to the smallest index."""
    return semantic.arg_reduce(_unwrap(input), _axis_arg(axis), builtins.bool(_unwrap(keep_dims)), "max",
                               builtins.bool(_unwrap(tie_break_left)))[1]


@_tensor_method
def argmin(input, axis, tie_break_left=True, keep_dims=False):
    """The index of the minimum along `axis` (int32); ties go to the smallest index."""
    return semantic.arg_reduce(_unwrap(input), _axis_arg(axis), builtins.bool(_unwrap(keep_dims)), "min",
                               builtins.bool(_unwrap(tie_break_left)))[1]


def _atomic_doc(op, what):
    def make(fn):
        fn.__doc__ = (f"Atomically {what} at each pointer where `mask` is true and return the values memory held "
                      "before (undefined where masked off).  `val` and `mask` are broadcast to the pointer's "
                      "shape.  Each element is updated once, however many lanes hold its pointer; a scalar "
                      "pointer is updated once per program and the old value is returned to all.  `sem` and "
                      "`scope` take Triton's values and are ignored: rocktile uses acq_rel at system scope.")
        return fn
    return make


def _atomic(op):
    def fn(pointer, val, mask=None, sem=None, scope=None):
        return semantic.atomic_rmw(op, _unwrap(pointer), _unwrap(val), _unwrap(mask), sem, scope)
    fn.__name__ = fn.__qualname__ = f"atomic_{op}"
    return _tensor_method(fn)


atomic_add = _atomic_doc("add", "add `val` to memory")(_atomic("add"))
atomic_max = _atomic_doc("max", "store the maximum of memory and `val` (unsigned for unsigned types)")(_atomic("max"))
atomic_min = _atomic_doc("min", "store the minimum of memory and `val` (unsigned for unsigned types)")(_atomic("min"))
atomic_xchg = _atomic_doc("xchg", "store `val`")(_atomic("xchg"))
atomic_and = _atomic_doc("and", "AND `val` into memory (integers)")(_atomic("and"))
atomic_or = _atomic_doc("or", "OR `val` into memory (integers)")(_atomic("or"))
atomic_xor = _atomic_doc("xor", "XOR `val` into memory (integers)")(_atomic("xor"))


@_tensor_method
def atomic_load(pointer, mask=None, sem=None, scope=None):
    """Atomically read the values at each pointer where `mask` is true
    (undefined elsewhere). It is an atomic add of zero: the memory keeps its
    values (a read-modify-write on the GPU, slower than a plain atomic read)."""
    return semantic.atomic_load(_unwrap(pointer), _unwrap(mask), sem, scope)


@_tensor_method
def atomic_poll(pointer, expected_value, sem=None, scope=None, timeout_ns=None):
    """Wait until the value at each pointer equals `expected_value` (an
    acquire, or "relaxed", atomic read repeated until then) or, with
    `timeout_ns`, until that many nanoseconds have passed on the chip's
    clock; true for each element whose value was seen."""
    return semantic.atomic_poll(_unwrap(pointer), _unwrap(expected_value), sem, scope, _unwrap(timeout_ns))


@_tensor_method
def atomic_store(pointer, val, mask=None, sem=None, scope=None):
    """Atomically write `val` at each pointer where `mask` is true (an
    atomic exchange whose old values are dropped)."""
    semantic.atomic_store(_unwrap(pointer), _unwrap(val), _unwrap(mask), sem, scope)


@_tensor_method
def atomic_cas(pointer, cmp, val, sem=None, scope=None):
    """Atomically, at each pointer: if memory holds `cmp`, write `val`.
    Returns the values memory held before.  32- and 64-bit integers.  A
    scalar pointer is updated once per program (the usual lock:
    `while tl.atomic_cas(lock, 0, 1) == 1: pass`)."""
    return semantic.atomic_cas(_unwrap(pointer), _unwrap(cmp), _unwrap(val), sem, scope)


class condition:
    """`while tl.condition(c, disable_licm=False):` — the loop's condition,
    as Triton writes it. `disable_licm` is accepted and has no effect."""

    def __init__(self, arg1, disable_licm=False):
        self.condition, self.disable_licm = arg1, disable_licm

    def __bool__(self):
        raise SemanticError("tl.condition wraps the condition of a while loop; use the condition itself here")


def debug_barrier():
    """Wait until every thread of the program arrives; memory written before
    it is visible to the program's threads after it."""
    semantic.debug_barrier()


def _dims_arg(dims, what):
    if len(dims) == 1 and isinstance(_unwrap(dims[0]), (list, tuple)):
        dims = _unwrap(dims[0])
    return tuple(_int_arg(d, what) for d in dims)


def dot(input, other, acc=None, input_precision=None, allow_tf32=None, max_num_imprecise_acc=None,
        out_dtype=float32):
    """The matrix product input (M x K) x other (K x N), plus `acc` (M x N),
    on the target's matrix instructions (Triton's tl.dot)."""
    return semantic.dot(_unwrap(input), _unwrap(other), _unwrap(acc), _unwrap(input_precision),
                        _unwrap(allow_tf32), _unwrap(max_num_imprecise_acc), _dtype_arg(out_dtype, "out_dtype"))


@_tensor_method
def trans(input, *dims):
    """Permute the dimensions: result dimension i is dimension dims[i].
    Without dims, swap the last two (a 2-D transpose).  dims may be given
    as a tuple or as separate arguments."""
    return semantic.trans(_unwrap(input), _dims_arg(dims, "each dimension of tl.trans"))


@_tensor_method
def permute(input, *dims):
    """Permute the dimensions: result dimension i is dimension dims[i]."""
    return semantic.permute(_unwrap(input), _dims_arg(dims, "each dimension of tl.permute"))


@_tensor_method
def reshape(input, *shape, can_reorder=False):
    """The same elements with another shape: element k in row-major order
    stays element k (also with can_reorder=True).  Shapes are powers of two."""
    if len(shape) == 1 and isinstance(_unwrap(shape[0]), (list, tuple)):
        shape = _unwrap(shape[0])
    return semantic.reshape(_unwrap(input), _shape_arg(list(shape)))


@_tensor_method
def view(input, *shape):
    """Triton's deprecated reshape that may reorder elements; here the same
    as reshape (the order is kept)."""
    if len(shape) == 1 and isinstance(_unwrap(shape[0]), (list, tuple)):
        shape = _unwrap(shape[0])
    return semantic.reshape(_unwrap(input), _shape_arg(list(shape)), "tl.view")


@_tensor_method
def associative_scan(input, axis, combine_fn, reverse=False):
    """Inclusive scan along `axis` with `combine_fn`, a @jit function of two
    values returning one (for a tuple of n tiles, 2n values, the earlier
    ones first, returning n); it must be associative, need not commute.
    `reverse` scans from the last element. As in Triton."""
    input = _unwrap(input)
    inputs = list(input) if isinstance(input, (tuple, list)) else [input]
    results = semantic.user_scan([_unwrap(x) for x in inputs], _int_arg(_unwrap(axis), "axis"),
                                 _unwrap(combine_fn), builtins.bool(_unwrap(reverse)))
    return tuple(results) if isinstance(input, (tuple, list)) else results[0]


@_tensor_method
def cumsum(input, axis=0, reverse=False, dtype=None):
    """Inclusive sums along `axis` (integers narrower than 32 bits summed in
    32, as tl.sum; `dtype` casts first)."""
    dtype = None if _unwrap(dtype) is None else _dtype_arg(dtype)
    return semantic.cumulative(_unwrap(input), _int_arg(_unwrap(axis), "axis"), builtins.bool(_unwrap(reverse)),
                               dtype, semantic.add, "tl.cumsum")


@_tensor_method
def cumprod(input, axis=0, reverse=False):
    """Inclusive products along `axis` (integers narrower than 32 bits in 32)."""
    return semantic.cumulative(_unwrap(input), _int_arg(_unwrap(axis), "axis"), builtins.bool(_unwrap(reverse)),
                               None, semantic.mul, "tl.cumprod")


def _dim_arg(x, dim):
    """(x unwrapped, `dim` as an int: the last dimension for None)."""
    x, dim = _unwrap(x), _unwrap(dim)
    return x, len(getattr(x, "shape", ())) - 1 if dim is None else _int_arg(dim, "dim")


@_tensor_method
def flip(x, dim=None):
    """`x` reversed along `dim` (the last dimension if None)."""
    return semantic.flip(*_dim_arg(x, dim))


@_tensor_method
def sort(x, dim=None, descending=False):
    """`x` sorted along its last dimension (a power of two), ascending unless
    `descending`; NaNs stay where they are."""
    return semantic.sort(*_dim_arg(x, dim), builtins.bool(_unwrap(descending)))


@_tensor_method
def topk(x, k, dim=None, descending=True):
    """The k largest elements along the last dimension (`descending=False`:
    the k smallest), largest (smallest) first; k is a power of two."""
    x, dim = _dim_arg(x, dim)
    return semantic.topk(x, _unwrap(k), dim, builtins.bool(_unwrap(descending)))


def bitonic_merge(x, dim=None, descending=False):
    """`x`, a bitonic sequence along its last dimension (rising then falling,
    or falling then rising), sorted ascending (or `descending`)."""
    return semantic.bitonic_merge(*_dim_arg(x, dim), builtins.bool(_unwrap(descending)))


@_tensor_method
def ravel(input, can_reorder=False):
    """The elements as a 1-D tile, in row-major order."""
    x = semantic.to_tensor(_unwrap(input))
    return semantic.reshape(x, [x.type.numel if x.shape else 1], "tl.ravel")


def interleave(a, b):
    """The elements of `a` and `b` alternating along the last dimension,
    which doubles (join, then reshape); of two scalars, their join (shape
    [2]), as in Triton."""
    joined = semantic.join(_unwrap(a), _unwrap(b))
    if len(joined.shape) == 1:
        return joined
    return semantic.reshape(joined, list(joined.shape[:-2]) + [joined.shape[-2] * 2], "tl.interleave")


def join(a, b):
    """A new last dimension of size 2 holding `a`, then `b` (broadcast together)."""
    return semantic.join(_unwrap(a), _unwrap(b))


@_tensor_method
def split(a):
    """The two halves (index 0 and 1) of a last dimension of size 2."""
    return tuple(semantic.split(_unwrap(a)))


@_tensor_method
def cdiv(x, div):
    """Ceiling division, on Python ints / constexprs or on tensors."""
    x, div = _unwrap(x), _unwrap(div)
    return (x + div - 1) // div


def constexpr_function(fn):
    """`@rocktile.constexpr_function`, as Triton's: a Python function that a
    kernel calls while it is compiled, on values known then (constexprs,
    Python values; never tensors), its result a compile-time value."""
    name = getattr(fn, "__qualname__", repr(fn))

    @functools.wraps(fn)
    def call(*args, **kwargs):
        args = [_unwrap(a) for a in args]
        kwargs = {k: _unwrap(v) for k, v in kwargs.items()}
        for value in (*args, *kwargs.values()):
            if isinstance(value, tensor):
                raise SemanticError(f"{name} is a constexpr_function: its arguments must be known while "
                                    f"compiling, got a tensor of {value.type}")
        return fn(*args, **kwargs)
    return call


def static_range(arg1, arg2=None, step=None):
    """range() over constexprs; the loop is unrolled while tracing."""
    args = [a for a in (arg1, arg2, step) if a is not None]
    return builtins.range(*(_int_arg(a, "a static_range bound") for a in args))


class range:
    """`for i in tl.range(start, end, step, num_stages=...)`: a loop traced as
    scf.for, like `range(...)`.  Bounds may be runtime integer scalars.
    num_stages pipelines the loop's block copies (overriding the launch's);
    the other scheduling hints (loop_unroll_factor, ...) are accepted and not
    used."""

    def __init__(self, arg1, arg2=None, step=None, num_stages=None, loop_unroll_factor=None,
                 disallow_acc_multi_buffer=False, flatten=False, warp_specialize=False, disable_licm=False):
        self.start, self.end = (0, arg1) if arg2 is None else (arg1, arg2)
        self.step = 1 if step is None else step
        self.num_stages = _unwrap(num_stages)

    def __iter__(self):
        # Reached only where the kernel's source could not be rewritten.
        return iter(builtins.range(*(_int_arg(a, "a range bound without the kernel's source")
                                     for a in (self.start, self.end, self.step))))


def static_assert(condition, message=""):
    """Fail compilation when a compile-time condition is false."""
    if not _unwrap(condition):
        raise SemanticError(f"static_assert failed{': ' + str(_unwrap(message)) if message else ''}")


def static_print(*args, **kwargs):
    """print() while compiling (once, even where a branch is traced twice)."""
    if semantic.current().dry_runs == 0:
        builtins.print(*(_unwrap(a) for a in args), **kwargs)


@_tensor_method
def sqrt_rn(x):
    """sqrt rounded to nearest even (tl.sqrt is the hardware's, within 1 ulp)."""
    return semantic.float_math("math.sqrt", _unwrap(x), "sqrt_rn")


def unsqueeze(input, dim):
    """A size-1 dimension inserted at `dim` (expand_dims)."""
    return expand_dims(input, dim)


def squeeze(input, dim):
    """Dimension `dim`, of size 1, removed."""
    x = semantic.to_tensor(_unwrap(input))
    d = _int_arg(dim, "dim")
    if not -len(x.shape) <= d < len(x.shape) or x.shape[d] != 1:
        raise SemanticError(f"tl.squeeze: dimension {d} of a tile of shape {list(x.shape)} is not of size 1")
    d %= len(x.shape)
    return semantic.reshape(x, list(x.shape[:d] + x.shape[d + 1:]), "tl.squeeze")


@_tensor_method
def reduce_or(input, axis, keep_dims=False):
    """Bitwise or of the elements along `axis` (all axes if None); integers only."""
    return _bitwise_reduce(input, axis, keep_dims, semantic.or_, "tl.reduce_or")


@_tensor_method
def softmax(input, dim=None, keep_dims=False, ieee_rounding=False):
    """exp(x - max) / sum(exp(x - max)) along `dim` (0 if None), as Triton."""
    x = semantic.to_tensor(_unwrap(input))
    d = 0 if _unwrap(dim) is None else _int_arg(dim, "dim")
    shifted = x - max(x, d, keep_dims=True)
    num = exp(shifted)
    return fdiv(num, sum(num, d, keep_dims=True), ieee_rounding)


def cat(input, other, can_reorder=False):
    """`input` then `other` along their first dimension (same shapes); the
    order is kept (Triton may reorder, and asks for can_reorder=True)."""
    a, b = semantic.to_tensor(_unwrap(input)), semantic.to_tensor(_unwrap(other))
    if not a.shape or a.shape != b.shape:
        raise SemanticError(f"tl.cat needs two tiles of one shape, got {list(a.shape)} and {list(b.shape)}")
    joined = semantic.join(a, b)  # ..., 2
    rank = len(a.shape)
    first = semantic.permute(joined, [rank] + list(builtins.range(rank)), "tl.cat")  # 2, ...
    return semantic.reshape(first, [2 * a.shape[0]] + list(a.shape[1:]), "tl.cat")


def swizzle2d(i, j, size_i, size_j, size_g):
    """Triton's grouped ordering: the (i, j) of a size_i x size_j grid,
    row-major, renumbered so that groups of size_g rows go column by column
    (program ids of a GEMM in L2-friendly order)."""
    ij = i * size_j + j
    size_gj = size_g * size_j
    first_row = (ij // size_gj) * size_g
    rows = minimum(size_i - first_row, size_g)
    ij = ij % size_gj
    return first_row + ij % rows, ij // rows


@_tensor_method
def gather(src, index, axis):
    """The elements of `src` at `index` along `axis`: result[..., i, ...] =
    src[..., index[..., i, ...], ...]. `index` is an integer tile of src's
    rank whose other dimensions are src's; the result has its shape. An index
    outside src's axis is undefined behaviour, as in Triton. src passes
    through LDS."""
    return semantic.gather(semantic.to_tensor(_unwrap(src)), semantic.to_tensor(_unwrap(index)),
                           _int_arg(_unwrap(axis), "axis"))


@_tensor_method
def histogram(input, num_bins, mask=None):
    """The counts of the values 0 .. num_bins-1 in a 1-D integer tile (int32;
    values outside the bins, and those where `mask` is false, are not
    counted). Each value is compared with every bin: values x bins must fit
    in one tile (2^20 elements)."""
    x = semantic.to_tensor(_unwrap(input))
    bins = _int_arg(num_bins, "num_bins")
    if len(x.shape) != 1 or not x.dtype.is_int():
        raise SemanticError(f"tl.histogram needs a 1-D integer tile, got {_describe(x)}")
    if x.numel * bins > semantic.MAX_NUMEL:
        raise SemanticError(f"tl.histogram of {x.numel} values into {bins} bins compares {x.numel * bins} pairs; "
                            f"rocktile takes at most {semantic.MAX_NUMEL} (split the input)")
    hits = semantic.equal(semantic.expand_dims(x, 1), semantic.expand_dims(arange(0, bins), 0))
    mask = _unwrap(mask)
    if mask is not None:
        hits = hits & semantic.expand_dims(semantic.to_tensor(mask), 1)
    return sum(hits.to(int32), axis=0)
