// TensorOps.cpp - elementwise arithmetic with NumPy broadcasting and
// type promotion, matmul, reductions and isclose for host tensors.
//
// Promotion (torch-like, which is what Triton tests rely on): int op float
// -> the float type; f16 op bf16 -> f32; int op int -> the wider (mixed
// signedness -> a signed type wide enough); Python scalars are "weak" and
// take the tensor's type unless they are floats meeting an int tensor
// (-> float32). True division of ints gives float32, comparisons bool.
#include "host/Tensor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

namespace tile::host {

namespace {

bool isFloatType(Scalar s) { return isFloat(s); }

Scalar widerOf(Scalar a, Scalar b) { return bitWidth(a) >= bitWidth(b) ? a : b; }

Scalar signedOfWidth(int bits) {
  switch (bits) {
  case 8: return Scalar::I8;
  case 16: return Scalar::I16;
  case 32: return Scalar::I32;
  default: return Scalar::I64;
  }
}

bool isComparison(BinaryOp op) {
  return op == BinaryOp::Eq || op == BinaryOp::Ne || op == BinaryOp::Lt || op == BinaryOp::Le ||
         op == BinaryOp::Gt || op == BinaryOp::Ge;
}

bool isBitwise(BinaryOp op) {
  return op == BinaryOp::BitAnd || op == BinaryOp::BitOr || op == BinaryOp::BitXor;
}

/// Maps an output flat index to an input's logical flat index under
/// broadcasting (size-1 and missing leading axes repeat).
class BroadcastMap {
public:
  BroadcastMap(const Shape &out, const Shape &in) : out_(out), stride_(out.size(), 0) {
    Shape inStrides = contiguousStrides(in);
    size_t lead = out.size() - in.size();
    for (size_t i = 0; i < in.size(); ++i)
      stride_[lead + i] = in[i] == 1 ? 0 : inStrides[i];
  }
  int64_t operator()(int64_t flat) const {
    int64_t idx = 0;
    for (size_t i = out_.size(); i-- > 0;) {
      idx += (flat % out_[i]) * stride_[i];
      flat /= out_[i];
    }
    return idx;
  }

private:
  Shape out_, stride_;
};

int64_t floorDivInt(int64_t a, int64_t b) {
  if (b == 0)
    throw HostError("integer division by zero");
  if (b == -1)
    return int64_t(0 - uint64_t(a)); // INT64_MIN // -1 wraps like numpy
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}

int64_t modInt(int64_t a, int64_t b) {
  if (b == 0)
    throw HostError("integer modulo by zero");
  if (b == -1)
    return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}

double modFloat(double a, double b) {
  double r = std::fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}

int64_t powInt(int64_t base, int64_t exp) {
  if (exp < 0)
    throw HostError("integers to negative integer powers are not allowed");
  uint64_t result = 1, b = uint64_t(base);
  for (; exp; exp >>= 1, b *= b)
    if (exp & 1)
      result *= b;
  return int64_t(result);
}

int64_t applyInt(BinaryOp op, int64_t a, int64_t b) {
  switch (op) {
  case BinaryOp::Add: return int64_t(uint64_t(a) + uint64_t(b));
  case BinaryOp::Sub: return int64_t(uint64_t(a) - uint64_t(b));
  case BinaryOp::Mul: return int64_t(uint64_t(a) * uint64_t(b));
  case BinaryOp::FloorDiv: return floorDivInt(a, b);
  case BinaryOp::Mod: return modInt(a, b);
  case BinaryOp::Pow: return powInt(a, b);
  case BinaryOp::Max: return std::max(a, b);
  case BinaryOp::Min: return std::min(a, b);
  case BinaryOp::BitAnd: return a & b;
  case BinaryOp::BitOr: return a | b;
  case BinaryOp::BitXor: return a ^ b;
  case BinaryOp::Eq: return a == b;
  case BinaryOp::Ne: return a != b;
  case BinaryOp::Lt: return a < b;
  case BinaryOp::Le: return a <= b;
  case BinaryOp::Gt: return a > b;
  case BinaryOp::Ge: return a >= b;
  case BinaryOp::Div: break;
  }
  TILE_ASSERT(false, "applyInt: unexpected op");
  return 0;
}

double applyFloat(BinaryOp op, double a, double b) {
  switch (op) {
  case BinaryOp::Add: return a + b;
  case BinaryOp::Sub: return a - b;
  case BinaryOp::Mul: return a * b;
  case BinaryOp::Div: return a / b;
  case BinaryOp::FloorDiv: return std::floor(a / b);
  case BinaryOp::Mod: return modFloat(a, b);
  case BinaryOp::Pow: return std::pow(a, b);
  case BinaryOp::Max: return (std::isnan(a) || std::isnan(b)) ? NAN : std::max(a, b);
  case BinaryOp::Min: return (std::isnan(a) || std::isnan(b)) ? NAN : std::min(a, b);
  case BinaryOp::Eq: return a == b;
  case BinaryOp::Ne: return a != b;
  case BinaryOp::Lt: return a < b;
  case BinaryOp::Le: return a <= b;
  case BinaryOp::Gt: return a > b;
  case BinaryOp::Ge: return a >= b;
  default: break;
  }
  TILE_ASSERT(false, "applyFloat: unexpected op");
  return 0;
}

/// Element source: a tensor (broadcast) or a Python scalar.
struct Operand {
  const Tensor *tensor = nullptr;
  ScalarOperand scalar;
  Scalar type = Scalar::I64;     ///< type for promotion (weak for scalars)
  bool weak = false;
};

Scalar scalarNaturalType(const ScalarOperand &s) {
  if (s.isBool)
    return Scalar::I1;
  return s.isFloat ? Scalar::F32 : Scalar::I64;
}

/// A weak Python scalar combined with a tensor of type t.
Scalar promoteWeak(Scalar t, const ScalarOperand &s) {
  if (s.isFloat)
    return isFloatType(t) ? t : Scalar::F32;
  if (!s.isBool && t == Scalar::I1)
    return Scalar::I64;
  return t;
}

Scalar operandsCommonType(const Operand &a, const Operand &b) {
  if (a.weak && b.weak)
    return promoteTypes(scalarNaturalType(a.scalar), scalarNaturalType(b.scalar));
  if (a.weak)
    return promoteWeak(b.type, a.scalar);
  if (b.weak)
    return promoteWeak(a.type, b.scalar);
  return promoteTypes(a.type, b.type);
}

Scalar resultType(BinaryOp op, Scalar common) {
  if (isComparison(op))
    return Scalar::I1;
  if (op == BinaryOp::Div && !isFloatType(common))
    return Scalar::F32;
  bool arith = !isBitwise(op) && op != BinaryOp::Max && op != BinaryOp::Min;
  if (arith && common == Scalar::I1)
    return Scalar::I64; // bool arithmetic counts in ints
  return common;
}

Tensor applyBinary(BinaryOp op, const Operand &a, const Operand &b) {
  Scalar common = operandsCommonType(a, b);
  if (isBitwise(op) && isFloatType(common))
    throw HostError(fmt::format("unsupported operand types for {}: bitwise operators need int or bool tensors",
                                binaryOpSpelling(op)));
  Scalar out = resultType(op, common);
  Shape aShape = a.tensor ? a.tensor->shape() : Shape{};
  Shape bShape = b.tensor ? b.tensor->shape() : Shape{};
  Shape shape = broadcastShapes(aShape, bShape);
  Tensor r = Tensor::zeros(shape, out);
  BroadcastMap mapA(shape, aShape), mapB(shape, bShape);
  bool floatMath = isFloatType(common) || op == BinaryOp::Div;
  int64_t n = r.numel();
  for (int64_t i = 0; i < n; ++i) {
    if (floatMath) {
      double x = a.tensor ? a.tensor->getDouble(mapA(i)) : (a.scalar.isFloat ? a.scalar.f : double(a.scalar.i));
      double y = b.tensor ? b.tensor->getDouble(mapB(i)) : (b.scalar.isFloat ? b.scalar.f : double(b.scalar.i));
      // Operands are rounded to the common type first, as numpy casts them.
      if (isFloatType(common)) {
        x = roundToFloatType(x, common);
        y = roundToFloatType(y, common);
      }
      r.setDouble(i, applyFloat(op, x, y));
      continue;
    }
    int64_t x = a.tensor ? a.tensor->getInt(mapA(i)) : a.scalar.i;
    int64_t y = b.tensor ? b.tensor->getInt(mapB(i)) : b.scalar.i;
    r.setInt(i, wrapToIntType(applyInt(op, x, y), out == Scalar::I1 ? Scalar::I64 : out));
  }
  return r;
}

Operand tensorOperand(const Tensor &t) {
  Operand o;
  o.tensor = &t;
  o.type = t.dtype();
  return o;
}

Operand scalarOperand(const ScalarOperand &s) {
  Operand o;
  o.scalar = s;
  o.weak = true;
  o.type = scalarNaturalType(s);
  return o;
}

} // namespace

const char *binaryOpSpelling(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add: return "+";
  case BinaryOp::Sub: return "-";
  case BinaryOp::Mul: return "*";
  case BinaryOp::Div: return "/";
  case BinaryOp::FloorDiv: return "//";
  case BinaryOp::Mod: return "%";
  case BinaryOp::Pow: return "**";
  case BinaryOp::Max: return "maximum";
  case BinaryOp::Min: return "minimum";
  case BinaryOp::BitAnd: return "&";
  case BinaryOp::BitOr: return "|";
  case BinaryOp::BitXor: return "^";
  case BinaryOp::Eq: return "==";
  case BinaryOp::Ne: return "!=";
  case BinaryOp::Lt: return "<";
  case BinaryOp::Le: return "<=";
  case BinaryOp::Gt: return ">";
  case BinaryOp::Ge: return ">=";
  }
  return "?";
}

