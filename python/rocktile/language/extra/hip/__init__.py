"""tl.extra.hip.libdevice: the same functions as tl.extra.libdevice."""
from .. import libdevice

__all__ = ["libdevice"]
