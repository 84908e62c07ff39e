// tilec - the command line: run host programs, compile kernels and show
// every stage of the pipeline.
//
//   tilec run FILE [--interpret] [-D NAME=VALUE]... [--dump-dir DIR]
//   tilec bench FILE [--reps N] [-D NAME=VALUE]...
//   tilec compile FILE --kernel NAME --signature '*fp32:16,i32' [-D N=V]
//         --emit tokens|ast|ir|ir-opt|llvm-noopt|llvm-opt|llvm|ptx|cubin [--arch sm_90a] [--num-warps 4]
//         [--print-ir-after=STAGE,...] [--time-stages]
//   tilec check FILE
//   tilec cache list|clear|size [--dir DIR]
//   tilec help [COMMAND]
//   tilec --version
//
// Exit status: 0 success, 1 user error (with a diagnostic), 2 usage error.
#include "backend/Codegen.h"
#include "backend/LLVMInfo.h"
#include "Bench.h"
#include "ApiLauncher.h"
#include "AotWrite.h"
#include "cuda/Cuda.h"
#include "driver/Check.h"
#include "driver/DiskCache.h"
#include "driver/Dump.h"
#include "driver/Pipeline.h"
#include "frontend/Lexer.h"
#include "frontend/Parser.h"
#include "host/HostEval.h"
#include "interp/Interpreter.h"
#include "ir/Printer.h"

#include <CLI/CLI.hpp>
#include <fmt/chrono.h>
#include <fmt/format.h>

#include <chrono>
#include <csignal>
#include <optional>
#include <filesystem>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <unistd.h>

using namespace tile;

namespace {

/// Colour on a terminal only. NO_COLOR (any non-empty value, no-color.org)
/// turns it off; CLICOLOR_FORCE (non-empty, not "0") turns it on elsewhere.
bool useColor() {
  const char *no = std::getenv("NO_COLOR");
  if (no && *no) return false;
  const char *force = std::getenv("CLICOLOR_FORCE");
  if (force && *force && std::strcmp(force, "0") != 0) return true;
  return isatty(fileno(stderr));
}

void printError(const CompileError &e) { std::fputs(e.formatted(useColor()).c_str(), stderr); }

/// Parses "-D NAME=VALUE": ints, floats, True/False/None, dtype names, strings.
sema::ConstValue parseDefineValue(const std::string &v) {
  if (v == "True") return true;
  if (v == "False") return false;
  if (v == "None") return sema::ConstValue();
  try {
    size_t used = 0;
    long long i = std::stoll(v, &used, 0);
    if (used == v.size()) return static_cast<int64_t>(i);
  } catch (...) {
  }
  try {
    size_t used = 0;
    double d = std::stod(v, &used);
    if (used == v.size()) return d;
  } catch (...) {
  }
  std::string s = v;
  if (s.rfind("tl.", 0) == 0) s = s.substr(3);
  if (auto t = parseTritonDTypeName(s)) return sema::DTypeValue{ElemType::of(*t)};
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) return v.substr(1, v.size() - 2);
  return v;
}

std::map<std::string, sema::ConstValue> parseDefines(const std::vector<std::string> &defs) {
  std::map<std::string, sema::ConstValue> out;
  for (const std::string &d : defs) {
    size_t eq = d.find('=');
    if (eq == std::string::npos || eq == 0) throw CLI::ValidationError("-D", "expected NAME=VALUE, got '" + d + "'");
    out[d.substr(0, eq)] = parseDefineValue(d.substr(eq + 1));
  }
  return out;
}

std::atomic<bool> gInterrupted{false};

struct RunOptions {
  bool interpret = false, strict = false, noOpt = false, checkGpu = false;
  bool noCheckOverflow = false;   ///< interpreter: no int32 overflow check of pointer offsets
  int benchRepeats = 0;   ///< tilec bench
  double timeoutSeconds = 0;   ///< --timeout: the whole run (host code and interpreted kernels); 0: none
  std::string arch;       ///< empty: the device's
};

