"""User-facing compile errors.

Every problem found while compiling a kernel reaches the user as a
`CompilationError` whose text reads like a compiler diagnostic:

    kernel.py:12:9: error: cannot add fp32 to a pointer (pointer<fp32>) ...
        y = x_ptr + 1.5
            ^~~~~~~~~~~

Positions come from the Python byte code (`co_positions`, Python 3.11+), so
they point at the expression, not only the line.
"""
from __future__ import annotations

import difflib
import linecache
import re
from dataclasses import dataclass

__all__ = ["CompilationError", "Diagnostic"]


@dataclass(frozen=True)
class Diagnostic:
    """One message at an optional source position (1-based, in characters)."""

    severity: str  # "error", "warning", "note" or "remark"
    message: str
    filename: str | None = None
    lineno: int | None = None
    col: int | None = None
    end_col: int | None = None  # exclusive; None -> a single caret

    def render(self) -> str:
        if self.filename is None or self.lineno is None:
            return f"{self.severity}: {self.message}"
        col = self.col or 1
        text = f"{self.filename}:{self.lineno}:{col}: {self.severity}: {self.message}"
        source = linecache.getline(self.filename, self.lineno).rstrip("\r\n")
        if not source.strip():
            return text
        width = 1
        if self.end_col is not None and self.end_col > col:
            width = min(self.end_col, len(source) + 1) - col
        # Keep tabs of the indentation so the caret lines up in any terminal.
        pad = "".join(c if c == "\t" else " " for c in source[: col - 1])
        return f"{text}\n{source}\n{pad}^{'~' * max(width - 1, 0)}"


class SemanticError(Exception):
    """A user error found while tracing a kernel (rocktile.language raises
    it; the tracer locates it at the kernel's line)."""


class CompilationError(Exception):
    """A kernel could not be compiled.

    `str(e)` holds one block per diagnostic (``FILE:LINE:COL: error: ...``,
    the source line and a caret).  `e.diagnostics` lists them; `e.message`,
    `e.filename`, `e.lineno`, `e.col` describe the first (primary) one.
    """

    def __init__(self, message: str, filename: str | None = None, lineno: int | None = None,
                 col: int | None = None, end_col: int | None = None, notes=()):
        primary = Diagnostic("error", message, filename, lineno, col, end_col)
        self.diagnostics: list[Diagnostic] = [primary, *notes]
        super().__init__("\n".join(d.render() for d in self.diagnostics))

    @classmethod
    def from_diagnostics(cls, diagnostics: list[Diagnostic]) -> "CompilationError":
        first, *rest = diagnostics
        return cls(first.message, first.filename, first.lineno, first.col, first.end_col, rest)

    message = property(lambda self: self.diagnostics[0].message)
    filename = property(lambda self: self.diagnostics[0].filename)
    lineno = property(lambda self: self.diagnostics[0].lineno)
    col = property(lambda self: self.diagnostics[0].col)


# --------------------------------------------------------------------------
# Source positions of byte code.

_positions_cache: dict = {}


def source_position(code, lasti: int):
    """(filename, line, col, end_col) of the instruction at byte offset `lasti`
    of `code`; columns are 1-based character columns (end exclusive).  Python
    reports UTF-8 byte columns, which differ from characters on non-ASCII lines."""
    positions = _positions_cache.get(code)
    if positions is None:
        positions = _positions_cache[code] = list(code.co_positions())
    index = lasti // 2  # one entry per 2-byte code unit
    line, end_line, col, end_col = positions[index] if 0 <= index < len(positions) else (None,) * 4
    filename = code.co_filename
    if line is None:
        return filename, code.co_firstlineno, 1, None
    text = linecache.getline(filename, line)
    if col is None:
        return filename, line, 1, None
    raw = text.encode("utf-8")
    to_chars = lambda b: len(raw[:b].decode("utf-8", "replace"))  # noqa: E731
    start = to_chars(col) + 1
    if end_line != line or end_col is None:
        # A multi-line expression: underline up to the end of its first line.
        end = len(text.rstrip("\r\n")) + 1
    else:
        end = to_chars(end_col) + 1
    return filename, line, start, end


