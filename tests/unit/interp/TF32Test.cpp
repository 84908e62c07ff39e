// TF32Test.cpp - truncateToTF32 (the operands of an f32 dot with
// input_precision "tf32", as the tensor cores read unconverted f32 bits)
// against hand-computed bit patterns: keep sign, 8 exponent and 10 mantissa
// bits, drop the low 13 (toward zero).
#include "support/DType.h"

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>

using namespace tile;

namespace {

uint32_t tf32Bits(uint32_t in) { return std::bit_cast<uint32_t>(truncateToTF32(std::bit_cast<float>(in))); }

} // namespace

TEST_CASE("truncateToTF32: exact values stay, the rest goes toward zero") {
  CHECK(tf32Bits(0x3f800000u) == 0x3f800000u); // 1.0
  CHECK(tf32Bits(0x00000000u) == 0x00000000u); // +0
  CHECK(tf32Bits(0x80000000u) == 0x80000000u); // -0
  CHECK(tf32Bits(0x3f802000u) == 0x3f802000u); // 1 + 2^-10, already tf32
  CHECK(tf32Bits(0x3f800fffu) == 0x3f800000u); // below half an ulp: down
  CHECK(tf32Bits(0x3f801001u) == 0x3f800000u); // above half an ulp: still down (no rounding)
  CHECK(tf32Bits(0xbf801fffu) == 0xbf800000u); // negative: toward zero, less negative
  CHECK(tf32Bits(0x3fffffffu) == 0x3fffe000u); // no carry into the exponent
  CHECK(truncateToTF32(3.0f + 3.0f / 1024) == 3.0f + 1.0f / 512); // 1.1000000000|1 x 2: the 1 is dropped
}

TEST_CASE("truncateToTF32: inf, nan and the largest finite") {
  CHECK(tf32Bits(0x7f800000u) == 0x7f800000u); // +inf
  CHECK(tf32Bits(0xff800000u) == 0xff800000u); // -inf
  CHECK(tf32Bits(0x7f7fe000u) == 0x7f7fe000u); // largest finite tf32 stays
  CHECK(tf32Bits(0x7f7fffffu) == 0x7f7fe000u); // FLT_MAX: the largest finite tf32, not inf
  CHECK(tf32Bits(0xff7fffffu) == 0xff7fe000u);
  for (uint32_t nan : {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0x7fbfffffu, 0x7fffffffu}) {
    CAPTURE(nan);
    float r = truncateToTF32(std::bit_cast<float>(nan));
    CHECK(std::isnan(r)); // a nan whose payload is all in the dropped bits stays nan
    CHECK((std::bit_cast<uint32_t>(r) & 0x1fffu) == 0u);
    CHECK((std::bit_cast<uint32_t>(r) >> 31) == (nan >> 31));
  }
}

TEST_CASE("truncateToTF32: subnormals follow the same bit rule") {
  CHECK(tf32Bits(0x00000001u) == 0x00000000u); // smallest subnormal: dropped
  CHECK(tf32Bits(0x00001fffu) == 0x00000000u);
  CHECK(tf32Bits(0x80001fffu) == 0x80000000u);
  CHECK(tf32Bits(0x00002000u) == 0x00002000u); // smallest tf32 subnormal
  CHECK(tf32Bits(0x007fffffu) == 0x007fe000u); // largest subnormal stays subnormal
}
