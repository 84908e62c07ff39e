// TestIR.cpp - see TestIR.h.
#include "TestIR.h"

#include <doctest/doctest.h>

namespace tile::ir::test {

namespace {
Type i32() { return Type::scalar(Scalar::I32); }
Type f32() { return Type::scalar(Scalar::F32); }
Type tf32(std::vector<int64_t> s) { return Type::tensor(ElemType::of(Scalar::F32), std::move(s)); }
} // namespace

std::unique_ptr<Function> buildEveryOpFunction(Location loc) {
  auto fn = std::make_unique<Function>("every_op", loc);
  Block &entry = fn->entry();
  Value *ptr = entry.addArg(Type::scalar(ElemType::ptrTo(Scalar::F32)));
  Value *n = entry.addArg(i32());
  Value *x = entry.addArg(f32());
  fn->paramNames = {"ptr", "n", "x"};
  Builder b(&entry);
  b.loc = loc;

  Value *pid = b.programId(0);
  Value *np = b.numPrograms(1);
  Value *c16 = b.constantInt(16, i32());
  Value *off = b.binary(OpKind::Mul, pid, c16);
  off = b.binary(OpKind::Add, off, np);
  Value *r = b.arange(0, 16);
  Op *hint = b.create(OpKind::Hint, {b.binary(OpKind::Add, b.splat(off, {16}), r)}, {Type::tensor(ElemType::of(Scalar::I32), {16})});
  hint->attrs["multiple_of"] = std::vector<int64_t>{16};
  Value *offs = hint->result();
  b.create(OpKind::Barrier, {}, {});
  Value *ptrs = b.addptr(b.splat(ptr, {16}), offs);
  Value *mask = b.cmp("lt", offs, b.splat(n, {16}));
  Value *other = b.constantFloat(0.5, tf32({16}));
  Value *v = b.load(ptrs, mask, other);
  Value *col = b.expandDims(v, 1);            // 16x1
  Value *bc = b.broadcast(col, {16, 16});     // 16x16
  Value *tr = b.permute(bc, {1, 0});
  Value *acc = b.dot(bc, tr, b.constantFloat(0.0, tf32({16, 16})), "ieee");
  Value *flat = b.reshape(b.create(OpKind::ConvertLayout, {acc}, {acc->type})->result(), {256});
  Value *sum = b.reduce(flat, "sum", 0, ElemType::of(Scalar::F32));
  Value *am = b.reduce(flat, "argmax", 0, ElemType::of(Scalar::I32));
  Value *t = b.binary(OpKind::Sub, sum, x);
  for (OpKind k : {OpKind::Div, OpKind::Rem, OpKind::Min, OpKind::Max})
    t = b.binary(k, t, x);
  for (OpKind k : {OpKind::Neg, OpKind::Abs, OpKind::Exp, OpKind::Exp2, OpKind::Log, OpKind::Log2, OpKind::Sqrt,
                   OpKind::Rsqrt, OpKind::Sin, OpKind::Cos, OpKind::Floor, OpKind::Ceil, OpKind::Erf, OpKind::Tanh})
    t = b.unary(k, t);
  t = b.binary(OpKind::Pow, t, x);
  t = b.create(OpKind::ExternElementwise, {t, x}, {t->type}, {{"symbol", std::string("__nv_atan2f")}})->result();
  t = b.fma(t, x, x);
  Value *ti = b.cast(t, ElemType::of(Scalar::I32));
  Value *bits = b.bitcast(t, ElemType::of(Scalar::I32));
  for (OpKind k : {OpKind::And, OpKind::Or, OpKind::Xor, OpKind::Shl, OpKind::Shr})
    ti = b.binary(k, ti, bits);
  ti = b.unary(OpKind::Not, ti);
  ti = b.binary(OpKind::Add, ti, am);
  Value *isPos = b.cmp("gt", ti, n);
  Value *chosen = b.select(isPos, ti, n);

  // %w = while (%chosen) { cond: %a < 100 } do { if (...) { for ... } }
  Op *loop = b.create(OpKind::While, {chosen}, {i32()});
  Block &before = *loop->regions[0]->block;
  Value *a = before.addArg(i32());
  Builder cb(&before);
  cb.loc = loc;
  Value *cond = cb.cmp("lt", a, cb.constantInt(100, i32()));
  cb.create(OpKind::Condition, {cond, a}, {});
  Block &after = *loop->regions[1]->block;
  Value *a2 = after.addArg(i32());
  Builder ab(&after);
  ab.loc = loc;
  Op *ifOp = ab.create(OpKind::If, {ab.cmp("eq", a2, n)}, {i32()});
  Builder tb(ifOp->regions[0]->block.get());
  tb.loc = loc;
  Value *one = tb.constantInt(1, i32());
  Op *forOp = tb.create(OpKind::For, {tb.constantInt(0, i32()), n, one, a2}, {i32()});
  Block &body = *forOp->regions[0]->block;
  Value *iv = body.addArg(i32());
  Value *carried = body.addArg(i32());
  Builder fb(&body);
  fb.loc = loc;
  fb.yield({fb.binary(OpKind::Add, carried, iv)});
  tb.yield({forOp->result()});
  Builder eb(ifOp->regions[1]->block.get());
  eb.loc = loc;
  eb.yield({eb.binary(OpKind::Add, a2, eb.constantInt(7, i32()))});
  ab.yield({ifOp->result()});

  b.store(ptrs, v, mask);
  // a reverse scan (combine region: add), then atomics on the same pointers
  Op *scan = b.create(OpKind::Scan, {v}, {v->type}, {{"axis", int64_t(0)}, {"reverse", true}});
  Block &comb = *scan->regions[0]->block;
  Value *s0 = comb.addArg(f32()), *s1 = comb.addArg(f32());
  Builder sb(&comb);
  sb.loc = loc;
  sb.yield({sb.binary(OpKind::Add, s0, s1)});
  b.create(OpKind::AtomicRMW, {ptrs, scan->result(), mask}, {v->type},
           {{"kind", std::string("add")}, {"sem", std::string("acq_rel")}, {"scope", std::string("gpu")}});
  b.create(OpKind::AtomicCas, {ptrs, v, v}, {v->type}, {{"sem", std::string("relaxed")}, {"scope", std::string("cta")}});
  // an impure inline asm with two results (tl.inline_asm_elementwise)
  b.create(OpKind::InlineAsm, {v, v}, {v->type, v->type},
           {{"asm", std::string("add.f32 $0, $2, $3;\n\tmov.b32 $1, $2;")}, {"constraints", std::string("=r,=r,r,r")},
            {"pure", false}, {"pack", int64_t(1)}});
  b.create(OpKind::Print, {loop->result(), x}, {}, {{"prefix", std::string("w = \"q\"\n")}, {"hex", false}});
  b.create(OpKind::Assert, {mask}, {}, {{"msg", std::string("in bounds")}});
  return fn;
}

Function &parseFunction(const std::string &text) {
  static std::vector<std::unique_ptr<Module>> keep;
  keep.push_back(parseModule(text, "test.tir"));
  REQUIRE(keep.back()->functions.size() == 1);
  return *keep.back()->functions[0];
}

std::string str(const Function &fn) {
  PrintOptions po;
  po.locations = false;
  return print(fn, po);
}

} // namespace tile::ir::test
