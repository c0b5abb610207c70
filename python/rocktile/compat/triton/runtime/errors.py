"""`triton.runtime.errors`."""
from rocktile.errors import CompilationError


class TritonError(Exception):
    """Triton's base error class (triton.errors.TritonError)."""


class OutOfResources(TritonError):
    """Triton's error for a kernel that needs more of a resource (registers,
    shared memory) than the chip has; an autotuner skips such configs.
    rocktile reports these as CompilationError at compile time, so this is
    never raised by rocktile itself."""

    def __init__(self, required, limit, name):
        self.required, self.limit, self.name = required, limit, name
        super().__init__(f"out of resource: {name}, Required: {required}, Hardware limit: {limit}")


class AutotunerError(TritonError):
    pass


class InterpreterError(TritonError):
    pass
