"""The objects a kernel sees: dtypes, the `tensor` proxy, `constexpr`, and
the public `tl.*` functions.  Each function normalizes its arguments and
calls `semantic`, which type-checks and builds the IR."""
from __future__ import annotations

import builtins
import operator as _op

from . import semantic
from .semantic import SemanticError

# --------------------------------------------------------------------------
# dtypes


class dtype:
    """A scalar element type.  Names follow Triton: str(tl.float32) == 'fp32'."""

    # name -> (kind, bit width, MLIR type); int1 counts as unsigned, as in Triton.
    _TABLE = {
        "int1": ("uint", 1, "i1"),
        "int8": ("int", 8, "i8"), "int16": ("int", 16, "i16"),
        "int32": ("int", 32, "i32"), "int64": ("int", 64, "i64"),
        "uint8": ("uint", 8, "i8"), "uint16": ("uint", 16, "i16"),
        "uint32": ("uint", 32, "i32"), "uint64": ("uint", 64, "i64"),
        "fp16": ("float", 16, "f16"), "bf16": ("float", 16, "bf16"),
        "fp32": ("float", 32, "f32"), "fp64": ("float", 64, "f64"),
        # OCP 8-bit floats: e4m3 without infinities ("fn"), and e5m2.
        "fp8e4nv": ("float", 8, "f8E4M3FN"), "fp8e5": ("float", 8, "f8E5M2"),
    }
    _MANTISSA = {"fp16": 10, "bf16": 7, "fp32": 23, "fp64": 52, "fp8e4nv": 3, "fp8e5": 2}

    def __init__(self, name: str):
        if name not in self._TABLE:
            raise ValueError(f"unknown dtype '{name}'")
        self.name = name
        self._kind, self.primitive_bitwidth, self._mlir = self._TABLE[name]

    # Classification, named as in Triton.
    def is_floating(self): return self._kind == "float"
    def is_int(self): return self._kind in ("int", "uint")
    def is_int_signed(self): return self._kind == "int"
    def is_int_unsigned(self): return self._kind == "uint"
    def is_bool(self): return self.name == "int1"
    def is_fp16(self): return self.name == "fp16"
    def is_bf16(self): return self.name == "bf16"
    def is_fp32(self): return self.name == "fp32"
    def is_fp64(self): return self.name == "fp64"
    def is_half(self): return self.name in ("fp16", "bf16")
    def is_fp8(self): return self.name in ("fp8e4nv", "fp8e5")
    def is_fp8e4nv(self): return self.name == "fp8e4nv"
    def is_fp8e5(self): return self.name == "fp8e5"
    def is_ptr(self): return False
    def is_block(self): return False

    @property
    def int_bitwidth(self): return self.primitive_bitwidth

    @property
    def storage(self):
        """The type of this dtype in memory: int1 is stored as a byte."""
        return int8 if self.name == "int1" else self

    @property
    def fp_mantissa_width(self): return self._MANTISSA[self.name]

    @property
    def scalar(self): return self

    @property
    def mlir(self) -> str:
        """The MLIR spelling of this type, e.g. 'f32'."""
        return self._mlir

    def __eq__(self, other): return type(other) is type(self) and other.name == self.name
    def __hash__(self): return hash((type(self).__name__, self.name))
    def __str__(self): return self.name
    def __repr__(self): return f"rocktile.language.{_PUBLIC_NAME.get(self.name, self.name)}"


