// Tuning.h - a kernel's @triton.autotune and @triton.heuristics decorators,
// evaluated as host code: the configs (triton.Config), the key names,
// reset_to_zero / restore_value, warmup / rep, and the heuristics' lambdas,
// which stay callable. The API (api/Autotune.cpp) runs the tuning; this
// part only reads and checks the decorators and calls the lambdas.
#pragma once

#include "frontend/AST.h"
#include "sema/ConstValue.h"
#include "sema/Lower.h"
#include "support/DType.h"

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace tile::host {

/// One triton.Config: constexpr values, num_warps, num_stages.
struct TuneConfig {
  std::vector<std::pair<std::string, sema::ConstValue>> kwargs;
  int numWarps = 4;
  int numStages = 3;
  Location loc; ///< the Config(...) call when the list is written out, else the configs= argument
  /// "BLOCK_M=128, BLOCK_N=64, num_warps=4, num_stages=3" (also the disk cache's text).
  std::string describe() const;
};

/// @triton.autotune(configs=..., key=..., reset_to_zero=..., restore_value=..., warmup=, rep=)
struct AutotuneSpec {
  std::vector<TuneConfig> configs;
  std::vector<std::string> key;
  std::vector<std::string> resetToZero, restoreValue;
  double warmupMs = 25, repMs = 100;
  Location loc;
};

/// A launch argument as a heuristic's `args` dict sees it: a value, or a
/// tensor (which the lambda sees with its dtype and no elements).
struct TuningArg {
  std::string name;
  sema::ConstValue value;
  bool isTensor = false;
  Scalar dtype = Scalar::F32;
};

/// The decorators above @triton.jit, outermost first (Triton applies the
/// outermost first at a launch: an @autotune above @heuristics gives the
/// heuristics the chosen config's values).
class KernelTuning {
public:
  struct Stage {
    bool isAutotune = false;
    AutotuneSpec autotune;
    /// @triton.heuristics(values={name: lambda args: ...}): names in order.
    std::vector<std::string> heuristicNames;
    std::vector<Location> heuristicLocs;
  };

  /// Reads and checks the decorators of `kernel` (CompileErrors located in
  /// them); null when it has neither @triton.autotune nor @triton.heuristics.
  static std::shared_ptr<const KernelTuning> of(const sema::Program &prog, const ast::FunctionDef &kernel);
  ~KernelTuning();

  const ast::FunctionDef &kernel() const { return *kernel_; }
  const std::vector<Stage> &stages() const { return stages_; }
  /// Calls heuristic h of stage s with the launch's arguments by name;
  /// errors are CompileErrors located in the lambda. Thread-safe.
  sema::ConstValue heuristic(size_t s, size_t h, const std::vector<TuningArg> &args) const;

  struct Impl;

private:
  KernelTuning() = default;
  const ast::FunctionDef *kernel_ = nullptr;
  std::vector<Stage> stages_;
  std::unique_ptr<Impl> impl_;
  mutable std::mutex mu_;
};

/// Whether a kernel has @triton.autotune or @triton.heuristics (a syntactic
/// check: the launch then needs the tuned values before binding).
bool hasTuningDecorators(const ast::FunctionDef &kernel);

} // namespace tile::host
