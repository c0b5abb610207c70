"""Rewriting a kernel's source so that control flow on runtime values can be
traced (DESIGN.md, "Front end").

Tracing runs the kernel as Python, so a Python `if` or `for` would need the
value of a tensor, known only when the kernel runs.  Before the first trace
the function's AST is rewritten:

- `for x in range(...)` / `tl.range(...)` becomes a call to
  `language.control.for_` with the loop body as a nested function; the
  variables the loop carries (assigned in the body and read afterwards or in
  a later iteration) are its parameters and its results.  `tl.static_range`
  and loops over anything else stay Python loops (unrolled while tracing).
- `while cond:` becomes `control.while_` with the condition and the body as
  functions (always traced as scf.while, as in Triton).
- `if cond:` keeps its Python form, used when `cond` is a Python value or a
  constexpr, next to a form with both branches as functions for a runtime
  condition (`control.if_`); which one runs is decided while tracing.
- `and`, `or`, `not`, `a if c else b` and the builtins `min` and `max`
  become calls that behave as Python on Python values and build IR on
  tensors (`min(a, b)` of tensors is `tl.minimum(a, b)`, as in Triton).

Which variables to carry comes from a liveness analysis of the function.
Statements after an `if` with a `return` or `continue` in a branch are moved
to the end of each branch that falls through first, so that early exits
(`if pid >= n: return`, `if skip: continue`, a return nested in an `if` on a
constexpr) need no jump out of a region.
What cannot be expressed (break, a return inside a loop on runtime values)
becomes a call raising a clear error when it is traced.
"""
from __future__ import annotations

import ast
import copy
import inspect
import itertools
import sys
import types

RT = "__rocktile__"  # the name of language.control inside the rewritten function
RET = "__rocktile_return"  # the return value, when returns had to be moved

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef,
           ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


# --------------------------------------------------------------------------
# Names bound and read.

def stored(nodes) -> set:
    """Names bound by `nodes` in their own scope (not inside nested functions
    or comprehensions, whose bindings are their own)."""
    names, todo = set(), list(nodes)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        if isinstance(node, _SCOPES):
            continue
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        todo.extend(ast.iter_child_nodes(node))
    return names


def loaded(nodes) -> set:
    """Names read anywhere in `nodes`, nested functions included."""
    return {n.id for node in nodes for n in ast.walk(node)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


class Liveness:
    """Backward liveness over structured statements.  Records, for each `if`,
    the names live after it, and for each loop the names live at its head
    (after the loop or at the start of another iteration)."""

    def __init__(self):
        self.live_after: dict = {}  # id(If) -> set
        self.live_at_head: dict = {}  # id(For/While) -> set

    def block(self, stmts, out):
        for s in reversed(stmts):
            out = self.stmt(s, out)
        return out

    def stmt(self, s, out):
        if isinstance(s, ast.If):
            self.live_after[id(s)] = out
            return loaded([s.test]) | self.block(s.body, out) | self.block(s.orelse, out)
        if isinstance(s, (ast.For, ast.While)):
            is_for = isinstance(s, ast.For)
            head = self.block(s.orelse, out) | (set() if is_for else loaded([s.test]))
            target = stored([s.target]) if is_for else set()
            while True:  # a fixpoint: what the body reads may come from a previous iteration
                new = head | (self.block(s.body, head) - target)
                if new == head:
                    break
                head = new
            self.live_at_head[id(s)] = head
            return head | (loaded([s.iter, s.target]) if is_for else set())
        if isinstance(s, ast.AugAssign):
            return out | loaded([s]) | stored([s.target])
        if isinstance(s, (ast.Assign, ast.AnnAssign)):
            return (out - stored([s])) | loaded([s])
        if isinstance(s, ast.Return):
            return loaded([s])
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return (out - {s.name}) | loaded([s])
        return out | loaded([s])  # expressions, with, try, ...: nothing is killed for sure


# --------------------------------------------------------------------------
# Early exits: move what follows an exiting branch into the other branch.

def _ends_in_jump(stmts) -> bool:
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, (ast.Return, ast.Continue, ast.Break)):
        return True
    return isinstance(last, ast.If) and _ends_in_jump(last.body) and _ends_in_jump(last.orelse)


