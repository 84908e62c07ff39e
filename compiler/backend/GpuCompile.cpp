// GpuCompile.cpp - GPU passes and code generation with stage dumps.
#include "backend/GpuCompile.h"

#include "driver/Dump.h"
#include "gpu/LayoutAssignment.h"
#include "gpu/Pipeline.h"
#include "ir/Printer.h"

#include <fmt/format.h>

#include <cstdio>

namespace tile::backend {

namespace {

/// --print-ir-before/after for the GPU passes, as the PassManager does for
/// the others, and the dump-directory file after each.
void afterGpuPass(const char *pass, const ir::Function &fn, const driver::PipelineOptions &popts,
                  const std::string &specKey, const std::string &dir) {
  if (popts.printAfterAll || popts.printAfter.count(pass)) {
    ir::PrintOptions po;
    po.locations = popts.printLocations;
    std::string text = fmt::format("// -----// IR Dump After {} //----- //\n{}\n", pass, ir::print(fn, po));
    if (popts.output) popts.output(text);
    else std::fputs(text.c_str(), stderr);
  }
  if (!dir.empty()) driver::dumpKernelIR(dir, fn, std::string("after-") + pass, specKey, popts.printLocations);
}

void beforeGpuPass(const char *pass, const ir::Function &fn, const driver::PipelineOptions &popts) {
  if (!popts.printBefore.count(pass)) return;
  ir::PrintOptions po;
  po.locations = popts.printLocations;
  std::string text = fmt::format("// -----// IR Dump Before {} //----- //\n{}\n", pass, ir::print(fn, po));
  if (popts.output) popts.output(text);
  else std::fputs(text.c_str(), stderr);
}

} // namespace

void runGpuPasses(ir::Function &fn, const backend::TargetOptions &target, const driver::PipelineOptions &popts,
                  const std::string &specKey) {
  std::string dir = driver::dumpDir();
  beforeGpuPass("tile-pipeline", fn, popts);
  gpu::pipelineLoops(fn, gpu::PipelineTarget{target.numStages, target.numWarps, target.arch});
  afterGpuPass("tile-pipeline", fn, popts, specKey, dir);
  beforeGpuPass("tile-layouts", fn, popts);
  gpu::assignLayouts(fn, target.numWarps, target.arch);
  afterGpuPass("tile-layouts", fn, popts, specKey, dir);
}

backend::KernelBinary compilePTXWithDumps(const ir::Function &fn, const backend::TargetOptions &target) {
  std::string dir = driver::dumpDir();
  if (!dir.empty()) driver::writeDump(dir, fn.name, "llvm-noopt", "ll", backend::emitLLVM(fn, target, false));
  backend::KernelBinary kb = backend::compileToPTX(fn, target);
  if (!dir.empty()) {
    driver::writeDump(dir, fn.name, "llvm-opt", "ll", kb.llvmIR);
    driver::writeDump(dir, fn.name, "ptx", "ptx", kb.ptx);
  }
  return kb;
}

std::string emitLLVMWithDumps(const ir::Function &fn, const backend::TargetOptions &target, bool optimize) {
  std::string dir = driver::dumpDir();
  std::string noopt = !optimize || !dir.empty() ? backend::emitLLVM(fn, target, false) : "";
  if (!dir.empty()) driver::writeDump(dir, fn.name, "llvm-noopt", "ll", noopt);
  if (!optimize) return noopt;
  std::string opt = backend::emitLLVM(fn, target, true);
  if (!dir.empty()) driver::writeDump(dir, fn.name, "llvm-opt", "ll", opt);
  return opt;
}

} // namespace tile::backend
