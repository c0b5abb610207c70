"""tl.dot on the matrix cores (MFMA on gfx950, WMMA on gfx1250), run in the
emulator, whose instruction semantics come from the ISA tables and not from
the compiler's layouts, against numpy.

Tolerance: bf16/fp16 products are exact in fp32, so the only error is fp32
accumulation in another order than numpy's float64: rtol 1e-5 and atol
1e-5 * K * max|a| * max|b|. Results stored as bf16/fp16 add one rounding
(rtol 2^-8 / 2^-11 of the largest value)."""
import re

import ml_dtypes
import numpy as np
import pytest

import rocktile
import rocktile.language as tl
from batched_matmul import batched_matmul
from matmul import matmul, reference

TARGETS = ["gfx950", "gfx1250"]
DTYPES = {"bf16": ml_dtypes.bfloat16, "fp16": np.float16}
FILE = __file__


def line_of(marker):
    with open(FILE) as f:
        return next(i for i, line in enumerate(f, 1) if marker in line)


@rocktile.jit
def dot_tile(a_ptr, b_ptr, c_ptr, d_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
             USE_OPERATOR: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    c = tl.load(c_ptr + rm[:, None] * N + rn[None, :])
    if USE_OPERATOR:
        d = a @ b + c
    else:
        d = tl.dot(a, b, acc=c)
    tl.store(d_ptr + rm[:, None] * N + rn[None, :], d)


def check(got, a, b, c=None):
    want = a.astype(np.float64) @ b.astype(np.float64)
    if c is not None:
        want += c
    scale = np.abs(a.astype(np.float32)).max() * np.abs(b.astype(np.float32)).max() * a.shape[1]
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=1e-5, atol=1e-5 * scale)


def operands(M, N, K, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((M, K)).astype(dtype), rng.standard_normal((K, N)).astype(dtype),
            rng.standard_normal((M, N)).astype(np.float32))


# (dtype, M, N, K, num_warps): one instruction tile per warp, several per
# warp along M, N and K, more warps than tiles (copies), 32x32 MFMA (K = 16).
CASES = [("bf16", 16, 16, 32, 1), ("bf16", 16, 16, 32, 4), ("bf16", 32, 32, 16, 4), ("bf16", 64, 64, 64, 4),
         ("bf16", 128, 64, 32, 8), ("bf16", 32, 128, 128, 2), ("bf16", 128, 128, 64, 4),
         ("bf16", 256, 128, 64, 8), ("fp16", 64, 16, 64, 2), ("fp16", 32, 32, 16, 4), ("fp16", 128, 64, 32, 8)]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype,M,N,K,num_warps", CASES)
def test_dot_tile(target, dtype, M, N, K, num_warps):
    if target == "gfx1250" and K % 32:
        pytest.skip("gfx1250's 16-bit WMMA has K = 32 (the error is tested below)")
    a, b, c = operands(M, N, K, DTYPES[dtype])
    d = np.zeros((M, N), np.float32)
    kernel = dot_tile[(1,)](a, b, c, d, M=M, N=N, K=K, USE_OPERATOR=(M + K) % 32 == 0,
                            num_warps=num_warps, target=target)
    check(d, a, b, c)
    # The operands went through LDS: the emulator measured their bank use.
    conflicts = kernel.lds_bank_conflicts()
    assert {kind for _, kind in conflicts} == {"load", "store"} and all(runs > 0 for runs, _ in conflicts.values())
    asm = kernel.asm["amdgcn"]
    assert ("v_mfma_f32" in asm) == (target == "gfx950") and ("v_wmma_f32" in asm) == (target == "gfx1250")


