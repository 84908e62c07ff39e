// ConstantFold.h - replaces ops whose operands are all constants (scalar
// constants or splat constants) by a constant of the op's result type.
//
// Guarantee: the folded value is bit-identical to what the interpreter
// computes (Ops.def semantics): integers wrap to their type's width and
// signedness, div/rem truncate like C, float results are rounded to the
// element type with roundToFloatType. Anything whose result is undefined
// or implementation-specific is left alone: integer division or remainder
// by zero (and INT_MIN / -1), float division by zero, shifts by a negative
// amount, int->float conversions of values beyond 2^53 (double rounding),
// transcendental functions (exp, log, sin, ... differ between libms),
// bitcast, fma of f16/bf16, and float sums in reduce.
// Folded: elementwise arithmetic, cmp, select, cast, neg/not/abs/sqrt/
// floor/ceil, fma (f32/f64), splat/broadcast/expand_dims/reshape/permute
// of a constant, and reduce max/min/argmax/argmin/integer-sum of a splat.
// May run at any point; leaves dead constants for DCE.
#pragma once

#include "ir/IR.h"

namespace tile::ir {

/// Returns true when the function changed.
bool constantFold(Function &fn);

} // namespace tile::ir
