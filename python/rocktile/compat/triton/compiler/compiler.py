"""`triton.compiler.compiler`."""
from rocktile.compat import missing_names

from . import ASTSource, CompilationError, CompiledKernel, GPUTarget, compile

__getattr__ = missing_names("triton.compiler.compiler", {"IRSource", "LazyDict", "AsmDict", "BaseBackend",
                                                         "get_cache_key", "make_backend", "max_shared_mem"})
