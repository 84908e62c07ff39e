// matmul_host.cpp - a C++ host program that runs the seed matmul
// (dsl_examples/lesson2_matmul.tile) through the public API, tile/tile.h,
// and checks it against a plain C++ matmul. No Python, no tilec.
//
//   matmul_host [--device auto|interp|gpu] [--threads T] [FILE.tile] [M N K]
//
// --threads T: T host threads share the context and program, each running
// its own matmul (sizes M+t x N+2t x K+3t) several times, all checked.
// --bench: times the context, the first launch (load the source, compile -
// or read the disk cache - and load the module) and cached launches.
//
// The device is a run-time choice: `gpu` needs a CUDA driver and a build
// with TILE_HOST_EXAMPLE_GPU=ON (which links the LLVM back end, tile::llvm);
// `auto` takes the GPU when both are there, else the interpreter.
#include <tile/tile.h>

#include <cmath>
#include <cstdio>
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

tile::DeviceKind parseDevice(const std::string &name) {
  if (name == "interp") return tile::DeviceKind::Interpreter;
  if (name == "gpu") return tile::DeviceKind::Gpu;
  if (name == "auto") return tile::DeviceKind::Auto;
  std::fprintf(stderr, "matmul_host: unknown device '%s' (auto, interp or gpu)\n", name.c_str());
  std::exit(2);
}

std::vector<float> randomMatrix(int64_t rows, int64_t cols, std::mt19937 &rng) {
  std::normal_distribution<float> dist;
  std::vector<float> m(static_cast<size_t>(rows * cols));
  for (float &x : m) x = dist(rng);
  return m;
}

/// The largest |c - a @ b| beyond a tolerance of tf32 inputs (Triton's
/// default for f32 dots) summed in float; 0 when everything is close.
double worstError(const std::vector<float> &a, const std::vector<float> &b, const std::vector<float> &c, int64_t M,
                  int64_t N, int64_t K) {
  double worst = 0;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double ref = 0;
      for (int64_t k = 0; k < K; ++k) ref += double(a[i * K + k]) * double(b[k * N + j]);
      double err = std::fabs(c[i * N + j] - ref);
      if (err > 5e-2 + 1e-2 * std::fabs(ref)) worst = std::max(worst, err);
    }
  return worst;
}

/// One seed matmul of M x N x K on random data, checked; prints its line.
bool runOne(const tile::Context &ctx, const tile::Kernel &matmul, int64_t M, int64_t N, int64_t K, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<float> a = randomMatrix(M, K, rng), b = randomMatrix(K, N, rng);
  tile::Tensor ta = ctx.fromHost({M, K}, tile::DType::F32, a);
  tile::Tensor tb = ctx.fromHost({K, N}, tile::DType::F32, b);
  tile::Tensor tc = ctx.zeros({M, N}, tile::DType::F32);
  const int64_t block = 16;
  matmul.launch({tile::cdiv(M, block), tile::cdiv(N, block)},
                {ta, tb, tc, M, N, K, ta.stride(0), ta.stride(1), tb.stride(0), tb.stride(1), tc.stride(0),
                 tc.stride(1)},
                {{"N_ITERS", tile::cdiv(K, block)}, {"BLOCK_M", block}, {"BLOCK_N", block}, {"BLOCK_K", block}});
  std::vector<float> c = tc.toHost<float>();
  double worst = worstError(a, b, c, M, N, K);
  std::printf("matmul_kernel %lld x %lld x %lld on %s: %s\n", (long long)M, (long long)N, (long long)K,
              ctx.describe().c_str(), worst > 0 ? "WRONG" : "ok");
  return worst == 0;
}

/// Milliseconds since `t0`.
double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/// --bench: one line of timings (bench/results has the H200's).
int bench(const tile::ContextOptions &options, const std::string &file) {
  auto t0 = std::chrono::steady_clock::now();
  tile::Context ctx(options);
  double contextMs = msSince(t0);
  const int64_t n = 16;
  std::vector<float> host(n * n, 1.0f);
  tile::Tensor a = ctx.fromHost({n, n}, tile::DType::F32, host), c = ctx.zeros({n, n}, tile::DType::F32);
  std::vector<tile::Arg> args = {a, a, c, n, n, n, n, int64_t(1), n, int64_t(1), n, int64_t(1)};
  tile::NamedArgs consts = {{"N_ITERS", int64_t(1)}, {"BLOCK_M", n}, {"BLOCK_N", n}, {"BLOCK_K", n}};
  t0 = std::chrono::steady_clock::now();
  tile::Kernel matmul = ctx.loadFile(file).kernel("matmul_kernel");
  matmul.launch({1, 1}, args, consts);
  double firstMs = msSince(t0);
  const int reps = 2000;
  t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < reps; ++i) matmul.launch({1, 1}, args, consts);
  double launchUs = msSince(t0) * 1000.0 / reps;
  // host work only: queued launches (few enough not to fill the queue)
  const int queued = 200;
  tile::LaunchOptions async;
  async.async = true;
  t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < queued; ++i) matmul.launch({1, 1}, args, consts, async);
  double hostUs = msSince(t0) * 1000.0 / queued;
  ctx.synchronize();
  std::printf("api-bench: %s context_ms=%.2f first_launch_ms=%.2f (source to loaded module, and one launch) "
              "cached_launch_us=%.2f (synchronous: host work + kernel + wait) async_launch_host_us=%.2f\n",
              ctx.describe().c_str(), contextMs, firstMs, launchUs, hostUs);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  std::string device = "auto", file = TILE_DEFAULT_MATMUL;
  std::vector<int64_t> sizes;
  int threads = 1;
  bool benchMode = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--device" && i + 1 < argc) device = argv[++i];
    else if (arg == "--threads" && i + 1 < argc) threads = std::atoi(argv[++i]);
    else if (arg == "--bench") benchMode = true;
    else if (!arg.empty() && std::isdigit(static_cast<unsigned char>(arg[0]))) sizes.push_back(std::atoll(argv[i]));
    else file = arg;
  }
  const int64_t M = sizes.size() == 3 ? sizes[0] : 100, N = sizes.size() == 3 ? sizes[1] : 75,
                K = sizes.size() == 3 ? sizes[2] : 53;
#ifdef TILE_WITH_GPU_COMPILER
  tile::enableGpuCompiler();
#endif
  try {
    tile::ContextOptions options;
    options.device = parseDevice(device);
    options.onWarning = [](const std::string &) {}; // the seed's ragged loads are known (see its comments)
    if (benchMode) return bench(options, file);
    tile::Context ctx(options);
    tile::Kernel matmul = ctx.loadFile(file).kernel("matmul_kernel");

    if (threads <= 1) return runOne(ctx, matmul, M, N, K, 1) ? 0 : 1;
    std::vector<int> ok(threads, 0);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        try {
          bool good = true;
          for (int rep = 0; rep < 3; ++rep) good = runOne(ctx, matmul, M + t, N + 2 * t, K + 3 * t, 100 + t) && good;
          ok[t] = good;
        } catch (const tile::Error &e) {
          std::fprintf(stderr, "thread %d: %s", t, e.what());
        }
      });
    for (auto &th : pool) th.join();
    int passed = static_cast<int>(std::count(ok.begin(), ok.end(), 1));
    std::printf("%d threads on %s: %d ok\n", threads, ctx.describe().c_str(), passed);
    return passed == threads ? 0 : 1;
  } catch (const tile::Error &e) {
    std::fputs(e.what(), stderr);
    return 1;
  }
}