/// Runs a host program's main(): kernels on the GPU when a driver and a
/// device are present (and --interpret is not given), else on the CPU
/// interpreter with a one-line notice.
int cmdRun(const std::string &file, const std::vector<std::string> &defines, const RunOptions &ro) {
  host::HostOptions hopts;
  hopts.defines = parseDefines(defines);
  // -D also overrides the module constants kernels read (sema's globals),
  // so host code and kernels see the same value.
  auto prog = [&] {
    auto p = std::make_shared<sema::Program>(*driver::loadProgram(file));
    for (const auto &[name, value] : hopts.defines) p->globals[name] = value;
    return std::shared_ptr<const sema::Program>(std::move(p));
  }();
  hopts.interrupt = &gInterrupted;
  // the first Ctrl-C stops at the next poll (a located "interrupted"
  // error); a second one, while something does not poll, ends the process
  std::signal(SIGINT, [](int) {
    if (gInterrupted) {
      std::signal(SIGINT, SIG_DFL);
      std::raise(SIGINT);
    }
    gInterrupted = true;
  });
  driver::PipelineOptions popts;
  popts.optimize = !ro.noOpt;
  interp::Options iopts;
  iopts.strict = ro.strict;
  iopts.checkOffsetOverflow = !ro.noCheckOverflow;
  iopts.interrupt = &gInterrupted;
  if (ro.timeoutSeconds > 0) hopts.deadline = iopts.deadline = Deadline::after(ro.timeoutSeconds);
  cuda::Driver *gpu = ro.interpret ? nullptr : cuda::Driver::get();
  if (!gpu && !ro.interpret)
    std::fprintf(stderr, "note: no GPU (%s); running kernels on the CPU interpreter\n",
                 cuda::Driver::unavailableReason().c_str());
  if (!gpu && ro.benchRepeats > 0)
    std::fputs("note: tilec bench on the CPU interpreter: each launch is timed once with the wall clock; "
               "these are interpreter times, not GPU times\n",
               stderr);
  tools::ApiLaunchOptions lo;
  lo.gpu = gpu != nullptr;
  lo.pipeline = popts;
  lo.interp = iopts;
  lo.arch = ro.arch;
  lo.checkAgainstInterpreter = ro.checkGpu;
  lo.benchRepeats = ro.benchRepeats;
  tools::ApiLauncher launcher(lo);
  int rc = host::runHostProgram(*prog, launcher, hopts);
  std::fflush(stdout);
  return rc;
}

/// sema::parseAotSignature, an unknown type a usage error.
std::vector<sema::ArgValue> parseSignature(const std::string &sig) {
  try {
    return sema::parseAotSignature(sig);
  } catch (const std::invalid_argument &e) {
    throw CLI::ValidationError("--signature", e.what());
  }
}

int cmdCompile(const std::string &file, const std::string &kernelName, const std::string &signature,
               const std::vector<std::string> &defines, const std::string &emit, const std::string &output,
               const driver::PipelineOptions &popts, const backend::TargetOptions &topts) {
  std::string text;
  if (emit == "tokens") {
    text = frontend::dumpTokens(frontend::lex(SourceManager::global().loadFile(file)));
    if (std::string dir = driver::dumpDir(); !dir.empty())
      driver::writeDump(dir, std::filesystem::path(file).stem().string(), "tokens", "txt", text);
  } else {
    std::shared_ptr<const sema::Program> loaded = driver::loadProgram(file); // dumps tokens and ast
    if (emit == "ast") {
      text = frontend::dumpAST(*loaded->module);
    } else {
      const sema::Program &prog = *loaded;
      const ast::FunctionDef *k = prog.kernel(kernelName);
      if (!k) {
        // the first few names (a file may hold thousands of kernels)
        std::string names;
        size_t listed = 0;
        for (const auto &[n, f] : prog.jitFunctions)
          if (listed++ < 8) names += (names.empty() ? "" : ", ") + n;
        if (listed > 8) names += fmt::format(" and {} more; `tilec check` lists them", listed - 8);
        throw CompileError(Location{}, fmt::format("no @triton.jit kernel named '{}' in {} (kernels: {})", kernelName,
                                                   file, names.empty() ? "none" : names));
      }
      std::vector<std::pair<std::string, sema::ArgValue>> kws;
      for (auto &[n, v] : parseDefines(defines)) {
        sema::ArgValue a;
        a.value = v;
        kws.emplace_back(n, a);
      }
      sema::BoundLaunch bound = sema::bindLaunch(prog, *k, parseSignature(signature), kws, k->loc);
      driver::PipelineOptions o = popts;
      o.optimize = emit != "ir";
      if (emit == "ptx" || emit == "cubin") {
        driver::GpuKernel gk = driver::compileToPtx(prog, *k, bound.spec, o, topts, backend::nvptxCodeGenerator());
        backend::KernelBinary kb{gk.name, "", std::move(gk.text), gk.numWarps, gk.sharedBytes};
        text = tools::aotOutput(kernelName, kb, bound.spec, topts, emit == "cubin"); // with its metadata
        if (std::string dir = driver::dumpDir(); !dir.empty() && emit == "cubin")
          driver::writeDump(dir, kb.name, "cubin", "cubin", text);
      } else {
        auto fn = driver::compileKernel(prog, *k, bound.spec, o);
        if (emit == "ir" || emit == "ir-opt") {
          ir::PrintOptions po;
          po.locations = popts.printLocations;
          text = ir::print(*fn, po) + "\n";
        } else {
          driver::GpuStage stop = emit == "llvm-noopt" ? driver::GpuStage::LLVM : driver::GpuStage::LLVMOpt;
          text = driver::compileGpu(*fn, topts, o, backend::nvptxCodeGenerator(), bound.spec.key(), stop).text;
        }
      }
    }
  }
  if (driver::timeStagesEnabled()) std::fputs(driver::formatStageTimes(driver::takeStageTimes()).c_str(), stderr);
  if (output.empty() || output == "-") {
    std::fputs(text.c_str(), stdout);
    return 0;
  }
  FILE *f = std::fopen(output.c_str(), "wb");
  if (!f || std::fwrite(text.data(), 1, text.size(), f) != text.size()) {
    if (f) std::fclose(f);
    throw CompileError(Location{}, fmt::format("cannot write '{}'", output));
  }
  std::fclose(f);
  return 0;
}

