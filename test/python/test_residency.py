"""Workgroups that wait for each other, in the emulator: a volatile load or
an atomic in a while loop is where a program may wait, and a launch with
such points runs every workgroup resident (as fibers that give way there),
so hand-offs between programs progress on any host; a launch where every
program waits for ever is an EmulatorError naming each one's line."""
import numpy as np
import pytest

import rocktile
import rocktile.language as tl

TARGETS = ["gfx950", "gfx1250"]


@rocktile.jit
def hand_off_chain(flags_ptr, N: tl.constexpr):
    """Program p waits for program p + 1's flag, then sets its own to one
    more: the last program starts the chain, which the first to start must
    wait for."""
    pid = tl.program_id(0)
    seen = 0
    if pid < N - 1:
        seen = tl.load(flags_ptr + pid + 1, volatile=True)
        while seen == 0:
            seen = tl.load(flags_ptr + pid + 1, volatile=True)
    tl.store(flags_ptr + pid, seen + 1)


@pytest.mark.parametrize("target", TARGETS)
def test_programs_wait_for_programs_that_start_later(target):
    flags = np.zeros(16, np.int32)
    hand_off_chain[(16,)](flags, N=16, target=target)
    np.testing.assert_array_equal(flags, np.arange(16, 0, -1))


@rocktile.jit
def hand_off_chain_cv(flags_ptr, N: tl.constexpr):
    """hand_off_chain spinning as some Triton kernels do, with the ".cv"
    cache modifier ("don't cache, fetch again") instead of volatile=True."""
    pid = tl.program_id(0)
    seen = 0
    if pid < N - 1:
        seen = tl.load(flags_ptr + pid + 1, cache_modifier=".cv")
        while seen == 0:
            seen = tl.load(flags_ptr + pid + 1, cache_modifier=".cv")
    tl.store(flags_ptr + pid, seen + 1, cache_modifier=".wt")


@pytest.mark.parametrize("target", TARGETS)
def test_a_cv_load_is_read_afresh_as_a_volatile_one(target):
    flags = np.zeros(16, np.int32)
    hand_off_chain_cv[(16,)](flags, N=16, target=target)
    np.testing.assert_array_equal(flags, np.arange(16, 0, -1))
    kernel = next(iter(hand_off_chain_cv.cache.values()))
    assert "isVolatile" in kernel.asm["tile"]


@rocktile.jit
def hinted_copy(x_ptr, y_ptr, LOAD_HINT: tl.constexpr, STORE_HINT: tl.constexpr, EVICT: tl.constexpr):
    offs = tl.arange(0, 64)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, cache_modifier=LOAD_HINT, eviction_policy=EVICT),
             cache_modifier=STORE_HINT)


@pytest.mark.parametrize("load_hint, store_hint, evict, error", [
    (".cg", ".cs", "evict_first", None),
    (".ca", ".wb", "evict_last", None),
    (".wt", "", "", r"cache_modifier '\.wt' is not one of '\.ca', '\.cg', '\.cs', '\.cv'"),
    ("", ".cv", "", r"cache_modifier '\.cv' is not one of '\.wb', '\.cg', '\.cs', '\.wt'"),
    ("", "", "evict_soon", r"eviction_policy 'evict_soon' is not one of"),
])
def test_cache_hints_are_checked_as_triton_checks_them(load_hint, store_hint, evict, error):
    x, y = np.arange(64, dtype=np.float32), np.zeros(64, np.float32)
    if error is None:
        hinted_copy[(1,)](x, y, LOAD_HINT=load_hint, STORE_HINT=store_hint, EVICT=evict, target="gfx950")
        np.testing.assert_array_equal(y, x)
        return
    with pytest.raises(rocktile.CompilationError, match=error) as info:
        hinted_copy[(1,)](x, y, LOAD_HINT=load_hint, STORE_HINT=store_hint, EVICT=evict, target="gfx950")
    assert "test_residency.py" in str(info.value)


