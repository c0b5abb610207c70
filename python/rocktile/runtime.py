"""The device path: launching compiled kernels through HIP's module API.

`ROCKTILE_DEVICE=hip` (or a machine with an AMD GPU driver) sends launches
here. The HIP library is loaded when the first device launch needs it:
`ROCKTILE_HIP_LIBRARY`, else `libamdhip64.so`; pointed at rocktile's own
`librocktile_hip.so` (the HIP API on the CPU emulator), the device path runs
on any machine, which tests its ABI: the code object, the kernarg bytes it
declares, the memory copies, not the hardware.

The current device's `gcnArchName` is the target launches compile for
unless one is chosen (rocktile.launcher.get_target). A kernel's code object
is loaded once per device. Pointer arguments: GPU torch tensors, ROCm
DLPack objects, DeviceBuffers (`to_device`) and, for kernels compiled with
a fixed signature, device addresses as ints pass their address; numpy
arrays and CPU tensors are host memory, copied to the device before the
launch and back after it. A launch is asynchronous on its stream (the
`stream=` launch option, else torch's current stream when a GPU tensor is
passed, else the null stream) unless it copied host memory.
"""
from __future__ import annotations

import ctypes
import os
import struct
import sys

import numpy as np

from . import buffers
from .buffers import Buffer, DeviceBuffer

_HOST_TO_DEVICE, _DEVICE_TO_HOST = 1, 2
# HIP's `extra` markers of a kernarg buffer.
_BUFFER_POINTER, _BUFFER_SIZE, _END = 1, 2, 3
# hipDeviceProp_t (HIP 6, hipDeviceProp_tR0600): its size and gcnArchName's offset.
_DEVICE_PROP_BYTES, _GCN_ARCH_NAME = 1472, 1160
# struct formats of scalar kernargs by signature type (16-bit floats as their bits).
_SCALAR_FORMATS = {"i1": "B", "i8": "b", "i16": "h", "i32": "i", "i64": "q", "u8": "B", "u16": "H", "u32": "I",
                   "u64": "Q", "fp16": "H", "bf16": "H", "fp32": "f", "fp64": "d"}
# rocktile._launch's kinds of kernarg values (16-bit floats are not among them).
_FAST_KINDS = {"i1": "1", "i8": "1", "u8": "1", "i16": "2", "u16": "2", "i32": "4", "u32": "4", "i64": "8",
               "u64": "8", "fp32": "f", "fp64": "d"}


class HipError(RuntimeError):
    """A HIP call failed: its name and HIP's error."""


