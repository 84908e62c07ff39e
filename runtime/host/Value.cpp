// Value.cpp - construction, type names, str/repr and equality of host values.
#include "host/Value.h"

#include <fmt/format.h>

#include <algorithm>

namespace tile::host {

int64_t RangeVal::size() const {
  if (step > 0)
    return stop > start ? (stop - start + step - 1) / step : 0;
  return start > stop ? (start - stop - step - 1) / -step : 0;
}

std::string FunctionVal::name() const { return def ? def->name : "<lambda>"; }

int64_t Value::toInt() const {
  if (is<bool>())
    return as<bool>() ? 1 : 0;
  TILE_ASSERT(is<int64_t>(), "toInt on a non-int value");
  return as<int64_t>();
}

double Value::toDouble() const {
  if (is<double>())
    return as<double>();
  return double(toInt());
}

Value makeTuple(std::vector<Value> items) {
  return TupleVal{std::make_shared<const std::vector<Value>>(std::move(items))};
}

Value makeList(std::vector<Value> items) {
  return ListVal{std::make_shared<std::vector<Value>>(std::move(items))};
}

Value makeDict() { return DictVal{std::make_shared<std::vector<std::pair<Value, Value>>>()}; }

bool isSequence(const Value &v) { return v.is<TupleVal>() || v.is<ListVal>(); }

const std::vector<Value> &sequenceItems(const Value &v) {
  static const std::vector<Value> kEmpty;
  if (v.is<TupleVal>())
    return *v.as<TupleVal>().items;
  if (v.is<ListVal>())
    return *v.as<ListVal>().items;
  return kEmpty;
}

std::string typeName(const Value &v) {
  struct Namer {
    std::string operator()(const NoneVal &) { return "NoneType"; }
    std::string operator()(bool) { return "bool"; }
    std::string operator()(int64_t) { return "int"; }
    std::string operator()(double) { return "float"; }
    std::string operator()(const std::string &) { return "str"; }
    std::string operator()(const TupleVal &) { return "tuple"; }
    std::string operator()(const ListVal &) { return "list"; }
    std::string operator()(const DictVal &) { return "dict"; }
    std::string operator()(const Tensor &) { return "tensor"; }
    std::string operator()(const DTypeVal &) { return "dtype"; }
    std::string operator()(const RangeVal &) { return "range"; }
    std::string operator()(const FunctionVal &) { return "function"; }
    std::string operator()(const KernelVal &) { return "kernel"; }
    std::string operator()(const KernelGridVal &) { return "kernel launcher"; }
    std::string operator()(const BuiltinVal &) { return "builtin_function"; }
    std::string operator()(const ModuleVal &) { return "module"; }
    std::string operator()(const SliceVal &) { return "slice"; }
    std::string operator()(const EllipsisVal &) { return "ellipsis"; }
  };
  return std::visit(Namer{}, v.v);
}

namespace {
std::string joinRepr(const std::vector<Value> &items) {
  std::string s;
  for (size_t i = 0; i < items.size(); ++i)
    s += (i ? ", " : "") + repr(items[i]);
  return s;
}

std::string quote(const std::string &s) {
  // Python prefers single quotes unless the text contains one.
  bool useDouble = s.find('\'') != std::string::npos && s.find('"') == std::string::npos;
  char q = useDouble ? '"' : '\'';
  std::string out(1, q);
  for (char c : s) {
    if (c == '\\' || c == q)
      out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '\t') {
      out += "\\t";
      continue;
    }
    out += c;
  }
  return out + q;
}

std::string dtypeStr(Scalar s) {
  return s == Scalar::I1 ? "bool" : std::string(tritonDTypeName(s));
}
} // namespace

std::string str(const Value &v) {
  if (v.is<std::string>())
    return v.as<std::string>();
  if (v.is<Tensor>())
    return v.as<Tensor>().str();
  return repr(v);
}

