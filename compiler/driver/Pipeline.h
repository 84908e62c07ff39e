// Pipeline.h - the compiler's named stages, in order:
//   parse -> sema (specialize + lower to tile IR) -> optimize (passes)
// with verification after every stage, IR dumps on request and an
// in-memory cache of compiled specializations. The GPU stages (layouts,
// LLVM IR, PTX) append here in the next milestone.
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

/// Stage "parse": reads and parses a file (or text) into a Program.
std::shared_ptr<const sema::Program> loadProgram(const std::string &path);
std::shared_ptr<const sema::Program> loadProgramFromString(const std::string &path, const std::string &text);

/// Stages "sema" and "optimize" for one specialization.
std::unique_ptr<ir::Function> compileKernel(const sema::Program &prog, const ast::FunctionDef &kernel,
                                            const sema::Specialization &spec, const PipelineOptions &opts);

/// Compiled specializations, keyed by (program, kernel, specialization,
/// options). Thread safe; entries live as long as the cache.
class KernelCache {
public:
  std::shared_ptr<const ir::Function> get(const sema::Program &prog, const ast::FunctionDef &kernel,
                                          const sema::Specialization &spec, const PipelineOptions &opts);
  size_t size() const;
  size_t compilations() const { return compilations_; }

private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<const ir::Function>> entries_;
  size_t compilations_ = 0;
};

} // namespace tile::driver
