"""rocktile in two minutes (`make demo`): the headline kernels of examples/
compiled for gfx950 (MI355X) and gfx1250 (MI455X), with the matrix
instructions and copies each compiles to and its resources; each run in the
CPU emulator on ragged shapes against numpy; the emulator catching a broken
kernel (examples/broken_mask.py); pictures of an LDS bank map and of a
software pipeline; and, if Triton 3.9 is installed in bench's virtualenv
(`python bench/gemm.py --install-triton`), the GEMMs beside Triton's.

    python examples/demo.py [--out DIR]   # the pictures go to DIR (default: demo-out/)
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

import ml_dtypes
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import rocktile  # noqa: E402
from rocktile import _C, pictures, quantization  # noqa: E402

TARGETS = ("gfx950", "gfx1250")
rng = np.random.default_rng(0)


def matrix_instructions(asm):
    return ",".join(sorted(set(re.findall(r"^\s*(v_(?:mfma|wmma)\w*)", asm, re.M)))) or "-"


def copies_to_lds(asm):
    """How the kernel's tiles reach LDS, from its instructions."""
    ways = [("TDM tensor_load_to_lds", r"tensor_load_to_lds"), ("async global_load_async_to_lds", r"load_async_to_lds"),
            ("direct-to-LDS buffer_load ... lds", r"(buffer|global)_load\w*\s[^\n]*\blds\b|global_load_lds"),
            ("registers -> ds_write", r"ds_(write|store)")]
    return next((name for name, pattern in ways if re.search(pattern, asm)), "-")


# Each case: (title, targets, run(target) -> (the @jit function launched, shape, max |error|, tolerance)).
def gemm(dtype):
    def run(target):
        from matmul import matmul_kernel, reference
        M, N, K = 300, 208, 240  # ragged: no dimension a multiple of its block (rows 16-element aligned)
        a = rng.standard_normal((M, K)).astype(dtype)
        b = rng.standard_normal((K, N)).astype(dtype)
        c = np.empty((M, N), np.float32)
        matmul_kernel[(rocktile.cdiv(M, 128) * rocktile.cdiv(N, 128),)](
            a, b, c, c, M, N, K, K, 1, N, 1, N, 1, BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=64,
            GROUP_SIZE_M=8, HAS_BIAS=False, ACTIVATION="", num_warps=4, num_stages=3, target=target)
        return matmul_kernel, f"{M}x{N}x{K}", np.abs(c - reference(a, b)).max(), 1e-3
    return run


