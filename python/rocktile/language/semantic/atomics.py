"""Atomics, their memory orders and scopes, polling, the real-time clock and barriers."""
from __future__ import annotations

from ...errors import SemanticError
from ..types import int64
from .tracing import _typed, current, tensor
from .conversions import _emit, _value, cast, to_tensor
from .shapes import broadcast_to
from .arithmetic import add, and_, equal, floordiv, invert, less, or_
from .memory import _mask, _pointer
from .reductions import reduce


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
