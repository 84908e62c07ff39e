// DType.h - the scalar element types shared by the tile IR, the interpreter
// and host tensors (i1 ... f64), and pointers to them.
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tile {

/// Scalar element kinds. The order is part of no format: never persist ints.
/// F8E4M3 is Triton's float8e4nv (torch's float8_e4m3fn: bias 7, no
/// infinities, 0x7f/0xff NaN, largest 448); F8E5M2 is float8e5 (torch's
/// float8_e5m2: bias 15, IEEE-like infinities and NaNs, largest 57344).
/// fp8 values are stored, loaded, converted and fed to tl.dot; they have
/// no arithmetic of their own (as in Triton, which computes in f16/f32).
enum class Scalar : uint8_t { I1, I8, I16, I32, I64, U8, U16, U32, U64, F16, BF16, F32, F64, F8E4M3, F8E5M2 };

inline constexpr int kNumScalars = 15;

bool isFloat(Scalar s);       ///< fp8 included
inline bool isFp8(Scalar s) { return s == Scalar::F8E4M3 || s == Scalar::F8E5M2; }
bool isInt(Scalar s);        ///< true for i1 too
bool isSigned(Scalar s);     ///< i8..i64 (i1 is unsigned)
int bitWidth(Scalar s);      ///< i1 -> 1, f16 -> 16, ...
int byteSize(Scalar s);      ///< i1 -> 1 (stored as a byte)
/// Short IR spelling: i1 i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64
/// f8e4m3 f8e5m2.
std::string_view scalarName(Scalar s);
std::optional<Scalar> parseScalarName(std::string_view name);
/// Triton's dtype names: int1 int8 ... uint64 float16 bfloat16 float32 float64
/// float8e4nv float8e5 (plus fp16/bf16/fp32/fp64/fp8e4nv/fp8e5, torch's
/// float8_e4m3fn/float8_e5m2 and i32-style aliases).
std::optional<Scalar> parseTritonDTypeName(std::string_view name);
std::string_view tritonDTypeName(Scalar s); ///< "float32", "int32", "bfloat16", ...

/// An element type: a scalar, or a pointer (to global memory) to a scalar.
struct ElemType {
  Scalar scalar = Scalar::I32;
  bool isPtr = false;

  static ElemType of(Scalar s) { return {s, false}; }
  static ElemType ptrTo(Scalar s) { return {s, true}; }
  bool operator==(const ElemType &) const = default;
  bool isFloat() const { return !isPtr && tile::isFloat(scalar); }
  bool isInt() const { return !isPtr && tile::isInt(scalar); }
  bool isFp8() const { return !isPtr && tile::isFp8(scalar); }
  /// "f32", "ptr<f32>"
  std::string str() const;
};

/// A runtime (non-constexpr) kernel argument: the bits of a scalar of
/// `type`, or a host address for pointer parameters.
struct ScalarArg {
  ElemType type;
  int64_t i = 0;     ///< ints (sign/zero-extended) and pointers (address)
  double f = 0.0;    ///< floats
};

/// Rounding helpers used wherever a value is narrowed to a storage type.
uint16_t floatToHalfBits(float f);   ///< round to nearest even
float halfBitsToFloat(uint16_t h);
uint16_t floatToBF16Bits(float f);   ///< round to nearest even
float bf16BitsToFloat(uint16_t h);
/// An f32 as the tensor cores read it as tf32 (1 sign, 8 exponent, 10
/// mantissa bits): the low 13 bits dropped, i.e. truncated toward zero, as
/// when f32 bits go to a tf32 mma/wgmma unconverted (Triton's tf32; see
/// docs/language.md, "dot"). NaN stays a (quiet) NaN; inf, zeros and
/// subnormals follow the same bit rule. Inline: the interpreter applies it
/// to every element of a tf32 dot's operand tiles.
inline float truncateToTF32(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) // nan: keep it a (quiet) nan
    return std::bit_cast<float>((x & 0xffffe000u) | 0x00400000u);
  return std::bit_cast<float>(x & 0xffffe000u);
}
/// fp8 conversions as Triton emits them on sm_90 (docs/language.md,
/// "fp8"). To fp8, round to nearest even with saturation to the largest
/// finite value (`cvt.rn.satfinite`): overflow and infinities become
/// +-448 (e4m3) or +-57344 (e5m2), every NaN becomes 0x7f. With
/// `rtz` (f32 -> e5m2 only, Triton's fp_downcast_rounding="rtz"): the f32
/// goes to f16 toward zero (`cvt.rz.f16.f32`), whose top byte is the
/// result. v must be an f32 value (f16 and bf16 values are).
uint8_t toFp8Bits(double v, Scalar fp8, bool rtz = false);
/// The exact value of an fp8 byte (every fp8 value is an f16 value).
double fp8BitsToDouble(uint8_t bits, Scalar fp8);
/// An f32 value rounded to f16 toward zero, as `cvt.rz.f16.f32`: finite
/// values past 65504 become +-65504; infinities stay; NaN is 0x7fff.
uint16_t floatToHalfBitsRZ(float f);
/// ... and to bf16 toward zero (`cvt.rz.bf16.f32`): the low 16 bits
/// dropped, NaN kept a quiet NaN.
uint16_t floatToBF16BitsRZ(float f);

/// Round a double to the precision of a float scalar (identity for f64;
/// fp8 as toFp8Bits).
double roundToFloatType(double v, Scalar s);
/// Wrap an integer to the width (and signedness) of an integer scalar
/// (u64 keeps its bits). Inline: the interpreter calls it per element.
inline int64_t wrapToIntType(int64_t v, Scalar s) {
  uint64_t u = static_cast<uint64_t>(v);
  switch (s) {
  case Scalar::I1: return static_cast<int64_t>(u & 1u);
  case Scalar::I8: return static_cast<int8_t>(u);
  case Scalar::I16: return static_cast<int16_t>(u);
  case Scalar::I32: return static_cast<int32_t>(u);
  case Scalar::U8: return static_cast<uint8_t>(u);
  case Scalar::U16: return static_cast<uint16_t>(u);
  case Scalar::U32: return static_cast<uint32_t>(u);
  default: return v;
  }
}

} // namespace tile
