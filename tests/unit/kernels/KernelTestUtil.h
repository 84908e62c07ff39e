// KernelTestUtil.h - helpers for end-to-end kernel tests: host arrays
// registered in the interpreter's MemoryMap (with an unregistered guard zone
// after them, so reads past the end are reported instead of landing in a
// neighbouring array), and a launch helper running source text through
// bind -> compileKernel -> interp::run.
#pragma once

#include "../sema/SemaTestUtil.h"
#include "interp/Interpreter.h"

#include <cmath>
#include <cstring>
#include <random>

namespace tile::kernels::test {

using sema::test::ptrArg;
using sema::test::valArg;

/// n elements of scalar type s, stored as raw bytes, registered for the
/// array's lifetime. `guard` unregistered elements follow the array.
class HostArray {
public:
  HostArray(Scalar s, int64_t n, int64_t guard = 4096)
      : s(s), n(n), bytes_(static_cast<size_t>((n + guard) * byteSize(s)) + 8, 0) {
    interp::MemoryMap::global().add(data(), uint64_t(n * byteSize(s)),
                                    fmt::format("array {}[{}]", scalarName(s), n));
  }
  ~HostArray() { interp::MemoryMap::global().remove(data()); }
  HostArray(const HostArray &) = delete;
  HostArray &operator=(const HostArray &) = delete;

  Scalar s;
  int64_t n;

  void *data() { return bytes_.data(); }
  sema::ArgValue arg() {
    sema::ArgValue a = ptrArg(s);
    a.address = reinterpret_cast<uint64_t>(data());
    return a;
  }

  double f(int64_t i) const {
    switch (s) {
    case Scalar::F16: return halfBitsToFloat(raw<uint16_t>(i));
    case Scalar::BF16: return bf16BitsToFloat(raw<uint16_t>(i));
    case Scalar::F32: return raw<float>(i);
    case Scalar::F64: return raw<double>(i);
    default: return static_cast<double>(this->i(i));
    }
  }
  int64_t i(int64_t k) const {
    switch (s) {
    case Scalar::I1: return raw<uint8_t>(k) != 0;
    case Scalar::I8: return raw<int8_t>(k);
    case Scalar::I16: return raw<int16_t>(k);
    case Scalar::I32: return raw<int32_t>(k);
    case Scalar::I64: return raw<int64_t>(k);
    case Scalar::U8: return raw<uint8_t>(k);
    case Scalar::U16: return raw<uint16_t>(k);
    case Scalar::U32: return raw<uint32_t>(k);
    case Scalar::U64: return static_cast<int64_t>(raw<uint64_t>(k));
    default: return static_cast<int64_t>(f(k));
    }
  }
  /// Stores v rounded (floats) or wrapped (ints) to the element type.
  void set(int64_t k, double v) {
    switch (s) {
    case Scalar::F16: return put(k, floatToHalfBits(static_cast<float>(v)));
    case Scalar::BF16: return put(k, floatToBF16Bits(static_cast<float>(v)));
    case Scalar::F32: return put(k, static_cast<float>(v));
    case Scalar::F64: return put(k, v);
    default: return setInt(k, static_cast<int64_t>(v));
    }
  }
  void setInt(int64_t k, int64_t v) {
    std::memcpy(bytes_.data() + k * byteSize(s), &v, static_cast<size_t>(byteSize(s))); // little endian
  }
  void fill(double v) {
    for (int64_t k = 0; k < n; ++k) set(k, v);
  }

private:
  template <typename T> T raw(int64_t k) const {
    T v;
    std::memcpy(&v, bytes_.data() + k * sizeof(T), sizeof(T));
    return v;
  }
  template <typename T> void put(int64_t k, T v) { std::memcpy(bytes_.data() + k * sizeof(T), &v, sizeof(T)); }
  std::vector<char> bytes_;
};

/// The warnings and device_print output of one run.
struct RunLog {
  std::vector<std::string> warnings;
  std::vector<std::string> prints;
};

/// Compiles kernel `name` of `body` (the import prelude is added) for these
/// arguments and runs it on `grid`.
inline RunLog launch(const std::string &body, const std::string &name, const std::vector<sema::ArgValue> &args,
                     const sema::test::Keywords &kws, interp::Grid grid, bool optimize = true,
                     bool strict = false) {
  sema::test::Compiled c = sema::test::compileSource(body, name, args, kws, optimize);
  RunLog log;
  interp::Options o;
  o.strict = strict;
  o.warn = [&](const std::string &w) { log.warnings.push_back(w); };
  o.print = [&](const std::string &p) { log.prints.push_back(p); };
  interp::run(*c.fn, grid, c.bound.args, o);
  return log;
}

inline int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Float bit patterns equal (-0 != +0), or both NaN.
inline bool sameFloat(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

} // namespace tile::kernels::test
