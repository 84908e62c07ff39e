// ControlFlowTest.cpp - interpreter tests of for/while/if with loop-carried
// values, program ids over a 3-D grid, and device_print output.
#include "InterpTestUtil.h"

using namespace tile;
using namespace tile::interp;
using namespace tile::interp::test;
using ir::OpKind;
using ir::Type;
using ir::Value;

namespace {
Type i32T() { return Type::scalar(Scalar::I32); }
} // namespace

TEST_CASE("interp: for loops carry values (swap, negative step, nesting)") {
  HostBuf out(Scalar::I32, 4);
  Kernel kern;
  Value *op = kern.param(ElemType::ptrTo(Scalar::I32), "out");
  ir::Builder &b = kern.b;
  // fib: (a, b) = (b, a + b), 10 times; yields swap their block args
  ir::Op *fib = b.create(OpKind::For, {kern.i32(0), kern.i32(10), kern.i32(1), kern.i32(0), kern.i32(1)},
                         {i32T(), i32T()});
  {
    ir::Block *body = fib->regions[0]->block.get();
    body->addArg(i32T());
    Value *x = body->addArg(i32T()), *y = body->addArg(i32T());
    ir::Builder lb(body);
    lb.yield({y, lb.binary(OpKind::Add, x, y)});
  }
  // sum of iv for iv = 10, 7, 4, 1 (step -3, stops at iv > 0)
  ir::Op *down = b.create(OpKind::For, {kern.i32(10), kern.i32(0), kern.i32(-3), kern.i32(0)}, {i32T()});
  {
    ir::Block *body = down->regions[0]->block.get();
    Value *iv = body->addArg(i32T()), *acc = body->addArg(i32T());
    ir::Builder lb(body);
    lb.yield({lb.binary(OpKind::Add, acc, iv)});
  }
  // nested: sum over i < 3, j < i + 2 of i * j
  ir::Op *outer = b.create(OpKind::For, {kern.i32(0), kern.i32(3), kern.i32(1), kern.i32(0)}, {i32T()});
  {
    ir::Block *body = outer->regions[0]->block.get();
    Value *i = body->addArg(i32T()), *acc = body->addArg(i32T());
    ir::Builder lb(body);
    Value *ub = lb.binary(OpKind::Add, i, lb.constantInt(2, i32T()));
    ir::Op *inner = lb.create(OpKind::For, {lb.constantInt(0, i32T()), ub, lb.constantInt(1, i32T()), acc}, {i32T()});
    ir::Block *ib = inner->regions[0]->block.get();
    Value *j = ib->addArg(i32T()), *iacc = ib->addArg(i32T());
    ir::Builder ilb(ib);
    ilb.yield({ilb.binary(OpKind::Add, iacc, ilb.binary(OpKind::Mul, i, j))});
    lb.yield({inner->result(0)});
  }
  // zero-trip loop keeps its init
  ir::Op *none = b.create(OpKind::For, {kern.i32(5), kern.i32(5), kern.i32(1), kern.i32(42)}, {i32T()});
  {
    ir::Block *body = none->regions[0]->block.get();
    body->addArg(i32T());
    Value *acc = body->addArg(i32T());
    ir::Builder lb(body);
    lb.yield({lb.binary(OpKind::Add, acc, acc)});
  }
  Value *vals[] = {fib->result(0), down->result(0), outer->result(0), none->result(0)};
  for (int k = 0; k < 4; ++k)
    b.store(b.addptr(op, kern.i32(k)), vals[k]);
  run(*kern.fn, Grid{}, {out.arg()});
  int64_t fa = 0, fb = 1;
  for (int k = 0; k < 10; ++k)
    std::tie(fa, fb) = std::make_pair(fb, fa + fb);
  int64_t nested = 0;
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < i + 2; ++j)
      nested += i * j;
  CHECK(out.i(0) == fa);
  CHECK(out.i(1) == 10 + 7 + 4 + 1);
  CHECK(out.i(2) == nested);
  CHECK(out.i(3) == 42);
}

TEST_CASE("interp: for loop near the type's maximum terminates") {
  HostBuf out(Scalar::I32, 1);
  Kernel kern;
  Value *op = kern.param(ElemType::ptrTo(Scalar::I32), "out");
  ir::Op *loop = kern.b.create(OpKind::For, {kern.i32(2147483640), kern.i32(2147483647), kern.i32(5), kern.i32(0)},
                               {i32T()});
  ir::Block *body = loop->regions[0]->block.get();
  body->addArg(i32T());
  Value *acc = body->addArg(i32T());
  ir::Builder lb(body);
  lb.yield({lb.binary(OpKind::Add, acc, lb.constantInt(1, i32T()))});
  kern.b.store(op, loop->result(0));
  run(*kern.fn, Grid{}, {out.arg()});
  CHECK(out.i(0) == 2); // 2147483640, 2147483645; the next step would wrap
}

