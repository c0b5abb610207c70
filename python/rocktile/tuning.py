"""`rocktile.autotune`, `rocktile.Config` and `rocktile.heuristics`, with
Triton's arguments and Triton's classes (`Autotuner`, `Heuristics`: their
constructors, attributes and `run`), so that Triton kernels, and libraries
that subclass Triton's autotuner, port unchanged.

Choosing a configuration by timing needs a GPU. Until rocktile launches on
one, an autotuned kernel runs the first configuration that pruning leaves
(`prune_configs_by`: early pruning, then the performance model's top_k) and
says so once; the choice is kept per tuning key in `Autotuner.cache`, as
Triton keeps its timed choice there (a library may put its own choice
there first).
"""
from __future__ import annotations

import inspect
import warnings

__all__ = ["Config", "autotune", "heuristics"]


class Config:
    """One configuration for `autotune`: meta-parameter values (`kwargs`,
    constexprs of the kernel) and launch options."""

    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None, pre_hook=None,
                 ir_override=None):
        self.kwargs = dict(kwargs)
        self.num_warps, self.num_stages, self.num_ctas = num_warps, num_stages, num_ctas
        self.maxnreg, self.pre_hook, self.ir_override = maxnreg, pre_hook, ir_override

    def all_kwargs(self):
        """The kwargs and the launch options that are set, as a launch takes them."""
        options = {"num_warps": self.num_warps, "num_ctas": self.num_ctas, "num_stages": self.num_stages,
                   "maxnreg": self.maxnreg, "ir_override": self.ir_override}
        return {**self.kwargs, **{k: v for k, v in options.items() if v is not None}}

    def _identity(self):
        return (*self.all_kwargs().items(), self.pre_hook)

    def __eq__(self, other):
        return isinstance(other, Config) and self._identity() == other._identity()

    def __hash__(self):
        return hash(self._identity())

    def __repr__(self):
        items = [f"{k}: {v}" for k, v in self.kwargs.items()]
        items += [f"num_warps: {self.num_warps}", f"num_stages: {self.num_stages}"]
        return ", ".join(items)


class KernelInterface:
    """`kernel[grid](*args, **kwargs)` is `kernel.run(*args, grid=grid,
    warmup=False, **kwargs)`, as in Triton: what `autotune` and `heuristics`
    return, and the classes libraries derive from them."""

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, warmup=False, **kwargs)


class _Wrapper(KernelInterface):
    """Autotuner and Heuristics: other attributes are the wrapped kernel's."""

    def __getattr__(self, name):
        if name == "fn":  # not set yet (during construction or unpickling)
            raise AttributeError(name)
        return getattr(self.fn, name)


