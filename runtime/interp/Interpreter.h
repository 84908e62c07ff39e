// Interpreter.h - runs a tile IR function over a whole grid on host memory.
//
// Deterministic: programs run in order (x fastest, then y, then z), one at a
// time, each op evaluated on whole tensors. Memory safety is checked against
// the MemoryMap of registered host allocations (host tensors register
// themselves). See docs/architecture.md, "Interpreter".
#pragma once

#include "ir/IR.h"
#include "support/Deadline.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tile::interp {

/// One registered allocation: [base, base + bytes).
struct MemoryRegion {
  uint64_t base = 0;
  uint64_t bytes = 0;
  std::string name;   ///< e.g. "tensor#3 float32[64, 64]"
};

/// Registry of host allocations that kernels may touch. Thread safe.
class MemoryMap {
public:
  static MemoryMap &global();
  void add(const void *base, uint64_t bytes, std::string name);
  void remove(const void *base);
  void rename(const void *base, std::string name);
  /// The region containing [addr, addr+size), if any.
  bool find(uint64_t addr, uint64_t size, MemoryRegion &out) const;
  /// The region whose range contains addr, or the nearest one below it (for messages).
  bool nearest(uint64_t addr, MemoryRegion &out) const;

private:
  mutable std::mutex mu_;
  std::map<uint64_t, MemoryRegion> regions_;
};

struct Grid {
  int64_t x = 1, y = 1, z = 1;
};

struct Options {
  /// An out-of-range unmasked load is an error instead of a warning + poison.
  bool strict = false;
  /// Report int32 overflow in pointer offsets (i32 add/sub/mul/shl that
  /// feed an addptr): a warning once per op, an error under `strict`. On by
  /// default (issue 21: it costs nothing measurable, bench/interp).
  bool checkOffsetOverflow = true;
  /// Where warnings go (formatted diagnostics). Default: stderr.
  std::function<void(const std::string &)> warn;
  /// Where device_print output goes. Default: stdout.
  std::function<void(const std::string &)> print;
  /// Polled between programs and at every loop back-edge: once it reads
  /// true the run stops with a located "interrupted" error naming the
  /// kernel and program (tilec sets it from SIGINT).
  const std::atomic<bool> *interrupt = nullptr;
  /// Polled at the same points: once it has passed the run stops with a
  /// located "timed out" error (tilec run --timeout, ContextOptions::timeoutSeconds).
  std::optional<Deadline> deadline;
};

/// Runs fn on every program of grid. args match fn.entry().args one to one.
/// Errors (out-of-bounds store, strict-mode load, failed device_assert,
/// integer division by zero) throw CompileError located at the op, with a
/// message naming the kernel, the program id and the offending offset:
///   "out-of-bounds store in kernel 'k' (program 3, 0, 0): element offset 70
///    is past the end of tensor#2 float32[64] (64 elements)".
/// views: per argument (may be shorter than args), a region that narrows
/// the registered one a pointer argument points into (bytes 0: none): an
/// embedder's tensor view, whose accesses are in bounds only inside its own
/// span, from its first element to its last.
void run(const ir::Function &fn, const Grid &grid, const std::vector<tile::ScalarArg> &args,
         const Options &opts = {}, std::span<const MemoryRegion> views = {});

} // namespace tile::interp
