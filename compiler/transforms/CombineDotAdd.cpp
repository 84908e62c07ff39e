// CombineDotAdd.cpp - see CombineDotAdd.h.
#include "transforms/CombineDotAdd.h"
#include "transforms/RewriteUtils.h"

#include <map>

namespace tile::ir {

namespace {

bool isZeroAccumulator(const Value *v) {
  if (v->type.elem.isFloat()) return isConstFloat(v, 0.0);
  return isConstInt(v, 0);
}

/// The dot behind one operand of an add that the add may absorb, or null.
Op *absorbableDot(Value *v, const Value *other, const std::map<const Value *, int> &uses) {
  Op *dot = v->def;
  if (!dot || dot->kind != OpKind::Dot || dot->operands.size() != 3) return nullptr;
  if (!isZeroAccumulator(dot->operands[2]) || !(other->type == v->type)) return nullptr;
  auto it = uses.find(v);
  return it != uses.end() && it->second == 1 ? dot : nullptr;
}

} // namespace

bool combineDotAdd(Function &fn) {
  std::map<const Value *, int> uses;
  walk(fn, [&](Op &op) {
    for (Value *v : op.operands) ++uses[v];
  });
  Rewriter rw(fn);
  rw.walk([&](Op &op) {
    if (op.kind != OpKind::Add || op.results.size() != 1 || op.operands.size() != 2) return;
    for (int side = 0; side < 2; ++side) {
      Value *d = op.operands[size_t(1 - side)];
      Op *dot = absorbableDot(op.operands[size_t(side)], d, uses);
      if (!dot) continue;
      Builder b = rw.builderBefore(op);
      Op *combined = b.create(OpKind::Dot, {dot->operands[0], dot->operands[1], d}, {op.result()->type}, dot->attrs);
      rw.replaceOp(op, {combined->result()});
      return;
    }
  });
  return rw.changed;
}

} // namespace tile::ir