FP8 = {"e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2}


@pytest.mark.parametrize("a_type,b_type", [("e4m3", "e4m3"), ("e4m3", "e5m2"), ("e5m2", "e4m3"), ("e5m2", "e5m2")])
@pytest.mark.parametrize("M,N,K,num_warps", [(16, 16, 128, 1), (64, 64, 128, 4), (32, 32, 64, 4),
                                             (128, 128, 256, 8)])
def test_dot_fp8_gfx950(a_type, b_type, M, N, K, num_warps):
    """fp8 x fp8 (either format on each side) on the f8f6f4 MFMA. The dot is
    computed transposed (Dᵀ = Bᵀ Aᵀ), so B is the instruction's A: its format
    reaches the instruction as cbsz, A's as blgp."""
    a, _, c = operands(M, N, K, FP8[a_type])
    b = operands(M, N, K, FP8[b_type], seed=1)[1]
    d = np.zeros((M, N), np.float32)
    kernel = dot_tile[(1,)](a, b, c, d, M=M, N=N, K=K, USE_OPERATOR=False, num_warps=num_warps, target="gfx950")
    check(d, a, b, c)
    mfma = [line for line in kernel.asm["amdgcn"].splitlines() if "v_mfma" in line]
    assert mfma and all("f8f6f4" in line for line in mfma)
    assert all(("cbsz:1" in line) == (b_type == "e5m2") for line in mfma)
    assert all(("blgp:1" in line) == (a_type == "e5m2") for line in mfma)


@pytest.mark.parametrize("a_type,b_type", [("e4m3", "e4m3"), ("e4m3", "e5m2"), ("e5m2", "e4m3"), ("e5m2", "e5m2")])
@pytest.mark.parametrize("M,N,K,num_warps", [(16, 16, 64, 1), (64, 64, 128, 4), (32, 32, 64, 4),
                                             (128, 128, 256, 8)])
def test_dot_fp8_gfx1250(a_type, b_type, M, N, K, num_warps):
    """fp8 x fp8 (either format on each side) on WMMA 16x16x128 where 128
    divides K, else 16x16x64; each pair of formats is its own instruction,
    named B's format first (the dot is computed as Bᵀ Aᵀ)."""
    a, _, c = operands(M, N, K, FP8[a_type])
    b = operands(M, N, K, FP8[b_type], seed=1)[1]
    d = np.zeros((M, N), np.float32)
    kernel = dot_tile[(1,)](a, b, c, d, M=M, N=N, K=K, USE_OPERATOR=False, num_warps=num_warps, target="gfx1250")
    check(d, a, b, c)
    names = {"e4m3": "fp8", "e5m2": "bf8"}
    wmma = [line.split()[0] for line in kernel.asm["amdgcn"].splitlines() if "v_wmma" in line]
    k = 128 if K % 128 == 0 else 64
    assert wmma and set(wmma) == {f"v_wmma_f32_16x16x{k}_{names[b_type]}_{names[a_type]}"}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("M,N,K,blocks,num_warps", [
    (300, 200, 170, (64, 64, 32), 4), (1, 33, 7, (64, 64, 32), 4), (129, 257, 96, (32, 128, 64), 2),
    (64, 64, 64, (32, 128, 64), 2), (300, 200, 170, (128, 128, 64), 8),
    # a 256x256 fp32 accumulator, stored from its registers
    (270, 300, 80, (256, 256, 64), 8)])
def test_tutorial_gemm_ragged_shapes(target, M, N, K, blocks, num_warps):
    a, b, _ = operands(M, N, K, ml_dtypes.bfloat16, seed=M + N + K)
    check(matmul(a, b, target=target, blocks=blocks, num_warps=num_warps), a, b)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype,out,rtol", [("bf16", ml_dtypes.bfloat16, 2 ** -8), ("fp16", np.float16, 2 ** -11),
                                            ("fp16", np.float32, 1e-5)])
def test_tutorial_gemm_epilogue(target, dtype, out, rtol):
    M, N, K = 200, 144, 100
    a, b, _ = operands(M, N, K, DTYPES[dtype], seed=5)
    bias = np.random.default_rng(6).standard_normal(N).astype(np.float32)
    got = matmul(a, b, bias=bias, activation="leaky_relu", out_dtype=out, target=target, blocks=(64, 64, 32))
    want = reference(a, b, bias, "leaky_relu")
    np.testing.assert_allclose(got.astype(np.float32), want, rtol=rtol, atol=rtol * np.abs(want).max())


@pytest.mark.parametrize("target", TARGETS)
def test_tutorial_gemm_autotuned(target):
    a, b, _ = operands(130, 150, 70, ml_dtypes.bfloat16)
    with pytest.warns(UserWarning, match="needs a GPU to time them"):
        check(matmul(a, b, target=target), a, b)


@rocktile.jit
def dot_fp16_acc(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, BK: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, BK)
    acc = tl.zeros((M, N), tl.float16)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(a, b, acc, out_dtype=tl.float16)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


