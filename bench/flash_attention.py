"""The flash-attention forward of examples/flash_attention.py compiled by rocktile
and by Triton 3.9, side by side, in the table of bench/gemm.py (read its
docstring for the columns): the loop counted is the one over key blocks,
and MACs per wave are those of its two dots, BLOCK_M x BLOCK_N x HEAD_DIM
each. Not a test; read the table.

    python bench/flash_attention.py                  # rocktile, and Triton if installed
    python bench/flash_attention.py --install-triton # first puts Triton 3.9 into bench/.venv-triton
"""
import os
import sys
import time

from gemm import TARGETS, TRITON, extra_cycles_per_access, parse_args, print_header, print_row, triton_rows

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "examples", "flash_attention.py")
CONFIGS = [(128, 64, 64, 4), (128, 64, 128, 4), (128, 32, 128, 8)]  # BLOCK_M, BLOCK_N, HEAD_DIM, warps

# A launch on contiguous bf16 tensors: aligned pointers into buffers under
# 2 GiB, lengths and strides divisible by 16.
SIGNATURE = {**{p: "*bf16:16:range32" for p in ("q_ptr", "k_ptr", "v_ptr", "o_ptr")}, "sm_scale": "fp32",
             "N_Q": "i32:16", "N_KV": "i32:16",
             **{s: "i32:16" for s in ("stride_qh", "stride_qm", "stride_kh", "stride_kn", "stride_vh",
                                      "stride_vn", "stride_oh", "stride_om")}}


def constexprs(bm, bn, d):
    return {"HEAD_DIM": d, "BLOCK_M": bm, "BLOCK_N": bn, "CAUSAL": False}


def rocktile_row(target, bm, bn, d, warps, stages):
    sys.path.insert(0, os.path.dirname(EXAMPLE))
    import rocktile
    from flash_attention import attention_kernel
    start = time.perf_counter()
    kernel = rocktile.compile(attention_kernel, SIGNATURE, constexprs(bm, bn, d), target=target, num_warps=warps,
                              num_stages=stages)
    return {"asm": kernel.asm["amdgcn"], "seconds": time.perf_counter() - start,
            "bank": bank_cycles(target, bm, bn, d, warps, stages)}


def bank_cycles(target, bm, bn, d, warps, stages):
    """The emulator's extra cycles per LDS access on one block of queries
    over two key blocks."""
    import ml_dtypes
    import numpy as np
    from flash_attention import attention_kernel
    n = 2 * bn
    q, kv = np.ones((bm, d), ml_dtypes.bfloat16), np.ones((n, d), ml_dtypes.bfloat16)
    o = np.empty_like(q)
    kernel = attention_kernel[(1, 1)](q, kv, kv, o, 0.125, bm, n, bm * d, d, n * d, d, n * d, d, bm * d, d,
                                      num_warps=warps, num_stages=stages, target=target, **constexprs(bm, bn, d))
    return extra_cycles_per_access(kernel)


def main():
    parse_args(__doc__)
    cases = [(t, c) for t in TARGETS for c in CONFIGS]
    jobs = [{"target": t, "wave": TARGETS[t], "warps": c[3], "stages": s, "signature": SIGNATURE,
             "constexprs": constexprs(*c[:3]), "kernel": "attention_kernel"} for t, c in cases for s in (1, 2)]
    triton = triton_rows(jobs, EXAMPLE)
    if not triton:
        print(f"(Triton is not installed: python bench/flash_attention.py --install-triton adds {TRITON})")
    print_header()
    for i, (target, (bm, bn, d, warps)) in enumerate(cases):
        rows = []
        for s in (1, 2):
            rows.append((f"rocktile s{s}", rocktile_row(target, bm, bn, d, warps, s)))
            rows += [(f"triton s{s}", triton[2 * i + s - 1])] if triton else []
        for name, row in rows:
            print_row(f"{target:8} {'bf16':5} {f'{bm}x{bn}x{d} w{warps}':13} {name:12} ", row, 2 * bm * bn * d / warps)


if __name__ == "__main__":
    main()
