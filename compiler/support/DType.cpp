// DType.cpp - scalar type properties, names and narrowing conversions.
#include "support/DType.h"

#include <bit>
#include <cmath>
#include <cstring>

namespace tile {

namespace {
struct ScalarInfo {
  std::string_view name, tritonName;
  int bits;
  bool isFloat, isSigned;
};

constexpr ScalarInfo kInfo[kNumScalars] = {
    {"i1", "int1", 1, false, false},       {"i8", "int8", 8, false, true},
    {"i16", "int16", 16, false, true},     {"i32", "int32", 32, false, true},
    {"i64", "int64", 64, false, true},     {"u8", "uint8", 8, false, false},
    {"u16", "uint16", 16, false, false},   {"u32", "uint32", 32, false, false},
    {"u64", "uint64", 64, false, false},   {"f16", "float16", 16, true, true},
    {"bf16", "bfloat16", 16, true, true},  {"f32", "float32", 32, true, true},
    {"f64", "float64", 64, true, true},    {"f8e4m3", "float8e4nv", 8, true, true},
    {"f8e5m2", "float8e5", 8, true, true},
};

const ScalarInfo &info(Scalar s) { return kInfo[static_cast<int>(s)]; }
} // namespace

bool isFloat(Scalar s) { return info(s).isFloat; }
bool isInt(Scalar s) { return !info(s).isFloat; }
bool isSigned(Scalar s) { return info(s).isSigned; }
int bitWidth(Scalar s) { return info(s).bits; }
int byteSize(Scalar s) { return s == Scalar::I1 ? 1 : info(s).bits / 8; }
std::string_view scalarName(Scalar s) { return info(s).name; }
std::string_view tritonDTypeName(Scalar s) { return info(s).tritonName; }

std::optional<Scalar> parseScalarName(std::string_view name) {
  for (int i = 0; i < kNumScalars; ++i)
    if (kInfo[i].name == name)
      return static_cast<Scalar>(i);
  return std::nullopt;
}

std::optional<Scalar> parseTritonDTypeName(std::string_view name) {
  for (int i = 0; i < kNumScalars; ++i)
    if (kInfo[i].tritonName == name)
      return static_cast<Scalar>(i);
  struct Alias { std::string_view name; Scalar s; };
  static constexpr Alias kAliases[] = {
      {"fp16", Scalar::F16}, {"bf16", Scalar::BF16}, {"fp32", Scalar::F32},
      {"fp64", Scalar::F64}, {"half", Scalar::F16},  {"float", Scalar::F32},
      {"double", Scalar::F64}, {"bool", Scalar::I1}, {"bool_", Scalar::I1},
      {"uint16", Scalar::U16}, {"long", Scalar::I64}, {"short", Scalar::I16},
      {"fp8e4nv", Scalar::F8E4M3}, {"fp8e5", Scalar::F8E5M2}, {"float8_e4m3fn", Scalar::F8E4M3},
      {"float8_e5m2", Scalar::F8E5M2}};
  for (const Alias &a : kAliases)
    if (a.name == name)
      return a.s;
  return parseScalarName(name);
}

std::string ElemType::str() const {
  std::string s(scalarName(scalar));
  return isPtr ? "ptr<" + s + ">" : s;
}

uint16_t floatToHalfBits(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) // inf or nan
    return sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u | ((absx >> 13) & 0x3ffu) : 0u);
  if (absx >= 0x477ff000u) // rounds to >= 65520: overflow to inf
    return sign | 0x7c00u;
  if (absx < 0x38800000u) { // subnormal half (or zero): value * 2^24, round to nearest even
    float scaled = std::bit_cast<float>(absx) * 16777216.0f;
    return sign | static_cast<uint16_t>(std::nearbyint(scaled));
  }
  uint32_t mant = absx & 0x7fffffu;
  uint32_t exp = (absx >> 23) - 127 + 15;
  uint32_t h = (exp << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
    ++h;
  return static_cast<uint16_t>(sign | h);
}

