// Elementwise.cpp - the interpreter's elementwise ops: constants and
// indices, casts, binary and unary arithmetic, comparisons, select, addptr
// and fma. Every float result is rounded to its element type and every int
// result wrapped to its width right after the op, so add/sub/mul/div/sqrt
// match a GPU bit for bit.
//
// Operands of one elementwise op have equal shapes (sema inserts
// broadcasts); as a courtesy to hand-built IR a one-element operand is
// repeated across the result.
#include "interp/Machine.h"

#include <fmt/format.h>

#include <bit>
#include <limits>

namespace tile::interp::detail {

using ir::OpKind;

namespace {

/// Stride of an operand: 0 repeats a one-element operand.
int64_t strideOf(const Machine &m, const ExecOp &e, int k) { return m.inInfo(e, k).n == 1 ? 0 : 1; }

const char *kindName(const ExecOp &e) { return ir::opName(e.op->kind); }

[[noreturn]] void badType(const Machine &m, const ExecOp &e, ElemType t) {
  m.error(*e.op, fmt::format("'{}' does not support operands of type {}", kindName(e), t.str()));
}

/// r[k] = round(f(a[k], b[k])) over the result's float type.
template <typename F> void floatBinary(Machine &m, ExecOp &e, F f) {
  const double *a = m.in(e, 0).f.data(), *b = m.in(e, 1).f.data();
  int64_t sa = strideOf(m, e, 0), sb = strideOf(m, e, 1), n = m.outInfo(e).n;
  Scalar s = m.outInfo(e).elem.scalar;
  double *r = m.out(e).f.data();
  if (s == Scalar::F64) {
    for (int64_t k = 0; k < n; ++k)
      r[k] = f(a[k * sa], b[k * sb]);
  } else if (s == Scalar::F32) {
    for (int64_t k = 0; k < n; ++k)
      r[k] = static_cast<float>(f(a[k * sa], b[k * sb]));
  } else {
    for (int64_t k = 0; k < n; ++k)
      r[k] = roundToFloatType(f(a[k * sa], b[k * sb]), s);
  }
}

/// r[k] = wrap(f(a[k], b[k])) over the result's int type.
template <typename F> void intBinary(Machine &m, ExecOp &e, F f) {
  const int64_t *a = m.in(e, 0).i.data(), *b = m.in(e, 1).i.data();
  int64_t sa = strideOf(m, e, 0), sb = strideOf(m, e, 1), n = m.outInfo(e).n;
  Scalar s = m.outInfo(e).elem.scalar;
  int64_t *r = m.out(e).i.data();
  if (s == Scalar::I64 || s == Scalar::U64) {
    for (int64_t k = 0; k < n; ++k)
      r[k] = f(a[k * sa], b[k * sb]);
    return;
  }
  for (int64_t k = 0; k < n; ++k)
    r[k] = wrapToIntType(f(a[k * sa], b[k * sb]), s);
}

int64_t u2i(uint64_t v) { return static_cast<int64_t>(v); }

/// With checkOffsetOverflow (the default): the exact i32 result of add/sub/mul/shl (the
/// operands are sign-extended, so it fits in int64) must fit in int32.
void checkI32Overflow(Machine &m, ExecOp &e) {
  if (!e.checkOverflow || e.warned)
    return;
  const int64_t *a = m.in(e, 0).i.data(), *b = m.in(e, 1).i.data();
  int64_t sa = strideOf(m, e, 0), sb = strideOf(m, e, 1), n = m.outInfo(e).n;
  OpKind kind = e.op->kind;
  for (int64_t k = 0; k < n; ++k) {
    int64_t x = a[k * sa], y = b[k * sb], exact = 0;
    const char *sym = "+";
    switch (kind) {
    case OpKind::Add: exact = x + y; break;
    case OpKind::Sub: exact = x - y, sym = "-"; break;
    case OpKind::Mul: exact = x * y, sym = "*"; break;
    default: // shl: amounts outside [0, 32) give 0 by definition, no overflow
      if (y < 0 || y >= 32)
        continue;
      exact = x * (int64_t(1) << y), sym = "<<";
      break;
    }
    if (exact == static_cast<int32_t>(exact))
      continue;
    e.warned = true;
    std::string msg = fmt::format("int32 overflow in a pointer offset in kernel '{}' ({}{}): {} {} {} = {} "
                                  "does not fit in int32 and wraps around; compute the offset in int64",
                                  m.fn.name, m.opts.strict ? "" : "first at ", m.where(), x, sym, y, exact);
    if (m.opts.strict) m.error(*e.op, msg);
    m.warn(*e.op, msg);
    return;
  }
}

/// Integer division by zero is undefined on the GPU. It happens in
/// legitimate kernels on lanes whose loads were masked off (and whose
/// results are never stored), so it is a warning, once per op, not an
/// error; those lanes get -1 (div) or the dividend (rem).
void divByZero(Machine &m, ExecOp &e) {
  if (e.warned)
    return;
  e.warned = true;
  m.warn(*e.op, fmt::format("integer {} by zero in kernel '{}' ({}); the lanes get {} (undefined on a GPU)",
                            e.op->kind == OpKind::Div ? "division" : "remainder", m.fn.name, m.where(),
                            e.op->kind == OpKind::Div ? "-1" : "the dividend"));
}

/// min/max for floats, Triton's default (PropagateNan.NONE, PTX min/max):
/// a NaN operand yields the other operand; -0 counts as less than +0.
double floatMin(double a, double b) {
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == b)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
double floatMax(double a, double b) {
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == b)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
/// With propagate_nan = true (PropagateNan.ALL) a NaN operand yields NaN.
double floatMinNaN(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? std::numeric_limits<double>::quiet_NaN() : floatMin(a, b);
}
double floatMaxNaN(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? std::numeric_limits<double>::quiet_NaN() : floatMax(a, b);
}
bool propagatesNaN(const ir::Op &op) { return op.hasAttr("propagate_nan") && op.boolAttr("propagate_nan"); }

void floatArith(Machine &m, ExecOp &e) {
  switch (e.op->kind) {
  case OpKind::Add: return floatBinary(m, e, [](double a, double b) { return a + b; });
  case OpKind::Sub: return floatBinary(m, e, [](double a, double b) { return a - b; });
  case OpKind::Mul: return floatBinary(m, e, [](double a, double b) { return a * b; });
  case OpKind::Div: return floatBinary(m, e, [](double a, double b) { return a / b; });
  case OpKind::Rem: return floatBinary(m, e, [](double a, double b) { return std::fmod(a, b); });
  case OpKind::Pow: return floatBinary(m, e, [](double a, double b) { return std::pow(a, b); });
  case OpKind::Min: return propagatesNaN(*e.op) ? floatBinary(m, e, floatMinNaN) : floatBinary(m, e, floatMin);
  case OpKind::Max: return propagatesNaN(*e.op) ? floatBinary(m, e, floatMaxNaN) : floatBinary(m, e, floatMax);
  default: badType(m, e, m.outInfo(e).elem);
  }
}

void signedArith(Machine &m, ExecOp &e, int bits) {
  switch (e.op->kind) {
  case OpKind::Div:
    return intBinary(m, e, [&](int64_t a, int64_t b) {
      if (b == 0)
        return divByZero(m, e), int64_t(-1);
      return b == -1 ? u2i(0 - uint64_t(a)) : a / b; // INT_MIN / -1 wraps
    });
  case OpKind::Rem:
    return intBinary(m, e, [&](int64_t a, int64_t b) {
      if (b == 0)
        return divByZero(m, e), a;
      return b == -1 ? 0 : a % b;
    });
  case OpKind::Shr:
    // Amounts are read as unsigned: negative or >= width gives the sign.
    return intBinary(m, e, [bits](int64_t a, int64_t b) {
      uint64_t amount = uint64_t(b) & (bits == 64 ? ~0ULL : (1ULL << bits) - 1);
      return a >> (amount >= uint64_t(bits) ? 63 : amount);
    });
  case OpKind::Min: return intBinary(m, e, [](int64_t a, int64_t b) { return a < b ? a : b; });
  case OpKind::Max: return intBinary(m, e, [](int64_t a, int64_t b) { return a > b ? a : b; });
  default: TILE_ASSERT(false, "unexpected signed op");
  }
}

void unsignedArith(Machine &m, ExecOp &e, int bits) {
  switch (e.op->kind) {
  case OpKind::Div:
    return intBinary(m, e, [&](int64_t a, int64_t b) {
      if (b == 0)
        return divByZero(m, e), int64_t(-1);
      return u2i(uint64_t(a) / uint64_t(b));
    });
  case OpKind::Rem:
    return intBinary(m, e, [&](int64_t a, int64_t b) {
      if (b == 0)
        return divByZero(m, e), a;
      return u2i(uint64_t(a) % uint64_t(b));
    });
  case OpKind::Shr:
    return intBinary(m, e, [bits](int64_t a, int64_t b) {
      return uint64_t(b) >= uint64_t(bits) ? 0 : u2i(uint64_t(a) >> b);
    });
  case OpKind::Min: return intBinary(m, e, [](int64_t a, int64_t b) { return uint64_t(a) < uint64_t(b) ? a : b; });
  case OpKind::Max: return intBinary(m, e, [](int64_t a, int64_t b) { return uint64_t(a) > uint64_t(b) ? a : b; });
  default: TILE_ASSERT(false, "unexpected unsigned op");
  }
}

void intArith(Machine &m, ExecOp &e) {
  ElemType t = m.outInfo(e).elem;
  int bits = bitWidth(t.scalar);
  switch (e.op->kind) {
  case OpKind::Add:
    checkI32Overflow(m, e);
    return intBinary(m, e, [](int64_t a, int64_t b) { return u2i(uint64_t(a) + uint64_t(b)); });
  case OpKind::Sub:
    checkI32Overflow(m, e);
    return intBinary(m, e, [](int64_t a, int64_t b) { return u2i(uint64_t(a) - uint64_t(b)); });
  case OpKind::Mul:
    checkI32Overflow(m, e);
    return intBinary(m, e, [](int64_t a, int64_t b) { return u2i(uint64_t(a) * uint64_t(b)); });
  case OpKind::And: return intBinary(m, e, [](int64_t a, int64_t b) { return a & b; });
  case OpKind::Or: return intBinary(m, e, [](int64_t a, int64_t b) { return a | b; });
  case OpKind::Xor: return intBinary(m, e, [](int64_t a, int64_t b) { return a ^ b; });
  case OpKind::Shl:
    checkI32Overflow(m, e);
    // The amount is read as unsigned; >= width shifts everything out.
    return intBinary(m, e, [bits](int64_t a, int64_t b) {
      uint64_t amount = uint64_t(b) & (bits == 64 ? ~0ULL : (1ULL << bits) - 1);
      return amount >= uint64_t(bits) ? 0 : u2i(uint64_t(a) << amount);
    });
  default:
    if (isSigned(t.scalar))
      return signedArith(m, e, bits);
    return unsignedArith(m, e, bits);
  }
}

void binaryOp(Machine &m, ExecOp &e) {
  ElemType t = m.outInfo(e).elem;
  if (t.isPtr)
    badType(m, e, t);
  if (t.isFloat())
    return floatArith(m, e);
  intArith(m, e);
}

/// r[k] = round(f(x[k])) for float unary ops.
template <typename F> void floatUnary(Machine &m, ExecOp &e, F f) {
  const double *x = m.in(e, 0).f.data();
  int64_t n = m.outInfo(e).n;
  Scalar s = m.outInfo(e).elem.scalar;
  double *r = m.out(e).f.data();
  for (int64_t k = 0; k < n; ++k)
    r[k] = roundFloat(f(x[k]), s);
}

template <typename F> void intUnary(Machine &m, ExecOp &e, F f) {
  const int64_t *x = m.in(e, 0).i.data();
  int64_t n = m.outInfo(e).n;
  Scalar s = m.outInfo(e).elem.scalar;
  int64_t *r = m.out(e).i.data();
  for (int64_t k = 0; k < n; ++k)
    r[k] = wrapToIntType(f(x[k]), s);
}

// Transcendentals are computed in double and rounded once; they need not
// match the GPU's approximations bit for bit.
void floatUnaryOp(Machine &m, ExecOp &e) {
  switch (e.op->kind) {
  case OpKind::Neg: return floatUnary(m, e, [](double x) { return -x; });
  case OpKind::Abs: return floatUnary(m, e, [](double x) { return std::fabs(x); });
  case OpKind::Exp: return floatUnary(m, e, [](double x) { return std::exp(x); });
  case OpKind::Exp2: return floatUnary(m, e, [](double x) { return std::exp2(x); });
  case OpKind::Log: return floatUnary(m, e, [](double x) { return std::log(x); });
  case OpKind::Log2: return floatUnary(m, e, [](double x) { return std::log2(x); });
  case OpKind::Sqrt: return floatUnary(m, e, [](double x) { return std::sqrt(x); });
  case OpKind::Rsqrt: return floatUnary(m, e, [](double x) { return 1.0 / std::sqrt(x); });
  case OpKind::Sin: return floatUnary(m, e, [](double x) { return std::sin(x); });
  case OpKind::Cos: return floatUnary(m, e, [](double x) { return std::cos(x); });
  case OpKind::Floor: return floatUnary(m, e, [](double x) { return std::floor(x); });
  case OpKind::Ceil: return floatUnary(m, e, [](double x) { return std::ceil(x); });
  case OpKind::Erf: return floatUnary(m, e, [](double x) { return std::erf(x); });
  case OpKind::Tanh: return floatUnary(m, e, [](double x) { return std::tanh(x); });
  default: badType(m, e, m.outInfo(e).elem);
  }
}

void unaryOp(Machine &m, ExecOp &e) {
  ElemType t = m.outInfo(e).elem;
  if (t.isPtr)
    badType(m, e, t);
  if (t.isFloat())
    return floatUnaryOp(m, e);
  bool sgn = isSigned(t.scalar);
  switch (e.op->kind) {
  case OpKind::Neg: return intUnary(m, e, [](int64_t x) { return u2i(0 - uint64_t(x)); });
  case OpKind::Not: return intUnary(m, e, [](int64_t x) { return ~x; }); // i1: wraps to !x
  case OpKind::Abs: return intUnary(m, e, [sgn](int64_t x) { return sgn && x < 0 ? u2i(0 - uint64_t(x)) : x; });
  default: badType(m, e, t);
  }
}

// ---- casts

/// Float -> int: toward zero, saturating at the type's range, NaN -> 0 (PTX
/// cvt.rzi.sat). Float -> i1 is `!= 0` (so NaN -> 1).
int64_t floatToInt(double v, Scalar to) {
  if (to == Scalar::I1)
    return v != 0.0;
  if (std::isnan(v))
    return 0;
  double t = std::trunc(v);
  if (to == Scalar::U64) {
    if (t <= 0)
      return 0;
    return t >= 18446744073709551616.0 ? -1 : u2i(static_cast<uint64_t>(t));
  }
  if (to == Scalar::I64) {
    if (t >= 9223372036854775808.0)
      return std::numeric_limits<int64_t>::max();
    return t < -9223372036854775808.0 ? std::numeric_limits<int64_t>::min() : static_cast<int64_t>(t);
  }
  int bits = bitWidth(to);
  double lo = isSigned(to) ? -std::ldexp(1.0, bits - 1) : 0.0;
  double hi = isSigned(to) ? std::ldexp(1.0, bits - 1) - 1 : std::ldexp(1.0, bits) - 1;
  return static_cast<int64_t>(std::clamp(t, lo, hi));
}

/// A float conversion with fp_downcast_rounding="rtz" (sema allows it from
/// f32 to f16, bf16 and e5m2, Triton's set).
double roundFloatTowardZero(double v, Scalar to) {
  switch (to) {
  case Scalar::F16: return halfBitsToFloat(floatToHalfBitsRZ(static_cast<float>(v)));
  case Scalar::BF16: return bf16BitsToFloat(floatToBF16BitsRZ(static_cast<float>(v)));
  case Scalar::F8E5M2: return fp8BitsToDouble(toFp8Bits(v, to, true), to);
  default: return roundFloat(v, to);
  }
}

/// Int -> float with one rounding for f32/f64 (C conversions). f16/bf16 go
/// through float: exact for |v| <= 2^24; beyond, f16 is infinite anyway and
/// bf16 may see a double rounding (documented limitation).
double intToFloat(int64_t v, bool fromUnsigned, Scalar to) {
  if (to == Scalar::F64)
    return fromUnsigned ? static_cast<double>(uint64_t(v)) : static_cast<double>(v);
  float f = fromUnsigned ? static_cast<float>(uint64_t(v)) : static_cast<float>(v);
  return roundFloat(f, to);
}

} // namespace

// ---- raw bits

uint64_t elementBits(const Slot &s, const SlotInfo &si, int64_t k) {
  if (!si.isFloat()) {
    int bits = si.elem.isPtr ? 64 : bitWidth(si.elem.scalar);
    uint64_t v = uint64_t(s.i[k]);
    return bits == 64 ? v : v & ((1ULL << bits) - 1);
  }
  double v = s.f[k];
  switch (si.elem.scalar) {
  case Scalar::F16: return floatToHalfBits(static_cast<float>(v));
  case Scalar::BF16: return floatToBF16Bits(static_cast<float>(v));
  case Scalar::F32: return std::bit_cast<uint32_t>(static_cast<float>(v));
  case Scalar::F8E4M3: case Scalar::F8E5M2: return toFp8Bits(v, si.elem.scalar);
  default: return std::bit_cast<uint64_t>(v);
  }
}

void setElementBits(Slot &s, ElemType e, int64_t k, uint64_t bits) {
  if (!e.isFloat()) {
    s.i[k] = e.isPtr ? u2i(bits) : wrapToIntType(u2i(bits), e.scalar);
    return;
  }
  switch (e.scalar) {
  case Scalar::F16: s.f[k] = halfBitsToFloat(static_cast<uint16_t>(bits)); break;
  case Scalar::BF16: s.f[k] = bf16BitsToFloat(static_cast<uint16_t>(bits)); break;
  case Scalar::F32: s.f[k] = std::bit_cast<float>(static_cast<uint32_t>(bits)); break;
  case Scalar::F8E4M3: case Scalar::F8E5M2: s.f[k] = fp8BitsToDouble(static_cast<uint8_t>(bits), e.scalar); break;
  default: s.f[k] = std::bit_cast<double>(bits); break;
  }
}

// ---- constants and indices

// constant {value}: an int attribute on a float type converts exactly as
// written (then rounds); a float attribute on an int type truncates.
void evalConstant(Machine &m, ExecOp &e) {
  const ir::Attr &a = e.op->attrs.at("value");
  const SlotInfo &si = m.outInfo(e);
  Slot &r = m.out(e);
  if (si.isFloat()) {
    double v = std::holds_alternative<double>(a) ? std::get<double>(a)
               : std::holds_alternative<bool>(a) ? double(std::get<bool>(a))
                                                 : double(std::get<int64_t>(a));
    std::fill(r.f.begin(), r.f.end(), roundFloat(v, si.elem.scalar));
    return;
  }
  int64_t v = std::holds_alternative<int64_t>(a) ? std::get<int64_t>(a)
              : std::holds_alternative<bool>(a)  ? int64_t(std::get<bool>(a))
                                                 : floatToInt(std::get<double>(a), Scalar::I64);
  std::fill(r.i.begin(), r.i.end(), si.elem.isPtr ? v : wrapToIntType(v, si.elem.scalar));
}

void evalArange(Machine &m, ExecOp &e) {
  int64_t start = e.op->intAttr("start");
  Scalar s = m.outInfo(e).elem.scalar;
  std::vector<int64_t> &r = m.out(e).i;
  for (size_t k = 0; k < r.size(); ++k)
    r[k] = wrapToIntType(start + int64_t(k), s);
}

namespace {
int64_t axisAttr(const Machine &m, const ExecOp &e) {
  int64_t axis = e.op->intAttr("axis");
  if (axis < 0 || axis > 2)
    m.error(*e.op, fmt::format("program axis {} is out of range [0, 3)", axis));
  return axis;
}
} // namespace

void evalProgramId(Machine &m, ExecOp &e) {
  m.out(e).i.assign(1, wrapToIntType(m.pid[axisAttr(m, e)], m.outInfo(e).elem.scalar));
}

void evalNumPrograms(Machine &m, ExecOp &e) {
  int64_t dims[3] = {m.grid.x, m.grid.y, m.grid.z};
  m.out(e).i.assign(1, wrapToIntType(dims[axisAttr(m, e)], m.outInfo(e).elem.scalar));
}

// ---- conversions

void evalCast(Machine &m, ExecOp &e) {
  const SlotInfo &from = m.inInfo(e, 0), &to = m.outInfo(e);
  const Slot &x = m.in(e, 0);
  Slot &r = m.out(e);
  int64_t n = to.n;
  // Pointers convert like u64 (addresses).
  Scalar ts = to.elem.scalar;
  if (to.isFloat() && from.isFloat()) {
    if (e.op->hasAttr("rounding") && e.op->strAttr("rounding") == "rtz") {
      for (int64_t k = 0; k < n; ++k)
        r.f[k] = roundFloatTowardZero(x.f[k], ts);
    } else if (isFp8(ts) && from.elem.scalar == Scalar::F64) {
      // as the GPU: f64 -> f32, then f32 -> fp8 (two roundings)
      for (int64_t k = 0; k < n; ++k)
        r.f[k] = roundFloat(static_cast<float>(x.f[k]), ts);
    } else {
      for (int64_t k = 0; k < n; ++k)
        r.f[k] = roundFloat(x.f[k], ts);
    }
  } else if (to.isFloat()) {
    bool uns = isUnsignedLike(from.elem);
    for (int64_t k = 0; k < n; ++k)
      r.f[k] = intToFloat(x.i[k], uns, ts);
  } else if (from.isFloat()) {
    if (to.elem.isPtr)
      badType(m, e, from.elem);
    for (int64_t k = 0; k < n; ++k)
      r.i[k] = floatToInt(x.f[k], ts);
  } else if (to.elem.isPtr) {
    std::copy(x.i.begin(), x.i.begin() + n, r.i.begin());
  } else if (ts == Scalar::I1) {
    for (int64_t k = 0; k < n; ++k)
      r.i[k] = x.i[k] != 0;
  } else {
    // int -> int: the source is already sign/zero-extended from its width.
    for (int64_t k = 0; k < n; ++k)
      r.i[k] = wrapToIntType(x.i[k], ts);
  }
}

void evalBitcast(Machine &m, ExecOp &e) {
  const SlotInfo &from = m.inInfo(e, 0), &to = m.outInfo(e);
  int fromBits = from.elem.isPtr ? 64 : bitWidth(from.elem.scalar);
  int toBits = to.elem.isPtr ? 64 : bitWidth(to.elem.scalar);
  if (fromBits != toBits)
    m.error(*e.op, fmt::format("bitcast from {} to {} changes the bit width", from.elem.str(), to.elem.str()));
  const Slot &x = m.in(e, 0);
  Slot &r = m.out(e);
  for (int64_t k = 0; k < to.n; ++k)
    setElementBits(r, to.elem, k, elementBits(x, from, k));
}

// ---- arithmetic

void evalAdd(Machine &m, ExecOp &e) { binaryOp(m, e); }
void evalSub(Machine &m, ExecOp &e) { binaryOp(m, e); }
void evalMul(Machine &m, ExecOp &e) { binaryOp(m, e); }
void evalDiv(Machine &m, ExecOp &e) { binaryOp(m, e); }
void evalRem(Machine &m, ExecOp &e) { binaryOp(m, e); }
void evalAnd(Machine &m, ExecOp &e) { binaryOp(m, e); }
void evalOr(Machine &m, ExecOp &e) { binaryOp(m, e); }
void evalXor(Machine &m, ExecOp &e) { binaryOp(m, e); }
void evalShl(Machine &m, ExecOp &e) { binaryOp(m, e); }
void evalShr(Machine &m, ExecOp &e) { binaryOp(m, e); }
void evalMin(Machine &m, ExecOp &e) { binaryOp(m, e); }
void evalMax(Machine &m, ExecOp &e) { binaryOp(m, e); }
void evalPow(Machine &m, ExecOp &e) { binaryOp(m, e); }

void evalNeg(Machine &m, ExecOp &e) { unaryOp(m, e); }
void evalNot(Machine &m, ExecOp &e) { unaryOp(m, e); }
void evalAbs(Machine &m, ExecOp &e) { unaryOp(m, e); }
void evalExp(Machine &m, ExecOp &e) { unaryOp(m, e); }
void evalExp2(Machine &m, ExecOp &e) { unaryOp(m, e); }
void evalLog(Machine &m, ExecOp &e) { unaryOp(m, e); }
void evalLog2(Machine &m, ExecOp &e) { unaryOp(m, e); }
void evalSqrt(Machine &m, ExecOp &e) { unaryOp(m, e); }
void evalRsqrt(Machine &m, ExecOp &e) { unaryOp(m, e); }
void evalSin(Machine &m, ExecOp &e) { unaryOp(m, e); }
void evalCos(Machine &m, ExecOp &e) { unaryOp(m, e); }
void evalFloor(Machine &m, ExecOp &e) { unaryOp(m, e); }
void evalCeil(Machine &m, ExecOp &e) { unaryOp(m, e); }
void evalErf(Machine &m, ExecOp &e) { unaryOp(m, e); }
void evalTanh(Machine &m, ExecOp &e) { unaryOp(m, e); }

namespace {
enum class Pred { Eq, Ne, Lt, Le, Gt, Ge };

Pred parsePred(const Machine &m, const ExecOp &e) {
  const std::string &p = e.op->strAttr("pred");
  static constexpr std::pair<const char *, Pred> kPreds[] = {{"eq", Pred::Eq}, {"ne", Pred::Ne}, {"lt", Pred::Lt},
                                                             {"le", Pred::Le}, {"gt", Pred::Gt}, {"ge", Pred::Ge}};
  for (auto [name, pred] : kPreds)
    if (p == name)
      return pred;
  m.error(*e.op, fmt::format("unknown comparison predicate '{}'", p));
}

template <typename T> bool compare(Pred p, T a, T b) {
  switch (p) {
  case Pred::Eq: return a == b;
  case Pred::Ne: return a != b; // for floats: unordered (NaN != x)
  case Pred::Lt: return a < b;
  case Pred::Le: return a <= b;
  case Pred::Gt: return a > b;
  default: return a >= b;
  }
}

template <typename T> void compareAll(Machine &m, ExecOp &e, const T *a, const T *b, Pred p) {
  int64_t sa = strideOf(m, e, 0), sb = strideOf(m, e, 1), n = m.outInfo(e).n;
  int64_t *r = m.out(e).i.data();
  for (int64_t k = 0; k < n; ++k)
    r[k] = compare(p, a[k * sa], b[k * sb]);
}
} // namespace

void evalCmp(Machine &m, ExecOp &e) {
  Pred p = parsePred(m, e);
  ElemType t = m.inInfo(e, 0).elem;
  if (t.isFloat())
    return compareAll(m, e, m.in(e, 0).f.data(), m.in(e, 1).f.data(), p);
  const int64_t *a = m.in(e, 0).i.data(), *b = m.in(e, 1).i.data();
  if (isUnsignedLike(t))
    return compareAll(m, e, reinterpret_cast<const uint64_t *>(a), reinterpret_cast<const uint64_t *>(b), p);
  compareAll(m, e, a, b, p);
}

void evalSelect(Machine &m, ExecOp &e) {
  const int64_t *c = m.in(e, 0).i.data();
  int64_t sc = strideOf(m, e, 0), sa = strideOf(m, e, 1), sb = strideOf(m, e, 2), n = m.outInfo(e).n;
  if (m.outInfo(e).isFloat()) {
    const double *a = m.in(e, 1).f.data(), *b = m.in(e, 2).f.data();
    double *r = m.out(e).f.data();
    for (int64_t k = 0; k < n; ++k)
      r[k] = c[k * sc] ? a[k * sa] : b[k * sb];
    return;
  }
  const int64_t *a = m.in(e, 1).i.data(), *b = m.in(e, 2).i.data();
  int64_t *r = m.out(e).i.data();
  for (int64_t k = 0; k < n; ++k)
    r[k] = c[k * sc] ? a[k * sa] : b[k * sb];
}

// addptr: address + offset * sizeof(pointee), wrapping in 64 bits.
void evalAddPtr(Machine &m, ExecOp &e) {
  const int64_t *p = m.in(e, 0).i.data(), *off = m.in(e, 1).i.data();
  int64_t sp = strideOf(m, e, 0), so = strideOf(m, e, 1), n = m.outInfo(e).n;
  uint64_t size = byteSize(m.outInfo(e).elem.scalar);
  int64_t *r = m.out(e).i.data();
  for (int64_t k = 0; k < n; ++k)
    r[k] = u2i(uint64_t(p[k * sp]) + uint64_t(off[k * so]) * size);
}

// fma: f32 uses fmaf (one rounding, as on the GPU); f16/bf16 compute in
// double (the product is exact) and round once more to the type, which can
// differ from a true fused f16 op in rare double-rounding ties.
void evalFma(Machine &m, ExecOp &e) {
  const SlotInfo &t = m.outInfo(e);
  int64_t sa = strideOf(m, e, 0), sb = strideOf(m, e, 1), sc = strideOf(m, e, 2), n = t.n;
  if (t.elem.isPtr)
    badType(m, e, t.elem);
  if (!t.isFloat()) {
    const int64_t *a = m.in(e, 0).i.data(), *b = m.in(e, 1).i.data(), *c = m.in(e, 2).i.data();
    int64_t *r = m.out(e).i.data();
    for (int64_t k = 0; k < n; ++k)
      r[k] = wrapToIntType(u2i(uint64_t(a[k * sa]) * uint64_t(b[k * sb]) + uint64_t(c[k * sc])), t.elem.scalar);
    return;
  }
  const double *a = m.in(e, 0).f.data(), *b = m.in(e, 1).f.data(), *c = m.in(e, 2).f.data();
  double *r = m.out(e).f.data();
  for (int64_t k = 0; k < n; ++k) {
    if (t.elem.scalar == Scalar::F32)
      r[k] = std::fmaf(float(a[k * sa]), float(b[k * sb]), float(c[k * sc]));
    else
      r[k] = roundFloat(std::fma(a[k * sa], b[k * sb], c[k * sc]), t.elem.scalar);
  }
}

} // namespace tile::interp::detail
