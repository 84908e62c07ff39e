// AxisInfo.cpp - the axis-info transfer functions, one per op family (after
// Triton's lib/Analysis/AxisInfo.cpp), the joins of if results and the
// fixpoint over values carried around for and while loops. AxisInfo.h
// states what the facts mean; each rule below says why it holds.
#include "gpu/AxisInfo.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>
#include <numeric>

namespace tile::gpu {

namespace {

using ir::OpKind;

/// Divisibility of 0 (and the cap of every divisibility): 2^30.
constexpr int64_t kMaxDiv = int64_t(1) << 30;
/// Rounds of a loop's fixpoint before its carried values count as unknown
/// (each round that changes anything at least halves one fact).
constexpr int kMaxRounds = 64;

/// The largest power of two dividing v (kMaxDiv for 0, and at most kMaxDiv).
int64_t pow2Part(int64_t v) {
  if (v == 0)
    return kMaxDiv;
  uint64_t u = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  return static_cast<int64_t>(std::min<uint64_t>(u & (0 - u), kMaxDiv));
}

int64_t mulDiv(int64_t a, int64_t b) { return std::min(kMaxDiv, a * b); }   // both <= 2^30

template <typename... T> int64_t gcdOf(int64_t a, T... rest) {
  ((a = std::gcd(a, rest)), ...);
  return a;
}

bool isPow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

int dims(const ir::Value *v) { return std::max(1, v->type.rank()); }
int64_t extent(const ir::Value *v, size_t d) { return v->type.isTensor() ? v->type.shape[d] : 1; }
bool intLike(const ir::Value *v) { return v->type.elem.isInt() || v->type.elem.isPtr; }
/// What one index step adds to a value in a run: the pointee's bytes for
/// pointers (contiguity counts elements, divisibility bytes), else 1.
int64_t unitOf(const ir::Value *v) { return v->type.elem.isPtr ? byteSize(v->type.elem.scalar) : 1; }

AxisFacts unknown(int n) { return {std::vector<int64_t>(n, 1), std::vector<int64_t>(n, 1), std::vector<int64_t>(n, 1), {}}; }

/// A value the same everywhere: constancy = the whole dim.
AxisFacts uniform(const ir::Value *v, int64_t div, std::optional<int64_t> constant = {}) {
  AxisFacts f = unknown(dims(v));
  for (size_t d = 0; d < f.constancy.size(); ++d)
    f.constancy[d] = extent(v, d);
  f.divisibility.assign(f.divisibility.size(), div);
  f.constant = constant;
  return f;
}

AxisFacts constantFacts(const ir::Value *v, int64_t value) { return uniform(v, pow2Part(value), value); }

/// Divisibility of f's values at the indices along d that are multiples of
/// g: the run starts' when g is a multiple of the contiguity, else a run
/// start plus a multiple of gcd(g, contiguity) steps of `unit`.
int64_t startDiv(const AxisFacts &f, size_t d, int64_t g, int64_t unit = 1) {
  int64_t c = f.contiguity[d];
  if (g % c == 0)
    return f.divisibility[d];
  return std::gcd(f.divisibility[d], pow2Part(std::gcd(g, c) * unit));
}

/// Divisibility of every element: a dim whose runs are single elements
/// speaks for all of them.
int64_t elementDiv(const AxisFacts &f) {
  int64_t div = 1;
  for (size_t d = 0; d < f.divisibility.size(); ++d)
    div = std::max(div, startDiv(f, d, 1));
  return div;
}

/// The facts that hold for both a and b (if results, loop entries).
AxisFacts join(const AxisFacts &a, const AxisFacts &b, int64_t unit) {
  AxisFacts f = a;
  for (size_t d = 0; d < f.contiguity.size() && d < b.contiguity.size(); ++d) {
    f.contiguity[d] = std::gcd(a.contiguity[d], b.contiguity[d]);
    f.divisibility[d] = std::gcd(startDiv(a, d, f.contiguity[d], unit), startDiv(b, d, f.contiguity[d], unit));
    f.constancy[d] = std::gcd(a.constancy[d], b.constancy[d]);
  }
  f.constant = a.constant == b.constant ? a.constant : std::nullopt;
  return f;
}

bool sameFacts(const AxisFacts &a, const AxisFacts &b) {
  return a.contiguity == b.contiguity && a.divisibility == b.divisibility && a.constancy == b.constancy &&
         a.constant == b.constant;
}

bool compareInts(const std::string &pred, int64_t a, int64_t b, bool isUnsigned) {
  auto cmp = [&](auto x, auto y) {
    if (pred == "eq") return x == y;
    if (pred == "ne") return x != y;
    if (pred == "lt") return x < y;
    if (pred == "le") return x <= y;
    if (pred == "gt") return x > y;
    return x >= y;
  };
  return isUnsigned ? cmp(static_cast<uint64_t>(a), static_cast<uint64_t>(b)) : cmp(a, b);
}

/// Ops.def's integer semantics on two known values (wrapping, C division,
/// shifts past the width); nothing for division by zero.
std::optional<int64_t> foldBinary(OpKind k, int64_t a, int64_t b, Scalar s) {
  bool u = !isSigned(s);
  uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  int bits = bitWidth(s);
  int64_t r = 0;
  switch (k) {
  case OpKind::Add: r = static_cast<int64_t>(ua + ub); break;
  case OpKind::Sub: r = static_cast<int64_t>(ua - ub); break;
  case OpKind::Mul: r = static_cast<int64_t>(ua * ub); break;
  case OpKind::Div:
  case OpKind::Rem:
    if (b == 0 || (!u && a == std::numeric_limits<int64_t>::min() && b == -1))
      return {};
    if (u)
      r = static_cast<int64_t>(k == OpKind::Div ? ua / ub : ua % ub);
    else
      r = k == OpKind::Div ? a / b : a % b;
    break;
  case OpKind::And: r = a & b; break;
  case OpKind::Or: r = a | b; break;
  case OpKind::Xor: r = a ^ b; break;
  case OpKind::Shl: r = b < 0 || b >= bits ? 0 : static_cast<int64_t>(ua << b); break;
  case OpKind::Shr:
    if (b < 0 || b >= bits)
      r = u || a >= 0 ? 0 : -1;
    else
      r = u ? static_cast<int64_t>(ua >> b) : a >> b;
    break;
  case OpKind::Min: r = compareInts("lt", a, b, u) ? a : b; break;
  case OpKind::Max: r = compareInts("gt", a, b, u) ? a : b; break;
  default: return {};
  }
  return wrapToIntType(r, s);
}


class Analysis {
public:
  explicit Analysis(AxisInfo &out) : info_(out) {}

