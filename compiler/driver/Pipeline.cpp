// Pipeline.cpp - the stages in order (Pipeline.h lists them), their dumps,
// timing, the disk-cache sequence and the specialization cache.
#include "driver/Pipeline.h"

#include "driver/DiskCache.h"
#include "driver/Dump.h"

#include "frontend/Lexer.h"
#include "frontend/Parser.h"
#include "gpu/Passes.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <utility>

namespace tile::driver {

// ---------------------------------------------------------------- timing

namespace {

std::atomic<int> gTimeStages{-1}; ///< -1: not read from the environment yet
thread_local std::vector<StageTime> tStageTimes;

void recordStage(std::string name, double seconds) {
  tStageTimes.push_back({std::move(name), seconds * 1e3});
}

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Runs f as the stage `name`, timed when timing is on.
template <typename F> auto timed(const char *name, F &&f) {
  if (!timeStagesEnabled()) return f();
  auto t0 = std::chrono::steady_clock::now();
  struct Record {
    const char *name;
    std::chrono::steady_clock::time_point t0;
    ~Record() { recordStage(name, secondsSince(t0)); }
  } record{name, t0};
  return f();
}

} // namespace

bool timeStagesEnabled() {
  int v = gTimeStages.load(std::memory_order_relaxed);
  if (v < 0) {
    const char *env = std::getenv("TILE_TIME_STAGES");
    v = env && *env && std::strcmp(env, "0") != 0;
    gTimeStages.store(v);
  }
  return v != 0;
}

void setTimeStages(bool on) { gTimeStages.store(on); }

std::vector<StageTime> takeStageTimes() { return std::exchange(tStageTimes, {}); }

std::string formatStageTimes(const std::vector<StageTime> &times) {
  std::string out;
  double total = 0;
  for (const StageTime &t : times) {
    out += fmt::format("time: {:<28} {:9.3f} ms\n", t.name, t.ms);
    total += t.ms;
  }
  return out + fmt::format("time: {:<28} {:9.3f} ms\n", "total (stages above)", total);
}

// ---------------------------------------------------------------- stages

std::string PipelineOptions::key() const { return optimize ? "O1" : "O0"; }

namespace {

/// Parses registered file id (and the .tile files it imports, with
/// fileImports); with a dump directory, writes the "tokens" and "ast"
/// stages first.
std::shared_ptr<const sema::Program> parseWithDumps(int id, const std::string &path, const std::string &dumpTo,
                                                    bool fileImports = true) {
  auto parse = [&] {
    auto module = frontend::parseFile(id);
    if (fileImports)
      frontend::spliceImports(*module);
    return module;
  };
  std::string dir = dumpTo.empty() ? dumpDir() : dumpTo;
  if (!dir.empty()) {
    std::string unit = std::filesystem::path(path).stem().string();
    writeDump(dir, unit, "tokens", "txt", frontend::dumpTokens(frontend::lex(id)));
    auto module = parse();
    writeDump(dir, unit, "ast", "txt", frontend::dumpAST(*module));
    return std::make_shared<const sema::Program>(module);
  }
  return timed("parse", [&] { return std::make_shared<const sema::Program>(parse()); });
}

} // namespace

std::shared_ptr<const sema::Program> loadProgram(const std::string &path, const std::string &dumpTo) {
  return parseWithDumps(SourceManager::global().loadFile(path), path, dumpTo);
}

std::shared_ptr<const sema::Program> loadProgramFromString(const std::string &path, const std::string &text,
                                                           const std::string &dumpTo, bool fileImports) {
  return parseWithDumps(SourceManager::global().addFile(path, text), path, dumpTo, fileImports);
}

std::string dumpDirOf(const PipelineOptions &opts) { return opts.dumpDir.empty() ? dumpDir() : opts.dumpDir; }

namespace {

void emitDump(const PipelineOptions &opts, const char *when, const std::string &stage, const ir::Function &fn) {
  ir::PrintOptions po;
  po.locations = opts.printLocations;
  std::string text = transforms::irDumpHeader(when, stage) + ir::print(fn, po) + "\n";
  if (opts.output) opts.output(text);
  else std::fputs(text.c_str(), stderr);
}

/// A pass manager with the driver's hooks: printing, verification, timing
/// and, with a dump directory, a file after each pass (every run with
/// dumpUnchanged, else only runs that changed the IR).
transforms::PassManager makePassManager(const PipelineOptions &opts, const std::string &dir,
                                        const std::string &specKey, bool dumpUnchanged) {
  transforms::PassManager pm;
  if (!dir.empty())
    pm.afterPass = [dir, specKey, dumpUnchanged, loc = opts.printLocations](const std::string &pass,
                                                                            const ir::Function &f, bool changed) {
      if (changed || dumpUnchanged) dumpKernelIR(dir, f, "after-" + pass, specKey, loc);
    };
  pm.verifyEach = opts.verifyEach;
  pm.printAfterAll = opts.printAfterAll;
  pm.printAfter = opts.printAfter;
  pm.printBefore = opts.printBefore;
  pm.printOptions.locations = opts.printLocations;
  pm.timing = timeStagesEnabled();
  if (opts.output) pm.output = opts.output;
  return pm;
}

void recordPassTimes(const transforms::PassManager &pm) {
  for (const transforms::PassManager::Timing &t : pm.timings())
    recordStage(t.runs == 1 ? t.name : fmt::format("{} ({} runs)", t.name, t.runs), t.seconds);
}

} // namespace

std::vector<std::string> irStageNames() {
  gpu::registerPasses();
  std::vector<std::string> names{"sema"};
  for (const transforms::PassInfo &p : transforms::registeredPasses())
    if (!p.test) names.push_back(p.name);
  return names;
}

std::string unknownStageName(const std::set<std::string> &names) {
  std::vector<std::string> known = irStageNames();
  for (const std::string &n : names)
    if (std::find(known.begin(), known.end(), n) == known.end()) return n;
  return "";
}

void dumpKernelIR(const std::string &dir, const ir::Function &fn, const std::string &stage,
                  const std::string &specKey, bool locations) {
  ir::PrintOptions po;
  po.locations = locations;
  writeDump(dir, fn.name, stage, "tir",
            fmt::format("// kernel {} [{}], stage {}\n{}\n", fn.name, specKey, stage, ir::print(fn, po)));
}

std::unique_ptr<ir::Function> compileKernel(const sema::Program &prog, const ast::FunctionDef &kernel,
                                            const sema::Specialization &spec, const PipelineOptions &opts) {
  std::unique_ptr<ir::Function> fn = timed("sema", [&] { return sema::lowerKernel(prog, kernel, spec); });
  if (opts.verifyEach) timed("verify sema", [&] { ir::verify(*fn); });
  if (opts.printAfterAll || opts.printAfter.count("sema")) emitDump(opts, "After", "sema", *fn);
  std::string dir = dumpDirOf(opts);
  std::string specKey = dir.empty() ? "" : spec.key();
  if (!dir.empty()) dumpKernelIR(dir, *fn, "ir", specKey, opts.printLocations);
  if (!opts.optimize) return fn;
  transforms::PassManager pm = makePassManager(opts, dir, specKey, false);
  pm.verifyInput = false; // verified after sema
  transforms::addDefaultPipeline(pm);
  pm.run(*fn);
  recordPassTimes(pm);
  if (!dir.empty()) dumpKernelIR(dir, *fn, "ir-opt", specKey, opts.printLocations);
  return fn;
}

GpuKernel compileGpu(ir::Function &fn, const backend::TargetOptions &target, const PipelineOptions &opts,
                     const backend::CodeGenerator &codegen, const std::string &specKey, GpuStage stop) {
  gpu::registerPasses();
  std::string dir = dumpDirOf(opts);
  transforms::PassManager pm = makePassManager(opts, dir, specKey, true);
  pm.verifyInput = false; // the tile-IR passes verified their output
  transforms::PassTarget pt{target.arch, target.numWarps, target.numStages};
  for (const char *name : {"tile-fp8-dots", "tile-permute-loads", "tile-pipeline", "tile-layouts"})
    pm.add(*transforms::createPass(name, pt));
  pm.run(fn);
  recordPassTimes(pm);

  GpuKernel out;
  out.name = fn.name;
  out.numWarps = target.numWarps;
  std::unique_ptr<backend::LoweredKernel> k = timed("llvm", [&] { return codegen.lower(fn, target); });
  out.sharedBytes = k->sharedBytes();
  if (!dir.empty() || stop == GpuStage::LLVM) {
    std::string text = k->llvmText();
    if (!dir.empty()) writeDump(dir, fn.name, "llvm-noopt", "ll", text);
    if (stop == GpuStage::LLVM) {
      out.text = std::move(text);
      return out;
    }
  }
  timed("llvm-opt", [&] { k->optimize(); });
  if (!dir.empty() || stop == GpuStage::LLVMOpt) {
    std::string text = k->llvmText();
    if (!dir.empty()) writeDump(dir, fn.name, "llvm-opt", "ll", text);
    if (stop == GpuStage::LLVMOpt) {
      out.text = std::move(text);
      return out;
    }
  }
  out.text = timed("ptx", [&] { return k->emitPTX(); });
  if (!dir.empty()) writeDump(dir, fn.name, "ptx", "ptx", out.text);
  return out;
}

GpuKernel compileToPtx(const sema::Program &prog, const ast::FunctionDef &kernel, const sema::Specialization &spec,
                       const PipelineOptions &opts, const backend::TargetOptions &target,
                       const backend::CodeGenerator &codegen, const std::function<void(const GpuKernel &)> &accept) {
  std::string specKey = spec.key();
  const DiskCache *disk = opts.cacheDir.empty() ? processDiskCache() : diskCacheAt(opts.cacheDir);
  bool dumping = !dumpDirOf(opts).empty() || opts.printAfterAll || !opts.printAfter.empty() || !opts.printBefore.empty();
  CacheKey key;
  if (disk)
    key = kernelCacheKey(prog, kernel, spec, opts, target.numWarps, target.numStages, target.arch,
                         codegen.identity() + (target.fpFusion ? "" : " no-fp-fusion"));
  std::unique_ptr<ir::Function> fn = compileKernel(prog, kernel, spec, opts);
  if (disk && !dumping)
    if (std::optional<CachedKernel> hit = timed("disk-cache", [&] { return disk->load(key); })) {
      GpuKernel out{hit->name, std::move(hit->ptx), hit->sharedBytes, hit->numWarps, true};
      if (accept) accept(out);
      return out;
    }
  GpuKernel out = compileGpu(*fn, target, opts, codegen, specKey);
  if (accept) accept(out);
  if (disk) disk->store(key, CachedKernel{out.name, out.text, out.sharedBytes, out.numWarps, key.describe()});
  return out;
}

std::shared_ptr<const ir::Function> KernelCache::get(const sema::Program &prog, const ast::FunctionDef &kernel,
                                                     const sema::Specialization &spec, const PipelineOptions &opts) {
  std::string key = fmt::format("{}|{}|{}|{}", static_cast<const void *>(&prog), kernel.name, spec.key(), opts.key());
  std::string dir = dumpDirOf(opts);
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
