// BuiltinsBlockPtr.cpp - tl.make_block_ptr, tl.advance, and tl.load /
// tl.store on block pointers, expanded into pointer tensors and boundary
// masks (see BuiltinsBlockPtr.h for the representation).
#include "sema/BuiltinsBlockPtr.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tile::sema::blockptr {

using ast::BinOpKind;
using ast::CmpOpKind;

namespace {

const ConstTuple &blockShapeOf(const Val &p) { return std::get<ConstTuple>(std::get<ConstTuple>(p.c.v)[0].v); }

std::vector<int64_t> blockShape(const Val &p) {
  std::vector<int64_t> out;
  for (const ConstValue &c : blockShapeOf(p)) out.push_back(std::get<int64_t>(c.v));
  return out;
}

const Val &shapeOf(const Val &p, int i) { return p.elts[1 + i]; }
const Val &strideOf(const Val &p, int i) { return p.elts[1 + rank(p) + i]; }
const Val &offsetOf(const Val &p, int i) { return p.elts[offsetIndex(p, i)]; }

/// The elements of a tuple argument (a runtime tuple or a constexpr one);
/// a single value counts as a 1-tuple only where Triton allows it (never
/// here: shapes, strides and offsets are tuples).
std::vector<Val> tupleArg(Lowerer &L, const CallArgs &a, size_t i, const char *what) {
  const Val &v = a[i];
  if (auto elts = tupleElements(v)) return *elts;
  fail(a.locs[i], fmt::format("{} of {} must be a tuple, got {}", what, a.fnName, L.typeName(v)));
}

/// An integer scalar: a constexpr int or a scalar IR integer (cast to i32
/// when asI32, as Triton converts offsets).
Val intScalar(Lowerer &L, const Val &v, Location loc, const std::string &what, bool asI32) {
  if (v.isConst() && (v.c.isInt() || v.c.isBool())) {
    int64_t x = v.c.isInt() ? std::get<int64_t>(v.c.v) : std::get<bool>(v.c.v);
    if (asI32 && (x < INT32_MIN || x > INT32_MAX)) fail(loc, fmt::format("{} {} does not fit in int32", what, x));
    return Val::constant(x);
  }
  if (v.isIR() && !v.v->type.isTensor() && v.v->type.elem.isInt() && !v.v->type.elem.isPtr)
    return Val::ir(asI32 ? L.castTo(v.v, ElemType::of(Scalar::I32), loc) : v.v);
  fail(loc, fmt::format("{} must be an integer scalar, got {}", what, L.typeName(v)));
}

/// A constexpr tuple of ints (block_shape, order, boundary_check).
std::vector<int64_t> constInts(Lowerer &L, const CallArgs &a, size_t i, const char *what, bool allowSingle) {
  const Val &v = a[i];
  std::vector<int64_t> out;
  if (v.isConst() && v.c.isInt() && allowSingle) return {std::get<int64_t>(v.c.v)};
  std::vector<Val> elts;
  if (v.kind == Val::Kind::Tuple) elts = v.elts;
  else if (v.isConst() && std::holds_alternative<ConstTuple>(v.c.v))
    for (const ConstValue &c : std::get<ConstTuple>(v.c.v)) elts.push_back(Val::constant(c));
  else
    fail(a.locs[i], fmt::format("{} of {} must be a constexpr tuple of integers, got {}", what, a.fnName, L.typeName(v)));
  for (const Val &e : elts) {
    if (!e.isConst() || !e.c.isInt())
      fail(a.locs[i], fmt::format("{} of {} must hold constexpr integers, got {}", what, a.fnName, L.typeName(e)));
    out.push_back(std::get<int64_t>(e.c.v));
  }
  return out;
}

const Val &blockPtrArg(Lowerer &L, const CallArgs &a, size_t i) {
  if (a[i].kind != Val::Kind::BlockPtr || isDescriptor(a[i]))
    fail(a.locs[i], fmt::format("{} expects a block pointer (tl.make_block_ptr), got {}", a.fnName, L.typeName(a[i])));
  return a[i];
}

bool sameLeaf(const Val &a, const Val &b) {
  if (a.kind != b.kind) return false;
  return a.isIR() ? a.v == b.v : a.c == b.c;
}

/// v (a [block_i] tensor) shaped [1, .., block_i, .., 1] for rank r.
Val alongDim(Lowerer &L, const Val &p, int i, ir::Value *x, Location loc) {
  for (int d = 0; d < rank(p); ++d)
    if (d != i) x = L.at(loc).expandDims(x, d < i ? 0 : x->type.rank());
  return Val::ir(x);
}

/// `arange(block_i)` along dim i.
Val lanesAlong(Lowerer &L, const Val &p, int i, Location loc) {
  return alongDim(L, p, i, L.at(loc).arange(0, blockShape(p)[i]), loc);
}

/// `offsets_i + arange(block_i)` along dim i.
Val indexAlong(Lowerer &L, const Val &p, int i, Location loc) {
  int64_t n = blockShape(p)[i];
  Val idx = L.binaryOp(BinOpKind::Add, offsetOf(p, i), Val::ir(L.at(loc).arange(0, n)), loc);
  return alongDim(L, p, i, idx.v, loc);
}

/// The boundary_check argument: sorted distinct dimensions of p.
std::vector<int> boundaryDims(Lowerer &L, const CallArgs &a, size_t i, const Val &p) {
  if (!a.has(i)) return {};
  std::vector<int64_t> dims = constInts(L, a, i, "boundary_check", true);
  std::vector<int> out;
  for (int64_t d : dims) {
    if (d < 0 || d >= rank(p))
      fail(a.locs[i], fmt::format("boundary_check dimension {} is out of range for a block pointer of rank {}", d, rank(p)));
    if (std::find(out.begin(), out.end(), d) != out.end())
      fail(a.locs[i], fmt::format("boundary_check names dimension {} twice", d));
    out.push_back(static_cast<int>(d));
  }
  std::sort(out.begin(), out.end());
  return out;
}

struct Access {
  ir::Value *ptrs;
  ir::Value *mask; ///< null: no dimension checked
};

/// The pointer tensor of the block and the mask of the checked dimensions.
/// The pointers are the block's first element, a scalar `base + sum_i
/// offsets[i] * strides[i]` (one addptr a dimension, so each product is
/// extended to 64 bits on its own), plus the lanes' tile `sum_i arange_i *
/// strides[i]`, which does not depend on the offsets: in a loop that
/// advances the block, the tile is invariant and each iteration adds one
/// scalar to it (per dimension (offset + arange) * stride would make LLVM
/// redo a widening multiply per row: mm_blockptr's B, 8 rows a thread).
Access expand(Lowerer &L, const Val &p, const std::vector<int> &checked, Location loc) {
  std::vector<int64_t> shape = blockShape(p);
  Val start = p.elts[0];
  Val lanes;
  for (int i = 0; i < rank(p); ++i) {
    start = L.binaryOp(BinOpKind::Add, start, L.binaryOp(BinOpKind::Mul, offsetOf(p, i), strideOf(p, i), loc), loc);
    Val along = L.binaryOp(BinOpKind::Mul, lanesAlong(L, p, i, loc), strideOf(p, i), loc);
    lanes = i == 0 ? along : L.binaryOp(BinOpKind::Add, lanes, along, loc);
  }
  Val ptrs = L.binaryOp(BinOpKind::Add, start, lanes, loc);
  Val mask;
  bool masked = false;
  for (int i = 0; i < rank(p); ++i) {
    if (std::find(checked.begin(), checked.end(), i) == checked.end()) continue;
    Val idx = indexAlong(L, p, i, loc);
    Val in = L.binaryOp(BinOpKind::BitAnd, L.compareOp(CmpOpKind::GtE, idx, Val::constant(int64_t(0)), loc),
                        L.compareOp(CmpOpKind::Lt, idx, shapeOf(p, i), loc), loc);
    mask = masked ? L.binaryOp(BinOpKind::BitAnd, mask, in, loc) : in;
    masked = true;
  }
  Access acc{L.broadcastTo(ptrs.v, shape, loc), nullptr};
  if (masked) acc.mask = L.broadcastTo(mask.v, shape, loc);
  return acc;
}

} // namespace