Shape broadcastShapes(const Shape &a, const Shape &b) {
  size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (x != y && x != 1 && y != 1)
      throw HostError(fmt::format("shapes {} and {} cannot be broadcast together (axis {}: {} vs {})",
                                  shapeStr(a), shapeStr(b), i, x, y));
    out[i] = x == 1 ? y : x;
  }
  return out;
}

Scalar promoteTypes(Scalar a, Scalar b) {
  if (a == b)
    return a;
  bool fa = isFloat(a), fb = isFloat(b);
  if (fa && fb) {
    if (bitWidth(a) == bitWidth(b))
      return Scalar::F32; // f16 with bf16
    return widerOf(a, b);
  }
  if (fa)
    return a;
  if (fb)
    return b;
  if (a == Scalar::I1)
    return b;
  if (b == Scalar::I1)
    return a;
  if (isSigned(a) == isSigned(b))
    return widerOf(a, b);
  Scalar s = isSigned(a) ? a : b, u = isSigned(a) ? b : a;
  if (bitWidth(s) > bitWidth(u))
    return s;
  return signedOfWidth(std::min(bitWidth(u) * 2, 64));
}

Tensor binary(BinaryOp op, const Tensor &a, const Tensor &b) {
  return applyBinary(op, tensorOperand(a), tensorOperand(b));
}

