// HostOps.cpp - Python operator semantics on host values: arithmetic on
// ints (int64, overflow is an error) and floats with Python's floor
// division and modulo, sequence concatenation, comparisons, truthiness,
// subscripts, and dispatch to tensor ops when a tensor is involved.
#include "host/Evaluator.h"

#include <fmt/format.h>

#include <cmath>

namespace tile::host {

ScalarOperand scalarOperandOf(const Value &v) {
  ScalarOperand s;
  s.isBool = v.is<bool>();
  s.isFloat = v.is<double>();
  if (s.isFloat)
    s.f = v.as<double>();
  else
    s.i = v.toInt();
  return s;
}

namespace {
using ast::BinOpKind;
using ast::CmpOpKind;

[[noreturn]] void unsupported(const char *op, const Value &a, const Value &b) {
  throw HostError(fmt::format("unsupported operand types for {}: '{}' and '{}'", op, typeName(a), typeName(b)));
}

[[noreturn]] void overflow() { throw HostError("integer overflow in host arithmetic (host ints are 64-bit)"); }

int64_t intPow(int64_t base, int64_t exp) {
  int64_t r = 1;
  for (; exp > 0; --exp)
    if (__builtin_mul_overflow(r, base, &r))
      overflow();
  return r;
}

Value intBinary(BinOpKind op, int64_t a, int64_t b) {
  int64_t r = 0;
  switch (op) {
  case BinOpKind::Add:
    if (__builtin_add_overflow(a, b, &r))
      overflow();
    return r;
  case BinOpKind::Sub:
    if (__builtin_sub_overflow(a, b, &r))
      overflow();
    return r;
  case BinOpKind::Mul:
    if (__builtin_mul_overflow(a, b, &r))
      overflow();
    return r;
  case BinOpKind::Div:
    if (b == 0)
      throw HostError("division by zero");
    return double(a) / double(b);
  case BinOpKind::FloorDiv:
  case BinOpKind::Mod: {
    if (b == 0)
      throw HostError("integer division or modulo by zero");
    if (a == INT64_MIN && b == -1)
      overflow();
    int64_t q = a / b, m = a % b;
    if (m != 0 && ((m < 0) != (b < 0))) {
      --q;
      m += b;
    }
    return op == BinOpKind::FloorDiv ? q : m;
  }
  case BinOpKind::Pow:
    if (b < 0)
      return std::pow(double(a), double(b));
    if (std::abs(a) > 1 && b > 63)
      overflow();
    return intPow(a, b);
  case BinOpKind::LShift:
    if (b < 0)
      throw HostError("negative shift count");
    if (b > 62 || (a != 0 && std::abs(a) > (INT64_MAX >> b)))
      overflow();
    return a << b;
  case BinOpKind::RShift:
    if (b < 0)
      throw HostError("negative shift count");
    return b > 63 ? (a < 0 ? -1 : 0) : a >> b;
  case BinOpKind::BitAnd: return a & b;
  case BinOpKind::BitOr: return a | b;
  case BinOpKind::BitXor: return a ^ b;
  case BinOpKind::MatMul: break;
  }
  throw HostError(fmt::format("unsupported operand types for {}: 'int' and 'int'", ast::binOpSpelling(op)));
}

Value floatBinary(BinOpKind op, double a, double b) {
  switch (op) {
  case BinOpKind::Add: return a + b;
  case BinOpKind::Sub: return a - b;
  case BinOpKind::Mul: return a * b;
  case BinOpKind::Div:
    if (b == 0)
      throw HostError("float division by zero");
    return a / b;
  case BinOpKind::FloorDiv:
  case BinOpKind::Mod: {
    if (b == 0)
      throw HostError("float floor division or modulo by zero");
    double m = std::fmod(a, b);
    if (m != 0 && ((m < 0) != (b < 0)))
      m += b;
    return op == BinOpKind::Mod ? m : std::floor((a - m) / b + 0.5);
  }
  case BinOpKind::Pow:
    if (a == 0 && b < 0)
      throw HostError("0.0 cannot be raised to a negative power");
    return std::pow(a, b);
  default: break;
  }
  throw HostError(fmt::format("unsupported operand types for {}: 'float' and 'float'", ast::binOpSpelling(op)));
}

std::optional<BinaryOp> tensorBinaryOp(BinOpKind op) {
  switch (op) {
  case BinOpKind::Add: return BinaryOp::Add;
  case BinOpKind::Sub: return BinaryOp::Sub;
  case BinOpKind::Mul: return BinaryOp::Mul;
  case BinOpKind::Div: return BinaryOp::Div;
  case BinOpKind::FloorDiv: return BinaryOp::FloorDiv;
  case BinOpKind::Mod: return BinaryOp::Mod;
  case BinOpKind::Pow: return BinaryOp::Pow;
  case BinOpKind::BitAnd: return BinaryOp::BitAnd;
  case BinOpKind::BitOr: return BinaryOp::BitOr;
  case BinOpKind::BitXor: return BinaryOp::BitXor;
  default: return std::nullopt;
  }
}


/// A tensor op where at least one side is a tensor; the other a tensor or number.
Value tensorBinary(BinaryOp op, const char *spelling, const Value &a, const Value &b) {
  bool ta = a.is<Tensor>(), tb = b.is<Tensor>();
  if ((!ta && !a.isNumber()) || (!tb && !b.isNumber()))
    unsupported(spelling, a, b);
  if (ta && tb)
    return binary(op, a.as<Tensor>(), b.as<Tensor>());
  if (ta)
    return binary(op, a.as<Tensor>(), scalarOperandOf(b));
  return binary(op, scalarOperandOf(a), b.as<Tensor>());
}

/// Items (or characters) a repeated string, list or tuple may hold: a
/// typo like `[0] * 10**10` is an error, not gigabytes of memory.
constexpr int64_t kMaxRepeatedItems = int64_t(1) << 26;

Value repeatSequence(const Value &seq, int64_t n) {
  std::vector<Value> out;
  const auto &items = sequenceItems(seq);
  for (int64_t i = 0; i < n; ++i)
    out.insert(out.end(), items.begin(), items.end());
  return seq.is<TupleVal>() ? makeTuple(std::move(out)) : makeList(std::move(out));
}

Value concatOrRepeat(BinOpKind op, const Value &a, const Value &b) {
  const char *sp = ast::binOpSpelling(op);
  if (op == BinOpKind::Add && a.is<std::string>() && b.is<std::string>())
    return a.as<std::string>() + b.as<std::string>();
  if (op == BinOpKind::Add && isSequence(a) && a.v.index() == b.v.index()) {
    std::vector<Value> out = sequenceItems(a);
    const auto &tail = sequenceItems(b);
    out.insert(out.end(), tail.begin(), tail.end());
    return a.is<TupleVal>() ? makeTuple(std::move(out)) : makeList(std::move(out));
  }
  if (op == BinOpKind::Mul && (a.is<std::string>() || isSequence(a)) && b.is<int64_t>()) {
    int64_t unit = a.is<std::string>() ? (int64_t)a.as<std::string>().size() : (int64_t)sequenceItems(a).size();
    if (b.as<int64_t>() > 0 && unit > 0 && b.as<int64_t>() > kMaxRepeatedItems / unit)
      throw HostError(fmt::format("a {} of {} repeated {} times is too large (host programs allow {} items)",
                                  typeName(a), unit, b.as<int64_t>(), kMaxRepeatedItems));
    if (a.is<std::string>()) {
      std::string s;
      for (int64_t i = 0; i < b.as<int64_t>(); ++i)
        s += a.as<std::string>();
      return s;
    }
    return repeatSequence(a, b.as<int64_t>());
  }
  if (op == BinOpKind::Mul && a.is<int64_t>() && (b.is<std::string>() || isSequence(b)))
    return concatOrRepeat(op, b, a);
  unsupported(sp, a, b);
}

int cmpNumbers(const Value &a, const Value &b) {
  if (a.isIntLike() && b.isIntLike())
    return a.toInt() < b.toInt() ? -1 : a.toInt() > b.toInt() ? 1 : 0;
  double x = a.toDouble(), y = b.toDouble();
  return x < y ? -1 : x > y ? 1 : 0;
}

/// Python ordering for numbers, strings and sequences (lexicographic).
int order(const Value &a, const Value &b, const char *sp) {
  if (a.isNumber() && b.isNumber()) {
    double x = a.toDouble(), y = b.toDouble();
    if (std::isnan(x) || std::isnan(y))
      return 2; // unordered: every ordering comparison is false
    return cmpNumbers(a, b);
  }
  if (a.is<std::string>() && b.is<std::string>())
    return a.as<std::string>().compare(b.as<std::string>()) < 0 ? -1 : a.as<std::string>() == b.as<std::string>() ? 0 : 1;
  if (isSequence(a) && a.v.index() == b.v.index()) {
    const auto &x = sequenceItems(a), &y = sequenceItems(b);
    for (size_t i = 0; i < x.size() && i < y.size(); ++i)
      if (!valuesEqual(x[i], y[i]))
        return order(x[i], y[i], sp);
    return x.size() < y.size() ? -1 : x.size() > y.size() ? 1 : 0;
  }
  throw HostError(fmt::format("'{}' not supported between instances of '{}' and '{}'", sp, typeName(a), typeName(b)));
}

bool contains(const Value &container, const Value &item) {
  if (container.is<std::string>() && item.is<std::string>())
    return container.as<std::string>().find(item.as<std::string>()) != std::string::npos;
  if (isSequence(container)) {
    for (const Value &v : sequenceItems(container))
      if (valuesEqual(v, item))
        return true;
    return false;
  }
  if (container.is<DictVal>()) {
    for (const auto &kv : *container.as<DictVal>().items)
      if (valuesEqual(kv.first, item))
        return true;
    return false;
  }
  if (container.is<RangeVal>() && item.isIntLike()) {
    const RangeVal &r = container.as<RangeVal>();
    int64_t x = item.toInt();
    for (int64_t i = 0, n = r.size(); i < n; ++i)
      if (r.at(i) == x)
        return true;
    return false;
  }
  throw HostError(fmt::format("argument of type '{}' is not iterable", typeName(container)));
}

int64_t normalizeIndex(int64_t i, int64_t n, const char *what) {
  int64_t j = i < 0 ? i + n : i;
  if (j < 0 || j >= n)
    throw HostError(fmt::format("{} index out of range (index {}, length {})", what, i, n));
  return j;
}
} // namespace

Value binaryOp(BinOpKind op, const Value &a, const Value &b) {
  const char *sp = ast::binOpSpelling(op);
  if (a.is<Tensor>() || b.is<Tensor>()) {
    if (op == BinOpKind::MatMul) {
      if (!a.is<Tensor>() || !b.is<Tensor>())
        unsupported(sp, a, b);
      return matmul(a.as<Tensor>(), b.as<Tensor>());
    }
    std::optional<BinaryOp> top = tensorBinaryOp(op);
    if (!top)
      unsupported(sp, a, b);
    return tensorBinary(*top, sp, a, b);
  }
  if (a.isIntLike() && b.isIntLike()) {
    bool bitwise = op == BinOpKind::BitAnd || op == BinOpKind::BitOr || op == BinOpKind::BitXor;
    if (bitwise && a.is<bool>() && b.is<bool>())
      return bool(intBinary(op, a.toInt(), b.toInt()).as<int64_t>());
    return intBinary(op, a.toInt(), b.toInt());
  }
  if (a.isNumber() && b.isNumber())
    return floatBinary(op, a.toDouble(), b.toDouble());
  if (op == BinOpKind::Mod && a.is<std::string>())
    return percentFormat(a.as<std::string>(), b);
  return concatOrRepeat(op, a, b);
}

Value compareOp(CmpOpKind op, const Value &a, const Value &b) {
  const char *sp = ast::cmpOpSpelling(op);
  switch (op) {
  case CmpOpKind::Is:
  case CmpOpKind::IsNot: {
    bool same = (a.isNone() && b.isNone()) || (a.v.index() == b.v.index() && !a.isNumber() &&
                                               !a.is<std::string>() && valuesEqual(a, b)) ||
                (a.is<bool>() && b.is<bool>() && a.as<bool>() == b.as<bool>());
    return op == CmpOpKind::Is ? same : !same;
  }
  case CmpOpKind::In: return contains(b, a);
  case CmpOpKind::NotIn: return !contains(b, a);
  default: break;
  }
  if (a.is<Tensor>() || b.is<Tensor>()) {
    static const std::map<CmpOpKind, BinaryOp> kOps = {
        {CmpOpKind::Eq, BinaryOp::Eq}, {CmpOpKind::NotEq, BinaryOp::Ne}, {CmpOpKind::Lt, BinaryOp::Lt},
        {CmpOpKind::LtE, BinaryOp::Le}, {CmpOpKind::Gt, BinaryOp::Gt},   {CmpOpKind::GtE, BinaryOp::Ge}};
    return tensorBinary(kOps.at(op), sp, a, b);
  }
  if (op == CmpOpKind::Eq)
    return valuesEqual(a, b);
  if (op == CmpOpKind::NotEq)
    return !valuesEqual(a, b);
  int c = order(a, b, sp);
  if (c == 2)
    return false;
  switch (op) {
  case CmpOpKind::Lt: return c < 0;
  case CmpOpKind::LtE: return c <= 0;
  case CmpOpKind::Gt: return c > 0;
  case CmpOpKind::GtE: return c >= 0;
  default: return false;
  }
}

bool truthy(const Value &v) {
  if (v.isNone())
    return false;
  if (v.is<bool>())
    return v.as<bool>();
  if (v.is<int64_t>())
    return v.as<int64_t>() != 0;
  if (v.is<double>())
    return v.as<double>() != 0;
  if (v.is<std::string>())
    return !v.as<std::string>().empty();
  if (isSequence(v))
    return !sequenceItems(v).empty();
  if (v.is<DictVal>())
    return !v.as<DictVal>().items->empty();
  if (v.is<RangeVal>())
    return v.as<RangeVal>().size() > 0;
  if (v.is<Tensor>()) {
    const Tensor &t = v.as<Tensor>();
    if (t.numel() != 1)
      throw HostError(fmt::format("the truth value of a tensor with {} elements is ambiguous "
                                  "(use .sum(), .max() or compare a single element)", t.numel()));
    return t.getDouble(0) != 0;
  }
  return true;
}

namespace {
/// Python's slice over n items: the first index, the count, the step.
struct SliceBounds {
  int64_t start, count, step;
};

SliceBounds sliceBounds(const Value &slice, int64_t n) {
  const auto &parts = *slice.as<SliceVal>().parts; // lower, upper, step
  int64_t step = parts[2].isNone() ? 1 : toIndex(parts[2], "slice step");
  if (step == 0)
    throw HostError("slice step cannot be zero");
  auto clampIdx = [&](const Value &v, int64_t def) {
    if (v.isNone())
      return def;
    int64_t i = toIndex(v, "slice index");
    if (i < 0)
      i += n;
    return step > 0 ? std::clamp<int64_t>(i, 0, n) : std::clamp<int64_t>(i, -1, n - 1);
  };
  int64_t lo = clampIdx(parts[0], step > 0 ? 0 : n - 1);
  int64_t hi = clampIdx(parts[1], step > 0 ? n : -1);
  int64_t count = step > 0 ? (hi > lo ? (hi - lo + step - 1) / step : 0) : (lo > hi ? (lo - hi - step - 1) / -step : 0);
  return {lo, count, step};
}

Value sliceSequence(const Value &seq, const Value &slice) {
  const auto &items = sequenceItems(seq);
  SliceBounds s = sliceBounds(slice, int64_t(items.size()));
  std::vector<Value> out;
  for (int64_t k = 0; k < s.count; ++k)
    out.push_back(items[size_t(s.start + k * s.step)]);
  return seq.is<TupleVal>() ? makeTuple(std::move(out)) : makeList(std::move(out));
}

/// t[i, a:b:s, None, ...]: ints select, slices and None give views (writes
/// through them reach t, as NumPy's and torch's basic indexing).
Value tensorIndex(const Tensor &t, const Value &index) {
  std::vector<Value> idx = index.is<TupleVal>() ? sequenceItems(index) : std::vector<Value>{index};
  int64_t ellipses = std::count_if(idx.begin(), idx.end(), [](const Value &i) { return i.is<EllipsisVal>(); });
  if (ellipses > 1)
    throw HostError("an index can only have a single ellipsis ('...')");
  int64_t axes = std::count_if(idx.begin(), idx.end(), [](const Value &i) { return !i.isNone() && !i.is<EllipsisVal>(); });
  if (ellipses) {   // `...` stands for as many full slices as the other indices leave
    auto at = std::find_if(idx.begin(), idx.end(), [](const Value &i) { return i.is<EllipsisVal>(); });
    int64_t fill = std::max<int64_t>(0, t.ndim() - axes);
    Value all = SliceVal{std::make_shared<const std::vector<Value>>(std::vector<Value>{Value(), Value(), Value()})};
    at = idx.erase(at);
    idx.insert(at, size_t(fill), all);
    axes += fill;
  }
  if (axes > t.ndim())
    throw HostError(fmt::format("too many indices for a tensor of {} dimensions: {}", t.ndim(), axes));
  Tensor r = t;
  int axis = 0;
  for (const Value &i : idx) {
    if (i.isNone()) {
      r = r.unsqueeze(axis++);
    } else if (i.is<SliceVal>()) {
      SliceBounds s = sliceBounds(i, r.shape()[size_t(axis)]);
      if (s.step < 0)
        throw HostError("a tensor slice's step must be positive (as torch's)");
      r = r.slice(axis++, s.start, s.count, s.step);
    } else if (i.isIntLike()) {
      r = r.select(axis, i.toInt());
    } else {
      throw HostError(fmt::format("tensors are indexed with ints, slices and None in host code (got '{}')",
                                  typeName(i)));
    }
  }
  return r;
}
} // namespace

Value subscript(const Value &c, const Value &index) {
  if (isSequence(c)) {
    if (index.is<SliceVal>())
      return sliceSequence(c, index);
    if (!index.isIntLike())
      throw HostError(fmt::format("{} indices must be integers, not '{}'", typeName(c), typeName(index)));
    const auto &items = sequenceItems(c);
    return items[size_t(normalizeIndex(index.toInt(), int64_t(items.size()), typeName(c).c_str()))];
  }
  if (c.is<DictVal>()) {
    std::string keys;
    for (const auto &kv : *c.as<DictVal>().items) {
      if (valuesEqual(kv.first, index))
        return kv.second;
      keys += (keys.empty() ? "" : ", ") + repr(kv.first);
    }
    throw HostError(fmt::format("key {} not found in dict (keys: {})", repr(index), keys.empty() ? "none" : keys));
  }
  if (c.is<std::string>() && index.is<SliceVal>()) {
    const std::string &str = c.as<std::string>();
    SliceBounds b = sliceBounds(index, int64_t(str.size()));
    std::string out;
    for (int64_t k = 0; k < b.count; ++k)
      out += str[size_t(b.start + k * b.step)];
    return out;
  }
  if (c.is<std::string>() && index.isIntLike()) {
    const std::string &s = c.as<std::string>();
    return std::string(1, s[size_t(normalizeIndex(index.toInt(), int64_t(s.size()), "string"))]);
  }
  if (c.is<RangeVal>() && index.isIntLike()) {
    const RangeVal &r = c.as<RangeVal>();
    return r.at(normalizeIndex(index.toInt(), r.size(), "range"));
  }
  if (c.is<Tensor>())
    return tensorIndex(c.as<Tensor>(), index);
  throw HostError(fmt::format("'{}' object is not subscriptable", typeName(c)));
}

} // namespace tile::host
