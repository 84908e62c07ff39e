// LowerExpr.cpp - sema for expressions: names, constexpr arithmetic with
// Python semantics, Triton's type promotion and NumPy broadcasting, pointer
// arithmetic, subscripts with `:`/None, attributes and calls.
#include "ir/Libdevice.h"
#include "sema/BuiltinsBlockPtr.h"
#include "sema/Lowerer.h"

#include <fmt/format.h>

#include <map>

#include <cmath>
#include <limits>

namespace tile::sema {

using ast::BinOpKind;
using ast::CmpOpKind;
using ast::ExprKind;
using ir::OpKind;

namespace {

std::string constTypeName(const ConstValue &c) {
  if (c.isNone()) return "None";
  if (c.isBool()) return "bool";
  if (c.isInt()) return "int";
  if (c.isFloat()) return "float";
  if (c.isStr()) return "str";
  if (std::holds_alternative<DTypeValue>(c.v)) return "dtype";
  return "tuple";
}

bool isNumber(const ConstValue &c) { return c.isInt() || c.isFloat() || c.isBool(); }
double asDouble(const ConstValue &c) {
  if (c.isFloat()) return std::get<double>(c.v);
  if (c.isBool()) return std::get<bool>(c.v) ? 1.0 : 0.0;
  return static_cast<double>(std::get<int64_t>(c.v));
}
int64_t asInt(const ConstValue &c) {
  if (c.isBool()) return std::get<bool>(c.v) ? 1 : 0;
  return std::get<int64_t>(c.v);
}

/// Python's integer ops, with overflow of int64 reported (Python ints are
/// unbounded; ours are not).
int64_t checkedInt(__int128 r, Location loc) {
  if (r > std::numeric_limits<int64_t>::max() || r < std::numeric_limits<int64_t>::min())
    fail(loc, "constexpr integer arithmetic overflows 64 bits");
  return static_cast<int64_t>(r);
}

ConstValue intBinary(BinOpKind op, int64_t x, int64_t y, Location loc) {
  switch (op) {
  case BinOpKind::Add: return checkedInt((__int128)x + y, loc);
  case BinOpKind::Sub: return checkedInt((__int128)x - y, loc);
  case BinOpKind::Mul: return checkedInt((__int128)x * y, loc);
  case BinOpKind::Div:
    if (y == 0) fail(loc, "division by zero in constexpr arithmetic");
    return static_cast<double>(x) / static_cast<double>(y);
  case BinOpKind::FloorDiv: {
    if (y == 0) fail(loc, "integer division by zero in constexpr arithmetic");
    if (x == std::numeric_limits<int64_t>::min() && y == -1) fail(loc, "constexpr integer arithmetic overflows 64 bits");
    int64_t q = x / y;
    if ((x % y != 0) && ((x < 0) != (y < 0))) --q;
    return q;
  }
  case BinOpKind::Mod: {
    if (y == 0) fail(loc, "integer modulo by zero in constexpr arithmetic");
    if (y == -1) return int64_t(0);
    int64_t r = x % y;
    if (r != 0 && ((r < 0) != (y < 0))) r += y;
    return r;
  }
  case BinOpKind::Pow: {
    if (y < 0) return std::pow(static_cast<double>(x), static_cast<double>(y));
    __int128 r = 1;
    for (int64_t i = 0; i < y; ++i) {
      r *= x;
      checkedInt(r, loc);
      if (r == 0 || r == 1) break;
    }
    return checkedInt(r, loc);
  }
  case BinOpKind::LShift:
    if (y < 0) fail(loc, "negative shift count");
    if (y >= 63 && x != 0) fail(loc, "constexpr integer arithmetic overflows 64 bits");
    return checkedInt((__int128)x << y, loc);
  case BinOpKind::RShift:
    if (y < 0) fail(loc, "negative shift count");
    return y >= 64 ? (x < 0 ? -1 : 0) : x >> y;
  case BinOpKind::BitAnd: return x & y;
  case BinOpKind::BitOr: return x | y;
  case BinOpKind::BitXor: return x ^ y;
  case BinOpKind::MatMul: break;
  }
  fail(loc, fmt::format("unsupported operand types for {}: 'int' and 'int'", ast::binOpSpelling(op)));
}

ConstValue floatBinary(BinOpKind op, double x, double y, Location loc) {
  switch (op) {
  case BinOpKind::Add: return x + y;
  case BinOpKind::Sub: return x - y;
  case BinOpKind::Mul: return x * y;
  case BinOpKind::Div:
    if (y == 0) fail(loc, "division by zero in constexpr arithmetic");
    return x / y;
  case BinOpKind::FloorDiv:
    if (y == 0) fail(loc, "division by zero in constexpr arithmetic");
    return std::floor(x / y);
  case BinOpKind::Mod: {
    if (y == 0) fail(loc, "modulo by zero in constexpr arithmetic");
    double r = std::fmod(x, y);
    if (r != 0 && ((r < 0) != (y < 0))) r += y;
    return r;
  }
  case BinOpKind::Pow: return std::pow(x, y);
  default: break;
  }
  fail(loc, fmt::format("unsupported operand types for {}: 'float' and 'float'", ast::binOpSpelling(op)));
}

} // namespace

ConstValue constBinary(BinOpKind op, const ConstValue &a, const ConstValue &b, Location loc) {
  if (op == BinOpKind::Add && std::holds_alternative<ConstTuple>(a.v) && std::holds_alternative<ConstTuple>(b.v)) {
    ConstTuple t = std::get<ConstTuple>(a.v);
    for (const ConstValue &x : std::get<ConstTuple>(b.v)) t.push_back(x);
    return t;
  }
  if (op == BinOpKind::Add && a.isStr() && b.isStr())
    return std::get<std::string>(a.v) + std::get<std::string>(b.v);
  if (!isNumber(a) || !isNumber(b))
    fail(loc, fmt::format("unsupported operand types for {}: '{}' and '{}'", ast::binOpSpelling(op),
                          constTypeName(a), constTypeName(b)));
  if (a.isFloat() || b.isFloat())
    return floatBinary(op, asDouble(a), asDouble(b), loc);
  ConstValue r = intBinary(op, asInt(a), asInt(b), loc);
  // bool op bool stays bool for the bitwise operators, as in Python.
  if (a.isBool() && b.isBool() && (op == BinOpKind::BitAnd || op == BinOpKind::BitOr || op == BinOpKind::BitXor))
    return asInt(r) != 0;
  return r;
}

ConstValue constCompare(CmpOpKind op, const ConstValue &a, const ConstValue &b, Location loc) {
  switch (op) {
  case CmpOpKind::Is: return a == b || (a.isNone() && b.isNone());
  case CmpOpKind::IsNot: return !(a == b);
  case CmpOpKind::In:
  case CmpOpKind::NotIn: {
    if (!std::holds_alternative<ConstTuple>(b.v))
      fail(loc, "'in' needs a tuple on its right");
    bool found = false;
    for (const ConstValue &x : std::get<ConstTuple>(b.v)) found |= (x == a);
    return op == CmpOpKind::In ? found : !found;
  }
  default: break;
  }
  if (isNumber(a) && isNumber(b)) {
    double x = asDouble(a), y = asDouble(b);
    bool ints = !a.isFloat() && !b.isFloat();
    int64_t i = ints ? asInt(a) : 0, j = ints ? asInt(b) : 0;
    switch (op) {
    case CmpOpKind::Eq: return ints ? i == j : x == y;
    case CmpOpKind::NotEq: return ints ? i != j : x != y;
    case CmpOpKind::Lt: return ints ? i < j : x < y;
    case CmpOpKind::LtE: return ints ? i <= j : x <= y;
    case CmpOpKind::Gt: return ints ? i > j : x > y;
    case CmpOpKind::GtE: return ints ? i >= j : x >= y;
    default: break;
    }
  }
  if (op == CmpOpKind::Eq) return a == b;
  if (op == CmpOpKind::NotEq) return !(a == b);
  if (a.isStr() && b.isStr()) {
    const auto &x = std::get<std::string>(a.v), &y = std::get<std::string>(b.v);
    switch (op) {
    case CmpOpKind::Lt: return x < y;
    case CmpOpKind::LtE: return x <= y;
    case CmpOpKind::Gt: return x > y;
    case CmpOpKind::GtE: return x >= y;
    default: break;
    }
  }
  fail(loc, fmt::format("'{}' is not supported between '{}' and '{}'", ast::cmpOpSpelling(op),
                        constTypeName(a), constTypeName(b)));
}

// ------------------------------------------------------------------ types

std::string Lowerer::typeName(const Val &v) const {
  switch (v.kind) {
  case Val::Kind::Const: return constTypeName(v.c);
  case Val::Kind::IR: return v.v->type.str();
  case Val::Kind::Namespace: return "module '" + v.name + "'";
  case Val::Kind::Builtin: return "function '" + v.name + "'";
  case Val::Kind::JitFunction: return "function '" + v.fn->name + "'";
  case Val::Kind::Tuple: return "tuple";
  case Val::Kind::Method: return "method '" + v.name + "'";
  case Val::Kind::Range: return "range";
  case Val::Kind::BlockPtr: return blockptr::isDescriptor(v) ? "tensor descriptor" : "block pointer";
  }
  return "value";
}

ElemType Lowerer::valElemType(const Val &v) const {
  if (v.isIR()) return v.v->type.elem;
  if (v.isConst()) {
    if (v.c.isBool()) return ElemType::of(Scalar::I1);
    if (v.c.isFloat()) return ElemType::of(Scalar::F32);
    if (v.c.isInt()) {
      int64_t i = std::get<int64_t>(v.c.v);
      return ElemType::of(i >= INT32_MIN && i <= INT32_MAX ? Scalar::I32 : Scalar::I64);
    }
  }
  return ElemType::of(Scalar::I32);
}

ir::Type Lowerer::tensorType(ElemType e, std::vector<int64_t> shape, Location loc) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d <= 0 || (d & (d - 1)) != 0)
      fail(loc, fmt::format("tensor dimensions must be powers of two, got {}", d));
    if (d > kMaxTensorElements || n * d > kMaxTensorElements)
      fail(loc, fmt::format("tile too large: more than {} elements (the limit per tensor is 2^20)",
                            kMaxTensorElements));
    n *= d;
  }
  return shape.empty() ? ir::Type::scalar(e) : ir::Type::tensor(e, std::move(shape));
}

