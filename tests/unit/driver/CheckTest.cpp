// CheckTest.cpp - `tilec check`'s static checks: names resolve as sema
// resolves them (no false alarms on valid kernels), and every problem is
// reported with its location, not only the first.
#include "driver/Check.h"
#include "driver/Pipeline.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace tile;

namespace {

std::vector<std::string> problems(const std::string &src) {
  auto prog = driver::loadProgramFromString("check.tile", src);
  std::vector<std::string> out;
  for (const CompileError &e : driver::checkProgram(*prog))
    out.push_back(std::to_string(e.loc.line) + ": " + e.msg);
  return out;
}

} // namespace

TEST_CASE("valid kernels and host code check clean") {
  auto p = problems(R"(import triton
import triton.language as tl
from triton.language import arange as ar

K = 4

@triton.jit
def helper(x, scale=2.0, BLOCK: tl.constexpr = 8):
    return x * scale

@triton.jit
def k(X, Y, n, BLOCK: tl.constexpr, DT: tl.constexpr = tl.float16):
    pid = tl.program_id(0)
    offs = pid * BLOCK + ar(0, BLOCK)
    a, b = offs, offs + 1
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in tl.static_range(K):
        acc += helper(tl.load(X + a, mask=b < n).to(tl.float32), scale=1.0)
    while n > 0:
        n -= 1
    x = tl.math.exp(acc) if K > 2 else acc
    tl.store(Y + offs, tl.sum(x, axis=0) + triton.cdiv(n, 2) + max(1, K) + len((1, 2)), mask=offs < n)

def main():
    x = zeros((8,), dtype=float32)
    grid = lambda META: (triton.cdiv(8, META["BLOCK"]),)
    k[grid](x, x, 8, BLOCK=8, num_warps=1)
    k[(1,)](x, x, 8, 8, tl.float32)
)");
  CHECK(p.empty());
  for (const std::string &s : p) MESSAGE(s);
}

TEST_CASE("every problem is reported, located") {
  auto p = problems(R"(import triton
import triton.language as tl

def host_helper():
    return 1

@triton.jit
def h(x, y):
    return x + y

@triton.jit
def k(X, BLOCK: tl.constexpr):
    a = tl.arange(0, BLOCK) + missing
    b = tl.no_such_fn(a)
    c = h(a, a, a)
    d = h(a, z=1)
    e = host_helper()
    tl.store(X + a, a)

def main():
    k[(1,)](1)
    k[(1,)](1, 2, num_warps=4, EXTRA=1)
)");
  REQUIRE(p.size() == 7);
  CHECK(p[0] == "13: unknown name 'missing'");
  CHECK(p[1] == "14: module 'triton.language' has no attribute 'no_such_fn'");
  CHECK(p[2] == "15: 'h' takes 2 arguments but 3 were given");
  CHECK(p[3] == "16: 'h' has no parameter named 'z'");
  CHECK(p[4] == "17: 'host_helper' is a host function; kernels can only call @triton.jit functions");
  CHECK(p[5] == "21: missing argument 'BLOCK' of 'k'");
  CHECK(p[6] == "22: 'k' has no parameter named 'EXTRA'");
}
