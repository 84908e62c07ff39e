// TF32Test.cpp - roundToTF32 (the operand rounding of an f32 dot with
// input_precision "tf32") against hand-computed bit patterns of PTX
// cvt.rna.tf32.f32: keep sign, 8 exponent and 10 mantissa bits, round to
// nearest with ties away from zero.
#include "support/DType.h"

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>

using namespace tile;

namespace {

uint32_t tf32Bits(uint32_t in) { return std::bit_cast<uint32_t>(roundToTF32(std::bit_cast<float>(in))); }

} // namespace

TEST_CASE("roundToTF32: exact values and rounding to nearest") {
  CHECK(tf32Bits(0x3f800000u) == 0x3f800000u); // 1.0
  CHECK(tf32Bits(0x00000000u) == 0x00000000u); // +0
  CHECK(tf32Bits(0x80000000u) == 0x80000000u); // -0
  CHECK(tf32Bits(0x3f802000u) == 0x3f802000u); // 1 + 2^-10, already tf32
  CHECK(tf32Bits(0x3f800fffu) == 0x3f800000u); // just below half an ulp: down
  CHECK(tf32Bits(0x3f801001u) == 0x3f802000u); // just above half an ulp: up
  CHECK(tf32Bits(0xbf801001u) == 0xbf802000u);
  CHECK(tf32Bits(0x3fffffffu) == 0x40000000u); // carry into the exponent: 2.0
  CHECK(roundToTF32(3.0f + 3.0f / 1024) == 3.0f + 1.0f / 256); // 1.1000000000|1 x 2: tie, kept lsb 1: up
}

TEST_CASE("roundToTF32: ties go away from zero, not to even") {
  CHECK(tf32Bits(0x3f801000u) == 0x3f802000u); // kept lsb 0: round-to-even would go down
  CHECK(tf32Bits(0xbf801000u) == 0xbf802000u); // negative: away from zero is more negative
  CHECK(tf32Bits(0x3f803000u) == 0x3f804000u); // kept lsb 1
  CHECK(tf32Bits(0xc0005000u) == 0xc0006000u);
}

TEST_CASE("roundToTF32: inf, nan and the largest finite") {
  CHECK(tf32Bits(0x7f800000u) == 0x7f800000u); // +inf
  CHECK(tf32Bits(0xff800000u) == 0xff800000u); // -inf
  CHECK(tf32Bits(0x7f7fe000u) == 0x7f7fe000u); // largest finite tf32 stays
  CHECK(tf32Bits(0x7f7fefffu) == 0x7f7fe000u); // below the tie: largest finite tf32
  CHECK(tf32Bits(0x7f7ff000u) == 0x7f800000u); // tie past the largest: inf
  CHECK(tf32Bits(0x7f7fffffu) == 0x7f800000u); // FLT_MAX: inf
  CHECK(tf32Bits(0xff7fffffu) == 0xff800000u); // -FLT_MAX: -inf
  for (uint32_t nan : {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0x7fbfffffu, 0x7fffffffu}) {
    CAPTURE(nan);
    float r = roundToTF32(std::bit_cast<float>(nan));
    CHECK(std::isnan(r)); // a nan whose payload is all in the dropped bits stays nan
    CHECK((std::bit_cast<uint32_t>(r) & 0x1fffu) == 0u);
    CHECK((std::bit_cast<uint32_t>(r) >> 31) == (nan >> 31));
  }
}

TEST_CASE("roundToTF32: subnormals follow the same bit rule") {
  CHECK(tf32Bits(0x00000001u) == 0x00000000u); // smallest subnormal: flushed by rounding
  CHECK(tf32Bits(0x00000fffu) == 0x00000000u);
  CHECK(tf32Bits(0x00001000u) == 0x00002000u); // tie: away from zero
  CHECK(tf32Bits(0x80001000u) == 0x80002000u);
  CHECK(tf32Bits(0x00002000u) == 0x00002000u); // smallest tf32 subnormal
  CHECK(tf32Bits(0x007fffffu) == 0x00800000u); // largest subnormal: up to the smallest normal
  CHECK(tf32Bits(0x007fefffu) == 0x007fe000u);
}
