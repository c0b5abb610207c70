"""`triton.runtime.driver`: `driver.active` answers what host code asks the
GPU driver (the target, the device, its properties) for the chip rocktile
compiles for (rocktile.get_target()), with or without a GPU."""
import sys

from rocktile.chips import device_properties
from rocktile.language.target_info import GPUTarget
from rocktile.launcher import WAVE_SIZE, get_device, get_target

class _Utils:
    @staticmethod
    def get_device_properties(device=0):
        target = get_target()
        # What Triton's HIP driver reports from hipGetDeviceProperties
        # (rocktile.chips gives the sources).
        return {"arch": target, "warpSize": WAVE_SIZE[target], **device_properties(target)}


class ActiveDriver:
    utils = _Utils()

    @staticmethod
    def get_current_target():
        target = get_target()
        return GPUTarget("hip", target, WAVE_SIZE[target])

    @staticmethod
    def get_current_device():
        return 0

    @staticmethod
    def set_current_device(device):
        pass

    @staticmethod
    def get_current_stream(device=None):
        return 0

    @staticmethod
    def get_active_torch_device():
        """cuda (ROCm's torch names AMD GPUs so) on the device path, else the CPU,
        whose tensors the emulator reads."""
        import torch
        return torch.device("cuda" if get_device() == "hip" else "cpu")

    @staticmethod
    def is_active():
        return True


active = default = ActiveDriver()


def set_active(driver):
    pass


def reset_active():
    pass


# `from triton.runtime.driver import driver` and `triton.runtime.driver`
# are this module both, so `driver.active` reads the same either way.
driver = sys.modules[__name__]
