"""`triton.runtime.autotuner`."""
from rocktile import Config, autotune, heuristics
from rocktile.tuning import Autotuner, Heuristics

from .errors import OutOfResources
