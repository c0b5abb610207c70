"""Tensor descriptors (tl.make_tensor_descriptor) and block pointers
(tl.make_block_ptr, tl.advance), in the emulator on both targets against
numpy: ragged blocks read zero (or NaN) outside the tensor and write nothing
there; a GEMM through each API; located errors for bad descriptors.
Element copies are exact; the GEMMs use test_dot's tolerance (bf16 products
are exact in fp32: rtol 1e-5, atol 1e-5 * K * max|a| * max|b|)."""
import re

import ml_dtypes
import numpy as np
import pytest

import descriptor_matmul
from amdgcn import k_loop
import rocktile
import rocktile.language as tl

TARGETS = ["gfx950", "gfx1250"]


@rocktile.jit
def scale_2d(x_ptr, y_ptr, M, N, stride_x, stride_y, factor, BM: tl.constexpr, BN: tl.constexpr):
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[stride_x, 1], block_shape=[BM, BN])
    y_desc = tl.make_tensor_descriptor(y_ptr, [M, N], [stride_y, 1], [BM, BN])
    offs = [tl.program_id(0) * BM, tl.program_id(1) * BN]
    y_desc.store(offs, x_desc.load(offs) * factor)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("M,N", [(64, 64), (100, 70), (1, 33)])
def test_ragged_descriptor_blocks(target, M, N):
    # Rows longer than the descriptors' (strides of whole 16-byte units, as descriptors need).
    sx, sy = (N + 3) // 4 * 4 + 8, (N + 3) // 4 * 4 + 4
    x = np.random.default_rng(M).standard_normal((M, sx)).astype(np.float32)
    y = np.full((M, sy), -7.0, np.float32)
    scale_2d[(rocktile.cdiv(M, 32), rocktile.cdiv(N, 32))](x, y, M, N, sx, sy, 2.0, BM=32, BN=32, target=target)
    np.testing.assert_array_equal(y[:, :N], x[:, :N] * 2)
    assert (y[:, N:] == -7).all()  # outside the descriptor's shape: not written


@rocktile.jit
def padded_block(x_ptr, out_ptr, M, N, off_m, off_n, PADDING: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [BM, BN], padding_option=PADDING)
    block = tl.load_tensor_descriptor(desc, [off_m, off_n])
    rm, rn = tl.arange(0, BM), tl.arange(0, BN)
    tl.store(out_ptr + rm[:, None] * BN + rn[None, :], block)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("padding", ["zero", "nan"])
def test_out_of_bounds_reads_are_the_padding(target, padding):
    M, N = 20, 24
    x = np.arange(M * N, dtype=np.float16).reshape(M, N)
    out = np.empty((16, 16), np.float16)
    padded_block[(1,)](x, out, M, N, -3, 12, PADDING=padding, BM=16, BN=16, target=target)
    want = np.full((16, 16), np.nan if padding == "nan" else 0, np.float16)
    want[3:16, :12] = x[0:13, 12:24]
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("target", TARGETS)
def test_a_negative_extent_holds_nothing(target):
    x = np.arange(16 * 16, dtype=np.float16).reshape(16, 16)
    out = np.full((16, 16), 7, np.float16)
    padded_block[(1,)](x, out, -1, 16, 0, 0, PADDING="zero", BM=16, BN=16, target=target)
    np.testing.assert_array_equal(out, np.zeros((16, 16), np.float16))


