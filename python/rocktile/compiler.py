"""Compiling without launching: `rocktile.compile`, kernel signatures and
specializations (the compiled result is a rocktile.kernel.CompiledKernel)."""
from __future__ import annotations

import struct
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from . import buffers
from .language import core

__all__ = ["compile", "ArgSpec", "Specialization", "trace_ir"]

DEFAULT_TARGET = "gfx950"

# Signature spellings, as in Triton: i32, fp16, ... and *fp32 for pointers.
_SIGNATURE_TYPES = {
    "i1": core.int1, "i8": core.int8, "i16": core.int16, "i32": core.int32, "i64": core.int64,
    "u8": core.uint8, "u16": core.uint16, "u32": core.uint32, "u64": core.uint64,
    "fp16": core.float16, "bf16": core.bfloat16, "fp32": core.float32, "fp64": core.float64,
    "fp8e4nv": core.float8e4nv, "fp8e5": core.float8e5,
}
_SIGNATURE_NAME = {ty: name for name, ty in _SIGNATURE_TYPES.items()}
# numpy / torch dtype names -> signature spelling.
_ARRAY_DTYPES = {
    "bool": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "float16": "fp16", "bfloat16": "bf16", "float32": "fp32", "float64": "fp64",
    "float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5",  # ml_dtypes and torch
}


def load_C():
    """The C++ compiler module, with a clear message when it is not built."""
    try:
        from . import _C
    except ImportError as e:
        raise ImportError("rocktile._C, the C++ part of rocktile, is not built or cannot be loaded "
                          f"({e}); build it with CMake as the README says") from e
    return _C


@dataclass(frozen=True)
class ArgSpec:
    """One runtime argument of a specialized kernel."""

    name: str
    type: core.dtype  # a scalar dtype or a pointer_type
    divisible_by_16: bool = False  # pointer: 16-byte aligned; integer: value % 16 == 0
    range32: bool = False  # pointer: into a buffer of less than 2 GiB (Triton's tt.pointer_range = 32)

    def __str__(self):
        ty = self.type
        text = "*" + _SIGNATURE_NAME[ty.element_ty] if ty.is_ptr() else _SIGNATURE_NAME[ty]
        return text + (":16" if self.divisible_by_16 else "") + (":range32" if self.range32 else "")

    @property
    def mlir_attrs(self) -> str:
        attrs = ["tile.divisibility = 16 : i32"] * self.divisible_by_16 + ["tile.pointer_range = 32 : i32"] * self.range32
        return "{" + ", ".join(attrs) + "}"


@dataclass(frozen=True)
class Specialization:
    """Everything a compiled variant depends on; the key of JITFunction.cache."""

    args: tuple  # of ArgSpec, in parameter order
    constexprs: tuple  # of (name, value), in parameter order
    target: str
    num_warps: int
    options: tuple = ()  # of (name, value): the code generation options not at their defaults

    @property
    def signature(self) -> dict:
        return {a.name: str(a) for a in self.args}


def parse_arg_type(text, name):
    """'*fp32:16:range32' -> (pointer_type(float32), True, True)."""
    if not isinstance(text, str):
        raise ValueError(f"the signature type of '{name}' must be a string such as '*fp32' or 'i32', got {text!r}")
    base, *suffixes = [part.strip() for part in text.strip().split(":")]
    is_ptr = base.startswith("*")
    scalar = _SIGNATURE_TYPES.get(base[1:].strip() if is_ptr else base)
    if scalar is None:
        choices = ", ".join(["*" + n for n in _SIGNATURE_TYPES] + list(_SIGNATURE_TYPES))
        raise ValueError(f"invalid signature type {text!r} for '{name}': expected one of {choices}, "
                         "optionally followed by ':16' (and for pointers ':range32'), or 'constexpr'")
    if scalar.is_fp8() and not is_ptr:
        raise ValueError(f"invalid signature type {text!r} for '{name}': fp8 values can be passed only "
                         "in arrays (pointers); pass a scalar as 'fp32' and convert it in the kernel")
    unknown = [x for x in suffixes if x not in ("16", "range32")]
    if unknown or len(set(suffixes)) != len(suffixes):
        raise ValueError(f"invalid signature type {text!r} for '{name}': the suffixes are ':16' (divisibility) "
                         "and, for pointers, ':range32' (a buffer of less than 2 GiB)")
    if "16" in suffixes and not is_ptr and not scalar.is_int():
        raise ValueError(f"invalid signature type {text!r} for '{name}': ':16' applies to pointers and integers only")
    if "range32" in suffixes and not is_ptr:
        raise ValueError(f"invalid signature type {text!r} for '{name}': ':range32' applies to pointers only")
    return (core.pointer_type(scalar) if is_ptr else scalar), "16" in suffixes, "range32" in suffixes


