"""Launching kernels: `kernel[grid](*args)`.

Without an AMD GPU (or with ROCKTILE_DEVICE=emulator) a launch runs the
compiled program in rocktile's CPU emulator, which writes results into the
caller's arrays; with one (or ROCKTILE_DEVICE=hip) it goes through HIP
(rocktile.runtime). The emulated target comes from the
`target=` launch option, `rocktile.set_target(...)`, `ROCKTILE_TARGET`, or
gfx950, in that order.
"""
from __future__ import annotations

import os

import numpy as np

from . import compiler
from .errors import EmulatorError

_target = None
WAVE_SIZE = {"gfx950": 64, "gfx1250": 32}


def set_target(target: str | None):
    """Choose the target that launches compile for (None: back to the default)."""
    if target is not None:
        compiler.check_target(target)
    global _target
    _target = target


def get_target() -> str:
    target = _target or os.environ.get("ROCKTILE_TARGET") or compiler.DEFAULT_TARGET
    compiler.check_target(target)
    return target


def get_device() -> str:
    """Where launches run: ROCKTILE_DEVICE (hip or emulator), else HIP when
    the machine has an AMD GPU driver (/dev/kfd), else the emulator."""
    device = os.environ.get("ROCKTILE_DEVICE") or ("hip" if os.path.exists("/dev/kfd") else "emulator")
    if device not in ("emulator", "hip"):
        raise ValueError(f"ROCKTILE_DEVICE must be 'emulator' or 'hip', got {device!r}")
    return device


def _launch_arg(value, name):
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        return ("int", name, int(value))
    if isinstance(value, int):
        # A u64 argument's bits, as the int64 the kernel argument holds.
        return ("int", name, value - (1 << 64) if value >= 1 << 63 else value)
    if isinstance(value, float):
        return ("float", name, value)
    if isinstance(value, compiler.TensorWrapper):
        value = value.base
    if isinstance(value, np.ndarray) or hasattr(value, "data_ptr"):
        if getattr(value, "device", None) is not None and str(value.device) != "cpu":
            raise TypeError(f"kernel argument '{name}' lives on {value.device}; the emulator needs CPU memory")
        return ("buffer", name, *compiler.buffer_extent(value, name))
    raise TypeError(f"cannot pass {type(value).__name__} as kernel argument '{name}'")


def _grid(grid, meta):
    grid = grid(meta) if callable(grid) else grid
    if isinstance(grid, int):
        grid = (grid,)
    grid = tuple(int(g) for g in grid)
    if not 1 <= len(grid) <= 3:
        raise ValueError(f"a grid has 1 to 3 dimensions, got {grid}")
    return grid + (1,) * (3 - len(grid))


class Launcher:
    """`kernel[grid]`: call it with the kernel's arguments."""

    def __init__(self, fn, grid):
        self.fn, self.grid = fn, grid

    def __call__(self, *args, num_warps=4, num_stages=None, target=None, **kwargs):
        device = get_device()
        target = target or get_target()
        options, kwargs = self.fn.split_launch_kwargs(args, kwargs, num_warps, num_stages)
        bound = self.fn.signature.bind(*args, **kwargs)
        bound.apply_defaults()
        spec = self.fn.specialize_bound(bound.arguments, target, num_warps, options)
        kernel = self.fn.compile_specialization(spec, emulator_ok=device == "emulator")
        grid = _grid(self.grid, dict(bound.arguments))
        if device == "hip":
            from . import runtime
            runtime.hip().launch(kernel, grid, [bound.arguments[a.name] for a in spec.args])
            return kernel
        launch_args = [_launch_arg(bound.arguments[a.name], a.name) for a in spec.args]
        try:
            kernel.emulator().launch(grid, launch_args, os.cpu_count() or 1)
        except compiler.load_C().EmulatorFault as e:
            raise EmulatorError(str(e)) from None
        return kernel
