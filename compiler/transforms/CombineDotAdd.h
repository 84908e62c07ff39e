// CombineDotAdd.h - the "combine-dot-add" pass, Triton's combine of an
// accumulation into a dot:
//   add(d, dot(a, b, 0)), add(dot(a, b, 0), d)  ->  dot(a, b, d)
// when the dot's accumulator is a zero constant (+0.0 or 0), the dot has no
// other use and d has the dot's type. It is what makes `acc += tl.dot(a, b)`
// the same kernel as `acc = tl.dot(a, b, acc)` (on Hopper: the accumulator
// stays in the tensor cores' registers and the operand tiles go by cp.async).
// For floats it changes the rounding (d is summed with the products instead
// of once after them), as Triton's does; integer results are unchanged. The
// interpreter and the GPU both run the combined IR. Leaves the old dot to DCE.
#pragma once

#include "ir/IR.h"

namespace tile::ir {

/// Returns true when the function changed.
bool combineDotAdd(Function &fn);

} // namespace tile::ir
