"""Patterns users write (bench/patterns_kernels.py), compiled by rocktile and
by Triton 3.9 from one source, side by side per target: `acc +=` / `acc =
acc + dot` / `acc = dot(.., acc)` with row- and column-major B, split-K with
fp32 atomics, GELU and SiLU epilogues, decode-shaped 16-row GEMMs, an int8
GEMM, an fp8 GEMM with block scales, RMSNorm and softmax rows, and
examples/lean_attention.py (persistent, stream-K attention for decoding).
Not a test; read the table.

    python bench/patterns.py                  # rocktile, and Triton if installed
    python bench/patterns.py --install-triton # first puts Triton 3.9 into bench/.venv-triton

Columns: the K loop's non-matrix instructions per 16384 MACs per wave
(`kloop`, for kernels with a dot; as bench/gemm.py counts them), the whole
kernel's instructions (`instrs`) and its VALU ones, VGPRs, spills, scratch
bytes, and compile seconds (the best of REPEATS rounds; each round compiles
every case with rocktile and then with Triton, so that the machine's drift
falls on both). `ratio` rows divide rocktile's figure by Triton's (below 1:
rocktile emits less, or compiles faster).
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "examples")
sys.path[:0] = [HERE, EXAMPLES]  # the kernels: patterns_kernels.py here, `example.name` there
from gemm import REPEATS, TARGETS, TRITON, count, metadata, parse_args, triton_rows  # noqa: E402

KERNELS = os.path.join(HERE, "patterns_kernels.py")
os.environ["ROCKTILE_CACHE"] = "0"

P = ":16:range32"


def gemm_signature(ab="bf16", c="fp32", extra=()):
    sig = {"a_ptr": f"*{ab}{P}", "b_ptr": f"*{ab}{P}", "c_ptr": f"*{c}{P}", "M": "i32:16", "N": "i32:16",
           "K": "i32:16", "stride_am": "i32:16", "stride_bk": "i32:16", "stride_cm": "i32:16"}
    sig.update(extra)
    return sig


def cases():
    """(name, kernel, signature, constexprs, warps, stages, MACs per wave
    and K-loop iteration or None). A kernel is a name in patterns_kernels.py
    or `example.name`, from examples/example.py."""
    out = []
    for bm, bn, bk, warps in [(128, 128, 64, 4), (16, 64, 128, 4), (16, 64, 256, 4)]:
        macs = bm * bn * bk / warps
        for style, label in [(0, "acc +="), (1, "acc = acc+"), (2, "dot(acc)")]:
            for layout, strides in [("B row", {"stride_bn": 1}), ("B col", {"stride_bk": 1})]:
                sig = gemm_signature(extra={"stride_bn": "i32:16"})
                for k in strides:
                    del sig[k]
                cx = {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "FOLD_STYLE": style, **strides}
                for stages in (1, 2):
                    out.append((f"{label} {layout} {bm}x{bn}x{bk}", "gemm_acc_plus", sig, cx, warps, stages, macs))
    for stages in (1, 2):
        out.append(("int8 acc += 128x128x128", "gemm_acc_plus",
                    gemm_signature("i8", "i32"),
                    {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 128, "FOLD_STYLE": 0, "stride_bn": 1}, 4, stages,
                    128 * 128 * 128 / 4))
        out.append(("fp8 block scales 128x128x128", "gemm_fp8_block_scale",
                    gemm_signature("fp8e4nv", "bf16", {"a_scale_ptr": f"*fp32{P}", "b_scale_ptr": f"*fp32{P}",
                                                       "stride_asm": "i32", "stride_bsk": "i32"}),
                    {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 128}, 4, stages, 128 * 128 * 128 / 4))
    for bm, bn in [(16, 64), (64, 64)]:
        out.append((f"lean attention {bm}x{bn}x128", "lean_attention.lean_attention_kernel",
                    {"q_ptr": f"*bf16{P}", "k_ptr": f"*bf16{P}", "v_ptr": f"*bf16{P}", "out_ptr": f"*fp32{P}",
                     "partial_ptr": f"*fp32{P}", "stats_ptr": f"*fp32{P}", "flags_ptr": f"*i32{P}", "heads": "i32",
                     "n_ctx": "i32", "sm_scale": "fp32"},
                    {"BLOCK_M": bm, "BLOCK_N": bn, "HEAD_DIM": 128}, 4, 1, bm * bn * 128 * 2 / 4))
    for stages in (1, 2):
        out.append(("split-K atomics 128x128x64", "gemm_split_k", gemm_signature(),
                    {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "SPLIT_K": 4}, 4, stages, 128 * 128 * 64 / 4))
    for act in ("gelu", "silu"):
        out.append((f"bias+{act} 128x128x64", "gemm_bias_act",
                    gemm_signature(c="bf16", extra={"bias_ptr": f"*fp32{P}"}),
                    {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "ACTIVATION": act}, 4, 1, 128 * 128 * 64 / 4))
    out.append(("rmsnorm bf16 8192", "rmsnorm", {"x_ptr": f"*bf16{P}", "w_ptr": f"*bf16{P}", "y_ptr": f"*bf16{P}",
                                                  "N": "i32", "eps": "fp32"}, {"BLOCK_N": 8192}, 8, 1, None))
    out.append(("softmax fp32 1024", "softmax_row", {"x_ptr": f"*fp32{P}", "y_ptr": f"*fp32{P}", "N": "i32"},
                {"BLOCK_N": 1024}, 4, 1, None))
    return out


def instructions(asm):
    """The kernel body's instructions (first function, up to its end)."""
    body = asm[:asm.find(".Lfunc_end")]
    lines = [line.strip() for line in body.splitlines()]
    ops = [line.split()[0] for line in lines
           if line and not line.startswith((";", ".", "//")) and not line.endswith(":")]
    return {"instrs": len(ops), "valu": sum(op.startswith("v_") for op in ops)}


