// ElementwiseTest.cpp - differential tests of the interpreter's elementwise
// ops (binary, unary, cmp/select, casts, bitcast) over every dtype against
// plain C++ reference loops, with ragged sizes and masked loads/stores.
#include "InterpTestUtil.h"
#include "interp/Machine.h"

#include <limits>

using namespace tile;
using namespace tile::interp;
using namespace tile::interp::test;
using ir::OpKind;

namespace {

constexpr int64_t kBlock = 32;
constexpr int64_t kSizes[] = {1, 7, 33, 100};

/// The value an integer of type s holds after truncating v's bits (written
/// independently of the interpreter's wrapInt).
int64_t truncRef(int64_t v, Scalar s) {
  HostBuf tmp(s, 1);
  tmp.setI(0, v);
  return tmp.i(0);
}

double roundRef(double v, Scalar s) {
  HostBuf tmp(s, 1);
  tmp.setF(0, v);
  return tmp.f(0);
}

/// Random values that exercise a type: extremes, small values, full range.
void fillRandom(HostBuf &buf, std::mt19937_64 &rng, bool nonZero = false) {
  std::uniform_int_distribution<int> pick(0, 9);
  for (int64_t k = 0; k < buf.n; ++k) {
    if (isFloat(buf.s)) {
      double v;
      switch (pick(rng)) {
      case 0: v = std::ldexp(double(int64_t(rng() % 2001) - 1000), int(rng() % 40) - 20); break;
      case 1: v = double(int64_t(rng() % 9) - 4); break;
      default: v = std::uniform_real_distribution<double>(-100, 100)(rng); break;
      }
      if (nonZero && v == 0)
        v = 1.5;
      buf.setF(k, v);
      continue;
    }
    int64_t v;
    switch (pick(rng)) {
    case 0: v = std::numeric_limits<int64_t>::min(); break;
    case 1: v = -1; break;
    case 2: v = int64_t(rng() % 16) - 8; break;
    default: v = int64_t(rng()); break;
    }
    buf.setI(k, buf.s == Scalar::I1 ? v & 1 : v); // i1 is stored as a 0/1 byte
    if (nonZero && buf.i(k) == 0)
      buf.setI(k, 1);
  }
}

/// out[k] = body(in0[k], in1[k], ...) for k < n, in blocks of kBlock.
using Body = std::function<ir::Value *(Kernel &, const std::vector<ir::Value *> &)>;

void runElementwise(std::vector<HostBuf *> ins, HostBuf &out, const Body &body, Options opts = {}) {
  Kernel kern;
  std::vector<ir::Value *> inPtrs;
  for (size_t k = 0; k < ins.size(); ++k)
    inPtrs.push_back(kern.param(ElemType::ptrTo(ins[k]->s), fmt::format("in{}", k)));
  ir::Value *outPtr = kern.param(ElemType::ptrTo(out.s), "out");
  ir::Value *n = kern.param(ElemType::of(Scalar::I32), "n");
  ir::Value *offs = kern.blockOffsets(kBlock);
  ir::Value *mask = kern.lessThan(offs, n);
  std::vector<ir::Value *> vals;
  // Masked-off lanes read 1 (not the default 0), so that integer division
  // in the padding lanes of the last program does not divide by zero.
  for (ir::Value *p : inPtrs) {
    ir::Type t = ir::Type::tensor(ElemType::of(p->type.elem.scalar), {kBlock});
    ir::Value *one = t.elem.isFloat() ? kern.b.constantFloat(1.0, t) : kern.b.constantInt(1, t);
    vals.push_back(kern.b.load(kern.ptrs(p, offs), mask, one));
  }
  kern.b.store(kern.ptrs(outPtr, offs), body(kern, vals), mask);
  std::vector<ScalarArg> args;
  for (HostBuf *b : ins)
    args.push_back(b->arg());
  args.push_back(out.arg());
  args.push_back(i32Arg(out.n));
  run(*kern.fn, Grid{cdiv(out.n, kBlock), 1, 1}, args, opts);
}

// ---- integer reference semantics

int64_t refIntBinary(OpKind op, Scalar s, int64_t a, int64_t b) {
  int bits = bitWidth(s);
  bool sgn = isSigned(s);
  uint64_t ua = uint64_t(a), ub = uint64_t(b);
  uint64_t amount = bits == 64 ? ub : ub & ((1ULL << bits) - 1);
  switch (op) {
  case OpKind::Add: return truncRef(int64_t(ua + ub), s);
  case OpKind::Sub: return truncRef(int64_t(ua - ub), s);
  case OpKind::Mul: return truncRef(int64_t(ua * ub), s);
  case OpKind::Div:
    if (sgn)
      return b == -1 ? truncRef(int64_t(0 - ua), s) : truncRef(a / b, s);
    return truncRef(int64_t(ua / ub), s);
  case OpKind::Rem:
    if (sgn)
      return b == -1 ? 0 : a % b;
    return int64_t(ua % ub);
  case OpKind::And: return a & b;
  case OpKind::Or: return a | b;
  case OpKind::Xor: return a ^ b;
  case OpKind::Shl: return amount >= uint64_t(bits) ? 0 : truncRef(int64_t(ua << amount), s);
  case OpKind::Shr:
    if (sgn)
      return amount >= uint64_t(bits) ? (a < 0 ? -1 : 0) : a >> amount;
    return amount >= uint64_t(bits) ? 0 : int64_t(ua >> amount);
  case OpKind::Min: return sgn ? std::min(a, b) : int64_t(std::min(ua, ub));
  case OpKind::Max: return sgn ? std::max(a, b) : int64_t(std::max(ua, ub));
  default: FAIL("not an int op"); return 0;
  }
}

/// Reference float op computed in the type's own arithmetic: float for
/// f32 (and rounded on to f16/bf16), double for f64.
template <typename T> T refFloatOp(OpKind op, T a, T b) {
  switch (op) {
  case OpKind::Add: return a + b;
  case OpKind::Sub: return a - b;
  case OpKind::Mul: return a * b;
  case OpKind::Div: return a / b;
  case OpKind::Rem: return std::fmod(a, b);
  case OpKind::Min: // Triton's default: a NaN operand yields the other one
    if (std::isnan(a))
      return b;
    if (std::isnan(b))
      return a;
    if (a == b)
      return std::signbit(a) ? a : b;
    return a < b ? a : b;
  case OpKind::Max:
    if (std::isnan(a))
      return b;
    if (std::isnan(b))
      return a;
    if (a == b)
      return std::signbit(a) ? b : a;
    return a > b ? a : b;
  default: FAIL("not a float op"); return 0;
  }
}

double refFloatBinary(OpKind op, Scalar s, double a, double b) {
  if (s == Scalar::F64)
    return refFloatOp<double>(op, a, b);
  return roundRef(refFloatOp<float>(op, float(a), float(b)), s);
}

} // namespace

