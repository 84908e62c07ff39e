// Diagnostics.h - source files, locations and located errors.
//
// Every user-facing error is a CompileError carrying a Location; whoever
// catches it prints `file:line:col: error: message`, the source line and a
// caret (formatDiagnostic). Internal invariants use TILE_ASSERT instead.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tile {

/// A position in a registered source file. line and col are 1-based.
struct Location {
  int32_t file = -1;
  int32_t line = 0;
  int32_t col = 0;
  bool valid() const { return file >= 0 && line > 0; }
  bool operator==(const Location &) const = default;
};

/// Process-wide registry of source texts, thread safe. Files are never
/// removed, so ids and returned references stay valid.
class SourceManager {
public:
  static SourceManager &global();
  /// Registers text under a display path; returns its id.
  int addFile(std::string path, std::string text);
  /// Registers a name without text (locations read back from IR text).
  int addName(std::string path);
  /// Reads a file from disk; throws CompileError (no location) on failure.
  int loadFile(const std::string &path);
  std::string path(int id) const;
  /// The text of 1-based line `line` without its newline ("" if unknown).
  std::string line(int id, int line) const;
  std::string text(int id) const;
  /// The number of files registered so far (the next id).
  int fileCount() const;
  /// Forgets the files registered at or after id `count`; locations in them
  /// print without a source line. Only for fuzzers, which register millions
  /// of inputs in one process and must not grow without bound.
  void forgetFilesFrom(int count);

private:
  struct Impl;
  Impl *impl();
};

enum class Severity { Error, Warning, Note };

/// Whether diagnostics formatted without an explicit colour choice (the
/// interpreter's and the GPU launcher's warnings) get ANSI colours: off
/// unless a program turns it on (tilec: on a terminal, NO_COLOR /
/// CLICOLOR_FORCE), so warnings and errors look alike.
void setDiagnosticColor(bool on);
bool diagnosticColor();

/// `file:line:col: error: msg` + source line + caret, newline-terminated.
/// color adds ANSI colours (the CLI decides: terminal and no NO_COLOR).
std::string formatDiagnostic(Severity sev, Location loc, std::string_view msg,
                             bool color = diagnosticColor());

/// A user error: bad source, bad launch, bad IR text.
class CompileError : public std::runtime_error {
public:
  CompileError(Location loc, std::string msg);
  Location loc;
  std::string msg;
  /// Context added on the way out (an inlined helper's call site, the
  /// launch a kernel was specialized for), innermost first.
  std::vector<std::pair<Location, std::string>> notes;
  /// Host code's try/except does not catch it (an error out of a kernel
  /// launch: runtime/host/HostTry.cpp).
  bool uncatchable = false;
  /// formatDiagnostic(Error, loc, msg), then each note's formatDiagnostic(Note, ...)
  std::string formatted(bool color = diagnosticColor()) const;
};

[[noreturn]] void fail(Location loc, std::string msg);

/// Compiler bug: aborts with file:line of the compiler source.
[[noreturn]] void internalError(const char *file, int line, const std::string &msg);

} // namespace tile

#define TILE_ASSERT(cond, msg)                                                 \
  do {                                                                         \
    if (!(cond))                                                               \
      ::tile::internalError(__FILE__, __LINE__, (msg));                        \
  } while (0)
