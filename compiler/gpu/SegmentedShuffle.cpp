// SegmentedShuffle.cpp - the plan of a conversion by two rounds of warp
// shuffles, the second with immediate source lanes (see the header).
#include "gpu/SegmentedShuffle.h"

#include <algorithm>

namespace tile::gpu {

std::optional<SegmentedShuffle> planSegmentedShuffle(const std::vector<std::vector<int64_t>> &srcLanes) {
  if (srcLanes.empty()) return std::nullopt;
  SegmentedShuffle plan;
  // the lane bits any function depends on; none may depend on the warp
  for (const auto &f : srcLanes) {
    if (f.size() < 32 || f.size() % 32) return std::nullopt;
    for (size_t t = 0; t < f.size(); ++t) {
      if (f[t] != f[t % 32] || f[t] < 0 || f[t] > 31) return std::nullopt;
      for (int bit = 0; bit < 5; ++bit)
        if (f[t % 32] != f[(t % 32) ^ (size_t(1) << bit)]) plan.mask |= int64_t(1) << bit;
    }
  }
  int64_t M = plan.mask;
  // the distinct functions, as 32-lane tables
  std::vector<std::vector<int64_t>> fns;
  std::vector<int64_t> slotOf;
  for (const auto &f : srcLanes) {
    std::vector<int64_t> table(f.begin(), f.begin() + 32);
    auto it = std::find(fns.begin(), fns.end(), table);
    slotOf.push_back(int64_t(it - fns.begin()));
    if (it == fns.end()) fns.push_back(table);
  }
  int freeBits = 5 - __builtin_popcountll(uint64_t(M));
  if (fns.size() < 3 || fns.size() > (size_t(1) << freeBits)) return std::nullopt;
  auto deposit = [&](int64_t s) {
    int64_t out = 0;
    for (int bit = 0, k = 0; bit < 5; ++bit)
      if (!(M >> bit & 1)) out |= ((s >> k++) & 1) << bit;
    return out;
  };
  auto extract = [&](int64_t lane) {
    int64_t s = 0;
    for (int bit = 0, k = 0; bit < 5; ++bit)
      if (!(M >> bit & 1)) s |= ((lane >> bit) & 1) << k++;
    return s;
  };
  // P(lane) = F_s(lane & M) for s = lane's bits outside M (any lane where
  // no function has slot s); F(u) is its table at lane u (it ignores the
  // bits outside M)
  for (int64_t l = 0; l < 32; ++l) {
    int64_t s = extract(l);
    plan.permute.push_back(s < int64_t(fns.size()) ? fns[size_t(s)][size_t(l & M)] : 0);
  }
  for (int64_t s : slotOf) plan.lane.push_back(deposit(s));
  return plan;
}

} // namespace tile::gpu
