"""`import triton` resolving to rocktile, so that a Triton project runs
unchanged:

    python -m rocktile.compat script.py [args...]     # or: -m package.module [args...]
    import rocktile.compat; rocktile.compat.install()  # from Python, before `import triton`

After install(), `triton.language` (and its submodules) *is*
`rocktile.language`, `triton.experimental.gluon` *is* `rocktile.gluon`, and `triton`, `triton.runtime`, `triton.testing`,
`triton.compiler` and `triton.backends` are the modules under
rocktile/compat/triton, which give Triton 3.9's host-side names over
rocktile. A name Triton 3.9 has and rocktile does not imports as a
placeholder that raises NotImplementedError naming it when used, so that
importing a project never fails on a name its code path may not touch.
"""
import importlib
import importlib.abc
import importlib.util
import sys

TRITON_VERSION = "3.9.0"  # the Triton release whose language and host API rocktile follows

# Packages that are rocktile's own under Triton's names (with their submodules).
ALIASES = {"triton.language": "rocktile.language", "triton.experimental.gluon": "rocktile.gluon"}
# Triton 3.9 modules rocktile has no counterpart of: placeholder modules.
MISSING_MODULES = ("triton.profiler", "triton.tools", "triton.knobs", "triton.experimental", "triton.instrumentation",
                   "triton.runtime.build", "triton.backends.amd", "triton.backends.nvidia",
                   "triton.language.extra.cuda.utils", "triton.runtime.interpreter")


class NotProvided(NotImplementedError, AttributeError):
    """An attribute of a Missing placeholder: also an AttributeError, so
    that feature probes (`hasattr(triton.knobs, "nvidia")`, `getattr(x, name,
    None)`) see the feature as absent."""


class Missing:
    """What a name Triton 3.9 has and rocktile lacks imports as: any use
    (a call, an attribute, a test of truth) raises NotImplementedError."""

    def __init__(self, name):
        object.__setattr__(self, "_name", name)

    def _message(self):
        return (f"{self._name} is part of Triton 3.9 that rocktile does not provide "
                "(see docs/usage.md, 'Bringing an existing Triton project')")

    def _fail(self, *args, **kwargs):
        raise NotImplementedError(self._message())

    __call__ = __bool__ = __iter__ = __len__ = __getitem__ = __enter__ = _fail

    def __getattr__(self, attr):
        raise NotProvided(self._message())

    def __setattr__(self, attr, value):
        self._fail()

    def __repr__(self):
        return f"<{self._name}: not provided by rocktile>"


def missing_names(module_name, names):
    """A module __getattr__ that gives Missing placeholders for `names` (Triton
    3.9's names that rocktile lacks) and AttributeError for the rest."""
    def __getattr__(name):
        if name in names:
            return Missing(f"{module_name}.{name}")
        raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
    return __getattr__


def _placeholder_attribute(module_name):
    """The __getattr__ of a placeholder module: every name is Missing but
    Python's own (`__file__`, `__wrapped__`, ...), which are absent, and a
    submodule rocktile has (`triton.experimental.gluon`), which is imported."""
    def __getattr__(name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        if f"{module_name}.{name}" in ALIASES:
            return importlib.import_module(f"{module_name}.{name}")
        return Missing(f"{module_name}.{name}")
    return __getattr__


class _Loader(importlib.abc.Loader):
    def __init__(self, target):
        self.target = target

    def create_module(self, spec):
        if self.target is None:  # a Triton module rocktile lacks
            module = type(sys)(spec.name)
            module.__getattr__ = _placeholder_attribute(spec.name)
            module.__path__ = []
            return module
        return importlib.import_module(self.target)

    def exec_module(self, module):
        pass


class TritonFinder(importlib.abc.MetaPathFinder):
    """Finds `triton` and `triton.*` in rocktile (see the module docstring)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "triton" and not fullname.startswith("triton."):
            return None
        where = "rocktile.compat." + fullname
        for triton_name, ours in ALIASES.items():
            if fullname == triton_name or fullname.startswith(triton_name + "."):
                where = ours + fullname[len(triton_name):]
        try:
            found = importlib.util.find_spec(where) is not None
        except ModuleNotFoundError:  # a parent rocktile lacks (under a placeholder module)
            found = False
        if not found:
            if fullname not in MISSING_MODULES:
                return None
            where = None
        return importlib.util.spec_from_loader(fullname, _Loader(where), is_package=True)


_FINDER = TritonFinder()


def _forget_triton():
    for name in [n for n in sys.modules if n == "triton" or n.startswith("triton.")]:
        del sys.modules[name]


def install():
    """Makes `import triton` (and its submodules) resolve to rocktile in this
    process. A `triton` imported before is replaced."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
    _forget_triton()


def uninstall():
    """Undoes install() (for tests)."""
    if _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
    _forget_triton()
