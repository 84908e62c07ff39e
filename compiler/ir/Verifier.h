// Verifier.h - checks the structural and typing invariants of the tile IR
// that every pass and back end may rely on.
//
// Checked: per-op operand/result counts and types (see Ops.def), attributes
// present with the right kind and range, tensor dims powers of two, every
// operand defined before its use and visible from it (a value of an
// enclosing region may be used in a nested one, not the reverse), region
// counts, block arguments and terminators of for/while/if.
#pragma once

#include "ir/IR.h"

namespace tile::ir {

/// Throws CompileError "verifier: ..." located at the first offending op.
void verify(const Function &fn);
void verify(const Module &m);

} // namespace tile::ir
