"""Random numbers as Triton generates them: Philox 4x32 with 10 rounds
(Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011),
keyed by a seed and counting by the offsets, with Triton's conversions to
floats, so that a seed and offsets give the numbers Triton gives.

These are traced like @jit helpers: each call builds its arithmetic into
the kernel (umulhi, multiplies, xors), which the emulator then runs."""
from __future__ import annotations

from . import core, semantic
from .semantic import SemanticError, _unwrap

# The Philox 4x32 round multipliers and Weyl key increments.
_ROUND_A, _ROUND_B = 0xD2511F53, 0xCD9E8D57
_KEY_A, _KEY_B = 0x9E3779B9, 0xBB67AE85


def _uint32(x, what):
    x = _unwrap(x)
    if isinstance(x, int) and not isinstance(x, bool):
        return semantic.to_tensor(x & 0xFFFFFFFF, core.uint32)
    if not isinstance(x, core.tensor):
        raise SemanticError(f"{what} must be 32-bit integers, got {x!r}")
    if not x.dtype.is_int() or x.dtype.primitive_bitwidth != 32:
        raise SemanticError(f"{what} must be 32-bit integers (as int32 offsets are), got {x.dtype}; 64-bit "
                            "counters are not supported yet")
    return x.to(core.uint32, bitcast=True)


def philox_impl(c0, c1, c2, c3, k0, k1, n_rounds=10):
    """`n_rounds` rounds of Philox 4x32 on the counter (c0, c1, c2, c3) with
    the key (k0, k1), all uint32."""
    for _ in range(_unwrap(n_rounds)):
        c0, c1, c2, c3 = (core.umulhi(_ROUND_B, c2) ^ c1 ^ k0, c2 * _ROUND_B,
                          core.umulhi(_ROUND_A, c0) ^ c3 ^ k1, c0 * _ROUND_A)
        k0, k1 = k0 + _KEY_A, k1 + _KEY_B
    return c0, c1, c2, c3


def philox(seed, c0, c1, c2, c3, n_rounds=10):
    """Four uint32 random streams from a 64-bit `seed` (its low and high
    words are the key) and the counters c0..c3 (32-bit integers)."""
    seed = _unwrap(seed)
    if isinstance(seed, core.tensor):
        if not seed.dtype.is_int():
            raise SemanticError(f"the seed of tl.philox must be an integer, got {seed.dtype}")
        wide = seed.to(core.uint64)
        lo, hi = (wide & 0xFFFFFFFF).to(core.uint32), (wide >> 32).to(core.uint32)
    elif isinstance(seed, int) and not isinstance(seed, bool):
        seed &= (1 << 64) - 1
        lo, hi = (semantic.to_tensor(w, core.uint32) for w in (seed & 0xFFFFFFFF, seed >> 32))
    else:
        raise SemanticError(f"the seed of tl.philox must be an integer, got {seed!r}")
    counters = [_uint32(c, "the counters of tl.philox") for c in (c0, c1, c2, c3)]
    shape = next((c.shape for c in counters if c.shape), ())
    counters = [core.broadcast_to(c, shape) if shape and not c.shape else c for c in counters]
    return philox_impl(*counters, lo, hi, n_rounds)


def randint4x(seed, offset, n_rounds=10):
    """Four uint32 random values per offset."""
    offset = _unwrap(offset)
    zero = core.zeros_like(offset) if isinstance(offset, core.tensor) else 0
    return philox(seed, offset, zero, zero, zero, n_rounds)


def randint(seed, offset, n_rounds=10):
    """One uint32 random value per offset (the first of randint4x)."""
    return randint4x(seed, offset, n_rounds)[0]


def uint_to_uniform_float(x):
    """A uint32 (or int32) as a float32 in [0, 1): its bits as int32, folded
    onto the non-negative ones, times 2^-31 (Triton's conversion)."""
    x = _unwrap(x)
    if not (isinstance(x, core.tensor) and x.dtype.is_int() and x.dtype.primitive_bitwidth == 32):
        raise SemanticError(f"tl.uint_to_uniform_float takes 32-bit integers, got {getattr(x, 'dtype', x)!r}")
    x = x.to(core.int32, bitcast=True)
    x = core.where(x < 0, -x - 1, x)
    return x * 4.6566127342e-10


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