bool isDescriptor(const Val &p) {
  return p.kind == Val::Kind::BlockPtr && std::get<ConstTuple>(p.c.v).size() > 2;
}

int rank(const Val &p) { return static_cast<int>(blockShapeOf(p).size()); }

size_t offsetIndex(const Val &p, int i) { return 1 + 2 * rank(p) + i; }

bool sameFrame(const Val &a, const Val &b) {
  if (a.kind != Val::Kind::BlockPtr || b.kind != Val::Kind::BlockPtr || !(a.c == b.c)) return false;
  for (size_t i = 0; i < offsetIndex(a, 0); ++i)
    if (!sameLeaf(a.elts[i], b.elts[i])) return false;
  return true;
}

Val bMakeBlockPtr(Lowerer &L, CallArgs &a) {
  const Val &base = a[0];
  if (!base.isIR() || base.v->type.isTensor() || !base.v->type.elem.isPtr)
    fail(a.locs[0], fmt::format("the base of make_block_ptr must be a scalar pointer, got {}", L.typeName(base)));
  std::vector<Val> shape = tupleArg(L, a, 1, "shape"), strides = tupleArg(L, a, 2, "strides"),
                   offsets = tupleArg(L, a, 3, "offsets");
  std::vector<int64_t> block = constInts(L, a, 4, "block_shape", false);
  std::vector<int64_t> order = constInts(L, a, 5, "order", false);
  size_t r = block.size();
  if (r == 0) fail(a.locs[4], "block_shape of make_block_ptr must not be empty");
  const char *names[] = {"shape", "strides", "offsets"};
  const std::vector<Val> *parts[] = {&shape, &strides, &offsets};
  for (int k = 0; k < 3; ++k)
    if (parts[k]->size() != r)
      fail(a.locs[1 + k], fmt::format("{} of make_block_ptr has {} elements but block_shape has {}", names[k],
                                      parts[k]->size(), r));
  if (order.size() != r)
    fail(a.locs[5], fmt::format("order of make_block_ptr has {} elements but block_shape has {}", order.size(), r));
  std::vector<int64_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < r; ++i)
    if (sorted[i] != static_cast<int64_t>(i))
      fail(a.locs[5], fmt::format("order of make_block_ptr must be a permutation of 0..{}", r - 1));
  L.tensorType(ElemType::of(base.v->type.elem.scalar), block, a.locs[4]);
  Val p;
  p.kind = Val::Kind::BlockPtr;
  p.elts.push_back(base);
  for (int k = 0; k < 3; ++k)
    for (size_t i = 0; i < r; ++i)
      p.elts.push_back(intScalar(L, (*parts[k])[i], a.locs[1 + k], fmt::format("{}[{}]", names[k], i), k == 2));
  ConstTuple bs, ord;
  for (size_t i = 0; i < r; ++i) {
    bs.push_back(block[i]);
    ord.push_back(order[i]);
  }
  p.c = ConstTuple{ConstValue(std::move(bs)), ConstValue(std::move(ord))};
  return p;
}

