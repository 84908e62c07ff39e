// GpuCompiler.h - the seam between the API library (no LLVM) and the GPU
// compiler (tile::llvm, the LLVM NVPTX back end): an optimized kernel in,
// PTX out. tile::enableGpuCompiler() (api/llvm/) installs it; without it
// the API runs kernels on the interpreter only. Not a public header.
#pragma once

#include "driver/Pipeline.h"
#include "ir/IR.h"

#include <string>

namespace tile::api {

struct GpuImage {
  std::string name;    ///< the kernel's symbol in the PTX
  std::string ptx;
  int sharedBytes = 0; ///< dynamic shared memory each launch passes
};

struct GpuCompiler {
  /// Runs the GPU passes (num_stages pipelining, layouts for num_warps) on
  /// fn, which it may modify, and generates PTX for arch; IR printing and
  /// stage dumps as `pipeline` and the dump directory ask (specKey names
  /// the specialization in them).
  GpuImage (*compile)(ir::Function &fn, int numWarps, int numStages, const std::string &arch,
                      const driver::PipelineOptions &pipeline, const std::string &specKey);
  /// The compiler's identity for the disk cache key ("LLVM 19.1.7").
  std::string (*identity)();
};

/// Thread safe; null uninstalls. `compiler` must outlive its use.
void setGpuCompiler(const GpuCompiler *compiler);
const GpuCompiler *gpuCompiler();

} // namespace tile::api
