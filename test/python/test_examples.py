"""The example kernels compile for both targets, and demo.py prints its tables."""
import os
import runpy
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

import rocktile
import flash_attention
import fp8_quantize
import int8_matmul
import softmax
import vector_add

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "examples")


@pytest.mark.parametrize("target", ["gfx950", "gfx1250"])
def test_examples_compile(target):
    add = vector_add.compile_add(target)
    assert add.hsaco[:4] == b"\x7fELF"
    assert "tile.addptr" in add.asm["tile"] or "tile.load" in add.asm["tile"]
    soft = softmax.compile_softmax(target, n_cols=1000)
    assert soft.constexprs == {"BLOCK": 1024}
    assert soft.hsaco[:4] == b"\x7fELF"
    assert soft.metadata["vgpr_spill_count"] == 0 and soft.metadata["sgpr_spill_count"] == 0


def test_demo(tmp_path):
    """`make demo`: for both chips, each headline kernel's instructions and
    resources, its emulator run within tolerance, the broken example's
    located error, and the two pictures."""
    done = subprocess.run([sys.executable, os.path.join(EXAMPLES, "demo.py"), "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    assert out.startswith(f"rocktile {rocktile.__version__} ({rocktile.__file__}), LLVM 22."), out[:200]
    compiled, emulated = out.split("Run in the CPU emulator")
    emulated, sanitizer = emulated.split("The emulator as a sanitizer")
    rows = {}
    kernels = ("GEMM", "flash", "MXFP4", "NVFP4")
    for line in compiled.splitlines():
        if line.startswith(kernels):
            title, rest = line.split("  ", 1)
            rows[title.strip(), rest.split()[0]] = rest
    expected = {("GEMM bf16 (tutorial", "gfx950"): ["v_mfma_f32_16x16x32_bf16", "direct-to-LDS"],
                ("GEMM bf16 (tutorial", "gfx1250"): ["v_wmma_f32_16x16x32_bf16"],
                ("GEMM fp8", "gfx950"): ["v_mfma_f32_32x32x64_f8f6f4", "direct-to-LDS"],
                ("GEMM fp8", "gfx1250"): ["v_wmma_f32_16x16x64_fp8_fp8"],
                ("GEMM bf16 (tensor descriptors", "gfx950"): ["v_mfma", "direct-to-LDS"],
                ("GEMM bf16 (tensor descriptors", "gfx1250"): ["v_wmma", "TDM tensor_load_to_lds"],
                ("flash attention", "gfx950"): ["v_mfma"], ("flash attention", "gfx1250"): ["v_wmma"],
                ("MXFP4", "gfx950"): ["v_mfma_scale_f32"], ("MXFP4", "gfx1250"): ["v_wmma_scale_f32"],
                ("NVFP4", "gfx1250"): ["v_wmma_scale16_f32"]}
    for (title, target), words in expected.items():
        [rest] = [r for (t, chip), r in rows.items() if t.startswith(title) and chip == target]
        assert all(w in rest for w in words), (title, target, rest)
        assert f"{target}  " in emulated
    assert len(rows) == len(expected)
    results = [line for line in emulated.splitlines() if line.startswith(kernels)]
    assert len(results) == len(expected) and all(" ok " in line for line in results), emulated
    for target in ("gfx950", "gfx1250"):
        assert f"{target}: rocktile.EmulatorError: kernel scale_kernel" in sanitizer
    assert sanitizer.count("broken_mask.py:18:") == 2
    if os.path.exists(os.path.join(EXAMPLES, "..", "bench", ".venv-triton", "bin", "python")):
        beside = out.split("Beside Triton 3.9")[1].splitlines()
        assert sum(line.startswith(("gfx950 ", "gfx1250 ")) and "error" not in line for line in beside) == 8, beside
    import xml.etree.ElementTree as ET
    pictures = sorted(p.name for p in tmp_path.iterdir())
    assert pictures == ["gfx1250-descriptor-gemm-pipeline.svg", "gfx950-gemm-B-lds-banks.svg"]
    for name in pictures:
        assert ET.parse(tmp_path / name).getroot().tag == "{http://www.w3.org/2000/svg}svg"
        assert str(tmp_path / name) in out


@pytest.mark.parametrize("target", ["gfx950", "gfx1250"])
def test_broken_example_is_caught_at_its_line(target):
    """examples/broken_mask.py (its mask one element too far) is an
    EmulatorError naming the array and the line, not a silent overrun."""
    import broken_mask
    with pytest.raises(rocktile.EmulatorError, match=r"outside 'x_ptr'(.|\n)*broken_mask.py:18:"):
        broken_mask.scale(np.ones(1000, np.float32), 2.0, target=target)


@pytest.mark.parametrize("target", ["gfx950", "gfx1250"])
@pytest.mark.parametrize("shape,groups", [((37, 100), None), ((64, 256), 8), ((5, 1000), None), ((1, 1), None),
                                          ((130, 33), 32), ((3, 64), 16)])
def test_layer_norm_backward(target, shape, groups):
    """Layer norm backward (examples/layer_norm.py): dx per row, dw and db
    accumulated per group of rows under an atomic_cas lock, then summed.
    Shapes include ragged rows (not a power of two) and more groups than rows."""
    from layer_norm import layer_norm, layer_norm_backward, layer_norm_backward_reference
    rows, cols = shape
    rng = np.random.default_rng(rows * cols)
    x = rng.standard_normal(shape, np.float32) * 2 + 0.5
    w, b = rng.standard_normal((2, cols), np.float32)
    dy = rng.standard_normal(shape, np.float32)
    _, mean, rstd = layer_norm(x, w, b, target=target)
    dx, dw, db = layer_norm_backward(dy, x, w, mean, rstd, groups=groups, target=target)
    ref_dx, ref_dw, ref_db = layer_norm_backward_reference(dy, x, w)
    # float32 against float64: dx within 1e-4 relative (+1e-5 absolute); dw and db
    # sum `rows` float32 terms in a different order: 1e-5 relative + 1e-5 per row.
    np.testing.assert_allclose(dx, ref_dx, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(dw, ref_dw, rtol=1e-5, atol=1e-5 * rows)
    np.testing.assert_allclose(db, ref_db, rtol=1e-5, atol=1e-5 * rows)


@pytest.mark.parametrize("target", ["gfx950", "gfx1250"])
def test_fp8_quantize_matches_numpy(target):
    rng = np.random.default_rng(4)
    x = (rng.standard_normal((6, 1000)) * np.exp2(rng.integers(-8, 8, (6, 1)))).astype(np.float32)
    x[5] = 0  # an all-zero row
    q, scale = fp8_quantize.quantize(x, target=target)
    want_scale = np.maximum(np.abs(x).max(axis=1), np.float32(1e-12)) / np.float32(448.0)
    assert np.array_equal(scale, want_scale)
    # The emulator divides with IEEE fp32 as numpy does, so every byte matches.
    want_q = (x / want_scale[:, None]).astype(ml_dtypes.float8_e4m3fn)
    assert np.array_equal(q, want_q.view(np.uint8))
    assert np.abs(q.view(ml_dtypes.float8_e4m3fn).astype(np.float32)).max() == 448.0
    dequantized = q.view(ml_dtypes.float8_e4m3fn).astype(np.float32) * scale[:, None]
    np.testing.assert_allclose(dequantized, x, rtol=2.0 ** -4, atol=scale.max() * 2.0 ** -9)


@pytest.mark.parametrize("script", ["vector_add.py", "softmax.py", "layer_norm.py", "fp8_quantize.py", "int8_matmul.py",
                                    "batched_matmul.py", "flash_attention.py", "descriptor_matmul.py",
                                    "mxfp4_matmul.py", "mx_quantize.py"])
def test_example_main(script, capsys):
    runpy.run_path(os.path.join(EXAMPLES, script), run_name="__main__")
    out = capsys.readouterr().out
    assert "gfx950" in out and "gfx1250" in out
    expected = {"layer_norm.py": "backward max error", "int8_matmul.py": "int32 exact",
                "batched_matmul.py": "max |error|", "flash_attention.py": "max |error|",
                "descriptor_matmul.py": "max |error|",
                "mxfp4_matmul.py": "match their dequantized products",
                "mx_quantize.py": "equal rocktile.quantization's"}.get(script, "vgpr_count")
    assert expected in out


@pytest.mark.parametrize("target", ["gfx950", "gfx1250"])
@pytest.mark.parametrize("M,N,K,blocks,num_warps", [(200, 150, 300, (64, 64, 64), 4), (1, 33, 70, (32, 32, 64), 1),
                                                     (130, 257, 64, (128, 64, 128), 8)])
def test_int8_matmul_exact_and_dequantized(target, M, N, K, blocks, num_warps):
    """examples/int8_matmul.py: int32 results equal numpy's exactly (ragged
    shapes, masked K tail); the dequantized fp32 output equals numpy's
    (A @ B) * sa * sb to fp32 rounding (rtol 1e-6)."""
    rng = np.random.default_rng(M + N + K)
    a = rng.integers(-127, 128, (M, K), dtype=np.int8)
    b = rng.integers(-127, 128, (K, N), dtype=np.int8)
    exact = int8_matmul.int8_matmul(a, b, target=target, blocks=blocks, num_warps=num_warps)
    want = a.astype(np.int32) @ b.astype(np.int32)
    np.testing.assert_array_equal(exact, want)
    sa, sb = rng.random(M).astype(np.float32), rng.random(N).astype(np.float32)
    y = int8_matmul.int8_matmul(a, b, sa, sb, target=target, blocks=blocks, num_warps=num_warps)
    np.testing.assert_allclose(y, want * sa[:, None].astype(np.float64) * sb[None, :], rtol=1e-6)


@pytest.mark.parametrize("num_stages", [1, 2, 3])
@pytest.mark.parametrize("target", ["gfx950", "gfx1250"])
@pytest.mark.parametrize("dtype,heads,n_q,n_kv,d,causal,blocks,num_warps", [
    (ml_dtypes.bfloat16, 2, 100, 70, 64, False, (64, 32), 4),
    (ml_dtypes.bfloat16, 1, 77, 77, 32, True, (32, 32), 2),
    (np.float16, 3, 16, 130, 64, False, (16, 64), 1),
    (np.float16, 1, 130, 200, 128, True, (128, 64), 8),
    (ml_dtypes.bfloat16, 1, 200, 150, 64, True, (128, 64), 4),  # 32 rows per warp: gfx950's 32x32 MFMA
])
def test_attention(target, dtype, heads, n_q, n_kv, d, causal, blocks, num_warps, num_stages):
    """examples/flash_attention.py against float64 numpy, its K and V loads
    pipelined (num_stages=2; at 3 as at 2, since K, used transposed, is
    carried in registers, which hold one tile in flight) or not. Error sources: p rounded to the input
    dtype before P·V (relative eps/2 per term, so at most eps/2 *
    max|v| on the output) and the output's own rounding (eps/2 * max|o|):
    atol = eps * max|v|. Ragged lengths mask keys and queries; causal rows
    start with every key masked in all but the first block."""
    rng = np.random.default_rng(n_q * n_kv + d)
    q, k, v = (rng.standard_normal((heads, n, d)).astype(dtype) for n in (n_q, n_kv, n_kv))
    o = flash_attention.attention(q, k, v, causal=causal, target=target, blocks=blocks, num_warps=num_warps,
                                  num_stages=num_stages)
    want = flash_attention.attention_reference(q, k, v, causal=causal)
    eps = float(ml_dtypes.finfo(dtype).eps)
    np.testing.assert_allclose(o.astype(np.float64), want, rtol=0, atol=eps * np.abs(v.astype(np.float64)).max())
