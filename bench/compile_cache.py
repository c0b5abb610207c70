"""Cold compiles and warm starts, rocktile against Triton 3.9 with its own
cache, side by side: for vector add, softmax and the tutorial GEMM, the
seconds a new Python process takes from its start until the compiled kernel
is returned (by rocktile.compile, by triton.compile), first with an empty
cache (cold) and then with the entry the first left (warm), per target.
Both include the interpreter's start and the compiler's import (no GPU
here: "ready to launch" stops before loading the code object); each figure
is the best of 3 runs. Not a test; read the table.

    python bench/compile_cache.py   # Triton rows need bench/.venv-triton (bench/gemm.py --install-triton)
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "examples")
sys.path.insert(0, HERE)
from gemm import TRITON_COMPILE, VENV, constexprs, signature, triton_source  # noqa: E402

REPEATS = 3
TARGETS, WARPS = {"gfx950": 64, "gfx1250": 32}, 4
KERNELS = {
    "vector_add": ("vector_add.py", "add_kernel",
                   {"x_ptr": "*fp32:16", "y_ptr": "*fp32:16", "out_ptr": "*fp32:16", "n_elements": "i32:16"},
                   {"BLOCK": 1024}),
    "softmax": ("softmax.py", "softmax_kernel",
                {"out_ptr": "*fp32:16", "in_ptr": "*fp32:16", "in_row_stride": "i32", "out_row_stride": "i32",
                 "n_cols": "i32"}, {"BLOCK": 1024}),
    "gemm bf16": ("matmul.py", "matmul_kernel", signature("bf16"), constexprs(128, 128, 64)),
}

ROCKTILE = """
import sys, time
start = float(sys.argv[1])
sys.path.insert(0, {examples!r})
import rocktile
from {module} import {kernel} as fn
rocktile.compile(fn, {sig!r}, {cx!r}, target={target!r}, num_warps={warps})
print(time.time() - start)
"""

# The start time comes first, then the path TRITON_COMPILE reads as argv[1].
TRITON_START = "import sys, time\nstart = float(sys.argv.pop(1))\n"
TRITON = """
fn = getattr(module, {kernel!r})
triton.compile(ast_source(fn, {sig!r}, {cx!r}), target=GPUTarget("hip", {target!r}, {wave}),
               options={{"num_warps": {warps}}})
print(time.time() - start)
"""


def timed(python, code, env, *args):
    import time
    done = subprocess.run([python, "-c", code, repr(time.time()), *args], capture_output=True, text=True, env=env)
    if done.returncode:
        sys.exit(f"failed:\n{done.stderr[-2000:]}")
    return float(done.stdout.split()[-1])


def cold_and_warm(python, code, cache_var, *args):
    """(best cold seconds, best warm seconds): each cold run in an empty
    cache, each warm run in the cache a cold run filled."""
    cold, warm = [], []
    for _ in range(REPEATS):
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, **{cache_var: cache}, PYTHONWARNINGS="ignore", ROCKTILE_CACHE="1")
            cold.append(timed(python, code, env, *args))
            warm.append(timed(python, code, env, *args))
    return min(cold), min(warm)


def main():
    triton_python = os.path.join(VENV, "bin", "python")
    have_triton = os.path.exists(triton_python)
    print(f"{WARPS} warps; seconds from a new process's start to the compiled kernel (best of {REPEATS})")
    print(f"{'target':8} {'kernel':12} {'rocktile cold':>14} {'triton cold':>12} {'ratio':>6} {'rocktile warm':>14} "
          f"{'triton warm':>12} {'ratio':>6}")
    for target, wave in TARGETS.items():
        for label, (file, kernel, sig, cx) in KERNELS.items():
            code = ROCKTILE.format(examples=os.path.abspath(EXAMPLES), module=file[:-3], kernel=kernel, sig=sig,
                                   cx=cx, target=target, warps=WARPS)
            r_cold, r_warm = cold_and_warm(sys.executable, code, "ROCKTILE_CACHE_DIR")
            t_cold = t_warm = None
            if have_triton:
                source = triton_source(os.path.join(EXAMPLES, file))
                with tempfile.TemporaryDirectory() as tmp:
                    path = os.path.join(tmp, "example_triton.py")
                    with open(path, "w") as f:
                        f.write(source)
                    code = TRITON_START + TRITON_COMPILE + TRITON.format(kernel=kernel, sig=sig, cx=cx,
                                                                         target=target, wave=wave, warps=WARPS)
                    t_cold, t_warm = cold_and_warm(triton_python, code, "TRITON_CACHE_DIR", path)
            fmt = lambda v: f"{v:.3f}" if v is not None else "-"  # noqa: E731
            ratio = lambda a, b: f"{a / b:.2f}" if b else "-"  # noqa: E731
            print(f"{target:8} {label:12} {fmt(r_cold):>14} {fmt(t_cold):>12} {ratio(r_cold, t_cold):>6} "
                  f"{fmt(r_warm):>14} {fmt(t_warm):>12} {ratio(r_warm, t_warm):>6}")
    print("goal (issue 11): both ratios <= 0.5")


if __name__ == "__main__":
    main()
