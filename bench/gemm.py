"""The tutorial GEMM (examples/matmul.py), the tensor-descriptor GEMM
(examples/descriptor_matmul.py), the flash-attention forward
(examples/flash_attention.py) and the block-scaled GEMM
(examples/mxfp4_matmul.py) compiled by rocktile and by Triton 3.9, side
by side at the same num_stages: per target, tile config and dtype, what the
K loop (attention: the loop over key blocks) holds and what the kernel
uses. Not a test; read the tables.

    python bench/gemm.py                  # rocktile, and Triton if installed
    python bench/gemm.py --install-triton # first puts Triton 3.9 from PyPI into bench/.venv-triton

Triton compiles for gfx950/gfx1250 without a GPU; it runs in its own
virtualenv (a subprocess), never as a dependency of rocktile. Its kernel is
examples/matmul.py with the rocktile imports replaced by Triton's.

Both compile what a launch on row-major matrices specializes (aligned
pointers, sizes divisible by 16, unit strides as constants).

Columns, counted in the K loop's body (from the label its back edge jumps
to, up to that branch) of the amdgcn: matrix instructions, LDS reads and
writes, global loads, copies to LDS (tensor_load_to_lds, direct-to-LDS and
async loads), other VALU and SALU, waits, the waits among them whose
counter is 0, barriers, and non-matrix instructions per 16384 MACs per wave; then VGPRs, AGPRs, spills, scratch
and LDS bytes (from the code object's metadata; Triton allocates its LDS
dynamically at launch, so its code object says 0), and compile seconds
(the best of REPEATS compiles, each Triton one with a fresh cache). For
rocktile, `bank` is the emulator's measurement on one output tile (K = 2
BLOCK_K): the cycles bank conflicts add per wave-wide LDS access.
rocktile pipelines block copies (tensor descriptors on gfx1250) over
num_stages, and loads through pointers (the tutorial GEMM) at s2 into
registers (none where the tiles would not fit), at s3 into LDS by the
target's async loads where they can copy them (gfx950's direct-to-LDS
buffer loads; gfx1250's async loads take no mask, so its tutorial rows at
s3 are its s2 ones).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "examples", "matmul.py")
DESCRIPTOR_EXAMPLE = os.path.join(HERE, "..", "examples", "descriptor_matmul.py")
DESCRIPTOR_CONFIGS = [(128, 128, 64, 4), (256, 128, 64, 8)]
STAGES = (1, 2, 3)
VENV = os.path.join(HERE, ".venv-triton")
TRITON = "triton==3.9.0"
TARGETS = {"gfx950": 64, "gfx1250": 32}
CONFIGS = [(128, 128, 64, 4), (256, 128, 64, 8), (256, 256, 64, 8)]
DTYPES = {"bf16": "bf16", "fp8": "fp8e4nv"}
REPEATS = 3  # compile seconds are the best of this many compiles
os.environ["ROCKTILE_CACHE"] = "0"  # compiles, not cache reads (rocktile.cache)


# What a launch on row-major 4096x4096 matrices specializes, in both
# compilers: 16-byte aligned pointers into buffers under 2 GiB (Triton's
# tt.pointer_range = 32, rocktile's ':range32'), sizes and leading strides
# divisible by 16, unit strides compiled in as 1.
UNIT_STRIDES = ("stride_ak", "stride_bn", "stride_cn")


def signature(dtype):
    ab = f"*{DTYPES[dtype]}:16:range32"
    return {"a_ptr": ab, "b_ptr": ab, "c_ptr": "*fp32:16:range32", "bias_ptr": "*fp32:16:range32",
            "M": "i32:16", "N": "i32:16",
            "K": "i32:16", "stride_am": "i32:16", "stride_bk": "i32:16", "stride_cm": "i32:16"}


def constexprs(bm, bn, bk):
    return {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": 8,
            "HAS_BIAS": False, "ACTIVATION": "", **{s: 1 for s in UNIT_STRIDES}}


def k_loop(asm):
    loops = [body for label, body in re.findall(r"^(\.LBB\d+_\d+):(.*?)s_cbranch_\w+ \1\b", asm, re.S | re.M)
             if re.search(r"v_(mfma|wmma)", body)]
    return loops[0] if loops else ""


def count(asm, macs_per_wave):
    lines = [line.strip() for line in k_loop(asm).splitlines()
             if line.strip() and not line.strip().startswith((";", ".", "//")) and not line.strip().endswith(":")]
    body = [line.split()[0] for line in lines]
    kinds = {"matrix": r"v_(mfma|wmma)", "lds_rd": r"ds_(read|load)", "lds_wr": r"ds_(write|store)",
             "wait": r"s_wait", "barrier": r"s_barrier"}
    out = {k: sum(bool(re.match(p, op)) for op in body) for k, p in kinds.items()}
    # Copies to LDS (the TDM's, direct-to-LDS loads with an `lds` operand or
    # in their name, async loads), apart from the other global loads.
    copy = re.compile(r"tensor_load_to_lds|\S*load\S*(lds|async)|(global|buffer)_load\S*\s.*\blds\b")
    out["copies"] = sum(bool(copy.match(line)) for line in lines)
    out["gload"] = sum(bool(re.match(r"(global|buffer)_load", line)) and not copy.match(line) for line in lines)
    # Waits for a counter to reach 0 (what a schedule with copies in flight avoids).
    out["wait0"] = sum(bool(re.match(r"s_wait\w*\s+(\w+\(0\)|0x0\b|0\b)", line)) for line in lines)
    out["valu"] = sum(op.startswith("v_") for op in body) - out["matrix"]
    out["salu"] = sum(op.startswith("s_") for op in body) - out["wait"] - out["barrier"]
    other = len(body) - out["matrix"]
    out["per16k"] = round(other * 16384 / macs_per_wave, 2) if body else None
    return out


def metadata(asm):
    def field(name):
        m = re.search(rf"\.{name}:\s+(\d+)", asm)
        return int(m.group(1)) if m else None
    return {"vgpr": field("vgpr_count"), "agpr": field("agpr_count"),
            "spills": (field("vgpr_spill_count") or 0) + (field("sgpr_spill_count") or 0),
            "scratch": field("private_segment_fixed_size"), "lds": field("group_segment_fixed_size")}


def rocktile_row(target, dtype, bm, bn, bk, warps, stages):
    sys.path.insert(0, os.path.dirname(EXAMPLE))
    import rocktile
    from matmul import matmul_kernel
    seconds = []
    for _ in range(REPEATS):
        matmul_kernel.cache.clear()  # each compile a real one
        start = time.perf_counter()
        try:
            kernel = rocktile.compile(matmul_kernel, signature=signature(dtype), constexprs=constexprs(bm, bn, bk),
                                      target=target, num_warps=warps, num_stages=stages)
        except rocktile.CompilationError as e:
            return {"error": str(e).splitlines()[0].split("error: ")[-1][:60]}
        seconds.append(time.perf_counter() - start)
    seconds = min(seconds)
    return {"asm": kernel.asm["amdgcn"], "seconds": seconds,
            "bank": bank_cycles(dtype, bm, bn, bk, warps, target, stages)}


def bank_cycles(dtype, bm, bn, bk, warps, target, stages):
    import ml_dtypes
    import numpy as np
    from matmul import matmul_kernel
    np_type = {"bf16": ml_dtypes.bfloat16, "fp8": ml_dtypes.float8_e4m3fn}[dtype]
    a, b = np.ones((bm, 2 * bk), np_type), np.ones((2 * bk, bn), np_type)
    c = np.zeros((bm, bn), np.float32)
    consts = {k: v for k, v in constexprs(bm, bn, bk).items() if k not in UNIT_STRIDES}
    kernel = matmul_kernel[(1,)](a, b, c, c, bm, bn, 2 * bk, 2 * bk, 1, bn, 1, bn, 1, num_warps=warps,
                                 num_stages=stages, target=target, **consts)
    return extra_cycles_per_access(kernel)


def extra_cycles_per_access(kernel):
    """The cycles bank conflicts added per wave-wide LDS access in a launch."""
    runs = extra = 0
    for r, e in kernel.lds_bank_conflicts().values():
        runs, extra = runs + r, extra + e
    return round(extra / runs, 2) if runs else 0


# Python for Triton's interpreter: the example module (argv[1], the source
# triton_source gives) and triton.compile's arguments for a rocktile
# signature and constexprs.
TRITON_COMPILE = r"""
import importlib.util, sys
from triton.compiler import ASTSource
from triton.backends.compiler import GPUTarget
import triton
spec = importlib.util.spec_from_file_location("example_triton", sys.argv[1])
module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)


