// BuiltinsLibdevice.cpp - calls of libdevice functions
// (`from triton.language.extra[.cuda] import libdevice`, or
// tl.extra.cuda.libdevice.NAME) lowered to the extern_elementwise op.
//
// As Triton's extern_elementwise: the arguments (Python numbers become
// scalars: ints i32, floats f32) broadcast to one shape; when their types
// match an overload exactly it is taken as is, otherwise they are promoted
// to a common type first (Triton's arithmetic rules) and the overload of
// that type is taken. One addition: f16 and bf16 arguments, which have no
// libdevice overload (an error in Triton), compute in f32 and a float
// result rounds back to their type, as tile's other math does.
#include "ir/Libdevice.h"
#include "sema/Lowerer.h"

#include <fmt/format.h>

namespace tile::sema {

using ir::OpKind;

namespace {

std::string typeList(const std::vector<Scalar> &ts) {
  std::string s;
  for (Scalar t : ts) s += (s.empty() ? "" : ", ") + std::string(scalarName(t));
  return s;
}

const ir::ExternOverload *exactOverload(const ir::LibdeviceFn &fn, const std::vector<ir::Value *> &xs) {
  for (const ir::ExternOverload &o : fn.overloads) {
    bool same = o.args.size() == xs.size();
    for (size_t i = 0; same && i < xs.size(); ++i) same = xs[i]->type.elem == ElemType::of(o.args[i]);
    if (same) return &o;
  }
  return nullptr;
}

} // namespace

Val Lowerer::callLibdevice(const std::string &name, const ast::CallExpr &c) {
  const ir::LibdeviceFn *fn = ir::findLibdeviceFn(name);
  TILE_ASSERT(fn, "libdevice function without a table entry");
  if (!c.keywords.empty())
    fail(c.keywords[0].loc, fmt::format("libdevice.{}() takes no keyword arguments", name));
  size_t arity = fn->overloads[0].args.size();
  if (c.args.size() != arity)
    fail(c.loc, fmt::format("libdevice.{}() takes {} argument{} but {} were given", name, arity, arity == 1 ? "" : "s",
                            c.args.size()));
  std::vector<ir::Value *> xs;
  std::vector<int64_t> shape;
  for (const auto &arg : c.args) {
    Val v = lowerExpr(*arg);
    ir::Value *x = toIR(v, arg->loc, "libdevice argument");
    if (x->type.elem.isPtr) fail(arg->loc, fmt::format("libdevice.{}() takes numbers, got {}", name, x->type.str()));
    shape = broadcastShapes(shape, x->type.shape, c.loc, "libdevice arguments");
    xs.push_back(x);
  }
  if (!shape.empty())
    for (ir::Value *&x : xs)
      if (x->type.shape != shape) x = broadcastTo(x, shape, c.loc);
  const ir::ExternOverload *o = exactOverload(*fn, xs);
  std::optional<ElemType> narrow;   // f16/bf16 computed in f32
  if (!o) {
    ir::Value *common = xs[0];
    for (size_t i = 1; i < xs.size(); ++i) common = promote(Val::ir(common), Val::ir(xs[i]), c.loc).first;
    ElemType t = common->type.elem;
    if (t.scalar == Scalar::F16 || t.scalar == Scalar::BF16) narrow = t, t = ElemType::of(Scalar::F32);
    for (ir::Value *&x : xs) x = castTo(x, t, c.loc);
    o = exactOverload(*fn, xs);
  }
  if (!o) {
    std::vector<Scalar> given;
    for (ir::Value *x : xs) given.push_back(x->type.elem.scalar);
    std::string have;
    for (const ir::ExternOverload &ov : fn->overloads) have += (have.empty() ? "" : "; ") + ("(" + typeList(ov.args) + ")");
    fail(c.loc, fmt::format("libdevice.{}() has no overload for ({}); it takes {}", name, typeList(given), have));
  }
  ir::Type rt = ir::Type::tensor(ElemType::of(o->ret), shape);
  ir::Op *op = at(c.loc).create(OpKind::ExternElementwise, xs, {rt});
  op->attrs["symbol"] = o->symbol;
  ir::Value *r = op->result();
  if (fn->toBool) r = castTo(r, ElemType::of(Scalar::I1), c.loc);
  else if (narrow && r->type.elem.isFloat()) r = castTo(r, *narrow, c.loc);
  return Val::ir(r);
}

} // namespace tile::sema
