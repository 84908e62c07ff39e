// AutotuneTests.cpp - @triton.autotune and @triton.heuristics through the
// public API on the interpreter: a tuned kernel launched from C++ with a
// grid function reading META, results against a C++ reference; that the
// first launch of a key runs every config once (counted by an atomic
// counter the trials add to) and later launches of the key run one;
// reset_to_zero; heuristics seeing the config's values; Kernel::compile's
// config; and the errors (a tuned constexpr passed explicitly, decorators
// naming what the kernel lacks).
#include "ApiTestUtil.h"

#include <tile/tile.h>

#include <doctest/doctest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

namespace {

const char *kSource = R"(
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({'BLOCK': 16}, num_warps=1), triton.Config({'BLOCK': 32}),
                          triton.Config({'BLOCK': 128}, num_warps=8, num_stages=2)],
                 key=['n'])
@triton.jit
def scale(x_ptr, out_ptr, count_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * alpha, mask=mask)
    if tl.program_id(0) == 0:
        tl.atomic_add(count_ptr, 1)


@triton.autotune(configs=[triton.Config({'BLOCK': 8}), triton.Config({'BLOCK': 64})], key=['n'],
                 reset_to_zero=['sum_ptr'])
@triton.heuristics(values={'WIDE': lambda args: args['BLOCK'] >= 64, 'N_BLOCKS': lambda args: triton.cdiv(args['n'], args['BLOCK'])})
@triton.jit
def total(x_ptr, sum_ptr, blocks_ptr, n, BLOCK: tl.constexpr, WIDE: tl.constexpr, N_BLOCKS: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.atomic_add(sum_ptr, tl.sum(x, axis=0))
    if tl.program_id(0) == 0:
        if WIDE:
            tl.store(blocks_ptr, N_BLOCKS + 1000)
        else:
            tl.store(blocks_ptr, N_BLOCKS)
)";

tile::Context interpreter() { return tile::apitest::interpreterContext(true); }

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

} // namespace

TEST_CASE("an autotuned kernel tunes once per key, from C++, with a grid function") {
  tile::Context ctx = interpreter();
  tile::Kernel k = ctx.loadString(kSource, "tuned.tile").kernel("scale");
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-10, 10);
  tile::Tensor count = ctx.zeros({1}, tile::DType::I32);
  int expected = 0;
  std::set<int64_t> tuned;
  for (int64_t n : {100, 7, 100, 1000, 7}) {
    std::vector<float> x(static_cast<size_t>(n));
    for (float &v : x) v = dist(rng);
    tile::Tensor tx = ctx.fromHost({n}, tile::DType::F32, x);
    tile::Tensor out = ctx.zeros({n}, tile::DType::F32);
    int64_t seenBlock = 0;
    tile::GridFunction grid = [&](const tile::Meta &meta) {
      seenBlock = meta["BLOCK"];
      CHECK(meta["n"] == n);
      CHECK(meta.find("num_warps") != nullptr);
      return tile::Grid(cdiv(n, meta["BLOCK"]));
    };
    k.launch(grid, {tx, out, count, n, 0.5f});
    bool firstOfKey = tuned.insert(n).second;
    expected += firstOfKey ? 4 : 1; // three trials and the launch, or the launch
    CHECK(count.toHost<int32_t>()[0] == expected);
    CHECK((seenBlock == 16 || seenBlock == 32 || seenBlock == 128));
    std::vector<float> got = out.toHost<float>();
    for (int64_t i = 0; i < n; ++i) REQUIRE(got[size_t(i)] == x[size_t(i)] * 0.5f);
    tile::CompiledInfo info = k.compile({tx, out, count, n, 0.5f});
    CHECK(info.config.find("BLOCK=" + std::to_string(seenBlock) + ",") == 0);
  }
}

TEST_CASE("reset_to_zero and heuristics that read the config") {
  tile::Context ctx = interpreter();
  tile::Kernel k = ctx.loadString(kSource, "tuned.tile").kernel("total");
  for (int64_t n : {1, 63, 200}) {
    std::vector<int32_t> x(static_cast<size_t>(n));
    int32_t want = 0;
    for (int64_t i = 0; i < n; ++i) want += x[size_t(i)] = int32_t(i % 13) - 4;
    tile::Tensor tx = ctx.fromHost({n}, tile::DType::I32, x);
    tile::Tensor sum = ctx.zeros({1}, tile::DType::I32);
    tile::Tensor blocks = ctx.zeros({1}, tile::DType::I32);
    int64_t block = 0;
    k.launch([&](const tile::Meta &m) { return tile::Grid(cdiv(n, block = m["BLOCK"])); }, {tx, sum, blocks, n});
    // The two trials added into sum; it was zeroed before each and after.
    CHECK(sum.toHost<int32_t>()[0] == want);
    CHECK(blocks.toHost<int32_t>()[0] == cdiv(n, block) + (block >= 64 ? 1000 : 0));
  }
}

TEST_CASE("tuned launches: errors") {
  tile::Context ctx = interpreter();
  tile::Program prog = ctx.loadString(kSource, "tuned.tile");
  tile::Tensor x = ctx.zeros({4}, tile::DType::F32), c = ctx.zeros({1}, tile::DType::I32);
  try {
    prog.kernel("scale").launch(tile::Grid(1), {x, x, c, 4, 1.0f}, {{"BLOCK", 16}});
    FAIL("a tuned constexpr passed explicitly must be an error");
  } catch (const tile::Error &e) {
    CHECK(std::string(e.what()).find("conflicting meta-parameters: BLOCK") != std::string::npos);
  }
  // The context keeps working.
  prog.kernel("scale").launch(tile::Grid(4), {x, x, c, 4, 1.0f});

  tile::Program bad = ctx.loadString(R"(
import triton
import triton.language as tl

@triton.autotune(configs=[triton.Config({'BLOCK': 16})], key=['m'])
@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK), 1.0)
)",
                                     "bad.tile");
  try {
    bad.kernel("k");
    FAIL("a key naming no parameter must be an error");
  } catch (const tile::Error &e) {
    CHECK(std::string(e.what()).find("bad.tile:5:") == 0);
    CHECK(std::string(e.what()).find("autotune key names 'm', which is not a parameter of kernel 'k'") !=
          std::string::npos);
  }
}
