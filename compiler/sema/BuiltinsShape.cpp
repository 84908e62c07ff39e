// BuiltinsShape.cpp - tl.join, tl.split and tl.interleave, with Triton's
// semantics (python/triton/language/core.py and semantic.py), built from
// existing IR ops so that the interpreter and the GPU agree by construction:
//   join:       expand_dims + broadcast of each operand to S + [2], then a
//               select on (arange(0, 2) == 0) along the new minor axis;
//   split:      per half, a select that keeps that half and puts an exact
//               zero (-0.0 for floats: x + -0.0 == x for every x, -0.0
//               included) in the other, then a sum over the last axis
//               (a sum of one value and one zero is exact in any order);
//               pointers go through int64 bits;
//   interleave: join, then a reshape merging the last two dimensions.
#include "sema/BuiltinsShape.h"

#include <fmt/format.h>

namespace tile::sema {

using ir::OpKind;

namespace {

/// An operand of join/interleave as an IR value; a constexpr number takes
/// the other operand's dtype.
ir::Value *joinOperand(Lowerer &L, const CallArgs &a, size_t i, const Val &other) {
  const Val &v = a[i];
  if (v.isIR()) return v.v;
  if (!v.isConst() || !(v.c.isInt() || v.c.isFloat() || v.c.isBool()))
    fail(a.locs[i], fmt::format("{} expects tensors or numbers, got {}", a.fnName, L.typeName(v)));
  if (other.isIR()) return L.toIRAs(v, other.v->type.elem, a.locs[i]);
  return L.toIR(v, a.locs[i], "operand");
}

/// (arange(0, 2) == 0) along the last axis of `shape`, broadcast to it.
ir::Value *firstHalfMask(Lowerer &L, const std::vector<int64_t> &shape, Location loc) {
  ir::Value *idx = L.at(loc).arange(0, 2);
  if (shape.size() > 1) {
    std::vector<int64_t> idxShape(shape.size(), 1);
    idxShape.back() = 2;
    idx = L.at(loc).reshape(idx, idxShape);
  }
  idx = L.broadcastTo(idx, shape, loc);
  ir::Value *zero = L.at(loc).constantInt(0, ir::Type::tensor(ElemType::of(Scalar::I32), shape));
  return L.at(loc).cmp("eq", idx, zero);
}

/// join of two IR values (the checks done).
ir::Value *joinValues(Lowerer &L, const CallArgs &a, ir::Value *x, ir::Value *y) {
  if (x->type.elem != y->type.elem)
    fail(a.loc, fmt::format("{} needs operands of one dtype, got {} and {} (cast one with .to())", a.fnName,
                            x->type.elem.str(), y->type.elem.str()));
  std::string what = a.fnName + " operand";
  std::vector<int64_t> shape = L.broadcastShapes(x->type.shape, y->type.shape, a.loc, what.c_str());
  std::vector<int64_t> out = shape;
  out.push_back(2);
  L.tensorType(x->type.elem, out, a.loc);
  auto widen = [&](ir::Value *v) {
    v = L.broadcastTo(v, shape, a.loc);
    if (!v->type.isTensor()) return L.at(a.loc).splat(v, out);
    return L.at(a.loc).broadcast(L.at(a.loc).expandDims(v, v->type.rank()), out);
  };
  ir::Value *wx = widen(x), *wy = widen(y);
  return L.at(a.loc).select(firstHalfMask(L, out, a.loc), wx, wy);
}

/// One half of split: x[..., half] for an x whose last dimension is 2.
ir::Value *splitHalf(Lowerer &L, ir::Value *x, ir::Value *first, int half, Location loc) {
  ElemType e = x->type.elem;
  ir::Value *zero = e.isFloat() ? L.at(loc).constantFloat(-0.0, x->type) : L.at(loc).constantInt(0, x->type);
  ir::Value *kept = half == 0 ? L.at(loc).select(first, x, zero) : L.at(loc).select(first, zero, x);
  return L.at(loc).reduce(kept, "sum", x->type.rank() - 1, e);
}

} // namespace

Val shapeJoin(Lowerer &L, CallArgs &a) {
  ir::Value *x = joinOperand(L, a, 0, a[1]);
  ir::Value *y = joinOperand(L, a, 1, Val::ir(x));
  return Val::ir(joinValues(L, a, x, y));
}

Val shapeSplit(Lowerer &L, CallArgs &a) {
  const Val &v = a[0];
  if (!v.isTensor())
    fail(a.locs[0], fmt::format("split needs a tensor whose last dimension is 2, got {}", L.typeName(v)));
  ir::Value *x = v.v;
  if (x->type.shape.back() != 2)
    fail(a.locs[0], fmt::format("split needs a tensor whose last dimension is 2, got {}", x->type.str()));
  ElemType elem = x->type.elem;
  if (elem.isPtr) x = L.at(a.loc).bitcast(x, ElemType::of(Scalar::I64));
  ir::Value *first = firstHalfMask(L, x->type.shape, a.loc);
  ir::Value *lo = splitHalf(L, x, first, 0, a.loc), *hi = splitHalf(L, x, first, 1, a.loc);
  if (elem.isPtr) {
    lo = L.at(a.loc).bitcast(lo, elem);
    hi = L.at(a.loc).bitcast(hi, elem);
  }
  return Val::tuple({Val::ir(lo), Val::ir(hi)});
}

Val shapeInterleave(Lowerer &L, CallArgs &a) {
  ir::Value *x = joinOperand(L, a, 0, a[1]);
  ir::Value *y = joinOperand(L, a, 1, Val::ir(x));
  ir::Value *j = joinValues(L, a, x, y);
  if (j->type.rank() == 1) return Val::ir(j);
  std::vector<int64_t> shape(j->type.shape.begin(), j->type.shape.end() - 2);
  shape.push_back(2 * j->type.shape[j->type.rank() - 2]);
  return Val::ir(L.at(a.loc).reshape(j, shape));
}

} // namespace tile::sema
