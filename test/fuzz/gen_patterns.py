"""Fuzz kind `pattern`: kernels as users write them, in the shapes the
random-program fuzzer (gen_kernels) does not reach. Each seed picks one
family and random parameters for it, writes the kernel to a file, runs it
in the emulator on gfx950 and gfx1250 and checks it against numpy:

- dot: K loops of `tl.dot` in fp16, bf16, fp8 e4m3 and e5m2, tiles 16-128,
  ragged M, N and K under masks, B row- or column-major, the accumulator
  folded three ways (`acc += tl.dot(a, b)`, `acc = acc + tl.dot(a, b)`,
  `tl.dot(a, b, acc)`), 1-3 pipeline stages, 1-8 warps, a grid over
  program_id(0), (1) and a batch on (2), fp32 or fp16 results;
- dot_scaled: MX operands (e2m1, e4m3, e5m2, or bf16) with E8M0 scales;
- descriptor: tensor descriptors loading and storing ragged tiles;
- block_ptr: block pointers advanced along a row with boundary checks;
- atomics: add, max, min, and, or, xor on colliding addresses, with
  masks and every `sem` and `scope`, and scalar counters whose old values
  must be a permutation;
- scan: cumsum, cumprod, an associative_scan through a `@jit` combine
  function, gather and flip along either axis of a 2-D tile, and sort
  along its last (as Triton's);
- control: early returns, `@jit` helpers, `continue`, `break` out of a
  static_range, 64-bit offsets beyond 2^32 that cancel, num_warps 8, and
  tiles large enough to spill.

Inputs are small integers (or halves) wherever the arithmetic allows, so
that dot products are exact in fp32 and a mismatch is a bug, not rounding.
"""
import importlib.util
import os

import numpy as np

TARGETS = ("gfx950", "gfx1250")


