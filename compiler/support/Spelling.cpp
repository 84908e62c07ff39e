// Spelling.cpp - see Spelling.h.
#include "support/Spelling.h"

#include <algorithm>
#include <cctype>

namespace tile {

namespace {

/// Edit cost as Python's suggestions count it: 2 an insertion, a deletion
/// or a substitution, 1 a change of letter case only.
size_t editCost(std::string_view a, std::string_view b) {
  auto sub = [](char x, char y) -> size_t {
    if (x == y) return 0;
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y)) ? 1 : 2;
  };
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = 2 * j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = 2 * i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 2, row[j - 1] + 2, diag + sub(a[i - 1], b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}

} // namespace

std::string didYouMean(std::string_view name, const std::vector<std::string> &candidates) {
  const std::string *best = nullptr;
  size_t bestDistance = 0;
  // Python's bound: (len(name) + 3) / 3 substitutions' worth (cost 2 each)
  size_t limit = (name.size() + 3) * 2 / 6;
  for (const std::string &c : candidates) {
    if (c == name) return "";
    size_t d = editCost(name, c);
    if (d <= limit && (!best || d < bestDistance)) {
      best = &c;
      bestDistance = d;
    }
  }
  return best ? " (did you mean '" + *best + "'?)" : "";
}

} // namespace tile