  void run(const ir::Function &fn) {
    const auto &args = fn.entry().args;
    for (size_t i = 0; i < args.size(); ++i) {
      int64_t div = i < fn.paramDivisibility.size() ? fn.paramDivisibility[i] : 1;
      set(args[i].get(), uniform(args[i].get(), div));
    }
    block(fn.entry());
  }

private:
  AxisInfo &info_;

  AxisFacts get(const ir::Value *v) const { return info_.get(v); }
  void set(const ir::Value *v, AxisFacts f) { info_.facts[v] = std::move(f); }
  void setUnknown(const ir::Value *v) { set(v, unknown(dims(v))); }

  void block(const ir::Block &b) {
    for (const auto &op : b.ops)
      visit(*op);
  }

  // ------------------------------------------------------------ shape ops

  AxisFacts constant(const ir::Op &op) {
    const ir::Attr &v = op.attrs.at("value");
    if (auto *i = std::get_if<int64_t>(&v))
      return constantFacts(op.result(), *i);
    if (auto *b = std::get_if<bool>(&v))
      return constantFacts(op.result(), *b ? 1 : 0);
    return uniform(op.result(), 1);   // floats: only constancy
  }

  AxisFacts arange(const ir::Op &op) {
    AxisFacts f = unknown(1);
    f.contiguity[0] = op.result()->type.shape[0];
    f.divisibility[0] = pow2Part(op.intAttr("start"));
    return f;
  }

  /// Dims growing from 1: every element repeats (constancy), nothing runs.
  AxisFacts broadcast(const ir::Op &op) {
    AxisFacts x = get(op.operands[0]);
    const auto &in = op.operands[0]->type.shape, &out = op.result()->type.shape;
    for (size_t d = 0; d < out.size(); ++d)
      if (in[d] == 1 && out[d] > 1) {
        x.contiguity[d] = 1;
        x.constancy[d] = out[d];
      }
    return x;
  }

  /// The new dim of size 1: every element's own divisibility.
  AxisFacts expandDims(const ir::Op &op) {
    AxisFacts x = get(op.operands[0]);
    int64_t div = x.constant ? pow2Part(*x.constant) : elementDiv(x);
    if (!op.operands[0]->type.isTensor())
      return uniform(op.result(), div, x.constant);
    size_t axis = static_cast<size_t>(op.intAttr("axis"));
    x.contiguity.insert(x.contiguity.begin() + axis, 1);
    x.divisibility.insert(x.divisibility.begin() + axis, div);
    x.constancy.insert(x.constancy.begin() + axis, 1);
    return x;
  }

