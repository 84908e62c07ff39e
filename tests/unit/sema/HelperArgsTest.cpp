// HelperArgsTest.cpp - arguments of inlined @jit helpers whose parameters
// are annotated tl.constexpr: as in Triton (its fused-attention tutorial),
// tensors, @jit functions and runtime scalars pass as runtime values; a
// constexpr specializes the inlined call.
#include "SemaTestUtil.h"

using namespace tile;
using namespace tile::sema;
using namespace tile::sema::test;

TEST_CASE("a tensor passed to a tl.constexpr parameter of a helper stays a tensor") {
  Compiled c = compileSource(R"(
@triton.jit
def scale(x, offs: tl.constexpr, F: tl.constexpr):
    return x * F + offs

@triton.jit
def k(X, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(X + offs, scale(1.0, offs, 3))
)",
                             "k", {ptrArg(Scalar::F32)}, {{"BLOCK", valArg(16)}});
  CHECK(storedType(*c.fn) == "tensor<16xf32>");
}

TEST_CASE("a @jit function passed to a tl.constexpr parameter of a helper is called") {
  Compiled c = compileSource(R"(
@triton.jit
def twice(x):
    return x * 2

@triton.jit
def apply(fn: tl.constexpr, x):
    return fn(x)

@triton.jit
def k(X, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(X + offs, apply(twice, tl.load(X + offs)))
)",
                             "k", {ptrArg(Scalar::F32)}, {{"BLOCK", valArg(16)}});
  CHECK(storedType(*c.fn) == "tensor<16xf32>");
  CHECK(countOps(*c.fn, ir::OpKind::Mul) == 1);
}

TEST_CASE("a runtime scalar passed to a tl.constexpr parameter of a helper is a runtime value") {
  Compiled c = compileSource(R"(
@triton.jit
def helper(x, B: tl.constexpr):
    return x * B

@triton.jit
def k(X, n):
    tl.store(X, helper(1.0, n))
)",
                             "k", {ptrArg(Scalar::F32), valArg(5)});
  CHECK(storedType(*c.fn) == "f32");
  CHECK(countOps(*c.fn, ir::OpKind::Mul) == 1);
}

TEST_CASE("a constexpr passed to a tl.constexpr parameter of a helper specializes it") {
  Compiled c = compileSource(R"(
@triton.jit
def helper(x, B: tl.constexpr):
    if B > 4:
        return x * B
    return x

@triton.jit
def k(X, n):
    tl.store(X, helper(1.0, 8) + helper(2.0, 2))
)",
                             "k", {ptrArg(Scalar::F32), valArg(5)});
  CHECK(countOps(*c.fn, ir::OpKind::If) == 0);
}
