// LayoutAssignmentTest.cpp - the tile-layouts pass on the seed kernels and
// small cases: every tensor value gets a layout, the IR verifies, no
// convert_layout inside loops of the seed matmul and vector add, the
// interpreter's results are unchanged, and the axis info behind the vector
// widths.
#include "../kernels/KernelTestUtil.h"
#include "../sema/SeedKernels.h"
#include "gpu/AxisInfo.h"
#include "gpu/LayoutAssignment.h"
#include "gpu/Layouts.h"
#include "ir/Verifier.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

using namespace tile;
using namespace tile::gpu;
using sema::test::Compiled;
using sema::test::compileSource;
using sema::test::ptrArg;
using sema::test::valArg;

namespace {

const char *const kVectorAdd = R"PY(
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)

@triton.jit
def loop_add_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in range(0, 4):
        acc += tl.load(x_ptr + i * BLOCK + offs, mask=i * BLOCK + offs < n, other=0.0)
    tl.store(out_ptr + offs, acc)

@triton.jit
def rowsum_kernel(x_ptr, out_ptr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + rows[:, None] * BLOCK_N + cols[None, :])
    s = tl.sum(x, axis=1)
    y = x - s[:, None]
    tl.store(out_ptr + rows[:, None] * BLOCK_N + cols[None, :], y)
)PY";

int countOps(ir::Block &b, ir::OpKind kind, bool insideLoop, bool inLoop = false) {
  int n = 0;
  for (auto &op : b.ops) {
    if (op->kind == kind && (!insideLoop || inLoop))
      ++n;
    bool loop = op->kind == ir::OpKind::For || op->kind == ir::OpKind::While;
    for (auto &r : op->regions)
      n += countOps(*r->block, kind, insideLoop, inLoop || loop);
  }
  return n;
}

std::vector<sema::ArgValue> matmulArgs(kernels::test::HostArray &a, kernels::test::HostArray &b,
                                       kernels::test::HostArray &c, int64_t M, int64_t N, int64_t K) {
  std::vector<sema::ArgValue> args = {a.arg(), b.arg(), c.arg()};
  for (int64_t v : {M, N, K, K, int64_t(1), N, int64_t(1), N, int64_t(1)})
    args.push_back(valArg(v));
  return args;
}

sema::test::Keywords matmulKws() {
  return {{"N_ITERS", valArg(int64_t(3))}, {"BLOCK_M", valArg(int64_t(16))},
          {"BLOCK_N", valArg(int64_t(16))}, {"BLOCK_K", valArg(int64_t(16))}};
}

Compiled laidOut(const std::string &src, const std::string &name, const std::vector<sema::ArgValue> &args,
                 const sema::test::Keywords &kws, int numWarps = 4) {
  Compiled c = compileSource(src, name, args, kws, true);
  assignLayouts(*c.fn, numWarps);
  INFO(c.text());
  CHECK(allTensorsHaveLayouts(*c.fn));
  CHECK_NOTHROW(ir::verify(*c.fn));
  return c;
}

} // namespace