class pointer_type(dtype):
    """A pointer to global memory holding `element_ty` values."""

    def __init__(self, element_ty: dtype):
        if not isinstance(element_ty, dtype) or element_ty.is_ptr() or element_ty.is_block():
            raise TypeError(f"pointer_type needs a scalar dtype, got {element_ty!r}")
        self.element_ty = element_ty
        self.name = f"pointer<{element_ty.name}>"
        self.primitive_bitwidth = 64

    def is_floating(self): return False
    def is_int(self): return False
    def is_int_signed(self): return False
    def is_int_unsigned(self): return False
    def is_bool(self): return False
    def is_half(self): return False
    def is_fp8(self): return False
    def is_ptr(self): return True

    @property
    def mlir(self) -> str:
        # Booleans live in memory as bytes, as in Triton; load/store convert.
        return f"!tile.ptr<{self.element_ty.storage.mlir}>"

    def __eq__(self, other): return isinstance(other, pointer_type) and other.element_ty == self.element_ty
    def __hash__(self): return hash(("pointer", self.element_ty))
    def __repr__(self): return f"pointer_type({self.element_ty!r})"


class block_type(dtype):
    """The type of a tile: a shape and a scalar (or pointer) element type."""

    def __init__(self, element_ty: dtype, shape):
        self.element_ty = element_ty
        self.shape = tuple(int(d) for d in shape)
        self.numel = 1
        for d in self.shape:
            self.numel *= d
        self.name = f"<{list(self.shape)}, {element_ty.name}>"

    def is_block(self): return True
    def is_ptr(self): return False
    def is_floating(self): return False
    def is_int(self): return False

    @property
    def scalar(self): return self.element_ty

    @property
    def mlir(self) -> str:
        return f"tensor<{'x'.join(map(str, self.shape))}x{self.element_ty.mlir}>"

    def __eq__(self, other):
        return isinstance(other, block_type) and (other.element_ty, other.shape) == (self.element_ty, self.shape)
    def __hash__(self): return hash(("block", self.element_ty, self.shape))
    def __repr__(self): return f"block_type({self.element_ty!r}, {list(self.shape)})"


int1 = dtype("int1")
int8, int16, int32, int64 = (dtype(f"int{w}") for w in (8, 16, 32, 64))
uint8, uint16, uint32, uint64 = (dtype(f"uint{w}") for w in (8, 16, 32, 64))
float16, bfloat16, float32, float64 = dtype("fp16"), dtype("bf16"), dtype("fp32"), dtype("fp64")
float8e4nv, float8e5 = dtype("fp8e4nv"), dtype("fp8e5")

_PUBLIC_NAME = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32", "fp64": "float64",
                "fp8e4nv": "float8e4nv", "fp8e5": "float8e5"}


# --------------------------------------------------------------------------
# constexpr


class constexpr:
    """A value known while compiling.  As a parameter annotation
    (`BLOCK: tl.constexpr`) it makes the parameter a compile-time constant
    that the kernel sees as a plain Python value."""

    def __init__(self, value):
        self.value = value.value if isinstance(value, constexpr) else value

    def __repr__(self): return f"constexpr[{self.value!r}]"
    def __index__(self): return self.value.__index__()
    def __int__(self): return int(self.value)
    def __float__(self): return float(self.value)
    def __bool__(self): return bool(self.value)
    def __eq__(self, other): return self.value == _unwrap(other)
    def __hash__(self): return hash(self.value)
    def __call__(self, *args, **kwargs): return self.value(*args, **kwargs)
    def __getattr__(self, name):
        if name == "value":
            raise AttributeError(name)
        return getattr(self.value, name)


def _constexpr_op(op, reflected=False):
    def method(self, other):
        if isinstance(other, tensor):
            return NotImplemented  # let the tensor build the operation
        a, b = (_unwrap(other), self.value) if reflected else (self.value, _unwrap(other))
        return constexpr(op(a, b))
    return method


for _name, _fn in [("add", _op.add), ("sub", _op.sub), ("mul", _op.mul), ("truediv", _op.truediv),
                   ("floordiv", _op.floordiv), ("mod", _op.mod), ("pow", _op.pow), ("and", _op.and_),
                   ("or", _op.or_), ("xor", _op.xor), ("lshift", _op.lshift), ("rshift", _op.rshift)]:
    setattr(constexpr, f"__{_name}__", _constexpr_op(_fn))
    setattr(constexpr, f"__r{_name}__", _constexpr_op(_fn, reflected=True))