@pytest.mark.parametrize("target", TARGETS)
def test_dot_fp16_accumulator(target):
    """out_dtype=float16: each dot adds in fp32 and rounds its result to fp16."""
    M, N, K, BK = 32, 32, 128, 32
    a, b, _ = operands(M, N, K, np.float16)
    c = np.zeros((M, N), np.float16)
    dot_fp16_acc[(1,)](a, b, c, M=M, N=N, K=K, BK=BK, target=target)
    want = np.zeros((M, N), np.float16)
    for k in range(0, K, BK):
        want = (want.astype(np.float64) + a[:, k:k + BK].astype(np.float64) @ b[k:k + BK].astype(np.float64)
                ).astype(np.float32).astype(np.float16)
    np.testing.assert_allclose(c.astype(np.float32), want.astype(np.float32), rtol=2 ** -10,
                               atol=2 ** -10 * np.abs(want.astype(np.float32)).max())


@rocktile.jit
def attention_step(q_ptr, k_ptr, v_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr, D: tl.constexpr):
    rm, rn, rd = tl.arange(0, M), tl.arange(0, N), tl.arange(0, D)
    q = tl.load(q_ptr + rm[:, None] * D + rd[None, :])
    k = tl.load(k_ptr + rn[:, None] * D + rd[None, :])
    v = tl.load(v_ptr + rn[:, None] * D + rd[None, :])
    s = tl.dot(q, tl.trans(k))
    o = tl.dot(s.to(q.dtype), v)
    tl.store(o_ptr + rm[:, None] * D + rd[None, :], o)


ATTENTION_DTYPES = {"bf16": ml_dtypes.bfloat16, "fp16": np.float16, "fp8": ml_dtypes.float8_e4m3fn}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype,M,N,D,num_warps", [
    ("bf16", 64, 64, 64, 4), ("bf16", 128, 64, 128, 8), ("bf16", 32, 32, 32, 1), ("fp16", 64, 32, 64, 2),
    ("bf16", 16, 64, 32, 4),  # fewer rows than warps x instruction rows: warps hold copies
    ("fp8", 64, 128, 128, 4),
])
def test_attention_inner_step(target, dtype, M, N, D, num_warps):
    """dot(dot(q, kᵀ).to(q.dtype), v): the first dot's result is the second's
    A in the registers that hold it (tests/Transforms/assign-layouts.mlir
    shows the mapping). Each dot's products are exact in fp32; s is rounded
    to the input type as the kernel does before the second dot."""
    rng = np.random.default_rng(1)
    ty = ATTENTION_DTYPES[dtype]
    q, k, v = (rng.standard_normal(s).astype(ty) for s in ((M, D), (N, D), (N, D)))
    o = np.zeros((M, D), np.float32)
    attention_step[(1,)](q, k, v, o, M=M, N=N, D=D, num_warps=num_warps, target=target)
    s = (q.astype(np.float32) @ k.astype(np.float32).T).astype(ty)
    want = s.astype(np.float64) @ v.astype(np.float64)
    np.testing.assert_allclose(o, want, rtol=1e-5, atol=1e-5 * N * np.abs(s.astype(np.float32)).max() * 4)


@pytest.mark.parametrize("target", TARGETS)
def test_attention_step_keeps_p_in_registers(target):
    """The second dot takes the first's result without LDS: only Q, K and V
    pass through LDS (the result is stored from its registers), and both
    dots are transposed."""
    sig = {"q_ptr": "*bf16:16", "k_ptr": "*bf16:16", "v_ptr": "*bf16:16", "o_ptr": "*fp32:16"}
    kernel = rocktile.compile(attention_step, sig, dict(M=64, N=64, D=64), target=target)
    tile_ir = kernel.asm["tile"]
    assert tile_ir.count("tile.lds_offset") == 3
    assert tile_ir.count("transposed") == 2


# --------------------------------------------------------------------------
# int8 into int32 (exact, so compared for equality), and fp32: "ieee" on the
# fp32 matrix instructions (the tolerance of fp32 accumulation above),
# "bf16x3" / "bf16x6" as sums of bf16 products (each operand split into 2 or
# 3 bf16 parts: relative errors about 2^-16 and 2^-24 of K * max|a| * max|b|).

@rocktile.jit
def typed_dot(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, PRECISION: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b, input_precision=PRECISION))


SHAPES = [(16, 16, 64, 1), (32, 32, 64, 4), (64, 64, 128, 4), (128, 64, 64, 8)]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("M,N,K,num_warps", SHAPES)
def test_dot_int8_is_exact_int32(target, M, N, K, num_warps):
    rng = np.random.default_rng(M + N + K)
    a = rng.integers(-128, 128, (M, K), dtype=np.int8)
    b = rng.integers(-128, 128, (K, N), dtype=np.int8)
    c = np.zeros((M, N), np.int32)
    kernel = typed_dot[(1,)](a, b, c, M, N, K, None, target=target, num_warps=num_warps)
    np.testing.assert_array_equal(c, a.astype(np.int32) @ b.astype(np.int32))
    instr = "v_mfma_i32_16x16x64_i8" if target == "gfx950" else "v_wmma_i32_16x16x64_iu8"
    assert instr in kernel.asm["amdgcn"]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("M,N,K,num_warps", SHAPES)
