"""Row-wise fp8 quantization: each row of x is scaled so that its largest
magnitude maps to float8e4nv's largest value (448), stored as fp8, with the
scale that undoes it (x ~= q * scale).  This is how activations are fed to
fp8 matrix multiplies.  Replacing the rocktile imports with Triton's runs
the kernel under Triton.
"""
import numpy as np

import rocktile
import rocktile.language as tl

FP8_MAX = 448.0


@rocktile.jit
def quantize_rows(x_ptr, q_ptr, scale_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    amax = tl.maximum(tl.max(tl.abs(x), axis=0), 1e-12)  # an all-zero row keeps a finite scale
    scale = amax / FP8_MAX
    tl.store(q_ptr + row * n_cols + cols, (x / scale).to(tl.float8e4nv), mask=mask)
    tl.store(scale_ptr + row, scale)


SIGNATURE = {"x_ptr": "*fp32:16", "q_ptr": "*fp8e4nv:16", "scale_ptr": "*fp32", "n_cols": "i32:16"}


def compile_quantize(target, n_cols=4096, num_warps=4):
    return rocktile.compile(quantize_rows, signature=SIGNATURE,
                            constexprs={"BLOCK": rocktile.next_power_of_2(n_cols)},
                            target=target, num_warps=num_warps)


def quantize(x, target=None):
    """(q, scale) for a 2-D float32 array, q as uint8 bytes holding e4m3fn."""
    rows, cols = x.shape
    q, scale = np.zeros((rows, cols), np.uint8), np.zeros(rows, np.float32)
    quantize_rows[(rows,)](x, rocktile.reinterpret(q, tl.float8e4nv), scale, cols,
                           BLOCK=rocktile.next_power_of_2(cols), target=target)
    return q, scale


if __name__ == "__main__":
    for target in ("gfx950", "gfx1250"):
        kernel = compile_quantize(target)
        print(f"{target}: {kernel.metadata}")
