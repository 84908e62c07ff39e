// Codegen.h - the GPU back end's entry points: laid-out tile IR -> LLVM IR
// (NVPTX) -> PTX -> cubin (through ptxas).
#pragma once

#include "ir/IR.h"

#include <string>

namespace tile::backend {

struct TargetOptions {
  std::string arch = "sm_90a";
  int numWarps = 4;
  int numStages = 3;
  bool lineInfo = true;
};

struct KernelBinary {
  std::string name;
  std::string llvmIR;   ///< optimized
  std::string ptx;
  int numWarps = 4;
  int sharedBytes = 0;  ///< dynamic shared memory the launch must pass
};

/// fn has been through the layout pass: every tensor value has a layout
/// (values without one get gpu::defaultBlocked, and mismatches between an
/// op's operands are resolved through shared memory).
KernelBinary compileToPTX(const ir::Function &fn, const TargetOptions &opts);
/// Textual LLVM IR of the kernel, before or after LLVM's O3 pipeline.
std::string emitLLVM(const ir::Function &fn, const TargetOptions &opts, bool optimize);
/// Assembles PTX with ptxas (PATH, then /usr/local/cuda/bin); throws
/// CompileError with ptxas's diagnostics, or "ptxas not found".
std::string ptxToCubin(const std::string &ptx, const std::string &arch);

} // namespace tile::backend