ir::Value *Lowerer::toIR(const Val &v, Location loc, const char *what) {
  if (v.isIR()) return v.v;
  if (!v.isConst() || !isNumber(v.c))
    fail(loc, fmt::format("expected a number or tensor as {}, got {}", what, typeName(v)));
  ElemType e = valElemType(v);
  if (v.c.isFloat()) return at(loc).constantFloat(std::get<double>(v.c.v), ir::Type::scalar(e));
  return at(loc).constantInt(asInt(v.c), ir::Type::scalar(e));
}

ir::Value *Lowerer::castTo(ir::Value *v, ElemType elem, Location loc) {
  if (v->type.elem == elem) return v;
  if (v->type.elem.isPtr != elem.isPtr) {
    // as Triton: 64-bit ints <-> pointers (ptrtoint / inttoptr), a pointer
    // to i1 is `!= 0`; other int widths are an error here
    const ElemType &other = elem.isPtr ? v->type.elem : elem;
    bool wide = other.scalar == Scalar::I64 || other.scalar == Scalar::U64;
    if (!elem.isPtr && elem.scalar == Scalar::I1) {
      ir::Value *bits = at(loc).bitcast(v, ElemType::of(Scalar::I64));
      return at(loc).cast(bits, elem);
    }
    if (!other.isInt() || !wide)
      fail(loc, fmt::format("cannot convert {} to {} (pointers convert to and from 64-bit integers only)",
                            v->type.elem.str(), elem.str()));
    ElemType viaBits = ElemType::of(Scalar::I64);
    if (elem.isPtr) return at(loc).bitcast(other.scalar == Scalar::I64 ? v : at(loc).bitcast(v, viaBits), elem);
    ir::Value *bits = at(loc).bitcast(v, viaBits);
    return other.scalar == Scalar::I64 ? bits : at(loc).bitcast(bits, elem);
  }
  if (elem.isPtr) return at(loc).bitcast(v, elem);
  // fp8 converts to and from f16, bf16 and f32 (cvt); to and from anything
  // else through f32, which holds every fp8 value exactly
  Scalar from = v->type.elem.scalar, to = elem.scalar;
  auto direct = [](Scalar s) { return s == Scalar::F16 || s == Scalar::BF16 || s == Scalar::F32; };
  if ((isFp8(from) && !direct(to)) || (isFp8(to) && !direct(from)))
    return at(loc).cast(at(loc).cast(v, ElemType::of(Scalar::F32)), elem);
  return at(loc).cast(v, elem);
}

ir::Value *Lowerer::toIRAs(const Val &v, ElemType elem, Location loc) {
  if (v.isConst() && isNumber(v.c)) {
    // Materialize directly in the target type (no intermediate i32 wrap).
    if (elem.isFloat())
      return at(loc).constantFloat(roundToFloatType(asDouble(v.c), elem.scalar), ir::Type::scalar(elem));
    if (elem.isInt()) {
      int64_t i = v.c.isFloat() ? static_cast<int64_t>(asDouble(v.c)) : asInt(v.c);
      if (elem.scalar == Scalar::I1) i = i != 0;
      return at(loc).constantInt(wrapToIntType(i, elem.scalar), ir::Type::scalar(elem));
    }
  }
  return castTo(toIR(v, loc), elem, loc);
}

