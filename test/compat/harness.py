"""What a compatibility case is, and how its result is judged.

A case calls one kernel of a published library through the library's own
Python entry point (its autograd Function, functional API or module) and
compares what comes back with a torch reference. It returns a list of
`(label, got, want)` triples, or raises `NotApplicable` with the reason the
entry point cannot run here (it needs a CUDA device, ...).
"""
import contextlib
import dataclasses
import os
import traceback

import torch


class NotApplicable(Exception):
    """The entry point cannot run without what this machine lacks."""


class Mismatch(AssertionError):
    pass


@dataclasses.dataclass
class Case:
    package: str
    name: str
    fn: object
    atol: float
    rtol: float
    ratio: float | None


CASES: list[Case] = []


def case(package, name, atol=1e-5, rtol=1e-5, ratio=None):
    """Registers `fn` as `name` of `package`, judged elementwise with these
    tolerances (|got - want| <= atol + rtol * |want|, as torch.isclose), or,
    given `ratio`, as flash-linear-attention's own tests judge low-precision
    results: rms(got - want) <= ratio * rms(want)."""
    def register(fn):
        CASES.append(Case(package, name, fn, atol, rtol, ratio))
        return fn
    return register


def compare(c: Case, triples):
    for label, got, want in triples:
        got = torch.as_tensor(got).detach().to("cpu")
        want = torch.as_tensor(want).detach().to("cpu")
        if got.shape != want.shape:
            raise Mismatch(f"{label}: shape {tuple(got.shape)}, torch gives {tuple(want.shape)}")
        g, w = got.double(), want.double()
        if c.ratio is not None:
            error = (g - w).pow(2).mean().sqrt().item() / max(w.pow(2).mean().sqrt().item(), 1e-30)
            if not error <= c.ratio:
                raise Mismatch(f"{label}: rms(error) / rms(reference) = {error:.3g} > {c.ratio:g}")
            continue
        bad = ~torch.isclose(g, w, atol=c.atol, rtol=c.rtol, equal_nan=True)
        if bad.any():
            err = (g - w).abs().nan_to_num(float("inf")).max().item()
            raise Mismatch(f"{label}: {int(bad.sum())} of {bad.numel()} elements differ "
                           f"(max |error| {err:.3g}; atol {c.atol:g}, rtol {c.rtol:g})")


def classify(exc: BaseException) -> tuple[str, str]:
    """(outcome, first line) of an exception a case raised."""
    import rocktile
    if isinstance(exc, NotApplicable):
        return "n/a", str(exc)
    if isinstance(exc, Mismatch):
        return "wrong", str(exc)
    if isinstance(exc, rocktile.CompilationError):
        kind = "compile error"
    elif isinstance(exc, rocktile.EmulatorError):
        kind = "emulator error"
    else:
        kind = "error"
    lines = [line for line in str(exc).splitlines() if line.strip()]
    first = lines[0] if lines else ""
    where = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    origin = f" [{type(exc).__name__} at {where.filename.rsplit('/', 2)[-1]}:{where.lineno}]" if where and kind == "error" else ""
    return kind, (first + origin)[:300]


@contextlib.contextmanager
def races_across_programs():
    """For a kernel that means two programs to write the same bytes (the
    same values, say): the emulator's racecheck stays within workgroups."""
    saved = os.environ.get("ROCKTILE_EMULATOR_RACECHECK")
    os.environ["ROCKTILE_EMULATOR_RACECHECK"] = "workgroup"
    try:
        yield
    finally:
        if saved is None:
            del os.environ["ROCKTILE_EMULATOR_RACECHECK"]
        else:
            os.environ["ROCKTILE_EMULATOR_RACECHECK"] = saved


def fwd_bwd(fn, reference, *inputs, outputs=None, backward=True):
    """(label, got, want) for the outputs of `fn(*inputs)` (the library's)
    and `reference(*inputs)`, and for the gradients of every input that
    requires one, after a backward pass with the same random output grads
    (without `backward`, the outputs only). `outputs`: compare the first
    that many outputs."""
    if not backward:
        inputs = [x.detach() if torch.is_tensor(x) else x for x in inputs]

    def run(f):
        xs = [x.detach().clone().requires_grad_(x.requires_grad) if torch.is_tensor(x) else x for x in inputs]
        out = f(*xs)
        outs = [out] if torch.is_tensor(out) else [o for o in out if torch.is_tensor(o)]
        return xs, outs[:outputs] if outputs else outs
    xs_got, got = run(fn)
    xs_want, want = run(reference)
    gen = torch.Generator().manual_seed(1)
    grads = [torch.randn(o.shape, generator=gen, dtype=o.dtype) for o in want]
    for outs in (got, want):
        terms = [(o.float() * g.float()).sum() for o, g in zip(outs, grads) if o.requires_grad]
        if terms:
            sum(terms).backward()
    triples = [(f"output {i}", g, w) for i, (g, w) in enumerate(zip(got, want))]
    triples += [(f"grad of input {i}", g.grad, w.grad) for i, (g, w) in enumerate(zip(xs_got, xs_want))
                if torch.is_tensor(g) and g.requires_grad]
    return triples


def randn(*shape, dtype=torch.float32, grad=True):
    return torch.randn(*shape, dtype=dtype).requires_grad_(grad)
