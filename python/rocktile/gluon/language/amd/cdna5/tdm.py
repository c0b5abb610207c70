"""gl.amd.gfx1250.tdm: gfx1250's Tensor Data Mover at the explicit level:
block copies from global memory into the author's shared memory, and the
waits that make them readable."""
from .....language import semantic
from .....language.semantic import SemanticError, _unwrap

__all__ = ["async_load", "async_wait", "make_tensor_descriptor"]


def make_tensor_descriptor(base, shape, strides, block_shape, layout):
    """A descriptor of the 2-D tensor at `base` with `shape` and `strides`
    (the last the constant 1), whose blocks of `block_shape` are copied
    into shared memory laid out as `layout` (padded or unswizzled)."""
    return semantic.shared.make_tensor_copy_descriptor(base, shape, strides, block_shape, layout)


def async_load(src, offsets=None, dest=None, pred=None, mbarrier=None, warp_used_hint=None, cache_modifier=""):
    """Starts copying the block of `src` at `offsets` into `dest`; it lands
    at an async_wait that covers it (elements outside the tensor are zero)."""
    for name, value in (("pred", pred), ("mbarrier", mbarrier), ("warp_used_hint", warp_used_hint)):
        if _unwrap(value) is not None:
            raise SemanticError(f"tdm.async_load's {name} is not supported by rocktile yet")
    if _unwrap(offsets) is None:
        raise SemanticError("tdm.async_load needs offsets (update_tensor_descriptor is not supported by rocktile yet)")
    semantic.shared.copy_tensor_block(_unwrap(src), offsets, _unwrap(dest))


def async_wait(num_outstanding=0):
    """Waits until at most `num_outstanding` of this warp's copies are in
    flight (its oldest complete first). Other warps' rows of a block are
    readable after a gl.barrier()."""
    semantic.shared.wait_tensor_copies(num_outstanding)
