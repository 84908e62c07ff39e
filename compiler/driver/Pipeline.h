// Pipeline.h - the compiler's named stages, in order:
//   parse -> sema (specialize + lower to tile IR) -> optimize (passes)
// with verification after every stage, IR dumps on request and an
// in-memory cache of compiled specializations. Stage dumps into a directory
// are in Dump.h; the GPU stages (layouts, LLVM IR, PTX) run in tilec.
#pragma once

#include "sema/Lower.h"
#include "transforms/PassManager.h"

#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>

namespace tile::driver {

struct PipelineOptions {
  bool optimize = true;
  bool verifyEach = true;
  bool printAfterAll = false;
  std::set<std::string> printAfter;   ///< pass or stage names ("sema", "cse", ...)
  std::set<std::string> printBefore;
  bool printLocations = true;
  /// Receives dumps (headed with the stage name); default stderr.
  std::function<void(std::string_view)> output;
  /// Part of the cache key: options that change the generated code.
  std::string key() const;
};

/// Stage "parse": reads and parses a file (or text) into a Program. With a
/// dump directory (Dump.h), loadProgram writes the "tokens" and "ast" stages.
std::shared_ptr<const sema::Program> loadProgram(const std::string &path);
std::shared_ptr<const sema::Program> loadProgramFromString(const std::string &path, const std::string &text);

/// Stages "sema" and "optimize" for one specialization. With a dump
/// directory (Dump.h) it writes the "ir" stage (sema's output), one
/// "after-PASS" file per pass run that changed the IR, and "ir-opt".
std::unique_ptr<ir::Function> compileKernel(const sema::Program &prog, const ast::FunctionDef &kernel,
                                            const sema::Specialization &spec, const PipelineOptions &opts);

/// Dumps one stage of a kernel's IR into dir (Dump.h) as NNN-KERNEL-STAGE.tir,
/// headed by a comment naming the kernel, its specialization and the stage;
/// the text reads back with tile-opt.
void dumpKernelIR(const std::string &dir, const ir::Function &fn, const std::string &stage,
                  const std::string &specKey, bool locations = true);

/// Compiled specializations, keyed by (program, kernel, specialization,
/// options). Thread safe; entries live as long as the cache. A hit while a
/// dump directory is set that this entry has not been dumped into yet
/// compiles the kernel again for its dumps, so the dumps exist however the
/// kernel was obtained.
class KernelCache {
public:
  std::shared_ptr<const ir::Function> get(const sema::Program &prog, const ast::FunctionDef &kernel,
                                          const sema::Specialization &spec, const PipelineOptions &opts);
  size_t size() const;
  size_t compilations() const { return compilations_; }

private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<const ir::Function>> entries_;
  std::set<std::string> dumped_; ///< "key|dir": entries whose stages are in dir
  size_t compilations_ = 0;
};

} // namespace tile::driver
