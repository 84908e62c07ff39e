// BindTest.cpp - sema::bindLaunch: matching launch arguments to parameters,
// the runtime types Python values get, defaults, and launch errors.
#include "SemaTestUtil.h"

using namespace tile;
using namespace tile::sema;
using namespace tile::sema::test;

namespace {

constexpr const char *kSrc = R"(
@triton.jit
def k(X, n, scale, flag, ACT, BLOCK: tl.constexpr, DT: tl.constexpr = tl.float16, EXTRA=3):
    offs = tl.arange(0, BLOCK)
    tl.store(X + offs, offs, mask=offs < n)
)";

struct Bound {
  std::shared_ptr<const Program> prog;
  const ast::FunctionDef *k = nullptr;
};

Bound load() {
  Bound b;
  b.prog = driver::loadProgramFromString("bind.tile", std::string(kPrelude) + kSrc);
  b.k = b.prog->kernel("k");
  REQUIRE(b.k);
  return b;
}

BoundLaunch bindK(const std::vector<ArgValue> &pos, const Keywords &kws = {}) {
  Bound b = load();
  return bindLaunch(*b.prog, *b.k, pos, kws, b.k->loc);
}

std::vector<ArgValue> basicArgs() {
  return {ptrArg(Scalar::I32), valArg(int64_t(10)), valArg(0.5), valArg(true), valArg("relu")};
}

} // namespace

TEST_CASE("python values get Triton's runtime types; strings and None specialize") {
  BoundLaunch b = bindK(basicArgs(), {{"BLOCK", valArg(int64_t(32))}});
  CHECK(b.spec.key() == "*i32:16,i32,f32,i1,ACT='relu',BLOCK=32,DT=tl.float16,i32");
  // EXTRA has an int default but no annotation: a runtime i32 argument.
  REQUIRE(b.args.size() == 5);
  CHECK(b.args[1].i == 10);
  CHECK(b.args[2].type == ElemType::of(Scalar::F32));
  CHECK(b.args[2].f == 0.5);
  CHECK(b.args[3].type == ElemType::of(Scalar::I1));
  CHECK(b.args[3].i == 1);
  CHECK(b.args[4].type == ElemType::of(Scalar::I32));
  CHECK(b.args[4].i == 3);
}

TEST_CASE("ints outside int32 become i64; None specializes as a constexpr") {
  std::vector<ArgValue> a = basicArgs();
  a[1] = valArg(int64_t(1) << 40);
  a[4] = valArg(ConstValue());
  BoundLaunch b = bindK(a, {{"BLOCK", valArg(int64_t(16))}, {"EXTRA", valArg(int64_t(-(int64_t(1) << 31)))}});
  CHECK(b.spec.key() == "*i32:16,i64:16,f32,i1,ACT=None,BLOCK=16,DT=tl.float16,i32:16");
  CHECK(b.args[1].i == int64_t(1) << 40);
  CHECK(b.args.back().i == -(int64_t(1) << 31));
}

TEST_CASE("keywords may name any parameter; defaults may be overridden") {
  BoundLaunch b = bindK({ptrArg(Scalar::F16)}, {{"ACT", valArg("gelu")},
                                               {"flag", valArg(false)},
                                               {"scale", valArg(2.0)},
                                               {"n", valArg(int64_t(7))},
                                               {"DT", valArg(DTypeValue{ElemType::of(Scalar::BF16)})},
                                               {"BLOCK", valArg(int64_t(64))}});
  CHECK(b.spec.key() == "*f16:16,i32,f32,i1,ACT='gelu',BLOCK=64,DT=tl.bfloat16,i32");
}

TEST_CASE("pointers and integers divisible by 16 specialize as :16") {
  std::vector<ArgValue> a = basicArgs();
  a[0].address = 0x1004;          // 4-byte aligned only
  a[1] = valArg(int64_t(32));     // a multiple of 16
  a[3] = valArg(false);           // i1: never :16 (false is 0)
  BoundLaunch b = bindK(a, {{"BLOCK", valArg(int64_t(16))}, {"EXTRA", valArg(int64_t(0))}});
  CHECK(b.spec.key() == "*i32,i32:16,f32,i1,ACT='relu',BLOCK=16,DT=tl.float16,i32:16");
  CHECK(b.spec.params[0].divisibility == 1);
  CHECK(b.spec.params[1].divisibility == 16);
  CHECK(b.spec.params[3].divisibility == 1);
  // An integer divisible by 8 but not 16 specializes as :8 (16-byte rows of
  // halves); a pointer only ever as :16.
  a[1] = valArg(int64_t(24));
  a[0].address = 0x1008;
  BoundLaunch b8 = bindK(a, {{"BLOCK", valArg(int64_t(16))}});
  CHECK(b8.spec.params[1].divisibility == 8);
  CHECK(b8.spec.params[0].divisibility == 1);
  CHECK(b8.spec.key().find("i32:8,") != std::string::npos);
  // A float that happens to be a multiple of 16 is not specialized.
  a[2] = valArg(32.0);
  CHECK(bindK(a, {{"BLOCK", valArg(int64_t(16))}}).spec.params[2].divisibility == 1);
}

TEST_CASE("launch errors name the kernel and the parameter") {
  SUBCASE("missing argument") {
    CompileError e = expectError([] { bindK(basicArgs()); });
    CHECK(e.msg == "missing argument 'BLOCK' of kernel 'k' (a tl.constexpr: pass it as BLOCK=...)");
    CHECK(e.loc.valid());
  }
  SUBCASE("missing runtime argument") {
    CompileError e = expectError([] { bindK({ptrArg(Scalar::F32)}, {{"BLOCK", valArg(16)}}); });
    CHECK(e.msg == "missing argument 'n' of kernel 'k'");
  }
  SUBCASE("too many positional arguments") {
    std::vector<ArgValue> a = basicArgs();
    for (int i = 0; i < 4; ++i) a.push_back(valArg(int64_t(1)));
    CompileError e = expectError([&] { bindK(a); });
    CHECK(e.msg == "kernel 'k' takes 8 arguments but 9 were given");
  }
  SUBCASE("unknown keyword") {
    CompileError e = expectError([] { bindK(basicArgs(), {{"BLOCK", valArg(16)}, {"BLOK", valArg(16)}}); });
    CHECK(e.msg == "kernel 'k' has no parameter named 'BLOK' (did you mean 'BLOCK'?)");
  }
  SUBCASE("a keyword repeating a positional argument") {
    CompileError e = expectError([] { bindK(basicArgs(), {{"BLOCK", valArg(16)}, {"n", valArg(3)}}); });
    CHECK(e.msg == "kernel 'k' got two values for parameter 'n'");
  }
  SUBCASE("a tensor for a constexpr") {
    CompileError e = expectError([] { bindK(basicArgs(), {{"BLOCK", ptrArg(Scalar::F32)}}); });
    CHECK(e.msg == "parameter 'BLOCK' of kernel 'k' is tl.constexpr but got a tensor");
  }
}

TEST_CASE("a launch argument's own location wins over the call's") {
  Bound b = load();
  ArgValue bad = ptrArg(Scalar::F32);
  bad.loc = Location{b.k->loc.file, 4, 9};
  CompileError e = expectError([&] { bindLaunch(*b.prog, *b.k, basicArgs(), {{"BLOCK", bad}}, b.k->loc); });
  CHECK(e.loc == bad.loc);
}
