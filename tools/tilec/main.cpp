// tilec - the command line: run host programs, compile kernels and show
// every stage of the pipeline.
//
//   tilec run FILE [--interpret] [-D NAME=VALUE]...
//   tilec compile FILE --kernel NAME --signature '*fp32:16,i32' [-D N=V]
//         --emit tokens|ast|ir|ir-opt|llvm|llvm-noopt|ptx|cubin [--arch sm_90a] [--num-warps 4]
//   tilec check FILE
//   tilec --version
//
// Exit status: 0 success, 1 user error (with a diagnostic), 2 usage error.
#include "backend/Codegen.h"
#include "backend/LLVMInfo.h"
#include "GpuLauncher.h"
#include "cuda/Cuda.h"
#include "gpu/LayoutAssignment.h"
#include "gpu/Pipeline.h"
#include "driver/Pipeline.h"
#include "frontend/Parser.h"
#include "host/HostEval.h"
#include "host/InterpLauncher.h"
#include "interp/Interpreter.h"
#include "ir/Printer.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <csignal>
#include <cstdio>
#include <iostream>
#include <unistd.h>

using namespace tile;

namespace {

bool useColor() { return isatty(fileno(stderr)) && !std::getenv("NO_COLOR"); }

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
  int benchRepeats = 0;   ///< tilec bench
  std::string arch;       ///< empty: the device's
};

/// Runs a host program's main(): kernels on the GPU when a driver and a
/// device are present (and --interpret is not given), else on the CPU
/// interpreter with a one-line notice.
int cmdRun(const std::string &file, const std::vector<std::string> &defines, const RunOptions &ro) {
  auto prog = driver::loadProgram(file);
  host::HostOptions hopts;
  hopts.defines = parseDefines(defines);
  hopts.interrupt = &gInterrupted;
  std::signal(SIGINT, [](int) { gInterrupted = true; });
  driver::PipelineOptions popts;
  popts.optimize = !ro.noOpt;
  interp::Options iopts;
  iopts.strict = ro.strict;
  cuda::Driver *gpu = ro.interpret ? nullptr : cuda::Driver::get();
  int rc;
  if (gpu) {
    tools::GpuLaunchOptions g;
    g.pipeline = popts;
    g.arch = ro.arch;
    g.checkAgainstInterpreter = ro.checkGpu;
    g.interp = iopts;
    g.benchRepeats = ro.benchRepeats;
    tools::GpuLauncher launcher(*gpu, g);
    rc = host::runHostProgram(*prog, launcher, hopts);
  } else {
    if (!ro.interpret)
      std::fprintf(stderr, "note: no GPU (%s); running kernels on the CPU interpreter\n",
                   cuda::Driver::unavailableReason().c_str());
    if (ro.benchRepeats > 0)
      std::fputs("note: tilec bench on the interpreter: launches are not timed (interpreter times are not GPU times)\n",
                 stderr);
    host::InterpLauncher launcher(iopts, popts);
    rc = host::runHostProgram(*prog, launcher, hopts);
  }
  std::fflush(stdout);
  return rc;
}

/// Parses a Triton AOT signature: "*fp32:16,*fp16,i32,fp32". The values are
/// stand-ins whose divisibility is what the signature says: pointers at
/// 0x1000 (":16") or 0x1008, ints 16 (":16") or 1, so that binding derives
/// the same specialization a real launch with such arguments would.
std::vector<sema::ArgValue> parseSignature(const std::string &sig) {
  std::vector<sema::ArgValue> out;
  size_t pos = 0;
  while (pos <= sig.size() && !sig.empty()) {
    size_t comma = sig.find(',', pos);
    std::string item = sig.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    pos = comma == std::string::npos ? sig.size() + 1 : comma + 1;
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    bool div16 = item.find(":16") != std::string::npos;
    if (size_t colon = item.find(':'); colon != std::string::npos) item = item.substr(0, colon);
    sema::ArgValue a;
    bool ptr = !item.empty() && item[0] == '*';
    std::string ty = ptr ? item.substr(1) : item;
    auto s = parseTritonDTypeName(ty);
    if (!s) throw CLI::ValidationError("--signature", "unknown type '" + ty + "' in '" + sig + "'");
    if (ptr) {
      a.isPointer = true;
      a.elem = *s;
      a.address = div16 ? 0x1000 : 0x1008;
    } else if (isFloat(*s)) {
      a.value = 0.0;
    } else if (*s == Scalar::I1) {
      a.value = false;
    } else {
      int64_t v = div16 ? 16 : 1;
      a.value = bitWidth(*s) == 64 ? (int64_t(1) << 40) + v : v; // i64: out of i32 range
    }
    out.push_back(a);
  }
  return out;
}

