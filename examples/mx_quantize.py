"""bf16 -> MXFP4 in a kernel: for each block of 32 elements along a row, the
E8M0 scale 2^(floor(log2(max |x|)) - 2) (the OCP MX rule; 2 is e2m1's
largest exponent) and the elements divided by it, rounded to the nearest
e2m1 value (ties to even) and saturated at 6, packed two per byte with the
first in the low nibble: the codes and scales tl.dot_scaled takes (and
rocktile.quantization.quantize_mx makes on the host). Replacing the
rocktile imports with Triton's runs it under Triton.
"""
import numpy as np

import rocktile
import rocktile.language as tl


@rocktile.jit
def mxfp4_quantize_kernel(x_ptr, q_ptr, s_ptr, M, K, stride_xm, stride_qm, stride_sm,
                          BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_k = tl.program_id(1) * BLOCK_K + tl.arange(0, BLOCK_K)
    rows = offs_m[:, None] < M
    x = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_k[None, :], mask=rows & (offs_k[None, :] < K), other=0)
    blocks = tl.reshape(x.to(tl.float32), [BLOCK_M, BLOCK_K // 32, 32])
    amax = tl.max(tl.abs(blocks), axis=2)
    # floor(log2(amax)) is amax's exponent field (bf16 values are normal or 0).
    exponent = ((amax.to(tl.int32, bitcast=True) >> 23) & 0xFF) - 127
    scale = tl.minimum(tl.maximum(exponent - 2 + 127, 0), 254)
    # 1 / 2^(scale - 127) as an fp32 exponent field.
    inverse = ((254 - scale) << 23).to(tl.float32, bitcast=True)
    y = blocks * inverse[:, :, None]
    a = tl.abs(y)
    # The e2m1 magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6 are codes 0-7: count the
    # midpoints below a, a midpoint counting when its upper neighbour has the
    # even code (ties to even).
    code = ((a > 0.25).to(tl.int32) + (a >= 0.75).to(tl.int32) + (a > 1.25).to(tl.int32) +
            (a >= 1.75).to(tl.int32) + (a > 2.5).to(tl.int32) + (a >= 3.5).to(tl.int32) + (a > 5.0).to(tl.int32))
    code = code | tl.where(y.to(tl.int32, bitcast=True) < 0, 8, 0)  # the sign, -0 included
    lo, hi = tl.split(tl.reshape(code, [BLOCK_M, BLOCK_K // 2, 2]))
    offs_q = tl.program_id(1) * (BLOCK_K // 2) + tl.arange(0, BLOCK_K // 2)
    tl.store(q_ptr + offs_m[:, None] * stride_qm + offs_q[None, :], (lo | (hi << 4)).to(tl.uint8),
             mask=rows & (offs_q[None, :] < K // 2))
    offs_s = tl.program_id(1) * (BLOCK_K // 32) + tl.arange(0, BLOCK_K // 32)
    tl.store(s_ptr + offs_m[:, None] * stride_sm + offs_s[None, :], scale.to(tl.uint8),
             mask=rows & (offs_s[None, :] < K // 32))


def mxfp4_quantize(x, target="gfx950", blocks=(32, 64), num_warps=4):
    """x (M x K bf16, K a multiple of 32): (codes M x K/2, scales M x K/32), uint8."""
    M, K = x.shape
    q = np.empty((M, K // 2), np.uint8)
    s = np.empty((M, K // 32), np.uint8)
    bm, bk = blocks
    mxfp4_quantize_kernel[(rocktile.cdiv(M, bm), rocktile.cdiv(K, bk))](
        x, q, s, M, K, x.strides[0] // x.itemsize, q.strides[0], s.strides[0], BLOCK_M=bm, BLOCK_K=bk,
        num_warps=num_warps, target=target)
    return q, s


if __name__ == "__main__":
    import ml_dtypes
    from rocktile import quantization
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((100, 96)) * np.exp2(rng.integers(-8, 8, (100, 1)))).astype(ml_dtypes.bfloat16)
    want_q, want_s = quantization.quantize_mx(x.astype(np.float64), "e2m1", axis=1)
    for target in ("gfx950", "gfx1250"):
        q, s = mxfp4_quantize(x, target=target)
        assert (q == want_q).all() and (s == want_s).all()
        print(target, "codes and scales equal rocktile.quantization.quantize_mx's for", x.shape)
