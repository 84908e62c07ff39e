// Layouts.h - distributed layouts of tensor values over a program's threads
// (the GPU back end's view of the tile IR), after Triton's encodings.
//
// A program runs numWarps * 32 threads. A tensor value of shape S is held in
// registers spread over those threads:
//
// BlockedLayout {sizePerThread, threadsPerWarp, warpsPerCTA, order}
//   Along dim d a "CTA tile" covers sizePerThread[d] * threadsPerWarp[d] *
//   warpsPerCTA[d] elements. Lane l and warp w are split over the dims in
//   `order` (order[0] is the fastest-varying dim): the lane index along dim d
//   is (l / prod(threadsPerWarp[order[0..k-1]])) % threadsPerWarp[d] where d
//   = order[k]; likewise for warps. The thread's base coordinate along d is
//     base[d] = laneIdx[d] * sizePerThread[d] + warpIdx[d] * sizePerThread[d] * threadsPerWarp[d]
//   A thread holds, for every repetition of the CTA tile that fits in S[d]
//   and every element of its sizePerThread block, the coordinate
//     coord[d] = (base[d] + offset[d]) % S[d]
//   where offset[d] = rep * ctaTile[d] + i, 0 <= i < sizePerThread[d]. When
//   S[d] < ctaTile[d] the modulo wraps and several threads hold the same
//   element (replication); when S[d] > ctaTile[d] each thread holds several
//   tiles. Registers are numbered by iterating offsets with dims in `order`,
//   fastest first (sizePerThread innermost, then repetitions) -- regOffsets()
//   is the one definition of that numbering.
//
// SliceLayout {dim, parent}
//   The layout of a tensor that is `parent` with dimension `dim` removed (the
//   operand of expand_dims, the result of a reduction along dim). Thread t
//   holds the projections of the parent coordinates it holds (duplicates
//   removed, in parent register order).
//
// Scalars have no layout: every thread holds the value.
#pragma once

#include "ir/IR.h"

#include <memory>
#include <string>
#include <vector>

namespace tile::gpu {

struct BlockedLayout : ir::Layout {
  std::vector<int64_t> sizePerThread, threadsPerWarp, warpsPerCTA, order;
  std::string str() const override;   ///< "#blocked<[1, 4], [8, 4], [4, 1], [1, 0]>"
  bool equals(const ir::Layout &o) const override;
  int rank() const { return static_cast<int>(order.size()); }
};

struct SliceLayout : ir::Layout {
  int dim = 0;
  std::shared_ptr<const BlockedLayout> parent;
  std::string str() const override;   ///< "#slice<1, #blocked<...>>"
  bool equals(const ir::Layout &o) const override;
};

/// Typed views (null when the layout is of the other kind or absent).
const BlockedLayout *asBlocked(const ir::Type &t);
const SliceLayout *asSlice(const ir::Type &t);

/// Triton's default blocked layout for `shape` over numWarps warps: order
/// fastest-last-dim ([rank-1, ..., 0]) unless `order` is given (order[0] the
/// fastest dim, as a coalesced access along another dim needs),
/// sizePerThread[order[0]] = vec (others 1), lanes assigned to the fastest
/// dims first, warps to the slowest dims first, never more threads along a
/// dim than elements when avoidable.
std::shared_ptr<const BlockedLayout> defaultBlocked(const std::vector<int64_t> &shape, int numWarps, int vec = 1,
                                                    std::vector<int64_t> order = {});

/// A 2-D tile of bytes read along `m` (vec bytes a run) and staged in
/// shared memory along the other dim `k` (an fp8/i8 dot operand that is
/// contiguous along M or N, which wgmma reads K-major): each thread holds
/// kRun <= 8 consecutive k of vec consecutive m, lanes along k first, warps
/// along m first, so that a thread's bytes of one m are one kRun-byte
/// store and a warp's stores of one register spread over the rows' chunks.
/// vec shrinks (to 4) before kRun does when a thread holds fewer than 8 vec
/// elements; a larger tile repeats the layout. Null when the tile cannot be
/// covered by whole repetitions that way (or kRun would be 1).
std::shared_ptr<const BlockedLayout> byteTransposeBlocked(const std::vector<int64_t> &shape, int numWarps, int vec,
                                                          int m);

/// For a value of `shape` with layout `layout` (Blocked or Slice), per
/// register, the compile-time offset of each dim (before the `% S[d]`):
/// coord[d] = (base[d](lane, warp) + offsets[r][d]) % S[d]. For a slice
/// layout the offsets are those of the kept dims.
std::vector<std::vector<int64_t>> regOffsets(const ir::Layout &layout, const std::vector<int64_t> &shape);

/// The thread-dependent base of dim d: ((lane / laneDiv) % laneMod) * laneMul
/// + ((warp / warpDiv) % warpMod) * warpMul. For a slice layout, the dims
/// are the kept dims of the parent.
struct DimBase {
  int64_t laneDiv = 1, laneMod = 1, laneMul = 0, warpDiv = 1, warpMod = 1, warpMul = 0;
};
std::vector<DimBase> dimBases(const ir::Layout &layout);

/// Parses the text printed by str() ("#blocked<...>", "#slice<...>");
/// null on malformed text.
std::shared_ptr<const ir::Layout> parseLayout(const std::string &text);

/// Installs parseLayout as the IR parser's layout parser
/// (ir::setLayoutParser), so IR text with layouts reads back.
void registerLayoutParser();

} // namespace tile::gpu
