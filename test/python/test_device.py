"""The device path (ROCKTILE_DEVICE=hip, rocktile.runtime) pointed at the
HIP emulator library: numerical tests of the emulator launch path run again
through HIP's module API, per chip, in a subprocess whose HIP is
librocktile_hip.so emulating that chip; and the device path's errors."""
import os
import subprocess
import sys

import numpy as np
import pytest

import rocktile
import rocktile.language as tl
from rocktile import aot, runtime

HERE = os.path.dirname(os.path.abspath(__file__))
# Tests whose kernels are checked against numpy only (not the emulator's own
# reports), over element-wise code, reductions, LDS exchanges and dots.
SUITES = ["test_surface.py::test_gather", "test_surface.py::test_sort", "test_surface.py::test_flip",
          "test_dot.py::test_tutorial_gemm_ragged_shapes", "test_dot.py::test_attention_inner_step",
          "test_dot.py::test_dot_int8_is_exact_int32", "test_dot.py::test_batched_matmul",
          "test_scan.py::test_float_cumsum_and_cumprod", "test_scan.py::test_running_maximum",
          "test_descriptors.py", "test_libdevice.py::test_float32_accuracy", "test_libdevice.py::test_exact_functions"]


def hip_env(arch):
    assert os.path.exists(aot.HIP_EMULATOR), "librocktile_hip.so is built by `make build`"
    return dict(os.environ, ROCKTILE_DEVICE="hip", ROCKTILE_HIP_LIBRARY=aot.HIP_EMULATOR, ROCKTILE_HIP_ARCH=arch)


@pytest.mark.parametrize("target", ["gfx950", "gfx1250"])
def test_numerical_tests_pass_on_the_device_path(target):
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", target, *SUITES],
                          cwd=HERE, env=hip_env(target), capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and " failed" not in done.stdout


@rocktile.jit
def scale(x_ptr, y_ptr, n, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * factor, mask=offs < n)


def use_hip_emulator(monkeypatch, arch):
    monkeypatch.setattr(runtime, "_hip", None)
    monkeypatch.delenv("ROCKTILE_TARGET", raising=False)
    for key, value in hip_env(arch).items():
        monkeypatch.setenv(key, value)


def test_device_launch_goes_through_hip(monkeypatch):
    use_hip_emulator(monkeypatch, "gfx1250")
    x = np.arange(3000, dtype=np.float32)
    y = np.zeros_like(x)
    scale[(3,)](x, y, 3000, 0.5, BLOCK=1024, target="gfx1250")
    np.testing.assert_array_equal(y, x * 0.5)
    # The emulated device is a gfx1250: a gfx950 code object is refused, as
    # a GPU refuses another architecture's.
    with pytest.raises(runtime.HipError, match="hipModuleLoadData .*gfx950.* hipErrorNoBinaryForGpu"):
        scale[(3,)](x, y, 3000, 0.5, BLOCK=1024, target="gfx950")


def test_missing_hip_library_is_an_error_only_for_device_launches(monkeypatch):
    monkeypatch.setattr(runtime, "_hip", None)
    monkeypatch.setenv("ROCKTILE_HIP_LIBRARY", "/nowhere/libamdhip64.so")
    x = np.ones(16, np.float32)
    monkeypatch.setenv("ROCKTILE_DEVICE", "emulator")
    scale[(1,)](x, x, 16, 2.0, BLOCK=16)
    assert x[0] == 2
    monkeypatch.setenv("ROCKTILE_DEVICE", "hip")
    with pytest.raises(runtime.HipError, match="cannot load the HIP runtime '/nowhere/libamdhip64.so'"):
        scale[(1,)](x, x, 16, 2.0, BLOCK=16)


@pytest.mark.parametrize("arch", ["gfx950", "gfx1250"])
def test_the_device_architecture_is_the_default_target(monkeypatch, arch):
    use_hip_emulator(monkeypatch, arch)
    assert runtime.hip().arch() == arch  # gcnArchName of hipGetDeviceProperties
    assert rocktile.get_target() == arch
    x = np.arange(100, dtype=np.float32)
    y = np.zeros_like(x)
    kernel = scale[(1,)](x, y, 100, 3.0, BLOCK=128)
    assert kernel.target == arch
    np.testing.assert_array_equal(y, x * 3)
    monkeypatch.setenv("ROCKTILE_TARGET", "gfx950")  # a chosen target wins
    assert rocktile.get_target() == "gfx950"