TEST_CASE("interp: integer wrapping and roundFloat agree with independent references") {
  std::mt19937_64 rng(7);
  for (Scalar s : kAllScalars)
    for (int k = 0; k < 200; ++k) {
      int64_t v = int64_t(rng());
      double d = std::ldexp(double(int64_t(rng() >> 11)), int(rng() % 60) - 70);
      if (isInt(s)) {
        int bits = bitWidth(s);
        uint64_t mask = bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
        uint64_t low = uint64_t(v) & mask;
        bool negative = isSigned(s) && bits < 64 && (low >> (bits - 1)) & 1;
        int64_t ref = negative ? int64_t(low | ~mask) : int64_t(low);
        CHECK(wrapToIntType(v, s) == ref);
      } else
        CHECK(detail::roundFloat(d, s) == roundToFloatType(d, s));
    }
}

TEST_CASE("interp: binary ops over every dtype match reference loops") {
  std::mt19937_64 rng(1234);
  const OpKind intOps[] = {OpKind::Add, OpKind::Sub, OpKind::Mul, OpKind::Div, OpKind::Rem, OpKind::And,
                           OpKind::Or,  OpKind::Xor, OpKind::Shl, OpKind::Shr, OpKind::Min, OpKind::Max};
  const OpKind floatOps[] = {OpKind::Add, OpKind::Sub, OpKind::Mul, OpKind::Div,
                             OpKind::Rem, OpKind::Min, OpKind::Max};
  for (Scalar s : kAllScalars) {
    bool fl = isFloat(s);
    for (OpKind op : fl ? std::vector<OpKind>(std::begin(floatOps), std::end(floatOps))
                        : std::vector<OpKind>(std::begin(intOps), std::end(intOps))) {
      int64_t n = kSizes[rng() % 4];
      CAPTURE(scalarName(s));
      CAPTURE(ir::opName(op));
      HostBuf a(s, n), b(s, n), out(s, n);
      bool divides = op == OpKind::Div || op == OpKind::Rem;
      fillRandom(a, rng);
      fillRandom(b, rng, divides && !fl);
      if (op == OpKind::Shl || op == OpKind::Shr)
        for (int64_t k = 0; k < n; k += 2)
          b.setI(k, int64_t(rng() % (bitWidth(s) + 2))); // mostly in-range amounts
      runElementwise({&a, &b}, out, [op](Kernel &kn, const std::vector<ir::Value *> &v) {
        return kn.b.binary(op, v[0], v[1]);
      });
      for (int64_t k = 0; k < n; ++k) {
        CAPTURE(k);
        if (fl) {
          CHECK(sameFloat(out.f(k), refFloatBinary(op, s, a.f(k), b.f(k))));
        } else {
          CAPTURE(a.i(k));
          CAPTURE(b.i(k));
          CHECK(out.i(k) == refIntBinary(op, s, a.i(k), b.i(k)));
        }
      }
    }
  }
}

