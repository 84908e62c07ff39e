// BuiltinsBlockPtr.h - Triton's block pointers: tl.make_block_ptr,
// tl.advance, and tl.load / tl.store through them (implemented in
// BuiltinsBlockPtr.cpp, listed in the table of Builtins.cpp).
//
// A block pointer exists only in sema: a Val of kind BlockPtr whose elts are
// [base, shape_0..r-1, strides_0..r-1, offsets_0..r-1] (each a scalar IR
// value or a constexpr integer; offsets are i32 as in Triton) and whose c is
// the constexpr pair (block_shape, order). Loads and stores expand it into a
// tensor of pointers `base + sum_i (offsets_i + arange(block_i)) * strides_i`
// and, for the dimensions in boundary_check, the mask
// `0 <= offsets_i + arange(block_i) < shape_i`. Loops carry only the
// offsets (the rest, the frame, must not change in the body); a runtime if
// merges every field that differs between its branches.
#pragma once

#include "sema/Lowerer.h"

namespace tile::sema::blockptr {

/// Whether p is a tensor descriptor (tl.make_tensor_descriptor,
/// BuiltinsDescriptor.cpp): a block pointer whose c holds a third entry,
/// its padding option, and whose offsets stay 0 (each load and store gives
/// its own).
bool isDescriptor(const Val &p);
/// Number of dimensions of a block pointer.
int rank(const Val &p);
/// Index in p.elts of the offset of dimension i.
size_t offsetIndex(const Val &p, int i);
/// Whether a and b are block pointers with the same base, shape, strides,
/// block_shape and order (what tl.advance keeps).
bool sameFrame(const Val &a, const Val &b);

/// tl.make_block_ptr(base, shape, strides, offsets, block_shape, order)
Val bMakeBlockPtr(Lowerer &L, CallArgs &a);
/// tl.advance(base, offsets), also `p.advance(offsets)`
Val bAdvance(Lowerer &L, CallArgs &a);
/// The block p points at, the dimensions in `checked` masked to
/// 0 <= index < shape and filled with 0 (NaN for padding "nan").
Val loadBlock(Lowerer &L, const Val &p, const std::vector<int> &checked, const std::string &padding, Location loc);
/// Stores value (cast to the element type; the block's shape or a scalar)
/// to the block p points at, elements outside `checked` bounds skipped.
void storeBlock(Lowerer &L, const Val &p, const Val &value, Location valueLoc, const std::vector<int> &checked,
                Location loc);
/// tl.load(pointer, mask, other, boundary_check, padding_option, ...) with
/// a block pointer in a[0]; called by Builtins.cpp's tl.load.
Val load(Lowerer &L, CallArgs &a);
/// tl.store(pointer, value, mask, boundary_check, ...) with a block pointer
/// in a[0]; called by Builtins.cpp's tl.store.
Val store(Lowerer &L, CallArgs &a);

} // namespace tile::sema::blockptr