/// Lists the @jit functions with their parameters (constexprs marked) and
/// the host functions, then reports every problem driver::checkProgram
/// finds; exit 1 when there is one.
int cmdCheck(const std::string &file) {
  auto prog = driver::loadProgram(file);
  for (const auto &[name, fn] : prog->jitFunctions) {
    std::string params;
    for (const ast::Param &p : fn->params)
      params += (params.empty() ? "" : ", ") + p.name + (sema::Program::isConstexprParam(p) ? ": tl.constexpr" : "");
    std::printf("kernel %s(%s)\n", name.c_str(), params.c_str());
  }
  for (const auto &[name, fn] : prog->hostFunctions) std::printf("host   %s()\n", name.c_str());
  std::fflush(stdout);
  std::vector<CompileError> errors =
      driver::checkProgram(*prog, {host::builtinNames(), [](const std::string &m) { return host::isKnownModule(m); }});
  for (const CompileError &e : errors) printError(e);
  if (errors.empty()) return 0;
  std::fprintf(stderr, "%zu error%s in %s\n", errors.size(), errors.size() == 1 ? "" : "s", file.c_str());
  return 1;
}

/// `tilec cache list|clear|size`: the on-disk kernel cache (driver/DiskCache.h).
int cmdCache(const std::string &action, const std::string &dirOverride) {
  driver::CacheConfig config = driver::cacheConfigFromEnv();
  if (!dirOverride.empty()) config.dir = dirOverride;
  if (!config.error.empty()) {
    std::fprintf(stderr, "tilec: error: %s\n", config.error.c_str());
    return 1;
  }
  if (config.dir.empty()) {
    std::fputs("tilec: error: no cache directory: set TILE_CACHE_DIR or HOME\n", stderr);
    return 1;
  }
  driver::DiskCache cache(config);
  std::string dir = config.dir.string();
  if (std::string why = cache.unusable(); !why.empty()) {
    std::fprintf(stderr, "tilec: error: %s\n", why.c_str());
    return 1;
  }
  if (action == "clear") {
    int failed = 0, n = cache.clear(&failed);
    std::printf("removed %d entr%s from %s\n", n, n == 1 ? "y" : "ies", dir.c_str());
    if (failed) {
      std::fprintf(stderr, "tilec: error: could not remove %d entr%s from %s (permissions, or a read-only file system)\n",
                   failed, failed == 1 ? "y" : "ies", dir.c_str());
      return 1;
    }
    return 0;
  }
  std::vector<driver::CacheEntryInfo> entries = cache.list();
  if (action == "size") {
    uint64_t total = 0;
    for (const driver::CacheEntryInfo &e : entries) total += e.bytes;
    std::printf("%llu bytes in %zu entr%s (limit %llu bytes): %s\n", static_cast<unsigned long long>(total),
                entries.size(), entries.size() == 1 ? "y" : "ies", static_cast<unsigned long long>(config.maxBytes),
                dir.c_str());
    return 0;
  }
  // list: least recently used first, the next to be evicted on top.
  for (const driver::CacheEntryInfo &e : entries) {
    auto used = std::chrono::file_clock::to_sys(e.lastUse);
    std::string when = fmt::format("{:%Y-%m-%d %H:%M:%S}", std::chrono::floor<std::chrono::seconds>(used));
    std::printf("%s  %10llu  %s  %s\n", e.path.stem().string().c_str(), static_cast<unsigned long long>(e.bytes),
                when.c_str(), e.valid ? e.description.c_str() : "(corrupt: rebuilt on next use)");
  }
  return 0;
}

