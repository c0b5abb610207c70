"""gl.amd.cdna4: gfx950's operations: those of CDNA3 (bf16 buffer atomic
adds besides)."""
from .buffers import buffer_atomics, buffer_load, buffer_store  # noqa: F401
from .cdna3 import mfma  # noqa: F401

globals().update(buffer_atomics("cdna4"))
__all__ = ["buffer_load", "buffer_store", "mfma", *buffer_atomics("cdna4")]
