"""@rocktile.jit: tracing a Python kernel into the tile dialect, with
specialization and an in-process cache of compiled variants."""
from __future__ import annotations

import functools
import hashlib
import inspect
import textwrap
import types
import warnings

from . import cache, compiler, rewrite
from .compiler import Specialization
from .kernel import CompiledKernel
from .errors import (CompilationError, CompilationWarning, definition_position, error_from_compile_error,
                     error_from_exception)
from .language import control, core, semantic
from .launcher import Launcher

__all__ = ["jit", "JITFunction"]

# A kernel parameter named num_stages gets this when the launch gives none
# (Triton's AMD default).
DEFAULT_NUM_STAGES = 2

# The code objects of all @jit functions: ops get the location of the
# innermost frame running one of them, and errors are reported there.
_KERNEL_CODES: set = set()


class _UnstableText(Exception):
    """A value whose text differs between processes (it holds an address)."""


def _stable_repr(value) -> str:
    text = repr(value)
    if " at 0x" in text:
        raise _UnstableText(text)
    return text


class JITFunction(semantic.KernelFunction):
    """A kernel written in rocktile.language.

    kernel.warmup(*args, target=..., num_warps=..., **constexprs) and
    kernel.compile(signature, constexprs, target, num_warps) compile it;
    compiled variants are kept in `kernel.cache`, keyed by Specialization.
    Called from another @jit function while tracing, it is inlined."""

    # Whether the kernel is written at the explicit level (rocktile.gluon),
    # every tile with its layout.
    explicit = False

    def __init__(self, fn, do_not_specialize=()):
        if not inspect.isfunction(fn):
            raise TypeError(f"@rocktile.jit decorates Python functions, got {fn!r}")
        self.fn = fn
        functools.update_wrapper(self, fn)
        self.signature = inspect.signature(fn)
        params = list(self.signature.parameters.values())
        for p in params:
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise TypeError(f"@rocktile.jit function {fn.__name__} cannot take *{p.name}: "
                                "kernel parameters must be named")
        self.arg_names = [p.name for p in params]
        self.constexpr_names = frozenset(p.name for p in params if core._is_constexpr_annotation(p.annotation))
        self.defaults = {p.name: p.default for p in params if p.default is not p.empty}
        self.do_not_specialize = frozenset(
            self.arg_names[d] if isinstance(d, int) else d for d in do_not_specialize or ())
        self.cache: dict[Specialization, CompiledKernel] = {}
        self._traced_fn = None
        self._fast = None
        self.repr = None
        _KERNEL_CODES.add(fn.__code__)

    def __repr__(self):
        return f"JITFunction({self.fn.__module__}:{self.fn.__qualname__})"

    @property
    def src(self) -> str:
        """The function's source text, as Triton's JITFunction.src."""
        return textwrap.dedent(inspect.getsource(self.fn))

    def __call__(self, *args, **kwargs):
        if semantic.is_tracing():
            return self.traced_fn(*args, **kwargs)  # a @jit function called from a kernel: inline it
        raise RuntimeError(f"{self.__name__} is a rocktile kernel: launch it as {self.__name__}[grid](...), "
                           "or compile it with .warmup(...) / .compile(...)")

    def __getitem__(self, grid):
        """`kernel[grid](*args)` launches (in the emulator when there is no GPU)."""
        fast = self._fast
        if fast is None:
            fast = self.fast_launcher()
        return fast[grid] if fast else Launcher(self, grid)

    def fast_launcher(self):
        """The device path's launch fast path for this kernel (rocktile._launch):
        `fast_launcher()[grid]` is `kernel[grid]`, which launches in C++ what
        it can and through Launcher the rest. None for kernels it does not
        take: parameters that are keyword-only, variadic, or named num_warps
        or num_stages (filled from the options)."""
        if self._fast is None:
            from . import _launch
            params = list(self.signature.parameters.values())
            if any(p.kind != p.POSITIONAL_OR_KEYWORD or p.name in ("num_warps", "num_stages") for p in params):
                self._fast = False
            else:
                missing = inspect.Parameter.empty
                self._fast = _launch.FastLauncher(
                    tuple(self.arg_names), tuple(n in self.constexpr_names for n in self.arg_names),
                    tuple(n in self.do_not_specialize for n in self.arg_names),
                    tuple(p.default for p in params), missing,
                    lambda grid, args, kwargs: Launcher(self, grid)(*args, **(kwargs or {})))
        return self._fast or None

    def run(self, *args, grid, warmup=False, **kwargs):
        """What `kernel[grid](...)` does, as Triton's JITFunction.run (which
        autotuners and heuristics call): launch, or with `warmup` compile."""
        if warmup:
            return self.warmup(*args, grid=grid, **kwargs)
        return self[grid](*args, **kwargs)

    # ------------------------------------------------------------------
    # Entry points.

    def warmup(self, *args, target=compiler.DEFAULT_TARGET, num_warps=4, num_stages=None, grid=None,
               **kwargs) -> CompiledKernel:
        """Compile for the given arguments, as a launch with them would
        (`grid` is accepted for Triton compatibility and not used)."""
        return self.compile_specialization(self.specialize(*args, target=target, num_warps=num_warps,
                                                           num_stages=num_stages, **kwargs))

    def specialize(self, *args, target=compiler.DEFAULT_TARGET, num_warps=4, num_stages=None,
                   **kwargs) -> Specialization:
        """The specialization a launch with these arguments compiles. Options
        (compiler.CODEGEN_OPTIONS, IGNORED_OPTIONS) may be among `kwargs`, as
        in a Config's kwargs; a parameter named num_warps or num_stages gets the
        launch's value, as in Triton."""
        options, kwargs = self.split_launch_kwargs(args, kwargs, num_warps, num_stages)
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.__name__}.warmup: {e}") from None
        return self.specialize_bound(bound.arguments, target, num_warps, options)

    def specialize_bound(self, arguments, target, num_warps, options) -> Specialization:
        """The specialization for bound `arguments` (parameter -> value) and
        the options split_launch_kwargs gives."""
        types, constexprs = {}, {}
        for name, value in arguments.items():
            specialize = name not in self.do_not_specialize
            if name in self.constexpr_names:
                constexprs[name] = value
            elif value is None:
                # As Triton: None is a constexpr (`if bias_ptr is not None:` folds).
                types[name], constexprs[name] = "constexpr", None
            elif specialize and compiler.is_int_one(value):
                # As Triton: an integer argument equal to 1 (a unit stride)
                # is compiled in as a constant, so `offs * stride` is `offs`.
                types[name], constexprs[name] = "constexpr", 1
            else:
                types[name] = compiler.signature_of_value(value, name, specialize)
        return compiler.make_specialization(self, types, constexprs, target, num_warps, options)

    def split_launch_kwargs(self, args, kwargs, num_warps, num_stages):
        """(options, kwargs): the code generation options among a launch's
        `kwargs` (checked), and the kernel's keyword arguments, where a
        parameter named num_warps or num_stages that `args` and `kwargs` leave
        out gets the launch's value, as in Triton."""
        options, kwargs = compiler.split_options(kwargs, self.arg_names)
        if num_stages is not None:
            options = compiler.check_options({**dict(options), "num_stages": num_stages})
        for name, value in (("num_warps", num_warps), ("num_stages", num_stages)):
            if name in self.arg_names and name not in kwargs and self.arg_names.index(name) >= len(args):
                if value is not None:
                    kwargs[name] = value
                elif name not in self.defaults:
                    kwargs[name] = DEFAULT_NUM_STAGES
        return options, kwargs

    def compile(self, signature, constexprs=None, target=compiler.DEFAULT_TARGET, num_warps=4,
                **options) -> CompiledKernel:
        """Same as rocktile.compile(self, ...)."""
        return compiler.compile(self, signature, constexprs, target, num_warps, **options)

    def compile_specialization(self, spec: Specialization, emulator_ok=False) -> CompiledKernel:
        """The compiled kernel for `spec`, memoized in `self.cache` and on
        disk (rocktile.cache). A kernel that only the emulator can run
        (device_print, device_assert) is an error unless `emulator_ok`
        (launches in the emulator), which also defers its code object to
        the first use (CompiledKernel)."""
        kernel = self.cache.get(spec)
        if kernel is None:
            key = self.cache_key(spec) if cache.enabled() else None
            kernel = cache.load(key, spec) if key else None
            if kernel is None:
                kernel = self._compile(spec, allow_emulator_only=True, stop_at_simt=emulator_ok)
                if key:
                    cache.store(key, kernel)
            if key and kernel.code_object_pending:
                kernel.on_code_object = lambda k, key=key: cache.store(key, k)
            kernel.launch_params = [n for n in self.arg_names if n not in self.constexpr_names]
            self.cache[spec] = kernel
        if kernel.emulator_only and not emulator_ok:
            self._compile(spec, allow_emulator_only=False)  # raises the located error
        return kernel

    def cache_key(self, spec: Specialization) -> str | None:
        """The compile cache's key for `spec` (see rocktile.cache), or None
        when the kernel cannot be keyed: a source that inspect cannot find,
        or a value whose text differs between processes."""
        h = hashlib.sha256(cache.compiler_key().encode())
        try:
            seen = set()
            self._hash_sources(h, seen)
            for _, value in spec.constexprs:
                if isinstance(value, JITFunction):  # a @jit function passed as a constexpr
                    value._hash_sources(h, seen)
            h.update(_stable_repr(spec).encode())
        except (OSError, TypeError, _UnstableText):
            return None
        return h.hexdigest()

    def _hash_sources(self, h, seen):
        """Hashes this function's source and what it depends on
        (_hash_function), once."""
        if self in seen:
            return
        seen.add(self)
        _hash_function(h, self.fn, seen)

    def _compile(self, spec: Specialization, allow_emulator_only, stop_at_simt=False) -> CompiledKernel:
        module, ir = self.trace(spec)
        C, where = ir.C, ir.default_position
        try:
            module.verify()
        except C.CompileError as e:
            raise error_from_compile_error(
                str(e), ir.extents, where,
                note="rocktile's front end built invalid IR for this kernel; please report this bug") from None
        try:
            out = C.compile(module, spec.target, spec.num_warps, allow_emulator_only, stop_at_simt)
        except C.CompileError as e:
            raise error_from_compile_error(str(e), ir.extents, where) from None
        except Exception as e:  # never show a raw C++ failure without the kernel's position
            raise CompilationError(f"internal compiler error: {type(e).__name__}: {e}", *where) from e
        for line in out["warnings"].splitlines():  # file:line:col: warning: ...
            warnings.warn(line, CompilationWarning, stacklevel=2)
        metadata = dict(out["metadata"])
        metadata.setdefault("name", self.__name__)
        metadata.update(target=spec.target, num_warps=spec.num_warps)
        asm = {stage: out[stage] for stage in ("tile", "simt", "llir", "amdgcn") if stage in out}
        deferred = stop_at_simt and not out["emulator_only"]
        return CompiledKernel(metadata["name"], spec, asm, None if deferred else bytes(out["hsaco"]), metadata,
                              out["simt_with_locations"], out["emulator_only"])

    # ------------------------------------------------------------------
    # Tracing.

    @property
    def traced_fn(self):
        """The function that tracing runs: `fn` with its dynamic control flow
        rewritten into calls that build scf ops (see rocktile.rewrite)."""
        if self._traced_fn is None:
            self._traced_fn = rewrite.rewrite(self.fn, control, _KERNEL_CODES)
        return self._traced_fn

    def trace(self, spec: Specialization):
        """Run the Python function on proxies and return (module, IRBuilder).
        Pointer and scalar parameters become `tl.tensor` scalars; constexpr
        parameters are passed as plain Python values."""
        C = compiler.load_C()
        ctx = C.Context()
        ir = semantic.IRBuilder(C, ctx, _KERNEL_CODES, definition_position(self.fn))
        ir.target, ir.num_warps, ir.explicit = spec.target, spec.num_warps, self.explicit
        b, loc = ir.builder, ir.default_loc
        module = ctx.create_module(loc)
        b.set_insertion_point_to_end(module.body())
        attrs = {"sym_name": f'"{self.__name__}"',
                 "function_type": f"({', '.join(a.type.mlir for a in spec.args)}) -> ()"}
        if spec.args:
            attrs["arg_attrs"] = f"[{', '.join(a.mlir_attrs for a in spec.args)}]"
        for name, value in spec.options:
            attrs[compiler.CODEGEN_OPTIONS[name][0]] = f"{value} : i32"
        func = b.create("func.func", [], [], {k: ir.attr(v) for k, v in attrs.items()}, loc, 1)
        entry = func.add_block(0, [ir.type(a.type) for a in spec.args], loc)
        b.set_insertion_point_to_end(entry)

        values = dict(spec.constexprs)
        values.update((a.name, core.tensor(entry.arg(i), a.type)) for i, a in enumerate(spec.args))
        with semantic.tracing(ir):
            try:
                result = self.traced_fn(*(values[name] for name in self.arg_names))
            except CompilationError:
                raise
            except Exception as e:
                error = error_from_exception(e, _KERNEL_CODES, self.fn)
                # A user mistake is the cause (as in Triton, whose tests read
                # exc.__cause__) without a traceback of rocktile's internals;
                # anything else keeps its whole traceback: a rocktile bug.
                raise error from (e.with_traceback(None) if _is_user_error(e) else e)
        if result is not None:
            raise CompilationError("a kernel cannot return a value; store results with tl.store",
                                   *definition_position(self.fn))
        b.create("func.return", [], [], {}, loc, 0)
        return module, ir