@pytest.mark.parametrize("target, load_bit, store_bit", [("gfx950", " nt", " nt"),
                                                          ("gfx1250", " th:TH_LOAD_NT", " th:TH_STORE_NT")])
def test_cs_accesses_are_nontemporal(target, load_bit, store_bit):
    """cache_modifier=".cs" (streaming, likely accessed once) makes the load
    and the store nontemporal on the GPU, and nothing else does."""
    sig = {"x_ptr": "*fp32:16", "y_ptr": "*fp32:16"}
    for hints, hinted in (((".cs", ".cs", ""), True), ((".cg", ".wb", "evict_first"), False)):
        k = rocktile.compile(hinted_copy, sig, dict(zip(("LOAD_HINT", "STORE_HINT", "EVICT"), hints)), target=target)
        accesses = [line.strip() for line in k.asm["amdgcn"].splitlines() if line.strip().startswith("buffer_")]
        loads = [line for line in accesses if "load" in line]
        stores = [line for line in accesses if "store" in line]
        assert loads and stores
        assert all(line.endswith(load_bit) == hinted for line in loads), loads
        assert all(line.endswith(store_bit) == hinted for line in stores), stores


@rocktile.jit
def count_under_lock(lock_ptr, counter_ptr, USE_LOCK: tl.constexpr, SEM: tl.constexpr = "acq_rel"):
    """A read-modify-write of a counter by every program, under a spin lock
    taken with atomic_cas. The counter's read is volatile: a point where the
    other programs run, as they would on the GPU between read and write."""
    if USE_LOCK:
        while tl.atomic_cas(lock_ptr, 0, 1, sem=SEM) != 0:
            pass
    count = tl.load(counter_ptr, volatile=True)
    tl.store(counter_ptr, count + 1)
    if USE_LOCK:
        tl.atomic_xchg(lock_ptr, 0, sem=SEM)


@pytest.mark.parametrize("target", TARGETS)
def test_spin_lock_serializes_programs(target):
    lock, counter = np.zeros(1, np.int32), np.zeros(1, np.int32)
    count_under_lock[(12,)](lock, counter, USE_LOCK=True, target=target)
    assert counter[0] == 12 and lock[0] == 0


@pytest.mark.parametrize("target", TARGETS)
def test_missing_lock_is_a_race_and_loses_updates(target, monkeypatch):
    """The planted bug: without the lock, racecheck reports the programs'
    unordered writes of the counter; with the check across workgroups off,
    programs interleave between the read and the write, and updates are lost
    (not silently right)."""
    line = next(i for i, t in enumerate(open(__file__), 1) if "tl.store(counter_ptr, count + 1)" in t)
    lock, counter = np.zeros(1, np.int32), np.zeros(1, np.int32)
    with pytest.raises(rocktile.EmulatorError, match=f"global memory race on byte 0 of 'counter_ptr'.*"
                       f"writes it at {__file__}:{line}:.* wrote it at {__file__}:{line}:"):
        count_under_lock[(12,)](lock, counter, USE_LOCK=False, target=target)
    monkeypatch.setenv("ROCKTILE_EMULATOR_RACECHECK", "workgroup")
    counter[0] = 0
    count_under_lock[(12,)](lock, counter, USE_LOCK=False, target=target)
    assert counter[0] < 12


@pytest.mark.parametrize("target", TARGETS)
def test_a_lock_without_acquire_and_release_is_a_race(target):
    """The planted missing fence: with relaxed atomics the lock orders
    nothing on the GPU (a program may see the counter before the last
    holder's write lands); racecheck reports the unordered writes."""
    lock, counter = np.zeros(1, np.int32), np.zeros(1, np.int32)
    with pytest.raises(rocktile.EmulatorError, match="global memory race on byte 0 of 'counter_ptr'"):
        count_under_lock[(12,)](lock, counter, USE_LOCK=True, SEM="relaxed", target=target)


