// HostEval.h - runs the host code of a .tile file: its top-level
// statements (imports, defs, constants), then its entry function (main).
//
// Host code is a small Python: ints, floats, strings, tuples, lists, dicts,
// lambdas, host tensors (Tensor.h) and the torch/triton/numpy-style
// builtins listed in docs; `kernel[grid](...)` launches go through a
// Launcher. Errors are CompileErrors located at the failing expression;
// a failed assert or assert_close is one too (the CLI exits 1).
#pragma once

#include "host/Launcher.h"
#include "sema/ConstValue.h"
#include "sema/Lower.h"
#include "support/Deadline.h"

#include <atomic>
#include <optional>
#include <iostream>
#include <map>
#include <set>
#include <string>

namespace tile::host {

struct HostOptions {
  /// -D NAME=VALUE: globals that override module-level assignments.
  std::map<std::string, sema::ConstValue> defines;
  /// Where print() writes (and notes such as the bfloat16 .npy one).
  std::ostream *out = &std::cout;
  /// The function run after the module body.
  std::string entry = "main";
  /// Host call depth beyond which a call is an error instead of a crash.
  int maxCallDepth = 200;
  /// Polled in loops and calls: when it becomes true, evaluation stops
  /// with an "interrupted" error (the CLI sets it from SIGINT).
  const std::atomic<bool> *interrupt = nullptr;
  /// Polled at the same points: once it has passed, evaluation stops with
  /// a "timed out" error (tilec run --timeout SECONDS).
  std::optional<Deadline> deadline;
  /// load() and save() may touch files; false makes them a located error
  /// (fuzz-host runs programs whose paths are random bytes).
  bool fileAccess = true;
};

/// The names host code can use without defining them (its builtins:
/// zeros, print, float32, ...), for `tilec check`'s host checks.
std::set<std::string> builtinNames();
/// Whether `name` ("torch.nn.functional", "np", ...) is a module host code
/// can import and reach builtins through.
bool isKnownModule(const std::string &name);

/// Runs prog's module body, then its entry function. Returns the exit
/// status: 0, or the int that the entry function returns. Throws
/// CompileError for every user error (including failed asserts).
int runHostProgram(const sema::Program &prog, Launcher &launcher, const HostOptions &opts);

} // namespace tile::host
