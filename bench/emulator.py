"""How fast the CPU emulator runs real kernels: softmax over a 4096 x 1024
fp32 matrix, and the tutorial GEMM at 512 x 512 x 512 in bf16 (128 x 128 x 64
tiles, 4 warps), on each target, beside the same computation in numpy, in
one run. Prints best-of-N wall times and their ratio (not a test)."""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
import rocktile  # noqa: E402
from matmul import matmul  # noqa: E402
from softmax import softmax_kernel  # noqa: E402

ROWS, COLS, REPEATS = 4096, 1024, 5


def best_of(fn):
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def numpy_softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


if __name__ == "__main__":
    x = np.random.default_rng(0).standard_normal((ROWS, COLS), np.float32)
    out = np.empty_like(x)
    reference = numpy_softmax(x)
    t_numpy = best_of(lambda: numpy_softmax(x))
    print(f"softmax {ROWS} x {COLS} fp32, best of {REPEATS}, {os.cpu_count()} host threads")
    print(f"{'target':8} {'emulator':>10} {'numpy':>10} {'ratio':>8} {'max error':>10}")
    for target in ("gfx950", "gfx1250"):
        launch = lambda: softmax_kernel[(ROWS,)](out, x, COLS, COLS, COLS, BLOCK=COLS, target=target)  # noqa: E731
        launch()  # compile and JIT outside the timing
        t_emu = best_of(launch)
        err = np.abs(out - reference).max()
        print(f"{target:8} {t_emu * 1e3:8.1f}ms {t_numpy * 1e3:8.1f}ms {t_emu / t_numpy:7.1f}x {err:10.2e}")

    import ml_dtypes
    rng = np.random.default_rng(1)
    a, b = (rng.standard_normal((512, 512)).astype(ml_dtypes.bfloat16) for _ in range(2))
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    t_numpy = best_of(lambda: a32 @ b32)
    print(f"\nGEMM 512 x 512 x 512 bf16 -> fp32, 128 x 128 x 64 tiles, best of {REPEATS}")
    print(f"{'target':8} {'emulator':>10} {'numpy':>10} {'ratio':>8} {'max error':>10}")
    for target in ("gfx950", "gfx1250"):
        launch = lambda: matmul(a, b, target=target, blocks=(128, 128, 64))  # noqa: E731
        c = launch()
        t_emu = best_of(launch)
        err = np.abs(c - a32 @ b32).max()
        print(f"{target:8} {t_emu * 1e3:8.1f}ms {t_numpy * 1e3:8.1f}ms {t_emu / t_numpy:7.1f}x {err:10.2e}")