@pytest.mark.parametrize("precision,rel", [(None, 1e-5), ("ieee", 1e-5), ("bf16x3", 2 ** -14), ("bf16x6", 1e-5)])
def test_dot_fp32(target, M, N, K, num_warps, precision, rel):
    rng = np.random.default_rng(M * N + K)
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    c = np.zeros((M, N), np.float32)
    kernel = typed_dot[(1,)](a, b, c, M, N, K, precision, target=target, num_warps=num_warps)
    want = a.astype(np.float64) @ b.astype(np.float64)
    scale = np.abs(a).max() * np.abs(b).max() * K
    np.testing.assert_allclose(c, want, rtol=rel, atol=rel * scale)
    asm = kernel.asm["amdgcn"]
    fp32_instr = "v_mfma_f32_16x16x4_f32" if target == "gfx950" else "v_wmma_f32_16x16x4_f32"
    bf16_instr = "v_mfma_f32_16x16x32_bf16" if target == "gfx950" else "v_wmma_f32_16x16x32_bf16"
    assert (fp32_instr in asm) == (precision in (None, "ieee")) and (bf16_instr in asm) != (fp32_instr in asm)


# --------------------------------------------------------------------------
# Batched (3-D) dots: examples/batched_matmul.py over ragged batches and
# shapes, the batch spread over warps and registers.

@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("batch,M,N,K,blocks,num_warps", [
    (10, 40, 50, 30, (4, 32, 32, 32), 4), (3, 16, 16, 32, (1, 16, 16, 32), 1), (5, 70, 33, 100, (2, 64, 32, 32), 8),
    (9, 32, 64, 64, (4, 32, 64, 64), 8)])
def test_batched_matmul(target, batch, M, N, K, blocks, num_warps):
    rng = np.random.default_rng(batch + M + N + K)
    a = rng.standard_normal((batch, M, K)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((batch, K, N)).astype(ml_dtypes.bfloat16)
    got = batched_matmul(a, b, target=target, blocks=blocks, num_warps=num_warps)
    want = np.matmul(a.astype(np.float64), b.astype(np.float64))
    scale = np.abs(a.astype(np.float32)).max() * np.abs(b.astype(np.float32)).max() * K
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * scale)


# --------------------------------------------------------------------------
# Every unsupported combination is a CompilationError at the line of the dot.

@rocktile.jit
def tf32_allowed(a_ptr, b_ptr, c_ptr, N: tl.constexpr, ALLOW: tl.constexpr):
    r = tl.arange(0, N)
    a = tl.load(a_ptr + r[:, None] * N + r[None, :])
    b = tl.load(b_ptr + r[:, None] * N + r[None, :])
    tl.store(c_ptr + r[:, None] * N + r[None, :], tl.dot(a, b, allow_tf32=ALLOW))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("allow", [True, False])
def test_allow_tf32_keeps_fp32_products(target, allow):
    # Older kernels pass allow_tf32=True: a permission, and neither chip has
    # TF32 instructions, so the products are fp32 ones as without it
    # (Triton's AMD backend does the same).
    rng = np.random.default_rng(3)
    a, b = (rng.standard_normal((32, 32)).astype(np.float32) for _ in range(2))
    c = np.zeros((32, 32), np.float32)
    kernel = tf32_allowed[(1,)](a, b, c, N=32, ALLOW=allow, target=target)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-5, atol=1e-5 * 32)
    assert re.search(r"v_(mfma|wmma)_f32_\w+_f32", kernel.asm["amdgcn"])