for _name, _fn in [("lt", _op.lt), ("le", _op.le), ("gt", _op.gt), ("ge", _op.ge), ("ne", _op.ne)]:
    setattr(constexpr, f"__{_name}__", _constexpr_op(_fn))
constexpr.__neg__ = lambda self: constexpr(-self.value)
constexpr.__invert__ = lambda self: constexpr(~self.value)
del _name, _fn


def _unwrap(x):
    return x.value if isinstance(x, constexpr) else x


def _is_constexpr_annotation(annotation) -> bool:
    if annotation is constexpr:
        return True
    # `from __future__ import annotations` leaves the annotation as text.
    return isinstance(annotation, str) and annotation.split(".")[-1] == "constexpr"


# --------------------------------------------------------------------------
# tensor


def _binary(fn, reflected=False):
    if reflected:
        return lambda self, other: fn(other, self)
    return lambda self, other: fn(self, other)


class tensor:
    """A value of the kernel being traced: a scalar or a tile.

    `handle` is the MLIR value; `type` is a scalar dtype, a pointer_type or a
    block_type; `dtype` is the element type and `shape` a tuple (() for
    scalars)."""

    def __init__(self, handle, type: dtype):
        self.handle = handle
        self.type = type
        self.dtype = type.scalar
        self.shape = type.shape if type.is_block() else ()
        self.numel = type.numel if type.is_block() else 1
        ir = getattr(semantic._state, "ir", None)
        if ir is not None and ir.regions:
            ir.region_tensors.append(self)

    def __repr__(self):
        return f"tensor({self.type.mlir})"

    __add__, __radd__ = _binary(semantic.add), _binary(semantic.add, True)
    __sub__, __rsub__ = _binary(semantic.sub), _binary(semantic.sub, True)
    __mul__, __rmul__ = _binary(semantic.mul), _binary(semantic.mul, True)
    __truediv__, __rtruediv__ = _binary(semantic.truediv), _binary(semantic.truediv, True)
    __floordiv__, __rfloordiv__ = _binary(semantic.floordiv), _binary(semantic.floordiv, True)
    __mod__, __rmod__ = _binary(semantic.mod), _binary(semantic.mod, True)
    __and__, __rand__ = _binary(semantic.and_), _binary(semantic.and_, True)
    __or__, __ror__ = _binary(semantic.or_), _binary(semantic.or_, True)
    __xor__, __rxor__ = _binary(semantic.xor), _binary(semantic.xor, True)
    __lshift__, __rlshift__ = _binary(semantic.shl), _binary(semantic.shl, True)
    __rshift__, __rrshift__ = _binary(semantic.shr), _binary(semantic.shr, True)
    __lt__, __le__ = _binary(semantic.less), _binary(semantic.less_equal)
    __gt__, __ge__ = _binary(semantic.greater), _binary(semantic.greater_equal)
    __eq__, __ne__ = _binary(semantic.equal), _binary(semantic.not_equal)
    __hash__ = object.__hash__  # __eq__ builds IR; identity stays usable as a key

    def __neg__(self): return semantic.neg(self)
    def __pos__(self): return semantic.pos(self)
    def __invert__(self): return semantic.invert(self)

    def __getitem__(self, index): return semantic.subscript(self, index)
    def __matmul__(self, other): return dot(self, other)
    def __rmatmul__(self, other): return dot(other, self)

    # A tensor's value is only known when the kernel runs.  `if`, `while`,
    # `and`, `or`, `not` and `x if c else y` in a kernel's own code are
    # rewritten not to ask for it (rocktile.rewrite); anything else does.
    def __bool__(self):
        raise SemanticError(
            "the truth value of a tensor is only known when the kernel runs: it can be the condition of an "
            "`if`, `while` or `x if c else y` in the kernel, but not of Python code that needs a Python bool "
            "(e.g. assert, any(), a comprehension's `if`); use tl.where() or `&`/`|` there")

    def __index__(self):
        raise SemanticError("a tensor cannot be used as a Python integer (e.g. as a list or tuple index) "
                            "while tracing; use a tl.constexpr, or tl.static_range to unroll a loop whose "
                            "index must be a Python int")

    __int__ = __float__ = __index__

    def __iter__(self):
        raise SemanticError("a tensor cannot be iterated over in Python while tracing")

    # Methods, as on Triton tensors.
    def to(self, dtype, fp_downcast_rounding=None, bitcast=False):
        return cast(self, dtype, fp_downcast_rounding, bitcast)
    def sum(self, axis=None, keep_dims=False, dtype=None): return sum(self, axis, keep_dims, dtype)
    def max(self, axis=None, keep_dims=False): return max(self, axis, keep_dims=keep_dims)
    def min(self, axis=None, keep_dims=False): return min(self, axis, keep_dims=keep_dims)
    def expand_dims(self, axis): return expand_dims(self, axis)
    def broadcast_to(self, *shape): return broadcast_to(self, *shape)
    def exp(self): return exp(self)
    def exp2(self): return exp2(self)
    def log(self): return log(self)
    def log2(self): return log2(self)
    def sqrt(self): return sqrt(self)
    def rsqrt(self): return rsqrt(self)
    def abs(self): return abs(self)
    def sin(self): return sin(self)
    def cos(self): return cos(self)
    def sigmoid(self): return sigmoid(self)
    def reduce(self, axis, combine_fn, keep_dims=False): return reduce(self, axis, combine_fn, keep_dims)
    def xor_sum(self, axis=None, keep_dims=False): return xor_sum(self, axis, keep_dims)
    def ravel(self): return ravel(self)
    def argmax(self, axis, tie_break_left=True, keep_dims=False): return argmax(self, axis, tie_break_left, keep_dims)
    def argmin(self, axis, tie_break_left=True, keep_dims=False): return argmin(self, axis, tie_break_left, keep_dims)
    def trans(self, *dims): return trans(self, *dims)
    def permute(self, *dims): return permute(self, *dims)
    def reshape(self, *shape, can_reorder=False): return reshape(self, *shape, can_reorder=can_reorder)
    def view(self, *shape): return view(self, *shape)

    @property
    def T(self):
        """The transpose of a 2-D tile (the last two dimensions swapped)."""
        return trans(self)

    def atomic_add(self, val, mask=None, sem=None, scope=None): return atomic_add(self, val, mask, sem, scope)
    def atomic_max(self, val, mask=None, sem=None, scope=None): return atomic_max(self, val, mask, sem, scope)
    def atomic_min(self, val, mask=None, sem=None, scope=None): return atomic_min(self, val, mask, sem, scope)
    def atomic_xchg(self, val, mask=None, sem=None, scope=None): return atomic_xchg(self, val, mask, sem, scope)
    def atomic_and(self, val, mask=None, sem=None, scope=None): return atomic_and(self, val, mask, sem, scope)
    def atomic_or(self, val, mask=None, sem=None, scope=None): return atomic_or(self, val, mask, sem, scope)
    def atomic_xor(self, val, mask=None, sem=None, scope=None): return atomic_xor(self, val, mask, sem, scope)
    def atomic_cas(self, cmp, val, sem=None, scope=None): return atomic_cas(self, cmp, val, sem, scope)


