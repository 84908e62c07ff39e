// Dump.cpp - numbered stage files for --dump-dir / TILE_DUMP_DIR.
#include "driver/Dump.h"

#include "support/Diagnostics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>

namespace tile::driver {

namespace fs = std::filesystem;

namespace {

std::mutex gMu;
std::string gOverride;
bool gHasOverride = false;
/// Next number per directory, found once by scanning it.
std::map<std::string, int> gNext;

/// The highest "NNN-" prefix among DIR's file names, or 0.
int highestNumber(const fs::path &dir) {
  int best = 0;
  std::error_code ec;
  for (const auto &e : fs::directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    size_t digits = 0;
    while (digits < name.size() && digits < 9 && std::isdigit(static_cast<unsigned char>(name[digits]))) ++digits;
    if (digits == 0 || digits >= name.size() || name[digits] != '-') continue;
    best = std::max(best, std::atoi(name.substr(0, digits).c_str()));
  }
  return best;
}

/// Unit and stage names become part of a file name: keep them tame.
std::string sanitize(std::string_view s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '_';
  return out.empty() ? "_" : out;
}

} // namespace

std::string dumpDir() {
  std::lock_guard lock(gMu);
  if (gHasOverride) return gOverride;
  const char *env = std::getenv("TILE_DUMP_DIR");
  return env ? env : "";
}

void setDumpDir(std::string dir) {
  std::lock_guard lock(gMu);
  gHasOverride = !dir.empty();
  gOverride = std::move(dir);
}

std::string writeDump(const std::string &dir, std::string_view unit, std::string_view stage, std::string_view ext,
                      std::string_view text) {
  std::lock_guard lock(gMu);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!fs::is_directory(dir)) throw CompileError(Location{}, fmt::format("cannot create dump directory '{}'", dir));
  auto [it, fresh] = gNext.try_emplace(fs::weakly_canonical(dir, ec).string(), 0);
  if (fresh) it->second = highestNumber(dir) + 1;
  int n = it->second++;
  std::string path = (fs::path(dir) / fmt::format("{:03}-{}-{}.{}", n, sanitize(unit), sanitize(stage), ext)).string();
  std::ofstream f(path, std::ios::binary);
  f.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!f) throw CompileError(Location{}, fmt::format("cannot write dump file '{}'", path));
  return path;
}

} // namespace tile::driver
