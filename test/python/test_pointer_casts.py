"""Pointer casts as Triton has them: an int64 address to a pointer
(`x.to(tl.pointer_type(T))`, grouped GEMMs load their operands' addresses
from arrays), a pointer to its int64 address, and a pointer to another
element type through its address. In the emulator, memory reached from an
address must lie inside one buffer argument, or in mapped host memory that
overlaps none; faults name the Python line.

Tolerance of the grouped GEMM: bf16 products are exact in fp32, so only the
fp32 accumulation order differs from numpy's: atol 1e-5 * K * max|a| * max|b|."""
import re

import ml_dtypes
import numpy as np
import pytest

import rocktile
import rocktile.language as tl
from rocktile.errors import CompilationError, EmulatorError

TARGETS = ["gfx950", "gfx1250"]
FILE = __file__


def line_of(marker):
    with open(FILE) as f:
        return next(i for i, line in enumerate(f, 1) if marker in line)


@rocktile.jit
def grouped_matmul_kernel(a_addrs, b_addrs, c_addrs, sizes_ptr, lds_ptr, GROUPS: tl.constexpr,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # One program per output tile over all groups, as Triton's grouped GEMM
    # tutorial walks them; each group's matrices are found by address.
    tile = tl.program_id(0)
    first = 0
    for g in range(GROUPS):
        M = tl.load(sizes_ptr + 3 * g)
        N = tl.load(sizes_ptr + 3 * g + 1)
        K = tl.load(sizes_ptr + 3 * g + 2)
        tiles_n = tl.cdiv(N, BLOCK_N)
        count = tl.cdiv(M, BLOCK_M) * tiles_n
        if tile >= first and tile < first + count:
            a_ptr = tl.load(a_addrs + g).to(tl.pointer_type(tl.bfloat16))
            b_ptr = tl.load(b_addrs + g).to(tl.pointer_type(tl.bfloat16))
            c_ptr = tl.load(c_addrs + g).to(tl.pointer_type(tl.float32))
            lda = tl.load(lds_ptr + 3 * g)
            ldb = tl.load(lds_ptr + 3 * g + 1)
            ldc = tl.load(lds_ptr + 3 * g + 2)
            local = tile - first
            rm = (local // tiles_n) * BLOCK_M + tl.arange(0, BLOCK_M)
            rn = (local % tiles_n) * BLOCK_N + tl.arange(0, BLOCK_N)
            rk = tl.arange(0, BLOCK_K)
            acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
            for k in range(0, tl.cdiv(K, BLOCK_K)):
                kk = k * BLOCK_K + rk
                a = tl.load(a_ptr + rm[:, None] * lda + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K),
                            other=0.0)
                b = tl.load(b_ptr + kk[:, None] * ldb + rn[None, :], mask=(kk[:, None] < K) & (rn[None, :] < N),
                            other=0.0)
                acc = tl.dot(a, b, acc)
            tl.store(c_ptr + rm[:, None] * ldc + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))
        first += count


@pytest.mark.parametrize("target", TARGETS)
def test_grouped_matmul_finds_each_group_by_address(target):
    rng = np.random.default_rng(7)
    shapes = [(40, 24, 50), (16, 48, 32), (33, 17, 70)]
    a = [rng.standard_normal((m, k)).astype(ml_dtypes.bfloat16) for m, n, k in shapes]
    b = [rng.standard_normal((k, n)).astype(ml_dtypes.bfloat16) for m, n, k in shapes]
    c = [np.full((m, n), np.nan, np.float32) for m, n, k in shapes]
    addresses = [np.array([x.ctypes.data for x in xs], np.int64) for xs in (a, b, c)]
    sizes = np.array(shapes, np.int32).ravel()
    lds = np.array([[x.shape[1], y.shape[1], z.shape[1]] for x, y, z in zip(a, b, c)], np.int32).ravel()
    bm = bn = 16
    tiles = sum(rocktile.cdiv(m, bm) * rocktile.cdiv(n, bn) for m, n, k in shapes)
    grouped_matmul_kernel[(tiles,)](*addresses, sizes, lds, GROUPS=len(shapes), BLOCK_M=bm, BLOCK_N=bn,
                                    BLOCK_K=32, num_warps=4, target=target)
    for x, y, z, (m, n, k) in zip(a, b, c, shapes):
        ref = x.astype(np.float64) @ y.astype(np.float64)
        atol = 1e-5 * k * np.abs(x.astype(np.float32)).max() * np.abs(y.astype(np.float32)).max()
        np.testing.assert_allclose(z, ref, rtol=1e-5, atol=atol)


