// PipelineTest.cpp - the tile-pipeline pass on kernels compiled from source:
// each kernel is compiled twice, one copy pipelined, both run on the
// interpreter over the same data; outputs must agree bit for bit and the
// pipelined copy must warn at no new place (and not at all where the
// original does not). The IR shape is checked too: one more iter_arg per
// pipelined load, the body's loads computed for iv + step.
#include "../kernels/KernelTestUtil.h"
#include "../sema/SeedKernels.h"
#include "gpu/LayoutAssignment.h"
#include "gpu/Pipeline.h"
#include "ir/Verifier.h"

#include <doctest/doctest.h>

#include <set>

using namespace tile;
using kernels::test::HostArray;
using kernels::test::RunLog;
using sema::test::Compiled;
using sema::test::compileSource;
using sema::test::valArg;

namespace {

const char *const kLoops = R"PY(
@triton.jit
def rowsum_kernel(x_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M,), dtype=tl.float32)
    for start in tl.range(0, N, BLOCK_N, num_stages=3):
        cols = start + tl.arange(0, BLOCK_N)
        x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=(rows[:, None] < M) & (cols[None, :] < N), other=0.0)
        acc += tl.sum(x, axis=1)
    tl.store(out_ptr + rows, acc, mask=rows < M)

@triton.jit
def blocks_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in tl.range(0, n, num_stages=3):
        acc = acc * 0.5 + tl.load(x_ptr + i * BLOCK + offs)
    tl.store(out_ptr + offs, acc)

@triton.jit
def down_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in tl.range(n - 1, -1, -2, num_stages=3):
        acc = acc * 0.5 + tl.load(x_ptr + i * BLOCK + offs)
    tl.store(out_ptr + offs, acc)

@triton.jit
def gather_kernel(idx_ptr, x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in tl.range(0, n, num_stages=3):
        j = tl.load(idx_ptr + i * BLOCK + offs)
        acc = acc * 0.5 + tl.load(x_ptr + j)
    tl.store(out_ptr + offs, acc)

@triton.jit
def chase_kernel(nxt_ptr, x_ptr, out_ptr, n):
    j = 0
    acc = 0.0
    for i in tl.range(0, n, num_stages=3):
        acc = acc * 0.5 + tl.load(x_ptr + j)
        j = tl.load(nxt_ptr + j)
    tl.store(out_ptr, acc)

@triton.jit
def running_kernel(x_ptr, n):
    for i in tl.range(1, n, num_stages=3):
        prev = tl.load(x_ptr + i - 1)
        tl.store(x_ptr + i, prev * 1.5 + 1.0)

@triton.jit
def plain_range_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in range(0, n):
        acc = acc * 0.5 + tl.load(x_ptr + i * BLOCK + offs)
    tl.store(out_ptr + offs, acc)

@triton.jit
def after_store_kernel(x_ptr, n):
    for i in tl.range(1, n, num_stages=3):
        tl.store(x_ptr + i, i * 2.0)
        prev = tl.load(x_ptr + i - 1)
        tl.store(x_ptr + i, prev + 1.0)
)PY";

/// Where a warning points ("test.tile:12:13"), without what it says (the
/// message names the first program and offset, which pipelining may move
/// between the prologue and the loop).
std::set<std::string> warningSites(const RunLog &log) {
  std::set<std::string> sites;
  for (const std::string &w : log.warnings)
    sites.insert(w.substr(0, w.find(": warning")));
  return sites;
}

RunLog runLogged(const Compiled &c, interp::Grid grid) {
  RunLog log;
  interp::Options o;
  o.warn = [&](const std::string &w) { log.warnings.push_back(w); };
  o.print = [&](const std::string &p) { log.prints.push_back(p); };
  interp::run(*c.fn, grid, c.bound.args, o);
  return log;
}

struct Versions {
  Compiled ref, piped;
  bool changed = false;
  RunLog refLog, pipedLog;
};

