"""Type checking, promotion and IR building behind rocktile.language.

The public functions in `core` call into this module with plain Python
values and `tensor` proxies.  Each function here checks its operands, applies
Triton's promotion and broadcasting rules, and appends ops (tile dialect and
upstream arith/math) to the kernel being traced.  User mistakes raise
`SemanticError`; the JIT reports them at the kernel line that caused them.
"""
from __future__ import annotations

import json
import math
import operator as _op
import struct
import sys
import threading
from contextlib import contextmanager

import numpy as np

from ..errors import SemanticError, source_position
from .types import (block_type, bfloat16, dtype, float8e4nv, float16, float32, float64, int1, int8, int32, int64, uint8,
                    uint32, uint64)


# Triton's limit on the number of elements of one tile.
MAX_NUMEL = 1 << 20

# --------------------------------------------------------------------------
# The kernel being traced.


class IRBuilder:
    """Builds one kernel's MLIR through rocktile._C.  Every op gets the
    location of the kernel source being executed: the innermost frame that
    runs the code of a @jit function."""

    def __init__(self, C, ctx, kernel_codes, default_position):
        self.C, self.ctx = C, ctx
        self.builder = C.Builder(ctx)
        self.kernel_codes = kernel_codes
        self._types, self._attrs, self._locs = {}, {}, {}
        # (file, line, col) of each location -> end column of its expression,
        # so diagnostics from C++ can underline the whole expression.
        self.extents: dict = {}
        self.default_position = default_position
        self.default_loc = self.make_loc(*default_position)
        # `dry_runs` > 0 while branches are traced only to learn their result
        # types (see control.if_).  `regions` > 0 inside the body of an scf
        # op; the tensors made there are listed in `region_tensors`, to be
        # invalidated when the body is left: no IR outside can use them.
        self.dry_runs, self.regions, self.region_tensors = 0, 0, []
        self.target, self.num_warps = None, 4  # what is compiled for: set by the tracer

    def type(self, ty):
        text = ty.mlir
        if text not in self._types:
            self._types[text] = self.ctx.parse_type(text)
        return self._types[text]

    def attr(self, text: str):
        if text not in self._attrs:
            self._attrs[text] = self.ctx.parse_attr(text)
        return self._attrs[text]

    def make_loc(self, filename, line, col, end_col=None):
        if end_col is not None:
            self.extents[(filename, line, col)] = end_col
        return self.ctx.loc(filename, line, col)

    def loc(self):
        frame = sys._getframe(1)
        while frame is not None:
            code = frame.f_code
            if code in self.kernel_codes:
                key = (code, frame.f_lasti)
                if key not in self._locs:
                    self._locs[key] = self.make_loc(*source_position(code, frame.f_lasti))
                return self._locs[key]
            frame = frame.f_back
        return self.default_loc

    @contextmanager
    def inside(self, block):
        """Build into the body `block` of an op (or a scratch module); the
        tensors made there are invalidated when it is left, so that one kept
        outside (e.g. in a list) is a clear error, not IR that fails to verify."""
        outer = self.builder.insertion_block()
        self.builder.set_insertion_point_to_end(block)
        first = len(self.region_tensors)
        self.regions += 1
        try:
            yield
        finally:
            self.regions -= 1
            for t in self.region_tensors[first:]:
                t.handle = Discarded()
            del self.region_tensors[first:]
            self.builder.set_insertion_point_to_end(outer)

    @contextmanager
    def dry_run(self):
        """Trace into a scratch module, thrown away after: to learn the
        result types of a region before building its op."""
        scratch = self.ctx.create_module(self.default_loc)
        self.dry_runs += 1
        try:
            with self.inside(scratch.body()):
                yield
        finally:
            self.dry_runs -= 1
            del scratch  # now, while the kernel's values that its ops use still exist

    def create(self, name, operands, result_types, attrs=None, num_regions=0):
        handles = [o.handle if isinstance(o, tensor) else o for o in operands]
        if any(isinstance(h, Discarded) for h in handles):
            raise SemanticError(
                "a value computed inside a loop or an `if` on runtime values is used outside it without "
                "being assigned to a variable there (e.g. it was appended to a list); assign it to a "
                "variable instead")
        types = [self.type(t) for t in result_types]
        attributes = {k: self.attr(v) for k, v in (attrs or {}).items()}
        return self.builder.create(name, handles, types, attributes, self.loc(), num_regions)


class Discarded:
    """The handle of a tensor that may no longer be used (see IRBuilder.regions)."""


_state = threading.local()


def current() -> IRBuilder:
    ir = getattr(_state, "ir", None)
    if ir is None:
        raise SemanticError("rocktile.language functions can only be used inside a @rocktile.jit "
                            "function while it is being compiled")
    return ir


def is_tracing() -> bool:
    return getattr(_state, "ir", None) is not None


@contextmanager
def tracing(ir: IRBuilder):
    previous = getattr(_state, "ir", None)
    _state.ir = ir
    try:
        yield ir
    finally:
        _state.ir = previous


# --------------------------------------------------------------------------
# The values a kernel computes with: constexprs and tensors.  The public
# methods of `tensor` (x.to(), x.sum(), ...) are core's functions, attached
# there as Triton attaches its tensor member functions.

class Unbound:
    """The value of a variable where it has none: one the rewritten control
    flow passes along although no code before assigned it (assigned only in a
    loop's body, or in one branch of an `if` on a runtime value). Any use of
    it is an error with `message`; a variable that is never used is fine."""

    def __init__(self, message):
        self.message = message

    def __repr__(self):
        return "<undefined>"

    def _fail(self, *args, **kwargs):
        raise SemanticError(self.message)


for _name in ("add", "radd", "sub", "rsub", "mul", "rmul", "truediv", "rtruediv", "floordiv", "rfloordiv",
              "mod", "rmod", "pow", "rpow", "and", "rand", "or", "ror", "xor", "rxor", "lshift", "rlshift",
              "rshift", "rrshift", "matmul", "rmatmul", "lt", "le", "gt", "ge", "neg", "pos", "invert", "abs",
              "bool", "index", "int", "float", "iter", "len", "getitem", "call"):
    setattr(Unbound, f"__{_name}__", Unbound._fail)


def _unbound_attribute(self, name):
    if name.startswith("__"):  # Python's own protocols (copy, pickle, ...) probe for these
        raise AttributeError(name)
    self._fail()


