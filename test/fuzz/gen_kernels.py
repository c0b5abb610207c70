"""Random well-typed kernels, checked against numpy.

`make_program(seed)` builds a random program as a tree of statements and
expressions.  Each expression knows its Python source (Triton's language)
and how to evaluate itself with numpy, following rocktile's documented
semantics (Triton's promotion rules, C integer division, masked loads with
`other`).  The program becomes the text of a @rocktile.jit kernel written to
a file (so errors and tracebacks name real lines), is launched in the
emulator on gfx950 and gfx1250, and every output is compared with numpy's.

What the generator does to keep the comparison meaningful:
- magnitudes are bounded (each node carries a bound; operations that could
  overflow a float type, or feed sin/exp huge arguments, are not chosen);
- divisors are made nonzero (`abs(b) + 1` for floats, `(b & 7) + 1` for
  integers) and shift amounts are `b & 7`;
- float comparisons, float -> int conversions, argmax/argmin and tl.dot's
  (16-bit) operands only take
  "exact" operands: values computed by correctly rounded operations
  (+ - * / sqrt, conversions), identical in numpy and the emulator;
  transcendental functions and float sums make a value inexact.

Tolerances (floats compared with atol = rtol * max(1, max |reference|)):
fp64 1e-9, fp32 1e-4, fp16 2e-2, bf16 0.1, fp8 e4m3 0.13, fp8 e5m2 0.26;
integers and booleans must be equal.
"""
from __future__ import annotations

import importlib.util
import math
import os
import random
import warnings

import ml_dtypes
import numpy as np

TARGETS = ("gfx950", "gfx1250")

# name -> (numpy dtype, category, bits, tl name)
DT = {
    "int1": (np.bool_, "bool", 1, "tl.int1"),
    "int8": (np.int8, "int", 8, "tl.int8"), "int16": (np.int16, "int", 16, "tl.int16"),
    "int32": (np.int32, "int", 32, "tl.int32"), "int64": (np.int64, "int", 64, "tl.int64"),
    "uint8": (np.uint8, "uint", 8, "tl.uint8"), "uint16": (np.uint16, "uint", 16, "tl.uint16"),
    "uint32": (np.uint32, "uint", 32, "tl.uint32"), "uint64": (np.uint64, "uint", 64, "tl.uint64"),
    "fp16": (np.float16, "float", 16, "tl.float16"), "bf16": (ml_dtypes.bfloat16, "float", 16, "tl.bfloat16"),
    "fp32": (np.float32, "float", 32, "tl.float32"), "fp64": (np.float64, "float", 64, "tl.float64"),
    "fp8": (ml_dtypes.float8_e4m3fn, "float", 8, "tl.float8e4nv"),
    "fp8e5": (ml_dtypes.float8_e5m2, "float", 8, "tl.float8e5"),
}
HALF = ("fp16", "bf16")
FP8 = ("fp8", "fp8e5")
FP8_MAX = {"fp8": 448.0, "fp8e5": 57344.0}
LOAD_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "fp8", "fp8e5",
               "fp16", "bf16", "fp32", "fp32", "fp64"]
# fp8: one step is 1/8 (e4m3) or 1/4 (e5m2) relative; values stay well below their largest.
TOL = {"fp8": 0.13, "fp8e5": 0.26, "fp16": 2e-2, "bf16": 0.1, "fp32": 1e-4, "fp64": 1e-9}
FLOAT_LIMIT = {"fp8": 200, "fp8e5": 200, "fp16": 1e3, "bf16": 1e4, "fp32": 1e6, "fp64": 1e6}
INT_LIMIT = {8: 100, 16: 30000, 32: 2**30, 64: 2**62, 1: 1}
INF = math.inf


def cat(d): return DT[d][1]
def is_float(d): return cat(d) == "float"
def is_int(d): return cat(d) in ("int", "uint")
def npt(d): return DT[d][0]


def promote(a, b, div=False):
    """The computation type of a binary op (Triton's rules, written from its documentation)."""
    if "fp64" in (a, b):
        return "fp64"
    if "fp32" in (a, b):
        return "fp32"
    if a in HALF or b in HALF:  # fp16 with bf16 gives fp32
        if div or (a in HALF and b in HALF and a != b):
            return "fp32"
        return a if a in HALF else b
    if a in FP8 or b in FP8:  # e4m3 with e5m2 gives fp16
        if div:
            return "fp32"
        if a in FP8 and b in FP8 and a != b:
            return "fp16"
        return a if a in FP8 else b
    if a == b:
        return a
    sa, sb = cat(a) == "int", cat(b) == "int"
    wa, wb = DT[a][2], DT[b][2]
    if sa == sb:
        return a if wa >= wb else b
    signed, unsigned = (a, b) if sa else (b, a)
    return unsigned if DT[unsigned][2] >= DT[signed][2] else signed


def kind_rank(d): return 0 if d == "int1" else 1 if is_int(d) else 2


class Node:
    """An expression: its dtype, shape, source text, numpy evaluation, a bound
    on its magnitude and whether it is exact (see the module docstring)."""

    def __init__(self, dtype, shape, src, ev, bound=INF, exact=True, literal=None):
        self.dtype, self.shape, self.src, self.ev = dtype, tuple(shape), src, ev
        self.bound, self.exact, self.literal = bound, exact, literal

    def __repr__(self):
        return f"<{self.dtype}{list(self.shape)} {self.src}>"


def minmax_dtype(d):
    """The dtype of tl.max / tl.min of `d`: narrower than 32 bits, fp32 or
    int32 (Triton's promotion)."""
    return d if DT[d][2] >= 32 else ("fp32" if is_float(d) else "int32")


def cast_np(x, d):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        x = np.asarray(x)
        if d in FP8:  # rocktile's conversion: through fp32, saturating
            x = x.astype(np.float32)
            return np.where(np.isfinite(x), np.clip(x, -FP8_MAX[d], FP8_MAX[d]), x).astype(npt(d))
        if d == "bf16" and x.dtype == np.float64:
            return bf16_from_fp64(x)
        return x.astype(npt(d))


def bf16_from_fp64(x):
    """fp64 -> bf16 rounded once, as the kernel converts (ml_dtypes goes
    through fp32 and rounds twice): round to odd into fp32, whose 24 bits
    then round correctly to bf16's 8."""
    f = x.astype(np.float32)
    f = np.where(np.isfinite(x) & (np.abs(f.astype(np.float64)) > np.abs(x)), np.nextafter(f, np.float32(0)), f)
    inexact = np.isfinite(f) & (f.astype(np.float64) != x)
    return (f.view(np.uint32) | inexact.astype(np.uint32)).view(np.float32).astype(ml_dtypes.bfloat16)


