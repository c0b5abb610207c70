"""`triton.testing` without a GPU. Timing the CPU emulator says nothing
about a GPU, so do_bench runs the function (its results are computed and
checked as on a GPU) and returns NaN milliseconds, warning once; on the
device path (rocktile's HIP launches) it times with the host clock around a
device synchronisation. assert_close compares with numpy; perf_report runs
a benchmark's grid and prints (or saves as CSV) its table."""
import math
import os
import time
import warnings

import numpy as np

from rocktile.compat import missing_names
from rocktile.launcher import get_device

_warned = False


def _to_numpy(x):
    if hasattr(x, "detach"):  # torch
        x = x.detach().cpu()
        if str(x.dtype) == "torch.bfloat16":
            x = x.float()
        return x.numpy()
    return np.asarray(x)


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean", **_):
    """Milliseconds per call of `fn`: NaN in the emulator (after one call),
    the host clock's mean over `rep` ms of calls on the device path."""
    global _warned
    fn()
    if get_device() == "emulator":
        if not _warned:
            warnings.warn("triton.testing.do_bench under rocktile's emulator returns NaN: emulated time is not "
                          "GPU time", stacklevel=2)
            _warned = True
        times = [math.nan]
    else:
        from rocktile import runtime
        times, deadline = [], time.perf_counter() + rep / 1000
        while time.perf_counter() < deadline or not times:
            start = time.perf_counter()
            fn()
            hip = runtime.hip()
            hip.check(hip.lib.hipStreamSynchronize(None), "hipStreamSynchronize")
            times.append((time.perf_counter() - start) * 1000)
    if quantiles is not None:
        out = [float(np.quantile(times, q)) for q in quantiles]
        return out[0] if len(out) == 1 else out
    return float(getattr(np, {"mean": "mean", "median": "median", "min": "min", "max": "max"}[return_mode])(times))


def do_bench_cudagraph(fn, rep=20, grad_to_none=None, quantiles=None, return_mode="mean"):
    return do_bench(fn, rep=rep, quantiles=quantiles, return_mode=return_mode)


def assert_close(x, y, atol=None, rtol=None, err_msg=""):
    """x and y equal within atol/rtol (Triton's defaults: 1e-2 each)."""
    x, y = _to_numpy(x), _to_numpy(y)
    np.testing.assert_allclose(x.astype(np.float64) if x.dtype.kind == "f" else x,
                               y.astype(np.float64) if y.dtype.kind == "f" else y,
                               atol=1e-2 if atol is None else atol, rtol=1e-2 if rtol is None else rtol,
                               err_msg=err_msg)


class Benchmark:
    """One benchmark's grid, as Triton's perf_report takes it."""

    def __init__(self, x_names, x_vals, line_arg, line_vals, line_names, plot_name, args, xlabel="", ylabel="",
                 x_log=False, y_log=False, styles=None, **_):
        self.x_names, self.x_vals, self.line_arg = x_names, x_vals, line_arg
        self.line_vals, self.line_names, self.plot_name, self.args = line_vals, line_names, plot_name, args
        self.xlabel, self.ylabel = xlabel, ylabel


class Mark:
    def __init__(self, fn, benchmarks):
        self.fn, self.benchmarks = fn, benchmarks

    def run(self, show_plots=False, print_data=False, save_path="", return_df=False, **kwargs):
        """Calls the function over each benchmark's grid; prints the table
        (values as the function returns them) and writes it as CSV into
        `save_path` if given. No plots (no plotting dependency)."""
        tables = []
        for bench in (self.benchmarks if isinstance(self.benchmarks, list) else [self.benchmarks]):
            header = list(bench.x_names) + list(bench.line_names)
            rows = []
            for x in bench.x_vals:
                xs = x if isinstance(x, (list, tuple)) else [x] * len(bench.x_names)
                point = dict(zip(bench.x_names, xs))
                row = list(xs)
                for line in bench.line_vals:
                    value = self.fn(**point, **{bench.line_arg: line}, **bench.args, **kwargs)
                    row.append(value[0] if isinstance(value, tuple) else value)
                rows.append(row)
            if print_data:
                print(f"{bench.plot_name}:")
                print("\t".join(map(str, header)))
                for row in rows:
                    print("\t".join(map(str, row)))
            if save_path:
                os.makedirs(save_path, exist_ok=True)
                with open(os.path.join(save_path, f"{bench.plot_name}.csv"), "w") as f:
                    f.write(",".join(map(str, header)) + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows))
            tables.append((header, rows))
        return tables if return_df else None


def perf_report(benchmarks):
    """Decorator: `fn.run(...)` runs `benchmarks` (a Benchmark or a list)."""
    return lambda fn: Mark(fn, benchmarks)


__getattr__ = missing_names("triton.testing", {"cuda_memcheck", "do_bench_cudagraph_proton", "do_bench_proton",
                                               "get_dram_gbps", "get_max_simd_tflops", "get_max_tensorcore_tflops",
                                               "nvsmi", "set_gpu_clock", "cuda_graph_without_gc"})
