// InterpTestUtil.h - helpers shared by the interpreter's unit tests: host
// buffers registered in the MemoryMap, a kernel builder over ir::Builder,
// and element encode/decode written independently of the interpreter.
#pragma once

#include "interp/Interpreter.h"
#include "ir/IR.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace tile::interp::test {

inline constexpr Scalar kAllScalars[] = {Scalar::I1,  Scalar::I8,  Scalar::I16, Scalar::I32, Scalar::I64,
                                         Scalar::U8,  Scalar::U16, Scalar::U32, Scalar::U64, Scalar::F16,
                                         Scalar::BF16, Scalar::F32, Scalar::F64};

/// A host buffer of n elements of type s, registered in MemoryMap::global()
/// for its lifetime. Elements are read and written as raw bits.
class HostBuf {
public:
  HostBuf(Scalar s, int64_t n, std::string name = "")
      : s(s), n(n), storage((n * byteSize(s) + 7) / 8 + 1, 0) {
    this->name = name.empty() ? fmt::format("buf {}[{}]", scalarName(s), n) : name;
    MemoryMap::global().add(data(), uint64_t(n * byteSize(s)), this->name);
  }
  ~HostBuf() { MemoryMap::global().remove(data()); }
  HostBuf(const HostBuf &) = delete;
  HostBuf &operator=(const HostBuf &) = delete;

  Scalar s;
  int64_t n;
  std::string name;
  std::vector<uint64_t> storage;

  void *data() { return storage.data(); }
  uint64_t addr() { return reinterpret_cast<uint64_t>(storage.data()); }
  ScalarArg arg() { return ScalarArg{ElemType::ptrTo(s), int64_t(addr()), 0.0}; }

  uint64_t bits(int64_t k) const {
    uint64_t v = 0;
    std::memcpy(&v, reinterpret_cast<const char *>(storage.data()) + k * byteSize(s), byteSize(s));
    return v;
  }
  void setBits(int64_t k, uint64_t v) {
    std::memcpy(reinterpret_cast<char *>(storage.data()) + k * byteSize(s), &v, byteSize(s));
  }
  /// Decoded element: floats as double, ints sign- or zero-extended.
  double f(int64_t k) const { return decodeFloat(bits(k)); }
  int64_t i(int64_t k) const { return decodeInt(bits(k)); }
  void setF(int64_t k, double v) { setBits(k, encodeFloat(v)); }
  void setI(int64_t k, int64_t v) { setBits(k, uint64_t(v)); }   // truncated by the byte copy

  double decodeFloat(uint64_t b) const {
    switch (s) {
    case Scalar::F16: return halfBitsToFloat(uint16_t(b));
    case Scalar::BF16: return bf16BitsToFloat(uint16_t(b));
    case Scalar::F32: { float x; uint32_t u = uint32_t(b); std::memcpy(&x, &u, 4); return x; }
    default: { double x; std::memcpy(&x, &b, 8); return x; }
    }
  }
  uint64_t encodeFloat(double v) const {
    switch (s) {
    case Scalar::F16: return floatToHalfBits(float(v));
    case Scalar::BF16: return floatToBF16Bits(float(v));
    case Scalar::F32: { float x = float(v); uint32_t u; std::memcpy(&u, &x, 4); return u; }
    default: { uint64_t u; std::memcpy(&u, &v, 8); return u; }
    }
  }
  int64_t decodeInt(uint64_t b) const {
    int bits = bitWidth(s);
    if (bits == 1)
      return b & 0xff ? 1 : 0;
    if (bits == 64)
      return int64_t(b);
    uint64_t mask = (1ULL << bits) - 1;
    b &= mask;
    if (isSigned(s) && (b >> (bits - 1)))
      return int64_t(b | ~mask);
    return int64_t(b);
  }
};

/// A kernel under construction: parameters, a builder at the end of the body.
struct Kernel {
  std::unique_ptr<ir::Function> fn;
  ir::Builder b;
  explicit Kernel(std::string name = "k")
      : fn(std::make_unique<ir::Function>(std::move(name), Location{})), b(&fn->entry()) {}
  ir::Value *param(ElemType t, std::string name) {
    fn->paramNames.push_back(std::move(name));
    return fn->entry().addArg(ir::Type::scalar(t));
  }
  ir::Value *i32(int64_t v) { return b.constantInt(v, ir::Type::scalar(Scalar::I32)); }
  /// pid * block + arange(0, block)
  ir::Value *blockOffsets(int64_t block) {
    ir::Value *start = b.binary(ir::OpKind::Mul, b.programId(0), i32(block));
    return b.binary(ir::OpKind::Add, b.splat(start, {block}), b.arange(0, block));
  }
  /// splat(ptr) + offs, shaped like offs
  ir::Value *ptrs(ir::Value *ptr, ir::Value *offs) { return b.addptr(b.splat(ptr, offs->type.shape), offs); }
  ir::Value *lessThan(ir::Value *offs, ir::Value *bound) {
    return b.cmp("lt", offs, b.splat(bound, offs->type.shape));
  }
};

/// Collects warnings and prints instead of writing to stderr/stdout.
struct Capture {
  std::vector<std::string> warnings, prints;
  Options opts() {
    Options o;
    o.warn = [this](const std::string &s) { warnings.push_back(s); };
    o.print = [this](const std::string &s) { prints.push_back(s); };
    return o;
  }
};

inline ScalarArg i32Arg(int64_t v) { return ScalarArg{ElemType::of(Scalar::I32), v, 0.0}; }

inline int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Float bit patterns equal, or both NaN.
inline bool sameFloat(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

} // namespace tile::interp::test