  /// Row-major reshape: a result dim that is a whole input dim or its inner
  /// part (same stride, a size dividing it) keeps that dim's runs, cut at
  /// its size; other dims keep only every element's divisibility.
  AxisFacts reshape(const ir::Op &op) {
    const ir::Value *in = op.operands[0], *r = op.result();
    AxisFacts x = get(in);
    if (x.constant || !in->type.isTensor())
      return uniform(r, x.constant ? pow2Part(*x.constant) : elementDiv(x), x.constant);
    auto strides = [](const std::vector<int64_t> &s) {
      std::vector<int64_t> st(s.size(), 1);
      for (size_t d = s.size(); d-- > 1;)
        st[d - 1] = st[d] * s[d];
      return st;
    };
    const auto &sIn = in->type.shape, &sOut = r->type.shape;
    std::vector<int64_t> stIn = strides(sIn), stOut = strides(sOut);
    AxisFacts f = unknown(dims(r));
    f.divisibility.assign(f.divisibility.size(), elementDiv(x));
    for (size_t d = 0; d < sOut.size(); ++d)
      for (size_t e = 0; e < sIn.size(); ++e) {
        if (sOut[d] == 1 || sIn[e] == 1 || stIn[e] != stOut[d]) continue;
        if (sIn[e] % sOut[d] == 0) {   // dim e split: d is its inner part
          f.contiguity[d] = std::gcd(x.contiguity[e], sOut[d]);
          f.divisibility[d] = startDiv(x, e, f.contiguity[d], unitOf(in));
          f.constancy[d] = std::gcd(x.constancy[e], sOut[d]);
          break;
        }
        // dims e0..e merged into d (a [BM, BN] tile flattened): runs stay
        // within a row of e (nothing is known of one row's end against the
        // next one's start); e's facts hold in every row, so the run starts
        // divide as e's do
        int64_t merged = sIn[e];
        size_t e0 = e;
        while (merged < sOut[d] && e0 > 0) merged *= sIn[--e0];
        if (merged != sOut[d]) continue;
        f.contiguity[d] = std::gcd(x.contiguity[e], sIn[e]);
        f.divisibility[d] = startDiv(x, e, f.contiguity[d], unitOf(in));
        f.constancy[d] = std::gcd(x.constancy[e], sIn[e]);
        break;
      }
    return f;
  }

  /// Result dim i is input dim order[i].
  AxisFacts permute(const ir::Op &op) {
    AxisFacts x = get(op.operands[0]), f = x;
    const auto &order = op.intsAttr("order");
    for (size_t i = 0; i < order.size(); ++i) {
      f.contiguity[i] = x.contiguity[order[i]];
      f.divisibility[i] = x.divisibility[order[i]];
      f.constancy[i] = x.constancy[order[i]];
    }
    return f;
  }

  /// tl.multiple_of / max_contiguous / max_constancy: the author's promise,
  /// taken where it says more than what is proven (as Triton's hints).
  AxisFacts hinted(const ir::Op &op) {
    AxisFacts f = get(op.operands[0]);
    auto take = [&](const char *name, std::vector<int64_t> &facts) {
      auto it = op.attrs.find(name);
      if (it == op.attrs.end())
        return;
      const auto &v = std::get<std::vector<int64_t>>(it->second);
      for (size_t d = 0; d < facts.size() && d < v.size(); ++d)
        facts[d] = std::max(facts[d], v[d]);
    };
    take("multiple_of", f.divisibility);
    take("max_contiguous", f.contiguity);
    take("max_constancy", f.constancy);
    return f;
  }

  // ------------------------------------------------------------ conversions

  /// Widening keeps values (and their runs, offsets being non-negative, as
  /// Triton assumes for zero extension); narrowing keeps the low bits, so
  /// divisibility up to the new width; `!= 0` to i1 and float conversions
  /// keep only constancy.
  AxisFacts cast(const ir::Op &op) {
    const ir::Value *src = op.operands[0], *r = op.result();
    AxisFacts x = get(src);
    Scalar to = r->type.elem.scalar;
    if (!src->type.elem.isInt() || !r->type.elem.isInt())
      return elementwise(op);
    if (to == Scalar::I1) {
      AxisFacts f = elementwise(op);
      if (x.constant)
        return constantFacts(r, *x.constant != 0);
      return f;
    }
    if (x.constant)
      return constantFacts(r, wrapToIntType(*x.constant, to));
    int bits = bitWidth(to);
    if (bits < bitWidth(src->type.elem.scalar))
      for (int64_t &div : x.divisibility)
        div = std::min(div, int64_t(1) << std::min(bits, 30));
    return x;
  }

