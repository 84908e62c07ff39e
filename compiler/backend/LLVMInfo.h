// LLVMInfo.h - what the statically linked LLVM provides: its version and
// whether the NVPTX target (used by the GPU back end) is registered.
#pragma once

#include <string>

namespace tile::backend {

/// "19.1.7"
std::string llvmVersion();
/// Registers the NVPTX target and reports whether the target registry
/// finds it for `nvptx64-nvidia-cuda`.
bool nvptxTargetAvailable(std::string *error = nullptr);

} // namespace tile::backend
