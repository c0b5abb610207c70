"""gl.amd.cdna4: gfx950's operations: those of CDNA3 (bf16 buffer atomic
adds besides)."""
from ..buffers import buffer_atomics, buffer_load, buffer_store  # noqa: F401
from ..cdna3 import mfma  # noqa: F401
from . import async_copy

globals().update(buffer_atomics("cdna4"))
__all__ = ["async_copy", "buffer_load", "buffer_store", "mfma", *buffer_atomics("cdna4")]
