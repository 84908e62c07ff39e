// BuiltinsSelect.h - internal to sema: tl.gather, tl.histogram and tl.topk,
// built from existing IR ops (compare, select, sum) in BuiltinsSelect.cpp,
// so the interpreter and the GPU agree by construction. Each compares every
// result element with every candidate (a one-hot tensor one dimension
// larger than the result): exact, O(result x candidates), correct rather
// than fast. Builtins.cpp lists them in its table.
#pragma once

#include "sema/Lowerer.h"

namespace tile::sema {

/// tl.gather(src, index, axis): r has index's shape, r[i] = src[i with
/// i[axis] replaced by index[i]]; src and index of one rank and equal dims
/// but axis; an index outside [0, src.shape[axis]) gives 0 (undefined in
/// Triton).
Val selectGather(Lowerer &L, CallArgs &a);
/// tl.histogram(input, num_bins, mask=None): int32 [num_bins], r[b] =
/// number of (unmasked) elements of the 1-D integer input equal to b;
/// values outside [0, num_bins) are not counted.
Val selectHistogram(Lowerer &L, CallArgs &a);
/// tl.topk(x, k, dim=None): the k largest elements along the last
/// dimension (k and the length powers of two), largest first: x sorted
/// descending by tl.sort's network, its first k kept.
Val selectTopk(Lowerer &L, CallArgs &a);

} // namespace tile::sema