std::vector<int64_t> Lowerer::broadcastShapes(const std::vector<int64_t> &a, const std::vector<int64_t> &b,
                                              Location loc, const char *what) {
  size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  auto str = [](const std::vector<int64_t> &s) {
    std::string r = "(";
    for (size_t k = 0; k < s.size(); ++k) r += (k ? ", " : "") + std::to_string(s[k]);
    return r + (s.size() == 1 ? ",)" : ")");
  };
  for (size_t i = 0; i < rank; ++i) {
    int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (x != y && x != 1 && y != 1) {
      fail(loc, fmt::format("cannot broadcast {} shapes {} and {}: dimension {} is {} vs {}", what, str(a), str(b),
                            i, x, y));
    }
    out[i] = std::max(x, y);
  }
  // a broadcast makes a tile as tl.zeros does: the same limit
  int64_t n = 1;
  for (int64_t d : out) {
    if (d > kMaxTensorElements || n * d > kMaxTensorElements)
      fail(loc, fmt::format("tile too large: broadcasting {} shapes {} and {} gives a {} tile, more than {} elements "
                            "(the limit per tensor is 2^20)",
                            what, str(a), str(b), str(out), kMaxTensorElements));
    n *= d;
  }
  return out;
}

ir::Value *Lowerer::broadcastTo(ir::Value *v, const std::vector<int64_t> &shape, Location loc) {
  if (v->type.shape == shape) return v;
  if (!v->type.isTensor()) return at(loc).splat(v, shape);
  broadcastShapes(v->type.shape, shape, loc, "value");
  if (v->type.rank() > static_cast<int>(shape.size()))
    fail(loc, fmt::format("cannot broadcast {} to a lower rank", v->type.str()));
  while (v->type.rank() < static_cast<int>(shape.size()))
    v = at(loc).expandDims(v, 0);
  if (v->type.shape == shape) return v;
  for (size_t i = 0; i < shape.size(); ++i)
    if (v->type.shape[i] != shape[i] && v->type.shape[i] != 1)
      fail(loc, fmt::format("cannot broadcast {} to shape with dimension {} = {}", v->type.str(), i, shape[i]));
  return at(loc).broadcast(v, shape);
}

namespace {
/// Triton's dtype.kind(): BOOLEAN < INTEGRAL < FLOATING, signed and
/// unsigned integers are one kind, so `u8_tensor + 1` stays uint8 (255 + 1
/// wraps to 0, as in Triton) and `u32_tensor // 10` is uint32.
enum class Kind { Bool, Int, Float };
Kind kindOf(ElemType e) {
  if (e.scalar == Scalar::I1) return Kind::Bool;
  return isFloat(e.scalar) ? Kind::Float : Kind::Int;
}

ElemType integerPromote(ElemType a, ElemType b) {
  int ra = bitWidth(a.scalar), rb = bitWidth(b.scalar);
  bool sa = isSigned(a.scalar), sb = isSigned(b.scalar);
  if (sa == sb) return ra > rb ? a : b;
  if (!sa) return ra >= rb ? a : b;
  return rb >= ra ? b : a;
}
} // namespace

/// Triton's computation_type_impl, including the weak typing of Python
/// scalars: a number of a lower or equal kind does not take part in promotion.
static ElemType computationType(ElemType a, bool aScalar, ElemType b, bool bScalar, bool divOrMod, Location loc) {
  auto is = [](ElemType e, Scalar s) { return e.scalar == s; };
  if (aScalar != bScalar) {
    ElemType s = aScalar ? a : b, t = aScalar ? b : a;
    if (static_cast<int>(kindOf(s)) <= static_cast<int>(kindOf(t))) {
      if (divOrMod && (is(t, Scalar::F16) || is(t, Scalar::BF16))) return ElemType::of(Scalar::F32);
      return t;
    }
  }
  if (is(a, Scalar::F64) || is(b, Scalar::F64)) return ElemType::of(Scalar::F64);
  if (is(a, Scalar::F32) || is(b, Scalar::F32)) return ElemType::of(Scalar::F32);
  if (is(a, Scalar::F16) || is(b, Scalar::F16)) return ElemType::of(divOrMod ? Scalar::F32 : Scalar::F16);
  if (is(a, Scalar::BF16) || is(b, Scalar::BF16))
    return ElemType::of(!divOrMod && is(a, Scalar::BF16) && is(b, Scalar::BF16) ? Scalar::BF16 : Scalar::F32);
  if (divOrMod && isSigned(a.scalar) != isSigned(b.scalar) && a.scalar != Scalar::I1 && b.scalar != Scalar::I1)
    fail(loc, fmt::format("cannot use /, // or % with {} and {}: they have different signedness; cast one of them",
                          a.str(), b.str()));
  return integerPromote(a, b);
}

std::pair<ir::Value *, ir::Value *> Lowerer::promote(const Val &a, const Val &b, Location loc, bool divOrMod) {
  bool aNum = a.isConst(), bNum = b.isConst();
  for (const Val *v : {&a, &b})
    if (!(v->isIR() || (v->isConst() && isNumber(v->c))))
      fail(loc, fmt::format("expected a number or tensor operand, got {}", typeName(*v)));
  ElemType ea = valElemType(a), eb = valElemType(b);
  ElemType t = computationType(ea, aNum, eb, bNum, divOrMod, loc);
  auto negativeScalar = [](const Val &v) { return v.isConst() && asDouble(v.c) < 0; };
  if (t.isInt() && !isSigned(t.scalar) && t.scalar != Scalar::I1 && (negativeScalar(a) || negativeScalar(b)))
    fail(loc, fmt::format("cannot combine a {} tensor with a negative number", t.str()));
  // As in Triton, a Python int that the operation's integer type cannot hold
  // is an error rather than a silent wrap-around.
  for (const Val *v : {&a, &b}) {
    if (!v->isConst() || !v->c.isInt() || !t.isInt() || t.scalar == Scalar::I1) continue;
    int64_t i = std::get<int64_t>(v->c.v);
    if (wrapToIntType(i, t.scalar) != i)
      fail(loc, fmt::format("{} is out of range for {}, the type of this operation; cast the other operand "
                            "to a wider type first",
                            i, t.str()));
  }
  ir::Value *x = toIRAs(a, t, loc);
  ir::Value *y = toIRAs(b, t, loc);
  std::vector<int64_t> shape = broadcastShapes(x->type.shape, y->type.shape, loc, "operand");
  if (!shape.empty()) {
    x = broadcastTo(x, shape, loc);
    y = broadcastTo(y, shape, loc);
  }
  return {x, y};
}