float halfBitsToFloat(uint16_t h) {
  uint32_t sign = (uint32_t(h) & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  if (exp == 31)
    return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  return std::bit_cast<float>(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

uint16_t floatToBF16Bits(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) // nan: keep it quiet
    return static_cast<uint16_t>((x >> 16) | 0x40u);
  uint32_t lsb = (x >> 16) & 1u;
  x += 0x7fffu + lsb;
  return static_cast<uint16_t>(x >> 16);
}

float bf16BitsToFloat(uint16_t h) { return std::bit_cast<float>(uint32_t(h) << 16); }

double roundToFloatType(double v, Scalar s) {
  switch (s) {
  case Scalar::F16: return halfBitsToFloat(floatToHalfBits(static_cast<float>(v)));
  case Scalar::BF16: return bf16BitsToFloat(floatToBF16Bits(static_cast<float>(v)));
  case Scalar::F32: return static_cast<float>(v);
  case Scalar::F8E4M3:
  case Scalar::F8E5M2: return fp8BitsToDouble(toFp8Bits(v, s), s);
  default: return v;
  }
}

namespace {

/// An fp8 format: mantissa bits, exponent bias, the largest finite
/// magnitude's bits and whether exponent field all-ones is inf/NaN.
struct Fp8Format {
  int manBits, bias;
  uint8_t maxFinite;
  bool ieeeSpecials; ///< e5m2: exponent 31 is inf (mantissa 0) or NaN
};

Fp8Format fp8Format(Scalar s) { return s == Scalar::F8E4M3 ? Fp8Format{3, 7, 0x7e, false} : Fp8Format{2, 15, 0x7b, true}; }

} // namespace

double fp8BitsToDouble(uint8_t bits, Scalar s) {
  Fp8Format f = fp8Format(s);
  bool neg = bits & 0x80;
  int expBits = 7 - f.manBits;
  int e = (bits >> f.manBits) & ((1 << expBits) - 1);
  int m = bits & ((1 << f.manBits) - 1);
  double v;
  if (f.ieeeSpecials && e == (1 << expBits) - 1)
    v = m == 0 ? INFINITY : NAN;
  else if (!f.ieeeSpecials && (bits & 0x7f) == 0x7f)
    v = NAN;
  else if (e == 0)
    v = std::ldexp(double(m), 1 - f.bias - f.manBits);
  else
    v = std::ldexp(double((1 << f.manBits) | m), e - f.bias - f.manBits);
  return neg ? -v : v;
}

uint8_t toFp8Bits(double v, Scalar s, bool rtz) {
  if (rtz) // Triton: f32 -> f16 toward zero, then the f16's top byte (e5m2 is f16's upper half)
    return static_cast<uint8_t>(floatToHalfBitsRZ(static_cast<float>(v)) >> 8);
  Fp8Format f = fp8Format(s);
  uint8_t sign = std::signbit(v) ? 0x80 : 0;
  if (std::isnan(v)) return 0x7f; // the canonical NaN (the sign is dropped)
  double a = std::fabs(v);
  double maxVal = fp8BitsToDouble(f.maxFinite, s);
  if (a >= maxVal) return sign | f.maxFinite; // satfinite (infinities included)
  // the spacing of representable values at a's binade (subnormals: the
  // smallest binade's), then round to nearest even on that grid
  int e = std::max(std::ilogb(a == 0 ? 1.0 : a), 1 - f.bias);
  double quantum = std::ldexp(1.0, e - f.manBits);
  double q = std::nearbyint(a / quantum); // the default rounding mode: to nearest even
  double r = q * quantum;
  if (r > maxVal) return sign | f.maxFinite;
  if (r == 0) return sign;
  int re = std::ilogb(r);
  if (re < 1 - f.bias) // subnormal: exponent field 0
    return sign | static_cast<uint8_t>(std::ldexp(r, f.bias - 1 + f.manBits));
  int mant = static_cast<int>(std::ldexp(r, f.manBits - re)) - (1 << f.manBits);
  return sign | static_cast<uint8_t>(((re + f.bias) << f.manBits) | mant);
}

uint16_t floatToHalfBitsRZ(float fl) {
  uint32_t x = std::bit_cast<uint32_t>(fl);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  if (std::isnan(fl)) return 0x7fff;
  if (std::isinf(fl)) return sign | 0x7c00;
  double a = std::fabs(double(fl));
  if (a >= 65504.0) return sign | 0x7bff;
  if (a < std::ldexp(1.0, -14)) // subnormal half: multiples of 2^-24, toward zero
    return sign | static_cast<uint16_t>(std::trunc(std::ldexp(a, 24)));
  int e = std::ilogb(a);
  int mant = static_cast<int>(std::trunc(std::ldexp(a, 10 - e))) - 1024;
  return sign | static_cast<uint16_t>(((e + 15) << 10) | mant);
}

uint16_t floatToBF16BitsRZ(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if (std::isnan(f)) return static_cast<uint16_t>((x >> 16) | 0x40u);
  return static_cast<uint16_t>(x >> 16);
}


} // namespace tile
