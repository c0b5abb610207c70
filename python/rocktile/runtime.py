"""The device path: launching compiled kernels through HIP's module API.

`ROCKTILE_DEVICE=hip` sends launches here. The HIP library is loaded when
the first device launch needs it: `ROCKTILE_HIP_LIBRARY`, else
`libamdhip64.so`; pointed at rocktile's own `librocktile_hip.so` (the HIP
API on the CPU emulator), the device path runs on any machine, which tests
its ABI: the code object, the kernarg bytes it declares, the memory copies.

Arguments: torch tensors on the GPU pass their device address; numpy arrays
and CPU tensors are host memory, so they are copied to the device before
the launch and back after it; Python numbers are scalars.
"""
from __future__ import annotations

import ctypes
import os
import struct

import numpy as np

from . import compiler

_HOST_TO_DEVICE, _DEVICE_TO_HOST = 1, 2
# HIP's `extra` markers of a kernarg buffer.
_BUFFER_POINTER, _BUFFER_SIZE, _END = 1, 2, 3
_SCALAR_FORMATS = {("int", 1): "<B", ("int", 8): "<b", ("int", 16): "<h", ("int", 32): "<i", ("int", 64): "<q",
                   ("uint", 8): "<B", ("uint", 16): "<H", ("uint", 32): "<I", ("uint", 64): "<Q",
                   ("fp", 32): "<f", ("fp", 64): "<d"}


class HipError(RuntimeError):
    """A HIP call failed: its name and HIP's error."""


class Hip:
    """The HIP library and the modules loaded into it, one per kernel."""

    def __init__(self, path):
        try:
            self.lib = ctypes.CDLL(path)
        except OSError as e:
            raise HipError(f"ROCKTILE_DEVICE=hip: cannot load the HIP runtime {path!r} ({e}); install ROCm, or "
                           "set ROCKTILE_HIP_LIBRARY (rocktile.aot.HIP_EMULATOR runs HIP on the CPU emulator)") from None
        self.path = path
        vp, u = ctypes.c_void_p, ctypes.c_uint
        for name, args in {"hipModuleLoadData": [ctypes.POINTER(vp), ctypes.c_char_p],
                           "hipModuleGetFunction": [ctypes.POINTER(vp), vp, ctypes.c_char_p],
                           "hipModuleLaunchKernel": [vp, u, u, u, u, u, u, u, vp, vp, ctypes.POINTER(vp)],
                           "hipMalloc": [ctypes.POINTER(vp), ctypes.c_size_t],
                           "hipFree": [vp],
                           "hipMemcpy": [vp, vp, ctypes.c_size_t, ctypes.c_int],
                           "hipDeviceSynchronize": []}.items():
            fn = getattr(self.lib, name)
            fn.argtypes, fn.restype = args, ctypes.c_int
        self.lib.hipGetErrorString.argtypes, self.lib.hipGetErrorString.restype = [ctypes.c_int], ctypes.c_char_p
        self.functions = {}

    def check(self, error, call):
        if error:
            raise HipError(f"{call} failed: {self.lib.hipGetErrorString(error).decode()} ({error})")

    def function(self, kernel):
        """The kernel's function, its code object loaded on first use."""
        handle = self.functions.get(id(kernel))
        if handle is None:
            if kernel.emulator_only:
                raise HipError(f"kernel {kernel.name} uses device_print or device_assert, which run only in the "
                               "emulator: unset ROCKTILE_DEVICE")
            module, function = ctypes.c_void_p(), ctypes.c_void_p()
            kernel._hip_image = ctypes.create_string_buffer(kernel.hsaco, len(kernel.hsaco))  # kept alive
            self.check(self.lib.hipModuleLoadData(ctypes.byref(module), kernel._hip_image),
                       f"hipModuleLoadData ({kernel.target} code object of {kernel.name})")
            self.check(self.lib.hipModuleGetFunction(ctypes.byref(function), module, kernel.name.encode()),
                       f"hipModuleGetFunction({kernel.name})")
            handle = self.functions[id(kernel)] = (kernel, function)
        return handle[1]

    def launch(self, kernel, grid, values):
        """Launches `kernel` with `values`, one per runtime argument."""
        function = self.function(kernel)
        kernarg = bytearray(kernel.metadata["kernarg_bytes"])
        copies = []
        try:
            for (spec, slots), value in zip(kernel.kernarg_slots(), values):
                if spec.type.is_ptr():
                    address, elements = self._device_buffer(value, spec, copies)
                    for slot, field in zip(slots, [address, address, 0, elements, 1]):  # a memref descriptor
                        struct.pack_into("<Q", kernarg, slot["offset"], field)
                    continue
                ty, offset = spec.type, slots[0]["offset"]
                value = value.item() if isinstance(value, np.generic) else value
                if ty.is_floating() and ty.primitive_bitwidth == 16:
                    import ml_dtypes
                    half = np.float16 if ty.is_fp16() else ml_dtypes.bfloat16
                    struct.pack_into("<H", kernarg, offset, np.array(value, half).view(np.uint16).item())
                else:
                    kind = "fp" if ty.is_floating() else "uint" if ty.is_int_unsigned() else "int"
                    struct.pack_into(_SCALAR_FORMATS[kind, ty.primitive_bitwidth], kernarg, offset,
                                     int(value) if kind != "fp" else float(value))
            buffer = (ctypes.c_char * len(kernarg)).from_buffer(kernarg)
            size = ctypes.c_size_t(len(kernarg))
            extra = (ctypes.c_void_p * 5)(_BUFFER_POINTER, ctypes.addressof(buffer), _BUFFER_SIZE,
                                          ctypes.addressof(size), _END)
            threads = kernel.num_warps * kernel.metadata["wave_size"]
            self.check(self.lib.hipModuleLaunchKernel(function, *grid, threads, 1, 1, 0, None, None, extra),
                       f"hipModuleLaunchKernel({kernel.name})")
            self.check(self.lib.hipDeviceSynchronize(), "hipDeviceSynchronize")
            for host, device, nbytes in copies:
                self.check(self.lib.hipMemcpy(host, device, nbytes, _DEVICE_TO_HOST), "hipMemcpy to the host")
        finally:
            for _, device, _ in copies:
                self.lib.hipFree(device)

    def _device_buffer(self, value, spec, copies):
        """(device address, elements to the allocation's end) of a pointer
        argument; host memory is copied to a device buffer first."""
        if isinstance(value, compiler.TensorWrapper):
            value = value.base
        on_device = getattr(value, "device", None) is not None and str(value.device) != "cpu"
        address, elements = compiler.buffer_extent(value, spec.name)
        if on_device:
            return address, elements
        for host, device, _ in copies:  # the same array passed twice: one device copy
            if host == address:
                return device, elements
        itemsize = value.itemsize if isinstance(value, np.ndarray) else value.element_size()
        nbytes = elements * itemsize
        device = ctypes.c_void_p()
        self.check(self.lib.hipMalloc(ctypes.byref(device), max(nbytes, 1)), "hipMalloc")
        copies.append((address, device.value, nbytes))
        self.check(self.lib.hipMemcpy(device.value, address, nbytes, _HOST_TO_DEVICE), "hipMemcpy to the device")
        return device.value, elements


_hip = None


def hip() -> Hip:
    global _hip
    path = os.environ.get("ROCKTILE_HIP_LIBRARY") or "libamdhip64.so"
    if _hip is None or _hip.path != path:
        _hip = Hip(path)
    return _hip
