// Files.cpp - see Files.h.
#include "support/Files.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tile {

std::string openFailure(const std::string &path) {
  int err = errno;   // before anything else can change it
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return "a directory";
  return err ? std::strerror(err) : "cannot be opened";
}

FileText readWholeFile(const std::string &path) {
  FileText out;
  std::error_code ec;
  // an ifstream opens a directory and reads nothing from it
  if (std::filesystem::is_directory(path, ec)) {
    out.error = "a directory";
    return out;
  }
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    out.error = openFailure(path);
    return out;
  }
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) {
    out.error = "a read error";
    return out;
  }
  out.text = s.str();
  return out;
}

} // namespace tile
