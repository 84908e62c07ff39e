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
    {"f64", "float64", 64, true, true},
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
      {"uint16", Scalar::U16}, {"long", Scalar::I64}, {"short", Scalar::I16}};
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

float truncateToTF32(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) // nan: keep it a (quiet) nan
    return std::bit_cast<float>((x & 0xffffe000u) | 0x00400000u);
  return std::bit_cast<float>(x & 0xffffe000u);
}

double roundToFloatType(double v, Scalar s) {
  switch (s) {
  case Scalar::F16: return halfBitsToFloat(floatToHalfBits(static_cast<float>(v)));
  case Scalar::BF16: return bf16BitsToFloat(floatToBF16Bits(static_cast<float>(v)));
  case Scalar::F32: return static_cast<float>(v);
  default: return v;
  }
}


} // namespace tile
