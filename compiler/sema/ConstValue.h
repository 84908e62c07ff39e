// ConstValue.h - compile-time (constexpr) values of the kernel language:
// what a tl.constexpr parameter, a literal or a folded Python expression
// holds while sema specializes a kernel.
#pragma once

#include "support/DType.h"

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace tile::sema {

struct NoneValue {
  bool operator==(const NoneValue &) const = default;
};
/// A dtype object such as tl.float32; with a shape, Triton's block_type (what
/// `x.type` gives for a tensor x); with an fp8 name (tl.float8e5, ...), a
/// type that can be named, compared and introspected but not computed with
/// (tile has no fp8 arithmetic; `type` is then unused).
struct DTypeValue {
  ElemType type;
  std::vector<int64_t> shape{}; ///< non-empty: a block type of this shape
  std::string fp8{};          ///< non-empty: the fp8 type of this Triton name
  bool operator==(const DTypeValue &) const = default;
  bool isBlock() const { return !shape.empty(); }
  /// A dtype to compute with (a scalar type that is not fp8).
  bool isPlain() const { return shape.empty() && fp8.empty(); }
};
struct ConstValue;
using ConstTuple = std::vector<ConstValue>;

struct ConstValue {
  std::variant<NoneValue, bool, int64_t, double, std::string, DTypeValue, ConstTuple> v;

  ConstValue() : v(NoneValue{}) {}
  template <typename T> ConstValue(T x) : v(std::move(x)) {}
  ConstValue(int x) : v(int64_t(x)) {}
  ConstValue(const char *s) : v(std::string(s)) {}

  bool operator==(const ConstValue &o) const { return v == o.v; }
  bool isNone() const { return std::holds_alternative<NoneValue>(v); }
  bool isInt() const { return std::holds_alternative<int64_t>(v); }
  bool isBool() const { return std::holds_alternative<bool>(v); }
  bool isFloat() const { return std::holds_alternative<double>(v); }
  bool isStr() const { return std::holds_alternative<std::string>(v); }
  /// Python repr: 16, 1.5, True, None, 'relu', tl.float32, (1, 2)
  std::string repr() const;
};

} // namespace tile::sema