  /// Same-width integers keep everything; pointer <-> i64 keep the byte
  /// values: runs of consecutive bytes are runs of elements only for 1-byte
  /// pointees; pointer -> pointer keeps the addresses, so runs of elements
  /// stay runs when both pointees have one size (Triton's bitcast rule).
  /// Float bit patterns keep only constancy.
  AxisFacts bitcast(const ir::Op &op) {
    const ir::Value *src = op.operands[0], *r = op.result();
    AxisFacts x = get(src);
    if (!intLike(src) || !intLike(r))
      return elementwise(op);
    if (src->type.elem.isInt() && r->type.elem.isInt()) {
      if (x.constant)
        x.constant = wrapToIntType(*x.constant, r->type.elem.scalar);
      return x;
    }
    int64_t unit = src->type.elem.isPtr ? unitOf(src) : unitOf(r);
    if (src->type.elem.isPtr && r->type.elem.isPtr)
      unit = unitOf(src) == unitOf(r) ? 1 : 0;
    if (unit != 1)
      x.contiguity.assign(x.contiguity.size(), 1);
    x.constant.reset();
    return x;
  }

  // ------------------------------------------------------------ arithmetic

  std::optional<int64_t> fold(const ir::Op &op, const AxisFacts &a, const AxisFacts &b) {
    if (!a.constant || !b.constant || !op.result()->type.elem.isInt())
      return {};
    return foldBinary(op.kind, *a.constant, *b.constant, op.result()->type.elem.scalar);
  }

  /// Runs: a run plus a constant is a run (either side; not for a - run,
  /// which decreases). Divisibility: a sum of multiples of g is one.
  AxisFacts addSub(const ir::Op &op) {
    AxisFacts a = get(op.operands[0]), b = get(op.operands[1]);
    if (auto v = fold(op, a, b))
      return constantFacts(op.result(), *v);
    int64_t unit = unitOf(op.operands[0]), scaleB = op.kind == OpKind::AddPtr ? unit : 1;
    AxisFacts f = unknown(dims(op.result()));
    for (size_t d = 0; d < f.contiguity.size(); ++d) {
      int64_t c = std::gcd(a.contiguity[d], b.constancy[d]);
      if (op.kind != OpKind::Sub)
        c = std::max(c, std::gcd(a.constancy[d], b.contiguity[d]));
      f.contiguity[d] = c;
      f.divisibility[d] = std::gcd(startDiv(a, d, c, unit), mulDiv(startDiv(b, d, c), scaleB));
      f.constancy[d] = std::gcd(a.constancy[d], b.constancy[d]);
    }
    return f;
  }

  /// x * 1 is x; otherwise no runs, and the divisibilities multiply.
  AxisFacts mul(const ir::Op &op) {
    AxisFacts a = get(op.operands[0]), b = get(op.operands[1]);
    if (auto v = fold(op, a, b))
      return constantFacts(op.result(), *v);
    if (b.constant == 1)
      return a;
    if (a.constant == 1)
      return b;
    if (a.constant == 0 || b.constant == 0)
      return constantFacts(op.result(), 0);
    AxisFacts f = unknown(dims(op.result()));
    for (size_t d = 0; d < f.contiguity.size(); ++d) {
      f.divisibility[d] = mulDiv(startDiv(a, d, 1), startDiv(b, d, 1));
      f.constancy[d] = std::gcd(a.constancy[d], b.constancy[d]);
    }
    return f;
  }

  /// The length of the aligned groups along d over which x runs from a
  /// multiple of the group length and y is one value that the group length
  /// divides: such a group never straddles a multiple of y (nor a value of
  /// y), so x / y is constant over it, x % y runs and x < y is constant.
  static int64_t groupsWithin(const AxisFacts &x, const AxisFacts &y, size_t d) {
    return gcdOf(x.contiguity[d], x.divisibility[d], startDiv(y, d, 1), y.constancy[d]);
  }

  /// C division (non-negative dividends, as Triton assumes): constant over
  /// the groups above; exact by a power of two when every dividend is a
  /// multiple of it.
  AxisFacts div(const ir::Op &op) {
    AxisFacts a = get(op.operands[0]), b = get(op.operands[1]);
    if (auto v = fold(op, a, b))
      return constantFacts(op.result(), *v);
    if (b.constant == 1)
      return a;
    if (a.constant == 0)
      return a;
    AxisFacts f = unknown(dims(op.result()));
    for (size_t d = 0; d < f.contiguity.size(); ++d) {
      f.constancy[d] = std::max(std::gcd(a.constancy[d], b.constancy[d]), groupsWithin(a, b, d));
      if (b.constant && isPow2(std::abs(*b.constant)))
        f.divisibility[d] = std::max<int64_t>(1, startDiv(a, d, 1) / std::abs(*b.constant));
    }
    return f;
  }

  /// C remainder (non-negative dividends, as Triton assumes): x % M keeps
  /// x's runs up to the gcd with M's divisibility (Triton's rule, for runs
  /// of any length); divisible by what divides both operands.
  AxisFacts rem(const ir::Op &op) {
    AxisFacts a = get(op.operands[0]), b = get(op.operands[1]);
    if (auto v = fold(op, a, b))
      return constantFacts(op.result(), *v);
    if (b.constant == 1 || b.constant == -1)
      return constantFacts(op.result(), 0);
    AxisFacts f = unknown(dims(op.result()));
    for (size_t d = 0; d < f.contiguity.size(); ++d) {
      int64_t g = groupsWithin(a, b, d);
      f.contiguity[d] = g;
      f.divisibility[d] = std::gcd(startDiv(a, d, g), startDiv(b, d, g));
      f.constancy[d] = std::gcd(a.constancy[d], b.constancy[d]);
    }
    return f;
  }