TEST_CASE("interp: f32 add/mul/div/sqrt round like float arithmetic") {
  // Values chosen so that double arithmetic without rounding would differ.
  HostBuf a(Scalar::F32, 3), b(Scalar::F32, 3), out(Scalar::F32, 3);
  float xs[] = {1.0f, 0.1f, 16777216.0f}, ys[] = {1e-8f, 0.2f, 1.0f};
  for (int k = 0; k < 3; ++k)
    a.setF(k, xs[k]), b.setF(k, ys[k]);
  runElementwise({&a, &b}, out, [](Kernel &kn, const std::vector<ir::Value *> &v) {
    return kn.b.binary(OpKind::Add, v[0], v[1]);
  });
  for (int k = 0; k < 3; ++k)
    CHECK(out.f(k) == double(xs[k] + ys[k]));
  runElementwise({&a}, out, [](Kernel &kn, const std::vector<ir::Value *> &v) {
    return kn.b.unary(OpKind::Sqrt, v[0]);
  });
  for (int k = 0; k < 3; ++k)
    CHECK(out.f(k) == double(std::sqrt(xs[k])));
}

namespace {

int64_t refIntUnary(OpKind op, Scalar s, int64_t a) {
  switch (op) {
  case OpKind::Neg: return truncRef(int64_t(0 - uint64_t(a)), s);
  case OpKind::Not: return s == Scalar::I1 ? !a : truncRef(~a, s);
  case OpKind::Abs: return isSigned(s) && a < 0 ? truncRef(int64_t(0 - uint64_t(a)), s) : a;
  default: FAIL("not an int unary op"); return 0;
  }
}

double refFloatUnary(OpKind op, Scalar s, double a) {
  float f = float(a);
  bool f64 = s == Scalar::F64;
  double r = 0;
  switch (op) {
  case OpKind::Neg: r = -a; break;
  case OpKind::Abs: r = std::fabs(a); break;
  case OpKind::Sqrt: r = f64 ? std::sqrt(a) : double(std::sqrt(f)); break;
  case OpKind::Floor: r = std::floor(a); break;
  case OpKind::Ceil: r = std::ceil(a); break;
  // transcendentals: computed in double, rounded once (documented)
  case OpKind::Exp: r = std::exp(a); break;
  case OpKind::Exp2: r = std::exp2(a); break;
  case OpKind::Log: r = std::log(a); break;
  case OpKind::Log2: r = std::log2(a); break;
  case OpKind::Rsqrt: r = 1.0 / std::sqrt(a); break;
  case OpKind::Sin: r = std::sin(a); break;
  case OpKind::Cos: r = std::cos(a); break;
  default: FAIL("not a float unary op");
  }
  return roundRef(r, s);
}

} // namespace

