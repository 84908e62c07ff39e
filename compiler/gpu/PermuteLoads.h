// PermuteLoads.h - the "tile-permute-loads" pass: a wgmma dot's operand
// that is a permuted load, permute(load(p, mask, other)) with the permute
// the load's one use, becomes load(permute(p), permute(mask),
// permute(other)) (a constant other stays a constant). A load is
// elementwise in its operands, so permuting its result is permuting them;
// the dot then sees the load itself as its operand, and a transposed
// operand (`tl.dot(a, tl.trans(w))`) takes the same copy path as one whose
// strides make it K-major (WgmmaToLLVM stages either order).
//
// A load with other uses besides the permute (the attention backward's qᵀ,
// read by k qᵀ and, transposed, by dsᵀ q) stays for them, and the permute's
// use gets a second load of the same tile beside it, in a loop body only:
// each load then has one dot to feed and takes that dot's cp.async ring
// (the second read of the tile hits L2); a tile read in registers by both
// dots would be staged through shared memory twice an iteration instead.
// Only where the loop's rings (num_stages slots of each wgmma operand tile)
// and its invariant A buffers still fit in shared memory with the second
// one: else the back end would give up the A buffers (restaging them every
// iteration), far worse than the shared load's staging.
//
// Not where one cp.async ring can serve both dots (sharesOperandRing): the
// back end then gives the permuted use the other dot's ring slot through a
// transposed descriptor (Emitter::ringAlias, Triton's memdesc_trans), one
// copy of the tile an iteration and one ring.
//
// Only for a dot that runs as wgmma (dotRunsOnWgmma: num_warps, arch), or
// an f16/bf16 mma.sync dot in a loop body that may take a cp.async ring
// (both operands loads of the body, the permuted one with no other use:
// the ring stages a K-major B or M-major A transposed, `a @ tl.trans(w)`
// on 2 warps 36 -> 173 TF/s on the H100); for any other
// user (a transposed store, mma.sync from registers), permuting the
// pointers and the mask costs more than permuting the values. Only
// where the permute, the load and the dot are in one block and the permute
// has no other use; the new ops go where the load was (no store is
// crossed).
#pragma once

#include "gpu/AxisInfo.h"
#include "ir/IR.h"
#include "transforms/PassManager.h"

#include <string>

namespace tile::gpu {

/// Whether the loaded tile ld (f16/bf16, 2-D) is read by exactly a wgmma
/// dot, as its B, and a transpose whose one user is another wgmma dot, as
/// its B, after the first, in ld's block, with the tile's rows along its
/// contiguous dim whole 128-byte swizzle rows (a multiple of 64 elements;
/// the other dim a multiple of 8): one cp.async ring then serves both dots (WgmmaToLLVM's
/// planRingAliases checks the rest), so the pipeline pass prefetches it
/// as it does a dot's own operand and this pass leaves the transpose.
bool sharesOperandRing(const ir::Op &ld, const AxisInfo &axis, int numWarps, const std::string &arch);
/// Whether a shared ring's tile with `rows` elements along its 128-byte
/// rows can be read through a ring alias: whole swizzle rows (a multiple of
/// 64; D = 64 and D = 128 run on the H100, session 26).
bool aliasRowsFit(int64_t rows);

/// Returns true when the function changed.
bool permuteLoads(ir::Function &fn, int numWarps, int numStages, const std::string &arch);
transforms::Pass permuteLoadsPass(int numWarps, int numStages, const std::string &arch);

} // namespace tile::gpu
