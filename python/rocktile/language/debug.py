"""Debugging and compiler hints: device_print, device_assert, multiple_of,
max_contiguous, max_constancy. The printing and checking ones run in the
emulator; compiling them for hardware is an error at their line."""
import json

from . import core, semantic


def _string_attr(text: str) -> str:
    return json.dumps(str(text))  # MLIR string literals use JSON's escapes


def device_print(prefix, *args, hex=False):
    """Print each element of each argument with the program id and the
    element's index (scalars once per program), after `prefix`; with
    hex=True, as the hexadecimal of their bits."""
    hex = semantic._unwrap(hex)
    values = [semantic.to_tensor(a) for a in args]
    if any(v.dtype.is_ptr() for v in values):
        raise semantic.SemanticError("tl.device_print cannot print pointers")
    if not hex:
        # printf sees only widths: unsigned values are printed as int64.
        values = [semantic.cast(v, core.uint64) if v.dtype.is_int_unsigned() and not v.dtype.is_bool() else v
                  for v in values]
    prefix = str(semantic._unwrap(prefix))
    if values and not prefix.endswith(" "):
        prefix += " "
    attrs = {"prefix": _string_attr(prefix)}
    if hex:
        attrs["hex"] = "unit"
    semantic.current().create("tile.print", values, [], attrs)


def device_assert(cond, msg=""):
    """Fail the launch with `msg` and this line if any element of `cond` is
    false."""
    cond = semantic.to_tensor(cond)
    if not cond.dtype.is_bool():
        cond = semantic.not_equal(cond, 0)
    semantic.current().create("tile.assert", [cond], [],
                              {"message": _string_attr(semantic._unwrap(msg))})


def expect_zero(x, mask):
    """`x`, whose elements are expected to have underflowed to zero where
    `mask` is true. Triton checks that only in debug builds, which rocktile
    has not (a check would keep the kernel from compiling for hardware)."""
    semantic.to_tensor(mask)
    return semantic.to_tensor(x)


def _hint(x, values, field, fname):
    x = semantic.to_tensor(x)
    if not (x.dtype.is_int() or x.dtype.is_ptr()):
        raise semantic.SemanticError(f"{fname} takes an integer or pointer tensor, got {x.dtype}")
    values = semantic._unwrap(values)
    values = [semantic._unwrap(v) for v in (values if isinstance(values, (list, tuple)) else [values])]
    rank = max(len(x.shape), 1)
    if len(values) == 1 and rank > 1:
        values = values * rank
    if len(values) != rank or not all(isinstance(v, int) and v > 0 and v & (v - 1) == 0 for v in values):
        raise semantic.SemanticError(f"{fname} needs one power of two per dimension ({rank}), got {values}")
    attr = f"array<i64: {', '.join(str(v) for v in values)}>"
    return semantic._emit("tile.assume", [x], x.type, {field: attr})


def multiple_of(input, values):
    """Promise that the first element of each run is a multiple of `values`."""
    return _hint(input, values, "divisibility", "tl.multiple_of")


def max_contiguous(input, values):
    """Promise that elements come in runs of `values` consecutive integers."""
    return _hint(input, values, "contiguity", "tl.max_contiguous")


def max_constancy(input, values):
    """Promise that elements come in runs of `values` equal integers."""
    return _hint(input, values, "constancy", "tl.max_constancy")


def assume(cond):
    """A promise that `cond` holds (Triton lowers it to llvm.assume). rocktile
    checks that it is a condition and does not use it yet: the promises it
    uses are multiple_of, max_contiguous and max_constancy."""
    cond = semantic._unwrap(cond)
    if isinstance(cond, core.tensor):
        if not (cond.dtype.is_bool() or cond.dtype.is_int()):
            raise semantic.SemanticError(f"tl.assume takes a condition, got a tensor of {cond.dtype}")
    elif not isinstance(cond, (bool, int)):
        raise semantic.SemanticError(f"tl.assume takes a condition, got {cond!r}")
