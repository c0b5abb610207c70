"""The software pipeline rocktile builds for a loop, as a picture of stages x
iterations. By default: compiles examples/descriptor_matmul.py for gfx1250
at num_stages N and reads the schedule back from the pipelined tile IR (the
copies its prologue starts, how far ahead the loop's copies run, the counts
its waits leave in flight, and which slot each iteration reads). With
--pointers: the tutorial GEMM (examples/matmul.py) on both targets, whose
loads through pointers are copied into LDS slots by the target's async loads
where they can be (gfx950's direct-to-LDS loads at num_stages >= 3), the same
picture, else go one iteration ahead into registers (the tiles the loop
carries, the loads its prologue makes, where its iterations make theirs).

    python scripts/pipeline-schedule.py [--pointers] [num_stages] [trip count]
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))

import rocktile  # noqa: E402
from rocktile.pictures import copy_cells, copy_schedule  # noqa: E402
from descriptor_matmul import matmul_descriptor_kernel  # noqa: E402
from matmul import matmul_kernel  # noqa: E402

SIGNATURE = {"a_ptr": "*bf16:16", "b_ptr": "*bf16:16", "c_ptr": "*fp32:16", "M": "i32", "N": "i32", "K": "i32",
             "stride_am": "i32:16", "stride_bk": "i32:16", "stride_cm": "i32:16"}


def pointer_schedule(tile_ir):
    """(tiles carried per operand, prologue loads per operand, how far ahead
    the loop's loads run) of the pipelined K loop of the tutorial GEMM."""
    prologue, loop = tile_ir.split("scf.for", 1)
    body = loop.split("scf.yield", 1)[0]
    carried = re.search(r"-> \((.*?)\)\s+: i32 \{", loop).group(1)
    tiles = len(re.findall(r"tensor<\d+x\d+xbf16", carried)) // 2
    ahead = re.findall(r"arith.addi %arg\w+, %c(\d+)_i32", body)
    return tiles, prologue.count("tile.load") // 2, max(int(k) for k in ahead)


def first(count):
    return "iteration 0" if count == 1 else f"iterations 0..{count - 1}"


def print_copy_picture(schedule_, trips):
    width = 11
    print(f"{'':12}" + "".join(f"{f'tile {t}':>{width}}" for t in range(trips)))
    for name, cells in copy_cells(schedule_, trips):
        print(f"{name:12}" + "".join(f"{c:>{width}}" for c in cells))


def copy_summary(schedule_):
    slots, prologue, distance, waits = schedule_
    return (f"{slots} LDS slots per operand; the prologue copies iterations 0..{prologue - 1}; iteration i copies "
            f"i + {distance}; waits leave {' or '.join(map(str, waits))} copies in flight")


def print_pointer_schedule(stages, trips):
    constexprs = dict(BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=64, GROUP_SIZE_M=8, HAS_BIAS=False,
                      ACTIVATION="", stride_ak=1, stride_bn=1, stride_cn=1)
    signature = {**{p: "*bf16:16:range32" for p in ("a_ptr", "b_ptr")}, "c_ptr": "*fp32:16:range32",
                 "bias_ptr": "*fp32:16:range32",
                 **{n: "i32:16" for n in ("M", "N", "K", "stride_am", "stride_bk", "stride_cm")}}
    pictures = []
    for target in ("gfx950", "gfx1250"):
        kernel = rocktile.compile(matmul_kernel, signature, constexprs, target=target, num_warps=4,
                                  num_stages=stages)
        tile_ir = kernel.asm["tile"]
        if "tile.async_load" in tile_ir:
            copies = copy_schedule(tile_ir)
            print(f"{target}, num_stages={stages}, through pointers: async loads into LDS, {copy_summary(copies)} "
                  "(per warp: A and B each one copy per iteration)")
            pictures.append(lambda copies=copies: print_copy_picture(copies, trips))
            continue
        tiles, prologue, distance = pointer_schedule(tile_ir)
        print(f"{target}, num_stages={stages}, through pointers: the loop carries {tiles} tile per operand in "
              f"registers; the prologue loads {first(prologue)}; iteration i writes its tiles to LDS, "
              f"computes, and loads i + {distance}'s")
        pictures.append(lambda prologue=prologue, distance=distance: print_register_picture(prologue, distance,
                                                                                             trips))
    for picture in pictures:
        print()
        picture()


def print_register_picture(prologue, distance, trips):
    width = 11
    print(f"{'':12}" + "".join(f"{f'tile {t}':>{width}}" for t in range(trips)))
    print(f"{'prologue':12}" + "".join(f"{'load' if t < prologue else '':>{width}}" for t in range(trips)))
    for i in range(trips):
        cells = ["LDS,dot" if t == i else "load" if t == i + distance else "" for t in range(trips)]
        print(f"{f'iteration {i}':12}" + "".join(f"{c:>{width}}" for c in cells))


def main():
    args = [a for a in sys.argv[1:] if a != "--pointers"]
    stages = int(args[0]) if args else 3
    trips = int(args[1]) if len(args) > 1 else 6
    if "--pointers" in sys.argv:
        return print_pointer_schedule(stages, trips)
    kernel = rocktile.compile(matmul_descriptor_kernel, SIGNATURE, {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64},
                              target="gfx1250", num_warps=4, num_stages=stages)
    copies = copy_schedule(kernel.asm["tile"])
    print(f"num_stages={stages}: {copy_summary(copies)} (per warp: A and B each one copy per iteration)\n")
    print_copy_picture(copies, trips)


if __name__ == "__main__":
    main()
