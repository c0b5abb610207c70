"""gl.amd.cdna3: the MFMA and buffer operations that gfx950 (CDNA4) inherits from CDNA3."""
from .....language import semantic
from .....language.semantic import _unwrap
from ..buffers import buffer_atomics, buffer_load, buffer_store

globals().update(buffer_atomics("cdna3"))
__all__ = ["buffer_load", "buffer_store", "mfma", *buffer_atomics("cdna3")]


def mfma(a, b, acc, cd_regclass=None):
    """a x b + acc on the MFMA instruction the layouts name: acc in an
    AMDMFMALayout P, a and b in DotOperandLayout(0 and 1, P, k_width).
    `cd_regclass` (accumulator registers: "a" or "v") is a hint rocktile
    leaves to the compiler."""
    if _unwrap(cd_regclass) not in (None, "a", "v"):
        raise semantic.SemanticError(f"cd_regclass must be 'a', 'v' or None, got {_unwrap(cd_regclass)!r}")
    return semantic.matrix_product(_unwrap(a), _unwrap(b), _unwrap(acc), "mfma")
