"""The emulator's racecheck and initcheck for global memory, on both chips:
- within a workgroup, an access that conflicts with another wave's since
  their last barrier (at least one a write, not both atomics) is an error
  naming both lines, whichever order the emulator ran them in;
- across workgroups, a plain write and another workgroup's later plain
  write or read of the same bytes in one launch are an error naming both
  workgroups, unless a release and an acquire order them (a volatile load,
  the flag of a hand-off, races with nothing);
- reads of memory marked uninitialized that no kernel wrote are an error
  naming the byte and the line (the C path's hipMalloc memory: test_aot)."""
import numpy as np
import pytest

import rocktile
import rocktile.language as tl

TARGETS = ["gfx950", "gfx1250"]


def line_of(text):
    return next(i for i, t in enumerate(open(__file__), 1) if text in t)


@rocktile.jit
def reverse_through_memory(x_ptr, y_ptr, BLOCK: tl.constexpr, BARRIER: tl.constexpr):
    """Writes a tile to x, then reads it back reversed: the elements come
    from other waves, which a barrier must separate from their writes."""
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, offs)  # WRITE-TILE
    if BARRIER:
        tl.debug_barrier()
    tl.store(y_ptr + offs, tl.load(x_ptr + (BLOCK - 1 - offs)))  # READ-REVERSED


@pytest.mark.parametrize("target", TARGETS)
def test_waves_reading_each_others_writes_need_a_barrier(target):
    x, y = np.zeros(256, np.int32), np.zeros(256, np.int32)
    reverse_through_memory[(1,)](x, y, BLOCK=256, BARRIER=True, num_warps=4, target=target)
    np.testing.assert_array_equal(y, np.arange(255, -1, -1))
    with pytest.raises(rocktile.EmulatorError, match=r"workgroup \(0, 0, 0\): global memory race on byte \d+ of "
                       rf"'x_ptr'.*: wave \d (reads|writes) it at {__file__}:\d+:\d+, and wave \d (wrote|read) it "
                       rf"at {__file__}:\d+:\d+ with no barrier between them") as info:
        reverse_through_memory[(1,)](x, y, BLOCK=256, BARRIER=False, num_warps=4, target=target)
    message = str(info.value)
    assert f":{line_of('# WRITE-TILE')}:" in message and f":{line_of('# READ-REVERSED')}:" in message, message


@rocktile.jit
def reverse_copy(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + (BLOCK - 1 - offs), tl.load(x_ptr + offs))  # REVERSE-COPY


@pytest.mark.parametrize("target", TARGETS)
def test_a_read_only_argument_aliasing_a_written_one_is_checked(target):
    """An argument the kernel only reads has no racecheck shadow, unless
    its memory is another argument's that the kernel writes: here each
    wave overwrites what another wave reads."""
    x, y = np.arange(1024, dtype=np.int32), np.zeros(1024, np.int32)
    reverse_copy[(1,)](x, y, BLOCK=1024, num_warps=4, target=target)
    np.testing.assert_array_equal(y, x[::-1])
    with pytest.raises(rocktile.EmulatorError, match=r"global memory race on byte \d+ of '(x|y)_ptr'") as info:
        reverse_copy[(1,)](x, x, BLOCK=1024, num_warps=4, target=target)
    assert f":{line_of('# REVERSE-COPY')}:" in str(info.value)


@rocktile.jit
def shift_through_memory(x_ptr, y_ptr, BLOCK: tl.constexpr, BARRIER: tl.constexpr):
    """Writes a tile to x in 16-byte vectors, then reads each lane's
    neighbour's vector: at the waves' edges, another wave's."""
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, offs)  # WRITE-VECTORS
    if BARRIER:
        tl.debug_barrier()
    tl.store(y_ptr + offs, tl.load(x_ptr + offs + 4, mask=offs + 4 < BLOCK, other=-1))  # READ-NEXT-VECTOR


