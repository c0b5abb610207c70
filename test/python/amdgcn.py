"""Reading the compiled amdgcn in tests."""
import re


def k_loop(asm):
    """The body of the first loop (from the label its back edge jumps to, up
    to that branch) that holds matrix instructions."""
    return next(body for label, body in re.findall(r"^(\.LBB\d+_\d+):(.*?)s_cbranch_\w+ \1\b", asm, re.S | re.M)
                if re.search(r"v_(mfma|wmma)", body))
