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
//   interleave: join, then a reshape merging the last two dimensions;
//   cat:        join, the new axis moved to the front, merged with dim 0;
//   flip:       the axis moved last and cut into binary digits (2 x 2 x
//               ...), each digit's halves swapped (split, join the other
//               way round): every index bit flipped is i -> n - 1 - i.
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

namespace {

/// order moving axis `from` of a rank-r tensor to position `to`.
std::vector<int64_t> moveAxis(int64_t r, int64_t from, int64_t to) {
  std::vector<int64_t> order;
  for (int64_t i = 0; i < r; ++i)
    if (i != from) order.push_back(i);
  order.insert(order.begin() + to, from);
  return order;
}

std::vector<int64_t> inverse(const std::vector<int64_t> &order) {
  std::vector<int64_t> inv(order.size());
  for (size_t i = 0; i < order.size(); ++i) inv[size_t(order[i])] = int64_t(i);
  return inv;
}

ir::Value *permuteIfNeeded(Lowerer &L, ir::Value *x, const std::vector<int64_t> &order, Location loc) {
  for (size_t i = 0; i < order.size(); ++i)
    if (order[i] != int64_t(i)) return L.at(loc).permute(x, order);
  return x;
}

int64_t axisArg(const CallArgs &a, size_t i, int64_t rank, int64_t dflt) {
  if (!a.has(i) || (a[i].isConst() && a[i].c.isNone())) return dflt;
  if (!a[i].isConst() || !a[i].c.isInt()) fail(a.locs[i], fmt::format("{}: dim must be a constexpr integer", a.fnName));
  int64_t d = std::get<int64_t>(a[i].c.v);
  if (d < 0) d += rank;
  if (d < 0 || d >= rank) fail(a.locs[i], fmt::format("{}: dim {} out of range for rank {}", a.fnName, d, rank));
  return d;
}

/// Argument 0 of `what` (flip, sort): a tensor of numbers, else an error at
/// its location.
ir::Value *numericTensorArg(Lowerer &L, CallArgs &a, const char *what) {
  if (!a[0].isTensor()) fail(a.locs[0], fmt::format("{} needs a tensor, got {}", what, L.typeName(a[0])));
  ir::Value *x = a[0].v;
  ElemType elem = x->type.elem;
  if (elem.isPtr || elem.scalar == Scalar::I1)
    fail(a.locs[0], fmt::format("not supported: {} of {} tensors (numbers only)", what, elem.str()));
  return x;
}

} // namespace

Val shapeCat(Lowerer &L, CallArgs &a) {
  if (!a[0].isTensor() || !a[1].isTensor())
    fail(a.loc, fmt::format("cat needs two tensors, got {} and {}", L.typeName(a[0]), L.typeName(a[1])));
  ir::Value *x = a[0].v, *y = a[1].v;
  if (x->type.shape != y->type.shape)
    fail(a.loc, fmt::format("not supported: cat of tensors of different shapes ({} and {})", x->type.str(),
                            y->type.str()));
  ir::Value *j = joinValues(L, a, x, y);   // S + [2]
  int64_t r = j->type.rank();
  ir::Value *front = L.at(a.loc).permute(j, moveAxis(r, r - 1, 0));   // [2] + S
  std::vector<int64_t> shape(x->type.shape);
  shape[0] *= 2;
  return Val::ir(L.at(a.loc).reshape(front, shape));
}

Val shapeFlip(Lowerer &L, CallArgs &a) {
  ir::Value *x = numericTensorArg(L, a, "flip");
  int64_t r = x->type.rank(), d = axisArg(a, 1, r, r - 1), n = x->type.shape[size_t(d)];
  if (n == 1) return Val::ir(x);
  int64_t k = 0;
  while ((int64_t(1) << k) < n) ++k;
  if ((int64_t(1) << k) != n) fail(a.locs[0], fmt::format("flip needs a power-of-two length, got {}", n));
  std::vector<int64_t> toLast = moveAxis(r, d, r - 1);
  ir::Value *y = permuteIfNeeded(L, x, toLast, a.loc);
  std::vector<int64_t> lastShape = y->type.shape, bits(lastShape.begin(), lastShape.end() - 1);
  bits.insert(bits.end(), size_t(k), 2);
  y = L.at(a.loc).reshape(y, bits);
  int64_t rb = int64_t(bits.size());
  for (int64_t bit = r - 1; bit < rb; ++bit) {
    std::vector<int64_t> order = moveAxis(rb, bit, rb - 1);
    ir::Value *z = permuteIfNeeded(L, y, order, a.loc);
    ir::Value *first = firstHalfMask(L, z->type.shape, a.loc);
    ir::Value *lo = splitHalf(L, z, first, 0, a.loc), *hi = splitHalf(L, z, first, 1, a.loc);
    z = joinValues(L, a, hi, lo);
    y = permuteIfNeeded(L, z, inverse(order), a.loc);
  }
  y = L.at(a.loc).reshape(y, lastShape);
  return Val::ir(permuteIfNeeded(L, y, inverse(toLast), a.loc));
}

