// SpellingTests.cpp - didYouMean: the nearest candidate within Python's
// bound for its own suggestions; nothing for far or exact names.
#include "support/Spelling.h"

#include <doctest/doctest.h>

using tile::didYouMean;

TEST_CASE("didYouMean suggests the nearest near candidate") {
  std::vector<std::string> params{"x_ptr", "n", "BLOCK", "num_warps", "num_stages"};
  CHECK(didYouMean("BLOK", params) == " (did you mean 'BLOCK'?)");        // a letter dropped
  CHECK(didYouMean("BLOCk", params) == " (did you mean 'BLOCK'?)");       // a change of case costs half
  CHECK(didYouMean("num_warp", params) == " (did you mean 'num_warps'?)");
  CHECK(didYouMean("num_stage", params) == " (did you mean 'num_stages'?)");
  CHECK(didYouMean("xptr", params) == " (did you mean 'x_ptr'?)");
  CHECK(didYouMean("m", params).empty());                                  // one letter: no suggestion (as Python)
  CHECK(didYouMean("BLOCK", params).empty());                              // itself
  CHECK(didYouMean("GROUP_SIZE", params).empty());                         // nothing near
  CHECK(didYouMean("anything", {}).empty());
  // the nearer of two, the first of equally near ones
  CHECK(didYouMean("othr", {"other", "otherwise"}) == " (did you mean 'other'?)");
  CHECK(didYouMean("abcd", {"abce", "abcf"}) == " (did you mean 'abce'?)");
  CHECK(didYouMean("ab", {"ac"}).empty());                                // a substitution in two letters is too far
}
