// BuiltinsShape.h - internal to sema: tl.join, tl.split, tl.interleave,
// tl.cat, tl.flip, tl.ravel and tl.swizzle2d
// (also as tensor methods). They lower to existing IR ops (expand_dims,
// broadcast, select, reduce, reshape), so the interpreter and the GPU back
// end need nothing new. Builtins.cpp lists them in its table;
// BuiltinsShape.cpp implements them.
#pragma once

#include "sema/Lowerer.h"

namespace tile::sema {

/// tl.join(a, b): a and b broadcast to one shape S, result S + [2] with
/// r[..., 0] = a and r[..., 1] = b (two scalars give a tensor of shape [2]).
Val shapeJoin(Lowerer &L, CallArgs &a);
/// tl.split(a): a's last dimension must be 2; returns the tuple
/// (a[..., 0], a[..., 1]) (two scalars when a has shape [2]).
Val shapeSplit(Lowerer &L, CallArgs &a);
/// tl.interleave(a, b): join(a, b) with its last two dimensions merged, so
/// the elements of a and b alternate along the last axis.
Val shapeInterleave(Lowerer &L, CallArgs &a);
/// tl.cat(a, b, can_reorder=False): a and b (one dtype, equal shapes but
/// for dim 0) concatenated along dim 0, exactly in order (Triton allows a
/// reordering; the ordered result is one of those it allows).
Val shapeCat(Lowerer &L, CallArgs &a);
/// tl.flip(x, dim=None): x reversed along dim (the last one by default), a
/// power of two long: each bit of the index flipped by swapping halves.
Val shapeFlip(Lowerer &L, CallArgs &a);
/// tl.sort(x, dim=None, descending=False): x sorted along its last
/// dimension (a power of two long) by a bitonic network of compare-and-swap
/// steps, as Triton's: a pair is swapped when (left > right) differs from
/// the step's direction, so NaNs stay where the comparisons leave them.
Val shapeSort(Lowerer &L, CallArgs &a);
/// tl.ravel(x): x reshaped to one dimension, in row-major order.
Val shapeRavel(Lowerer &L, CallArgs &a);
/// tl.swizzle2d(i, j, size_i, size_j, size_g): Triton's grouped reordering
/// of a 2-D index, in Triton's arithmetic (ints, `//` and `%`, minimum).
Val shapeSwizzle2d(Lowerer &L, CallArgs &a);

} // namespace tile::sema