Tensor binary(BinaryOp op, const Tensor &a, const ScalarOperand &b) {
  return applyBinary(op, tensorOperand(a), scalarOperand(b));
}

Tensor binary(BinaryOp op, const ScalarOperand &a, const Tensor &b) {
  return applyBinary(op, scalarOperand(a), tensorOperand(b));
}

Tensor unary(UnaryOp op, const Tensor &a) {
  Scalar t = a.dtype();
  bool transcendental = op != UnaryOp::Neg && op != UnaryOp::Abs && op != UnaryOp::Not;
  if (op == UnaryOp::Neg && t == Scalar::I1)
    throw HostError("negating a bool tensor is not supported: use ~ (logical not)");
  Scalar out = transcendental && !isFloat(t) ? Scalar::F32 : t;
  Tensor r = Tensor::zeros(a.shape(), out);
  for (int64_t i = 0, n = a.numel(); i < n; ++i) {
    if (op == UnaryOp::Not) {
      if (isFloat(t))
        throw HostError("bad operand type for ~: float tensors have no bitwise not");
      r.setInt(i, t == Scalar::I1 ? int64_t(a.getInt(i) == 0) : ~a.getInt(i));
      continue;
    }
    if (!isFloat(out)) {
      int64_t x = a.getInt(i);
      r.setInt(i, op == UnaryOp::Neg ? int64_t(0 - uint64_t(x)) : (x < 0 ? int64_t(0 - uint64_t(x)) : x));
      continue;
    }
    double x = a.getDouble(i);
    switch (op) {
    case UnaryOp::Neg: r.setDouble(i, -x); break;
    case UnaryOp::Abs: r.setDouble(i, std::fabs(x)); break;
    case UnaryOp::Exp: r.setDouble(i, std::exp(x)); break;
    case UnaryOp::Log: r.setDouble(i, std::log(x)); break;
    case UnaryOp::Sqrt: r.setDouble(i, std::sqrt(x)); break;
    case UnaryOp::Tanh: r.setDouble(i, std::tanh(x)); break;
    case UnaryOp::Erf: r.setDouble(i, std::erf(x)); break;
    case UnaryOp::Sigmoid: r.setDouble(i, 1.0 / (1.0 + std::exp(-x))); break;
    case UnaryOp::Gelu: r.setDouble(i, 0.5 * x * (1.0 + std::erf(x * M_SQRT1_2))); break;   // torch's exact GELU
    case UnaryOp::Sin: r.setDouble(i, std::sin(x)); break;
    case UnaryOp::Cos: r.setDouble(i, std::cos(x)); break;
    case UnaryOp::Not: break;
    }
  }
  return r;
}

