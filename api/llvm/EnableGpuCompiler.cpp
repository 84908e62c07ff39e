// EnableGpuCompiler.cpp - tile::enableGpuCompiler(): installs the LLVM
// NVPTX back end as the API's GPU compiler. The only API source that links
// LLVM (through tile_llvm); it lives in its own library, tile::llvm, so
// programs that only interpret do not carry LLVM.
#include "GpuCompiler.h"

#include "backend/Codegen.h"
#include "gpu/LayoutAssignment.h"
#include "gpu/Pipeline.h"

#include <tile/tile.h>

namespace tile {

namespace {

api::GpuImage compileForGpu(ir::Function &fn, int numWarps, int numStages, const std::string &arch) {
  backend::TargetOptions target;
  target.arch = arch;
  target.numWarps = numWarps;
  target.numStages = numStages;
  gpu::pipelineLoops(fn, numStages);
  gpu::assignLayouts(fn, numWarps);
  backend::KernelBinary kb = backend::compileToPTX(fn, target);
  return api::GpuImage{kb.name, std::move(kb.ptx), kb.sharedBytes};
}

} // namespace

void enableGpuCompiler() { api::setGpuCompiler(&compileForGpu); }

} // namespace tile
