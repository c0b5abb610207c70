"""tl.rand, tl.randn, tl.randint, tl.randint4x and tl.philox against a numpy
Philox 4x32 written from the published algorithm (Salmon et al., SC 2011),
itself checked against Random123's known-answer vectors, with Triton's seed
split (key = low and high words of the 64-bit seed) and float conversions."""
import numpy as np
import pytest

import rocktile
import rocktile.language as tl

TARGETS = ["gfx950", "gfx1250"]
MASK = np.uint64(0xFFFFFFFF)


def philox_reference(counters, key, rounds=10):
    """Philox 4x32: each round multiplies words 0 and 2 by the round
    constants, mixes the halves of the products with words 1, 3 and the key,
    and bumps the key by the Weyl constants."""
    c = [np.asarray(x, np.uint64) & MASK for x in counters]
    k0, k1 = (np.uint64(x) for x in key)
    for _ in range(rounds):
        p0, p1 = np.uint64(0xD2511F53) * c[0], np.uint64(0xCD9E8D57) * c[2]
        c = [(p1 >> np.uint64(32)) ^ c[1] ^ k0, p1 & MASK, (p0 >> np.uint64(32)) ^ c[3] ^ k1, p0 & MASK]
        k0, k1 = (k0 + np.uint64(0x9E3779B9)) & MASK, (k1 + np.uint64(0xBB67AE85)) & MASK
    return [x.astype(np.uint32) for x in c]


def test_reference_matches_random123_known_answers():
    # Random123's kat_vectors, philox4x32 with 10 rounds: counter, key -> output.
    m = 0xFFFFFFFF
    for counter, key, want in [
        ([0, 0, 0, 0], [0, 0], [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]),
        ([m, m, m, m], [m, m], [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]),
        ([0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344], [0xA4093822, 0x299F31D0],
         [0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1]),
    ]:
        assert [int(x) for x in philox_reference(counter, key)] == want


def uniform_reference(bits):
    """Triton's conversion: the bits as int32, negatives folded onto
    non-negatives (-x - 1), times 2^-31 in fp32."""
    x = bits.view(np.int32).astype(np.int64)
    x = np.where(x < 0, -x - 1, x)
    return x.astype(np.float32) * np.float32(4.6566127342e-10)


