"""The Python package's structure: its modules import one another top-down
(no import circle, counting imports inside functions), tensors have the
methods Triton's tensors have, and `pip install .` makes a working install."""
import ast
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import rocktile
import rocktile.language as tl

PACKAGE = pathlib.Path(rocktile.__file__).parent
EXTENSIONS = {path.name.split(".")[0] for path in PACKAGE.glob("*.so")}


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
                    # `from . import _C` loads a compiled extension, not a Python module.
                    if alias.name in EXTENSIONS:
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


INSTALLED_CHECK = """
import os, sys
import numpy as np
import rocktile, rocktile.language as tl
from rocktile import aot
assert rocktile.__file__.startswith(sys.prefix), rocktile.__file__
assert os.path.exists(aot.HIP_EMULATOR)

@rocktile.jit
def add(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)

for target in ("gfx950", "gfx1250"):
    x = np.arange(3000, dtype=np.float32)
    y = np.zeros_like(x)
    add[(3,)](x, y, 3000, BLOCK=1024, target=target)
    np.testing.assert_array_equal(y, x + 1)
print("ok")
"""


def test_pip_install_in_a_fresh_virtualenv(tmp_path):
    """`pip install .` into a new virtualenv (slow: it builds rocktile with
    CMake): the installed package compiles and runs kernels away from the
    source tree, and the installed rocktile-compile and rocktile-opt work."""
    root = PACKAGE.parent.parent
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    bin_dir = venv / "bin"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([str(bin_dir / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                           str(root)], env=env, capture_output=True, text=True, timeout=3000)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    run = lambda *cmd: subprocess.run([str(c) for c in cmd], cwd=tmp_path, env=env,  # noqa: E731
                                      capture_output=True, text=True, timeout=600)
    done = run(bin_dir / "python", "-c", INSTALLED_CHECK)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stdout + done.stderr
    done = run(bin_dir / "rocktile-compile", root / "examples/vector_add.py:add_kernel", "--target",
               "gfx950,gfx1250", "--constexpr", "BLOCK=1024", "--signature",
               "x_ptr=*fp32:16,y_ptr=*fp32:16,out_ptr=*fp32:16,n_elements=i32", "-o", tmp_path / "out")
    assert done.returncode == 0, done.stderr
    assert {p.name for p in (tmp_path / "out").iterdir()} >= {"add_kernel.gfx950.hsaco", "add_kernel.gfx1250.hsaco",
                                                               "add_kernel.h", "add_kernel.c", "add_kernel.json"}
    done = run(bin_dir / "rocktile-opt", root / "test/Transforms/assign-layouts.mlir", "-split-input-file",
               "--tile-assign-layouts=target=gfx950 num-warps=4")
    assert done.returncode == 0 and "#tile.blocked<sizePerThread" in done.stdout, done.stderr[-2000:]
