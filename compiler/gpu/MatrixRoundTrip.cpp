// MatrixRoundTrip.cpp - the shared-memory plan of a 16-bit conversion by
// ldmatrix / stmatrix (see the header).
#include "gpu/MatrixRoundTrip.h"

#include <algorithm>

namespace tile::gpu {

namespace {

/// For a linear bijection given by the images `basis[i]` of input bit i:
/// the input bits (a mask) whose images XOR to each unit vector 1 << j.
std::optional<std::vector<BitVec>> invert(const std::vector<BitVec> &basis) {
  size_t n = basis.size();
  std::vector<BitVec> rows(basis), combo(n);
  for (size_t i = 0; i < n; ++i) combo[i] = BitVec(1) << i;
  for (size_t bit = 0; bit < n; ++bit) {
    size_t p = bit;
    while (p < n && !(rows[p] >> bit & 1)) ++p;
    if (p == n) return std::nullopt;
    std::swap(rows[p], rows[bit]);
    std::swap(combo[p], combo[bit]);
    for (size_t i = 0; i < n; ++i)
      if (i != bit && (rows[i] >> bit & 1)) {
        rows[i] ^= rows[bit];
        combo[i] ^= combo[bit];
      }
  }
  return combo;   // rows[j] == 1 << j now
}

BitVec applyMap(const std::vector<BitVec> &images, BitVec x) {
  BitVec y = 0;
  for (size_t i = 0; x; ++i, x >>= 1)
    if (x & 1) y ^= images[i];
  return y;
}

int rank(std::vector<BitVec> v) {
  int r = 0;
  for (int bit = 0; bit < 64; ++bit) {
    auto it = std::find_if(v.begin(), v.end(), [&](BitVec x) { return x >> bit & 1; });
    if (it == v.end()) continue;
    BitVec p = *it;
    v.erase(it);
    for (BitVec &x : v)
      if (x >> bit & 1) x ^= p;
    ++r;
  }
  return r;
}

/// Slot bit of each basis vector of the fixed side (register, lane, warp
/// order) for the .trans form or the plain one.
std::vector<int> fixedSlotBits(const LinearLayout &fixed, bool trans) {
  std::vector<int> pos(fixed.basis.size());
  pos[0] = trans ? 3 : 0;   // register bit 0: the pair in a 32-bit register
  for (int k = 0; k < 5; ++k) pos[size_t(fixed.regBits + k)] = trans ? (k < 2 ? 4 + k : k - 2) : 1 + k;
  int next = 6;
  for (int k = 1; k < fixed.regBits; ++k) pos[size_t(k)] = next++;
  for (int k = 0; k < fixed.warpBits; ++k) pos[size_t(fixed.regBits + 5 + k)] = next++;
  return pos;
}

/// The swizzle: 3-bit images of the slot bits from 6 up, xored into slot
/// bits 3-5, chosen by search over the images of the pivots of a free-side
/// access phase's lanes (128 bytes, 2^q lanes) so that their slot bits
/// [freeBits, 6) are independent; and the rank reached.
std::pair<std::vector<BitVec>, int> chooseSwizzle(const std::vector<BitVec> &lanes, int freeBits, int highBits) {
  BitVec lowMask = ((BitVec(1) << 6) - 1) & ~((BitVec(1) << freeBits) - 1);
  std::vector<BitVec> pivots;   // reduced high parts and their pivot bits
  std::vector<int> pivotBit;
  for (BitVec l : lanes) {
    BitVec h = l >> 6;
    for (size_t i = 0; i < pivots.size(); ++i)
      if (h >> pivotBit[i] & 1) h ^= pivots[i];
    if (!h) continue;
    int b = 0;
    while (!(h >> b & 1)) ++b;
    for (size_t i = 0; i < pivots.size(); ++i)
      if (pivots[i] >> b & 1) pivots[i] ^= h;
    pivots.push_back(h);
    pivotBit.push_back(b);
  }
  int bestRank = -1, q = int(lanes.size());
  std::vector<BitVec> best(size_t(std::max(highBits, 0)), 0);
  size_t choices = size_t(1) << (3 * pivots.size());
  for (size_t c = 0; c < choices && bestRank < q; ++c) {
    std::vector<BitVec> sw(best.size(), 0);
    for (size_t i = 0; i < pivots.size(); ++i) sw[size_t(pivotBit[i])] = (c >> (3 * i)) & 7;
    std::vector<BitVec> proj;
    for (BitVec l : lanes) proj.push_back((l ^ (applyMap(sw, l >> 6) << 3)) & lowMask);
    int r = rank(proj);
    if (r > bestRank) bestRank = r, best = sw;
  }
  return {best, bestRank};
}

MatrixPlan planFor(const LinearLayout &fixed, const LinearLayout &free, bool trans, bool stmatrix) {
  MatrixPlan p;
  p.trans = trans;
  p.stmatrix = stmatrix;
  std::vector<int> pos = fixedSlotBits(fixed, trans);
  auto inv = invert(fixed.basis);
  if (!inv) return p;
  std::vector<BitVec> slotOfElemBit;   // element bit j -> slot vector
  for (BitVec combo : *inv) {
    BitVec s = 0;
    for (size_t i = 0; combo; ++i, combo >>= 1)
      if (combo & 1) s ^= BitVec(1) << pos[i];
    slotOfElemBit.push_back(s);
  }
  p.free = free;
  for (BitVec &v : p.free.basis) v = applyMap(slotOfElemBit, v);
  // the widest access: no thread bit below it
  BitVec threadLow = 0;
  for (int k = 0; k < 5 + free.warpBits; ++k) threadLow |= p.free.basis[size_t(free.regBits + k)];
  while (p.freeBits < 3 && !(threadLow >> p.freeBits & 1)) ++p.freeBits;
  if (p.freeBits < 2) return p;   // 8-byte accesses at least, else not worth it
  int highBits = int(fixed.basis.size()) - 6;
  std::vector<BitVec> lanes(p.free.basis.begin() + free.regBits, p.free.basis.begin() + free.regBits + (6 - p.freeBits));
  std::pair<std::vector<BitVec>, int> chosen = chooseSwizzle(lanes, p.freeBits, highBits);
  const std::vector<BitVec> &swizzle = chosen.first;
  int bankRank = chosen.second;
  auto swizzled = [&](BitVec s) { return s ^ applyMap(swizzle, s >> 6) << 3; };
  for (BitVec &s : p.free.basis) s = swizzled(s);
  // the fixed side's row address: lane L gives row L % 8 (slot bits 3-5)
  // of matrix (L / 8) % 2^mBits (slot bits 6 ...), then the instruction's
  // bits and the warp's (the slot bits of its registers 1 ... and warps)
  p.mBits = std::min(2, fixed.regBits - 1);
  p.groupBits = fixed.regBits - 1 - p.mBits;
  for (int k = 0; k < 5; ++k) {
    BitVec slot = k < 3 ? BitVec(1) << (3 + k) : k - 3 < p.mBits ? BitVec(1) << (6 + k - 3) : 0;
    p.fixedRowLane.push_back(swizzled(slot) >> 3);
  }
  for (int k = 0; k < fixed.warpBits; ++k) p.fixedRowWarp.push_back(swizzled(BitVec(1) << (6 + p.mBits + p.groupBits + k)) >> 3);
  for (int k = 0; k < p.groupBits; ++k) p.fixedRowGroup.push_back(swizzled(BitVec(1) << (6 + p.mBits + k)) >> 3);
  p.score = p.freeBits * 8 + bankRank;
  return p;
}

} // namespace

BitVec LinearLayout::at(int64_t r, int64_t l, int64_t w) const {
  BitVec v = 0;
  for (int k = 0; k < regBits; ++k)
    if (r >> k & 1) v ^= reg(k);
  for (int k = 0; k < 5; ++k)
    if (l >> k & 1) v ^= lane(k);
  for (int k = 0; k < warpBits; ++k)
    if (w >> k & 1) v ^= warp(k);
  return v;
}

BitVec MatrixPlan::fixedRow(int64_t lane, int64_t warp, int64_t g) const {
  return applyMap(fixedRowLane, BitVec(lane)) ^ applyMap(fixedRowWarp, BitVec(warp)) ^
         applyMap(fixedRowGroup, BitVec(g));
}

std::optional<LinearLayout> linearLayout(int64_t numRegs, int numWarps, int elemBits,
                                         const std::function<BitVec(int64_t, int64_t, int64_t)> &element) {
  auto log2Exact = [](int64_t v) {
    if (v <= 0 || (v & (v - 1))) return -1;
    int k = 0;
    while ((int64_t(1) << k) < v) ++k;
    return k;
  };
  LinearLayout m;
  m.regBits = log2Exact(numRegs);
  m.warpBits = log2Exact(numWarps);
  if (m.regBits < 0 || m.warpBits < 0 || m.regBits + 5 + m.warpBits != elemBits || elemBits > 20) return std::nullopt;
  if (element(0, 0, 0) != 0) return std::nullopt;
  for (int k = 0; k < m.regBits; ++k) m.basis.push_back(element(0, 0, int64_t(1) << k));
  for (int k = 0; k < 5; ++k) m.basis.push_back(element(int64_t(1) << k, 0, 0));
  for (int k = 0; k < m.warpBits; ++k) m.basis.push_back(element(0, int64_t(1) << k, 0));
  std::vector<bool> hit(size_t(1) << elemBits, false);
  for (int64_t w = 0; w < numWarps; ++w)
    for (int64_t l = 0; l < 32; ++l)
      for (int64_t r = 0; r < numRegs; ++r) {
        BitVec got = element(l, w, r);
        if (got >= hit.size() || got != m.at(r, l, w) || hit[got]) return std::nullopt;
        hit[got] = true;
      }
  return m;
}

std::optional<MatrixPlan> planMatrixRoundTrip(const LinearLayout &src, const LinearLayout &dst, bool stmatrix) {
  if (src.basis.size() != dst.basis.size() || src.warpBits != dst.warpBits || dst.regBits < 1) return std::nullopt;
  MatrixPlan best;
  for (bool trans : {true, false}) {   // ldmatrix reads
    MatrixPlan p = planFor(dst, src, trans, false);
    if (p.score > best.score) best = p;
  }
  if (stmatrix)
    for (bool trans : {true, false}) {   // stmatrix writes
      MatrixPlan p = planFor(src, dst, trans, true);
      if (p.score > best.score) best = p;
    }
  if (best.score < 0) return std::nullopt;
  return best;
}

} // namespace tile::gpu