class Autotuner(_Wrapper):
    def __init__(self, fn, arg_names, configs, key, reset_to_zero=None, restore_value=None, pre_hook=None,
                 post_hook=None, prune_configs_by=None, warmup=None, rep=None, use_cuda_graph=False,
                 do_bench=None, cache_results=False):
        self.fn, self.arg_names = fn, list(arg_names)
        self.base_fn = fn  # the Python function under the wrappers, as Triton's
        while not inspect.isfunction(self.base_fn):
            self.base_fn = self.base_fn.fn
        self.configs = list(configs) or [Config({})]
        self.keys = list(key)
        self.reset_to_zero, self.restore_value = list(reset_to_zero or ()), list(restore_value or ())
        for what, names in (("key", self.keys), ("reset_to_zero", self.reset_to_zero),
                            ("restore_value", self.restore_value)):
            unknown = [n for n in names if n not in self.arg_names]
            if unknown:
                raise ValueError(f"autotune: {what} names {', '.join(unknown)}, which are not arguments of the "
                                 f"kernel ({', '.join(self.arg_names)})")
        self.cache = {}
        self.best_config = None
        self.nargs = None
        self.restore_copies = {}
        # The hooks Triton runs around each timed launch; rocktile times none,
        # but libraries read and replace them.
        self.user_defined_pre_hook, self.user_defined_post_hook = pre_hook is not None, post_hook is not None
        self.pre_hook = pre_hook or self._reset_and_save
        self.post_hook = post_hook or self._restore
        prune = prune_configs_by or {}
        self.perf_model = prune.get("perf_model")
        self.configs_top_k = prune.get("top_k", 1.0)
        self.early_config_prune = prune.get("early_config_prune")
        self._warned = False

    # The default hooks, on torch tensors and numpy arrays.
    def _reset_and_save(self, nargs, reset_only=False):
        for name in self.reset_to_zero:
            if nargs[name] is not None:
                nargs[name][...] = 0
        if not reset_only:
            self.restore_copies = {n: nargs[n].clone() if hasattr(nargs[n], "clone") else nargs[n].copy()
                                   for n in self.restore_value if nargs[n] is not None}

    def _restore(self, nargs, exception):
        for name, value in self.restore_copies.items():
            nargs[name][...] = value
        self.restore_copies = {}

    def tuning_key(self, kwargs):
        """Triton's key: the values of the `key` arguments, then the dtype of
        every argument that has one."""
        named = {k: v for k, v in {**self.nargs, **kwargs}.items() if k in self.arg_names}
        key = [named[k] for k in self.keys if k in named]
        key += [str(v.dtype) for v in named.values() if hasattr(v, "dtype")]
        return tuple(key)

    def prune_configs(self, kwargs):
        configs = self.configs
        if self.early_config_prune:
            configs = list(self.early_config_prune(self.configs, self.nargs, **kwargs))
            if not configs:
                raise ValueError(f"autotune of {self.base_fn.__name__}: early_config_prune left no configuration")
        if self.perf_model and len(configs) > 1:
            top_k = self.configs_top_k
            top_k = max(1, int(len(configs) * top_k)) if isinstance(top_k, float) and top_k <= 1.0 else top_k
            estimate = {c: self.perf_model(**self.nargs, **kwargs, **c.all_kwargs()) for c in configs}
            configs = sorted(configs, key=estimate.__getitem__)[:top_k]
        return configs

    def run(self, *args, grid=None, warmup=False, **kwargs):
        self.nargs = dict(zip(self.arg_names, args))
        try:
            config = self.configs[0]
            if len(self.configs) > 1:
                key = self.tuning_key(kwargs)
                if key not in self.cache:
                    self.cache[key] = self._choose(kwargs)
                config = self.cache[key]
            conflicts = sorted(set(config.kwargs) & set(kwargs))
            if conflicts:
                raise ValueError(f"{self.base_fn.__name__}: the autotuned meta-parameter(s) {', '.join(conflicts)} "
                                 "are given by the configurations; do not pass them to the launch")
            self.best_config = config
            if config.pre_hook is not None:
                config.pre_hook({**self.nargs, **kwargs, **config.all_kwargs()})
            return self.fn.run(*args, grid=grid, warmup=warmup, **kwargs, **config.all_kwargs())
        finally:
            self.nargs = None

    def _choose(self, kwargs):
        configs = self.prune_configs(kwargs)
        if len(configs) > 1:
            if not self._warned:
                self._warned = True
                warnings.warn(f"rocktile.autotune: choosing among {len(configs)} configurations of "
                              f"{self.base_fn.__name__} needs a GPU to time them; without one the first is "
                              f"used ({configs[0]})", stacklevel=4)
            # The state a timed choice leaves: reset_to_zero's arguments zeroed.
            self.pre_hook({**self.nargs, **kwargs, **configs[0].all_kwargs()}, reset_only=True)
        return configs[0]

    def warmup(self, *args, **kwargs):
        """Compiles every configuration pruning leaves."""
        self.nargs = dict(zip(self.arg_names, args))
        try:
            return [self.fn.warmup(*args, **kwargs, **c.all_kwargs()) for c in self.prune_configs(kwargs)]
        finally:
            self.nargs = None


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None, pre_hook=None,
             post_hook=None, warmup=None, rep=None, use_cuda_graph=False, do_bench=None, cache_results=False):
    """Decorator over a @rocktile.jit kernel (Triton's signature).  Without a
    GPU to time them on, the first configuration pruning leaves is used."""
    def decorate(fn):
        return Autotuner(fn, fn.arg_names, configs, key, reset_to_zero, restore_value, pre_hook=pre_hook,
                         post_hook=post_hook, prune_configs_by=prune_configs_by)
    return decorate


class Heuristics(_Wrapper):
    def __init__(self, fn, arg_names, values):
        self.fn, self.arg_names, self.values = fn, list(arg_names), dict(values)

    def run(self, *args, **kwargs):
        for name, compute in self.values.items():
            kwargs[name] = compute({**dict(zip(self.arg_names, args)), **kwargs})
        return self.fn.run(*args, **kwargs)


def heuristics(values):
    """Decorator computing meta-parameters from the launch's arguments:
    `values` maps each name to a function of the dict of named arguments."""
    def decorate(fn):
        return Heuristics(fn, fn.arg_names, values)
    return decorate
