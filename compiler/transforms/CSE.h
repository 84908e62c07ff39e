// CSE.h - common subexpression elimination over structured regions.
//
// Two pure ops (no regions, no side effects, not a load) are equal when
// their kind, operands, attributes (floats compared by bits, so 0.0 and
// -0.0 differ) and result types are equal. The later op is replaced by the
// earlier one when the earlier one dominates it: defined before it in the
// same block or in an enclosing block. A value defined in a nested region
// never replaces one outside it, and sibling regions (the two branches of
// an if, the two regions of a while) never share values.
// Loads are never merged: a store may sit between them.
#pragma once

#include "ir/IR.h"

namespace tile::ir {

/// Returns true when the function changed.
bool cse(Function &fn);

} // namespace tile::ir
