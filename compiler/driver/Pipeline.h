// Pipeline.h - the compiler's stages, in order, in one place:
//
//   parse         loadProgram                  .tile text -> sema::Program
//   sema          compileKernel                one specialization -> tile IR
//   canonicalize, combine-dot-add, constant-fold, cse, dce
//                 compileKernel                the tile-IR passes, to a fixpoint
//   tile-fp8-dots compileGpu                   an fp8 dot that does not run as wgmma reads f16 operands
//   tile-permute-loads compileGpu              a wgmma dot's permuted load loads permuted pointers
//   tile-pipeline compileGpu                   loads issued num_stages - 1 ahead
//   tile-layouts  compileGpu                   a distributed layout on every tensor
//   llvm          compileGpu                   the emitter's LLVM IR (backend::CodeGenerator)
//   llvm-opt      compileGpu                   LLVM's pass pipeline
//   ptx           compileGpu                   NVPTX code generation
//   (cubin)       tilec compile --emit cubin   ptxas over the PTX with its metadata
//
// Every pass (the GPU ones included) runs in a transforms::PassManager built
// from the pass registry, so verification after each, --print-ir-after/
// --print-ir-before, the dump directory (Dump.h) and per-stage timing hook
// in here once. compileToPtx is the one compile-with-disk-cache sequence
// (tilec compile and the API). KernelCache is the in-memory cache of
// tile-IR compiles (the interpreter's).
#pragma once

#include "backend/Codegen.h"
#include "sema/Lower.h"
#include "transforms/PassManager.h"

#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tile::driver {

struct PipelineOptions {
  bool optimize = true;
  bool verifyEach = true;
  bool printAfterAll = false;
  std::set<std::string> printAfter;   ///< pass or stage names ("sema", "cse", ...)
  std::set<std::string> printBefore;
  bool printLocations = true;
  /// Record each stage's and pass's wall time (tilec --time-stages; also on
  /// with TILE_TIME_STAGES=1): see takeStageTimes.
  bool timeStages = false;
  /// Receives dumps (headed with the stage name); default stderr.
  std::function<void(std::string_view)> output;
  /// Where every stage is written (Dump.h); empty: TILE_DUMP_DIR's (or
  /// setDumpDir's) directory, if any.
  std::string dumpDir;
  /// The disk cache's directory; empty: the process's (TILE_CACHE_DIR, ...).
  std::string cacheDir;
  /// Part of the cache key: options that change the generated code.
  std::string key() const;
};

/// Stage "parse": reads and parses a file (or text) into a Program. With a
/// dump directory (Dump.h), loadProgram writes the "tokens" and "ast" stages.
/// dumpTo: the dump directory (empty: dumpDir()'s). `from NAME import ...`
/// of a .tile file splices that file in (frontend::spliceImports), relative
/// to path's folder, unless fileImports is off (the fuzzers, which must not
/// read files).
std::shared_ptr<const sema::Program> loadProgram(const std::string &path, const std::string &dumpTo = {});
std::shared_ptr<const sema::Program> loadProgramFromString(const std::string &path, const std::string &text,
                                                           const std::string &dumpTo = {}, bool fileImports = true);
/// The dump directory for opts: its own, else dumpDir()'s.
std::string dumpDirOf(const PipelineOptions &opts);

/// Stages "sema" and "optimize" for one specialization. With a dump
/// directory (Dump.h) it writes the "ir" stage (sema's output), one
/// "after-PASS" file per pass run that changed the IR, and "ir-opt".
std::unique_ptr<ir::Function> compileKernel(const sema::Program &prog, const ast::FunctionDef &kernel,
                                            const sema::Specialization &spec, const PipelineOptions &opts);

/// The names --print-ir-after / --print-ir-before accept: "sema" and every
/// registered pass that is a stage (tile-pipeline and tile-layouts included).
std::vector<std::string> irStageNames();
/// The first of names that irStageNames lacks, or "" when all are known.
std::string unknownStageName(const std::set<std::string> &names);

/// Where compileGpu stops.
enum class GpuStage { LLVM, LLVMOpt, PTX };

/// The result of the GPU stages: the text of the last stage run (LLVM IR
/// or PTX) and what a launch needs.
struct GpuKernel {
  std::string name;        ///< the kernel's symbol in the PTX
  std::string text;        ///< LLVM IR (stop at LLVM, LLVMOpt) or PTX
  int sharedBytes = 0;     ///< dynamic shared memory each launch passes
  int numWarps = 4;
  bool cacheHit = false;   ///< compileToPtx: from the disk cache
};

/// Stages tile-fp8-dots, tile-permute-loads, tile-pipeline, tile-layouts (in a PassManager: verified, printed
/// and dumped like every pass) and the back end's llvm, llvm-opt, ptx
/// (each dumped into the dump directory, each timed) on an optimized
/// kernel, up to `stop`. fn is modified (it ends laid out).
GpuKernel compileGpu(ir::Function &fn, const backend::TargetOptions &target, const PipelineOptions &opts,
                     const backend::CodeGenerator &codegen, const std::string &specKey,
                     GpuStage stop = GpuStage::PTX);

/// One specialization from source to PTX with the disk cache (DiskCache.h):
/// the one copy of that sequence, for tilec compile and the API. The
/// tile-IR stages always run (cheap, and their warnings show); the disk
/// cache is read unless dumps or IR printing are asked for, else
/// compileGpu runs and its PTX is stored, after `accept` returned (the API
/// loads the module there: a module the driver rejects is never cached).
GpuKernel compileToPtx(const sema::Program &prog, const ast::FunctionDef &kernel, const sema::Specialization &spec,
                       const PipelineOptions &opts, const backend::TargetOptions &target,
                       const backend::CodeGenerator &codegen,
                       const std::function<void(const GpuKernel &)> &accept = {});

/// Stage timing: on when setTimeStages(true) was called or TILE_TIME_STAGES
/// is set to a value other than "0" (read once).
bool timeStagesEnabled();
void setTimeStages(bool on);
struct StageTime {
  std::string name;   ///< stage or pass ("cse (3 runs)")
  double ms = 0;
};
/// The stage times recorded on this thread since the last call, in order.
std::vector<StageTime> takeStageTimes();
/// "time: NAME  1.234 ms" lines and a total.
std::string formatStageTimes(const std::vector<StageTime> &times);

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
