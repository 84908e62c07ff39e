// Diagnostics.cpp - the source registry and diagnostic formatting.
#include "support/Diagnostics.h"
#include "support/Files.h"

#include <atomic>
#include <algorithm>

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <vector>

namespace tile {

namespace {
struct File {
  std::string path;
  std::string text;
  std::vector<size_t> lineStarts; // offset of each line's first character
};

std::vector<size_t> computeLineStarts(const std::string &text) {
  std::vector<size_t> starts{0};
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n')
      starts.push_back(i + 1);
  return starts;
}
} // namespace

struct SourceManager::Impl {
  mutable std::mutex mu;
  std::deque<File> files;
};

SourceManager &SourceManager::global() {
  static SourceManager sm;
  return sm;
}

SourceManager::Impl *SourceManager::impl() {
  static Impl instance;
  return &instance;
}

int SourceManager::addFile(std::string path, std::string text) {
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);   // a UTF-8 BOM, as Python ignores it
  Impl *d = impl();
  std::lock_guard lock(d->mu);
  std::vector<size_t> starts = computeLineStarts(text);
  d->files.push_back({std::move(path), std::move(text), std::move(starts)});
  return static_cast<int>(d->files.size() - 1);
}

int SourceManager::addName(std::string path) { return addFile(std::move(path), ""); }

int SourceManager::loadFile(const std::string &path) {
  FileText f = readWholeFile(path);
  if (!f.ok())
    throw CompileError(Location{}, fmt::format("cannot read '{}': {}", path, f.error));
  return addFile(path, std::move(f.text));
}

std::string SourceManager::path(int id) const {
  Impl *d = const_cast<SourceManager *>(this)->impl();
  std::lock_guard lock(d->mu);
  if (id < 0 || id >= static_cast<int>(d->files.size()))
    return "<unknown>";
  return d->files[id].path;
}

std::string SourceManager::text(int id) const {
  Impl *d = const_cast<SourceManager *>(this)->impl();
  std::lock_guard lock(d->mu);
  if (id < 0 || id >= static_cast<int>(d->files.size()))
    return "";
  return d->files[id].text;
}

int SourceManager::fileCount() const {
  Impl *d = const_cast<SourceManager *>(this)->impl();
  std::lock_guard lock(d->mu);
  return static_cast<int>(d->files.size());
}

void SourceManager::forgetFilesFrom(int count) {
  Impl *d = impl();
  std::lock_guard lock(d->mu);
  if (count >= 0 && static_cast<size_t>(count) < d->files.size())
    d->files.resize(static_cast<size_t>(count));
}

std::string SourceManager::line(int id, int line) const {
  Impl *d = const_cast<SourceManager *>(this)->impl();
  std::lock_guard lock(d->mu);
  if (id < 0 || id >= static_cast<int>(d->files.size()) || line < 1)
    return "";
  const File &f = d->files[id];
  if (static_cast<size_t>(line) > f.lineStarts.size())
    return "";
  size_t begin = f.lineStarts[line - 1];
  size_t end = f.text.find('\n', begin);
  if (end == std::string::npos)
    end = f.text.size();
  if (end > begin && f.text[end - 1] == '\r')
    --end;
  return f.text.substr(begin, end - begin);
}

