// Codegen.h - the GPU back end's entry points: laid-out tile IR -> LLVM IR
// (NVPTX) -> PTX -> cubin (through ptxas). No LLVM types: the driver
// (driver/Pipeline.h) sequences these stages through CodeGenerator without
// linking LLVM; tile_llvm (this folder) implements it.
#pragma once

#include "ir/IR.h"

#include <cstdlib>
#include <memory>
#include <string>

namespace tile::backend {

/// TILE_DEFAULT_FP_FUSION=0 in the environment turns fp fusion off for
/// every compile that does not choose (Triton's TRITON_DEFAULT_FP_FUSION);
/// on otherwise.
inline bool defaultFpFusion() {
  static const bool on = [] {
    const char *v = std::getenv("TILE_DEFAULT_FP_FUSION");
    return !(v && (std::string(v) == "0" || std::string(v) == "off" || std::string(v) == "false"));
  }();
  return on;
}

struct TargetOptions {
  std::string arch = "sm_90a";
  int numWarps = 4;
  int numStages = 3;
  bool lineInfo = true;
  /// Contract a*b+c into fma (LLVM's AllowFPOpFusion=Fast), as Triton's
  /// enable_fp_fusion, whose default this follows; false keeps every
  /// multiply and add rounded on its own.
  bool fpFusion = defaultFpFusion();
};

struct KernelBinary {
  std::string name;
  std::string llvmIR;   ///< optimized
  std::string ptx;
  int numWarps = 4;
  int sharedBytes = 0;  ///< dynamic shared memory the launch must pass
};

/// One kernel on its way through LLVM; each call is one stage, so that the
/// driver can time it, dump its text and stop after it.
class LoweredKernel {
public:
  virtual ~LoweredKernel() = default;
  /// The LLVM module as it is now (after lower: the emitter's IR).
  virtual std::string llvmText() const = 0;
  /// Stage "llvm-opt": LLVM's pass pipeline over the module.
  virtual void optimize() = 0;
  /// Stage "ptx": NVPTX code generation.
  virtual std::string emitPTX() = 0;
  /// Dynamic shared memory each launch must pass.
  virtual int sharedBytes() const = 0;
};

/// The LLVM back end as code without LLVM sees it (the driver, the API).
struct CodeGenerator {
  /// Stage "llvm": fn has been through tile-layouts (see compileToPTX).
  std::unique_ptr<LoweredKernel> (*lower)(const ir::Function &fn, const TargetOptions &opts);
  /// Stage "cubin": see ptxToCubin.
  std::string (*cubin)(const std::string &ptx, const std::string &arch);
  /// The generator's identity, part of the disk cache key ("LLVM 19.1.7").
  std::string (*identity)();
};

/// The NVPTX back end (defined in tile_llvm).
const CodeGenerator &nvptxCodeGenerator();

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
