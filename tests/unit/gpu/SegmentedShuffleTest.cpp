// SegmentedShuffleTest.cpp - the two-round shuffle plans, checked by
// simulating PTX's shfl.sync.idx (source lane (lane & segmask) | (b &
// ~segmask), the own lane when that passes the clamp) on MMA-like and
// random source-lane functions.
#include "gpu/SegmentedShuffle.h"

#include <doctest/doctest.h>

#include <random>

using namespace tile::gpu;

namespace {

int64_t shflIdx(const std::vector<int64_t> &vals, int64_t lane, int64_t b, int64_t c) {
  int64_t segmask = (c >> 8) & 31, cval = c & 31;
  int64_t maxLane = (lane & segmask) | (cval & ~segmask), j = (lane & segmask) | (b & ~segmask & 31);
  return vals[size_t(j <= maxLane ? j : lane)];
}

/// Every destination register of every thread gets its source lane's value.
void simulate(const SegmentedShuffle &plan, const std::vector<std::vector<int64_t>> &srcLanes, int64_t warps) {
  for (int64_t w = 0; w < warps; ++w) {
    std::vector<int64_t> v(32), p(32);
    for (int64_t l = 0; l < 32; ++l) v[size_t(l)] = 1000 * w + l;
    for (int64_t l = 0; l < 32; ++l) p[size_t(l)] = shflIdx(v, l, plan.permute[size_t(l)], 31);
    for (size_t j = 0; j < srcLanes.size(); ++j)
      for (int64_t l = 0; l < 32; ++l)
        REQUIRE(shflIdx(p, l, plan.lane[j], plan.clamp()) == v[size_t(srcLanes[j][size_t(w * 32 + l)])]);
  }
}

} // namespace

TEST_CASE("an MMA accumulator's columns from a vector one element a lane: segment mask 3, immediates 4s") {
  // 8 registers: columns 2 (lane % 4) + e + 8k, twice (two source registers' worth), 4 warps
  std::vector<std::vector<int64_t>> lanes;
  for (int rep = 0; rep < 2; ++rep)
    for (int k = 0; k < 4; ++k)
      for (int e = 0; e < 2; ++e) {
        std::vector<int64_t> f;
        for (int64_t t = 0; t < 128; ++t) f.push_back(2 * (t % 4) + e + 8 * k);
        lanes.push_back(f);
      }
  auto plan = planSegmentedShuffle(lanes);
  REQUIRE(plan);
  CHECK(plan->mask == 3);
  CHECK(plan->clamp() == 799);
  for (size_t j = 0; j < lanes.size(); ++j) CHECK((plan->lane[j] & 3) == 0);
  simulate(*plan, lanes, 4);
}

TEST_CASE("source lanes that depend on the warp, or on every lane bit, are not planned") {
  std::vector<std::vector<int64_t>> byWarp(3, std::vector<int64_t>(64));
  for (int j = 0; j < 3; ++j)
    for (int64_t t = 0; t < 64; ++t) byWarp[size_t(j)][size_t(t)] = (t / 32 + j) % 32;
  CHECK_FALSE(planSegmentedShuffle(byWarp));
  std::vector<std::vector<int64_t>> everyBit(3, std::vector<int64_t>(32));
  for (int j = 0; j < 3; ++j)
    for (int64_t t = 0; t < 32; ++t) everyBit[size_t(j)][size_t(t)] = (t + j) % 32;
  CHECK_FALSE(planSegmentedShuffle(everyBit));   // 3 functions of all 5 bits: no room
  std::vector<std::vector<int64_t>> two(2, std::vector<int64_t>(32, 5));
  CHECK_FALSE(planSegmentedShuffle(two));   // fewer than 3 functions
}

TEST_CASE("random functions of a few lane bits") {
  std::mt19937 rng(8122026);
  int planned = 0;
  for (int iter = 0; iter < 400; ++iter) {
    int64_t mask = 0;
    for (int bit = 0; bit < 5; ++bit)
      if (rng() % 3 == 0) mask |= int64_t(1) << bit;
    int freeBits = 5 - __builtin_popcountll(uint64_t(mask));
    int64_t nFns = 1 + int64_t(rng() % (uint64_t(1) << freeBits));
    std::vector<std::vector<int64_t>> fns;
    for (int64_t s = 0; s < nFns; ++s) {
      std::vector<int64_t> table(32);
      for (int64_t u = 0; u < 32; ++u) table[size_t(u)] = int64_t(rng() % 32);
      std::vector<int64_t> f(32);
      for (int64_t l = 0; l < 32; ++l) f[size_t(l)] = table[size_t(l & mask)];
      fns.push_back(f);
    }
    int64_t warps = int64_t(1) << (rng() % 3);
    std::vector<std::vector<int64_t>> lanes;
    for (int64_t j = 0, n = 1 + int64_t(rng() % 24); j < n; ++j) {
      const auto &f = fns[rng() % fns.size()];
      std::vector<int64_t> full;
      for (int64_t t = 0; t < 32 * warps; ++t) full.push_back(f[size_t(t % 32)]);
      lanes.push_back(full);
    }
    auto plan = planSegmentedShuffle(lanes);
    if (!plan) continue;
    ++planned;
    CHECK((plan->mask & ~mask) == 0);
    simulate(*plan, lanes, warps);
  }
  CHECK(planned > 100);
}
