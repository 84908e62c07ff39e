// ErrorTest.cpp - the interpreter's user errors and warnings: out-of-bounds
// stores (message and location), out-of-bounds loads (warn once, NaN or
// poison; strict mode throws), division by zero, misaligned pointers,
// device_assert, zero loop steps, bad launches, int32 offset overflow.
#include "InterpTestUtil.h"

using namespace tile;
using namespace tile::interp;
using namespace tile::interp::test;
using ir::OpKind;
using ir::Type;
using ir::Value;

namespace {

Location testLoc(int line, int col) {
  static int file = SourceManager::global().addFile("errors.tile", "line 1\nline 2\nline 3\nline 4\n");
  return Location{file, line, col};
}

/// x[offs] = 1.0 (or loads x[offs] into out) for offs = base + arange(0, 8).
struct OffsetKernel {
  Kernel kern{"oob"};
  Value *x, *out, *base;
  Location at = testLoc(3, 7);
  explicit OffsetKernel(bool load, Scalar s = Scalar::F32) {
    x = kern.param(ElemType::ptrTo(s), "x");
    out = kern.param(ElemType::ptrTo(s), "out");
    base = kern.param(ElemType::of(Scalar::I32), "base");
    ir::Builder &b = kern.b;
    Value *offs = b.binary(OpKind::Add, b.splat(base, {8}), b.arange(0, 8));
    b.loc = at;
    Type t = Type::tensor(ElemType::of(s), {8});
    if (!load) {
      b.store(kern.ptrs(x, offs), isFloat(s) ? b.constantFloat(1.0, t) : b.constantInt(1, t));
      return;
    }
    Value *v = b.load(kern.ptrs(x, offs));
    b.loc = Location{};
    b.store(kern.ptrs(out, b.arange(0, 8)), v);
  }
};

std::string errorOf(const std::function<void()> &f, Location *loc = nullptr) {
  try {
    f();
  } catch (const CompileError &e) {
    if (loc)
      *loc = e.loc;
    return e.msg;
  }
  return "";
}

} // namespace

TEST_CASE("interp: out-of-bounds store throws at the op with the distance") {
  HostBuf x(Scalar::F32, 10, "tensor#1 float32[10]"), out(Scalar::F32, 8);
  OffsetKernel k(false);
  CHECK_NOTHROW(run(*k.kern.fn, Grid{}, {x.arg(), out.arg(), i32Arg(2)}));
  CHECK(x.f(9) == 1.0);
  Location loc;
  std::string msg = errorOf([&] { run(*k.kern.fn, Grid{3, 1, 1}, {x.arg(), out.arg(), i32Arg(4)}); }, &loc);
  CHECK(loc == k.at);
  // the first program already writes x[4..11]: 10 is one past the end
  CHECK(msg == "out-of-bounds store in kernel 'oob' (program 0, 0, 0): address is 1 elements past the end of "
               "tensor#1 float32[10] (element offset 10 of 10), which parameter 'x' points into");
  msg = errorOf([&] { run(*k.kern.fn, Grid{}, {x.arg(), out.arg(), i32Arg(-3)}); });
  CHECK(msg == "out-of-bounds store in kernel 'oob' (program 0, 0, 0): address is 3 elements before the start of "
               "tensor#1 float32[10] (element offset -3), which parameter 'x' points into");
  msg = errorOf([&] { run(*k.kern.fn, Grid{}, {x.arg(), out.arg(), i32Arg(1 << 30)}); });
  CHECK(msg.find("does not point into any tensor") != std::string::npos);
}

TEST_CASE("interp: masked-off lanes are never checked") {
  HostBuf x(Scalar::F32, 4);
  Kernel kern;
  Value *xp = kern.param(ElemType::ptrTo(Scalar::F32), "x");
  ir::Builder &b = kern.b;
  Value *offs = b.arange(0, 16);
  Value *mask = kern.lessThan(offs, kern.i32(4));
  Value *v = b.load(kern.ptrs(xp, offs), mask);
  b.store(kern.ptrs(xp, offs), b.binary(OpKind::Add, v, v), mask);
  x.setF(3, 2.5);
  Capture cap;
  run(*kern.fn, Grid{}, {x.arg()}, cap.opts());
  CHECK(x.f(3) == 5.0);
  CHECK(cap.warnings.empty());
}