Tensor where(const Tensor &cond, const Tensor &a, const Tensor &b) {
  Shape shape = broadcastShapes(cond.shape(), broadcastShapes(a.shape(), b.shape()));
  Scalar out = promoteTypes(a.dtype(), b.dtype());
  Tensor r = Tensor::zeros(shape, out);
  BroadcastMap mc(shape, cond.shape()), ma(shape, a.shape()), mb(shape, b.shape());
  for (int64_t i = 0, n = r.numel(); i < n; ++i) {
    bool c = cond.getDouble(mc(i)) != 0;
    const Tensor &src = c ? a : b;
    int64_t j = c ? ma(i) : mb(i);
    if (isFloat(out))
      r.setDouble(i, src.getDouble(j));
    else
      r.setInt(i, src.getInt(j));
  }
  return r;
}

Tensor matmul(const Tensor &a, const Tensor &b) {
  if (a.ndim() != 2 || b.ndim() != 2)
    throw HostError(fmt::format("matmul needs 2-D tensors, got {} @ {}", a.describe(), b.describe()));
  int64_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
  if (b.shape()[0] != k)
    throw HostError(fmt::format("matmul shape mismatch: {} @ {} (inner dimensions {} and {} differ)",
                                a.describe(), b.describe(), k, b.shape()[0]));
  Scalar out = (a.dtype() == Scalar::F64 || b.dtype() == Scalar::F64) ? Scalar::F64 : Scalar::F32;
  Tensor ac = a.to(Scalar::F64), bc = b.to(Scalar::F64);
  const double *pa = static_cast<const double *>(ac.data());
  const double *pb = static_cast<const double *>(bc.data());
  Tensor r = Tensor::zeros({m, n}, out);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t p = 0; p < k; ++p)
        acc += pa[i * k + p] * pb[p * n + j];
      r.setDouble(i * n + j, acc);
    }
  return r;
}

namespace {
const char *reduceName(ReduceOp op) {
  return op == ReduceOp::Sum ? "sum" : op == ReduceOp::Max ? "max" : "min";
}

double combine(ReduceOp op, double acc, double x) {
  if (op == ReduceOp::Sum)
    return acc + x;
  if (std::isnan(acc) || std::isnan(x))
    return NAN;
  return op == ReduceOp::Max ? std::max(acc, x) : std::min(acc, x);
}

int64_t combineInt(ReduceOp op, int64_t acc, int64_t x) {
  if (op == ReduceOp::Sum)
    return int64_t(uint64_t(acc) + uint64_t(x));
  return op == ReduceOp::Max ? std::max(acc, x) : std::min(acc, x);
}
} // namespace

Tensor reduce(ReduceOp op, const Tensor &a, std::optional<int> axis, bool keepdims) {
  if (!axis) {
    Tensor flat = a.reshape({a.numel()});
    Tensor r = reduce(op, flat, 0, false);
    return keepdims ? r.reshape(Shape(size_t(a.ndim()), 1)) : r;
  }
  int ax = *axis < 0 ? *axis + a.ndim() : *axis;
  if (ax < 0 || ax >= a.ndim())
    throw HostError(fmt::format("axis {} is out of bounds for a tensor of dimension {}", *axis, a.ndim()));
  int64_t len = a.shape()[size_t(ax)];
  if (len == 0 && op != ReduceOp::Sum)
    throw HostError(fmt::format("zero-size tensor to reduction operation {} which has no identity", reduceName(op)));
  Scalar out = a.dtype();
  if (op == ReduceOp::Sum && !isFloat(out))
    out = Scalar::I64;
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < ax; ++i)
    outer *= a.shape()[size_t(i)];
  for (int i = ax + 1; i < a.ndim(); ++i)
    inner *= a.shape()[size_t(i)];
  Shape shape = a.shape();
  if (keepdims)
    shape[size_t(ax)] = 1;
  else
    shape.erase(shape.begin() + ax);
  Tensor r = Tensor::zeros(shape, out);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in) {
      int64_t base = o * len * inner + in;
      if (isFloat(out)) {
        double acc = len ? a.getDouble(base) : 0.0;
        for (int64_t j = 1; j < len; ++j)
          acc = combine(op, acc, a.getDouble(base + j * inner));
        r.setDouble(o * inner + in, acc);
        continue;
      }
      int64_t acc = len ? a.getInt(base) : 0;
      for (int64_t j = 1; j < len; ++j)
        acc = combineInt(op, acc, a.getInt(base + j * inner));
      r.setInt(o * inner + in, acc);
    }
  return r;
}

Tensor scalarTensor(const ScalarOperand &s) {
  Tensor t = Tensor::zeros({}, scalarNaturalType(s));
  if (s.isFloat)
    t.setDouble(0, s.f);
  else
    t.setInt(0, s.i);
  return t;
}

bool isClose(double actual, double expected, double rtol, double atol) {
  if (std::isnan(actual) || std::isnan(expected))
    return false;
  if (actual == expected)
    return true;
  if (std::isinf(actual) || std::isinf(expected))
    return false;
  return std::fabs(actual - expected) <= atol + rtol * std::fabs(expected);
}

} // namespace tile::host
