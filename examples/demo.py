"""Compile the example kernels for both targets and print their resource use."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from softmax import compile_softmax  # noqa: E402
from vector_add import compile_add  # noqa: E402

TARGETS = ("gfx950", "gfx1250")
KERNELS = {  # title -> how to compile it for a target
    "vector_add (BLOCK=1024, *fp32:16, n: i32:16)": lambda t: compile_add(t, block=1024),
    "softmax (BLOCK=1024)": lambda t: compile_softmax(t, n_cols=1024),
}
COLUMNS = [("VGPRs", "vgpr_count"), ("SGPRs", "sgpr_count"), ("AGPRs", "agpr_count"),
           ("LDS bytes", "lds_bytes"), ("scratch", "scratch_bytes"), ("VGPR spills", "vgpr_spill_count"),
           ("SGPR spills", "sgpr_spill_count"), ("code size", "code_size")]


def table(title, rows):
    header = ["target"] + [name for name, _ in COLUMNS]
    cells = [[target] + [str(meta.get(key, "-")) for _, key in COLUMNS] for target, meta in rows]
    widths = [max(len(r[i]) for r in [header] + cells) for i in range(len(header))]
    line = lambda r: "  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths)))  # noqa: E731
    return "\n".join([title, line(header), line(["-" * w for w in widths])] + [line(r) for r in cells])


if __name__ == "__main__":
    for title, build in KERNELS.items():
        print(table(title, [(t, build(t).metadata) for t in TARGETS]), end="\n\n")
