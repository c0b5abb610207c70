"""The emulator's host program links against rocktile's own symbols only.

Which builtins LLVM's host backend calls depends on the CPU: with AVX-512
BF16 it converts to bf16 in one instruction, without it it calls
__truncsfbf2. A kernel that passes on one machine could then fail on another
whose libraries lack the builtin. So the JIT resolves nothing from the
process: every call must name a symbol of rocktile's list
(`_C.emulator_host_symbols()`), and these tests compile for the baseline
x86-64 CPU (no F16C, no AVX-512 BF16, no SSE4.1, no FMA), where the backend
calls the most builtins, as well as for this machine's CPU. Conversions are
checked bit for bit against numpy (ml_dtypes for bf16 and fp8) on both CPUs."""
import platform
import re

import ml_dtypes
import numpy as np
import pytest

import rocktile
import rocktile.language as tl
from rocktile.compiler import load_C
from rocktile.language.extra import libdevice

pytestmark = pytest.mark.skipif(platform.machine() != "x86_64",
                                reason="the baseline CPU named here is x86-64's")

TARGETS = ["gfx950", "gfx1250"]
HOST_CPUS = ["", "x86-64"]  # this machine's, and the baseline
# Every dtype a kernel can convert between, in convert_to_all's parameter order.
DTYPES = {
    "int1": np.bool_, "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
    "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
    "fp8e4": ml_dtypes.float8_e4m3fn, "fp8e5": ml_dtypes.float8_e5m2,
    "fp16": np.float16, "bf16": ml_dtypes.bfloat16, "fp32": np.float32, "fp64": np.float64,
}
N = 256