def definition_position(fn):
    """Where a Python function is defined: its `def` line, column 1."""
    code = fn.__code__
    return code.co_filename, code.co_firstlineno, 1, None


# --------------------------------------------------------------------------
# Turning other failures into CompilationError.

def error_from_exception(exc: BaseException, kernel_codes, fallback_fn) -> CompilationError:
    """Locate an exception raised while tracing at the deepest frame of a
    @jit function in its traceback and describe it for the user."""
    where = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code in kernel_codes:
            where = source_position(tb.tb_frame.f_code, tb.tb_lasti)
        tb = tb.tb_next
    if where is None:
        where = definition_position(fallback_fn)
    return CompilationError(_describe(exc), *where)


def _describe(exc: BaseException) -> str:
    module = getattr(exc, "obj", None) if isinstance(exc, AttributeError) else None
    if getattr(module, "__name__", None) == "rocktile.language":
        name = exc.name
        text = f"'{name}' is not a rocktile.language name (module 'rocktile.language' has no attribute '{name}')"
        close = difflib.get_close_matches(name, module.__all__, n=1)
        return text + (f"; did you mean '{close[0]}'?" if close else "")
    if type(exc).__name__ == "SemanticError":
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


# "FILE:LINE:COL: SEVERITY: MESSAGE" as printed by rocktile._C.CompileError.
_DIAG_RE = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): "
                      r"(?P<sev>error|warning|note|remark): (?P<msg>.*)$")
_BARE_RE = re.compile(r"^(?:loc\(unknown\):\s*|-:\d+:\d+:\s*)?(?P<sev>error|warning|note|remark): (?P<msg>.*)$")


def error_from_compile_error(text: str, extents: dict, fallback=(None, None, None, None),
                             note: str | None = None) -> CompilationError:
    """Turn the text of a `rocktile._C.CompileError` into a CompilationError.

    `extents` maps (file, line, col) of locations the tracer attached to the
    end column of the expression, so the caret can cover the whole
    expression.  Lines that are not diagnostics (IR dumps, op printouts) are
    dropped: the user never sees MLIR."""
    diagnostics = []
    for line in text.splitlines():
        line = line.rstrip()
        m = _DIAG_RE.match(line)
        if m and m["file"] != "<unknown>" and int(m["line"]) > 0:
            file, lineno, col = m["file"], int(m["line"]), int(m["col"])
            diag = Diagnostic(m["sev"], m["msg"], file, lineno, col, extents.get((file, lineno, col)))
        elif m:  # an unknown location: report it at the kernel's definition
            diag = Diagnostic(m["sev"], m["msg"], *fallback)
        elif (m := _BARE_RE.match(line)):
            diag = Diagnostic(m["sev"], m["msg"], *fallback)
        else:
            continue
        if "see current operation" in diag.message:
            continue
        diagnostics.append(diag)
    if not any(d.severity == "error" for d in diagnostics):
        diagnostics.insert(0, Diagnostic("error", "the kernel failed to compile", *fallback))
    # The first error is the primary diagnostic; keep the others in order.
    first = next(i for i, d in enumerate(diagnostics) if d.severity == "error")
    diagnostics.insert(0, diagnostics.pop(first))
    if note:
        diagnostics.append(Diagnostic("note", note))
    return CompilationError.from_diagnostics(diagnostics)


class CompilationWarning(UserWarning):
    """Something the compiler did differently than asked, at a kernel line
    ("file:line:col: warning: ..."): fewer pipeline stages than num_stages
    where the LDS would not hold them."""


class EmulatorError(RuntimeError):
    """A kernel misbehaved in the CPU emulator (e.g. a memory access outside
    its buffer). The message names the kernel, workgroup, wave, lane, the
    buffer and address, and the Python source line of the access."""
