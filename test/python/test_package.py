"""The Python package's structure: its modules import one another top-down
(no import circle, counting imports inside functions), and tensors have the
methods Triton's tensors have."""
import ast
import pathlib

import numpy as np
import pytest

import rocktile
import rocktile.language as tl

PACKAGE = pathlib.Path(rocktile.__file__).parent


def _imports():
    """module -> the package's modules it imports (anywhere in its source)."""
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    edges = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = package
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                target = node.module if not node.level else ".".join(p for p in (base, node.module) if p)
                for alias in node.names:
                    # `from . import _C` loads the compiled extension, not a Python module.
                    if alias.name == "_C":
                        continue
                    found.add(f"{target}.{alias.name}" if f"{target}.{alias.name}" in modules else target)
        edges[name] = sorted(m for m in found if m in modules and m != name)
    return edges


def test_modules_import_top_down():
    edges = _imports()
    assert "rocktile.language.semantic" in edges["rocktile.language.core"]  # the walk sees imports
    order, state = [], {}

    def visit(module, path):
        if state.get(module) == "done":
            return
        if state.get(module) == "open":
            cycle = path[path.index(module):] + [module]
            pytest.fail("import circle: " + " -> ".join(cycle))
        state[module] = "open"
        for dep in edges[module]:
            visit(dep, path + [module])
        state[module] = "done"
        order.append(module)

    for module in sorted(edges):
        visit(module, [])
    assert len(order) == len(edges)


# Triton 3.9's tensor methods (dir(triton.language.tensor)) that name functions rocktile has.
TRITON_TENSOR_METHODS = [
    "T", "abs", "argmax", "argmin", "atomic_add", "atomic_and", "atomic_cas", "atomic_max", "atomic_min",
    "atomic_or", "atomic_xchg", "atomic_xor", "broadcast_to", "cast", "cdiv", "ceil", "cos", "erf", "exp",
    "exp2", "expand_dims", "flip", "floor", "log", "log2", "max", "min", "permute", "ravel", "reduce",
    "reshape", "rsqrt", "sigmoid", "sin", "sort", "split", "sqrt", "store", "sum", "to", "trans", "view",
    "xor_sum",
]


def test_tensors_have_tritons_methods():
    missing = [m for m in TRITON_TENSOR_METHODS if not hasattr(tl.tensor, m)]
    assert not missing


@rocktile.jit
def tensor_methods(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    (out_ptr + offs).store(x.cast(tl.float16).to(tl.float32))
    (out_ptr + N + offs).store(x.flip(0).exp2().floor())
    (out_ptr + 2 * N + offs).store(x.abs().sqrt().ceil() + x.erf())
    rows = x.reshape(N // 8, 8).trans().sum(1)
    (out_ptr + 3 * N + tl.arange(0, 8)).store(rows.to(tl.float32))
    (out_ptr + 3 * N + 8).store(x.argmax(0).cdiv(2).to(tl.float32))


@pytest.mark.parametrize("target", ["gfx950", "gfx1250"])
def test_tensor_methods(target):
    n = 64
    x = np.random.default_rng(3).standard_normal(n).astype(np.float32) * 4
    out = np.zeros(3 * n + 9, np.float32)
    tensor_methods[(1,)](x, out, N=n, target=target)
    np.testing.assert_array_equal(out[:n], x.astype(np.float16).astype(np.float32))
    np.testing.assert_array_equal(out[n:2 * n], np.floor(np.exp2(x[::-1])))
    from math import erf
    want = np.ceil(np.sqrt(np.abs(x))) + np.array([erf(v) for v in x.astype(np.float64)], np.float32)
    np.testing.assert_allclose(out[2 * n:3 * n], want, rtol=0, atol=2e-6)  # erf within a few ulps of 1
    np.testing.assert_allclose(out[3 * n:3 * n + 8], x.reshape(8, 8).sum(0), rtol=1e-5, atol=1e-5)
    assert out[3 * n + 8] == -(-int(np.argmax(x)) // 2)
