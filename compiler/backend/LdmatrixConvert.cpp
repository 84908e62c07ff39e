// LdmatrixConvert.cpp - a 16-bit layout conversion (or permute) through
// shared memory with ldmatrix reads or stmatrix writes: 16 bytes a lane an
// instruction, where a transpose takes eight 2-byte accesses on one side.
//
// Both layouts are linear maps over GF(2) from a thread's (register, lane,
// warp) bits to the bits of an element's row-major index (power-of-two
// shapes, every element held once). The matrix instruction fixes where each
// bit of its side (the destination for ldmatrix, the source for stmatrix,
// sm_90) lies in shared memory: in the .trans form lane t holds, of each
// 8x8 matrix, rows 2(t%4) and 2(t%4)+1 at column t/4, so lane bits 2-4
// pick the 2-byte slot within a 16-byte row, register bit 0 and lane bits
// 0-1 the row, and the further register bits (the x4 form's four matrices,
// then instructions) and the warp the 128-byte rows above; the plain form
// swaps the roles of lane bits 0-1 and 2-4. That fixes the slot of every
// element (that side's map inverted), hence where each register of the
// other side is: a thread part (lane, warp) xor a constant per register.
// Registers that fill 16 bytes (or 8) are accessed as one vector, two
// rows' elements interleaved where the map says so. An XOR swizzle of the
// row-within-128-bytes bits by the higher bits spreads that side's access
// phase over the banks; a matrix instruction's phase touches eight rows
// that differ only in those bits, so it stays conflict-free. This is what
// Triton's linear layouts find for local_load / local_store; the maps here
// are computed numerically from the Dist and checked exhaustively, and
// anything not linear falls back to the element-wise round trip.
#include "backend/Emitter.h"

#include <llvm/IR/IntrinsicsNVPTX.h>

#include <numeric>

#include <fmt/format.h>

