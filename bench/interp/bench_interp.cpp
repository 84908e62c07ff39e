// bench_interp.cpp - times the interpreter on the seed matmul kernel
// (256x256x256 f32, 16x16x16 blocks: 256 programs x 16 K iterations of two
// masked loads and a 16x16x16 dot) and checks one output element.
//
// Not built by CMake. Build against a build tree's libraries, e.g.:
//   B=build-interp; c++ -std=c++20 -O2 -Icompiler -Iruntime -Itests/unit/interp \
//     bench/interp/bench_interp.cpp $B/runtime/libtile_interp.a $B/compiler/libtile_ir.a \
//     $B/compiler/libtile_support.a -lfmt -o /tmp/bench_interp && /tmp/bench_interp
// (the libraries' own optimization level matters: use a Release build tree.)
#include "MatmulKernel.h"
#include "interp/Interpreter.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <chrono>
#include <cmath>
#include <vector>

using namespace tile;

int main(int argc, char **argv) {
  constexpr int64_t n = 256, block = 16;
  int reps = argc > 1 ? std::atoi(argv[1]) : 5;
  // argv[2] "check": with the int32 offset-overflow check (issue 21, item 3)
  bool check = argc > 2 && std::string(argv[2]) == "check";
  interp::Options opts;
  opts.checkOffsetOverflow = check;
  std::atomic<bool> never{false};
  opts.interrupt = &never;   // as tilec runs it: polled at every back-edge
  std::vector<float> a(n * n), b(n * n), c(n * n, 0.0f);
  for (int64_t k = 0; k < n * n; ++k)
    a[k] = float(k % 7) - 3.0f, b[k] = float(k % 5) * 0.5f;
  auto &mem = interp::MemoryMap::global();
  mem.add(a.data(), a.size() * 4, "a"), mem.add(b.data(), b.size() * 4, "b"), mem.add(c.data(), c.size() * 4, "c");

  ir::Function fn("matmul_kernel", Location{});
  interp::test::buildMatmul(fn, {Scalar::F32, Scalar::F32, block, block, block, n / block});
  auto ptr = [](const void *p) { return ScalarArg{ElemType::ptrTo(Scalar::F32), int64_t(uintptr_t(p)), 0.0}; };
  auto i32 = [](int64_t v) { return ScalarArg{ElemType::of(Scalar::I32), v, 0.0}; };
  std::vector<ScalarArg> args = {ptr(a.data()), ptr(b.data()), ptr(c.data()), i32(n), i32(n), i32(n),
                                 i32(n),        i32(1),        i32(n),        i32(1), i32(n), i32(1)};
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    interp::run(fn, interp::Grid{n / block, n / block, 1}, args, opts);
    auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  float ref = 0;
  for (int64_t k = 0; k < n; ++k)
    ref = std::fmaf(a[5 * n + k], b[k * n + 9], ref);
  bool ok = c[5 * n + 9] == ref;
  fmt::print("interp matmul {}x{}x{} f32, {}x{}x{} blocks{}: best of {}: {:.1f} ms ({})\n", n, n, n, block, block,
             block, check ? ", offset-overflow check" : "", reps, best, ok ? "result ok" : "RESULT MISMATCH");
  return ok ? 0 : 1;
}