TEST_CASE("interp: unary ops over every dtype match reference loops") {
  std::mt19937_64 rng(99);
  const OpKind intOps[] = {OpKind::Neg, OpKind::Not, OpKind::Abs};
  const OpKind floatOps[] = {OpKind::Neg, OpKind::Abs, OpKind::Exp, OpKind::Exp2, OpKind::Log,  OpKind::Log2,
                             OpKind::Sqrt, OpKind::Rsqrt, OpKind::Sin, OpKind::Cos, OpKind::Floor, OpKind::Ceil};
  for (Scalar s : kAllScalars) {
    bool fl = isFloat(s);
    for (OpKind op : fl ? std::vector<OpKind>(std::begin(floatOps), std::end(floatOps))
                        : std::vector<OpKind>(std::begin(intOps), std::end(intOps))) {
      CAPTURE(scalarName(s));
      CAPTURE(ir::opName(op));
      int64_t n = kSizes[rng() % 4];
      HostBuf a(s, n), out(s, n);
      fillRandom(a, rng);
      runElementwise({&a}, out, [op](Kernel &kn, const std::vector<ir::Value *> &v) {
        return kn.b.unary(op, v[0]);
      });
      for (int64_t k = 0; k < n; ++k) {
        CAPTURE(k);
        if (fl)
          CHECK(sameFloat(out.f(k), refFloatUnary(op, s, a.f(k))));
        else
          CHECK(out.i(k) == refIntUnary(op, s, a.i(k)));
      }
    }
  }
}

TEST_CASE("interp: fma rounds once for f32 and wraps for ints") {
  HostBuf a(Scalar::F32, 7), b(Scalar::F32, 7), c(Scalar::F32, 7), out(Scalar::F32, 7);
  std::mt19937_64 rng(5);
  fillRandom(a, rng), fillRandom(b, rng), fillRandom(c, rng);
  a.setF(0, 1.0 + std::ldexp(1.0, -23)), b.setF(0, 1.0 - std::ldexp(1.0, -23)), c.setF(0, -1.0);
  runElementwise({&a, &b, &c}, out, [](Kernel &kn, const std::vector<ir::Value *> &v) {
    return kn.b.fma(v[0], v[1], v[2]);
  });
  for (int k = 0; k < 7; ++k)
    CHECK(out.f(k) == double(std::fmaf(float(a.f(k)), float(b.f(k)), float(c.f(k)))));
  CHECK(out.f(0) == -std::ldexp(1.0, -46)); // unfused would give 0

  HostBuf ia(Scalar::I8, 7), ib(Scalar::I8, 7), ic(Scalar::I8, 7), iout(Scalar::I8, 7);
  fillRandom(ia, rng), fillRandom(ib, rng), fillRandom(ic, rng);
  runElementwise({&ia, &ib, &ic}, iout, [](Kernel &kn, const std::vector<ir::Value *> &v) {
    return kn.b.fma(v[0], v[1], v[2]);
  });
  for (int k = 0; k < 7; ++k)
    CHECK(iout.i(k) == int64_t(int8_t(ia.i(k) * ib.i(k) + ic.i(k))));
}

