"""A kernel with a bug, kept here so that the demo and the tests show the
emulator catching it: its mask lets the last program touch one element past
the end of the arrays (`<=` where `<` was meant). On a GPU that reads and
writes whatever lies after the buffer, silently; in rocktile's emulator the
launch raises rocktile.EmulatorError naming the workgroup, wave, lane, array,
address and the line below that made the access.
"""
import numpy as np

import rocktile
import rocktile.language as tl


@rocktile.jit
def scale_kernel(x_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets <= n  # the bug: the last valid offset is n - 1
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x * alpha, mask=mask)


def scale(x, alpha, target="gfx950", block=256):
    out = np.empty_like(x)
    scale_kernel[(rocktile.cdiv(x.size, block),)](x, out, x.size, alpha, BLOCK=block, target=target)
    return out


if __name__ == "__main__":
    try:
        scale(np.ones(1000, np.float32), 2.0)
    except rocktile.EmulatorError as e:
        print(e)