@pytest.mark.parametrize("target", TARGETS)
def test_vector_accesses_race_as_their_elements_do(target):
    # Racecheck tracks x in 16-byte blocks (every access to it is an
    # aligned 16-byte vector): a read of the next wave's block is still a
    # race, the neighbouring blocks of one wave's lanes are not.
    x, y = np.zeros(1024, np.int32), np.zeros(1024, np.int32)
    kernel = shift_through_memory[(1,)]
    kernel(x, y, BLOCK=1024, BARRIER=True, num_warps=4, target=target)
    np.testing.assert_array_equal(y, np.r_[np.arange(4, 1024), [-1] * 4])
    assert "vector<4xi32>" in shift_through_memory.cache[next(iter(shift_through_memory.cache))].asm["simt"]
    with pytest.raises(rocktile.EmulatorError, match=r"global memory race on byte \d+ of 'x_ptr'") as info:
        kernel(x, y, BLOCK=1024, BARRIER=False, num_warps=4, target=target)
    message = str(info.value)
    assert f":{line_of('# WRITE-VECTORS')}:" in message and f":{line_of('# READ-NEXT-VECTOR')}:" in message, message


@rocktile.jit
def every_program_writes(out_ptr, counter_ptr, ATOMIC: tl.constexpr):
    if ATOMIC:
        tl.atomic_add(counter_ptr, 1)
        tl.atomic_max(out_ptr, tl.program_id(0))
    else:
        tl.store(out_ptr, tl.program_id(0))  # PLAIN-WRITE


@pytest.mark.parametrize("target", TARGETS)
def test_programs_writing_one_address_race_unless_atomic(target, monkeypatch):
    out, counter = np.zeros(1, np.int32), np.zeros(1, np.int32)
    every_program_writes[(64,)](out, counter, ATOMIC=True, target=target)
    assert out[0] == 63 and counter[0] == 64
    line = line_of("# PLAIN-WRITE")
    with pytest.raises(rocktile.EmulatorError, match=rf"global memory race on byte 0 of 'out_ptr' .*: workgroup "
                       rf"\(\d+, 0, 0\) writes it at {__file__}:{line}:\d+, and workgroup \(\d+, 0, 0\) wrote it at "
                       rf"{__file__}:{line}:\d+, neither with an atomic nor ordered by a release and an acquire"):
        every_program_writes[(64,)](out, counter, ATOMIC=False, target=target)
    # A kernel that means the race (any program's id will do) turns the
    # check across workgroups off; the one within workgroups stays.
    monkeypatch.setenv("ROCKTILE_EMULATOR_RACECHECK", "workgroup")
    every_program_writes[(64,)](out, counter, ATOMIC=False, target=target)
    assert 0 <= out[0] < 64
    x, y = np.zeros(256, np.int32), np.zeros(256, np.int32)
    with pytest.raises(rocktile.EmulatorError, match="no barrier between them"):
        reverse_through_memory[(1,)](x, y, BLOCK=256, BARRIER=False, num_warps=4, target=target)
    monkeypatch.setenv("ROCKTILE_EMULATOR_RACECHECK", "0")
    reverse_through_memory[(1,)](x, y, BLOCK=256, BARRIER=False, num_warps=4, target=target)


@rocktile.jit
def bump(counter_ptr, out_ptr):
    """Every program's read-modify-write of its own counter: all waves read
    it, one thread writes it; the waves' older copies are never used."""
    pid = tl.program_id(0)
    count = tl.load(counter_ptr + pid)
    tl.store(counter_ptr + pid, count + 1)
    tl.store(out_ptr + pid * 128 + tl.arange(0, 128), tl.full((128,), 0, tl.int32) + count)


@pytest.mark.parametrize("target", TARGETS)
def test_scalar_read_modify_write_is_not_a_race(target):
    counter, out = np.arange(4, dtype=np.int32), np.zeros(4 * 128, np.int32)
    bump[(4,)](counter, out, num_warps=4, target=target)
    np.testing.assert_array_equal(counter, np.arange(4) + 1)
    np.testing.assert_array_equal(out, np.repeat(np.arange(4), 128))


@rocktile.jit
def scale_in_place(x_ptr, out_ptr, n, BLOCK: tl.constexpr, READ_BACK: tl.constexpr):
    """An update in place, as Liger's kernels write them, over a tile that
    every wave holds a copy of (64 elements, 8 warps): each wave reads every
    element, one writes it; reading it back at another line, without a
    barrier, races with that write."""
    for i in range(0, n, BLOCK):
        offs = i + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n)
        tl.store(x_ptr + offs, x * 2, mask=offs < n)  # UPDATE-IN-PLACE
    if READ_BACK:
        tl.store(out_ptr + tl.arange(0, BLOCK), tl.load(x_ptr + tl.arange(0, BLOCK)) + 1)  # READ-BACK