def test_moving_blocks_cost_an_add_per_register():
    """gfx950 loads descriptor blocks by buffer loads: each offset is the
    block's offsets times the strides (scalars) plus a tile the K loop
    hoists, and each bound one unsigned compare, so the loop multiplies
    nothing per element and checks no offset against 0."""
    signature = {"a_ptr": "*bf16:16:range32", "b_ptr": "*bf16:16:range32", "c_ptr": "*fp32:16:range32",
                 **{k: "i32:16" for k in ("M", "N", "K", "stride_am", "stride_bk", "stride_cm")}}
    kernel = rocktile.compile(descriptor_matmul.matmul_descriptor_kernel, signature,
                              {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, target="gfx950", num_warps=4,
                              num_stages=3)
    loop = k_loop(kernel.asm["amdgcn"])
    assert "buffer_load_dwordx4" in loop and not re.search(r"v_mul_lo_u32|v_cmp_\w+\s+\S+, -1,", loop), loop


@rocktile.jit
def copy_3d(x_ptr, y_ptr, B, M, N, BB: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    x_desc = tl.make_tensor_descriptor(x_ptr, [B, M, N], [M * N, N, 1], [BB, BM, BN])
    y_desc = tl.make_tensor_descriptor(y_ptr, [B, M, N], [M * N, N, 1], [BB, BM, BN])
    offs = [tl.program_id(0) * BB, tl.program_id(1) * BM, 0]
    tl.store_tensor_descriptor(y_desc, offs, x_desc.load(offs) + 1)


@pytest.mark.parametrize("target", TARGETS)
def test_three_dimensional_descriptor(target):
    x = np.random.default_rng(1).integers(-100, 100, (5, 9, 16)).astype(np.int32)
    y = np.zeros_like(x)
    copy_3d[(3, 3)](x, y, 5, 9, 16, BB=2, BM=4, BN=16, target=target)
    np.testing.assert_array_equal(y, x + 1)


@rocktile.jit
def copy_leading_ones(x_ptr, y_ptr, out_ptr, A, B, C, M, N, a, b, c, BM: tl.constexpr, BN: tl.constexpr):
    # [1, 1, 1, BM, BN] blocks of a 5-D tensor and [1, BM, BN] ones of its 3-D view.
    shape, strides = [A, B, C, M, N], [B * C * M * N, C * M * N, M * N, N, 1]
    x = tl.make_tensor_descriptor(x_ptr, shape, strides, [1, 1, 1, BM, BN])
    y = tl.make_tensor_descriptor(y_ptr, [A * B * C, M, N], [M * N, N, 1], [1, BM, BN])
    off_m = tl.program_id(0) * BM
    block = x.load([a, b, c, off_m, 0])
    y.store([(a * B + b) * C + c, off_m, 0], block.reshape(1, BM, BN) + 1)
    rm, rn = off_m + tl.arange(0, BM), tl.arange(0, BN)
    tl.store(out_ptr + rm[:, None] * BN + rn[None, :], block.reshape(BM, BN))


LEADING_SIGNATURE = {"x_ptr": "*fp32:16", "y_ptr": "*fp32:16", "out_ptr": "*fp32:16",
                     **{n: "i32" for n in ("A", "B", "C", "M", "N", "a", "b", "c")}}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("lead", [(0, 0, 0), (1, 2, 0), (2, 0, 1), (-1, 0, 0), (0, 3, 0), (1, 1, 2)])
def test_blocks_behind_leading_ones(target, lead):
    """Leading block dimensions of 1 (attention's 4-D descriptors): the block
    of the last two at the leading offsets, all padding (and nothing
    written) where a leading offset is outside the tensor."""
    A, B, C, M, N = 2, 3, 2, 40, 16
    x = np.random.default_rng(7).standard_normal((A, B, C, M, N)).astype(np.float32)
    y = np.full((A * B * C, M, N), -7.0, np.float32)
    out = np.full((64, N), -7.0, np.float32)
    copy_leading_ones[(2,)](x, y, out, A, B, C, M, N, *lead, BM=32, BN=N, target=target)
    want_y, want_out = np.full_like(y, -7.0), np.zeros_like(out)
    if all(0 <= o < n for o, n in zip(lead, (A, B, C))):
        want_out[:M] = x[lead]
    flat = (lead[0] * B + lead[1]) * C + lead[2]  # y's block: inside y even where x's is not
    if 0 <= flat < A * B * C:
        want_y[flat] = want_out[:M] + 1
    np.testing.assert_array_equal(out, want_out)
    np.testing.assert_array_equal(y, want_y)


def test_gfx1250_copies_blocks_behind_leading_ones():
    tile = rocktile.compile(copy_leading_ones, LEADING_SIGNATURE, {"BM": 32, "BN": 16}, target="gfx1250").asm["tile"]
    assert "tile.descriptor_load" in tile and "tile.descriptor_store" in tile, tile
    # A block of more than one along a leading dimension is loaded through pointers.
    three = rocktile.compile(copy_3d, {"x_ptr": "*i32:16", "y_ptr": "*i32:16", "B": "i32", "M": "i32", "N": "i32"},
                             {"BB": 2, "BM": 4, "BN": 16}, target="gfx1250", num_warps=1).asm["tile"]
    assert "tile.descriptor_load" not in three and "tile.load" in three


@rocktile.jit
def block_pointer_gemm(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                       BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    off_m, off_n = tl.program_id(0) * BM, tl.program_id(1) * BN
    a = tl.make_block_ptr(a_ptr, shape=(M, K), strides=(stride_am, 1), offsets=(off_m, 0), block_shape=(BM, BK),
                          order=(1, 0))
    b = tl.make_block_ptr(b_ptr, (K, N), (stride_bk, 1), (0, off_n), (BK, BN), (1, 0))
    acc = tl.zeros([BM, BN], tl.float32)
    for _ in range(0, tl.cdiv(K, BK)):
        acc += tl.dot(tl.load(a, boundary_check=(0, 1), padding_option="zero"), tl.load(b, boundary_check=(0, 1)))
        a = tl.advance(a, (0, BK))
        b = tl.advance(b, [BK, 0])
    c = tl.make_block_ptr(c_ptr, (M, N), (stride_cm, 1), (off_m, off_n), (BM, BN), (1, 0))
    tl.store(c, acc, boundary_check=(0, 1))


def gemm_operands(M, N, K, seed):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((M, K)).astype(ml_dtypes.bfloat16),
            rng.standard_normal((K, N)).astype(ml_dtypes.bfloat16))


def check_gemm(c, a, b):
    want = a.astype(np.float64) @ b.astype(np.float64)
    atol = 1e-5 * a.shape[1] * np.abs(a.astype(np.float32)).max(initial=0) * np.abs(b.astype(np.float32)).max(initial=0)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=atol)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("M,N,K,blocks,num_warps", [(64, 64, 64, (32, 32, 32), 4), (100, 72, 88, (64, 32, 32), 4),
                                                     (33, 16, 16, (32, 16, 16), 1), (130, 200, 96, (64, 64, 32), 8)])
def test_descriptor_gemm(target, M, N, K, blocks, num_warps):
    """examples/descriptor_matmul.py on ragged shapes (rows of 16-byte multiples)."""
    a, b = gemm_operands(M, N, K, seed=M + K)
    check_gemm(descriptor_matmul.matmul(a, b, target=target, blocks=blocks, num_warps=num_warps), a, b)
    c16 = descriptor_matmul.matmul(a, b, out_dtype=ml_dtypes.bfloat16, target=target, blocks=blocks)
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c16.astype(np.float32), want, rtol=2 ** -8, atol=2 ** -8 * np.abs(want).max())


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("M,N,K", [(64, 64, 64), (100, 70, 90), (32, 32, 0)])
def test_block_pointer_gemm(target, M, N, K):
    a, b = gemm_operands(M, N, K, seed=N + K)
    c = np.full((M, N + 8), 5.0, np.float32)  # rows 8 elements longer: never written
    block_pointer_gemm[(rocktile.cdiv(M, 32), rocktile.cdiv(N, 32))](a, b, c, M, N, K, max(K, 1), N, N + 8,
                                                                     BM=32, BN=32, BK=32, target=target)
    check_gemm(c[:, :N], a, b)
    assert (c[:, N:] == 5).all()