Unbound.__getattr__ = _unbound_attribute


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
        self.constant_value = None  # the Python number a name was assigned (control.assigned)
        ir = getattr(_state, "ir", None)
        if ir is not None and ir.regions:
            ir.region_tensors.append(self)

    def __repr__(self):
        return f"tensor({self.type.mlir})"

    # Python's operators build IR through the functions of this module.
    def __add__(self, other): return add(self, other)
    def __radd__(self, other): return add(other, self)
    def __sub__(self, other): return sub(self, other)
    def __rsub__(self, other): return sub(other, self)
    def __mul__(self, other): return mul(self, other)
    def __rmul__(self, other): return mul(other, self)
    def __truediv__(self, other): return truediv(self, other)
    def __rtruediv__(self, other): return truediv(other, self)
    def __floordiv__(self, other): return floordiv(self, other)
    def __rfloordiv__(self, other): return floordiv(other, self)
    def __mod__(self, other): return mod(self, other)
    def __rmod__(self, other): return mod(other, self)
    def __and__(self, other): return and_(self, other)
    def __rand__(self, other): return and_(other, self)
    def __or__(self, other): return or_(self, other)
    def __ror__(self, other): return or_(other, self)
    def __xor__(self, other): return xor(self, other)
    def __rxor__(self, other): return xor(other, self)
    def __lshift__(self, other): return shl(self, other)
    def __rlshift__(self, other): return shl(other, self)
    def __rshift__(self, other): return shr(self, other)
    def __rrshift__(self, other): return shr(other, self)
    def __lt__(self, other): return less(self, other)
    def __le__(self, other): return less_equal(self, other)
    def __gt__(self, other): return greater(self, other)
    def __ge__(self, other): return greater_equal(self, other)
    def __eq__(self, other): return equal(self, other)
    def __ne__(self, other): return not_equal(self, other)
    __hash__ = object.__hash__  # __eq__ builds IR; identity stays usable as a key
    def __neg__(self): return neg(self)
    def __pos__(self): return pos(self)
    def __invert__(self): return invert(self)
    def __getitem__(self, index): return subscript(self, index)
    def __matmul__(self, other): return dot(self, other, None, None, None, None, float32)
    def __rmatmul__(self, other): return dot(other, self, None, None, None, None, float32)

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


# Ops that move or convert fp8 values as they are; every other arith or math
# op on fp8 is computed in fp32 and rounded back to fp8.
_FP8_AS_IS = {"arith.constant", "arith.select", "arith.extf", "arith.truncf", "arith.bitcast"}


def _emit(name, operands, ty, attrs=None):
    """Build a one-result op and wrap its result."""
    if (name.startswith(("arith.", "math.")) and name not in _FP8_AS_IS
            and any(t.scalar.is_fp8() for t in [ty] + [o.type for o in operands])):
        wide = [cast(o, float32) if o.dtype.is_fp8() else o for o in operands]
        result = _emit(name, wide, _typed(_shape_of(ty), float32) if ty.scalar.is_fp8() else ty, attrs)
        return cast(result, ty.scalar)
    op = current().create(name, operands, [ty], attrs)
    return tensor(op.result(0), ty)


def _shape_of(ty):
    return ty.shape if ty.is_block() else ()


def _typed(shape, elt):
    """The type of a value of element type `elt` and `shape` (() = scalar)."""
    return block_type(elt, shape) if shape else elt


# --------------------------------------------------------------------------
# Python values, constants and conversions.


def _value(x):
    """Unwrap constexprs and numpy scalars into plain Python values."""
    if isinstance(x, Unbound):
        raise SemanticError(x.message)
    if isinstance(x, constexpr):
        x = x.value
    if isinstance(x, np.generic):
        x = x.item()
    return x


def _is_number(x):
    return isinstance(x, (bool, int, float))


def python_dtype(x):
    """The dtype of a Python number, as Triton gives it: bool -> int1, int ->
    int32 (uint32, int64 or uint64 if it does not fit), float -> float32."""
    if isinstance(x, bool):
        return int1
    if isinstance(x, int):
        if -2**31 <= x < 2**31:
            return int32
        if 2**31 <= x < 2**32:
            return uint32
        if -2**63 <= x < 2**63:
            return int64
        if 0 <= x < 2**64:
            return uint64
        raise SemanticError(f"the integer {x} does not fit in 64 bits")
    if isinstance(x, float):
        return float32
    raise SemanticError(f"expected a tensor or a Python number, got {type(x).__name__} {x!r}")


def to_tensor(x, dtype=None):
    """A tensor for `x`; a Python number becomes a constant of `dtype`
    (default: its own python_dtype)."""
    x = _value(x)
    if isinstance(x, tensor):
        return x
    return constant(x, dtype or python_dtype(x))


def constant_tensor(x):
    """A scalar tensor for the Python number `x` that remembers it
    (`tensor.constant_value`), for control.assigned."""
    t = to_tensor(x)
    t.constant_value = x
    return t


def constant(value, dt):
    value = _value(value)
    if not _is_number(value):
        raise SemanticError(f"expected a Python number for a {dt} constant, got {type(value).__name__} {value!r}")
    if dt.is_fp8():
        # Rounded by the same conversion as any other fp32 -> fp8 value.
        return cast(constant(value, float32), dt)
    return _emit("arith.constant", [], dt, {"value": _literal(value, dt)})


def _literal(value, dt) -> str:
    """MLIR attribute text for `value` as a `dt` constant.  Floats are written
    as their exact bit pattern: MLIR's float syntax has no inf/nan and
    needs a '.' in every literal."""
    if dt.is_bool():
        return "true" if value else "false"
    if dt.is_int():
        if isinstance(value, float):
            if not math.isfinite(value):
                raise SemanticError(f"cannot convert {value} to {dt}")
            value = int(value)
        width = dt.primitive_bitwidth
        value = int(value) & ((1 << width) - 1)  # two's complement in `width` bits
        if value >= 1 << (width - 1):
            value -= 1 << width
        return f"{value} : {dt.mlir}"
    bits = _float_bits(float(value), dt)
    return f"0x{bits:0{dt.primitive_bitwidth // 4}X} : {dt.mlir}"


def _float_bits(value: float, dt) -> int:
    with np.errstate(over="ignore"):
        if dt.is_fp64():
            return struct.unpack("<Q", struct.pack("<d", value))[0]
        if dt.is_fp16():
            return int(np.float16(value).view(np.uint16))
        f32 = int(np.float32(value).view(np.uint32))
    if dt.is_fp32():
        return f32
    # bfloat16: the high half of the float32, rounded to nearest even.
    if math.isnan(value):
        return 0x7FC0
    return ((f32 + 0x7FFF + ((f32 >> 16) & 1)) >> 16) & 0xFFFF


def _pointer_cast(x, src, dst):
    """A pointer from a 64-bit integer address, a pointer's address, or a
    pointer to another element type (through its address), as Triton casts."""
    def is_address(t):
        return t.is_int() and t.primitive_bitwidth == 64
    if src.is_ptr() and dst.is_ptr():
        return _pointer_cast(_pointer_cast(x, src, int64), int64, dst)
    if dst.is_ptr():
        if not is_address(src):
            raise SemanticError(f"cannot convert {src} to {dst}: addresses are 64-bit integers (int64 or uint64)")
        return _emit("tile.int_to_ptr", [x], _typed(x.shape, dst))
    if not is_address(dst):
        raise SemanticError(f"cannot convert {src} to {dst}: a pointer converts to its address, an int64 or uint64")
    return _emit("tile.ptr_to_int", [x], _typed(x.shape, dst))


