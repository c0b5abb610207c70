"""`make compat`: published Triton kernel libraries, unchanged, on rocktile.

Each library (pinned in requirements.txt, installed by `make compat` into a
directory of their own beside the torch virtualenv) is imported with
`triton` resolved to rocktile (rocktile.compat), and each kernel is called
through the library's own Python entry point on CPU tensors, so it runs in
rocktile's emulator, once compiled for gfx950 and once for gfx1250. Its
result is compared with a torch reference (cases_*.py). Prints one row per
kernel and the totals, and writes them as JSON; exits with 1 when a case
that applies does not pass.

With `--interpreter DIR` (a directory holding Triton 3.9, as `make compat`
installs it), each case also runs on Triton's own interpreter
(TRITON_INTERPRET=1), whose outcome is shown beside rocktile's and does not
count towards its totals: the interpreter fails some kernels by itself.

Each target runs in worker processes of its own; a worker that crashes or
stops making progress loses only the case it was running (reported as
`crash` or `timeout`), and the next worker goes on after it.
"""
import argparse
import json
import os
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MODULES = ["cases_liger", "cases_fla", "cases_cce"]
TARGETS = ["gfx950", "gfx1250"]
INTERPRETER = "interpreter"  # Triton 3.9's TRITON_INTERPRET=1, shown beside rocktile's results
OUTCOMES = ["pass", "wrong", "compile error", "emulator error", "error", "crash", "timeout", "n/a"]
CASE_TIMEOUT = float(os.environ.get("COMPAT_CASE_TIMEOUT", "300"))


def load_cases(only=None):
    sys.path.insert(0, HERE)
    import importlib
    from harness import CASES
    for name in MODULES:
        importlib.import_module(name)
    return [c for c in CASES if not only or c.package in only or f"{c.package}/{c.name}" in only]


def _results_in(path):
    with open(path) as f:
        return len(f.read().splitlines())


def _record(path, **row):
    with open(path, "a") as f:
        f.write(json.dumps(row) + "\n")


def worker(target, out, skip, only, interpreter):
    """Runs the cases after the first `skip`, one JSON line per case into
    `out`: on rocktile for `target`, or for "interpreter" on Triton's own
    interpreter, imported from the directory `interpreter`."""
    if target == INTERPRETER:
        os.environ["TRITON_INTERPRET"] = "1"
        sys.path.insert(0, interpreter)
    else:
        import rocktile.compat
        rocktile.compat.install()
        import rocktile
        rocktile.set_target(target)
    import torch
    # The libraries choose their AMD settings (num_warps within 1024 lanes of
    # wave64, ...) by torch.version.hip, which ROCm's torch sets and the CPU
    # wheel does not: say what the kernels will run on.
    torch.version.hip = torch.version.hip or "7.1"
    from harness import classify, compare
    for c in load_cases(only)[skip:]:
        torch.manual_seed(0)
        start = time.time()
        try:
            compare(c, c.fn())
            outcome, detail = "pass", ""
        except BaseException as exc:  # noqa: BLE001 — every failure is a row of the table
            if isinstance(exc, KeyboardInterrupt):
                raise
            outcome, detail = classify(exc)
        _record(out, package=c.package, case=c.name, target=target, outcome=outcome, detail=detail,
                seconds=round(time.time() - start, 2))


