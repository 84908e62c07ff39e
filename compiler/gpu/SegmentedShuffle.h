// SegmentedShuffle.h - a layout conversion by warp shuffles whose source
// lanes are immediates (the plan; Emitter::segmentedShuffles emits it).
//
// When every destination register j reads lane F_j(lane & M) of its own
// warp (the same in every warp), for a few lane bits M and at most
// 2^(5 - |M|) distinct functions F, one shuffle by a permutation P first
// puts F_s(u) at lane u | deposit(s) (s's bits at the lane bits outside M);
// then register j is a shuffle with source lane deposit(s_j), an
// immediate, under shfl's segment mask M: PTX's .idx mode reads lane
// (lane & M) | (b & ~M). A loop then keeps one lane register (P's) where
// it kept one per function (an MMA accumulator's 8 columns a thread,
// 2 (lane % 4) + 8k + e, read from a vector loaded one element a lane).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace tile::gpu {

struct SegmentedShuffle {
  int64_t mask = 0;                ///< M
  std::vector<int64_t> permute;    ///< per lane (32): the lane the first shuffle reads
  std::vector<int64_t> lane;       ///< per destination register: the immediate source lane
  /// shfl's c operand for the second shuffles: segment mask M, clamp 31.
  int64_t clamp() const { return mask << 8 | 31; }
};

/// srcLanes: per destination register, per thread (32 a warp, warp-major),
/// the lane it reads. Empty when the lanes are not functions of a few lane
/// bits alone, or when they need fewer than 3 functions (plain shuffles
/// with one lane register each are as cheap).
std::optional<SegmentedShuffle> planSegmentedShuffle(const std::vector<std::vector<int64_t>> &srcLanes);

} // namespace tile::gpu
