"""gl.amd.cdna5: gfx1250's operations (gl.amd.gfx1250 is the same module's names)."""
from .....language import semantic
from .....language.semantic import _unwrap
from . import async_copy, tdm
from ..buffers import buffer_load, buffer_store  # noqa: F401

__all__ = ["async_copy", "buffer_load", "buffer_store", "tdm", "wmma"]


def wmma(a, b, acc):
    """a x b + acc on the WMMA instruction the layouts name: acc in an
    AMDWMMALayout P, a and b in DotOperandLayout(0 and 1, P, k_width)."""
    return semantic.matrix_product(_unwrap(a), _unwrap(b), _unwrap(acc), "wmma")