def cast(x, dst, bitcast=False):
    """Convert `x` to dtype `dst` (values of the same shape)."""
    x = _value(x)
    if not isinstance(x, tensor):
        if not bitcast:
            return constant(x, dst)
        x = to_tensor(x)  # a number's bits: of the type Triton gives it (0x4A800000 is int32)
    src = x.dtype
    if src == dst:
        return x
    if src.is_ptr() or dst.is_ptr():
        return _pointer_cast(x, src, dst)
    ty = _typed(x.shape, dst)
    if src.mlir == dst.mlir:  # e.g. int32 <-> uint32: the same bits, another reading
        return tensor(x.handle, ty)
    if bitcast:
        if src.primitive_bitwidth != dst.primitive_bitwidth:
            raise SemanticError(f"cannot bitcast {src} to {dst}: they have different bit widths")
        return _emit("arith.bitcast", [x], ty)
    src_bits, dst_bits = src.primitive_bitwidth, dst.primitive_bitwidth
    if (src.is_fp8() or dst.is_fp8()) and float32 not in (src, dst):
        # The hardware converts fp8 only from and to fp32.
        return cast(cast(x, float32), dst)
    if src.is_floating() and dst.is_floating():
        if src_bits == dst_bits:  # fp16 <-> bf16 goes through fp32
            return cast(cast(x, float32), dst)
        return _emit("arith.extf" if src_bits < dst_bits else "arith.truncf", [x], ty)
    if src.is_int() and dst.is_int():
        if dst.is_bool():
            return not_equal(x, constant(0, src))
        if src_bits < dst_bits:
            return _emit("arith.extsi" if src.is_int_signed() else "arith.extui", [x], ty)
        return _emit("arith.trunci", [x], ty)
    if src.is_int() and dst.is_floating():
        return _emit("arith.sitofp" if src.is_int_signed() else "arith.uitofp", [x], ty)
    if src.is_floating() and dst.is_int():
        if dst.is_bool():
            return not_equal(x, constant(0.0, src))
        if dst_bits < 32:
            # Through int32 and its low bits, as the chips' code converts them
            # (v_cvt_i32_*), so that an out-of-range value (-3.0 to uint8: 253)
            # is the same number on the GPU and in the emulator, not poison.
            return cast(cast(x, int32), dst)
        return _emit("arith.fptosi" if dst.is_int_signed() else "arith.fptoui", [x], ty)
    raise SemanticError(f"cannot convert {src} to {dst}")


# --------------------------------------------------------------------------
# Shapes.


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


def broadcast_shapes(a, b, what):
    """The common shape of two operands.  Scalars and size-1 dimensions
    grow; a lower rank gets size-1 dimensions prepended (numpy's and
    Triton's rule).  Nothing is ever appended: write x[:, None] for that."""
    a, b = tuple(a), tuple(b)
    if a == b or not b:
        return a
    if not a:
        return b
    rank = max(len(a), len(b))
    pa, pb = (1,) * (rank - len(a)) + a, (1,) * (rank - len(b)) + b
    out = []
    for i, (x, y) in enumerate(zip(pa, pb)):
        if x != y and 1 not in (x, y):
            raise SemanticError(f"shape mismatch in {what}: {list(a)} and {list(b)} cannot be broadcast "
                                f"together (dimension {i}: {x} vs {y})")
        out.append(max(x, y))
    return tuple(out)


def splat(x, shape):
    return _emit("tile.splat", [x], block_type(x.dtype, shape))


def expand_dims(x, axis):
    x = to_tensor(x)
    if not x.shape:
        return splat(x, (1,))
    if not 0 <= axis <= len(x.shape):
        raise SemanticError(f"expand_dims axis {axis} is out of range for a tensor of rank {len(x.shape)}")
    shape = x.shape[:axis] + (1,) + x.shape[axis:]
    return _emit("tile.expand_dims", [x], block_type(x.dtype, shape), {"axis": f"{axis} : i32"})


def broadcast_to(x, shape, what=None):
    shape = tuple(shape)
    if x.shape == shape:
        return x
    if not x.shape:
        return splat(x, shape)
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


# --------------------------------------------------------------------------
# Promotion.


def _integer_promote(a, b):
    """C's usual arithmetic conversions, without promotion to int: the wider
    type wins; between signed and unsigned, unsigned wins unless the signed
    type is wider."""
    if a.is_int_signed() == b.is_int_signed():
        return a if a.primitive_bitwidth >= b.primitive_bitwidth else b
    signed, unsigned = (a, b) if a.is_int_signed() else (b, a)
    return unsigned if unsigned.primitive_bitwidth >= signed.primitive_bitwidth else signed


def computation_type(a, b, op, div_or_mod=False):
    """The dtype in which a binary arithmetic op between `a` and `b` is
    computed (Triton's rules): fp64 > fp32 > fp16/bf16 > fp8 > integers; `/`
    and `%` on half and fp8 types compute in fp32; fp16 with bf16 gives fp32,
    the two fp8 types together give fp16."""
    for t in (a, b):
        if t.is_ptr():
            raise SemanticError(f"operator '{op}' is not defined for pointers ({a} {op} {b})")
    if a.is_fp64() or b.is_fp64():
        return float64
    if a.is_fp32() or b.is_fp32():
        return float32
    if a.is_half() or b.is_half():
        if div_or_mod or (a.is_half() and b.is_half() and a != b):
            return float32
        return a if a.is_half() else b
    if a.is_fp8() or b.is_fp8():
        if div_or_mod:
            return float32
        if a.is_fp8() and b.is_fp8() and a != b:
            return float16
        return a if a.is_fp8() else b
    if div_or_mod and a.is_int_signed() != b.is_int_signed():
        raise SemanticError(f"cannot use '{op}' with {a} and {b}: they have different signedness, which is unlikely "
                            "to give a useful answer (as in Triton); cast them to the same signedness")
    return _integer_promote(a, b)


def _kind(ty):
    """Triton's kinds of dtype: bool < integer < floating point."""
    return 0 if ty.is_bool() else 1 if ty.is_int() else 2


def _operands(a, b, op, div_or_mod=False):
    """Check and convert the operands of a binary elementwise op: both get the
    promoted dtype and the broadcast shape.  Returns (a, b, dtype)."""
    a, b = _value(a), _value(b)
    a_ty, b_ty = _operand_dtype(a, op), _operand_dtype(b, op)
    a_num, b_num = _is_number(a), _is_number(b)
    ty = None
    if a_num != b_num:
        # A Python number of a lower or equal kind than the tensor it meets
        # takes the tensor's type (Triton's rule, as PyTorch's): x_i8 + 1 is
        # int8, x_fp16 * 0.5 is fp16, x_i32 * 0.5 is fp32.
        number_ty, tensor_ty = (a_ty, b_ty) if a_num else (b_ty, a_ty)
        if _kind(number_ty) <= _kind(tensor_ty) and not tensor_ty.is_ptr():
            ty = float32 if div_or_mod and _narrow_float(tensor_ty) else tensor_ty
    if ty is None:
        ty = computation_type(a_ty, b_ty, op, div_or_mod)
    if ty.is_int() and not ty.is_bool():
        for x in (a, b):
            if _is_number(x) and not isinstance(x, bool) and isinstance(x, int):
                _check_int_range(x, ty, op)
    shape = broadcast_shapes(_shape(a), _shape(b), f"'{op}'")
    return broadcast_to(cast(a, ty), shape), broadcast_to(cast(b, ty), shape), ty


def _check_int_range(x, ty, op):
    bits = ty.primitive_bitwidth
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if ty.is_int_signed() else (0, (1 << bits) - 1)
    if x < 0 and ty.is_int_unsigned():
        raise SemanticError(f"cannot apply '{op}' to an unsigned tensor ({ty}) and the negative number {x}; "
                            "cast one of them explicitly")
    if not low <= x <= high:
        raise SemanticError(f"the number {x} is out of range for {ty} in '{op}'; cast the tensor to a wider type")


