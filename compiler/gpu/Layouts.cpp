// Layouts.cpp - blocked and slice layouts: printing, parsing, the default
// blocked layout and the index math (register offsets, thread bases) that
// the LLVM emitter turns into code. Layouts.h states the formulas.
#include "gpu/Layouts.h"

#include "ir/IRParser.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <set>

namespace tile::gpu {

namespace {

std::string listStr(const std::vector<int64_t> &v) { return fmt::format("[{}]", fmt::join(v, ", ")); }

int64_t product(const std::vector<int64_t> &v) {
  int64_t p = 1;
  for (int64_t x : v)
    p *= x;
  return p;
}

/// Odometer over `extents`, digit order given by `order` (order[0] fastest).
/// Returns false after the last combination.
bool nextIndex(std::vector<int64_t> &idx, const std::vector<int64_t> &extents, const std::vector<int64_t> &order) {
  for (int64_t d : order) {
    if (++idx[d] < extents[d])
      return true;
    idx[d] = 0;
  }
  return false;
}

std::vector<std::vector<int64_t>> blockedOffsets(const BlockedLayout &l, const std::vector<int64_t> &shape) {
  int rank = l.rank();
  TILE_ASSERT((int)shape.size() == rank, "layout rank differs from the shape's");
  std::vector<int64_t> reps(rank);
  for (int d = 0; d < rank; ++d) {
    int64_t cta = l.sizePerThread[d] * l.threadsPerWarp[d] * l.warpsPerCTA[d];
    reps[d] = std::max<int64_t>(1, shape[d] / cta);
  }
  // Registers: sizePerThread block innermost (dims in order), then the
  // repetitions of the CTA tile (dims in order), as Triton numbers them.
  std::vector<std::vector<int64_t>> out;
  std::vector<int64_t> rep(rank, 0);
  do {
    std::vector<int64_t> elem(rank, 0);
    do {
      std::vector<int64_t> off(rank);
      for (int d = 0; d < rank; ++d)
        off[d] = rep[d] * l.sizePerThread[d] * l.threadsPerWarp[d] * l.warpsPerCTA[d] + elem[d];
      out.push_back(std::move(off));
    } while (nextIndex(elem, l.sizePerThread, l.order));
  } while (nextIndex(rep, reps, l.order));
  return out;
}

std::vector<DimBase> blockedBases(const BlockedLayout &l) {
  std::vector<DimBase> bases(l.rank());
  int64_t laneDiv = 1, warpDiv = 1;
  for (int64_t d : l.order) {
    DimBase &b = bases[d];
    b.laneDiv = laneDiv;
    b.laneMod = l.threadsPerWarp[d];
    b.laneMul = l.sizePerThread[d];
    b.warpDiv = warpDiv;
    b.warpMod = l.warpsPerCTA[d];
    b.warpMul = l.sizePerThread[d] * l.threadsPerWarp[d];
    laneDiv *= l.threadsPerWarp[d];
    warpDiv *= l.warpsPerCTA[d];
  }
  return bases;
}

// ---------------------------------------------------------------- parser

class LayoutParser {
public:
  explicit LayoutParser(const std::string &text) : text_(text) {}

  std::shared_ptr<const ir::Layout> parseAll() {
    auto l = parseLayout();
    skipSpace();
    if (!l || pos_ != text_.size())
      return nullptr;
    return l;
  }

private:
  const std::string &text_;
  size_t pos_ = 0;