def descriptor_gemm(target):
    from descriptor_matmul import matmul, matmul_descriptor_kernel
    M, N, K = 300, 208, 240
    a = rng.standard_normal((M, K)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((K, N)).astype(ml_dtypes.bfloat16)
    c = matmul(a, b, target=target, blocks=(128, 128, 64), num_stages=3)
    want = a.astype(np.float32) @ b.astype(np.float32)
    return matmul_descriptor_kernel, f"{M}x{N}x{K}", np.abs(c - want).max(), 1e-3


def attention(target):
    from flash_attention import attention, attention_kernel, attention_reference
    q, k, v = (rng.standard_normal((2, n, 64)).astype(ml_dtypes.bfloat16) for n in (200, 150, 150))
    o = attention(q, k, v, causal=True, target=target, blocks=(128, 64), num_stages=2)
    return attention_kernel, "2 heads, 200 x 150, d64, causal", \
        np.abs(o.astype(np.float64) - attention_reference(q, k, v, causal=True)).max(), 2e-2


def mx_gemm(scales):
    def run(target):
        from mxfp4_matmul import mx_matmul, mx_matmul_kernel, nvfp4_matmul
        x, w = rng.standard_normal((200, 256)), rng.standard_normal((256, 150))
        if scales == "nvfp4":
            c, (xa, xs, xg), (wb, ws, wg) = nvfp4_matmul(x, w, target=target, blocks=(128, 128, 128))
            want = (quantization.dequantize_nvfp4(xa, xs, xg, axis=1).astype(np.float64) @
                    quantization.dequantize_nvfp4(wb, ws, wg, axis=0).astype(np.float64))
        else:
            (xa, xs), (wb, ws) = quantization.quantize_mx(x, "e2m1", axis=1), quantization.quantize_mx(w, "e2m1", axis=0)
            c = mx_matmul(xa, xs, "e2m1", wb, ws, "e2m1", target=target, blocks=(128, 128, 128))
            want = (quantization.dequantize_mx(xa, xs, "e2m1", axis=1).astype(np.float64) @
                    quantization.dequantize_mx(wb, ws, "e2m1", axis=0).astype(np.float64))
        return mx_matmul_kernel, "200x150x256", np.abs(c - want).max(), 1e-3
    return run


CASES = [("GEMM bf16 (tutorial, 128x128x64, 3 stages)", TARGETS, gemm(ml_dtypes.bfloat16)),
         ("GEMM fp8 e4m3 (tutorial, 128x128x64, 3 stages)", TARGETS, gemm(ml_dtypes.float8_e4m3fn)),
         ("GEMM bf16 (tensor descriptors, 3 stages)", TARGETS, descriptor_gemm),
         ("flash attention bf16 (128x64, 2 stages)", TARGETS, attention),
         ("MXFP4 x MXFP4 GEMM (tl.dot_scaled)", TARGETS, mx_gemm("mxfp4")),
         ("NVFP4 x NVFP4 GEMM (E4M3 scales per 16)", ("gfx1250",), mx_gemm("nvfp4"))]


def run_case(case, target):
    """(compile row, emulator row, tile IR) of one case on one target."""
    title, _, run = case
    start = time.perf_counter()
    fn, shape, err, tol = run(target)
    first = time.perf_counter() - start
    kernel = next(k for spec, k in fn.cache.items() if target in repr(spec))
    start = time.perf_counter()
    run(target)  # compiled now: this launch's time is the emulator's alone
    emulated = time.perf_counter() - start
    md, asm = kernel.metadata, kernel.asm["amdgcn"]
    compiled = [title, target, matrix_instructions(asm), copies_to_lds(asm), md["vgpr_count"], md["agpr_count"],
                md["vgpr_spill_count"] + md["sgpr_spill_count"], md["lds_bytes"], md["occupancy"],
                f"{first - emulated:.1f}"]
    emulator = [title, target, shape, f"{err:.1e}", "ok" if err <= tol else f"FAILS (> {tol:g})",
                f"{emulated:.2f} s"]
    fn.cache.clear()  # the next case's lookup finds its own kernel
    return compiled, emulator, kernel.asm["tile"]


def run_target(target):
    return [run_case(case, target) for case in CASES if target in case[1]]


def sanitizer():
    from broken_mask import scale
    lines = []
    for target in TARGETS:
        try:
            scale(np.ones(1000, np.float32), 2.0, target=target)
            lines.append(f"{target}: NOT CAUGHT")
        except rocktile.EmulatorError as e:
            lines += [f"{target}: rocktile.EmulatorError: {line.strip()}" if not i else f"  {line.strip()}"
                      for i, line in enumerate(str(e).strip().splitlines())]
    return lines


def draw(out, tile_irs):
    """Writes the pictures; returns their paths."""
    from matmul import matmul_kernel
    os.makedirs(out, exist_ok=True)
    # The tutorial GEMM at one stage exchanges its operands through LDS; B
    # (64x128 bf16, K down the rows) to the MFMA's B layout.
    signature = {**{p: "*bf16:16:range32" for p in ("a_ptr", "b_ptr")}, "c_ptr": "*fp32:16:range32",
                 "bias_ptr": "*fp32:16:range32", **{n: "i32:16" for n in ("M", "N", "K", "stride_am", "stride_bk",
                                                                           "stride_cm")}}
    constexprs = dict(BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=64, GROUP_SIZE_M=8, HAS_BIAS=False,
                      ACTIVATION="", stride_ak=1, stride_bn=1, stride_cn=1)
    kernel = rocktile.compile(matmul_kernel, signature, constexprs, target="gfx950", num_warps=4, num_stages=1)
    b_from, b_to = pictures.lds_exchanges(kernel.asm["tile"])[1]
    banks = os.path.join(out, "gfx950-gemm-B-lds-banks.svg")
    with open(banks, "w") as f:
        f.write(pictures.lds_bank_svg(b_from, b_to, "gfx950", "tutorial GEMM, operand B (64x128 bf16) "
                                      "through LDS to v_mfma_f32_16x16x32_bf16"))
    pipeline = os.path.join(out, "gfx1250-descriptor-gemm-pipeline.svg")
    with open(pipeline, "w") as f:
        f.write(pictures.pipeline_svg(pictures.copy_schedule(tile_irs["gfx1250"]), 6,
                                      "gfx1250 descriptor GEMM, num_stages=3: Tensor Data Mover copies"))
    return [banks, pipeline]


def beside_triton():
    """Rows of each GEMM's K loop, rocktile's and Triton 3.9's, compiled from
    one source as bench/gemm.py compiles them, if bench's virtualenv has
    Triton; else None. (Triton 3.9 has no NVFP4 dot_scaled.)"""
    sys.path.insert(0, os.path.join(HERE, "..", "bench"))
    import gemm as bench
    from descriptor_matmul import matmul_descriptor_kernel
    from matmul import matmul_kernel
    from mxfp4_matmul import mx_matmul_kernel
    groups = [(bench.EXAMPLE, matmul_kernel, [(f"GEMM {d} 128x128x64 s3", bench.signature(d),
                                                bench.constexprs(128, 128, 64), 3) for d in ("bf16", "fp8")]),
              (bench.DESCRIPTOR_EXAMPLE, matmul_descriptor_kernel,
               [("descriptor GEMM bf16 128x128x64 s3", bench.DESCRIPTOR_SIGNATURE,
                 {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, 3)]),
              (bench.SCALED_EXAMPLE, mx_matmul_kernel, [("MXFP4 GEMM 128x128x128 s1", bench.scaled_signature("e2m1"),
                                                         bench.scaled_constexprs("e2m1", "e2m1"), 1)])]
    rows = []
    for example, fn, cases in groups:
        jobs = [dict(target=t, wave=wave, warps=4, stages=stages, kernel=fn.__name__, signature=sig, constexprs=cx)
                for t, wave in bench.TARGETS.items() for _, sig, cx, stages in cases]
        theirs = bench.triton_rows(jobs, example, timeout=300)
        if theirs is None:
            return None
        labels = [label for _ in bench.TARGETS for label, *_ in cases]
        for job, label, row in zip(jobs, labels, theirs):
            kernel = rocktile.compile(fn, job["signature"], job["constexprs"], target=job["target"], num_warps=4,
                                      num_stages=job["stages"])
            blocks = [v for k, v in job["constexprs"].items() if re.fullmatch(r"BLOCK_(SIZE_)?[MNK]", k)]
            macs = blocks[0] * blocks[1] * blocks[2] / 4
            ours = bench.count(kernel.asm["amdgcn"], macs)["per16k"]
            other = bench.count(row["asm"], macs)["per16k"] if "asm" in row else row["error"]
            rows.append([job["target"], label, ours, other, f"{ours / other:.2f}" if "asm" in row else "-"])
    return sorted(rows, key=lambda r: r[0] != "gfx950")


def table(title, header, rows):
    cells = [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in [header] + cells) for i in range(len(header))]
    line = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731
    return "\n".join([title, line(header), line(["-" * w for w in widths])] + [line(r) for r in cells])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="demo-out", help="directory for the pictures")
    parser.add_argument("--target", help=argparse.SUPPRESS)  # a worker: one target's cases, as JSON
    args = parser.parse_args()
    os.environ.setdefault("ROCKTILE_CACHE", "0")  # show compiles, not cache reads
    if args.target:
        json.dump(run_target(args.target), sys.stdout)
        return
    start = time.perf_counter()
    print(f"rocktile {rocktile.__version__} ({rocktile.__file__}), LLVM {_C.llvm_version}; "
          f"no GPU: kernels run in rocktile's CPU emulator\n", flush=True)
    # A process per target, so that both cores work.
    workers = {t: subprocess.Popen([sys.executable, __file__, "--target", t], stdout=subprocess.PIPE, text=True)
               for t in TARGETS}
    results = {}
    for target, worker in workers.items():
        out, _ = worker.communicate()
        if worker.returncode:
            sys.exit(f"demo: the {target} cases failed (exit {worker.returncode})")
        results[target] = json.loads(out)
    compiled = [r[0] for t in TARGETS for r in results[t]]
    emulated = [r[1] for t in TARGETS for r in results[t]]
    compiled.sort(key=lambda r: [c[0] for c in CASES].index(r[0]))
    emulated.sort(key=lambda r: [c[0] for c in CASES].index(r[0]))
    print(table("Compiled (the kernels as launched below)",
                ["kernel", "target", "matrix instructions", "copies to LDS", "VGPRs", "AGPRs", "spills",
                 "LDS bytes", "waves/SIMD", "compile s"], compiled), end="\n\n")
    print(table("Run in the CPU emulator against numpy (ragged shapes)",
                ["kernel", "target", "shape", "max |error|", "", "emulated"], emulated), end="\n\n")
    print("The emulator as a sanitizer: examples/broken_mask.py's mask lets the last program touch one element "
          "past the end")
    for line in sanitizer():
        print("  " + line)
    tile_irs = {t: r[2] for t in TARGETS for r in results[t] if r[0][0].startswith("GEMM bf16 (tensor")}
    print("\nPictures (SVG):")
    for path in draw(args.out, tile_irs):
        print("  " + path)
    triton = beside_triton()
    if triton is None:
        print("\nTriton 3.9 is not installed in bench/.venv-triton (python bench/gemm.py --install-triton): "
              "no side-by-side lines")
    else:
        print("\n" + table("Beside Triton 3.9: non-matrix instructions per 16k MACs in the K loop (lower is better)",
                           ["target", "kernel", "rocktile", "Triton", "ratio"], triton))
    print(f"\ndemo took {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
