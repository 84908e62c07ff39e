// Pipeline.cpp - stage sequencing, dumps and the specialization cache.
#include "driver/Pipeline.h"

#include "driver/Dump.h"

#include "frontend/Lexer.h"
#include "frontend/Parser.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>

namespace tile::driver {

std::string PipelineOptions::key() const { return optimize ? "O1" : "O0"; }

std::shared_ptr<const sema::Program> loadProgram(const std::string &path) {
  int id = SourceManager::global().loadFile(path);
  std::string dir = dumpDir();
  if (!dir.empty()) {
    std::string unit = std::filesystem::path(path).stem().string();
    writeDump(dir, unit, "tokens", "txt", frontend::dumpTokens(frontend::lex(id)));
    auto module = frontend::parseFile(id);
    writeDump(dir, unit, "ast", "txt", frontend::dumpAST(*module));
    return std::make_shared<const sema::Program>(module);
  }
  return std::make_shared<const sema::Program>(frontend::parseFile(id));
}

std::shared_ptr<const sema::Program> loadProgramFromString(const std::string &path, const std::string &text) {
  return std::make_shared<const sema::Program>(frontend::parseString(path, text));
}

namespace {
void emitDump(const PipelineOptions &opts, const char *when, const std::string &stage, const ir::Function &fn) {
  ir::PrintOptions po;
  po.locations = opts.printLocations;
  std::string text = fmt::format("// -----// IR Dump {} {} //----- //\n{}\n", when, stage, ir::print(fn, po));
  if (opts.output) opts.output(text);
  else std::fputs(text.c_str(), stderr);
}
} // namespace

void dumpKernelIR(const std::string &dir, const ir::Function &fn, const std::string &stage,
                  const std::string &specKey, bool locations) {
  ir::PrintOptions po;
  po.locations = locations;
  writeDump(dir, fn.name, stage, "tir",
            fmt::format("// kernel {} [{}], stage {}\n{}\n", fn.name, specKey, stage, ir::print(fn, po)));
}

std::unique_ptr<ir::Function> compileKernel(const sema::Program &prog, const ast::FunctionDef &kernel,
                                            const sema::Specialization &spec, const PipelineOptions &opts) {
  std::unique_ptr<ir::Function> fn = sema::lowerKernel(prog, kernel, spec);
  if (opts.verifyEach) ir::verify(*fn);
  if (opts.printAfterAll || opts.printAfter.count("sema")) emitDump(opts, "After", "sema", *fn);
  std::string dir = dumpDir();
  std::string specKey = dir.empty() ? "" : spec.key();
  if (!dir.empty()) dumpKernelIR(dir, *fn, "ir", specKey, opts.printLocations);
  if (!opts.optimize) return fn;
  transforms::PassManager pm;
  if (!dir.empty())
    pm.afterPass = [&](const std::string &pass, const ir::Function &f, bool changed) {
      if (changed) dumpKernelIR(dir, f, "after-" + pass, specKey, opts.printLocations);
    };
  pm.verifyEach = opts.verifyEach;
  pm.printAfterAll = opts.printAfterAll;
  pm.printAfter = opts.printAfter;
  pm.printBefore = opts.printBefore;
  pm.printOptions.locations = opts.printLocations;
  if (opts.output) pm.output = opts.output;
  transforms::addDefaultPipeline(pm);
  pm.run(*fn);
  if (!dir.empty()) dumpKernelIR(dir, *fn, "ir-opt", specKey, opts.printLocations);
  return fn;
}

std::shared_ptr<const ir::Function> KernelCache::get(const sema::Program &prog, const ast::FunctionDef &kernel,
                                                     const sema::Specialization &spec, const PipelineOptions &opts) {
  std::string key = fmt::format("{}|{}|{}|{}", static_cast<const void *>(&prog), kernel.name, spec.key(), opts.key());
  std::string dir = dumpDir();
  std::shared_ptr<const ir::Function> hit;
  {
    std::lock_guard lock(mu_);
    if (auto it = entries_.find(key); it != entries_.end()) {
      if (dir.empty() || !dumped_.insert(key + "|" + dir).second) return it->second;
      hit = it->second;
    }
  }
  if (hit) {
    compileKernel(prog, kernel, spec, opts); // for its dumps only
    return hit;
  }
  // Compile outside the lock: another thread may compile the same entry;
  // the first to finish wins and both results are identical.
  std::shared_ptr<const ir::Function> fn = compileKernel(prog, kernel, spec, opts);
  std::lock_guard lock(mu_);
  ++compilations_;
  if (!dir.empty()) dumped_.insert(key + "|" + dir);
  return entries_.emplace(key, std::move(fn)).first->second;
}

size_t KernelCache::size() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

} // namespace tile::driver
