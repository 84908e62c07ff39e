// PassManager.cpp - the pass registry and the instrumented runner.
#include "transforms/PassManager.h"
#include "ir/Verifier.h"
#include "transforms/CSE.h"
#include "transforms/Canonicalize.h"
#include "transforms/CombineDotAdd.h"
#include "transforms/ConstantFold.h"
#include "transforms/DCE.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <unistd.h>

namespace tile::transforms {

namespace {

std::mutex gRegistryMu;

std::vector<PassInfo> &registry() {
  auto fixed = [](const char *name, const char *summary, bool (*run)(ir::Function &)) {
    return PassInfo{name, summary, [name, run](const PassTarget &) { return Pass{name, run}; }};
  };
  static std::vector<PassInfo> passes{
      fixed("canonicalize", "local rewrites to canonical forms", ir::canonicalize),
      fixed("combine-dot-add", "acc + dot(a, b, 0) -> dot(a, b, acc)", ir::combineDotAdd),
      fixed("constant-fold", "ops on constants become constants", ir::constantFold),
      fixed("cse", "common subexpression elimination", ir::cse),
      fixed("dce", "dead code elimination", ir::dce),
  };
  return passes;
}

/// The target-independent passes as plain Pass objects (lookupPass).
const std::vector<Pass> &fixedPasses() {
  static const std::vector<Pass> passes = [] {
    std::vector<Pass> out;
    for (const char *name : {"canonicalize", "combine-dot-add", "constant-fold", "cse", "dce"})
      out.push_back(*createPass(name));
    return out;
  }();
  return passes;
}

} // namespace

void registerPass(PassInfo info) {
  std::lock_guard lock(gRegistryMu);
  for (PassInfo &p : registry())
    if (p.name == info.name) {
      p = std::move(info);
      return;
    }
  registry().push_back(std::move(info));
}

std::vector<PassInfo> registeredPasses() {
  std::lock_guard lock(gRegistryMu);
  return registry();
}

std::optional<Pass> createPass(std::string_view name, const PassTarget &target) {
  std::function<Pass(const PassTarget &)> create;
  {
    std::lock_guard lock(gRegistryMu);
    for (const PassInfo &p : registry())
      if (p.name == name)
        create = p.create;
  }
  if (!create)
    return std::nullopt;
  return create(target);
}

std::string passNames(bool includeTests) {
  std::string out;
  for (const PassInfo &p : registeredPasses())
    if (includeTests || !p.test)
      out += (out.empty() ? "" : ", ") + p.name;
  return out;
}

const Pass *lookupPass(std::string_view name) {
  for (const Pass &p : fixedPasses())
    if (p.name == name)
      return &p;
  return nullptr;
}

void PassManager::add(const Pass &pass) { groups_.push_back({{pass}, 1}); }

bool PassManager::add(std::string_view name) {
  const Pass *p = lookupPass(name);
  if (!p)
    return false;
  add(*p);
  return true;
}

void PassManager::addFixpoint(std::vector<Pass> passes, int maxIterations) {
  groups_.push_back({std::move(passes), std::max(1, maxIterations)});
}

bool PassManager::run(ir::Module &m) {
  bool changed = false;
  for (auto &fn : m.functions)
    changed |= run(*fn);
  return changed;
}

bool PassManager::run(ir::Function &fn) {
  if (verifyEach && verifyInput)
    ir::verify(fn);
  bool changed = false;
  for (const Group &g : groups_) {
    for (int i = 0; i < g.maxIterations; ++i) {
      bool roundChanged = false;
      for (const Pass &p : g.passes)
        roundChanged |= runPass(p, fn);
      changed |= roundChanged;
      if (!roundChanged)
        break;
    }
  }
  return changed;
}

bool PassManager::runPass(const Pass &pass, ir::Function &fn) {
  if (printBefore.count(pass.name))
    dump("Before", pass.name, fn);
  auto start = std::chrono::steady_clock::now();
  bool changed = pass.run(fn);
  if (timing)
    record(pass.name, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  if (printAfterAll || printAfter.count(pass.name))
    dump("After", pass.name, fn);
  if (verifyEach) {
    auto verifyStart = std::chrono::steady_clock::now();
    verifyAfter(pass.name, fn);
    if (timing)
      record("verify", std::chrono::duration<double>(std::chrono::steady_clock::now() - verifyStart).count());
  }
  if (afterPass)
    afterPass(pass.name, fn, changed);
  return changed;
}

void PassManager::verifyAfter(const std::string &pass, const ir::Function &fn) {
  try {
    ir::verify(fn);
  } catch (const CompileError &e) {
    // A pass produced invalid IR: a compiler bug, not the user's. The IR
    // goes to a file for the report; the error names the pass and the op.
    std::string path = (std::filesystem::temp_directory_path() /
                        fmt::format("tile-invalid-ir-{}-{}-{}.tir", fn.name, pass, static_cast<long>(getpid())))
                           .string();
    std::ofstream out(path, std::ios::binary);
    out << ir::print(fn, printOptions) << "\n";
    std::string where = out ? fmt::format("the IR is in {}", path) : "the IR could not be written";
    throw CompileError(e.loc, fmt::format("internal compiler error: invalid IR after pass '{}': {} ({}; "
                                          "please report this bug)",
                                          pass, e.msg, where));
  }
}

void PassManager::dump(const char *when, const std::string &pass, const ir::Function &fn) {
  std::string text = irDumpHeader(when, pass) + ir::print(fn, printOptions);
  if (output)
    return output(text);
  std::fputs(text.c_str(), stderr);
}

void PassManager::record(const std::string &name, double seconds) {
  for (Timing &t : timings_)
    if (t.name == name) {
      t.seconds += seconds;
      ++t.runs;
      return;
    }
  timings_.push_back({name, seconds, 1});
}

std::string PassManager::timingReport() const {
  std::string out;
  for (const Timing &t : timings_)
    out += fmt::format("{}: {:.3f} ms ({} runs)\n", t.name, t.seconds * 1e3, t.runs);
  return out;
}

std::string irDumpHeader(const char *when, std::string_view stage) {
  return fmt::format("// -----// IR Dump {} {} //----- //\n", when, stage);
}

void addDefaultPipeline(PassManager &pm) {
  std::vector<Pass> passes;
  for (const char *name : {"canonicalize", "combine-dot-add", "constant-fold", "cse", "dce"})
    passes.push_back(*lookupPass(name));
  pm.addFixpoint(std::move(passes), 8);
}

} // namespace tile::transforms
