"""`triton.errors`."""
from .runtime.errors import TritonError
