// Fp8Dots.h - the "tile-fp8-dots" pass: a dot of fp8 operands (float8e4nv,
// float8e5) that does not run as wgmma (dotRunsOnWgmma: sm_90a, whole
// warpgroups, K a multiple of 128 or 64) gets its operands converted to
// f16 first, so the mma.sync and FMA paths see f16 dots. The conversion is
// exact (every fp8 value is an f16 value), and f16 products are exact in
// the f32 accumulator, as fp8 products are: the result is the one the fp8
// dot gives, up to the order of the f32 sums. After this pass the only fp8
// dots left are the ones the wgmma lowering takes (m64nNk32, both operands
// K-major in shared memory).
#pragma once

#include "ir/IR.h"
#include "transforms/PassManager.h"

#include <string>

namespace tile::gpu {

/// Returns true when the function changed.
bool fp8Dots(ir::Function &fn, int numWarps, const std::string &arch);
transforms::Pass fp8DotsPass(int numWarps, const std::string &arch);

} // namespace tile::gpu
