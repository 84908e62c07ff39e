// gpu_main.cpp - a host program built against the installed package's GPU
// compiler (tile::llvm: tile's back end and LLVM in one archive, no LLVM of
// the application's own): compiles a vector add to PTX for sm_90a without a
// GPU (Kernel::compileFor) and checks what came out; on a machine with a GPU
// it also JITs the kernel there, launches it and checks the sums.
#include "add_kernel.h"

#include <tile/tile.h>

#include <cstdio>
#include <string>
#include <vector>

static bool contains(const std::string &text, const char *what) { return text.find(what) != std::string::npos; }

int main() {
  tile::enableGpuCompiler();
  // ahead of time, on whatever machine this is
  tile::Context cpu(tile::ContextOptions{.device = tile::DeviceKind::Interpreter});
  tile::Kernel add = cpu.loadString(kSource, "add.tile").kernel("add_kernel");
  tile::CompiledInfo info = add.compileFor("sm_90a", "*fp32:16,*fp32:16,*fp32:16,i32:16", {{"BLOCK", 1024}});
  if (!contains(info.ptx, ".target sm_90a") || !contains(info.ptx, ".entry add_kernel") ||
      !contains(info.ptx, "ld.global.v4") || info.signature.find("BLOCK=1024") == std::string::npos) {
    std::printf("unexpected PTX for %s:\n%s\n", info.signature.c_str(), info.ptx.c_str());
    return 1;
  }
  std::printf("installed tile::llvm: add_kernel [%s] -> %zu bytes of PTX for sm_90a\n", info.signature.c_str(),
              info.ptx.size());
  // bad input is a tile::Error naming it
  const std::pair<const char *, const char *> bad[] = {{"sm_90a", "*fp99,*fp32,*fp32,i32"}, {"sm_12", "*fp32,*fp32,*fp32,i32"}};
  const char *want[] = {"unknown type 'fp99'", "unsupported gpu architecture 'sm_12'"};
  for (int i = 0; i < 2; ++i) {
    try {
      add.compileFor(bad[i].first, bad[i].second, {{"BLOCK", 1024}});
      std::printf("no error for %s %s\n", bad[i].first, bad[i].second);
      return 1;
    } catch (const tile::Error &e) {
      if (!contains(e.what(), want[i])) {
        std::printf("expected '%s', got: %s\n", want[i], e.what());
        return 1;
      }
    }
  }
  // and on the GPU, where there is one
  tile::Context ctx;   // Auto: the GPU when a driver and a device are present
  if (ctx.device() != tile::DeviceKind::Gpu) {
    std::printf("no GPU here: the JIT launch is skipped\n");
    return 0;
  }
  const int64_t n = 100000;
  std::vector<float> x(n), y(n);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = 0.25f * float(i % 1000);
    y[i] = 7.0f - float(i % 77);
  }
  tile::Kernel gpuAdd = ctx.loadString(kSource, "add.tile").kernel("add_kernel");
  tile::Tensor tx = ctx.fromHost({n}, x), ty = ctx.fromHost({n}, y);
  tile::Tensor out = ctx.zeros({n}, tile::DType::F32);
  gpuAdd.launch(tile::Grid(tile::cdiv(n, 1024)), {tx, ty, out, n}, {{"BLOCK", 1024}});
  std::vector<float> got = out.toHost<float>();
  for (int64_t i = 0; i < n; ++i)
    if (got[i] != x[i] + y[i]) {
      std::printf("GPU mismatch at %lld: %g vs %g\n", (long long)i, got[i], x[i] + y[i]);
      return 1;
    }
  std::printf("installed tile::llvm: add_kernel JIT-compiled and run on the GPU: ok\n");
  return 0;
}
