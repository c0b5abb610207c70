"""Compile time of a large reduction: examples/softmax.py (a row max and a
row sum over BLOCK elements) at BLOCK 8192, 32768 and 65536 with 4 warps,
compiled by rocktile and by Triton 3.9 from the same source, side by side,
per target: seconds, VGPRs, spilled registers (VGPR + SGPR) and scratch
bytes. Not a test; read the table. Triton runs in bench/.venv-triton (see
bench/gemm.py's --install-triton); without it only rocktile's rows print.

    python bench/compile_time.py
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "examples"))
from gemm import TARGETS, metadata, parse_args, triton_rows  # noqa: E402

EXAMPLE = os.path.join(HERE, "..", "examples", "softmax.py")
BLOCKS = [8192, 32768, 65536]
WARPS = 4
TIMEOUT = 300  # seconds per Triton compile


def rocktile_row(target, block):
    import rocktile
    from softmax import SIGNATURE, softmax_kernel
    start = time.perf_counter()
    try:
        kernel = rocktile.compile(softmax_kernel, signature=SIGNATURE, constexprs={"BLOCK": block}, target=target,
                                  num_warps=WARPS)
    except rocktile.CompilationError as e:
        return {"error": str(e).splitlines()[0][:60]}
    return {"asm": kernel.asm["amdgcn"], "seconds": time.perf_counter() - start}


def print_row(target, block, compiler, row):
    head = f"{target:8} {block:>6} {compiler:9}"
    if row is None or "error" in row:
        print(head + (" error: " + row["error"] if row else " -"))
        return
    md = metadata(row["asm"])
    print(head + f" {row['seconds']:8.2f} {md['vgpr']!s:>6} {md['spills']!s:>7} {md['scratch']!s:>8}")


def main():
    parse_args(__doc__)
    from softmax import SIGNATURE
    jobs = [{"target": t, "wave": TARGETS[t], "warps": WARPS, "stages": 1, "signature": SIGNATURE,
             "constexprs": {"BLOCK": b}, "kernel": "softmax_kernel"} for t in TARGETS for b in BLOCKS]
    print(f"{'target':8} {'BLOCK':>6} {'compiler':9} {'seconds':>8} {'vgpr':>6} {'spills':>7} {'scratch':>8}",
          flush=True)
    for job in jobs:
        target, block = job["target"], job["constexprs"]["BLOCK"]
        print_row(target, block, "rocktile", rocktile_row(target, block))
        triton = triton_rows([job], EXAMPLE, TIMEOUT)  # one process each, so that a slow one times out alone
        print_row(target, block, "triton", triton[0] if triton else None)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