# --------------------------------------------------------------------------
# The public functions of rocktile.language.


def _int_arg(x, what):
    x = _unwrap(x)
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


def load(pointer, mask=None, other=None, boundary_check=(), padding_option="", cache_modifier="",
         eviction_policy="", volatile=False):
    """Load from a pointer or a tile of pointers.  Where `mask` is false the
    result is `other` (undefined if `other` is not given).  Cache and eviction
    hints are accepted for compatibility and ignored."""
    if _unwrap(boundary_check) or _unwrap(padding_option):
        raise SemanticError("boundary_check and padding_option need block pointers, which are not supported")
    return semantic.load(_unwrap(pointer), _unwrap(mask), _unwrap(other))


def store(pointer, value, mask=None, boundary_check=(), cache_modifier="", eviction_policy=""):
    """Store `value` (converted to the pointee type) where `mask` is true."""
    if _unwrap(boundary_check):
        raise SemanticError("boundary_check needs block pointers, which are not supported")
    return semantic.store(_unwrap(pointer), _unwrap(value), _unwrap(mask))


def where(condition, x, y):
    """Elementwise `x if condition else y`, with broadcasting and promotion."""
    return semantic.where(_unwrap(condition), _unwrap(x), _unwrap(y))


def cast(input, dtype, fp_downcast_rounding=None, bitcast=False):
    """Convert to `dtype`; with bitcast=True reinterpret the bits (same width).
    Narrowing floats rounds to nearest even ("rtne", the only rounding here)."""
    rounding = _unwrap(fp_downcast_rounding)
    if rounding not in (None, "rtne"):
        raise SemanticError(f"fp_downcast_rounding={rounding!r} is not supported: float conversions round to "
                            "nearest even ('rtne')")
    return semantic.cast(_unwrap(input), _dtype_arg(dtype), bitcast=builtins.bool(_unwrap(bitcast)))