@rocktile.jit
def wait_for_nobody(flags_ptr):
    pid = tl.program_id(0)
    while tl.load(flags_ptr + pid, volatile=True) == 0:  # WAIT-LINE
        pass


@pytest.mark.parametrize("target", TARGETS)
def test_deadlock_names_each_waiting_program(target, monkeypatch):
    monkeypatch.setenv("ROCKTILE_EMULATOR_DEADLOCK_SECONDS", "0.5")
    line = next(i for i, t in enumerate(open(__file__), 1) if "# WAIT-LINE" in t)
    with pytest.raises(rocktile.EmulatorError, match="deadlock") as info:
        wait_for_nobody[(3,)](np.zeros(3, np.int32), target=target)
    message = str(info.value)
    for pid in range(3):
        assert f"workgroup ({pid}, 0, 0) waits at {__file__}:{line}:" in message, message


@rocktile.jit
def volatile_tile(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < 100, other=-1.0, volatile=True)
    tl.store(out_ptr + offs, x * 2)


@pytest.mark.parametrize("target", TARGETS)
def test_volatile_tile_load_reads_as_a_plain_one(target):
    x = np.arange(128, dtype=np.float32)
    out = np.zeros_like(x)
    volatile_tile[(1,)](x, out, BLOCK=128, target=target)
    np.testing.assert_array_equal(out, np.where(np.arange(128) < 100, x * 2, -2))


@rocktile.jit
def release_acquire_hand_off(data_ptr, flag_ptr, out_ptr, BLOCK: tl.constexpr):
    """Program 1 writes a tile, then releases a flag; program 0, started
    first, acquires it and reads the tile: Triton's message-passing idiom."""
    offs = tl.arange(0, BLOCK)
    if tl.program_id(0) == 1:
        tl.store(data_ptr + offs, offs * 3 + 1)
        tl.atomic_xchg(flag_ptr, 1, sem="release", scope="gpu")
    else:
        while tl.atomic_add(flag_ptr, 0, sem="acquire", scope="gpu") == 0:
            pass
        tl.store(out_ptr + offs, tl.load(data_ptr + offs))


@pytest.mark.parametrize("target", TARGETS)
def test_release_acquire_hand_off_between_programs(target):
    data, flag, out = np.zeros(256, np.int32), np.zeros(1, np.int32), np.zeros(256, np.int32)
    release_acquire_hand_off[(2,)](data, flag, out, BLOCK=256, target=target)
    np.testing.assert_array_equal(out, np.arange(256) * 3 + 1)


@rocktile.jit
def neighbours_after_grid_barrier(values_ptr, counter_ptr, out_ptr):
    """Each program writes its value, waits at a grid-wide barrier (an
    arrival count, as Triton users build one from atomics), then reads its
    neighbour's."""
    pid = tl.program_id(0)
    n = tl.num_programs(0)
    tl.store(values_ptr + pid, pid * 10 + 7)
    tl.atomic_add(counter_ptr, 1, sem="release")
    while tl.atomic_add(counter_ptr, 0, sem="acquire") < n:
        pass
    tl.store(out_ptr + pid, tl.load(values_ptr + (pid + 1) % n))


@pytest.mark.parametrize("target", TARGETS)
def test_grid_barrier_in_a_cooperative_launch(target):
    values, counter, out = np.zeros(8, np.int32), np.zeros(1, np.int32), np.zeros(8, np.int32)
    neighbours_after_grid_barrier[(8,)](values, counter, out, launch_cooperative_grid=True, target=target)
    np.testing.assert_array_equal(out, (np.arange(1, 9) % 8) * 10 + 7)


@rocktile.jit
def fill(x_ptr):
    tl.store(x_ptr + tl.program_id(0), 1)