def ast_source(fn, signature, cx):
    sig = {k: v.split(":")[0] for k, v in signature.items()}
    sig.update({k: "constexpr" for k in cx})
    sig = {k: sig[k] for k in fn.arg_names}
    attrs = {(fn.arg_names.index(k),): [["tt.divisibility", 16]] * (":16" in v) + [["tt.pointer_range", 32]] * (":range32" in v)
             for k, v in signature.items() if ":" in v}
    return ASTSource(fn, sig, cx, attrs)
"""

TRITON_DRIVER = TRITON_COMPILE + r"""
import json, os, time
out = []
for job in json.loads(sys.argv[2]):
    fn = getattr(module, job["kernel"])
    source = ast_source(fn, job["signature"], job["constexprs"])
    seconds = []
    try:
        for _ in range(job["repeats"]):
            # A fresh cache for each, so that compile times are compile times.
            os.environ["TRITON_CACHE_DIR"] = os.path.join(sys.argv[3], str(len(out)), str(len(seconds)))
            start = time.perf_counter()
            ck = triton.compile(source, target=GPUTarget("hip", job["target"], job["wave"]),
                                options={"num_warps": job["warps"], "num_stages": job["stages"]})
            seconds.append(time.perf_counter() - start)
        out.append({"asm": ck.asm["amdgcn"], "seconds": min(seconds)})
    except Exception as e:
        out.append({"error": (str(e).strip().splitlines() or [type(e).__name__])[-1][:60]})
