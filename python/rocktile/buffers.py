"""What a kernel's pointer argument can be, reduced to one `Buffer`.

A pointer argument is a numpy array or a CPU torch tensor (host memory), a
torch tensor on the GPU, any object with `__dlpack__` (host or ROCm memory),
a `DeviceBuffer` (device memory rocktile allocated or was given), or, for a
kernel compiled with a fixed signature, a device address as an int. A
`TensorWrapper` (rocktile.reinterpret) reads another one's elements as
another dtype of the same width.
"""
from __future__ import annotations

import ctypes
import weakref
from typing import NamedTuple

import numpy as np

from .language import core

# DLPack's device types and dtype codes (dlpack.h).
_DL_CPU, _DL_ROCM = 1, 10
_DL_DTYPES = {(0, 8): "int8", (0, 16): "int16", (0, 32): "int32", (0, 64): "int64",
              (1, 8): "uint8", (1, 16): "uint16", (1, 32): "uint32", (1, 64): "uint64",
              (2, 16): "float16", (2, 32): "float32", (2, 64): "float64", (4, 16): "bfloat16", (6, 8): "bool"}


class Buffer(NamedTuple):
    """A pointer argument's memory: its element 0's address, the elements
    from there to the end of its allocation, the dtype's numpy/torch name
    and size, and the HIP device holding it (None: host memory)."""
    address: int
    elements: int
    dtype: str
    itemsize: int
    device: int | None


class TensorWrapper:
    """An array whose elements the kernel reads as another dtype of the same
    width (made by `reinterpret`)."""

    def __init__(self, base, dtype):
        self.base, self.dtype = base, dtype


def reinterpret(array, dtype):
    """View a numpy array or torch tensor as elements of `dtype` when passed
    to a kernel, e.g. uint8 bytes as tl.float8e4nv (Triton's
    triton.reinterpret)."""
    if isinstance(array, TensorWrapper):
        array = array.base
    if not isinstance(dtype, core.dtype) or dtype.is_ptr() or dtype.is_block() or dtype.is_bool():
        raise TypeError(f"reinterpret needs a scalar tl dtype such as tl.float8e4nv, got {dtype!r}")
    itemsize = describe(array, "the array").itemsize  # an array, not a wrapper
    if itemsize * 8 != dtype.primitive_bitwidth:
        raise TypeError(f"cannot reinterpret elements of {itemsize} byte(s) as {dtype} "
                        f"({dtype.primitive_bitwidth} bits)")
    return TensorWrapper(array, dtype)


class DeviceBuffer:
    """Device memory as a pointer argument: `buffer` describes it; `owner`
    (if any) is kept alive with it, e.g. the DLPack capsule it came from or
    the allocation rocktile.runtime.to_device made."""

    def __init__(self, buffer: Buffer, owner=None):
        self.buffer, self.owner = buffer, owner

    def __repr__(self):
        b = self.buffer
        return f"<DeviceBuffer of {b.elements} {b.dtype} at {b.address:#x} on HIP device {b.device}>"


def is_pointer_value(value) -> bool:
    """Whether `value` is passed as a pointer (ints are scalars in launches)."""
    return isinstance(value, (np.ndarray, TensorWrapper, DeviceBuffer)) or hasattr(value, "data_ptr") or \
        hasattr(value, "__dlpack__")


def describe(value, name) -> Buffer:
    """The Buffer of pointer argument `name`'s `value` (of a TensorWrapper:
    of the array it wraps)."""
    if isinstance(value, TensorWrapper):
        return describe(value.base, name)
    if isinstance(value, np.ndarray):
        root = value
        while isinstance(root.base, np.ndarray):
            root = root.base
        _, high = np.lib.array_utils.byte_bounds(root)
        if any(s < 0 for s in value.strides):
            raise TypeError(f"kernel argument '{name}' has negative strides; pass a contiguous array")
        address = value.ctypes.data
        return Buffer(address, (high - address) // value.itemsize, value.dtype.name, value.itemsize, None)
    if isinstance(value, DeviceBuffer):
        return value.buffer
    if hasattr(value, "data_ptr") and hasattr(value, "untyped_storage"):  # torch.Tensor
        address, storage, itemsize = value.data_ptr(), value.untyped_storage(), value.element_size()
        device = None if value.device.type == "cpu" else (value.device.index or 0)
        return Buffer(address, (storage.data_ptr() + storage.nbytes() - address) // itemsize,
                      str(value.dtype).rsplit(".", 1)[-1], itemsize, device)
    if hasattr(value, "__dlpack__"):
        return describe(from_dlpack(value, name), name)
    raise TypeError(f"cannot pass {type(value).__name__} as pointer argument '{name}': expected a numpy array, a "
                    "torch tensor, an object with __dlpack__ or a rocktile DeviceBuffer")


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32),
                ("ndim", ctypes.c_int32), ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