def array_dtype(dtype_name, name) -> core.dtype:
    """The tl dtype of an array's elements, by their numpy/torch name."""
    if dtype_name not in _ARRAY_DTYPES:
        raise TypeError(f"kernel argument '{name}' has dtype {dtype_name}, which rocktile does not support")
    return _SIGNATURE_TYPES[_ARRAY_DTYPES[dtype_name]]


def is_int_one(value) -> bool:
    """An int (not a bool) equal to 1: launches specialize it as a constexpr."""
    if isinstance(value, np.integer):
        value = value.item()
    return isinstance(value, int) and not isinstance(value, bool) and value == 1


def signature_of_value(value, name, specialize=True) -> str:
    """The signature type of a runtime argument: arrays/tensors become
    pointers (16-byte aligned -> ':16'), ints i32 (i64 if too large; ':16'
    if divisible by 16), floats fp32 (numpy.float64 is a float), other numpy
    float scalars their own type, bools i1."""
    suffix = lambda ok: ":16" if specialize and ok else ""  # noqa: E731
    if isinstance(value, float):  # numpy.float64 too, as in Triton: fp64 needs a tensor
        return "fp32"
    if isinstance(value, np.generic):
        if isinstance(value, np.floating):
            return _ARRAY_DTYPES[value.dtype.name]
        value = value.item()
    if isinstance(value, bool):
        return "i1"
    if isinstance(value, int):
        if not -2**63 <= value < 2**64:
            raise OverflowError(f"integer argument '{name}' = {value} does not fit in 64 bits (int64 or uint64)")
        ty = "i32" if -2**31 <= value < 2**31 else "i64" if -2**63 <= value < 2**63 else "u64"
        return ty + suffix(value % 16 == 0)
    reinterpreted = value.dtype if isinstance(value, buffers.TensorWrapper) else None
    if not buffers.is_pointer_value(value):
        raise TypeError(f"cannot pass {type(value).__name__} as kernel argument '{name}': expected a numpy "
                        "array, a torch tensor, an object with __dlpack__, an int, a float or a bool")
    buffer = buffers.describe(value, name)
    # As Triton on AMD: a buffer under 2 GiB is specialized so (its masked
    # loads become buffer loads, which need no branches). A kernel may reach
    # the rest of the allocation after the argument.
    small = ":range32" if specialize and buffer.elements * buffer.itemsize < 2**31 else ""
    if reinterpreted is not None:
        return "*" + _SIGNATURE_NAME[reinterpreted] + suffix(buffer.address % 16 == 0) + small
    array_dtype(buffer.dtype, name)
    return "*" + _ARRAY_DTYPES[buffer.dtype] + suffix(buffer.address % 16 == 0) + small


def check_target(target):
    targets = list(load_C().targets())
    if target not in targets:
        raise ValueError(f"unknown target {target!r}: expected one of {', '.join(targets)}")


# Options a launch, warmup() or a Config's kwargs may give beside num_warps
# and target, as for Triton's AMD backend (num_stages also fills a kernel
# parameter of that name). These change the code (and so are part of the
# specialization); each is an attribute of the kernel function (name ->
# (attribute, default)):
CODEGEN_OPTIONS = {
    # the waves per SIMD the register allocation aims for (LLVM's
    # amdgpu-waves-per-eu); 0: no aim
    "waves_per_eu": ("rocdl.waves_per_eu", 0),
    # 16 or 32: tl.dot uses matrix instructions of that M and N where the
    # target has one for the dtypes (gfx1250's WMMA are all 16); 0: rocktile chooses
    "matrix_instr_nonkdim": ("tile.matrix_instr_nonkdim", 0),
    # the stages of the software pipeline of a loop's block copies (tensor
    # descriptors on gfx1250): N - 1 iterations' copies in flight; 1: none.
    # 2 by default, as Triton's AMD backend; tl.range(num_stages=) per loop
    "num_stages": ("tile.num_stages", 2),
    # 1 (True, Triton's default): each fp32/fp64 sum of a product is one
    # fma, rounded once (tile-fuse-multiply-add); 0 (False): never
    "enable_fp_fusion": ("tile.fp_fusion", 1),
}
# These are accepted and change nothing, each for its reason:
IGNORED_OPTIONS = {
    "kpack": "Triton itself uses kpack=1 on gfx950 (it deprecates 2 there) and has no kpack on gfx1250",
    "extern_libs": "no bitcode library is linked: libdevice's functions are rocktile's own (tl.extra.libdevice)",
    "num_ctas": "AMD GPUs have no CTA clusters: only 1 is accepted",
    "launch_pdl": "programmatic dependent launch is NVIDIA's",
    "maxnreg": "a register cap is NVIDIA's (waves_per_eu is AMD's occupancy hint)",
    "instruction_sched_variant": "LLVM's default instruction schedule is used",
    "schedule_hint": "LLVM's default instruction schedule is used",
    "allow_flush_denorm": "fp32 denormals are kept: the option permits flushing them, it requires nothing (the "
                          "flash-attention example's code is the same either way)",
}