def test_device_buffers_stay_on_the_device(monkeypatch):
    use_hip_emulator(monkeypatch, "gfx950")
    x = np.linspace(-1, 1, 5000, dtype=np.float32)
    dx, dy = runtime.to_device(x), runtime.to_device(np.zeros_like(x))
    for _ in range(2):  # y = 4x: the second launch reads the first one's output
        scale[(5,)](dx, dy, 5000, 2.0, BLOCK=1024)
        dx, dy = dy, dx
    np.testing.assert_array_equal(runtime.to_host(dx), x * 4)
    assert runtime.to_host(dx).dtype == np.float32 and runtime.to_host(dx).shape == (5000,)
    # The emulator launch path reads host memory only.
    monkeypatch.setenv("ROCKTILE_DEVICE", "emulator")
    with pytest.raises(TypeError, match="'x_ptr' is memory of HIP device 0; the emulator needs host memory"):
        scale[(5,)](dx, dy, 5000, 2.0, BLOCK=1024)


def rocm_dlpack(buffer, shape, code_bits=(2, 32)):
    """A DLPack producer over device memory, as a GPU array library is:
    __dlpack_device__ says ROCm (10), __dlpack__ gives a capsule holding a
    DLManagedTensor (a DLTensor, then a manager context and a deleter)."""
    import ctypes

    class ManagedTensor(ctypes.Structure):
        _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32),
                    ("ndim", ctypes.c_int32), ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                    ("lanes", ctypes.c_uint16), ("shape", ctypes.POINTER(ctypes.c_int64)),
                    ("strides", ctypes.c_void_p), ("byte_offset", ctypes.c_uint64),
                    ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]

    class Producer:
        def __dlpack_device__(self):
            return (10, 0)

        def __dlpack__(self, stream=None):
            self.shape = (ctypes.c_int64 * len(shape))(*shape)
            self.tensor = ManagedTensor(buffer.buffer.address, 10, 0, len(shape), *code_bits, 1, self.shape)
            new = ctypes.pythonapi.PyCapsule_New
            new.argtypes, new.restype = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p], ctypes.py_object
            return new(ctypes.addressof(self.tensor), b"dltensor", None)

    return Producer()


def test_dlpack_arguments(monkeypatch):
    use_hip_emulator(monkeypatch, "gfx950")
    x = np.arange(64 * 40, dtype=np.float32).reshape(64, 40)
    dx, dy = runtime.to_device(x), runtime.to_device(np.zeros_like(x))
    scale[(3,)](rocm_dlpack(dx, (64, 40)), rocm_dlpack(dy, (64, 40)), x.size, -1.0, BLOCK=1024)
    np.testing.assert_array_equal(runtime.to_host(dy), -x)
    with pytest.raises(TypeError, match="'x_ptr' has the DLPack dtype \\(code 5, 64 bits, 1 lanes\\)"):
        scale[(3,)](rocm_dlpack(dx, (64, 40), (5, 64)), dy, x.size, -1.0, BLOCK=1024)

    class HostProducer:  # host memory through DLPack: numpy's own capsule
        def __init__(self, array):
            self.array = array

        def __dlpack_device__(self):
            return self.array.__dlpack_device__()

        def __dlpack__(self, stream=None):
            return self.array.__dlpack__()

    monkeypatch.setenv("ROCKTILE_DEVICE", "emulator")
    y = np.zeros_like(x)
    scale[(3,)](HostProducer(x), HostProducer(y), x.size, 0.25, BLOCK=1024)
    np.testing.assert_array_equal(y, x * 0.25)


