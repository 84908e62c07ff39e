// ErrorsTest.cpp - sema's user errors: each is a CompileError with an
// actionable lower-case message located at the offending token. (The CLI's
// rendering of the same errors is tested in tests/lit/errors.)
#include "SemaTestUtil.h"

using namespace tile;
using namespace tile::sema;
using namespace tile::sema::test;

namespace {

struct ErrorCase {
  const char *name;
  const char *body;     ///< the kernel's statements, indented 4 spaces
  const char *message;  ///< exact message
  int line, col;        ///< in the body: its first line is 1
};

/// Body lines start on line 6 of the compiled text (prelude, blank, decorator, def).
constexpr int kFirstBodyLine = 6;

const ErrorCase kCases[] = {
    {"unknown name", "    tl.store(X, y)\n", "unknown name 'y'", 1, 17},
    {"missing builtin argument", "    offs = tl.arange(0)\n", "arange() missing required argument 'end'", 1, 12},
    {"unexpected builtin keyword", "    x = tl.load(X, msk=n > 0)\n", "load() got an unexpected keyword argument 'msk' (did you mean 'mask'?)",
     1, 20},
    {"non-constexpr arange", "    offs = tl.arange(0, n)\n",
     "arange's end must be a constexpr integer (declare it `: tl.constexpr`)", 1, 25},
    {"non-power-of-two arange", "    offs = tl.arange(0, 10)\n",
     "arange's range must be a power of two, got 10 (= 10 - 0)", 1, 12},
    {"tile too large", "    a = tl.zeros((2048, 1024), dtype=tl.float32)\n",
     "tile too large: more than 1048576 elements (the limit per tensor is 2^20)", 1, 9},
    {"dot shape mismatch",
     "    a = tl.zeros((16, 32), dtype=tl.float32)\n    b = tl.zeros((16, 16), dtype=tl.float32)\n    c = tl.dot(a, b)\n",
     "dot shape mismatch: tensor<16x32xf32> @ tensor<16x16xf32> (inner dimensions 32 and 16 differ)", 3, 9},
    {"exp of an int", "    y = tl.exp(tl.arange(0, 16))\n", "exp expects a floating-point input, got tensor<16xi32>", 1, 16},
    {"bitwise op on floats", "    x = tl.load(X + tl.arange(0, 16))\n    y = x | 1\n",
     "bitwise operator | needs integer operands, got f32", 2, 11},
    {"constexpr division by zero", "    S = 4\n    q = 64 // (S - 4)\n",
     "integer division by zero in constexpr arithmetic", 2, 12},
    {"tensor if condition", "    x = tl.load(X + tl.arange(0, 16))\n    if x > 0:\n        x = -x\n",
     "an if condition must be a scalar, got tensor<16xi1>; use tl.where to choose elementwise", 2, 10},
    {"subscript assignment", "    x = tl.load(X + tl.arange(0, 16))\n    x[0] = 1.0\n",
     "tensors are immutable in kernels: build a new tensor (e.g. with tl.where) instead of assigning to an element", 2,
     5},
    {"break", "    for i in range(0, n):\n        break\n",
     "'break' is not supported in kernels; express the exit in the loop condition", 2, 9},
    {"return in a loop", "    for i in range(0, n):\n        if i > 3:\n            return\n",
     "return inside a loop is not supported in kernels", 3, 13},
    {"return in a static_range loop", "    for i in tl.static_range(4):\n        if i > 3:\n            return\n",
     "return inside a loop is not supported in kernels", 3, 13},
    {"kernel returning a value", "    return n\n", "a kernel cannot return a value", 1, 5},
    {"program_id axis", "    p = tl.program_id(3)\n", "program_id axis must be 0, 1 or 2, got 3", 1, 23},
    {"store of a tensor through a scalar pointer", "    tl.store(X, tl.arange(0, 16))\n",
     "cannot store a tensor<16xf32> through a single pointer", 1, 17},
    {"slice with bounds", "    a = tl.arange(0, 16)[1:]\n", "only ':' slices are supported on tensors", 1, 26},
    {"static_assert", "    tl.static_assert(n is None, \"n must be None\")\n",
     "static assertion failed: n must be None", 1, 5},
};

} // namespace

TEST_CASE("sema errors are located at the offending token") {
  for (const ErrorCase &ec : kCases) {
    CAPTURE(ec.name);
    std::string src = std::string("\n@triton.jit\ndef k(X, n):\n") + ec.body;
    CompileError e = expectError([&] { compileSource(src, "k", {ptrArg(Scalar::F32), valArg(5)}); });
    CHECK(e.msg == ec.message);
    CHECK(e.loc.line == kFirstBodyLine + ec.line - 1);
    CHECK(e.loc.col == ec.col);
    // messages are lower-case and carry no trailing period
    CHECK(!std::isupper(static_cast<unsigned char>(e.msg[0])));
    CHECK(e.msg.back() != '.');
  }
}

TEST_CASE("recursion is reported at the recursive call") {
  CompileError e = expectError([] {
    compileSource(R"(
@triton.jit
def fact(n):
    if n <= 1:
        return 1
    return n * fact(n - 1)

@triton.jit
def k(X, n):
    tl.store(X, fact(n))
)",
                  "k", {ptrArg(Scalar::F32), valArg(5)});
  });
  CHECK(e.msg == "recursive call to 'fact': recursion is not supported in kernels");
  CHECK(e.loc.line == 8);
  CHECK(e.loc.col == 16);
}

TEST_CASE("a loop-carried variable that changes type names both types") {
  CompileError e = expectError([] {
    compileSource(R"(
@triton.jit
def k(X, n):
    acc = 0
    for i in range(0, n):
        acc = acc + tl.load(X + i)
    tl.store(X, acc)
)",
                  "k", {ptrArg(Scalar::F32), valArg(5)});
  });
  CHECK(e.msg.find("loop-carried variable 'acc' enters the loop as i32 but the body makes it f32") == 0);
  CHECK(e.loc.line == 7);
}

TEST_CASE("deep static unrolling is bounded, not a hang") {
  CompileError e = expectError([] {
    compileSource(R"(
@triton.jit
def k(X, n):
    acc = 0
    for i in tl.static_range(100000):
        acc += n
    tl.store(X, acc)
)",
                  "k", {ptrArg(Scalar::F32), valArg(5)});
  });
  CHECK(e.msg == "static_range unrolls more than 4096 iterations");
}