/// Compiles kernel `name` for argsRef and argsPiped (same data, different
/// output arrays), pipelines the second, verifies it and runs both.
/// `layouts`: run the layout pass before (1) or after (2) pipelining.
Versions runBoth(const std::string &src, const std::string &name, const std::vector<sema::ArgValue> &argsRef,
                 const std::vector<sema::ArgValue> &argsPiped, const sema::test::Keywords &kws, interp::Grid grid,
                 int layouts = 0) {
  Versions v;
  v.ref = compileSource(src, name, argsRef, kws, true);
  v.piped = compileSource(src, name, argsPiped, kws, true);
  if (layouts == 1)
    gpu::assignLayouts(*v.piped.fn, 4);
  v.changed = gpu::pipelineLoops(*v.piped.fn, 3);
  if (layouts == 2)
    gpu::assignLayouts(*v.piped.fn, 4);
  INFO(v.piped.text());
  REQUIRE_NOTHROW(ir::verify(*v.piped.fn));
  if (layouts)
    CHECK(gpu::allTensorsHaveLayouts(*v.piped.fn));
  v.refLog = runLogged(v.ref, grid);
  v.pipedLog = runLogged(v.piped, grid);
  CHECK(warningSites(v.pipedLog) == warningSites(v.refLog));
  return v;
}

void checkSame(const HostArray &a, const HostArray &b) {
  REQUIRE(a.n == b.n);
  for (int64_t i = 0; i < a.n; ++i) {
    INFO("element " << i << ": " << a.f(i) << " vs " << b.f(i));
    REQUIRE(kernels::test::sameFloat(a.f(i), b.f(i)));
  }
}

void fillRandom(HostArray &a, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  for (int64_t i = 0; i < a.n; ++i)
    a.set(i, dist(gen));
}

ir::Op *onlyFor(ir::Function &fn) { return sema::test::onlyOp(fn, ir::OpKind::For); }

/// Iter args of a for (operands after lb, ub, step).
size_t iterArgs(const ir::Op &loop) { return loop.operands.size() - 3; }

/// True when some op in the for body computes iv + step.
bool bodyComputesNextIv(ir::Op &loop) {
  ir::Block &body = *loop.regions[0]->block;
  for (auto &op : body.ops)
    if (op->kind == ir::OpKind::Add && op->operands[0] == body.args[0].get() && op->operands[1] == loop.operands[2])
      return true;
  return false;
}

std::vector<sema::ArgValue> matmulArgs(HostArray &a, HostArray &b, HostArray &c, int64_t M, int64_t N, int64_t K) {
  std::vector<sema::ArgValue> args = {a.arg(), b.arg(), c.arg()};
  for (int64_t v : {M, N, K, K, int64_t(1), N, int64_t(1), N, int64_t(1)})
    args.push_back(valArg(v));
  return args;
}

/// The seed matmul at M x N x K, pipelined (layouts: see runBoth).
void checkMatmul(int64_t M, int64_t N, int64_t K, int layouts, bool expectWarnings) {
  HostArray a(Scalar::F32, M * K), b(Scalar::F32, K * N), c1(Scalar::F32, M * N), c2(Scalar::F32, M * N);
  fillRandom(a, 1);
  fillRandom(b, 2);
  sema::test::Keywords kws = {{"N_ITERS", valArg(kernels::test::cdiv(K, 16))}, {"BLOCK_M", valArg(int64_t(16))},
                              {"BLOCK_N", valArg(int64_t(16))}, {"BLOCK_K", valArg(int64_t(16))}};
  interp::Grid grid{kernels::test::cdiv(M, 16), kernels::test::cdiv(N, 16), 1};
  Versions v = runBoth(sema::test::kSeedKernels, "matmul_kernel", matmulArgs(a, b, c1, M, N, K),
                       matmulArgs(a, b, c2, M, N, K), kws, grid, layouts);
  CHECK(v.changed);
  ir::Op *loop = onlyFor(*v.piped.fn);
  CHECK(iterArgs(*loop) == iterArgs(*onlyFor(*v.ref.fn)) + 2);
  CHECK(sema::test::topLevelOps(*loop->regions[0]->block, ir::OpKind::Load).size() == 2);
  CHECK(sema::test::topLevelOps(v.piped.fn->entry(), ir::OpKind::Load).size() == 2);   // the prologue
  CHECK(bodyComputesNextIv(*loop));
  CHECK(v.refLog.warnings.empty() == !expectWarnings);
  if (!expectWarnings)
    CHECK(v.pipedLog.warnings.empty());
  checkSame(c1, c2);
}