std::string repr(const Value &v) {
  if (v.isNone())
    return "None";
  if (v.is<bool>())
    return v.as<bool>() ? "True" : "False";
  if (v.is<int64_t>())
    return std::to_string(v.as<int64_t>());
  if (v.is<double>())
    return pythonFloatRepr(v.as<double>());
  if (v.is<std::string>())
    return quote(v.as<std::string>());
  if (v.is<TupleVal>()) {
    const auto &items = sequenceItems(v);
    return "(" + joinRepr(items) + (items.size() == 1 ? ",)" : ")");
  }
  if (v.is<ListVal>())
    return "[" + joinRepr(sequenceItems(v)) + "]";
  if (v.is<DictVal>()) {
    std::string s;
    for (const auto &[k, val] : *v.as<DictVal>().items)
      s += (s.empty() ? "" : ", ") + repr(k) + ": " + repr(val);
    return "{" + s + "}";
  }
  if (v.is<Tensor>())
    return v.as<Tensor>().str();
  if (v.is<DTypeVal>())
    return dtypeStr(v.as<DTypeVal>().scalar);
  if (v.is<RangeVal>()) {
    const RangeVal &r = v.as<RangeVal>();
    if (r.step == 1)
      return fmt::format("range({}, {})", r.start, r.stop);
    return fmt::format("range({}, {}, {})", r.start, r.stop, r.step);
  }
  if (v.is<FunctionVal>())
    return fmt::format("<function {}>", v.as<FunctionVal>().name());
  if (v.is<KernelVal>())
    return fmt::format("<kernel {}>", v.as<KernelVal>().def->name);
  if (v.is<KernelGridVal>())
    return fmt::format("<kernel {}[grid]>", v.as<KernelGridVal>().def->name);
  if (v.is<BuiltinVal>())
    return fmt::format("<built-in function {}>", v.as<BuiltinVal>().name);
  if (v.is<EllipsisVal>())
    return "Ellipsis";
  if (v.is<SliceVal>())
    return "slice(" + joinRepr(*v.as<SliceVal>().parts) + ")";
  return fmt::format("<module '{}'>", v.as<ModuleVal>().name);
}

bool valuesEqual(const Value &a, const Value &b) {
  if (a.isNumber() && b.isNumber()) {
    if (a.isIntLike() && b.isIntLike())
      return a.toInt() == b.toInt();
    return a.toDouble() == b.toDouble();
  }
  if (a.v.index() != b.v.index())
    return false;
  if (a.isNone() || a.is<EllipsisVal>())
    return true;
  if (a.is<std::string>())
    return a.as<std::string>() == b.as<std::string>();
  if (isSequence(a)) {
    const auto &x = sequenceItems(a), &y = sequenceItems(b);
    if (x.size() != y.size())
      return false;
    for (size_t i = 0; i < x.size(); ++i)
      if (!valuesEqual(x[i], y[i]))
        return false;
    return true;
  }
  if (a.is<DTypeVal>())
    return a.as<DTypeVal>().scalar == b.as<DTypeVal>().scalar;
  if (a.is<RangeVal>()) {
    const RangeVal &x = a.as<RangeVal>(), &y = b.as<RangeVal>();
    return x.start == y.start && x.stop == y.stop && x.step == y.step;
  }
  if (a.is<Tensor>())
    return a.as<Tensor>().storage() == b.as<Tensor>().storage() &&
           a.as<Tensor>().offset() == b.as<Tensor>().offset();
  if (a.is<KernelVal>())
    return a.as<KernelVal>().def == b.as<KernelVal>().def;
  if (a.is<ModuleVal>())
    return a.as<ModuleVal>().name == b.as<ModuleVal>().name;
  if (a.is<DictVal>())
    return a.as<DictVal>().items == b.as<DictVal>().items;
  if (a.is<FunctionVal>())
    return a.as<FunctionVal>().def == b.as<FunctionVal>().def &&
           a.as<FunctionVal>().lambda == b.as<FunctionVal>().lambda &&
           a.as<FunctionVal>().closure == b.as<FunctionVal>().closure;
  return false;
}

} // namespace tile::host

namespace tile::host {

std::optional<std::vector<Value>> iterationItems(const Value &v) {
  std::vector<Value> items;
  if (v.is<RangeVal>()) {
    const RangeVal &r = v.as<RangeVal>();
    constexpr int64_t kMaxItems = int64_t(1) << 26;   // a list of them: 1 GiB of values
    if (r.size() > kMaxItems)
      throw HostError(fmt::format("a range of {} items is too large to expand into a list (at most 2^26)", r.size()));
    for (int64_t i = 0, n = r.size(); i < n; ++i)
      items.push_back(Value(r.at(i)));
  } else if (isSequence(v)) {
    items = sequenceItems(v);
  } else if (v.is<DictVal>()) {
    for (const auto &kv : *v.as<DictVal>().items)
      items.push_back(kv.first);
  } else if (v.is<std::string>()) {
    for (char c : v.as<std::string>())
      items.push_back(std::string(1, c));
  } else if (v.is<Tensor>() && v.as<Tensor>().ndim() > 0) {
    for (int64_t i = 0, n = v.as<Tensor>().shape()[0]; i < n; ++i)
      items.push_back(v.as<Tensor>().select(0, i));
  } else {
    return std::nullopt;
  }
  return items;
}

} // namespace tile::host

namespace tile::host {

void dictSet(DictVal &d, const Value &k, const Value &v) {
  auto &items = *d.items;
  auto it = std::find_if(items.begin(), items.end(), [&](const auto &kv) { return valuesEqual(kv.first, k); });
  if (it != items.end())
    it->second = v;
  else
    items.emplace_back(k, v);
}

Value elementValue(const Tensor &t, int64_t flat) {
  if (isFloat(t.dtype()))
    return t.getDouble(flat);
  return t.dtype() == Scalar::I1 ? Value(t.getInt(flat) != 0) : Value(t.getInt(flat));
}

} // namespace tile::host
