// HostBuiltins.cpp - the functions host code can call (tensor creation,
// math, print, assert_close, .npy I/O, Python builtins), tensor methods and
// attributes, and list/dict methods. The same names are reachable bare or
// through torch./triton./tl./np./tile. prefixes; device= is accepted and
// ignored. Default float dtype is float32 (torch's convention).
#include "host/Evaluator.h"
#include "host/Npy.h"

#include <set>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>

namespace tile::host {

namespace {
using Fn = std::function<Value(Evaluator &, CallArgs &)>;

Value builtin(std::string name, Fn fn) { return BuiltinVal{std::move(name), std::make_shared<Fn>(std::move(fn))}; }


/// Elementwise op on tensor/number operands keeping Python numbers weak.
Value elementwise(BinaryOp op, const Value &a, const Value &b, const char *fname) {
  if (a.is<Tensor>() && b.is<Tensor>())
    return binary(op, a.as<Tensor>(), b.as<Tensor>());
  if (a.is<Tensor>() && b.isNumber())
    return binary(op, a.as<Tensor>(), scalarOperandOf(b));
  if (a.isNumber() && b.is<Tensor>())
    return binary(op, scalarOperandOf(a), b.as<Tensor>());
  if (a.isNumber() && b.isNumber())
    return binary(op, scalarTensor(scalarOperandOf(a)), scalarOperandOf(b));
  throw HostError(fmt::format("{}() expects tensors or numbers, got '{}' and '{}'", fname, typeName(a), typeName(b)));
}

Shape shapeFromArgs(const ArgParser &p, const char *fname) {
  const auto &rest = p.rest();
  // a shape tuple, or one with NumPy's positional dtype after it (dtypeArg)
  if ((rest.size() == 1 || (rest.size() == 2 && rest[1].is<DTypeVal>())) && isSequence(rest[0]))
    return toShape(rest[0], fname);
  Shape s;
  for (const Value &v : rest)
    s.push_back(toIndex(v, "dimension"));
  return s;
}

Scalar dtypeArg(const ArgParser &p, Scalar def) {
  Value d = p.getOr("dtype", Value());
  const auto &rest = p.rest();
  if (rest.size() == 2 && isSequence(rest[0]) && rest[1].is<DTypeVal>()) {   // zeros((16,), float32)
    if (!d.isNone())
      throw HostError("dtype given twice (positionally and as dtype=)");
    d = rest[1];
  }
  return d.isNone() ? def : toDType(d, "dtype");
}

std::string indexStr(const Shape &shape, int64_t flat) {
  Shape idx(shape.size());
  for (size_t i = shape.size(); i-- > 0;) {
    idx[i] = flat % shape[i];
    flat /= shape[i];
  }
  return shapeStr(idx);
}

// ------------------------------------------------------------------ creation

Value makeFilled(CallArgs &c, const char *name, double value) {
  ArgParser p(c, name, {"*", "dtype=", "device=", "requires_grad="});
  return Tensor::full(shapeFromArgs(p, name), value, dtypeArg(p, Scalar::F32));
}

Value fullFn(Evaluator &, CallArgs &c) {
  ArgParser p(c, "full", {"size", "fill_value", "dtype=", "device="});
  const Value &fill = p.get("fill_value");
  if (!fill.isNumber())
    throw HostError(fmt::format("full() fill_value must be a number, not '{}'", typeName(fill)));
  Scalar def = fill.is<double>() ? Scalar::F32 : fill.is<bool>() ? Scalar::I1 : Scalar::I64;
  Tensor t = Tensor::zeros(toShape(p.get("size"), "size"), dtypeArg(p, def));
  for (int64_t i = 0, n = t.numel(); i < n; ++i)
    fill.is<double>() ? t.setDouble(i, fill.toDouble()) : t.setInt(i, fill.toInt());
  return t;
}

Value arangeFn(Evaluator &, CallArgs &c) {
  ArgParser p(c, "arange", {"start", "end=", "step=", "dtype=", "device="});
  Value start = p.get("start"), end = p.getOr("end", Value()), step = p.getOr("step", Value(int64_t(1)));
  if (end.isNone()) {
    end = start;
    start = int64_t(0);
  }
  for (const Value *v : {&start, &end, &step})
    if (!v->isNumber())
      throw HostError(fmt::format("arange() arguments must be numbers, not '{}'", typeName(*v)));
  bool ints = start.isIntLike() && end.isIntLike() && step.isIntLike();
  Scalar dt = dtypeArg(p, ints ? Scalar::I64 : Scalar::F32);
  double s = start.toDouble(), e = end.toDouble(), st = step.toDouble();
  if (st == 0)
    throw HostError("arange() step must not be zero");
  int64_t n = std::max<int64_t>(0, int64_t(std::ceil((e - s) / st)));
  Tensor t = Tensor::zeros({n}, dt);
  for (int64_t i = 0; i < n; ++i) {
    if (ints)
      t.setInt(i, start.toInt() + i * step.toInt());
    else
      t.setDouble(i, s + double(i) * st);
  }
  return t;
}

Value randomFn(CallArgs &c, const char *name, bool normal) {
  ArgParser p(c, name, {"*", "dtype=", "device=", "generator=", "requires_grad="});
  Scalar dt = dtypeArg(p, Scalar::F32);
  if (!isFloat(dt))
    throw HostError(fmt::format("{}() needs a float dtype, not {}", name, tritonDTypeName(dt)));
  Shape s = shapeFromArgs(p, name);
  return normal ? randNormal(s, dt) : randUniform(s, dt);
}

/// Nested lists of numbers -> a tensor (dtype inferred like torch.tensor).
void flattenData(const Value &v, size_t depth, Shape &shape, std::vector<Value> &out) {
  if (!isSequence(v)) {
    if (!v.isNumber())
      throw HostError(fmt::format("tensor() data must be numbers or nested lists, got '{}'", typeName(v)));
    if (depth != shape.size())
      throw HostError("tensor() data is ragged (nested lists of different depths)");
    out.push_back(v);
    return;
  }
  const auto &items = sequenceItems(v);
  if (depth == shape.size() && out.empty())
    shape.push_back(int64_t(items.size()));
  else if (depth >= shape.size() || shape[depth] != int64_t(items.size()))
    throw HostError("tensor() data is ragged (nested lists of different lengths)");
  for (const Value &x : items)
    flattenData(x, depth + 1, shape, out);
}

Tensor tensorFromData(const Value &data, std::optional<Scalar> dtype) {
  if (data.is<Tensor>())
    return dtype ? data.as<Tensor>().to(*dtype) : data.as<Tensor>();
  Shape shape;
  std::vector<Value> flat;
  flattenData(data, 0, shape, flat);
  bool anyFloat = false, allBool = !flat.empty();
  for (const Value &v : flat) {
    anyFloat |= v.is<double>();
    allBool &= v.is<bool>();
  }
  Tensor t = Tensor::zeros(shape, dtype ? *dtype : anyFloat ? Scalar::F32 : allBool ? Scalar::I1 : Scalar::I64);
  for (size_t i = 0; i < flat.size(); ++i)
    flat[i].is<double>() ? t.setDouble(int64_t(i), flat[i].toDouble()) : t.setInt(int64_t(i), flat[i].toInt());
  return t;
}

Value tensorFn(Evaluator &, CallArgs &c) {
  ArgParser p(c, "tensor", {"data", "dtype=", "device="});
  Value d = p.getOr("dtype", Value());
  return tensorFromData(p.get("data"), d.isNone() ? std::nullopt : std::optional<Scalar>(toDType(d, "dtype")));
}

Value likeFn(CallArgs &c, const char *name, std::optional<double> fill) {
  ArgParser p(c, name, {"input", "dtype=", "device="});
  Tensor src = toTensor(p.get("input"), "input");
  Scalar dt = dtypeArg(p, src.dtype());
  if (!fill)
    return randUniform(src.shape(), isFloat(dt) ? dt : Scalar::F32).to(dt);
  return Tensor::full(src.shape(), *fill, dt);
}

// ------------------------------------------------------------------ math

Value unaryMath(CallArgs &c, const char *name, UnaryOp op, double (*scalarFn)(double)) {
  ArgParser p(c, name, {"x"});
  const Value &x = p.get("x");
  if (x.is<Tensor>())
    return unary(op, x.as<Tensor>());
  if (!x.isNumber())
    throw HostError(fmt::format("{}() expects a tensor or a number, not '{}'", name, typeName(x)));
  if (op == UnaryOp::Abs && x.isIntLike())
    return x.toInt() < 0 ? -x.toInt() : x.toInt();
  double r = scalarFn(x.toDouble());
  if ((op == UnaryOp::Log || op == UnaryOp::Sqrt) && std::isnan(r) && !std::isnan(x.toDouble()))
    throw HostError(fmt::format("math domain error in {}({})", name, repr(x)));
  return r;
}

std::optional<int> axisArg(const ArgParser &p) {
  for (const char *k : {"axis", "dim"}) {
    Value a = p.getOr(k, Value());
    if (!a.isNone())
      return int(toIndex(a, k));
  }
  return std::nullopt;
}

/// keepdims= (NumPy) or keepdim= (torch)
bool keepDimsArg(const ArgParser &p) {
  return truthy(p.getOr("keepdims", Value(false))) || truthy(p.getOr("keepdim", Value(false)));
}

Value reduceValue(const Tensor &t, ReduceOp op, const ArgParser &p) { return reduce(op, t, axisArg(p), keepDimsArg(p)); }

/// max/min: over a tensor (with optional axis), an iterable, or the arguments.
Value extremum(CallArgs &c, const char *name, ReduceOp op) {
  ArgParser p(c, name, {"*", "axis=", "dim=", "keepdims=", "keepdim="});
  const auto &rest = p.rest();
  if (rest.size() == 1 && rest[0].is<Tensor>())
    return reduceValue(rest[0].as<Tensor>(), op, p);
  std::vector<Value> items = rest.size() == 1 && isSequence(rest[0]) ? sequenceItems(rest[0]) : rest;
  if (items.empty())
    throw HostError(fmt::format("{}() arg is an empty sequence", name));
  Value best = items[0];
  for (size_t i = 1; i < items.size(); ++i) {
    if (items[i].is<Tensor>() || best.is<Tensor>())
      throw HostError(fmt::format("{}() of several tensors is ambiguous: use maximum/minimum", name));
    ast::CmpOpKind cmp = op == ReduceOp::Max ? ast::CmpOpKind::Gt : ast::CmpOpKind::Lt;
    if (truthy(compareOp(cmp, items[i], best)))
      best = items[i];
  }
  return best;
}

/// softmax(x, dim) / log_softmax(x, dim): along dim (the last by default),
/// max-subtracted, in the input's float dtype
Value softmaxFn(CallArgs &c, const char *name, bool log) {
  ArgParser p(c, name, {"x", "dim=", "axis="});
  Tensor x = toTensor(p.get("x"), "x");
  if (!isFloat(x.dtype()))
    x = x.to(Scalar::F32);
  Value d = p.getOr("dim", p.getOr("axis", Value(int64_t(-1))));
  int axis = int(toIndex(d, "dim"));
  Tensor shifted = binary(BinaryOp::Sub, x, reduce(ReduceOp::Max, x, axis, true));
  Tensor e = unary(UnaryOp::Exp, shifted);
  Tensor total = reduce(ReduceOp::Sum, e, axis, true);
  return log ? binary(BinaryOp::Sub, shifted, unary(UnaryOp::Log, total)) : binary(BinaryOp::Div, e, total);
}

/// layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5) and
/// rms_norm(x, normalized_shape, weight=None, eps=None): torch's, over the
/// trailing dims normalized_shape names, in x's float dtype (biased
/// variance; rms_norm's eps defaults to the dtype's epsilon, as torch's).
Value normFn(CallArgs &c, const char *name, bool rms) {
  ArgParser p(c, name, rms ? std::vector<std::string>{"input", "normalized_shape", "weight=", "eps="}
                           : std::vector<std::string>{"input", "normalized_shape", "weight=", "bias=", "eps="});
  Tensor x = toTensor(p.get("input"), "input");
  if (!isFloat(x.dtype()))
    x = x.to(Scalar::F32);
  Value ns = p.get("normalized_shape");
  std::vector<Value> dims = isSequence(ns) ? sequenceItems(ns) : std::vector<Value>{ns};
  int k = int(dims.size());
  if (k == 0 || k > x.ndim())
    throw HostError(fmt::format("{}(): normalized_shape {} does not fit an input of shape {}", name, repr(ns),
                                shapeStr(x.shape())));
  int64_t count = 1;
  for (int i = 0; i < k; ++i) {
    if (!dims[size_t(i)].isIntLike() || dims[size_t(i)].toInt() != x.shape()[size_t(x.ndim() - k + i)])
      throw HostError(fmt::format("{}(): normalized_shape {} is not the input's trailing shape {}", name, repr(ns),
                                  shapeStr(x.shape())));
    count *= dims[size_t(i)].toInt();
  }
  auto scalar = [&](double v) { return Tensor::full(Shape{}, v, x.dtype()); };
  auto meanTrailing = [&](const Tensor &t) {
    Tensor s = t;
    for (int i = 0; i < k; ++i)
      s = reduce(ReduceOp::Sum, s, x.ndim() - 1 - i, true);
    return binary(BinaryOp::Div, s, scalar(double(count)));
  };
  Tensor centered = rms ? x : binary(BinaryOp::Sub, x, meanTrailing(x));
  Tensor var = meanTrailing(binary(BinaryOp::Mul, centered, centered));
  double defaultEps = rms ? (x.dtype() == Scalar::F64 ? 2.220446049250313e-16 : 1.1920928955078125e-07) : 1e-5;
  Value epsV = p.getOr("eps", Value());
  double eps = epsV.isNone() ? defaultEps : epsV.toDouble();
  Tensor y = binary(BinaryOp::Div, centered, unary(UnaryOp::Sqrt, binary(BinaryOp::Add, var, scalar(eps))));
  if (Value w = p.getOr("weight", Value()); !w.isNone())
    y = binary(BinaryOp::Mul, y, toTensor(w, "weight"));
  if (!rms)
    if (Value b = p.getOr("bias", Value()); !b.isNone())
      y = binary(BinaryOp::Add, y, toTensor(b, "bias"));
  return y;
}

/// t.tolist(): nested lists of Python numbers (a 0-d tensor: the number)
Value tensorToList(const Tensor &t) {
  if (t.ndim() == 0)
    return elementValue(t, 0);
  std::vector<Value> items;
  for (int64_t i = 0; i < t.shape()[0]; ++i)
    items.push_back(tensorToList(t.select(0, i)));
  return makeList(std::move(items));
}

/// A copy with the axes in `order` (torch's permute, NumPy's transpose(axes); their view, as values here).
Tensor permuted(const Tensor &t, const Shape &order) {
  std::vector<bool> seen(size_t(t.ndim()), false);
  for (int64_t d : order) {
    if (d < -t.ndim() || d >= t.ndim() || seen[size_t(d < 0 ? d + t.ndim() : d)])
      throw HostError(fmt::format("permute(): {} is not a permutation of {} dimensions", shapeStr(order), t.ndim()));
    seen[size_t(d < 0 ? d + t.ndim() : d)] = true;
  }
  // a copy in the new order (element by element: host tensors are references)
  Shape shape;
  for (int64_t d : order)
    shape.push_back(t.shape()[size_t(d < 0 ? d + t.ndim() : d)]);
  Tensor r = Tensor::zeros(shape, t.dtype());
  Shape idx(shape.size(), 0), src(shape.size(), 0);
  for (int64_t flat = 0, n = r.numel(); flat < n; ++flat) {
    int64_t rest = flat;
    for (size_t k = shape.size(); k-- > 0;) {
      idx[k] = rest % shape[k];
      rest /= shape[k];
    }
    for (size_t k = 0; k < order.size(); ++k)
      src[size_t(order[k] < 0 ? order[k] + t.ndim() : order[k])] = idx[k];
    int64_t from = 0;
    for (size_t k = 0; k < src.size(); ++k)
      from = from * t.shape()[k] + src[k];
    isFloat(t.dtype()) ? r.setDouble(flat, t.getDouble(from)) : r.setInt(flat, t.getInt(from));
  }
  return r;
}

Value sumFn(Evaluator &, CallArgs &c) {
  ArgParser p(c, "sum", {"x", "axis=", "dim=", "keepdims=", "keepdim="});
  const Value &x = p.get("x");
  if (x.is<Tensor>())
    return reduceValue(x.as<Tensor>(), ReduceOp::Sum, p);
  if (!isSequence(x) && !x.is<RangeVal>())
    throw HostError(fmt::format("sum() expects a tensor or a sequence, not '{}'", typeName(x)));
  Value acc = int64_t(0);
  if (x.is<RangeVal>()) {
    for (int64_t i = 0, n = x.as<RangeVal>().size(); i < n; ++i)
      acc = binaryOp(ast::BinOpKind::Add, acc, Value(x.as<RangeVal>().at(i)));
    return acc;
  }
  for (const Value &v : sequenceItems(x))
    acc = binaryOp(ast::BinOpKind::Add, acc, v);
  return acc;
}

// ------------------------------------------------------------------ assert_close

struct Mismatch {
  int64_t index;
  double actual, expected, excess;
};

std::vector<Mismatch> findMismatches(const Tensor &a, const Tensor &e, double rtol, double atol) {
  std::vector<Mismatch> bad;
  for (int64_t i = 0, n = a.numel(); i < n; ++i) {
    double x = a.getDouble(i), y = e.getDouble(i);
    if (isClose(x, y, rtol, atol))
      continue;
    double excess = std::fabs(x - y) - (atol + rtol * std::fabs(y));
    bad.push_back({i, x, y, std::isnan(excess) ? INFINITY : excess});
  }
  return bad;
}

std::string elementStr(double v, Scalar dtype) {
  if (isFloat(dtype))
    return numpyScalarRepr(v, dtype);
  if (dtype == Scalar::I1)
    return v != 0 ? "True" : "False";
  return fmt::format("{}", int64_t(v));
}

std::string mismatchReport(const Tensor &a, const Tensor &e, std::vector<Mismatch> bad, double rtol, double atol) {
  std::string msg = fmt::format("assert_close failed: {} of {} elements are not close (rtol={}, atol={})",
                                bad.size(), a.numel(), pythonFloatRepr(rtol), pythonFloatRepr(atol));
  std::stable_sort(bad.begin(), bad.end(), [](const Mismatch &x, const Mismatch &y) { return x.excess > y.excess; });
  msg += bad.size() > 5 ? "; the worst 5:" : ":";
  for (size_t i = 0; i < bad.size() && i < 5; ++i) {
    const Mismatch &m = bad[i];
    msg += fmt::format("\n  at {}: actual {}, expected {} (difference {})", indexStr(a.shape(), m.index),
                       elementStr(m.actual, a.dtype()), elementStr(m.expected, e.dtype()),
                       pythonFloatRepr(std::fabs(m.actual - m.expected)));
  }
  return msg;
}

/// actual and expected as same-shape tensors (a number or 0-d expected broadcasts).
std::pair<Tensor, Tensor> closeOperands(const ArgParser &p, const char *fname) {
  Tensor a = toTensor(p.get("actual"), "actual");
  Tensor e = toTensor(p.get("expected"), "expected");
  if (a.shape() == e.shape())
    return {a, e};
  if (e.numel() == 1 && e.ndim() == 0)
    return {a, binary(BinaryOp::Add, Tensor::zeros(a.shape(), e.dtype()), e)};
  throw HostError(fmt::format("{}: shape mismatch: actual is {} but expected is {}", fname, a.describe(), e.describe()));
}

Value assertCloseFn(Evaluator &, CallArgs &c) {
  ArgParser p(c, "assert_close", {"actual", "expected", "rtol=", "atol=", "msg=", "check_dtype=", "equal_nan="});
  double rtol = toReal(p.getOr("rtol", Value(1e-5)), "rtol"), atol = toReal(p.getOr("atol", Value(1e-8)), "atol");
  auto [a, e] = closeOperands(p, "assert_close");
  std::vector<Mismatch> bad = findMismatches(a, e, rtol, atol);
  if (bad.empty())
    return Value();
  std::string msg = mismatchReport(a, e, std::move(bad), rtol, atol);
  Value user = p.getOr("msg", Value());
  if (!user.isNone())
    msg = str(user) + ": " + msg;
  fail(c.loc, msg);
}

Value allcloseFn(Evaluator &, CallArgs &c) {
  ArgParser p(c, "allclose", {"actual", "expected", "rtol=", "atol=", "equal_nan="});
  double rtol = toReal(p.getOr("rtol", Value(1e-5)), "rtol"), atol = toReal(p.getOr("atol", Value(1e-8)), "atol");
  auto [a, e] = closeOperands(p, "allclose");
  return findMismatches(a, e, rtol, atol).empty();
}

// ------------------------------------------------------------------ python builtins

Value printFn(Evaluator &ev, CallArgs &c) {
  ArgParser p(c, "print", {"*", "sep=", "end=", "flush=", "file="});
  std::string sep = str(p.getOr("sep", Value(" "))), end = str(p.getOr("end", Value("\n")));
  std::string line;
  for (size_t i = 0; i < p.rest().size(); ++i)
    line += (i ? sep : "") + str(p.rest()[i]);
  ev.out() << line << end;
  ev.out().flush();
  return Value();
}

/// bench_work(flops=N, bytes=N): declares the work of the next kernel
/// launch, which `tilec bench` reports as TFLOP/s and GB/s. Elsewhere it has
/// no effect.
Value benchWorkFn(Evaluator &ev, CallArgs &c) {
  ArgParser p(c, "bench_work", {"flops=", "bytes="});
  if (!p.has("flops") && !p.has("bytes")) fail(c.loc, "bench_work() needs flops= or bytes=");
  auto amount = [&](const char *name) {
    Value v = p.getOr(name, Value(int64_t(0)));
    if (!v.isNumber() || v.is<bool>() || v.toDouble() < 0 || !std::isfinite(v.toDouble()))
      fail(p.loc(name), fmt::format("bench_work() {}= must be a non-negative number, got {}", name, repr(v)));
    return v.toDouble();
  };
  ev.pendingWork() = {amount("flops"), amount("bytes")};
  return Value();
}

Value rangeFn(Evaluator &, CallArgs &c) {
  ArgParser p(c, "range", {"a", "b=", "step="});
  RangeVal r;
  if (p.has("b")) {
    r.start = toIndex(p.get("a"), "range start");
    r.stop = toIndex(p.get("b"), "range stop");
  } else {
    r.stop = toIndex(p.get("a"), "range stop");
  }
  r.step = p.has("step") ? toIndex(p.get("step"), "range step") : 1;
  if (r.step == 0)
    throw HostError("range() arg 3 must not be zero");
  return r;
}

Value cdivFn(Evaluator &, CallArgs &c) {
  ArgParser p(c, "cdiv", {"x", "div"});
  const Value &x = p.get("x"), &d = p.get("div");
  if (x.is<Tensor>() || d.is<Tensor>())
    throw HostError("cdiv() takes ints, not tensors");
  // cdiv(x, d) == -(-x // d), with Python's floor division.
  Value negX = binaryOp(ast::BinOpKind::Sub, Value(int64_t(0)), x);
  return binaryOp(ast::BinOpKind::Sub, Value(int64_t(0)), binaryOp(ast::BinOpKind::FloorDiv, negX, d));
}

Value lenFn(Evaluator &, CallArgs &c) {
  ArgParser p(c, "len", {"obj"});
  const Value &v = p.get("obj");
  if (isSequence(v))
    return int64_t(sequenceItems(v).size());
  if (v.is<std::string>())
    return int64_t(v.as<std::string>().size());
  if (v.is<DictVal>())
    return int64_t(v.as<DictVal>().items->size());
  if (v.is<RangeVal>())
    return v.as<RangeVal>().size();
  if (v.is<Tensor>()) {
    if (v.as<Tensor>().ndim() == 0)
      throw HostError("len() of a 0-d tensor");
    return v.as<Tensor>().shape()[0];
  }
  throw HostError(fmt::format("object of type '{}' has no len()", typeName(v)));
}

Value intFn(Evaluator &, CallArgs &c) {
  ArgParser p(c, "int", {"x="});
  Value v = p.getOr("x", Value(int64_t(0)));
  if (v.is<Tensor>()) {
    const Tensor &t = v.as<Tensor>();
    if (t.numel() != 1)
      throw HostError(fmt::format("only one-element tensors can be converted to int (got {})", t.describe()));
    return t.getInt(0);
  }
  if (v.isIntLike())
    return v.toInt();
  if (v.is<double>()) {
    double d = v.as<double>();
    if (!std::isfinite(d) || std::fabs(d) >= 9.2e18)
      throw HostError(fmt::format("cannot convert float {} to int", pythonFloatRepr(d)));
    return int64_t(d);
  }
  if (v.is<std::string>()) {
    const std::string &s = v.as<std::string>();
    char *end = nullptr;
    long long r = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0')
      throw HostError(fmt::format("invalid literal for int(): {}", repr(v)));
    return int64_t(r);
  }
  throw HostError(fmt::format("int() argument must be a number, string or tensor, not '{}'", typeName(v)));
}

Value floatFn(Evaluator &, CallArgs &c) {
  ArgParser p(c, "float", {"x="});
  Value v = p.getOr("x", Value(0.0));
  if (v.is<Tensor>()) {
    const Tensor &t = v.as<Tensor>();
    if (t.numel() != 1)
      throw HostError(fmt::format("only one-element tensors can be converted to float (got {})", t.describe()));
    return t.getDouble(0);
  }
  if (v.isNumber())
    return v.toDouble();
  if (v.is<std::string>()) {
    const std::string &s = v.as<std::string>();
    char *end = nullptr;
    double r = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0')
      throw HostError(fmt::format("could not convert string to float: {}", repr(v)));
    return r;
  }
  throw HostError(fmt::format("float() argument must be a number, string or tensor, not '{}'", typeName(v)));
}

/// The items of an iterable argument, or a HostError naming the function.
std::vector<Value> itemsOf(const Value &v, const char *name) {
  std::optional<std::vector<Value>> items = iterationItems(v);
  if (!items)
    throw HostError(fmt::format("{}(): '{}' object is not iterable", name, typeName(v)));
  return std::move(*items);
}

Value sequenceFn(CallArgs &c, const char *name, bool tuple) {
  ArgParser p(c, name, {"iterable="});
  std::vector<Value> items = itemsOf(p.getOr("iterable", makeTuple({})), name);
  return tuple ? makeTuple(std::move(items)) : makeList(std::move(items));
}

/// One replacement field of an f-string or str.format: the value after its
/// conversion (!r, !s), then its format spec, Python's mini-language as far
/// as fmt shares it (fill, align, sign, #, 0, width, precision, type).
std::string formatField(const Value &value, const std::string &conversion, const std::string &spec) {
  Value v = value;
  if (v.is<Tensor>() && v.as<Tensor>().numel() == 1 && !spec.empty())   // a 0-d or one-element tensor
    v = elementValue(v.as<Tensor>(), 0);
  if (conversion == "r" || conversion == "a")
    v = repr(v);
  else if (conversion == "s")
    v = str(v);
  if (spec.empty())
    return str(v);
  for (size_t i = 0; i < spec.size();) {   // a width or precision that would build a huge string
    size_t j = i;
    while (j < spec.size() && spec[j] >= '0' && spec[j] <= '9')
      ++j;
    if (j - i > 4)
      throw HostError(fmt::format("format spec '{}': widths and precisions above 9999 are not supported", spec));
    i = j == i ? i + 1 : j;
  }
  try {
    // (the pattern must outlive the format calls: fmt::runtime keeps a view)
    const std::string pattern = "{:" + spec + "}";
    auto runtime = fmt::runtime(pattern);
    char type = spec.back();
    bool floatType = std::string_view("eEfFgG%").find(type) != std::string_view::npos;
    if (type == '%') {   // Python's percent: the value times 100, 'f', a '%'
      const std::string fixed = "{:" + spec.substr(0, spec.size() - 1) + "f}";
      return fmt::format(fmt::runtime(fixed), v.toDouble() * 100.0) + "%";
    }
    if (v.is<bool>())
      return fmt::format(runtime, str(v));
    if (v.is<int64_t>())
      return floatType ? fmt::format(runtime, double(v.as<int64_t>())) : fmt::format(runtime, v.as<int64_t>());
    if (v.is<double>())
      return fmt::format(runtime, v.as<double>());
    if (v.is<std::string>())
      return fmt::format(runtime, v.as<std::string>());
  } catch (const fmt::format_error &e) {
    throw HostError(fmt::format("invalid format spec '{}' for a '{}': {}", spec, typeName(value), e.what()));
  }
  throw HostError(fmt::format("a '{}' takes no format spec (got '{}')", typeName(value), spec));
}

/// f"..." (the lexer's desugaring): literal, then (value, conversion, spec,
/// literal) per field.
Value fstringFn(Evaluator &, CallArgs &c) {
  const std::vector<Value> &a = c.args;
  std::string out = a.empty() ? "" : a[0].as<std::string>();
  for (size_t i = 1; i + 3 < a.size(); i += 4)
    out += formatField(a[i], a[i + 1].as<std::string>(), a[i + 2].as<std::string>()) + a[i + 3].as<std::string>();
  return out;
}

/// isinstance(x, T) for the builtin types int float bool str list tuple
/// dict range and torch.Tensor, T also a tuple of them (bool is an int)
Value isinstanceFn(Evaluator &, CallArgs &c) {
  ArgParser p(c, "isinstance", {"obj", "classinfo"});
  const Value &v = p.get("obj"), &cls = p.get("classinfo");
  std::vector<Value> types = cls.is<TupleVal>() ? sequenceItems(cls) : std::vector<Value>{cls};
  std::string have = typeName(v);
  for (const Value &t : types) {
    if (!t.is<BuiltinVal>())
      throw HostError(fmt::format("isinstance() arg 2 must be a type or a tuple of types, not '{}'", typeName(t)));
    const std::string &name = t.as<BuiltinVal>().name;
    static const std::set<std::string> kTypes = {"int", "float", "bool", "str", "list", "tuple", "dict", "range", "Tensor"};
    if (!kTypes.count(name))
      throw HostError(fmt::format("isinstance() of '{}' is not supported (types: int float bool str list tuple dict "
                                  "range torch.Tensor)", name));
    if (have == name || (name == "Tensor" && have == "tensor") || (name == "int" && have == "bool"))
      return Value(true);
  }
  return Value(false);
}

Value zipFn(Evaluator &, CallArgs &c) {
  ArgParser p(c, "zip", {"*"});
  std::vector<std::vector<Value>> seqs;
  size_t n = p.rest().empty() ? 0 : SIZE_MAX;
  for (const Value &v : p.rest()) {
    seqs.push_back(itemsOf(v, "zip"));
    n = std::min(n, seqs.back().size());
  }
  std::vector<Value> out;
  for (size_t i = 0; i < n; ++i) {
    std::vector<Value> row;
    for (const auto &s : seqs)
      row.push_back(s[i]);
    out.push_back(makeTuple(std::move(row)));
  }
  return makeList(std::move(out));
}

Value enumerateFn(Evaluator &, CallArgs &c) {
  ArgParser p(c, "enumerate", {"iterable", "start="});
  int64_t at = p.has("start") ? toIndex(p.get("start"), "enumerate") : 0;
  std::vector<Value> out;
  for (Value &v : itemsOf(p.get("iterable"), "enumerate"))
    out.push_back(makeTuple({Value(at++), std::move(v)}));
  return makeList(std::move(out));
}

Value sortedFn(Evaluator &, CallArgs &c) {
  ArgParser p(c, "sorted", {"iterable", "reverse="});
  std::vector<Value> items = itemsOf(p.get("iterable"), "sorted");
  for (const Value &v : items)
    if (!v.isNumber() && !v.is<std::string>())
      throw HostError(fmt::format("sorted() compares numbers and strings, not '{}'", typeName(v)));
  std::stable_sort(items.begin(), items.end(), [](const Value &a, const Value &b) {
    return truthy(compareOp(ast::CmpOpKind::Lt, a, b));
  });
  if (p.has("reverse") && truthy(p.get("reverse")))
    std::reverse(items.begin(), items.end());
  return makeList(std::move(items));
}

Value anyAllFn(CallArgs &c, const char *name, bool all) {
  ArgParser p(c, name, {"iterable"});
  const Value &v = p.get("iterable");
  if (v.is<Tensor>()) {   // torch.any / torch.all: over every element (NaN is true)
    const Tensor &t = v.as<Tensor>();
    for (int64_t i = 0, n = t.numel(); i < n; ++i)
      if ((t.getDouble(i) != 0.0) != all)
        return Value(!all);
    return Value(all);
  }
  for (const Value &x : itemsOf(v, name))
    if (truthy(x) != all)
      return Value(!all);
  return Value(all);
}

void checkFileAccess(const Evaluator &ev, const char *fn) {
  if (!ev.options().fileAccess)
    throw HostError(fmt::format("{}() is disabled: this run gives host code no file access", fn));
}

Value loadFn(Evaluator &ev, CallArgs &c) {
  checkFileAccess(ev, "load");
  ArgParser p(c, "load", {"path", "dtype="});
  const Value &path = p.get("path");
  if (!path.is<std::string>())
    throw HostError(fmt::format("load() path must be a string, not '{}'", typeName(path)));
  Value d = p.getOr("dtype", Value());
  return loadNpy(path.as<std::string>(), d.isNone() ? std::nullopt : std::optional<Scalar>(toDType(d, "dtype")));
}

Value saveFn(Evaluator &ev, CallArgs &c) {
  checkFileAccess(ev, "save");
  ArgParser p(c, "save", {"path", "tensor"});
  const Value &path = p.get("path");
  if (!path.is<std::string>())
    throw HostError(fmt::format("save() path must be a string, not '{}'", typeName(path)));
  if (auto note = saveNpy(path.as<std::string>(), toTensor(p.get("tensor"), "tensor")))
    std::cerr << formatDiagnostic(Severity::Note, c.loc, *note);
  return Value();
}

void addDTypes(std::map<std::string, Value> &t) {
  const std::pair<const char *, Scalar> kNames[] = {
      {"float16", Scalar::F16}, {"half", Scalar::F16},   {"bfloat16", Scalar::BF16}, {"float32", Scalar::F32},
      {"float64", Scalar::F64}, {"double", Scalar::F64}, {"int1", Scalar::I1},      {"bool_", Scalar::I1},
      {"int8", Scalar::I8},     {"int16", Scalar::I16},  {"int32", Scalar::I32},    {"int64", Scalar::I64},
      {"long", Scalar::I64},    {"uint8", Scalar::U8},   {"uint16", Scalar::U16},   {"uint32", Scalar::U32},
      {"uint64", Scalar::U64},  {"fp16", Scalar::F16},   {"bf16", Scalar::BF16},    {"fp32", Scalar::F32},
      {"fp64", Scalar::F64},    {"float8_e4m3fn", Scalar::F8E4M3}, {"float8_e5m2", Scalar::F8E5M2},
      {"float8e4nv", Scalar::F8E4M3}, {"float8e5", Scalar::F8E5M2}};
  for (const auto &[name, s] : kNames)
    t[name] = DTypeVal{s};
}

void addMath(std::map<std::string, Value> &t) {
  t["exp"] = builtin("exp", [](Evaluator &, CallArgs &c) { return unaryMath(c, "exp", UnaryOp::Exp, [](double x) { return std::exp(x); }); });
  t["log"] = builtin("log", [](Evaluator &, CallArgs &c) { return unaryMath(c, "log", UnaryOp::Log, [](double x) { return std::log(x); }); });
  t["sqrt"] = builtin("sqrt", [](Evaluator &, CallArgs &c) { return unaryMath(c, "sqrt", UnaryOp::Sqrt, [](double x) { return std::sqrt(x); }); });
  t["abs"] = builtin("abs", [](Evaluator &, CallArgs &c) { return unaryMath(c, "abs", UnaryOp::Abs, [](double x) { return std::fabs(x); }); });
  // the reference math of torch / torch.nn.functional / numpy (float64 inside)
  t["tanh"] = builtin("tanh", [](Evaluator &, CallArgs &c) { return unaryMath(c, "tanh", UnaryOp::Tanh, [](double x) { return std::tanh(x); }); });
  t["erf"] = builtin("erf", [](Evaluator &, CallArgs &c) { return unaryMath(c, "erf", UnaryOp::Erf, [](double x) { return std::erf(x); }); });
  t["sin"] = builtin("sin", [](Evaluator &, CallArgs &c) { return unaryMath(c, "sin", UnaryOp::Sin, [](double x) { return std::sin(x); }); });
  t["cos"] = builtin("cos", [](Evaluator &, CallArgs &c) { return unaryMath(c, "cos", UnaryOp::Cos, [](double x) { return std::cos(x); }); });
  t["sigmoid"] = builtin("sigmoid", [](Evaluator &, CallArgs &c) {
    return unaryMath(c, "sigmoid", UnaryOp::Sigmoid, [](double x) { return 1.0 / (1.0 + std::exp(-x)); });
  });
  t["gelu"] = builtin("gelu", [](Evaluator &, CallArgs &c) {
    return unaryMath(c, "gelu", UnaryOp::Gelu, [](double x) { return 0.5 * x * (1.0 + std::erf(x * M_SQRT1_2)); });
  });
  t["relu"] = builtin("relu", [](Evaluator &, CallArgs &c) {
    ArgParser p(c, "relu", {"x"});
    return elementwise(BinaryOp::Max, p.get("x"), Value(int64_t(0)), "relu");
  });
  t["softmax"] = builtin("softmax", [](Evaluator &, CallArgs &c) { return softmaxFn(c, "softmax", false); });
  t["log_softmax"] = builtin("log_softmax", [](Evaluator &, CallArgs &c) { return softmaxFn(c, "log_softmax", true); });
  t["layer_norm"] = builtin("layer_norm", [](Evaluator &, CallArgs &c) { return normFn(c, "layer_norm", false); });
  t["rms_norm"] = builtin("rms_norm", [](Evaluator &, CallArgs &c) { return normFn(c, "rms_norm", true); });
  for (auto entry : {std::pair{"maximum", BinaryOp::Max}, std::pair{"minimum", BinaryOp::Min}}) {
    const char *name = entry.first;   // plain variables: clang 14 captures no structured binding
    BinaryOp op = entry.second;
    t[name] = builtin(name, [name, op](Evaluator &, CallArgs &c) {
      ArgParser p(c, name, {"a", "b"});
      return elementwise(op, p.get("a"), p.get("b"), name);
    });
  }
  t["where"] = builtin("where", [](Evaluator &, CallArgs &c) {
    ArgParser p(c, "where", {"condition", "x", "y"});
    Tensor x = toTensor(p.get("x"), "x"), y = toTensor(p.get("y"), "y");
    return Value(where(toTensor(p.get("condition"), "condition"), x, y));
  });
  t["matmul"] = builtin("matmul", [](Evaluator &, CallArgs &c) {
    ArgParser p(c, "matmul", {"a", "b"});
    return Value(matmul(toTensor(p.get("a"), "a"), toTensor(p.get("b"), "b")));
  });
  t["sum"] = builtin("sum", sumFn);
  t["max"] = builtin("max", [](Evaluator &, CallArgs &c) { return extremum(c, "max", ReduceOp::Max); });
  t["min"] = builtin("min", [](Evaluator &, CallArgs &c) { return extremum(c, "min", ReduceOp::Min); });
  t["amax"] = t["max"];
  t["amin"] = t["min"];
  t["cdiv"] = builtin("cdiv", cdivFn);
  // tl.constexpr(x) at module level (Triton's `NAME = tl.constexpr(64)`): x itself for host code.
  t["constexpr"] = builtin("constexpr", [](Evaluator &, CallArgs &c) {
    ArgParser p(c, "constexpr", {"value"});
    return p.get("value");
  });
  t["next_power_of_2"] = builtin("next_power_of_2", [](Evaluator &, CallArgs &c) {
    ArgParser p(c, "next_power_of_2", {"n"});
    int64_t n = toIndex(p.get("n"), "next_power_of_2");
    if (n > (int64_t(1) << 62))
      throw HostError("next_power_of_2() argument too large");
    int64_t r = 1;
    while (r < n)
      r <<= 1;
    return Value(r);
  });
  t["round"] = builtin("round", [](Evaluator &, CallArgs &c) {
    ArgParser p(c, "round", {"x"});
    if (!p.get("x").isNumber())
      throw HostError(fmt::format("round() expects a number, not '{}'", typeName(p.get("x"))));
    return Value(int64_t(std::nearbyint(p.get("x").toDouble())));
  });
  t["pi"] = M_PI;
  t["inf"] = INFINITY;
  t["nan"] = NAN;
}

void addCreation(std::map<std::string, Value> &t) {
  t["zeros"] = builtin("zeros", [](Evaluator &, CallArgs &c) { return makeFilled(c, "zeros", 0); });
  t["empty"] = builtin("empty", [](Evaluator &, CallArgs &c) { return makeFilled(c, "empty", 0); });
  t["ones"] = builtin("ones", [](Evaluator &, CallArgs &c) { return makeFilled(c, "ones", 1); });
  t["full"] = builtin("full", fullFn);
  t["arange"] = builtin("arange", arangeFn);
  t["rand"] = builtin("rand", [](Evaluator &, CallArgs &c) { return randomFn(c, "rand", false); });
  t["randn"] = builtin("randn", [](Evaluator &, CallArgs &c) { return randomFn(c, "randn", true); });
  t["seed"] = builtin("seed", [](Evaluator &, CallArgs &c) {
    ArgParser p(c, "seed", {"n"});
    seedRandom(uint64_t(toIndex(p.get("n"), "seed")));
    return Value();
  });
  t["manual_seed"] = t["seed"];
  t["tensor"] = builtin("tensor", tensorFn);
  t["array"] = t["tensor"];
  t["asarray"] = t["tensor"];
  t["zeros_like"] = builtin("zeros_like", [](Evaluator &, CallArgs &c) { return likeFn(c, "zeros_like", 0.0); });
  t["empty_like"] = builtin("empty_like", [](Evaluator &, CallArgs &c) { return likeFn(c, "empty_like", 0.0); });
  t["ones_like"] = builtin("ones_like", [](Evaluator &, CallArgs &c) { return likeFn(c, "ones_like", 1.0); });
  t["rand_like"] = builtin("rand_like", [](Evaluator &, CallArgs &c) { return likeFn(c, "rand_like", std::nullopt); });
}

void addPython(std::map<std::string, Value> &t) {
  t["print"] = builtin("print", printFn);
  t["bench_work"] = builtin("bench_work", benchWorkFn);
  t["range"] = builtin("range", rangeFn);
  t["static_range"] = t["range"];
  t["len"] = builtin("len", lenFn);
  t["int"] = builtin("int", intFn);
  t["float"] = builtin("float", floatFn);
  t["str"] = builtin("str", [](Evaluator &, CallArgs &c) {
    ArgParser p(c, "str", {"x="});
    return Value(p.has("x") ? str(p.get("x")) : std::string());
  });
  t["repr"] = builtin("repr", [](Evaluator &, CallArgs &c) {
    ArgParser p(c, "repr", {"x"});
    return Value(repr(p.get("x")));
  });
  t["bool"] = builtin("bool", [](Evaluator &, CallArgs &c) {
    ArgParser p(c, "bool", {"x="});
    return Value(p.has("x") && truthy(p.get("x")));
  });
  t["tuple"] = builtin("tuple", [](Evaluator &, CallArgs &c) { return sequenceFn(c, "tuple", true); });
  t["zip"] = builtin("zip", zipFn);
  t["isinstance"] = builtin("isinstance", isinstanceFn);
  // `with torch.no_grad():` and the like: host tensors have no autograd and
  // one device, so these change nothing (HostEval.cpp's `with`)
  for (const char *name : {"no_grad", "inference_mode", "device"})
    t[name] = builtin(name, [name](Evaluator &, CallArgs &c) {
      ArgParser p(c, name, {"*"});
      return Value(std::string(kHarmlessContext));
    });
  t["dict"] = builtin("dict", [](Evaluator &, CallArgs &c) {   // dict(), dict(pairs), dict(a=1)
    if (c.args.size() > 1)
      throw HostError(fmt::format("dict() takes at most 1 positional argument ({} given)", c.args.size()));
    Value d = makeDict();
    auto put = [&](const Value &k, const Value &v) { dictSet(d.as<DictVal>(), k, v); };
    if (!c.args.empty() && c.args[0].is<DictVal>())
      for (const auto &kv : *c.args[0].as<DictVal>().items)
        put(kv.first, kv.second);
    else if (!c.args.empty())
      for (const Value &pair : itemsOf(c.args[0], "dict")) {
        if (!isSequence(pair) || sequenceItems(pair).size() != 2)
          throw HostError("dict(): each item must be a (key, value) pair");
        put(sequenceItems(pair)[0], sequenceItems(pair)[1]);
      }
    for (const auto &[k, v] : c.kwargs)
      put(Value(k), v);
    return d;
  });
  t["Tensor"] = builtin("Tensor", [](Evaluator &, CallArgs &) -> Value {   // for isinstance(x, torch.Tensor)
    throw HostError("torch.Tensor(...) is not supported in host code: use tensor(data) or zeros(shape)");
  });
  // exceptions: `raise ValueError("msg")` raises "ValueError: msg" (HostTry.cpp)
  for (const char *name : {"Exception", "BaseException", "ValueError", "RuntimeError", "TypeError", "AssertionError",
                           "KeyError", "IndexError", "LookupError", "ZeroDivisionError", "ArithmeticError",
                           "OverflowError", "AttributeError", "NotImplementedError"})
    t[name] = builtin(name, [name](Evaluator &, CallArgs &c) {
      ArgParser p(c, name, {"message="});
      return Value(p.has("message") ? fmt::format("{}: {}", name, str(p.get("message"))) : std::string(name));
    });
  t["__fstr__"] = builtin("__fstr__", fstringFn);
  t["enumerate"] = builtin("enumerate", enumerateFn);
  t["sorted"] = builtin("sorted", sortedFn);
  t["reversed"] = builtin("reversed", [](Evaluator &, CallArgs &c) {
    ArgParser p(c, "reversed", {"sequence"});
    std::vector<Value> items = itemsOf(p.get("sequence"), "reversed");
    std::reverse(items.begin(), items.end());
    return makeList(std::move(items));
  });
  t["any"] = builtin("any", [](Evaluator &, CallArgs &c) { return anyAllFn(c, "any", false); });
  t["all"] = builtin("all", [](Evaluator &, CallArgs &c) { return anyAllFn(c, "all", true); });
  t["list"] = builtin("list", [](Evaluator &, CallArgs &c) { return sequenceFn(c, "list", false); });
  t["assert_close"] = builtin("assert_close", assertCloseFn);
  t["assert_allclose"] = t["assert_close"];
  t["allclose"] = builtin("allclose", allcloseFn);
  t["load"] = builtin("load", loadFn);
  t["save"] = builtin("save", saveFn);
}
} // namespace

// ------------------------------------------------------------------ conversions

Tensor toTensor(const Value &v, const char *what) {
  if (v.is<Tensor>())
    return v.as<Tensor>();
  if (v.isNumber())
    return scalarTensor(scalarOperandOf(v));
  if (isSequence(v))
    return tensorFromData(v, std::nullopt);
  throw HostError(fmt::format("{} must be a tensor or a number, not '{}'", what, typeName(v)));
}

Shape toShape(const Value &v, const char *what) {
  if (v.isIntLike())
    return {v.toInt()};
  if (!isSequence(v))
    throw HostError(fmt::format("{}: a shape must be an int or a tuple of ints, not '{}'", what, typeName(v)));
  Shape s;
  for (const Value &d : sequenceItems(v))
    s.push_back(toIndex(d, "dimension"));
  return s;
}

Scalar toDType(const Value &v, const char *what) {
  if (v.is<DTypeVal>())
    return v.as<DTypeVal>().scalar;
  std::string name = v.is<std::string>() ? v.as<std::string>() : v.is<BuiltinVal>() ? v.as<BuiltinVal>().name : "";
  // dtype=float / dtype=bool / dtype=int, as torch spells them.
  if (name == "float")
    return Scalar::F32;
  if (name == "int")
    return Scalar::I64;
  if (v.is<std::string>() || name == "bool")
    if (std::optional<Scalar> s = parseTritonDTypeName(name))
      return *s;
  throw HostError(fmt::format("{} must be a dtype such as float32, not {}", what, repr(v)));
}

int64_t toIndex(const Value &v, const char *what) {
  if (v.isIntLike())
    return v.toInt();
  if (v.is<Tensor>() && v.as<Tensor>().numel() == 1 && !isFloat(v.as<Tensor>().dtype()))
    return v.as<Tensor>().getInt(0);
  throw HostError(fmt::format("{} must be an int, not '{}'", what, typeName(v)));
}

double toReal(const Value &v, const char *what) {
  if (v.isNumber())
    return v.toDouble();
  if (v.is<Tensor>() && v.as<Tensor>().numel() == 1)
    return v.as<Tensor>().getDouble(0);
  throw HostError(fmt::format("{} must be a number, not '{}'", what, typeName(v)));
}

bool isKnownModule(const std::string &name) {
  static const char *kModules[] = {"torch", "triton", "triton.language", "numpy", "tile", "math", "tl",
                                   "np", "torch.testing", "numpy.testing", "numpy.random", "torch.cuda",
                                   "triton.testing", "tile.language", "np.random", "np.testing", "torch.nn",
                                   "torch.nn.functional", "F", "torch.special",
                                   // kernel-only modules: importable in a file's header, used by kernels
                                   "triton.language.extra", "triton.language.extra.cuda",
                                   "triton.language.extra.libdevice", "triton.language.extra.cuda.libdevice",
                                   "triton.language.math"};
  for (const char *m : kModules)
    if (name == m)
      return true;
  return false;
}

void installBuiltins(std::map<std::string, Value> &table) {
  addDTypes(table);
  addMath(table);
  addCreation(table);
  addPython(table);
  addTuningBuiltins(table);
  for (const char *m : {"torch", "triton", "tl", "np", "numpy", "tile", "math"})
    table[m] = ModuleVal{m};
}

// ------------------------------------------------------------------ tensor methods

namespace {
Value method(const std::string &name, std::function<Value(CallArgs &)> fn) {
  return builtin(name, [fn](Evaluator &, CallArgs &c) { return fn(c); });
}

/// argmax / argmin along axis (the flat index over everything when absent),
/// int64, the first extreme; NaN counts as the largest (torch's rule).
Tensor argExtreme(const Tensor &t, bool isMax, std::optional<int> axis, bool keep) {
  Tensor c = t.contiguous();
  Shape shape = c.shape();
  if (!axis) {
    shape = {c.numel()};
    c = c.reshape(shape);
    axis = 0;
  }
  int a = *axis < 0 ? *axis + c.ndim() : *axis;
  c.dim(a);   // range check
  int64_t n = shape[size_t(a)], inner = 1, outer = 1;
  if (n == 0)
    throw HostError(fmt::format("arg{}() of an empty dimension", isMax ? "max" : "min"));
  for (size_t d = 0; d < shape.size(); ++d) {
    if (int(d) < a)
      outer *= shape[d];
    if (int(d) > a)
      inner *= shape[d];
  }
  Shape out = shape;
  if (keep && t.ndim() == c.ndim())
    out[size_t(a)] = 1;
  else
    out.erase(out.begin() + a);
  if (!keep && t.ndim() != c.ndim())
    out.clear();
  Tensor r = Tensor::zeros(out, Scalar::I64);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      int64_t best = 0;
      double bv = c.getDouble(o * n * inner + i);
      for (int64_t k = 1; k < n && !std::isnan(bv); ++k) {
        double v = c.getDouble((o * n + k) * inner + i);
        if (std::isnan(v) || (isMax ? v > bv : v < bv)) {
          best = k;
          bv = v;
        }
      }
      r.setInt(o * inner + i, best);
    }
  return r;
}

Value reduceMethod(const Tensor &t, const std::string &name, ReduceOp op) {
  return method(name, [t, name, op](CallArgs &c) {
    ArgParser p(c, name, {"axis=", "dim=", "keepdims=", "keepdim="});
    Value values = reduceValue(t, op, p);
    // torch's x.max(dim=d): (values, indices); NumPy's x.max(axis=d): values
    if (p.has("dim") && op != ReduceOp::Sum) {
      return makeTuple({values, Value(argExtreme(t, op == ReduceOp::Max, axisArg(p), keepDimsArg(p)))});
    }
    return values;
  });
}

Value reshapeMethod(const Tensor &t, const std::string &name) {
  return method(name, [t, name](CallArgs &c) {
    ArgParser p(c, name, {"*"});
    return Value(t.reshape(shapeFromArgs(p, name.c_str())));
  });
}

Value noArgMethod(const std::string &name, std::function<Value()> fn) {
  return method(name, [name, fn](CallArgs &c) {
    ArgParser p(c, name, {"*", "device=", "non_blocking="});
    (void)p;
    return fn();
  });
}
} // namespace