print(json.dumps(out))
"""


def triton_source(example):
    """The example's source with the rocktile imports replaced by Triton's."""
    source = open(example).read().replace("import rocktile.language as tl", "import triton.language as tl")
    return source.replace("import rocktile\n", "import triton as rocktile\n")


def triton_rows(jobs, example=EXAMPLE, timeout=None):
    """Triton's compiles of `example` with the rocktile imports replaced:
    one per job (target, wave, warps, stages, signature, constexprs, kernel);
    past `timeout` seconds, an error row for each."""
    python = os.path.join(VENV, "bin", "python")
    if not os.path.exists(python):
        return None
    source = triton_source(example)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "example_triton.py")
        with open(path, "w") as f:
            f.write(source)
        with open(os.path.join(tmp, "driver.py"), "w") as f:
            f.write(TRITON_DRIVER)
        env = dict(os.environ, TRITON_DEFAULT_FP_FUSION="1", PYTHONWARNINGS="ignore")
        jobs = [{"repeats": 1, **job} for job in jobs]
        try:
            done = subprocess.run([python, os.path.join(tmp, "driver.py"), path, json.dumps(jobs),
                                   os.path.join(tmp, "cache")],
                                  capture_output=True, text=True, env=env, timeout=timeout)
        except subprocess.TimeoutExpired:
            return [{"error": f"not done after {timeout} s"} for _ in jobs]
    if done.returncode:
        sys.exit(f"Triton failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.splitlines()[-1])


COLUMNS = ["matrix", "lds_rd", "lds_wr", "gload", "copies", "valu", "salu", "wait", "wait0", "barrier", "per16k",
           "vgpr", "agpr", "spills", "scratch", "lds", "sec", "bank"]


def parse_args(doc):
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--install-triton", action="store_true", help=f"install {TRITON} into {VENV}")
    args = parser.parse_args()
    if args.install_triton and not os.path.exists(os.path.join(VENV, "bin", "python")):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
        subprocess.run([os.path.join(VENV, "bin", "pip"), "install", "-q", TRITON, "numpy"], check=True)
    return args


def print_header():
    print(f"{'target':8} {'dtype':5} {'tile':13} {'compiler':12} " + " ".join(f"{c:>7}" for c in COLUMNS))


def print_row(head, row, macs):
    """One compiler's line: its loop's counts at `macs` per wave and iteration."""
    if "error" in row:
        print(head + "error: " + row["error"])
        return
    values = {**count(row["asm"], macs), **metadata(row["asm"]), "sec": round(row["seconds"], 2),
              "bank": row.get("bank", "-")}
    print(head + " ".join(f"{str(values[c]):>7}" for c in COLUMNS))


DESCRIPTOR_SIGNATURE = {"a_ptr": "*bf16:16:range32", "b_ptr": "*bf16:16:range32", "c_ptr": "*fp32:16:range32",
                        "M": "i32:16", "N": "i32:16", "K": "i32:16", "stride_am": "i32:16", "stride_bk": "i32:16",
                        "stride_cm": "i32:16"}


def descriptor_row(target, bm, bn, bk, warps, stages):
    sys.path.insert(0, os.path.dirname(EXAMPLE))
    import rocktile
    from descriptor_matmul import matmul_descriptor_kernel
    start = time.perf_counter()
    kernel = rocktile.compile(matmul_descriptor_kernel, DESCRIPTOR_SIGNATURE,
                              {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk}, target=target, num_warps=warps,
                              num_stages=stages)
    return {"asm": kernel.asm["amdgcn"], "seconds": time.perf_counter() - start}


def descriptor_table():
    """The descriptor GEMM at num_stages 1, 2 and 3 in both compilers."""
    cases = [(t, c, s) for t in TARGETS for c in DESCRIPTOR_CONFIGS for s in STAGES]
    jobs = [{"target": t, "wave": TARGETS[t], "warps": c[3], "stages": s, "signature": DESCRIPTOR_SIGNATURE,
             "constexprs": {"BLOCK_M": c[0], "BLOCK_N": c[1], "BLOCK_K": c[2]}, "kernel": "matmul_descriptor_kernel"}
            for t, c, s in cases]
    print("\nexamples/descriptor_matmul.py (tensor descriptors)")
    print_bf16_table(cases, triton_rows(jobs, DESCRIPTOR_EXAMPLE), descriptor_row, lambda bm, bn, bk: bm * bn * bk)


def print_bf16_table(cases, triton, rocktile_row, macs):
    """Rows of bf16 cases (target, (M, N, K blocks, warps), stages): rocktile's
    (`rocktile_row(target, *blocks, warps, stages)`) and Triton's (`triton`,
    one per case, if installed); `macs(*blocks)` per workgroup and iteration."""
    print_header()
    for i, (target, (*blocks, warps), stages) in enumerate(cases):
        rows = [(f"rocktile s{stages}", rocktile_row(target, *blocks, warps, stages))]
        rows += [(f"triton s{stages}", triton[i])] if triton else []
        for name, row in rows:
            tile = "x".join(map(str, blocks)) + f" w{warps}"
            print_row(f"{target:8} {'bf16':5} {tile:13} {name:12} ", row, macs(*blocks) / warps)


ATTENTION_EXAMPLE = os.path.join(HERE, "..", "examples", "flash_attention.py")
ATTENTION_CONFIGS = [(128, 64, 64, 4), (128, 64, 128, 4), (128, 32, 128, 8)]  # BLOCK_M, BLOCK_N, HEAD_DIM, warps
# A launch on contiguous bf16 tensors: aligned pointers into buffers under
# 2 GiB, lengths and strides divisible by 16.
ATTENTION_SIGNATURE = {**{p: "*bf16:16:range32" for p in ("q_ptr", "k_ptr", "v_ptr", "o_ptr")}, "sm_scale": "fp32",
                       "N_Q": "i32:16", "N_KV": "i32:16",
                       **{s: "i32:16" for s in ("stride_qh", "stride_qm", "stride_kh", "stride_kn", "stride_vh",
                                                "stride_vn", "stride_oh", "stride_om")}}


def attention_constexprs(bm, bn, d):
    return {"HEAD_DIM": d, "BLOCK_M": bm, "BLOCK_N": bn, "CAUSAL": False}


def attention_row(target, bm, bn, d, warps, stages):
    sys.path.insert(0, os.path.dirname(ATTENTION_EXAMPLE))
    import ml_dtypes
    import numpy as np
    import rocktile
    from flash_attention import attention_kernel
    start = time.perf_counter()
    kernel = rocktile.compile(attention_kernel, ATTENTION_SIGNATURE, attention_constexprs(bm, bn, d), target=target,
                              num_warps=warps, num_stages=stages)
    seconds = time.perf_counter() - start
    # The bank conflicts on one block of queries over two key blocks.
    n = 2 * bn
    q, kv = np.ones((bm, d), ml_dtypes.bfloat16), np.ones((n, d), ml_dtypes.bfloat16)
    o = np.empty_like(q)
    launched = attention_kernel[(1, 1)](q, kv, kv, o, 0.125, bm, n, bm * d, d, n * d, d, n * d, d, bm * d, d,
                                        num_warps=warps, num_stages=stages, target=target,
                                        **attention_constexprs(bm, bn, d))
    return {"asm": kernel.asm["amdgcn"], "seconds": seconds, "bank": extra_cycles_per_access(launched)}


def attention_table():
    """examples/flash_attention.py's forward at num_stages 1 and 2 in both
    compilers: the loop counted is the one over key blocks, and MACs per
    wave are those of its two dots, BLOCK_M x BLOCK_N x HEAD_DIM each."""
    cases = [(t, c, s) for t in TARGETS for c in ATTENTION_CONFIGS for s in (1, 2)]
    jobs = [{"target": t, "wave": TARGETS[t], "warps": c[3], "stages": s, "signature": ATTENTION_SIGNATURE,
             "constexprs": attention_constexprs(*c[:3]), "kernel": "attention_kernel"} for t, c, s in cases]
    print("\nexamples/flash_attention.py (bf16, not causal)")
    print_bf16_table(cases, triton_rows(jobs, ATTENTION_EXAMPLE), attention_row, lambda bm, bn, d: 2 * bm * bn * d)


SCALED_EXAMPLE = os.path.join(HERE, "..", "examples", "mxfp4_matmul.py")
SCALED_LABELS = {("e2m1", "e2m1"): "mx4", ("bf16", "e2m1"): "bf-4", ("e4m3", "e4m3"): "mx8"}
SCALED_CONFIG = (128, 128, 128, 4)


def scaled_signature(a_format):
    return {"a_ptr": "*bf16:16:range32" if a_format == "bf16" else "*u8:16:range32",
            **{p: "*u8:16:range32" for p in ("a_scale_ptr", "b_ptr", "b_scale_ptr")}, "c_ptr": "*fp32:16:range32",
            **{p: "i32:16" for p in ("M", "N", "K", "stride_am", "stride_bk", "stride_cm", "stride_asm", "stride_bsn")}}


def scaled_constexprs(a_format, b_format):
    bm, bn, bk, _ = SCALED_CONFIG
    return {"A_FORMAT": a_format, "B_FORMAT": b_format, "SCALE_FORMAT": "e8m0", "BLOCK_M": bm, "BLOCK_N": bn,
            "BLOCK_K": bk}


def scaled_table():
    """examples/mxfp4_matmul.py's tl.dot_scaled at num_stages 1: both on the
    scaled matrix instructions for MXFP8 and MXFP4; for bf16 x MXFP4 rocktile
    converts the MXFP4 side to bf16 with the targets' scaled conversions
    (tile.scaled_upcast), in the registers of the bf16 instructions' operand."""
    sys.path.insert(0, os.path.dirname(SCALED_EXAMPLE))
    import rocktile
    from mxfp4_matmul import mx_matmul_kernel
    bm, bn, bk, warps = SCALED_CONFIG
    cases = [(t, pair) for t in TARGETS for pair in SCALED_LABELS]
    jobs = [{"target": t, "wave": TARGETS[t], "warps": warps, "stages": 1, "signature": scaled_signature(a),
             "constexprs": scaled_constexprs(a, b), "kernel": "mx_matmul_kernel"} for t, (a, b) in cases]
    triton = triton_rows(jobs, SCALED_EXAMPLE)
    print("\nexamples/mxfp4_matmul.py (tl.dot_scaled, E8M0 scales; mx4 MXFP4 x MXFP4, bf-4 bf16 x MXFP4, "
          "mx8 MXFP8 x MXFP8)")
    print_header()
    for i, (target, (a, b)) in enumerate(cases):
        start = time.perf_counter()
        kernel = rocktile.compile(mx_matmul_kernel, scaled_signature(a), scaled_constexprs(a, b), target=target,
                                  num_warps=warps, num_stages=1)
        rows = [("rocktile s1", {"asm": kernel.asm["amdgcn"], "seconds": time.perf_counter() - start})]
        rows += [("triton s1", triton[i])] if triton else []
        for name, row in rows:
            print_row(f"{target:8} {SCALED_LABELS[(a, b)]:5} {f'{bm}x{bn}x{bk} w{warps}':13} {name:12} ", row, bm * bn * bk / warps)


