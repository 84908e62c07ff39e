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

namespace tile::transforms {

const std::vector<Pass> &allPasses() {
  static const std::vector<Pass> passes{
      {"canonicalize", ir::canonicalize},
      {"combine-dot-add", ir::combineDotAdd},
      {"constant-fold", ir::constantFold},
      {"cse", ir::cse},
      {"dce", ir::dce},
  };
  return passes;
}

const Pass *lookupPass(std::string_view name) {
  for (const Pass &p : allPasses())
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
  if (verifyEach)
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
    try {
      ir::verify(fn);
    } catch (const CompileError &e) {
      throw CompileError(e.loc, fmt::format("{} (after pass '{}')", e.msg, pass.name));
    }
  }
  if (afterPass)
    afterPass(pass.name, fn, changed);
  return changed;
}

void PassManager::dump(const char *when, const std::string &pass, const ir::Function &fn) {
  std::string text = fmt::format("// -----// IR Dump {} {} //----- //\n{}", when, pass, ir::print(fn, printOptions));
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

void addDefaultPipeline(PassManager &pm) {
  std::vector<Pass> passes;
  for (const char *name : {"canonicalize", "combine-dot-add", "constant-fold", "cse", "dce"})
    passes.push_back(*lookupPass(name));
  pm.addFixpoint(std::move(passes), 8);
}

} // namespace tile::transforms
