// Bench.h - the parts of `tilec bench` shared by the GPU and the
// interpreter: the work columns (TFLOP/s, GB/s from bench_work()) and the
// progress line shown on a terminal (ApiLauncher does the timing).
#pragma once

#include "host/Launcher.h"

#include <chrono>
#include <string>
#include <string_view>

namespace tile::tools {

/// " tflops=X gbps=Y" for the work the launch declared with bench_work()
/// (each only when given), from its time in ms; "" when none was given;
/// "n/a" for each on the interpreter.
std::string workColumns(const host::LaunchRequest &req, double ms, bool interpreter = false);

/// One self-erasing status line on stderr for long runs. Drawn only when
/// stderr is a terminal (TERM not "dumb"); TILE_PROGRESS=0 turns it off and
/// TILE_PROGRESS=1 forces it (logs of CI runs, tests). Redraws at most ten
/// times a second; clear() before anything else prints.
class Progress {
public:
  Progress();
  ~Progress() { clear(); }
  bool enabled() const { return enabled_; }
  /// "label [#####.....] done/total" (total 0: no bar).
  void update(std::string_view label, int done, int total);
  void clear();

private:
  bool enabled_ = false, shown_ = false;
  std::chrono::steady_clock::time_point last_{};
};

} // namespace tile::tools
