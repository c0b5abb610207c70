"""gl.amd's memory operations at the explicit level: buffer loads, stores
and atomics, and the asynchronous copies into shared memory with their
commit groups and waits, run in the emulator against numpy on both chips."""
import numpy as np
import pytest

import rocktile
from rocktile import gluon
import rocktile.gluon.language as gl

FILE = __file__
CHIPS = {"gfx950": 64, "gfx1250": 32}


def line_of(marker):
    with open(FILE) as f:
        for lineno, line in enumerate(f, 1):
            if line.rstrip().endswith(marker):
                return lineno
    raise AssertionError(marker)


def check_located(error, marker, message):
    assert (error.filename, error.lineno) == (FILE, line_of(marker)), str(error)
    assert message in str(error), str(error)


# --------------------------------------------------------------------------
# Buffer operations.

@gluon.jit
def buffer_ops(x_ptr, y_ptr, hist_ptr, n, BLOCK: gl.constexpr, L: gl.constexpr, CDNA4: gl.constexpr):
    offs = gl.program_id(0) * BLOCK + gl.arange(0, BLOCK, layout=L)
    ones = gl.full([BLOCK], 1, gl.uint32, L)
    if CDNA4:
        x = gl.amd.cdna4.buffer_load(x_ptr, offs, mask=offs < n, other=-1.0)
        gl.amd.cdna4.buffer_store(x * 2 + 1, y_ptr, offs, mask=offs < n)
        gl.amd.cdna4.buffer_atomic_add(hist_ptr, (x > 0).to(gl.int32), ones, mask=offs < n + 3)
    else:
        x = gl.amd.gfx1250.buffer_load(x_ptr, offs, mask=offs < n, other=-1.0)
        gl.amd.gfx1250.buffer_store(x * 2 + 1, y_ptr, offs, mask=offs < n)
        gl.atomic_add(hist_ptr + (x > 0).to(gl.int32), ones, mask=offs < n + 3)


@pytest.mark.parametrize("target", CHIPS)
def test_buffer_loads_stores_and_atomics(target):
    """Masked-off lanes load `other` (-1: counted as not positive, by the
    three lanes past n the atomic's mask lets through)."""
    rng = np.random.default_rng(1)
    n = 1000
    x = rng.standard_normal(n).astype(np.float32)
    y = np.zeros(n, np.float32)
    hist = np.zeros(2, np.uint32)
    wave = CHIPS[target]
    buffer_ops[(rocktile.cdiv(n, 4 * wave * 4),)](x, y, hist, n, BLOCK=4 * wave * 4,
                                                  L=gl.BlockedLayout([4], [wave], [4], [0]),
                                                  CDNA4=target == "gfx950", target=target)
    np.testing.assert_array_equal(y, 2 * x + 1)
    assert list(hist) == [np.sum(x <= 0) + 3, np.sum(x > 0)]


def test_buffer_ops_are_buffer_instructions():
    kernel = rocktile.compile(buffer_ops, signature={"x_ptr": "*fp32:16:range32", "y_ptr": "*fp32:16:range32",
                                                      "hist_ptr": "*u32:16:range32", "n": "i32"},
                              constexprs={"BLOCK": 1024, "L": gl.BlockedLayout([4], [64], [4], [0]), "CDNA4": True},
                              target="gfx950")
    lines = [line.split() for line in kernel.asm["amdgcn"].splitlines()]
    ops = {line[0] for line in lines if line}
    assert {"buffer_load_dword", "buffer_store_dword"} <= ops, ops
    # The atomics: a scalar base and 32-bit offsets, in the global form.
    [atomic] = {line[0] for line in lines if line and "atomic" in line[0]}
    assert atomic == "global_atomic_add", atomic


@gluon.jit
def buffer_mistakes(x_ptr, L: gl.constexpr, CASE: gl.constexpr):
    offs = gl.arange(0, 256, layout=L)
    if CASE == 0:
        gl.amd.cdna4.buffer_load(x_ptr + offs, offs)  # ERR-buffer-ptr
    elif CASE == 1:
        gl.amd.cdna4.buffer_load(x_ptr, offs.to(gl.int64))  # ERR-buffer-offsets
    elif CASE == 2:
        gl.amd.cdna4.buffer_load(x_ptr, offs, other=0)  # ERR-buffer-other
    else:
        gl.amd.cdna3.buffer_atomic_add(x_ptr, offs, 1)  # ERR-buffer-atomic


@pytest.mark.parametrize("case, marker, message", [
    (0, "# ERR-buffer-ptr", "buffer_load's ptr must be a scalar pointer (the buffer's base), got a tile of pointer<int32>"),
    (1, "# ERR-buffer-offsets", "buffer_load's offsets must be a tile of int32 or uint32 element offsets, got "
                                "a tile of int64"),
    (2, "# ERR-buffer-other", "buffer_load: when other is given, mask must be too"),
    (3, "# ERR-buffer-atomic", "cdna3.buffer_atomic_add does not take int32 elements; it takes fp16, fp32, fp64, "
                               "uint32, uint64"),
])
def test_buffer_op_mistakes(case, marker, message):
    with pytest.raises(rocktile.CompilationError) as info:
        buffer_mistakes.compile({"x_ptr": "*i32"}, {"L": gl.BlockedLayout([4], [64], [1], [0]), "CASE": case},
                                target="gfx950", num_warps=1)
    check_located(info.value, marker, message)
