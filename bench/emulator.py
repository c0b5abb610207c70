"""How fast the CPU emulator runs real kernels: softmax over a 4096 x 1024
fp32 matrix, and the tutorial GEMM at 512 x 512 x 512 in bf16 (128 x 128 x 64
tiles, 4 warps), on each target, beside the same computation in numpy, in
one run; and the first launch (compile and run, no cache) of an elementwise
kernel on one 2^20-element pointer tile with num_warps=1. Each runs three ways: with the emulator's global-memory racechecks
off (ROCKTILE_EMULATOR_RACECHECK=0; bounds, LDS and sync checks stay), with
them on (the default), and on top through librocktile_hip's device path,
where every buffer is hipMalloc memory and initcheck covers it too. Prints
best-of-N wall times and their ratios (not a test)."""
import contextlib
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
import rocktile  # noqa: E402
from rocktile import aot, runtime  # noqa: E402
from matmul import matmul_kernel  # noqa: E402
from softmax import softmax_kernel  # noqa: E402

ROWS, COLS, REPEATS = 4096, 1024, 5
MODES = ("checks off", "racecheck", "+initcheck")


def best_of(fn):
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


@contextlib.contextmanager
def mode(name, target):
    """The environment of one way to run on `target`: see the module's text."""
    env = {"checks off": {"ROCKTILE_EMULATOR_RACECHECK": "0"}, "racecheck": {},
           "+initcheck": {"ROCKTILE_DEVICE": "hip", "ROCKTILE_HIP_LIBRARY": aot.HIP_EMULATOR,
                          "ROCKTILE_HIP_ARCH": target}}[name]
    saved = {k: os.environ.get(k) for k in ("ROCKTILE_EMULATOR_RACECHECK", "ROCKTILE_DEVICE", "ROCKTILE_HIP_LIBRARY",
                                            "ROCKTILE_HIP_ARCH")}
    for k in saved:
        os.environ.pop(k, None)
    os.environ.update(env)
    try:
        yield
    finally:
        for k, v in saved.items():
            os.environ.pop(k, None)
            if v is not None:
                os.environ[k] = v


def run_case(title, numpy_fn, arrays, launch, result):
    """Times `launch(target, *buffers)` in each mode beside `numpy_fn`; the
    buffers are `arrays` (copied to librocktile_hip's memory for
    +initcheck), and `result(*buffers)` is the answer checked against numpy's."""
    reference = numpy_fn()
    t_numpy = best_of(numpy_fn)
    print(f"\n{title}, best of {REPEATS}, {os.cpu_count()} host threads; numpy {t_numpy * 1e3:.1f} ms")
    print(f"{'target':8} " + " ".join(f"{m:>20}" for m in MODES) + f" {'max error':>10}")
    for target in ("gfx950", "gfx1250"):
        cells, err = [], 0.0
        for m in MODES:
            with mode(m, target):
                buffers = [runtime.to_device(a) for a in arrays] if m == "+initcheck" else [a.copy() for a in arrays]
                launch(target, *buffers)  # compile and JIT outside the timing
                t = best_of(lambda: launch(target, *buffers))
                out = result(*buffers)
                if m == "+initcheck":
                    out = runtime.to_host(out)
                err = max(err, float(np.abs(out.astype(np.float32) - reference).max()))
            cells.append(f"{t * 1e3:8.1f}ms {t / t_numpy:6.1f}x")
        print(f"{target:8} " + " ".join(f"{c:>20}" for c in cells) + f" {err:10.2e}")


@rocktile.jit
def add_one(x_ptr, y_ptr, N: rocktile.language.constexpr):
    offs = rocktile.language.arange(0, N)
    rocktile.language.store(y_ptr + offs, rocktile.language.load(x_ptr + offs) + 1.0)


def first_launch(n):
    """Seconds from nothing compiled to a finished launch of add_one on n
    elements, per target (the compile cache off)."""
    os.environ["ROCKTILE_CACHE"] = "0"
    x = np.arange(n, dtype=np.float32)
    print(f"\nfirst launch of a {n}-element pointer tile, num_warps=1 (compile + run)")
    for target in ("gfx950", "gfx1250"):
        add_one.cache.clear()
        y = np.zeros_like(x)
        start = time.perf_counter()
        add_one[(1,)](x, y, N=n, num_warps=1, target=target)
        assert (y == x + 1).all()
        print(f"{target:8} {time.perf_counter() - start:8.1f} s")
    del os.environ["ROCKTILE_CACHE"]


def softmax_reference(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


if __name__ == "__main__":
    x = np.random.default_rng(0).standard_normal((ROWS, COLS), np.float32)
    run_case(f"softmax {ROWS} x {COLS} fp32", lambda: softmax_reference(x), [x, np.zeros_like(x)],
             lambda target, x, out: softmax_kernel[(ROWS,)](out, x, COLS, COLS, COLS, BLOCK=COLS, target=target),
             lambda x, out: out)

    import ml_dtypes
    rng = np.random.default_rng(1)
    a, b = (rng.standard_normal((512, 512)).astype(ml_dtypes.bfloat16) for _ in range(2))
    a32, b32 = a.astype(np.float32), b.astype(np.float32)

    def gemm(target, a, b, c):
        blocks = dict(BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=64, GROUP_SIZE_M=8)
        matmul_kernel[(16,)](a, b, c, c, 512, 512, 512, 512, 1, 512, 1, 512, 1, **blocks, HAS_BIAS=False,
                             ACTIVATION="", target=target)

    run_case("GEMM 512 x 512 x 512 bf16 -> fp32, 128 x 128 x 64 tiles", lambda: a32 @ b32,
             [a, b, np.zeros((512, 512), np.float32)], gemm, lambda a, b, c: c)

    first_launch(1 << 20)
