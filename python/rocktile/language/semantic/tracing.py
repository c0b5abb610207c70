"""The kernel being traced (its IR builder and the trace's state) and the values it computes
with: constexprs, tensors, and the placeholders of unassigned variables."""
from __future__ import annotations

import operator as _op
import sys
import threading
from contextlib import contextmanager

from ...errors import SemanticError, source_position
from ..types import block_type, dtype


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
        # At the explicit level (rocktile.gluon) every tile carries the
        # layout its author gave it; the compiler assigns none.
        self.explicit = False

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
        if self.explicit:
            for t in result_types:
                _check_explicit_layout(t, name)
        types = [self.type(t) for t in result_types]
        attributes = {k: self.attr(v) for k, v in (attrs or {}).items()}
        return self.builder.create(name, handles, types, attributes, self.loc(), num_regions)


def _check_explicit_layout(ty, op_name):
    """At the explicit level a tile without a layout is an op whose result
    layout rocktile cannot derive from its operands (yet): an error naming
    the op, rather than a layout the compiler would choose silently."""
    if not ty.is_block():
        return
    layout = ty.layout
    if layout is None:
        raise SemanticError(f"rocktile cannot derive the layout of the result of {op_name} at the explicit level "
                            "(rocktile.gluon) yet; see docs/gluon.md for what is supported")
    if getattr(layout, "shape", None) is not None and tuple(layout.shape) != tuple(ty.shape):
        raise SemanticError(f"{layout!r} is written for a tile of shape {list(layout.shape)}, but this tile has "
                            f"shape {list(ty.shape)}")
    if layout.rank != len(ty.shape):
        raise SemanticError(f"{layout!r} has rank {layout.rank}, but the tile it lays out has shape "
                            f"{list(ty.shape)}")


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
    scalars).  Its operators are bound in this package's __init__, its public
    methods (x.to(), x.sum(), ...) in core, as Triton attaches its tensor
    member functions."""

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


def _shape_of(ty):
    return ty.shape if ty.is_block() else ()


def _typed(shape, elt):
    """The type of a value of element type `elt` and `shape` (() = scalar)."""
    return block_type(elt, shape) if shape else elt