def main():
    parse_args(__doc__)

    cases = [(t, d, c) for t in TARGETS for d in DTYPES for c in CONFIGS]
    jobs, keys = [], []
    for target, dtype, (bm, bn, bk, warps) in cases:
        for stages in STAGES:
            jobs.append({"target": target, "wave": TARGETS[target], "warps": warps, "stages": stages,
                         "signature": signature(dtype), "constexprs": constexprs(bm, bn, bk),
                         "kernel": "matmul_kernel", "repeats": REPEATS})
            keys.append((target, dtype, (bm, bn, bk, warps), stages))
    triton = triton_rows(jobs)
    triton = dict(zip(keys, triton)) if triton else {}
    if not triton:
        print(f"(Triton is not installed: python bench/gemm.py --install-triton adds {TRITON})")

    print_header()
    for target, dtype, (bm, bn, bk, warps) in cases:
        rows = []
        for s in STAGES:
            rows.append((f"rocktile s{s}", rocktile_row(target, dtype, bm, bn, bk, warps, s)))
            rows += [(f"triton s{s}", triton[(target, dtype, (bm, bn, bk, warps), s)])] if triton else []
        for name, row in rows:
            print_row(f"{target:8} {dtype:5} {f'{bm}x{bn}x{bk} w{warps}':13} {name:12} ", row, bm * bn * bk / warps)
    descriptor_table()
    attention_table()
    scaled_table()


if __name__ == "__main__":
    main()