def expand_dims(input, axis):
    """Insert size-1 dimensions at `axis` (an int or a sequence of ints)."""
    axes = _unwrap(axis)
    axes = list(axes) if isinstance(axes, (list, tuple)) else [axes]
    x = semantic.to_tensor(_unwrap(input))
    rank = len(x.shape) + len(axes)
    for a in sorted((_int_arg(a, "axis") % rank if rank else 0) for a in axes):
        x = semantic.expand_dims(x, a)
    return x


def broadcast_to(input, *shape):
    """Broadcast `input` to `shape` (size-1 dimensions and scalars grow)."""
    if len(shape) == 1 and isinstance(_unwrap(shape[0]), (list, tuple)):
        shape = _unwrap(shape[0])
    return semantic.broadcast_to(semantic.to_tensor(_unwrap(input)), _shape_arg(list(shape)))


def maximum(x, y):
    """Elementwise maximum; with a NaN operand, the other operand."""
    return semantic.maximum(_unwrap(x), _unwrap(y))


def minimum(x, y):
    """Elementwise minimum; with a NaN operand, the other operand."""
    return semantic.minimum(_unwrap(x), _unwrap(y))


def clamp(x, min, max, propagate_nan=None):
    """minimum(maximum(x, min), max): `x` limited to [min, max] (min > max
    is undefined, as in Triton)."""
    return minimum(maximum(x, min), max)


def umulhi(x, y):
    """The high 32 bits of the 64-bit product of 32-bit integers."""
    return semantic.umulhi(_unwrap(x), _unwrap(y))


def fdiv(x, y, ieee_rounding=False):
    """x / y for floats (always correctly rounded here)."""
    return semantic.float_div(_unwrap(x), _unwrap(y), "tl.fdiv")


def div_rn(x, y):
    """x / y for floats, rounded to nearest."""
    return semantic.float_div(_unwrap(x), _unwrap(y), "tl.div_rn")


def exp(x): return semantic.float_math("math.exp", _unwrap(x), "exp")
def exp2(x): return semantic.float_math("math.exp2", _unwrap(x), "exp2")
def log(x): return semantic.float_math("math.log", _unwrap(x), "log")
def log2(x): return semantic.float_math("math.log2", _unwrap(x), "log2")
def sqrt(x): return semantic.float_math("math.sqrt", _unwrap(x), "sqrt")
def rsqrt(x): return semantic.float_math("math.rsqrt", _unwrap(x), "rsqrt")
def sin(x): return semantic.float_math("math.sin", _unwrap(x), "sin")
def cos(x): return semantic.float_math("math.cos", _unwrap(x), "cos")
def erf(x): return semantic.float_math("math.erf", _unwrap(x), "erf")
def floor(x): return semantic.float_math("math.floor", _unwrap(x), "floor")
def ceil(x): return semantic.float_math("math.ceil", _unwrap(x), "ceil")


