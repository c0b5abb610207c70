"""Malformed inputs: every case must compile or fail cleanly.

Two kinds of case:

- "frontend": a broken kernel fed to rocktile.compile on both targets.  It
  is either one of the hand-written mistakes below (type errors, wrong
  shapes, bad constexprs, unsupported constructs), injected into a random
  valid kernel from gen_kernels, or a valid kernel whose tokens were
  randomly deleted, duplicated or replaced.  Acceptable outcomes: it
  compiles, or raises rocktile.CompilationError (with a position, without
  MLIR in its text and without "internal compiler error" / "please report
  this bug"), ValueError or TypeError.  Anything else escaping rocktile is
  a failure.  Mutants that are not valid Python, or whose module fails to
  import, are not rocktile's business and count as "skipped".
- "mlir": a chunk of a lit test input (test/**/*.mlir), mutated (lines
  deleted, duplicated or swapped, tokens replaced, random truncation), run
  through build/compiler/tools/rocktile-opt with one of the pass options of
  the lit RUN lines or a full pipeline, in a subprocess with a timeout.
  Acceptable: exit 0, or a non-zero exit with an `error:` diagnostic.  A
  signal, an assertion, "LLVM ERROR", a stack dump, a non-zero exit
  without a diagnostic, or a timeout is a failure.
"""
from __future__ import annotations

import glob
import io
import os
import random
import re
import signal
import subprocess
import tokenize

import gen_kernels

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ROCKTILE_OPT = os.environ.get("ROCKTILE_OPT", os.path.join(ROOT, "build", "compiler", "tools", "rocktile-opt",
                                                           "rocktile-opt"))
MLIR_TIMEOUT = 20.0
SKIPPED = ("skipped", "")  # a case that tests nothing (not valid Python, ...): counted apart

# --------------------------------------------------------------------------
# Hand-written mistakes: statements injected into a valid kernel.  Each is
# a user error (or an unsupported construct) that must be a clean error.

