// BuiltinsAsm.cpp - tl.inline_asm_elementwise with Triton 3.6's argument
// rules (core.py): constexpr strings for asm and constraints, a list of
// arguments broadcast together (numbers become i32 / f32 scalars first), a
// dtype or a tuple of dtypes, a constexpr is_pure and pack >= 1. The GPU
// back end lowers the op (backend/InlineAsmToLLVM.cpp); the interpreter
// reports it as not supported at its line.
#include "sema/BuiltinsAsm.h"

#include <fmt/format.h>

namespace tile::sema {

namespace {

const std::string &constStr(const CallArgs &a, size_t i, const char *what) {
  if (!a[i].isConst() || !a[i].c.isStr())
    fail(a.locs[i], fmt::format("{} of inline_asm_elementwise must be a constexpr string", what));
  return std::get<std::string>(a[i].c.v);
}

std::vector<Val> listArg(Lowerer &L, const CallArgs &a, size_t i) {
  const Val &v = a[i];
  if (auto elts = tupleElements(v)) return *elts;
  if (v.isIR()) return {v};
  fail(a.locs[i], fmt::format("args of inline_asm_elementwise must be a list of tensors, got {}", L.typeName(v)));
}

std::vector<ElemType> dtypes(const CallArgs &a, size_t i, bool &several) {
  std::vector<ConstValue> items;
  several = false;
  if (a[i].isConst() && std::holds_alternative<ConstTuple>(a[i].c.v)) {
    several = true;
    items = std::get<ConstTuple>(a[i].c.v);
  } else if (a[i].isConst()) {
    items = {a[i].c};
  }
  std::vector<ElemType> out;
  for (const ConstValue &c : items) {
    auto *d = std::get_if<DTypeValue>(&c.v);
    if (!d) break;
    if (d->type.scalar == Scalar::I1 && !d->type.isPtr)
      fail(a.locs[i], "not supported: inline_asm_elementwise with int1 results");
    out.push_back(d->type);
  }
  if (out.empty() || out.size() != items.size())
    fail(a.locs[i], "dtype of inline_asm_elementwise must be a dtype such as tl.float32 or a tuple of dtypes");
  return out;
}

} // namespace

Val asmInlineElementwise(Lowerer &L, CallArgs &a) {
  std::string text = constStr(a, 0, "asm"), constraints = constStr(a, 1, "constraints");
  if (!a[4].isConst() || !(a[4].c.isBool() || a[4].c.isInt()))
    fail(a.locs[4], "is_pure of inline_asm_elementwise must be a constexpr bool");
  bool pure = L.isTruthyConst(a[4], a.locs[4]);
  if (!a[5].isConst() || !a[5].c.isInt() || std::get<int64_t>(a[5].c.v) < 1)
    fail(a.locs[5], "pack of inline_asm_elementwise must be a constexpr integer >= 1");
  int64_t pack = std::get<int64_t>(a[5].c.v);
  bool several = false;
  std::vector<ElemType> outTypes = dtypes(a, 3, several);
  std::vector<ir::Value *> args;
  std::vector<int64_t> shape;
  for (const Val &v : listArg(L, a, 2)) {
    ir::Value *x = L.toIR(v, a.locs[2], "inline_asm_elementwise argument");
    if (x->type.elem.scalar == Scalar::I1 && !x->type.elem.isPtr)
      fail(a.locs[2], "not supported: inline_asm_elementwise with int1 arguments");
    shape = L.broadcastShapes(shape, x->type.shape, a.locs[2], "inline_asm_elementwise argument");
    args.push_back(x);
  }
  for (ir::Value *&x : args) x = L.broadcastTo(x, shape, a.locs[2]);
  std::vector<ir::Type> types;
  for (ElemType t : outTypes) types.push_back(shape.empty() ? ir::Type::scalar(t) : L.tensorType(t, shape, a.loc));
  ir::Op *op = L.at(a.loc).create(ir::OpKind::InlineAsm, args, types,
                                  {{"asm", text}, {"constraints", constraints}, {"pure", pure}, {"pack", pack}});
  if (!several) return Val::ir(op->result());
  std::vector<Val> outs;
  for (auto &r : op->results) outs.push_back(Val::ir(r.get()));
  return Val::tuple(std::move(outs));
}

} // namespace tile::sema