TEST_CASE("vector add: coalesced vector layout, no converts, same results") {
  using kernels::test::HostArray;
  HostArray x(Scalar::F32, 1000), y(Scalar::F32, 1000), out(Scalar::F32, 1000), ref(Scalar::F32, 1000);
  for (int64_t i = 0; i < 1000; ++i) {
    x.set(i, 0.5 * i);
    y.set(i, 3.0 - i);
  }
  // n = 1008 is a multiple of 16: the mask is constant over 4-element runs
  std::vector<sema::ArgValue> args = {x.arg(), y.arg(), out.arg(), valArg(int64_t(1008))};
  Compiled c = laidOut(kVectorAdd, "add_kernel", args, {{"BLOCK", valArg(int64_t(512))}});
  CHECK(countOps(c.fn->entry(), ir::OpKind::ConvertLayout, false) == 0);
  for (auto *op : sema::test::opsOf(*c.fn, ir::OpKind::Load))
    CHECK(op->result()->type.layout->str() == "#blocked<[4], [32], [4], [0]>");
  // 256 elements over 128 threads: 2 each, not 4 with half the warps
  // replicating the others (Triton's cap)
  Compiled c2 = laidOut(kVectorAdd, "add_kernel", args, {{"BLOCK", valArg(int64_t(256))}});
  for (auto *op : sema::test::opsOf(*c2.fn, ir::OpKind::Load))
    CHECK(op->result()->type.layout->str() == "#blocked<[2], [32], [4], [0]>");
  // n = 1000, a multiple of 8 (bound as :8): the mask is constant over
  // 8-element runs, so the 2 a thread gets stay one access
  args[3] = valArg(int64_t(1000));
  Compiled c8 = laidOut(kVectorAdd, "add_kernel", args, {{"BLOCK", valArg(int64_t(256))}});
  for (auto *op : sema::test::opsOf(*c8.fn, ir::OpKind::Load))
    CHECK(op->result()->type.layout->str() == "#blocked<[2], [32], [4], [0]>");
  // n not a multiple of 8: one element per access
  const int64_t n1 = 996;
  args[3] = valArg(n1);
  Compiled c1 = laidOut(kVectorAdd, "add_kernel", args, {{"BLOCK", valArg(int64_t(256))}});
  for (auto *op : sema::test::opsOf(*c1.fn, ir::OpKind::Load))
    CHECK(op->result()->type.layout->str() == "#blocked<[1], [32], [4], [0]>");
  interp::run(*c1.fn, {4, 1, 1}, c1.bound.args, {});
  for (int64_t i = 0; i < n1; ++i)
    REQUIRE(out.f(i) == static_cast<float>(0.5 * i) + static_cast<float>(3.0 - i));
}

TEST_CASE("seed matmul: every tensor laid out, no converts in the loop, interpreter results unchanged") {
  using kernels::test::HostArray;
  const int64_t M = 37, N = 29, K = 40;
  HostArray a(Scalar::F32, M * K), b(Scalar::F32, K * N), c1(Scalar::F32, M * N), c2(Scalar::F32, M * N);
  for (int64_t i = 0; i < M * K; ++i) a.set(i, (i % 7) - 3);
  for (int64_t i = 0; i < K * N; ++i) b.set(i, (i % 5) * 0.5);
  Compiled ref = compileSource(sema::test::kSeedKernels, "matmul_kernel", matmulArgs(a, b, c1, M, N, K), matmulKws(), true);
  Compiled lay = laidOut(sema::test::kSeedKernels, "matmul_kernel", matmulArgs(a, b, c2, M, N, K), matmulKws());
  // the f32 dot runs on tf32 tensor cores: the accumulator keeps the
  // fragment layout through the loop and is converted once, for the store
  CHECK(countOps(lay.fn->entry(), ir::OpKind::ConvertLayout, true) == 0);
  CHECK(countOps(lay.fn->entry(), ir::OpKind::ConvertLayout, false) == 1);
  interp::Options quiet;
  quiet.warn = [](const std::string &) {};
  interp::Grid grid{3, 2, 1};
  interp::run(*ref.fn, grid, ref.bound.args, quiet);
  interp::run(*lay.fn, grid, lay.bound.args, quiet);
  for (int64_t i = 0; i < M * N; ++i)
    REQUIRE(kernels::test::sameFloat(c1.f(i), c2.f(i)));
  // independent check of one entry
  double s = 0;
  for (int64_t k = 0; k < K; ++k) s += a.f(5 * K + k) * b.f(k * N + 7);
  CHECK(c2.f(5 * N + 7) == doctest::Approx(s));
}

