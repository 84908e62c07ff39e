// PassManager.h - named function passes, the registry tile-opt and the
// driver look passes up in, and the runner with the verify / dump / timing
// hooks every pass gets for free.
#pragma once

#include "ir/IR.h"
#include "ir/Printer.h"

#include <chrono>
#include <functional>
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

/// "constant-fold", "canonicalize", "cse", "dce"; null for other names.
const Pass *lookupPass(std::string_view name);
/// Every registered pass, in registry order.
const std::vector<Pass> &allPasses();

class PassManager {
public:
  // ---- options
  bool verifyEach = true;               ///< verify input and after every pass
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

  /// Runs every pass on fn. Throws CompileError when the input or a pass's
  /// output fails verification (the message names the pass).
  /// Returns true when some pass changed fn.
  bool run(ir::Function &fn);
  bool run(ir::Module &m);

  /// "pass-name: 1.234 ms (n runs)" lines, in first-run order.
  std::string timingReport() const;

private:
  struct Group {
    std::vector<Pass> passes;
    int maxIterations = 1;
  };
  struct Timing {
    std::string name;
    double seconds = 0;
    int runs = 0;
  };
  std::vector<Group> groups_;
  std::vector<Timing> timings_;

  bool runPass(const Pass &pass, ir::Function &fn);
  void dump(const char *when, const std::string &pass, const ir::Function &fn);
  void record(const std::string &name, double seconds);
};

/// canonicalize, constant-fold, cse, dce, to a fixpoint (at most 8 rounds).
void addDefaultPipeline(PassManager &pm);

} // namespace tile::transforms
