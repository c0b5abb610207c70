"""The fuzzers of test/fuzz, a few hundred cases (`python test/fuzz --cases
5000 --seed 1` or `make fuzz` runs more):

- random well-typed kernels, emulator vs numpy on gfx950 and gfx1250;
- kernels as users write them (dots, dot_scaled, descriptors, block
  pointers, atomics, scans and sorts, helpers and early returns), with
  random parameters, emulator vs numpy on both chips;
- broken kernels into rocktile.compile: compile or a clean error;
- mutated lit inputs into rocktile-opt: exit 0 or an `error:` diagnostic.

Each case runs in a worker process, so a crash or hang in C++ is reported
with its seed instead of taking pytest down.  Cases that once found a C++
bug are run again below."""
import os
import subprocess
import sys
import textwrap

import pytest

FUZZ = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fuzz")
sys.path.insert(0, FUZZ)

import runner  # noqa: E402

def run(kind, seeds, timeout=30.0):
    failures = runner.run_cases([(kind, s) for s in seeds], timeout=timeout)
    assert not failures, "\n\n".join(map(str, failures))


def test_fuzz_random_kernels_against_numpy():
    run("kernel", range(0, 60))


def test_fuzz_user_patterns_against_numpy():
    """Two cases of each family of test/fuzz/gen_patterns.py."""
    run("pattern", range(0, 14), timeout=120.0)


def test_fuzz_kernels_with_dots():
    """Random kernels around tl.dot (a few percent of 2-D programs have one):
    seeds whose programs hold one, in loops, branches and masks."""
    run("kernel", [25, 67, 154, 234, 403, 505])


def test_fuzz_bf16_remainders():
    """bf16 `x % y` cast back to bf16: InstCombine made a bf16 frem that the
    AMDGPU backend cannot select (CodeObject.cpp widens it again)."""
    run("kernel", [100197, 100499])


def test_fuzz_bf16_compares_on_avx512_bf16_hosts():
    """A kernel comparing converted bf16 tiles: on a host with AVX512-BF16,
    LLVM 22's x86 backend failed to select the emulator's host code and
    aborted the process (HostJit turns the feature off)."""
    run("kernel", [20261637])


def test_fuzz_broken_kernels_fail_cleanly():
    run("frontend", range(0, 200))


@pytest.mark.skipif(not os.path.exists(os.path.join(runner.ROOT, "build", "compiler", "tools", "rocktile-opt",
                                                   "rocktile-opt")), reason="rocktile-opt is not built")
def test_fuzz_malformed_mlir_fails_cleanly():
    run("mlir", range(0, 200))


# --------------------------------------------------------------------------
# C++ bugs found by the fuzzers.

def _subprocess(code, timeout):
    return subprocess.run([sys.executable, "-c", code], timeout=timeout, capture_output=True, text=True)


def test_kernels_that_hung_llvm_compile():
    """Seeds whose one-element vectors sent LLVM 22's SelectionDAG combiner
    into an endless loop (gfx950 and gfx1250) before emitCode scalarized
    them; test/fuzz/repro holds reduced reproducers for llc."""
    run("kernel", [42, 5053, 5322])


FP64_SIN_REPRO = textwrap.dedent("""
    import rocktile, rocktile.language as tl

    @rocktile.jit
    def k(x_ptr):
        tl.store(x_ptr, tl.sin(tl.load(x_ptr)))

    try:
        rocktile.compile(k, {"x_ptr": "*fp64"}, target="gfx950")
    except rocktile.CompilationError as e:
        print("clean error:", e)
""")


def test_fp64_sin_is_a_clean_error():
    """tl.sin / tl.cos on fp64 have no AMDGPU lowering without the device
    library (LLVM would exit the process on them): a located CompilationError."""
    proc = _subprocess(FP64_SIN_REPRO, 60)
    assert proc.returncode == 0, proc.stderr
    assert "clean error" in proc.stdout and "on fp64 is not supported on AMD GPUs" in proc.stdout


def test_invalid_mutants_are_skipped_not_passed():
    """Broken-kernel mutants that are not valid Python test nothing: they are
    counted apart from the cases that passed."""
    counts = {}
    failures = runner.run_cases([("frontend", s) for s in range(31, 61)], counts=counts)
    assert not failures, "\n\n".join(map(str, failures))
    assert counts["skipped"] > 0 and counts["passed"] > 0 and counts["passed"] + counts["skipped"] == 30


def test_a_failure_is_kept_with_its_replay_command(tmp_path):
    failure = runner.Failure("kernel", 7, "mismatch", "gfx950: out differs\n  at 3 elements")
    path = runner.keep(failure, str(tmp_path / "kept"))
    text = open(path).read()
    assert path.endswith("kernel_7.py")
    assert text.startswith("# mismatch: gfx950: out differs\n#   at 3 elements\n"
                           "# replay: python test/fuzz --replay kernel:7\n")
    assert "@rocktile.jit" in text  # the case's kernel follows