def split_options(kwargs, params=()):
    """(codegen options as check_options gives them, the other kwargs): the
    options in `kwargs` that are not among `params` (a kernel's parameters
    come first), checked; other names stay in the rest."""
    options, rest = {}, {}
    for name, value in kwargs.items():
        if name in params or (name not in CODEGEN_OPTIONS and name not in IGNORED_OPTIONS):
            rest[name] = value
        elif name == "num_ctas" and value != 1:
            raise ValueError(f"num_ctas={value!r}: AMD GPUs have no CTA clusters, so num_ctas must be 1")
        elif name in CODEGEN_OPTIONS:
            options[name] = value
    return check_options(options), rest


def check_options(options):
    """`options` (name -> value) as a Specialization holds them."""
    options = dict(options)
    for name, value in options.items():
        if name not in CODEGEN_OPTIONS:
            raise ValueError(f"unknown option {name!r}; the options are {', '.join(CODEGEN_OPTIONS)}")
        if name == "enable_fp_fusion":
            if value not in (True, False):
                raise ValueError(f"enable_fp_fusion must be True or False, got {value!r}")
            options[name] = int(value)
        elif not isinstance(value, int) or isinstance(value, bool):
            raise ValueError(f"{name} must be an int, got {value!r}")
    if options.get("matrix_instr_nonkdim", 0) not in (0, 16, 32):
        raise ValueError(f"matrix_instr_nonkdim must be 0, 16 or 32, got {options['matrix_instr_nonkdim']!r}")
    if not 1 <= options.get("num_stages", 2) <= 8:
        raise ValueError(f"num_stages must be between 1 (no pipelining) and 8, got {options['num_stages']!r}")
    if not 0 <= options.get("waves_per_eu", 0) <= 16:
        raise ValueError(f"waves_per_eu must be between 0 (no hint) and 16, got {options['waves_per_eu']!r}")
    return tuple(sorted((k, v) for k, v in options.items() if v != CODEGEN_OPTIONS[k][1]))


class OptionError(ValueError, AssertionError):
    """A bad launch or compile option: a ValueError, and the AssertionError
    Triton raises for it (its option checks are asserts), so that code (and
    Triton's own tests) catching either catches it."""


def check_num_warps(num_warps):
    if not isinstance(num_warps, int) or isinstance(num_warps, bool) or num_warps < 1 or num_warps & (num_warps - 1):
        raise OptionError(f"num_warps must be a power of 2 (1, 2, 4, ...), got {num_warps!r}")


class _ExactFloat(float):
    """A float constexpr compared by its bits as a cache key: -0.0 and 0.0
    compile differently, and a NaN is equal to itself."""

    def __eq__(self, other):
        return isinstance(other, float) and struct.pack("<d", self) == struct.pack("<d", other)

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(struct.pack("<d", self))


def _freeze(value, name):
    value = core._unwrap(value)
    if isinstance(value, list):
        value = tuple(value)
    if type(value) is float:
        value = _ExactFloat(value)
    try:
        hash(value)
    except TypeError:
        raise TypeError(f"the constexpr value of '{name}' must be hashable, got {type(value).__name__}") from None
    return value