@rocktile.jit
def random_streams(seed, out_ptr, n, BLOCK: tl.constexpr, ROUNDS: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    r0, r1, r2, r3 = tl.randint4x(seed, offs, ROUNDS)
    tl.store(out_ptr + offs, r0, mask=mask)
    tl.store(out_ptr + n + offs, r1, mask=mask)
    tl.store(out_ptr + 2 * n + offs, r2, mask=mask)
    tl.store(out_ptr + 3 * n + offs, r3, mask=mask)
    tl.store(out_ptr + 4 * n + offs, tl.randint(seed, offs, ROUNDS), mask=mask)
    a, b, c, d = tl.philox(seed, offs, offs + 1, 7, offs * 3, ROUNDS)
    tl.store(out_ptr + 5 * n + offs, a ^ b ^ c ^ d, mask=mask)


@rocktile.jit
def random_floats(seed, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.rand(seed, offs), mask=mask)
    tl.store(out_ptr + n + offs, tl.randn(seed, offs), mask=mask)
    u0, u1, u2, u3 = tl.rand4x(seed, offs)
    tl.store(out_ptr + 2 * n + offs, u3, mask=mask)
    n0, n1, n2, n3 = tl.randn4x(seed, offs)
    tl.store(out_ptr + 3 * n + offs, n2, mask=mask)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("seed", [0, 12345, 0xDEADBEEF12345678])
@pytest.mark.parametrize("rounds", [10, 7])
def test_integer_streams(target, seed, rounds):
    n = 300
    out = np.zeros(6 * n, np.uint32)
    random_streams[(3,)](seed, out, n, BLOCK=128, ROUNDS=rounds, target=target)
    offs = np.arange(n, dtype=np.uint32)
    key = (seed & 0xFFFFFFFF, seed >> 32)
    want = philox_reference([offs, 0, 0, 0], key, rounds)
    for i in range(4):
        np.testing.assert_array_equal(out[i * n:(i + 1) * n], want[i])
    np.testing.assert_array_equal(out[4 * n:5 * n], want[0])
    mixed = philox_reference([offs, offs + 1, 7, offs * 3], key, rounds)
    np.testing.assert_array_equal(out[5 * n:], mixed[0] ^ mixed[1] ^ mixed[2] ^ mixed[3])


@pytest.mark.parametrize("target", TARGETS)
def test_float_streams(target):
    n, seed = 1000, 42
    out = np.zeros(4 * n, np.float32)
    random_floats[(8,)](seed, out, n, BLOCK=128, target=target)
    bits = philox_reference([np.arange(n), 0, 0, 0], (seed, 0))
    u = [uniform_reference(b) for b in bits]
    np.testing.assert_array_equal(out[:n], u[0])  # exact: integer ops, one conversion, one multiply
    np.testing.assert_array_equal(out[2 * n:3 * n], u[3])
    assert (out[:n] >= 0).all() and (out[:n] < 1).all()

    def normal(a, b, which):  # Box-Muller on the uniforms, in float64
        r = np.sqrt(-2 * np.log(np.maximum(np.float32(1e-7), a).astype(np.float64)))
        theta = 6.283185307179586 * b.astype(np.float32).astype(np.float64)
        return r * (np.cos(theta) if which == 0 else np.sin(theta))
    # fp32 log, sqrt and cos: a few ulps of each, amplified by |r| up to 5.7
    np.testing.assert_allclose(out[n:2 * n], normal(u[0], u[1], 0), rtol=0, atol=2e-5)
    np.testing.assert_allclose(out[3 * n:], normal(u[2], u[3], 0), rtol=0, atol=2e-5)


@rocktile.jit
def bad_counter(out_ptr):
    tl.store(out_ptr + tl.arange(0, 16), tl.rand(1, tl.arange(0, 16).to(tl.float32)))  # ERR-counter


def test_float_offsets_are_a_clear_error():
    with pytest.raises(rocktile.CompilationError, match="offsets of tl.randint must be integers, got fp32") as info:
        rocktile.compile(bad_counter, {"out_ptr": "*fp32"})
    assert info.value.lineno == next(i for i, t in enumerate(open(__file__), 1) if "# ERR-counter" in t)


@rocktile.jit
def uniform_at_wide_offsets(out_ptr, seed, base):
    offs = tl.arange(0, 16).to(tl.int64) + base
    tl.store(out_ptr + tl.arange(0, 16), tl.rand(seed, offs))


@rocktile.jit
def philox_4x64(out_ptr, seed, base):
    c = tl.arange(0, 16).to(tl.uint64) + base
    a, b, _, d = tl.philox(seed, c, c, c, c)
    tl.store(out_ptr + tl.arange(0, 16), tl.uint_to_uniform_float(a) + tl.uint_to_uniform_float(d))


@pytest.mark.parametrize("target", TARGETS)
def test_64_bit_offsets_and_counters_give_tritons_numbers(target):
    """A 64-bit offset counts with its high word as the second counter, and
    64-bit counters take Triton's 4x64 Philox (its constants); the values
    are those Triton 3.9's interpreter gives for the same kernels."""
    out = np.zeros(16, np.float32)
    uniform_at_wide_offsets[(1,)](out, 1, 2**40, target=target)
    np.testing.assert_allclose(out[:3], [0.5913866758346558, 0.16670696437358856, 0.3936675786972046], rtol=1e-7)
    at_zero = np.zeros(16, np.float32)
    uniform_at_wide_offsets[(1,)](at_zero, 1, 0, target=target)
    assert not np.array_equal(out, at_zero)  # the high word counts
    philox_4x64[(1,)](out, 7, 2**40 + 5, target=target)
    np.testing.assert_allclose(out[:3], [1.1814237833023071, 1.1011958122253418, 0.83684903383255], rtol=1e-7)
