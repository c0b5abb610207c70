"""The explicit level (rocktile.gluon): kernels written with their layouts,
run in the emulator on both chips against numpy, the layouts kept as
written, and every mistake a located error."""
import os

import numpy as np
import pytest

import rocktile
from rocktile import gluon
import rocktile.gluon.language as gl
from rocktile.errors import SemanticError

FILE = __file__
EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "examples")
CHIPS = {"gfx950": 64, "gfx1250": 32}


def line_of(marker, path=FILE):
    """The line of `path` that ends with `marker` (a kernel's comment)."""
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            if line.rstrip().endswith(marker):
                return lineno
    raise AssertionError(marker)


def blocked_1d(wave, num_warps=4, per_lane=1):
    return gl.BlockedLayout([per_lane], [wave], [num_warps], [0])


def rows_layout(wave, num_warps=4):
    """Four consecutive elements per lane along rows, a wave over 4 rows."""
    return gl.BlockedLayout([1, 4], [4, wave // 4], [num_warps, 1], [1, 0])


@gluon.jit
def axpy(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: gl.constexpr, layout: gl.constexpr):
    offs = gl.program_id(0) * BLOCK + gl.arange(0, BLOCK, layout=layout)
    mask = offs < n
    x = gl.load(x_ptr + offs, mask=mask)
    y = gl.load(y_ptr + offs, mask=mask, other=0.0)
    gl.store(out_ptr + offs, alpha * x + y, mask=mask)


@pytest.mark.parametrize("target", CHIPS)
@pytest.mark.parametrize("per_lane", [1, 4])
def test_axpy(target, per_lane):
    rng = np.random.default_rng(0)
    n = 1000
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = np.zeros_like(x)
    block = 128 * per_lane * CHIPS[target] // 32
    axpy[(rocktile.cdiv(n, block),)](x, y, out, n, 0.5, BLOCK=block,
                                     layout=blocked_1d(CHIPS[target], per_lane=per_lane), target=target)
    np.testing.assert_allclose(out, 0.5 * x + y, rtol=1e-6, atol=1e-6)


@gluon.jit
def row_softmax(x_ptr, out_ptr, rows, cols, stride, BLOCK_R: gl.constexpr, BLOCK_C: gl.constexpr,
                layout: gl.constexpr, store_layout: gl.constexpr):
    r = gl.program_id(0) * BLOCK_R + gl.arange(0, BLOCK_R, layout=gl.SliceLayout(1, layout))
    c = gl.arange(0, BLOCK_C, layout=gl.SliceLayout(0, layout))
    mask = (r[:, None] < rows) & (c[None, :] < cols)
    x = gl.load(x_ptr + r[:, None] * stride + c[None, :], mask=mask, other=-float("inf"))
    e = gl.exp(x - gl.expand_dims(gl.max(x, axis=1), 1))
    y = e / gl.sum(e, axis=1)[:, None]
    # Stored from another layout: the values move between lanes, and so
    # must the offsets and mask, rebuilt in that layout.
    y = gl.convert_layout(y, store_layout)
    r2 = gl.program_id(0) * BLOCK_R + gl.arange(0, BLOCK_R, layout=gl.SliceLayout(1, store_layout))
    c2 = gl.arange(0, BLOCK_C, layout=gl.SliceLayout(0, store_layout))
    mask2 = (r2[:, None] < rows) & (c2[None, :] < cols)
    gl.store(out_ptr + r2[:, None] * stride + c2[None, :], y, mask=mask2)


@pytest.mark.parametrize("target", CHIPS)
def test_row_softmax_with_a_layout_conversion(target):
    wave = CHIPS[target]
    rng = np.random.default_rng(1)
    rows, cols = 37, 50
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    out = np.zeros_like(x)
    # Stored column-major across lanes: a wave runs down the columns.
    store_layout = gl.BlockedLayout([2, 1], [wave // 4, 4], [1, 4], [0, 1])
    row_softmax[(rocktile.cdiv(rows, 16),)](x, out, rows, cols, cols, BLOCK_R=16, BLOCK_C=64,
                                            layout=rows_layout(wave), store_layout=store_layout, target=target)
    ref = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(out, ref / ref.sum(1, keepdims=True), rtol=1e-5, atol=1e-6)


@gluon.jit
def column_sums(x_ptr, out_ptr, rows, cols, BLOCK_R: gl.constexpr, BLOCK_C: gl.constexpr, layout: gl.constexpr):
    """Sums of each column, the rows taken BLOCK_R at a time by a loop
    carrying the partial sums in the slice of the tile's layout."""
    c = gl.program_id(0) * BLOCK_C + gl.arange(0, BLOCK_C, layout=gl.SliceLayout(0, layout))
    acc = gl.zeros([BLOCK_C], gl.float32, layout=gl.SliceLayout(0, layout))
    for start in range(0, rows, BLOCK_R):
        r = start + gl.arange(0, BLOCK_R, layout=gl.SliceLayout(1, layout))
        mask = (r[:, None] < rows) & (c[None, :] < cols)
        acc += gl.sum(gl.load(x_ptr + r[:, None] * cols + c[None, :], mask=mask, other=0.0), axis=0)
    gl.store(out_ptr + c, acc, mask=c < cols)


@pytest.mark.parametrize("target", CHIPS)
def test_a_loop_carries_a_sliced_tile(target):
    rng = np.random.default_rng(2)
    rows, cols = 45, 70
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    out = np.zeros(cols, np.float32)
    column_sums[(rocktile.cdiv(cols, 32),)](x, out, rows, cols, BLOCK_R=8, BLOCK_C=32,
                                            layout=rows_layout(CHIPS[target]), target=target)
    np.testing.assert_allclose(out, x.sum(0), rtol=1e-5, atol=1e-5)


@gluon.jit
def transpose(x_ptr, out_ptr, M: gl.constexpr, N: gl.constexpr, layout: gl.constexpr):
    """out = x.T for an M x N x: loaded row by row, permuted (the lanes keep
    their elements, the layout's dimensions swap), stored along out's rows."""
    r = gl.arange(0, M, layout=gl.SliceLayout(1, layout))
    c = gl.arange(0, N, layout=gl.SliceLayout(0, layout))
    x = gl.load(x_ptr + r[:, None] * N + c[None, :])
    t = gl.permute(x, (1, 0))
    tr = gl.arange(0, N, layout=gl.SliceLayout(1, t.type.layout))
    tc = gl.arange(0, M, layout=gl.SliceLayout(0, t.type.layout))
    gl.store(out_ptr + tr[:, None] * M + tc[None, :], t)


@pytest.mark.parametrize("target", CHIPS)
def test_permute_keeps_each_lane_s_elements(target):
    x = np.arange(32 * 64, dtype=np.float32).reshape(32, 64)
    out = np.zeros((64, 32), np.float32)
    transpose[(1,)](x, out, M=32, N=64, layout=rows_layout(CHIPS[target]), target=target)
    np.testing.assert_array_equal(out, x.T)
    tile_ir = transpose.compile({"x_ptr": "*fp32", "out_ptr": "*fp32"},
                                {"M": 32, "N": 64, "layout": rows_layout(CHIPS[target])}, target=target).asm["tile"]
    wave = CHIPS[target]
    assert (f"#tile.blocked<sizePerThread = [4, 1], threadsPerWarp = [{wave // 4}, 4], warpsPerCTA = [1, 4], "
            "order = [0, 1]>") in tile_ir


def linear_layout_of_a_wave(wave):
    """A 1-D tile of 2 * wave elements on one warp: register bit 0 steps by
    the wave, lane bits by 1 (lane i holds elements i and i + wave)."""
    lanes = [[1 << i] for i in range(wave.bit_length() - 1)]
    return gl.DistributedLinearLayout(reg_bases=[[wave]], lane_bases=lanes, warp_bases=[], block_bases=[],
                                      shape=[2 * wave])


@gluon.jit
def reverse_pairs(x_ptr, out_ptr, N: gl.constexpr, layout: gl.constexpr):
    offs = gl.arange(0, N, layout=layout)
    gl.store(out_ptr + offs, gl.load(x_ptr + (N - 1 - offs)))


@pytest.mark.parametrize("target", CHIPS)
def test_distributed_linear_layout(target):
    wave = CHIPS[target]
    x = np.arange(2 * wave, dtype=np.int32)
    out = np.zeros_like(x)
    reverse_pairs[(1,)](x, out, N=2 * wave, layout=linear_layout_of_a_wave(wave), target=target, num_warps=1)
    np.testing.assert_array_equal(out, x[::-1])


def test_the_tile_ir_keeps_the_layouts_as_written():
    layout = gl.BlockedLayout([2], [64], [2], [0])
    tile_ir = axpy.compile({"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "alpha": "fp32"},
                           {"BLOCK": 512, "layout": layout}, target="gfx950", num_warps=2).asm["tile"]
    # Layout assignment would have chosen 4 elements per lane (16-byte accesses).
    assert "#tile.blocked<sizePerThread = [2], threadsPerWarp = [64], warpsPerCTA = [2], order = [0]>" in tile_ir
    assert "sizePerThread = [4]" not in tile_ir


def test_triton_s_gluon_imports_resolve_to_rocktile():
    import rocktile.compat
    rocktile.compat.install()
    try:
        from triton.experimental import gluon as triton_gluon
        from triton.experimental.gluon import language as triton_gl
        assert triton_gluon.jit is gluon.jit and triton_gl.BlockedLayout is gl.BlockedLayout
    finally:
        rocktile.compat.uninstall()


# --------------------------------------------------------------------------
# Mistakes: each a CompilationError at the kernel's line.

def compile_error(kernel, signature, constexprs, target="gfx950", num_warps=4):
    with pytest.raises(rocktile.CompilationError) as info:
        kernel.compile(signature, constexprs, target=target, num_warps=num_warps)
    return info.value


def check_located(error, marker, message):
    assert (error.filename, error.lineno) == (FILE, line_of(marker)), str(error)
    assert message in str(error), str(error)


@gluon.jit
def mismatched_layouts(x_ptr, A: gl.constexpr, B: gl.constexpr):
    a = gl.arange(0, 64, layout=A)
    b = gl.arange(0, 64, layout=B)
    gl.store(x_ptr + a, a + b)  # ERR-mismatch


def test_operands_of_different_layouts():
    error = compile_error(mismatched_layouts, {"x_ptr": "*i32"},
                          {"A": blocked_1d(64), "B": gl.BlockedLayout([2], [64], [4], [0])})
    check_located(error, "# ERR-mismatch", "layout mismatch in '+'")
    assert "gl.convert_layout" in str(error)


@gluon.jit
def expand_along_the_wrong_axis(x_ptr, L: gl.constexpr):
    r = gl.arange(0, 16, layout=gl.SliceLayout(1, L))
    gl.store(x_ptr + gl.expand_dims(r, 0), 1)  # ERR-expand


def test_expand_dims_needs_the_slice_along_its_axis():
    error = compile_error(expand_along_the_wrong_axis, {"x_ptr": "*i32"}, {"L": rows_layout(64)})
    check_located(error, "# ERR-expand", "needs a tile whose layout is a SliceLayout along 0")


@gluon.jit
def no_layout(x_ptr):
    offs = gl.arange(0, 64)  # ERR-no-layout
    gl.store(x_ptr + offs, 1)


@gluon.jit
def auto_layout(x_ptr):
    offs = gl.arange(0, 64, layout=gl.AutoLayout())  # ERR-auto
    gl.store(x_ptr + offs, 1)


def test_a_tile_without_a_layout():
    check_located(compile_error(no_layout, {"x_ptr": "*i32"}, {}), "# ERR-no-layout", "gl.arange needs a layout")
    check_located(compile_error(auto_layout, {"x_ptr": "*i32"}, {}), "# ERR-auto",
                  "AutoLayout (a layout the compiler chooses) is not supported")


@gluon.jit
def reshaped(x_ptr, L: gl.constexpr):
    offs = gl.arange(0, 64, layout=L)
    gl.store(x_ptr + offs, gl.reshape(offs, [8, 8]).sum(1).sum(0))  # ERR-reshape


def test_an_op_whose_layout_rocktile_cannot_derive():
    check_located(compile_error(reshaped, {"x_ptr": "*i32"}, {"L": blocked_1d(64)}), "# ERR-reshape",
                  "cannot derive the layout of the result of tile.reshape")


@gluon.jit
def store_ones(x_ptr, L: gl.constexpr):
    offs = gl.arange(0, 256, layout=L)  # ERR-fit
    gl.store(x_ptr + offs, 1)


def test_a_layout_for_another_wave_size():
    error = compile_error(store_ones, {"x_ptr": "*i32"}, {"L": blocked_1d(64)}, target="gfx1250")
    check_located(error, "# ERR-fit", "places it on 64 lanes per warp, but a gfx1250 wave has 32")
    assert "threads_per_warp must multiply to 32" in str(error)


def test_a_layout_for_other_warps():
    error = compile_error(store_ones, {"x_ptr": "*i32"}, {"L": blocked_1d(64, num_warps=4)}, num_warps=8)
    check_located(error, "# ERR-fit", "places it on 4 warps, but the kernel is compiled for num_warps=8")
    assert "warps_per_cta must multiply to 8" in str(error)
    error = compile_error(store_ones, {"x_ptr": "*i32"}, {"L": linear_layout_of_a_wave(64)})
    check_located(error, "# ERR-fit", "DistributedLinearLayout(")
    assert "is written for a tile of shape [128], but this tile has shape [256]" in str(error)


@pytest.mark.parametrize("fields, message", [
    (([1, 1], [64], [4], [0]), "must have the same length"),
    (([1], [64], [4], [1]), "order must be a permutation of 0..0"),
    (([3], [64], [4], [0]), "size_per_thread must be powers of two"),
])
def test_malformed_blocked_layouts(fields, message):
    with pytest.raises(SemanticError, match=message):
        gl.BlockedLayout(*fields)


@gluon.jit
def the_rest(x_ptr, count_ptr, total_ptr, out_ptr, n, BLOCK: gl.constexpr, layout: gl.constexpr,
             square: gl.constexpr):
    """The tile language's functions keep their operands' layouts: an
    atomic, where, clamp, full_like (of a scalar computed in the kernel),
    and a reduction over every axis of an outer product."""
    offs = gl.arange(0, BLOCK, layout=layout)
    mask = offs < n
    x = gl.load(x_ptr + offs, mask=mask, other=0.0)
    outer = (gl.expand_dims(gl.convert_layout(x, gl.SliceLayout(1, square)), 1) *
             gl.expand_dims(gl.convert_layout(x, gl.SliceLayout(0, square)), 0))
    gl.store(total_ptr, gl.sum(outer))
    positive = gl.where(x > 0, gl.full_like(x, 1), gl.zeros_like(x)).to(gl.int32)
    gl.atomic_add(count_ptr + offs * 0, positive, mask=mask)
    gl.store(out_ptr + offs, gl.clamp(x, -0.5, 0.5) + gl.full_like(x, gl.max(x, 0)), mask=mask)


@pytest.mark.parametrize("target", CHIPS)
def test_the_tile_language_s_functions_keep_layouts(target):
    rng = np.random.default_rng(3)
    n, wave = 60, CHIPS[target]
    x = rng.standard_normal(n).astype(np.float32)
    count, total, out = np.zeros(1, np.int32), np.zeros(1, np.float32), np.zeros(n, np.float32)
    square = gl.BlockedLayout([1, 2], [wave // 8, 8], [1, 1], [1, 0])
    the_rest[(1,)](x, count, total, out, n, BLOCK=64, layout=blocked_1d(wave, num_warps=1), square=square,
                   target=target, num_warps=1)
    np.testing.assert_allclose(total[0], x.sum() ** 2, rtol=1e-4)
    assert count[0] == (x > 0).sum()
    np.testing.assert_allclose(out, np.clip(x, -0.5, 0.5) + x.max(), rtol=1e-6)


@gluon.jit
def branches_and_loops(x_ptr, out_ptr, n, flag, BLOCK: gl.constexpr, layout: gl.constexpr):
    offs = gl.arange(0, BLOCK, layout=layout)
    mask = offs < n
    x = gl.load(x_ptr + offs, mask=mask)
    if flag > 0:
        y = x * 2.0
    else:
        y = gl.zeros_like(x)
    i = 0
    while i < flag:
        y = y + 1.0
        i += 1
    for _ in gl.static_range(2):
        y = y * 2.0
    gl.store(out_ptr + offs, y, mask=mask)


@pytest.mark.parametrize("target", CHIPS)
@pytest.mark.parametrize("flag", [0, 3])
def test_branches_and_loops_carry_layouts(target, flag):
    x = np.arange(50, dtype=np.float32)
    out = np.zeros_like(x)
    branches_and_loops[(1,)](x, out, 50, flag, BLOCK=64, layout=blocked_1d(CHIPS[target], num_warps=2),
                             target=target, num_warps=2)
    np.testing.assert_array_equal(out, ((x * 2 + flag) if flag else np.zeros_like(x)) * 4)


# --------------------------------------------------------------------------
# Matrix instructions at the explicit level.

GEMM_SIGNATURE = {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32"}


def gemm_constexprs(mfma, k_width=8):
    return {"BM": 64, "BN": 64, "BK": 32, "load_layout": gl.BlockedLayout([1, 8], [8, 8], [4, 1], [1, 0]),
            "acc_layout": mfma, "KW": k_width}


@pytest.mark.parametrize("instr_shape", [[16, 16, 32], [32, 32, 16]])
@pytest.mark.parametrize("transposed", [True, False])
@pytest.mark.parametrize("warps", [[2, 2], [4, 1]])
def test_mfma_gemm(instr_shape, transposed, warps):
    import ml_dtypes
    rng = np.random.default_rng(4)
    M, N, K = 100, 90, 70
    a = rng.standard_normal((M, K)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((K, N)).astype(ml_dtypes.bfloat16)
    c = np.zeros((M, N), np.float32)
    mfma = gl.amd.AMDMFMALayout(4, instr_shape, transposed, warps)
    gemm[(2, 2)](a, b, c, M, N, K, **gemm_constexprs(mfma), target="gfx950")
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-5, atol=1e-4)
    simt = gemm.compile(GEMM_SIGNATURE, gemm_constexprs(mfma), target="gfx950")._asm["simt"]
    assert f"amdgpu.mfma {instr_shape[0]}x{instr_shape[1]}x{instr_shape[2]}" in simt


@pytest.mark.parametrize("transposed", [True, False])
@pytest.mark.parametrize("warp_bases", [[[0, 1], [1, 0]], [[1, 0], [2, 0]], [[1, 0], [0, 1]]])
def test_wmma_gemm(transposed, warp_bases):
    import ml_dtypes
    rng = np.random.default_rng(5)
    M, N, K = 100, 90, 70
    a = rng.standard_normal((M, K)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((K, N)).astype(ml_dtypes.bfloat16)
    c = np.zeros((M, N), np.float32)
    wmma = gl.amd.AMDWMMALayout(3, transposed, warp_bases, instr_shape=[16, 16, 32])
    constexprs = {**gemm_constexprs(wmma), "load_layout": gl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0]),
                  "WMMA": True}
    gemm[(2, 2)](a, b, c, M, N, K, **constexprs, target="gfx1250")
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-5, atol=1e-4)
    simt = gemm.compile(GEMM_SIGNATURE, constexprs, target="gfx1250")._asm["simt"]
    assert "amdgpu.wmma 16x16x32" in simt


def test_a_k_width_the_instruction_does_not_read():
    mfma = gl.amd.AMDMFMALayout(4, [16, 16, 32], True, [2, 2])
    error = compile_error(gemm, GEMM_SIGNATURE, gemm_constexprs(mfma, k_width=4))
    check_located(error, "# ERR-kwidth", "k_width=4 does not match mfma_f32_16x16x32_bf16, whose lanes hold 8 "
                                         "consecutive k of A and B: use k_width=8")


def test_an_instruction_shape_the_chip_lacks():
    error = compile_error(gemm, GEMM_SIGNATURE, gemm_constexprs(gl.amd.AMDMFMALayout(4, [16, 16, 16], True,
                                                                                              [2, 2])))
    assert "gfx950 has no MFMA instruction of shape [16, 16, 16]" in str(error)
    assert "16x16x32 (bf16)" in str(error)
    error = compile_error(gemm, GEMM_SIGNATURE, gemm_constexprs(gl.amd.AMDMFMALayout(4, [16, 16, 32], True,
                                                                                              [2, 2])),
                          target="gfx1250")
    assert "gfx1250 has no MFMA instructions: its matrix instructions are WMMA" in str(error)


@gluon.jit
def mfma_of_blocked_tiles(c_ptr, mfma: gl.constexpr, blocked: gl.constexpr):
    a = gl.zeros([32, 32], gl.bfloat16, layout=blocked)
    acc = gl.zeros([32, 32], gl.float32, layout=mfma)
    acc = gl.amd.cdna4.mfma(a, a, acc)  # ERR-operands
    r = gl.arange(0, 32, layout=gl.SliceLayout(1, mfma))
    gl.store(c_ptr + r[:, None] * 32 + gl.arange(0, 32, layout=gl.SliceLayout(0, mfma))[None, :], acc)


def test_mfma_operands_must_be_in_its_operand_layouts():
    error = compile_error(mfma_of_blocked_tiles, {"c_ptr": "*fp32"},
                          {"mfma": gl.amd.AMDMFMALayout(4, [16, 16, 32], True, [2, 2]),
                           "blocked": gl.BlockedLayout([1, 8], [8, 8], [4, 1], [1, 0])})
    check_located(error, "# ERR-operands", "mfma(a, b, acc) takes acc in a matrix-instruction layout P and a and b "
                                           "in DotOperandLayout(0, P, k_width)")


# --------------------------------------------------------------------------
# Shared memory at the explicit level.

@gluon.jit
def gemm(a_ptr, b_ptr, c_ptr, M, N, K, BM: gl.constexpr, BN: gl.constexpr, BK: gl.constexpr,
         load_layout: gl.constexpr, acc_layout: gl.constexpr, KW: gl.constexpr, a_shared: gl.constexpr = None,
         b_shared: gl.constexpr = None, WMMA: gl.constexpr = False, BARRIER: gl.constexpr = True):
    """C = A B. With shared layouts, each K step's blocks are written into
    one of two blocks of a ring (.index), a barrier, read back in the
    operand layouts; without, converted to them in registers."""
    rm = gl.program_id(0) * BM + gl.arange(0, BM, layout=gl.SliceLayout(1, load_layout))
    rn = gl.program_id(1) * BN + gl.arange(0, BN, layout=gl.SliceLayout(0, load_layout))
    if a_shared is not None:
        a_ring = gl.allocate_shared_memory(gl.bfloat16, [2, BM, BK], a_shared)
        b_ring = gl.allocate_shared_memory(gl.bfloat16, [2, BK, BN], b_shared)
    acc = gl.zeros([BM, BN], gl.float32, layout=acc_layout)
    for k0 in range(0, K, BK):
        ka = k0 + gl.arange(0, BK, layout=gl.SliceLayout(0, load_layout))
        kb = k0 + gl.arange(0, BK, layout=gl.SliceLayout(1, load_layout))
        a = gl.load(a_ptr + rm[:, None] * K + ka[None, :], mask=(rm[:, None] < M) & (ka[None, :] < K), other=0.0)
        b = gl.load(b_ptr + kb[:, None] * N + rn[None, :], mask=(kb[:, None] < K) & (rn[None, :] < N), other=0.0)
        if a_shared is not None:
            a_smem = a_ring.index((k0 // BK) % 2)
            b_smem = b_ring.index((k0 // BK) % 2)
            a_smem.store(a)  # LDS-write
            b_smem.store(b)
            if BARRIER:
                gl.barrier()
            a_op = a_smem.load(gl.DotOperandLayout(0, acc_layout, KW))  # LDS-read
            b_op = b_smem.load(gl.DotOperandLayout(1, acc_layout, KW))
        else:
            a_op = gl.convert_layout(a, gl.DotOperandLayout(0, acc_layout, KW))  # ERR-kwidth
            b_op = gl.convert_layout(b, gl.DotOperandLayout(1, acc_layout, KW))
        if WMMA:
            acc = gl.amd.gfx1250.wmma(a_op, b_op, acc)
        else:
            acc = gl.amd.cdna4.mfma(a_op, b_op, acc)
    cm = gl.program_id(0) * BM + gl.arange(0, BM, layout=gl.SliceLayout(1, acc_layout))
    cn = gl.program_id(1) * BN + gl.arange(0, BN, layout=gl.SliceLayout(0, acc_layout))
    gl.store(c_ptr + cm[:, None] * N + cn[None, :], acc, mask=(cm[:, None] < M) & (cn[None, :] < N))


def lds_gemm_constexprs(target, a_shared=None, **more):
    wave = CHIPS[target]
    acc = (gl.amd.AMDMFMALayout(4, [16, 16, 32], True, [2, 2]) if target == "gfx950" else
           gl.amd.AMDWMMALayout(3, True, [[0, 1], [1, 0]], instr_shape=[16, 16, 32]))
    return {"BM": 64, "BN": 64, "BK": 32, "load_layout": gl.BlockedLayout([1, 8], [wave // 8, 8], [4, 1], [1, 0]),
            "acc_layout": acc, "KW": 8, "a_shared": a_shared or gl.SwizzledSharedLayout(8, 2, 4, [1, 0]),
            "b_shared": gl.SwizzledSharedLayout(8, 1, 8, [1, 0]), "WMMA": target == "gfx1250", **more}


def run_lds_gemm(target, M=100, N=90, K=70, **constexprs):
    import ml_dtypes
    rng = np.random.default_rng(6)
    a = rng.standard_normal((M, K)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((K, N)).astype(ml_dtypes.bfloat16)
    c = np.zeros((M, N), np.float32)
    kernel = gemm[(rocktile.cdiv(M, 64), rocktile.cdiv(N, 64))](
        a, b, c, M, N, K, **lds_gemm_constexprs(target, **constexprs), target=target)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-5, atol=1e-4)
    return kernel


@pytest.mark.parametrize("target", CHIPS)
@pytest.mark.parametrize("a_shared", [gl.SwizzledSharedLayout(8, 2, 4, [1, 0]), gl.SwizzledSharedLayout(1, 1, 1, [1, 0]),
                                      gl.PaddedSharedLayout.with_identity_for([[32, 8]], [64, 32], [1, 0])],
                         ids=["swizzled", "plain", "padded"])
def test_a_gemm_through_the_author_s_shared_memory(target, a_shared):
    run_lds_gemm(target, a_shared=a_shared)


@pytest.mark.parametrize("target", CHIPS)
def test_the_compiler_places_the_barriers_the_author_leaves_out(target):
    """As with Triton's Gluon, a kernel need not order its shared-memory
    accesses itself: tile-insert-barriers does, and the emulator, which
    reports an LDS race naming both lines, finds none. The author's own
    barrier counts: the kernel gets as many either way."""
    barriers = [run_lds_gemm(target, BARRIER=placed)._asm["simt"].count("gpu.barrier") for placed in (False, True)]
    assert barriers[0] == barriers[1] > 0, barriers


def a_read_conflicts(target, a_shared):
    """The bank-conflict cycles the emulator measured on A's reads."""
    kernel = run_lds_gemm(target, M=64, N=64, K=64, a_shared=a_shared)
    line = f"{FILE}:{line_of('# LDS-read')}:"
    [cycles] = [extra for (where, kind), (_, extra) in kernel.lds_bank_conflicts().items()
                if where.startswith(line) and kind == "load"]
    return cycles


def test_bank_conflicts_are_measured_for_the_author_s_layout():
    plain = a_read_conflicts("gfx950", gl.SwizzledSharedLayout(1, 1, 1, [1, 0]))
    swizzled = a_read_conflicts("gfx950", gl.SwizzledSharedLayout(8, 2, 4, [1, 0]))
    padded = a_read_conflicts("gfx950", gl.PaddedSharedLayout.with_identity_for([[32, 8]], [64, 32], [1, 0]))
    # A padding of a whole bank line (64 banks of 4 bytes on gfx950) moves
    # no row to other banks: a planted bug the measurement catches.
    conflicting = a_read_conflicts("gfx950", gl.PaddedSharedLayout.with_identity_for([[32, 128]], [64, 32], [1, 0]))
    assert plain > swizzled > padded == 0 and conflicting == plain, (plain, swizzled, padded, conflicting)


@gluon.jit
def transposed_through_shared(x_ptr, y_ptr, L: gl.constexpr, R: gl.constexpr, S: gl.constexpr):
    """Y = Xᵀ (X 32x64): X stored into a block, read through .permute([1, 0])."""
    r = gl.arange(0, 32, layout=gl.SliceLayout(1, L))
    c = gl.arange(0, 64, layout=gl.SliceLayout(0, L))
    smem = gl.allocate_shared_memory(gl.float16, [32, 64], S, gl.load(x_ptr + r[:, None] * 64 + c[None, :]))
    y = smem.permute([1, 0]).load(R)
    r2 = gl.arange(0, 64, layout=gl.SliceLayout(1, R))
    c2 = gl.arange(0, 32, layout=gl.SliceLayout(0, R))
    gl.store(y_ptr + r2[:, None] * 32 + c2[None, :], y)


@pytest.mark.parametrize("target", CHIPS)
def test_a_permuted_shared_memory_view(target):
    """.permute reads the block transposed (in the layout that permutes to
    the one asked for, then a permute that moves nothing between lanes);
    examples/gluon_attention.py reads Kᵀ so as a WMMA operand."""
    wave = CHIPS[target]
    x = np.arange(32 * 64, dtype=np.float32).reshape(32, 64).astype(np.float16)
    y = np.zeros((64, 32), np.float16)
    transposed_through_shared[(1,)](x, y, L=gl.BlockedLayout([1, 8], [wave // 8, 8], [4, 1], [1, 0]),
                                    R=gl.BlockedLayout([1, 8], [wave // 4, 4], [4, 1], [1, 0]),
                                    S=gl.SwizzledSharedLayout(8, 1, 8, [1, 0]), target=target)
    np.testing.assert_array_equal(y, x.T)


@gluon.jit
def quarters_through_shared(x_ptr, y_ptr, L: gl.constexpr, R: gl.constexpr, S: gl.constexpr):
    """Y = X (64x64): X stored whole, read back in four 32x32 .slice views
    (each stored to its quarter of Y); then the same, written quarter by
    quarter and read whole."""
    r = gl.arange(0, 64, layout=gl.SliceLayout(1, L))
    c = gl.arange(0, 64, layout=gl.SliceLayout(0, L))
    smem = gl.allocate_shared_memory(gl.float16, [64, 64], S, gl.load(x_ptr + r[:, None] * 64 + c[None, :]))
    r2 = gl.arange(0, 32, layout=gl.SliceLayout(1, R))
    c2 = gl.arange(0, 32, layout=gl.SliceLayout(0, R))
    for i in gl.static_range(2):
        for j in gl.static_range(2):
            q = smem.slice(32 * i, 32, 0).slice(32 * j, 32, 1).load(R)
            gl.store(y_ptr + (32 * i + r2)[:, None] * 64 + (32 * j + c2)[None, :], q)
    other = gl.allocate_shared_memory(gl.float16, [64, 64], S)
    for i in gl.static_range(2):
        for j in gl.static_range(2):
            other.slice(32 * i, 32, 0).slice(32 * j, 32, 1).store(
                gl.load(x_ptr + (32 * i + r2)[:, None] * 64 + (32 * j + c2)[None, :]))
    gl.store(y_ptr + 4096 + r[:, None] * 64 + c[None, :], other.load(L))


@pytest.mark.parametrize("target", CHIPS)
@pytest.mark.parametrize("shared", [gl.SwizzledSharedLayout(8, 2, 4, [1, 0]), gl.SwizzledSharedLayout(1, 1, 1, [1, 0]),
                                    gl.PaddedSharedLayout.with_identity_for([[64, 8]], [64, 64], [1, 0])],
                         ids=["swizzled", "plain", "padded"])
def test_sliced_shared_memory_views(target, shared):
    """.slice views read and write the sub-blocks where the block's layout
    puts them (a swizzle's phase comes from the whole block's rows)."""
    wave = CHIPS[target]
    x = np.arange(64 * 64, dtype=np.float32).reshape(64, 64).astype(np.float16)
    y = np.zeros((2, 64, 64), np.float16)
    quarters_through_shared[(1,)](x, y, L=gl.BlockedLayout([1, 8], [wave // 8, 8], [4, 1], [1, 0]),
                                  R=gl.BlockedLayout([1, 4], [wave // 8, 8], [4, 1], [1, 0]), S=shared, target=target)
    np.testing.assert_array_equal(y[0], x)
    np.testing.assert_array_equal(y[1], x)


@gluon.jit
def shared_memory_mistakes(x_ptr, L: gl.constexpr, S: gl.constexpr, CASE: gl.constexpr):
    x = gl.load(x_ptr + gl.arange(0, 64, layout=L))
    ring = gl.allocate_shared_memory(gl.float32, [2, 64], S)
    if CASE == 0:
        ring.store(x)  # ERR-smem-ring
    elif CASE == 1:
        ring.index(0).store(x.to(gl.float16))  # ERR-smem-dtype
    else:
        ring.index(0).slice(16, 32)  # ERR-smem-slice


@pytest.mark.parametrize("case, marker, message", [
    (0, "# ERR-smem-ring", "of a buffer of 2 blocks needs one of them: .index(i) first"),
    (1, "# ERR-smem-dtype", "the shape and dtype must match"),
    (2, "# ERR-smem-slice", ".slice(16, 32, dim=0) of a block of [64]: rocktile takes a power-of-two length and a "
                            "start that is a multiple of it, inside the block"),
])
def test_shared_memory_mistakes(case, marker, message):
    error = compile_error(shared_memory_mistakes, {"x_ptr": "*fp32"},
                          {"L": blocked_1d(64, num_warps=1), "S": gl.SwizzledSharedLayout(1, 1, 1, [0]), "CASE": case},
                          num_warps=1)
    check_located(error, marker, message)


def test_shared_layouts_rocktile_does_not_take():
    with pytest.raises(SemanticError, match="SharedLinearLayout is not supported"):
        gl.SharedLinearLayout([[0, 1]])
    error = compile_error(shared_memory_mistakes, {"x_ptr": "*fp32"},
                          {"L": blocked_1d(64, num_warps=1), "CASE": 0,
                           "S": gl.PaddedSharedLayout.with_identity_for([[16, 4]], [64], [0])}, num_warps=1)
    assert "one [interval, padding] pair whose interval is a row" in str(error)


@gluon.jit
def through_shared_memory(x_ptr, out_ptr, M: gl.constexpr, N: gl.constexpr, rows: gl.constexpr,
                          columns: gl.constexpr, S: gl.constexpr):
    """A tile written with value= in one layout, read back in another."""
    r = gl.arange(0, M, layout=gl.SliceLayout(1, rows))
    c = gl.arange(0, N, layout=gl.SliceLayout(0, rows))
    smem = gl.allocate_shared_memory(gl.float16, [M, N], S, value=gl.load(x_ptr + r[:, None] * N + c[None, :]))
    gl.barrier()
    y = smem.load(columns)
    r2 = gl.arange(0, M, layout=gl.SliceLayout(1, columns))
    c2 = gl.arange(0, N, layout=gl.SliceLayout(0, columns))
    gl.store(out_ptr + r2[:, None] * N + c2[None, :], y * 2)


@pytest.mark.parametrize("target", CHIPS)
def test_allocate_with_a_value_and_read_in_another_layout(target):
    wave = CHIPS[target]
    x = np.arange(64 * 32, dtype=np.float16).reshape(64, 32) / 64
    out = np.zeros_like(x)
    through_shared_memory[(1,)](x, out, M=64, N=32, rows=gl.BlockedLayout([1, 8], [wave // 4, 4], [4, 1], [1, 0]),
                                columns=gl.BlockedLayout([4, 1], [wave // 2, 2], [1, 4], [0, 1]),
                                S=gl.SwizzledSharedLayout(4, 1, 8, [1, 0]), target=target)
    np.testing.assert_array_equal(out, x * 2)


@pytest.mark.parametrize("target", CHIPS)
def test_the_gluon_matmul_example(target):
    """examples/gluon_matmul.py on ragged shapes; B, stored along its rows,
    is read across them with the chip's transpose reads."""
    import ml_dtypes
    from gluon_matmul import gluon_matmul_kernel, layouts, matmul
    rng = np.random.default_rng(7)
    a = rng.standard_normal((150, 100)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((100, 130)).astype(ml_dtypes.bfloat16)
    np.testing.assert_allclose(matmul(a, b, target), a.astype(np.float32) @ b.astype(np.float32), rtol=1e-5,
                               atol=1e-4)
    signature = {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32",
                 "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32"}
    simt = gluon_matmul_kernel.compile(signature, layouts(target), target=target)._asm["simt"]
    assert ("amdgpu.transpose_load" if target == "gfx950" else "rocdl.ds.load.tr16.b128") in simt


# --------------------------------------------------------------------------
# gfx1250's Tensor Data Mover at the explicit level.

def run_tdm_gemm(M=100, N=90, K=150, fp8=False, **constexprs):
    import ml_dtypes
    from gluon_matmul import gluon_tdm_matmul_kernel, tdm_layouts
    rng = np.random.default_rng(8)
    dtype = ml_dtypes.float8_e4m3fn if fp8 else ml_dtypes.bfloat16
    a = rng.standard_normal((M, K)).astype(dtype)
    b = rng.standard_normal((K, N)).astype(dtype)
    c = np.zeros((M, N), np.float32)
    cx = {**tdm_layouts(64, 64, 128 if fp8 else 32, fp8=fp8), **constexprs}
    gluon_tdm_matmul_kernel[(rocktile.cdiv(M, 64), rocktile.cdiv(N, 64))](a, b, c, M, N, K, K, N, N, **cx,
                                                                          target="gfx1250")
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-5, atol=1e-4)


def test_a_tdm_gemm_through_a_ring():
    """examples/gluon_matmul.py's gluon_tdm_matmul_kernel: 3 blocks per
    ring, copies issued two steps ahead, ragged shapes."""
    run_tdm_gemm()


def test_an_fp8_tdm_gemm_through_a_ring():
    """The same kernel for fp8 (e4m3) operands, on WMMA 16x16x128 with K
    blocks of 128: rows of 300 bytes (not a multiple of 16), K past the
    last block zero-filled by the copies."""
    run_tdm_gemm(M=130, N=70, K=300, fp8=True)


def test_a_wait_one_too_weak_names_the_copy_and_the_read():
    """One copy fewer waited for: B's block of the first step, copied
    before the loop (the newest of the first step's copies), is read before
    it lands."""
    with pytest.raises(rocktile.EmulatorError) as e:
        run_tdm_gemm(IN_FLIGHT=2 * (3 - 1) + 1)
    message = str(e.value)
    example = os.path.join(EXAMPLES, "gluon_matmul.py")
    assert f"{example}:{line_of('# first-copies', example)}:" in message, message
    assert f"{example}:{line_of('# operand-read', example)}:" in message, message


@gluon.jit
def tdm_mistakes(x_ptr, S: gl.constexpr, CASE: gl.constexpr):
    desc = gl.amd.gfx1250.tdm.make_tensor_descriptor(x_ptr, [64, 64], [64, 1], [32, 32], S)  # ERR-tdm-layout
    smem = gl.allocate_shared_memory(gl.float32, [32, 16], gl.SwizzledSharedLayout(1, 1, 1, [1, 0]))
    if CASE == 1:
        gl.amd.gfx1250.tdm.async_load(desc, [0, 0], smem)  # ERR-tdm-dest


def test_tdm_mistakes():
    swizzled = gl.SwizzledSharedLayout(8, 1, 4, [1, 0])
    check_located(compile_error(tdm_mistakes, {"x_ptr": "*fp32"}, {"S": swizzled, "CASE": 0}, target="gfx1250"),
                  "# ERR-tdm-layout", "the Tensor Data Mover lands a block's rows in order, unswizzled")
    plain = gl.SwizzledSharedLayout(1, 1, 1, [1, 0])
    check_located(compile_error(tdm_mistakes, {"x_ptr": "*fp32"}, {"S": plain, "CASE": 0}, target="gfx950"),
                  "# ERR-tdm-layout", "gfx950 has no Tensor Data Mover")
    check_located(compile_error(tdm_mistakes, {"x_ptr": "*fp32"}, {"S": plain, "CASE": 1}, target="gfx1250"),
                  "# ERR-tdm-dest", "the shape, dtype and layout must match")
