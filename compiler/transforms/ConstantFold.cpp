// ConstantFold.cpp - scalar evaluation of ops on constants (see the header
// for what is folded and what is deliberately not).
#include "transforms/ConstantFold.h"
#include "transforms/RewriteUtils.h"

#include <cmath>
#include <limits>

namespace tile::ir {

namespace {

using Folded = std::optional<ConstVal>;

ConstVal intVal(int64_t v, Scalar s) { return ConstVal{false, wrapToIntType(v, s), 0.0}; }
ConstVal floatVal(double v, Scalar s) { return ConstVal{true, 0, roundToFloatType(v, s)}; }

bool lessThan(int64_t a, int64_t b, Scalar s) {
  return isSigned(s) ? a < b : static_cast<uint64_t>(a) < static_cast<uint64_t>(b);
}

Folded foldShift(OpKind k, int64_t a, int64_t b, Scalar s) {
  if (isSigned(s) && b < 0)
    return std::nullopt;
  uint64_t amount = static_cast<uint64_t>(b);
  if (amount >= static_cast<uint64_t>(bitWidth(s))) {
    bool fillSign = k == OpKind::Shr && isSigned(s) && a < 0;
    return intVal(fillSign ? -1 : 0, s);
  }
  if (k == OpKind::Shl)
    return intVal(static_cast<int64_t>(static_cast<uint64_t>(a) << amount), s);
  if (isSigned(s))
    return intVal(a >> amount, s);
  return intVal(static_cast<int64_t>(static_cast<uint64_t>(a) >> amount), s);
}

Folded foldIntDivRem(OpKind k, int64_t a, int64_t b, Scalar s) {
  if (b == 0)
    return std::nullopt;
  if (!isSigned(s)) {
    uint64_t ua = a, ub = b;
    return intVal(static_cast<int64_t>(k == OpKind::Div ? ua / ub : ua % ub), s);
  }
  // INT_MIN / -1 overflows (traps on x86): leave it to the run time.
  if (b == -1 && a == wrapToIntType(int64_t(1) << (bitWidth(s) - 1), s))
    return std::nullopt;
  return intVal(k == OpKind::Div ? a / b : a % b, s);
}

Folded foldIntBinary(OpKind k, int64_t a, int64_t b, Scalar s) {
  uint64_t ua = a, ub = b;
  switch (k) {
  case OpKind::Add: return intVal(static_cast<int64_t>(ua + ub), s);
  case OpKind::Sub: return intVal(static_cast<int64_t>(ua - ub), s);
  case OpKind::Mul: return intVal(static_cast<int64_t>(ua * ub), s);
  case OpKind::Div:
  case OpKind::Rem: return foldIntDivRem(k, a, b, s);
  case OpKind::And: return intVal(a & b, s);
  case OpKind::Or: return intVal(a | b, s);
  case OpKind::Xor: return intVal(a ^ b, s);
  case OpKind::Shl:
  case OpKind::Shr: return foldShift(k, a, b, s);
  case OpKind::Min: return intVal(lessThan(b, a, s) ? b : a, s);
  case OpKind::Max: return intVal(lessThan(a, b, s) ? b : a, s);
  default: return std::nullopt;
  }
}

// tl.minimum/maximum: NaN propagates; -0 is below +0.
double floatMinMax(bool isMin, double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  if (a == b)
    return isMin == std::signbit(a) ? a : b;
  return (a < b) == isMin ? a : b;
}

Folded foldFloatBinary(OpKind k, double a, double b, Scalar s) {
  switch (k) {
  case OpKind::Add: return floatVal(a + b, s);
  case OpKind::Sub: return floatVal(a - b, s);
  case OpKind::Mul: return floatVal(a * b, s);
  case OpKind::Div: return b == 0 ? Folded{} : floatVal(a / b, s);
  case OpKind::Rem: return b == 0 ? Folded{} : floatVal(std::fmod(a, b), s);
  case OpKind::Min: return floatVal(floatMinMax(true, a, b), s);
  case OpKind::Max: return floatVal(floatMinMax(false, a, b), s);
  default: return std::nullopt;
  }
}

template <typename T> bool compare(const std::string &pred, T a, T b) {
  if (pred == "eq") return a == b;
  if (pred == "ne") return a != b;
  if (pred == "lt") return a < b;
  if (pred == "le") return a <= b;
  if (pred == "gt") return a > b;
  return a >= b;
}

Folded foldCmp(const std::string &pred, ConstVal a, ConstVal b, Scalar s) {
  bool r;
  if (a.isFloat)
    r = compare(pred, a.f, b.f);
  else if (isSigned(s))
    r = compare(pred, a.i, b.i);
  else
    r = compare(pred, static_cast<uint64_t>(a.i), static_cast<uint64_t>(b.i));
  return ConstVal{false, r ? 1 : 0, 0.0};
}

Folded foldUnary(OpKind k, ConstVal x, Scalar s) {
  if (!x.isFloat) {
    switch (k) {
    case OpKind::Neg: return intVal(static_cast<int64_t>(0 - static_cast<uint64_t>(x.i)), s);
    case OpKind::Not: return intVal(~x.i, s);
    case OpKind::Abs:
      return isSigned(s) && x.i < 0 ? intVal(static_cast<int64_t>(0 - static_cast<uint64_t>(x.i)), s)
                                    : intVal(x.i, s);
    default: return std::nullopt;
    }
  }
  switch (k) {
  case OpKind::Neg: return floatVal(-x.f, s);
  case OpKind::Abs: return floatVal(std::fabs(x.f), s);
  case OpKind::Sqrt: return floatVal(std::sqrt(x.f), s);   // correctly rounded at every width
  case OpKind::Floor: return floatVal(std::floor(x.f), s);
  case OpKind::Ceil: return floatVal(std::ceil(x.f), s);
  default: return std::nullopt;
  }
}

// Saturating float -> int conversion toward zero; NaN -> 0.
int64_t floatToInt(double f, Scalar to) {
  if (std::isnan(f))
    return 0;
  double t = std::trunc(f);
  int w = bitWidth(to);
  if (isSigned(to)) {
    double lo = -std::ldexp(1.0, w - 1), hi = std::ldexp(1.0, w - 1);
    if (t < lo)
      return wrapToIntType(int64_t(1) << (w - 1), to);   // the minimum (wraps for 64)
    if (t >= hi)
      return w == 64 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << (w - 1)) - 1;
    return static_cast<int64_t>(t);
  }
  if (t <= 0)
    return 0;
  if (t >= std::ldexp(1.0, w))
    return wrapToIntType(-1, to);
  return static_cast<int64_t>(static_cast<uint64_t>(t));
}

Folded foldCast(ConstVal x, Scalar from, Scalar to) {
  bool toFloat = isFloat(to);
  if (x.isFloat) {
    if (toFloat)
      return floatVal(x.f, to);
    if (to == Scalar::I1)
      return std::isnan(x.f) ? Folded{} : ConstVal{false, x.f != 0 ? 1 : 0, 0.0};
    return ConstVal{false, floatToInt(x.f, to), 0.0};
  }
  if (to == Scalar::I1)
    return ConstVal{false, x.i != 0 ? 1 : 0, 0.0};
  if (!toFloat)
    return intVal(x.i, to);
  constexpr uint64_t kExact = uint64_t(1) << 53;
  if (isSigned(from)) {
    if (x.i > int64_t(kExact) || x.i < -int64_t(kExact))
      return std::nullopt;
    return floatVal(static_cast<double>(x.i), to);
  }
  uint64_t u = static_cast<uint64_t>(x.i);
  if (u > kExact)
    return std::nullopt;
  return floatVal(static_cast<double>(u), to);
}

Folded foldFma(ConstVal a, ConstVal b, ConstVal c, Scalar s) {
  if (s == Scalar::F32)
    return floatVal(std::fmaf(float(a.f), float(b.f), float(c.f)), s);
  if (s == Scalar::F64)
    return floatVal(std::fma(a.f, b.f, c.f), s);
  return std::nullopt;
}

Folded foldReduce(const Op &op, ConstVal x) {
  const std::string &kind = op.strAttr("kind");
  Scalar rs = op.result()->type.elem.scalar;
  if (kind == "argmax" || kind == "argmin")
    return ConstVal{false, 0, 0.0};
  if (kind == "max" || kind == "min")
    return x;
  if (x.isFloat)
    return std::nullopt;
  int64_t n = op.operands[0]->type.shape[op.intAttr("axis")];
  if (kind == "xor")   // n copies of x: x when n is odd, else 0
    return intVal(n % 2 ? x.i : 0, rs);
  return intVal(static_cast<int64_t>(static_cast<uint64_t>(x.i) * static_cast<uint64_t>(n)), rs);
}

bool isElementwiseBinary(OpKind k) {
  switch (k) {
  case OpKind::Add: case OpKind::Sub: case OpKind::Mul: case OpKind::Div: case OpKind::Rem:
  case OpKind::And: case OpKind::Or: case OpKind::Xor: case OpKind::Shl: case OpKind::Shr:
  case OpKind::Min: case OpKind::Max: return true;
  default: return false;
  }
}

/// The constant value of op's result, if it can be computed.
Folded fold(const Op &op, const std::vector<ConstVal> &in) {
  OpKind k = op.kind;
  Scalar s = op.operands[0]->type.elem.scalar;
  if (isElementwiseBinary(k))
    return in[0].isFloat ? foldFloatBinary(k, in[0].f, in[1].f, s) : foldIntBinary(k, in[0].i, in[1].i, s);
  switch (k) {
  case OpKind::Splat: case OpKind::Broadcast: case OpKind::ExpandDims:
  case OpKind::Reshape: case OpKind::Permute: return in[0];
  case OpKind::Cmp: return foldCmp(op.strAttr("pred"), in[0], in[1], s);
  case OpKind::Select: return in[0].i ? in[1] : in[2];
  case OpKind::Cast: return foldCast(in[0], s, op.result()->type.elem.scalar);
  case OpKind::Fma: return foldFma(in[0], in[1], in[2], s);
  case OpKind::Reduce: return foldReduce(op, in[0]);
  case OpKind::Neg: case OpKind::Not: case OpKind::Abs: case OpKind::Sqrt:
  case OpKind::Floor: case OpKind::Ceil: return foldUnary(k, in[0], s);
  default: return std::nullopt;
  }
}

void visit(Rewriter &rw, Op &op) {
  if (op.kind == OpKind::Constant || op.operands.empty() || op.results.size() != 1 || !op.regions.empty() ||
      op.hasSideEffects())
    return;
  std::vector<ConstVal> in;
  for (Value *v : op.operands) {
    if (v->type.elem.isPtr)
      return;
    auto c = matchConstant(v);
    if (!c || c->isFloat != v->type.elem.isFloat())
      return;
    // Constants are read at their type's precision, as the interpreter does.
    Scalar s = v->type.elem.scalar;
    c->i = c->isFloat ? 0 : wrapToIntType(c->i, s);
    c->f = c->isFloat ? roundToFloatType(c->f, s) : 0.0;
    in.push_back(*c);
  }
  const Type &t = op.result()->type;
  if (t.elem.isPtr)
    return;
  Folded r = fold(op, in);
  if (!r || r->isFloat != t.elem.isFloat())
    return;
  Builder b = rw.builderBefore(op);
  Value *c = r->isFloat ? b.constantFloat(r->f, t) : b.constantInt(r->i, t);
  rw.replaceOp(op, {c});
}

} // namespace

bool constantFold(Function &fn) {
  Rewriter rw(fn);
  rw.walk([&](Op &op) { visit(rw, op); });
  return rw.changed;
}

} // namespace tile::ir