def _narrow_float(ty):
    """fp16, bf16 and fp8: math functions (and, for fp8, every operation but
    conversions) are computed in fp32."""
    return ty.is_half() or ty.is_fp8()


def _operand_dtype(x, op):
    if isinstance(x, tensor):
        return x.dtype
    if _is_number(x):
        return python_dtype(x)
    raise SemanticError(f"unsupported operand for '{op}': {type(x).__name__} {x!r}")


def _shape(x):
    return x.shape if isinstance(x, tensor) else ()


def _is_ptr(x):
    return isinstance(x, tensor) and x.dtype.is_ptr()


# --------------------------------------------------------------------------
# Arithmetic.


def addptr(ptr, offset, op="+"):
    """ptr + offset or ptr - offset (in elements); the pointer and the offset
    are splat/broadcast to their common shape."""
    offset, symbol = _value(offset), op
    off_ty = _operand_dtype(offset, op)
    if not off_ty.is_int():
        verb, prep = ("add", "to") if op == "+" else ("subtract", "from")
        raise SemanticError(f"cannot {verb} {off_ty} {prep} a pointer ({ptr.dtype}): "
                            "expected an integer offset (a number of elements)")
    if off_ty.primitive_bitwidth < 32:
        off_ty = int32 if off_ty.is_int_signed() or off_ty.is_bool() else uint32
    if op == "-" and _is_number(offset):
        offset, op = -offset, "+"
    offset = cast(offset, off_ty)
    if op == "-":
        offset = neg(offset)
    shape = broadcast_shapes(ptr.shape, offset.shape, f"'{symbol}'")
    ptr, offset = broadcast_to(ptr, shape), broadcast_to(offset, shape)
    return _emit("tile.addptr", [ptr, offset], ptr.type)


def add(a, b):
    a, b = _value(a), _value(b)
    if _is_ptr(b) and not _is_ptr(a):
        a, b = b, a
    if _is_ptr(a):
        if _is_ptr(b):
            raise SemanticError(f"cannot add two pointers ({a.dtype} + {b.dtype})")
        return addptr(a, b, "+")
    x, y, ty = _operands(a, b, "+")
    return _emit("arith.addf" if ty.is_floating() else "arith.addi", [x, y], x.type)


def sub(a, b):
    a, b = _value(a), _value(b)
    if _is_ptr(b):
        raise SemanticError(f"cannot subtract a pointer ({b.dtype}); only integer offsets can be subtracted")
    if _is_ptr(a):
        return addptr(a, b, "-")
    x, y, ty = _operands(a, b, "-")
    return _emit("arith.subf" if ty.is_floating() else "arith.subi", [x, y], x.type)


def mul(a, b):
    x, y, ty = _operands(a, b, "*")
    return _emit("arith.mulf" if ty.is_floating() else "arith.muli", [x, y], x.type)


def truediv(a, b):
    """'/': integers are divided as float32, as in Triton."""
    x, y, ty = _operands(a, b, "/", div_or_mod=True)
    if ty.is_int():
        x, y = cast(x, float32), cast(y, float32)
    return _emit("arith.divf", [x, y], x.type)


def floordiv(a, b):
    """'//' on integers truncates toward zero (C semantics), as in Triton."""
    x, y, ty = _operands(a, b, "//", div_or_mod=True)
    if not ty.is_int():
        raise SemanticError(f"'//' needs integer operands, got {ty}; use '/' for floating-point division")
    return _emit("arith.divsi" if ty.is_int_signed() else "arith.divui", [x, y], x.type)


def mod(a, b):
    """'%': the remainder has the sign of the dividend (C's %, fmod for floats)."""
    x, y, ty = _operands(a, b, "%", div_or_mod=True)
    if ty.is_floating():
        return _emit("arith.remf", [x, y], x.type)
    return _emit("arith.remsi" if ty.is_int_signed() else "arith.remui", [x, y], x.type)


def _broadcast_tiles(values, fname):
    """`values` broadcast to their common shape, at least one of them a
    tile: (values, shape)."""
    shape = []
    for v in values:
        shape = broadcast_shapes(shape, v.shape, fname)
    if not shape:
        raise SemanticError(f"{fname} needs at least one tile among its arguments")
    return [broadcast_to(v, shape) for v in values], shape


def inline_asm_elementwise(asm, constraints, args, result_dtype, is_pure, pack):
    fname = "tl.inline_asm_elementwise"
    if not isinstance(asm, str) or not isinstance(constraints, str):
        raise SemanticError(f"{fname}: the assembly and its constraints must be strings")
    if isinstance(pack, bool) or not isinstance(pack, int) or pack < 1 or pack & (pack - 1):
        raise SemanticError(f"{fname}: pack must be a power of two, got {pack!r}")
    dtypes = list(result_dtype) if isinstance(result_dtype, (list, tuple)) else [result_dtype]
    if not dtypes or not all(isinstance(d, dtype) and not d.is_ptr() for d in dtypes):
        raise SemanticError(f"{fname}: dtype must be a dtype or a sequence of dtypes, got {result_dtype!r}")
    values, shape = _broadcast_tiles([to_tensor(a) for a in args], fname)
    outputs = [block_type(d, shape) for d in dtypes]
    attrs = {"asm_string": json.dumps(asm), "constraints": json.dumps(constraints), "pack": f"{pack} : i32"}
    if is_pure:
        attrs["pure"] = "unit"
    op = current().create("tile.elementwise_inline_asm", values, outputs, attrs)
    results = [tensor(op.result(i), t) for i, t in enumerate(outputs)]
    return tuple(results) if isinstance(result_dtype, (list, tuple)) else results[0]


def umulhi(a, b):
    """The high half of the double-width product of 32- or 64-bit integers,
    read as unsigned whatever their type (Triton's tt.mulhiui: umulhi(-1, -1)
    of int32 is -2)."""
    x, y, ty = _int_operands(a, b, "tl.umulhi")
    if ty.primitive_bitwidth not in (32, 64):
        raise SemanticError(f"tl.umulhi takes 32- or 64-bit integers, got {ty}")
    if ty.primitive_bitwidth == 32:
        u, v = (cast(cast(t, uint32, bitcast=True), uint64) for t in (x, y))
        return cast(cast(shr(mul(u, v), 32), uint32), ty, bitcast=True)
    # Four 32 x 32 -> 64-bit products of the halves.
    u, v = cast(x, uint64, bitcast=True), cast(y, uint64, bitcast=True)
    low = lambda t: and_(t, 0xFFFFFFFF)  # noqa: E731
    (ul, uh), (vl, vh) = (low(u), shr(u, 32)), (low(v), shr(v, 32))
    cross = add(add(shr(mul(ul, vl), 32), low(mul(uh, vl))), mul(ul, vh))
    high = add(add(mul(uh, vh), shr(mul(uh, vl), 32)), shr(cross, 32))
    return cast(high, ty, bitcast=True)


def float_div(a, b, fname):
    x, y, ty = _operands(a, b, fname, div_or_mod=True)
    if not ty.is_floating():
        raise SemanticError(f"{fname} takes floating-point operands, got {_operand_dtype(a, fname)} and "
                            f"{_operand_dtype(b, fname)}")
    return truediv(x, y)