  /// Bits: x & (2^k - 1) is x mod 2^k in two's complement (runs kept up to
  /// 2^k, for negative x too); x & -2^k clears the low bits (constant over
  /// aligned groups of 2^k). With one side constant over a group whose low
  /// log2(g) bits are zero and the other running over [s, s + g) from a
  /// multiple s of g: `&` is constant there, `|` and `^` run. Low zero bits
  /// survive `&` from either side, `|` and `^` from both.
  AxisFacts bitwise(const ir::Op &op) {
    AxisFacts a = get(op.operands[0]), b = get(op.operands[1]);
    if (auto v = fold(op, a, b))
      return constantFacts(op.result(), *v);
    if (op.kind == OpKind::And) {
      if (b.constant)
        if (auto f = andConstant(op, a, *b.constant)) return *f;
      if (a.constant)
        if (auto f = andConstant(op, b, *a.constant)) return *f;
    }
    AxisFacts f = unknown(dims(op.result()));
    for (size_t d = 0; d < f.contiguity.size(); ++d) {
      auto spread = [&](const AxisFacts &k, const AxisFacts &r) {
        return gcdOf(k.constancy[d], startDiv(k, d, 1), r.contiguity[d], r.divisibility[d]);
      };
      int64_t g = std::max(spread(a, b), spread(b, a));
      f.constancy[d] = std::gcd(a.constancy[d], b.constancy[d]);
      if (op.kind == OpKind::And) {
        f.constancy[d] = std::max(f.constancy[d], g);
        f.divisibility[d] = std::max(startDiv(a, d, 1), startDiv(b, d, 1));
        continue;
      }
      f.contiguity[d] = g;
      f.divisibility[d] = std::gcd(startDiv(a, d, g), startDiv(b, d, g));
    }
    return f;
  }

  std::optional<AxisFacts> andConstant(const ir::Op &op, const AxisFacts &x, int64_t m) {
    AxisFacts f = unknown(dims(op.result()));
    if (m > 0 && isPow2(m + 1)) {   // low mask
      for (size_t d = 0; d < f.contiguity.size(); ++d) {
        f.contiguity[d] = gcdOf(x.contiguity[d], x.divisibility[d], m + 1);
        f.divisibility[d] = std::gcd(startDiv(x, d, f.contiguity[d]), m + 1);
        f.constancy[d] = x.constancy[d];
      }
      return f;
    }
    if (m < 0 && isPow2(-m)) {   // clears the low bits
      for (size_t d = 0; d < f.contiguity.size(); ++d) {
        f.constancy[d] = std::max(x.constancy[d], gcdOf(x.contiguity[d], x.divisibility[d], -m));
        f.divisibility[d] = std::max(startDiv(x, d, 1), std::min(-m, kMaxDiv));
      }
      return f;
    }
    return {};
  }

  /// x << k multiplies by 2^k; x >> k (floor division by 2^k, arithmetic
  /// or logical) is constant over aligned groups of 2^k of a run.
  AxisFacts shift(const ir::Op &op) {
    AxisFacts a = get(op.operands[0]), b = get(op.operands[1]);
    if (auto v = fold(op, a, b))
      return constantFacts(op.result(), *v);
    int bits = bitWidth(op.result()->type.elem.scalar);
    if (b.constant == 0)
      return a;
    AxisFacts f = unknown(dims(op.result()));
    bool known = b.constant && *b.constant > 0 && *b.constant < std::min(bits, 31);
    int64_t p = known ? int64_t(1) << *b.constant : 1;
    for (size_t d = 0; d < f.contiguity.size(); ++d) {
      f.constancy[d] = std::gcd(a.constancy[d], b.constancy[d]);
      if (op.kind == OpKind::Shl) {
        // a multiple of x whatever the (in-range) amount
        f.divisibility[d] = mulDiv(startDiv(a, d, 1), p);
        continue;
      }
      if (!known)
        continue;
      f.divisibility[d] = std::max<int64_t>(1, startDiv(a, d, 1) / p);
      f.constancy[d] = std::max(f.constancy[d], gcdOf(a.contiguity[d], a.divisibility[d], p));
    }
    return f;
  }