namespace {
/// "...".format(args, name=value): {} (the next argument), {0}, {name},
/// each with !r/!s and a format spec (formatField), {{ and }} as braces.
std::string formatString(const std::string &text, const CallArgs &c) {
  std::string out;
  size_t next = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char ch = text[i];
    if ((ch == '{' || ch == '}') && i + 1 < text.size() && text[i + 1] == ch) {
      out += ch;
      ++i;
      continue;
    }
    if (ch == '}')
      throw HostError("format(): a single '}' in the format string (write '}}')");
    if (ch != '{') {
      out += ch;
      continue;
    }
    size_t close = text.find('}', i);
    if (close == std::string::npos)
      throw HostError("format(): a '{' with no '}' in the format string");
    std::string field = text.substr(i + 1, close - i - 1), conversion, spec;
    if (size_t colon = field.find(':'); colon != std::string::npos) {
      spec = field.substr(colon + 1);
      field.resize(colon);
    }
    if (size_t bang = field.find('!'); bang != std::string::npos) {
      conversion = field.substr(bang + 1);
      field.resize(bang);
    }
    const Value *v = nullptr;
    if (field.empty() || std::all_of(field.begin(), field.end(), [](char d) { return d >= '0' && d <= '9'; })) {
      size_t k = field.empty() ? next++ : size_t(std::stoul(field));
      if (k >= c.args.size())
        throw HostError(fmt::format("format(): replacement field {} but {} positional arguments", k, c.args.size()));
      v = &c.args[k];
    } else {
      for (const auto &[name, value] : c.kwargs)
        if (name == field)
          v = &value;
      if (!v)
        throw HostError(fmt::format("format(): no keyword argument '{}'", field));
    }
    out += formatField(*v, conversion, spec);
    i = close;
  }
  return out;
}

} // namespace

