"""gl.amd: AMD's matrix-instruction layouts and, per architecture, the
operations only it has (cdna3 and cdna4: gfx950's MFMA)."""
from ....language.semantic.layouts import AMDMFMALayout
from . import cdna3, cdna4

__all__ = ["AMDMFMALayout", "cdna3", "cdna4"]