@rocktile.jit
def convert_to_all(x_ptr, b1, i8, i16, i32, i64, u8, u16, u32, u64, e4, e5, f16, bf16, f32, f64,
                   N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(b1 + offs, x.to(tl.int1))
    tl.store(i8 + offs, x.to(tl.int8))
    tl.store(i16 + offs, x.to(tl.int16))
    tl.store(i32 + offs, x.to(tl.int32))
    tl.store(i64 + offs, x.to(tl.int64))
    tl.store(u8 + offs, x.to(tl.uint8))
    tl.store(u16 + offs, x.to(tl.uint16))
    tl.store(u32 + offs, x.to(tl.uint32))
    tl.store(u64 + offs, x.to(tl.uint64))
    tl.store(e4 + offs, x.to(tl.float8e4nv))
    tl.store(e5 + offs, x.to(tl.float8e5))
    tl.store(f16 + offs, x.to(tl.float16))
    tl.store(bf16 + offs, x.to(tl.bfloat16))
    tl.store(f32 + offs, x.to(tl.float32))
    tl.store(f64 + offs, x.to(tl.float64))


def source_values(name):
    """Values of dtype `name` that every destination can hold (floats: in
    [-100, 100], with fractions; ints: what int8 holds, or uint8 unsigned)."""
    rng = np.random.default_rng(7)
    if name == "int1":
        return rng.integers(0, 2, N).astype(np.bool_)
    if name.startswith("uint"):
        return rng.integers(0, 256, N).astype(DTYPES[name])
    if name.startswith("int"):
        return rng.integers(-128, 128, N).astype(DTYPES[name])
    x = np.concatenate([[0.0, -0.0, 0.5, -0.5, 1.0, 99.5, -99.75, 2.0 ** -14, 3.0 ** -9],
                        rng.uniform(-100, 100, N - 9)])
    return x.astype(np.float32 if name.startswith("fp8") else np.float64).astype(DTYPES[name])


def expected(x, src, dst):
    """rocktile's conversion rules: bool is `!= 0`; fp8 converts through
    fp32 (saturating, not needed at these magnitudes); fp16 <-> bf16 goes
    through fp32; float -> int truncates toward zero."""
    if dst == "int1":
        return x.astype(np.float64) != 0
    wide = x.astype(np.float32) if src.startswith(("fp8", "bf16")) or (src, dst) in (
        ("fp16", "bf16"),) else x
    if dst.startswith(("int", "uint")) and src.startswith(("fp", "bf")):
        wide = np.trunc(wide.astype(np.float64))
    with np.errstate(invalid="ignore"):
        if dst.startswith("fp8") and not src.startswith(("fp", "bf")):
            wide = wide.astype(np.float32)
        return wide.astype(DTYPES[dst])


def run(src, target):
    x = source_values(src)
    outs = {d: np.zeros(N, DTYPES[d]) for d in DTYPES}
    kernel = convert_to_all[(1,)](x, *outs.values(), N=N, target=target)
    return x, outs, kernel


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("src", DTYPES)
def test_every_conversion_links_only_rocktile_symbols(src, target, monkeypatch):
    provided = set(load_C().emulator_host_symbols())
    for cpu in HOST_CPUS:
        monkeypatch.setenv("ROCKTILE_EMULATOR_HOST_CPU", cpu)
        x, outs, kernel = run(src, target)
        imports = kernel.emulator().host_imports
        assert set(imports) <= provided, f"not rocktile's: {set(imports) - provided}"
        for dst, got in outs.items():
            # float -> unsigned of a negative value is undefined (LLVM's poison)
            valid = ~((x.astype(np.float64) < 0) & dst.startswith("uint") & src.startswith(("fp", "bf")))
            want = expected(x, src, dst)
            assert np.array_equal(got[valid].view(np.uint8), want[valid].view(np.uint8)), \
                f"{src} -> {dst} on host CPU {cpu or 'native'}: {got[valid][:8]} vs {want[valid][:8]}"


def test_baseline_cpu_calls_the_conversion_builtins(monkeypatch):
    """The check above is not vacuous: on the baseline CPU, fp16 and bf16
    conversions are calls, and they resolve to rocktile's builtins."""
    monkeypatch.setenv("ROCKTILE_EMULATOR_HOST_CPU", "x86-64")
    calls = {"fp64": {"__truncdfhf2", "__truncdfbf2"}, "fp32": {"__truncsfhf2", "__truncsfbf2"},
             "fp16": {"__extendhfsf2"}}
    for src, builtins in calls.items():
        _, _, kernel = run(src, "gfx950")
        assert builtins <= set(kernel.emulator().host_imports), src


@rocktile.jit
def float_math(x_ptr, y_ptr, out_ptr, N: tl.constexpr, TRANSCENDENTAL: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    r = tl.sqrt(y) + tl.rsqrt(y) + tl.floor(x) + tl.ceil(x) + tl.fma(x, y, x) + tl.abs(x)
    r += x % y + x / y + tl.minimum(x, y) + tl.maximum(x, y)
    r += tl.max(x, axis=0) + tl.min(y, axis=0) + tl.sum(x, axis=0)
    r += libdevice.trunc(x) + libdevice.round(x) + libdevice.rint(x * 2) + libdevice.nearbyint(x * 3)
    r += libdevice.copysign(x, -y) + libdevice.fmin(x, y) + libdevice.signbit(x).to(x.dtype)
    if TRANSCENDENTAL:
        r += tl.exp(x) + tl.exp2(x) + tl.log(y) + tl.log2(y) + tl.sin(x) * tl.cos(x)
        r += tl.sigmoid(x) + tl.math.erf(x)
        r += libdevice.log10(y) + libdevice.tanh(x) + libdevice.atan2(x, y) + libdevice.pow(y, x)
        r += libdevice.asin(x * 0.4) + libdevice.log1p(y) + libdevice.expm1(x) + libdevice.cosh(x)
    tl.store(out_ptr + offs, r)


def float_math_reference(x, y, transcendental):
    import math
    r = (np.sqrt(y) + 1 / np.sqrt(y) + np.floor(x) + np.ceil(x) + (x * y + x) + np.abs(x)
         + np.fmod(x, y) + x / y + np.minimum(x, y) + np.maximum(x, y) + x.max() + y.min() + x.sum())
    r += (np.trunc(x) + np.where(x >= 0, np.floor(x + 0.5), np.ceil(x - 0.5)) + np.rint(x * 2) + np.rint(x * 3)
          + np.copysign(x, -y) + np.fmin(x, y) + np.signbit(x))
    if transcendental:
        r += (np.exp(x) + np.exp2(x) + np.log(y) + np.log2(y) + np.sin(x) * np.cos(x)
              + 1 / (1 + np.exp(-x)) + np.vectorize(math.erf)(x))
        r += (np.log10(y) + np.tanh(x) + np.arctan2(x, y) + np.power(y, x) + np.arcsin(x * 0.4) + np.log1p(y)
              + np.expm1(x) + np.cosh(x))
    return r


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype,rtol", [(np.float16, 3e-2), (ml_dtypes.bfloat16, 1e-1),
                                        (np.float32, 1e-5), (np.float64, 1e-12)])
