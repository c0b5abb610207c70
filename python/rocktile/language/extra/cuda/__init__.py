"""tl.extra.cuda.libdevice: the same functions as tl.extra.libdevice, also
imported as the module `rocktile.language.extra.cuda.libdevice`."""
import sys

from .. import libdevice

sys.modules[__name__ + ".libdevice"] = libdevice

__all__ = ["libdevice"]
