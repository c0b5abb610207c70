"""The on-disk compile cache (rocktile.cache): hits across processes, keys
that change with what the kernel depends on, damaged entries recompiled
with one warning, processes racing on one key, and directories that cannot
be written."""
import glob
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import rocktile
import rocktile.language as tl
from rocktile import cache, compiler

SIG = {"x_ptr": "*fp32:16", "y_ptr": "*fp32:16", "n": "i32"}


@rocktile.jit
def scale_by(x):
    return x * 3.0


@rocktile.jit
def triple(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, scale_by(x), mask=offs < n)


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("ROCKTILE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "_warned", set())
    triple.cache.clear()
    return tmp_path / "cache"


@pytest.fixture
def compiles(monkeypatch):
    """The number of times the C++ compiler ran."""
    C = compiler.load_C()
    real, count = C.compile, [0]

    def counting(*args):
        count[0] += 1
        return real(*args)
    monkeypatch.setattr(C, "compile", counting)
    return count


def entries(directory):
    return sorted(glob.glob(os.path.join(directory, "*", "*.json")))


def compile_triple(block=64, target="gfx950"):
    triple.cache.clear()  # the in-process memo: each call reaches the disk cache
    return rocktile.compile(triple, SIG, {"BLOCK": block}, target=target)


def run_python(cwd, env, code):
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)


def test_hit_gives_the_same_kernel(cache_dir, compiles):
    first = compile_triple()
    assert compiles[0] == 1 and len(entries(cache_dir)) == 1
    second = compile_triple()
    assert compiles[0] == 1, "the second compile should be read from the cache"
    assert second.hsaco == first.hsaco and second.asm == first.asm and second.metadata == first.metadata
    x = np.arange(50, dtype=np.float32)
    y = np.zeros_like(x)
    triple[(1,)](x, y, 50, BLOCK=64)
    np.testing.assert_array_equal(y, 3 * x)


def test_key_follows_specialization(cache_dir, compiles):
    compile_triple(64)
    compile_triple(128)
    compile_triple(64, target="gfx1250")
    assert compiles[0] == 3 and len(entries(cache_dir)) == 3


def test_key_follows_called_jit_function_sources(cache_dir):
    """Changing a @jit function the kernel calls changes the key, as
    changing the kernel's own source does."""
    spec = compiler.make_specialization(triple, SIG, {"BLOCK": 64}, "gfx950", 4)
    key = triple.cache_key(spec)
    assert key == triple.cache_key(spec)
    original = scale_by.fn

    def scale_by_changed(x):
        return x * 4.0
    try:
        scale_by.fn = scale_by_changed
        assert triple.cache_key(spec) != key
    finally:
        scale_by.fn = original


def block_of(n):
    return n // 2


@rocktile.constexpr_function
def halved(n):
    return block_of(n)


@rocktile.jit
def store_half(y_ptr, N: tl.constexpr):
    tl.store(y_ptr + tl.arange(0, halved(N)), 1.0)


def test_key_follows_python_functions_run_while_compiling():
    """A constexpr_function, and the plain function it calls, run while
    compiling: changing either changes the key (else another process
    would read a kernel compiled for the old one)."""
    spec = compiler.make_specialization(store_half, {"y_ptr": "*fp32"}, {"N": 64}, "gfx950", 4)
    key = store_half.cache_key(spec)
    module = sys.modules[__name__]
    original = block_of

    def block_of_changed(n):
        return n // 4
    try:
        module.block_of = block_of_changed
        assert store_half.cache_key(spec) != key
    finally:
        module.block_of = original
    assert store_half.cache_key(spec) == key


def test_disabled(cache_dir, compiles, monkeypatch):
    monkeypatch.setenv("ROCKTILE_CACHE", "0")
    compile_triple()
    compile_triple()
    assert compiles[0] == 2 and not os.path.exists(cache_dir)