@rocktile.jit
def bad_dot(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, CASE: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    if CASE == "1-D":
        d = tl.dot(tl.load(a_ptr + rk), b)  # BAD 1-D
    elif CASE == "inner":
        d = tl.dot(a, a)  # BAD INNER
    elif CASE == "acc":
        d = tl.dot(a, b, acc=tl.zeros((M, 2 * N), tl.float32))  # BAD ACC
    elif CASE == "out_dtype":
        d = tl.dot(a, b, out_dtype=tl.float16)  # BAD OUT
    elif CASE == "precision":
        d = tl.dot(a, b, input_precision="fast")  # BAD PRECISION
    elif CASE == "tf32":
        d = tl.dot(a, b, input_precision="tf32")  # BAD TF32
    elif CASE == "both":
        d = tl.dot(a, b, input_precision="ieee", allow_tf32=False)  # BAD BOTH
    elif CASE == "int acc":
        d = tl.dot(a, b, acc=tl.zeros((M, N), tl.float32))  # BAD INT ACC
    else:
        d = tl.dot(a, b)  # PLAIN DOT
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], d)


def dot_error(case, a="*bf16", b="*bf16", M=32, N=32, K=32, target="gfx950", num_warps=4):
    with pytest.raises(rocktile.CompilationError) as info:
        rocktile.compile(bad_dot, signature={"a_ptr": a, "b_ptr": b, "c_ptr": "*fp32"},
                         constexprs={"M": M, "N": N, "K": K, "CASE": case}, target=target, num_warps=num_warps)
    return info.value


@pytest.mark.parametrize("case,marker,text", [
    ("1-D", "# BAD 1-D", "tl.dot needs two 2-D operands, or two 3-D ones"),
    ("inner", "# BAD INNER", "the inner dimensions differ: [32, 16] x [32, 16]"),
    ("acc", "# BAD ACC", "acc must be a 32x32 tile of fp32, got 32x64 of fp32"),
    ("out_dtype", "# BAD OUT", "out_dtype must be tl.float32, or tl.float16 for fp16 inputs"),
    ("precision", "# BAD PRECISION", "input_precision must be one of tf32, tf32x3, ieee, bf16x3, bf16x6"),
    ("tf32", "# BAD TF32", "input_precision='tf32' needs TF32 matrix instructions, which gfx950 and gfx1250 "
     "do not have"),
    ("int acc", "# BAD INT ACC", "acc must be a 32x32 tile of int32, got 32x32 of fp32"),
    ("both", "# BAD BOTH", "give input_precision or allow_tf32 (deprecated), not both"),
])
def test_dot_errors_name_the_line(case, marker, text):
    types = {"tf32": "*fp32", "int acc": "*i8"}.get(case, "*bf16")
    err = dot_error(case, a=types, b=types, N=16 if case == "inner" else 32, K=16 if case == "inner" else 32)
    assert err.lineno == line_of(marker) and text in err.message, str(err)


@pytest.mark.parametrize("a,b,text", [
    ("*bf16", "*fp16", "tl.dot of bf16 by fp16 is not supported"),
    ("*fp32", "*bf16", "tl.dot of fp32 by bf16 is not supported"),
    ("*i16", "*i16", "tl.dot of int16 by int16 is not supported"),
    ("*u8", "*u8", "tl.dot of uint8 by uint8 is not supported"),
])
def test_dot_unsupported_dtypes(a, b, text):
    err = dot_error("plain", a=a, b=b)
    assert err.lineno == line_of("# PLAIN DOT") and text in err.message, str(err)


@rocktile.jit
def small_dot(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, ACC: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    c = c_ptr + rm[:, None] * N + rn[None, :]
    if ACC:
        tl.store(c, tl.dot(a, b, tl.load(c)))
    else:
        tl.store(c, tl.dot(a, b))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("M,N,K", [(8, 32, 32), (16, 8, 32), (4, 4, 16), (1, 16, 16), (32, 32, 8), (2, 2, 2)])
@pytest.mark.parametrize("dtype,acc", [("fp16", False), ("int8", True)])
def test_dot_below_16(target, M, N, K, dtype, acc):
    """M, N or K below 16, which Triton's AMD backend takes (a split-K GEMM at
    M = 5 uses an 8-row tile): padded with zeros to 16, exact products."""
    rng = np.random.default_rng(M * 100 + N * 10 + K)
    if dtype == "int8":
        a, b = (rng.integers(-100, 100, s).astype(np.int8) for s in ((M, K), (K, N)))
        c = rng.integers(-1000, 1000, (M, N)).astype(np.int32)
        want = c.astype(np.int64) + a.astype(np.int64) @ b.astype(np.int64)
    else:
        a, b = (rng.integers(-8, 8, s).astype(np.float16) for s in ((M, K), (K, N)))
        c = np.zeros((M, N), np.float32)
        want = a.astype(np.float64) @ b.astype(np.float64)
    small_dot[(1,)](a, b, c, M=M, N=N, K=K, ACC=acc, target=target)
    np.testing.assert_array_equal(c, want)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype,K,MN,num_warps", [("bf16", 16, 32, 4), ("fp8", 16, 32, 4), ("fp8", 32, 32, 4),
                                                  ("int8", 16, 32, 4), ("int8", 32, 32, 4), ("bf16", 16, 16, 1),
                                                  ("bf16", 16, 32, 1)])