def _may_jump(stmts) -> bool:
    """Does a return, or a continue or break of the enclosing loop, lie
    anywhere in `stmts` (not only at their end)?"""
    todo = [(s, False) for s in stmts]
    while todo:
        node, in_loop = todo.pop()
        if isinstance(node, ast.Return) or (isinstance(node, (ast.Continue, ast.Break)) and not in_loop):
            return True
        if isinstance(node, _SCOPES):
            continue
        inner = in_loop or isinstance(node, (ast.For, ast.While))
        todo += [(child, inner) for child in ast.iter_child_nodes(node)]
    return False


def _normalize(stmts, tail):
    """`tail` is 'function' when running off the end of `stmts` returns from
    the function, 'loop' when it starts the next iteration, else None.  A
    jump at such an end is turned into a plain fall-through (a return
    becomes an assignment to RET)."""
    out = []
    for i, s in enumerate(stmts):
        last = i == len(stmts) - 1
        if isinstance(s, ast.If):
            rest = stmts[i + 1:]
            if rest and (_may_jump(s.body) or _may_jump(s.orelse)):
                # What follows runs where a branch falls through: it moves to
                # the end of each such branch (a copy in the second), where a
                # jump nested in the branch then ends its own branch.
                falls = [b for b in (s.body, s.orelse) if not _ends_in_jump(b)]
                if falls and falls[0] is s.body:
                    s.body = s.body + rest
                    falls = falls[1:]
                    rest = copy.deepcopy(rest)
                if falls:
                    s.orelse = s.orelse + rest
                last = True  # the rest now lives in the branches
            s.body = _normalize(s.body, tail if last else None)
            s.orelse = _normalize(s.orelse, tail if last else None)
            out.append(s)
            if last:
                break
        elif isinstance(s, (ast.For, ast.While)):
            s.body = _normalize(s.body, "loop")
            s.orelse = _normalize(s.orelse, None)
            out.append(s)
        elif isinstance(s, ast.Return) and tail == "function":
            value = s.value or ast.Constant(None)
            out.append(ast.copy_location(ast.Assign([ast.Name(RET, ast.Store())], value), s))
            break
        elif isinstance(s, ast.Continue) and tail == "loop":
            out.append(ast.copy_location(ast.Pass(), s))
            break
        else:
            out.append(s)
    return out


# --------------------------------------------------------------------------
# The rewrite.

def _rt(attr, *args, at):
    """A call __rocktile__.attr(*args) located at `at` (a node or a span)."""
    call = ast.Call(ast.Attribute(ast.Name(RT, ast.Load()), attr, ast.Load()), list(args), [])
    return _locate(call, at)


def _locate(node, at):
    """Give `node` and its children without positions the span `at`:
    a node, or (line, col, end_line, end_col)."""
    if isinstance(at, ast.AST):
        at = (at.lineno, at.col_offset, at.end_lineno, at.end_col_offset)
    for n in ast.walk(node):
        if "lineno" in n._attributes and getattr(n, "lineno", None) is None:
            n.lineno, n.col_offset, n.end_lineno, n.end_col_offset = at
    return node


def _header(stmt, end):
    """The span of a compound statement's header: `for x in range(n)`."""
    return stmt.lineno, stmt.col_offset, end.end_lineno, end.end_col_offset


def _lambda(expr):
    args = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                         kwarg=None, defaults=[])
    return ast.copy_location(ast.Lambda(args, expr), expr)


def _names(names, ctx):
    return ast.Tuple([ast.Name(n, ctx()) for n in names], ctx())


def _strs(names):
    return ast.Tuple([ast.Constant(n) for n in names], ast.Load())


def _lookups(names, at):
    """(value of a, value of b, ...), with control.UNDEF for an unbound name."""
    return ast.Tuple([_rt("lookup", _lambda(_locate(ast.Name(n, ast.Load()), at)), at=at) for n in names],
                     ast.Load())