Value percentFormat(const std::string &text, const Value &args) {
  // %[flags][width][.precision]type, each conversion as a format spec for
  // formatField: '-' left-aligns, '0' pads with zeros, '+' and ' ' sign, '#'
  std::vector<Value> items = args.is<TupleVal>() ? sequenceItems(args) : std::vector<Value>{args};
  size_t next = 0;
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    if (++i >= text.size())
      throw HostError("% format: incomplete format at the end");
    if (text[i] == '%') {
      out += '%';
      continue;
    }
    if (text[i] == '(')
      throw HostError("% format: mapping keys (%(name)s) are not supported; use an f-string");
    std::string align, sign, alt, zero, width, precision;
    for (; i < text.size() && std::string_view("-0+ #").find(text[i]) != std::string_view::npos; ++i)
      text[i] == '-' ? align = "<" : text[i] == '0' ? zero = "0" : text[i] == '#' ? alt = "#" : sign = text[i];
    for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i)
      width += text[i];
    if (i < text.size() && text[i] == '.')
      for (precision = ".", ++i; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i)
        precision += text[i];
    if (i >= text.size())
      throw HostError("% format: incomplete format at the end");
    char type = text[i];
    if (next >= items.size())
      throw HostError("% format: not enough arguments for format string");
    Value v = items[next++];
    if (type == 'i' || type == 'u')
      type = 'd';
    if (type == 'd' && v.is<double>())
      v = int64_t(v.as<double>());
    if (std::string_view("dfFeEgGxXoc").find(type) != std::string_view::npos && !v.isNumber() &&
        !(v.is<Tensor>() && v.as<Tensor>().numel() == 1))
      throw HostError(fmt::format("% format: %{} needs a number, not '{}'", type, typeName(v)));
    if (!align.empty())
      zero.clear();
    if (type == 's' || type == 'r' || type == 'a') {
      std::string spec = align + width + precision;
      out += formatField(type == 's' ? Value(str(v)) : Value(repr(v)), "", spec);
    } else if (std::string_view("dfFeEgGxXoc").find(type) != std::string_view::npos) {
      out += formatField(v, "", align + sign + alt + zero + width + precision + type);
    } else {
      throw HostError(fmt::format("% format: unsupported format character '{}'", type));
    }
  }
  if (next < items.size())
    throw HostError("% format: not all arguments converted during string formatting");
  return out;
}