TEST_CASE("interp: while loop (collatz steps) and if with results per program") {
  constexpr int64_t programs = 7;
  HostBuf steps(Scalar::I32, programs), branch(Scalar::F32, programs);
  Kernel kern;
  Value *sp = kern.param(ElemType::ptrTo(Scalar::I32), "steps");
  Value *bp = kern.param(ElemType::ptrTo(Scalar::F32), "branch");
  ir::Builder &b = kern.b;
  Value *pid = b.programId(0);
  Value *start = b.binary(OpKind::Add, b.binary(OpKind::Mul, pid, kern.i32(5)), kern.i32(1));
  ir::Op *loop = b.create(OpKind::While, {start, kern.i32(0)}, {i32T(), i32T()});
  {
    ir::Block *cond = loop->regions[0]->block.get();
    Value *v = cond->addArg(i32T()), *n = cond->addArg(i32T());
    ir::Builder cb(cond);
    Value *c = cb.cmp("ne", v, cb.constantInt(1, i32T()));
    cb.create(OpKind::Condition, {c, v, n}, {});
    ir::Block *body = loop->regions[1]->block.get();
    Value *bv = body->addArg(i32T()), *bn = body->addArg(i32T());
    ir::Builder lb(body);
    Value *two = lb.constantInt(2, i32T());
    Value *isEven = lb.cmp("eq", lb.binary(OpKind::Rem, bv, two), lb.constantInt(0, i32T()));
    Value *half = lb.binary(OpKind::Div, bv, two);
    Value *up = lb.binary(OpKind::Add, lb.binary(OpKind::Mul, bv, lb.constantInt(3, i32T())), lb.constantInt(1, i32T()));
    lb.yield({lb.select(isEven, half, up), lb.binary(OpKind::Add, bn, lb.constantInt(1, i32T()))});
  }
  b.store(b.addptr(sp, pid), loop->result(1));
  // if pid % 3 == 0 { yield 0.5 * pid } else { yield -1.0 }
  Value *c = b.cmp("eq", b.binary(OpKind::Rem, pid, kern.i32(3)), kern.i32(0));
  ir::Op *ifOp = b.create(OpKind::If, {c}, {Type::scalar(Scalar::F32)});
  {
    ir::Builder tb(ifOp->regions[0]->block.get());
    tb.yield({tb.binary(OpKind::Mul, tb.cast(pid, ElemType::of(Scalar::F32)),
                        tb.constantFloat(0.5, Type::scalar(Scalar::F32)))});
    ir::Builder eb(ifOp->regions[1]->block.get());
    eb.yield({eb.constantFloat(-1.0, Type::scalar(Scalar::F32))});
  }
  b.store(b.addptr(bp, pid), ifOp->result(0));
  run(*kern.fn, Grid{programs, 1, 1}, {steps.arg(), branch.arg()});
  for (int64_t p = 0; p < programs; ++p) {
    int64_t v = p * 5 + 1, n = 0;
    while (v != 1)
      v = v % 2 == 0 ? v / 2 : 3 * v + 1, ++n;
    CHECK(steps.i(p) == n);
    CHECK(branch.f(p) == (p % 3 == 0 ? 0.5 * double(p) : -1.0));
  }
}

TEST_CASE("interp: programs run over a 3-D grid, x fastest") {
  HostBuf out(Scalar::I32, 2 * 3 * 4), order(Scalar::I32, 1);
  Kernel kern;
  Value *op = kern.param(ElemType::ptrTo(Scalar::I32), "out");
  ir::Builder &b = kern.b;
  Value *x = b.programId(0), *y = b.programId(1), *z = b.programId(2);
  Value *nx = b.numPrograms(0), *ny = b.numPrograms(1);
  Value *lin = b.binary(OpKind::Add, b.binary(OpKind::Mul, b.binary(OpKind::Add, b.binary(OpKind::Mul, z, ny), y), nx), x);
  // encode (x, y, z) and num_programs(2) in the value
  Value *val = b.binary(OpKind::Add, b.binary(OpKind::Mul, lin, kern.i32(10)), b.numPrograms(2));
  b.store(b.addptr(op, lin), val);
  Capture cap;
  b.create(OpKind::Print, {lin}, {}, {{"prefix", std::string("lin:")}});
  run(*kern.fn, Grid{2, 3, 4}, {out.arg()}, cap.opts());
  for (int64_t k = 0; k < 24; ++k)
    CHECK(out.i(k) == k * 10 + 4);
  REQUIRE(cap.prints.size() == 24);
  CHECK(cap.prints[0] == "pid (0, 0, 0) lin: 0\n");
  CHECK(cap.prints[1] == "pid (1, 0, 0) lin: 1\n"); // x fastest
  CHECK(cap.prints[23] == "pid (1, 2, 3) lin: 23\n");
}

TEST_CASE("interp: device_print formats tensors like Triton") {
  Kernel kern;
  ir::Builder &b = kern.b;
  Value *f = b.binary(OpKind::Mul, b.cast(b.arange(0, 4), ElemType::of(Scalar::F32)),
                      b.constantFloat(0.5, Type::tensor(ElemType::of(Scalar::F32), {4})));
  b.create(OpKind::Print, {b.reshape(f, {2, 2})}, {}, {{"prefix", std::string("x")}});
  b.create(OpKind::Print, {b.constantInt(-1, i32T()), b.constantInt(255, i32T())}, {},
           {{"prefix", std::string("h ")}, {"hex", true}});
  Capture cap;
  run(*kern.fn, Grid{}, {}, cap.opts());
  std::vector<std::string> expect = {
      "pid (0, 0, 0) idx (0, 0) x 0\n",   "pid (0, 0, 0) idx (0, 1) x 0.5\n",
      "pid (0, 0, 0) idx (1, 0) x 1\n",   "pid (0, 0, 0) idx (1, 1) x 1.5\n",
      "pid (0, 0, 0) h (operand 0) 0xffffffff\n", "pid (0, 0, 0) h (operand 1) 0xff\n"};
  CHECK(cap.prints == expect);
}