def sigmoid(x):
    """1 / (1 + exp(-x))."""
    return semantic.sigmoid(_unwrap(x))


def fma(x, y, z):
    """x * y + z, rounded once."""
    return semantic.fma(x, y, z)


def abs(x):
    """Elementwise absolute value."""
    return semantic.abs_(_unwrap(x))


def sum(input, axis=None, keep_dims=False, dtype=None):
    """Sum along `axis` (all axes if None).  Integers narrower than 32 bits
    are summed as 32-bit; other types keep their dtype unless `dtype` is given."""
    dtype = None if _unwrap(dtype) is None else _dtype_arg(dtype)
    return semantic.sum_(_unwrap(input), _axis_arg(axis), builtins.bool(_unwrap(keep_dims)), dtype)


def max(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False):
    """Maximum along `axis` (all axes if None); with return_indices=True,
    (maximum, its index)."""
    if _unwrap(return_indices):
        return semantic.arg_reduce(_unwrap(input), _axis_arg(axis), builtins.bool(_unwrap(keep_dims)), "max",
                                   builtins.bool(_unwrap(return_indices_tie_break_left)))
    return semantic.reduce_minmax(_unwrap(input), _axis_arg(axis), builtins.bool(_unwrap(keep_dims)), "max")


def min(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False):
    """Minimum along `axis` (all axes if None); with return_indices=True,
    (minimum, its index)."""
    if _unwrap(return_indices):
        return semantic.arg_reduce(_unwrap(input), _axis_arg(axis), builtins.bool(_unwrap(keep_dims)), "min",
                                   builtins.bool(_unwrap(return_indices_tie_break_left)))
    return semantic.reduce_minmax(_unwrap(input), _axis_arg(axis), builtins.bool(_unwrap(keep_dims)), "min")


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


def xor_sum(input, axis=None, keep_dims=False):
    """Bitwise xor of the elements along `axis` (all axes if None); integers only."""
    x = _unwrap(input)
    if not (isinstance(x, tensor) and x.dtype.is_int()):
        raise SemanticError(f"tl.xor_sum needs an integer tile, got {getattr(x, 'type', x)}")
    return semantic.reduce([x], _axis_arg(axis), lambda a, b: [semantic.xor(a[0], b[0])],
                           builtins.bool(_unwrap(keep_dims)), "tl.xor_sum")[0]


def argmax(input, axis, tie_break_left=True, keep_dims=False):
    """The index of the maximum along `axis` (int32); ties go to the smallest index."""
    return semantic.arg_reduce(_unwrap(input), _axis_arg(axis), builtins.bool(_unwrap(keep_dims)), "max",
                               builtins.bool(_unwrap(tie_break_left)))[1]


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
    return fn


atomic_add = _atomic_doc("add", "add `val` to memory")(_atomic("add"))
atomic_max = _atomic_doc("max", "store the maximum of memory and `val` (unsigned for unsigned types)")(_atomic("max"))
atomic_min = _atomic_doc("min", "store the minimum of memory and `val` (unsigned for unsigned types)")(_atomic("min"))
atomic_xchg = _atomic_doc("xchg", "store `val`")(_atomic("xchg"))
atomic_and = _atomic_doc("and", "AND `val` into memory (integers)")(_atomic("and"))
atomic_or = _atomic_doc("or", "OR `val` into memory (integers)")(_atomic("or"))
atomic_xor = _atomic_doc("xor", "XOR `val` into memory (integers)")(_atomic("xor"))