def test_dot_pads_k_below_the_instructions(target, dtype, K, MN, num_warps):
    """K below every matching instruction's k (16 for WMMA's 32, fp8 16/32
    for 64/128, int8 for 64): A and B are padded with zeros along K, as
    Triton does, and the product is unchanged. With one warp on gfx1250 the
    padded B was once read back with transpose reads into lanes holding
    copies of each other, scrambling it (LdsLayout's transposeReadLayout)."""
    rng = np.random.default_rng(K)
    M = N = MN
    if dtype == "int8":
        a = rng.integers(-128, 128, (M, K), dtype=np.int8)
        b = rng.integers(-128, 128, (K, N), dtype=np.int8)
    else:
        np_type = {"bf16": ml_dtypes.bfloat16, "fp8": ml_dtypes.float8_e4m3fn}[dtype]
        a, b = rng.standard_normal((M, K)).astype(np_type), rng.standard_normal((K, N)).astype(np_type)
    c = np.zeros((M, N), np.int32 if dtype == "int8" else np.float32)
    typed_dot[(1,)](a, b, c, M, N, K, None, target=target, num_warps=num_warps)
    if dtype == "int8":
        np.testing.assert_array_equal(c, a.astype(np.int32) @ b.astype(np.int32))
    else:
        check(c, a, b)


@rocktile.jit
def accumulate_with_add(a_ptr, b_ptr, c_ptr, K, FORM: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                        BK: tl.constexpr):
    rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    acc = tl.zeros([BM, BN], tl.int32 if a_ptr.dtype.element_ty == tl.int8 else tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(b_ptr + (k0 + rk)[:, None] * BN + rn[None, :])
        if FORM == 0:
            acc += tl.dot(a, b)
        elif FORM == 1:
            acc = acc + tl.dot(a, b)
        else:
            acc = tl.dot(a, b) + acc
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("form", [0, 1, 2])
@pytest.mark.parametrize("dtype", ["bf16", "int8"])
def test_acc_plus_dot_folds_into_the_accumulator(target, form, dtype):
    """`acc += tl.dot(a, b)`, `acc = acc + tl.dot(a, b)` and `tl.dot(a, b) + acc`
    are the dot with acc as its accumulator (no add left in the tile IR), as
    Triton folds them; the results are the products' sums."""
    rng = np.random.default_rng(form)
    M, N, K = 64, 64, 96
    if dtype == "int8":
        a, b = rng.integers(-100, 100, (M, K)).astype(np.int8), rng.integers(-100, 100, (K, N)).astype(np.int8)
        c = np.zeros((M, N), np.int32)
        want = a.astype(np.int64) @ b.astype(np.int64)
    else:
        a, b = (rng.integers(-8, 8, s).astype(ml_dtypes.bfloat16) for s in ((M, K), (K, N)))
        c = np.zeros((M, N), np.float32)
        want = a.astype(np.float64) @ b.astype(np.float64)
    kernel = accumulate_with_add[(1,)](a, b, c, K, FORM=form, BM=M, BN=N, BK=32, target=target)
    np.testing.assert_array_equal(c, want)
    assert not re.search(r"arith\.add[fi] %\w+, %\w+ : tensor<64x64x", kernel.asm["tile"])


@pytest.mark.parametrize("target,warps,registers,budget", [("gfx950", 4, 1024, 512), ("gfx1250", 4, 2048, 1024)])
def test_an_accumulator_larger_than_the_register_file_is_an_error(target, warps, registers, budget):
    """tl.dot of 512x512 tiles over 4 warps: the fp32 accumulator alone needs
    more registers than a lane has. An error at the dot, at once; the
    compile went on for minutes in LLVM's register allocator."""
    err = dot_error("plain", M=512, N=512, K=32, num_warps=warps, target=target)
    assert err.lineno == line_of("# PLAIN DOT"), str(err)
    assert (f"this dot's accumulator (262144 elements) needs {registers} registers in each of the "
            f"{warps * (64 if target == 'gfx950' else 32)} lanes of {warps} warps; {target} gives each lane "
            f"{budget}: use smaller blocks or more warps") in err.message, str(err)

