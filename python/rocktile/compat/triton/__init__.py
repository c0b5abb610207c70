"""`triton` under rocktile.compat.install(): Triton 3.9's top-level names,
given by rocktile."""
from rocktile import (CompilationError, Config, JITFunction, TensorWrapper, autotune, cdiv, constexpr_function,
                      heuristics, jit, language, next_power_of_2, reinterpret)
from rocktile.compat import TRITON_VERSION, missing_names
from rocktile.tuning import KernelInterface

from . import backends, compiler, errors, runtime, testing
from .compiler import compile
from .runtime.errors import OutOfResources, TritonError

__version__ = TRITON_VERSION

_allocator = None


def set_allocator(allocator):
    """Triton's allocator for the scratch memory some kernels ask for (its
    tensor descriptors on NVIDIA): kept, and not called, since rocktile's
    descriptors need none."""
    global _allocator
    _allocator = allocator


def must_use_result(fn):
    """Triton's marker for functions whose result must be used: the function itself."""
    return fn


__getattr__ = missing_names("triton", {"AsyncCompileMode", "FutureKernel", "InterpreterError", "MockTensor",
                                       "aggregate", "knobs", "tools"})