@rocktile.jit
def partial_check(x_ptr, out_ptr, M, CHECK: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    x = tl.make_block_ptr(x_ptr, (M, BN), (BN, 1), (tl.program_id(0) * BM, 0), (BM, BN), (1, 0))
    out = tl.make_block_ptr(out_ptr, (M, BN), (BN, 1), (tl.program_id(0) * BM, 0), (BM, BN), (1, 0))
    tl.store(out, tl.load(x, boundary_check=CHECK) - 1, boundary_check=CHECK)


@pytest.mark.parametrize("target", TARGETS)
def test_boundary_check_of_some_dimensions(target):
    x = np.arange(40 * 16, dtype=np.float32).reshape(40, 16)
    out = np.zeros_like(x)
    partial_check[(3,)](x, out, 40, CHECK=(0,), BM=16, BN=16, target=target)  # rows checked, columns fit
    np.testing.assert_array_equal(out, x - 1)


# Each case: (source of the kernel body, the message expected at its line).
BAD = {
    "last_stride": ("d = tl.make_tensor_descriptor(x_ptr, [n, n], [n, n], [16, 16])",
                    "the last dimension must be contiguous: its stride must be the compile-time 1"),
    "narrow_block": ("d = tl.make_tensor_descriptor(x_ptr, [n, n], [n, 1], [16, 2])",
                     "the last dimension of a block must hold at least 16 bytes, got 2 x 4"),
    "not_pow2": ("d = tl.make_tensor_descriptor(x_ptr, [n, n], [n, 1], [16, 24])",
                 "each entry of block_shape must be a power-of-two"),
    "rank": ("d = tl.make_tensor_descriptor(x_ptr, [n] * 6, [n] * 5 + [1], [2] * 5 + [4])",
             "tensor descriptors have 1 to 5 dimensions, got 6"),
    "stride_align": ("d = tl.make_tensor_descriptor(x_ptr, [n, n], [6, 1], [16, 16])",
                     "strides other than the last must be multiples of 16 bytes, got 6 x 4"),
    "offsets": ("tl.make_tensor_descriptor(x_ptr, [n, n], [n, 1], [16, 16]).load([0])",
                "the offsets of desc.load has 1 entries; the block has 2 dimensions"),
    "store_shape": ("tl.make_tensor_descriptor(x_ptr, [n, n], [n, 1], [16, 16]).store([0, 0], tl.zeros([16], tl.float32))",
                    "desc.store: the value has shape \\[16\\], the descriptor's blocks \\[16, 16\\]"),
    "nan_int": ("tl.make_tensor_descriptor(i_ptr, [n], [1], [16], padding_option='nan')",
                "padding_option='nan' needs a floating-point tensor, not int32"),
    "check_dim": ("tl.load(tl.make_block_ptr(x_ptr, (n,), (1,), (0,), (16,), (0,)), boundary_check=(1,))",
                  "boundary_check names dimensions 0..0 of the block, got 1"),
    "mask": ("tl.load(tl.make_block_ptr(x_ptr, (n,), (1,), (0,), (16,), (0,)), mask=n > 0)",
             "tl.load of a block pointer takes boundary_check and padding_option, not mask"),
    "advance": ("tl.advance(x_ptr, (1,))", "tl.advance moves a block pointer"),
    "order": ("tl.make_block_ptr(x_ptr, (n, n), (n, 1), (0, 0), (16, 16), (0, 0))",
              "order must be a permutation of 0..1, got \\[0, 0\\]"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_descriptors_are_located_errors(case, located_error):
    body, message = BAD[case]
    located_error("x_ptr, i_ptr, n", [body], {"x_ptr": "*fp32", "i_ptr": "*i32", "n": "i32"}, message)
