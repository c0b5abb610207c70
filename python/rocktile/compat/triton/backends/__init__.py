"""`triton.backends`: rocktile is the one backend (AMD's gfx950 and gfx1250)."""
import dataclasses

from rocktile.compat import Missing, missing_names

from . import compiler


@dataclasses.dataclass(frozen=True)
class Backend:
    compiler: object
    driver: object


# Triton's registry of installed backends, by name: code that asks which
# devices Triton can compile for (torch's `has_triton`) finds "amd" only.
backends = {"amd": Backend(compiler=Missing("triton.backends.amd.compiler.HIPBackend"),
                           driver=Missing("triton.backends.amd.driver.HIPDriver"))}

__getattr__ = missing_names("triton.backends", {"BaseBackend", "DriverBase", "amd", "nvidia", "driver"})
