"""Launching kernels: `kernel[grid](*args)`.

Without an AMD GPU (or with ROCKTILE_DEVICE=emulator) a launch runs the
compiled program in rocktile's CPU emulator, which writes results into the
caller's arrays; with one (or ROCKTILE_DEVICE=hip) it goes through HIP
(rocktile.runtime). The target comes from the `target=` launch option,
`rocktile.set_target(...)`, `ROCKTILE_TARGET`, the HIP device's
architecture (on the device path), or gfx950, in that order.
`compiled_kernel[grid](*args)` launches a kernel compiled for a fixed
signature, checking the arguments against it.
"""
from __future__ import annotations

import os

import numpy as np

from . import buffers, chips, compiler
from .errors import EmulatorError

_target = None
WAVE_SIZE = {"gfx950": 64, "gfx1250": 32}


def set_target(target: str | None):
    """Choose the target that launches compile for (None: back to the default)."""
    if target is not None:
        compiler.check_target(target)
    global _target
    _target = target
    from . import _launch
    _launch.invalidate()


def get_target() -> str:
    """The target launches compile for: set_target's, else ROCKTILE_TARGET,
    else the current device's architecture on the device path, else gfx950."""
    target = _target or os.environ.get("ROCKTILE_TARGET")
    if not target and get_device() == "hip":
        from . import runtime
        target = runtime.hip().arch()
        if target not in compiler.load_C().targets():
            raise ValueError(f"the current HIP device is a {target}; rocktile compiles for "
                             f"{', '.join(compiler.load_C().targets())}")
    target = target or compiler.DEFAULT_TARGET
    compiler.check_target(target)
    return target


def get_device() -> str:
    """Where launches run: ROCKTILE_DEVICE (hip or emulator), else HIP when
    the machine has an AMD GPU driver (/dev/kfd), else the emulator."""
    device = os.environ.get("ROCKTILE_DEVICE") or ("hip" if os.path.exists("/dev/kfd") else "emulator")
    if device not in ("emulator", "hip"):
        raise ValueError(f"ROCKTILE_DEVICE must be 'emulator' or 'hip', got {device!r}")
    return device


def _emulator_arg(value, spec):
    """A runtime argument as the emulator takes it: a buffer (host memory)
    or a scalar of the spec's kind."""
    name = spec.name
    if spec.type.is_ptr():
        if isinstance(value, int):
            raise TypeError(f"kernel argument '{name}' is an address; the emulator reads host memory (numpy "
                            "arrays, CPU tensors), and device addresses need the device path (ROCKTILE_DEVICE=hip)")
        b = buffers.describe(value, name)
        if b.device is not None:
            raise TypeError(f"kernel argument '{name}' is memory of HIP device {b.device}; the emulator needs "
                            "host memory (numpy arrays, CPU tensors)")
        return ("buffer", name, b.address, b.elements, buffers.initcheck_flags(b))
    if isinstance(value, np.generic):
        value = value.item()
    if spec.type.is_floating():
        return ("float", name, float(value))
    # A u64 argument's bits, as the int64 the kernel argument holds.
    value = int(value)
    return ("int", name, value - (1 << 64) if value >= 1 << 63 else value)


def check_args(kernel, values):
    """Checks `values` against the signature `kernel` was compiled for: the
    dtype a pointer points to, the 16-byte alignment and 32-bit range the
    signature claims, a scalar's kind and range."""
    for spec, value in zip(kernel.specialization.args, values):
        where = f"kernel argument '{spec.name}' (signature {spec})"
        if spec.type.is_ptr():
            if isinstance(value, bool) or not (isinstance(value, int) or buffers.is_pointer_value(value)):
                raise TypeError(f"{where}: expected an array, a tensor or a device address, got "
                                f"{type(value).__name__}")
            if isinstance(value, int):
                address = value
            else:
                b = buffers.describe(value, spec.name)
                dtype = value.dtype if isinstance(value, buffers.TensorWrapper) else \
                    compiler.array_dtype(b.dtype, spec.name)
                if dtype != spec.type.element_ty:
                    raise TypeError(f"{where}: got {b.dtype} elements")
                if spec.range32 and b.elements * b.itemsize >= 2**31:
                    raise ValueError(f"{where}: the signature claims the buffer is under 2 GiB, but "
                                     f"{b.elements * b.itemsize} bytes follow its address")
                address = b.address
            if spec.divisible_by_16 and address % 16:
                raise ValueError(f"{where}: the signature claims 16-byte alignment, but the address {address:#x} "
                                 "is not")
            continue
        value = value.item() if isinstance(value, np.generic) else value
        ty = spec.type
        if ty.is_floating():
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"{where}: expected a number, got {type(value).__name__}")
            continue
        if not isinstance(value, int):
            raise TypeError(f"{where}: expected an int, got {type(value).__name__}")
        bits = ty.primitive_bitwidth
        low, high = (0, 2**bits) if ty.is_int_unsigned() or bits == 1 else (-2**(bits - 1), 2**(bits - 1))
        if not low <= value < high:
            raise ValueError(f"{where}: {value} is out of the type's range")
        if spec.divisible_by_16 and value % 16:
            raise ValueError(f"{where}: the signature claims divisibility by 16, but the value is {value}")