@pytest.mark.parametrize("target", TARGETS)
def test_cooperative_grid_larger_than_the_chip_is_an_error(target):
    """A small kernel of 4 waves: 8 waves per SIMD, 4 SIMDs, so 8
    workgroups per CU, on 256 CUs."""
    x = np.zeros(2049, np.int32)
    fill[(2048,)](x, launch_cooperative_grid=True, target=target)
    assert x[:2048].all()
    with pytest.raises(ValueError, match=r"a grid of 2049 workgroups cannot all be resident on gfx\d+, which holds "
                                         r"at most 2048 of kernel fill at once \(8 per CU by 8 waves per SIMD"):
        fill[(2049,)](x, launch_cooperative_grid=True, target=target)


def _stream_k_inputs(dtype):
    import ml_dtypes
    rng = np.random.default_rng(0)
    dtype = {"bf16": ml_dtypes.bfloat16, "fp8": ml_dtypes.float8_e4m3fn}[dtype]
    return rng.standard_normal((150, 200)).astype(dtype), rng.standard_normal((200, 130)).astype(dtype)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", ["bf16", "fp8"])
def test_stream_k_example(target, dtype):
    """examples/stream_k.py: 9 tiles of 7 K-blocks on 8 programs; 6 hand a
    partial tile to the tile's owner. Tolerance: fp32 accumulation of
    200 products of bf16 (fp8) values, in another order than numpy's."""
    import stream_k
    a, b = _stream_k_inputs(dtype)
    c, flags = stream_k.stream_k(a, b, target=target)
    np.testing.assert_allclose(c, stream_k.reference(a, b), rtol=1e-5, atol=1e-4)
    assert flags.sum() == 6


@pytest.mark.parametrize("target", TARGETS)
def test_stream_k_missing_hand_off_is_a_located_deadlock(target, monkeypatch):
    """The planted missing dependency: partial tiles never published, so
    each owner waits for ever: an EmulatorError naming its waiting line."""
    import stream_k
    monkeypatch.setenv("ROCKTILE_EMULATOR_DEADLOCK_SECONDS", "0.5")
    line = next(i for i, t in enumerate(open(stream_k.__file__), 1) if "tl.atomic_add(flags_ptr + other" in t)
    with pytest.raises(rocktile.EmulatorError, match="deadlock") as info:
        stream_k.stream_k(*_stream_k_inputs("bf16"), target=target, publish=False)
    assert f"waits at {stream_k.__file__}:{line}:" in str(info.value)


def _lean_inputs(dtype, heads, rows, n_ctx, dim):
    import ml_dtypes
    rng = np.random.default_rng(heads + n_ctx)
    dtype = {"bf16": ml_dtypes.bfloat16, "fp16": np.float16}[dtype]
    return [rng.standard_normal(shape).astype(dtype) for shape in [(heads, rows, dim), (heads, n_ctx, dim),
                                                                      (heads, n_ctx, dim)]]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype, heads, rows, n_ctx, dim, programs, handed_on", [
    ("bf16", 3, 16, 300, 64, 8, 6),     # 15 blocks on 8 programs, the last context block ragged
    ("fp16", 2, 32, 129, 128, 5, 2),    # 3 blocks a head, 2 per program: two programs idle
    ("bf16", 5, 16, 1000, 64, 7, 5),    # runs of 12 blocks over heads of 16
])
def test_lean_attention_example(target, dtype, heads, rows, n_ctx, dim, programs, handed_on):
    """examples/lean_attention.py: attention for decoding whose heads' key
    blocks are split across persistent programs that hand partial softmax
    states to each head's owner. Tolerance: p is rounded to the inputs'
    type before its product with v, as in flash attention."""
    import lean_attention
    q, k, v = _lean_inputs(dtype, heads, rows, n_ctx, dim)
    out, flags = lean_attention.lean_attention(q, k, v, programs=programs, target=target)
    np.testing.assert_allclose(out, lean_attention.reference(q, k, v), rtol=1e-2, atol=2e-3)
    assert flags.sum() == handed_on


