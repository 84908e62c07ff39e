// Bench.cpp - work columns, the progress line and interpreter timing for
// `tilec bench`.
#include "Bench.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace tile::tools {

std::string workColumns(const host::LaunchRequest &req, double ms) {
  if (ms <= 0) return "";
  std::string out;
  if (req.flops > 0) out += fmt::format(" tflops={:.3f}", req.flops / (ms * 1e-3) / 1e12);
  if (req.bytes > 0) out += fmt::format(" gbps={:.1f}", req.bytes / (ms * 1e-3) / 1e9);
  return out;
}

Progress::Progress() {
  const char *force = std::getenv("TILE_PROGRESS");
  if (force && *force) {
    enabled_ = std::strcmp(force, "0") != 0;
    return;
  }
  const char *term = std::getenv("TERM");
  enabled_ = isatty(fileno(stderr)) && !(term && std::strcmp(term, "dumb") == 0);
}

void Progress::update(std::string_view label, int done, int total) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  bool last = total > 0 && done >= total;
  if (shown_ && !last && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  std::string line = fmt::format("\r\033[K{}", label);
  if (total > 0) {
    constexpr int kWidth = 30;
    int filled = static_cast<int>(int64_t(kWidth) * std::min(done, total) / total);
    line += fmt::format(" [{}{}] {}/{}", std::string(filled, '#'), std::string(kWidth - filled, '.'), done, total);
  }
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
  shown_ = true;
}

void Progress::clear() {
  if (!shown_) return;
  std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
  shown_ = false;
}

void InterpBenchLauncher::launch(const sema::Program &prog, const host::LaunchRequest &req) {
  ++launches_;
  std::fflush(stdout);
  progress_.update(fmt::format("bench: launch {}: {} on the interpreter", launches_, req.kernel->name), 0, 0);
  sema::BoundLaunch b = sema::bindLaunch(prog, *req.kernel, req.positional, req.keywords, req.loc);
  std::chrono::steady_clock::time_point t0;
  try {
    std::shared_ptr<const ir::Function> fn = cache_.get(prog, *req.kernel, b.spec, popts_);
    t0 = std::chrono::steady_clock::now();
    interp::run(*fn, interp::Grid{req.grid[0], req.grid[1], req.grid[2]}, b.args, iopts_);
  } catch (...) {
    progress_.clear();
    throw;
  }
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  progress_.clear();
  fmt::print("bench: {} grid=({},{},{}) warps={} interp_ms={:.3f}{} (CPU interpreter, not a GPU time)\n",
             req.kernel->name, req.grid[0], req.grid[1], req.grid[2], req.numWarps, ms, workColumns(req, ms));
  std::fflush(stdout);
}

} // namespace tile::tools