class _LaunchPlan:
    """How one kernel's kernarg bytes are packed: a struct over the whole
    buffer, and per argument whether it is a pointer (five descriptor
    fields: base, aligned base, offset, size, stride) or a scalar."""

    def __init__(self, kernel):
        fields, offset, self.kinds, self.itemsizes, fast = [], 0, [], [], []
        for spec, slots in kernel.kernarg_slots():
            is_ptr = spec.type.is_ptr()
            name = str(spec).split(":")[0]  # its signature type, e.g. "i32"
            formats = ["Q", "Q", "q", "q", "q"] if is_ptr else [_SCALAR_FORMATS[name]]
            for slot, fmt in zip(slots, formats):
                if struct.calcsize(fmt) != slot["size"] or slot["offset"] < offset:
                    raise HipError(f"the code object of {kernel.name} declares a kernarg slot that rocktile does "
                                   f"not expect at offset {slot['offset']} (a rocktile bug)")
                fields.append(f"{slot['offset'] - offset}x{fmt}")
                offset = slot["offset"] + slot["size"]
            self.kinds.append("ptr" if is_ptr else name)
            self.itemsizes.append(max(1, spec.type.element_ty.primitive_bitwidth // 8) if is_ptr else 0)
            contiguous = all(b["offset"] == a["offset"] + a["size"] for a, b in zip(slots, slots[1:]))
            fast.append(("p" if is_ptr else _FAST_KINDS.get(name), slots[0]["offset"]) if contiguous else (None, 0))
        self.struct = struct.Struct("<" + "".join(fields))
        self.nbytes = kernel.metadata["kernarg_bytes"]
        self.threads = kernel.num_warps * kernel.metadata["wave_size"]
        # For rocktile._launch: per argument (its kind, its first slot's
        # offset), or None when an argument is out of its reach.
        self.fast_slots = fast if all(kind for kind, _ in fast) else None


def _half_bits(value, kind):
    import ml_dtypes
    return np.array(value, np.float16 if kind == "fp16" else ml_dtypes.bfloat16).view(np.uint16).item()


class Hip:
    """The HIP library, and the modules loaded into it per device."""

    def __init__(self, path):
        try:
            self.lib = ctypes.CDLL(path)
        except OSError as e:
            raise HipError(f"ROCKTILE_DEVICE=hip: cannot load the HIP runtime {path!r} ({e}); install ROCm, or "
                           "set ROCKTILE_HIP_LIBRARY (rocktile.aot.HIP_EMULATOR runs HIP on the CPU emulator)") from None
        self.path = path
        vp, u, ip = ctypes.c_void_p, ctypes.c_uint, ctypes.POINTER(ctypes.c_int)
        for name, args in {"hipModuleLoadData": [ctypes.POINTER(vp), ctypes.c_char_p],
                           "hipModuleGetFunction": [ctypes.POINTER(vp), vp, ctypes.c_char_p],
                           "hipModuleLaunchKernel": [vp, u, u, u, u, u, u, u, vp, vp, vp],
                           "hipMalloc": [ctypes.POINTER(vp), ctypes.c_size_t],
                           "hipFree": [vp],
                           "hipMemcpy": [vp, vp, ctypes.c_size_t, ctypes.c_int],
                           "hipGetDevice": [ip],
                           "hipGetDevicePropertiesR0600": [ctypes.c_char_p, ctypes.c_int],
                           "hipStreamSynchronize": [vp]}.items():
            fn = getattr(self.lib, name)
            fn.argtypes, fn.restype = args, ctypes.c_int
        self.lib.hipGetErrorString.argtypes, self.lib.hipGetErrorString.restype = [ctypes.c_int], ctypes.c_char_p
        self.functions = {}  # (device, id(kernel)) -> (kernel, function, plan, image)
        self.archs = {}
        from . import _launch
        address = lambda fn: ctypes.cast(fn, ctypes.c_void_p).value  # noqa: E731
        _launch.set_hip(address(self.lib.hipModuleLaunchKernel), address(self.lib.hipGetDevice), self.check,
                        DeviceBuffer)

    def check(self, error, call):
        if error:
            raise HipError(f"{call} failed: {self.lib.hipGetErrorString(error).decode()} ({error})")

    def device(self) -> int:
        device = ctypes.c_int()
        self.check(self.lib.hipGetDevice(ctypes.byref(device)), "hipGetDevice")
        return device.value

    def arch(self, device=None) -> str:
        """The device's architecture, from its gcnArchName ("gfx950:sramecc+:xnack-" -> "gfx950")."""
        device = self.device() if device is None else device
        if device not in self.archs:
            props = ctypes.create_string_buffer(_DEVICE_PROP_BYTES)
            self.check(self.lib.hipGetDevicePropertiesR0600(props, device), "hipGetDeviceProperties")
            name = props.raw[_GCN_ARCH_NAME:_GCN_ARCH_NAME + 256].split(b"\0", 1)[0].decode()
            self.archs[device] = name.split(":", 1)[0]
        return self.archs[device]

    def _function(self, kernel, device):
        """(function, plan) of `kernel` on `device`, its code object loaded on first use."""
        entry = self.functions.get((device, id(kernel)))
        if entry is None:
            if kernel.emulator_only:
                raise HipError(f"kernel {kernel.name} uses device_print or device_assert, which run only in the "
                               "emulator: unset ROCKTILE_DEVICE")
            module, function = ctypes.c_void_p(), ctypes.c_void_p()
            image = ctypes.create_string_buffer(kernel.hsaco, len(kernel.hsaco))
            self.check(self.lib.hipModuleLoadData(ctypes.byref(module), image),
                       f"hipModuleLoadData ({kernel.target} code object of {kernel.name} on a "
                       f"{self.arch(device)} device)")
            self.check(self.lib.hipModuleGetFunction(ctypes.byref(function), module, kernel.name.encode()),
                       f"hipModuleGetFunction({kernel.name})")
            entry = self.functions[device, id(kernel)] = (kernel, function, _LaunchPlan(kernel), image)
        return entry[1], entry[2]

    def launch(self, kernel, grid, values, stream=None, fast=None):
        """Launches `kernel` with `values`, one per runtime argument, on
        `stream` (a handle, an object with .cuda_stream, or None). `fast`:
        (the rocktile._launch.FastLauncher, the launch's args and kwargs,
        each runtime argument's parameter index), to remember the launch
        by when its arguments are all within the fast path's reach."""
        device = self.device()
        function, plan = self._function(kernel, device)
        fields, copies = [], []
        remember = fast is not None and stream is None and plan.fast_slots is not None
        try:
            for kind, itemsize, spec, value in zip(plan.kinds, plan.itemsizes, kernel.specialization.args, values):
                if kind != "ptr":
                    value = value.item() if isinstance(value, np.generic) else value
                    fields.append(_half_bits(value, kind) if kind in ("fp16", "bf16") else value)
                    continue
                if type(value) is int:  # a device address (kernels compiled with a signature)
                    address, elements = value, (2**31 - 1) // itemsize
                else:
                    address, elements, on_device = self._pointer(value, spec.name, device, copies)
                    if on_device and stream is None:
                        stream = _torch_stream(value)
                remember &= type(value) is DeviceBuffer
                fields += [address, address, 0, elements, 1]
            kernarg = ctypes.create_string_buffer(plan.nbytes)
            plan.struct.pack_into(kernarg, 0, *fields)
            size = ctypes.c_size_t(plan.nbytes)
            extra = (ctypes.c_void_p * 5)(_BUFFER_POINTER, ctypes.addressof(kernarg), _BUFFER_SIZE,
                                          ctypes.addressof(size), _END)
            stream = getattr(stream, "cuda_stream", stream)
            self.check(self.lib.hipModuleLaunchKernel(function, *grid, plan.threads, 1, 1, 0, stream, None, extra),
                       f"hipModuleLaunchKernel({kernel.name})")
            if remember:
                launcher, args, kwargs, params = fast
                launcher.remember(args, kwargs or None, kernel, function.value, plan.threads, plan.nbytes,
                                  [(p, kind, offset) for p, (kind, offset) in zip(params, plan.fast_slots)])
            if copies:
                self.check(self.lib.hipStreamSynchronize(stream), "hipStreamSynchronize")
                for host, dev, nbytes in copies:
                    self.check(self.lib.hipMemcpy(host, dev, nbytes, _DEVICE_TO_HOST), "hipMemcpy to the host")
        finally:
            for _, dev, _ in copies:
                self.lib.hipFree(dev)

    def _pointer(self, value, name, device, copies):
        """(device address, elements to the allocation's end, whether the
        memory was on the device) of a pointer argument; host memory is
        copied to a device buffer first (one per host address)."""
        b = buffers.describe(value, name)
        if b.device is not None:
            if b.device != device:
                raise HipError(f"kernel argument '{name}' is on HIP device {b.device}, but the launch runs on the "
                               f"current device, {device}")
            return b.address, b.elements, True
        for host, dev, _ in copies:  # the same array passed twice: one device copy
            if host == b.address:
                return dev, b.elements, False
        nbytes = b.elements * b.itemsize
        dev = self.malloc(nbytes)
        copies.append((b.address, dev, nbytes))
        self.check(self.lib.hipMemcpy(dev, b.address, nbytes, _HOST_TO_DEVICE), "hipMemcpy to the device")
        return dev, b.elements, False

    def malloc(self, nbytes) -> int:
        address = ctypes.c_void_p()
        self.check(self.lib.hipMalloc(ctypes.byref(address), max(nbytes, 1)), "hipMalloc")
        return address.value


def _torch_stream(value):
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
        return torch.cuda.current_stream(value.device).cuda_stream
    return None


class _Allocation:
    """hipMalloc'd memory, freed with its last reference."""

    def __init__(self, hip, nbytes):
        self.hip, self.address = hip, hip.malloc(nbytes)

    def __del__(self):
        self.hip.lib.hipFree(self.address)


def to_device(array: np.ndarray) -> DeviceBuffer:
    """A copy of a numpy array in the current device's memory, to pass to
    kernels without a copy per launch; `to_host` copies it back."""
    h = hip()
    array = np.ascontiguousarray(array)
    memory = _Allocation(h, array.nbytes)
    h.check(h.lib.hipMemcpy(memory.address, array.ctypes.data, array.nbytes, _HOST_TO_DEVICE),
            "hipMemcpy to the device")
    buffer = Buffer(memory.address, array.size, array.dtype.name, array.itemsize, h.device())
    return DeviceBuffer(buffer, (memory, array.shape, array.dtype))


def to_host(buffer: DeviceBuffer) -> np.ndarray:
    """The contents of a DeviceBuffer that to_device made, as a new numpy array."""
    if not isinstance(buffer.owner, tuple) or not isinstance(buffer.owner[0], _Allocation):
        raise TypeError("to_host copies DeviceBuffers that rocktile.runtime.to_device made")
    h, b = hip(), buffer.buffer
    _, shape, dtype = buffer.owner
    out = np.empty(shape, dtype)
    h.check(h.lib.hipMemcpy(out.ctypes.data, b.address, out.nbytes, _DEVICE_TO_HOST), "hipMemcpy to the host")
    return out


_hip = None


def hip() -> Hip:
    global _hip
    path = os.environ.get("ROCKTILE_HIP_LIBRARY") or "libamdhip64.so"
    if _hip is None or _hip.path != path:
        _hip = Hip(path)
    return _hip
