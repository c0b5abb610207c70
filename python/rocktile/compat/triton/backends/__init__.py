"""`triton.backends`: rocktile is the one backend (AMD's gfx950 and gfx1250)."""
from rocktile.compat import missing_names

from . import compiler

__getattr__ = missing_names("triton.backends", {"Backend", "BaseBackend", "DriverBase", "backends", "amd",
                                                "nvidia", "driver"})