TEST_CASE("interp: out-of-bounds load warns once per op and reads NaN or poison") {
  HostBuf x(Scalar::F32, 10, "tensor#2 float32[10]"), out(Scalar::F32, 8);
  for (int k = 0; k < 10; ++k)
    x.setF(k, k);
  OffsetKernel k(true);
  Capture cap;
  run(*k.kern.fn, Grid{4, 1, 1}, {x.arg(), out.arg(), i32Arg(5)}, cap.opts());
  REQUIRE(cap.warnings.size() == 1);
  CHECK(cap.warnings[0].find("errors.tile:3:7: warning: out-of-bounds load in kernel 'oob' (first at program 0, "
                             "0, 0): address is 1 elements past the end of tensor#2 float32[10] (element offset 10 "
                             "of 10), which parameter 'x' points into; the lanes read NaN") == 0);
  for (int k2 = 0; k2 < 5; ++k2)
    CHECK(out.f(k2) == 5 + k2);
  for (int k2 = 5; k2 < 8; ++k2)
    CHECK(std::isnan(out.f(k2)));

  HostBuf xi(Scalar::I16, 4), outi(Scalar::I16, 8);
  OffsetKernel ki(true, Scalar::I16);
  Capture capi;
  run(*ki.kern.fn, Grid{}, {xi.arg(), outi.arg(), i32Arg(0)}, capi.opts());
  REQUIRE(capi.warnings.size() == 1);
  CHECK(capi.warnings[0].find("the lanes read poison (0x5a5a)") != std::string::npos);
  CHECK(outi.i(0) == 0);
  CHECK(outi.bits(7) == 0x5a5a);
}

TEST_CASE("interp: strict mode turns an out-of-bounds load into an error") {
  HostBuf x(Scalar::F32, 10), out(Scalar::F32, 8);
  OffsetKernel k(true);
  Options opts;
  opts.strict = true;
  Location loc;
  std::string msg = errorOf([&] { run(*k.kern.fn, Grid{}, {x.arg(), out.arg(), i32Arg(3)}, opts); }, &loc);
  CHECK(msg.find("out-of-bounds load in kernel 'oob' (program 0, 0, 0): address is 1 elements past the end") == 0);
  CHECK(loc == k.at);
}

TEST_CASE("interp: integer division and remainder by zero warn once at the op") {
  for (OpKind op : {OpKind::Div, OpKind::Rem}) {
    for (Scalar s : {Scalar::I32, Scalar::U8}) {
      Kernel kern;
      ir::Builder &b = kern.b;
      Value *d = kern.param(ElemType::of(s), "d");
      Value *o = kern.param(ElemType::ptrTo(s), "o");
      b.loc = testLoc(2, 4);
      Value *t = b.splat(d, {4});
      Value *sevens = b.constantInt(7, Type::tensor(ElemType::of(s), {4}));
      Value *q = b.binary(op, sevens, t);
      b.loc = testLoc(3, 1);
      b.store(b.addptr(b.splat(o, {4}), b.arange(0, 4)), q);
      HostBuf out(s, 4);
      Capture cap;
      run(*kern.fn, Grid{2, 1, 1}, {ScalarArg{ElemType::of(s), 0, 0}, out.arg()}, cap.opts());
      REQUIRE(cap.warnings.size() == 1); // once per op per run, not per program
      CHECK(cap.warnings[0].find(fmt::format("warning: integer {} by zero in kernel 'k' (program 0, 0, 0)",
                                             op == OpKind::Div ? "division" : "remainder")) != std::string::npos);
      int64_t expect = op == OpKind::Div ? wrapToIntType(-1, s) : 7;
      for (int64_t i = 0; i < 4; ++i)
        CHECK(out.i(i) == expect);
      Capture clean;
      run(*kern.fn, Grid{2, 1, 1}, {ScalarArg{ElemType::of(s), 3, 0}, out.arg()}, clean.opts());
      CHECK(clean.warnings.empty());
      CHECK(out.i(0) == (op == OpKind::Div ? 2 : 1));
    }
  }
}

TEST_CASE("interp: misaligned pointers are errors") {
  HostBuf x(Scalar::F32, 16), out(Scalar::F32, 8);
  OffsetKernel k(true);
  ScalarArg bad = x.arg();
  bad.i += 2;
  std::string msg = errorOf([&] { run(*k.kern.fn, Grid{}, {bad, out.arg(), i32Arg(0)}); });
  CHECK(msg.find("misaligned load in kernel 'oob' (program 0, 0, 0)") == 0);
  CHECK(msg.find("not a multiple of the element size (4 bytes)") != std::string::npos);
  OffsetKernel ks(false);
  msg = errorOf([&] { run(*ks.kern.fn, Grid{}, {bad, out.arg(), i32Arg(0)}); });
  CHECK(msg.find("misaligned store") == 0);
}

