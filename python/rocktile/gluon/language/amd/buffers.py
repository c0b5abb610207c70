"""Buffer operations of gl.amd.cdna3, cdna4 and gfx1250: loads, stores and
atomics through a scalar base pointer and a tile of 32-bit element offsets.
rocktile addresses every pointer into an argument under 2 GiB (':range32',
what the launcher gives) through a buffer resource already, so each is the
tile language's operation on `ptr + offsets`, with Triton's checks."""
from .... import language as tl
from ....language import semantic
from ....language.semantic import SemanticError, _unwrap


def _describe(x):
    if not isinstance(x, tl.tensor):
        return f"{type(x).__name__} {x!r}"
    return f"a tile of {x.dtype}" if x.type.is_block() else f"a scalar {x.dtype}"


def _address(ptr, offsets, fname):
    """ptr + offsets, after Triton's checks of the two."""
    ptr, offsets = _unwrap(ptr), _unwrap(offsets)
    if not isinstance(ptr, tl.tensor) or ptr.type.is_block() or not ptr.dtype.is_ptr():
        raise SemanticError(f"{fname}'s ptr must be a scalar pointer (the buffer's base), got {_describe(ptr)}")
    if not isinstance(offsets, tl.tensor) or not offsets.type.is_block() or offsets.dtype not in (tl.int32, tl.uint32):
        raise SemanticError(f"{fname}'s offsets must be a tile of int32 or uint32 element offsets, got "
                            f"{_describe(offsets)}")
    return ptr + offsets


def buffer_load(ptr, offsets, mask=None, other=None, cache=None):
    """The elements at `ptr + offsets` (a tile of int32 offsets, in its
    layout); `other` (or zero) where `mask` is false."""
    if _unwrap(other) is not None and _unwrap(mask) is None:
        raise SemanticError("buffer_load: when other is given, mask must be too")
    return tl.load(_address(ptr, offsets, "buffer_load"), mask=mask, other=other, cache_modifier=_unwrap(cache) or "")


def buffer_store(stored_value, ptr, offsets, mask=None, cache=None):
    """Stores `stored_value` at `ptr + offsets` where `mask` is true."""
    tl.store(_address(ptr, offsets, "buffer_store"), stored_value, mask=mask, cache_modifier=_unwrap(cache) or "")


# The element types buffer atomics take, per operation (Triton's table);
# bf16 adds are CDNA4's.
_INTEGERS = (tl.int32, tl.int64)
_ATOMIC_TYPES = {
    "add": (tl.float16, tl.float32, tl.float64, tl.uint32, tl.uint64),
    "max": (tl.int32, tl.int64, tl.float64, tl.uint32, tl.uint64),
    "min": (tl.int32, tl.int64, tl.float64, tl.uint32, tl.uint64),
    "and": _INTEGERS, "or": _INTEGERS, "xor": _INTEGERS, "xchg": _INTEGERS,
}


def buffer_atomics(arch):
    """The buffer_atomic_<op> functions of `arch` ("cdna3" or "cdna4")."""
    def make(op):
        def atomic(ptr, offsets, value, mask=None, sem=None, scope=None):
            fname = f"{arch}.buffer_atomic_{op}"
            address = _address(ptr, offsets, fname)
            elt = address.dtype.element_ty
            allowed = _ATOMIC_TYPES[op] + ((tl.bfloat16,) if op == "add" and arch == "cdna4" else ())
            if elt not in allowed:
                raise SemanticError(f"{fname} does not take {elt} elements; it takes "
                                    f"{', '.join(str(t) for t in allowed)}")
            return semantic.atomic_rmw(op, address, _unwrap(value), _unwrap(mask), sem, scope, fname)
        atomic.__name__ = atomic.__qualname__ = f"buffer_atomic_{op}"
        atomic.__doc__ = (f"Atomically {op} `value` into the elements at `ptr + offsets` where `mask` is true; "
                          "returns what they held before.")
        return atomic
    return {f"buffer_atomic_{op}": make(op) for op in _ATOMIC_TYPES}
