// Canonicalize.cpp - the patterns listed in Canonicalize.h, one function
// per op family; each returns the replacement value or null.
#include "transforms/Canonicalize.h"
#include "transforms/RewriteUtils.h"

namespace tile::ir {

namespace {

Value *zeroLike(Rewriter &rw, Op &op) {
  Builder b = rw.builderBefore(op);
  return b.constantInt(0, op.result()->type);
}

Value *simplifyIntBinary(Rewriter &rw, Op &op) {
  Value *x = op.operands[0], *y = op.operands[1];
  switch (op.kind) {
  case OpKind::Add:
    if (isConstInt(y, 0)) return x;
    if (isConstInt(x, 0)) return y;
    return nullptr;
  case OpKind::Sub:
    if (isConstInt(y, 0)) return x;
    if (x == y) return zeroLike(rw, op);
    return nullptr;
  case OpKind::Mul:
    if (isConstInt(y, 1)) return x;
    if (isConstInt(x, 1)) return y;
    if (isConstInt(y, 0)) return y;
    if (isConstInt(x, 0)) return x;
    return nullptr;
  case OpKind::Div: return isConstInt(y, 1) ? x : nullptr;
  case OpKind::And:
    if (x == y || isConstInt(y, -1)) return x;
    if (isConstInt(x, -1)) return y;
    if (isConstInt(y, 0)) return y;
    if (isConstInt(x, 0)) return x;
    return nullptr;
  case OpKind::Or:
    if (x == y || isConstInt(y, 0)) return x;
    if (isConstInt(x, 0)) return y;
    if (isConstInt(y, -1)) return y;
    if (isConstInt(x, -1)) return x;
    return nullptr;
  case OpKind::Xor:
    if (isConstInt(y, 0)) return x;
    if (isConstInt(x, 0)) return y;
    if (x == y) return zeroLike(rw, op);
    return nullptr;
  case OpKind::Shl:
  case OpKind::Shr: return isConstInt(y, 0) ? x : nullptr;
  case OpKind::Min:
  case OpKind::Max: return x == y ? x : nullptr;
  default: return nullptr;
  }
}

Value *simplifyFloatBinary(Op &op) {
  Value *x = op.operands[0], *y = op.operands[1];
  switch (op.kind) {
  case OpKind::Add:
    if (isConstFloat(y, -0.0)) return x;
    if (isConstFloat(x, -0.0)) return y;
    return nullptr;
  case OpKind::Sub: return isConstFloat(y, 0.0) ? x : nullptr;
  case OpKind::Mul:
    if (isConstFloat(y, 1.0)) return x;
    if (isConstFloat(x, 1.0)) return y;
    return nullptr;
  case OpKind::Div: return isConstFloat(y, 1.0) ? x : nullptr;
  case OpKind::Min:
  case OpKind::Max: return x == y ? x : nullptr;
  default: return nullptr;
  }
}

bool isIdentityOrder(const std::vector<int64_t> &order) {
  for (size_t i = 0; i < order.size(); ++i)
    if (order[i] != (int64_t)i)
      return false;
  return true;
}

Value *simplifyShape(Rewriter &rw, Op &op) {
  Value *x = op.operands[0];
  const Type &t = op.result()->type;
  if (op.kind == OpKind::Permute)
    return isIdentityOrder(op.intsAttr("order")) ? x : nullptr;
  if (op.kind != OpKind::ExpandDims && op.kind != OpKind::Splat && x->type == t)
    return x;
  if (auto c = matchConstant(x); c && op.kind != OpKind::Permute) {
    Builder b = rw.builderBefore(op);
    return c->isFloat ? b.constantFloat(c->f, t) : b.constantInt(c->i, t);
  }
  // broadcast/reshape/expand_dims of a splat: a splat of the scalar.
  if (op.kind != OpKind::Splat && x->def && x->def->kind == OpKind::Splat) {
    Builder b = rw.builderBefore(op);
    return b.create(OpKind::Splat, {x->def->operands[0]}, {t})->result();
  }
  return nullptr;
}

Value *simplifySelect(Op &op) {
  Value *c = op.operands[0], *a = op.operands[1], *b = op.operands[2];
  if (a == b)
    return a;
  if (isConstInt(c, 1))
    return a;
  if (isConstInt(c, 0))
    return b;
  return nullptr;
}

/// Moves the taken branch's ops before the if; its results become the
/// yielded values.
void inlineIf(Rewriter &rw, Op &op) {
  Block &taken = *op.regions[isConstInt(op.operands[0], 1) ? 0 : 1]->block;
  Op *yield = taken.terminator();
  std::vector<Value *> vals = yield->operands;
  rw.erase(*yield);
  Block &parent = *op.parent;
  auto pos = parent.ops.begin();
  while (pos->get() != &op)
    ++pos;
  for (auto &moved : taken.ops)
    moved->parent = &parent;
  parent.ops.splice(pos, taken.ops);
  rw.replaceOp(op, vals);
}

bool hasZeroTripCount(const Op &op) {
  auto lb = matchConstant(op.operands[0]), ub = matchConstant(op.operands[1]),
       step = matchConstant(op.operands[2]);
  if (!lb || !ub || !step || lb->isFloat)
    return false;
  Scalar s = op.operands[0]->type.elem.scalar;
  int64_t l = wrapToIntType(lb->i, s), u = wrapToIntType(ub->i, s), st = wrapToIntType(step->i, s);
  if (st == 0)
    return false;
  if (!isSigned(s))
    return static_cast<uint64_t>(l) >= static_cast<uint64_t>(u);
  return st > 0 ? l >= u : l <= u;
}

Value *simplify(Rewriter &rw, Op &op) {
  switch (op.kind) {
  case OpKind::Add: case OpKind::Sub: case OpKind::Mul: case OpKind::Div: case OpKind::And:
  case OpKind::Or: case OpKind::Xor: case OpKind::Shl: case OpKind::Shr: case OpKind::Min:
  case OpKind::Max:
    return op.operands[0]->type.elem.isFloat() ? simplifyFloatBinary(op) : simplifyIntBinary(rw, op);
  case OpKind::Cast:
  case OpKind::Bitcast: return op.operands[0]->type == op.result()->type ? op.operands[0] : nullptr;
  case OpKind::Splat: case OpKind::Broadcast: case OpKind::Reshape: case OpKind::Permute:
  case OpKind::ExpandDims: return simplifyShape(rw, op);
  case OpKind::AddPtr: return isConstInt(op.operands[1], 0) ? op.operands[0] : nullptr;
  case OpKind::Select: return simplifySelect(op);
  default: return nullptr;
  }
}

void visit(Rewriter &rw, Op &op) {
  if (op.kind == OpKind::If && matchConstant(op.operands[0]))
    return inlineIf(rw, op);
  if (op.kind == OpKind::For && hasZeroTripCount(op))
    return rw.replaceOp(op, std::vector<Value *>(op.operands.begin() + 3, op.operands.end()));
  if (op.results.size() != 1 || !op.regions.empty() || op.hasSideEffects())
    return;
  Value *v = simplify(rw, op);
  if (v) rw.replaceOp(op, {v});
}

} // namespace

bool canonicalize(Function &fn) {
  Rewriter rw(fn);
  rw.walk([&](Op &op) { visit(rw, op); });
  return rw.changed;
}

} // namespace tile::ir
