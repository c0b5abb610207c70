"""The explicit level beside Triton's: examples/gluon_matmul.py's Gluon
GEMMs (through the author's shared memory on gfx950's MFMA and gfx1250's
WMMA; on gfx950 through a ring filled by direct-to-LDS loads, on gfx1250
through a Tensor Data Mover ring) compiled by rocktile
and, with its imports replaced, by Triton 3.9's Gluon; and beside them the same GEMM in the tile language
(examples/matmul.py, Triton's tutorial kernel, at 1 and 2 stages) as
rocktile compiles it, which is how close the tile compiler comes to the
hand-laid kernel. Columns as bench/gemm.py's (the K loop's instructions,
non-matrix instructions per 16384 MACs per wave, registers, spills, LDS,
compile seconds; `bank`: the emulator's extra cycles per wave-wide LDS
access, rocktile only). Not a test; read the table.

    python bench/gluon.py                  # rocktile, and Triton if installed
    python bench/gluon.py --install-triton # first puts Triton 3.9 from PyPI into bench/.venv-triton
"""
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "examples"))
import gemm  # noqa: E402  (bench/gemm.py: columns, counting, Triton's virtualenv)

EXAMPLES = os.path.join(HERE, "..", "examples")
CONFIGS = [(128, 128, 64, 4), (256, 128, 64, 8)]
# MXFP4: (BLOCK_M, BLOCK_N, BLOCK_K, warps), K in e2m1 elements.
MXFP4_CONFIGS = [(64, 64, 128, 4), (128, 128, 128, 4)]
MXFP4_SIGNATURE = {"a_ptr": "*u8:16:range32", "a_scale_ptr": "*u8:16:range32", "b_ptr": "*u8:16:range32",
                   "b_scale_ptr": "*u8:16:range32", "c_ptr": "*fp32:16:range32", "M": "i32:16", "N": "i32:16",
                   "K": "i32:16", "stride_am": "i32:16", "stride_bk": "i32:16", "stride_cm": "i32:16",
                   "stride_asm": "i32", "stride_bsn": "i32"}
# Attention: (HEAD_DIM, BLOCK_M, BLOCK_N, warps); its loop makes two
# products of BLOCK_M x BLOCK_N x HEAD_DIM MACs.
ATTENTION_CONFIGS = [(64, 64, 64, 4), (128, 128, 64, 8)]
ATTENTION_SIGNATURE = {"q_ptr": "*bf16:16:range32", "k_ptr": "*bf16:16:range32", "v_ptr": "*bf16:16:range32",
                       "o_ptr": "*bf16:16:range32", "N_CTX": "i32:16", "sm_scale": "fp32"}
SIGNATURE = {"a_ptr": "*bf16:16:range32", "b_ptr": "*bf16:16:range32", "c_ptr": "*fp32:16:range32",
             "M": "i32:16", "N": "i32:16", "K": "i32:16", "stride_am": "i32:16", "stride_bk": "i32:16",
             "stride_cm": "i32:16"}

# Triton's side: the example with Triton's imports, its layouts() for the
# constexprs, compiled as a Gluon kernel.
TRITON_DRIVER = r"""
import importlib.util, inspect, json, os, sys, time
import triton
from triton.backends.compiler import GPUTarget
from triton.experimental.gluon._runtime import GluonASTSource
modules = {}
out = []
for job in json.loads(sys.argv[2]):
    if job["example"] not in modules:
        spec = importlib.util.spec_from_file_location(job["example"][:-3], os.path.join(sys.argv[1], job["example"]))
        modules[job["example"]] = importlib.util.module_from_spec(spec); spec.loader.exec_module(modules[job["example"]])
    module = modules[job["example"]]
    fn = getattr(module, job["kernel"])
    cx = getattr(module, job["layouts"])(*job["layout_args"])
    defaults = {p.name: p.default for p in inspect.signature(fn.fn).parameters.values() if p.default is not p.empty}
    cx = {**{k: v for k, v in defaults.items() if k not in job["signature"]}, **cx}
    sig = {k: v.split(":")[0] for k, v in job["signature"].items()}
    sig.update({k: "constexpr" for k in cx})
    sig = {k: sig[k] for k in fn.arg_names}
    attrs = {(fn.arg_names.index(k),): [["tt.divisibility", 16]] * (":16" in v) + [["tt.pointer_range", 32]] * (":range32" in v)
             for k, v in job["signature"].items() if ":" in v}
    try:
        os.environ["TRITON_CACHE_DIR"] = os.path.join(sys.argv[3], str(len(out)))
        start = time.perf_counter()
        ck = triton.compile(GluonASTSource(fn, sig, cx, attrs), target=GPUTarget("hip", job["target"], job["wave"]),
                            options={"num_warps": job["warps"]})
        out.append({"asm": ck.asm["amdgcn"], "seconds": time.perf_counter() - start})
    except Exception as e:
        out.append({"error": (str(e).strip().splitlines() or [type(e).__name__])[-1][:60]})
print(json.dumps(out))
"""


