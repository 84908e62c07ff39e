// bench_pipeline.cpp - the compiler's own speed, on the seed matmul:
//   1. parse + sema + optimize of matmul_kernel (target: <= 20 ms)
//   2. the CPU interpreter running it at 256x256x256 with 16x16x16 blocks
//      on one core (target: <= 1 s; Triton's interpreter takes 4.96 s)
// Prints medians over repeats; `bench/run.sh` records them in bench/results.
#include "driver/Pipeline.h"
#include "interp/Interpreter.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <vector>

using namespace tile;
using Clock = std::chrono::steady_clock;

namespace {

double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

sema::ArgValue ptrArg(const std::vector<float> &buf) {
  sema::ArgValue a;
  a.isPointer = true;
  a.elem = Scalar::F32;
  a.address = reinterpret_cast<uint64_t>(buf.data());
  return a;
}

sema::ArgValue intArg(int64_t v) {
  sema::ArgValue a;
  a.value = v;
  return a;
}

struct Matmul {
  int M, N, K;
  std::vector<float> a, b, c;
};

sema::BoundLaunch bindMatmul(const sema::Program &prog, const ast::FunctionDef &k, const Matmul &mm, int block) {
  std::vector<sema::ArgValue> pos = {ptrArg(mm.a), ptrArg(mm.b), ptrArg(mm.c), intArg(mm.M), intArg(mm.N),
                                     intArg(mm.K), intArg(mm.K), intArg(1), intArg(mm.N), intArg(1),
                                     intArg(mm.N), intArg(1)};
  std::vector<std::pair<std::string, sema::ArgValue>> kw = {
      {"N_ITERS", intArg((mm.K + block - 1) / block)},
      {"BLOCK_M", intArg(block)},
      {"BLOCK_N", intArg(block)},
      {"BLOCK_K", intArg(block)}};
  return sema::bindLaunch(prog, k, pos, kw, k.loc);
}

} // namespace

int main(int argc, char **argv) {
  std::string path = argc > 1 ? argv[1] : "dsl_examples/lesson2_matmul.tile";
  std::ifstream in(path);
  if (!in) {
    fmt::print(stderr, "cannot open {}\n", path);
    return 1;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();

  Matmul mm{256, 256, 256, {}, {}, {}};
  std::mt19937 rng(0);
  std::normal_distribution<float> dist;
  mm.a.resize(size_t(mm.M) * mm.K);
  mm.b.resize(size_t(mm.K) * mm.N);
  mm.c.assign(size_t(mm.M) * mm.N, 0.f);
  for (float &x : mm.a) x = dist(rng);
  for (float &x : mm.b) x = dist(rng);
  interp::MemoryMap::global().add(mm.a.data(), mm.a.size() * 4, "A");
  interp::MemoryMap::global().add(mm.b.data(), mm.b.size() * 4, "B");
  interp::MemoryMap::global().add(mm.c.data(), mm.c.size() * 4, "C");

  // 1. Source to optimized tile IR.
  std::vector<double> compileMs;
  std::shared_ptr<const ir::Function> fn;
  for (int rep = 0; rep < 50; ++rep) {
    auto t0 = Clock::now();
    auto prog = driver::loadProgramFromString(path, text);
    const ast::FunctionDef *k = prog->kernel("matmul_kernel");
    sema::BoundLaunch bound = bindMatmul(*prog, *k, mm, 16);
    fn = driver::compileKernel(*prog, *k, bound.spec, driver::PipelineOptions{});
    compileMs.push_back(msSince(t0));
  }
  fmt::print("compile seed matmul_kernel (parse+sema+optimize): median {:.3f} ms over {} runs (target <= 20 ms)\n",
             median(compileMs), compileMs.size());

  // 2. The interpreter on the whole grid.
  auto prog = driver::loadProgramFromString(path, text);
  const ast::FunctionDef *k = prog->kernel("matmul_kernel");
  sema::BoundLaunch bound = bindMatmul(*prog, *k, mm, 16);
  fn = driver::compileKernel(*prog, *k, bound.spec, driver::PipelineOptions{});
  std::vector<double> runMs;
  for (int rep = 0; rep < 5; ++rep) {
    auto t0 = Clock::now();
    interp::run(*fn, interp::Grid{mm.M / 16, mm.N / 16, 1}, bound.args);
    runMs.push_back(msSince(t0));
  }
  // The timed runs must have computed the right thing.
  double worst = 0;
  for (int i = 0; i < mm.M; ++i)
    for (int j = 0; j < mm.N; ++j) {
      double ref = 0;
      for (int p = 0; p < mm.K; ++p) ref += double(mm.a[size_t(i) * mm.K + p]) * mm.b[size_t(p) * mm.N + j];
      worst = std::max(worst, std::fabs(ref - mm.c[size_t(i) * mm.N + j]));
    }
  fmt::print("interpret seed matmul 256x256x256, 16x16x16 blocks: median {:.1f} ms over {} runs "
             "(target <= 1000 ms; Triton's interpreter: 4960 ms); max |error| {:.2e}\n",
             median(runMs), runMs.size(), worst);
  return worst < 1e-3 ? 0 : 1;
}
