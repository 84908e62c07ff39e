// BuiltinsDescriptor.h - Triton's tensor descriptors: tl.make_tensor_descriptor,
// desc.load / desc.store (also tl.load_tensor_descriptor /
// tl.store_tensor_descriptor), implemented in BuiltinsDescriptor.cpp and
// listed in the table of Builtins.cpp.
//
// A descriptor exists only in sema, as a block pointer (BuiltinsBlockPtr.h)
// whose offsets are 0 and whose constexpr part holds a third entry, the
// padding option ("zero" or "nan"): shape is int32 and strides int64 (as
// Triton converts them), order the row-major (r-1, ..., 0). A load or store
// at offsets expands like a block pointer at those offsets with every
// dimension bounds-checked: out-of-bounds elements (negative coordinates
// included) load as the padding and are not stored, as TMA does. There is
// no TMA lowering yet: the accesses are pointer tiles with masks.
#pragma once

#include "sema/Lowerer.h"

namespace tile::sema::descriptor {

/// tl.make_tensor_descriptor(base, shape, strides, block_shape, padding_option="zero")
Val bMake(Lowerer &L, CallArgs &a);
/// desc.load(offsets), tl.load_tensor_descriptor(desc, offsets)
Val bLoad(Lowerer &L, CallArgs &a);
/// desc.store(offsets, value), tl.store_tensor_descriptor(desc, offsets, value)
Val bStore(Lowerer &L, CallArgs &a);

} // namespace tile::sema::descriptor