def atomic_cas(pointer, cmp, val, sem=None, scope=None):
    """Atomically, at each pointer: if memory holds `cmp`, write `val`.
    Returns the values memory held before.  32- and 64-bit integers.  A
    scalar pointer is updated once per program (the usual lock:
    `while tl.atomic_cas(lock, 0, 1) == 1: pass`)."""
    return semantic.atomic_cas(_unwrap(pointer), _unwrap(cmp), _unwrap(val), sem, scope)


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


def trans(input, *dims):
    """Permute the dimensions: result dimension i is dimension dims[i].
    Without dims, swap the last two (a 2-D transpose).  dims may be given
    as a tuple or as separate arguments."""
    return semantic.trans(_unwrap(input), _dims_arg(dims, "each dimension of tl.trans"))


def permute(input, *dims):
    """Permute the dimensions: result dimension i is dimension dims[i]."""
    return semantic.permute(_unwrap(input), _dims_arg(dims, "each dimension of tl.permute"))


def reshape(input, *shape, can_reorder=False):
    """The same elements with another shape: element k in row-major order
    stays element k (also with can_reorder=True).  Shapes are powers of two."""
    if len(shape) == 1 and isinstance(_unwrap(shape[0]), (list, tuple)):
        shape = _unwrap(shape[0])
    return semantic.reshape(_unwrap(input), _shape_arg(list(shape)))


def view(input, *shape):
    """Triton's deprecated reshape that may reorder elements; here the same
    as reshape (the order is kept)."""
    if len(shape) == 1 and isinstance(_unwrap(shape[0]), (list, tuple)):
        shape = _unwrap(shape[0])
    return semantic.reshape(_unwrap(input), _shape_arg(list(shape)), "tl.view")


def flip(x, dim=None):
    """`x` reversed along `dim` (the last dimension if None)."""
    x = _unwrap(x)
    dim = _unwrap(dim)
    rank = len(getattr(x, "shape", ()))
    return semantic.flip(x, rank - 1 if dim is None else _int_arg(dim, "dim"))


def sort(x, dim=None, descending=False):
    """`x` sorted along its last dimension (a power of two), ascending unless
    `descending`; NaNs stay where they are."""
    x = _unwrap(x)
    dim = _unwrap(dim)
    rank = len(getattr(x, "shape", ()))
    return semantic.sort(x, rank - 1 if dim is None else _int_arg(dim, "dim"), builtins.bool(_unwrap(descending)))


def ravel(input, can_reorder=False):
    """The elements as a 1-D tile, in row-major order."""
    x = semantic.to_tensor(_unwrap(input))
    return semantic.reshape(x, [x.type.numel if x.shape else 1], "tl.ravel")


def interleave(a, b):
    """The elements of `a` and `b` alternating along the last dimension,
    which doubles (join, then reshape)."""
    joined = semantic.join(_unwrap(a), _unwrap(b))
    return semantic.reshape(joined, list(joined.shape[:-2]) + [joined.shape[-2] * 2], "tl.interleave")


def join(a, b):
    """A new last dimension of size 2 holding `a`, then `b` (broadcast together)."""
    return semantic.join(_unwrap(a), _unwrap(b))


def split(a):
    """The two halves (index 0 and 1) of a last dimension of size 2."""
    return tuple(semantic.split(_unwrap(a)))


def cdiv(x, div):
    """Ceiling division, on Python ints / constexprs or on tensors."""
    x, div = _unwrap(x), _unwrap(div)
    return (x + div - 1) // div


def static_range(arg1, arg2=None, step=None):
    """range() over constexprs; the loop is unrolled while tracing."""
    args = [a for a in (arg1, arg2, step) if a is not None]
    return builtins.range(*(_int_arg(a, "a static_range bound") for a in args))


class range:
    """`for i in tl.range(start, end, step, num_stages=...)`: a loop traced as
    scf.for, like `range(...)`.  Bounds may be runtime integer scalars.  The
    scheduling hints (num_stages, loop_unroll_factor, ...) are accepted and
    not used yet."""

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
