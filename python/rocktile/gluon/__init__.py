"""rocktile.gluon: the explicit level, Triton's Gluon on rocktile.

    from rocktile import gluon
    import rocktile.gluon.language as gl

    @gluon.jit
    def kernel(x_ptr, n, BLOCK: gl.constexpr, layout: gl.constexpr):
        offs = gl.program_id(0) * BLOCK + gl.arange(0, BLOCK, layout=layout)
        ...

A @gluon.jit kernel gives every tile its layout; the compiler keeps them
as written and checks them, and launches and compiles as a @rocktile.jit
kernel does (in the CPU emulator where there is no GPU). docs/gluon.md
lists the surface per chip and what differs from Triton's Gluon."""
from ..jit import JITFunction, decorator
from ..language.core import constexpr_function
from . import language

__all__ = ["GluonJITFunction", "constexpr_function", "jit", "language"]


class GluonJITFunction(JITFunction):
    """A kernel of the explicit level: traced with every tile's layout kept."""

    explicit = True

    def __repr__(self):
        return f"GluonJITFunction({self.fn.__module__}:{self.fn.__qualname__})"

    def is_gluon(self):
        return True


jit = decorator(GluonJITFunction)
jit.__doc__ = """Decorator making a Python function a kernel of the explicit level:
    `@gluon.jit` or `@gluon.jit(do_not_specialize=["n"])`."""
