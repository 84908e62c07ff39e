// MatrixRoundTripTest.cpp - the plans of 16-bit conversions by ldmatrix /
// stmatrix, checked by simulation: random blocked layouts of power-of-two
// 2-D tiles, converted as they are and transposed; the free side's
// accesses and the matrix instructions (PTX's fragment rules: lane t holds
// rows 2(t%4), 2(t%4)+1 at column t/4 in the .trans form, row t/4 at
// columns 2(t%4), 2(t%4)+1 in the plain one; lanes 8q..8q+7 give matrix
// q's row addresses) move every element to the destination register that
// holds it, and no slot is written twice.
#include "gpu/Layouts.h"
#include "gpu/MatrixRoundTrip.h"

#include <doctest/doctest.h>

#include <random>

using namespace tile;
using namespace tile::gpu;

namespace {

struct Layout2 {
  std::shared_ptr<BlockedLayout> layout;
  std::vector<std::vector<int64_t>> offsets;
  std::vector<DimBase> bases;
};

Layout2 blocked(std::vector<int64_t> spt, std::vector<int64_t> tpw, std::vector<int64_t> wpc, std::vector<int64_t> order,
                const std::vector<int64_t> &shape) {
  Layout2 l;
  l.layout = std::make_shared<BlockedLayout>();
  l.layout->sizePerThread = std::move(spt);
  l.layout->threadsPerWarp = std::move(tpw);
  l.layout->warpsPerCTA = std::move(wpc);
  l.layout->order = std::move(order);
  l.offsets = regOffsets(*l.layout, shape);
  l.bases = dimBases(*l.layout);
  return l;
}

/// Element index (row-major over srcShape) of (lane, warp, reg) of a layout
/// of `shape` whose dim j is srcShape's dim dimMap[j].
BitVec elementOf(const Layout2 &l, const std::vector<int64_t> &shape, const std::vector<int> &dimMap,
                 const std::vector<int64_t> &srcShape, int64_t lane, int64_t warp, int64_t reg) {
  std::vector<int64_t> x(2);
  for (size_t j = 0; j < 2; ++j) {
    const DimBase &db = l.bases[j];
    int64_t base = ((lane / db.laneDiv) % db.laneMod) * db.laneMul + ((warp / db.warpDiv) % db.warpMod) * db.warpMul;
    x[size_t(dimMap[j])] = (base + l.offsets[size_t(reg)][j]) % shape[j];
  }
  return BitVec(x[0] * srcShape[1] + x[1]);
}

/// A random blocked layout of `shape` on `warps` warps with no replication
/// (every thread's block inside the shape), order random.
Layout2 randomBlocked(std::mt19937 &rng, const std::vector<int64_t> &shape, int64_t warps) {
  for (;;) {
    std::vector<int64_t> order = rng() % 2 ? std::vector<int64_t>{1, 0} : std::vector<int64_t>{0, 1};
    std::vector<int64_t> spt(2, 1), tpw(2, 1), wpc(2, 1);
    int64_t fast = order[0];
    spt[size_t(fast)] = int64_t(1) << (rng() % 4);   // 1..8
    if (rng() % 3 == 0) spt[size_t(1 - fast)] = 2;
    int64_t lanesFast = int64_t(1) << (rng() % 6);   // 1..32
    tpw[size_t(fast)] = lanesFast;
    tpw[size_t(1 - fast)] = 32 / lanesFast;
    int64_t wFast = int64_t(1) << (rng() % 3);
    wpc[size_t(fast)] = std::min(wFast, warps);
    wpc[size_t(1 - fast)] = warps / wpc[size_t(fast)];
    bool fits = true;
    for (size_t d = 0; d < 2; ++d) fits = fits && spt[d] * tpw[d] * wpc[d] <= shape[d];
    if (fits) return blocked(spt, tpw, wpc, order, shape);
  }
}

/// Simulates the plan; returns the number of elements checked.
int64_t simulate(const MatrixPlan &plan, const std::function<BitVec(int64_t, int64_t, int64_t)> &src,
                 const std::function<BitVec(int64_t, int64_t, int64_t)> &dst, int64_t regs, int64_t warps) {
  int64_t numel = regs * 32 * warps;
  std::vector<int64_t> smem(size_t(numel), -1);
  BitVec lowMask = (BitVec(1) << plan.freeBits) - 1;
  int64_t nm = int64_t(1) << plan.mBits;
  // every element of the fixed side: f(slot, lane, warp, register), the
  // slot by the fragment rules from the row its matrix's lane addresses
  auto eachFixed = [&](const std::function<void(int64_t, int64_t, int64_t, int64_t)> &f) {
    for (int64_t w = 0; w < warps; ++w)
      for (int64_t g = 0; g < (int64_t(1) << plan.groupBits); ++g)
        for (int64_t t = 0; t < 32; ++t)
          for (int64_t q = 0; q < nm; ++q)
            for (int64_t e = 0; e < 2; ++e) {
              int64_t rho = plan.trans ? 2 * (t % 4) + e : t / 4, col = plan.trans ? t / 4 : 2 * (t % 4) + e;
              int64_t slot = int64_t(plan.fixedRow(8 * q + rho, w, g)) * 8 + col;
              REQUIRE(slot < numel);
              f(slot, t, w, e | q << 1 | g << (1 + plan.mBits));
            }
  };
  // every element of the free side: f(slot, lane, warp, register)
  auto eachFree = [&](const std::function<void(int64_t, int64_t, int64_t, int64_t)> &f) {
    for (int64_t w = 0; w < warps; ++w)
      for (int64_t l = 0; l < 32; ++l) {
        REQUIRE((plan.free.at(0, l, w) & lowMask) == 0);   // vector accesses stay whole
        for (int64_t r = 0; r < regs; ++r) {
          int64_t slot = int64_t(plan.free.at(r, l, w));
          REQUIRE(slot < numel);
          f(slot, l, w, r);
        }
      }
  };
  int64_t checked = 0;
  auto write = [&](const std::function<BitVec(int64_t, int64_t, int64_t)> &from) {
    return [&](int64_t slot, int64_t l, int64_t w, int64_t r) {
      REQUIRE(smem[size_t(slot)] == -1);
      smem[size_t(slot)] = int64_t(from(l, w, r));
    };
  };
  auto read = [&](int64_t slot, int64_t l, int64_t w, int64_t r) {
    REQUIRE(smem[size_t(slot)] == int64_t(dst(l, w, r)));
    ++checked;
  };
  if (plan.stmatrix) {
    eachFixed(write(src));
    eachFree(read);
  } else {
    eachFree(write(src));
    eachFixed(read);
  }
  return checked;
}

} // namespace

