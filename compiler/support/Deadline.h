// Deadline.h - a wall-clock limit on a run (tilec run/bench --timeout,
// ContextOptions::timeoutSeconds), polled by the host evaluator and the
// interpreter at their loop back-edges.
#pragma once

#include <chrono>

namespace tile {

struct Deadline {
  std::chrono::steady_clock::time_point at;
  double seconds = 0;   ///< the limit it was made from, for messages

  /// `seconds` from now.
  static Deadline after(double seconds) {
    auto span = std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
    return {std::chrono::steady_clock::now() + span, seconds};
  }
  bool passed() const { return std::chrono::steady_clock::now() > at; }
};

} // namespace tile
