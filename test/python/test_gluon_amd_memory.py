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


# --------------------------------------------------------------------------
# Asynchronous copies into shared memory.

@gluon.jit
def copy_through_shared(x_ptr, y_ptr, L: gl.constexpr, R: gl.constexpr, S: gl.constexpr, GFX950: gl.constexpr):
    """Y = X (64x64 fp16) by an async copy into a block in S, read back in R."""
    rows = gl.arange(0, 64, layout=gl.SliceLayout(1, L))
    cols = gl.arange(0, 64, layout=gl.SliceLayout(0, L))
    smem = gl.allocate_shared_memory(gl.float16, [64, 64], S)
    if GFX950:
        gl.amd.cdna4.async_copy.global_load_to_shared(smem, x_ptr + rows[:, None] * 64 + cols[None, :])
    else:
        gl.amd.gfx1250.async_copy.global_to_shared(smem, x_ptr + rows[:, None] * 64 + cols[None, :])
    gl.amd.cdna4.async_copy.commit_group()
    gl.amd.cdna4.async_copy.wait_group(0)
    y = gl.amd.cdna4.async_copy.load_shared_relaxed(smem, R)
    r = gl.arange(0, 64, layout=gl.SliceLayout(1, R))
    c = gl.arange(0, 64, layout=gl.SliceLayout(0, R))
    gl.store(y_ptr + r[:, None] * 64 + c[None, :], y)


@pytest.mark.parametrize("target", CHIPS)
@pytest.mark.parametrize("swizzle", [(1, 1, 1), (8, 1, 8), (8, 2, 4)], ids=["plain", "swizzled", "swizzled2"])
def test_an_async_copy_lands_where_the_shared_layout_says(target, swizzle):
    """The pointers come in rows (one 16-byte run per lane); the copy lands
    each run where the swizzle puts it, which a read in columns shows."""
    wave = CHIPS[target]
    x = np.arange(64 * 64, dtype=np.float32).reshape(64, 64).astype(np.float16)
    y = np.zeros_like(x)
    copy_through_shared[(1,)](x, y, L=gl.BlockedLayout([1, 8], [wave // 8, 8], [4, 1], [1, 0]),
                              R=gl.BlockedLayout([4, 1], [16, wave // 16], [1, 4], [0, 1]),
                              S=gl.SwizzledSharedLayout(*swizzle, [1, 0]), GFX950=target == "gfx950", target=target)
    np.testing.assert_array_equal(y, x)


def async_gemm_example():
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(FILE)))), "examples",
                        "gluon_matmul.py")
    spec = importlib.util.spec_from_file_location("gluon_matmul", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, path


@pytest.mark.parametrize("shape, config", [
    ((300, 240, 208), {}),
    ((70, 48, 160), {"stages": 2}),
    ((130, 144, 96), {"block_m": 64, "block_n": 64, "block_k": 32, "num_warps": 4, "stages": 4}),
])
def test_the_gfx950_async_copy_gemm(shape, config):
    """examples/gluon_matmul.py's ring of direct-to-LDS loads, against numpy
    (K and N multiples of 16: the copies move 16-byte runs of rows)."""
    import ml_dtypes
    example, _ = async_gemm_example()
    M, N, K = shape
    rng = np.random.default_rng(3)
    a = rng.standard_normal((M, K)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((K, N)).astype(ml_dtypes.bfloat16)
    c = example.matmul(a, b, "gfx950", "async", **config)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-5, atol=1e-4)


def test_a_wait_group_one_too_weak_is_caught():
    """Waiting for one group fewer than the read needs: the emulator names
    the copy that has not landed (the prologue's first, read first) and
    the read."""
    import ml_dtypes
    example, path = async_gemm_example()
    a = np.ones((128, 256), ml_dtypes.bfloat16)
    b = np.ones((256, 128), ml_dtypes.bfloat16)
    c = np.zeros((128, 128), np.float32)
    cx = example.async_layouts()
    with pytest.raises(rocktile.EmulatorError) as e:
        example.gluon_async_matmul_kernel[(1, 1)](a, b, c, 128, 128, 256, 256, 128, 128, **cx, IN_FLIGHT=3,
                                                  target="gfx950")
    with open(path) as f:
        lines = f.read().splitlines()
    copy = next(i for i, line in enumerate(lines, 1) if "buffer_load_to_shared(a_ring.index(s)" in line)
    read = next(i for i, line in enumerate(lines, 1) if line.rstrip().endswith("# async-read"))
    message = str(e.value)
    assert "read before its copy was waited for" in message, message
    assert f"{path}:{copy}:" in message and f"{path}:{read}:" in message, message


@gluon.jit
def async_copy_mistakes(x_ptr, L: gl.constexpr, S: gl.constexpr, CASE: gl.constexpr):
    offs = gl.arange(0, 64, layout=gl.SliceLayout(1, L))[:, None] * 64 + \
        gl.arange(0, 64, layout=gl.SliceLayout(0, L))[None, :]
    smem = gl.allocate_shared_memory(gl.float16, [64, 64], S)
    if CASE == 0:
        gl.amd.gfx1250.async_copy.global_to_shared(smem, x_ptr + offs, mask=offs < 128)  # ERR-async-mask
    elif CASE == 1:
        gl.amd.cdna4.async_copy.buffer_load_to_shared(smem, x_ptr, offs, mask=offs < 100, other=1.0)  # ERR-other
    elif CASE == 2:
        small = gl.allocate_shared_memory(gl.float16, [32, 64], S)
        gl.amd.cdna4.async_copy.global_load_to_shared(small, x_ptr + offs)  # ERR-async-shape
    elif CASE == 3:
        gl.amd.cdna4.async_copy.wait_group(-1)  # ERR-wait-group
    elif CASE == 5:
        gl.amd.cdna4.async_copy.buffer_load_to_shared(smem, x_ptr, offs, mask=offs < 100)  # ERR-runs
    else:
        gl.amd.gfx1250.async_copy.mbarrier_arrive(smem)  # ERR-mbarrier


@pytest.mark.parametrize("case, target, marker, message", [
    (0, "gfx1250", "# ERR-async-mask", "tile.async_load with a mask needs gfx1250's async loads through a buffer "
                                       "resource (a ':range32' pointer), which it has not: the Tensor Data Mover "
                                       "(tdm.async_load) zero-fills what lies outside the tensor"),
    (1, "gfx950", "# ERR-other", "buffer_load_to_shared's masked-off elements land as zeros: other must be 0 or "
                                 "None, got 1.0"),
    (2, "gfx950", "# ERR-async-shape", "the pointers must address a block of the destination's shape and dtype"),
    (5, "gfx950", "# ERR-runs", "each lane copies runs of 8 elements (16 bytes) with one instruction, but the "
                                "compiler proves runs of only 4"),
    (3, "gfx950", "# ERR-wait-group", "async_copy.wait_group needs a non-negative Python int, got -1"),
    (4, "gfx1250", "# ERR-mbarrier", "async_copy.mbarrier_arrive is not supported by rocktile yet"),
])
def test_async_copy_mistakes(case, target, marker, message):
    wave = CHIPS[target]
    with pytest.raises(rocktile.CompilationError) as info:
        async_copy_mistakes.compile({"x_ptr": "*fp16:16:range32"},
                                    {"L": gl.BlockedLayout([1, 8], [wave // 8, 8], [4, 1], [1, 0]),
                                     "S": gl.SwizzledSharedLayout(8, 1, 8, [1, 0]), "CASE": case},
                                    target=target, num_warps=4)
    check_located(info.value, marker, message)
