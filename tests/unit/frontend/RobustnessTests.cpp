// RobustnessTests.cpp - random bytes, random token soups and mutated seed
// kernels: the front end may only ever throw a located CompileError.
#include "FrontendTestUtil.h"
#include "SeedKernels.h"

#include <algorithm>
#include <random>

using namespace tile;
using namespace tile::frontend;
using namespace tile::frontend::test;

namespace {

const char *const kFragments[] = {
    "def", "if", "elif", "else", "for", "while", "in", "not", "and", "or", "is",
    "lambda", "return", "pass", "break", "continue", "assert", "import", "from",
    "as", "global", "None", "True", "False", "@", "x", "tl", "triton.jit", "_a1",
    "0", "1", "0x1f", "1.5", ".5", "1e3", "99999999999999999999", "'s'", "\"t\"",
    "'''u'''", "r'\\d'", "(", ")", "[", "]", "{", "}", ",", ":", ";", ".", "...",
    "=", "==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "//", "%", "**",
    "@", "&", "|", "^", "~", "<<", ">>", "->", "+=", "**=", "//=", ">>=", "\n",
    "\n    ", "\n        ", "\n  ", "\t", " ", " ", " ", "\\\n", "#c\n", "*", "**",
};

enum class Outcome { Bad, Rejected, Parsed };

/// Parses text and checks that any failure is a CompileError located inside
/// the text.
Outcome parseOutcome(const std::string &text) {
  try {
    auto m = parseString("<fuzz>", text);
    (void)dumpAST(*m);
    return Outcome::Parsed;
  } catch (const CompileError &e) {
    int lines = 1 + static_cast<int>(std::count(text.begin(), text.end(), '\n'));
    bool located = e.loc.valid() && e.loc.line <= lines && e.loc.col >= 1 && !e.msg.empty();
    if (!located)
      MESSAGE("badly located error: " << e.msg << " at " << e.loc.line << ":" << e.loc.col);
    (void)e.formatted();
    return located ? Outcome::Rejected : Outcome::Bad;
  } catch (const std::exception &e) {
    MESSAGE("unexpected exception: " << e.what());
    return Outcome::Bad;
  }
}

std::string randomBytes(std::mt19937 &rng) {
  const std::string common = "abcx_019 \n\n\t()[]{}:,.=+-*/%<>!@#'\"\\;~&|^";
  std::string s(rng() % 120, ' ');
  for (char &c : s)
    c = rng() % 4 == 0 ? static_cast<char>(rng() % 256) : common[rng() % common.size()];
  return s;
}

std::string tokenSoup(std::mt19937 &rng) {
  std::string s;
  size_t n = rng() % 40;
  for (size_t i = 0; i < n; ++i) {
    s += kFragments[rng() % std::size(kFragments)];
    if (rng() % 2)
      s += ' ';
  }
  return s;
}

std::string mutate(std::mt19937 &rng, std::string s) {
  int edits = 1 + rng() % 3;
  for (int i = 0; i < edits && !s.empty(); ++i) {
    size_t at = rng() % s.size();
    switch (rng() % 5) {
    case 0: s.erase(at, 1 + rng() % 8); break;
    case 1: s.insert(at, kFragments[rng() % std::size(kFragments)]); break;
    case 2: s[at] = static_cast<char>(rng() % 128); break;
    case 3: s.insert(at, s.substr(rng() % s.size(), rng() % 30)); break;
    default: std::swap(s[at], s[rng() % s.size()]); break;
    }
  }
  return s;
}

} // namespace

TEST_CASE("robustness: only located CompileErrors, never crashes") {
  std::mt19937 rng(12345);
  const char *seeds[] = {kTileFill, kMatmul, kTranspose};
  int failures = 0, mutantsParsed = 0;
  for (int i = 0; i < 1500 && failures <= 5; ++i) {
    std::string inputs[] = {randomBytes(rng), tokenSoup(rng),
                            mutate(rng, seeds[i % std::size(seeds)])};
    for (const std::string &text : inputs) {
      Outcome outcome = parseOutcome(text);
      if (outcome == Outcome::Bad) {
        ++failures;
        MESSAGE("input: " << quoteString(text));
      }
      mutantsParsed += &text == &inputs[2] && outcome == Outcome::Parsed;
    }
  }
  CHECK(failures == 0);
  // The mutants are not all trivially rejected: some still parse (edits in
  // comments, names, numbers), so the parser's accepting paths are fuzzed too.
  CHECK(mutantsParsed > 50);
  CHECK(mutantsParsed < 1400);
}