def _load(path, name):
    spec = importlib.util.spec_from_file_location(f"rocktile_pattern_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


HEADER = "import rocktile\nimport rocktile.language as tl\n\n\n"


def small_ints(rng, shape, low=-3, high=4, halves=False):
    x = rng.integers(low, high, shape).astype(np.float64)
    return x / 2 if halves else x


# --------------------------------------------------------------------------
# Families: each returns (source, launch) where launch(kernel, target) runs
# the kernel once and raises AssertionError on a wrong result.

def dot(rng, name):
    import ml_dtypes
    dtype = rng.choice(["fp16", "bf16", "fp8e4nv", "fp8e5"])
    np_dtype = {"fp16": np.float16, "bf16": ml_dtypes.bfloat16, "fp8e4nv": ml_dtypes.float8_e4m3fn,
                "fp8e5": ml_dtypes.float8_e5m2}[dtype]
    warps = int(rng.choice([1, 2, 4, 8]))
    bm, bn = (int(rng.choice([16, 32, 64, 128])) for _ in range(2))
    while bm * bn > 128 * 32 * warps:  # the accumulator fits the register file
        bm, bn = max(16, bm // 2), max(16, bn // 2)
    bk = int(rng.choice([16, 32, 64, 128] if dtype.startswith("fp8") else [16, 32, 64]))
    stages = int(rng.integers(1, 4))
    fold = rng.choice(["acc += tl.dot(a, b)", "acc = acc + tl.dot(a, b)", "acc = tl.dot(a, b, acc)",
                       "acc = tl.dot(a, b) + acc"])
    col_major_b = bool(rng.integers(2))
    batched = bool(rng.integers(2))
    out_fp16 = bool(rng.integers(4) == 0)
    m, n, k = (int(rng.integers(1, 2 * b + 1)) for b in (bm, bn, bk))
    loop = "tl.range(0, K, BK, num_stages=STAGES)" if rng.integers(2) else "range(0, K, BK)"
    source = HEADER + f"""@rocktile.jit
def {name}(a_ptr, b_ptr, c_ptr, M, N, K, stride_bk, stride_bn,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, STAGES: tl.constexpr):
    batch = tl.program_id(2)
    a_ptr += batch * M * K
    b_ptr += batch * K * N
    c_ptr += batch * M * N
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in {loop}:
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k0 + rk)[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=((k0 + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        {fold}
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc{".to(tl.float16)" if out_fp16 else ""},
             mask=(rm[:, None] < M) & (rn[None, :] < N))
"""
    batches = 2 if batched else 1
    a = small_ints(rng, (batches, m, k)).astype(np_dtype)
    b = small_ints(rng, (batches, k, n)).astype(np_dtype)
    want = np.einsum("bmk,bkn->bmn", a.astype(np.float64), b.astype(np.float64))

    def launch(kernel, target):
        bb = np.ascontiguousarray(b.transpose(0, 2, 1)) if col_major_b else b
        c = np.full((batches, m, n), np.nan, np.float16 if out_fp16 else np.float32)
        strides = (1, k) if col_major_b else (n, 1)
        grid = (-(-m // bm), -(-n // bn), batches)
        kernel[grid](a, bb, c, m, n, k, *strides, BM=bm, BN=bn, BK=bk, STAGES=stages, num_warps=warps,
                     target=target)
        np.testing.assert_allclose(c.astype(np.float64), want, rtol=1e-3 if out_fp16 else 0, atol=0)
    return source, launch


def dot_scaled(rng, name):
    from rocktile import quantization
    a_format = str(rng.choice(["e2m1", "e4m3", "e5m2", "bf16"]))
    b_format = str(rng.choice(["e2m1", "e4m3"]))
    bm, bn = int(rng.choice([16, 32, 64])), int(rng.choice([16, 32, 64]))
    k = int(rng.choice([64, 128]))
    m, n = int(rng.integers(1, 2 * bm + 1)), int(rng.integers(1, 2 * bn + 1))
    a_pack, b_pack = (2 if f == "e2m1" else 1 for f in (a_format, b_format))
    a_scaled = a_format != "bf16"
    source = HEADER + f"""@rocktile.jit
def {name}(a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, c_ptr, M, N,
           K: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rs = tl.arange(0, K // 32)
    a = tl.load(a_ptr + rm[:, None] * {k // a_pack} + tl.arange(0, {k // a_pack})[None, :],
                mask=rm[:, None] < M, other=0)
    b = tl.load(b_ptr + tl.arange(0, {k // b_pack})[:, None] * N + rn[None, :], mask=rn[None, :] < N, other=0)
    {"a_scale = tl.load(a_scale_ptr + rm[:, None] * (K // 32) + rs[None, :], mask=rm[:, None] < M, other=0)"
     if a_scaled else "a_scale = None"}
    b_scale = tl.load(b_scale_ptr + rn[:, None] * (K // 32) + rs[None, :], mask=rn[:, None] < N, other=0)
    c = tl.dot_scaled(a, a_scale, "{a_format}", b, b_scale, "{b_format}")
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c, mask=(rm[:, None] < M) & (rn[None, :] < N))
"""
    x = rng.standard_normal((m, k))
    y = rng.standard_normal((k, n))
    if a_scaled:
        a_codes, a_scales = quantization.quantize_mx(x, a_format, axis=1)
        a_values = quantization.dequantize_mx(a_codes, a_scales, a_format, axis=1)
    else:
        import ml_dtypes
        a_codes, a_scales = x.astype(ml_dtypes.bfloat16), np.zeros((m, k // 32), np.uint8)
        a_values = a_codes.astype(np.float64)
    b_codes, b_scales = quantization.quantize_mx(y, b_format, axis=0)
    b_values = quantization.dequantize_mx(b_codes, b_scales, b_format, axis=0)
    # b_scales: [N, K / 32], as dot_scaled takes them
    want = a_values.astype(np.float64) @ b_values.astype(np.float64)

    def launch(kernel, target):
        c = np.full((m, n), np.nan, np.float32)
        kernel[(-(-m // bm), -(-n // bn))](a_codes, a_scales, b_codes, b_scales, c, m, n, K=k, BM=bm, BN=bn,
                                             target=target)
        bound = np.abs(a_values).max() * np.abs(b_values).max() * k
        np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-6 * bound)
    return source, launch


def descriptor(rng, name):
    dtype = str(rng.choice(["float16", "float32", "int32"]))
    item = np.dtype(dtype).itemsize
    bm, bn = int(rng.choice([8, 16, 32, 64])), int(rng.choice([16, 32, 64]))
    m = int(rng.integers(1, 3 * bm))
    n = -(-int(rng.integers(1, 3 * bn)) // (16 // item)) * (16 // item)  # rows 16-byte aligned, as descriptors need
    source = HEADER + f"""@rocktile.jit
def {name}(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    y_desc = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    at = [tl.program_id(0) * BM, tl.program_id(1) * BN]
    x = x_desc.load(at)
    y_desc.store(at, x * 3 + 1)
"""
    x = small_ints(rng, (m, n)).astype(dtype)

    def launch(kernel, target):
        y = np.zeros((m, n), dtype)
        kernel[(-(-m // bm), -(-n // bn))](x, y, m, n, BM=bm, BN=bn, target=target)
        np.testing.assert_array_equal(y, x * 3 + 1)
    return source, launch


def block_ptr(rng, name):
    bm, bk = int(rng.choice([1, 4, 16, 32, 64])), int(rng.choice([16, 32, 64, 128]))
    m, k = int(rng.integers(1, 3 * bm + 1)), int(rng.integers(1, 4 * bk))
    warps = int(rng.choice([1, 2, 4, 8]))
    source = HEADER + f"""@rocktile.jit
def {name}(x_ptr, y_ptr, M, K, BM: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    x = tl.make_block_ptr(x_ptr, shape=(M, K), strides=(K, 1), offsets=(pid * BM, 0), block_shape=(BM, BK),
                          order=(1, 0))
    total = tl.zeros((BM,), dtype=tl.float32)
    for _ in range(0, K, BK):
        total += tl.sum(tl.load(x, boundary_check=(0, 1), padding_option="zero").to(tl.float32), axis=1)
        x = tl.advance(x, (0, BK))
    y = tl.make_block_ptr(y_ptr, shape=(M,), strides=(1,), offsets=(pid * BM,), block_shape=(BM,), order=(0,))
    tl.store(y, total, boundary_check=(0,))
"""
    x = small_ints(rng, (m, k)).astype(np.float16)

    def launch(kernel, target):
        y = np.full(m, np.nan, np.float32)
        kernel[(-(-m // bm),)](x, y, m, k, BM=bm, BK=bk, num_warps=warps, target=target)
        np.testing.assert_array_equal(y, x.astype(np.float64).sum(axis=1))
    return source, launch


ATOMIC_NUMPY = {"add": np.add, "max": np.maximum, "min": np.minimum, "and": np.bitwise_and,
                "or": np.bitwise_or, "xor": np.bitwise_xor}


def atomics(rng, name):
    op = str(rng.choice(list(ATOMIC_NUMPY)))
    dtype = "int32" if op in ("and", "or", "xor") or rng.integers(2) else "float32"
    sem = str(rng.choice(["relaxed", "acquire", "release", "acq_rel"]))
    scope = str(rng.choice(["gpu", "cta", "sys"]))
    block, programs = int(rng.choice([16, 64, 256])), int(rng.integers(1, 9))
    cells = int(rng.integers(1, 2 * block))
    n = int(rng.integers(1, block * programs + 1))
    source = HEADER + f"""@rocktile.jit
def {name}(idx_ptr, v_ptr, out_ptr, counter_ptr, olds_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    idx = tl.load(idx_ptr + offs, mask=mask, other=0)
    v = tl.load(v_ptr + offs, mask=mask)
    tl.atomic_{op}(out_ptr + idx, v, mask=mask, sem="{sem}", scope="{scope}")
    tl.store(olds_ptr + tl.program_id(0), tl.atomic_add(counter_ptr, 1, sem="{sem}", scope="{scope}"))
"""
    idx = rng.integers(0, cells, n).astype(np.int32)
    v = (rng.integers(-50, 50, n) if op in ("add", "max", "min") else rng.integers(0, 1 << 20, n)).astype(dtype)
    init = (rng.integers(-50, 50, cells) if op in ("add", "max", "min") else rng.integers(0, 1 << 20, cells))
    init = init.astype(dtype)
    want = init.copy()
    ATOMIC_NUMPY[op].at(want, idx, v)

    def launch(kernel, target):
        out, counter, olds = init.copy(), np.zeros(1, np.int32), np.full(programs, -1, np.int32)
        kernel[(programs,)](idx, v, out, counter, olds, n, BLOCK=block, target=target)
        np.testing.assert_array_equal(out, want)  # small integers: fp32 adds are exact in any order
        assert counter[0] == programs and sorted(olds) == list(range(programs)), (counter, olds)
    return source, launch


def scan(rng, name):
    rows, cols = int(rng.choice([1, 2, 8, 32])), int(rng.choice([2, 16, 64, 128]))
    axis = int(rng.integers(2))
    dtype = str(rng.choice(["int32", "float32"]))
    reverse = bool(rng.integers(2))
    op = str(rng.choice(["cumsum", "cumprod", "scan_max", "sort", "gather", "flip"]))
    x = rng.integers(-3, 4, (rows, cols)).astype(dtype)
    if op == "cumprod":
        x = rng.choice(np.array([-1, 1, 2], dtype), (rows, cols))
    gather = rng.integers(0, (rows, cols)[axis], (rows, cols)).astype(np.int32)
    descending = bool(rng.integers(2))
    body = {
        "cumsum": f"tl.cumsum(x, axis={axis}, reverse={reverse})",
        "cumprod": f"tl.cumprod(x, axis={axis}, reverse={reverse})",
        "scan_max": f"tl.associative_scan(x, {axis}, larger_{name}, reverse={reverse})",
        "sort": f"tl.sort(x, descending={descending})",  # the last dimension, as in Triton
        "gather": f"tl.gather(x, tl.load(g_ptr + offs), {axis})",
        "flip": f"tl.flip(x, {axis})",
    }[op]
    source = HEADER + f"""@rocktile.jit
def larger_{name}(a, b):
    return tl.maximum(a, b)


@rocktile.jit
def {name}(x_ptr, g_ptr, y_ptr, R: tl.constexpr, C: tl.constexpr):
    offs = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, {body})
"""
    def along(f, a):
        a = np.flip(a, axis) if reverse else a
        r = f(a, axis=axis)
        return np.flip(r, axis) if reverse else r
    if op == "cumsum":
        want = along(np.cumsum, x)
    elif op == "cumprod":
        want = along(np.cumprod, x)
    elif op == "scan_max":
        want = along(np.maximum.accumulate, x)
    elif op == "sort":
        want = np.sort(x, axis=1)
        want = np.flip(want, 1) if descending else want
    elif op == "gather":
        want = np.take_along_axis(x, gather, axis)
    else:
        want = np.flip(x, axis)

    def launch(kernel, target):
        y = np.zeros((rows, cols), dtype)
        kernel[(1,)](x, gather, y, R=rows, C=cols, target=target)
        np.testing.assert_array_equal(y, want.astype(dtype))
    return source, launch


def control(rng, name):
    block = int(rng.choice([64, 256, 1024, 4096, 16384]))
    warps = int(rng.choice([1, 2, 4, 8]))
    steps, stop = int(rng.integers(1, 6)), int(rng.integers(0, 6))
    grid = tuple(int(g) for g in rng.integers(1, 4, 3))
    n = int(rng.integers(1, block * int(np.prod(grid)) + 1))
    big = int(rng.choice([0, 1 << 33, 3 << 40]))
    source = HEADER + f"""@rocktile.jit
def step_{name}(x, i):
    if i % 2 == 1:
        return x * 2 - 1
    return x + i


@rocktile.jit
def {name}(x_ptr, y_ptr, n, big, BLOCK: tl.constexpr, STEPS: tl.constexpr, STOP: tl.constexpr):
    pid = tl.program_id(0) + tl.num_programs(0) * (tl.program_id(1) + tl.num_programs(1) * tl.program_id(2))
    if pid * BLOCK >= n:
        return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    far = offs.to(tl.int64) + big  # 64-bit offsets: beyond 2^32, then back
    x = tl.load(x_ptr + far - big, mask=offs < n, other=0)
    for i in tl.static_range(STEPS):
        if i == STOP:
            break
        x = step_{name}(x, i)
    j = 0
    while j < 3:
        j += 1
        if j == 2:
            continue
        x = x + j
    tl.store(y_ptr + (far - big), x, mask=offs < n)
"""
    x = rng.integers(-100, 100, n).astype(np.int64)

    def launch(kernel, target):
        y = np.zeros(n, np.int64)
        kernel[grid](x, y, n, big, BLOCK=block, STEPS=steps, STOP=stop, num_warps=warps, target=target)
        want = x.copy()
        for i in range(min(steps, stop)):
            want = want * 2 - 1 if i % 2 else want + i
        np.testing.assert_array_equal(y, want + 1 + 3)
    return source, launch


FAMILIES = [dot, dot_scaled, descriptor, block_ptr, atomics, scan, control]


def make_case(seed):
    rng = np.random.default_rng([seed, 0x9A77])
    family = FAMILIES[seed % len(FAMILIES)]
    name = f"{family.__name__}_{seed}"
    source, launch = family(rng, name)
    return name, source, launch


def describe_case(kind, seed):
    return make_case(seed)[1]


def run_case(kind, seed, workdir):
    """None if the kernel compiled and gave numpy's result on both targets,
    else (what, detail)."""
    import rocktile

    name, source, launch = make_case(seed)
    path = os.path.join(workdir, f"{name}.py")
    with open(path, "w") as f:
        f.write(source)
    kernel = _load(path, name)
    for target in TARGETS:
        try:
            launch(kernel, target)
        except rocktile.CompilationError as e:
            return ("error", f"{target}: a valid kernel failed to compile ({path}):\n{e}")
        except rocktile.EmulatorError as e:
            return ("error", f"{target}: emulator fault ({path}):\n{e}")
        except AssertionError as e:
            return ("mismatch", f"{target}: results differ from numpy ({path}):\n{str(e)[:1500]}")
    return None
