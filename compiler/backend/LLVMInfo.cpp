// LLVMInfo.cpp - queries the linked LLVM (version, NVPTX target registry).
#include "backend/LLVMInfo.h"

#include <llvm/Config/llvm-config.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>

#include <mutex>

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
}

namespace tile::backend {

std::string llvmVersion() { return LLVM_VERSION_STRING; }

bool nvptxTargetAvailable(std::string *error) {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
  });
  std::string err;
  const llvm::Target *t = llvm::TargetRegistry::lookupTarget("nvptx64-nvidia-cuda", err);
  if (error) *error = err;
  return t != nullptr;
}

} // namespace tile::backend