MISTAKES = [
    "bad = x0 + in0_ptr + in0_ptr",  # two pointers
    "bad = in0_ptr * 2",  # pointer arithmetic other than + -
    "bad = tl.arange(0, 3)",  # not a power of two
    "bad = tl.arange(5, 2)",
    "bad = tl.zeros([3, 5], tl.float32)",
    "bad = tl.full([4], x0, tl.float32)",  # a tile as the value of full
    "bad = tl.load(x0)",  # not a pointer
    "bad = tl.load(in0_ptr + idx, mask=idx)",  # non-boolean mask
    "bad = tl.load(in0_ptr + idx, other=1.0)",  # other without mask
    "tl.store(in0_ptr, x0)",  # a tile through a scalar pointer
    "tl.store(in0_ptr + tl.arange(0, 2), x0)",  # shapes that do not broadcast
    "bad = x0 + tl.zeros([3], tl.float32)",
    "bad = x0 + tl.zeros([1024, 2], tl.float32)",
    "bad = tl.sum(x0, axis=5)",
    "bad = tl.max(x0, axis=-9)",
    "bad = tl.exp(idx)",  # math on integers
    "bad = 1.5 // x0.to(tl.float32)",
    "bad = x0.to(tl.float32) & 1",
    "bad = x0 << 1.5",
    "bad = x0.to(tl.float32).to(tl.float8e4nv)",  # not a rocktile dtype
    "bad = tl.program_id(3)",
    "bad = tl.program_id(pid)",  # a tensor where an int is needed
    "bad = tl.arange(0, n)",  # a runtime bound
    "bad = tl.zeros([n], tl.int32)",
    "bad = tl.reshape(x0, (3,))",
    "bad = tl.trans(x0, 0, 0)",
    "bad = tl.permute(x0, (1, 2, 3))",
    "bad = tl.dot(x0, x0)",  # not supported yet
    "bad = tl.cumsum(x0, 0)",
    "bad = tl.atomic_add(in0_ptr + idx, 1, sem='seq_cst')",
    "bad = tl.atomic_and(out_ptr + idx, 1.5)",
    "bad = tl.atomic_cas(in0_ptr, 0, x0)",
    "bad = tl.where(x0, in0_ptr, 1.0)",
    "bad = tl.static_assert(n > 0)",  # runtime value in static_assert
    "tl.static_assert(BLOCK == 3, 'BLOCK must be 3')",
    "bad = x0[0]",  # integer indexing
    "bad = x0[1:2]",
    "bad = x0[:, :, :, None]",
    "bad = [v for v in x0]",  # iterating a tensor
    "bad = int(k)",
    "bad = len(x0)",
    "bad = tl.broadcast_to(x0, (3,))",
    "bad = tl.expand_dims(x0, 7)",
    "bad = x0.to(tl.pointer_type(tl.float32))",
    "bad = tl.cast(x0, 'float32')",
    "bad = x0.to(tl.int16, bitcast=True)",
    "bad = tl.fma(x0, x0)",
    "bad = tl.load(in0_ptr + idx, boundary_check=(0,))",
    "bad = undefined_name + 1",
    "bad = tl.undefined_function(x0)",
    "bad = x0.no_such_method()",
    "bad = pid if x0 else k",  # a tile as a condition
    "if x0:\n        bad = 1",
    "while x0:\n        pass",
    "for i in range(0, 4.5):\n        pass",
    "for i in range(0, k):\n        break",
    "for i in range(0, k):\n        return",
    "acc = 0\n    for i in range(0, k):\n        acc = acc + 0.5 * x0",  # carried type changes
    "acc = tl.zeros([4], tl.float32)\n    for i in range(0, k):\n        acc = tl.zeros([8], tl.float32)",
    "if k > 0:\n        only_then = x0\n    bad = only_then + 1",
    "if k > 0:\n        bad = x0\n    else:\n        bad = in0_ptr",
    "for i in range(0, k):\n        fresh = fresh + 1",
    "bad = x0 + 2**40",  # a Python int too large for its partner
    "bad = 2**70",
    "bad = tl.full([4], 2**70, tl.int32)",
    "bad = tl.full([4], 1, tl.pointer_type(tl.int32))",
    "x0.foo = 1",
    "raise ValueError('user code raising')",
    "assert pid == 0",
    "bad = print(x0)",
    "bad = tl.device_print('x', x0)",
    "bad = {x0: 1}",
    "bad = (x0 > 0) and in0_ptr",
    "bad = lambda: x0\n    bad = bad()",
    "bad = tl.num_programs(axis=-1)",
    "bad = tl.sum(in0_ptr + idx)",
    "bad = tl.argmax(x0, axis=None, tie_break_left='x')",
    "bad = tl.zeros(x0, tl.float32)",
    "bad = tl.zeros([4], x0)",
    "bad = tl.arange(0, 1 << 21)",
]

# What a launch-free compile is given: a signature for every runtime
# parameter of a gen_kernels kernel and its constexpr.
TOKEN_POOL = ["+", "-", "*", "/", "//", "%", "<", ">", "==", "&", "|", "^", "~", "not", "and", "or", "(", ")",
              "[", "]", ",", ":", "None", "0", "1", "-1", "2.5", "3", "1024", "x0", "idx", "pid", "k", "s", "n",
              "mask", "tl.float16", "tl.int8", "tl.int1", "in0_ptr", "out_ptr", "tl.sum", "tl.max", "tl.where",
              "tl.arange", "tl.zeros", ".to", ".T", "[:, None]", "range", "if", "else", "lambda", "True", "BLOCK",
              "tl.load", "tl.store", "tl.trans", "tl.reshape", "tl.atomic_add", "tl.program_id", "'str'"]


