// Bench.cpp - work columns and the progress line of `tilec bench`.
#include "Bench.h"

#include "Bridge.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace tile::tools {

std::string workColumns(const host::LaunchRequest &req, double ms, bool interpreter) {
  if (ms <= 0) return "";
  std::string out;
  if (interpreter) {   // a rate from an interpreter's wall clock means nothing (and rounds to 0.000)
    if (req.flops > 0) out += " tflops=n/a";
    if (req.bytes > 0) out += " gbps=n/a";
    return out;
  }
  if (req.flops > 0) out += fmt::format(" tflops={:.3f}", req.flops / (ms * 1e-3) / 1e12);
  if (req.bytes > 0) out += fmt::format(" gbps={:.1f}", req.bytes / (ms * 1e-3) / 1e9);
  return out;
}

Progress::Progress() : enabled_(tile::detail::Bridge::progressLines()) {}

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

} // namespace tile::tools