@rocktile.jit
def address_round_trip(x_ptr, bits_ptr, addr_ptr, back_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    # fp32 elements read as their int32 bits through a cast pointer.
    bits = tl.load(x_ptr.to(tl.pointer_type(tl.int32)) + offs)
    tl.store(bits_ptr + offs, bits)
    # Each element's address, and a pointer made back from it.
    addresses = (x_ptr + offs).to(tl.int64)
    tl.store(addr_ptr + offs, addresses)
    tl.store(back_ptr + offs, tl.load(addresses.to(tl.pointer_type(tl.float32))) * 2)


@pytest.mark.parametrize("target", TARGETS)
def test_pointers_and_addresses_convert_both_ways(target):
    x = np.linspace(-3, 3, 64, dtype=np.float32)
    bits, addresses = np.zeros(64, np.int32), np.zeros(64, np.int64)
    back = np.zeros(64, np.float32)
    address_round_trip[(1,)](x, bits, addresses, back, BLOCK=64, target=target)
    np.testing.assert_array_equal(bits, x.view(np.int32))
    np.testing.assert_array_equal(addresses, x.ctypes.data + 4 * np.arange(64))
    np.testing.assert_array_equal(back, 2 * x)


@rocktile.jit
def bytes_as_fp8(raw_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    values = tl.load(raw_ptr.to(tl.pointer_type(tl.float8e4nv)) + offs)
    tl.store(out_ptr + offs, values.to(tl.float32))


@pytest.mark.parametrize("target", TARGETS)
def test_uint8_storage_reads_as_fp8_through_a_cast_pointer(target):
    codes = np.arange(0, 256, 2, dtype=np.uint8)
    codes = codes[(codes & 0x7F) != 0x7F]  # no NaNs
    out = np.zeros(codes.size, np.float32)
    bytes_as_fp8[(1,)](codes, out, BLOCK=codes.size, target=target)
    np.testing.assert_array_equal(out, codes.view(ml_dtypes.float8_e4m3fn).astype(np.float32))


@rocktile.jit
def load_at(addr_ptr, known_ptr, out_ptr, BLOCK: tl.constexpr):
    p = tl.multiple_of(tl.load(addr_ptr), 16).to(tl.pointer_type(tl.float32))
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(p + offs))  # load through the address


@pytest.mark.parametrize("target", TARGETS)
def test_addresses_past_a_buffer_argument_or_between_elements_fault_at_their_line(target):
    known, out = np.zeros(18, np.float32), np.zeros(16, np.float32)
    assert known.ctypes.data % 16 == 0
    # Inside `known` (an argument), with the last 16-byte load running past
    # its end.
    with pytest.raises(EmulatorError, match=rf"load of 4 element.* through a pointer made from an integer, reaches "
                                            rf"outside 'known_ptr'.*\n  at .*test_pointer_casts.py:"
                                            rf"{line_of('load through the')}"):
        load_at[(1,)](np.array([known.ctypes.data + 16], np.int64), known, out, BLOCK=16, target=target)
    # Between two float32 elements.
    with pytest.raises(EmulatorError, match=r"lane \d+: int64 -> pointer cast of an address that is not "
                                            r"a multiple of 4 bytes"):
        load_at[(1,)](np.array([known.ctypes.data + 2], np.int64), known, out, BLOCK=16, target=target)
    # Nothing is mapped at page 0.
    with pytest.raises(EmulatorError, match=r"reaches address 0x40, which is not mapped host memory"):
        load_at[(1,)](np.array([64], np.int64), known, out, BLOCK=16, target=target)


@pytest.mark.parametrize("target", TARGETS)
def test_memory_outside_every_argument_is_reached_by_address(target):
    # The emulator cannot know the extent of memory no argument describes:
    # mapped memory is read as the GPU would read it.
    elsewhere, known, out = np.arange(16, dtype=np.float32), np.zeros(4, np.float32), np.zeros(16, np.float32)
    load_at[(1,)](np.array([elsewhere.ctypes.data], np.int64), known, out, BLOCK=16, target=target)
    np.testing.assert_array_equal(out, elsewhere)


@rocktile.jit
def narrow_address(x_ptr, out_ptr):
    p = tl.load(x_ptr).to(tl.pointer_type(tl.float32))  # int32 address
    tl.store(out_ptr, tl.load(p))


@rocktile.jit
def narrow_int(x_ptr, out_ptr):
    tl.store(out_ptr, x_ptr.to(tl.int32))  # pointer to int32


def test_casts_need_64_bit_addresses():
    with pytest.raises(CompilationError, match=rf"test_pointer_casts.py:{line_of('int32 address')}:.*cannot "
                                               r"convert int32 to pointer<fp32>: addresses are 64-bit integers"):
        rocktile.compile(narrow_address, signature={"x_ptr": "*i32", "out_ptr": "*fp32"}, target="gfx950")
    with pytest.raises(CompilationError, match=rf"test_pointer_casts.py:{line_of('pointer to int32')}:.*a pointer "
                                               r"converts to its address, an int64 or uint64"):
        rocktile.compile(narrow_int, signature={"x_ptr": "*fp32", "out_ptr": "*i32"}, target="gfx950")


@rocktile.jit
def copy_aligned(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    # Triton's alignment hint on pointers: the address of element 0 is a
    # multiple of 16 bytes.
    x_ptr = tl.multiple_of(x_ptr, 16)
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)  # aligned claim


@pytest.mark.parametrize("target", TARGETS)
def test_multiple_of_on_a_pointer_gives_wide_loads_and_is_checked(target):
    # The pointer has no ':16' in the signature: the hint alone makes its
    # loads 4 float32s wide (n's ':16' keeps the mask uniform over them).
    kernel = rocktile.compile(copy_aligned, signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32:16"},
                              constexprs={"BLOCK": 1024}, target=target)
    assert re.search(r"buffer_load_(dwordx4|b128)", kernel.asm["amdgcn"]), kernel.asm["amdgcn"]
    x = np.arange(1028, dtype=np.float32)
    y = np.zeros(1024, np.float32)
    copy_aligned[(1,)](x, y, 1008, BLOCK=1024, target=target)
    np.testing.assert_array_equal(y[:1008], x[:1008])
    # A false claim is the kernel's bug, and the emulator says so.
    with pytest.raises(EmulatorError, match=rf"not 16-byte aligned, as the compiled code claims\n  at .*"
                                            rf"test_pointer_casts.py:{line_of('aligned claim')}"):
        copy_aligned[(1,)](x[1:], y, 1008, BLOCK=1024, target=target)
