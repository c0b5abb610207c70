"""Compile the example kernels for both targets, print their resource use,
then run them in the CPU emulator and compare with numpy."""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import rocktile  # noqa: E402
from softmax import compile_softmax, softmax_kernel  # noqa: E402
from vector_add import add_kernel, compile_add  # noqa: E402

TARGETS = ("gfx950", "gfx1250")
KERNELS = {  # title -> how to compile it for a target
    "vector_add (BLOCK=1024, *fp32:16, n: i32:16)": lambda t: compile_add(t, block=1024),
    "softmax (BLOCK=1024)": lambda t: compile_softmax(t, n_cols=1024),
}
COLUMNS = [("VGPRs", "vgpr_count"), ("SGPRs", "sgpr_count"), ("AGPRs", "agpr_count"),
           ("LDS bytes", "lds_bytes"), ("scratch", "scratch_bytes"), ("VGPR spills", "vgpr_spill_count"),
           ("SGPR spills", "sgpr_spill_count"), ("waves/SIMD", "occupancy"), ("code size", "code_size")]


def table(title, header, rows):
    cells = [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in [header] + cells) for i in range(len(header))]
    line = lambda r: "  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths)))  # noqa: E731
    return "\n".join([title, line(header), line(["-" * w for w in widths])] + [line(r) for r in cells])


def run_vector_add(target):
    n = 1 << 20
    x, y = np.random.rand(n).astype(np.float32), np.random.rand(n).astype(np.float32)
    out = np.zeros_like(x)
    start = time.perf_counter()
    add_kernel[(rocktile.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024, target=target)
    return f"{n}", np.abs(out - (x + y)).max(), time.perf_counter() - start


def run_softmax(target):
    rows, cols = 1823, 781
    x = np.random.randn(rows, cols).astype(np.float32)
    out = np.zeros_like(x)
    start = time.perf_counter()
    softmax_kernel[(rows,)](out, x, cols, cols, cols, BLOCK=rocktile.next_power_of_2(cols), target=target)
    elapsed = time.perf_counter() - start
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return f"{rows} x {cols}", np.abs(out - e / e.sum(axis=1, keepdims=True)).max(), elapsed


if __name__ == "__main__":
    header = ["target"] + [name for name, _ in COLUMNS]
    for title, build in KERNELS.items():
        rows = [[t] + [build(t).metadata.get(key, "-") for _, key in COLUMNS] for t in TARGETS]
        print(table(title, header, rows), end="\n\n")
    rows = []
    for name, run in (("vector_add", run_vector_add), ("softmax", run_softmax)):
        for t in TARGETS:
            run(t)  # the first launch also JIT-compiles the emulated kernel
            shape, err, seconds = run(t)
            rows.append([name, t, shape, f"{err:.2e}", f"{seconds * 1e3:.1f} ms"])
    print(table("In the CPU emulator, against numpy", ["kernel", "target", "shape", "max error", "emulated time"], rows))
