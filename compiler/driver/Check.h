// Check.h - `tilec check`: what can be checked in a file without launching
// it. Kernels are only lowered once specialized on their arguments, so the
// check is static: every name a @jit function reads is bound (a parameter,
// a local, a module constant, an import, a @jit function or a Python
// builtin, resolved exactly as sema resolves it), every `tl.NAME` exists,
// and calls of @jit functions (from kernels) and launches `kernel[grid](...)`
// (from host code) pass arguments the kernel accepts.
#pragma once

#include "sema/Lower.h"

#include <functional>
#include <set>
#include <vector>

namespace tile::driver {

/// What host code may name, from the host evaluator (runtime/host, which
/// the driver does not depend on): its builtins and its modules.
struct HostNames {
  std::set<std::string> builtins;                    ///< host::builtinNames()
  std::function<bool(const std::string &)> isModule; ///< host::isKnownModule
};

/// Every problem found, in source order (not only the first). With host
/// names, host functions are checked too: every name they read is bound (a
/// local, a module-level binding, a builtin), every `torch.X` / `np.X` /
/// `F.X` of an imported module exists, and calls of host defs by name pass
/// arguments the def accepts.
std::vector<CompileError> checkProgram(const sema::Program &prog, const HostNames &host = {});

} // namespace tile::driver
