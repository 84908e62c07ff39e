// Autotune.h - launches of kernels with @triton.autotune and
// @triton.heuristics (Triton's Autotuner and Heuristics): the heuristics'
// values at every launch, the choice of a config per tuning key (every
// config run and timed on its first launch: CUDA events on the GPU, the
// wall clock on the interpreter), the choices cached in memory and, on the
// GPU, in the disk cache. The decorators themselves are read by
// host/Tuning.h. Kernels without them never come here.
#pragma once

#include "Internal.h"

#include "host/Tuning.h"

#include <mutex>
#include <unordered_map>

namespace tile::detail {

struct TuneState {
  std::shared_ptr<const host::KernelTuning> spec;
  std::mutex mu;                              ///< guards best
  std::unordered_map<std::string, size_t> best; ///< tuning key -> config index; never erased
  std::mutex tuneMu;                          ///< one tuning run of this kernel at a time
};

/// The kernel's tuning state, or null when it has neither decorator;
/// decorator errors are CompileErrors located in them.
std::unique_ptr<TuneState> makeTuneState(const sema::Program &prog, const ast::FunctionDef &kernel);

/// Kernel::launch and Kernel::compile of a kernel with a TuneState.
void launchTuned(ProgramImpl &p, KernelState &st, const LaunchGrid &grid, const std::vector<Arg> &args,
                 const NamedArgs &constexprs, const LaunchOptions &options);
CompiledInfo compileTuned(ProgramImpl &p, KernelState &st, const std::vector<Arg> &args, const NamedArgs &constexprs,
                          const LaunchOptions &options);

} // namespace tile::detail