def run_target(target, names, only, log_dir, interpreter):
    """Runs every case for `target` in workers, starting the next worker
    after a case that crashed or stopped making progress (killed after
    CASE_TIMEOUT seconds without a result), which is recorded as such."""
    out = os.path.join(log_dir, f"{target}.jsonl")
    open(out, "w").close()
    env = dict(os.environ, ROCKTILE_TARGET=target)
    while (done := _results_in(out)) < len(names):
        with open(os.path.join(log_dir, f"{target}.log"), "a") as log:
            proc = subprocess.Popen([sys.executable, __file__, "--worker", target, "--out", out, "--skip", str(done),
                                     "--interpreter", interpreter or ""]
                                    + [arg for name in only or () for arg in ("--only", name)], env=env,
                                    stdout=log, stderr=subprocess.STDOUT)
            last, seen, hung = time.time(), done, False
            while proc.poll() is None:
                time.sleep(0.5)
                if (now := _results_in(out)) != seen:
                    last, seen = time.time(), now
                elif time.time() - last > CASE_TIMEOUT:
                    hung = True
                    proc.kill()
                    proc.wait()
        if (now := _results_in(out)) < len(names):  # the worker died or was killed inside case `now`
            package, name = names[now]
            detail = (f"no result after {CASE_TIMEOUT:.0f} s" if hung
                      else f"the worker exited with status {proc.returncode} (see {target}.log)")
            _record(out, package=package, case=name, target=target, outcome="timeout" if hung else "crash",
                    detail=detail, seconds=round(time.time() - last, 2))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", default="compat.json", help="where to write the results")
    parser.add_argument("--only", action="append", help="a package, or package/case, to run (repeatable)")
    parser.add_argument("--targets", default=",".join(TARGETS))
    parser.add_argument("--interpreter", help="a directory holding Triton 3.9: also run each case on its "
                        "interpreter (TRITON_INTERPRET=1), shown beside rocktile's results")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--skip", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    only = args.only
    if args.worker:
        return worker(args.worker, args.out, args.skip, only, args.interpreter)

    names = [(c.package, c.name) for c in load_cases(only)]
    if not names:
        parser.error(f"no case matches {only}")
    log_dir = os.path.splitext(os.path.abspath(args.json))[0] + "-logs"
    os.makedirs(log_dir, exist_ok=True)
    targets = args.targets.split(",") + ([INTERPRETER] if args.interpreter else [])
    start = time.time()
    # The targets run side by side, one worker each (a thread waits on each).
    threads = [threading.Thread(target=run_target, args=(t, names, only, log_dir, args.interpreter))
               for t in targets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    results = [json.loads(line) for t in targets for line in open(os.path.join(log_dir, f"{t}.jsonl"))]
    report(results, names, targets, time.time() - start)
    with open(args.json, "w") as f:
        json.dump({"targets": targets, "results": results, "totals": totals(results, targets)}, f, indent=1)
    print(f"\nwrote {args.json} (worker logs in {log_dir})")
    return 1 if any(r["outcome"] not in ("pass", "n/a") for r in results if r["target"] != INTERPRETER) else 0


def totals(results, targets):
    table = {}
    for r in results:
        row = table.setdefault(r["package"], {t: dict.fromkeys(OUTCOMES, 0) for t in targets})
        row[r["target"]][r["outcome"]] += 1
    for row in table.values():
        for t in targets:
            applicable = sum(row[t].values()) - row[t]["n/a"]
            row[t]["pass rate"] = round(row[t]["pass"] / applicable, 4) if applicable else None
    return table


def report(results, names, targets, seconds):
    by = {(r["package"], r["case"], r["target"]): r for r in results}
    width = max(len(f"{p}/{n}") for p, n in names)
    print(f"{'kernel':<{width}}  " + "  ".join(f"{t:<15}" for t in targets) + "  first error")
    for package, name in names:
        rows = [by[(package, name, t)] for t in targets]
        detail = next((f"[{r['target']}] {r['detail']}" for r in rows if r["outcome"] != "pass"), "")
        print(f"{package + '/' + name:<{width}}  " + "  ".join(f"{r['outcome']:<15}" for r in rows) + "  " + detail)
    print(f"\ntotals ({seconds:.0f} s)")
    for package, row in totals(results, targets).items():
        for t in targets:
            counts = ", ".join(f"{k} {v}" for k, v in row[t].items() if k in OUTCOMES and v)
            rate = row[t]["pass rate"]
            print(f"  {package:<24} {t:<8} " + (f"{100 * rate:5.1f}% of applicable pass" if rate is not None else "no applicable kernels")
                  + f"  ({counts})")


if __name__ == "__main__":
    sys.exit(main())
