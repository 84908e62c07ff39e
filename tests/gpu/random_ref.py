#!/usr/bin/env python3
"""random_ref.py - prints the reference values that tests/gpu/random.tile
checks tl.randint4x / tl.rand against. It is an independent transcription of
Triton's python/triton/language/random.py (philox_impl, philox, randint4x,
uint_to_uniform_float) in plain Python integers, masked to 32 or 64 bits:

    python3 tests/gpu/random_ref.py
"""
import struct

M32 = (1 << 32) - 1
M64 = (1 << 64) - 1
CONSTS = {
    32: (0x9E3779B9, 0xBB67AE85, 0xD2511F53, 0xCD9E8D57),
    64: (0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B, 0xD2E7470EE14C6C93, 0xCA5A826395121157),
}


def philox_impl(c0, c1, c2, c3, k0, k1, bits, n_rounds=10):
    mask = (1 << bits) - 1
    key_a, key_b, round_a, round_b = CONSTS[bits]
    for _ in range(n_rounds):
        _c0, _c2 = c0, c2
        c0 = ((round_b * _c2) >> bits) ^ c1 ^ k0
        c2 = ((round_a * _c0) >> bits) ^ c3 ^ k1
        c1 = (round_b * _c2) & mask
        c3 = (round_a * _c0) & mask
        k0 = (k0 + key_a) & mask
        k1 = (k1 + key_b) & mask
    return c0, c1, c2, c3


def randint4x(seed, offset, bits=32, n_rounds=10):
    seed &= M64                      # seed.to(tl.uint64): sign-extends, then wraps
    if bits == 32:
        k0, k1 = seed & M32, (seed >> 32) & M32
    else:
        k0, k1 = seed, 0
    c0 = offset & ((1 << bits) - 1)  # offset.to(uint, bitcast=True)
    return philox_impl(c0, 0, 0, 0, k0, k1, bits, n_rounds)


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def uniform(x, bits=32):
    signed = x - (1 << bits) if x >> (bits - 1) else x
    if signed < 0:
        signed = -signed - 1
    scale = f32(4.6566127342e-10) if bits == 32 else f32(1.0842020432385337e-19)
    return f32(f32(float(signed)) * scale)


if __name__ == "__main__":
    for seed, offsets, bits in ((42, range(8), 32), (123456789, (0, 1, 1000, 2 ** 31 - 1, -1), 32),
                                (-7, (3, 5), 32), (42, (0, 1, 2 ** 40 + 3), 64)):
        for off in offsets:
            r = randint4x(seed, off, bits)
            print(f"seed={seed} offset={off} bits={bits}: randint4x={list(r)} rand={uniform(r[0], bits)!r}")