// -------------------------------------------------------------- operators

Val Lowerer::binaryOp(BinOpKind op, const Val &a, const Val &b, Location loc) {
  if (a.isConst() && b.isConst()) return Val::constant(constBinary(op, a.c, b.c, loc));
  if (a.kind == Val::Kind::Tuple || b.kind == Val::Kind::Tuple) {
    if (op == BinOpKind::Add && a.kind == Val::Kind::Tuple && b.kind == Val::Kind::Tuple) {
      std::vector<Val> e = a.elts;
      e.insert(e.end(), b.elts.begin(), b.elts.end());
      return Val::tuple(std::move(e));
    }
    fail(loc, fmt::format("unsupported operand types for {}: '{}' and '{}'", ast::binOpSpelling(op), typeName(a), typeName(b)));
  }
  if (op == BinOpKind::MatMul) fail(loc, "'@' is not supported in kernels; use tl.dot(a, b)");
  if (op == BinOpKind::Pow) fail(loc, "'**' on tensors is not supported; use tl.exp2 / tl.log2 or repeated multiplication");
  bool ptrA = (a.isIR() && a.v->type.elem.isPtr), ptrB = (b.isIR() && b.v->type.elem.isPtr);
  if (ptrA || ptrB) {
    if (ptrA && ptrB) fail(loc, fmt::format("unsupported operand types for {}: two pointers", ast::binOpSpelling(op)));
    const Val &p = ptrA ? a : b, &off = ptrA ? b : a;
    if (!(op == BinOpKind::Add || (op == BinOpKind::Sub && ptrA)))
      fail(loc, fmt::format("unsupported operand types for {}: {} and {}", ast::binOpSpelling(op), typeName(a), typeName(b)));
    ElemType oe = valElemType(off);
    if (!oe.isInt()) fail(loc, fmt::format("pointer offsets must be integers, got {}", typeName(off)));
    ir::Value *o = toIR(off, loc, "pointer offset");
    if (op == BinOpKind::Sub) o = at(loc).unary(OpKind::Neg, o);
    std::vector<int64_t> shape = broadcastShapes(p.v->type.shape, o->type.shape, loc, "operand");
    ir::Value *pp = shape.empty() ? p.v : broadcastTo(p.v, shape, loc);
    if (!shape.empty()) o = broadcastTo(o, shape, loc);
    return Val::ir(at(loc).addptr(pp, o));
  }
  bool divOrMod = op == BinOpKind::Div || op == BinOpKind::Mod || op == BinOpKind::FloorDiv;
  auto [x, y] = promote(a, b, loc, divOrMod);
  ElemType t = x->type.elem;
  switch (op) {
  case BinOpKind::Add: return Val::ir(at(loc).binary(OpKind::Add, x, y));
  case BinOpKind::Sub: return Val::ir(at(loc).binary(OpKind::Sub, x, y));
  case BinOpKind::Mul: return Val::ir(at(loc).binary(OpKind::Mul, x, y));
  case BinOpKind::Div:
    if (t.isInt()) {
      x = castTo(x, ElemType::of(Scalar::F32), loc);
      y = castTo(y, ElemType::of(Scalar::F32), loc);
    }
    return Val::ir(at(loc).binary(OpKind::Div, x, y));
  case BinOpKind::FloorDiv:
    if (t.isFloat()) {   // floor of the correctly rounded quotient (6.0 // 3.0 is 2.0 on the GPU too)
      ir::Value *q = at(loc).binary(OpKind::Div, x, y);
      if (q->def) q->def->attrs["ieee"] = true;
      return Val::ir(at(loc).unary(OpKind::Floor, q));
    }
    return Val::ir(at(loc).binary(OpKind::Div, x, y));
  case BinOpKind::Mod: return Val::ir(at(loc).binary(OpKind::Rem, x, y));
  default: break;
  }
  if (!t.isInt())
    fail(loc, fmt::format("bitwise operator {} needs integer operands, got {}", ast::binOpSpelling(op), t.str()));
  switch (op) {
  case BinOpKind::BitAnd: return Val::ir(at(loc).binary(OpKind::And, x, y));
  case BinOpKind::BitOr: return Val::ir(at(loc).binary(OpKind::Or, x, y));
  case BinOpKind::BitXor: return Val::ir(at(loc).binary(OpKind::Xor, x, y));
  case BinOpKind::LShift: return Val::ir(at(loc).binary(OpKind::Shl, x, y));
  case BinOpKind::RShift: return Val::ir(at(loc).binary(OpKind::Shr, x, y));
  default: break;
  }
  TILE_ASSERT(false, "unhandled binary operator");
  return {};
}