/// The seed matmul on f16 at M x N x K with 128x128xblockK blocks (a dot
/// that runs as wgmma on 4 warps on sm_90a, as mma.sync on sm_80),
/// pipelined for `arch` with numStages: its operand tiles go `distance`
/// iterations ahead; results equal the unpipelined kernel's bit for bit,
/// also for loops shorter than the depth.
void checkDeepMatmul(int64_t M, int64_t N, int64_t K, int numStages, int distance, const char *arch = "sm_90a",
                     int64_t blockK = 64) {
  HostArray a(Scalar::F16, M * K), b(Scalar::F16, K * N), c1(Scalar::F32, M * N), c2(Scalar::F32, M * N);
  fillRandom(a, 5);
  fillRandom(b, 6);
  sema::test::Keywords kws = {{"N_ITERS", valArg(kernels::test::cdiv(K, blockK))}, {"BLOCK_M", valArg(int64_t(128))},
                              {"BLOCK_N", valArg(int64_t(128))}, {"BLOCK_K", valArg(blockK)}};
  Compiled ref = compileSource(sema::test::kSeedKernels, "matmul_kernel", matmulArgs(a, b, c1, M, N, K), kws, true);
  Compiled piped = compileSource(sema::test::kSeedKernels, "matmul_kernel", matmulArgs(a, b, c2, M, N, K), kws, true);
  gpu::PipelineTarget target;
  target.numStages = numStages;
  target.arch = arch;
  CHECK(gpu::pipelineLoops(*piped.fn, target));
  INFO(piped.text());
  REQUIRE_NOTHROW(ir::verify(*piped.fn));
  ir::Op *loop = onlyFor(*piped.fn);
  // the tiles in flight, and (deeper than one iteration) the two operand
  // pointers of the farthest iteration, carried rather than recomputed
  size_t lookAhead = distance > 1 ? 2 : 0;
  CHECK(iterArgs(*loop) == iterArgs(*onlyFor(*ref.fn)) + 2 * size_t(distance) + lookAhead);
  CHECK(sema::test::topLevelOps(piped.fn->entry(), ir::OpKind::Load).size() == 2 * size_t(distance));
  CHECK(sema::test::topLevelOps(*loop->regions[0]->block, ir::OpKind::Load).size() == 2);
  interp::Grid grid{kernels::test::cdiv(M, 128), kernels::test::cdiv(N, 128), 1};
  RunLog refLog = runLogged(ref, grid), pipedLog = runLogged(piped, grid);
  CHECK(refLog.warnings.empty());
  CHECK(pipedLog.warnings.empty());
  checkSame(c1, c2);
}

} // namespace

TEST_CASE("tensor-core operand tiles are prefetched num_stages - 1 iterations ahead") {
  // 128x128x32 on 4 warps: num_stages - 1
  for (int stages : {3, 4, 5})
    for (int64_t K : {int64_t(32), int64_t(128), int64_t(160)}) {
      CAPTURE(stages);
      CAPTURE(K);
      checkDeepMatmul(128, 256, K, stages, stages - 1, "sm_90a", 32);
    }
  // 128x128x64: two programs fit an SM by registers, and a ring of
  // num_stages - 1 + 1 slots of 32 KiB would keep the second out of shared
  // memory: distance 2 (as num_stages=3)
  for (int stages : {3, 4})
    for (int64_t K : {int64_t(64), int64_t(128), int64_t(320)}) {
      CAPTURE(stages);
      CAPTURE(K);
      checkDeepMatmul(128, 256, K, stages, 2);
    }
  // mma.sync (sm_80 and up: cp.async) num_stages - 1 (the back end's ring
  // of its row-major staging)
  checkDeepMatmul(128, 256, 320, 4, 3, "sm_80");
  // Without a target every distance is 1.
  HostArray a(Scalar::F16, 128 * 128), b(Scalar::F16, 128 * 128), c(Scalar::F32, 128 * 128);
  sema::test::Keywords kws = {{"N_ITERS", valArg(int64_t(2))}, {"BLOCK_M", valArg(int64_t(128))},
                              {"BLOCK_N", valArg(int64_t(128))}, {"BLOCK_K", valArg(int64_t(64))}};
  Compiled plain = compileSource(sema::test::kSeedKernels, "matmul_kernel", matmulArgs(a, b, c, 128, 128, 128), kws, true);
  size_t before = iterArgs(*onlyFor(*plain.fn));
  CHECK(gpu::pipelineLoops(*plain.fn, 4));
  CHECK(iterArgs(*onlyFor(*plain.fn)) == before + 2);
}

