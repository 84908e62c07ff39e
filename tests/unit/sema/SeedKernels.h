// SeedKernels.h - the seed lesson's three kernels (tile_fill_kernel,
// matmul_kernel, transpose_kernel) as one source text, built from the
// character-for-character copies the front-end tests keep.
#pragma once

#include "../frontend/SeedKernels.h"

#include <string>

namespace tile::sema::test {

inline const std::string kSeedKernels = std::string(frontend::test::kTileFill) + "\n" +
                                        frontend::test::kMatmul + "\n" + frontend::test::kTranspose;

} // namespace tile::sema::test
