// Bench.h - the parts of `tilec bench` shared by the GPU and the
// interpreter: the work columns (TFLOP/s, GB/s from bench_work()), the
// progress line shown on a terminal, and the launcher that times launches
// on the CPU interpreter (whose times are not GPU times, and say so).
#pragma once

#include "host/InterpLauncher.h"

#include <chrono>
#include <string>
#include <string_view>

namespace tile::tools {

/// " tflops=X gbps=Y" for the work the launch declared with bench_work()
/// (each only when given), from its time in ms; "" when none was given.
std::string workColumns(const host::LaunchRequest &req, double ms);

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

/// Runs each launch on the interpreter, timing its interpretation (not its
/// compilation) with the wall clock once (the interpreter is too slow for
/// repeats), and prints
/// "bench: KERNEL grid=(x,y,z) warps=W interp_ms=T [tflops= gbps=]".
class InterpBenchLauncher : public host::Launcher {
public:
  InterpBenchLauncher(interp::Options iopts, driver::PipelineOptions popts)
      : iopts_(std::move(iopts)), popts_(std::move(popts)) {}
  void launch(const sema::Program &prog, const host::LaunchRequest &req) override;

private:
  interp::Options iopts_;
  driver::PipelineOptions popts_;
  driver::KernelCache cache_;
  Progress progress_;
  int launches_ = 0;
};

} // namespace tile::tools
