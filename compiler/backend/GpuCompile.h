// GpuCompile.h - the GPU half of the pipeline, shared by `tilec compile`
// and the API's GPU compiler (api/llvm): tile-pipeline and tile-layouts on an optimized
// kernel, then LLVM IR and PTX through compiler/backend, each stage dumped
// on request (--print-ir-after on stderr; the driver's dump directory,
// driver/Dump.h, for --dump-dir / TILE_DUMP_DIR).
#pragma once

#include "backend/Codegen.h"
#include "driver/Pipeline.h"

#include <string>

namespace tile::backend {

/// Runs tile-pipeline (num_stages) and tile-layouts (num_warps) on fn.
void runGpuPasses(ir::Function &fn, const backend::TargetOptions &target, const driver::PipelineOptions &popts,
                  const std::string &specKey);

/// PTX of a laid-out kernel; with a dump directory it also writes the
/// stages llvm-noopt, llvm-opt and ptx.
backend::KernelBinary compilePTXWithDumps(const ir::Function &fn, const backend::TargetOptions &target);

/// LLVM IR text of a laid-out kernel (optimize: after LLVM's O3); with a
/// dump directory it writes llvm-noopt (and llvm-opt when optimized).
std::string emitLLVMWithDumps(const ir::Function &fn, const backend::TargetOptions &target, bool optimize);

} // namespace tile::backend
