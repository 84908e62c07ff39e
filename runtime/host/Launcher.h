// Launcher.h - the interface host code launches kernels through.
//
// The host evaluator turns `kernel[grid](args..., NAME=value, num_warps=4)`
// into a LaunchRequest; a Launcher compiles and runs it (the driver's real
// launcher caches and optimizes; InterpLauncher runs unoptimized IR on the
// interpreter).
#pragma once

#include "frontend/AST.h"
#include "sema/Lower.h"

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tile::host {

struct LaunchRequest {
  const ast::FunctionDef *kernel = nullptr;
  std::array<int64_t, 3> grid{1, 1, 1};
  std::vector<sema::ArgValue> positional;
  std::vector<std::pair<std::string, sema::ArgValue>> keywords; ///< num_warps/num_stages removed
  int numWarps = 4;
  int numStages = 3;
  Location loc; ///< the launch call
  /// The launch's work as host code declared it with bench_work(flops=,
  /// bytes=) just before: tilec bench turns it into TFLOP/s and GB/s. 0: not
  /// given.
  double flops = 0, bytes = 0;
};

class Launcher {
public:
  virtual ~Launcher() = default;
  virtual void launch(const sema::Program &prog, const LaunchRequest &req) = 0;
};

} // namespace tile::host