TEST_CASE("interp: failed device_assert throws its message") {
  Kernel kern;
  ir::Builder &b = kern.b;
  Value *ok = kern.lessThan(b.arange(0, 8), b.binary(OpKind::Sub, kern.i32(9), b.programId(0)));
  b.loc = testLoc(4, 1);
  b.create(OpKind::Assert, {ok}, {}, {{"msg", std::string("index in range")}});
  Location loc;
  std::string msg = errorOf([&] { run(*kern.fn, Grid{3, 1, 1}, {}); }, &loc);
  CHECK(msg == "device assertion failed in kernel 'k' (program 2, 0, 0 idx (7)): index in range");
  CHECK(loc == testLoc(4, 1));
  CHECK_NOTHROW(run(*kern.fn, Grid{2, 1, 1}, {}));
}

TEST_CASE("interp: bad launches and zero loop steps are located errors") {
  Kernel kern;
  Value *step = kern.param(ElemType::of(Scalar::I32), "step");
  ir::Op *loop = kern.b.create(OpKind::For, {kern.i32(0), kern.i32(4), step}, {});
  loop->regions[0]->block->addArg(Type::scalar(Scalar::I32));
  ir::Builder(loop->regions[0]->block.get()).yield({});
  CHECK(errorOf([&] { run(*kern.fn, Grid{}, {i32Arg(0)}); }) == "for loop step is zero in kernel 'k' (program 0, 0, 0)");
  CHECK_NOTHROW(run(*kern.fn, Grid{}, {i32Arg(1)}));
  CHECK(errorOf([&] { run(*kern.fn, Grid{}, {}); }) == "kernel 'k' takes 1 arguments, got 0");
  HostBuf p(Scalar::F32, 1);
  CHECK(errorOf([&] { run(*kern.fn, Grid{}, {p.arg()}); }).find("argument 0 ('step') must be i32, got ptr<f32>") != std::string::npos);
  CHECK(errorOf([&] { run(*kern.fn, Grid{-1, 1, 1}, {i32Arg(1)}); }).find("negative grid") != std::string::npos);
  CHECK_NOTHROW(run(*kern.fn, Grid{0, 1, 1}, {i32Arg(0)})); // launches nothing
}

TEST_CASE("interp: checkOffsetOverflow warns once for i32 overflow feeding addptr") {
  HostBuf x(Scalar::F32, 8);
  Kernel kern;
  Value *xp = kern.param(ElemType::ptrTo(Scalar::F32), "x");
  Value *big = kern.param(ElemType::of(Scalar::I32), "big");
  ir::Builder &b = kern.b;
  b.loc = testLoc(1, 3);
  Value *prod = b.binary(OpKind::Mul, big, b.programId(0)); // overflows for big * 2
  Value *unrelated = b.binary(OpKind::Mul, big, kern.i32(4)); // overflows, no pointer use
  b.loc = Location{};
  Value *off = b.binary(OpKind::Sub, prod, prod); // 0, keeps the access in bounds
  b.store(b.addptr(xp, off), b.cast(unrelated, ElemType::of(Scalar::F32)));
  Options opts;
  Capture cap;
  opts = cap.opts();
  opts.checkOffsetOverflow = true;
  run(*kern.fn, Grid{4, 1, 1}, {x.arg(), i32Arg(1 << 30)}, opts);
  REQUIRE(cap.warnings.size() == 1);
  CHECK(cap.warnings[0].find("errors.tile:1:3: warning: int32 overflow in a pointer offset in kernel 'k' (first "
                             "at program 2, 0, 0): 1073741824 * 2 = 2147483648 does not fit in int32") == 0);
  Capture byDefault;   // on by default (issue 21)
  run(*kern.fn, Grid{4, 1, 1}, {x.arg(), i32Arg(1 << 30)}, byDefault.opts());
  CHECK(byDefault.warnings == cap.warnings);
  Capture quiet;
  Options noCheck = quiet.opts();
  noCheck.checkOffsetOverflow = false;
  run(*kern.fn, Grid{4, 1, 1}, {x.arg(), i32Arg(1 << 30)}, noCheck);
  CHECK(quiet.warnings.empty());
  Options strict = quiet.opts();   // strict: an error at the op, no warning
  strict.strict = true;
  Location at;
  CHECK(errorOf([&] { run(*kern.fn, Grid{4, 1, 1}, {x.arg(), i32Arg(1 << 30)}, strict); }, &at)
            .find("int32 overflow in a pointer offset in kernel 'k' (program 2, 0, 0)") == 0);
  CHECK(at.line == 1);
  CHECK(at.col == 3);
  CHECK(quiet.warnings.empty());
}
