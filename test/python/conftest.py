import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for path in (os.path.join(ROOT, "python"), os.path.join(ROOT, "examples")):
    if path not in sys.path:
        sys.path.insert(0, path)

# Each test session compiles into a cache of its own (rocktile.cache), so
# that neither ~/.cache/rocktile nor an earlier run's entries are used.
import atexit  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402

_CACHE = tempfile.mkdtemp(prefix="rocktile-test-cache-")
os.environ["ROCKTILE_CACHE_DIR"] = _CACHE
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a real AMD GPU (and ROCm); skipped without one")