namespace {
Value stringMethod(const std::string &s, const std::string &attr) {
  if (attr == "format")
    return builtin(attr, [s](Evaluator &, CallArgs &c) { return Value(formatString(s, c)); });
  if (attr == "join")
    return builtin(attr, [s](Evaluator &, CallArgs &c) {
      ArgParser p(c, "join", {"iterable"});
      std::string out;
      for (const Value &v : itemsOf(p.get("iterable"), "join")) {
        if (!v.is<std::string>())
          throw HostError(fmt::format("join() expects strings, got a '{}'", typeName(v)));
        out += v.as<std::string>() + s;
      }
      if (!out.empty())
        out.resize(out.size() - s.size());
      return Value(out);
    });
  if (attr == "upper" || attr == "lower")
    return builtin(attr, [s, attr](Evaluator &, CallArgs &c) {
      ArgParser p(c, attr, {});
      std::string out = s;
      for (char &ch : out)
        ch = char(attr == "upper" ? std::toupper((unsigned char)ch) : std::tolower((unsigned char)ch));
      return Value(out);
    });
  if (attr == "startswith" || attr == "endswith")
    return builtin(attr, [s, attr](Evaluator &, CallArgs &c) {
      ArgParser p(c, attr, {"prefix"});
      std::string x = str(p.get("prefix"));
      return Value(attr == "startswith" ? s.starts_with(x) : s.ends_with(x));
    });
  throw HostError(fmt::format("'str' object has no attribute '{}' (host strings have format, join, upper, lower, "
                              "startswith, endswith)", attr));
}
} // namespace