  /// Two runs over the same group differ by a constant there, so min/max
  /// picks one of them throughout.
  AxisFacts minMax(const ir::Op &op) {
    AxisFacts a = get(op.operands[0]), b = get(op.operands[1]);
    if (auto v = fold(op, a, b))
      return constantFacts(op.result(), *v);
    AxisFacts f = unknown(dims(op.result()));
    for (size_t d = 0; d < f.contiguity.size(); ++d) {
      f.contiguity[d] = std::gcd(a.contiguity[d], b.contiguity[d]);
      f.divisibility[d] = std::gcd(startDiv(a, d, f.contiguity[d]), startDiv(b, d, f.contiguity[d]));
      f.constancy[d] = std::gcd(a.constancy[d], b.constancy[d]);
    }
    return f;
  }

  /// -x and |x| keep every element's divisibility; ~x = -x - 1 keeps none.
  AxisFacts unary(const ir::Op &op) {
    AxisFacts a = get(op.operands[0]);
    Scalar s = op.result()->type.elem.scalar;
    if (a.constant) {
      int64_t v = *a.constant, negated = static_cast<int64_t>(0 - static_cast<uint64_t>(v)), r = v;
      if (op.kind == OpKind::Not)
        r = s == Scalar::I1 ? (v ? 0 : 1) : ~v;
      else if (op.kind == OpKind::Neg || (v < 0 && isSigned(s)))
        r = negated;
      return constantFacts(op.result(), wrapToIntType(r, s));
    }
    AxisFacts f = unknown(dims(op.result()));
    for (size_t d = 0; d < f.contiguity.size(); ++d) {
      f.constancy[d] = a.constancy[d];
      if (op.kind != OpKind::Not)
        f.divisibility[d] = startDiv(a, d, 1);
    }
    return f;
  }

  /// Masks: x < y over a run x from multiples of g and a y constant over it
  /// that g divides is constant over the group (so are >= and the mirrored
  /// y > x, y <= x), as Triton's rule, for runs of any length.
  AxisFacts cmp(const ir::Op &op) {
    AxisFacts a = get(op.operands[0]), b = get(op.operands[1]);
    AxisFacts f = unknown(dims(op.result()));
    const std::string &pred = op.strAttr("pred");
    if (a.constant && b.constant && op.operands[0]->type.elem.isInt())
      return constantFacts(op.result(),
                           compareInts(pred, *a.constant, *b.constant, !isSigned(op.operands[0]->type.elem.scalar)));
    bool ints = op.operands[0]->type.elem.isInt();
    for (size_t d = 0; d < f.constancy.size(); ++d) {
      f.constancy[d] = std::gcd(a.constancy[d], b.constancy[d]);
      if (ints && (pred == "lt" || pred == "ge"))
        f.constancy[d] = std::max(f.constancy[d], groupsWithin(a, b, d));
      if (ints && (pred == "gt" || pred == "le"))
        f.constancy[d] = std::max(f.constancy[d], groupsWithin(b, a, d));
    }
    return f;
  }

  /// Over a group where the condition is constant, the result is one arm.
  AxisFacts select(const ir::Op &op) {
    AxisFacts c = get(op.operands[0]), a = get(op.operands[1]), b = get(op.operands[2]);
    if (c.constant)
      return *c.constant ? a : b;
    if (a.constant && a.constant == b.constant)
      return a;
    int64_t unit = unitOf(op.result());
    AxisFacts f = unknown(dims(op.result()));
    for (size_t d = 0; d < f.contiguity.size(); ++d) {
      f.contiguity[d] = gcdOf(a.contiguity[d], b.contiguity[d], c.constancy[d]);
      f.divisibility[d] = std::gcd(startDiv(a, d, f.contiguity[d], unit), startDiv(b, d, f.contiguity[d], unit));
      f.constancy[d] = gcdOf(a.constancy[d], b.constancy[d], c.constancy[d]);
    }
    return f;
  }

  /// Equal addresses with equal mask bits (and equal `other`) load equal
  /// values.
  AxisFacts load(const ir::Op &op) {
    AxisFacts f = unknown(dims(op.result()));
    for (size_t d = 0; d < f.constancy.size(); ++d) {
      int64_t k = 0;
      for (const ir::Value *v : op.operands)
        k = std::gcd(k, get(v).constancy[d]);
      f.constancy[d] = std::max<int64_t>(1, k);
    }
    return f;
  }

  /// Equal operands give equal results: only constancy survives.
  AxisFacts elementwise(const ir::Op &op) {
    AxisFacts f = unknown(dims(op.result()));
    for (size_t d = 0; d < f.constancy.size(); ++d) {
      int64_t c = 0;   // gcd(0, x) == x
      for (const ir::Value *v : op.operands) {
        AxisFacts o = get(v);
        c = std::gcd(c, d < o.constancy.size() ? o.constancy[d] : 1);
      }
      f.constancy[d] = std::max<int64_t>(1, c);
    }
    return f;
  }

