"""torch tensors as kernel arguments, with the real torch package (PyPI's
wheel, on the CPU): `make test-torch` installs it into a virtualenv of its
own and runs this file there; without torch it skips. CPU tensors run in the
emulator and through the device path (copied to librocktile_hip's memory and
back); GPU tensors need a real GPU (the `gpu` marker)."""
import os

import numpy as np
import pytest

import rocktile
import rocktile.language as tl
from rocktile import aot, runtime

torch = pytest.importorskip("torch")


@rocktile.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@rocktile.jit
def scale_rows(x_ptr, out_ptr, stride_x, stride_out, n_cols, factor, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride_x + cols, mask=cols < n_cols)
    tl.store(out_ptr + row * stride_out + cols, (x * factor).to(out_ptr.dtype.element_ty), mask=cols < n_cols)


@pytest.fixture(params=["emulator", "hip"])
def device(request, monkeypatch):
    """Launches in the emulator, or through the device path into librocktile_hip.so."""
    monkeypatch.setattr(runtime, "_hip", None)
    monkeypatch.setenv("ROCKTILE_DEVICE", request.param)
    if request.param == "hip":
        monkeypatch.setenv("ROCKTILE_HIP_LIBRARY", aot.HIP_EMULATOR)
        monkeypatch.setenv("ROCKTILE_HIP_ARCH", "gfx950")
    return request.param


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.int32, torch.int64])
def test_elementwise_dtypes(device, dtype):
    torch.manual_seed(0)
    x = (torch.randn(3000) * 100).to(dtype)
    y = (torch.randn(3000) * 100).to(dtype)
    out = torch.empty_like(x)
    add_kernel[(3,)](x, y, out, 3000, BLOCK=1024)
    assert torch.equal(out, x + y)


def test_strided_views_and_storage_offsets(device):
    x = torch.randn(40, 70)
    out = torch.zeros(40, 128, dtype=torch.float16)
    view = x[5:, 3:]  # a storage offset, and rows 70 elements apart
    scale_rows[(35,)](view, out, view.stride(0), out.stride(0), 67, 0.5, BLOCK=128)
    assert torch.equal(out[:35, :67], (view * 0.5).half())
    assert torch.count_nonzero(out[:, 67:]) == 0 and torch.count_nonzero(out[35:]) == 0


def test_fp8_tensors_and_reinterpret(device):
    x = torch.randn(1000).to(torch.float8_e4m3fn)
    out = torch.empty(1000, dtype=torch.float8_e4m3fn)
    add_kernel[(1,)](x, x, out, 1000, BLOCK=1024)  # float8_e4m3fn is tl.float8e4nv
    bits = torch.empty(1000, dtype=torch.uint8)
    add_kernel[(1,)](x, x, rocktile.reinterpret(bits, tl.float8e4nv), 1000, BLOCK=1024)
    assert torch.equal(out.view(torch.uint8), bits)
    np.testing.assert_array_equal(out.float().numpy(), (x.float() * 2).to(torch.float8_e4m3fn).float().numpy())


def test_compiled_kernels_check_tensor_arguments(device):
    k = add_kernel.compile({"x_ptr": "*fp32:16", "y_ptr": "*fp32:16", "out_ptr": "*fp32:16", "n": "i32"},
                           {"BLOCK": 256}, target="gfx950")
    x = torch.arange(500, dtype=torch.float32)
    out = torch.empty_like(x)
    k[(2,)](x, x, out, 500)
    assert torch.equal(out, 2 * x)
    with pytest.raises(TypeError, match="'y_ptr' \\(signature \\*fp32:16\\): got float16 elements"):
        k[(2,)](x, x.half(), out, 500)
    with pytest.raises(ValueError, match="'out_ptr' \\(signature \\*fp32:16\\): the signature claims 16-byte"):
        k[(2,)](x, x, out[1:], 499)


def test_torch_dlpack_producers(device):
    """An object that only speaks DLPack (here over a torch CPU tensor)."""
    class Producer:
        def __init__(self, t):
            self.t = t

        def __dlpack__(self, stream=None):
            return self.t.__dlpack__()

        def __dlpack_device__(self):
            return self.t.__dlpack_device__()

    x = torch.randn(2000)
    out = torch.zeros(2000)
    add_kernel[(2,)](Producer(x), Producer(x), Producer(out), 2000, BLOCK=1024)
    assert torch.equal(out, 2 * x)


def test_reading_past_the_storage_is_located(monkeypatch):
    monkeypatch.setenv("ROCKTILE_DEVICE", "emulator")
    x = torch.zeros(100)
    with pytest.raises(rocktile.EmulatorError, match="outside .x_ptr. \\(90 elements.*\\n  at .*test_torch.py:22:"):
        add_kernel[(1,)](x[10:], x, x, 1024, BLOCK=1024)


def _hip_gpu():
    return os.path.exists("/dev/kfd") and torch.cuda.is_available() and torch.version.hip is not None


@pytest.mark.gpu
@pytest.mark.skipif(not _hip_gpu(), reason="needs an AMD GPU and a ROCm build of torch")
def test_gpu_tensors():
    x = torch.randn(1 << 20, device="cuda")
    out = torch.empty_like(x)
    add_kernel[(1024,)](x, x, out, 1 << 20, BLOCK=1024)
    torch.cuda.synchronize()
    assert torch.equal(out, 2 * x)
