// BuiltinsSelect.cpp - tl.gather, tl.histogram and tl.topk (see
// BuiltinsSelect.h), with Triton 3.6's checks (semantic.py: gather needs an
// integer index of src's rank and src's dims but on axis; histogram a 1-D
// integer input; topk the last dimension). Values move exactly: a one-hot
// select puts the chosen element beside zeros (-0.0 for floats, so -0.0 and
// NaN come through) and a sum over the candidates picks it.
#include "sema/BuiltinsSelect.h"

#include "sema/BuiltinsShape.h"

#include <fmt/format.h>

namespace tile::sema {

namespace {

ir::Value *tensorOf(Lowerer &L, const CallArgs &a, size_t i, const char *what) {
  if (!a[i].isTensor()) fail(a.locs[i], fmt::format("{} of {} must be a tensor, got {}", what, a.fnName, L.typeName(a[i])));
  return a[i].v;
}

int64_t constIntArg(Lowerer &L, const CallArgs &a, size_t i, const char *what) {
  if (!a[i].isConst() || !a[i].c.isInt())
    fail(a.locs[i], fmt::format("{} of {} must be a constexpr integer, got {}", what, a.fnName, L.typeName(a[i])));
  return std::get<int64_t>(a[i].c.v);
}

bool isPow2(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

/// An integer tensor widened to i32 (i64 when 64 bits wide) for comparing
/// with candidate numbers: small and unsigned types keep their values.
ir::Value *widened(Lowerer &L, ir::Value *x, Location loc) {
  return L.castTo(x, ElemType::of(bitWidth(x->type.elem.scalar) == 64 ? Scalar::I64 : Scalar::I32), loc);
}

/// arange(0, n) of `elem`, shaped [1, ..., n] (rank r, n last).
ir::Value *lastAxisIota(Lowerer &L, int64_t n, int r, ElemType elem, Location loc) {
  ir::Value *k = L.at(loc).arange(0, n);
  if (elem != k->type.elem) k = L.castTo(k, elem, loc);
  std::vector<int64_t> shape(size_t(r), 1);
  shape.back() = n;
  return r == 1 ? k : L.at(loc).reshape(k, shape);
}

/// sum over `axis` of select(onehot, x, 0): the one selected element, exactly
/// (pointers through their int64 bits, booleans through i8).
ir::Value *pick(Lowerer &L, ir::Value *onehot, ir::Value *x, int axis, Location loc) {
  ElemType elem = x->type.elem;
  if (elem.isPtr) x = L.at(loc).bitcast(x, ElemType::of(Scalar::I64));
  if (elem.scalar == Scalar::I1) x = L.castTo(x, ElemType::of(Scalar::I8), loc);
  ir::Value *zero = x->type.elem.isFloat() ? L.at(loc).constantFloat(-0.0, x->type) : L.at(loc).constantInt(0, x->type);
  ir::Value *r = L.at(loc).reduce(L.at(loc).select(onehot, x, zero), "sum", axis, x->type.elem);
  if (elem.isPtr) return L.at(loc).bitcast(r, elem);
  if (elem.scalar == Scalar::I1) return L.castTo(r, elem, loc);
  return r;
}

} // namespace

Val selectGather(Lowerer &L, CallArgs &a) {
  ir::Value *src = tensorOf(L, a, 0, "src"), *index = tensorOf(L, a, 1, "index");
  if (!index->type.elem.isInt() || index->type.elem.isPtr || index->type.elem.scalar == Scalar::I1)
    fail(a.locs[1], fmt::format("index must be an integer tensor, got {}", index->type.str()));
  int r = src->type.rank();
  if (index->type.rank() != r)
    fail(a.locs[1], fmt::format("source and index tensors must have the same rank ({} and {})", src->type.str(),
                                index->type.str()));
  int64_t axis = constIntArg(L, a, 2, "axis");
  if (axis < -r || axis >= r) fail(a.locs[2], fmt::format("gather axis {} must be < source rank ({})", axis, r));
  if (axis < 0) axis += r;
  for (int d = 0; d < r; ++d)
    if (d != axis && index->type.shape[d] != src->type.shape[d])
      fail(a.locs[1], fmt::format("index dim {} must match the corresponding source dim ({} and {})", d,
                                  index->type.str(), src->type.str()));
  Location loc = a.loc;
  int64_t n = src->type.shape[axis];
  // [index shape..., n]: candidate k of result element i is src[i, axis -> k]
  std::vector<int64_t> wide = index->type.shape;
  wide.push_back(n);
  L.tensorType(src->type.elem, wide, loc);
  std::vector<int64_t> order;
  for (int d = 0; d < r; ++d)
    if (d != axis) order.push_back(d);
  order.push_back(axis);
  ir::Value *s = r == 1 ? src : L.at(loc).permute(src, order);   // src with axis last
  s = L.at(loc).broadcast(L.at(loc).expandDims(s, static_cast<int>(axis)), wide);
  index = widened(L, index, loc);
  ir::Value *idx = L.at(loc).broadcast(L.at(loc).expandDims(index, r), wide);
  ir::Value *k = L.broadcastTo(lastAxisIota(L, n, r + 1, index->type.elem, loc), wide, loc);
  return Val::ir(pick(L, L.at(loc).cmp("eq", idx, k), s, r, loc));
}

Val selectHistogram(Lowerer &L, CallArgs &a) {
  ir::Value *x = tensorOf(L, a, 0, "input");
  if (x->type.rank() != 1) fail(a.locs[0], fmt::format("histogram only supports 1D input, got {}", x->type.str()));
  if (!x->type.elem.isInt() || x->type.elem.isPtr || x->type.elem.scalar == Scalar::I1)
    fail(a.locs[0], fmt::format("histogram only supports integer input, got {}", x->type.str()));
  int64_t bins = constIntArg(L, a, 1, "num_bins");
  if (!isPow2(bins)) fail(a.locs[1], fmt::format("num_bins of histogram must be a power of 2, got {}", bins));
  Location loc = a.loc;
  int64_t n = x->type.shape[0];
  std::vector<int64_t> wide{n, bins};
  L.tensorType(ElemType::of(Scalar::I32), wide, loc);
  x = widened(L, x, loc);
  ir::Value *xs = L.at(loc).broadcast(L.at(loc).expandDims(x, 1), wide);
  ir::Value *b = L.broadcastTo(lastAxisIota(L, bins, 2, x->type.elem, loc), wide, loc);
  ir::Value *hit = L.at(loc).cmp("eq", xs, b);
  if (a.has(2)) {
    ir::Value *m = L.toCondition(a[2], a.locs[2], "histogram mask");
    if (m->type.isTensor() && m->type.elem != ElemType::of(Scalar::I1))
      fail(a.locs[2], fmt::format("the mask of histogram must be boolean, got {}", m->type.str()));
    m = L.broadcastTo(m, {n}, a.locs[2]);
    hit = L.at(loc).binary(ir::OpKind::And, hit, L.at(loc).broadcast(L.at(loc).expandDims(m, 1), wide));
  }
  ir::Value *ones = L.castTo(hit, ElemType::of(Scalar::I32), loc);
  return Val::ir(L.at(loc).reduce(ones, "sum", 0, ElemType::of(Scalar::I32)));
}

Val selectTopk(Lowerer &L, CallArgs &a) {
  ir::Value *x = tensorOf(L, a, 0, "x");
  int r = x->type.rank();
  int64_t k = constIntArg(L, a, 1, "k"), n = x->type.shape.back();
  if (a.has(2)) {
    int64_t d = constIntArg(L, a, 2, "dim");
    if (d != r - 1 && d != -1) fail(a.locs[2], "only minor dimension is currently supported");
  }
  if (!isPow2(k) || k > n)
    fail(a.locs[1], fmt::format("k of topk must be a power of 2 no larger than the last dimension ({}), got {}", n, k));
  CallArgs s;
  s.loc = a.loc;
  s.fnName = "topk";
  s.vals = {a[0], Val::constant(ConstValue()), Val::constant(true)};
  s.locs = {a.locs[0], a.loc, a.loc};
  ir::Value *sorted = shapeSort(L, s).v;
  if (k == n) return Val::ir(sorted);
  Location loc = a.loc;
  // [..., n / k, k]: keep row 0 of the n / k axis
  std::vector<int64_t> view(x->type.shape.begin(), x->type.shape.end() - 1);
  view.insert(view.end(), {n / k, k});
  ir::Value *v = L.at(loc).reshape(sorted, view);
  ir::Value *row = L.at(loc).arange(0, n / k);
  std::vector<int64_t> rowShape(view.size(), 1);
  rowShape[view.size() - 2] = n / k;
  row = L.broadcastTo(L.at(loc).reshape(row, rowShape), view, loc);
  ir::Value *first = L.at(loc).cmp("eq", row, L.at(loc).constantInt(0, row->type));
  return Val::ir(pick(L, first, v, r - 1, loc));
}

} // namespace tile::sema