  AxisFacts transfer(const ir::Op &op) {
    const ir::Value *r = op.result();
    switch (op.kind) {
    case OpKind::Constant: return constant(op);
    case OpKind::Arange: return arange(op);
    case OpKind::Splat: {
      AxisFacts x = get(op.operands[0]);
      return uniform(r, x.divisibility[0], x.constant);
    }
    case OpKind::Broadcast: return broadcast(op);
    case OpKind::ExpandDims: return expandDims(op);
    case OpKind::Reshape: return reshape(op);
    case OpKind::Permute: return permute(op);
    case OpKind::ConvertLayout: return get(op.operands[0]);
    case OpKind::Hint: return hinted(op);
    case OpKind::Cast: return cast(op);
    case OpKind::Bitcast: return bitcast(op);
    case OpKind::Cmp: return cmp(op);
    case OpKind::Select: return select(op);
    case OpKind::Load: return load(op);
    default: break;
    }
    if (!ir::isElementwise(op.kind))
      return unknown(dims(r));
    if (!intLike(r))
      return elementwise(op);
    switch (op.kind) {
    case OpKind::Add: case OpKind::Sub: case OpKind::AddPtr: return addSub(op);
    case OpKind::Mul: return mul(op);
    case OpKind::Div: return div(op);
    case OpKind::Rem: return rem(op);
    case OpKind::And: case OpKind::Or: case OpKind::Xor: return bitwise(op);
    case OpKind::Shl: case OpKind::Shr: return shift(op);
    case OpKind::Min: case OpKind::Max: return minMax(op);
    case OpKind::Neg: case OpKind::Abs: case OpKind::Not: return unary(op);
    default: return elementwise(op);
    }
  }

  // ------------------------------------------------------------ control flow

  void visit(const ir::Op &op) {
    switch (op.kind) {
    case OpKind::For: return forLoop(op);
    case OpKind::While: return whileLoop(op);
    case OpKind::If: return ifOp(op);
    default: break;
    }
    for (const auto &r : op.regions) {   // scan's combine function
      for (const auto &a : r->block->args)
        setUnknown(a.get());
      block(*r->block);
    }
    if (op.results.size() == 1)
      set(op.result(), transfer(op));
    else
      for (const auto &r : op.results)
        setUnknown(r.get());
  }

  /// facts[i] joined with the yielded ones; true when nothing changed.
  bool joinInto(std::vector<AxisFacts> &facts, const std::vector<ir::Value *> &yielded, size_t first,
                const std::vector<const ir::Value *> &types) {
    bool stable = true;
    for (size_t i = 0; i < facts.size(); ++i) {
      AxisFacts m = i + first < yielded.size() ? join(facts[i], get(yielded[i + first]), unitOf(types[i]))
                                               : unknown(dims(types[i]));
      stable = stable && sameFacts(m, facts[i]);
      facts[i] = std::move(m);
    }
    return stable;
  }

  /// Iterates the body from the init facts, joining with the yielded ones,
  /// until stable (the facts only shrink); everything unknown if it takes
  /// too long.
  void forLoop(const ir::Op &op) {
    const ir::Block &body = *op.regions[0]->block;
    AxisFacts lb = get(op.operands[0]), step = get(op.operands[2]);
    AxisFacts iv = unknown(1);
    iv.divisibility[0] = std::gcd(startDiv(lb, 0, 1), startDiv(step, 0, 1));
    set(body.args[0].get(), iv);
    std::vector<AxisFacts> cur;
    std::vector<const ir::Value *> types;
    for (size_t i = 3; i < op.operands.size(); ++i) {
      cur.push_back(get(op.operands[i]));
      types.push_back(op.operands[i]);
    }
    bool stable = false;
    for (int round = 0; round < kMaxRounds && !stable; ++round) {
      for (size_t i = 0; i < cur.size(); ++i)
        set(body.args[1 + i].get(), cur[i]);
      block(body);
      const ir::Op *y = body.terminator();
      stable = joinInto(cur, y ? y->operands : std::vector<ir::Value *>{}, 0, types);
    }
    if (!stable) {
      for (size_t i = 0; i < cur.size(); ++i) {
        cur[i] = unknown(dims(types[i]));
        set(body.args[1 + i].get(), cur[i]);
      }
      block(body);
    }
    for (size_t i = 0; i < op.results.size() && i < cur.size(); ++i)
      set(op.results[i].get(), cur[i]);
  }

