"""Control flow on runtime values: the calls that rocktile.rewrite puts in
place of `for`, `while`, `if`, `and`, `or`, `not` and `x if c else y`.

Loops and branches become upstream `scf` ops.  The variables they carry may
be tensors, Python numbers (which become tensors) or tuples and lists of
them; other Python values may pass through as long as they do not change.
"""
from __future__ import annotations

import builtins

from . import core, semantic
from .semantic import SemanticError, current

__all__ = ["UNDEF", "lookup", "fail", "is_static", "if_", "for_", "while_", "and_", "or_", "not_", "ifexp"]


# The value of a variable that is not bound (yet) where control flow passes it on.
UNDEF = semantic.Unbound("a variable is used where it has no value (it is assigned only after this point, or "
                         "only in a branch or loop that did not assign it)")
_UNBOUND = object()  # the spec of a loop variable with no value before the loop


def lookup(thunk):
    try:
        return thunk()
    except NameError:  # UnboundLocalError too
        return UNDEF


def fail(message):
    raise SemanticError(message)


def assigned(value):
    """What a name assigned `value` holds, as in Triton: a Python number (a
    bool, an int, a float, a constexpr of one) becomes a scalar tensor of its
    type (int32, int64 or uint64 by size, fp32, int1), so that `s = 1; (1 /
    s).to(tl.float32)`, `val = 1.0; val.dtype` and wrapping integer
    arithmetic work as in Triton; a plain tuple is converted element by
    element. The tensor remembers its value, so that where a compile-time int
    is required (`tl.arange(0, n)`, shapes, axes) it still serves, which
    Triton refuses."""
    if type(value) is tuple:
        return tuple(assigned(v) for v in value)
    number = semantic._value(value)
    if semantic.is_tracing() and isinstance(number, (bool, int, float)):
        return semantic.constant_tensor(number)
    return value


def is_static(value) -> bool:
    """Is `value` known while compiling (anything but a tensor)?"""
    return not isinstance(semantic._value(value), core.tensor)


# --------------------------------------------------------------------------
# Flattening carried values into tensors.

_LEAF = object()  # a tensor or number in a structure


def _flatten(value, path, leaves, numbers=True):
    """The structure of `value` with its tensors and numbers (unless not
    `numbers`) appended to `leaves` as (path, value); other objects are kept
    in the structure. The numbers of a namedtuple's `_fixed_fields` (a block
    pointer's shape and strides, which `tl.advance` keeps) stay compile-time
    values: a stride of 1 stays known to be 1."""
    value = semantic._value(value)
    if isinstance(value, core.tensor) or numbers and semantic._is_number(value):
        leaves.append((path, value))
        return _LEAF
    if isinstance(value, (tuple, list)):
        fixed = getattr(value, "_fixed_fields", ())
        fields = getattr(value, "_fields", [None] * len(value))
        return (type(value), tuple(_flatten(v, f"{path}[{i}]", leaves, numbers and f not in fixed)
                                   for i, (f, v) in enumerate(zip(fields, value))))
    return ("static", value)


def _rebuild(spec, it):
    if spec is _LEAF:
        return next(it)
    kind, items = spec
    if kind == "static":
        return items
    values = [_rebuild(s, it) for s in items]
    return kind(*values) if hasattr(kind, "_fields") else kind(values)  # namedtuples take fields


def _same(a, b) -> bool:
    """Do two structures from _flatten match (same containers, equal static values)?"""
    if a is _LEAF or b is _LEAF:
        return a is b
    if a[0] != b[0]:
        return False
    if a[0] == "static":
        try:
            return a[1] is b[1] or builtins.bool(a[1] == b[1])
        except Exception:  # e.g. == of two objects that cannot be compared
            return False
    return len(a[1]) == len(b[1]) and all(_same(x, y) for x, y in zip(a[1], b[1]))