@pytest.mark.parametrize("damage", ["flip", "truncate", "empty", "format", "other_build"])
def test_damaged_entry_is_recompiled_with_one_warning(cache_dir, compiles, damage):
    good = compile_triple()
    [path] = entries(cache_dir)
    data = open(path, "rb").read()
    header, body = data.split(b"\n", 1)
    if damage == "flip":
        i = len(body) // 2
        data = header + b"\n" + body[:i] + bytes([body[i] ^ 0x20]) + body[i + 1:]
    elif damage == "truncate":
        data = data[:len(data) // 3]
    elif damage == "empty":
        data = b""
    elif damage == "format":
        data = data.replace(b"rocktile-cache 1 ", b"rocktile-cache 99 ", 1)
    else:  # a whole, well-formed entry written by another build of rocktile
        import hashlib
        import json
        entry = json.loads(body)
        entry["compiler"] = "0" * 64
        body = json.dumps(entry).encode()
        data = b"rocktile-cache 1 " + hashlib.sha256(body).hexdigest().encode() + b"\n" + body
    for expected_warnings in (1, 0):  # a second damaged read gives no second warning
        open(path, "wb").write(data)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            again = compile_triple()
        assert again.hsaco == good.hsaco
        assert [str(w.message) for w in caught if "ignoring the cache entry" in str(w.message)] == \
            [str(w.message) for w in caught][:expected_warnings] and len(caught) == expected_warnings
    assert compiles[0] == 3
    # The recompile rewrote the entry: it is read again.
    compile_triple()
    assert compiles[0] == 3


def test_unwritable_directory_compiles_with_one_warning(tmp_path, monkeypatch, compiles):
    # A regular file where the cache's parent directory should be: nothing
    # can be created under it, even by root (for whom permission bits do not
    # make a directory read-only).
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    monkeypatch.setenv("ROCKTILE_CACHE_DIR", str(blocker / "cache"))
    monkeypatch.setattr(cache, "_warned", set())
    with pytest.warns(RuntimeWarning, match="cannot be written") as caught:
        compile_triple(64)
        compile_triple(128)
    assert len([w for w in caught if "cannot be written" in str(w.message)]) == 1
    assert compiles[0] == 2


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_read_only_directory(cache_dir, compiles):
    os.makedirs(cache_dir)
    os.chmod(cache_dir, 0o500)
    try:
        with pytest.warns(RuntimeWarning, match="cannot be written"):
            compile_triple()
    finally:
        os.chmod(cache_dir, 0o700)
    assert compiles[0] == 1 and not entries(cache_dir)


def test_full_disk_leaves_no_temporary_file(cache_dir, monkeypatch, compiles):
    def full(fd, mode):
        os.close(fd)
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(cache.os, "fdopen", full)
    with pytest.warns(RuntimeWarning, match="No space left"):
        compile_triple()
    assert not [f for f in glob.glob(os.path.join(cache_dir, "*", "*"))]


RACER = textwrap.dedent("""
    import os, sys, time
    sys.path.insert(0, {python!r})
    import numpy as np
    import rocktile
    import test_cache
    while not os.path.exists({start!r}):
        time.sleep(0.005)
    k = rocktile.compile(test_cache.triple, test_cache.SIG, {{"BLOCK": 256}}, target="gfx1250")
    x = np.arange(200, dtype=np.float32); y = np.zeros_like(x)
    test_cache.triple[(1,)](x, y, 200, BLOCK=256, target="gfx1250")
    assert (y == 3 * x).all()
    print(len(k.hsaco), k.metadata["vgpr_count"])
""")


def test_eight_processes_racing_on_one_key(tmp_path):
    start = tmp_path / "start"
    env = dict(os.environ, ROCKTILE_CACHE_DIR=str(tmp_path / "cache"), PYTHONWARNINGS="error::RuntimeWarning")
    code = RACER.format(python=os.path.join(os.path.dirname(os.path.abspath(rocktile.__file__)), ".."),
                        start=str(start))
    here = os.path.dirname(os.path.abspath(__file__))
    procs = [subprocess.Popen([sys.executable, "-c", code], cwd=here, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(8)]
    start.write_text("")
    outs = [p.communicate(timeout=600) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err[-2000:]
    assert len({out for out, _ in outs}) == 1
    assert len(entries(tmp_path / "cache")) == 2  # the compile's and the launch's specializations
    assert not glob.glob(str(tmp_path / "cache" / "*" / ".tmp-*"))
    # The entry the race left is whole: a new process reads it without compiling.
    check = run_python(here, env, "import rocktile, test_cache\n"
                           "from rocktile import compiler\n"
                           "C = compiler.load_C()\n"
                           "C.compile = None\n"
                           "rocktile.compile(test_cache.triple, test_cache.SIG, {'BLOCK': 256}, target='gfx1250')\n")
    assert check.returncode == 0, check.stderr[-2000:]


OVERRUN = """
import numpy as np
import rocktile
import rocktile.language as tl
{padding}
@rocktile.jit
def overrun(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs <= n), mask=offs <= n)

try:
    overrun[(1,)](np.zeros(16, np.float32), 16, BLOCK=32)
except rocktile.EmulatorError as e:
    print(str(e).splitlines()[-1].strip())
"""


def test_a_hit_reports_its_own_file_and_line(tmp_path):
    """The same kernel in another file, or moved down five lines, is another
    cache entry: an emulator error on a hit named the first copy's a.py:9."""
    env = {**os.environ, "ROCKTILE_CACHE_DIR": str(tmp_path / "cache")}
    places = []
    for name, padding in (("a.py", ""), ("a.py", "\n" * 5), ("b.py", "")):
        (tmp_path / name).write_text(OVERRUN.format(padding=padding))
        done = subprocess.run([sys.executable, str(tmp_path / name)], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        places.append(done.stdout.strip())
    assert places == [f"at {tmp_path / name}:{line}:28" for name, line in (("a.py", 9), ("a.py", 14), ("b.py", 9))]
    assert len(entries(tmp_path / "cache")) == 3


def test_an_entry_that_is_no_regular_file_is_recompiled(cache_dir, compiles):
    """A FIFO in an entry's place blocked open() forever: it is skipped with
    a warning, recompiled, and replaced by a regular file."""
    compile_triple()
    [path] = entries(cache_dir)
    os.unlink(path)
    os.mkfifo(path)
    with pytest.warns(RuntimeWarning, match="ignoring the cache entry .* \\(not a regular file\\)"):
        compile_triple()
    assert compiles[0] == 2 and os.path.isfile(path)
    compile_triple()
    assert compiles[0] == 2  # the rewritten entry is read


def test_an_emulator_launch_defers_the_code_object(cache_dir, compiles, monkeypatch):
    """A launch in the emulator compiles to the SIMT program only; the code
    object is made when first asked for, once, and then kept in the cache
    entry; ROCKTILE_EMULATOR_CODE_OBJECTS=1 makes it at the launch."""
    monkeypatch.setenv("ROCKTILE_DEVICE", "emulator")
    x = np.arange(50, dtype=np.float32)
    y = np.zeros_like(x)
    triple.cache.clear()
    k = triple[(1,)](x, y, 50, BLOCK=64)
    np.testing.assert_array_equal(y, 3 * x)
    assert k.code_object_pending and compiles[0] == 1
    emit = compiler.load_C().emit_code_object
    made = []
    monkeypatch.setattr(compiler.load_C(), "emit_code_object", lambda *a: made.append(1) or emit(*a))
    assert "v_mul_f32" in k.asm["amdgcn"] and k.metadata["vgpr_count"] > 0 and not k.code_object_pending
    triple.cache.clear()
    again = triple[(1,)](x, y, 50, BLOCK=64)  # the cache entry, with the code object made for k
    assert not again.code_object_pending and again.hsaco == k.hsaco and compiles[0] == 1 and len(made) == 1
    monkeypatch.setenv("ROCKTILE_CACHE", "0")  # the same made at once: the same code object
    assert rocktile.compile(triple, k.signature, {"BLOCK": 64}).hsaco == k.hsaco
    monkeypatch.delenv("ROCKTILE_CACHE")
    triple.cache.clear()
    monkeypatch.setenv("ROCKTILE_EMULATOR_CODE_OBJECTS", "1")
    k = triple[(1,)](x, y, 50, BLOCK=32)
    assert not k.code_object_pending