namespace {
/// The length of the valid UTF-8 sequence at s[i] (0: not valid UTF-8:
/// a stray continuation byte, a truncated or overlong sequence, a
/// surrogate, past U+10FFFF) and its code point.
size_t utf8At(std::string_view s, size_t i, uint32_t &cp) {
  auto u = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = u(i);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  cp = n == 1 ? c : c & (0x7f >> n);
  for (size_t k = 1; k < n; ++k) {
    if ((u(i + k) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (u(i + k) & 0x3f);
  }
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n;
}

/// A control character (C0 but newline and tab, DEL, C1) or a byte of no
/// valid UTF-8 sequence would cut or garble a diagnostic on a terminal (a
/// NUL ends C-string printing; 0x9b starts an 8-bit escape sequence). In
/// messages each such byte prints as \xNN; in quoted source lines as '?'
/// (one per byte, so the caret stays under its column). Messages longer
/// than kMaxMessage bytes (a 1 MB identifier quoted whole) are cut.
constexpr size_t kMaxMessage = 2000;

std::string cleanText(std::string_view msg, bool line) {
  std::string out;
  for (size_t i = 0; i < msg.size();) {
    uint32_t cp = 0;
    size_t n = utf8At(msg, i, cp);
    bool control = n == 0 || (cp < 0x20 && cp != '\t' && (line || cp != '\n')) || (cp >= 0x7f && cp <= 0x9f);
    if (!control) {
      out.append(msg.substr(i, n));
      i += n;
      continue;
    }
    for (size_t k = 0; k < std::max<size_t>(n, 1); ++k)
      out += line ? std::string("?") : fmt::format("\\x{:02x}", static_cast<unsigned char>(msg[i + k]));
    i += std::max<size_t>(n, 1);
  }
  return out;
}

std::string escapeControls(std::string_view msg) {
  if (msg.size() <= kMaxMessage) return cleanText(msg, false);
  size_t cut = kMaxMessage;
  while (cut > 0 && (static_cast<unsigned char>(msg[cut]) & 0xc0) == 0x80) --cut;   // not inside a character
  return cleanText(msg.substr(0, cut), false) + fmt::format("... ({} more bytes)", msg.size() - cut);
}
std::atomic<bool> gDiagnosticColor{false};
} // namespace

void setDiagnosticColor(bool on) { gDiagnosticColor.store(on); }
bool diagnosticColor() { return gDiagnosticColor.load(); }

std::string formatDiagnostic(Severity sev, Location loc, std::string_view msg, bool color) {
  const char *label = sev == Severity::Error ? "error" : sev == Severity::Warning ? "warning" : "note";
  const char *labelColor = sev == Severity::Error ? "\033[1;31m" : sev == Severity::Warning ? "\033[1;35m" : "\033[1;36m";
  const char *bold = color ? "\033[1m" : "";
  const char *reset = color ? "\033[0m" : "";
  std::string out;
  if (loc.file >= 0) {
    out += fmt::format("{}{}", bold, SourceManager::global().path(loc.file));
    if (loc.line > 0)
      out += fmt::format(":{}:{}", loc.line, loc.col);
    out += fmt::format(":{} ", reset);
  }
  out += fmt::format("{}{}:{} {}\n", color ? labelColor : "", label, reset, escapeControls(msg));
  if (!loc.valid())
    return out;
  std::string src = SourceManager::global().line(loc.file, loc.line);
  if (src.empty())
    return out;
  // Long lines are cut around the caret so the message stays readable.
  size_t col = loc.col > 0 ? static_cast<size_t>(loc.col - 1) : 0;
  size_t start = col > 100 ? col - 60 : 0;
  std::string shown = src.substr(start, 160);
  // Control characters (a NUL, a stray \r, C1) and invalid UTF-8 would cut
  // or garble the line on a terminal: each byte shows as '?'.
  shown = cleanText(shown, true);
  std::string caret;
  for (size_t i = start; i < col && i < src.size(); ++i)
    caret += src[i] == '\t' ? '\t' : ' ';
  out += fmt::format("{}{}\n{}{}{}^{}\n", start ? "..." : "", shown, start ? "   " : "", caret,
                     color ? "\033[1;32m" : "", reset);
  return out;
}

CompileError::CompileError(Location loc, std::string msg)
    : std::runtime_error(formatDiagnostic(Severity::Error, loc, msg, /*color=*/false)), loc(loc), msg(std::move(msg)) {}

std::string CompileError::formatted(bool color) const {
  std::string out = formatDiagnostic(Severity::Error, loc, msg, color);
  for (const auto &[at, note] : notes)
    out += formatDiagnostic(Severity::Note, at, note, color);
  return out;
}

void fail(Location loc, std::string msg) { throw CompileError(loc, std::move(msg)); }

void internalError(const char *file, int line, const std::string &msg) {
  std::fprintf(stderr, "internal compiler error: %s\n  at %s:%d\nplease report this bug\n",
               msg.c_str(), file, line);
  std::fflush(stderr);
  std::abort();
}

} // namespace tile
