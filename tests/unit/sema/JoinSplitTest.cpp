// JoinSplitTest.cpp - the types tl.join / tl.split / tl.interleave give
// (Triton's shapes: join adds a minor dimension of 2 after broadcasting,
// split removes it, interleave doubles the last dimension; scalars give a
// tensor<2> and back), observed through the values handed to
// tl.device_print; and Python's min/max of runtime values (tl.minimum /
// tl.maximum, as Triton's code generator maps them).
#include "SemaTestUtil.h"

using namespace tile;
using namespace tile::sema;
using namespace tile::sema::test;
using ir::OpKind;

namespace {

/// x: tensor<4x8xf32>, y: tensor<4x8xf32>, r: tensor<8xf32>, v:
/// tensor<8x2xi32>, s: a runtime f32 scalar. Returns the types printed by
/// `tl.device_print("r", EXPRS)`, comma separated.
std::string typesOf(const std::string &exprs) {
  std::string src = fmt::format(R"(
@triton.jit
def k(X, V, s):
    rm = tl.arange(0, 4)
    rn = tl.arange(0, 8)
    x = tl.load(X + rm[:, None] * 8 + rn[None, :])
    y = x * 2.0
    r = tl.load(X + rn)
    v = tl.load(V + rn[:, None] * 2 + tl.arange(0, 2)[None, :])
    tl.device_print("r", {})
)",
                                exprs);
  Compiled c = compileSource(src, "k", {ptrArg(Scalar::F32), ptrArg(Scalar::I32), valArg(1.5)});
  std::string out;
  for (ir::Value *v : onlyOp(*c.fn, OpKind::Print)->operands) out += (out.empty() ? "" : ", ") + v->type.str();
  return out;
}

} // namespace

TEST_CASE("join adds a minor dimension of 2 after broadcasting; a number takes the tensor's dtype") {
  CHECK(typesOf("tl.join(x, y)") == "tensor<4x8x2xf32>");
  CHECK(typesOf("x.join(r)") == "tensor<4x8x2xf32>");
  CHECK(typesOf("tl.join(r[None, :], x)") == "tensor<4x8x2xf32>");
  CHECK(typesOf("tl.join(x, s)") == "tensor<4x8x2xf32>");
  CHECK(typesOf("tl.join(v, 3)") == "tensor<8x2x2xi32>");
  CHECK(typesOf("tl.join(s, s)") == "tensor<2xf32>");
}

TEST_CASE("split removes the last dimension of 2; a tensor<2> splits into scalars") {
  CHECK(typesOf("tl.split(v)[0], tl.split(v)[1]") == "tensor<8xi32>, tensor<8xi32>");
  CHECK(typesOf("v.split()[0], v.split()[1]") == "tensor<8xi32>, tensor<8xi32>");
  CHECK(typesOf("tl.split(tl.join(x, y))[0], tl.split(tl.join(x, y))[1]") == "tensor<4x8xf32>, tensor<4x8xf32>");
  CHECK(typesOf("tl.split(tl.join(s, s))[0], tl.split(tl.join(s, s))[1]") == "f32, f32");
  CHECK(typesOf("tl.split(tl.join(x, y) > 0)[0], tl.split(tl.join(x, y) > 0)[1]") == "tensor<4x8xi1>, tensor<4x8xi1>");
}

TEST_CASE("interleave doubles the last dimension") {
  CHECK(typesOf("tl.interleave(x, y)") == "tensor<4x16xf32>");
  CHECK(typesOf("r.interleave(r)") == "tensor<16xf32>");
  CHECK(typesOf("tl.interleave(s, s)") == "tensor<2xf32>");
}

TEST_CASE("join, split and interleave errors are located") {
  std::string src = R"(
@triton.jit
def k(X, Y):
    x = tl.load(X + tl.arange(0, 8))
    y = tl.load(Y + tl.arange(0, 8))
    a, b = tl.split(x)
)";
  expectCompileError(src, "k", {ptrArg(Scalar::F32), ptrArg(Scalar::F32)},
                     "split needs a tensor whose last dimension is 2, got tensor<8xf32>", 8, 21);
  std::string src2 = R"(
@triton.jit
def k(X, Y):
    x = tl.load(X + tl.arange(0, 8))
    y = tl.load(Y + tl.arange(0, 8))
    c = tl.interleave(x, y)
)";
  expectCompileError(src2, "k", {ptrArg(Scalar::F32), ptrArg(Scalar::I8)},
                     "interleave needs operands of one dtype, got f32 and i8", 8, 9);
}

TEST_CASE("min and max of runtime values are tl.minimum and tl.maximum; constexprs still fold") {
  CHECK(typesOf("min(x, s)") == "tensor<4x8xf32>");
  CHECK(typesOf("max(s, 2)") == "f32");
  CHECK(typesOf("max(v, 1, 2)") == "tensor<8x2xi32>");
  std::string src = R"(
@triton.jit
def k(X, n):
    tl.store(X, min(n - 3, 4) + max(n, 1, 2) + min(2, 5))
)";
  Compiled c = compileSource(src, "k", {ptrArg(Scalar::I32), valArg(int64_t(7))});
  CHECK(countOps(*c.fn, OpKind::Min) == 1);
  CHECK(countOps(*c.fn, OpKind::Max) == 2);
}
