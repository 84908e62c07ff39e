// PromotionTest.cpp - Triton's type promotion (computation_type_impl in
// triton/language/semantic.py) and NumPy broadcasting, observed through the
// type of the value a kernel hands to tl.device_print.
#include "SemaTestUtil.h"

using namespace tile;
using namespace tile::sema;
using namespace tile::sema::test;
using ir::OpKind;

namespace {

/// x, y: 16-element tensors loaded from X (xs) and Y (ys); s: a runtime
/// scalar bound to `sv`. Returns the type of `expr`.
std::string typeOf(Scalar xs, Scalar ys, const std::string &expr, ConstValue sv = int64_t(1)) {
  std::string src = fmt::format(R"(
@triton.jit
def k(X, Y, s):
    offs = tl.arange(0, 16)
    x = tl.load(X + offs)
    y = tl.load(Y + offs)
    tl.device_print("r", {})
)",
                                expr);
  Compiled c = compileSource(src, "k", {ptrArg(xs), ptrArg(ys), valArg(sv)});
  return onlyOp(*c.fn, OpKind::Print)->operands[0]->type.str();
}

std::string promoteError(Scalar xs, Scalar ys, const std::string &expr) {
  std::string src = fmt::format(R"(
@triton.jit
def k(X, Y):
    offs = tl.arange(0, 16)
    x = tl.load(X + offs)
    y = tl.load(Y + offs)
    tl.device_print("r", {})
)",
                                expr);
  return expectError([&] { compileSource(src, "k", {ptrArg(xs), ptrArg(ys)}); }).msg;
}

using S = Scalar;

} // namespace

TEST_CASE("integer promotion: wider wins, unsigned wins at equal or greater width") {
  CHECK(typeOf(S::I32, S::I64, "x + y") == "tensor<16xi64>");
  CHECK(typeOf(S::I8, S::I16, "x * y") == "tensor<16xi16>");
  CHECK(typeOf(S::U32, S::I32, "x + y") == "tensor<16xu32>");
  CHECK(typeOf(S::I32, S::U32, "x - y") == "tensor<16xu32>");
  CHECK(typeOf(S::U8, S::I32, "x + y") == "tensor<16xi32>");
  CHECK(typeOf(S::U32, S::I64, "x + y") == "tensor<16xi64>");
  CHECK(typeOf(S::U64, S::I64, "x & y") == "tensor<16xu64>");
  CHECK(typeOf(S::I8, S::U8, "x | y") == "tensor<16xu8>");
}

TEST_CASE("python numbers of a lower or equal kind do not take part in promotion") {
  CHECK(typeOf(S::I8, S::I8, "x + 1") == "tensor<16xi8>");
  CHECK(typeOf(S::I8, S::I8, "3 * x") == "tensor<16xi8>");
  // signed and unsigned ints are one kind (Triton's dtype.kind(): bool <
  // integral < floating): an int scalar takes an unsigned tensor's type
  CHECK(typeOf(S::U8, S::U8, "x + 1") == "tensor<16xu8>");
  CHECK(typeOf(S::U16, S::U16, "3 * x") == "tensor<16xu16>");
  CHECK(typeOf(S::U32, S::U32, "x + 1") == "tensor<16xu32>");
  CHECK(typeOf(S::U32, S::U32, "x // 10") == "tensor<16xu32>");
  CHECK(typeOf(S::I16, S::I16, "x + True") == "tensor<16xi16>");
  CHECK(typeOf(S::F16, S::F16, "x + 2.0") == "tensor<16xf16>");
  CHECK(typeOf(S::BF16, S::BF16, "x * 3") == "tensor<16xbf16>");
  // a float scalar is of a higher kind than an int tensor: it promotes
  CHECK(typeOf(S::I8, S::I8, "x + 1.5") == "tensor<16xf32>");
  // ... and an int scalar is of a higher kind than a bool tensor
  CHECK(typeOf(S::I32, S::I32, "(x < y) + 1") == "tensor<16xi32>");
  // a runtime scalar is a typed value, not a Python number
  CHECK(typeOf(S::I8, S::I8, "x + s") == "tensor<16xi32>");
  CHECK(typeOf(S::I32, S::I32, "x + s", int64_t(1) << 40) == "tensor<16xi64>");
  CHECK(typeOf(S::F16, S::F16, "x + s", 0.5) == "tensor<16xf32>");
}

TEST_CASE("float promotion: f64 > f32 > f16 > bf16, with / and % leaving half precision") {
  CHECK(typeOf(S::F16, S::F32, "x + y") == "tensor<16xf32>");
  CHECK(typeOf(S::F64, S::F32, "x + y") == "tensor<16xf64>");
  CHECK(typeOf(S::F16, S::F16, "x + y") == "tensor<16xf16>");
  CHECK(typeOf(S::F16, S::F16, "x / y") == "tensor<16xf32>");
  CHECK(typeOf(S::F16, S::F16, "x % y") == "tensor<16xf32>");
  CHECK(typeOf(S::F16, S::F16, "x / 2.0") == "tensor<16xf32>");
  CHECK(typeOf(S::BF16, S::BF16, "x + y") == "tensor<16xbf16>");
  CHECK(typeOf(S::BF16, S::BF16, "x / y") == "tensor<16xf32>");
  CHECK(typeOf(S::BF16, S::F32, "x + y") == "tensor<16xf32>");
  CHECK(typeOf(S::BF16, S::I32, "x + y") == "tensor<16xf32>");
  CHECK(typeOf(S::F16, S::I32, "x + y") == "tensor<16xf16>");
  CHECK(typeOf(S::I64, S::F32, "x * y") == "tensor<16xf32>");
  // Triton's rule 3 (a half operand makes half) precedes rule 4 (bf16 only
  // with bf16): bf16 + f16 is f16 in Triton's semantic.py, and f32 for / and %.
  CHECK(typeOf(S::BF16, S::F16, "x + y") == "tensor<16xf16>");
  CHECK(typeOf(S::BF16, S::F16, "x / y") == "tensor<16xf32>");
}

