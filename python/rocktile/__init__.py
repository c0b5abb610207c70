"""rocktile: a Triton-compatible tile language and MLIR compiler for AMD
gfx950 and gfx1250.

    import rocktile
    import rocktile.language as tl

    @rocktile.jit
    def kernel(x_ptr, n, BLOCK: tl.constexpr): ...

    k = rocktile.compile(kernel, signature={"x_ptr": "*fp32:16", "n": "i32"},
                         constexprs={"BLOCK": 1024}, target="gfx950")
    k.asm["amdgcn"], k.hsaco, k.metadata
"""
from . import language
from .tuning import Config, autotune, heuristics
from .buffers import DeviceBuffer, TensorWrapper, reinterpret, uninitialized
from .compiler import compile
from .kernel import CompiledKernel
from .errors import CompilationError, CompilationWarning, EmulatorError
from .jit import JITFunction, jit
from .launcher import get_target, set_target
from .version import __version__
from .language.core import cdiv, constexpr, constexpr_function


def next_power_of_2(n: int) -> int:
    """The smallest power of two >= n (1 for n <= 1)."""
    n = int(n)
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


__all__ = ["jit", "compile", "cdiv", "autotune", "Config", "heuristics", "next_power_of_2", "CompilationError", "CompilationWarning", "EmulatorError",
           "CompiledKernel", "DeviceBuffer", "TensorWrapper", "reinterpret", "uninitialized", "set_target", "get_target",
           "JITFunction", "language", "constexpr", "constexpr_function"]
