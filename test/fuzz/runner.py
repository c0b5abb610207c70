"""Running fuzz cases in a worker process, so that a crash (a signal, an
abort) or a hang in rocktile's C++ cannot take the fuzzer down with it.

A case is `(kind, seed)`.  The worker imports the module that knows `kind`
and calls its `run_case(seed, workdir)`, which returns None when the case
behaved (it compiled and matched numpy, or failed with a clean error) or a
string describing the failure.  The parent kills a worker whose case takes
longer than `timeout` seconds and records a hang; a worker that dies
records a crash.  Every failure keeps its seed: `replay(kind, seed)` runs
it again in this process.
"""
from __future__ import annotations

import importlib
import multiprocessing as mp
import os
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
for path in (HERE, os.path.join(ROOT, "python")):
    if path not in sys.path:
        sys.path.insert(0, path)

# Cases a worker runs before it is replaced (bounds the memory of MLIR
# contexts and JIT-compiled emulator code kept by the process).
CASES_PER_WORKER = 150
KINDS = {"kernel": "gen_kernels", "pattern": "gen_patterns", "frontend": "malformed", "mlir": "malformed"}


@dataclass
class Failure:
    kind: str
    seed: int
    what: str  # "mismatch", "error", "crash" or "hang"
    detail: str

    def replay_command(self) -> str:
        return f"python test/fuzz --replay {self.kind}:{self.seed}"

    def __str__(self):
        return f"[{self.kind} seed {self.seed}] {self.what}: {self.detail}\n  replay: {self.replay_command()}"


def run_one(kind, seed, workdir):
    """Run one case in this process: None or (what, detail)."""
    module = importlib.import_module(KINDS[kind])
    try:
        result = module.run_case(kind, seed, workdir)
    except Exception:  # a bug of the fuzzer itself or an unexpected exception class from rocktile
        return ("error", traceback.format_exc(limit=8))
    return result


def _worker(conn, workdir):
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    while True:
        job = conn.recv()
        if job is None:
            return
        kind, seed = job
        conn.send(run_one(kind, seed, workdir))


class _Worker:
    def __init__(self, ctx, workdir):
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_worker, args=(child, workdir), daemon=True)
        self.process.start()
        child.close()
        self.done = 0

    def stop(self):
        try:
            self.conn.send(None)
        except (BrokenPipeError, OSError):
            pass
        self.process.join(2)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()


def run_cases(cases, timeout=60.0, progress=None, workdir=None, counts=None):
    """Run `cases` [(kind, seed)] in worker processes; returns the list of
    Failure. `counts`, a dict if given, gets the numbers of cases "passed"
    and "skipped" (cases that test nothing: a mutant that is not Python)."""
    counts = {} if counts is None else counts
    counts.update(passed=0, skipped=0)
    # spawn, not fork: the caller may hold LLVM and emulator threads.
    ctx = mp.get_context("spawn")
    failures = []
    own_dir = workdir is None
    tmp = tempfile.TemporaryDirectory(prefix="rocktile-fuzz-") if own_dir else None
    workdir = tmp.name if own_dir else workdir
    worker = None
    try:
        for i, (kind, seed) in enumerate(cases):
            if worker is None or worker.done >= CASES_PER_WORKER:
                if worker is not None:
                    worker.stop()
                worker = _Worker(ctx, workdir)
            worker.conn.send((kind, seed))
            start = time.monotonic()
            result, dead = None, None
            if worker.conn.poll(timeout):
                try:
                    result = worker.conn.recv()
                except EOFError:
                    dead = "crash"
            else:
                dead = "crash" if not worker.process.is_alive() else "hang"
            if dead:
                worker.process.kill()
                worker.process.join()
                code = worker.process.exitcode
                detail = (f"no answer after {timeout:.0f} s" if dead == "hang" else
                          f"the worker died (exit code {code}{', signal ' + str(-code) if code and code < 0 else ''})")
                failures.append(Failure(kind, seed, dead, detail))
                worker = None
            else:
                worker.done += 1
                if result is None:
                    counts["passed"] += 1
                elif result[0] == "skipped":
                    counts["skipped"] += 1
                else:
                    failures.append(Failure(kind, seed, *result))
            if progress:
                progress(i + 1, len(cases), failures, time.monotonic() - start)
    finally:
        if worker is not None:
            worker.stop()
        if tmp is not None:
            tmp.cleanup()
    return failures


def keep(failure, directory):
    """Writes the failure's case (its kernel or MLIR, as describe_case gives
    it) into `directory`, headed by what failed and the command that replays
    it; returns the file's path."""
    module = importlib.import_module(KINDS[failure.kind])
    text = module.describe_case(failure.kind, failure.seed)
    comment = "//" if failure.kind == "mlir" else "#"
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, f"{failure.kind}_{failure.seed}.{'mlir' if failure.kind == 'mlir' else 'py'}")
    header = [f"{failure.what}: {line}" if i == 0 else line for i, line in enumerate(failure.detail.splitlines()[:20])]
    with open(path, "w") as f:
        f.write("".join(f"{comment} {line}\n" for line in header + [f"replay: {failure.replay_command()}"]))
        f.write(text + "\n")
    return path


def replay(kind, seed, verbose=True):
    """Run one case in this process (no protection against crashes), printing what it does."""
    module = importlib.import_module(KINDS[kind])
    if verbose and hasattr(module, "describe_case"):
        print(module.describe_case(kind, seed))
    with tempfile.TemporaryDirectory(prefix="rocktile-fuzz-") as workdir:
        return run_one(kind, seed, workdir)
