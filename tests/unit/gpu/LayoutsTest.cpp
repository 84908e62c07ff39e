// LayoutsTest.cpp - the layout index math against a brute-force reference
// written from the formulas in Layouts.h, plus printing, parsing and the
// default blocked layout.
#include "gpu/Layouts.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

using namespace tile;
using namespace tile::gpu;

namespace {

using Coord = std::vector<int64_t>;

std::shared_ptr<BlockedLayout> makeBlocked(std::vector<int64_t> spt, std::vector<int64_t> tpw,
                                           std::vector<int64_t> wpc, std::vector<int64_t> order) {
  auto l = std::make_shared<BlockedLayout>();
  l->sizePerThread = std::move(spt);
  l->threadsPerWarp = std::move(tpw);
  l->warpsPerCTA = std::move(wpc);
  l->order = std::move(order);
  return l;
}

int64_t numWarpsOf(const BlockedLayout &l) {
  int64_t n = 1;
  for (int64_t w : l.warpsPerCTA)
    n *= w;
  return n;
}

/// base[d] straight from the header's prose (not from dimBases).
Coord referenceBase(const BlockedLayout &l, int64_t lane, int64_t warp) {
  Coord base(l.rank());
  int64_t laneRest = lane, warpRest = warp;
  for (int64_t d : l.order) {
    int64_t li = laneRest % l.threadsPerWarp[d], wi = warpRest % l.warpsPerCTA[d];
    laneRest /= l.threadsPerWarp[d];
    warpRest /= l.warpsPerCTA[d];
    base[d] = li * l.sizePerThread[d] + wi * l.sizePerThread[d] * l.threadsPerWarp[d];
  }
  return base;
}

/// Register r's offsets: sizePerThread block innermost, then repetitions,
/// dims in `order` within each.
Coord referenceOffset(const BlockedLayout &l, const Coord &shape, int64_t r) {
  int rank = l.rank();
  int64_t perBlock = 1;
  for (int64_t s : l.sizePerThread)
    perBlock *= s;
  int64_t elem = r % perBlock, rep = r / perBlock;
  Coord off(rank);
  for (int64_t d : l.order) {
    int64_t cta = l.sizePerThread[d] * l.threadsPerWarp[d] * l.warpsPerCTA[d];
    int64_t reps = std::max<int64_t>(1, shape[d] / cta);
    off[d] = (rep % reps) * cta + elem % l.sizePerThread[d];
    rep /= reps;
    elem /= l.sizePerThread[d];
  }
  return off;
}

int64_t evalBase(const DimBase &b, int64_t lane, int64_t warp) {
  return ((lane / b.laneDiv) % b.laneMod) * b.laneMul + ((warp / b.warpDiv) % b.warpMod) * b.warpMul;
}

/// Per (warp, lane): the set of coordinates the thread holds, via regOffsets + dimBases.
std::map<std::pair<int64_t, int64_t>, std::set<Coord>> threadCoords(const ir::Layout &l, const Coord &shape,
                                                                   int64_t numWarps) {
  std::map<std::pair<int64_t, int64_t>, std::set<Coord>> out;
  auto offs = regOffsets(l, shape);
  auto bases = dimBases(l);
  REQUIRE(bases.size() == shape.size());
  for (int64_t w = 0; w < numWarps; ++w)
    for (int64_t lane = 0; lane < 32; ++lane)
      for (auto &off : offs) {
        Coord c(shape.size());
        for (size_t d = 0; d < shape.size(); ++d)
          c[d] = (evalBase(bases[d], lane, w) + off[d]) % shape[d];
        out[{w, lane}].insert(c);
      }
  return out;
}

std::vector<int64_t> splitPow2(std::mt19937 &rng, int64_t total, int rank) {
  std::vector<int64_t> v(rank, 1);
  while (total > 1) {
    v[rng() % rank] *= 2;
    total /= 2;
  }
  return v;
}

std::shared_ptr<BlockedLayout> randomBlocked(std::mt19937 &rng, int rank) {
  std::vector<int64_t> spt(rank), order(rank);
  for (int d = 0; d < rank; ++d) {
    spt[d] = int64_t(1) << (rng() % 3);
    order[d] = d;
  }
  std::shuffle(order.begin(), order.end(), rng);
  int64_t warps = int64_t(1) << (rng() % 4);
  return makeBlocked(spt, splitPow2(rng, 32, rank), splitPow2(rng, warps, rank), order);
}

Coord randomShape(std::mt19937 &rng, int rank) {
  Coord s(rank);
  for (auto &d : s)
    d = int64_t(1) << (rng() % 7);
  return s;
}

} // namespace