def _function(name, params, body, results, at):
    args = ast.arguments(posonlyargs=[], args=[ast.arg(p) for p in params], vararg=None, kwonlyargs=[],
                         kw_defaults=[], kwarg=None, defaults=[])
    extra = {"type_params": []} if sys.version_info >= (3, 12) else {}
    ret = ast.Return(_names(results, ast.Load))
    fn = ast.FunctionDef(name, args, body + [ret], [], None, **extra)
    return _locate(fn, at)


def _bind(names, call):
    """`(a, b) = call` or just `call` when nothing is bound."""
    if not names:
        return ast.Expr(call)
    return ast.Assign([_names(names, ast.Store)], call)


def _assigns_names(s) -> bool:
    """Does `s` bind names only (not subscripts or attributes), without a
    tl.constexpr annotation?"""
    if isinstance(s, ast.AnnAssign):
        ann = s.annotation
        constexpr = (isinstance(ann, ast.Attribute) and ann.attr == "constexpr") or \
            (isinstance(ann, ast.Name) and ann.id == "constexpr")
        return s.value is not None and not constexpr and isinstance(s.target, ast.Name)
    if isinstance(s, ast.AugAssign):
        return isinstance(s.target, ast.Name)
    if any(isinstance(t, ast.Name) and t.id == RET for t in s.targets):
        return False  # a function's return value, as the rewrite moves it

    def names_only(t):
        return isinstance(t, ast.Name) or (isinstance(t, (ast.Tuple, ast.List)) and all(map(names_only, t.elts)))
    return all(map(names_only, s.targets))


