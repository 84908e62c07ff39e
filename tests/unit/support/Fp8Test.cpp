// Fp8Test.cpp - the fp8 conversions of support/DType against independent
// references: each byte's value from the format's definition written out
// by hand, and rounding as "the nearest of all 256 encodings" by search.
#include "support/DType.h"

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

using namespace tile;

namespace {

/// The value of an fp8 byte from the OCP FP8 definitions (Micikevicius et
/// al., "FP8 Formats for Deep Learning", table 1), by cases.
double referenceValue(uint8_t b, bool e4m3) {
  double sign = (b & 0x80) ? -1.0 : 1.0;
  if (e4m3) {
    int e = (b >> 3) & 15, m = b & 7;
    if (e == 15 && m == 7) return std::numeric_limits<double>::quiet_NaN();
    if (e == 0) return sign * (m / 8.0) * std::pow(2.0, -6);
    return sign * (1 + m / 8.0) * std::pow(2.0, e - 7);
  }
  int e = (b >> 2) & 31, m = b & 3;
  if (e == 31) return m == 0 ? sign * INFINITY : std::numeric_limits<double>::quiet_NaN();
  if (e == 0) return sign * (m / 4.0) * std::pow(2.0, -14);
  return sign * (1 + m / 4.0) * std::pow(2.0, e - 15);
}

/// Round to nearest even by search over every finite encoding, with
/// saturation to the largest finite value and NaN to 0x7f.
uint8_t referenceRound(double v, bool e4m3) {
  if (std::isnan(v)) return 0x7f;
  uint8_t best = 0;
  double bestErr = INFINITY;
  for (int b = 0; b < 256; ++b) {
    double x = referenceValue(uint8_t(b), e4m3);
    if (!std::isfinite(x) || std::signbit(x) != std::signbit(v)) continue;
    double err = std::fabs(x - v);
    // saturation: past the largest finite value (infinities included) the
    // largest magnitude wins (plain differences would tie in double there)
    if (std::fabs(v) >= (e4m3 ? 448.0 : 57344.0)) err = -std::fabs(x);
    bool tieToEven = err == bestErr && (b & 1) == 0;
    if (err < bestErr || tieToEven) {
      best = uint8_t(b);
      bestErr = err;
    }
  }
  return best;
}

bool sameValue(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

} // namespace

TEST_CASE("fp8 bytes decode to their defined values, and every value re-encodes to its byte") {
  for (Scalar s : {Scalar::F8E4M3, Scalar::F8E5M2}) {
    bool e4m3 = s == Scalar::F8E4M3;
    for (int b = 0; b < 256; ++b) {
      double v = fp8BitsToDouble(uint8_t(b), s);
      CAPTURE(b);
      CHECK(sameValue(v, referenceValue(uint8_t(b), e4m3)));
      // exact in f16 and f32 (so fp8 -> f16/bf16/f32 conversions are exact)
      if (std::isfinite(v)) {
        CHECK(double(halfBitsToFloat(floatToHalfBits(float(v)))) == v);
        CHECK(double(bf16BitsToFloat(floatToBF16Bits(float(v)))) == v);
      }
      if (std::isnan(v)) CHECK(toFp8Bits(v, s) == 0x7f);
      else if (std::isinf(v)) CHECK(toFp8Bits(v, s) == (b & 0x80 ? 0xfb : 0x7b)); // satfinite
      else CHECK(toFp8Bits(v, s) == b);
    }
  }
  CHECK(fp8BitsToDouble(0x7e, Scalar::F8E4M3) == 448.0);
  CHECK(fp8BitsToDouble(0x7b, Scalar::F8E5M2) == 57344.0);
  CHECK(fp8BitsToDouble(0x01, Scalar::F8E4M3) == std::ldexp(1.0, -9));
  CHECK(fp8BitsToDouble(0x01, Scalar::F8E5M2) == std::ldexp(1.0, -16));
}

TEST_CASE("every f16 value rounds to fp8 as the nearest-even search does") {
  for (Scalar s : {Scalar::F8E4M3, Scalar::F8E5M2})
    for (uint32_t h = 0; h < 65536; ++h) {
      double v = halfBitsToFloat(uint16_t(h));
      CAPTURE(h);
      REQUIRE(toFp8Bits(v, s) == referenceRound(v, s == Scalar::F8E4M3));
    }
}

TEST_CASE("f32 values round to fp8 as the search does: a dense sweep, midpoints and their neighbours") {
  std::vector<float> values;
  for (uint64_t x = 0; x < (uint64_t(1) << 32); x += 65521) values.push_back(std::bit_cast<float>(uint32_t(x)));
  // every midpoint between neighbouring fp8 values, and the f32 values next to it
  for (Scalar s : {Scalar::F8E4M3, Scalar::F8E5M2})
    for (int b = 0; b < 127; ++b) {
      double lo = fp8BitsToDouble(uint8_t(b), s), hi = fp8BitsToDouble(uint8_t(b + 1), s);
      if (!std::isfinite(hi)) continue;
      float mid = float((lo + hi) / 2);
      for (float f : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, INFINITY)})
        for (float g : {f, -f}) values.push_back(g);
    }
  for (Scalar s : {Scalar::F8E4M3, Scalar::F8E5M2})
    for (float f : values) {
      CAPTURE(std::bit_cast<uint32_t>(f));
      REQUIRE(toFp8Bits(f, s) == referenceRound(f, s == Scalar::F8E4M3));
    }
}

