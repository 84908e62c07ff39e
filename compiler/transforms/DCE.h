// DCE.h - dead code elimination.
//
// Removes, until nothing changes, every op whose results are all unused and
// that Op::hasSideEffects() says may go: pure ops (loads included), and
// for/if ops whose regions contain no store, print or assert. while loops
// are kept (they might not terminate; see Op::hasSideEffects). Terminators
// are never removed; unused block arguments and loop-carried values are
// left alone.
#pragma once

#include "ir/IR.h"

namespace tile::ir {

/// Returns true when the function changed.
bool dce(Function &fn);

} // namespace tile::ir