Val Lowerer::compareOp(CmpOpKind op, const Val &a, const Val &b, Location loc) {
  if (a.isConst() && b.isConst()) return Val::constant(constCompare(op, a.c, b.c, loc));
  if (op == CmpOpKind::Is || op == CmpOpKind::IsNot) {
    // A tensor is never None; identity of two tensors is not meaningful.
    bool noneSide = (a.isConst() && a.c.isNone()) || (b.isConst() && b.c.isNone());
    if (!noneSide) fail(loc, "'is' is only supported against None in kernels");
    return Val::constant(op == CmpOpKind::IsNot);
  }
  if (op == CmpOpKind::In || op == CmpOpKind::NotIn) fail(loc, "'in' is not supported on tensors");
  if ((a.isIR() && a.v->type.elem.isPtr) || (b.isIR() && b.v->type.elem.isPtr))
    fail(loc, "comparing pointers is not supported");
  auto [x, y] = promote(a, b, loc, false);
  static const char *preds[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  return Val::ir(at(loc).cmp(preds[static_cast<int>(op)], x, y));
}

Val Lowerer::unaryOp(ast::UnaryOpKind op, const Val &a, Location loc) {
  if (a.isConst()) {
    const ConstValue &c = a.c;
    switch (op) {
    case ast::UnaryOpKind::Not: return Val::constant(!isTruthyConst(a, loc));
    case ast::UnaryOpKind::Pos:
      if (isNumber(c)) return a;
      break;
    case ast::UnaryOpKind::Neg:
      if (c.isFloat()) return Val::constant(-std::get<double>(c.v));
      if (isNumber(c)) return Val::constant(checkedInt(-(__int128)asInt(c), loc));
      break;
    case ast::UnaryOpKind::Invert:
      if (c.isInt() || c.isBool()) return Val::constant(~asInt(c));
      break;
    }
    fail(loc, fmt::format("bad operand type for unary operator: '{}'", constTypeName(c)));
  }
  if (!a.isIR()) fail(loc, fmt::format("bad operand type for unary operator: {}", typeName(a)));
  ir::Value *x = a.v;
  if (x->type.elem.isPtr) fail(loc, "unary operators are not supported on pointers");
  switch (op) {
  case ast::UnaryOpKind::Pos: return a;
  case ast::UnaryOpKind::Neg: return Val::ir(at(loc).unary(OpKind::Neg, x));
  case ast::UnaryOpKind::Invert:
    if (!x->type.elem.isInt()) fail(loc, fmt::format("'~' needs an integer operand, got {}", x->type.str()));
    return Val::ir(at(loc).unary(OpKind::Not, x));
  case ast::UnaryOpKind::Not: {
    ir::Value *c = toCondition(a, loc, "operand of 'not'");
    return Val::ir(at(loc).unary(OpKind::Not, c));
  }
  }
  return a;
}

bool Lowerer::isTruthyConst(const Val &v, Location loc) {
  const ConstValue &c = v.c;
  if (c.isNone()) return false;
  if (c.isBool()) return std::get<bool>(c.v);
  if (c.isInt()) return std::get<int64_t>(c.v) != 0;
  if (c.isFloat()) return std::get<double>(c.v) != 0.0;
  if (c.isStr()) return !std::get<std::string>(c.v).empty();
  if (auto *t = std::get_if<ConstTuple>(&c.v)) return !t->empty();
  return true;
}

ir::Value *Lowerer::toCondition(const Val &v, Location loc, const char *what) {
  ir::Value *x = toIR(v, loc, what);
  if (x->type.elem.scalar == Scalar::I1 && !x->type.elem.isPtr) return x;
  if (x->type.elem.isPtr) fail(loc, fmt::format("{} cannot be a pointer", what));
  ir::Value *zero = x->type.elem.isFloat() ? at(loc).constantFloat(0.0, ir::Type::scalar(x->type.elem))
                                           : at(loc).constantInt(0, ir::Type::scalar(x->type.elem));
  if (x->type.isTensor()) zero = at(loc).splat(zero, x->type.shape);
  return at(loc).cmp("ne", x, zero);
}

// ------------------------------------------------------------ expressions

Val Lowerer::lookupName(const std::string &name, Location loc) {
  if (auto it = scope.find(name); it != scope.end()) return it->second;
  if (auto it = prog.globals.find(name); it != prog.globals.end()) return Val::constant(it->second);
  if (auto it = prog.jitFunctions.find(name); it != prog.jitFunctions.end()) {
    Val f;
    f.kind = Val::Kind::JitFunction;
    f.fn = it->second;
    return f;
  }
  if (auto it = prog.imports.find(name); it != prog.imports.end()) {
    const std::string &path = it->second;
    if (path == "triton.language" || path == "tl") return Val::ns("tl");
    if (path == "triton") return Val::ns("triton");
    size_t dot = path.rfind('.');
    Val base = path.rfind("triton.language", 0) == 0 ? Val::ns("tl") : Val::ns("triton");
    if (path.find(".libdevice.") != std::string::npos)
      base = Val::ns("libdevice");   // from triton.language.extra.cuda.libdevice import tanh
    else if (path.find(".math.") != std::string::npos)
      base = Val::ns("tl.math");
    return getAttribute(base, path.substr(dot + 1), loc);
  }
  if (name == "tl") return Val::ns("tl");
  if (name == "triton") return Val::ns("triton");
  static const std::set<std::string> pyBuiltins = {"range", "min", "max", "len", "int", "float", "bool",
                                                   "abs", "print", "isinstance", "getattr"};
  if (pyBuiltins.count(name)) return Val::builtin("py." + name);
  if (prog.hostFunctions.count(name))
    fail(loc, fmt::format("'{}' is a host function; kernels can only call @triton.jit functions", name));
  if (name == "__fstr__")   // the lexer's desugaring of an f-string
    fail(loc, "f-strings are host code: not supported in kernels (pass the values to tl.device_print: "
              "tl.device_print(\"x\", x))");
  fail(loc, fmt::format("unknown name '{}'", name));
}

std::pair<ir::Value *, ir::Value *> Lowerer::selectArms(const Val &a, const Val &b, Location loc, Location locA,
                                                        Location locB, const char *what) {
  if (!a.isIR() || !b.isIR() || (!a.v->type.elem.isPtr && !b.v->type.elem.isPtr)) return promote(a, b, loc);
  // pointers pick between pointers of one element type, unconverted
  ir::Value *x = a.v, *y = b.v;
  if (x->type.elem != y->type.elem)
    fail(loc, fmt::format("{} between {} and {}: both must be pointers of one type", what, x->type.elem.str(),
                          y->type.elem.str()));
  std::vector<int64_t> both = broadcastShapes(x->type.shape, y->type.shape, loc, "value");
  return {broadcastTo(x, both, locA), broadcastTo(y, both, locB)};
}

/// A conditional expression with a runtime condition. Each branch is
/// lowered into a region of an `if`; when both give values and neither has
/// side effects, their ops move out again and the result is a `select` of
/// the promoted values. Branches with effects (calls of helpers that store,
/// print, ...) stay an `if`, as Triton lowers them: it has no results when
/// both return nothing, else one result of their common type.
Val Lowerer::lowerIfExp(const ast::IfExpExpr &ie, ir::Value *cond) {
  ir::Block *parent = b.block();
  ir::Op *ifOp = at(ie.loc).create(OpKind::If, {cond}, {});
  ir::Block *blocks[2] = {ifOp->regions[0]->block.get(), ifOp->regions[1]->block.get()};
  const ast::Expr *branches[2] = {ie.body.get(), ie.orelse.get()};
  Val v[2];
  bool pure = true;
  for (int k = 0; k < 2; ++k) {
    b.setInsertionPointToEnd(blocks[k]);
    v[k] = lowerExpr(*branches[k]);
    for (const auto &op : blocks[k]->ops) pure &= !op->hasSideEffects() && op->regions.empty();
  }
  bool none[2] = {v[0].isConst() && v[0].c.isNone(), v[1].isConst() && v[1].c.isNone()};
  if (pure && !none[0] && !none[1]) {
    TILE_ASSERT(parent->ops.back().get() == ifOp, "the if of a conditional expression moved");
    for (ir::Block *blk : blocks) {
      for (auto &op : blk->ops) op->parent = parent;
      parent->ops.splice(std::prev(parent->ops.end()), blk->ops);
    }
    parent->ops.pop_back();
    b.setInsertionPointToEnd(parent);
    auto [px, py] = selectArms(v[0], v[1], ie.loc, branches[0]->loc, branches[1]->loc, "conditional expression");
    ir::Value *cc = px->type.isTensor() ? broadcastTo(cond, px->type.shape, ie.loc) : cond;
    return Val::ir(at(ie.loc).select(cc, px, py));
  }
  if (none[0] != none[1])
    fail(ie.loc, fmt::format("one branch of a conditional expression with a runtime condition gives None, the "
                             "other {}", typeName(none[0] ? v[1] : v[0])));
  std::vector<ir::Value *> yields[2];
  if (!none[0]) {
    for (int k = 0; k < 2; ++k)
      if (!v[k].isIR() && !(v[k].isConst() && isNumber(v[k].c)))
        fail(branches[k]->loc, fmt::format("a conditional expression with a runtime condition needs numbers or "
                                           "tensors in its branches, got {}", typeName(v[k])));
    ElemType t = v[0].isIR() ? valElemType(v[0]) : v[1].isIR() ? valElemType(v[1]) : valElemType(v[0]);
    if (!v[0].isIR() && !v[1].isIR() && (v[0].c.isFloat() || v[1].c.isFloat())) t = ElemType::of(Scalar::F32);
    for (int k = 0; k < 2; ++k) {
      b.setInsertionPointToEnd(blocks[k]);
      yields[k].push_back(v[k].isIR() ? v[k].v : toIRAs(v[k], t, ie.loc));
    }
    if (yields[0][0]->type != yields[1][0]->type)
      fail(ie.loc, fmt::format("conditional expression with a runtime condition has inconsistent types {} and {}",
                               yields[0][0]->type.str(), yields[1][0]->type.str()));
  }
  for (int k = 0; k < 2; ++k) {
    b.setInsertionPointToEnd(blocks[k]);
    at(ie.loc).yield(yields[k]);
  }
  b.setInsertionPointToEnd(parent);
  if (none[0]) return Val::constant(ConstValue());
  return Val::ir(ifOp->addResult(yields[0][0]->type));
}

Val Lowerer::lowerExpr(const ast::Expr &e) {
  if (++opBudget > kMaxOps * 4) fail(e.loc, "kernel too large: expression evaluation limit reached");
  return lowerExprImpl(e);
}

Val Lowerer::lowerExprImpl(const ast::Expr &e) {
  switch (e.kind) {
  case ExprKind::Name: return lookupName(static_cast<const ast::NameExpr &>(e).id, e.loc);
  case ExprKind::Int: {
    auto &i = static_cast<const ast::IntExpr &>(e);
    if (i.isUnsigned64) fail(e.loc, "integer literal does not fit in 64 bits");
    return Val::constant(i.value);
  }
  case ExprKind::Float: return Val::constant(static_cast<const ast::FloatExpr &>(e).value);
  case ExprKind::Str: return Val::constant(static_cast<const ast::StrExpr &>(e).value);
  case ExprKind::Bool: return Val::constant(static_cast<const ast::BoolExpr &>(e).value);
  case ExprKind::None: return Val::constant(ConstValue());
  case ExprKind::Attribute: {
    auto &a = static_cast<const ast::AttributeExpr &>(e);
    return getAttribute(lowerExpr(*a.value), a.attr, e.loc);
  }
  case ExprKind::Subscript: {
    auto &s = static_cast<const ast::SubscriptExpr &>(e);
    return subscript(lowerExpr(*s.value), *s.index, e.loc);
  }
  case ExprKind::Call: return call(static_cast<const ast::CallExpr &>(e));
  case ExprKind::BinOp: {
    auto &bo = static_cast<const ast::BinOpExpr &>(e);
    Val l = lowerExpr(*bo.lhs);
    Val r = lowerExpr(*bo.rhs);
    return binaryOp(bo.op, l, r, e.loc);
  }
  case ExprKind::UnaryOp: {
    auto &u = static_cast<const ast::UnaryOpExpr &>(e);
    return unaryOp(u.op, lowerExpr(*u.operand), e.loc);
  }
  case ExprKind::BoolOp: {
    auto &bo = static_cast<const ast::BoolOpExpr &>(e);
    bool isAnd = bo.op == ast::BoolOpKind::And;
    Val acc = lowerExpr(*bo.values[0]);
    for (size_t i = 1; i < bo.values.size(); ++i) {
      if (acc.isConst()) { // Python short-circuit on constexprs
        if (isTruthyConst(acc, e.loc) != isAnd) return acc;
        acc = lowerExpr(*bo.values[i]);
        continue;
      }
      Val next = lowerExpr(*bo.values[i]);
      if (next.isConst() && !isTruthyConst(next, e.loc) && isAnd) { acc = next; continue; }
      ir::Value *x = toCondition(acc, e.loc, "operand of 'and'/'or'");
      ir::Value *y = toCondition(next, bo.values[i]->loc, "operand of 'and'/'or'");
      auto [px, py] = promote(Val::ir(x), Val::ir(y), e.loc);
      acc = Val::ir(at(e.loc).binary(isAnd ? OpKind::And : OpKind::Or, px, py));
    }
    return acc;
  }
  case ExprKind::Compare: {
    auto &c = static_cast<const ast::CompareExpr &>(e);
    Val left = lowerExpr(*c.left);
    Val result;
    for (size_t i = 0; i < c.ops.size(); ++i) {
      Val right = lowerExpr(*c.comparators[i]);
      Val r = compareOp(c.ops[i], left, right, c.opLocs.size() > i ? c.opLocs[i] : e.loc);
      result = i == 0 ? r : binaryOp(BinOpKind::BitAnd, result, r, e.loc);
      left = right;
    }
    return result;
  }
  case ExprKind::IfExp: {
    auto &ie = static_cast<const ast::IfExpExpr &>(e);
    Val test = lowerExpr(*ie.test);
    if (test.isConst()) return lowerExpr(isTruthyConst(test, e.loc) ? *ie.body : *ie.orelse);
    return lowerIfExp(ie, toCondition(test, ie.test->loc, "condition"));
  }
  case ExprKind::Tuple:
  case ExprKind::List: {
    const auto &elts = e.kind == ExprKind::Tuple ? static_cast<const ast::TupleExpr &>(e).elts
                                                 : static_cast<const ast::ListExpr &>(e).elts;
    std::vector<Val> vals;
    bool allConst = true;
    for (const auto &x : elts) {
      vals.push_back(lowerExpr(*x));
      allConst &= vals.back().isConst();
    }
    if (allConst) {
      ConstTuple t;
      for (Val &v : vals) t.push_back(v.c);
      return Val::constant(std::move(t));
    }
    return Val::tuple(std::move(vals));
  }
  case ExprKind::Slice:
  case ExprKind::Ellipsis: fail(e.loc, "a slice is only allowed inside a subscript");
  case ExprKind::Dict: fail(e.loc, "dict literals are not supported in kernels");
  case ExprKind::Lambda: fail(e.loc, "lambda is not supported in kernels");
  case ExprKind::Comprehension:
    fail(e.loc, "comprehensions are host code: not supported in kernels (Triton's @jit rejects them too); "
                "write a loop, or build the tuple on the host and pass its items");
  }
  fail(e.loc, "unsupported expression");
}

Val Lowerer::subscript(const Val &base, const ast::Expr &index, Location loc) {
  if (base.kind == Val::Kind::Tuple || (base.isConst() && std::holds_alternative<ConstTuple>(base.c.v))) {
    Val idx = lowerExpr(index);
    if (!idx.isConst() || !idx.c.isInt()) fail(index.loc, "tuple index must be a constexpr integer");
    int64_t i = std::get<int64_t>(idx.c.v);
    size_t n = base.isConst() ? std::get<ConstTuple>(base.c.v).size() : base.elts.size();
    if (i < 0) i += static_cast<int64_t>(n);
    if (i < 0 || i >= static_cast<int64_t>(n)) fail(index.loc, fmt::format("tuple index {} out of range (size {})", i, n));
    return base.isConst() ? Val::constant(std::get<ConstTuple>(base.c.v)[i]) : base.elts[i];
  }
  if (!base.isIR()) fail(loc, fmt::format("{} is not subscriptable", typeName(base)));
  std::vector<const ast::Expr *> items;
  if (index.kind == ExprKind::Tuple)
    for (const auto &x : static_cast<const ast::TupleExpr &>(index).elts) items.push_back(x.get());
  else
    items.push_back(&index);
  ir::Value *v = base.v;
  int dim = 0, rank = v->type.rank();
  int consumed = 0;
  for (const ast::Expr *it : items)
    if (it->kind == ExprKind::Slice) ++consumed;
  for (const ast::Expr *it : items) {
    if (it->kind == ExprKind::None) {
      if (!v->type.isTensor()) v = at(it->loc).splat(v, {1});
      else v = at(it->loc).expandDims(v, dim);
      ++dim;
      continue;
    }
    if (it->kind == ExprKind::Ellipsis) {
      dim += rank - consumed;
      continue;
    }
    if (it->kind == ExprKind::Slice) {
      auto &s = static_cast<const ast::SliceExpr &>(*it);
      if (s.lower || s.upper || s.step) fail(it->loc, "only ':' slices are supported on tensors");
      if (dim >= v->type.rank()) fail(it->loc, fmt::format("too many indices for a tensor of rank {}", rank));
      ++dim;
      continue;
    }
    fail(it->loc, "tensors can only be indexed with ':' and None (use tl.where or masks to select elements)");
  }
  if (consumed > rank) fail(loc, fmt::format("too many indices for a tensor of rank {}", rank));
  return Val::ir(v);
}

/// Names that Triton's language has and tile does not, with what they are:
/// a `not supported` diagnostic instead of "no attribute" (docs/language.md
/// lists what is supported).
/// Triton's other fp8 dtypes (float8e4nv and float8e5 are scalars,
/// support/DType.h): names tile can compare and introspect, not compute
/// with (float8e4b8 and float8e5b16 are AMD's; float8e4b15 is the pre-sm_89
/// emulated format).
static bool isFp8Name(const std::string &n) { return n == "float8e5b16" || n == "float8e4b8" || n == "float8e4b15"; }

static const char *notSupportedTritonName(const std::string &ns, const std::string &attr) {
  static const std::map<std::string, const char *> tl = {
      {"tensor_descriptor", "tensor descriptors as kernel arguments"},
      {"dot_scaled", "scaled (microscaling) dots"},
      {"philox", "the raw Philox generator; use tl.randint4x"}, {"philox_impl", "the raw Philox generator; use tl.randint4x"},
      {"pair_uniform_to_normal", "random helpers; use tl.randn"}, {"uint_to_uniform_float", "random helpers; use tl.rand"},
      {"map_elementwise", "elementwise maps"}, {"range_with_hints", "loop hints"}, {"condition", "loop hints"},
      {"num_threads", "thread-level queries"}, {"num_warps", "warp-level queries"}, {"reduce_or", "or-reductions"},
      {"bfloat16x2", "packed types"}};
  if (ns == "tl") {
    auto it = tl.find(attr);
    return it == tl.end() ? nullptr : it->second;
  }
  return nullptr;
}

/// Attributes of a dtype, block type or fp8 type (Triton's dtype,
/// pointer_type and block_type): element_ty, scalar, shape, numel,
/// primitive_bitwidth, and the is_* predicates (called as methods).
static Val dtypeAttribute(const Val &base, const DTypeValue &d, const std::string &attr, Location loc) {
  if (attr == "scalar") return Val::constant(DTypeValue{d.type, {}, d.fp8});
  if (attr == "element_ty") {
    if (d.isBlock()) return Val::constant(DTypeValue{d.type});
    if (d.type.isPtr && d.fp8.empty()) return Val::constant(DTypeValue{ElemType::of(d.type.scalar)});
  }
  if (d.isBlock() && (attr == "shape" || attr == "numel")) {
    ConstTuple t;
    int64_t n = 1;
    for (int64_t x : d.shape) t.push_back(x), n *= x;
    return attr == "shape" ? Val::constant(std::move(t)) : Val::constant(n);
  }
  if (attr == "primitive_bitwidth") return Val::constant(int64_t(d.fp8.empty() ? bitWidth(d.type.scalar) : 8));
  if (attr == "name" && !d.isBlock())
    return Val::constant(d.fp8.empty() ? std::string(tritonDTypeName(d.type.scalar)) : d.fp8);
  static const std::set<std::string> predicates = {
      "is_floating", "is_int", "is_ptr", "is_block", "is_fp8", "is_fp16", "is_bf16", "is_fp32", "is_fp64",
      "is_bool", "is_int_signed", "is_int_unsigned", "is_standard_floating", "is_void"};
  if (predicates.count(attr)) return Val::method(base, "dtype." + attr);
  fail(loc, fmt::format("'{}' has no attribute '{}'", ConstValue(d).repr(), attr));
}

/// The value of a dtype predicate (dtype.is_fp16() ...).
static bool dtypePredicate(const DTypeValue &d, const std::string &pred) {
  const ElemType &t = d.type;
  bool fp8 = !d.fp8.empty() || (!t.isPtr && isFp8(t.scalar)), plain = !t.isPtr && d.fp8.empty();
  if (pred == "is_block") return d.isBlock();
  if (pred == "is_ptr") return t.isPtr && !fp8;
  if (pred == "is_fp8") return fp8;
  if (pred == "is_floating") return fp8 || (plain && t.isFloat());
  if (pred == "is_int") return plain && t.isInt();
  if (pred == "is_bool") return plain && t.scalar == Scalar::I1;
  if (pred == "is_int_signed") return plain && t.isInt() && t.scalar != Scalar::I1 && isSigned(t.scalar);
  if (pred == "is_int_unsigned") return plain && t.isInt() && (t.scalar == Scalar::I1 || !isSigned(t.scalar));
  if (pred == "is_standard_floating")
    return plain && (t.scalar == Scalar::F16 || t.scalar == Scalar::F32 || t.scalar == Scalar::F64);
  if (pred == "is_void") return false;
  static const std::map<std::string, Scalar> exact = {
      {"is_fp16", Scalar::F16}, {"is_bf16", Scalar::BF16}, {"is_fp32", Scalar::F32}, {"is_fp64", Scalar::F64}};
  auto it = exact.find(pred);
  return it != exact.end() && plain && t.scalar == it->second;
}

Val Lowerer::getAttribute(const Val &base, const std::string &attr, Location loc) {
  if (base.kind == Val::Kind::Namespace) {
    const std::string &ns = base.name;
    if (ns == "triton" && attr == "language") return Val::ns("tl");
    if (ns == "tl" && (attr == "extra" || attr == "cuda" || attr == "core" || attr == "standard")) return Val::ns("tl");
    // tl.math and libdevice hold everything in tl plus the tl.math.* builtins
    // (tanh, pow) that Triton has only there.
    if (ns == "tl" && attr == "math") return Val::ns("tl.math");
    // libdevice: Triton's CUDA libdevice list (ir/Libdevice.h).
    if (ns == "tl" && attr == "libdevice") return Val::ns("libdevice");
    if (ns == "libdevice") {
      if (ir::findLibdeviceFn(attr)) return Val::builtin("libdevice." + attr);
      fail(loc, fmt::format("libdevice has no function '{}'", attr));
    }
    if (ns == "tl" && attr == "PropagateNan") return Val::ns("tl.PropagateNan");
    if (ns == "tl.PropagateNan" && (attr == "NONE" || attr == "ALL"))
      return Val::constant(int64_t(attr == "ALL" ? 0xffff : 0));   // Triton's enum values
    if (auto s = parseTritonDTypeName(attr); s && ns == "tl")
      return Val::constant(DTypeValue{ElemType::of(*s)});
    if (ns == "tl" && attr == "pi32_t") return Val::constant(DTypeValue{ElemType::ptrTo(Scalar::I32)});
    if (ns == "tl" && isFp8Name(attr)) return Val::constant(DTypeValue{ElemType::of(Scalar::F32), {}, attr});
    std::string q = ns + "." + attr;
    if (isBuiltinName(q)) return Val::builtin(q);
    if (ns == "tl.math" && !isBuiltinName("tl." + attr))
      fail(loc, fmt::format("module 'triton.language.math' has no attribute '{}'{}", attr,
                            ir::findLibdeviceFn(attr) ? fmt::format("; use libdevice.{}", attr) : ""));
    if (ns == "tl.math") return getAttribute(Val::ns("tl"), attr, loc);
    if (ns == "tl" && isBuiltinName("tl.math." + attr))
      fail(loc, fmt::format("module 'triton.language' has no attribute '{}'; use tl.extra.cuda.libdevice.{}",
                            attr, attr));
    if (const char *what = notSupportedTritonName(ns, attr))
      fail(loc, fmt::format("not supported: {}.{} ({})", ns == "tl.math" ? "libdevice" : ns, attr, what));
    fail(loc, fmt::format("module '{}' has no attribute '{}'", ns == "tl" ? "triton.language" : ns, attr));
  }
  if (base.isConst()) {
    if (auto *d = std::get_if<DTypeValue>(&base.c.v)) return dtypeAttribute(base, *d, attr, loc);
    if (attr == "value") return base; // tl.constexpr(x).value
    // A Python number in a kernel is one of Triton's scalars: its dtype is
    // the one it materializes as, and the tensor methods (x.to(tl.int64))
    // apply to that scalar.
    if (isNumber(base.c)) {
      if (attr == "dtype" || attr == "type") return Val::constant(DTypeValue{valElemType(base)});
      if (isBuiltinName("tl." + attr) || attr == "to") return Val::method(Val::ir(toIR(base, loc)), attr);
    }
    fail(loc, fmt::format("'{}' has no attribute '{}'", typeName(base), attr));
  }
  if (base.isIR()) {
    ir::Value *v = base.v;
    if (attr == "dtype") return Val::constant(DTypeValue{v->type.elem});
    if (attr == "type") return Val::constant(DTypeValue{v->type.elem, v->type.shape});
    if (attr == "shape") {
      ConstTuple t;
      for (int64_t d : v->type.shape) t.push_back(d);
      return Val::constant(std::move(t));
    }
    if (attr == "numel") return Val::constant(v->type.numElements());
    if (attr == "T") {
      if (v->type.rank() != 2) fail(loc, fmt::format(".T needs a 2-D tensor, got {}", v->type.str()));
      return Val::ir(at(loc).permute(v, {1, 0}));
    }
    if (isBuiltinName("tl." + attr) || attr == "to") return Val::method(base, attr);
    fail(loc, fmt::format("tensor has no attribute '{}'", attr));
  }
  if (blockptr::isDescriptor(base) && (attr == "load" || attr == "store"))
    return Val::method(base, attr + "_tensor_descriptor");
  if (base.kind == Val::Kind::BlockPtr && !blockptr::isDescriptor(base) && attr == "advance")
    return Val::method(base, attr);
  fail(loc, fmt::format("{} has no attribute '{}'", typeName(base), attr));
}

Val Lowerer::call(const ast::CallExpr &c) {
  Val callee = lowerExpr(*c.func);
  return callValue(callee, c);
}

Val Lowerer::callValue(const Val &callee, const ast::CallExpr &c) {
  switch (callee.kind) {
  case Val::Kind::JitFunction: return callJit(*callee.fn, c);
  case Val::Kind::Builtin:
    if (callee.name.rfind("libdevice.", 0) == 0) return callLibdevice(callee.name.substr(10), c);
    return callBuiltin(callee.name, c, nullptr);
  case Val::Kind::Method: {
    if (callee.name.rfind("dtype.", 0) == 0)
      return Val::constant(dtypePredicate(std::get<DTypeValue>(callee.elts[0].c.v), callee.name.substr(6)));
    std::string name = callee.name == "to" ? "tl.cast" : "tl." + callee.name;
    return callBuiltin(name, c, &callee.elts[0]);
  }
  default: break;
  }
  fail(c.loc, fmt::format("{} is not callable", typeName(callee)));
}

} // namespace tile::sema