@rocktile.jit
def plain_spin(flag_ptr, out_ptr):
    seen = 0
    while tl.load(flag_ptr) == 0:  # PLAIN-SPIN
        seen += 1
    tl.store(out_ptr, seen)


@rocktile.jit
def plain_spin_doing_nothing(flag_ptr, out_ptr):
    while tl.load(flag_ptr, cache_modifier=".cg") == 0:  # PLAIN-SPIN-PASS
        pass
    tl.store(out_ptr, 1)


@pytest.mark.parametrize("kernel, marker", [(plain_spin, "# PLAIN-SPIN"),
                                            (plain_spin_doing_nothing, "# PLAIN-SPIN-PASS")])
def test_spin_on_a_plain_load_is_a_located_error(kernel, marker):
    """The planted non-volatile spin: the compiler may read the flag once
    (LLVM hoists it out of the loop, and the emulator would spin for ever),
    so it is a CompilationError at the load. A loop that does nothing is
    checked before the inliner's canonicalizer erases it, and a `.cg`
    load is a plain one."""
    line = next(i for i, t in enumerate(open(__file__), 1) if t.rstrip().endswith(marker))
    with pytest.raises(rocktile.CompilationError, match="waits on a plain load") as info:
        kernel[(2,)](np.zeros(1, np.int32), np.zeros(1, np.int32))
    assert info.value.lineno == line


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("batch", [1, 5, 8])
def test_decode_megakernel_example(target, batch):
    """examples/decode_megakernel.py: one transformer block for a decoding
    step, as one persistent launch whose programs take tasks from a queue
    and wait on dependency counters, and as five launches, against numpy.
    Both write the new token's keys and values into the right page slots.
    Tolerance: the products' inputs are rounded to bf16 (as in numpy's
    model of the block), so a rounding that falls the other way changes an
    output by about one bf16 ulp of an activation times a weight column."""
    import decode_megakernel as dm
    w = dm.make_block(batch, seed=batch)
    want, want_cache = dm.reference(w)
    out, cache, mega = dm.decode_block(w, target=target)
    staged, staged_cache, stages = dm.decode_block_by_stages(w, target=target)
    for got, got_cache in ((out, cache), (staged, staged_cache)):
        np.testing.assert_allclose(got, want, rtol=2e-2, atol=2e-2)
        np.testing.assert_array_equal(got_cache.astype(np.float32), want_cache.astype(np.float32))
    assert (mega["launches"], stages["launches"]) == (1, 5)
    # The same intermediates handed over, each written once by its tasks.
    for report in (mega, stages):
        assert {name: wrote for name, (wrote, _) in report["intermediates"].items()} == {
            "q": batch * dm.H * dm.HD * 2, "attn": batch * dm.H * dm.HD * 2, "x2": batch * dm.D * 4,
            "act": batch * dm.F * 2}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("stage, buffer, reader", [(1, "q_ptr", "q = tl.load(q_ptr + rows"),
                                                   (2, "attn_ptr", "a = tl.load(attn_ptr"),
                                                   (3, "x2_ptr", "x = tl.load(x_ptr + rows"),
                                                   (4, "act_ptr", "a = tl.load(act_ptr")])
def test_decode_megakernel_missing_dependency_is_a_located_race(target, stage, buffer, reader):
    """The planted missing dependency: a stage's tasks start without waiting
    on their counter, so they read an intermediate that another program
    wrote with no release and acquire between: racecheck names the read
    and the write (the emulator's schedule happens to run the writes first;
    on a GPU the reads would see stale memory)."""
    import decode_megakernel as dm
    line = next(i for i, t in enumerate(open(dm.__file__), 1) if reader in t)
    with pytest.raises(rocktile.EmulatorError, match=rf"global memory race on byte \d+ of '{buffer}'.*: workgroup "
                       rf"\(\d, 0, 0\) reads it at {dm.__file__}:{line}:\d+, and workgroup \(\d, 0, 0\) wrote it"):
        dm.decode_block(dm.make_block(4), target=target, skip_wait=stage)