TEST_CASE("true division of integers is f32; // and % stay integer") {
  CHECK(typeOf(S::I32, S::I32, "x / y") == "tensor<16xf32>");
  CHECK(typeOf(S::I64, S::I64, "x / y") == "tensor<16xf32>");
  CHECK(typeOf(S::I32, S::I32, "x / 2") == "tensor<16xf32>");
  CHECK(typeOf(S::I32, S::I32, "x // y") == "tensor<16xi32>");
  CHECK(typeOf(S::I16, S::I16, "x % 3") == "tensor<16xi16>");
  CHECK(typeOf(S::U32, S::U32, "x // y") == "tensor<16xu32>");
}

TEST_CASE("comparisons give i1 of the broadcast shape") {
  CHECK(typeOf(S::F32, S::I32, "x < y") == "tensor<16xi1>");
  CHECK(typeOf(S::F32, S::F32, "x[:, None] == y[None, :]") == "tensor<16x16xi1>");
  CHECK(typeOf(S::I32, S::I32, "x > 0") == "tensor<16xi1>");
}

TEST_CASE("signedness and range errors of Triton's promotion") {
  CHECK(promoteError(S::U32, S::I32, "x / y").find("different signedness") != std::string::npos);
  CHECK(promoteError(S::I32, S::U32, "x % y").find("different signedness") != std::string::npos);
  CHECK(promoteError(S::U32, S::U32, "x + -1").find("negative") != std::string::npos);
  // Triton's "Scalar 300 is out of range for type int8": never a silent wrap
  CHECK(promoteError(S::I8, S::I8, "x + 300") == "300 is out of range for i8, the type of this operation; cast the "
                                                   "other operand to a wider type first");
  CHECK(promoteError(S::I32, S::I32, "x & 4294967295").find("out of range for i32") != std::string::npos);
  CHECK(typeOf(S::I8, S::I8, "x + 127") == "tensor<16xi8>");
  CHECK(typeOf(S::I8, S::I8, "x + -128") == "tensor<16xi8>");
  CHECK(promoteError(S::I8, S::I8, "x - 128").find("128 is out of range for i8") == 0); // as in Triton
  CHECK(promoteError(S::U8, S::U8, "x + 300").find("300 is out of range for u8") == 0);
  CHECK(promoteError(S::F32, S::F32, "x & y").find("bitwise operator & needs integer operands") != std::string::npos);
  CHECK(promoteError(S::F32, S::F32, "x ** y").find("'**'") != std::string::npos);
  CHECK(promoteError(S::I32, S::I32, "X + Y").find("two pointers") != std::string::npos);
  CHECK(promoteError(S::F32, S::F32, "X + x").find("pointer offsets must be integers") != std::string::npos);
}

TEST_CASE("broadcasting a column and a row builds a 2-D tile") {
  Compiled c = compileSource(R"(
@triton.jit
def k(X):
    a = tl.arange(0, 16)
    b = tl.arange(0, 32)
    tl.device_print("r", a[:, None] + b[None, :])
)",
                             "k", {ptrArg(S::F32)});
  ir::Op *print = onlyOp(*c.fn, OpKind::Print);
  CHECK(print->operands[0]->type.str() == "tensor<16x32xi32>");
  auto bcasts = opsOf(*c.fn, OpKind::Broadcast);
  REQUIRE(bcasts.size() == 2);
  std::vector<std::string> from;
  for (ir::Op *b : bcasts) from.push_back(b->operands[0]->type.str());
  std::sort(from.begin(), from.end());
  CHECK(from == std::vector<std::string>{"tensor<16x1xi32>", "tensor<1x32xi32>"});
  auto expands = opsOf(*c.fn, OpKind::ExpandDims);
  REQUIRE(expands.size() == 2);
  std::vector<int64_t> axes;
  for (ir::Op *e : expands) axes.push_back(e->intAttr("axis"));
  std::sort(axes.begin(), axes.end());
  CHECK(axes == std::vector<int64_t>{0, 1});
}

TEST_CASE("rank-1 operands broadcast against rank-2 ones from the left") {
  CHECK(typeOf(S::F32, S::F32, "x[None, :] * tl.zeros((8, 16), dtype=tl.float32)") == "tensor<8x16xf32>");
  CHECK(typeOf(S::F32, S::F32, "x + tl.zeros((4, 16), dtype=tl.float16)") == "tensor<4x16xf32>");
  CHECK(typeOf(S::F32, S::F32, "s + x") == "tensor<16xf32>");
}

TEST_CASE("incompatible shapes are a located broadcast error") {
  CompileError e = expectCompileError(R"(
@triton.jit
def k(X):
    a = tl.arange(0, 16)
    b = tl.arange(0, 32)
    c = a + b
)",
                                      "k", {ptrArg(S::F32)}, "cannot broadcast operand shapes (16,) and (32,)", 8, 11);
  CHECK(e.msg.find("dimension 0 is 16 vs 32") != std::string::npos);
}