def _signature(program, rng):
    g = program.gen
    sig = {f"in{j}_ptr": "*" + _sig_name(d) for j, d in enumerate(g.inputs)}
    sig.update(out_ptr="*" + _sig_name(program.out.dtype),
               red_ptr="*" + _sig_name(program.red.dtype if program.red else "int32"),
               n="i32", ncols="i32", k="i32", s="fp32")
    block = g.B if not g.two_d else g.M
    if rng.random() < 0.1:  # a bad constexpr value or type
        block = rng.choice([3, 0, -4, 2.5, "64", None, 1 << 30])
    return sig, {"BLOCK": block}


def _sig_name(d):
    return {"int1": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8",
            "uint16": "u16", "uint32": "u32", "uint64": "u64", "fp8": "fp8e4nv", "fp8e5": "fp8e5",
            "fp16": "fp16", "bf16": "bf16", "fp32": "fp32", "fp64": "fp64"}[d]


def _inject(source, rng):
    """Insert a mistake after a random statement of the kernel body."""
    lines = source.splitlines()
    body = [i for i, line in enumerate(lines) if line.startswith("    ") and not line.startswith("     ")
            and i > lines.index(next(l for l in lines if l.startswith("def "))) + 5]
    at = rng.choice(body) if body else len(lines) - 1
    # insert after a top-level statement: skip to the end of its indented block
    while at + 1 < len(lines) and lines[at + 1].startswith("        "):
        at += 1
    mistake = rng.choice(MISTAKES)
    lines.insert(at + 1, "    " + mistake)
    return "\n".join(lines) + "\n", mistake


def _mutate_tokens(source, rng):
    """Delete, duplicate or replace a few tokens of the kernel's body."""
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    def_line = next(t.start[0] for t in tokens if t.string == "def")
    editable = [i for i, t in enumerate(tokens) if t.start[0] > def_line and
                t.type in (tokenize.NAME, tokenize.OP, tokenize.NUMBER, tokenize.STRING)]
    edits = []
    for _ in range(rng.randint(1, 3)):
        i = rng.choice(editable)
        edits.append((i, rng.choice(["delete", "dup", "replace", "replace", "number"])))
    lines = source.splitlines(keepends=True)
    # Apply edits on the text, from the last token to the first.
    for i, how in sorted(set(edits), key=lambda e: tokens[e[0]].start, reverse=True):
        t = tokens[i]
        (row, c0), (row2, c1) = t.start, t.end
        if row != row2:
            continue
        line = lines[row - 1]
        if how == "delete":
            new = ""
        elif how == "dup":
            new = t.string + " " + t.string
        elif how == "number" and t.type == tokenize.NUMBER:
            new = rng.choice(["3", "0", "-1", "1.5", "2**31", "1e40", "65", "4096"])
        else:
            new = rng.choice(TOKEN_POOL)
        lines[row - 1] = line[:c0] + new + line[c1:]
    return "".join(lines), f"{len(edits)} token edit(s)"


UNCLEAN = [
    (re.compile(r"%[\w.]+ = "), "an MLIR value in the message"),
    (re.compile(r"internal compiler error"), "an internal compiler error"),
    (re.compile(r"please report this bug"), "rocktile built invalid IR"),
    (re.compile(r"\bloc\("), "an MLIR location in the message"),
]


def _frontend_case(seed):
    rng = random.Random(seed * 7919 + 1)
    program = gen_kernels.make_program(seed)
    name = f"bad_{seed}"
    source = program.source(name)
    if rng.random() < 0.5:
        source, what = _inject(source, rng)
    else:
        source, what = _mutate_tokens(source, rng)
    signature, constexprs = _signature(program, rng)
    return program, name, source, what, signature, constexprs, rng.choice(gen_kernels.TARGETS)


def describe_case(kind, seed):
    if kind == "frontend":
        _, _, source, what, signature, constexprs, target = _frontend_case(seed)
        return f"# {what}; {target}; signature {signature}; constexprs {constexprs}\n{source}"
    text, args, what = _mlir_case(seed)
    return f"// {what}\n// rocktile-opt {' '.join(args)}\n{text}"


def run_case(kind, seed, workdir):
    return _run_frontend(seed, workdir) if kind == "frontend" else _run_mlir(seed, workdir)