Value tensorAttribute(const Tensor &t, const std::string &attr) {
  if (attr == "shape") {
    std::vector<Value> dims(t.shape().begin(), t.shape().end());
    return makeTuple(std::move(dims));
  }
  if (attr == "dtype")
    return DTypeVal{t.dtype()};
  if (attr == "T")
    return t.transpose();
  if (attr == "ndim")
    return int64_t(t.ndim());
  if (attr == "stride")
    return method("stride", [t](CallArgs &c) {
      ArgParser p(c, "stride", {"dim="});
      if (p.has("dim")) {
        int d = int(toIndex(p.get("dim"), "dim"));
        t.dim(d); // range check
        return Value(t.strides()[size_t(d < 0 ? d + t.ndim() : d)]);
      }
      return makeTuple(std::vector<Value>(t.strides().begin(), t.strides().end()));
    });
  if (attr == "size")
    return method("size", [t](CallArgs &c) {
      ArgParser p(c, "size", {"dim="});
      if (p.has("dim"))
        return Value(t.dim(int(toIndex(p.get("dim"), "dim"))));
      return makeTuple(std::vector<Value>(t.shape().begin(), t.shape().end()));
    });
  if (attr == "reshape" || attr == "view")
    return reshapeMethod(t, attr);
  if (attr == "to" || attr == "astype")
    return method(attr, [t, attr](CallArgs &c) {
      ArgParser p(c, attr, {"*", "dtype=", "device=", "non_blocking="});
      Value d = p.getOr("dtype", Value());
      for (const Value &r : p.rest())
        if (!r.is<std::string>()) // .to("cuda") is a device move: ignored
          d = r;
      return d.isNone() ? Value(t) : Value(t.dtype() == toDType(d, "dtype") ? t : t.to(toDType(d, "dtype")));
    });
  if (attr == "numel" || attr == "nelement")
    return noArgMethod(attr, [t] { return Value(t.numel()); });
  if (attr == "sum")
    return reduceMethod(t, attr, ReduceOp::Sum);
  if (attr == "max" || attr == "amax")
    return reduceMethod(t, attr, ReduceOp::Max);
  if (attr == "min" || attr == "amin")
    return reduceMethod(t, attr, ReduceOp::Min);
  if (attr == "argmax" || attr == "argmin")
    return method(attr, [t, attr](CallArgs &c) {
      ArgParser p(c, attr, {"axis=", "dim=", "keepdims=", "keepdim="});
      return Value(argExtreme(t, attr == "argmax", axisArg(p), keepDimsArg(p)));
    });
  if (attr == "any" || attr == "all")
    return method(attr, [t, attr](CallArgs &c) {
      CallArgs args = c;
      args.args.insert(args.args.begin(), Value(t));
      args.argLocs.insert(args.argLocs.begin(), c.loc);
      return anyAllFn(args, attr.c_str(), attr == "all");
    });
  if (attr == "flatten" || attr == "ravel")
    return noArgMethod(attr, [t] { return Value(t.reshape({t.numel()})); });
  if (attr == "tolist")
    return noArgMethod(attr, [t] { return tensorToList(t); });
  if (attr == "permute")
    return method(attr, [t](CallArgs &c) {
      ArgParser p(c, "permute", {"*"});
      Shape order = shapeFromArgs(p, "permute");
      if (int(order.size()) != t.ndim())
        throw HostError(fmt::format("permute() needs {} dimensions, got {}", t.ndim(), order.size()));
      return Value(permuted(t, order));
    });
  if (attr == "mean")   // a float mean (NumPy's; torch rejects integer tensors)
    return method(attr, [t](CallArgs &c) {
      ArgParser p(c, "mean", {"axis=", "dim=", "keepdims=", "keepdim="});
      Value sum = reduceValue(isFloat(t.dtype()) ? t : t.to(Scalar::F64), ReduceOp::Sum, p);
      int64_t kept = sum.is<Tensor>() ? std::max<int64_t>(sum.as<Tensor>().numel(), 1) : 1;
      return binaryOp(ast::BinOpKind::Div, sum, Value(double(t.numel()) / double(kept)));
    });
  if (attr == "device")   // host tensors are mirrored to the device at a launch
    return Value(std::string("cuda"));
  if (attr == "contiguous")
    return noArgMethod(attr, [t] { return Value(t.contiguous()); });
  if (attr == "clone" || attr == "copy")
    return noArgMethod(attr, [t] { return Value(t.clone()); });
  if (attr == "cpu" || attr == "cuda" || attr == "numpy" || attr == "detach")
    return noArgMethod(attr, [t] { return Value(t); });
  if (attr == "is_contiguous")
    return noArgMethod(attr, [t] { return Value(t.isContiguous()); });
  if (attr == "element_size")
    return noArgMethod(attr, [t] { return Value(int64_t(byteSize(t.dtype()))); });
  if (attr == "data_ptr")
    return noArgMethod(attr, [t] { return Value(int64_t(t.address())); });
  if (attr == "item")
    return noArgMethod(attr, [t]() -> Value {
      if (t.numel() != 1)
        throw HostError(fmt::format("item() needs a one-element tensor, got {}", t.describe()));
      return elementValue(t, 0);
    });
  if (attr == "float" || attr == "half" || attr == "double" || attr == "bfloat16" || attr == "int" || attr == "long")
    return noArgMethod(attr, [t, attr] {
      Scalar s = attr == "float" ? Scalar::F32 : attr == "half" ? Scalar::F16 : attr == "double" ? Scalar::F64
               : attr == "bfloat16" ? Scalar::BF16 : attr == "int" ? Scalar::I32 : Scalar::I64;
      return Value(t.to(s));
    });
  if (attr == "abs" || attr == "exp" || attr == "log" || attr == "sqrt") {
    UnaryOp op = attr == "abs" ? UnaryOp::Abs : attr == "exp" ? UnaryOp::Exp : attr == "log" ? UnaryOp::Log : UnaryOp::Sqrt;
    return noArgMethod(attr, [t, op] { return Value(unary(op, t)); });
  }
  if (attr == "zero_" || attr == "fill_")
    return method(attr, [t, attr](CallArgs &c) {
      ArgParser p(c, attr, {attr == "fill_" ? "value" : "value="});
      Value v = p.getOr("value", Value(int64_t(0)));
      if (!v.isNumber())
        throw HostError(fmt::format("{}() value must be a number", attr));
      Tensor dst = t;
      for (int64_t i = 0, n = dst.numel(); i < n; ++i)
        v.is<double>() ? dst.setDouble(i, v.toDouble()) : dst.setInt(i, v.toInt());
      return Value(t);
    });
  throw HostError(fmt::format("tensor has no attribute '{}'", attr));
}