class _Expressions(ast.NodeTransformer):
    """and / or / not / conditional expressions, and the builtins min and
    max, that also work on tensors."""

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id in ("min", "max"):
            # whatever the name means here: control.min_max decides
            call = _rt("min_max", node.func, *node.args, at=node)
            call.keywords = node.keywords
            return call
        return node

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        attr = "and_" if isinstance(node.op, ast.And) else "or_"
        return _rt(attr, *(_lambda(v) for v in node.values), at=node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return _rt("not_", node.operand, at=node)
        return node

    def visit_IfExp(self, node):
        self.generic_visit(node)
        return _rt("ifexp", node.test, _lambda(node.body), _lambda(node.orelse), at=node)


class _Context:
    """Where a statement is: inside a function made by the rewrite
    (`in_function`), the innermost loop's kind ('static', 'dynamic' or None)
    and whether a branch function on a runtime condition lies between the
    statement and that loop (`boundary`)."""

    def __init__(self, in_function=False, loop=None, boundary=False):
        self.in_function, self.loop, self.boundary = in_function, loop, boundary


class Rewriter:
    def __init__(self, liveness: Liveness):
        self.liveness = liveness
        self.ids = itertools.count()

    def expr(self, node):
        return _Expressions().visit(copy.deepcopy(node))

    def block(self, stmts, ctx):
        out = [new for s in stmts for new in self.stmt(s, ctx)]
        return out or [ast.Pass()]

    def stmt(self, s, ctx):
        if isinstance(s, ast.If):
            return self.if_(s, ctx)
        if isinstance(s, ast.For):
            if _is_dynamic_range(s.iter):
                return self.for_(s, ctx)
            loop = ast.For(s.target, self.expr(s.iter), self.block(s.body, _Context(ctx.in_function, "static")),
                           self.block(s.orelse, ctx) if s.orelse else [])
            return [ast.copy_location(loop, s)]
        if isinstance(s, ast.While):
            return self.while_(s, ctx)
        if isinstance(s, (ast.Break, ast.Continue)):
            word = "break" if isinstance(s, ast.Break) else "continue"
            if ctx.loop == "dynamic":
                hint = ("use a while loop with a condition" if word == "break" else
                        "put the rest of the body under an `if` instead (or end a branch with it)")
                return [self.fail(f"{word} is not supported in a dynamic loop; {hint}", s)]
            if ctx.boundary:
                return [self.fail(f"{word} inside an `if` on a runtime condition cannot leave a loop that "
                                  "is unrolled while compiling (tl.static_range or a Python loop)", s)]
            return [s]
        if isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and _assigns_names(s):
            return [self.assignment(s)]
        if isinstance(s, ast.Return) and ctx.in_function:
            return [self.fail("`return` inside a loop or an `if` on runtime values is only supported "
                              "where nothing else in the function would run after it (e.g. "
                              "`if pid >= n: return` at the kernel's top level); restructure with if/else", s)]
        return [self.expr(s)]

    def assignment(self, s):
        """A Python number assigned to a name becomes a scalar tensor, as in
        Triton (control.assigned): `x = v` is `x = assigned(v)` and `x op= v`
        is `x = assigned(x op v)`; a `tl.constexpr` annotation keeps it a
        Python value."""
        s = self.expr(s)
        if isinstance(s, ast.AugAssign):
            value = ast.BinOp(ast.Name(s.target.id, ast.Load()), s.op, s.value)
            return ast.copy_location(ast.Assign([s.target], _rt("assigned", value, at=s)), s)
        s.value = _rt("assigned", s.value, at=s)
        return s

    def fail(self, message, at):
        return ast.Expr(_rt("fail", ast.Constant(message), at=at))

    def if_(self, s, ctx):
        n = next(self.ids)
        cond = f"__rocktile_cond{n}"
        test = ast.Assign([ast.Name(cond, ast.Store())], self.expr(s.test))
        static = ast.If(ast.Name(cond, ast.Load()), self.block(s.body, ctx),
                        self.block(s.orelse, ctx) if s.orelse else [])
        # The branches as functions of every variable they assign (a branch
        # may read a variable before assigning it); they return the ones
        # live after the `if`, which control.if_ merges.
        assigned = sorted(stored(s.body + s.orelse))
        results = [v for v in assigned if v in self.liveness.live_after[id(s)]]
        inner = _Context(True, ctx.loop, ctx.loop is not None)
        span = _header(s, s.test)
        then = _function(f"__rocktile_then{n}", assigned, self.block(s.body, inner), results, s)
        orelse = _function(f"__rocktile_else{n}", assigned, self.block(s.orelse, inner), results, s)
        call = _rt("if_", ast.Name(cond, ast.Load()), ast.Name(then.name, ast.Load()),
                   ast.Name(orelse.name, ast.Load()), _lookups(assigned, span), _strs(results), at=span)
        choose = ast.If(_rt("is_static", ast.Name(cond, ast.Load()), at=span), [static],
                        [then, orelse, _bind(results, call)])
        return [_locate(test, span), _locate(choose, s)]

    def carried(self, s, body_names):
        return sorted(body_names & self.liveness.live_at_head[id(s)])

    def for_(self, s, ctx):
        n = next(self.ids)
        span = _header(s, s.iter)
        if not isinstance(s.target, ast.Name):
            return [self.fail("the variable of a loop over range() must be a single name", s.target)]
        iv = s.target.id
        carried = self.carried(s, stored(s.body) - {iv})
        body = self.block(s.body, _Context(True, "dynamic"))
        fn = _function(f"__rocktile_for{n}", [iv] + carried, body, carried, s)
        it = self.expr(s.iter)
        kwargs = ast.Dict([ast.Constant(k.arg) if k.arg else None for k in it.keywords],
                          [k.value for k in it.keywords])
        call = _rt("for_", it.func, ast.Tuple(it.args, ast.Load()), kwargs, ast.Name(fn.name, ast.Load()),
                   _lookups(carried, span), _strs(carried), at=span)
        return [fn, _locate(_bind(carried, call), s)] + (self.block(s.orelse, ctx) if s.orelse else [])

    def while_(self, s, ctx):
        n = next(self.ids)
        span = _header(s, s.test)
        carried = self.carried(s, stored(s.body))
        cond = _function(f"__rocktile_while_cond{n}", carried, [], [], s.test)
        cond.body = [_locate(ast.Return(self.expr(s.test)), s.test)]
        body = _function(f"__rocktile_while{n}", carried, self.block(s.body, _Context(True, "dynamic")),
                         carried, s)
        call = _rt("while_", ast.Name(cond.name, ast.Load()), ast.Name(body.name, ast.Load()),
                   _lookups(carried, span), _strs(carried), at=span)
        return [cond, body, _locate(_bind(carried, call), s)] + (self.block(s.orelse, ctx) if s.orelse else [])


def _is_dynamic_range(node) -> bool:
    """`range(...)` or `<anything>.range(...)`: traced as scf.for."""
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    return (isinstance(f, ast.Name) and f.id == "range") or (isinstance(f, ast.Attribute) and f.attr == "range")


# --------------------------------------------------------------------------
# From a function to its rewritten twin.

def _parse(fn):
    """The FunctionDef of `fn`, with line numbers and columns as in its file."""
    lines, first = inspect.getsourcelines(fn)
    source = "".join(lines)
    indented = lines[0][:1].isspace()
    if indented:  # a nested or method-level def: parse it as the body of an `if`
        source = "if 1:\n" + source
    tree = ast.parse(source)
    ast.increment_lineno(tree, first - 1 - int(indented))
    node = tree.body[0].body[0] if indented else tree.body[0]
    if not isinstance(node, ast.FunctionDef) or node.name != fn.__name__:
        raise ValueError("the source found is not the function's own definition")
    return node


def _code_objects(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_objects(const)


def rewrite(fn, control, kernel_codes):
    """The function `fn` with dynamic control flow rewritten as calls into
    `control` (rocktile.language.control).  The code objects made are added
    to `kernel_codes`, so that ops and errors get their source positions.
    Returns `fn` itself when its source is not available."""
    try:
        node = _parse(fn)
    except (OSError, TypeError, SyntaxError, ValueError, IndexError):
        return fn  # e.g. defined in an interactive session: no dynamic control flow
    node.decorator_list = []
    node.returns = None
    args = node.args
    for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
        if a is not None:
            a.annotation = None
    args.defaults, args.kw_defaults = [], [None] * len(args.kwonlyargs)  # taken from fn below

    returns = [s for s in ast.walk(node) if isinstance(s, ast.Return)]
    if returns and returns != [node.body[-1]]:
        # Returns inside branches: each becomes `RET = value` at the end of a
        # branch, and the function returns RET at its end.
        first = node.body[0]
        body = _normalize(node.body, "function")
        init = _locate(ast.Assign([ast.Name(RET, ast.Store())], ast.Constant(None)), first)
        node.body = [init] + body + [_locate(ast.Return(ast.Name(RET, ast.Load())), node.body[-1])]
    elif any(isinstance(s, ast.Continue) for s in ast.walk(node)):
        node.body = _normalize(node.body, None)

    liveness = Liveness()
    liveness.block(node.body, set())
    node.body = Rewriter(liveness).block(node.body, _Context())

    # Compile it inside a function whose parameters are the closure's names,
    # so that they stay free variables bound to fn's own cells.
    freevars = fn.__code__.co_freevars
    maker_args = ast.arguments(posonlyargs=[], args=[ast.arg(v) for v in (RT, *freevars)], vararg=None,
                               kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    extra = {"type_params": []} if sys.version_info >= (3, 12) else {}
    maker = ast.FunctionDef("__rocktile_make", maker_args, [node, ast.Return(ast.Name(node.name, ast.Load()))],
                            [], None, **extra)
    module = ast.fix_missing_locations(ast.Module([_locate(maker, node)], []))
    code = compile(module, fn.__code__.co_filename, "exec", dont_inherit=True)
    maker_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    kernel_code = next(c for c in maker_code.co_consts
                       if isinstance(c, types.CodeType) and c.co_name == fn.__name__)
    cells = dict(zip(freevars, fn.__closure__ or ()))
    cells[RT] = types.CellType(control)
    new = types.FunctionType(kernel_code, fn.__globals__, fn.__name__, fn.__defaults__,
                             tuple(cells[v] for v in kernel_code.co_freevars))
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__qualname__ = fn.__qualname__
    kernel_codes.update(_code_objects(kernel_code))
    return new
