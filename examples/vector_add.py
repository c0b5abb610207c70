"""Vector addition: out[i] = x[i] + y[i].

The kernel is Triton's classic first example; replacing the two rocktile
imports with `import triton` / `import triton.language as tl` runs it
under Triton.
"""
import rocktile
import rocktile.language as tl


@rocktile.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements  # the last block may run past the end
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


SIGNATURE = {"x_ptr": "*fp32:16", "y_ptr": "*fp32:16", "out_ptr": "*fp32:16", "n_elements": "i32:16"}


def compile_add(target, block=1024, num_warps=4):
    return rocktile.compile(add_kernel, signature=SIGNATURE, constexprs={"BLOCK": block},
                            target=target, num_warps=num_warps)


if __name__ == "__main__":
    for target in ("gfx950", "gfx1250"):
        kernel = compile_add(target)
        print(f"{target}: {kernel.metadata}")
