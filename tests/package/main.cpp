// main.cpp - a host program built against the installed tile package: a
// vector add from source text on the interpreter, checked against C++.
#include "add_kernel.h"

#include <tile/tile.h>

#include <cstdio>
#include <vector>

int main() {
  const int64_t n = 1000;
  std::vector<float> x(n), y(n);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = 0.5f * i;
    y[i] = 3.0f - i;
  }
  tile::Context ctx(tile::ContextOptions{.device = tile::DeviceKind::Interpreter});
  tile::Kernel add = ctx.loadString(kSource, "add.tile").kernel("add_kernel");
  tile::Tensor tx = ctx.fromHost({n}, tile::DType::F32, x), ty = ctx.fromHost({n}, tile::DType::F32, y);
  tile::Tensor out = ctx.zeros({n}, tile::DType::F32);
  add.launch(tile::Grid((n + 127) / 128), {tx, ty, out, n}, {{"BLOCK", 128}});
  std::vector<float> got = out.toHost<float>();
  for (int64_t i = 0; i < n; ++i)
    if (got[i] != x[i] + y[i]) {
      std::printf("mismatch at %lld: %g vs %g\n", (long long)i, got[i], x[i] + y[i]);
      return 1;
    }
  std::printf("installed tile: add_kernel ok\n");
  return 0;
}
