// MatrixRoundTrip.h - where the elements of a 16-bit layout conversion go
// in shared memory when one side moves them with ldmatrix / stmatrix (the
// plan; backend/LdmatrixConvert.cpp emits it).
//
// A layout is a linear map over GF(2) from a thread's (register, lane,
// warp) bits to the bits of an element's row-major index (power-of-two
// shapes, every element held once). A matrix instruction fixes where each
// bit of its side lies in shared memory: in the .trans form lane t holds,
// of each 8x8 matrix, rows 2(t%4) and 2(t%4)+1 at column t/4, so lane bits
// 2-4 pick the 2-byte slot within a 16-byte row, register bit 0 and lane
// bits 0-1 the row, and the further register bits (the x4 form's four
// matrices, then instructions) and the warp the 128-byte rows above; the
// plain form swaps the roles of lane bits 0-1 and 2-4. That side's map
// inverted gives every element's slot, hence where each register of the
// other ("free") side is: a thread part (lane, warp) xor a constant per
// register. Registers that fill 16 bytes (or 8) are accessed as one
// vector. An XOR swizzle of the row-within-128-bytes bits by the higher
// bits spreads the free side's access phase over the banks; a matrix
// instruction's phase touches eight rows that differ only in those bits,
// so it stays conflict-free. This is what Triton's linear layouts find for
// local_load / local_store.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace tile::gpu {

/// A GF(2) vector: the bits of an element index, a slot or a row.
using BitVec = uint64_t;

/// Images of a layout's (register, lane, warp) bits, in that order.
struct LinearLayout {
  int regBits = 0, warpBits = 0;
  std::vector<BitVec> basis;   ///< regBits + 5 + warpBits vectors
  BitVec reg(int k) const { return basis[size_t(k)]; }
  BitVec lane(int k) const { return basis[size_t(regBits + k)]; }
  BitVec warp(int k) const { return basis[size_t(regBits + 5 + k)]; }
  /// XOR of the images of the set bits of (reg, lane, warp).
  BitVec at(int64_t reg, int64_t lane, int64_t warp) const;
};

/// The layout given by `element(lane, warp, reg)` (its row-major index) as a
/// linear map, when it is one on every thread and register and holds each
/// of the 2^elemBits elements once; else empty.
std::optional<LinearLayout> linearLayout(int64_t numRegs, int numWarps, int elemBits,
                                         const std::function<BitVec(int64_t lane, int64_t warp, int64_t reg)> &element);

/// The plan of one round trip. Slots are 2-byte units, rows 16-byte ones
/// (slot >> 3). The fixed side (the destination for ldmatrix, the source
/// for stmatrix) issues 2^groupBits instructions of 2^mBits matrices (x1,
/// x2, x4); in instruction g lane L gives the address of row
/// fixedRow(L, warp, g), and its register e | q << 1 | g << (1 + mBits) is
/// element e (low half first) of the 32-bit register of matrix q. The free
/// side accesses 2^freeBits registers at a time at slot freeSlot(reg, lane,
/// warp) (thread part xor register part, no thread bit below freeBits).
struct MatrixPlan {
  bool trans = false, stmatrix = false;
  int freeBits = 0, mBits = 0, groupBits = 0;
  LinearLayout free;                ///< slot images of the free side's bits
  std::vector<BitVec> fixedRowLane, fixedRowWarp, fixedRowGroup;   ///< row images: 5, warpBits, groupBits
  int score = -1;                   ///< freeBits * 8 + a phase's bank rank; -1: not admitted
  BitVec fixedRow(int64_t lane, int64_t warp, int64_t g) const;
};

/// The best plan for converting `src` to `dst` (same element bits and
/// warps): ldmatrix reads in either form, and stmatrix writes where
/// `stmatrix` is allowed (sm_90); empty unless the free side's accesses are
/// 8 bytes or wider.
std::optional<MatrixPlan> planMatrixRoundTrip(const LinearLayout &src, const LinearLayout &dst, bool stmatrix);

} // namespace tile::gpu
