"""`triton.runtime.cache`: `triton_key`, which tools that cache what they
build on Triton (torch's inductor) key their caches by."""
import functools

from rocktile import cache
from rocktile.compat import TRITON_VERSION, missing_names


@functools.cache
def triton_key():
    """Changes whenever rocktile's compiler does (its version, C++ library and Python sources)."""
    return f"rocktile-as-triton-{TRITON_VERSION}-{cache.compiler_key()}"


__getattr__ = missing_names("triton.runtime.cache", {"CacheManager", "FileCacheManager", "RemoteCacheBackend",
                                                     "get_cache_manager", "get_dump_manager", "get_override_manager",
                                                     "default_cache_dir", "default_dump_dir", "default_override_dir",
                                                     "make_so_cache_key"})
