// BuiltinsDescriptor.cpp - tl.make_tensor_descriptor and descriptor loads
// and stores, with Triton 3.6's checks (semantic.py: rank 1 to 5, the last
// stride 1, at least 16 bytes in the block's last dimension, block dims
// powers of two, padding "zero" or "nan" and "nan" only for floats),
// expanded through the block-pointer machinery (see BuiltinsDescriptor.h).
#include "sema/BuiltinsDescriptor.h"

#include "sema/BuiltinsBlockPtr.h"

#include <fmt/format.h>

namespace tile::sema::descriptor {

namespace {

/// The elements of a tuple or list argument (runtime or constexpr tuple).
std::vector<Val> tupleArg(Lowerer &L, const CallArgs &a, size_t i, const char *what) {
  const Val &v = a[i];
  if (auto elts = tupleElements(v)) return *elts;
  fail(a.locs[i], fmt::format("{} of {} must be a tuple or list, got {}", what, a.fnName, L.typeName(v)));
}

/// An integer scalar converted to `to` (a constexpr stays constexpr).
Val intAs(Lowerer &L, const Val &v, Scalar to, Location loc, const std::string &what) {
  if (v.isConst() && (v.c.isInt() || v.c.isBool())) {
    int64_t x = v.c.isInt() ? std::get<int64_t>(v.c.v) : std::get<bool>(v.c.v);
    if (to == Scalar::I32 && (x < INT32_MIN || x > INT32_MAX))
      fail(loc, fmt::format("{} {} does not fit in int32", what, x));
    return Val::constant(x);
  }
  if (v.isIR() && !v.v->type.isTensor() && v.v->type.elem.isInt() && !v.v->type.elem.isPtr)
    return Val::ir(L.castTo(v.v, ElemType::of(to), loc));
  fail(loc, fmt::format("{} must be an integer scalar, got {}", what, L.typeName(v)));
}

/// Whether v is the integer 1 (a constexpr, or a constant op such as a
/// `:1`-specialized stride).
bool isOne(const Val &v) {
  if (v.isConst()) return v.c.isInt() && std::get<int64_t>(v.c.v) == 1;
  if (!v.isIR() || !v.v->def || v.v->def->kind != ir::OpKind::Constant) return false;
  auto *i = std::get_if<int64_t>(&v.v->def->attrs.at("value"));
  return i && *i == 1;
}

std::vector<int64_t> blockShapeArg(Lowerer &L, const CallArgs &a, size_t i) {
  std::vector<int64_t> out;
  for (const Val &e : tupleArg(L, a, i, "block_shape")) {
    if (!e.isConst() || !e.c.isInt())
      fail(a.locs[i], fmt::format("block_shape of {} must hold constexpr integers, got {}", a.fnName, L.typeName(e)));
    int64_t d = std::get<int64_t>(e.c.v);
    if (d <= 0 || (d & (d - 1)) != 0)
      fail(a.locs[i], fmt::format("block_shape element {} of {} must be a power of 2, got {}", out.size(), a.fnName, d));
    out.push_back(d);
  }
  return out;
}

const Val &descArg(Lowerer &L, const CallArgs &a) {
  if (!blockptr::isDescriptor(a[0]))
    fail(a.locs[0], fmt::format("{} expects a tensor descriptor (tl.make_tensor_descriptor), got {}", a.fnName,
                                L.typeName(a[0])));
  return a[0];
}

/// desc with its offsets set to the call's (int32, one per dimension).
Val at(Lowerer &L, const CallArgs &a, size_t i) {
  Val p = descArg(L, a);
  std::vector<Val> offs = tupleArg(L, a, i, "offsets");
  int r = blockptr::rank(p);
  if (static_cast<int>(offs.size()) != r)
    fail(a.locs[i], fmt::format("expected {} offsets for a tensor descriptor of rank {}, got {}", r, r, offs.size()));
  for (int d = 0; d < r; ++d)
    p.elts[blockptr::offsetIndex(p, d)] = intAs(L, offs[d], Scalar::I32, a.locs[i], fmt::format("offsets[{}]", d));
  return p;
}

std::vector<int> allDims(const Val &p) {
  std::vector<int> dims;
  for (int d = 0; d < blockptr::rank(p); ++d) dims.push_back(d);
  return dims;
}

} // namespace

Val bMake(Lowerer &L, CallArgs &a) {
  const Val &base = a[0];
  if (!base.isIR() || base.v->type.isTensor() || !base.v->type.elem.isPtr)
    fail(a.locs[0], fmt::format("the base of make_tensor_descriptor must be a scalar pointer, got {}", L.typeName(base)));
  std::vector<Val> shape = tupleArg(L, a, 1, "shape"), strides = tupleArg(L, a, 2, "strides");
  std::vector<int64_t> block = blockShapeArg(L, a, 3);
  size_t r = shape.size();
  if (r < 1 || r > 5) fail(a.locs[1], fmt::format("expected 1 <= ndim <= 5 but got {} dimensions", r));
  if (strides.size() != r) fail(a.locs[2], fmt::format("expected {} strides but got {}", r, strides.size()));
  if (block.size() != r)
    fail(a.locs[3], fmt::format("expected block_shape to have {} dimensions but got {}", r, block.size()));
  ElemType elem = ElemType::of(base.v->type.elem.scalar);
  int64_t bytes = block.back() * static_cast<int64_t>(byteSize(elem.scalar));
  if (bytes < 16)
    fail(a.locs[3], fmt::format("descriptor block shape must have at least 16 bytes in the last dimension, but got "
                                "{} * {} = {} bytes", block.back(), byteSize(elem.scalar), bytes));
  if (!isOne(strides.back()))
    fail(a.locs[2], fmt::format("tensor descriptor last dim must be 1 but got {}",
                                strides.back().isConst() ? strides.back().c.repr() : L.typeName(strides.back())));
  std::string padding = "zero";
  if (a.has(4)) {
    if (!a[4].isConst() || !a[4].c.isStr()) fail(a.locs[4], "padding_option must be a string");
    padding = std::get<std::string>(a[4].c.v);
    if (padding != "zero" && padding != "nan")
      fail(a.locs[4], fmt::format("padding_option must be \"zero\" or \"nan\", got \"{}\"", padding));
    if (padding == "nan" && !elem.isFloat())
      fail(a.locs[4], "padding option `nan` is not supported for integer blocks");
  }
  L.tensorType(elem, block, a.locs[3]);
  Val p;
  p.kind = Val::Kind::BlockPtr;
  p.elts.push_back(base);
  for (size_t i = 0; i < r; ++i) p.elts.push_back(intAs(L, shape[i], Scalar::I32, a.locs[1], fmt::format("shape[{}]", i)));
  for (size_t i = 0; i < r; ++i)
    p.elts.push_back(intAs(L, strides[i], Scalar::I64, a.locs[2], fmt::format("strides[{}]", i)));
  for (size_t i = 0; i < r; ++i) p.elts.push_back(Val::constant(int64_t(0)));
  ConstTuple bs, ord;
  for (size_t i = 0; i < r; ++i) {
    bs.push_back(block[i]);
    ord.push_back(int64_t(r - 1 - i));
  }
  p.c = ConstTuple{ConstValue(std::move(bs)), ConstValue(std::move(ord)), ConstValue(padding)};
  return p;
}

Val bLoad(Lowerer &L, CallArgs &a) {
  Val p = at(L, a, 1);
  const std::string &padding = std::get<std::string>(std::get<ConstTuple>(p.c.v)[2].v);
  return blockptr::loadBlock(L, p, allDims(p), padding, a.loc);
}

Val bStore(Lowerer &L, CallArgs &a) {
  Val p = at(L, a, 1);
  blockptr::storeBlock(L, p, a[2], a.locs[2], allDims(p), a.loc);
  return Val::constant(ConstValue());
}

} // namespace tile::sema::descriptor