def _int_operands(a, b, op):
    x, y, ty = _operands(a, b, op)
    if not ty.is_int():
        raise SemanticError(f"'{op}' needs integer or boolean operands, got {ty}")
    return x, y, ty


def and_(a, b):
    x, y, _ = _int_operands(a, b, "&")
    return _emit("arith.andi", [x, y], x.type)


def or_(a, b):
    x, y, _ = _int_operands(a, b, "|")
    return _emit("arith.ori", [x, y], x.type)


def xor(a, b):
    x, y, _ = _int_operands(a, b, "^")
    return _emit("arith.xori", [x, y], x.type)


def shl(a, b):
    x, y, _ = _int_operands(a, b, "<<")
    return _emit("arith.shli", [x, y], x.type)


def shr(a, b):
    """'>>' is arithmetic when its left operand is signed, logical when it is
    unsigned, whatever type the operands are then promoted to (as in Triton:
    int8 >> uint8 shifts the uint8 bits arithmetically); a Python number on
    the left takes the right operand's signedness."""
    signed = (a if isinstance(a, tensor) else b).dtype.is_int_signed()
    x, y, _ = _int_operands(a, b, ">>")
    return _emit("arith.shrsi" if signed else "arith.shrui", [x, y], x.type)


def _numeric(x, op):
    x = to_tensor(x)
    if x.dtype.is_ptr():
        raise SemanticError(f"operator '{op}' is not defined for pointers ({x.dtype})")
    return x


def neg(x):
    x = _numeric(x, "-")
    if x.dtype.is_floating():
        return _emit("arith.negf", [x], x.type)
    zero = broadcast_to(constant(0, x.dtype), x.shape)
    return _emit("arith.subi", [zero, x], x.type)


def pos(x):
    return _numeric(x, "+")


def invert(x):
    x = _numeric(x, "~")
    if not x.dtype.is_int():
        raise SemanticError(f"'~' needs an integer or boolean operand, got {x.dtype}")
    ones = broadcast_to(constant(-1, x.dtype), x.shape)
    return _emit("arith.xori", [x, ones], x.type)


# Comparison predicates: arith.cmpf's (ordered; '!=' is unordered, true for
# NaN) and arith.cmpi's signed and unsigned ones.
_CMPF = {"==": 1, "!=": 13, "<": 4, "<=": 5, ">": 2, ">=": 3}
_CMPI_SIGNED = {"==": 0, "!=": 1, "<": 2, "<=": 3, ">": 4, ">=": 5}
_CMPI_UNSIGNED = {"==": 0, "!=": 1, "<": 6, "<=": 7, ">": 8, ">=": 9}


def _compare(a, b, op):
    x, y, ty = _operands(a, b, op)
    result = _typed(x.shape, int1)
    if ty.is_floating():
        return _emit("arith.cmpf", [x, y], result, {"predicate": f"{_CMPF[op]} : i64"})
    table = _CMPI_SIGNED if ty.is_int_signed() else _CMPI_UNSIGNED
    return _emit("arith.cmpi", [x, y], result, {"predicate": f"{table[op]} : i64"})


def less(a, b): return _compare(a, b, "<")
def less_equal(a, b): return _compare(a, b, "<=")
def greater(a, b): return _compare(a, b, ">")
def greater_equal(a, b): return _compare(a, b, ">=")
def equal(a, b): return _compare(a, b, "==")
def not_equal(a, b): return _compare(a, b, "!=")


def _minmax(a, b, which, propagate_nan=False):
    x, y, ty = _operands(a, b, f"tl.{which}imum")
    if ty.is_floating():
        # Triton's default: a NaN operand yields the other operand;
        # PropagateNan.ALL: NaN.
        name = f"arith.{which}imumf" if propagate_nan else f"arith.{which}numf"
    else:
        name = f"arith.{which}{'si' if ty.is_int_signed() else 'ui'}"
    return _emit(name, [x, y], x.type)


def maximum(a, b, propagate_nan=False): return _minmax(a, b, "max", propagate_nan)
def minimum(a, b, propagate_nan=False): return _minmax(a, b, "min", propagate_nan)


def where(condition, x, y):
    condition = to_tensor(condition)
    if not condition.dtype.is_bool():
        condition = cast(condition, int1)
    x, y = _value(x), _value(y)
    if _is_ptr(x) or _is_ptr(y):
        if not (_is_ptr(x) and _is_ptr(y) and x.dtype == y.dtype):
            raise SemanticError(f"tl.where needs two pointers of the same type or two numbers, got "
                                f"{_operand_dtype(x, 'where')} and {_operand_dtype(y, 'where')}")
        shape = broadcast_shapes(x.shape, y.shape, "tl.where")
    else:
        x, y, _ = _operands(x, y, "tl.where")
        shape = x.shape
    shape = broadcast_shapes(condition.shape, shape, "tl.where")
    condition, x, y = (broadcast_to(t, shape) for t in (condition, x, y))
    return _emit("arith.select", [condition, x, y], x.type)


def floating_operand(x, fname):
    """`x` as a tensor of floats; anything else is an error naming `fname`."""
    x = _numeric(x, fname)
    if not x.dtype.is_floating():
        raise SemanticError(f"{fname} expects a floating-point tensor, got {x.dtype}; "
                            "convert it first, e.g. x.to(tl.float32)")
    return x


def float_math(op_name, x, fname, approximate=False):
    """A math-dialect function of a float (fp16/bf16/fp8 computed in fp32);
    `approximate`: in fp32, the hardware's instruction where there is one
    (`afn`), not the correctly scaled expansion."""
    x = floating_operand(x, f"tl.{fname}")
    return _in_float32(op_name, [x], {"fastmath": "#arith.fastmath<afn>"} if approximate else None)


def float_math2(op_name, a, b, fname):
    """A math-dialect function of two floats, after promotion and
    broadcasting; integer operands become float32."""
    x, y, ty = _operands(a, b, fname)
    if not ty.is_floating():
        x, y = cast(x, float32), cast(y, float32)
    return _in_float32(op_name, [x, y])


def _in_float32(op_name, operands, fp32_attrs=None):
    """`op_name` of operands of one float type; fp16/bf16/fp8 computed in
    fp32 (the AMDGPU backend handles fp32 transcendentals best), with
    `fp32_attrs` there."""
    ty = operands[0].dtype
    if _narrow_float(ty):
        wide = [cast(o, float32) for o in operands]
        return cast(_emit(op_name, wide, wide[0].type, fp32_attrs), ty)
    return _emit(op_name, operands, operands[0].type, fp32_attrs if ty == float32 else None)


_LOG2E = 1.4426950408889634


def exp(x, fname="exp"):
    """e^x as Triton's AMD backend computes it: in fp32 (fp16/bf16 widened
    to it) 2^(x log2 e) with the product rounded, on the hardware's exp2
    (math.exp2 without `afn`: LLVM scales results below 2^-126 into range,
    as for Triton's llvm.exp2.f32); its error grows with |x| (docs/language.md).
    fp64: math.exp, within 1 ulp. libdevice.exp is math.exp in fp32 too."""
    x = floating_operand(x, f"tl.{fname}")
    if x.dtype == float64:
        return _emit("math.exp", [x], x.type)
    wide = cast(x, float32) if _narrow_float(x.dtype) else x
    scaled = mul(wide, broadcast_to(constant(_LOG2E, float32), wide.shape))
    return cast(_emit("math.exp2", [scaled], wide.type), x.dtype)


