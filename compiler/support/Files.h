// Files.h - reading a whole file, and saying why a file cannot be opened,
// for every place that reads or writes a user's file (sources, .npy,
// compiled kernels): the reason is the system's ("No such file or
// directory", "Permission denied") or "a directory", never just "cannot
// open".
#pragma once

#include <string>

namespace tile {

/// A file's bytes, or why they could not be read (error non-empty).
struct FileText {
  std::string text;
  std::string error;
  bool ok() const { return error.empty(); }
};

/// The whole file at `path` (binary).
FileText readWholeFile(const std::string &path);

/// Why `path` could not be opened, called right after the failed open:
/// "a directory" when it is one, else strerror(errno).
std::string openFailure(const std::string &path);

} // namespace tile
