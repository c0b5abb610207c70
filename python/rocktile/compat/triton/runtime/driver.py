"""`triton.runtime.driver`: `driver.active` answers what host code asks the
GPU driver (the target, the device, its properties) for the chip rocktile
compiles for (rocktile.get_target()), with or without a GPU."""
import sys

from rocktile.language.target_info import GPUTarget
from rocktile.launcher import WAVE_SIZE, get_device, get_target

# Per chip: what Triton's HIP driver reports from hipGetDeviceProperties.
# MI355X (gfx950): ROCm's GPU hardware specifications table (256 CUs, 160 KiB
# LDS, an 8192-bit HBM bus, 2.4 GHz). MI455X (gfx1250): 320 KiB LDS per workgroup
# is from AMD's gfx1250 ISA facts (shared/DESIGN.md); its CU count is not in
# that table, so 256 here is inferred (as MI355X), and marked so, as are
# the other figures no table here gives.
DEVICE_PROPERTIES = {
    "gfx950": {"max_shared_mem": 160 * 1024, "multiprocessor_count": 256, "max_num_regs": 512,
               "sm_clock_rate": 2400000, "mem_clock_rate": 8000000, "mem_bus_width": 8192,
               "inferred": ("max_num_regs", "mem_clock_rate")},
    "gfx1250": {"max_shared_mem": 320 * 1024, "multiprocessor_count": 256, "max_num_regs": 1024,
                "sm_clock_rate": 2400000, "mem_clock_rate": 10000000, "mem_bus_width": 8192,
                "inferred": ("multiprocessor_count", "max_num_regs", "sm_clock_rate", "mem_clock_rate",
                             "mem_bus_width")},
}


class _Utils:
    @staticmethod
    def get_device_properties(device=0):
        target = get_target()
        return {"arch": target, "warpSize": WAVE_SIZE[target], **DEVICE_PROPERTIES[target]}


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