def test_math_links_only_rocktile_symbols(dtype, rtol, target, monkeypatch):
    provided = set(load_C().emulator_host_symbols())
    rng = np.random.default_rng(3)
    x = rng.uniform(-2, 2, 64).astype(dtype)
    y = rng.uniform(0.5, 3, 64).astype(dtype)
    transcendental = dtype != np.float64  # fp64 has only the algebraic functions on the GPU
    want = float_math_reference(x.astype(np.float64), y.astype(np.float64), transcendental)
    for cpu in HOST_CPUS:
        monkeypatch.setenv("ROCKTILE_EMULATOR_HOST_CPU", cpu)
        out = np.zeros(64, dtype)
        kernel = float_math[(1,)](x, y, out, N=64, TRANSCENDENTAL=transcendental, target=target)
        imports = set(kernel.emulator().host_imports)
        assert imports <= provided, f"not rocktile's: {imports - provided}"
        np.testing.assert_allclose(out.astype(np.float64), want, rtol=rtol, atol=rtol * np.abs(want).max())


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("src", ["fp16", "bf16", "fp32", "fp64"])
def test_float_to_int_out_of_range_as_the_chips_convert(target, src):
    """Float to integer: in range, truncation toward zero; out of range, what
    the generated code computes (LLVM leaves it poison): 8- and 16-bit
    results are the low bits of the int32 conversion (-3.0 to uint8 is 253;
    the emulator gave 0 for fp64), and the 32-bit conversions saturate, NaN
    giving 0 (v_cvt_i32_f32 / v_cvt_u32_f32; the host's gave INT_MIN or a
    wrapped value)."""
    values = [-3.0, -1.5, -0.7, 0.0, 2.7, 255.9, 300.0, -200.0, 40000.0, -40000.0, 1e10, -1e10, np.inf, -np.inf,
              np.nan, 65504.0, 3e9, -2.5e9]
    with np.errstate(over="ignore"):
        x = np.resize(np.array(values, np.float64), N).astype(DTYPES[src])
    outs = {d: np.zeros(N, DTYPES[d]) for d in DTYPES}
    kernel = convert_to_all[(1,)](x, *outs.values(), N=N, target=target)
    # The code converts to 32 bits only, with the saturating instructions the emulator follows.
    to_int = {w[0].split("_e32")[0].split("_sdwa")[0] for w in map(str.split, kernel.asm["amdgcn"].splitlines())
              if w and re.match(r"v_cvt_[iu](8|16|32)_f", w[0])}
    assert to_int <= {"v_cvt_i32_f32", "v_cvt_u32_f32", "v_cvt_i32_f64", "v_cvt_u32_f64"}, to_int
    wide = np.nan_to_num(x.astype(np.float64))
    nan = np.isnan(x.astype(np.float64))
    i32 = np.where(nan, 0, np.trunc(np.clip(wide, -2.0 ** 31, 2.0 ** 31 - 1))).astype(np.int64)
    u32 = np.where(nan, 0, np.trunc(np.clip(wide, 0, 2.0 ** 32 - 1))).astype(np.int64)
    wants = {"int8": (i32 & 0xFF).astype(np.uint8).view(np.int8), "uint8": (i32 & 0xFF).astype(np.uint8),
             "int16": (i32 & 0xFFFF).astype(np.uint16).view(np.int16), "uint16": (i32 & 0xFFFF).astype(np.uint16),
             "int32": i32.astype(np.int32), "uint32": u32.astype(np.uint32)}
    for dst, want in wants.items():
        np.testing.assert_array_equal(outs[dst], want, err_msg=f"{src} -> {dst}")


@rocktile.jit
def exp2_of_ints(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, tl.exp2(tl.load(x_ptr + offs).to(tl.float32)))


def test_libm_functions_llvm_forms_are_provided():
    """What LLVM's simplifications may make of the host program's math: ldexp
    (exp2 of an int converted to float became ldexpf, which the runtime
    lacked: the fuzzer's one failure), frexp, exp10, compiler-rt's powi."""
    provided = set(load_C().emulator_host_symbols())
    assert {"ldexpf", "ldexp", "frexpf", "frexp", "exp10f", "exp10", "__powisf2", "__powidf2"} <= provided
    x = np.arange(-8, 8, dtype=np.int32)
    for target in TARGETS:
        for cpu in HOST_CPUS:
            out = np.zeros(16, np.float32)
            with pytest.MonkeyPatch.context() as patch:
                patch.setenv("ROCKTILE_EMULATOR_HOST_CPU", cpu)
                kernel = exp2_of_ints[(1,)](x, out, N=16, target=target)
            assert set(kernel.emulator().host_imports) <= provided
            np.testing.assert_array_equal(out, np.exp2(x.astype(np.float32)))