def _run_frontend(seed, workdir):
    import rocktile

    _, name, source, what, signature, constexprs, target = _frontend_case(seed)
    try:
        compile(source, name, "exec")
    except (SyntaxError, ValueError):
        return SKIPPED  # the mutation broke Python itself
    path = os.path.join(workdir, f"{name}.py")
    with open(path, "w") as f:
        f.write(source)
    try:
        kernel = gen_kernels._load_kernel(path, name)
    except Exception:
        return SKIPPED  # the module itself fails at import
    if not isinstance(kernel, rocktile.JITFunction):
        return SKIPPED
    try:
        rocktile.compile(kernel, signature, constexprs, target=target)
    except rocktile.CompilationError as e:
        text = str(e)
        for pattern, problem in UNCLEAN:
            if pattern.search(text):
                return ("unclean error", f"{problem} ({what}; {path}):\n{text[:2000]}")
        if e.filename is None or e.lineno is None:
            return ("unclean error", f"a CompilationError without a position ({what}; {path}):\n{text[:2000]}")
    except (ValueError, TypeError):
        pass
    except Exception as e:  # anything else escaping rocktile is a bug
        import traceback
        return ("exception", f"{type(e).__name__} escaped rocktile ({what}; {path}):\n"
                             f"{''.join(traceback.format_exception(e, limit=-6))[:3000]}")
    return None


# --------------------------------------------------------------------------
# Malformed MLIR for rocktile-opt.

_MLIR_FILES = None


def mlir_inputs():
    """[(path, chunk text, [pass option strings])] from the lit tests."""
    global _MLIR_FILES
    if _MLIR_FILES is None:
        _MLIR_FILES = []
        for path in sorted(glob.glob(os.path.join(ROOT, "test", "**", "*.mlir"), recursive=True)):
            text = open(path).read()
            options = set()
            for line in text.splitlines():
                m = re.match(r"//\s*RUN:.*?rocktile-opt\s+%s\s+(.*?)(\||2>&1|$)", line)
                if m:
                    args = [a for a in m.group(1).split() if a.startswith("--") or a.startswith("-")]
                    args = [a for a in args if a not in ("-split-input-file", "-verify-diagnostics",
                                                         "--split-input-file", "--verify-diagnostics")]
                    if args:
                        options.add(" ".join(args))
            options |= {"--rocktile-tile-pipeline=target=gfx950", "--rocktile-tile-pipeline=target=gfx1250",
                        "--rocktile-tile-pipeline=target=gfx1250 --rocktile-simt-pipeline=target=gfx1250",
                        "--rocktile-tile-pipeline=target=gfx950 --rocktile-simt-pipeline=target=gfx950 "
                        "--rocktile-llvm-pipeline=target=gfx950"}
            for chunk in re.split(r"^// -----.*$", text, flags=re.M):
                body = "\n".join(l for l in chunk.splitlines() if not l.lstrip().startswith("// RUN"))
                if body.strip():
                    _MLIR_FILES.append((os.path.relpath(path, ROOT), body, sorted(options)))
    return _MLIR_FILES


_MLIR_TOKEN = re.compile(r"%[\w#]+|\d+|[a-z_]+\.[a-z_.]+|tensor<[^>]*>|!tile\.ptr<[^>]*>|#\w+|[\w]+|[^\s\w]")
MLIR_POOL = ["%0", "%1", "%arg0", "0", "1", "-1", "64", "3", "1000000", "i1", "i32", "f32", "f16", "i64",
             "tensor<64xf32>", "tensor<63xf32>", "tensor<0xf32>", "tensor<1x64xf32>", "tensor<64x!tile.ptr<f32>>",
             "!tile.ptr<f32>", "tile.load", "tile.store", "tile.reduce", "tile.splat", "tile.broadcast",
             "tile.expand_dims", "tile.trans", "tile.reshape", "tile.atomic_rmw", "tile.convert_layout",
             "arith.addf", "scf.for", "scf.yield", "{", "}", "(", ")", ":", ",", "=", "->", "<", ">", "#blocked",
             "axis", "order", "array<i32: 1, 0>", "array<i32: 0, 0>", "tile.lds_offset", "\"", "@f", "gpu.func"]


