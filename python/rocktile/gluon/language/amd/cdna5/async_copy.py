"""gl.amd.cdna5.async_copy (and gfx1250.async_copy): gfx1250's asynchronous
loads into LDS (global_load_async_to_lds)."""
from ..copies import commit_group, global_load_to_shared as global_to_shared, not_supported, wait_group  # noqa: F401

shared_to_global = not_supported("shared_to_global", "stores from shared memory come next")
mbarrier_arrive = not_supported("mbarrier_arrive", "rocktile has no mbarriers yet")

__all__ = ["global_to_shared", "shared_to_global", "commit_group", "wait_group", "mbarrier_arrive"]
