"""tl.extra: Triton's vendor namespaces. `libdevice` is the one rocktile has;
`extra.cuda.libdevice` and `extra.hip.libdevice` name the same module, as
kernels written for either backend import it."""
from . import libdevice

__all__ = ["libdevice"]