namespace {

/// Python's index normalization for list.pop / list.insert: negative counts
/// from the end; pop's must name an element, insert's is clamped.
int64_t listPosition(int64_t i, int64_t n, bool clamp, const std::string &what) {
  if (i < 0)
    i += n;
  if (clamp)
    return std::clamp<int64_t>(i, 0, n);
  if (i < 0 || i >= n)
    throw HostError(fmt::format("{}: index out of range (the list has {} items)", what, n));
  return i;
}

Value listMethod(std::shared_ptr<std::vector<Value>> items, const std::string &attr) {
  if (attr == "append" || attr == "extend" || attr == "remove" || attr == "index" || attr == "count")
    return builtin(attr, [items, attr](Evaluator &, CallArgs &c) -> Value {
      ArgParser p(c, attr, {"x"});
      Value x = p.get("x");
      if (attr == "append") {
        items->push_back(x);
        return Value();
      }
      if (attr == "extend") {
        auto more = iterationItems(x);
        if (!more)
          throw HostError(fmt::format("extend() needs an iterable, not '{}'", typeName(x)));
        items->insert(items->end(), more->begin(), more->end());
        return Value();
      }
      auto hit = std::find_if(items->begin(), items->end(), [&](const Value &v) { return valuesEqual(v, x); });
      if (attr == "count")
        return Value(int64_t(std::count_if(items->begin(), items->end(), [&](const Value &v) { return valuesEqual(v, x); })));
      if (hit == items->end())
        throw HostError(fmt::format("list.{}(x): x not in list", attr));
      if (attr == "index")
        return Value(int64_t(hit - items->begin()));
      items->erase(hit);
      return Value();
    });
  if (attr == "pop" || attr == "insert")
    return builtin(attr, [items, attr](Evaluator &, CallArgs &c) -> Value {
      ArgParser p(c, attr, attr == "pop" ? std::vector<std::string>{"index="} : std::vector<std::string>{"index", "x"});
      int64_t n = int64_t(items->size());
      if (attr == "insert") {
        int64_t at = listPosition(p.get("index").toInt(), n, true, "insert()");
        items->insert(items->begin() + at, p.get("x"));
        return Value();
      }
      if (n == 0)
        throw HostError("pop from an empty list");
      int64_t at = listPosition(p.getOr("index", Value(int64_t(-1))).toInt(), n, false, "pop()");
      Value v = (*items)[size_t(at)];
      items->erase(items->begin() + at);
      return v;
    });
  if (attr == "clear" || attr == "copy" || attr == "reverse" || attr == "sort")
    return builtin(attr, [items, attr](Evaluator &, CallArgs &c) -> Value {
      ArgParser p(c, attr, {});
      if (attr == "copy")
        return makeList(*items);
      if (attr == "clear")
        items->clear();
      else if (attr == "reverse")
        std::reverse(items->begin(), items->end());
      else
        throw HostError("list.sort() is not supported: use sorted(x)");
      return Value();
    });
  throw HostError(fmt::format("'list' object has no attribute '{}'", attr));
}

Value dictMethod(std::shared_ptr<std::vector<std::pair<Value, Value>>> items, const std::string &attr) {
  if (attr == "keys" || attr == "values" || attr == "items" || attr == "get")
    return builtin(attr, [items, attr](Evaluator &, CallArgs &c) {
      ArgParser p(c, attr, {attr == "get" ? "key" : "*", "default="});
      std::vector<Value> out;
      for (const auto &[k, v] : *items) {
        if (attr == "get" && valuesEqual(k, p.get("key")))
          return v;
        if (attr == "keys")
          out.push_back(k);
        if (attr == "values")
          out.push_back(v);
        if (attr == "items")
          out.push_back(makeTuple({k, v}));
      }
      return attr == "get" ? p.getOr("default", Value()) : makeList(std::move(out));
    });
  if (attr == "pop" || attr == "setdefault")
    return builtin(attr, [items, attr](Evaluator &, CallArgs &c) -> Value {
      ArgParser p(c, attr, {"key", "default="});
      Value key = p.get("key");
      auto hit = std::find_if(items->begin(), items->end(), [&](const auto &kv) { return valuesEqual(kv.first, key); });
      if (hit != items->end()) {
        Value v = hit->second;
        if (attr == "pop")
          items->erase(hit);
        return v;
      }
      if (attr == "pop" && !p.has("default"))
        throw HostError(fmt::format("dict.pop(): key {} not found", repr(key)));
      Value v = p.getOr("default", Value());
      if (attr == "setdefault") {
        DictVal d{items};
        dictSet(d, key, v);
      }
      return v;
    });
  if (attr == "update" || attr == "clear" || attr == "copy")
    return builtin(attr, [items, attr](Evaluator &, CallArgs &c) -> Value {
      ArgParser p(c, attr, attr == "update" ? std::vector<std::string>{"other"} : std::vector<std::string>{});
      if (attr == "copy")
        return Value(DictVal{std::make_shared<std::vector<std::pair<Value, Value>>>(*items)});
      if (attr == "clear") {
        items->clear();
        return Value();
      }
      Value other = p.get("other");
      if (!other.is<DictVal>())
        throw HostError(fmt::format("dict.update() needs a dict, not '{}'", typeName(other)));
      DictVal d{items};
      for (const auto &[k, v] : *other.as<DictVal>().items)
        dictSet(d, k, v);
      return Value();
    });
  throw HostError(fmt::format("'dict' object has no attribute '{}'", attr));
}

} // namespace

Value containerAttribute(const Value &obj, const std::string &attr) {
  if (obj.is<ListVal>())
    return listMethod(obj.as<ListVal>().items, attr);
  if (obj.is<DictVal>())
    return dictMethod(obj.as<DictVal>().items, attr);
  if (obj.is<std::string>())
    return stringMethod(obj.as<std::string>(), attr);
  throw HostError(fmt::format("'{}' object has no attribute '{}'", typeName(obj), attr));
}

} // namespace tile::host
