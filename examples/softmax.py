"""Row-wise softmax of a 2-D matrix, one program per row.

BLOCK is the next power of two >= n_cols; the columns past n_cols load as
-inf, so they add exp(-inf) = 0 to the sum.  Replacing the rocktile imports
with Triton's runs the kernel under Triton.
"""
import rocktile
import rocktile.language as tl


@rocktile.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)  # subtracting the row maximum keeps exp() from overflowing
    num = tl.exp(x)
    y = num / tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_row_stride + cols, y, mask=mask)


SIGNATURE = {"out_ptr": "*fp32:16", "in_ptr": "*fp32:16", "in_row_stride": "i32",
             "out_row_stride": "i32", "n_cols": "i32"}


def compile_softmax(target, n_cols=1000, num_warps=4):
    return rocktile.compile(softmax_kernel, signature=SIGNATURE,
                            constexprs={"BLOCK": rocktile.next_power_of_2(n_cols)},
                            target=target, num_warps=num_warps)


if __name__ == "__main__":
    for target in ("gfx950", "gfx1250"):
        kernel = compile_softmax(target)
        print(f"{target}: {kernel.metadata}")