std::string versionText() {
  std::string err;
  bool nvptx = backend::nvptxTargetAvailable(&err);
  std::string cuda;
  if (cuda::Driver *d = cuda::Driver::get())
    cuda = fmt::format("CUDA driver {}.{}, {} ({}, {} SMs)", d->device().driverVersion / 1000,
                       d->device().driverVersion % 1000 / 10, d->device().name, d->device().targetArch(),
                       d->device().smCount);
  else
    cuda = "no CUDA driver (" + cuda::Driver::unavailableReason() + "): kernels run on the CPU interpreter";
  return fmt::format("tilec 0.1.0\nLLVM {} (statically linked), NVPTX target {}\n{}\n", backend::llvmVersion(),
                     nvptx ? "available" : "missing: " + err, cuda);
}

} // namespace

int main(int argc, char **argv) {
  tile::enableGpuCompiler(); // tilec run launches through the API
  setDiagnosticColor(useColor()); // warnings coloured as errors are
  CLI::App app{"tilec: a compiler for Triton-style tile kernels\n"
               "Exit status: 0 success, 1 a user error (with a diagnostic), 2 a usage error.",
               "tilec"};
  app.require_subcommand(0, 1);
  bool version = false;
  app.add_flag("--version", version, "print the versions of tilec, LLVM and the CUDA driver, then exit");

  std::string file, kernel, signature, emit = "ir-opt", output, dumpDir, helpTopic;
  std::vector<std::string> defines;
  bool noLoc = false;
  RunOptions ro;
  driver::PipelineOptions popts;
  std::vector<std::string> printAfter, printBefore;
  backend::TargetOptions topts;
  auto addDumpDir = [&](CLI::App *cmd) {
    cmd->add_option("--dump-dir", dumpDir,
                    "write every stage (tokens, ast, ir, each pass, llvm, ptx) to DIR as numbered files "
                    "(as TILE_DUMP_DIR does)");
  };

  CLI::App *run = app.add_subcommand("run", "run a .tile file's host main()");
  run->footer("Example: tilec run dsl_examples/vector_add.tile -D N=4096");
  run->add_option("file", file, ".tile file")->required();
  run->add_option("-D", defines, "NAME=VALUE: a global of the host program (overrides its module-level assignment)");
  run->add_flag("--interpret", ro.interpret, "run kernels on the CPU interpreter (the default without a GPU)");
  run->add_flag("--strict", ro.strict,
                "out-of-bounds loads and int32 overflow in pointer offsets are errors, not warnings");
  bool checkOverflowCompat = false;   // the default since issue 21; kept so old command lines work
  run->add_flag("--check-overflow", checkOverflowCompat,
                "interpreter: warn when int32 arithmetic computing a pointer offset overflows (the default)");
  run->add_flag("--no-check-overflow", ro.noCheckOverflow, "interpreter: do not check int32 pointer-offset arithmetic");
  run->add_flag("--no-opt", ro.noOpt, "skip the optimization passes");
  run->add_flag("--check-gpu", ro.checkGpu, "also run every launch on the interpreter and compare the outputs");
  run->add_option("--timeout", ro.timeoutSeconds,
                  "stop the run after SECONDS (host code and interpreted kernels; polled at loop back-edges and "
                  "between programs): a located 'timed out' error, exit 1")
      ->check(CLI::Range(1e-3, 1e7));
  run->add_option("--arch", ro.arch, "gpu architecture (default: the device's, sm_90a on an H200)");
  addDumpDir(run);

  CLI::App *bench = app.add_subcommand("bench", "run a .tile file's main() and time every launch");
  bench->footer("On a GPU every launch is timed with CUDA events (5 warm-up launches, then --reps, median),\n"
                "each after a 256 MiB L2 flush, as triton.testing.do_bench;\n"
                "on the CPU interpreter each launch is timed once with the wall clock (not a GPU time).\n"
                "bench_work(flops=N, bytes=N) in host code before a launch adds TFLOP/s and GB/s.\n"
                "Example: tilec bench dsl_examples/vector_add.tile --reps 100");
  bench->add_option("file", file, ".tile file")->required();
  bench->add_option("-D", defines, "NAME=VALUE: a global of the host program");
  bench->add_option("--reps", ro.benchRepeats, "timed repeats per launch on the GPU (median reported; default 50)")
      ->check(CLI::Range(1, 100000));
  bench->add_flag("--interpret", ro.interpret, "run kernels on the CPU interpreter (the default without a GPU)");
  bench->add_option("--arch", ro.arch, "gpu architecture (default: the device's)");
  bench->add_option("--timeout", ro.timeoutSeconds, "stop the run after SECONDS (as tilec run --timeout)")
      ->check(CLI::Range(1e-3, 1e7));
  addDumpDir(bench);

  CLI::App *compile = app.add_subcommand("compile", "compile one kernel and print a stage");
  compile->footer("Example: tilec compile dsl_examples/vector_add.tile -k add_kernel "
                  "-s '*fp32:16,*fp32:16,*fp32:16,i32' -D BLOCK_SIZE=1024 --emit ptx -o add.ptx");
  compile->add_option("file", file, ".tile file")->required();
  compile->add_option("--kernel,-k", kernel, "kernel name (needed from --emit ir on)");
  compile->add_option("--signature,-s", signature,
                      "runtime parameter types in Triton AOT notation, e.g. '*fp32:16,*fp32,i32' (:16 = divisible by 16)");
  compile->add_option("-D", defines, "NAME=VALUE: a constexpr parameter");
  compile->add_option("--emit", emit,
                      "stage to print: tokens, ast, ir (sema's output), ir-opt (after the passes; default), "
                      "llvm-noopt (the emitter's LLVM IR), llvm-opt (after LLVM's O3; 'llvm' is the same), ptx, cubin")
      ->check(CLI::IsMember({"tokens", "ast", "ir", "ir-opt", "llvm", "llvm-opt", "llvm-noopt", "ptx", "cubin"}));
  compile->add_option("--arch", topts.arch, "gpu architecture for llvm/ptx/cubin (default sm_90a)");
  compile->add_option("--num-warps", topts.numWarps, "warps per program (default 4)")->check(CLI::IsMember({1, 2, 4, 8, 16, 32}));
  compile->add_option("--num-stages", topts.numStages, "software pipelining depth of loops (default 3; 1 = off)")
      ->check(CLI::Range(1, 8));
  compile->add_option("--fp-fusion", topts.fpFusion,
                      "contract a*b+c into fma, as Triton's enable_fp_fusion (default 1; TILE_DEFAULT_FP_FUSION=0 "
                      "makes it 0)");
  compile->add_option("-o", output, "output file ('-' for stdout, the default)");
  compile->add_flag("--print-ir-after-all", popts.printAfterAll, "dump the IR after every pass, on stderr");
  compile->add_option("--print-ir-after", printAfter, "dump the IR after the named passes (sema, cse, tile-layouts, ...)")
      ->delimiter(',');
  compile->add_option("--print-ir-before", printBefore, "dump the IR before the named passes")->delimiter(',');
  compile->add_flag("--no-locations", noLoc, "omit loc(...) in IR dumps");
  bool timeStages = false;
  compile->add_flag("--time-stages", timeStages,
                    "print each stage's and each pass's wall time on stderr (TILE_TIME_STAGES=1 does it anywhere)");
  addDumpDir(compile);

  CLI::App *check = app.add_subcommand("check", "parse and check a file; list its kernels with their parameters");
  check->footer("Exit status 1 with a diagnostic for every problem found.\nExample: tilec check dsl_examples/lesson2_matmul.tile");
  check->add_option("file", file, ".tile file")->required();

  std::string cacheAction, cacheDir;
  CLI::App *cache = app.add_subcommand("cache", "list, clear or measure the on-disk kernel cache");
  cache->footer("The cache holds compiled GPU kernels (PTX) under TILE_CACHE_DIR (default ~/.cache/tile);\n"
                "TILE_CACHE=0 stops compiles from using it, TILE_CACHE_MAX_BYTES limits it (default 1G).\n"
                "list: one line per entry, least recently used (next evicted) first: KEY BYTES LAST-USE (UTC) KERNEL.\n"
                "Example: tilec cache size");
  cache->add_option("action", cacheAction, "list, clear or size")
      ->required()
      ->check(CLI::IsMember({"list", "clear", "size"}));
  cache->add_option("--dir", cacheDir, "the cache directory (default: TILE_CACHE_DIR, else ~/.cache/tile)");

  CLI::App *help = app.add_subcommand("help", "print the help of tilec or of one command");
  help->add_option("command", helpTopic, "run, bench, compile, check, cache or help");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  try {
    if (version) {
      std::fputs(versionText().c_str(), stdout);
      return 0;
    }
    if (*help) {
      std::string topic = helpTopic;
      app.clear(); // else app.help() describes the selected subcommand, `help`
      if (topic.empty()) {
        std::fputs(app.help().c_str(), stdout);
        return 0;
      }
      for (CLI::App *sub : app.get_subcommands({}))
        if (sub->get_name() == topic) {
          std::fputs(sub->help("tilec").c_str(), stdout);
          return 0;
        }
      std::fprintf(stderr, "tilec help: no command '%s' (commands: run, bench, compile, check, cache, help)\n",
                   topic.c_str());
      return 2;
    }
    if (!dumpDir.empty()) driver::setDumpDir(dumpDir);
    popts.printAfter.insert(printAfter.begin(), printAfter.end());
    popts.printBefore.insert(printBefore.begin(), printBefore.end());
    popts.printLocations = !noLoc;
    for (const auto *names : {&popts.printAfter, &popts.printBefore})
      if (std::string bad = driver::unknownStageName(*names); !bad.empty()) {
        std::string known;
        for (const std::string &n : driver::irStageNames()) known += (known.empty() ? "" : ", ") + n;
        std::fprintf(stderr, "tilec: --print-ir-%s: unknown stage '%s' (stages: %s)\n",
                     names == &popts.printAfter ? "after" : "before", bad.c_str(), known.c_str());
        return 2;
      }
    if (timeStages) driver::setTimeStages(true);
    if (*run) return cmdRun(file, defines, ro);
    if (*bench) {
      if (ro.benchRepeats <= 0) ro.benchRepeats = 50;
      return cmdRun(file, defines, ro);
    }
    if (*compile) {
      if (kernel.empty() && emit != "tokens" && emit != "ast") {
        std::fprintf(stderr, "tilec compile: --kernel is required for --emit %s\n", emit.c_str());
        return 2;
      }
      return cmdCompile(file, kernel, signature, defines, emit, output, popts, topts);
    }
    if (*check) return cmdCheck(file);
    if (*cache) return cmdCache(cacheAction, cacheDir);
    std::fputs(app.help().c_str(), stderr);
    return 2;
  } catch (const CompileError &e) {
    printError(e);
    return 1;
  } catch (const tools::FormattedError &e) {
    std::fputs(e.what(), stderr);
    return 1;
  } catch (const tile::Error &e) {
    std::fprintf(stderr, "tilec: %s", e.what());
    return 1;
  } catch (const cuda::Error &e) {
    std::fprintf(stderr, "tilec: error: %s\n", e.what());
    return 1;
  } catch (const CLI::ValidationError &e) {
    std::fprintf(stderr, "tilec: %s\n", e.what());
    return 2;
  } catch (const std::bad_alloc &) {
    std::fputs("tilec: error: out of memory\n", stderr);
    return 1;
  } catch (const std::system_error &e) {
    // Files the OS refused (an unwritable -o or dump path, ...): a user error.
    std::fprintf(stderr, "tilec: error: %s\n", e.what());
    return 1;
  }
}