def wide(x, d):
    """`x` of dtype `d` as numpy computes it: fp8 and bf16 in fp32, as the
    kernel does (bf16 arithmetic rounds each fp32 result back, which gives
    the same bits as bf16 arithmetic would)."""
    return cast_np(x, d).astype(np.float32) if d in FP8 or d == "bf16" else cast_np(x, d)


def sigmoid64(x):
    with np.errstate(over="ignore"):  # exp(large) = inf gives the right 0
        return 1 / (1 + np.exp(-np.asarray(x, np.float64)))


def literal(value, rng):
    """A Python number as one operand of a binary op (Triton's weak typing)."""
    dtype = "fp32" if isinstance(value, float) else "int32"
    return Node(dtype, (), repr(value), lambda env, v=value: v, abs(value), True, literal=value)


def fits(bound, d):
    if is_float(d):
        return bound <= FLOAT_LIMIT[d]
    return True  # integers wrap, identically in numpy and the kernel


def int_bound(b, d):
    return b if b <= INT_LIMIT[DT[d][2]] else INF


class Gen:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.seed = seed
        r = self.rng
        self.two_d = r.random() < 0.4
        if self.two_d:
            self.M, self.N = r.choice([(4, 16), (8, 8), (16, 32), (2, 64), (32, 4), (16, 16), (32, 32)])
            self.tile = (self.M, self.N)
        else:
            self.B = r.choice([16, 32, 64, 128, 256])
            self.tile = (self.B,)
        self.programs = r.randint(1, 3)
        self.num_warps = r.choice([1, 2, 4])
        self.inputs = [r.choice(LOAD_DTYPES) for _ in range(r.randint(1, 3))]
        self.vars = [[]]  # scopes of (name, Node)
        self.counter = 0
        self.loop_vars = []

    # ------------------------------------------------------------------
    # Leaves.

    def fresh(self, prefix="v"):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def shapes(self):
        if not self.two_d:
            return [(), self.tile]
        M, N = self.tile
        return [(), (M,), (N,), (M, 1), (M, N), (M, N)]

    def leaf(self):
        r = self.rng
        choices = ["load"] * 4 + ["var"] * 5 + ["pid", "k", "s", "index"] + ["iv"] * 2
        while True:
            c = r.choice(choices)
            if c == "load":
                j = r.randrange(len(self.inputs))
                d = self.inputs[j]
                bound = 200 if is_int(d) else 3
                return Node(d, self.tile, f"x{j}", lambda env, j=j: env[f"x{j}"], bound, True)
            if c == "var":
                visible = [n for scope in self.vars for n in scope]
                if not visible:
                    continue
                name, node = r.choice(visible)
                return Node(node.dtype, node.shape, name, lambda env, name=name: env[name], node.bound, node.exact)
            if c == "pid":
                return Node("int32", (), "pid", lambda env: env["pid"], 3, True)
            if c == "k":
                return Node("int32", (), "k", lambda env: env["k"], 8, True)
            if c == "s":
                return Node("fp32", (), "s", lambda env: env["s"], 2, True)
            if c == "iv" and self.loop_vars:
                name = r.choice(self.loop_vars)
                return Node("int32", (), name, lambda env, name=name: env[name], 16, True)
            if c == "index":
                if self.two_d:
                    if r.random() < 0.5:
                        return Node("int32", (self.M,), "rows", lambda env: env["rows"], 4 * self.M, True)
                    return Node("int32", (self.N,), "cols", lambda env: env["cols"], self.N, True)
                return Node("int32", self.tile, "offs", lambda env: env["offs"], 3 * self.B, True)

    # ------------------------------------------------------------------
    # Expressions.

    def expr(self, depth):
        r = self.rng
        if depth <= 0 or r.random() < 0.2:
            return self.leaf()
        pick = r.random()
        for _ in range(20):
            try:
                if pick < 0.45:
                    node = self.binary(depth)
                elif pick < 0.6:
                    node = self.unary(depth)
                elif pick < 0.7:
                    node = self.where(depth)
                elif pick < 0.8:
                    node = self.cast(self.expr(depth - 1), r.choice(list(DT)))
                elif pick < 0.92:
                    node = self.reduce(depth)
                elif pick < 0.97 and self.tile in ((32, 32), (16, 32)):
                    node = self.dot(depth)
                else:
                    node = self.reshape(depth)
            except Retry:
                pick = r.random()
                continue
            if node is not None:
                return node
        return self.leaf()

    def broadcast(self, a, b):
        try:
            return tuple(np.broadcast_shapes(a.shape, b.shape))
        except ValueError:
            raise Retry() from None

    def operands(self, depth):
        r = self.rng
        a = self.expr(depth - 1)
        if r.random() < 0.25:  # a Python number on one side
            if is_float(a.dtype) or r.random() < 0.3:
                b = literal(r.choice([0.5, 1.5, 2.0, -0.25, 3.0, 0.125]), r)
            else:
                hi = 100 if cat(a.dtype) != "uint" else 50
                b = literal(r.randint(0 if cat(a.dtype) == "uint" else -hi, hi), r)
            return (b, a) if r.random() < 0.5 else (a, b)
        return a, self.expr(depth - 1)

    def result_type(self, a, b, div=False):
        """Promotion with Python numbers taking the tensor's type when their kind is not above it."""
        if a.literal is not None or b.literal is not None:
            num, ten = (a, b) if a.literal is not None else (b, a)
            if ten.literal is not None:
                raise Retry()
            if kind_rank(num.dtype) <= kind_rank(ten.dtype):
                return "fp32" if div and ten.dtype in HALF + FP8 else ten.dtype
            return promote(num.dtype, ten.dtype, div)
        return promote(a.dtype, b.dtype, div)

    def binary(self, depth):
        r = self.rng
        a, b = self.operands(depth)
        if a.dtype == "int1" and b.dtype == "int1" and r.random() < 0.7:
            op = r.choice(["&", "|", "^"])
            shape = self.broadcast(a, b)
            return Node("int1", shape, f"({a.src} {op} {b.src})",
                        lambda env: _binop(op, a.ev(env), b.ev(env), "int1"), 1, a.exact and b.exact)
        ops = ["+", "-", "*", "min", "max", "cmp"]
        t = self.result_type(a, b)
        if t == "int1":  # arithmetic on booleans wraps in the kernel and saturates in numpy: not compared
            ops = ["&", "|", "^", "cmp"]
        elif is_float(t):
            ops += ["/", "%"]
        elif t != "int1":
            ops += ["//", "%", "&", "|", "^", "<<", ">>"]
        op = r.choice(ops)
        shape = self.broadcast(a, b)
        if op == "cmp":
            if is_float(t) and not (a.exact and b.exact):
                raise Retry()
            pred = r.choice(["<", "<=", ">", ">=", "==", "!="])
            return Node("int1", shape, f"({a.src} {pred} {b.src})",
                        lambda env: _cmp(pred, a.ev(env), b.ev(env), t), 1, True)
        if op in ("/", "%", "//"):
            b = self.safe_divisor(b)  # (a boolean divisor becomes int32)
            signed = [cat(x.dtype) == "int" for x in (a, b) if is_int(x.dtype) or x.dtype == "int1"]
            if a.literal is None and b.literal is None and len(signed) == 2 and signed[0] != signed[1]:
                raise Retry()  # between signed and unsigned tensors an error, as in Triton
            if "int1" in (a.dtype, b.dtype) and (a.literal is not None or b.literal is not None):
                raise Retry()  # an int literal outranks a boolean tensor: int1 (unsigned) with int32, an error
            t = self.result_type(a, b, div=True)
            if op == "//" and not is_int(t):
                raise Retry()
            if op == "/" and is_int(t):
                t = "fp32"
        if op in ("<<", ">>"):
            b = self.shift_amount(b)
            if op == ">>" and is_int(a.dtype) and cat(a.dtype) != cat(t):
                raise Retry()  # a signed left operand shifts the promoted unsigned bits arithmetically
        exact = a.exact and b.exact
        if op in ("+", "-"):
            bound = a.bound + b.bound
        elif op == "*":
            bound = a.bound * b.bound
        elif op in ("/", "%", "//"):
            bound = a.bound
        elif op == "<<":
            bound = a.bound * 128
        else:
            bound = max(a.bound, b.bound) * (2 if op in ("&", "|", "^") else 1)
        if is_float(t):
            bound = max(bound, a.bound, b.bound)
            if not fits(bound, t):
                raise Retry()
            if op == "%":
                exact = False  # fmod is exact, but near-ties of its argument are not worth the risk
        else:
            bound = int_bound(bound, t)
            if cat(t) == "uint" and op == "-":
                bound = INF  # wraps around
        if op in ("min", "max"):
            src = f"tl.{'minimum' if op == 'min' else 'maximum'}({a.src}, {b.src})"
        else:
            src = f"({a.src} {op} {b.src})"
        return Node(t, shape, src, lambda env: _binop(op, a.ev(env), b.ev(env), t), bound, exact)

    def safe_divisor(self, b):
        if b.literal is not None:
            v = b.literal
            value = (abs(v) + 1) if isinstance(v, float) else (v & 7) + 1
            return literal(value, self.rng)
        if is_float(b.dtype):
            return Node(b.dtype, b.shape, f"(tl.abs({b.src}) + 1)",
                        lambda env: cast_np(np.abs(b.ev(env)) + cast_np(1, b.dtype), b.dtype), b.bound + 1, b.exact)
        if b.dtype == "int1":
            return Node("int32", b.shape, f"({b.src}.to(tl.int32) + 1)",
                        lambda env: cast_np(b.ev(env), "int32") + np.int32(1), 2, True)
        return Node(b.dtype, b.shape, f"(({b.src} & 7) + 1)",
                    lambda env: cast_np((cast_np(b.ev(env), b.dtype) & npt(b.dtype)(7)) + npt(b.dtype)(1), b.dtype),
                    8, True)

    def shift_amount(self, b):
        if b.literal is not None:
            return literal(abs(b.literal) & 7 if isinstance(b.literal, int) else 3, self.rng)
        if b.dtype == "int1":
            raise Retry()
        return Node(b.dtype, b.shape, f"({b.src} & 7)", lambda env: cast_np(b.ev(env), b.dtype) & npt(b.dtype)(7),
                    7, True)

    def unary(self, depth):
        r = self.rng
        a = self.expr(depth - 1)
        if a.dtype == "int1":
            return Node("int1", a.shape, f"(~{a.src})", lambda env: ~cast_np(a.ev(env), "int1"), 1, a.exact)
        if is_int(a.dtype):
            op = r.choice(["neg", "abs", "~", "float"])
            if op == "float":
                if a.bound > 1e4:
                    raise Retry()
                return self.unary_float(self.cast(a, "fp32"))
            if op == "neg":
                return Node(a.dtype, a.shape, f"(-{a.src})", lambda env: cast_np(-cast_np(a.ev(env), a.dtype), a.dtype),
                            INF if cat(a.dtype) == "uint" else a.bound, True)
            if op == "abs":
                return Node(a.dtype, a.shape, f"tl.abs({a.src})",
                            lambda env: cast_np(np.abs(cast_np(a.ev(env), a.dtype)), a.dtype), a.bound, True)
            return Node(a.dtype, a.shape, f"(~{a.src})", lambda env: ~cast_np(a.ev(env), a.dtype), INF, True)
        return self.unary_float(a)

    def unary_float(self, a):
        r = self.rng
        d = a.dtype
        B = a.bound
        ops = ["neg", "abs", "sqrt", "floor", "ceil"]
        if B <= 100:
            ops += ["rsqrt"]
        if B <= 30:
            ops += ["fma"]
        if a.exact:  # fp8 rounding turns tiny differences into whole steps
            ops += ["fp8", "fp8e5"]
        if d != "fp64":  # fp64 transcendentals do not compile for the GPU (see docs/language.md)
            ops += ["sigmoid"]
            if B <= 100:
                ops += ["sin", "cos", "log", "log2"]
            if B <= 8:
                ops += ["exp", "exp2"]
            if d not in HALF and B <= 100:
                ops += ["erf"]
        op = r.choice(ops)
        f = {"sin": np.sin, "cos": np.cos, "exp": np.exp, "exp2": np.exp2, "floor": np.floor, "ceil": np.ceil}

        def mk(src, fn, bound, exact=False):
            return Node(d, a.shape, src, lambda env: cast_np(fn(wide(a.ev(env), d)), d), bound, exact)
        if op == "neg":
            return mk(f"(-{a.src})", np.negative, B, a.exact)
        if op == "abs":
            return mk(f"tl.abs({a.src})", np.abs, B, a.exact)
        if op in ("floor", "ceil"):
            return mk(f"tl.{op}({a.src})", f[op], B + 1, a.exact)
        if op == "sqrt":
            return mk(f"tl.sqrt(tl.abs({a.src}))", lambda x: np.sqrt(np.abs(x)), math.sqrt(B) + 1, a.exact)
        if op in ("sin", "cos"):
            return mk(f"tl.{op}({a.src})", f[op], 1)
        if op in ("exp", "exp2"):
            return mk(f"tl.{op}({a.src})", f[op], math.exp(B) + 1)
        if op == "log":
            return mk(f"tl.log(tl.abs({a.src}) + 1)", lambda x: np.log(np.abs(x) + 1), math.log(B + 1) + 1)
        if op == "log2":
            return mk(f"tl.log2(tl.abs({a.src}) + 1)", lambda x: np.log2(np.abs(x) + 1), math.log2(B + 1) + 1)
        if op == "rsqrt":
            return mk(f"tl.rsqrt(tl.abs({a.src}) + 1)", lambda x: 1 / np.sqrt(np.abs(x) + 1), 1)
        if op == "sigmoid":
            return mk(f"tl.sigmoid({a.src})", sigmoid64, 1)
        if op == "erf":
            return mk(f"tl.erf({a.src})", lambda x: np.vectorize(math.erf)(x.astype(np.float64)) if x.size else x, 1)
        if op in FP8:  # a round trip through fp8: saturate, round to nearest even
            return mk(f"{a.src}.to({DT[op][3]}).to({DT[d][3]})", lambda x: wide(x, op), min(B, FP8_MAX[op]), True)
        if op == "fma":  # x * x + x, rounded once
            return mk(f"tl.fma({a.src}, {a.src}, {a.src})", lambda x: x.astype(np.float64) * x + x, B * B + B)
        raise AssertionError(op)

    def cast(self, a, d):
        if d == a.dtype:
            return a
        if is_float(a.dtype) and is_int(d):
            # Out-of-range float -> int conversions are undefined; near-integers of
            # inexact values may truncate differently: only exact, bounded values.
            if not a.exact or a.bound >= 2**31 or cat(d) == "uint" or DT[d][2] < 32:
                raise Retry()
        if is_float(d) and not fits(a.bound, d):
            raise Retry()
        if is_float(a.dtype) and d == "int1" and not a.exact:
            raise Retry()  # != 0 of an inexact value (e.g. a tiny sigmoid that underflows) is unstable
        if a.dtype == "int1" and is_float(d):
            bound = 1
        elif cat(d) == "uint" and cat(a.dtype) == "int":
            bound = INF  # negative values wrap around
        else:
            bound = a.bound if not is_int(d) else int_bound(a.bound, d)
        if d == "int1":
            return Node(d, a.shape, f"{a.src}.to(tl.int1)", lambda env: cast_np(a.ev(env), a.dtype) != 0, 1, a.exact)
        return Node(d, a.shape, f"{a.src}.to({DT[d][3]})", lambda env: cast_np(a.ev(env), d), bound, a.exact)

    def where(self, depth):
        c = self.condition_tile(depth)
        a, b = self.operands(depth)
        t = self.result_type(a, b)
        try:
            shape = tuple(np.broadcast_shapes(c.shape, self.broadcast(a, b)))
        except ValueError:
            raise Retry() from None
        bound = max(a.bound, b.bound)
        if is_float(t) and not fits(bound, t):
            raise Retry()
        return Node(t, shape, f"tl.where({c.src}, {a.src}, {b.src})",
                    lambda env: np.where(c.ev(env), cast_np(a.ev(env), t), cast_np(b.ev(env), t)),
                    bound if is_float(t) else int_bound(bound, t), a.exact and b.exact)

    def condition_tile(self, depth):
        for _ in range(20):
            c = self.expr(depth - 1)
            if c.dtype == "int1":
                return c
            if not is_float(c.dtype) or c.exact:
                zero = "0.0" if is_float(c.dtype) else "0"
                return Node("int1", c.shape, f"({c.src} > {zero})",
                            lambda env, c=c: cast_np(c.ev(env), c.dtype) > 0, 1, True)
        raise Retry()

    def reduce(self, depth):
        r = self.rng
        a = self.expr(depth - 1)
        if not a.shape or a.shape == (self.tile[0], 1):
            raise Retry()
        axis = r.randrange(len(a.shape))
        keep = r.random() < 0.2
        fn = r.choice(["sum", "sum", "max", "min", "argmax", "argmin"])
        shape = list(a.shape)
        if keep:
            shape[axis] = 1
        else:
            del shape[axis]
        shape = tuple(shape)
        if self.two_d and shape == (1,):
            raise Retry()
        d = a.dtype
        kd = ", keep_dims=True" if keep else ""
        if fn == "sum":
            if d == "int1":
                raise Retry()
            if d in HALF + FP8:  # sums of narrow floats depend on the order
                a = self.cast(a, "fp32")
                d = "fp32"
            t = d
            if is_int(d) and DT[d][2] < 32:  # Triton's sum widens to 32 bits, keeping the sign
                t = "uint32" if cat(d) == "uint" else "int32"
            n = a.shape[axis]
            bound = a.bound * n
            if is_float(t) and not fits(bound, t):
                raise Retry()
            return Node(t, shape, f"tl.sum({a.src}, axis={axis}{kd})",
                        lambda env: np.add.reduce(cast_np(a.ev(env), t), axis=axis, dtype=npt(t), keepdims=keep),
                        bound if is_float(t) else int_bound(bound, t), exact=not is_float(t))
        if fn in ("max", "min"):
            if d == "int1":
                raise Retry()
            f = np.max if fn == "max" else np.min
            t = minmax_dtype(d)
            return Node(t, shape, f"tl.{fn}({a.src}, axis={axis}{kd})",
                        lambda env: cast_np(f(wide(a.ev(env), d), axis=axis, keepdims=keep), t), a.bound, a.exact)
        if not a.exact or d == "int1" or DT[d][2] == 64:
            raise Retry()
        f = np.argmax if fn == "argmax" else np.argmin
        return Node("int32", shape, f"tl.{fn}({a.src}, axis={axis}{kd})",
                    lambda env: cast_np(f(wide(a.ev(env), d), axis=axis, keepdims=keep), "int32"),
                    a.shape[axis], True)

    def dot(self, depth):
        """tl.dot of two tiles converted to bf16, fp16 or fp32: (32, 32) x
        (32, 32), or (16, 32) x trans(16, 32) summed back to (16, 1). Only
        exact operands: a last-bit difference would move a 16-bit rounding."""
        r = self.rng
        d = r.choice(HALF + ("fp32",))
        a, b = (self.coerce(self.expr(depth - 1), d, self.tile) for _ in range(2))
        if a is None or b is None or not (a.exact and b.exact):
            raise Retry()
        K = self.N
        bound = a.bound * b.bound * K
        if bound > 1e4:
            raise Retry()
        if self.tile == (32, 32):
            acc = r.random() < 0.5
            src = f"tl.dot({a.src}, {b.src}{', acc=tl.zeros((32, 32), tl.float32) + 1.0' if acc else ''})"
            return Node("fp32", self.tile, src, lambda env: cast_np(
                wide(a.ev(env), d).astype(np.float64) @ wide(b.ev(env), d) + acc, "fp32"), bound + acc, False)
        src = f"tl.sum(tl.dot({a.src}, tl.trans({b.src})), axis=1)[:, None]"
        return Node("fp32", (self.M, 1), src, lambda env: cast_np(
            (wide(a.ev(env), d).astype(np.float64) @ wide(b.ev(env), d).T).sum(axis=1)[:, None], "fp32"),
            bound * self.M, False)

    def reshape(self, depth):
        """Shape changes that keep the shape the program works with:
        x[:, None], a transposed square tile, a reshape round trip, a trip
        through 3-D tiles, a flip."""
        r = self.rng
        a = self.expr(depth - 1)
        if a.shape and r.random() < 0.3:
            return self.through_3d(a)
        if a.shape and r.random() < 0.2:
            axis = r.randrange(len(a.shape))
            return Node(a.dtype, a.shape, f"tl.flip({a.src}, {axis})",
                        lambda env: np.flip(np.broadcast_to(a.ev(env), a.shape), axis), a.bound, a.exact)
        if self.two_d and a.shape == (self.M,) and r.random() < 0.7:
            return Node(a.dtype, (self.M, 1), f"{a.src}[:, None]", lambda env: a.ev(env)[:, None], a.bound, a.exact)
        if len(a.shape) == 2 and a.shape[0] == a.shape[1] and a.shape[0] > 1:
            if r.random() < 0.5:
                return Node(a.dtype, a.shape, f"tl.trans({a.src})", lambda env: a.ev(env).T, a.bound, a.exact)
            return Node(a.dtype, a.shape, f"{a.src}.T", lambda env: a.ev(env).T, a.bound, a.exact)
        if a.shape and math.prod(a.shape) > 1:
            n = math.prod(a.shape)
            other = (2, n // 2) if len(a.shape) == 1 else (n,)
            shape_src = ", ".join(map(str, a.shape))
            src = f"tl.reshape(tl.reshape({a.src}, {other}), ({shape_src},))"
            return Node(a.dtype, a.shape, src, lambda env: a.ev(env), a.bound, a.exact)
        raise Retry()

    def through_3d(self, a):
        """`a` broadcast along a new middle (2-D) or two new outer axes (1-D)
        and reduced back, or (2-D) split into a 3-D tile, permuted and
        permuted back."""
        r = self.rng
        fn = r.choice(["sum", "max", "min", "permute"])
        if len(a.shape) == 2:
            M, N = a.shape
            if fn == "permute":
                if N < 2:
                    raise Retry()
                src = (f"tl.reshape(tl.permute(tl.permute(tl.reshape({a.src}, ({M}, 2, {N // 2})), (2, 0, 1)), "
                       f"(1, 2, 0)), ({M}, {N}))")
                return Node(a.dtype, a.shape, src, a.ev, a.bound, a.exact)
            copies = r.choice([2, 4])
            wide = f"tl.broadcast_to({{}}[:, None, :], ({M}, {copies}, {N}))"
            reduce = lambda x: f"tl.{fn}({wide.format(x)}, axis=1)"  # noqa: E731
        else:
            if fn == "permute":
                raise Retry()
            (B,) = a.shape
            copies = 4
            wide = f"tl.broadcast_to({{}}[None, :, None], (2, {B}, 2))"
            reduce = lambda x: f"tl.{fn}(tl.{fn}({wide.format(x)}, axis=2), axis=0)"  # noqa: E731
        if a.dtype == "int1":
            raise Retry()
        if fn != "sum":
            t = minmax_dtype(a.dtype)
            return Node(t, a.shape, reduce(a.src), lambda env: cast_np(a.ev(env), t), a.bound, a.exact)
        if a.dtype in HALF + FP8:
            a = self.cast(a, "fp32")
        t = a.dtype
        if is_int(t) and DT[t][2] < 32:
            t = "uint32" if cat(t) == "uint" else "int32"
        bound = a.bound * copies
        if is_float(t) and not fits(bound, t):
            raise Retry()
        # copies of one value add up exactly (a power of two times it)
        return Node(t, a.shape, reduce(a.src), lambda env: cast_np(cast_np(a.ev(env), t) * copies, t),
                    bound if is_float(t) else int_bound(bound, t), a.exact)

    def coerce(self, node, dtype, shape):
        """`node` as exactly (dtype, shape), for a carried or merged variable."""
        if node.dtype != dtype:
            try:
                node = self.cast(node, dtype)
            except Retry:
                return None
        if node.shape != shape:
            try:
                if tuple(np.broadcast_shapes(node.shape, shape)) != shape:
                    return None
            except ValueError:
                return None
            src = f"tl.broadcast_to({node.src}, {shape})"
            node = Node(dtype, shape, src, lambda env, n=node: np.broadcast_to(n.ev(env), shape).copy(),
                        node.bound, node.exact)
        return node

    def value_of(self, dtype, shape, depth):
        for _ in range(30):
            node = self.coerce(self.expr(depth), dtype, shape)
            if node is not None:
                return node
        # (sum widens narrow integers to int32: convert the scalar back)
        src = (f"tl.zeros({list(shape)}, {DT[dtype][3]})" if shape
               else f"tl.zeros([1], {DT[dtype][3]}).sum(axis=0).to({DT[dtype][3]})")
        return Node(dtype, shape, src, lambda env: np.zeros(shape, npt(dtype)), 0, True)

    # ------------------------------------------------------------------
    # Statements.

    def define(self, name, node):
        self.vars[-1].append((name, node))

    def statements(self, count, depth, nest):
        out = []
        for _ in range(count):
            r = self.rng.random()
            if nest > 0 and r < 0.15:
                out.append(self.for_stmt(depth, nest))
            elif nest > 0 and r < 0.25:
                out.append(self.while_stmt(depth, nest))
            elif nest > 0 and r < 0.4:
                out.append(self.if_stmt(depth, nest))
            elif nest > 0 and r < 0.45:
                out.append(self.static_stmt(depth, nest))
            else:
                name = self.fresh()
                node = self.expr(depth)
                if is_float(node.dtype) and node.bound > FLOAT_LIMIT[node.dtype]:
                    continue
                out.append(Assign(name, node))
                self.define(name, node)
        return out

    def carried(self):
        """A new variable, its initial value and the type it must keep."""
        name = self.fresh("acc")
        init = self.expr(2)
        if init.dtype == "int1":
            init = self.cast(init, "int32")
        return name, init

    def update(self, name, init, depth):
        """name = (name op expr) coerced to init's type, with bounded growth."""
        acc = Node(init.dtype, init.shape, name, lambda env: env[name], init.bound, init.exact)
        e = self.value_of(init.dtype, init.shape, depth)
        d = init.dtype
        if is_float(d):
            # a contraction keeps magnitudes bounded across iterations
            src = f"({name} * 0.5 + {e.src})"
            bound = 2 * (init.bound + e.bound)
            node = Node(d, init.shape, src, lambda env: cast_np(cast_np(acc.ev(env) * cast_np(0.5, d), d) + e.ev(env), d),
                        bound, acc.exact and e.exact)
        else:
            op = self.rng.choice(["+", "^", "-"])
            node = Node(d, init.shape, f"({name} {op} {e.src})", lambda env: _binop(op, acc.ev(env), e.ev(env), d),
                        INF, True)
        return node, Node(d, init.shape, name, None, node.bound, node.exact)

    def loop_bounds(self):
        r = self.rng
        return r.choice([("0", "k", None), ("1", "k + 2", None), ("0", "3", None), ("k", "0", "-1"),
                         ("0", "k + 1", "2"), ("pid", "k + pid", None)])

    def for_stmt(self, depth, nest):
        r = self.rng
        name, init = self.carried()
        iv = self.fresh("i")
        lo, hi, step = self.loop_bounds()
        self.loop_vars.append(iv)
        self.vars.append([])
        body = self.statements(r.randint(0, 2), depth, nest - 1)
        update, final = self.update(name, init, depth)
        self.vars.pop()
        self.loop_vars.pop()
        func = r.choice(["range", "tl.range"])
        self.define(name, Node(init.dtype, init.shape, name, None, INF if is_int(init.dtype) else update.bound,
                               update.exact))
        return For(name, init, iv, func, lo, hi, step, body, update)

    def while_stmt(self, depth, nest):
        r = self.rng
        name, init = self.carried()
        j = self.fresh("j")
        self.vars.append([])
        body = self.statements(r.randint(0, 2), depth, nest - 1)
        update, _ = self.update(name, init, depth)
        self.vars.pop()
        extra = None
        if is_int(init.dtype) and r.random() < 0.5:
            limit = r.randint(0 if cat(init.dtype) == "uint" else -50, 50)
            reduce = "tl.max" if init.shape else ""
            extra = (f"{reduce}({name}) != {limit}", lambda env: bool(np.max(env[name]) != limit))
        self.define(name, Node(init.dtype, init.shape, name, None, INF if is_int(init.dtype) else update.bound,
                               update.exact))
        return While(name, init, j, r.choice(["k", "3", "k + 1"]), extra, body, update)

    def scalar_condition(self):
        r = self.rng
        options = [("k > 2", lambda env: env["k"] > 2), ("pid == 0", lambda env: env["pid"] == 0),
                   ("s > 0.5", lambda env: env["s"] > np.float32(0.5)),
                   ("(k % 2 == 0) and (pid < 2)", lambda env: env["k"] % 2 == 0 and env["pid"] < 2),
                   ("not (k < 1) or s < 0.0", lambda env: (not env["k"] < 1) or env["s"] < 0)]
        visible = [(n, v) for scope in self.vars for n, v in scope
                   if v.shape and (is_int(v.dtype) and v.dtype != "int1" or is_float(v.dtype) and v.exact)]
        if visible and r.random() < 0.5:
            name, v = r.choice(visible)
            reduce = r.choice(["max", "min"])
            c = "0.0" if is_float(v.dtype) else "1"
            axis = "" if len(v.shape) == 1 else None
            if axis is None:  # a 2-D tile: reduce one axis, then the other
                src = f"tl.{reduce}(tl.{reduce}({name}, axis=1), axis=0) > {c}"
            else:
                src = f"tl.{reduce}({name}, axis=0) > {c}"
            f = np.max if reduce == "max" else np.min
            return src, lambda env: bool(f(wide(env[name], v.dtype)) > (0.0 if is_float(v.dtype) else 1))
        return r.choice(options)

    def if_stmt(self, depth, nest):
        r = self.rng
        cond = self.scalar_condition()
        merged = []
        for _ in range(r.randint(1, 2)):
            node = self.expr(depth)
            if node.dtype == "int1":
                node = self.cast(node, "int32")
            merged.append((self.fresh(), node.dtype, node.shape))
        branches = []
        has_else = r.random() < 0.8
        for which in range(2 if has_else else 1):
            self.vars.append([])
            body = self.statements(r.randint(0, 1), depth, nest - 1)
            for name, d, shape in merged:
                body.append(Assign(name, self.value_of(d, shape, depth)))
            self.vars.pop()
            branches.append(body)
        pre = []
        if not has_else:  # the variables need a value when the branch is not taken
            for name, d, shape in merged:
                pre.append(Assign(name, self.value_of(d, shape, depth)))
        for name, d, shape in merged:
            self.define(name, Node(d, shape, name, None, INF if is_int(d) else FLOAT_LIMIT[d], False))
        return If(cond, pre, branches[0], branches[1] if has_else else None)

    def static_stmt(self, depth, nest):
        name, init = self.carried()
        q = self.fresh("q")
        update, _ = self.update(name, init, depth)
        self.define(name, Node(init.dtype, init.shape, name, None, INF if is_int(init.dtype) else update.bound,
                               update.exact))
        return Static(name, init, q, self.rng.randint(1, 3), update)


class Retry(Exception):
    """This random choice does not type-check or is out of bounds: pick another."""


def _binop(op, x, y, t):
    x, y = wide(x, t), wide(y, t)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        if op == "+": r = x + y
        elif op == "-": r = x - y
        elif op == "*": r = x * y
        elif op == "/": r = x / y
        elif op == "%":
            if is_float(t):
                r = np.fmod(x, y)
            else:  # C remainder: the sign of the dividend
                q = _trunc_div(x, y, t)
                r = x - q * y
        elif op == "//": r = _trunc_div(x, y, t)
        elif op == "&": r = x & y
        elif op == "|": r = x | y
        elif op == "^": r = x ^ y
        elif op == "<<": r = x << y
        elif op == ">>": r = x >> y
        elif op == "min": r = np.fmin(x, y) if is_float(t) else np.minimum(x, y)
        elif op == "max": r = np.fmax(x, y) if is_float(t) else np.maximum(x, y)
        else: raise AssertionError(op)
    return cast_np(r, t)


def _trunc_div(x, y, t):
    q = x // y  # floor; y > 0 here
    fix = (x % y != 0) & (x < 0) if cat(t) == "int" else np.zeros_like(x, bool)
    return cast_np(q + fix.astype(npt(t)), t)


def _cmp(pred, x, y, t):
    x, y = wide(x, t), wide(y, t)
    return {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal,
            "==": np.equal, "!=": np.not_equal}[pred](x, y)


# --------------------------------------------------------------------------
# Statements: emit source, run the reference.

class Assign:
    def __init__(self, name, node):
        self.name, self.node = name, node

    def emit(self, out, ind):
        out.append(f"{ind}{self.name} = {self.node.src}")

    def run(self, env):
        env[self.name] = self.node.ev(env)


class For:
    def __init__(self, name, init, iv, func, lo, hi, step, body, update):
        self.__dict__.update(locals())

    def emit(self, out, ind):
        out.append(f"{ind}{self.name} = {self.init.src}")
        step = f", {self.step}" if self.step else ""
        out.append(f"{ind}for {self.iv} in {self.func}({self.lo}, {self.hi}{step}):")
        for s in self.body:
            s.emit(out, ind + "    ")
        out.append(f"{ind}    {self.name} = {self.update.src}")

    def run(self, env):
        env[self.name] = cast_np(self.init.ev(env), self.init.dtype)
        lo, hi = (int(eval(e, {}, {"k": int(env["k"]), "pid": int(env["pid"])})) for e in (self.lo, self.hi))
        for i in range(lo, hi, int(self.step or 1)):
            env[self.iv] = np.int32(i)
            for s in self.body:
                s.run(env)
            env[self.name] = cast_np(self.update.ev(env), self.init.dtype)


class While:
    def __init__(self, name, init, j, bound, extra, body, update):
        self.__dict__.update(locals())

    def emit(self, out, ind):
        out.append(f"{ind}{self.name} = {self.init.src}")
        out.append(f"{ind}{self.j} = 0")
        cond = f"{self.j} < {self.bound}" + (f" and {self.extra[0]}" if self.extra else "")
        out.append(f"{ind}while {cond}:")
        for s in self.body:
            s.emit(out, ind + "    ")
        out.append(f"{ind}    {self.name} = {self.update.src}")
        out.append(f"{ind}    {self.j} += 1")

    def run(self, env):
        env[self.name] = cast_np(self.init.ev(env), self.init.dtype)
        bound = int(eval(self.bound, {}, {"k": int(env["k"])}))
        j = 0
        while j < bound and (self.extra is None or self.extra[1](env)):
            for s in self.body:
                s.run(env)
            env[self.name] = cast_np(self.update.ev(env), self.init.dtype)
            j += 1


class If:
    def __init__(self, cond, pre, then, orelse):
        self.__dict__.update(locals())

    def emit(self, out, ind):
        for s in self.pre:
            s.emit(out, ind)
        out.append(f"{ind}if {self.cond[0]}:")
        for s in self.then:
            s.emit(out, ind + "    ")
        if self.orelse is not None:
            out.append(f"{ind}else:")
            for s in self.orelse:
                s.emit(out, ind + "    ")

    def run(self, env):
        for s in self.pre:
            s.run(env)
        branch = self.then if self.cond[1](env) else (self.orelse or [])
        for s in branch:
            s.run(env)


class Static:
    def __init__(self, name, init, q, count, update):
        self.__dict__.update(locals())

    def emit(self, out, ind):
        out.append(f"{ind}{self.name} = {self.init.src}")
        out.append(f"{ind}for {self.q} in tl.static_range({self.count}):")
        out.append(f"{ind}    {self.name} = {self.update.src}")

    def run(self, env):
        env[self.name] = cast_np(self.init.ev(env), self.init.dtype)
        for _ in range(self.count):
            env[self.name] = cast_np(self.update.ev(env), self.init.dtype)


# --------------------------------------------------------------------------
# A whole program.

class Program:
    def __init__(self, seed):
        g = self.gen = Gen(seed)
        r = g.rng
        self.seed = seed
        self.body = g.statements(r.randint(2, 6), r.randint(1, 3), 2)
        visible = [n for scope in g.vars for n in scope]
        # The tile output: a visible variable (or a new expression), as its own dtype.
        tiles = [(n, v) for n, v in visible if v.shape]
        if tiles and r.random() < 0.8:
            name, v = r.choice(tiles)
            self.out = Node(v.dtype, v.shape, name, lambda env, name=name: env[name])
        else:
            self.out = g.expr(2)
        if self.out.dtype == "int1":
            self.out = g.cast(self.out, "int32")
        self.out = g.coerce(self.out, self.out.dtype, g.tile) or g.value_of("fp32", g.tile, 1)
        # A scalar output per program: a reduction of another variable.
        self.red = None
        cands = [(n, v) for n, v in visible if v.shape and v.dtype != "int1"]
        if cands:
            name, v = r.choice(cands)
            fn = r.choice(["max", "min", "sum"])
            d = v.dtype
            if fn == "sum" and (is_float(d) or DT[d][2] < 32):
                d = "fp64" if is_float(d) else "int64"
            red_dtype = d if fn == "sum" else minmax_dtype(d)
            src = f"{name}.to({DT[d][3]})" if d != v.dtype else name
            if len(v.shape) == 2:
                src = f"tl.{fn}(tl.{fn}({src}, axis=1), axis=0)"
            else:
                src = f"tl.{fn}({src}, axis=0)"
            f = {"max": np.max, "min": np.min, "sum": lambda x: np.add.reduce(x.ravel(), dtype=x.dtype)}[fn]
            self.red = Node(red_dtype, (), src,
                            lambda env, name=name, d=d, f=f, t=red_dtype: cast_np(f(wide(env[name], d)), t),
                            exact=not (fn == "sum" and is_float(d)))

    def source(self, kernel_name):
        g = self.gen
        ins = ", ".join(f"in{j}_ptr" for j in range(len(g.inputs)))
        lines = ["import rocktile", "import rocktile.language as tl", "", "",
                 # k and s are used as runtime scalars (k.to(...)); n and
                 # ncols may be specialized when 1, as Triton does.
                 '@rocktile.jit(do_not_specialize=["k", "s"])',
                 f"def {kernel_name}({ins}, out_ptr, red_ptr, n, ncols, k, s, BLOCK: tl.constexpr):"]
        ind = "    "
        lines.append(f"{ind}pid = tl.program_id(0)")
        if g.two_d:
            lines.append(f"{ind}rows = pid * {g.M} + tl.arange(0, {g.M})")
            lines.append(f"{ind}cols = tl.arange(0, {g.N})")
            lines.append(f"{ind}idx = rows[:, None] * {g.N} + cols[None, :]")
            lines.append(f"{ind}mask = (rows[:, None] < n) & (cols[None, :] < ncols)")
        else:
            lines.append(f"{ind}offs = pid * BLOCK + tl.arange(0, BLOCK)")
            lines.append(f"{ind}idx = offs")
            lines.append(f"{ind}mask = offs < n")
        for j, d in enumerate(g.inputs):
            other = "0.0" if is_float(d) else "0"
            lines.append(f"{ind}x{j} = tl.load(in{j}_ptr + idx, mask=mask, other={other})")
        for s in self.body:
            s.emit(lines, ind)
        lines.append(f"{ind}tl.store(out_ptr + idx, {self.out.src}, mask=mask)")
        if self.red is not None:
            lines.append(f"{ind}tl.store(red_ptr + pid, {self.red.src})")
        return "\n".join(lines) + "\n"

    def arguments(self):
        g = self.gen
        rng = np.random.default_rng(self.seed)
        if g.two_d:
            rows_total, cols = g.programs * g.M, g.N
            shape = (rows_total, cols)
            n = int(rng.integers(max(0, rows_total - g.M), rows_total + 1))
            ncols = int(rng.integers(1, cols + 1))
        else:
            shape = (g.programs * g.B,)
            n = int(rng.integers(max(0, shape[0] - g.B), shape[0] + 1))
            ncols = 0
        ins = []
        for d in g.inputs:
            if is_float(d):
                ins.append((rng.standard_normal(shape) * 1.5).clip(-3, 3).astype(npt(d)))
            elif cat(d) == "uint":
                ins.append(rng.integers(0, 200, shape).astype(npt(d)))
            else:
                ins.append(rng.integers(-100, 100, shape).astype(npt(d)))
        k = int(rng.integers(0, 5))
        s = float(np.float32(rng.uniform(-2, 2)))
        return ins, shape, n, ncols, k, s

    def reference(self, ins, shape, n, ncols, k, s):
        g = self.gen
        out = np.full(shape, _sentinel(self.out.dtype), npt(self.out.dtype))
        red = np.full(g.programs, _sentinel(self.red.dtype) if self.red else 0,
                      npt(self.red.dtype) if self.red else np.int32)
        for pid in range(g.programs):
            env = {"pid": np.int32(pid), "k": np.int32(k), "s": np.float32(s)}
            if g.two_d:
                rows = (pid * g.M + np.arange(g.M)).astype(np.int32)
                cols = np.arange(g.N, dtype=np.int32)
                env.update(rows=rows, cols=cols)
                mask = (rows[:, None] < n) & (cols[None, :] < ncols)
                for j, x in enumerate(ins):
                    block = np.zeros((g.M, g.N), x.dtype)
                    valid = x[pid * g.M:(pid + 1) * g.M]
                    block[:valid.shape[0]] = valid
                    env[f"x{j}"] = np.where(mask, block, 0).astype(x.dtype)
                region = (slice(pid * g.M, (pid + 1) * g.M),)
            else:
                offs = (pid * g.B + np.arange(g.B)).astype(np.int32)
                env["offs"] = offs
                mask = offs < n
                for j, x in enumerate(ins):
                    env[f"x{j}"] = np.where(mask, x[pid * g.B:(pid + 1) * g.B], 0).astype(x.dtype)
                region = (slice(pid * g.B, (pid + 1) * g.B),)
            for st in self.body:
                st.run(env)
            value = cast_np(np.broadcast_to(self.out.ev(env), g.tile), self.out.dtype)
            block = out[region]
            block[mask] = value[mask]
            if self.red is not None:
                red[pid] = cast_np(self.red.ev(env), self.red.dtype)
        return out, red


def _sentinel(d):
    return 7 if cat(d) == "uint" else -7


def make_program(seed):
    return Program(seed)


# --------------------------------------------------------------------------
# Running a case.

def _load_kernel(path, name):
    spec = importlib.util.spec_from_file_location(f"rocktile_fuzz_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def program_tolerance(program, source):
    """The tolerance of the least precise float type the program computes in
    (its inputs, its conversions, fp32 for Python floats and `s`)."""
    used = {d for d in program.gen.inputs if is_float(d)} | {"fp32"}
    used |= {name for name, (_, _, _, tl_name) in DT.items() if is_float(name) and tl_name in source}
    return max(TOL[d] for d in used)


def compare(got, want, dtype, tol=None):
    if is_float(dtype):
        tol = tol or TOL[dtype]
        finite = np.abs(want[np.isfinite(want)].astype(np.float64))
        scale = max(1.0, float(finite.max()) if finite.size else 1.0)
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=tol, atol=tol * scale)
    else:
        np.testing.assert_array_equal(got, want)


def describe_case(kind, seed):
    program = make_program(seed)
    return program.source(f"fuzz_{seed}")


def run_case(kind, seed, workdir):
    """None if the kernel compiled and matched numpy on both targets, else (what, detail)."""
    import rocktile

    program = make_program(seed)
    name = f"fuzz_{seed}"
    path = os.path.join(workdir, f"{name}.py")
    source = program.source(name)
    with open(path, "w") as f:
        f.write(source)
    kernel = _load_kernel(path, name)
    tol = program_tolerance(program, source)
    ins, shape, n, ncols, k, s = program.arguments()
    want_out, want_red = program.reference(ins, shape, n, ncols, k, s)
    g = program.gen
    block = g.B if not g.two_d else g.M
    for target in TARGETS:
        out = np.full(shape, _sentinel(program.out.dtype), npt(program.out.dtype))
        red = np.full(g.programs, _sentinel(program.red.dtype) if program.red else 0,
                      npt(program.red.dtype) if program.red else np.int32)
        try:
            kernel[(g.programs,)](*ins, out, red, n, ncols, k, s, BLOCK=block, target=target,
                                  num_warps=g.num_warps)
        except rocktile.CompilationError as e:
            return ("error", f"{target}: a well-typed kernel failed to compile ({path}):\n{e}")
        except rocktile.EmulatorError as e:
            return ("error", f"{target}: emulator fault ({path}):\n{e}")
        try:
            compare(out, want_out, program.out.dtype, tol)
            if program.red is not None:
                compare(red, want_red, program.red.dtype, tol)
        except AssertionError as e:
            return ("mismatch", f"{target}: results differ from numpy ({path}):\n{str(e)[:1500]}")
    return None
