// GpuCompiler.h - the seam between the API library (no LLVM) and the GPU
// compiler (tile::llvm, the LLVM NVPTX back end): an optimized kernel in,
// PTX out. tile::enableGpuCompiler() (api/llvm/) installs it; without it
// the API runs kernels on the interpreter only. Not a public header.
#pragma once

#include "ir/IR.h"

#include <string>

namespace tile::api {

struct GpuImage {
  std::string name;    ///< the kernel's symbol in the PTX
  std::string ptx;
  int sharedBytes = 0; ///< dynamic shared memory each launch passes
};

/// Runs the GPU passes (num_stages pipelining, layouts for num_warps) on fn,
/// which it may modify, and generates PTX for arch.
using GpuCompileFn = GpuImage (*)(ir::Function &fn, int numWarps, int numStages, const std::string &arch);

/// Thread safe; null uninstalls.
void setGpuCompiler(GpuCompileFn fn);
GpuCompileFn gpuCompiler();

} // namespace tile::api
