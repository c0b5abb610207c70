"""Random numbers as Triton generates them: Philox 4x32 with 10 rounds
(Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011),
keyed by a seed and counting by the offsets, with Triton's conversions to
floats, so that a seed and offsets give the numbers Triton gives. 64-bit
offsets count with their high word as the second counter; 64-bit counters
given to tl.philox take Triton's 4x64 variant.

These are traced like @jit helpers: each call builds its arithmetic into
the kernel (umulhi, multiplies, xors), which the emulator then runs."""
from __future__ import annotations

from . import core, semantic
from .semantic import SemanticError, _unwrap

# The round multipliers and Weyl key increments of Philox 4x32 and of
# Triton's 4x64 variant: (ROUND_A, ROUND_B, KEY_A, KEY_B) by counter width.
_CONSTANTS = {32: (0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85),
              64: (0xD2E7470EE14C6C93, 0xCA5A826395121157, 0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B)}


def _counter(x, bits, what):
    """`x` (a Python int or an integer tensor of `bits` bits) as unsigned."""
    unsigned = core.uint32 if bits == 32 else core.uint64
    x = _unwrap(x)
    if isinstance(x, int) and not isinstance(x, bool):
        return semantic.to_tensor(x & ((1 << bits) - 1), unsigned)
    if not isinstance(x, core.tensor) or not x.dtype.is_int() or x.dtype.primitive_bitwidth != bits:
        raise SemanticError(f"{what} must all be {bits}-bit integers, got {getattr(x, 'dtype', x)!r}")
    return x.to(unsigned, bitcast=True)


def philox_impl(c0, c1, c2, c3, k0, k1, n_rounds=10):
    """`n_rounds` rounds of Philox on the counter (c0, c1, c2, c3) with the
    key (k0, k1), all uint32 (4x32) or all uint64 (Triton's 4x64)."""
    round_a, round_b, key_a, key_b = _CONSTANTS[c0.dtype.primitive_bitwidth]
    for _ in range(_unwrap(n_rounds)):
        c0, c1, c2, c3 = (core.umulhi(round_b, c2) ^ c1 ^ k0, c2 * round_b,
                          core.umulhi(round_a, c0) ^ c3 ^ k1, c0 * round_a)
        k0, k1 = k0 + key_a, k1 + key_b
    return c0, c1, c2, c3


def philox(seed, c0, c1, c2, c3, n_rounds=10):
    """Four random streams from a 64-bit `seed` and the counters c0..c3:
    32-bit counters give uint32 (the seed's low and high words are the key),
    64-bit counters uint64 (the seed is the key's first word, as in Triton)."""
    seed = _unwrap(seed)
    if isinstance(seed, core.tensor) and seed.dtype.is_int():
        wide = seed.to(core.uint64)
    elif isinstance(seed, int) and not isinstance(seed, bool):
        wide = semantic.to_tensor(seed & ((1 << 64) - 1), core.uint64)
    else:
        raise SemanticError(f"the seed of tl.philox must be an integer, got {getattr(seed, 'dtype', seed)!r}")
    first = next((_unwrap(c) for c in (c0, c1, c2, c3) if isinstance(_unwrap(c), core.tensor)), None)
    bits = 64 if first is not None and first.dtype.primitive_bitwidth == 64 else 32
    counters = [_counter(c, bits, "the counters of tl.philox") for c in (c0, c1, c2, c3)]
    shape = next((c.shape for c in counters if c.shape), ())
    counters = [core.broadcast_to(c, shape) if shape and not c.shape else c for c in counters]
    if bits == 32:
        key = (wide & 0xFFFFFFFF).to(core.uint32), (wide >> 32).to(core.uint32)
    else:
        key = wide, semantic.to_tensor(0, core.uint64)
    return philox_impl(*counters, *key, n_rounds)


def randint4x(seed, offset, n_rounds=10):
    """Four uint32 random values per offset; a 64-bit offset's high word is
    the second counter."""
    offset = _unwrap(offset)
    if not isinstance(offset, core.tensor):
        return philox(seed, offset, 0, 0, 0, n_rounds)
    if not offset.dtype.is_int():
        raise SemanticError(f"the offsets of tl.randint must be integers, got {offset.dtype}")
    low = offset.to(core.uint32)
    zero = core.zeros_like(low)
    high = (offset >> 32).to(core.uint32) if offset.dtype.primitive_bitwidth > 32 else zero
    return philox(seed, low, high, zero, zero, n_rounds)


def randint(seed, offset, n_rounds=10):
    """One uint32 random value per offset (the first of randint4x)."""
    return randint4x(seed, offset, n_rounds)[0]


def uint_to_uniform_float(x):
    """A 32- or 64-bit integer as a float32 in [0, 1): its bits as a signed
    integer, folded onto the non-negative ones, times 2^-31 or 2^-63
    (Triton's conversion)."""
    x = _unwrap(x)
    bits = x.dtype.primitive_bitwidth if isinstance(x, core.tensor) and x.dtype.is_int() else None
    if bits not in (32, 64):
        raise SemanticError(f"tl.uint_to_uniform_float takes 32- or 64-bit integers, got {getattr(x, 'dtype', x)!r}")
    x = x.to(core.int32 if bits == 32 else core.int64, bitcast=True)
    x = core.where(x < 0, ~x, x)
    return x * (4.6566127342e-10 if bits == 32 else 1.0842020432385337e-19)


def rand(seed, offset, n_rounds=10):
    """A float32 uniform in [0, 1) per offset."""
    return uint_to_uniform_float(randint(seed, offset, n_rounds))


def rand4x(seed, offset, n_rounds=10):
    """Four float32 uniforms in [0, 1) per offset."""
    return tuple(uint_to_uniform_float(i) for i in randint4x(seed, offset, n_rounds))


def pair_uniform_to_normal(u1, u2):
    """Two standard normals from two uniforms (Box-Muller)."""
    u1 = core.maximum(1.0e-7, u1)
    theta = 6.283185307179586 * u2
    radius = core.sqrt(-2.0 * core.log(u1))
    return radius * core.cos(theta), radius * core.sin(theta)


def randn(seed, offset, n_rounds=10):
    """A float32 standard normal per offset."""
    i1, i2, _, _ = randint4x(seed, offset, n_rounds)
    return pair_uniform_to_normal(uint_to_uniform_float(i1), uint_to_uniform_float(i2))[0]


def randn4x(seed, offset, n_rounds=10):
    """Four float32 standard normals per offset."""
    u = rand4x(seed, offset, n_rounds)
    n1, n2 = pair_uniform_to_normal(u[0], u[1])
    n3, n4 = pair_uniform_to_normal(u[2], u[3])
    return n1, n2, n3, n4
