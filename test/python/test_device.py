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
          "test_scan.py::test_float_cumsum_and_cumprod", "test_scan.py::test_running_maximum"]


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


def test_device_launch_goes_through_hip(monkeypatch):
    monkeypatch.setattr(runtime, "_hip", None)
    for key, value in hip_env("gfx1250").items():
        monkeypatch.setenv(key, value)
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
