"""`triton.runtime`: the JIT and autotuner names, the active driver and errors."""
from rocktile import Config, JITFunction, TensorWrapper, autotune, heuristics, reinterpret
from rocktile.compat import missing_names
from rocktile.tuning import Autotuner, Heuristics, KernelInterface

from . import autotuner, cache, driver, errors, jit
from .errors import OutOfResources

__getattr__ = missing_names("triton.runtime", {"InterpreterError", "MockTensor", "RedisRemoteCacheBackend",
                                               "RemoteCacheBackend", "build"})
