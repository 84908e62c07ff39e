// PassManager.h - named function passes, the registry tile-opt and the
// driver look passes up in, and the runner with the verify / dump / timing
// hooks every pass gets for free.
#pragma once

#include "ir/IR.h"
#include "ir/Printer.h"

#include <chrono>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace tile::transforms {

/// A function pass; run returns true when it changed the function.
struct Pass {
  std::string name;
  std::function<bool(ir::Function &)> run;
};

/// What target-dependent passes are built for: the launch's options in the
/// driver, --arch / --num-warps / --num-stages in tile-opt. arch "" means no
/// particular GPU (no wgmma; tile-pipeline then uses distance 1 everywhere).
struct PassTarget {
  std::string arch;
  int numWarps = 4;
  int numStages = 3;
};

/// A pass as the registry knows it: its name, a one-line summary (tile-opt
/// --help) and how to build it for a target. Test passes (tile-opt only,
/// e.g. test-print-axis-info) are not stages of the pipeline.
struct PassInfo {
  std::string name;
  std::string summary;
  std::function<Pass(const PassTarget &)> create;
  bool test = false;
};

/// Adds a pass to the registry (the GPU passes: gpu::registerPasses). Thread safe.
void registerPass(PassInfo info);
/// Every registered pass, in registration order: canonicalize, combine-dot-add,
/// constant-fold, cse, dce, then what gpu::registerPasses adds (tile-pipeline,
/// tile-layouts, test-print-axis-info). A copy, so it may be read while
/// another thread registers.
std::vector<PassInfo> registeredPasses();
/// The named pass built for target; nullopt for an unknown name.
std::optional<Pass> createPass(std::string_view name, const PassTarget &target = {});
/// "canonicalize, combine-dot-add, ...": the registered names (test passes
/// only with includeTests), for error messages.
std::string passNames(bool includeTests = false);
/// A target-independent registered pass ("cse", ...); null for other names.
const Pass *lookupPass(std::string_view name);

class PassManager {
public:
  // ---- options
  bool verifyEach = true;               ///< verify input and after every pass
  bool verifyInput = true;              ///< with verifyEach: also the input (off when it was just verified)
  bool printAfterAll = false;
  std::set<std::string> printAfter;     ///< pass names
  std::set<std::string> printBefore;    ///< pass names
  bool timing = false;                  ///< collect per-pass wall time
  ir::PrintOptions printOptions;
  /// Receives IR dumps; defaults to stderr.
  std::function<void(std::string_view)> output;
  /// Called after every pass run (after verification) with whether it
  /// changed fn: the driver's --dump-dir / TILE_DUMP_DIR files.
  std::function<void(const std::string &pass, const ir::Function &fn, bool changed)> afterPass;

  /// Runs `pass` once.
  void add(const Pass &pass);
  /// Looks the name up; returns false when no such pass exists.
  bool add(std::string_view name);
  /// Runs `passes` in order, repeatedly, until none changes the function or
  /// `maxIterations` rounds have run.
  void addFixpoint(std::vector<Pass> passes, int maxIterations);

  /// Runs every pass on fn. Throws CompileError when the input fails
  /// verification, and one that says "internal compiler error", names the
  /// pass and the op and points to the IR (written to a file in the temp
  /// directory) when a pass's output does.
  /// Returns true when some pass changed fn.
  bool run(ir::Function &fn);
  bool run(ir::Module &m);

  /// "pass-name: 1.234 ms (n runs)" lines, in first-run order.
  std::string timingReport() const;

  /// Per-pass wall time (with `timing`), in first-run order.
  struct Timing {
    std::string name;
    double seconds = 0;
    int runs = 0;
  };
  const std::vector<Timing> &timings() const { return timings_; }

private:
  struct Group {
    std::vector<Pass> passes;
    int maxIterations = 1;
  };
  std::vector<Group> groups_;
  std::vector<Timing> timings_;

  bool runPass(const Pass &pass, ir::Function &fn);
  void verifyAfter(const std::string &pass, const ir::Function &fn);
  void dump(const char *when, const std::string &pass, const ir::Function &fn);
  void record(const std::string &name, double seconds);
};

/// The one header of every IR dump: "// -----// IR Dump After NAME //----- //\n"
/// (when: "After" or "Before"; MLIR's form).
std::string irDumpHeader(const char *when, std::string_view stage);

/// canonicalize, combine-dot-add, constant-fold, cse, dce, to a fixpoint (at most 8 rounds).
void addDefaultPipeline(PassManager &pm);

} // namespace tile::transforms