def make_specialization(fn, types: Mapping, constexprs: Mapping, target, num_warps, options=()) -> Specialization:
    """Check `types` (parameter -> signature string or 'constexpr') and
    `constexprs` (parameter -> value) against fn's parameters; `options` is
    what check_options gives."""
    names = fn.arg_names
    kernel = f"{fn.__name__}({', '.join(names)})"
    for what, given in (("signature", types), ("constexprs", constexprs)):
        unknown = [n for n in given if n not in names]
        if unknown:
            raise ValueError(f"{what} names {', '.join(map(repr, unknown))}, which "
                             f"{'is not a parameter' if len(unknown) == 1 else 'are not parameters'} of {kernel}")
    check_target(target)
    check_num_warps(num_warps)
    args, values, missing, missing_values = [], [], [], []
    for name in names:
        ty = types.get(name)
        is_constexpr = name in fn.constexpr_names or ty == "constexpr" or (name in constexprs and ty is None)
        if not is_constexpr:
            if name in constexprs:
                raise ValueError(f"'{name}' has the type {ty!r} in the signature and a value in constexprs; give only one")
            if ty is None:
                missing.append(name)
            else:
                args.append(ArgSpec(name, *parse_arg_type(ty, name)))
            continue
        if ty not in (None, "constexpr"):
            raise ValueError(f"'{name}' is a tl.constexpr parameter of {kernel}: give its value in "
                             f"constexprs= (and 'constexpr' or nothing in the signature), not the type {ty!r}")
        if name in constexprs:
            values.append((name, _freeze(constexprs[name], name)))
        elif name in fn.defaults:
            values.append((name, _freeze(fn.defaults[name], name)))
        else:
            missing_values.append(name)
    if missing:
        raise ValueError(f"the signature of {kernel} has no type for {', '.join(map(repr, missing))}")
    if missing_values:
        raise ValueError(f"no value for the constexpr parameter(s) {', '.join(map(repr, missing_values))} "
                         f"of {kernel}: pass them in constexprs=")
    return Specialization(tuple(args), tuple(values), target, num_warps, tuple(options))


def compile(fn, signature, constexprs=None, target=DEFAULT_TARGET, num_warps=4, **options):
    """Compile a @rocktile.jit kernel without launching it.

    signature: parameter name -> type, spelled as in Triton:
        pointers  '*fp32' '*fp16' '*bf16' '*fp64' '*fp8e4nv' '*fp8e5' '*i1' '*i8' ... '*i64' '*u8' ... '*u64'
        scalars   'i1' 'i8' 'i16' 'i32' 'i64' 'u8' ... 'u64' 'fp16' 'bf16' 'fp32' 'fp64'
        'constexpr' for a parameter whose value is given in `constexprs`.
      A ':16' suffix states divisibility the compiler may rely on:
      '*fp32:16' is a pointer aligned to 16 bytes, 'i32:16' an integer
      divisible by 16; ':range32' a pointer into a buffer of less than
      2 GiB (Triton's tt.pointer_range = 32: masked loads become buffer
      loads).  Without them nothing is assumed.
    constexprs: tl.constexpr parameter -> value (defaults of the Python
      function are used for those not given).
    target: 'gfx950' or 'gfx1250'.  num_warps: waves per workgroup.
    options: waves_per_eu, matrix_instr_nonkdim (CODEGEN_OPTIONS), and the
      Triton options accepted without effect (IGNORED_OPTIONS).

    Returns a CompiledKernel.  Variants are memoized on fn.cache.
    """
    if not hasattr(fn, "compile_specialization"):
        raise TypeError(f"rocktile.compile expects a @rocktile.jit function, got {fn!r}")
    if not isinstance(signature, Mapping):
        raise TypeError("signature must be a dict of parameter name -> type string, e.g. "
                        "{'x_ptr': '*fp32:16', 'n': 'i32'}")
    codegen, unknown = split_options(options)
    if unknown:
        raise TypeError(f"rocktile.compile got unknown option(s) {', '.join(map(repr, unknown))}; the options "
                        f"are {', '.join([*CODEGEN_OPTIONS, *IGNORED_OPTIONS])}")
    spec = make_specialization(fn, signature, constexprs or {}, target, num_warps, codegen)
    return fn.compile_specialization(spec)


def trace_ir(fn, signature, constexprs=None, debug_info=False) -> str:
    """The tile-dialect MLIR that the front end builds for this
    specialization, before any compiler pass (for tests and debugging)."""
    spec = make_specialization(fn, signature, constexprs or {}, DEFAULT_TARGET, 4)
    module, _ = fn.trace(spec)
    return module.to_string(debug_info)