TEST_CASE("interp: cmp and select over every dtype") {
  std::mt19937_64 rng(77);
  const char *preds[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  for (Scalar s : kAllScalars)
    for (const char *pred : preds) {
      CAPTURE(scalarName(s));
      CAPTURE(std::string(pred));
      int64_t n = kSizes[rng() % 4];
      HostBuf a(s, n), b(s, n), cmpOut(Scalar::I1, n), selOut(s, n);
      fillRandom(a, rng), fillRandom(b, rng);
      for (int64_t k = 0; k < n; k += 3)
        b.setBits(k, a.bits(k)); // equal pairs
      if (isFloat(s) && n > 1)
        a.setF(1, std::nan(""));
      std::string p = pred;
      runElementwise({&a, &b}, cmpOut, [&](Kernel &kn, const std::vector<ir::Value *> &v) {
        return kn.b.cmp(p, v[0], v[1]);
      });
      runElementwise({&a, &b}, selOut, [&](Kernel &kn, const std::vector<ir::Value *> &v) {
        return kn.b.select(kn.b.cmp(p, v[0], v[1]), v[0], v[1]);
      });
      for (int64_t k = 0; k < n; ++k) {
        bool ref;
        if (isFloat(s)) {
          double x = a.f(k), y = b.f(k);
          ref = p == "eq" ? x == y : p == "ne" ? x != y : p == "lt" ? x < y : p == "le" ? x <= y : p == "gt" ? x > y : x >= y;
        } else if (isSigned(s)) {
          int64_t x = a.i(k), y = b.i(k);
          ref = p == "eq" ? x == y : p == "ne" ? x != y : p == "lt" ? x < y : p == "le" ? x <= y : p == "gt" ? x > y : x >= y;
        } else {
          uint64_t x = uint64_t(a.i(k)), y = uint64_t(b.i(k));
          ref = p == "eq" ? x == y : p == "ne" ? x != y : p == "lt" ? x < y : p == "le" ? x <= y : p == "gt" ? x > y : x >= y;
        }
        CHECK(cmpOut.i(k) == int64_t(ref));
        CHECK(selOut.bits(k) == (ref ? a.bits(k) : b.bits(k)));
      }
    }
}

namespace {

/// Reference cast of one element (decoded value of `from`) to `to`'s bits.
uint64_t refCast(const HostBuf &src, int64_t k, Scalar to) {
  HostBuf tmp(to, 1);
  Scalar from = src.s;
  if (to == Scalar::I1) {
    tmp.setI(0, isFloat(from) ? src.f(k) != 0.0 : src.i(k) != 0);
    return tmp.bits(0);
  }
  if (isFloat(from) && isFloat(to)) {
    tmp.setF(0, src.f(k)); // encode rounds to nearest even
    return tmp.bits(0);
  }
  if (isFloat(to)) {
    uint64_t u = uint64_t(src.i(k));
    bool uns = !isSigned(from);
    if (to == Scalar::F64)
      tmp.setF(0, uns ? double(u) : double(src.i(k)));
    else
      tmp.setF(0, uns ? float(u) : float(src.i(k)));
    return tmp.bits(0);
  }
  if (isFloat(from)) {
    // toward zero, saturating, NaN -> 0; bounds compared in long double
    long double v = src.f(k);
    int bits = bitWidth(to);
    long double lo = isSigned(to) ? -std::ldexp(1.0L, bits - 1) : 0.0L;
    long double hi = isSigned(to) ? std::ldexp(1.0L, bits - 1) - 1 : std::ldexp(1.0L, bits) - 1;
    long double t = std::isnan(v) ? 0.0L : std::trunc(v);
    t = t < lo ? lo : t > hi ? hi : t;
    tmp.setI(0, isSigned(to) ? int64_t(t) : int64_t(uint64_t(t)));
    return tmp.bits(0);
  }
  tmp.setI(0, src.i(k)); // int -> int: truncate the extended value
  return tmp.bits(0);
}

} // namespace

TEST_CASE("interp: casts between all pairs of dtypes") {
  std::mt19937_64 rng(31337);
  for (Scalar from : kAllScalars)
    for (Scalar to : kAllScalars) {
      CAPTURE(scalarName(from));
      CAPTURE(scalarName(to));
      int64_t n = kSizes[rng() % 4] + 10;
      HostBuf a(from, n), out(to, n);
      fillRandom(a, rng);
      if (isFloat(from)) {
        double specials[] = {std::nan(""), INFINITY, -INFINITY, 3e9, -3e9, 1e20, -1e20, 255.9, -0.5, 65504.0};
        for (int k = 0; k < 10 && k < n; ++k)
          a.setF(k, specials[k]);
      }
      runElementwise({&a}, out, [to](Kernel &kn, const std::vector<ir::Value *> &v) {
        return kn.b.cast(v[0], ElemType::of(to));
      });
      for (int64_t k = 0; k < n; ++k) {
        CAPTURE(k);
        uint64_t ref = refCast(a, k, to);
        if (isFloat(to) && std::isnan(out.f(k)))
          CHECK(std::isnan(out.decodeFloat(ref)));
        else
          CHECK(out.bits(k) == ref);
      }
    }
}

TEST_CASE("interp: bitcast keeps the bits") {
  std::pair<Scalar, Scalar> pairs[] = {{Scalar::F32, Scalar::I32}, {Scalar::I32, Scalar::F32},
                                       {Scalar::F16, Scalar::I16}, {Scalar::BF16, Scalar::U16},
                                       {Scalar::F64, Scalar::U64}, {Scalar::I8, Scalar::U8}};
  std::mt19937_64 rng(3);
  for (auto pair : pairs) {
    Scalar from = pair.first, to = pair.second;   // clang 14 captures no structured binding
    HostBuf a(from, 33), out(to, 33);
    fillRandom(a, rng);
    runElementwise({&a}, out, [to](Kernel &kn, const std::vector<ir::Value *> &v) {
      return kn.b.bitcast(v[0], ElemType::of(to));
    });
    for (int64_t k = 0; k < 33; ++k)
      CHECK(out.bits(k) == a.bits(k));
  }
}
