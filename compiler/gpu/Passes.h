// Passes.h - registers the GPU passes in the pass registry
// (transforms/PassManager.h), built for a PassTarget: tile-fp8-dots
// (num_warps, arch: which fp8 dots run as wgmma), tile-permute-loads
// (num_warps, arch: which dots run as wgmma), tile-pipeline
// (num_stages, wgmma distances for arch), tile-layouts (num_warps, arch),
// and the test pass test-print-axis-info (prints every op result's axis
// info to stdout; tile-opt only).
#pragma once

namespace tile::gpu {

/// Idempotent and thread safe; the driver and tile-opt call it before they
/// look passes up.
void registerPasses();

} // namespace tile::gpu