def launch(kernel, grid, values, stream=None, fast=None, cooperative=False):
    """Runs `kernel` on `grid` (three ints) with `values`, one per runtime
    argument, on the device path (`fast`: as runtime.Hip.launch takes it)
    or in the emulator. `cooperative` (Triton's launch_cooperative_grid):
    every workgroup resident at once, which the chip must be able to hold."""
    if cooperative:
        resident, reason = chips.resident_workgroups(kernel)
        if grid[0] * grid[1] * grid[2] > resident:
            raise ValueError(f"launch_cooperative_grid: a grid of {grid[0] * grid[1] * grid[2]} workgroups cannot "
                             f"all be resident on {kernel.target}, which holds at most {resident} of kernel "
                             f"{kernel.name} at once ({reason})")
    if get_device() == "hip":
        from . import runtime
        runtime.hip().launch(kernel, grid, values, stream, fast)
        return
    args = [_emulator_arg(value, spec) for spec, value in zip(kernel.specialization.args, values)]
    try:
        kernel.emulator().launch(grid, args, os.cpu_count() or 1, cooperative)
    except compiler.load_C().EmulatorFault as e:
        raise EmulatorError(str(e)) from None


def _grid(grid, meta):
    grid = grid(meta) if callable(grid) else grid
    if isinstance(grid, int):
        grid = (grid,)
    grid = tuple(int(g) for g in grid)
    if not 1 <= len(grid) <= 3:
        raise ValueError(f"a grid has 1 to 3 dimensions, got {grid}")
    return grid + (1,) * (3 - len(grid))


class Launcher:
    """`kernel[grid]`: call it with the kernel's arguments (and, beside
    Triton's launch options, `stream=` for the device path). The launches
    rocktile._launch takes never get here (JITFunction.fast_launcher); on
    the device path, this one teaches it the ones it can take."""

    def __init__(self, fn, grid):
        self.fn, self.grid = fn, grid

    def __call__(self, *args, **kwargs):
        fast = self.fn.fast_launcher()
        options = dict(kwargs)
        num_warps, num_stages = options.pop("num_warps", 4), options.pop("num_stages", None)
        target = options.pop("target", None) or get_target()
        stream = options.pop("stream", None) if "stream" not in self.fn.arg_names else None
        cooperative = bool(options.pop("launch_cooperative_grid", False))
        device = get_device()
        options, params = self.fn.split_launch_kwargs(args, options, num_warps, num_stages)
        bound = self.fn.signature.bind(*args, **params)
        bound.apply_defaults()
        spec = self.fn.specialize_bound(bound.arguments, target, num_warps, options)
        kernel = self.fn.compile_specialization(spec, emulator_ok=device == "emulator")
        if os.environ.get("ROCKTILE_EMULATOR_CODE_OBJECTS") == "1":
            kernel.make_code_object()  # an error of LLVM's AMDGPU backend is then the launch's
        remember = None if fast is None or device != "hip" else (
            fast, args, kwargs, [self.fn.arg_names.index(a.name) for a in spec.args])
        launch(kernel, _grid(self.grid, dict(bound.arguments)), [bound.arguments[a.name] for a in spec.args],
               stream, None if cooperative else remember, cooperative)
        return kernel


class CompiledLauncher:
    """`compiled_kernel[grid]`: call it with the kernel's runtime arguments
    (positionally or by name; not its constexprs), which are checked
    against the signature it was compiled for (check_args); a pointer may
    also be a device address, on the device path."""

    def __init__(self, kernel, grid):
        self.kernel, self.grid = kernel, grid

    def __call__(self, *args, stream=None, launch_cooperative_grid=False, **kwargs):
        specs = self.kernel.specialization.args
        names = [s.name for s in specs]
        params = self.kernel.launch_params
        if len(names) < len(args) <= len(params):
            args = self._runtime_args(params, args)
        if len(args) > len(names):
            raise TypeError(f"{self.kernel.name} takes {len(names)} runtime arguments ({', '.join(names)}), "
                            f"got {len(args)}")
        values = dict(zip(names, args))
        for name, value in kwargs.items():
            if name not in names or name in values:
                raise TypeError(f"{self.kernel.name}: unexpected or repeated argument {name!r}; its runtime "
                                f"arguments are {', '.join(names)}")
            values[name] = value
        missing = [n for n in names if n not in values]
        if missing:
            raise TypeError(f"{self.kernel.name}: missing argument(s) {', '.join(map(repr, missing))}")
        ordered = [values[n] for n in names]
        check_args(self.kernel, ordered)
        launch(self.kernel, _grid(self.grid, {**self.kernel.constexprs, **values}), ordered, stream,
               cooperative=launch_cooperative_grid)

    def _runtime_args(self, params, args):
        """Triton's way: the positional arguments are every parameter that is
        not a declared constexpr, those the compile made constants (a 1, a
        None) included; each of those must still have its compiled value."""
        constants = dict(self.kernel.specialization.constexprs)
        runtime = []
        for name, value in zip(params, args):
            if name not in constants:
                runtime.append(value)
            elif not (value is constants[name] or (isinstance(value, (bool, int, float)) and value == constants[name])):
                raise TypeError(f"{self.kernel.name}: {name}={value!r}, but this kernel was compiled for "
                                f"{name}={constants[name]!r}; compile it (warmup) for the new value")
        return tuple(runtime)