TEST_CASE("seed matmul in f16, bf16 and tf32: the accumulator chain takes the mma fragment layout, no converts in the loop") {
  using kernels::test::HostArray;
  const int64_t M = 37, N = 29, K = 40;
  // a and b outlive the run: the bound arguments point at them
  auto laidOutFrom = [&](const std::string &src, int numWarps, HostArray &a, HostArray &b, HostArray &c) {
    for (int64_t i = 0; i < M * K; ++i) a.set(i, (i % 7) - 3);
    for (int64_t i = 0; i < K * N; ++i) b.set(i, (i % 5) * 0.5);
    return laidOut(src, "matmul_kernel", matmulArgs(a, b, c, M, N, K), matmulKws(), numWarps);
  };
  auto laidOutFor = [&](Scalar, int numWarps, HostArray &a, HostArray &b, HostArray &c) {
    return laidOutFrom(sema::test::kSeedKernels, numWarps, a, b, c);
  };
  for (int numWarps : {1, 4, 8}) {
    // (f32 with the default "tf32" qualifies from 32x32 outputs up; these
    // seed blocks are 16x16: see the lit test backend/dot-tf32.test)
    for (Scalar in : {Scalar::F16, Scalar::BF16}) {
      HostArray a(in, M * K), b(in, K * N), c(Scalar::F32, M * N);
      Compiled lay = laidOutFor(in, numWarps, a, b, c);
      // m16n8 f32 fragment: lane l holds rows l/4 (+8), columns 2*(l%4) + {0,1}; warps split N
      std::string want = fmt::format("#blocked<[1, 2], [8, 4], [1, {}], [1, 0]>", numWarps);
      auto dots = sema::test::opsOf(*lay.fn, ir::OpKind::Dot);
      REQUIRE(dots.size() == 1);
      CHECK(dots[0]->result()->type.layout->str() == want);
      CHECK(dots[0]->operands[2]->type.layout->str() == want);
      auto fors = sema::test::opsOf(*lay.fn, ir::OpKind::For);
      REQUIRE(fors.size() == 1);
      // the dot's accumulator is a loop-carried value: its iter arg and the loop result too
      ir::Block &body = *fors[0]->regions[0]->block;
      size_t j = 0;
      while (j < body.args.size() && body.args[j].get() != dots[0]->operands[2])
        ++j;
      REQUIRE(j >= 1);
      REQUIRE(j < body.args.size());
      CHECK(fors[0]->results[j - 1]->type.layout->str() == want);
      // the loads keep their coalesced layout; one convert, after the loop, for the store
      CHECK(dots[0]->operands[0]->type.layout->str() != want);
      CHECK(countOps(lay.fn->entry(), ir::OpKind::ConvertLayout, true) == 0);
      CHECK(countOps(lay.fn->entry(), ir::OpKind::ConvertLayout, false) == 1);
      auto stores = sema::test::opsOf(*lay.fn, ir::OpKind::Store);
      REQUIRE(stores.size() == 1);
      CHECK(stores[0]->operands[1]->def->kind == ir::OpKind::ConvertLayout);
      CHECK(stores[0]->operands[1]->def->operands[0] == fors[0]->results[j - 1].get());
      // the interpreter's results are unchanged by the layouts
      interp::Options quiet;
      quiet.warn = [](const std::string &) {};
      interp::run(*lay.fn, interp::Grid{3, 2, 1}, lay.bound.args, quiet);
      double s = 0;
      for (int64_t k = 0; k < K; ++k) s += double((5 * K + k) % 7 - 3) * (((k * N + 7) % 5) * 0.5);
      CHECK(c.f(5 * N + 7) == doctest::Approx(s));
    }
  }
  // f32 inputs with input_precision "ieee" or "tf32x3" stay on the FMA path:
  // the default blocked layout
  for (const char *prec : {"ieee", "tf32x3"}) {
    std::string src = sema::test::kSeedKernels;
    const std::string call = "tl.dot(a, b, acc)";
    size_t at = src.find(call);
    REQUIRE(at != std::string::npos);
    src.replace(at, call.size(), fmt::format("tl.dot(a, b, acc, input_precision=\"{}\")", prec));
    HostArray a(Scalar::F32, M * K), b(Scalar::F32, K * N), c(Scalar::F32, M * N);
    Compiled f32 = laidOutFrom(src, 4, a, b, c);
    auto dots = sema::test::opsOf(*f32.fn, ir::OpKind::Dot);
    REQUIRE(dots.size() == 1);
    CHECK(dots[0]->strAttr("input_precision") == prec);
    CHECK(dots[0]->result()->type.layout->str() != "#blocked<[1, 2], [8, 4], [1, 4], [1, 0]>");
  }
}

