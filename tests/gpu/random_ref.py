#!/usr/bin/env python3
"""random_ref.py - prints the reference values that tests/gpu/random.tile
checks tl.randint4x / tl.rand against. It is an independent transcription of
Triton's python/triton/language/random.py (philox_impl, philox, randint4x,
uint_to_uniform_float) as of Triton 3.6, in plain Python integers: always
Philox4x32; a 64-bit offset's low and high words are the first two counter
words (Triton 3.6's source; 32-bit offsets also checked against Triton
3.6 itself on the H200 with bench/gpu/triton_random.tile):

    python3 tests/gpu/random_ref.py
"""
import struct

M32 = (1 << 32) - 1
M64 = (1 << 64) - 1
CONSTS = {
    32: (0x9E3779B9, 0xBB67AE85, 0xD2511F53, 0xCD9E8D57),
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
    k0, k1 = seed & M32, (seed >> 32) & M32
    offset &= (1 << bits) - 1        # the offset's two's-complement bits
    c0 = offset & M32                # offset.to(tl.uint32)
    c1 = (offset >> 32) & M32 if bits == 64 else 0
    return philox_impl(c0, c1, 0, 0, k0, k1, 32, n_rounds)


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def uniform(x):
    signed = x - (1 << 32) if x >> 31 else x
    if signed < 0:
        signed = -signed - 1
    return f32(f32(float(signed)) * f32(4.6566127342e-10))


if __name__ == "__main__":
    for seed, offsets, bits in ((42, range(8), 32), (123456789, (0, 1, 1000, 2 ** 31 - 1, -1), 32),
                                (-7, (3, 5), 32), (42, (0, 1, 2 ** 40 + 3), 64)):
        for off in offsets:
            r = randint4x(seed, off, bits)
            print(f"seed={seed} offset={off} bits={bits}: randint4x={list(r)} rand={uniform(r[0])!r}")
