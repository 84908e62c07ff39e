// EnableGpuCompiler.cpp - tile::enableGpuCompiler(): installs the LLVM
// NVPTX back end as the API's GPU compiler. The only API source that links
// LLVM (through tile_llvm); it lives in its own library, tile::llvm, so
// programs that only interpret do not carry LLVM.
#include "GpuCompiler.h"

#include "backend/GpuCompile.h"
#include "backend/LLVMInfo.h"

#include <tile/tile.h>

namespace tile {

namespace {

api::GpuImage compileForGpu(ir::Function &fn, int numWarps, int numStages, const std::string &arch,
                            const driver::PipelineOptions &pipeline, const std::string &specKey) {
  backend::TargetOptions target;
  target.arch = arch;
  target.numWarps = numWarps;
  target.numStages = numStages;
  backend::runGpuPasses(fn, target, pipeline, specKey);
  backend::KernelBinary kb = backend::compilePTXWithDumps(fn, target);
  return api::GpuImage{kb.name, std::move(kb.ptx), kb.sharedBytes};
}

std::string identity() { return "LLVM " + backend::llvmVersion(); }

const api::GpuCompiler kCompiler{&compileForGpu, &identity};

} // namespace

void enableGpuCompiler() { api::setGpuCompiler(&kCompiler); }

} // namespace tile
