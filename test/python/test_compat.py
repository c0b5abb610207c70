"""rocktile.compat: `import triton` resolving to rocktile (install() and
`python -m rocktile.compat`), and the host-side names Triton projects call."""
import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import rocktile
import rocktile.compat
import rocktile.language as tl


@pytest.fixture
def triton():
    rocktile.compat.install()
    import triton
    yield triton
    rocktile.compat.uninstall()
    rocktile.set_target(None)


def test_modules_resolve_to_rocktile(triton):
    import triton.language
    import triton.language.extra.cuda.libdevice as cuda_libdevice
    import triton.language.extra.hip.libdevice as hip_libdevice
    import triton.language.math
    import triton.language.standard
    import triton.runtime.driver
    from triton.runtime.jit import JITFunction
    assert triton.language is tl and triton.language.math is tl.math
    assert triton.language.standard.softmax is tl.softmax
    assert hip_libdevice is cuda_libdevice is tl.extra.libdevice
    from triton.errors import TritonError
    assert triton.jit is rocktile.jit and JITFunction is rocktile.JITFunction
    assert TritonError is triton.TritonError and issubclass(triton.OutOfResources, TritonError)
    assert triton.__version__ == "3.9.0" and triton.__version__ >= "2.1.0"  # version gates keep their kernels
    with pytest.raises(ModuleNotFoundError):
        import triton.no_such_module  # noqa: F401


def test_names_rocktile_lacks_fail_when_used_not_when_imported(triton):
    from triton.testing import get_max_tensorcore_tflops
    from triton.tools import disasm  # a Triton module rocktile has no counterpart of
    for missing, name in ((get_max_tensorcore_tflops, "triton.testing.get_max_tensorcore_tflops"),
                          (disasm, "triton.tools.disasm")):
        with pytest.raises(NotImplementedError, match=f"{name} is part of Triton 3.9 that rocktile does not"):
            missing()
    with pytest.raises(AttributeError, match="no attribute 'not_a_triton_name'"):
        triton.testing.not_a_triton_name  # noqa: B018


def test_feature_probes_see_what_rocktile_lacks_as_absent(triton):
    """hasattr/getattr probes (as torch's inductor makes them on import)
    find a placeholder's attributes absent, and Python's own attributes of
    a placeholder module absent, instead of raising."""
    import triton.backends
    import triton.knobs
    from triton.runtime.cache import triton_key
    assert getattr(triton.knobs, "nvidia", None) is not None  # a placeholder name...
    assert not hasattr(triton.knobs.nvidia, "use_meta_ws")  # ...whose attributes are absent
    with pytest.raises(NotImplementedError, match="triton.knobs.nvidia is part of Triton 3.9"):
        triton.knobs.nvidia.use_meta_ws  # noqa: B018
    assert not hasattr(triton.knobs, "__file__")
    assert list(triton.backends.backends) == ["amd"]  # torch's has_triton() finds no "cpu" backend
    assert triton_key() == triton_key() and "rocktile" in triton_key()
    from triton.runtime.jit import KernelInterface
    assert isinstance(triton.autotune([triton.Config({})], key=[])(shift), KernelInterface)
    assert tl.core.CONSTEXPR_0 == 0


def test_driver_reports_the_target(triton):
    active = triton.runtime.driver.active
    from triton.runtime.driver import driver
    assert driver.active is active
    assert tuple(active.get_current_target()) == ("hip", "gfx950", 64)
    rocktile.set_target("gfx1250")
    assert tuple(active.get_current_target()) == ("hip", "gfx1250", 32)
    props = active.utils.get_device_properties(active.get_current_device())
    assert props["max_shared_mem"] == 320 * 1024 and props["warpSize"] == 32
    assert "multiprocessor_count" in props["inferred"]


@rocktile.jit
def shift(x_ptr, y_ptr, stride, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs * stride, tl.load(x_ptr + offs * stride, mask=offs < n) + 1, mask=offs < n)


@pytest.mark.parametrize("target", ["gfx950", "gfx1250"])
def test_warmup_then_launch_as_triton_does(target):
    x, y = np.arange(100, dtype=np.float32), np.zeros(100, np.float32)
    kernel = shift.warmup(x, y, 1, 100, BLOCK=128, grid=(1,), target=target)
    kernel._init_handles()
    kernel[(1,)](x, y, 1, 100)  # every non-constexpr parameter, the stride compiled in as 1 included
    np.testing.assert_array_equal(y, x + 1)
    y[:] = 0
    kernel[(1,)](x, y, 100)  # the runtime arguments only
    np.testing.assert_array_equal(y, x + 1)
    with pytest.raises(TypeError, match="stride=2, but this kernel was compiled for stride=1"):
        kernel[(1,)](x, y, 2, 100)
    shift[(1,)](x, y, 1, 100, BLOCK=128, extern_libs={"libdevice": "/opt/libdevice.bc"}, target=target)


def test_jit_options_and_function_attributes():
    @rocktile.jit(do_not_specialize=None, repr=lambda meta: "named", debug=False, launch_metadata=None)
    def kernel(x_ptr):
        tl.store(x_ptr, 1.0)
    assert kernel.repr({}) == "named" and kernel.do_not_specialize == frozenset()
    assert kernel.src.startswith("@rocktile.jit(") and "tl.store(x_ptr, 1.0)" in kernel.src
    assert tl.dtype.SINT_TYPES == ["int8", "int16", "int32", "int64"] and "bf16" in tl.dtype.FP_TYPES
    assert tl._experimental_make_tensor_descriptor is tl.make_tensor_descriptor


