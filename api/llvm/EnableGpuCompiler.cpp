// EnableGpuCompiler.cpp - tile::enableGpuCompiler(): installs the LLVM
// NVPTX back end as the API's GPU compiler. The only API source that links
// LLVM (through tile_llvm); it lives in its own library, tile::llvm, so
// programs that only interpret do not carry LLVM.
#include "GpuCompiler.h"

#include <tile/tile.h>

namespace tile {

void enableGpuCompiler() { api::setGpuCompiler(&backend::nvptxCodeGenerator()); }

} // namespace tile