TEST_CASE("blocked layouts print, compare and parse back") {
  auto l = makeBlocked({1, 4}, {8, 4}, {4, 1}, {1, 0});
  CHECK(l->str() == "#blocked<[1, 4], [8, 4], [4, 1], [1, 0]>");
  auto parsed = parseLayout(l->str());
  REQUIRE(parsed);
  CHECK(parsed->equals(*l));
  CHECK(!parsed->equals(*makeBlocked({1, 4}, {8, 4}, {4, 1}, {0, 1})));
  SliceLayout s;
  s.dim = 1;
  s.parent = l;
  CHECK(s.str() == "#slice<1, #blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>");
  auto ps = parseLayout(s.str());
  REQUIRE(ps);
  CHECK(ps->equals(s));
  CHECK(!ps->equals(*l));
  ir::Type t = ir::Type::tensor(ElemType::of(Scalar::F32), {16});
  t.layout = ps;
  CHECK(asSlice(t) != nullptr);
  CHECK(asBlocked(t) == nullptr);
}

TEST_CASE("malformed layout text gives null") {
  for (const char *bad : {"", "#blocked", "#blocked<[1], [32], [4]>", "#blocked<[1], [16], [4], [0]>",
                          "#blocked<[1, 1], [8, 4], [4, 1], [1, 1]>", "#blocked<[3], [32], [4], [0]>",
                          "#slice<1, #blocked<[4], [32], [4], [0]>>", "#slice<2, #blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>",
                          "#blocked<[1], [32], [4], [0]> junk", "#blocked<[99999999999999], [32], [4], [0]>",
                          "#weird<1>"})
    CHECK_MESSAGE(parseLayout(bad) == nullptr, bad);
}

TEST_CASE("default blocked layouts match Triton's") {
  CHECK(defaultBlocked({16, 16}, 4)->str() == "#blocked<[1, 1], [2, 16], [4, 1], [1, 0]>");
  CHECK(defaultBlocked({1024}, 4, 4)->str() == "#blocked<[4], [32], [4], [0]>");
  CHECK(defaultBlocked({128, 64}, 8, 4)->str() == "#blocked<[1, 4], [2, 16], [8, 1], [1, 0]>");
  // Small shapes: replication, never more than 32 lanes / numWarps warps.
  CHECK(defaultBlocked({4}, 4)->str() == "#blocked<[1], [32], [4], [0]>");
  // Vectors no wider than an even spread of the elements (Triton's cap):
  // 8 elements over 64 threads give 1 per thread, 256 over 128 give 2.
  CHECK(defaultBlocked({2, 4}, 2, 8)->str() == "#blocked<[1, 1], [2, 16], [2, 1], [1, 0]>");
  CHECK(defaultBlocked({16, 16}, 4, 4)->str() == "#blocked<[1, 2], [4, 8], [4, 1], [1, 0]>");
  // Another order (an access contiguous along dim 0): the vector, the
  // lanes and the leftovers go to order[0], the warps to the slowest dim.
  CHECK(defaultBlocked({64, 128}, 4, 8, {0, 1})->str() == "#blocked<[8, 1], [8, 4], [1, 4], [0, 1]>");
  CHECK(defaultBlocked({128, 64}, 8, 4, {1, 0})->str() == defaultBlocked({128, 64}, 8, 4)->str());
  CHECK(defaultBlocked({4, 8, 16}, 4, 4, {0, 2, 1})->str() == "#blocked<[4, 1, 1], [1, 2, 16], [1, 4, 1], [0, 2, 1]>");
}