def from_dlpack(value, name):
    """A DLPack producer's memory: a numpy array for host memory, a
    DeviceBuffer for ROCm memory (holding the capsule, so the producer's
    memory stays alive while it does)."""
    device_type, device_id = value.__dlpack_device__()
    if device_type == _DL_CPU:
        return np.from_dlpack(value)
    if device_type != _DL_ROCM:
        raise TypeError(f"kernel argument '{name}' is DLPack memory of device type {device_type}, neither the host "
                        f"({_DL_CPU}) nor a ROCm GPU ({_DL_ROCM})")
    capsule = value.__dlpack__()
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.argtypes, get.restype = [ctypes.py_object, ctypes.c_char_p], ctypes.c_void_p
    # A DLManagedTensor starts with its DLTensor.
    t = _DLTensor.from_address(get(capsule, b"dltensor"))
    dtype = _DL_DTYPES.get((t.code, t.bits)) if t.lanes == 1 else None
    if dtype is None:
        raise TypeError(f"kernel argument '{name}' has the DLPack dtype (code {t.code}, {t.bits} bits, {t.lanes} "
                        "lanes), which rocktile does not support")
    itemsize = t.bits // 8
    shape = [t.shape[i] for i in range(t.ndim)]
    strides = [t.strides[i] for i in range(t.ndim)] if t.strides else \
        [int(np.prod(shape[i + 1:], dtype=np.int64)) for i in range(t.ndim)]
    if any(s < 0 for s in strides):
        raise TypeError(f"kernel argument '{name}' has negative strides; pass a contiguous array")
    elements = 0 if 0 in shape else 1 + sum((n - 1) * s for n, s in zip(shape, strides))
    return DeviceBuffer(Buffer((t.data or 0) + t.byte_offset, elements, dtype, itemsize, t.device_id), capsule)


class _Unwritten(NamedTuple):
    """Memory marked by `uninitialized`: its bytes [start, end), and a flag
    per byte that a kernel wrote it."""
    start: int
    end: int
    flags: np.ndarray


_unwritten: dict[int, _Unwritten] = {}  # by id of the marked object, while it lives


def uninitialized(value):
    """Marks the memory of `value` (a numpy array or CPU tensor, whole
    allocation) as never written, as `np.empty`'s or `torch.empty`'s is: in
    the emulator, a kernel that reads a byte of it that no kernel wrote is an
    EmulatorError (initcheck). Writes by the host afterwards are not seen, so
    mark memory that only kernels write, such as outputs. Returns `value`."""
    b = describe(value, "the argument of rocktile.uninitialized")
    if b.device is not None:
        raise TypeError("rocktile.uninitialized marks host memory, which the emulator runs kernels on; "
                        f"this is memory of HIP device {b.device}")
    owner = value.base if isinstance(value, TensorWrapper) else value
    if isinstance(owner, np.ndarray):
        while isinstance(owner.base, np.ndarray):
            owner = owner.base
        start = np.lib.array_utils.byte_bounds(owner)[0]
    else:  # a CPU torch tensor
        start = owner.untyped_storage().data_ptr()
    end = b.address + b.elements * b.itemsize
    _unwritten[id(owner)] = _Unwritten(start, end, np.zeros(end - start, np.uint8))
    weakref.finalize(owner, _unwritten.pop, id(owner), None)
    return value


def initcheck_flags(b: Buffer) -> int:
    """The address of the initcheck flag of `b`'s first byte, where memory
    marked by `uninitialized` holds all of `b` (else 0)."""
    for r in _unwritten.values():
        if r.start <= b.address and b.address + b.elements * b.itemsize <= r.end:
            return r.flags.ctypes.data + b.address - r.start
    return 0
