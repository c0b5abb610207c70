"""The on-disk compile cache: compiled kernels kept across processes.

An entry is one file, `<dir>/<key[:2]>/<key>.json`: a header line
`rocktile-cache <FORMAT> <sha256 of the body>` and a JSON body holding the
CompiledKernel's parts, its key and the compiler's key. The key
(JITFunction.cache_key) hashes the compiler (rocktile's version, the C++
library and the Python package's sources), the sources of the kernel and of the @jit functions it reaches,
the global values it reads, and the specialization (signature, constexprs,
target, num_warps, options). Entries are written to a temporary file and
renamed into place, so that readers (and processes compiling the same
kernel at once) see a whole entry or none; every read checks the header,
the checksum and both keys, and anything else is recompiled (and rewritten)
with one warning. A directory that cannot be written means compiling
without caching, with one warning.

    ROCKTILE_CACHE_DIR   the directory (default ~/.cache/rocktile)
    ROCKTILE_CACHE=0     no cache at all
"""
from __future__ import annotations

import base64
import functools
import hashlib
import json
import os
import re
import stat
import tempfile
import warnings

FORMAT = 1
_HEADER = re.compile(rb"rocktile-cache (\d+) ([0-9a-f]{64})\n")
_warned: set = set()


def _warn_once(kind, message):
    if kind not in _warned:
        _warned.add(kind)
        warnings.warn(message, RuntimeWarning, stacklevel=4)


def directory():
    return os.environ.get("ROCKTILE_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "rocktile")


def enabled():
    return os.environ.get("ROCKTILE_CACHE", "1") != "0"


@functools.cache
def compiler_key() -> str:
    """What every entry depends on besides its kernel: rocktile's version,
    its C++ library and its Python sources (so a rebuild invalidates)."""
    from . import compiler
    from .version import __version__
    package = os.path.dirname(os.path.abspath(__file__))
    h = hashlib.sha256(f"rocktile {__version__} format {FORMAT}\n".encode())
    paths = [compiler.load_C().__file__]
    for root, dirs, files in os.walk(package):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        paths += [os.path.join(root, f) for f in sorted(files) if f.endswith(".py")]
    for path in paths:
        with open(path, "rb") as f:
            h.update(os.path.relpath(path, package).encode() + b"\0" + f.read())
    return h.hexdigest()


def _path(key):
    return os.path.join(directory(), key[:2], key + ".json")


def load(key, spec):
    """The CompiledKernel of `spec` cached under `key`, or None."""
    path = _path(key)
    try:
        # Without blocking: a FIFO or device in the entry's place would wait forever.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            _warn_once("corrupt", f"rocktile: ignoring the cache entry {path} (not a regular file); recompiling")
            return None
        try:
            data = f.read()
        except OSError:
            return None
    try:
        return _decode(data, key, spec)
    except ValueError as e:
        _warn_once("corrupt", f"rocktile: ignoring the cache entry {path} ({e}); recompiling")
        return None


def _decode(data, key, spec):
    from .kernel import CompiledKernel
    header = _HEADER.match(data)
    if not header:
        raise ValueError("no rocktile cache header" if data else "the file is empty")
    if int(header.group(1)) != FORMAT:
        raise ValueError(f"format {int(header.group(1))}, this rocktile reads {FORMAT}")
    body = data[header.end():]
    if hashlib.sha256(body).hexdigest().encode() != header.group(2):
        raise ValueError("its checksum does not match: the file is truncated or damaged")
    try:
        entry = json.loads(body)
    except ValueError:
        raise ValueError("its body is not JSON") from None
    if entry.get("key") != key or entry.get("compiler") != compiler_key():
        raise ValueError("it belongs to another kernel or another build of rocktile")
    hsaco = None if entry["hsaco"] is None else base64.b64decode(entry["hsaco"])
    return CompiledKernel(entry["name"], spec, entry["asm"], hsaco, entry["metadata"],
                          entry["simt_with_locations"], entry["emulator_only"])


def store(key, kernel):
    """Writes `kernel` under `key`, atomically; a directory that cannot be
    written disables caching for this process (with one warning)."""
    if "unwritable" in _warned:
        return
    body = json.dumps({
        "key": key, "compiler": compiler_key(), "name": kernel.name, "asm": kernel._asm,
        "hsaco": None if kernel.code_object_pending else base64.b64encode(kernel._hsaco).decode(),
        "metadata": kernel._metadata,
        "simt_with_locations": kernel._simt_with_locations, "emulator_only": kernel.emulator_only,
    }).encode()
    data = b"rocktile-cache %d %s\n" % (FORMAT, hashlib.sha256(body).hexdigest().encode()) + body
    path = _path(key)
    tmp = None
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError as e:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        _warn_once("unwritable", f"rocktile: the compile cache {directory()} cannot be written ({e}); "
                                 "compiling without caching")