def _hash_function(h, fn, seen):
    """Hashes `fn`'s source and where it is (file and first line: a hit must
    not report another copy's lines), and what it names: @jit functions and
    plain Python functions (helpers and constexpr_functions, which run while
    compiling), directly or as attributes of a module, through theirs; the
    values of its other globals. rocktile's own are in the compiler's key."""
    code = fn.__code__
    h.update(f"{fn.__module__}.{fn.__qualname__}\n{code.co_filename}:{code.co_firstlineno}\n"
             f"{inspect.getsource(fn)}".encode())
    names, codes = set(), [fn.__code__]
    while codes:
        code = codes.pop()
        names.update(code.co_names)
        codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]

    def follow(value):
        if isinstance(value, JITFunction):
            value._hash_sources(h, seen)
        elif isinstance(value, types.FunctionType):
            value = inspect.unwrap(value)
            if value not in seen and (value.__module__ or "").split(".")[0] != __package__:
                seen.add(value)
                _hash_function(h, value, seen)

    for name in sorted(names):
        value = fn.__globals__.get(name)
        if isinstance(value, types.ModuleType):
            for attr in sorted(names):
                follow(getattr(value, attr, None))
        elif isinstance(value, (bool, int, float, str)) or type(value).__module__.startswith(core.__package__):
            h.update(f"{name}={_stable_repr(value)}\n".encode())
        else:
            follow(value)


def _is_user_error(e: BaseException) -> bool:
    """A SemanticError, or an exception raised by the kernel's own Python
    code (e.g. AttributeError for `tl.foo`), not from inside rocktile."""
    if isinstance(e, semantic.SemanticError):
        return True
    tb = e.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and tb.tb_frame.f_code in _KERNEL_CODES


def decorator(cls):
    """The `jit` decorator making Python functions kernels of class `cls`."""
    def jit(fn=None, *, do_not_specialize=(), **options):
        def decorate(f):
            kernel = cls(f, do_not_specialize)
            kernel.repr = options.get("repr")  # Triton's: a function naming the kernel for profilers
            return kernel
        return decorate(fn) if fn is not None else decorate
    return jit


jit = decorator(JITFunction)
jit.__doc__ = """Decorator making a Python function a rocktile kernel:
    `@rocktile.jit` or `@rocktile.jit(do_not_specialize=["n"])`.  Other
    Triton options (debug, noinline, ...) are accepted and ignored."""