def _mlir_case(seed):
    rng = random.Random(seed * 104729 + 3)
    path, text, options = rng.choice(mlir_inputs())
    lines = text.splitlines()
    what = []
    for _ in range(1 if rng.random() < 0.6 else rng.randint(2, 3)):
        # Mostly edits that keep the text parseable (numbers, element types),
        # so that the verifiers and passes see it, not only the parser.
        how = rng.choice(["number", "number", "number", "type", "type", "delete", "dup", "swap", "token",
                          "truncate", "chars"])
        if not lines:
            break
        i = rng.randrange(len(lines))
        if how == "delete":
            del lines[i]
        elif how == "dup":
            lines.insert(i, lines[i])
        elif how == "swap":
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif how == "truncate":
            flat = "\n".join(lines)
            cut = rng.randrange(len(flat) + 1)
            lines = flat[:cut].splitlines()
        elif how in ("number", "type"):
            pattern = r"(?<![%\w])\d+(?![\w.])" if how == "number" else r"\b(?:f16|f32|f64|bf16|i1|i8|i16|i32|i64)\b"
            hits = [(k, m.span()) for k, line in enumerate(lines) for m in re.finditer(pattern, line)]
            if hits:
                i, (a, b) = rng.choice(hits)
                line = lines[i]
                new = (rng.choice(["0", "1", "2", "3", "7", "63", "65", "128", "4096", "-1", "2147483648"])
                       if how == "number" else rng.choice(["f16", "f32", "f64", "bf16", "i1", "i8", "i16", "i32",
                                                           "i64"]))
                lines[i] = line[:a] + new + line[b:]
        elif how == "chars":
            line = lines[i]
            if line:
                a = rng.randrange(len(line))
                lines[i] = line[:a] + line[a + rng.randint(1, 4):]
        else:
            line = lines[i]
            spans = [m.span() for m in _MLIR_TOKEN.finditer(line)]
            if spans:
                a, b = rng.choice(spans)
                lines[i] = line[:a] + rng.choice(MLIR_POOL + [line[a:b] + line[a:b]]) + line[b:]
        what.append(f"{how}@{i}")
    args = rng.choice(options).split()
    return "\n".join(lines) + "\n", args, f"{path}: {', '.join(what)}"


CRASH_MARKERS = ("Assertion", "LLVM ERROR", "PLEASE submit a bug report", "Stack dump", "UNREACHABLE",
                 "Segmentation fault", "terminate called")


def _run_mlir(seed, workdir):
    text, args, what = _mlir_case(seed)
    path = os.path.join(workdir, f"mlir_{seed}.mlir")
    with open(path, "w") as f:
        f.write(text)
    if not os.path.exists(ROCKTILE_OPT):
        return ("error", f"{ROCKTILE_OPT} is not built")
    cmd = [ROCKTILE_OPT, path, *args, "-o", os.devnull]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=MLIR_TIMEOUT)
    except subprocess.TimeoutExpired:
        return ("hang", f"rocktile-opt did not finish in {MLIR_TIMEOUT:.0f} s ({what}):\n  {' '.join(cmd)}")
    err = proc.stderr
    command = f"{' '.join(cmd)}  ({what})"
    if proc.returncode < 0:
        name = signal.Signals(-proc.returncode).name
        return ("crash", f"rocktile-opt died of {name}: {command}\n{err[-2500:]}")
    if any(m in err for m in CRASH_MARKERS):
        return ("crash", f"rocktile-opt reported an internal failure: {command}\n{err[-2500:]}")
    if proc.returncode != 0 and "error:" not in err:
        return ("error", f"rocktile-opt exited with {proc.returncode} without an error diagnostic: {command}\n"
                         f"{err[-2500:]}")
    return None
