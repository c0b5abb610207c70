import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for path in (os.path.join(ROOT, "python"), os.path.join(ROOT, "examples")):
    if path not in sys.path:
        sys.path.insert(0, path)

# Each test run compiles into a cache of its own (rocktile.cache), so that
# neither ~/.cache/rocktile nor an earlier run's entries are used; the run's
# pytest-xdist workers, started after this, inherit and share it.
import atexit  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402

if "PYTEST_XDIST_WORKER" not in os.environ:
    _CACHE = tempfile.mkdtemp(prefix="rocktile-test-cache-")
    os.environ["ROCKTILE_CACHE_DIR"] = _CACHE
    atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a real AMD GPU (and ROCm); skipped without one")


import pytest  # noqa: E402


@pytest.fixture
def located_error(tmp_path):
    """located_error(params, body, signature, message): writes a kernel of
    `params` whose body is the lines `body` into a file, compiles it with
    `signature`, and checks that the CompilationError matches `message` and
    names the file and the body's last line."""
    def check(params, body, signature, message):
        import rocktile
        path = tmp_path / "bad_kernel.py"
        header = f"import rocktile\nimport rocktile.language as tl\n\n\n@rocktile.jit\ndef kernel({params}):\n"
        path.write_text(header + "".join(f"    {line}\n" for line in body))
        namespace = {}
        exec(compile(path.read_text(), str(path), "exec"), namespace)
        with pytest.raises(rocktile.CompilationError, match=message) as e:
            namespace["kernel"].compile(signature)
        assert f"{path}:{header.count(chr(10)) + len(body)}:" in str(e.value)
    return check
