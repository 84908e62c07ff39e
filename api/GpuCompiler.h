// GpuCompiler.h - the seam between the API library (no LLVM) and the GPU
// compiler: the back end's stages as a backend::CodeGenerator, which the
// driver (driver::compileToPtx) sequences. tile::enableGpuCompiler()
// (api/llvm/, library tile::llvm) installs the NVPTX one; without it the API
// runs kernels on the interpreter only. Not a public header.
#pragma once

#include "backend/Codegen.h"

namespace tile::api {

/// Thread safe; null uninstalls. `codegen` must outlive its use.
void setGpuCompiler(const backend::CodeGenerator *codegen);
const backend::CodeGenerator *gpuCompiler();

} // namespace tile::api
