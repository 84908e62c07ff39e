// Value.h - the values host code computes with: Python scalars, strings,
// containers, tensors, dtypes, functions, kernels and builtins.
//
// Values are cheap to copy: containers and tensors share their contents
// (lists and dicts are mutable and aliased as in Python; tuples are not).
#pragma once

#include "frontend/AST.h"
#include "host/Tensor.h"

#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <optional>
#include <vector>

namespace tile::host {

struct Value;
class Evaluator;
struct CallArgs;
struct Scope;

struct NoneVal {};
struct DTypeVal {
  Scalar scalar;
};
struct RangeVal {
  int64_t start = 0, stop = 0, step = 1;
  int64_t size() const;
  int64_t at(int64_t i) const { return start + i * step; }
};
struct TupleVal {
  std::shared_ptr<const std::vector<Value>> items;
};
struct ListVal {
  std::shared_ptr<std::vector<Value>> items;
};
struct DictVal {
  std::shared_ptr<std::vector<std::pair<Value, Value>>> items;
};
/// lower:upper:step in a subscript (parts are None when omitted).
struct SliceVal {
  std::shared_ptr<const std::vector<Value>> parts;
};
/// A host def or lambda with the scope it closes over.
struct FunctionVal {
  const ast::FunctionDef *def = nullptr;    ///< null for lambdas
  const ast::LambdaExpr *lambda = nullptr;
  std::shared_ptr<Scope> closure;
  std::shared_ptr<std::vector<Value>> defaults; ///< per def param; None when absent
  std::string name() const;
};
/// A @jit function; launched as kernel[grid](...).
struct KernelVal {
  const ast::FunctionDef *def = nullptr;
};
struct KernelGridVal {
  const ast::FunctionDef *def = nullptr;
  std::shared_ptr<Value> grid;
  Location gridLoc; ///< the grid expression, for grid errors
};
/// A builtin function or a bound tensor method.
struct BuiltinVal {
  std::string name;
  std::shared_ptr<std::function<Value(Evaluator &, CallArgs &)>> fn;
};
/// torch, triton, triton.language, numpy, ...: attribute access finds builtins.
struct ModuleVal {
  std::string name;
};
/// `...` (Python's Ellipsis): in a tensor index, every axis not named.
struct EllipsisVal {};

struct Value {
  std::variant<NoneVal, bool, int64_t, double, std::string, TupleVal, ListVal, DictVal, Tensor,
               DTypeVal, RangeVal, FunctionVal, KernelVal, KernelGridVal, BuiltinVal, ModuleVal, SliceVal,
               EllipsisVal>
      v;

  Value() : v(NoneVal{}) {}
  template <typename T> Value(T x) : v(std::move(x)) {}
  Value(int x) : v(int64_t(x)) {}
  Value(const char *s) : v(std::string(s)) {}

  template <typename T> bool is() const { return std::holds_alternative<T>(v); }
  template <typename T> const T &as() const { return std::get<T>(v); }
  template <typename T> T &as() { return std::get<T>(v); }

  bool isNone() const { return is<NoneVal>(); }
  /// int or bool (Python's bool is an int)
  bool isIntLike() const { return is<int64_t>() || is<bool>(); }
  bool isNumber() const { return isIntLike() || is<double>(); }
  int64_t toInt() const;   ///< bool/int; asserts otherwise
  double toDouble() const; ///< bool/int/float; asserts otherwise
};

Value makeTuple(std::vector<Value> items);
Value makeList(std::vector<Value> items);
Value makeDict();
/// The items of a tuple or list (empty for other kinds).
const std::vector<Value> &sequenceItems(const Value &v);
bool isSequence(const Value &v);
/// The items a `for` over v visits: a sequence's (a copy), a range's, a
/// dict's keys, a string's characters, a tensor's rows; nullopt when v is
/// not iterable.
std::optional<std::vector<Value>> iterationItems(const Value &v);

/// Python's type name, for messages: "int", "tensor", "tuple", "function", ...
std::string typeName(const Value &v);
/// str(v) and repr(v) with Python's formatting (tensors as numpy prints them).
std::string str(const Value &v);
std::string repr(const Value &v);
/// Python == on values (tensors compare by identity here).
bool valuesEqual(const Value &a, const Value &b);
/// d[k] = v: replaces the value of an equal key, else appends (insertion order).
void dictSet(DictVal &d, const Value &k, const Value &v);
/// Element `flat` of t as a Python number: float, bool or int (.item(), .tolist()).
Value elementValue(const Tensor &t, int64_t flat);

} // namespace tile::host
