"""Asynchronous copies from global into shared memory, as cdna4.async_copy
(gfx950: direct-to-LDS buffer loads) and cdna5.async_copy (gfx1250:
global_load_async_to_lds) name them: started per warp, closed into groups
by commit_group, waited for by wait_group. The compiler places the barrier
that makes other warps' copies readable (tile-insert-barriers)."""
from ....language import semantic
from ....language.semantic import SemanticError, _unwrap
from .buffers import _address


def global_load_to_shared(dest, ptr, mask=None, other=None, cache_modifier=""):
    """Starts loading the elements a tile of pointers (in any layout)
    addresses into `dest`; masked-off elements land as zeros."""
    semantic.shared.load_to_shared(_unwrap(dest), _unwrap(ptr), _unwrap(mask), other, "global_load_to_shared")


def buffer_load_to_shared(dest, ptr, offsets, mask=None, other=None, cache_modifier=""):
    """global_load_to_shared of `ptr + offsets` (a scalar base pointer and
    a tile of 32-bit element offsets)."""
    semantic.shared.load_to_shared(_unwrap(dest), _address(ptr, offsets, "buffer_load_to_shared"), _unwrap(mask),
                                   other, "buffer_load_to_shared")


def commit_group():
    """Closes the group of this warp's copies started since the last commit."""
    semantic.shared.commit_group()


def wait_group(num_outstanding=0):
    """Waits until at most `num_outstanding` of this warp's newest groups are
    in flight; copies not yet committed are waited for too."""
    semantic.shared.wait_groups(num_outstanding, "async_copy.wait_group")


def load_shared_relaxed(smem, layout):
    """smem.load(layout): the barriers rocktile places do not wait for
    copies, so there is nothing to relax."""
    return _unwrap(smem).load(layout)


def not_supported(name, why):
    def fail(*args, **kwargs):
        raise SemanticError(f"async_copy.{name} is not supported by rocktile yet: {why}")
    fail.__name__ = fail.__qualname__ = name
    return fail