def describe(value) -> str:
    """A short description of a value's type for messages: fp32, fp32[128],
    Python int 0, tuple(fp32[64], int32)."""
    if isinstance(value, semantic.Unbound):
        return "undefined"
    value = semantic._value(value)
    if isinstance(value, core.tensor):
        ty = value.type
        return f"{ty.scalar}[{', '.join(map(str, ty.shape))}]" if ty.is_block() else str(ty)
    if semantic._is_number(value):
        return f"Python {type(value).__name__} {value!r}"
    if isinstance(value, (tuple, list)):
        return f"{type(value).__name__}({', '.join(describe(v) for v in value)})"
    return f"the Python {type(value).__name__} {getattr(value, '__name__', repr(value))}"


def _number_as(x, ty, problem):
    """The Python number `x` as a value of tensor type `ty`, where allowed
    without changing its meaning (an int may become a float, not the reverse)."""
    scalar = ty.scalar
    ok = (scalar.is_bool() if isinstance(x, builtins.bool) else
          scalar.is_floating() or scalar.is_int() and not scalar.is_bool() if isinstance(x, int) else
          scalar.is_floating())
    if not ok or scalar.is_ptr():
        raise SemanticError(problem())
    value = semantic.constant(x, scalar)
    return semantic.splat(value, ty.shape) if ty.is_block() else value


class _Carried:
    """The variables a loop carries: their structure and the types of the
    tensors that are the loop's operands, block arguments and results."""

    def __init__(self, names, values, what):
        self.names, self.specs, self.inits, self.what = names, [], [], what
        for name, value in zip(names, values):
            if isinstance(value, semantic.Unbound):
                # Not carried: the body may assign it and use it in the same
                # iteration (the rewrite cannot tell from its source, e.g.
                # under a compile-time `if`); any other use is an error.
                self.specs.append(_UNBOUND)
                continue
            leaves = []
            self.specs.append(_flatten(value, name, leaves))
            self.inits += [semantic.to_tensor(v) for _, v in leaves]
        self.types = [t.type for t in self.inits]

    def values(self, handles):
        it = iter(core.tensor(h, ty) for h, ty in zip(handles, self.types))
        return [semantic.Unbound(
            f"'{name}' has no value before the {self.what}, so it has none at the start of an iteration or "
            f"after the loop; give it an initial value before the loop (e.g. {name} = tl.zeros([BLOCK], "
            "tl.float32))") if spec is _UNBOUND else _rebuild(spec, it) for name, spec in zip(self.names, self.specs)]

    def next_values(self, values, what):
        """The tensors to yield for the body's results `values`, checked
        against what the loop started with."""
        values = _results(values, len(self.names))
        out, types = [], iter(self.types)
        for name, spec, value, before in zip(self.names, self.specs, values, self._before()):
            if spec is _UNBOUND:
                continue
            leaves = []
            if isinstance(value, semantic.Unbound) or not _same(spec, _flatten(value, name, leaves)):
                raise SemanticError(f"'{name}' is {before} before the {what} and {describe(value)} at the end "
                                    f"of its body; a variable carried through a loop must keep its structure, "
                                    "type and shape")
            for path, leaf in leaves:
                ty = next(types)
                if isinstance(leaf, core.tensor):
                    if leaf.type != ty:
                        raise SemanticError(
                            f"'{path}' is {describe(core.tensor(None, ty))} before the {what} and "
                            f"{describe(leaf)} at the end of its body; a variable carried through a loop must "
                            f"keep its type and shape (give it that type before the loop, e.g. with .to() "
                            "or tl.zeros(shape, dtype))")
                    out.append(leaf)
                else:
                    out.append(_number_as(leaf, ty, lambda: (
                        f"'{path}' is {describe(core.tensor(None, ty))} before the {what} and "
                        f"{describe(leaf)} at the end of its body; a variable carried through a loop must "
                        "keep its type")))
        return out

    def _before(self):
        it = iter(self.inits)
        return ["undefined" if spec is _UNBOUND else describe(_rebuild(spec, it)) for spec in self.specs]


def _results(values, n):
    """The tuple a generated body function returned."""
    assert isinstance(values, tuple) and len(values) == n, values
    return values