TEST_CASE("a 64x64 transpose reads back by ldmatrix.trans with 16-byte stores and no bank conflict") {
  // fused.tile's transpose_2d: the load's layout on both sides, permuted
  std::vector<int64_t> shape{64, 64};
  Layout2 l = blocked({1, 8}, {4, 8}, {4, 1}, {1, 0}, shape);
  int64_t regs = int64_t(l.offsets.size());
  auto src = linearLayout(regs, 4, 12, [&](int64_t ln, int64_t w, int64_t r) { return elementOf(l, shape, {0, 1}, shape, ln, w, r); });
  auto dst = linearLayout(regs, 4, 12, [&](int64_t ln, int64_t w, int64_t r) { return elementOf(l, shape, {1, 0}, shape, ln, w, r); });
  REQUIRE(src);
  REQUIRE(dst);
  auto plan = planMatrixRoundTrip(*src, *dst, true);
  REQUIRE(plan);
  CHECK_FALSE(plan->stmatrix);
  CHECK(plan->trans);
  CHECK(plan->freeBits == 3);
  CHECK(plan->mBits == 2);
  CHECK(plan->score == 3 * 8 + 3);   // a phase's 8 lanes in 8 bank groups
  simulate(*plan, [&](int64_t ln, int64_t w, int64_t r) { return elementOf(l, shape, {0, 1}, shape, ln, w, r); },
           [&](int64_t ln, int64_t w, int64_t r) { return elementOf(l, shape, {1, 0}, shape, ln, w, r); }, regs, 4);
}

TEST_CASE("a replicated or non-power-of-two layout is not linear") {
  std::vector<int64_t> shape{16, 16};
  Layout2 l = blocked({1, 8}, {4, 8}, {4, 1}, {1, 0}, shape);   // 16 rows over 16 row threads: 64 columns wrap
  auto m = linearLayout(int64_t(l.offsets.size()), 4, 8,
                        [&](int64_t ln, int64_t w, int64_t r) { return elementOf(l, shape, {0, 1}, shape, ln, w, r); });
  CHECK_FALSE(m);
  auto odd = linearLayout(3, 4, 8, [](int64_t, int64_t, int64_t) { return BitVec(0); });
  CHECK_FALSE(odd);
}

TEST_CASE("random blocked conversions and transposes: every plan moves every element to its holder") {
  std::mt19937 rng(20261208);
  int plans = 0, stmatrixPlans = 0, plainPlans = 0;
  int64_t elements = 0;
  for (int iter = 0; iter < 600; ++iter) {
    int64_t warps = int64_t(1) << (rng() % 4);   // 1..8
    std::vector<int64_t> shape{int64_t(1) << (3 + rng() % 5), int64_t(1) << (3 + rng() % 5)};
    int64_t numel = shape[0] * shape[1];
    if (numel < 64 * warps || numel > 16384) continue;
    bool transpose = rng() % 2;
    std::vector<int64_t> dstShape = transpose ? std::vector<int64_t>{shape[1], shape[0]} : shape;
    std::vector<int> dimMap = transpose ? std::vector<int>{1, 0} : std::vector<int>{0, 1};
    Layout2 a = randomBlocked(rng, shape, warps), b = randomBlocked(rng, dstShape, warps);
    int64_t regs = numel / (32 * warps);
    if (int64_t(a.offsets.size()) != regs || int64_t(b.offsets.size()) != regs) continue;
    int bits = 0;
    while ((int64_t(1) << bits) < numel) ++bits;
    auto srcFn = [&](int64_t ln, int64_t w, int64_t r) { return elementOf(a, shape, {0, 1}, shape, ln, w, r); };
    auto dstFn = [&](int64_t ln, int64_t w, int64_t r) { return elementOf(b, dstShape, dimMap, shape, ln, w, r); };
    auto src = linearLayout(regs, int(warps), bits, srcFn), dst = linearLayout(regs, int(warps), bits, dstFn);
    if (!src || !dst) continue;
    auto plan = planMatrixRoundTrip(*src, *dst, rng() % 4 != 0);
    if (!plan) continue;
    ++plans;
    stmatrixPlans += plan->stmatrix;
    plainPlans += !plan->trans;
    elements += simulate(*plan, srcFn, dstFn, regs, warps);
  }
  MESSAGE(plans << " plans (" << stmatrixPlans << " stmatrix, " << plainPlans << " plain), " << elements << " elements");
  CHECK(plans > 100);
  CHECK(stmatrixPlans > 10);
  CHECK(plainPlans > 10);
}
