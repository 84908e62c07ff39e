// LaunchPlanTests.cpp - the launch fast path of tile::Kernel::launch on the
// interpreter: a repeated launch reuses the compiled specialization only
// when every argument specializes the same way (constexpr values, :16
// divisibility of pointers and integers, integers equal to 1, i32 vs i64,
// keywords and defaults), checked by results against a C++ reference and by
// Kernel::compile's signature; streams; several threads at once.
#include "ApiTestUtil.h"

#include "cuda/Cuda.h"

#include <tile/tile.h>

#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

const char *kAxpy = R"(
import triton
import triton.language as tl


@triton.jit
def axpy(x_ptr, y_ptr, out_ptr, n, stride, alpha, big, beta=0.5, BLOCK: tl.constexpr = 64, MODE: tl.constexpr = 0):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs * stride, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    extra = (big % 7).to(tl.float32) + beta
    if MODE == 0:
        r = alpha * x + y + extra
    else:
        r = alpha * x - y + extra
    tl.store(out_ptr + offs, r, mask=mask)
)";

tile::Context interpreter() { return tile::apitest::interpreterContext(true); }

struct Case {
  int64_t n = 100, stride = 1, offset = 0; ///< x is read from element `offset` on
  float alpha = 2.0f;
  int64_t big = 5;
  bool passBeta = false;
  float beta = 0.5f;
  int mode = 0;
  int block = 64;
};

std::vector<float> reference(const Case &c, const std::vector<float> &x, const std::vector<float> &y) {
  std::vector<float> out(size_t(c.n));
  float extra = float(((c.big % 7) + 7) % 7) + c.beta;
  for (int64_t i = 0; i < c.n; ++i) {
    float xv = x[size_t(c.offset + i * c.stride)], yv = y[size_t(i)];
    out[size_t(i)] = c.mode == 0 ? c.alpha * xv + yv + extra : c.alpha * xv - yv + extra;
  }
  return out;
}

/// Launches axpy for c on fresh random data; checks the result; returns
/// the signature the launch ran.
std::string runCase(const tile::Context &ctx, const tile::Kernel &k, const Case &c, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> x(size_t(c.offset + c.n * c.stride + 1)), y(size_t(c.n));
  for (float &v : x) v = dist(rng);
  for (float &v : y) v = dist(rng);
  tile::Tensor tx = ctx.fromHost({int64_t(x.size())}, tile::DType::F32, x);
  tile::Tensor xv = tx.slice(0, c.offset, int64_t(x.size()));
  tile::Tensor ty = ctx.fromHost({c.n}, tile::DType::F32, y);
  tile::Tensor out = ctx.zeros({c.n}, tile::DType::F32);
  std::vector<tile::Arg> args{xv, ty, out, c.n, c.stride, c.alpha, c.big};
  tile::NamedArgs named{{"BLOCK", c.block}, {"MODE", c.mode}};
  if (c.passBeta) named.emplace_back("beta", c.beta);
  k.launch({(c.n + c.block - 1) / c.block}, args, named);
  std::vector<float> got = out.toHost<float>(), want = reference(c, x, y);
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (std::fabs(got[i] - want[i]) > 1e-5f * (1 + std::fabs(want[i]))) ++bad;
  CHECK_MESSAGE(bad == 0, "n=" << c.n << " stride=" << c.stride << " offset=" << c.offset << " big=" << c.big
                                << " mode=" << c.mode);
  return k.compile(args, named).signature;
}

} // namespace

TEST_CASE("repeated launches respecialize exactly when an argument specializes differently") {
  tile::Context ctx = interpreter();
  tile::Kernel k = ctx.loadString(kAxpy, "axpy.tile").kernel("axpy");
  // Each case differs from the previous one in one specialization-relevant
  // way; a plan reused wrongly gives wrong numbers (e.g. a stride taken as
  // the constant 1, an i64 truncated to i32).
  std::vector<Case> cases(10);
  cases[1].stride = 2;                      // not equal to 1
  cases[2].n = 1024;                        // n divisible by 16
  cases[3].offset = 1;                      // x no longer 16-byte aligned
  cases[4].big = (int64_t(1) << 32) + 5;    // i64 instead of i32
  cases[5].mode = 1;                        // another constexpr value
  cases[6].passBeta = true, cases[6].beta = 2.25f; // a runtime parameter by keyword
  cases[7].block = 32;
  cases[8] = cases[0];                      // back to the first plan
  cases[9].n = 1000;                        // n divisible by 8, not 16
  std::vector<std::string> sigs;
  for (size_t i = 0; i < cases.size(); ++i) sigs.push_back(runCase(ctx, k, cases[i], uint32_t(i)));
  CHECK(sigs[0].find("i32:1") != std::string::npos); // stride == 1
  CHECK(sigs[1] != sigs[0]);
  CHECK(sigs[2] != sigs[0]);
  CHECK(sigs[3] != sigs[0]);
  CHECK(sigs[4].find("i64") != std::string::npos);
  CHECK(sigs[5].find("MODE=1") != std::string::npos);
  CHECK(sigs[7].find("BLOCK=32") != std::string::npos);
  CHECK(sigs[8] == sigs[0]);
  CHECK(sigs[9].find("i32:8") != std::string::npos);
  CHECK(sigs[9] != sigs[0]);
  // The same arguments as values of the same class: the fast path, same results.
  for (uint32_t seed = 100; seed < 105; ++seed) runCase(ctx, k, cases[1], seed);
}