  /// The condition region's arguments: the inits joined with the body's
  /// yields; the body's arguments and the results: the condition's values.
  void whileLoop(const ir::Op &op) {
    const ir::Block &cond = *op.regions[0]->block, &body = *op.regions[1]->block;
    std::vector<AxisFacts> cur;
    std::vector<const ir::Value *> types;
    for (size_t i = 0; i < op.operands.size() && i < cond.args.size(); ++i) {
      cur.push_back(get(op.operands[i]));
      types.push_back(cond.args[i].get());
    }
    auto once = [&] {
      for (size_t i = 0; i < cur.size(); ++i)
        set(cond.args[i].get(), cur[i]);
      block(cond);
      const ir::Op *c = cond.terminator();
      for (size_t i = 0; i < body.args.size(); ++i) {
        bool have = c && i + 1 < c->operands.size();
        set(body.args[i].get(), have ? get(c->operands[i + 1]) : unknown(dims(body.args[i].get())));
      }
      block(body);
    };
    bool stable = false;
    for (int round = 0; round < kMaxRounds && !stable; ++round) {
      once();
      const ir::Op *y = body.terminator();
      stable = joinInto(cur, y ? y->operands : std::vector<ir::Value *>{}, 0, types);
    }
    if (!stable) {
      for (size_t i = 0; i < cur.size(); ++i)
        cur[i] = unknown(dims(types[i]));
      once();
    }
    const ir::Op *c = cond.terminator();
    for (size_t i = 0; i < op.results.size(); ++i) {
      bool have = c && i + 1 < c->operands.size();
      set(op.results[i].get(), have ? get(c->operands[i + 1]) : unknown(dims(op.results[i].get())));
    }
  }

  void ifOp(const ir::Op &op) {
    const ir::Block &t = *op.regions[0]->block, &e = *op.regions[1]->block;
    block(t);
    block(e);
    const ir::Op *yt = t.terminator(), *ye = e.terminator();
    for (size_t i = 0; i < op.results.size(); ++i) {
      const ir::Value *r = op.results[i].get();
      if (yt && ye && i < yt->operands.size() && i < ye->operands.size())
        set(r, join(get(yt->operands[i]), get(ye->operands[i]), unitOf(r)));
      else
        setUnknown(r);
    }
  }
};

std::string listStr(const std::vector<int64_t> &v) { return fmt::format("[{}]", fmt::join(v, ", ")); }

std::string factsStr(const AxisFacts &f) {
  return fmt::format("contiguity = {}, divisibility = {}, constancy = {}, constant_value = {}", listStr(f.contiguity),
                     listStr(f.divisibility), listStr(f.constancy),
                     f.constant ? std::to_string(*f.constant) : std::string("<none>"));
}

void printBlock(const AxisInfo &info, const ir::Block &b, std::string &out) {
  for (const auto &op : b.ops) {
    for (const auto &r : op->results)
      out += fmt::format("{}: {}\n", ir::opName(op->kind), factsStr(info.get(r.get())));
    for (const auto &region : op->regions) {
      for (const auto &a : region->block->args)
        out += fmt::format("^arg{}: {}\n", a->index, factsStr(info.get(a.get())));
      printBlock(info, *region->block, out);
    }
  }
}

} // namespace

AxisFacts AxisInfo::get(const ir::Value *v) const {
  auto it = facts.find(v);
  if (it != facts.end())
    return it->second;
  return unknown(dims(v));
}

int AxisInfo::vectorWidth(const ir::Value *ptrTensor, const ir::Value *mask, int dim) const {
  const ir::Type &t = ptrTensor->type;
  if (!t.isTensor() || !t.elem.isPtr)
    return 1;
  size_t d = dim < 0 ? size_t(t.rank() - 1) : size_t(dim);
  int64_t bytes = byteSize(t.elem.scalar);
  AxisFacts f = get(ptrTensor);
  // powers of two that divide: a run of vec registers from a multiple of
  // vec stays inside one run of the pointers, aligned to vec elements
  int64_t vec = std::min({pow2Part(f.contiguity[d]), std::max<int64_t>(1, f.divisibility[d] / bytes),
                          std::max<int64_t>(1, 16 / bytes), pow2Part(t.shape[d])});
  if (mask && mask->type.isTensor())
    vec = std::min(vec, pow2Part(get(mask).constancy[d]));
  return static_cast<int>(vec);
}

std::vector<int64_t> AxisInfo::accessOrder(const ir::Value *ptrTensor) const {
  int rank = std::max(1, ptrTensor->type.rank());
  std::vector<int64_t> order;
  for (int d = rank - 1; d >= 0; --d)
    order.push_back(d);
  AxisFacts f = get(ptrTensor);
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return f.contiguity[x] > f.contiguity[y]; });
  return order;
}

AxisInfo analyzeAxisInfo(const ir::Function &fn) {
  AxisInfo info;
  Analysis(info).run(fn);
  return info;
}

std::string printAxisInfo(const ir::Function &fn) {
  AxisInfo info = analyzeAxisInfo(fn);
  std::string out = fmt::format("axis info of @{}\n", fn.name);
  printBlock(info, fn.entry(), out);
  return out;
}

} // namespace tile::gpu
