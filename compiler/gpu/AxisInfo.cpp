// AxisInfo.cpp - the axis-info transfer functions, one per op family (after
// Triton's lib/Analysis/AxisInfo.cpp), and the loop fixpoint.
#include "gpu/AxisInfo.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>

namespace tile::gpu {

namespace {

using ir::OpKind;
constexpr int64_t kMaxDiv = int64_t(1) << 30;

int64_t pow2Divisor(int64_t v) {
  if (v == 0)
    return kMaxDiv;
  int64_t d = 1;
  while (d < kMaxDiv && v % (d * 2) == 0)
    d *= 2;
  return d;
}

int dims(const ir::Value *v) { return std::max(1, v->type.rank()); }

AxisFacts unknown(int n) { return {std::vector<int64_t>(n, 1), std::vector<int64_t>(n, 1), std::vector<int64_t>(n, 1)}; }

/// A value the same everywhere: constancy = the whole dim.
AxisFacts uniform(const ir::Value *v, int64_t div) {
  AxisFacts f = unknown(dims(v));
  for (int d = 0; d < v->type.rank(); ++d)
    f.constancy[d] = v->type.shape[d];
  f.divisibility.assign(f.divisibility.size(), div);
  return f;
}

AxisFacts meet(const AxisFacts &a, const AxisFacts &b) {
  AxisFacts f = a;
  for (size_t d = 0; d < f.contiguity.size() && d < b.contiguity.size(); ++d) {
    f.contiguity[d] = std::gcd(a.contiguity[d], b.contiguity[d]);
    f.divisibility[d] = std::gcd(a.divisibility[d], b.divisibility[d]);
    f.constancy[d] = std::gcd(a.constancy[d], b.constancy[d]);
  }
  return f;
}

bool sameFacts(const AxisFacts &a, const AxisFacts &b) {
  return a.contiguity == b.contiguity && a.divisibility == b.divisibility && a.constancy == b.constancy;
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

  void block(const ir::Block &b) {
    for (const auto &op : b.ops)
      visit(*op);
  }

  /// Is f constant 1 splat? (the multiplicative identity keeps contiguity)
  static bool isOne(const ir::Op *def) {
    while (def && def->kind == OpKind::Splat)
      def = def->operands[0]->def;
    return def && def->kind == OpKind::Constant && std::holds_alternative<int64_t>(def->attrs.at("value")) &&
           std::get<int64_t>(def->attrs.at("value")) == 1;
  }

  AxisFacts addLike(const ir::Op &op, int64_t rhsScale) {
    AxisFacts a = get(op.operands[0]), b = get(op.operands[1]);
    AxisFacts f = unknown(dims(op.result()));
    bool sub = op.kind == OpKind::Sub;
    for (size_t d = 0; d < f.contiguity.size(); ++d) {
      int64_t bDiv = b.divisibility[d] >= kMaxDiv ? kMaxDiv : std::min(kMaxDiv, b.divisibility[d] * rhsScale);
      f.contiguity[d] = std::gcd(a.contiguity[d], b.constancy[d]);
      if (!sub)
        f.contiguity[d] = std::max(f.contiguity[d], std::gcd(a.constancy[d], b.contiguity[d]));
      f.divisibility[d] = std::gcd(a.divisibility[d], bDiv);
      f.constancy[d] = std::gcd(a.constancy[d], b.constancy[d]);
    }
    return f;
  }

  AxisFacts mul(const ir::Op &op) {
    AxisFacts a = get(op.operands[0]), b = get(op.operands[1]);
    bool aOne = isOne(op.operands[0]->def), bOne = isOne(op.operands[1]->def);
    AxisFacts f = unknown(dims(op.result()));
    for (size_t d = 0; d < f.contiguity.size(); ++d) {
      // [2^n, 2^n+1, ...] is only divisible by 1 past its first element
      int64_t aDiv = a.contiguity[d] > 1 && !bOne ? 1 : a.divisibility[d];
      int64_t bDiv = b.contiguity[d] > 1 && !aOne ? 1 : b.divisibility[d];
      f.divisibility[d] = std::min(kMaxDiv, aDiv * bDiv);
      f.constancy[d] = std::gcd(a.constancy[d], b.constancy[d]);
      f.contiguity[d] = aOne ? b.contiguity[d] : bOne ? a.contiguity[d] : 1;
    }
    return f;
  }

  /// `x < n` over an aligned contiguous x and a uniform aligned n is
  /// constant over runs of gcd(contiguity, alignments) (masks of tails).
  AxisFacts cmp(const ir::Op &op) {
    AxisFacts a = get(op.operands[0]), b = get(op.operands[1]);
    AxisFacts f = unknown(dims(op.result()));
    const std::string &pred = op.strAttr("pred");
    for (size_t d = 0; d < f.contiguity.size(); ++d) {
      f.constancy[d] = std::gcd(a.constancy[d], b.constancy[d]);
      int64_t extent = op.result()->type.rank() ? op.result()->type.shape[d] : 1;
      bool bUniform = b.constancy[d] >= extent, aUniform = a.constancy[d] >= extent;
      if ((pred == "lt" || pred == "ge") && bUniform)
        f.constancy[d] = std::max(f.constancy[d], std::gcd(a.contiguity[d], std::gcd(a.divisibility[d], b.divisibility[d])));
      if ((pred == "gt" || pred == "le") && aUniform)
        f.constancy[d] = std::max(f.constancy[d], std::gcd(b.contiguity[d], std::gcd(a.divisibility[d], b.divisibility[d])));
    }
    return f;
  }

  AxisFacts elementwiseConstancy(const ir::Op &op) {
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

  /// tl.multiple_of / max_contiguous / max_constancy: the author's promise,
  /// taken where it says more than what is proven (as Triton's hints).
  AxisFacts hinted(const ir::Op &op) {
    AxisFacts f = get(op.operands[0]);
    auto take = [&](const char *name, std::vector<int64_t> &facts) {
      auto it = op.attrs.find(name);
      if (it == op.attrs.end()) return;
      const auto &v = std::get<std::vector<int64_t>>(it->second);
      for (size_t d = 0; d < facts.size() && d < v.size(); ++d) facts[d] = std::max(facts[d], v[d]);
    };
    take("multiple_of", f.divisibility);
    take("max_contiguous", f.contiguity);
    take("max_constancy", f.constancy);
    return f;
  }

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

  AxisFacts expandDims(const ir::Op &op) {
    AxisFacts x = get(op.operands[0]);
    int axis = (int)op.intAttr("axis");
    // every element's own divisibility: the gcd over the dims, runs count as 1
    int64_t div = kMaxDiv;
    for (size_t d = 0; d < x.divisibility.size(); ++d)
      div = std::gcd(div, x.contiguity[d] > 1 ? 1 : x.divisibility[d]);
    if (!op.operands[0]->type.isTensor())
      return uniform(op.result(), div);
    x.contiguity.insert(x.contiguity.begin() + axis, 1);
    x.divisibility.insert(x.divisibility.begin() + axis, div);
    x.constancy.insert(x.constancy.begin() + axis, 1);
    return x;
  }

  AxisFacts transfer(const ir::Op &op) {
    const ir::Value *r = op.result();
    switch (op.kind) {
    case OpKind::Constant: {
      const auto &v = op.attrs.at("value");
      return uniform(r, std::holds_alternative<int64_t>(v) ? pow2Divisor(std::get<int64_t>(v)) : 1);
    }
    case OpKind::Arange: {
      AxisFacts f = unknown(1);
      f.contiguity[0] = r->type.shape[0];
      f.divisibility[0] = pow2Divisor(op.intAttr("start"));
      return f;
    }
    case OpKind::Splat:
      return uniform(r, get(op.operands[0]).divisibility[0]);
    case OpKind::Broadcast:
      return broadcast(op);
    case OpKind::ExpandDims:
      return expandDims(op);
    case OpKind::ConvertLayout:
      return get(op.operands[0]);
    case OpKind::Hint:
      return hinted(op);
    case OpKind::Add:
    case OpKind::Sub:
      return addLike(op, 1);
    case OpKind::AddPtr:
      return addLike(op, byteSize(op.operands[0]->type.elem.scalar));
    case OpKind::Mul:
      return mul(op);
    case OpKind::Cmp:
      return cmp(op);
    case OpKind::Cast:
      if (op.operands[0]->type.elem.isInt() && r->type.elem.isInt())
        return get(op.operands[0]);
      return elementwiseConstancy(op);
    case OpKind::And:
    case OpKind::Or:
    case OpKind::Xor:
    case OpKind::Select:
    case OpKind::Not:
    case OpKind::Neg:
    case OpKind::Div:
    case OpKind::Rem:
    case OpKind::Min:
    case OpKind::Max:
      return elementwiseConstancy(op);
    default:
      return unknown(dims(r));
    }
  }

  void visit(const ir::Op &op) {
    switch (op.kind) {
    case OpKind::For:
      return loop(op, *op.regions[0]->block, 3, 1);
    case OpKind::While:
      return whileLoop(op);
    case OpKind::If:
      return ifOp(op);
    default:
      break;
    }
    if (op.results.size() == 1)
      set(op.result(), transfer(op));
    else
      for (const auto &r : op.results)
        set(r.get(), unknown(dims(r.get())));
  }

  /// Iterates the body from the init facts, meeting with the yielded facts,
  /// until stable (at most a few rounds, then everything unknown).
  void loop(const ir::Op &op, const ir::Block &body, size_t firstInit, size_t firstArg) {
    size_t n = op.operands.size() - firstInit;
    if (firstArg == 1) {
      AxisFacts iv = unknown(1);
      iv.divisibility[0] = std::gcd(get(op.operands[0]).divisibility[0], get(op.operands[2]).divisibility[0]);
      set(body.args[0].get(), iv);
    }
    std::vector<AxisFacts> cur(n);
    for (size_t i = 0; i < n; ++i)
      cur[i] = get(op.operands[firstInit + i]);
    bool stable = false;
    for (int round = 0; round < 4 && !stable; ++round) {
      for (size_t i = 0; i < n; ++i)
        set(body.args[firstArg + i].get(), cur[i]);
      block(body);
      stable = true;
      const ir::Op *y = body.terminator();
      for (size_t i = 0; i < n && y && i < y->operands.size(); ++i) {
        AxisFacts m = meet(cur[i], get(y->operands[i]));
        stable = stable && sameFacts(m, cur[i]);
        cur[i] = m;
      }
    }
    for (size_t i = 0; i < n; ++i) {
      AxisFacts f = stable ? cur[i] : unknown(dims(op.results[i].get()));
      if (!stable) {
        set(body.args[firstArg + i].get(), f);
        block(body);
      }
      set(op.results[i].get(), f);
    }
  }

  void whileLoop(const ir::Op &op) {
    // Conservative: carried values and results are unknown.
    const ir::Block &cond = *op.regions[0]->block, &body = *op.regions[1]->block;
    for (const auto &a : cond.args)
      set(a.get(), unknown(dims(a.get())));
    block(cond);
    for (const auto &a : body.args)
      set(a.get(), unknown(dims(a.get())));
    block(body);
    for (const auto &r : op.results)
      set(r.get(), unknown(dims(r.get())));
  }

  void ifOp(const ir::Op &op) {
    const ir::Block &t = *op.regions[0]->block, &e = *op.regions[1]->block;
    block(t);
    block(e);
    for (size_t i = 0; i < op.results.size(); ++i) {
      const ir::Op *yt = t.terminator(), *ye = e.terminator();
      if (yt && ye && i < yt->operands.size() && i < ye->operands.size())
        set(op.results[i].get(), meet(get(yt->operands[i]), get(ye->operands[i])));
      else
        set(op.results[i].get(), unknown(dims(op.results[i].get())));
    }
  }
};

std::string listStr(const std::vector<int64_t> &v) { return fmt::format("[{}]", fmt::join(v, ", ")); }

} // namespace

AxisFacts AxisInfo::get(const ir::Value *v) const {
  auto it = facts.find(v);
  if (it != facts.end())
    return it->second;
  return unknown(dims(v));
}

int AxisInfo::vectorWidth(const ir::Value *ptrTensor, const ir::Value *mask) const {
  const ir::Type &t = ptrTensor->type;
  if (!t.isTensor() || !t.elem.isPtr)
    return 1;
  int last = t.rank() - 1;
  int64_t bytes = byteSize(t.elem.scalar);
  AxisFacts f = get(ptrTensor);
  int64_t vec = std::min({f.contiguity[last], std::max<int64_t>(1, f.divisibility[last] / bytes),
                          std::max<int64_t>(1, 16 / bytes), t.shape[last]});
  if (mask && mask->type.isTensor())
    vec = std::min(vec, get(mask).constancy[last]);
  int64_t p = 1;
  while (p * 2 <= vec)
    p *= 2;
  return (int)p;
}

AxisInfo analyzeAxisInfo(const ir::Function &fn) {
  AxisInfo info;
  Analysis(info).run(fn);
  return info;
}

std::string printAxisInfo(const ir::Function &fn) {
  AxisInfo info = analyzeAxisInfo(fn);
  std::string out;
  ir::walk(const_cast<ir::Function &>(fn), [&](ir::Op &op) {
    for (const auto &r : op.results) {
      AxisFacts f = info.get(r.get());
      out += fmt::format("{}: contiguity = {}, divisibility = {}, constancy = {}\n", ir::opName(op.kind),
                         listStr(f.contiguity), listStr(f.divisibility), listStr(f.constancy));
    }
  });
  return out;
}

} // namespace tile::gpu