def _as_condition(value, what):
    """A runtime condition as an i1 scalar: numbers are compared with 0 (as
    Python's truth); a one-element tile is reduced to its element."""
    value = semantic._value(value)
    if isinstance(value, core.condition):
        value = semantic._value(value.condition)
    if not isinstance(value, core.tensor):
        return semantic.constant(builtins.bool(value), core.int1)
    if value.dtype.is_ptr():
        raise SemanticError(f"the condition of {what} is a pointer ({value.type}); compare it instead")
    if value.shape and value.numel > 1:
        raise SemanticError(
            f"the condition of {what} is a tensor of shape {list(value.shape)}; a condition must be a scalar: "
            "use tl.where(condition, x, y) to choose elementwise, or reduce it (tl.max, tl.sum) first")
    if not value.dtype.is_bool():
        value = semantic.cast(value, core.int1)  # != 0
    if value.shape:
        value = semantic.reduce_minmax(semantic.cast(value, core.int32), None, False, "max")
        value = semantic.cast(value, core.int1)
    return value


# --------------------------------------------------------------------------
# Loops.

def for_(func, args, kwargs, body, inits, names):
    """`for iv in range(*args, **kwargs)` traced as scf.for; `body(iv, *carried)`
    returns the carried variables' next values."""
    func = semantic._value(func)
    if func is builtins.range:
        if kwargs:
            raise SemanticError(f"range() takes no keyword arguments (got {', '.join(kwargs)}); use tl.range")
        r = core.range(*args)
    elif func is core.range:
        r = core.range(*args, **kwargs)
    else:
        raise SemanticError(f"a loop over {func!r}(...) is not supported: loop over range(), tl.range() or "
                            "tl.static_range()")
    start, end, step = (semantic._value(v) for v in (r.start, r.end, r.step))
    ity = _index_type(start, end, step)
    descending = isinstance(step, int) and step < 0
    if descending:
        # scf.for counts up: run k = 0 .. ceil((start - end) / -step) and use start - k * -step.
        if isinstance(start, int) and isinstance(end, int):
            count = builtins.max(0, (start - end - step - 1) // -step)
        else:
            span = semantic.sub(semantic.cast(start, ity), semantic.cast(end, ity))
            count = semantic.floordiv(semantic.add(span, -step - 1), semantic.constant(-step, ity))
        lower, upper, stride = semantic.constant(0, ity), semantic.cast(count, ity), semantic.constant(1, ity)
    else:
        lower, upper, stride = (semantic.cast(v, ity) for v in (start, end, step))

    ir = current()
    carried = _Carried(names, inits, "loop")
    attrs = {}
    if r.num_stages is not None:
        if isinstance(r.num_stages, bool) or not isinstance(r.num_stages, int) or not 1 <= r.num_stages <= 8:
            raise SemanticError(f"tl.range's num_stages must be an int from 1 (no pipelining) to 8, got "
                                f"{r.num_stages!r}")
        attrs["tile.num_stages"] = f"{r.num_stages} : i32"
    op = ir.create("scf.for", [lower, upper, stride, *carried.inits], carried.types, attrs, num_regions=1)
    block = op.add_block(0, [ir.type(ity)] + [ir.type(t) for t in carried.types], ir.loc())
    with ir.inside(block):
        iv = core.tensor(block.arg(0), ity)
        if descending:
            iv = semantic.sub(semantic.cast(start, ity), semantic.mul(iv, semantic.constant(-step, ity)))
        values = carried.values([block.arg(i + 1) for i in builtins.range(len(carried.types))])
        next_values = carried.next_values(body(iv, *values), "loop")
        ir.create("scf.yield", next_values, [])
    return tuple(carried.values([op.result(i) for i in builtins.range(len(carried.types))]))


def _index_type(*bounds):
    """i64 if a bound needs it, else i32 (scf.for needs one signless type)."""
    wide = False
    for b in bounds:
        if isinstance(b, core.tensor):
            if b.shape or not b.dtype.is_int() or b.dtype.is_bool():
                raise SemanticError(f"range() bounds must be integer scalars, got {describe(b)}")
            wide |= b.dtype.primitive_bitwidth == 64
        elif isinstance(b, builtins.bool) or not isinstance(b, int):
            raise SemanticError(f"range() bounds must be integers, got {describe(b)}")
        else:
            wide |= not -2**31 <= b < 2**31
    if isinstance(bounds[2], int) and bounds[2] == 0:
        raise SemanticError("range() step must not be zero")
    return core.int64 if wide else core.int32


def while_(cond, body, inits, names):
    """`while cond(*carried): carried = body(*carried)` traced as scf.while."""
    ir = current()
    carried = _Carried(names, inits, "while loop")
    n = len(carried.types)
    types = [ir.type(t) for t in carried.types]
    op = ir.create("scf.while", carried.inits, carried.types, num_regions=2)
    before, after = op.add_block(0, types, ir.loc()), op.add_block(1, types, ir.loc())
    with ir.inside(before):
        condition = _as_condition(cond(*carried.values([before.arg(i) for i in builtins.range(n)])),
                                  "a while loop")
        ir.create("scf.condition", [condition] + [before.arg(i) for i in builtins.range(n)], [])
    with ir.inside(after):
        values = carried.values([after.arg(i) for i in builtins.range(n)])
        ir.create("scf.yield", carried.next_values(body(*values), "while loop"), [])
    return tuple(carried.values([op.result(i) for i in builtins.range(n)]))


# --------------------------------------------------------------------------
# Branches.

def if_(cond, then, orelse, inits, names, what="an `if`"):
    """`if cond:` on a runtime condition, traced as scf.if.  `then` and
    `orelse` take the variables either branch assigns and return those in
    `names` (the ones used after the `if`), which become the op's results."""
    ir = current()
    condition = _as_condition(cond, what)
    plan = None
    if names:
        # scf.if needs its result types before its branches are built, and
        # they are only known by running the branches: trace them once into
        # a scratch module, which is thrown away.
        with ir.dry_run():
            plan = _MergePlan(names, then(*inits), orelse(*inits))
    op = ir.create("scf.if", [condition], plan.types if plan else [], num_regions=2)
    for region, branch in enumerate((then, orelse)):
        with ir.inside(op.add_block(region, [], ir.loc())):
            values = branch(*inits)
            ir.create("scf.yield", plan.yields(values, region) if plan else [], [])
    return plan.results(op) if plan else ()


RETURN = "__rocktile_return"  # rocktile.rewrite's name for a function's return value


def _fillable(value):
    return isinstance(value, core.tensor) and not value.dtype.is_ptr() or \
        (type(value) is tuple and all(map(_fillable, value)))


def _zeros_like(value):
    """What a function returns on a path that falls off its end while
    another path, under an `if` on a runtime condition, returns `value`:
    zeros of its types. Triton returns poison there (any value); zeros keep
    the emulator's results reproducible."""
    if type(value) is tuple:
        return tuple(_zeros_like(v) for v in value)
    return core.zeros(value.shape, value.dtype) if value.shape else semantic.constant(0, value.dtype)


class _MergePlan:
    """How the two branches' values of each variable merge: a leaf that is
    a tensor in either branch (or a number differing between them) becomes
    a result of scf.if; an equal Python value stays a Python value."""

    def __init__(self, names, then_values, else_values):
        self.names = names
        self.specs, self.leaves, self.types = [], [], []  # leaves: ("result", type) | ("static", value)
        self.return_template = None  # the value a branch returns where the other falls off the end
        for name, a, b in zip(names, _results(then_values, len(names)), _results(else_values, len(names))):
            if name == RETURN and (a is None) != (b is None) and _fillable(a if b is None else b):
                self.return_template = a if b is None else b
                a, b = (a, a) if b is None else (b, b)
            if isinstance(a, semantic.Unbound) or isinstance(b, semantic.Unbound):
                # An error only where it is used after the `if`.
                branch = "then" if isinstance(b, semantic.Unbound) else "else"
                self.specs.append(("static", semantic.Unbound(
                    f"'{name}' is defined only in the {branch} branch of an `if` on a runtime condition but "
                    "is used after it; give it a value before the `if` or in both branches")))
                continue
            la, lb = [], []
            spec = _flatten(a, name, la)
            if not _same(spec, _flatten(b, name, lb)):
                raise SemanticError(self._mismatch(name, a, b))
            self.specs.append(spec)
            for (path, x), (_, y) in zip(la, lb):
                self.leaves.append(self._merge(path, x, y))
        self.types = [leaf[1] for leaf in self.leaves if leaf[0] == "result"]

    @staticmethod
    def _mismatch(name, a, b):
        name = "the return value" if name == RETURN else f"'{name}'"
        python = not any(isinstance(v, (core.tensor, tuple, list)) or semantic._is_number(v) for v in (a, b))
        rule = ("a Python value other than a number cannot differ between the branches" if python else
                "both branches must give it the same type and shape")
        return (f"{name} is {describe(a)} in the then branch and {describe(b)} in the else branch of this `if` "
                f"on a runtime condition; {rule}")

    def _merge(self, path, x, y):
        tx, ty = isinstance(x, core.tensor), isinstance(y, core.tensor)
        if tx and ty:
            if x.type != y.type:
                raise SemanticError(self._mismatch(path, x, y))
            return ("result", x.type)
        if tx or ty:
            tensor, number = (x, y) if tx else (y, x)
            _number_as(number, tensor.type, lambda: self._mismatch(path, x, y))  # checked here, built later
            return ("result", tensor.type)
        if type(x) is type(y) and x == y:
            return ("static", x)
        ty_ = semantic.computation_type(semantic.python_dtype(x), semantic.python_dtype(y), "if")
        return ("result", ty_)

    def yields(self, values, region):
        out, leaves = [], []
        for name, value, spec in zip(self.names, _results(values, len(self.names)), self.specs):
            if name == RETURN and value is None and self.return_template is not None:
                value = _zeros_like(self.return_template)
            if not (spec is not _LEAF and spec[0] == "static" and isinstance(spec[1], semantic.Unbound)):
                _flatten(value, name, leaves)
        for (path, value), (kind, ty) in zip(leaves, self.leaves):
            if kind == "result":
                out.append(value if isinstance(value, core.tensor) else
                           _number_as(value, ty, lambda: self._mismatch(path, value, value)))
        return out

    def results(self, op):
        results, k = [], 0
        for kind, x in self.leaves:
            if kind == "result":
                results.append(core.tensor(op.result(k), x))
                k += 1
            else:
                results.append(x)
        it = iter(results)
        return tuple(_rebuild(spec, it) for spec in self.specs)


def ifexp(cond, then, orelse):
    """`then() if cond else orelse()`."""
    if is_static(cond):
        return then() if cond else orelse()
    return if_(cond, lambda: (then(),), lambda: (orelse(),), (), ("the conditional expression",),
               "a conditional expression")[0]


def min_max(fn, *args, **kwargs):
    """`min(...)` / `max(...)` in a kernel, `fn` being what the name means
    there: Python's builtin on Python values; on runtime values, as in
    Triton, tl.minimum / tl.maximum folded over the arguments."""
    values = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
    if fn not in (builtins.min, builtins.max) or all(is_static(v) for v in values):
        return fn(*args, **kwargs)
    name = fn.__name__
    if kwargs:
        raise SemanticError(f"{name}() of runtime values takes no keyword arguments, got "
                            f"{', '.join(kwargs)}")
    if len(values) < 2:
        raise SemanticError(f"{name}() of one tile: for its smallest or largest element write "
                            f"tl.{name}(x, axis=...)")
    combine = core.minimum if fn is builtins.min else core.maximum
    result = values[0]
    for v in values[1:]:
        result = combine(result, v)
    return result


# --------------------------------------------------------------------------
# and, or, not: Python's on Python values; on tensors, elementwise logic on
# their truth values (Triton's logical_and / logical_or / not).

def _truth(value):
    return value if value.dtype.is_bool() else semantic.cast(value, core.int1)


def _short_circuit(operands, stop_on, combine):
    """Python's `and` (stop_on=False) and `or` (stop_on=True): Python values
    decide at trace time; runtime values combine elementwise."""
    acc = None
    for thunk in operands:
        value = semantic._value(thunk())
        if is_static(value):
            if bool(value) == stop_on:
                return value if acc is None else stop_on
            if acc is None:
                last = value
            continue
        acc = _truth(value) if acc is None else combine(acc, _truth(value))
    return last if acc is None else acc


def and_(*operands):
    return _short_circuit(operands, False, semantic.and_)


def or_(*operands):
    return _short_circuit(operands, True, semantic.or_)


def not_(value):
    value = semantic._value(value)
    if is_static(value):
        return not value
    return semantic.invert(_truth(value))
