"""`rocktile.autotune`, `rocktile.Config` and `rocktile.heuristics`, with
Triton's arguments, so that Triton kernels port unchanged.

Choosing a configuration by timing needs a GPU.  Until rocktile launches on
one, an autotuned kernel runs its first configuration (after
`prune_configs_by`'s early pruning, if given) and says so once.
"""
from __future__ import annotations

import warnings

__all__ = ["Config", "autotune", "heuristics"]


class Config:
    """One configuration for `autotune`: meta-parameter values (`kwargs`,
    constexprs of the kernel) and launch options."""

    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None, pre_hook=None):
        self.kwargs = dict(kwargs)
        self.num_warps, self.num_stages, self.num_ctas = num_warps, num_stages, num_ctas
        self.maxnreg, self.pre_hook = maxnreg, pre_hook

    def all_kwargs(self):
        """The kwargs and launch options, as a launch takes them."""
        options = {"num_warps": self.num_warps, "num_stages": self.num_stages}
        return {**self.kwargs, **options}

    def __repr__(self):
        items = [f"{k}: {v}" for k, v in self.kwargs.items()]
        items += [f"num_warps: {self.num_warps}", f"num_stages: {self.num_stages}"]
        return ", ".join(items)


class _Wrapper:
    """What `autotune` and `heuristics` return: launched as `kernel[grid](...)`
    like the @jit function they wrap; other attributes come from it."""

    def __init__(self, fn):
        self.fn = fn
        jit_fn = fn
        while isinstance(jit_fn, _Wrapper):
            jit_fn = jit_fn.fn
        self.jit_fn = jit_fn
        self.arg_names = jit_fn.arg_names

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(grid, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.fn, name)

    def _meta(self, args, kwargs):
        """The launch's named arguments, as Triton passes them to hooks."""
        return {**dict(zip(self.arg_names, args)), **kwargs}


class Autotuner(_Wrapper):
    def __init__(self, fn, configs, key, prune_configs_by=None, **ignored):
        super().__init__(fn)
        self.configs = list(configs) or [Config({})]
        self.key = list(key)
        self.prune_configs_by = prune_configs_by or {}
        self.best_config = None
        self._warned = False

    def run(self, grid, *args, **kwargs):
        configs = self.configs
        prune = self.prune_configs_by.get("early_config_prune")
        if prune is not None:
            configs = list(prune(configs, self._meta(args, kwargs))) or configs
        config = configs[0]
        if len(configs) > 1 and not self._warned:
            self._warned = True
            warnings.warn(f"rocktile.autotune: choosing among {len(configs)} configurations of "
                          f"{self.jit_fn.__name__} needs a GPU to time them; without one the first is used "
                          f"({config})", stacklevel=2)
        conflicts = sorted(set(config.kwargs) & set(kwargs))
        if conflicts:
            raise ValueError(f"{self.jit_fn.__name__}: the autotuned meta-parameter(s) {', '.join(conflicts)} "
                             "are given by the configurations; do not pass them to the launch")
        self.best_config = config
        if config.pre_hook is not None:
            config.pre_hook({**self._meta(args, kwargs), **config.all_kwargs()})
        return self.fn[grid](*args, **kwargs, **config.all_kwargs())


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None, pre_hook=None,
             post_hook=None, warmup=None, rep=None, use_cuda_graph=False, do_bench=None, cache_results=False):
    """Decorator over a @rocktile.jit kernel (Triton's signature).  Without a
    GPU to time them on, the first configuration is used."""
    def decorate(fn):
        return Autotuner(fn, configs, key, prune_configs_by)
    return decorate


class Heuristics(_Wrapper):
    def __init__(self, fn, values):
        super().__init__(fn)
        self.values = dict(values)

    def run(self, grid, *args, **kwargs):
        for name, compute in self.values.items():
            kwargs[name] = compute(self._meta(args, kwargs))
        return self.fn[grid](*args, **kwargs)


def heuristics(values):
    """Decorator computing meta-parameters from the launch's arguments:
    `values` maps each name to a function of the dict of named arguments."""
    def decorate(fn):
        return Heuristics(fn, values)
    return decorate
