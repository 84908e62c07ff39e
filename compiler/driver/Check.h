// Check.h - `tilec check`: what can be checked in a file without launching
// it. Kernels are only lowered once specialized on their arguments, so the
// check is static: every name a @jit function reads is bound (a parameter,
// a local, a module constant, an import, a @jit function or a Python
// builtin, resolved exactly as sema resolves it), every `tl.NAME` exists,
// and calls of @jit functions (from kernels) and launches `kernel[grid](...)`
// (from host code) pass arguments the kernel accepts.
#pragma once

#include "sema/Lower.h"

#include <set>
#include <vector>

namespace tile::driver {

/// Every problem found, in source order (not only the first). With
/// hostBuiltins (the host evaluator's builtin names: host::builtinNames()),
/// host functions are checked too: every name they read is bound (a local,
/// a module-level binding, a builtin) and calls of host defs by name pass
/// arguments the def accepts.
std::vector<CompileError> checkProgram(const sema::Program &prog, const std::set<std::string> &hostBuiltins = {});

} // namespace tile::driver