def test_compile_an_ast_source(triton):
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    source = ASTSource(shift, {"x_ptr": "*fp32", "y_ptr": "*fp32", "stride": "i32", "n": "i32",
                               "BLOCK": "constexpr"}, {(4,): 256},
                       {(0,): [["tt.divisibility", 16], ["tt.pointer_range", 32]], (3,): [["tt.divisibility", 16]]})
    kernel = triton.compile(source, target=GPUTarget("hip", "gfx1250", 32), options={"num_warps": 2})
    assert kernel.target == "gfx1250" and kernel.num_warps == 2 and kernel.constexprs == {"BLOCK": 256}
    assert kernel.signature == {"x_ptr": "*fp32:16:range32", "y_ptr": "*fp32", "stride": "i32", "n": "i32:16"}
    assert "v_" in kernel.asm["amdgcn"]


def test_testing_helpers(triton, tmp_path, capsys):
    calls = []
    with pytest.warns(UserWarning, match="emulated time is not GPU time"):
        ms = triton.testing.do_bench(lambda: calls.append(1))
    assert math.isnan(ms) and calls == [1]
    assert all(math.isnan(q) for q in triton.testing.do_bench(lambda: None, quantiles=[0.5, 0.2, 0.8]))
    triton.testing.assert_close(np.ones(3), np.ones(3) + 1e-3)
    with pytest.raises(AssertionError):
        triton.testing.assert_close(np.ones(3), np.ones(3) + 0.5)

    @triton.testing.perf_report(triton.testing.Benchmark(
        x_names=["N"], x_vals=[128, 256], line_arg="provider", line_vals=["a", "b"], line_names=["A", "B"],
        plot_name="demo", args={"scale": 2}))
    def bench(N, provider, scale):
        return N * scale + (provider == "b")
    bench.run(print_data=True, save_path=str(tmp_path))
    assert "N\tA\tB\n128\t256\t257\n256\t512\t513" in capsys.readouterr().out
    assert (tmp_path / "demo.csv").read_text() == "N,A,B\n128,256,257\n256,512,513\n"


def test_python_m_rocktile_compat_runs_an_unmodified_triton_script(tmp_path):
    script = tmp_path / "uses_triton.py"
    script.write_text(textwrap.dedent("""
        import sys
        import numpy as np
        import triton
        import triton.language as tl

        if triton.__version__ >= "2.1.0":
            @triton.jit
            def scale(x_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)

        x = np.arange(1000, dtype=np.float32)
        scale[(triton.cdiv(1000, 256),)](x, 1000, BLOCK=256)
        assert (x == 2 * np.arange(1000)).all()
        print("ok", sys.argv[1:], triton.runtime.driver.active.get_current_target().arch)
    """))
    env = {**os.environ, "ROCKTILE_TARGET": "gfx1250"}
    done = subprocess.run([sys.executable, "-m", "rocktile.compat", str(script), "--flag", "3"], env=env,
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "ok ['--flag', '3'] gfx1250"
    done = subprocess.run([sys.executable, "-m", "rocktile.compat"], capture_output=True, text=True)
    assert done.returncode == 2 and "python -m rocktile.compat script.py" in done.stdout


@rocktile.jit
def add_into(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.atomic_add(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def test_autotuner_subclass_as_libraries_write_it(triton):
    """A library's autotuner derived from Triton's (flash-linear-attention's
    CachedAutotuner): Triton's constructor, `run(*args, **kwargs)` with the
    grid among the kwargs, a choice put into `self.cache` by tuning key
    before `super().run`, reset_to_zero's state after a choice among many."""
    from triton.runtime.autotuner import Autotuner

    class PresetAutotuner(Autotuner):
        def __init__(self, fn, arg_names, configs, key, reset_to_zero, restore_value, **kwargs):
            super().__init__(fn, arg_names, configs, key, reset_to_zero, restore_value, **kwargs)
            self.kernel_name = fn.fn.__name__ if hasattr(fn, "fn") else fn.__name__

        def run(self, *args, **kwargs):
            named = dict(zip(self.arg_names, args))
            self.cache[(named["n"], "float32", "float32")] = self.configs[1]
            return super().run(*args, **kwargs)

    configs = [triton.Config({"BLOCK": 32}, num_warps=1), triton.Config({"BLOCK": 64}, num_warps=2)]
    tuned = PresetAutotuner(add_into, add_into.arg_names, configs, ["n"], ["out_ptr"], None,
                            pre_hook=None, post_hook=None, prune_configs_by=None)
    assert tuned.kernel_name == "add_into"
    x, out = np.arange(100, dtype=np.float32), np.zeros(100, np.float32)
    tuned[lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]),)](x, out, 100)
    assert tuned.best_config is configs[1]  # the library's choice, not the first
    np.testing.assert_array_equal(out, x)

    plain = triton.autotune(configs, key=["n"], reset_to_zero=["out_ptr"])(add_into)
    out[:] = 7  # a choice among two configurations leaves reset_to_zero's arguments zeroed, as a timed one
    with pytest.warns(UserWarning, match="needs a GPU"):
        plain[lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]),)](x, out, 100)
    np.testing.assert_array_equal(out, x)
    assert plain.best_config is configs[0] and list(plain.cache.values()) == [configs[0]]
    with pytest.raises(ValueError, match="not arguments of the kernel"):
        triton.autotune(configs, key=["m"])(add_into)