def triton_source(example):
    source = open(os.path.join(EXAMPLES, example)).read()
    source = source.replace("from rocktile import gluon\n", "from triton.experimental import gluon\n")
    source = source.replace("import rocktile.gluon.language as gl", "import triton.experimental.gluon.language as gl")
    return source.replace("import rocktile\n", "import triton as rocktile\n")


def triton_rows(jobs):
    python = os.path.join(gemm.VENV, "bin", "python")
    if not os.path.exists(python):
        return None
    with tempfile.TemporaryDirectory() as tmp:
        for example in {job["example"] for job in jobs}:
            with open(os.path.join(tmp, example), "w") as f:
                f.write(triton_source(example))
        driver = os.path.join(tmp, "driver.py")
        with open(driver, "w") as f:
            f.write(TRITON_DRIVER)
        env = dict(os.environ, TRITON_DEFAULT_FP_FUSION="1", PYTHONWARNINGS="ignore")
        done = subprocess.run([python, driver, tmp, json.dumps(jobs), os.path.join(tmp, "cache")],
                              capture_output=True, text=True, env=env)
    if done.returncode:
        sys.exit(f"Triton failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.splitlines()[-1])


def gluon_row(job):
    import importlib
    import ml_dtypes
    import numpy as np
    import rocktile
    example = importlib.import_module(job["example"][:-3])
    kernel, cx = getattr(example, job["kernel"]), getattr(example, job["layouts"])(*job["layout_args"])
    target, warps = job["target"], job["warps"]
    kernel.cache.clear()
    start = time.perf_counter()
    try:
        compiled = rocktile.compile(kernel, signature=job["signature"], constexprs=cx, target=target, num_warps=warps)
    except rocktile.CompilationError as e:
        return {"error": str(e).splitlines()[0].split("error: ")[-1][:60]}
    seconds = time.perf_counter() - start
    if job["example"] == "gluon_mxfp4_matmul.py":
        bm, bn, bk = cx["BLOCK_M"], cx["BLOCK_N"], cx["BLOCK_K"]
        a, b = np.zeros((bm, bk), np.uint8), np.zeros((bk, bn), np.uint8)
        launched = kernel[(1, 1)](a, np.full((bm, bk // 16), 127, np.uint8), b, np.full((bn, bk // 16), 127, np.uint8),
                                  np.zeros((bm, bn), np.float32), bm, bn, 2 * bk, bk, bn, bn, bk // 16, bk // 16,
                                  **cx, target=target, num_warps=warps)
        return {"asm": compiled.asm["amdgcn"], "seconds": seconds, "bank": gemm.extra_cycles_per_access(launched)}
    if job["example"] == "gluon_attention.py":
        bm, bn, d = cx["BLOCK_M"], cx["BLOCK_N"], cx["HEAD_DIM"]
        q = np.ones((1, bm, d), ml_dtypes.bfloat16)
        kv = np.ones((1, 2 * bn, d), ml_dtypes.bfloat16)
        launched = kernel[(1, 1)](q, kv, kv, np.zeros_like(q), bm, 0.125, **cx, target=target, num_warps=warps)
        return {"asm": compiled.asm["amdgcn"], "seconds": seconds, "bank": gemm.extra_cycles_per_access(launched)}
    bm, bn, bk = cx["BLOCK_M"], cx["BLOCK_N"], cx["BLOCK_K"]
    dtype = ml_dtypes.float8_e4m3fn if job["dtype"] == "fp8" else ml_dtypes.bfloat16
    a, b = np.ones((bm, 2 * bk), dtype), np.ones((2 * bk, bn), dtype)
    c = np.zeros((bm, bn), np.float32)
    launched = kernel[(1, 1)](a, b, c, bm, bn, 2 * bk, 2 * bk, bn, bn, **cx, target=target, num_warps=warps)
    return {"asm": compiled.asm["amdgcn"], "seconds": seconds, "bank": gemm.extra_cycles_per_access(launched)}


def main():
    gemm.parse_args(__doc__)
    jobs = []
    for target, wave in gemm.TARGETS.items():
        for bm, bn, bk, warps in CONFIGS:
            base = {"target": target, "wave": wave, "warps": warps, "signature": SIGNATURE, "tile": (bm, bn, bk),
                    "dtype": "bf16", "example": "gluon_matmul.py"}
            jobs.append({**base, "kernel": "gluon_matmul_kernel", "layouts": "layouts", "name": "gl",
                         "layout_args": [target, bm, bn, bk, warps]})
            if target == "gfx950":  # direct-to-LDS loads into a ring of 3
                jobs.append({**base, "kernel": "gluon_async_matmul_kernel", "layouts": "async_layouts",
                             "name": "gl async", "layout_args": [bm, bn, bk, warps, 3]})
            if target == "gfx1250":  # the Tensor Data Mover ring, 3 stages
                jobs.append({**base, "kernel": "gluon_tdm_matmul_kernel", "layouts": "tdm_layouts", "name": "gl tdm",
                             "layout_args": [bm, bn, bk, warps, 3]})
                # and for fp8 (e4m3), on WMMA 16x16x128 with K blocks of 128
                jobs.append({**base, "kernel": "gluon_tdm_matmul_kernel", "layouts": "tdm_layouts", "name": "gl tdm",
                             "layout_args": [bm, bn, 128, warps, 3, True], "tile": (bm, bn, 128), "dtype": "fp8",
                             "signature": {**SIGNATURE, "a_ptr": "*fp8e4nv:16:range32",
                                           "b_ptr": "*fp8e4nv:16:range32"}})
    for target, wave in gemm.TARGETS.items():  # MXFP4 on the block-scaled instructions
        for bm, bn, bk, warps in MXFP4_CONFIGS:
            jobs.append({"target": target, "wave": wave, "warps": warps, "signature": MXFP4_SIGNATURE,
                         "tile": (bm, bn, bk), "dtype": "mxfp4", "example": "gluon_mxfp4_matmul.py",
                         "kernel": "gluon_mxfp4_matmul_kernel", "layouts": "mxfp4_layouts", "name": "gl mx",
                         "layout_args": [target, bm, bn, bk, warps]})
    for d, bm, bn, warps in ATTENTION_CONFIGS:  # attention forward, gfx1250
        jobs.append({"target": "gfx1250", "wave": 32, "warps": warps, "signature": ATTENTION_SIGNATURE,
                     "tile": (bm, bn, d), "dtype": "bf16", "example": "gluon_attention.py",
                     "kernel": "gluon_attention_kernel", "layouts": "attention_layouts", "name": "gl attn",
                     "layout_args": [d, bm, bn, warps, 3]})
    triton = triton_rows(jobs)
    print("Gluon GEMMs (examples/gluon_matmul.py, bf16; gl: loads -> LDS -> matrix operands each K step; gl async: "
          "direct-to-LDS loads into a ring of 3; gl tdm: Tensor Data Mover ring of 3, bf16 and fp8) beside the tile-language GEMM "
          "(examples/matmul.py); gl mx: examples/gluon_mxfp4_matmul.py (MXFP4 on the block-scaled instructions); "
          "gl attn: examples/gluon_attention.py (tile: BLOCK_M x BLOCK_N x HEAD_DIM, two products per iteration)")
    gemm.print_header()
    for i, job in enumerate(jobs):
        target, warps, (bm, bn, bk) = job["target"], job["warps"], job["tile"]
        macs = bm * bn * bk // warps * (2 if job["kernel"] == "gluon_attention_kernel" else 1)
        head = f"{target:8} {job['dtype']:5} {f'{bm}x{bn}x{bk} w{warps}':13} "
        gemm.print_row(head + f"{'rocktile ' + job['name']:12} ", gluon_row(job), macs)
        if triton:
            gemm.print_row(head + f"{'Triton ' + job['name']:12} ", triton[i], macs)
        if job["kernel"] != "gluon_tdm_matmul_kernel":
            for stages in ((1, 2) if job["kernel"] == "gluon_matmul_kernel" else (3,)):
                gemm.print_row(head + f"{f'rocktile tl s{stages}':12} ",
                               gemm.rocktile_row(target, "bf16", bm, bn, bk, warps, stages), macs)
    if not triton:
        print("(Triton's columns: python bench/gluon.py --install-triton)")


if __name__ == "__main__":
    main()