def sigmoid(x):
    """1 / (1 + exp(-x)) with tl.exp, in fp32 for half types."""
    x = _numeric(x, "tl.sigmoid")
    if not x.dtype.is_floating():
        raise SemanticError(f"tl.sigmoid expects a floating-point tensor, got {x.dtype}")
    wide = cast(x, float32) if _narrow_float(x.dtype) else x
    one = broadcast_to(constant(1.0, wide.dtype), wide.shape)
    y = truediv(one, add(one, exp(neg(wide), "sigmoid")))
    return cast(y, x.dtype)


def fma(x, y, z):
    """x * y + z with one rounding (math.fma), after promotion and broadcasting."""
    x, y, z = _value(x), _value(y), _value(z)
    x, y, _ = _operands(x, y, "tl.fma")
    x, z, ty = _operands(x, z, "tl.fma")
    y = broadcast_to(cast(y, ty), x.shape)
    if not ty.is_floating():
        raise SemanticError(f"tl.fma expects floating-point operands, got {ty}")
    return _emit("math.fma", [x, y, z], x.type)


def abs_(x):
    x = _numeric(x, "tl.abs")
    if x.dtype.is_floating():
        return _emit("math.absf", [x], x.type)
    if x.dtype.is_int_signed():
        return _emit("math.absi", [x], x.type)
    return x  # unsigned


# --------------------------------------------------------------------------
# Program indices, ranges, memory.


def program_id(axis):
    if axis not in (0, 1, 2):
        raise SemanticError(f"program_id axis must be 0, 1 or 2, got {axis}")
    return _emit("tile.program_id", [], int32, {"axis": f"{axis} : i32"})


def num_programs(axis):
    if axis not in (0, 1, 2):
        raise SemanticError(f"num_programs axis must be 0, 1 or 2, got {axis}")
    return _emit("tile.num_programs", [], int32, {"axis": f"{axis} : i32"})


def arange(start, end):
    if end <= start:
        raise SemanticError(f"tl.arange needs start < end, got start={start}, end={end}")
    if not (-2**31 <= start and end < 2**31):
        raise SemanticError(f"tl.arange bounds must fit in int32, got start={start}, end={end}")
    shape = check_shape([end - start])
    return _emit("tile.make_range", [], block_type(int32, shape),
                 {"start": f"{start} : i32", "end": f"{end} : i32"})


def full(shape, value, dtype):
    value = _value(value)
    if isinstance(value, tensor):
        if value.shape:
            raise SemanticError(f"tl.full needs a scalar value, got a tensor of shape {list(value.shape)}")
        scalar = cast(value, dtype)
    else:
        scalar = constant(value, dtype)
    return splat(scalar, shape) if shape else scalar


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


def load(ptr, mask, other, volatile=False):
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
    value = _emit("tile.load", operands, _typed(shape, elt.storage), attrs)
    return cast(value, elt)  # a no-op except for int1, stored as bytes


def store(ptr, value, mask):
    ptr = _pointer(ptr, "tl.store")
    elt = ptr.dtype.element_ty
    value = cast(value, elt)
    if value.shape and not ptr.shape:
        raise SemanticError(f"cannot store a tile of shape {list(value.shape)} through a scalar pointer")
    value = broadcast_to(value, ptr.shape, "the stored value")
    operands = [ptr, cast(value, elt.storage)]
    if mask is not None:
        operands.append(broadcast_to(_mask(mask, "tl.store"), ptr.shape, "the mask of tl.store"))
    current().create("tile.store", operands, [], {})


# --------------------------------------------------------------------------
# Atomics.

# The memory orders and scopes Triton accepts, and its defaults.
ATOMIC_SEMS = ("acquire", "release", "acq_rel", "relaxed")
ATOMIC_SCOPES = ("gpu", "cta", "sys")


def check_sem_scope(sem, scope, fname):
    """The op's attributes for `sem` and `scope` (None: acq_rel, gpu)."""
    sem, scope = _value(sem), _value(scope)
    if sem is not None and sem not in ATOMIC_SEMS:
        raise SemanticError(f"{fname}: sem must be one of {', '.join(map(repr, ATOMIC_SEMS))} or None, got {sem!r}")
    if scope is not None and scope not in ATOMIC_SCOPES:
        raise SemanticError(f"{fname}: scope must be one of {', '.join(map(repr, ATOMIC_SCOPES))} or None, "
                            f"got {scope!r}")
    return {"sem": f'"{sem or "acq_rel"}"', "scope": f'"{scope or "gpu"}"'}


def _atomic_pointer(ptr, fname, halves=False):
    """(ptr, its element type) of 32 or 64 bits; with `halves`, fp16 and
    bf16 too (atomic adds of them, as Triton has)."""
    ptr = _pointer(ptr, fname)
    elt = ptr.dtype.element_ty
    if not (halves and elt.is_half()) and (elt.is_bool() or elt.primitive_bitwidth not in (32, 64)):
        raise SemanticError(f"{fname} needs 32- or 64-bit elements (int32, int64, uint32, uint64, fp32, fp64"
                            f"{', and fp16 or bf16 to add' if not halves else ''}), got a pointer to {elt}")
    return ptr, elt


def _atomic_value(value, ptr, elt, fname, what="val"):
    """`value` converted to the pointee type and broadcast to the pointer's shape."""
    value = _value(value)
    if isinstance(value, tensor) and value.dtype.is_ptr():
        raise SemanticError(f"{fname}: {what} must be a number or a tensor of numbers, got {value.type}")
    value = cast(value, elt)
    if value.shape and not ptr.shape:
        raise SemanticError(f"{fname}: {what} is a tile of shape {list(value.shape)} but the pointer is a scalar; "
                            "use a tile of pointers, or reduce the value first (e.g. tl.sum)")
    return broadcast_to(value, ptr.shape, f"{fname}'s {what}")


def atomic_rmw(op, ptr, val, mask, sem, scope, fname=None):
    """tl.atomic_<op>: one tile.atomic_rmw; returns the old values."""
    fname = fname or f"tl.atomic_{op}"
    order = check_sem_scope(sem, scope, fname)
    ptr, elt = _atomic_pointer(ptr, fname, halves=op == "add")
    if op in ("and", "or", "xor") and not elt.is_int():
        raise SemanticError(f"{fname} needs integer elements, got a pointer to {elt}")
    kind = op
    if op in ("max", "min") and elt.is_int_unsigned():
        kind = "u" + op
    operands = [ptr, _atomic_value(val, ptr, elt, fname)]
    if mask is not None:
        mask = _mask(mask, fname)
        if mask.shape and not ptr.shape:
            raise SemanticError(f"{fname}: the mask is a tile of shape {list(mask.shape)} but the pointer is a "
                                "scalar")
        operands.append(broadcast_to(mask, ptr.shape, f"the mask of {fname}"))
    return _emit("tile.atomic_rmw", operands, _typed(ptr.shape, elt), {"kind": f"#tile.atomic_kind<{kind}>", **order})


def atomic_load(ptr, mask, sem, scope):
    """tl.atomic_load: an atomic add of zero (-0.0 for floats, which leaves
    every value as it is, -0.0 included); returns the values."""
    _, elt = _atomic_pointer(ptr, "tl.atomic_load")
    return atomic_rmw("add", ptr, -0.0 if elt.is_floating() else 0, mask, sem, scope, "tl.atomic_load")


