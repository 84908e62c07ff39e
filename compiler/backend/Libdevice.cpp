// Libdevice.cpp - NVIDIA's libdevice (the __nv_* math functions as LLVM
// bitcode): where it is on this machine, declarations of the functions the
// emitter calls, and linking the used ones into a kernel module.
//
// f64 transcendental math has no correct NVPTX instruction, so the emitter
// calls libdevice (__nv_exp, __nv_log, ...). The module is linked with
// LinkOnlyNeeded, the linked functions are internalized (so O3 inlines and
// then drops them: the PTX keeps no call), and the module flag
// nvvm-reflect-ftz = 0 tells NVVMReflect (run at the start of the O3
// pipeline by the NVPTX TargetMachine's pass-builder callbacks, LLVM 19)
// to pick libdevice's non-flush-to-zero paths.
#include "backend/Emitter.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Constants.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <unistd.h>

namespace tile::backend {

namespace {

/// Candidate paths in the order they are tried: $CUDA_HOME, /usr/local/cuda,
/// then next to the ptxas found on PATH. $TILEC_LIBDEVICE (a file), when
/// set, is the only candidate (for tests, and for unusual installs).
std::vector<std::string> libdeviceCandidates() {
  const char *rel = "nvvm/libdevice/libdevice.10.bc";
  std::vector<std::string> out;
  if (const char *file = std::getenv("TILEC_LIBDEVICE"); file && *file) return {file};
  if (const char *home = std::getenv("CUDA_HOME"); home && *home) out.push_back(fmt::format("{}/{}", home, rel));
  out.push_back(fmt::format("/usr/local/cuda/{}", rel));
  if (const char *path = std::getenv("PATH")) {
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':'))
      if (!dir.empty() && access((dir + "/ptxas").c_str(), X_OK) == 0) {
        out.push_back(fmt::format("{}/../{}", dir, rel));
        break;
      }
  }
  return out;
}

} // namespace

std::string findLibdevice(std::string *looked) {
  std::vector<std::string> cands = libdeviceCandidates();
  for (const std::string &c : cands)
    if (std::filesystem::is_regular_file(c)) return c;
  if (looked) {
    looked->clear();
    for (size_t i = 0; i < cands.size(); ++i) *looked += (i ? ", " : "") + cands[i];
  }
  return "";
}

llvm::Value *Emitter::libdeviceCall(const char *fnName, llvm::Value *x, const ir::Op &op) {
  if (libdevicePath.empty()) {
    std::string looked;
    libdevicePath = findLibdevice(&looked);
    if (libdevicePath.empty())
      fail(op.loc, fmt::format("f64 {} needs libdevice (set CUDA_HOME; looked in {})", ir::opName(op.kind), looked));
  }
  auto *fty = llvm::FunctionType::get(x->getType(), {x->getType()}, false);
  llvm::FunctionCallee callee = mod.getOrInsertFunction(fnName, fty);
  return b.CreateCall(callee, {x});
}

void linkLibdevice(llvm::Module &m, const std::string &path, Location loc) {
  auto buf = llvm::MemoryBuffer::getFile(path);
  if (!buf) fail(loc, fmt::format("cannot read libdevice at {}", path));
  llvm::Expected<std::unique_ptr<llvm::Module>> lib = llvm::parseBitcodeFile((*buf)->getMemBufferRef(), m.getContext());
  if (!lib) fail(loc, fmt::format("cannot parse libdevice at {}: {}", path, llvm::toString(lib.takeError())));
  (*lib)->setTargetTriple(m.getTargetTriple());
  (*lib)->setDataLayout(m.getDataLayout());
  if (llvm::Linker::linkModules(m, std::move(*lib), llvm::Linker::LinkOnlyNeeded))
    fail(loc, fmt::format("cannot link libdevice from {}", path));
  // Everything that came from libdevice is internal: inlined, then removed.
  for (llvm::Function &f : m)
    if (!f.isDeclaration() && f.getCallingConv() != llvm::CallingConv::PTX_Kernel)
      f.setLinkage(llvm::GlobalValue::InternalLinkage);
  for (llvm::GlobalVariable &g : m.globals())
    if (!g.isDeclaration() && g.getAddressSpace() != 3) g.setLinkage(llvm::GlobalValue::InternalLinkage);
  m.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", uint32_t(0));
}

} // namespace tile::backend