TEST_CASE("regOffsets and dimBases follow the documented formula") {
  std::mt19937 rng(1234);
  for (int iter = 0; iter < 300; ++iter) {
    int rank = 1 + int(rng() % 3);
    auto l = randomBlocked(rng, rank);
    Coord shape = randomShape(rng, rank);
    INFO(l->str(), " shape rank ", rank);
    auto offs = regOffsets(*l, shape);
    // (b) numbering
    for (size_t r = 0; r < offs.size(); ++r)
      REQUIRE(offs[r] == referenceOffset(*l, shape, (int64_t)r));
    int64_t expectRegs = 1;
    for (int d = 0; d < rank; ++d)
      expectRegs *= l->sizePerThread[d] *
                    std::max<int64_t>(1, shape[d] / (l->sizePerThread[d] * l->threadsPerWarp[d] * l->warpsPerCTA[d]));
    REQUIRE((int64_t)offs.size() == expectRegs);
    // bases
    auto bases = dimBases(*l);
    int64_t nw = numWarpsOf(*l);
    for (int64_t w = 0; w < nw; ++w)
      for (int64_t lane = 0; lane < 32; ++lane) {
        Coord ref = referenceBase(*l, lane, w);
        for (int d = 0; d < rank; ++d)
          REQUIRE(evalBase(bases[d], lane, w) == ref[d]);
      }
    // (a) coverage
    std::set<Coord> held;
    for (auto &[thread, coords] : threadCoords(*l, shape, nw))
      held.insert(coords.begin(), coords.end());
    int64_t total = 1;
    for (int64_t s : shape)
      total *= s;
    REQUIRE((int64_t)held.size() == total);
  }
}

TEST_CASE("default blocked layouts cover without replication when the shape is large enough") {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 100; ++iter) {
    int rank = 1 + int(rng() % 3);
    Coord shape = randomShape(rng, rank);
    int warps = 1 << (rng() % 4);
    int vec = 1 << (rng() % 3);
    auto l = defaultBlocked(shape, warps, vec);
    int64_t lanes = 1, ws = 1;
    for (int d = 0; d < rank; ++d) {
      lanes *= l->threadsPerWarp[d];
      ws *= l->warpsPerCTA[d];
    }
    REQUIRE(lanes == 32);
    REQUIRE(ws == warps);
    int64_t total = 1;
    for (int64_t s : shape)
      total *= s;
    auto offs = regOffsets(*l, shape);
    std::set<Coord> held;
    int64_t slots = 0;
    for (auto &[thread, coords] : threadCoords(*l, shape, warps)) {
      held.insert(coords.begin(), coords.end());
      slots += (int64_t)coords.size();
    }
    REQUIRE((int64_t)held.size() == total);
    if (total >= 32 * warps * vec)
      CHECK(slots == total);   // every element held exactly once
  }
}

TEST_CASE("slice layouts hold exactly the projections of the parent") {
  std::mt19937 rng(99);
  for (int iter = 0; iter < 200; ++iter) {
    int rank = 2 + int(rng() % 2);
    auto parent = randomBlocked(rng, rank);
    Coord parentShape = randomShape(rng, rank);
    auto slice = std::make_shared<SliceLayout>();
    slice->dim = int(rng() % rank);
    slice->parent = parent;
    Coord shape = parentShape;
    shape.erase(shape.begin() + slice->dim);
    INFO(slice->str());
    int64_t nw = numWarpsOf(*parent);
    auto parentCoords = threadCoords(*parent, parentShape, nw);
    auto sliceCoords = threadCoords(*slice, shape, nw);
    auto offs = regOffsets(*slice, shape);
    std::set<Coord> uniq(offs.begin(), offs.end());
    REQUIRE(uniq.size() == offs.size());   // duplicates removed
    for (auto &[thread, coords] : parentCoords) {
      std::set<Coord> proj;
      for (Coord c : coords) {
        c.erase(c.begin() + slice->dim);
        proj.insert(c);
      }
      REQUIRE(sliceCoords[thread] == proj);
    }
  }
}