# The real-time counter's rate (tile.realtime): 10 ns a tick. AMD gives its
# "REALTIME" counter as a constant 100 MHz; that gfx1250's runs at the same
# rate is an inference.
REALTIME_TICK_NS = 10


def atomic_poll(ptr, expected, sem, scope, timeout_ns):
    """tl.atomic_poll: atomic loads repeated until each element of `ptr`
    has been seen to hold `expected` (each reloaded only until then) or,
    with `timeout_ns`, the program's clock passes the deadline; true where
    the value was seen. Every element is loaded at least once."""
    fname = "tl.atomic_poll"
    sem = "acquire" if _value(sem) is None else _value(sem)
    if sem not in ("acquire", "relaxed"):
        raise SemanticError(f"{fname}: sem must be 'acquire' or 'relaxed', got {sem!r}")
    check_sem_scope(sem, scope, fname)
    ptr, elt = _atomic_pointer(ptr, fname)
    if not elt.is_int():
        raise SemanticError(f"{fname} needs 32- or 64-bit integer elements, got a pointer to {elt}")
    expected = _atomic_value(expected, ptr, elt, fname, "expected_value")
    timeout_ns = _value(timeout_ns)
    if timeout_ns is not None:
        number = isinstance(timeout_ns, int) and not isinstance(timeout_ns, bool) and timeout_ns >= 0
        scalar = isinstance(timeout_ns, tensor) and not timeout_ns.shape and timeout_ns.dtype.is_int()
        if not (number or scalar):
            raise SemanticError(f"{fname}: timeout_ns must be a non-negative integer scalar, got {timeout_ns!r}")
        ticks = floordiv(add(cast(to_tensor(timeout_ns, int64), int64), REALTIME_TICK_NS - 1), REALTIME_TICK_NS)
        deadline = add(realtime(), ticks)

    def seen(mask):
        return equal(atomic_rmw("add", ptr, 0, mask, sem, scope, fname), expected)

    ok = seen(None)
    ir = current()
    loop = ir.create("scf.while", [ok], [ok.type], num_regions=2)
    before, after = (loop.add_block(i, [ir.type(ok.type)], ir.loc()) for i in (0, 1))
    with ir.inside(before):
        now = tensor(before.arg(0), ok.type)
        all_seen = reduce([now], None, lambda a, b: [and_(a[0], b[0])], False, fname)[0] if now.shape else now
        waiting = invert(all_seen)
        if timeout_ns is not None:
            waiting = and_(waiting, less(realtime(), deadline))
        ir.create("scf.condition", [waiting, now], [])
    with ir.inside(after):
        now = tensor(after.arg(0), ok.type)
        ir.create("scf.yield", [or_(now, seen(invert(now)))], [])
    return tensor(loop.result(0), ok.type)


def realtime():
    """The program's reading of the chip's 100 MHz clock (int64 ticks)."""
    return _emit("tile.realtime", [], int64)


def atomic_store(ptr, val, mask, sem, scope):
    """tl.atomic_store: an atomic exchange whose old values are dropped."""
    atomic_rmw("xchg", ptr, val, mask, sem, scope, "tl.atomic_store")


def atomic_cas(ptr, cmp, val, sem, scope):
    """tl.atomic_cas: where memory holds `cmp` write `val`; returns the old values."""
    fname = "tl.atomic_cas"
    order = check_sem_scope(sem, scope, fname)
    ptr, elt = _atomic_pointer(ptr, fname)
    if not elt.is_int():
        raise SemanticError(f"{fname} needs 32- or 64-bit integer elements, got a pointer to {elt}")
    cmp = _atomic_value(cmp, ptr, elt, fname, "cmp")
    val = _atomic_value(val, ptr, elt, fname, "val")
    return _emit("tile.atomic_cas", [ptr, cmp, val], _typed(ptr.shape, elt), order)


def debug_barrier():
    current().create("tile.barrier", [], [], {})


# --------------------------------------------------------------------------
# Permuting and reshaping tiles.


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
    return _emit("tile.trans", [x], block_type(x.dtype, shape),
                 {"order": f"array<i32: {', '.join(map(str, dims))}>"})


# tile.dot's operands: a, b, acc, and the optional a_scale and b_scale.
_DOT_SEGMENTS = {"operandSegmentSizes": "array<i32: 1, 1, 1, 0, 0>"}
_DOT_PRECISIONS = ("tf32", "tf32x3", "ieee", "bf16x3", "bf16x6")
# bf16xN splits each fp32 operand into bf16 parts and sums the products of
# the parts whose orders add up to at most this (Triton's AMD backend).
_BF16_SPLITS = {"bf16x3": 2, "bf16x6": 3}


def scaled_dot(a, a_format, a_scale, b, b_format, b_scale, acc, scale_format="e8m0"):
    """The scaled matrix instructions' product (tl.dot_scaled on MX formats
    and NVFP4, microscaling.py checks the arguments): `a` (M x K) and `b`
    (K x N), fp8, or uint8 codes of their formats (bytes of two E2M1 codes
    along K: M x K/2, K/2 x N; one FP6 code per byte), times their uint8
    scales, E8M0 per 32 k (M x K/32 and N x K/32) or E4M3 per 16, plus f32
    `acc`."""
    shape = (a.shape[0], b.shape[1])
    acc = full(shape, 0, float32) if acc is None else to_tensor(acc)
    if tuple(acc.shape) != shape or acc.dtype != float32:
        raise SemanticError(f"tl.dot_scaled: acc must be a {'x'.join(map(str, shape))} tile of fp32, got "
                            f"{'x'.join(map(str, acc.shape)) or 'a scalar'} of {acc.dtype}")
    attrs = {"operandSegmentSizes": "array<i32: 1, 1, 1, 1, 1>"}
    operands = []
    for name, x, fmt in (("a_format", a, a_format), ("b_format", b, b_format)):
        if x.dtype == uint8:
            attrs[name] = f'"{fmt}"'
            x = cast(x, int8, bitcast=True)
        operands.append(x)
    scales = [cast(s, int8 if scale_format == "e8m0" else float8e4nv, bitcast=True) for s in (a_scale, b_scale)]
    return _emit("tile.dot", [*operands, acc, *scales], block_type(float32, shape), attrs)


def scaled_upcast(codes, scales, axis, out):
    """E2M1 codes (uint8, two per byte along `axis`, the first in the low
    nibble) times their blocks' E8M0 scales (uint8, the result's shape but
    one per block along `axis`) as `out` (bf16, fp16) values, on the
    targets' scaled conversions (tile.scaled_upcast)."""
    shape = list(codes.shape)
    shape[axis] *= 2
    codes, scales = (cast(x, int8, bitcast=True) for x in (codes, scales))
    return _emit("tile.scaled_upcast", [codes, scales], _typed(shape, out), {"axis": f"{axis} : i32"})