  void skipSpace() {
    while (pos_ < text_.size() && std::isspace((unsigned char)text_[pos_]))
      ++pos_;
  }
  bool consume(char c) {
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool consumeWord(std::string_view w) {
    skipSpace();
    if (text_.compare(pos_, w.size(), w) != 0)
      return false;
    pos_ += w.size();
    return true;
  }
  bool parseInt(int64_t &out) {
    skipSpace();
    size_t start = pos_;
    while (pos_ < text_.size() && std::isdigit((unsigned char)text_[pos_]) && pos_ - start < 9)
      ++pos_;
    if (start == pos_)
      return false;
    out = std::stoll(text_.substr(start, pos_ - start));
    return true;
  }
  // list := '[' int (',' int)* ']'
  bool parseList(std::vector<int64_t> &out) {
    if (!consume('['))
      return false;
    do {
      int64_t v;
      if (!parseInt(v))
        return false;
      out.push_back(v);
    } while (consume(','));
    return consume(']');
  }
  // layout := blocked | slice
  std::shared_ptr<const ir::Layout> parseLayout() {
    if (consumeWord("#blocked"))
      return parseBlocked();
    if (consumeWord("#slice"))
      return parseSlice();
    return nullptr;
  }
  // blocked := '#blocked' '<' list ',' list ',' list ',' list '>'
  std::shared_ptr<const BlockedLayout> parseBlocked() {
    auto l = std::make_shared<BlockedLayout>();
    if (!consume('<') || !parseList(l->sizePerThread) || !consume(',') || !parseList(l->threadsPerWarp) ||
        !consume(',') || !parseList(l->warpsPerCTA) || !consume(',') || !parseList(l->order) || !consume('>'))
      return nullptr;
    return validBlocked(*l) ? l : nullptr;
  }
  // slice := '#slice' '<' int ',' blocked '>'
  std::shared_ptr<const SliceLayout> parseSlice() {
    auto l = std::make_shared<SliceLayout>();
    int64_t dim;
    if (!consume('<') || !parseInt(dim) || !consume(',') || !consumeWord("#blocked"))
      return nullptr;
    l->parent = parseBlocked();
    if (!l->parent || !consume('>') || dim >= l->parent->rank() || l->parent->rank() < 2)
      return nullptr;
    l->dim = (int)dim;
    return l;
  }
  static bool isPow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }
  static bool validBlocked(const BlockedLayout &l) {
    size_t rank = l.order.size();
    if (rank == 0 || l.sizePerThread.size() != rank || l.threadsPerWarp.size() != rank || l.warpsPerCTA.size() != rank)
      return false;
    std::set<int64_t> dims(l.order.begin(), l.order.end());
    if (dims.size() != rank || *dims.rbegin() >= (int64_t)rank)
      return false;
    for (size_t d = 0; d < rank; ++d)
      if (!isPow2(l.sizePerThread[d]) || !isPow2(l.threadsPerWarp[d]) || !isPow2(l.warpsPerCTA[d]))
        return false;
    return product(l.threadsPerWarp) == 32 && product(l.warpsPerCTA) <= 64;
  }
};

} // namespace

// ---------------------------------------------------------------- printing

std::string BlockedLayout::str() const {
  return fmt::format("#blocked<{}, {}, {}, {}>", listStr(sizePerThread), listStr(threadsPerWarp),
                     listStr(warpsPerCTA), listStr(order));
}

bool BlockedLayout::equals(const ir::Layout &o) const {
  auto *b = dynamic_cast<const BlockedLayout *>(&o);
  return b && b->sizePerThread == sizePerThread && b->threadsPerWarp == threadsPerWarp &&
         b->warpsPerCTA == warpsPerCTA && b->order == order;
}

std::string SliceLayout::str() const { return fmt::format("#slice<{}, {}>", dim, parent->str()); }

bool SliceLayout::equals(const ir::Layout &o) const {
  auto *s = dynamic_cast<const SliceLayout *>(&o);
  return s && s->dim == dim && s->parent->equals(*parent);
}

const BlockedLayout *asBlocked(const ir::Type &t) { return dynamic_cast<const BlockedLayout *>(t.layout.get()); }
const SliceLayout *asSlice(const ir::Type &t) { return dynamic_cast<const SliceLayout *>(t.layout.get()); }

// ---------------------------------------------------------------- default

std::shared_ptr<const BlockedLayout> defaultBlocked(const std::vector<int64_t> &shape, int numWarps, int vec,
                                                    std::vector<int64_t> order) {
  int rank = (int)shape.size();
  TILE_ASSERT(rank >= 1 && numWarps >= 1 && vec >= 1, "bad default layout request");
  if (order.empty())
    for (int d = rank - 1; d >= 0; --d)
      order.push_back(d);
  TILE_ASSERT((int)order.size() == rank, "layout order of the wrong rank");
  // No more elements per thread than an even spread gives (as Triton's
  // coalescing does): wider vectors would leave warps replicating others.
  int64_t elements = 1;
  for (int64_t d : shape)
    elements *= d;
  vec = (int)std::min<int64_t>(vec, std::max<int64_t>(1, elements / (32 * (int64_t)numWarps)));
  int64_t fast = order.front(), slow = order.back();
  auto l = std::make_shared<BlockedLayout>();
  l->sizePerThread.assign(rank, 1);
  l->sizePerThread[fast] = std::min<int64_t>(vec, shape[fast]);
  l->threadsPerWarp.assign(rank, 1);
  l->warpsPerCTA.assign(rank, 1);
  l->order = order;
  // Lanes: fastest dims first, no more than the elements left per dim;
  // leftover lanes replicate along the fastest dim.
  int64_t lanes = 32;
  for (int64_t d : l->order) {
    int64_t room = std::max<int64_t>(1, shape[d] / l->sizePerThread[d]);
    l->threadsPerWarp[d] = std::min(lanes, room);
    lanes /= l->threadsPerWarp[d];
  }
  l->threadsPerWarp[fast] *= lanes;
  // Warps: slowest dims first; leftover warps replicate along the slowest.
  int64_t warps = numWarps;
  for (auto it = l->order.rbegin(); it != l->order.rend(); ++it) {
    int64_t d = *it;
    int64_t room = std::max<int64_t>(1, shape[d] / (l->sizePerThread[d] * l->threadsPerWarp[d]));
    l->warpsPerCTA[d] = std::min(warps, room);
    warps /= l->warpsPerCTA[d];
  }
  l->warpsPerCTA[slow] *= warps;
  return l;
}

std::shared_ptr<const BlockedLayout> byteTransposeBlocked(const std::vector<int64_t> &shape, int numWarps, int vec,
                                                          int m) {
  if (shape.size() != 2 || (m != 0 && m != 1)) return nullptr;
  int k = 1 - m;
  int64_t perThread = shape[0] * shape[1] / (32 * int64_t(numWarps)), kRun = 8, v = vec;
  while (kRun * v > perThread && v > 4) v /= 2;
  while (kRun * v > perThread && kRun > 1) kRun /= 2;
  if (kRun < 2 || shape[k] % kRun || shape[m] % v) return nullptr;
  auto l = std::make_shared<BlockedLayout>();
  l->order = {m, k};
  l->sizePerThread.assign(2, 1);
  l->sizePerThread[m] = v;
  l->sizePerThread[k] = kRun;
  l->threadsPerWarp.assign(2, 1);
  l->threadsPerWarp[k] = std::min<int64_t>(32, shape[k] / kRun);
  l->threadsPerWarp[m] = 32 / l->threadsPerWarp[k];
  l->warpsPerCTA.assign(2, 1);
  l->warpsPerCTA[m] = std::min<int64_t>(numWarps, std::max<int64_t>(1, shape[m] / (v * l->threadsPerWarp[m])));
  l->warpsPerCTA[k] = numWarps / l->warpsPerCTA[m];
  for (int d : {0, 1})   // whole repetitions of the layout, none replicated
    if (shape[d] % (l->sizePerThread[d] * l->threadsPerWarp[d] * l->warpsPerCTA[d])) return nullptr;
  return l;
}

// ---------------------------------------------------------------- index math

std::vector<std::vector<int64_t>> regOffsets(const ir::Layout &layout, const std::vector<int64_t> &shape) {
  if (auto *b = dynamic_cast<const BlockedLayout *>(&layout))
    return blockedOffsets(*b, shape);
  auto *s = dynamic_cast<const SliceLayout *>(&layout);
  TILE_ASSERT(s, "unknown layout kind");
  std::vector<int64_t> parentShape = shape;
  parentShape.insert(parentShape.begin() + s->dim, 1);
  std::vector<std::vector<int64_t>> out;
  std::set<std::vector<int64_t>> seen;
  for (auto off : blockedOffsets(*s->parent, parentShape)) {
    off.erase(off.begin() + s->dim);
    if (seen.insert(off).second)
      out.push_back(std::move(off));
  }
  return out;
}

std::vector<DimBase> dimBases(const ir::Layout &layout) {
  if (auto *b = dynamic_cast<const BlockedLayout *>(&layout))
    return blockedBases(*b);
  auto *s = dynamic_cast<const SliceLayout *>(&layout);
  TILE_ASSERT(s, "unknown layout kind");
  auto bases = blockedBases(*s->parent);
  bases.erase(bases.begin() + s->dim);
  return bases;
}

std::shared_ptr<const ir::Layout> parseLayout(const std::string &text) { return LayoutParser(text).parseAll(); }

void registerLayoutParser() { ir::setLayoutParser(parseLayout); }

} // namespace tile::gpu
