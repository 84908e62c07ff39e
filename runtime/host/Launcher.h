// Launcher.h - the interface host code launches kernels through.
//
// The host evaluator turns `kernel[grid](args..., NAME=value, num_warps=4)`
// into a LaunchRequest; a Launcher compiles and runs it (tilec's
// ApiLauncher, through the public API; the unit tests' InterpLauncher,
// tests/unit/host, through the driver's pipeline on the interpreter). This
// library does not compile kernels itself: it depends on sema, not on the
// driver.
#pragma once

#include "frontend/AST.h"
#include "sema/Lower.h"

#include <array>
#include <cstdint>
#include <functional>
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
  int fpFusion = -1; ///< enable_fp_fusion=: 1 or 0; -1 not given (LaunchOptions::fpFusion)
  Location loc; ///< the launch call
  /// The launch's work as host code declared it with bench_work(flops=,
  /// bytes=) just before: tilec bench turns it into TFLOP/s and GB/s. 0: not
  /// given.
  double flops = 0, bytes = 0;
  /// The kernel has @triton.autotune or @triton.heuristics (host/Tuning.h):
  /// the launcher adds the tuned constexprs, which the arguments lack.
  bool tuned = false;
  /// A tuned kernel's callable grid: the grid from the META entries the
  /// tuning adds (the config's and heuristics' values, num_warps,
  /// num_stages) to the arguments'; `grid` is unused then.
  std::function<std::array<int64_t, 3>(const std::vector<std::pair<std::string, sema::ConstValue>> &)> gridFn;
  /// Per positional / keyword argument: a tensor's shape and strides in
  /// elements (empty for other values), so that a launcher can pass the
  /// whole tensor (autotune's reset_to_zero / restore_value act on it).
  struct TensorShape {
    std::vector<int64_t> shape, strides;
  };
  std::vector<TensorShape> positionalShapes, keywordShapes;
};

class Launcher {
public:
  virtual ~Launcher() = default;
  virtual void launch(const sema::Program &prog, const LaunchRequest &req) = 0;
};

} // namespace tile::host