TEST_CASE("loop-carried accumulator takes the load's layout: no convert per iteration") {
  using kernels::test::HostArray;
  HostArray x(Scalar::F32, 512), out(Scalar::F32, 128);
  Compiled c = laidOut(kVectorAdd, "loop_add_kernel", {x.arg(), out.arg(), valArg(int64_t(512))},
                       {{"BLOCK", valArg(int64_t(128))}});
  CHECK(countOps(c.fn->entry(), ir::OpKind::ConvertLayout, true) == 0);
  auto *loop = sema::test::opsOf(*c.fn, ir::OpKind::For).at(0);
  auto *load = sema::test::opsOf(*c.fn, ir::OpKind::Load).at(0);
  CHECK(loop->results.back()->type.layout->equals(*load->result()->type.layout));
}

TEST_CASE("reduce gives the slice layout; expand_dims of it needs no convert") {
  using kernels::test::HostArray;
  HostArray x(Scalar::F32, 32 * 64), out(Scalar::F32, 32 * 64);
  for (int64_t i = 0; i < 32 * 64; ++i) x.set(i, i % 9);
  Compiled c = laidOut(kVectorAdd, "rowsum_kernel", {x.arg(), out.arg()},
                       {{"BLOCK_M", valArg(int64_t(32))}, {"BLOCK_N", valArg(int64_t(64))}});
  auto *red = sema::test::opsOf(*c.fn, ir::OpKind::Reduce).at(0);
  const SliceLayout *s = asSlice(red->result()->type);
  REQUIRE(s);
  CHECK(s->dim == 1);
  CHECK(s->parent->equals(*red->operands[0]->type.layout));
  CHECK(countOps(c.fn->entry(), ir::OpKind::ConvertLayout, false) == 0);
  interp::run(*c.fn, {1, 1, 1}, c.bound.args, {});
  for (int64_t r = 0; r < 32; ++r) {
    double sum = 0;
    for (int64_t k = 0; k < 64; ++k) sum += x.f(r * 64 + k);
    for (int64_t k = 0; k < 64; ++k)
      REQUIRE(out.f(r * 64 + k) == doctest::Approx(x.f(r * 64 + k) - sum));
  }
}

TEST_CASE("all three seed kernels lay out and verify for 1, 4 and 8 warps") {
  using kernels::test::HostArray;
  HostArray p(Scalar::F32, 4096), q(Scalar::F32, 4096);
  for (int warps : {1, 4, 8}) {
    laidOut(sema::test::kSeedKernels, "tile_fill_kernel", {p.arg(), valArg(int64_t(20)), valArg(int64_t(30))},
            {{"BLOCK_M", valArg(int64_t(16))}, {"BLOCK_N", valArg(int64_t(32))}}, warps);
    laidOut(sema::test::kSeedKernels, "transpose_kernel",
            {p.arg(), q.arg(), valArg(int64_t(20)), valArg(int64_t(30)), valArg(int64_t(30)), valArg(int64_t(1)),
             valArg(int64_t(20)), valArg(int64_t(1))},
            {{"BLOCK_M", valArg(int64_t(32))}, {"BLOCK_N", valArg(int64_t(32))}}, warps);
  }
}

TEST_CASE("axis info: aranges, pid offsets, pointer alignment and masks") {
  using kernels::test::HostArray;
  HostArray x(Scalar::F32, 1000), y(Scalar::F32, 1000), out(Scalar::F32, 1000);
  Compiled c = compileSource(kVectorAdd, "add_kernel", {x.arg(), y.arg(), out.arg(), valArg(int64_t(1008))},
                             {{"BLOCK", valArg(int64_t(256))}}, true);
  AxisInfo info = analyzeAxisInfo(*c.fn);
  auto *load = sema::test::opsOf(*c.fn, ir::OpKind::Load).at(0);
  AxisFacts ptr = info.get(load->operands[0]);
  CHECK(ptr.contiguity[0] == 256);
  CHECK(ptr.divisibility[0] == 16);   // x_ptr:16 + pid*256 elements (1024 bytes)
  AxisFacts mask = info.get(load->operands[1]);
  CHECK(mask.constancy[0] == 16);
  CHECK(info.vectorWidth(load->operands[0], load->operands[1]) == 4);
  CHECK(info.vectorWidth(load->operands[0]) == 4);
}
