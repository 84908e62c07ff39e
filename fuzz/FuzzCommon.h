// FuzzCommon.h - what the fuzz targets share: the oracle for user errors
// (every CompileError must be located inside the input), the abort that
// turns a broken compiler invariant into a libFuzzer crash, and the guard
// that keeps SourceManager from growing by one file per input.
#pragma once

#include "support/Diagnostics.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace tile::fuzz {

/// A compiler bug found by an oracle: print and abort (libFuzzer saves the
/// input; the replay test fails).
[[noreturn]] inline void bug(std::string_view what, std::string_view detail) {
  std::fprintf(stderr, "fuzz oracle failed: %.*s\n%.*s\n", static_cast<int>(what.size()), what.data(),
               static_cast<int>(detail.size()), detail.data());
  std::fflush(stderr);
  std::abort();
}

/// A user error must point into the input (a line that exists, column >= 1)
/// and carry a message; formatting it must work.
inline void checkLocated(const CompileError &e, std::string_view text) {
  int lines = 1 + static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  std::string shown = e.formatted();
  if (shown.find('\0') != std::string::npos)
    bug("diagnostic with a NUL byte (C-string printing would cut it)", shown);
  if (e.msg.empty())
    bug("empty diagnostic", e.what());
  if (!e.loc.valid() || e.loc.line > lines || e.loc.col < 1)
    bug("diagnostic without a location in the input", e.what());
}

/// Drops the source files an input registered when it goes out of scope.
class SourceScope {
public:
  SourceScope() : mark_(SourceManager::global().fileCount()) {}
  ~SourceScope() { SourceManager::global().forgetFilesFrom(mark_); }
  SourceScope(const SourceScope &) = delete;
  SourceScope &operator=(const SourceScope &) = delete;

private:
  int mark_;
};

} // namespace tile::fuzz
