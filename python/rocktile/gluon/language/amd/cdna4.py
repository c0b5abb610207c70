"""gl.amd.cdna4: gfx950's operations (those of CDNA3, so far)."""
from .cdna3 import mfma

__all__ = ["mfma"]