TEST_CASE("Kernel::compile reports the specialization without launching") {
  tile::Context ctx = interpreter();
  tile::Kernel k = ctx.loadString(kAxpy, "axpy.tile").kernel("axpy");
  tile::Tensor t = ctx.zeros({256}, tile::DType::F32);
  tile::CompiledInfo info = k.compile({t, t, t, 256, 1, 1.0f, 3}, {{"BLOCK", 128}});
  CHECK(info.signature == "*f32:16,*f32:16,*f32:16,i32:16,i32:1,f32,i32,f32,BLOCK=128,MODE=0");
  CHECK(info.numWarps == 4);
  CHECK(info.registers == 0); // the interpreter has none
  CHECK_THROWS_WITH_AS(k.compile({t, t}, {}), doctest::Contains("missing argument 'out_ptr'"), tile::Error);
}

TEST_CASE("streams: launches on a stream, stream errors") {
  tile::Context ctx = interpreter();
  tile::Kernel k = ctx.loadString(kAxpy, "axpy.tile").kernel("axpy");
  tile::Stream s = ctx.createStream();
  CHECK_FALSE(s.isDefault());
  tile::Tensor x = ctx.fromHost({4}, tile::DType::F32, std::vector<float>{1, 2, 3, 4});
  tile::Tensor out = ctx.zeros({4}, tile::DType::F32);
  tile::LaunchOptions lo;
  lo.stream = s;
  lo.async = true;
  k.launch({1}, {x, x, out, 4, 1, 1.0f, 0}, {}, lo);
  s.synchronize();
  CHECK(out.toHost<float>() == std::vector<float>{2.5f, 4.5f, 6.5f, 8.5f});
  CHECK_THROWS_WITH_AS(tile::Stream().synchronize(), doctest::Contains("Context::synchronize"), tile::Error);
  tile::Context other = interpreter();
  tile::LaunchOptions foreign;
  foreign.stream = other.createStream();
  // The interpreter runs at once; a stream of another context is still refused on the GPU only.
  CHECK_NOTHROW(k.launch({1}, {x, x, out, 4, 1, 1.0f, 0}, {}, foreign));
}

TEST_CASE("a tensor of another context is refused on the fast path too") {
  tile::Context ctx = interpreter(), other = interpreter();
  tile::Kernel k = ctx.loadString(kAxpy, "axpy.tile").kernel("axpy");
  tile::Tensor mine = ctx.zeros({16}, tile::DType::F32), theirs = other.zeros({16}, tile::DType::F32);
  k.launch({1}, {mine, mine, mine, 16, 1, 1.0f, 0});
  CHECK_THROWS_WITH_AS(k.launch({1}, {mine, theirs, mine, 16, 1, 1.0f, 0}), doctest::Contains("another tile::Context"),
                       tile::Error);
  CHECK_NOTHROW(k.launch({1}, {mine, mine, mine, 16, 1, 1.0f, 0}));
}

TEST_CASE("threads launching different specializations of one kernel at once") {
  tile::Context ctx = interpreter();
  tile::Kernel k = ctx.loadString(kAxpy, "axpy.tile").kernel("axpy");
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 6; ++i) {
        Case c;
        c.stride = 1 + (t + i) % 3;
        c.n = 50 + 17 * t + i;
        c.mode = i % 2;
        runCase(ctx, k, c, uint32_t(t * 100 + i));
      }
    });
  for (std::thread &th : threads) th.join();
}

TEST_CASE("adopted streams: the host's CUstream, never destroyed by tile; native handles") {
  tile::Context ctx = interpreter();
  CHECK(tile::Stream().nativeHandle() == 0);
  CHECK(ctx.createStream().nativeHandle() == 0);   // the interpreter has no streams
  CHECK_THROWS_WITH_AS(ctx.adoptStream(0x1234), doctest::Contains("adoptStream needs a GPU context"), tile::Error);
  tile::cuda::Driver *drv = tile::cuda::Driver::get();
  if (!drv) {
    MESSAGE("no GPU: the adopted-stream half is skipped");
    return;
  }
  tile::ContextOptions o;
  o.device = tile::DeviceKind::Gpu;
  tile::Context gpu(o);
  CHECK(gpu.adoptStream(0).isDefault());
  tile::Stream own = gpu.createStream();
  CHECK(own.nativeHandle() != 0);
  drv->makeCurrent();
  tile::cuda::api::CUstream raw = nullptr;
  REQUIRE(drv->api().streamCreate(&raw, 0) == tile::cuda::api::CudaSuccess);
  uint64_t handle = uint64_t(reinterpret_cast<uintptr_t>(raw));
  {
    tile::Stream adopted = gpu.adoptStream(handle);
    CHECK_FALSE(adopted.isDefault());
    CHECK(adopted.nativeHandle() == handle);
    adopted.synchronize();
  }
  // the tile::Stream is gone; the host's stream is not: destroying it is
  // the host's, and succeeds once
  CHECK(drv->api().streamDestroy(raw) == tile::cuda::api::CudaSuccess);
}
