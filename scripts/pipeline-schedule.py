"""The software pipeline rocktile builds for a loop, as a picture of stages x
iterations: compiles examples/descriptor_matmul.py for gfx1250 at
num_stages N and reads the schedule back from the pipelined tile IR (the
copies its prologue starts, how far ahead the loop's copies run, the counts
its waits leave in flight, and which slot each iteration reads).

    python scripts/pipeline-schedule.py [num_stages] [trip count]
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))

import rocktile  # noqa: E402
from descriptor_matmul import matmul_descriptor_kernel  # noqa: E402

SIGNATURE = {"a_ptr": "*bf16:16", "b_ptr": "*bf16:16", "c_ptr": "*fp32:16", "M": "i32", "N": "i32", "K": "i32",
             "stride_am": "i32:16", "stride_bk": "i32:16", "stride_cm": "i32:16"}


def schedule(tile_ir):
    """(slots, prologue copies per operand, copy distance, waits) of the
    pipelined K loop in `tile_ir`."""
    slots = int(re.search(r"tile.local_alloc[^\n]*memref<(\d+)x", tile_ir).group(1))
    prologue, loop = tile_ir.split("scf.for", 1)
    operands = tile_ir.count("tile.local_alloc")
    ahead = re.findall(r"(%\w+) = arith.addi %arg\w+, %c(\d+)_i32", loop.split("tile.async_copy")[0])
    distance = max(int(k) for _, k in ahead)
    waits = sorted({int(w) for w in re.findall(r"tile.async_wait \{outstanding = (\d+)", loop)}, reverse=True)
    return slots, prologue.count("tile.async_copy") // operands, distance, waits


def main():
    stages = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    trips = int(sys.argv[2]) if len(sys.argv) > 2 else 6
    kernel = rocktile.compile(matmul_descriptor_kernel, SIGNATURE, {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64},
                              target="gfx1250", num_warps=4, num_stages=stages)
    slots, prologue, distance, waits = schedule(kernel.asm["tile"])
    print(f"num_stages={stages}: {slots} LDS slots per operand; the prologue copies iterations 0..{prologue - 1}; "
          f"iteration i copies i + {distance}; waits leave {' or '.join(map(str, waits))} copies in flight "
          f"(per warp: A and B each one copy per iteration)\n")
    width = 11
    print(f"{'':12}" + "".join(f"{f'tile {t}':>{width}}" for t in range(trips)))

    def row(name, cells):
        print(f"{name:12}" + "".join(f"{c:>{width}}" for c in cells))

    row("prologue", [f"copy->s{t % slots}" if t < prologue else "" for t in range(trips)])
    for i in range(trips):
        cells = []
        for t in range(trips):
            cell = ""
            if t == i:
                cell = f"wait,read s{t % slots}"
            elif t == i + distance:
                cell = f"copy->s{t % slots}"
            elif i < t < i + distance:
                cell = "in flight"
            cells.append(cell)
        row(f"iteration {i}", cells)


if __name__ == "__main__":
    main()
