"""gl.amd: AMD's matrix-instruction layouts and, per architecture, the
operations only it has (cdna3 and cdna4: gfx950's MFMA; cdna5 and gfx1250:
gfx1250's WMMA)."""
from ....language.semantic.layouts import AMDMFMALayout, AMDWMMALayout
from . import cdna3, cdna4, cdna5, gfx1250

__all__ = ["AMDMFMALayout", "AMDWMMALayout", "cdna3", "cdna4", "cdna5", "gfx1250"]