TEST_CASE("rtz to e5m2 is f32 -> f16 toward zero, then the f16's top byte") {
  // by cases: exact values stay; values between two e5m2 values go to the
  // one nearer zero; past the largest finite f16 they saturate; NaN and
  // infinities stay NaN and infinities
  CHECK(toFp8Bits(1.0, Scalar::F8E5M2, true) == 0x3c);
  CHECK(toFp8Bits(1.24, Scalar::F8E5M2, true) == 0x3c);  // 1.25 is 0x3d
  CHECK(toFp8Bits(-1.49, Scalar::F8E5M2, true) == 0xbd); // -1.25
  CHECK(toFp8Bits(1e9, Scalar::F8E5M2, true) == 0x7b);   // f16 65504 -> 57344
  CHECK(toFp8Bits(INFINITY, Scalar::F8E5M2, true) == 0x7c);
  CHECK(toFp8Bits(-INFINITY, Scalar::F8E5M2, true) == 0xfc);
  CHECK(toFp8Bits(NAN, Scalar::F8E5M2, true) == 0x7f);
  // against truncation of the exact value, for random finite f32 in range
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-60000.0f, 60000.0f);
  for (int i = 0; i < 100000; ++i) {
    float f = u(rng) * std::ldexp(1.0f, -int(rng() % 30));
    uint8_t got = toFp8Bits(f, Scalar::F8E5M2, true);
    double g = fp8BitsToDouble(got, Scalar::F8E5M2), next = fp8BitsToDouble(uint8_t(got + 1), Scalar::F8E5M2);
    CAPTURE(f);
    REQUIRE(std::fabs(g) <= std::fabs(double(f)));
    if ((got & 0x7f) < 0x7b) REQUIRE(std::fabs(double(f)) < std::fabs(next));
  }
}

TEST_CASE("f32 -> f16 and bf16 toward zero") {
  CHECK(floatToHalfBitsRZ(1.0f) == 0x3c00);
  CHECK(floatToHalfBitsRZ(std::nextafter(1.0f, 2.0f)) == 0x3c00);
  CHECK(floatToHalfBitsRZ(-65519.0f) == 0xfbff);
  CHECK(floatToHalfBitsRZ(1e30f) == 0x7bff);
  CHECK(floatToHalfBitsRZ(INFINITY) == 0x7c00);
  CHECK(floatToHalfBitsRZ(std::ldexp(3.0f, -26)) == 0x0000); // below half's smallest subnormal: toward zero
  CHECK(floatToHalfBitsRZ(std::ldexp(3.0f, -24)) == 0x0003);
  std::mt19937 rng(11);
  for (int i = 0; i < 100000; ++i) {
    float f = std::bit_cast<float>(uint32_t(rng()));
    if (!std::isfinite(f) || std::fabs(f) > 65504.0f) continue;
    double h = halfBitsToFloat(floatToHalfBitsRZ(f));
    CAPTURE(f);
    REQUIRE(std::fabs(h) <= std::fabs(double(f)));
    REQUIRE((h == 0 || std::signbit(h) == std::signbit(f)));
    // the next f16 away from zero is past f
    uint16_t bits = floatToHalfBitsRZ(f);
    if ((bits & 0x7fff) < 0x7bff) REQUIRE(std::fabs(double(halfBitsToFloat(uint16_t(bits + 1)))) > std::fabs(double(f)));
    double b = bf16BitsToFloat(floatToBF16BitsRZ(f));
    REQUIRE(std::fabs(b) <= std::fabs(double(f)));
  }
}
