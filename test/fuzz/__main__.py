"""rocktile's fuzzers, from the command line.

    python test/fuzz --cases 5000 --seed 1            # all four kinds, 5000 cases each
    python test/fuzz --kinds kernel --cases 300       # only random well-typed kernels
    python test/fuzz --replay kernel:1234             # run one case here and print its kernel

Kinds: `kernel` (random well-typed kernels, emulator vs numpy on gfx950 and
gfx1250), `pattern` (kernels as users write them, with random parameters:
gen_patterns.py), `frontend` (broken kernels into rocktile.compile), `mlir`
(mutated lit inputs into rocktile-opt).  Every failure is printed with the
command that replays it and kept, its kernel (or MLIR) with what failed and
that command, in --keep's directory; invalid mutants count as skipped, not
passed; the exit status is 1 if any case failed.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import runner  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python test/fuzz", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=300, help="cases per kind (default 300)")
    parser.add_argument("--seed", type=int, default=0, help="first seed (cases use seed, seed+1, ...)")
    parser.add_argument("--kinds", default="kernel,pattern,frontend,mlir", help="comma-separated kinds")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds before a case counts as a hang")
    parser.add_argument("--replay", metavar="KIND:SEED", help="run one case in this process and show it")
    parser.add_argument("--record", metavar="FILE", help="also write the failures to FILE, one JSON object a line")
    parser.add_argument("--keep", metavar="DIR", default="fuzz-failures",
                        help="write each failing case (its kernel, what failed, the replay command) into DIR "
                             "(default: fuzz-failures)")
    args = parser.parse_args(argv)

    if args.replay:
        kind, seed = args.replay.split(":")
        result = runner.replay(kind, int(seed))
        if result is not None and result[0] == "skipped":
            print("skipped: the case tests nothing (a mutant that is not valid Python)")
            return 0
        print("ok" if result is None else f"{result[0]}: {result[1]}")
        return 0 if result is None else 1

    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    for kind in kinds:
        if kind not in runner.KINDS:
            parser.error(f"unknown kind {kind!r}: expected {', '.join(runner.KINDS)}")
    cases = [(kind, seed) for kind in kinds for seed in range(args.seed, args.seed + args.cases)]
    start = time.monotonic()

    def progress(done, total, failures, _):
        if done % 50 == 0 or done == total:
            print(f"\r{done}/{total} cases, {len(failures)} failure(s), {time.monotonic() - start:.0f} s",
                  end="", file=sys.stderr, flush=True)

    counts = {}
    failures = runner.run_cases(cases, timeout=args.timeout, progress=progress, counts=counts)
    print(file=sys.stderr)
    for f in failures:
        print(f"{f}\n  kept: {runner.keep(f, args.keep)}", end="\n\n")
    if args.record:
        import json
        with open(args.record, "w") as out:
            for f in failures:
                out.write(json.dumps({"kind": f.kind, "seed": f.seed, "what": f.what, "detail": f.detail,
                                      "replay": f.replay_command()}) + "\n")
    elapsed = time.monotonic() - start
    print(f"{len(cases)} cases ({', '.join(kinds)}; seeds {args.seed}..{args.seed + args.cases - 1}) in "
          f"{elapsed:.0f} s: {counts['passed']} passed, {counts['skipped']} skipped (invalid mutants), "
          f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
