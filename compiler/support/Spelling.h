// Spelling.h - "did you mean" for a misspelt name (a keyword argument, a
// constexpr, a launch option), added to the error that rejects it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tile {

/// " (did you mean 'BLOCK'?)" for the candidate nearest to `name`, by
/// Python's rule for its own suggestions: an insertion, deletion or
/// substitution costs 2, a change of case 1, and a candidate is near when
/// the cost is at most (len(name) + 3) / 3 (so a one-letter name gets no
/// suggestion); the first of equally near ones. "" when none is near or
/// `name` is itself a candidate.
std::string didYouMean(std::string_view name, const std::vector<std::string> &candidates);

/// The same among the `name`s of `items` (parameters) and `more` names.
template <typename Items>
std::string didYouMeanAmong(std::string_view name, const Items &items, std::vector<std::string> more = {}) {
  for (const auto &item : items) more.push_back(item.name);
  return didYouMean(name, more);
}

} // namespace tile