def source_file(kernel):
    module, _, _ = kernel.rpartition(".")
    return os.path.join(EXAMPLES, module + ".py") if module else KERNELS


def rocktile_compile(case, target):
    import importlib
    import rocktile
    _, kernel, sig, cx, warps, stages, _ = case
    module, _, name = kernel.rpartition(".")
    fn = getattr(importlib.import_module(module or "patterns_kernels"), name)
    fn.cache.clear()
    start = time.perf_counter()
    try:
        kernel = rocktile.compile(fn, signature=sig, constexprs=cx, target=target, num_warps=warps,
                                  num_stages=stages)
    except rocktile.CompilationError as e:
        return {"error": str(e).splitlines()[0].split("error: ")[-1][:60]}
    return {"asm": kernel.asm["amdgcn"], "seconds": time.perf_counter() - start}


def figures(row, macs):
    if "error" in row:
        return None
    out = {**instructions(row["asm"]), **metadata(row["asm"]), "sec": round(row["seconds"], 2)}
    out["kloop"] = count(row["asm"], macs)["per16k"] if macs else None
    return out


COLUMNS = ["kloop", "instrs", "valu", "vgpr", "spills", "scratch", "sec"]


def main():
    parse_args(__doc__)
    all_cases = [(t, c) for t in TARGETS for c in cases()]
    jobs = [{"target": t, "wave": TARGETS[t], "warps": c[4], "stages": c[5], "signature": c[2],
             "constexprs": c[3], "kernel": c[1].rpartition(".")[2]} for t, c in all_cases]
    files = sorted({source_file(c[1]) for _, c in all_cases})
    best_r, best_t = [None] * len(all_cases), None
    for _ in range(REPEATS):
        rows = [rocktile_compile(c, t) for t, c in all_cases]
        best_r = [r if b is None or "error" in r or r["seconds"] < b["seconds"] else b for r, b in zip(rows, best_r)]
        rows = [None] * len(jobs)
        for path in files:  # one Triton process per source file
            mine = [i for i, (_, c) in enumerate(all_cases) if source_file(c[1]) == path]
            done = triton_rows([jobs[i] for i in mine], path)
            if done is None:
                break
            for i, row in zip(mine, done):
                rows[i] = row
        if None in rows:
            break
        best_t = rows if best_t is None else [
            r if "error" in b or ("seconds" in r and r["seconds"] < b["seconds"]) else b for r, b in zip(rows, best_t)]
    if best_t is None:
        print(f"(Triton is not installed: python bench/patterns.py --install-triton adds {TRITON})")
    print(f"{'target':8} {'pattern':32} {'st':2} {'compiler':9} " + " ".join(f"{c:>7}" for c in COLUMNS))
    ratios = []
    for i, (target, case) in enumerate(all_cases):
        head = f"{target:8} {case[0]:32} s{case[5]} "
        r = figures(best_r[i], case[6])
        t = figures(best_t[i], case[6]) if best_t else None
        for name, f, row in [("rocktile", r, best_r[i]), ("triton", t, best_t[i] if best_t else None)]:
            if row is None:
                continue
            print(head + f"{name:9} " + (" ".join(f"{str(f[c]):>7}" for c in COLUMNS) if f else
                                          "error: " + row["error"]))
        if r and t:
            ratio = {c: (round(r[c] / t[c], 2) if r[c] and t[c] else "-") for c in COLUMNS}
            ratios.append(ratio)
            print(head + f"{'ratio':9} " + " ".join(f"{str(ratio[c]):>7}" for c in COLUMNS))
    if ratios:
        worse = {c: sum(1 for q in ratios if isinstance(q[c], float) and q[c] > 1) for c in ("kloop", "instrs", "sec")}
        print(f"\nrows where rocktile is above Triton: K loop {worse['kloop']}, whole kernel {worse['instrs']}, "
              f"compile time {worse['sec']} (of {len(ratios)})")


if __name__ == "__main__":
    main()