Val shapeRavel(Lowerer &L, CallArgs &a) {
  if (!a[0].isTensor()) fail(a.locs[0], fmt::format("ravel needs a tensor, got {}", L.typeName(a[0])));
  ir::Value *x = a[0].v;
  if (x->type.rank() == 1) return Val::ir(x);
  return Val::ir(L.at(a.loc).reshape(x, {x->type.numElements()}));
}

Val shapeSwizzle2d(Lowerer &L, CallArgs &a) {
  using ast::BinOpKind;
  Location loc = a.loc;
  auto op = [&](BinOpKind k, const Val &x, const Val &y) { return L.binaryOp(k, x, y, loc); };
  const Val &i = a[0], &j = a[1], &sizeI = a[2], &sizeJ = a[3];
  Val sizeG = a[4];
  Val ij = op(BinOpKind::Add, op(BinOpKind::Mul, i, sizeJ), j);
  Val sizeGJ = op(BinOpKind::Mul, sizeG, sizeJ);
  Val groupId = op(BinOpKind::FloorDiv, ij, sizeGJ);
  Val offI = op(BinOpKind::Mul, groupId, sizeG);
  Val rest = op(BinOpKind::Sub, sizeI, offI);
  // core.minimum(size_i - off_i, size_g)
  if (rest.isConst() && sizeG.isConst())
    sizeG = std::get<int64_t>(rest.c.v) < std::get<int64_t>(sizeG.c.v) ? rest : sizeG;
  else {
    auto [x, y] = L.promote(rest, sizeG, loc);   // promoted and broadcast, as tl.minimum
    sizeG = Val::ir(L.at(loc).binary(OpKind::Min, x, y));
  }
  ij = op(BinOpKind::Mod, ij, sizeGJ);
  Val newI = op(BinOpKind::Add, offI, op(BinOpKind::Mod, ij, sizeG));
  Val newJ = op(BinOpKind::FloorDiv, ij, sizeG);
  return Val::tuple({newI, newJ});
}

Val shapeSort(Lowerer &L, CallArgs &a) {
  ir::Value *x = numericTensorArg(L, a, "sort");
  int64_t r = x->type.rank();
  if (axisArg(a, 1, r, r - 1) != r - 1) fail(a.locs[1], "not supported: sort along a dimension other than the last");
  bool descending = a.has(2) && L.isTruthyConst(a[2], a.locs[2]);
  int64_t n = x->type.shape.back(), k = 0;
  while ((int64_t(1) << k) < n) ++k;
  if ((int64_t(1) << k) != n) fail(a.locs[0], fmt::format("sort needs a power-of-two length, got {}", n));
  Location loc = a.loc;
  std::vector<int64_t> outer(x->type.shape.begin(), x->type.shape.end() - 1), full = x->type.shape;
  // stage s merges runs of 2^s; step j compares i with i ^ 2^j. The last
  // axis is viewed as [A = n / 2^(j+1), 2, C = 2^j]; the pair axis goes last
  // and is split into the two sides.
  for (int64_t s = 1; s <= k; ++s) {
    for (int64_t j = s - 1; j >= 0; --j) {
      int64_t A = n >> (j + 1), C = int64_t(1) << j;
      std::vector<int64_t> view = outer;
      view.insert(view.end(), {A, 2, C});
      int64_t rv = int64_t(view.size());
      std::vector<int64_t> order = moveAxis(rv, rv - 2, rv - 1);   // [..., A, C, 2]
      ir::Value *y = L.at(loc).permute(L.at(loc).reshape(x, view), order);
      ir::Value *first = firstHalfMask(L, y->type.shape, loc);
      ir::Value *lo = splitHalf(L, y, first, 0, loc), *hi = splitHalf(L, y, first, 1, loc);
      // direction of the run: bit s of i is bit (s - j - 1) of the A index
      // (the last stage: every run ascending); descending sorts flip it
      std::vector<int64_t> sideShape = lo->type.shape;
      ir::Value *dir;
      if (s == k) {
        dir = L.at(loc).constantInt(descending ? 1 : 0, ir::Type::tensor(ElemType::of(Scalar::I1), sideShape));
      } else {
        std::vector<int64_t> aShape(sideShape.size(), 1);
        aShape[aShape.size() - 2] = A;
        ir::Value *ai = L.at(loc).reshape(L.at(loc).arange(0, A), aShape);
        ir::Type it = ai->type;
        ir::Value *bit = L.at(loc).binary(ir::OpKind::And, L.at(loc).binary(ir::OpKind::Shr, ai, L.at(loc).constantInt(s - j - 1, it)),
                                          L.at(loc).constantInt(1, it));
        dir = L.at(loc).cmp(descending ? "eq" : "ne", bit, L.at(loc).constantInt(0, it));
        dir = L.broadcastTo(dir, sideShape, loc);
      }
      ir::Value *swap = L.at(loc).cmp("ne", L.at(loc).cmp("gt", lo, hi), dir);
      ir::Value *newLo = L.at(loc).select(swap, hi, lo), *newHi = L.at(loc).select(swap, lo, hi);
      ir::Value *joined = joinValues(L, a, newLo, newHi);   // [..., A, C, 2]
      x = L.at(loc).reshape(L.at(loc).permute(joined, inverse(order)), full);
    }
  }
  return Val::ir(x);
}

} // namespace tile::sema
