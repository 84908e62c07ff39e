// Canonicalize.h - local simplifications that never change results:
//   x+0, 0+x, x-0, x*1, 1*x, x/1, x|0, x^0, x<<0, x>>0, x&-1 -> x  (ints)
//   x*0, 0*x, x&0 -> 0;  x|-1 -> -1;  x&x, x|x, min(x,x), max(x,x) -> x
//   x-x, x^x -> 0                                                   (ints)
//   x+(-0.0), (-0.0)+x, x-0.0, x*1.0, 1.0*x, x/1.0 -> x              (floats)
//   cast/bitcast to the same type, broadcast/reshape to the same type,
//   permute by the identity order -> x
//   splat of a constant -> constant; broadcast of a splat -> splat;
//   broadcast/reshape of a splat -> splat of its scalar
//   addptr p, 0 -> p;  select c, x, x -> x;  select <const c>, a, b -> a|b
//   if <const c> -> the taken branch's ops, results = its yielded values
//   for with a constant zero trip count -> its init values
// "0", "1", "-1" match scalar constants and splats of them; integer
// constants compare after wrapping to the type. Float identities are only
// those exact for every input (x+0.0 is not: -0.0+0.0 = +0.0).
// Leaves dead ops for DCE.
#pragma once

#include "ir/IR.h"

namespace tile::ir {

/// Returns true when the function changed.
bool canonicalize(Function &fn);

} // namespace tile::ir