namespace tile::backend {

namespace {

using Vec = uint64_t;   ///< a GF(2) vector: bits of an element index or slot

int log2Exact(int64_t v) {
  if (v <= 0 || (v & (v - 1))) return -1;
  int k = 0;
  while ((int64_t(1) << k) < v) ++k;
  return k;
}

/// Images of the (register, lane, warp) bits of a layout, in that order.
struct LinearMap {
  int regBits = 0, warpBits = 0;
  std::vector<Vec> basis;   ///< regBits + 5 + warpBits vectors
  Vec reg(int k) const { return basis[size_t(k)]; }
  Vec lane(int k) const { return basis[size_t(regBits + k)]; }
  Vec warp(int k) const { return basis[size_t(regBits + 5 + k)]; }
};

int64_t baseOf(const gpu::DimBase &db, int64_t lane, int64_t warp) {
  return ((lane / db.laneDiv) % db.laneMod) * db.laneMul + ((warp / db.warpDiv) % db.warpMod) * db.warpMul;
}

/// The row-major index, in a tensor of shape `srcShape`, of register `reg`
/// of thread (lane, warp) of `d`, whose dim j is srcShape's dim dimMap[j].
Vec elementIndex(const Dist &d, const std::vector<int> &dimMap, const std::vector<int64_t> &srcShape, int64_t lane,
                 int64_t warp, size_t reg) {
  std::vector<int64_t> x(srcShape.size(), 0);
  for (size_t j = 0; j < d.shape.size(); ++j)
    x[size_t(dimMap[j])] = (baseOf(d.bases[j], lane, warp) + d.offsets[reg][j]) % d.shape[j];
  Vec idx = 0;
  for (size_t i = 0; i < srcShape.size(); ++i) idx = idx * Vec(srcShape[i]) + Vec(x[i]);
  return idx;
}

/// The layout as a linear map, when it is one (checked on every thread and
/// register) and holds every element once; else empty.
std::optional<LinearMap> linearize(const Dist &d, const std::vector<int> &dimMap, const std::vector<int64_t> &srcShape,
                                   int numWarps, int elemBits) {
  LinearMap m;
  m.regBits = log2Exact(int64_t(d.numRegs()));
  m.warpBits = log2Exact(numWarps);
  if (m.regBits < 0 || m.warpBits < 0 || m.regBits + 5 + m.warpBits != elemBits) return std::nullopt;
  auto at = [&](int64_t lane, int64_t warp, size_t reg) { return elementIndex(d, dimMap, srcShape, lane, warp, reg); };
  if (at(0, 0, 0) != 0) return std::nullopt;
  for (int k = 0; k < m.regBits; ++k) m.basis.push_back(at(0, 0, size_t(1) << k));
  for (int k = 0; k < 5; ++k) m.basis.push_back(at(int64_t(1) << k, 0, 0));
  for (int k = 0; k < m.warpBits; ++k) m.basis.push_back(at(0, int64_t(1) << k, 0));
  std::vector<bool> hit(size_t(1) << elemBits, false);
  for (int64_t w = 0; w < numWarps; ++w)
    for (int64_t l = 0; l < 32; ++l)
      for (size_t r = 0; r < d.numRegs(); ++r) {
        Vec want = 0;
        for (int k = 0; k < m.regBits; ++k)
          if (r >> k & 1) want ^= m.reg(k);
        for (int k = 0; k < 5; ++k)
          if (l >> k & 1) want ^= m.lane(k);
        for (int k = 0; k < m.warpBits; ++k)
          if (w >> k & 1) want ^= m.warp(k);
        Vec got = at(l, w, r);
        if (got != want || hit[got]) return std::nullopt;
        hit[got] = true;
      }
  return m;
}

/// For a linear bijection given by the images `basis[i]` of input bit i:
/// the input bits (a mask) whose images XOR to each unit vector 1 << j.
std::optional<std::vector<Vec>> invert(const std::vector<Vec> &basis) {
  size_t n = basis.size();
  std::vector<Vec> rows(basis), combo(n);
  for (size_t i = 0; i < n; ++i) combo[i] = Vec(1) << i;
  std::vector<Vec> out(n, 0);
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
  for (size_t j = 0; j < n; ++j) out[j] = combo[j];   // rows[j] == 1 << j now
  return out;
}

Vec applyMap(const std::vector<Vec> &images, Vec x) {
  Vec y = 0;
  for (size_t i = 0; x; ++i, x >>= 1)
    if (x & 1) y ^= images[i];
  return y;
}

int rank(std::vector<Vec> v) {
  int r = 0;
  for (int bit = 0; bit < 64; ++bit) {
    auto it = std::find_if(v.begin(), v.end(), [&](Vec x) { return x >> bit & 1; });
    if (it == v.end()) continue;
    Vec p = *it;
    v.erase(it);
    for (Vec &x : v)
      if (x >> bit & 1) x ^= p;
    ++r;
  }
  return r;
}

/// The plan of one conversion. One side, `fixed`, moves 16 bytes a lane an
/// instruction by ldmatrix (the destination) or stmatrix (the source, on
/// sm_90): its bits' slots are fixed by the instruction. The other side,
/// `free`, accesses 2^freeBits elements at a time at the slots that follow
/// (a thread part xor a register part); its basis vectors' slots include
/// the swizzle, whose images of the slot bits from 6 up are 3-bit values
/// xored into slot bits 3-5.
struct Plan {
  bool trans = false, stmatrix = false;
  int freeBits = 0;
  std::vector<Vec> freeSlot;   ///< per basis vector of the free side
  std::vector<Vec> swizzle;    ///< per slot bit from 6 up: a value 0..7
  int score = -1;
};

/// Slot bit of each basis vector of the fixed side (register, lane, warp
/// order) for the .trans form or the plain one.
std::vector<int> fixedSlotBits(const LinearMap &fixed, bool trans) {
  std::vector<int> pos(fixed.basis.size());
  pos[0] = trans ? 3 : 0;   // register bit 0: the pair in a 32-bit register
  for (int k = 0; k < 5; ++k) pos[size_t(fixed.regBits + k)] = trans ? (k < 2 ? 4 + k : k - 2) : 1 + k;
  int next = 6;
  for (int k = 1; k < fixed.regBits; ++k) pos[size_t(k)] = next++;
  for (int k = 0; k < fixed.warpBits; ++k) pos[size_t(fixed.regBits + 5 + k)] = next++;
  return pos;
}

/// The free side's access width and swizzle for one form; score = access
/// bits * 8 + the rank of an access phase's lanes over the banks (higher
/// is better), -1 below 8-byte accesses.
Plan planFor(const LinearMap &fixed, const LinearMap &free, bool trans, bool stmatrix) {
  Plan p;
  p.trans = trans;
  p.stmatrix = stmatrix;
  std::vector<int> pos = fixedSlotBits(fixed, trans);
  auto inv = invert(fixed.basis);
  if (!inv) return p;
  std::vector<Vec> slotOfElemBit;   // element bit j -> slot vector
  for (Vec combo : *inv) {
    Vec s = 0;
    for (size_t i = 0; combo; ++i, combo >>= 1)
      if (combo & 1) s ^= Vec(1) << pos[i];
    slotOfElemBit.push_back(s);
  }
  for (Vec v : free.basis) p.freeSlot.push_back(applyMap(slotOfElemBit, v));
  // the widest access: no thread bit below it
  Vec threadLow = 0;
  for (int k = 0; k < 5 + free.warpBits; ++k) threadLow |= p.freeSlot[size_t(free.regBits + k)];
  while (p.freeBits < 3 && !(threadLow >> p.freeBits & 1)) ++p.freeBits;
  if (p.freeBits < 2) return p;   // 8-byte accesses at least, else not worth it
  // the swizzle: an access phase is 128 bytes, 2^q lanes; its lanes' slot
  // bits [freeBits, 6) should be independent. Choose the 3-bit images of
  // the pivots of the lanes' high parts by search.
  int q = 6 - p.freeBits, highBits = int(fixed.basis.size()) - 6;
  std::vector<Vec> lanes(p.freeSlot.begin() + free.regBits, p.freeSlot.begin() + free.regBits + q);
  Vec lowMask = ((Vec(1) << 6) - 1) & ~((Vec(1) << p.freeBits) - 1);
  std::vector<Vec> pivots;   // reduced high parts and their pivot bits
  std::vector<int> pivotBit;
  for (Vec l : lanes) {
    Vec h = l >> 6;
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
  int bestRank = -1;
  std::vector<Vec> best(size_t(std::max(highBits, 0)), 0);
  size_t choices = size_t(1) << (3 * pivots.size());
  for (size_t c = 0; c < choices && bestRank < q; ++c) {
    std::vector<Vec> sw(size_t(std::max(highBits, 0)), 0);
    for (size_t i = 0; i < pivots.size(); ++i) sw[size_t(pivotBit[i])] = (c >> (3 * i)) & 7;
    std::vector<Vec> proj;
    for (Vec l : lanes) proj.push_back((l ^ (applyMap(sw, l >> 6) << 3)) & lowMask);
    int r = rank(proj);
    if (r > bestRank) bestRank = r, best = sw;
  }
  p.swizzle = best;
  for (Vec &s : p.freeSlot) s ^= applyMap(p.swizzle, s >> 6) << 3;
  p.score = p.freeBits * 8 + bestRank;
  return p;
}

} // namespace

std::optional<Regs> Emitter::throughLdmatrix(const Regs &r, const Dist &from, const Dist &to,
                                             const std::vector<int> &dimMap, Location loc) {
  if (r.empty() || r[0]->getType()->getPrimitiveSizeInBits() != 16) return std::nullopt;
  int elemBits = 0;
  for (int64_t s : from.shape) {
    int k = log2Exact(s);
    if (k < 0) return std::nullopt;
    elemBits += k;
  }
  if (elemBits > 16) return std::nullopt;   // (the exhaustive check's cost)
  auto identity = [](size_t rank) {
    std::vector<int> v(rank);
    std::iota(v.begin(), v.end(), 0);
    return v;
  };
  auto src = linearize(from, identity(from.shape.size()), from.shape, opts.numWarps, elemBits);
  // no dimMap: the same row-major order (a conversion, or a reshape)
  auto dst = dimMap.empty() ? linearize(to, identity(to.shape.size()), to.shape, opts.numWarps, elemBits)
                            : linearize(to, dimMap, from.shape, opts.numWarps, elemBits);
  if (!src || !dst || dst->regBits < 1) return std::nullopt;
  // ldmatrix reads (either form), else stmatrix writes (sm_90)
  Plan plan;
  for (bool trans : {true, false}) {
    Plan p = planFor(*dst, *src, trans, false);
    if (p.score > plan.score) plan = p;
  }
  if (opts.arch.rfind("sm_9", 0) == 0)
    for (bool trans : {true, false}) {
      Plan p = planFor(*src, *dst, trans, true);
      if (p.score > plan.score) plan = p;
    }
  if (plan.score < 0) return std::nullopt;
  const LinearMap &fixed = plan.stmatrix ? *src : *dst, &free = plan.stmatrix ? *dst : *src;

  llvm::Type *ty = r[0]->getType();
  needShared((int64_t(1) << elemBits) * 2, loc);
  beginSharedUse();
  smemClean = false;
  llvm::Value *base = smemBase();
  // xor over the set bits of v (i32, run time) of images[first + k]
  auto xorOfBits = [&](llvm::Value *v, const std::vector<Vec> &images, int first, int count) -> llvm::Value * {
    llvm::Value *acc = i32(0);
    for (int k = 0; k < count; ++k) {
      Vec img = images[size_t(first + k)];
      if (!img) continue;
      llvm::Value *bit = b.CreateAnd(b.CreateLShr(v, i32(k)), i32(1));
      acc = b.CreateXor(acc, b.CreateMul(bit, i32(int64_t(img))));
    }
    return acc;
  };
  // ---- the free side: slot = thread part ^ register part, 2^freeBits
  // registers an access (the vector's element i at slot bits i)
  int64_t v = int64_t(1) << plan.freeBits;
  auto *vecTy = llvm::FixedVectorType::get(ty, unsigned(v));
  llvm::Value *freeThread = b.CreateXor(xorOfBits(lane, plan.freeSlot, free.regBits, 5),
                                        xorOfBits(warp, plan.freeSlot, free.regBits + 5, free.warpBits));
  std::map<Vec, std::vector<std::pair<Vec, size_t>>> groups;   // high slot part -> (element, register)
  for (size_t i = 0; i < (size_t(1) << free.regBits); ++i) {
    Vec slot = 0;
    for (int k = 0; k < free.regBits; ++k)
      if (i >> k & 1) slot ^= plan.freeSlot[size_t(k)];
    groups[slot >> plan.freeBits].push_back({slot & Vec(v - 1), i});
  }
  auto freeAddress = [&](Vec hi) {
    llvm::Value *slot = b.CreateXor(freeThread, i32(int64_t(hi << plan.freeBits)));
    return b.CreateGEP(b.getInt8Ty(), base, b.CreateShl(slot, i32(1)));
  };
  // ---- the fixed side: lane L gives the address of row L % 8 of matrix
  // (L / 8) % nm of instruction g; a slot's bits from 6 up are (matrix,
  // g, warp) and its row (16 bytes) is slot >> 3
  int mBits = std::min(2, fixed.regBits - 1), groupBits = fixed.regBits - 1 - mBits;
  unsigned nm = 1u << mBits;
  llvm::Value *m = b.CreateAnd(b.CreateLShr(lane, i32(3)), i32(int64_t(nm) - 1));
  int highWarp = mBits + groupBits;
  llvm::Value *highRun = b.CreateOr(m, b.CreateShl(warp, i32(highWarp)));   // without g
  llvm::Value *swRun = b.CreateXor(xorOfBits(m, plan.swizzle, 0, mBits),
                                   xorOfBits(warp, plan.swizzle, highWarp, fixed.warpBits));
  llvm::Value *rowRun = b.CreateOr(b.CreateXor(b.CreateAnd(lane, i32(7)), swRun), b.CreateShl(highRun, i32(3)));
  auto fixedAddress = [&](int64_t g) {
    Vec gHigh = Vec(g) << mBits;
    llvm::Value *row = b.CreateXor(rowRun, i32(int64_t(gHigh << 3 | applyMap(plan.swizzle, gHigh))));
    return b.CreateGEP(b.getInt8Ty(), base, b.CreateShl(row, i32(4)));
  };
  // register e | q << 1 | g << (1 + mBits) of the fixed side is element e
  // of the 32-bit register of matrix q of instruction g
  auto fixedReg = [&](int64_t g, unsigned q, unsigned e) { return size_t(e | q << 1 | uint64_t(g) << (1 + mBits)); };
  auto *pairTy = llvm::FixedVectorType::get(ty, 2);
  Regs out(to.numRegs(), nullptr);
  if (plan.stmatrix) {
    std::string text = fmt::format("stmatrix.sync.aligned.m8n8.x{}{}.shared.b16 [$0], {{", nm, plan.trans ? ".trans" : "");
    std::string cons = "r";
    for (unsigned q = 0; q < nm; ++q) {
      text += fmt::format("{}${}", q ? ", " : "", q + 1);
      cons += ",r";
    }
    text += "};";
    for (int64_t g = 0; g < (int64_t(1) << groupBits); ++g) {
      std::vector<llvm::Value *> ins{fixedAddress(g)};
      for (unsigned q = 0; q < nm; ++q) {
        llvm::Value *pair = llvm::PoisonValue::get(pairTy);
        for (unsigned e = 0; e < 2; ++e) pair = b.CreateInsertElement(pair, r[fixedReg(g, q, e)], uint64_t(e));
        ins.push_back(b.CreateBitCast(pair, b.getInt32Ty()));
      }
      inlinePtx(nullptr, text, cons + ",~{memory}", ins);
    }
    barrier();
    smemClean = false;
    for (auto &[hi, elems] : groups) {
      llvm::Value *vec = b.CreateAlignedLoad(vecTy, freeAddress(hi), llvm::Align(uint64_t(v) * 2));
      for (auto &[at, reg] : elems) out[reg] = b.CreateExtractElement(vec, uint64_t(at));
    }
    return out;
  }
  for (auto &[hi, elems] : groups) {
    TILE_ASSERT(int64_t(elems.size()) == v, "ldmatrix conversion: a store vector not filled");
    llvm::Value *vec = llvm::PoisonValue::get(vecTy);
    for (auto &[at, reg] : elems) vec = b.CreateInsertElement(vec, r[reg], uint64_t(at));
    b.CreateAlignedStore(vec, freeAddress(hi), llvm::Align(uint64_t(v) * 2));
  }
  barrier();
  smemClean = false;
  using namespace llvm::Intrinsic;
  ID id = plan.trans ? (nm == 4   ? nvvm_ldmatrix_sync_aligned_m8n8_x4_trans_b16
                        : nm == 2 ? nvvm_ldmatrix_sync_aligned_m8n8_x2_trans_b16
                                  : nvvm_ldmatrix_sync_aligned_m8n8_x1_trans_b16)
                     : (nm == 4   ? nvvm_ldmatrix_sync_aligned_m8n8_x4_b16
                        : nm == 2 ? nvvm_ldmatrix_sync_aligned_m8n8_x2_b16
                                  : nvvm_ldmatrix_sync_aligned_m8n8_x1_b16);
  llvm::Function *ldm = llvm::Intrinsic::getDeclaration(&mod, id, {base->getType()});
  for (int64_t g = 0; g < (int64_t(1) << groupBits); ++g) {
    llvm::Value *res = b.CreateCall(ldm, {fixedAddress(g)});
    for (unsigned q = 0; q < nm; ++q) {
      llvm::Value *word = res->getType()->isStructTy() ? b.CreateExtractValue(res, q) : res;
      llvm::Value *pair = b.CreateBitCast(word, pairTy);
      for (unsigned e = 0; e < 2; ++e) out[fixedReg(g, q, e)] = b.CreateExtractElement(pair, uint64_t(e));
    }
  }
  return out;
}

} // namespace tile::backend