def test_compiled_kernels_take_device_addresses_and_check_their_signature(monkeypatch):
    use_hip_emulator(monkeypatch, "gfx1250")
    k = scale.compile({"x_ptr": "*fp32:16", "y_ptr": "*fp32:16", "n": "i32", "factor": "fp32"},
                      {"BLOCK": 256}, target="gfx1250")
    x = np.arange(1000, dtype=np.float32)
    dx, dy = runtime.to_device(x), runtime.to_device(np.zeros_like(x))
    k[(4,)](dx.buffer.address, dy.buffer.address, 1000, 2.0)  # ints: device addresses
    np.testing.assert_array_equal(runtime.to_host(dy), x * 2)
    y = np.zeros_like(x)
    k[lambda meta: (rocktile.cdiv(meta["n"], meta["BLOCK"]),)](x, y, n=1000, factor=0.5)  # host arrays, by name
    np.testing.assert_array_equal(y, x * 0.5)
    with pytest.raises(TypeError, match="'x_ptr' \\(signature \\*fp32:16\\): got float64 elements"):
        k[(4,)](x.astype(np.float64), y, 1000, 2.0)
    with pytest.raises(ValueError, match="'y_ptr' \\(signature \\*fp32:16\\): the signature claims 16-byte "
                       "alignment, but the address 0x[0-9a-f]+ is not"):
        k[(4,)](x, y[1:], 999, 2.0)
    with pytest.raises(ValueError, match="'n' \\(signature i32\\): 4294967296 is out of the type's range"):
        k[(4,)](x, y, 2**32, 2.0)
    with pytest.raises(TypeError, match="'factor' \\(signature fp32\\): expected a number, got str"):
        k[(4,)](x, y, 1000, "2")
    with pytest.raises(TypeError, match="missing argument\\(s\\) 'factor'"):
        k[(4,)](x, y, 1000)
    monkeypatch.setenv("ROCKTILE_DEVICE", "emulator")
    k[(4,)](x, y, 1000, 3.0)  # the emulator launches compiled kernels too
    np.testing.assert_array_equal(y, x * 3)
    with pytest.raises(TypeError, match="'x_ptr' is an address; the emulator reads host memory"):
        k[(4,)](dx.buffer.address, y, 1000, 2.0)




def test_repeated_device_launches_take_the_fast_path(monkeypatch):
    """After one launch, rocktile._launch launches the same kinds of arguments
    by itself; anything that changes the specialization goes to Python again."""
    from rocktile import launcher
    use_hip_emulator(monkeypatch, "gfx950")
    fresh = rocktile.jit(scale.fn)  # no launches remembered from other tests
    x = np.arange(4096, dtype=np.float32)
    dx, dy = runtime.to_device(x), runtime.to_device(np.zeros_like(x))
    grid = lambda meta: (rocktile.cdiv(meta["n"], meta["BLOCK"]),)  # noqa: E731
    first = fresh[grid](dx, dy, 4096, 2.0, BLOCK=1024)

    def python_launch(self, *args, **kwargs):
        raise AssertionError("the Python launch path")
    monkeypatch.setattr(launcher.Launcher, "__call__", python_launch)
    assert fresh[grid](dx, dy, 4096, 3.0, BLOCK=1024) is first  # the same kernel, new scalar values
    np.testing.assert_array_equal(runtime.to_host(dy), x * 3)
    assert fresh[(2,)](dy, dx, 2048, 0.5, BLOCK=1024) is first  # another grid, n: all the same kinds
    np.testing.assert_array_equal(runtime.to_host(dx)[:2048], x[:2048] * 1.5)
    for changed in [lambda: fresh[grid](dx, dy, 4095, 2.0, BLOCK=1024),  # n no longer divisible by 16
                    lambda: fresh[grid](dx, dy, 4096, 2.0, BLOCK=512),  # another constexpr
                    lambda: fresh[grid](dx, dy, 4096, 2.0, BLOCK=1024, num_warps=8),
                    lambda: fresh[grid](x, dy, 4096, 2.0, BLOCK=1024)]:  # host memory
        with pytest.raises(AssertionError, match="the Python launch path"):
            changed()
    monkeypatch.setenv("ROCKTILE_TARGET", "gfx1250")  # the launch state is part of the key
    with pytest.raises(AssertionError, match="the Python launch path"):
        fresh[grid](dx, dy, 4096, 2.0, BLOCK=1024)