@pytest.mark.parametrize("target", TARGETS)
def test_an_update_in_place_is_not_a_race_but_reading_it_back_is(target):
    x, out = np.arange(200, dtype=np.float32), np.zeros(64, np.float32)
    scale_in_place[(1,)](x, out, 200, BLOCK=64, READ_BACK=False, num_warps=8, target=target)
    np.testing.assert_array_equal(x, np.arange(200) * 2)
    with pytest.raises(rocktile.EmulatorError, match=rf"reads it at {__file__}:{line_of('# READ-BACK')}:\d+, and wave "
                       rf"\d wrote it at {__file__}:{line_of('# UPDATE-IN-PLACE')}:"):
        scale_in_place[(1,)](x, out, 200, BLOCK=64, READ_BACK=True, num_warps=8, target=target)


@rocktile.jit
def accumulate(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    total = tl.load(out_ptr + offs, mask=mask) + tl.load(x_ptr + offs, mask=mask)  # READ-OUT
    tl.store(out_ptr + offs, total, mask=mask)


@rocktile.jit
def fill(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, offs.to(tl.float32), mask=offs < n)


@pytest.mark.parametrize("target", TARGETS)
def test_reading_memory_no_kernel_wrote(target):
    x = np.ones(200, np.float32)
    out = rocktile.uninitialized(np.empty(200, np.float32))
    fill[(2,)](out, 150, BLOCK=128, target=target)  # the first 150 elements
    with pytest.raises(rocktile.EmulatorError, match=r"workgroup \(1, 0, 0\), wave 0, lane 22: load of 1 element\(s\) "
                       r"at index 150 reads byte 600 of 'out_ptr' .*which neither the host nor a kernel wrote "
                       rf"\(uninitialized memory\)\n  at {__file__}:{line_of('# READ-OUT')}:"):
        accumulate[(2,)](x, out, 200, BLOCK=128, target=target)
    fill[(2,)](out, 200, BLOCK=128, target=target)
    accumulate[(2,)](x, out, 200, BLOCK=128, target=target)
    np.testing.assert_array_equal(out, np.arange(200) + 1)
    # A view of marked memory is covered; unmarked memory is not checked.
    tail = rocktile.uninitialized(np.empty(300, np.float32))[100:]
    with pytest.raises(rocktile.EmulatorError, match="index 0 reads byte 0 of 'out_ptr'"):
        accumulate[(2,)](x, tail, 200, BLOCK=128, target=target)
    accumulate[(2,)](x, np.empty(200, np.float32), 200, BLOCK=128, target=target)


def test_uninitialized_marks_host_memory_only():
    with pytest.raises(TypeError, match="marks host memory"):
        rocktile.uninitialized(rocktile.DeviceBuffer(rocktile.buffers.Buffer(4096, 16, "float32", 4, 0)))


@rocktile.jit
def copy_through_descriptor(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    y_desc = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    y_desc.store([0, 0], x_desc.load([0, 0]) + 1)  # DESCRIPTOR-COPY


@pytest.mark.parametrize("target", TARGETS)
def test_descriptor_copies_are_checked_too(target):
    """Initcheck and racecheck see the global side of descriptor loads and
    stores: on gfx1250 the Tensor Data Mover's, on gfx950 the loads and
    stores they lower to."""
    x = rocktile.uninitialized(np.empty((16, 32), np.float32))
    x[:8] = 1  # the host's writes after the mark are not seen: row 0 is unwritten
    with pytest.raises(rocktile.EmulatorError, match=r"reads byte 0 of 'x_ptr' .*which neither the host nor a kernel "
                       rf"wrote \(uninitialized memory\)\n  at {__file__}:{line_of('# DESCRIPTOR-COPY')}:") as info:
        copy_through_descriptor[(1,)](x, np.zeros((16, 32), np.float32), 16, 32, BM=16, BN=32, target=target)
    assert ("tensor_load_to_lds (row 0 of the tile) reads" in str(info.value)) == (target == "gfx1250"), info.value
    y = np.zeros((16, 32), np.float32)
    copy_through_descriptor[(1,)](np.ones((16, 32), np.float32), y, 16, 32, BM=16, BN=32, target=target)
    np.testing.assert_array_equal(y, 2)


@rocktile.jit
def write_through_a_chosen_pointer(a_ptr, b_ptr, SAME: tl.constexpr):
    """Program 0 writes a; the others write a too (SAME) or b. The pointer
    is chosen at run time, so the program reaches memory by its address."""
    offs = tl.arange(0, 64)
    if tl.program_id(0) == 0 or SAME:
        dst = a_ptr + offs
    else:
        dst = b_ptr + offs
    tl.store(dst, offs)  # CHOSEN-WRITE


@pytest.mark.parametrize("target", TARGETS)
def test_a_pointer_chosen_at_run_time_is_checked_as_its_argument(target):
    """An access through a pointer picked among the arguments at run time
    is racechecked, and counted in the launch's traffic, as one through
    the argument its address lands in."""
    a, b = np.zeros(64, np.int32), np.zeros(64, np.int32)
    k = write_through_a_chosen_pointer[(2,)](a, b, SAME=False, target=target)
    assert (a == np.arange(64)).all() and (b == np.arange(64)).all()
    assert k.global_memory_traffic() == {"a_ptr": {"read": 0, "written": 256, "atomic": 0},
                                         "b_ptr": {"read": 0, "written": 256, "atomic": 0}}
    line = line_of("# CHOSEN-WRITE")
    with pytest.raises(rocktile.EmulatorError, match=rf"global memory race on byte 0 of 'a_ptr' .*: workgroup "
                       rf"\(\d, 0, 0\) writes it at {__file__}:{line}:\d+, and workgroup \(\d, 0, 0\) wrote it"):
        write_through_a_chosen_pointer[(2,)](a, b, SAME=True, target=target)


@rocktile.jit
def add_rows(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)
    tl.atomic_add(out_ptr + n, 1.0)


@pytest.mark.parametrize("target", TARGETS)
def test_global_memory_traffic_counts_the_lanes_accesses(target):
    """Per pointer argument, the bytes the launch's active lanes read, wrote
    and updated atomically: masked-off lanes count nothing; a scalar
    atomic updates once per program."""
    n = 1000
    x, y, out = np.ones(n, np.float32), np.ones(n, np.float32), np.zeros(n + 1, np.float32)
    k = add_rows[(4,)](x, y, out, n, BLOCK=256, target=target)
    assert out[n] == 4
    assert k.global_memory_traffic() == {"x_ptr": {"read": 4 * n, "written": 0, "atomic": 0},
                                         "y_ptr": {"read": 4 * n, "written": 0, "atomic": 0},
                                         "out_ptr": {"read": 0, "written": 4 * n, "atomic": 4 * 4}}


@rocktile.jit
def publish_then_read(data_ptr, flag_ptr, out_ptr, ACQUIRE: tl.constexpr):
    """Program 0 writes data and releases a flag; program 1 waits for the
    flag, then reads the data: with an acquire, or with a volatile load,
    which orders nothing."""
    offs = tl.arange(0, 64)
    if tl.program_id(0) == 0:
        tl.store(data_ptr + offs, offs)
        tl.atomic_xchg(flag_ptr, 1, sem="release")
    else:
        if ACQUIRE:
            while tl.atomic_add(flag_ptr, 0, sem="acquire") == 0:
                pass
        else:
            while tl.load(flag_ptr, volatile=True) == 0:
                pass
        tl.store(out_ptr + offs, tl.load(data_ptr + offs))  # READ-PUBLISHED


@pytest.mark.parametrize("target", TARGETS)
def test_reading_another_programs_write_needs_an_acquire(target):
    data, flag, out = np.zeros(64, np.int32), np.zeros(1, np.int32), np.zeros(64, np.int32)
    publish_then_read[(2,)](data, flag, out, ACQUIRE=True, target=target)
    assert (out == np.arange(64)).all()
    flag[0] = 0
    line = line_of("# READ-PUBLISHED")
    with pytest.raises(rocktile.EmulatorError, match=rf"global memory race on byte 0 of 'data_ptr' .*: workgroup "
                       rf"\(1, 0, 0\) reads it at {__file__}:{line}:\d+, and workgroup \(0, 0, 0\) wrote it"):
        publish_then_read[(2,)](data, flag, out, ACQUIRE=False, target=target)
