// BuiltinsAsm.h - internal to sema: tl.inline_asm_elementwise (BuiltinsAsm.cpp),
// lowered to the inline_asm IR op; listed in the table of Builtins.cpp.
#pragma once

#include "sema/Lowerer.h"

namespace tile::sema {

/// tl.inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack):
/// args (tensors or numbers) broadcast to one shape; one result per dtype
/// (a tuple of results for a tuple of dtypes), of that shape. As Triton,
/// the operands keep their own dtypes (no promotion).
Val asmInlineElementwise(Lowerer &L, CallArgs &a);

} // namespace tile::sema
