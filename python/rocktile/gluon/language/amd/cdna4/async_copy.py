"""gl.amd.cdna4.async_copy: gfx950's direct-to-LDS loads (buffer_load ... lds)."""
from ..copies import (buffer_load_to_shared, commit_group, global_load_to_shared,  # noqa: F401
                      load_shared_relaxed, wait_group)

__all__ = ["global_load_to_shared", "buffer_load_to_shared", "commit_group", "wait_group", "load_shared_relaxed"]
