"""bf16 -> MXFP4 and bf16 -> NVFP4 in kernels. MXFP4: for each block of 32
elements along a row, the E8M0 scale 2^(floor(log2(max |x|)) - 2) (the OCP
MX rule; 2 is e2m1's largest exponent). NVFP4: for each block of 16, an
E4M3 scale that brings the block's largest element to 6 under the fp32
scale of the whole tensor. The elements divided by their scale are rounded
to the nearest e2m1 value (ties to even), saturated at 6, and packed two per
byte with the first in the low nibble: the codes and scales tl.dot_scaled
takes (and rocktile.quantization makes on the host). Replacing the rocktile
imports with Triton's runs them under Triton.
"""
import numpy as np

import rocktile
import rocktile.language as tl


@rocktile.jit
def e2m1_codes(y):
    """The e2m1 codes (int32, 0-15) nearest to y, ties to even, saturated at
    6: the magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6 are codes 0-7, so count the
    midpoints below |y|, a midpoint counting when its upper neighbour has
    the even code; bit 3 is the sign, -0 included."""
    a = tl.abs(y)
    code = ((a > 0.25).to(tl.int32) + (a >= 0.75).to(tl.int32) + (a > 1.25).to(tl.int32) +
            (a >= 1.75).to(tl.int32) + (a > 2.5).to(tl.int32) + (a >= 3.5).to(tl.int32) + (a > 5.0).to(tl.int32))
    return code | tl.where(y.to(tl.int32, bitcast=True) < 0, 8, 0)


@rocktile.jit
def load_blocks(x_ptr, M, K, stride_xm, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr, BLOCK: tl.constexpr):
    """This program's BLOCK_M x BLOCK_K tile of x as fp32, in blocks of BLOCK
    along the rows: [BLOCK_M, BLOCK_K / BLOCK, BLOCK]."""
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_k = tl.program_id(1) * BLOCK_K + tl.arange(0, BLOCK_K)
    mask = (offs_m[:, None] < M) & (offs_k[None, :] < K)
    x = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_k[None, :], mask=mask, other=0)
    return tl.reshape(x.to(tl.float32), [BLOCK_M, BLOCK_K // BLOCK, BLOCK])


@rocktile.jit
def store_quantized(q_ptr, s_ptr, y, scale, M, K, stride_qm, stride_sm, BLOCK_M: tl.constexpr,
                    BLOCK_K: tl.constexpr, BLOCK: tl.constexpr):
    """Stores the e2m1 codes of y (the tile's elements over their scales) two
    per byte, the first in the low nibble, and the scales (uint8) beside."""
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rows = offs_m[:, None] < M
    lo, hi = tl.split(tl.reshape(e2m1_codes(y), [BLOCK_M, BLOCK_K // 2, 2]))
    offs_q = tl.program_id(1) * (BLOCK_K // 2) + tl.arange(0, BLOCK_K // 2)
    tl.store(q_ptr + offs_m[:, None] * stride_qm + offs_q[None, :], (lo | (hi << 4)).to(tl.uint8),
             mask=rows & (offs_q[None, :] < K // 2))
    offs_s = tl.program_id(1) * (BLOCK_K // BLOCK) + tl.arange(0, BLOCK_K // BLOCK)
    tl.store(s_ptr + offs_m[:, None] * stride_sm + offs_s[None, :], scale, mask=rows & (offs_s[None, :] < K // BLOCK))


@rocktile.jit
def mxfp4_quantize_kernel(x_ptr, q_ptr, s_ptr, M, K, stride_xm, stride_qm, stride_sm,
                          BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    blocks = load_blocks(x_ptr, M, K, stride_xm, BLOCK_M, BLOCK_K, 32)
    amax = tl.max(tl.abs(blocks), axis=2)
    # floor(log2(amax)) is amax's exponent field (bf16 values are normal or 0).
    exponent = ((amax.to(tl.int32, bitcast=True) >> 23) & 0xFF) - 127
    scale = tl.minimum(tl.maximum(exponent - 2 + 127, 0), 254)
    # 1 / 2^(scale - 127) as an fp32 exponent field.
    inverse = ((254 - scale) << 23).to(tl.float32, bitcast=True)
    store_quantized(q_ptr, s_ptr, blocks * inverse[:, :, None], scale.to(tl.uint8), M, K, stride_qm, stride_sm,
                    BLOCK_M, BLOCK_K, 32)


@rocktile.jit
def nvfp4_quantize_kernel(x_ptr, q_ptr, s_ptr, global_scale, M, K, stride_xm, stride_qm, stride_sm,
                          BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    blocks = load_blocks(x_ptr, M, K, stride_xm, BLOCK_M, BLOCK_K, 16)
    amax = tl.max(tl.abs(blocks), axis=2)
    # The block's E4M3 scale brings its largest element to 6 (e2m1's largest)
    # under the tensor's fp32 scale.
    scale = tl.minimum(amax / 6.0 / global_scale, 448.0).to(tl.float8e4nv)
    decoded = (scale.to(tl.float32) * global_scale)[:, :, None]
    store_quantized(q_ptr, s_ptr, tl.where(decoded > 0, blocks / decoded, 0.0), scale.to(tl.uint8, bitcast=True),
                    M, K, stride_qm, stride_sm, BLOCK_M, BLOCK_K, 16)


def mxfp4_quantize(x, target="gfx950", blocks=(32, 64), num_warps=4):
    """x (M x K bf16, K a multiple of 32): (codes M x K/2, scales M x K/32), uint8."""
    return _quantize(mxfp4_quantize_kernel, x, 32, (), target, blocks, num_warps)


def nvfp4_quantize(x, target="gfx1250", blocks=(32, 64), num_warps=4):
    """x (M x K bf16, K a multiple of 16): (codes M x K/2, E4M3 scales M x K/16
    as uint8, the fp32 scale of the whole tensor)."""
    from rocktile import quantization
    global_scale = quantization.nvfp4_global_scale(x)
    return (*_quantize(nvfp4_quantize_kernel, x, 16, (float(global_scale),), target, blocks, num_warps),
            global_scale)


def _quantize(kernel, x, block, scalars, target, blocks, num_warps):
    M, K = x.shape
    q = np.empty((M, K // 2), np.uint8)
    s = np.empty((M, K // block), np.uint8)
    bm, bk = blocks
    kernel[(rocktile.cdiv(M, bm), rocktile.cdiv(K, bk))](
        x, q, s, *scalars, M, K, x.strides[0] // x.itemsize, q.strides[0], s.strides[0], BLOCK_M=bm, BLOCK_K=bk,
        num_warps=num_warps, target=target)
    return q, s


if __name__ == "__main__":
    import ml_dtypes
    from rocktile import quantization
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((100, 96)) * np.exp2(rng.integers(-8, 8, (100, 1)))).astype(ml_dtypes.bfloat16)
    want_q, want_s = quantization.quantize_mx(x.astype(np.float64), "e2m1", axis=1)
    want_nv = quantization.quantize_nvfp4(x.astype(np.float64), axis=1)
    for target in ("gfx950", "gfx1250"):
        q, s = mxfp4_quantize(x, target=target)
        assert (q == want_q).all() and (s == want_s).all()
        q, s, g = nvfp4_quantize(x, target=target)
        assert (q == want_nv[0]).all() and (s == want_nv[1]).all() and g == want_nv[2]
        print(target, "MXFP4 and NVFP4 codes and scales equal rocktile.quantization's for", x.shape)
