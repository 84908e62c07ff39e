// RewriteUtils.cpp - see RewriteUtils.h.
#include "transforms/RewriteUtils.h"

#include <cstring>

namespace tile::ir {

std::optional<ConstVal> matchConstant(const Value *v) {
  if (!v || !v->def)
    return std::nullopt;
  const Op *op = v->def;
  if (op->kind == OpKind::Splat)
    return matchConstant(op->operands[0]);
  if (op->kind != OpKind::Constant)
    return std::nullopt;
  auto it = op->attrs.find("value");
  if (it == op->attrs.end())
    return std::nullopt;
  if (auto *i = std::get_if<int64_t>(&it->second))
    return ConstVal{false, *i, 0.0};
  if (auto *d = std::get_if<double>(&it->second))
    return ConstVal{true, 0, *d};
  return std::nullopt;
}

bool isConstInt(const Value *v, int64_t x) {
  auto c = matchConstant(v);
  if (!c || c->isFloat || !v->type.elem.isInt())
    return false;
  Scalar s = v->type.elem.scalar;
  return wrapToIntType(c->i, s) == wrapToIntType(x, s);
}

bool isConstFloat(const Value *v, double x) {
  auto c = matchConstant(v);
  return c && c->isFloat && std::memcmp(&c->f, &x, sizeof(double)) == 0;
}

bool isPureOp(const Op &op) { return op.regions.empty() && !op.hasSideEffects(); }

Rewriter::~Rewriter() = default;

Value *Rewriter::resolve(Value *v) const {
  for (auto it = map_.find(v); it != map_.end(); it = map_.find(v))
    v = it->second;
  return v;
}

void Rewriter::walk(const std::function<void(Op &)> &visit) {
  walkBlock(fn_.entry(), visit);
  // Uses were remapped on the way; this catches any use the walk order
  // missed (only possible in unverified IR).
  replaceUses(fn_, map_);
}

void Rewriter::walkBlock(Block &b, const std::function<void(Op &)> &visit) {
  for (auto it = b.ops.begin(); it != b.ops.end();) {
    Op &op = **it;
    ++it;
    for (Value *&v : op.operands)
      v = resolve(v);
    for (auto &r : op.regions)
      walkBlock(*r->block, visit);
    visit(op);
  }
}

void Rewriter::replaceOp(Op &op, const std::vector<Value *> &vals) {
  TILE_ASSERT(vals.size() == op.results.size(), "replaceOp: wrong number of values");
  for (size_t i = 0; i < vals.size(); ++i)
    map_[op.result(i)] = resolve(vals[i]);
  erase(op);
}

void Rewriter::erase(Op &op) {
  auto &ops = op.parent->ops;
  for (auto it = ops.begin(); it != ops.end(); ++it) {
    if (it->get() != &op)
      continue;
    graveyard_.push_back(std::move(*it));
    ops.erase(it);
    changed = true;
    return;
  }
  TILE_ASSERT(false, "erase: op is not in its parent block");
}

Builder Rewriter::builderBefore(Op &op) {
  Builder b(op.parent);
  b.setInsertionPoint(&op);
  b.loc = op.loc;
  return b;
}

} // namespace tile::ir