TEST_CASE("pipelining is a no-op for one stage") {
  // the seed matmul's loop (a plain range: the launch's num_stages decides)
  const int64_t M = 32, N = 32, K = 32;
  HostArray a(Scalar::F32, M * K), b(Scalar::F32, K * N), c1(Scalar::F32, M * N);
  sema::test::Keywords kws = {{"N_ITERS", valArg(int64_t(2))}, {"BLOCK_M", valArg(int64_t(16))},
                              {"BLOCK_N", valArg(int64_t(16))}, {"BLOCK_K", valArg(int64_t(16))}};
  Compiled c = compileSource(sema::test::kSeedKernels, "matmul_kernel", matmulArgs(a, b, c1, M, N, K), kws, true);
  std::string before = c.text();
  CHECK_FALSE(gpu::pipelineLoops(*c.fn, 1));
  CHECK(c.text() == before);
}

TEST_CASE("seed matmul: both tiles prefetched, identical results and warnings") {
  SUBCASE("100 x 75 x 53 (ragged, rows past M read out of bounds)") { checkMatmul(100, 75, 53, 0, true); }
  SUBCASE("64 x 64 x 64") { checkMatmul(64, 64, 64, 0, false); }
  SUBCASE("64 x 64 x 64, pipelined after layouts") { checkMatmul(64, 64, 64, 1, false); }
  SUBCASE("100 x 75 x 53, pipelined before layouts") { checkMatmul(100, 75, 53, 2, true); }
}

TEST_CASE("reduction loop with a runtime bound: ragged, and zero trips") {
  const int64_t M = 37;
  for (int64_t N : {int64_t(53), int64_t(64), int64_t(5), int64_t(0)}) {
    CAPTURE(N);
    HostArray x(Scalar::F32, std::max<int64_t>(M * N, 1)), o1(Scalar::F32, M), o2(Scalar::F32, M);
    fillRandom(x, 3);
    o1.fill(7.0);
    o2.fill(7.0);
    auto args = [&](HostArray &o) {
      return std::vector<sema::ArgValue>{x.arg(), o.arg(), valArg(M), valArg(N)};
    };
    Versions v = runBoth(kLoops, "rowsum_kernel", args(o1), args(o2),
                         {{"BLOCK_M", valArg(int64_t(16))}, {"BLOCK_N", valArg(int64_t(16))}}, {3, 1, 1});
    CHECK(v.changed);
    CHECK(iterArgs(*onlyFor(*v.piped.fn)) == iterArgs(*onlyFor(*v.ref.fn)) + 1);
    CHECK(bodyComputesNextIv(*onlyFor(*v.piped.fn)));
    CHECK(v.refLog.warnings.empty());
    CHECK(v.pipedLog.warnings.empty());
    checkSame(o1, o2);
    if (N == 0)
      CHECK(o1.f(0) == 0.0);
  }
}

TEST_CASE("unmasked loads get a mask: the extra iteration and a zero-trip loop read nothing") {
  const int64_t B = 16;
  for (const char *kernel : {"blocks_kernel", "down_kernel"}) {
    for (int64_t n : {int64_t(0), int64_t(1), int64_t(2), int64_t(5)}) {
      CAPTURE(kernel);
      CAPTURE(n);
      // exactly n blocks (one element for n = 0: any unmasked read warns)
      HostArray x(Scalar::F32, std::max<int64_t>(n * B, 1)), o1(Scalar::F32, B), o2(Scalar::F32, B);
      fillRandom(x, 4);
      auto args = [&](HostArray &o) { return std::vector<sema::ArgValue>{x.arg(), o.arg(), valArg(n)}; };
      Versions v = runBoth(kLoops, kernel, args(o1), args(o2), {{"BLOCK", valArg(B)}}, {1, 1, 1});
      CHECK(v.changed);
      CHECK(v.refLog.warnings.empty());
      CHECK(v.pipedLog.warnings.empty());
      checkSame(o1, o2);
    }
  }
}