Val bAdvance(Lowerer &L, CallArgs &a) {
  Val p = blockPtrArg(L, a, 0);
  std::vector<Val> delta = tupleArg(L, a, 1, "offsets");
  if (static_cast<int>(delta.size()) != rank(p))
    fail(a.locs[1], fmt::format("advance needs {} offsets for a block pointer of rank {}, got {}", rank(p), rank(p),
                                delta.size()));
  for (int i = 0; i < rank(p); ++i) {
    Val d = intScalar(L, delta[i], a.locs[1], fmt::format("offsets[{}]", i), true);
    Val sum = L.binaryOp(BinOpKind::Add, offsetOf(p, i), d, a.loc);
    p.elts[offsetIndex(p, i)] = intScalar(L, sum, a.loc, fmt::format("offsets[{}] after advance", i), true);
  }
  return p;
}

Val loadBlock(Lowerer &L, const Val &p, const std::vector<int> &checked, const std::string &padding, Location loc) {
  Access acc = expand(L, p, checked, loc);
  ir::Value *other = nullptr;
  if (acc.mask) {
    // "" is undefined in Triton; tile pads with zero.
    ElemType elem = ElemType::of(p.elts[0].v->type.elem.scalar);
    ir::Value *fill = padding == "nan" ? L.at(loc).constantFloat(std::nan(""), ir::Type::scalar(elem))
                                       : L.toIRAs(Val::constant(int64_t(0)), elem, loc);
    other = L.broadcastTo(fill, blockShape(p), loc);
  }
  return Val::ir(L.at(loc).load(acc.ptrs, acc.mask, other));
}

void storeBlock(Lowerer &L, const Val &p, const Val &value, Location valueLoc, const std::vector<int> &checked,
                Location loc) {
  std::vector<int64_t> shape = blockShape(p);
  ElemType elem = ElemType::of(p.elts[0].v->type.elem.scalar);
  ir::Value *val = L.toIRAs(value, elem, valueLoc);
  if (val->type.isTensor() && val->type.shape != shape)
    fail(valueLoc, fmt::format("the value stored through a {} must have the block's shape {} (or be a "
                               "scalar), got {}", L.typeName(p), L.tensorType(elem, shape, loc).str(),
                               val->type.str()));
  val = L.broadcastTo(val, shape, valueLoc);
  Access acc = expand(L, p, checked, loc);
  L.at(loc).store(acc.ptrs, val, acc.mask);
}

Val load(Lowerer &L, CallArgs &a) {
  const Val &p = blockPtrArg(L, a, 0);
  if (a.has(1) || a.has(2))
    fail(a.locs[a.has(1) ? 1 : 2], "mask and other cannot be used with a block pointer; use boundary_check and padding_option");
  std::string padding;
  if (a.has(4)) {
    if (!a[4].isConst() || !a[4].c.isStr()) fail(a.locs[4], "padding_option must be a string");
    padding = std::get<std::string>(a[4].c.v);
    if (padding != "" && padding != "zero" && padding != "nan")
      fail(a.locs[4], fmt::format("padding_option must be \"\", \"zero\" or \"nan\", got \"{}\"", padding));
  }
  ElemType elem = ElemType::of(p.elts[0].v->type.elem.scalar);
  if (padding == "nan" && !elem.isFloat())
    fail(a.locs[4], fmt::format("padding_option \"nan\" needs a floating-point block pointer, got {}", elem.str()));
  return loadBlock(L, p, boundaryDims(L, a, 3, p), padding, a.loc);
}

Val store(Lowerer &L, CallArgs &a) {
  const Val &p = blockPtrArg(L, a, 0);
  if (a.has(2)) fail(a.locs[2], "mask cannot be used with a block pointer; use boundary_check");
  storeBlock(L, p, a[1], a.locs[1], boundaryDims(L, a, 3, p), a.loc);
  return Val::constant(ConstValue());
}

} // namespace tile::sema::blockptr
