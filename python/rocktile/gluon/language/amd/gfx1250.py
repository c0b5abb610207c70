"""gl.amd.gfx1250: gfx1250's operations, as gl.amd.cdna5 names them."""
from .cdna5 import (__all__, async_copy, buffer_load, buffer_store, get_wmma_scale_layout, tdm, wmma,
                    wmma_scaled)  # noqa: F401