TEST_CASE("a load whose address comes from a load stays in the loop") {
  const int64_t B = 16, n = 6, size = 200;
  HostArray idx(Scalar::I32, n * B), x(Scalar::F32, size), o1(Scalar::F32, B), o2(Scalar::F32, B);
  std::mt19937 gen(5);
  for (int64_t i = 0; i < idx.n; ++i)
    idx.setInt(i, static_cast<int64_t>(gen() % size));
  fillRandom(x, 6);
  auto args = [&](HostArray &o) { return std::vector<sema::ArgValue>{idx.arg(), x.arg(), o.arg(), valArg(n)}; };
  Versions v = runBoth(kLoops, "gather_kernel", args(o1), args(o2), {{"BLOCK", valArg(B)}}, {1, 1, 1});
  CHECK(v.changed);
  ir::Op *loop = onlyFor(*v.piped.fn);
  CHECK(iterArgs(*loop) == iterArgs(*onlyFor(*v.ref.fn)) + 1);   // only the index load
  auto loads = sema::test::topLevelOps(*loop->regions[0]->block, ir::OpKind::Load);
  REQUIRE(loads.size() == 2);
  // the gather reads through the carried index tile (the new last argument)
  ir::Op *gather = loads[0];
  ir::Value *carried = loop->regions[0]->block->args.back().get();
  REQUIRE(gather->operands[0]->def != nullptr);
  CHECK(gather->operands[0]->def->kind == ir::OpKind::AddPtr);
  CHECK(gather->operands[0]->def->operands[1] == carried);
  CHECK(v.refLog.warnings.empty());
  CHECK(v.pipedLog.warnings.empty());
  checkSame(o1, o2);
}

TEST_CASE("pointer chasing through a carried value is not pipelined") {
  HostArray nxt(Scalar::I32, 8), x(Scalar::F32, 8), out(Scalar::F32, 1);
  for (int64_t i = 0; i < 8; ++i)
    nxt.setInt(i, (i * 3 + 1) % 8);
  Compiled c = compileSource(kLoops, "chase_kernel", {nxt.arg(), x.arg(), out.arg(), valArg(int64_t(5))}, {}, true);
  std::string before = c.text();
  CHECK_FALSE(gpu::pipelineLoops(*c.fn, 3));
  CHECK(c.text() == before);
}

TEST_CASE("a plain range loop: only loads that reach a dot are pipelined (Triton's rule)") {
  // blocks_kernel's body under range(), not tl.range(num_stages=): the
  // register prefetch would only add work (layer norm 8192x1536 on the
  // H200: 18% more instructions than Triton's, most of them its prefetch)
  HostArray x(Scalar::F32, 64), out(Scalar::F32, 16);
  Compiled c = compileSource(kLoops, "plain_range_kernel", {x.arg(), out.arg(), valArg(int64_t(4))},
                             {{"BLOCK", valArg(int64_t(16))}}, true);
  std::string before = c.text();
  CHECK_FALSE(gpu::pipelineLoops(*c.fn, 3));
  CHECK(c.text() == before);
}

TEST_CASE("loads and stores keep their order") {
  const int64_t n = 20;
  SUBCASE("a load before the store that feeds the next iteration is pipelined") {
    HostArray x1(Scalar::F32, n), x2(Scalar::F32, n);
    x1.set(0, 0.25);
    x2.set(0, 0.25);
    Versions v = runBoth(kLoops, "running_kernel", {x1.arg(), valArg(n)}, {x2.arg(), valArg(n)}, {}, {1, 1, 1});
    CHECK(v.changed);
    checkSame(x1, x2);
    CHECK(x1.f(2) == (0.25 * 1.5 + 1.0) * 1.5 + 1.0);
  }
  SUBCASE("a load after a store is not") {
    HostArray x(Scalar::F32, n);
    Compiled c = compileSource(kLoops, "after_store_kernel", {x.arg(), valArg(n)}, {}, true);
    CHECK_FALSE(gpu::pipelineLoops(*c.fn, 3));
  }
}