int cmdCompile(const std::string &file, const std::string &kernelName, const std::string &signature,
               const std::vector<std::string> &defines, const std::string &emit, const std::string &output,
               const driver::PipelineOptions &popts, const backend::TargetOptions &topts) {
  int fileId = SourceManager::global().loadFile(file);
  std::string text;
  if (emit == "tokens") {
    text = frontend::dumpTokens(frontend::lex(fileId));
  } else {
    auto module = frontend::parseFile(fileId);
    if (emit == "ast") {
      text = frontend::dumpAST(*module);
    } else {
      sema::Program prog(module);
      const ast::FunctionDef *k = prog.kernel(kernelName);
      if (!k) {
        std::string names;
        for (const auto &[n, f] : prog.jitFunctions) names += (names.empty() ? "" : ", ") + n;
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
      auto fn = driver::compileKernel(prog, *k, bound.spec, o);
      if (emit == "ir" || emit == "ir-opt") {
        ir::PrintOptions po;
        po.locations = popts.printLocations;
        text = ir::print(*fn, po) + "\n";
      } else {
        gpu::pipelineLoops(*fn, topts.numStages);
        gpu::assignLayouts(*fn, topts.numWarps);
        if (popts.printAfterAll || popts.printAfter.count("tile-layouts")) {
          ir::PrintOptions po;
          po.locations = popts.printLocations;
          std::fputs(fmt::format("// -----// IR Dump After tile-layouts //----- //\n{}\n", ir::print(*fn, po)).c_str(),
                     stderr);
        }
        if (emit == "llvm" || emit == "llvm-noopt") {
          text = backend::emitLLVM(*fn, topts, emit == "llvm");
        } else {
          backend::KernelBinary kb = backend::compileToPTX(*fn, topts);
          text = emit == "ptx" ? kb.ptx : backend::ptxToCubin(kb.ptx, topts.arch);
        }
      }
    }
  }
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

int cmdCheck(const std::string &file) {
  auto prog = driver::loadProgram(file);
  for (const auto &[name, fn] : prog->jitFunctions) {
    std::string params;
    for (const ast::Param &p : fn->params)
      params += (params.empty() ? "" : ", ") + p.name + (sema::Program::isConstexprParam(p) ? ": tl.constexpr" : "");
    std::printf("kernel %s(%s)\n", name.c_str(), params.c_str());
  }
  for (const auto &[name, fn] : prog->hostFunctions) std::printf("host   %s()\n", name.c_str());
  return 0;
}

std::string versionText() {
  std::string err;
  bool nvptx = backend::nvptxTargetAvailable(&err);
  std::string cuda;
  if (cuda::Driver *d = cuda::Driver::get())
    cuda = fmt::format("CUDA driver {}.{}, {} ({}, {} SMs)", d->device().driverVersion / 1000,
                       d->device().driverVersion % 1000 / 10, d->device().name, tools::archFor(d->device()),
                       d->device().smCount);
  else
    cuda = "no CUDA driver (" + cuda::Driver::unavailableReason() + "): kernels run on the CPU interpreter";
  return fmt::format("tilec 0.1.0\nLLVM {} (statically linked), NVPTX target {}\n{}\n", backend::llvmVersion(),
                     nvptx ? "available" : "missing: " + err, cuda);
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"tilec: a compiler for Triton-style tile kernels"};
  app.require_subcommand(0, 1);
  bool version = false;
  app.add_flag("--version", version, "print versions and exit");

  std::string file, kernel, signature, emit = "ir-opt", output;
  std::vector<std::string> defines;
  bool noLoc = false;
  RunOptions ro;
  driver::PipelineOptions popts;
  std::vector<std::string> printAfter, printBefore;
  backend::TargetOptions topts;

  CLI::App *run = app.add_subcommand("run", "run a .tile file's host main()");
  run->add_option("file", file, ".tile file")->required();
  run->add_option("-D", defines, "NAME=VALUE global for the host program");
  run->add_flag("--interpret", ro.interpret, "run kernels on the CPU interpreter (the default without a GPU)");
  run->add_flag("--strict", ro.strict, "out-of-bounds loads are errors, not warnings");
  run->add_flag("--no-opt", ro.noOpt, "skip the optimization passes");
  run->add_flag("--check-gpu", ro.checkGpu, "also run every launch on the interpreter and compare the outputs");
  run->add_option("--arch", ro.arch, "gpu architecture (default: the device's, sm_90a on an H200)");

  CLI::App *bench = app.add_subcommand("bench", "run a .tile file's main() and time every launch on the GPU");
  bench->add_option("file", file, ".tile file")->required();
  bench->add_option("-D", defines, "NAME=VALUE global for the host program");
  bench->add_option("--reps", ro.benchRepeats, "timed repeats per launch (median reported)")->check(CLI::Range(1, 100000));

  CLI::App *compile = app.add_subcommand("compile", "compile one kernel and print a stage");
  compile->add_option("file", file, ".tile file")->required();
  compile->add_option("--kernel,-k", kernel, "kernel name");
  compile->add_option("--signature,-s", signature, "runtime parameter types, e.g. '*fp32:16,*fp32,i32'");
  compile->add_option("-D", defines, "NAME=VALUE constexpr");
  compile->add_option("--emit", emit, "stage to print")->check(CLI::IsMember({"tokens", "ast", "ir", "ir-opt", "llvm", "llvm-noopt", "ptx", "cubin"}));
  compile->add_option("--arch", topts.arch, "gpu architecture for llvm/ptx/cubin (default sm_90a)");
  compile->add_option("--num-warps", topts.numWarps, "warps per program (default 4)")->check(CLI::IsMember({1, 2, 4, 8, 16, 32}));
  compile->add_option("--num-stages", topts.numStages, "software pipelining depth of loops (default 3; 1 = off)")
      ->check(CLI::Range(1, 8));
  compile->add_option("-o", output, "output file ('-' for stdout)");
  compile->add_flag("--print-ir-after-all", popts.printAfterAll, "dump the IR after every pass");
  compile->add_option("--print-ir-after", printAfter, "dump the IR after the named pass")->delimiter(',');
  compile->add_option("--print-ir-before", printBefore, "dump the IR before the named pass")->delimiter(',');
  compile->add_flag("--no-locations", noLoc, "omit loc(...) in IR dumps");

  CLI::App *check = app.add_subcommand("check", "parse a file and list its kernels");
  check->add_option("file", file, ".tile file")->required();

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
    popts.printAfter.insert(printAfter.begin(), printAfter.end());
    popts.printBefore.insert(printBefore.begin(), printBefore.end());
    popts.printLocations = !noLoc;
    if (*run) return cmdRun(file, defines, ro);
    if (*bench) {
      if (ro.benchRepeats <= 0) ro.benchRepeats = 50;
      return cmdRun(file, defines, ro);
    }
    if (*compile) {
      if (kernel.empty() && emit != "tokens" && emit != "ast") {
        std::fputs("tilec compile: --kernel is required for --emit ir/ir-opt\n", stderr);
        return 2;
      }
      return cmdCompile(file, kernel, signature, defines, emit, output, popts, topts);
    }
    if (*check) return cmdCheck(file);
    std::fputs(app.help().c_str(), stdout);
    return 2;
  } catch (const CompileError &e) {
    printError(e);
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
  }
}
