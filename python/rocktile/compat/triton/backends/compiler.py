"""`triton.backends.compiler`."""
from rocktile.compat import missing_names
from rocktile.language.target_info import GPUTarget

__getattr__ = missing_names("triton.backends.compiler", {"BaseBackend", "Language"})