def dot(a, b, acc, input_precision, allow_tf32, max_num_imprecise_acc, out_dtype):
    """tl.dot: a (M x K) x b (K x N) + acc, with Triton's shape rules."""
    a, b = to_tensor(a), to_tensor(b)
    if len(a.shape) != len(b.shape) or len(a.shape) not in (2, 3):
        raise SemanticError(f"tl.dot needs two 2-D operands, or two 3-D ones (a batched product), got shapes "
                            f"{list(a.shape)} and {list(b.shape)}")
    batch = tuple(a.shape[:-2])
    (M, K), (K2, N) = a.shape[-2:], b.shape[-2:]
    if K != K2:
        raise SemanticError(f"tl.dot: the inner dimensions differ: {list(a.shape)} x {list(b.shape)}")
    if tuple(b.shape[:-2]) != batch:
        raise SemanticError(f"tl.dot: the batch dimensions differ: {list(a.shape)} x {list(b.shape)}")
    if min(M, N, K) < 16:
        return _padded_dot(a, b, acc, input_precision, allow_tf32, max_num_imprecise_acc, out_dtype)
    # allow_tf32 (deprecated) permits TF32, which neither chip has: its
    # products stay fp32, as in Triton's AMD backend.
    if input_precision is not None and allow_tf32 is not None:
        raise SemanticError("tl.dot: give input_precision or allow_tf32 (deprecated), not both")
    if input_precision is not None and input_precision not in _DOT_PRECISIONS:
        raise SemanticError(f"tl.dot: input_precision must be one of {', '.join(_DOT_PRECISIONS)}, "
                            f"got {input_precision!r}")
    sixteen = a.dtype == b.dtype and (a.dtype.is_fp16() or a.dtype.is_bf16())
    fp8 = a.dtype.is_fp8() and b.dtype.is_fp8()
    integer = a.dtype == b.dtype == int8
    fp32 = a.dtype == b.dtype == float32
    if not (sixteen or fp8 or integer or fp32):
        raise SemanticError(f"tl.dot of {a.dtype} by {b.dtype} is not supported; supported are bf16 x bf16, "
                            "fp16 x fp16, fp8 x fp8 (float8e4nv, float8e5, mixed) and fp32 x fp32 into fp32, "
                            "and int8 x int8 into int32")
    if integer:
        # As Triton: an int8 product is int32, whatever out_dtype says.
        out_dtype = int32
    elif out_dtype != float32 and not (out_dtype == float16 and a.dtype.is_fp16()):
        raise SemanticError(f"tl.dot into {out_dtype} of {a.dtype} inputs is not supported; out_dtype must be "
                            "tl.float32, or tl.float16 for fp16 inputs")
    if fp32 and input_precision in ("tf32", "tf32x3"):
        raise SemanticError(f"tl.dot: input_precision={input_precision!r} needs TF32 matrix instructions, which "
                            "gfx950 and gfx1250 do not have (Triton's AMD backend refuses it too); use 'ieee' "
                            "(the fp32 matrix instructions), 'bf16x3' or 'bf16x6'")
    shape = batch + (M, N)
    if acc is None:
        acc = full(shape, 0, out_dtype)
    else:
        acc = to_tensor(acc)
        if tuple(acc.shape) != shape or acc.dtype != out_dtype:
            raise SemanticError(f"tl.dot: acc must be a {'x'.join(map(str, shape))} tile of {out_dtype}, got "
                                f"{'x'.join(map(str, acc.shape)) or 'a scalar'} of {acc.dtype}")
    acc_type = int32 if integer else float32

    def product(x, y, c):
        return _emit("tile.dot", [x, y, c], block_type(acc_type, shape), _DOT_SEGMENTS)

    d = cast(acc, acc_type)
    if fp32 and input_precision in _BF16_SPLITS:
        # x = x0 + x1 + ... in bf16 parts, each the bf16 rounding of what the
        # earlier ones leave; the small products are added first.
        def parts(x):
            out, rest = [], x
            for _ in range(_BF16_SPLITS[input_precision]):
                out.append(cast(rest, bfloat16))
                rest = sub(rest, cast(out[-1], float32))
            return out
        pa, pb = parts(a), parts(b)
        n = len(pa)
        for order in range(n - 1, -1, -1):
            for i in range(order, -1, -1):
                d = product(pa[i], pb[order - i], d)
        return cast(d, out_dtype)
    # For 16-bit, fp8 and int8 inputs input_precision, allow_tf32 and
    # max_num_imprecise_acc change nothing: the products are exact and
    # accumulate in fp32 (int32). An fp16 accumulator (Triton's
    # out_dtype=float16 for fp16 inputs): the matrix cores add in fp32, and
    # each dot rounds its result to fp16.
    return cast(product(a, b, d), out_dtype)


def _interleave_zeros(x, axis):
    """`x` with a zero after each row (axis -2) or column (axis -1)."""
    pad = join(x, full(x.shape, 0, x.dtype))  # (..., R, C, 2)
    rank = len(pad.shape)
    if axis == -2:  # (..., R, 2, C)
        pad = permute(pad, tuple(range(rank - 3)) + (rank - 3, rank - 1, rank - 2))
    shape = list(x.shape)
    shape[axis] *= 2
    return reshape(pad, shape)


def _even_part(x, axis):
    """The even rows (axis -2) or columns (axis -1) of `x`."""
    shape = list(x.shape)
    if axis == -1:
        return split(reshape(x, shape[:-1] + [shape[-1] // 2, 2]))[0]
    pairs = reshape(x, shape[:-2] + [shape[-2] // 2, 2, shape[-1]])
    rank = len(pairs.shape)
    return split(permute(pairs, tuple(range(rank - 3)) + (rank - 3, rank - 1, rank - 2)))[0]


def _padded_dot(a, b, acc, *options):
    """tl.dot with M, N or K below 16, which Triton's AMD backend takes (on
    FMA): each is doubled up to 16 with interleaved zero rows and columns,
    which add exact zeros to the products, and the result keeps the rows and
    columns of the real ones."""
    (M, K), N = a.shape[-2:], b.shape[-1]
    if acc is not None:
        acc = to_tensor(acc)
        if tuple(acc.shape) != tuple(a.shape[:-2]) + (M, N):
            raise SemanticError(f"tl.dot: acc must be a {'x'.join(map(str, tuple(a.shape[:-2]) + (M, N)))} tile, "
                                f"got {'x'.join(map(str, acc.shape)) or 'a scalar'}")
    doubled_m = doubled_n = 0
    while a.shape[-2] < 16:
        a, acc, doubled_m = _interleave_zeros(a, -2), acc if acc is None else _interleave_zeros(acc, -2), doubled_m + 1
    while b.shape[-1] < 16:
        b, acc, doubled_n = _interleave_zeros(b, -1), acc if acc is None else _interleave_zeros(acc, -1), doubled_n + 1
    while a.shape[-1] < 16:
        a, b = _interleave_zeros(a, -1), _interleave_zeros(b, -2)
    out = dot(a, b, acc, *options)
    for _ in range(doubled_m):
        out = _even_part(out, -2)
    for _ in range(doubled_n):
        out = _even_part(out, -1)
    return out


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


# --------------------------------------------------------------------------
# Reductions.


def _reduce_axis(inputs, axis, combine):
    """One tile.reduce over `axis`; `combine(lhs, rhs)` builds the combiner
    from two lists of scalars and returns the list of combined scalars."""
    ir = current()
    shape = inputs[0].shape
    out_shape = shape[:axis] + shape[axis + 1:]
    result_types = [_typed(out_shape, t.dtype) for t in inputs]
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

