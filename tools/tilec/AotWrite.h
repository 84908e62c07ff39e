// AotWrite.h - what `tilec compile --emit ptx|cubin` writes: the kernel's
// PTX (or the cubin ptxas makes of it) with its metadata appended as the
// global `__tile_kernel_info`, so that Context::loadCompiled can load and
// check it through the driver alone. api/AotInfo.h documents the format.
#pragma once

#include "backend/Codegen.h"
#include "sema/Lower.h"

#include <string>

namespace tile::tools {

/// The metadata text of `kernel` compiled to kb for spec and target
/// ("tile-aot 1\nkernel=...\n", without the NUL).
std::string aotInfoText(const std::string &kernel, const backend::KernelBinary &kb, const sema::Specialization &spec,
                        const backend::TargetOptions &target);

/// ptx with `info` appended at module scope: a comment showing it, then
/// the NUL-terminated bytes as `.visible .global .align 1 .b8
/// __tile_kernel_info[N] = {...};`.
std::string appendAotInfo(const std::string &ptx, const std::string &info);

/// The output file of `tilec compile --emit ptx|cubin`: kb's PTX with the
/// metadata appended, assembled by ptxas when `cubin`. The same for a cold
/// compile and a disk-cache hit (the cache holds PTX without metadata).
std::string aotOutput(const std::string &kernel, const backend::KernelBinary &kb, const sema::Specialization &spec,
                      const backend::TargetOptions &target, bool cubin);

} // namespace tile::tools
