// ScanAtomicToLLVM.h - lowering of the scan and atomic ops (private to
// compiler/backend; implemented in ScanAtomicToLLVM.cpp, dispatched from
// Emitter::emitOp).
#pragma once

#include "backend/Emitter.h"

namespace tile::backend {

/// scan: the operand goes to shared memory; every thread then folds, for
/// each of its result registers, the elements along the axis in index order
/// (the interpreter's order) through the op's combine region.
void emitScan(Emitter &e, ir::Op &op);

/// atomic_rmw / atomic_cas: each element is updated by exactly one thread
/// (the one that wins a claim through shared memory, so replicated layouts
/// do not repeat it) with a predicated `atom.global` in inline PTX; the old
/// values return to every thread holding the element through shared memory.
void emitAtomic(Emitter &e, ir::Op &op);

} // namespace tile::backend
