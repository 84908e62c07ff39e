// LdmatrixConvert.cpp - a 16-bit layout conversion (or permute) through
// shared memory with ldmatrix reads or stmatrix writes (sm_90): 16 bytes a
// lane an instruction, where a transpose takes eight 2-byte accesses on one
// side. The plan (where each element goes, the swizzle, which side the
// matrix instruction takes) is gpu::planMatrixRoundTrip's; this file
// emits it: the free side's vector stores or loads at a thread part xor a
// register constant, a barrier, and the fixed side's ldmatrix / stmatrix
// at row addresses that are linear in the lane and warp bits.
#include "backend/Emitter.h"
#include "gpu/MatrixRoundTrip.h"

#include <llvm/IR/IntrinsicsNVPTX.h>

#include <numeric>

#include <fmt/format.h>

namespace tile::backend {

namespace {

/// `d` as a linear layout over the row-major element index of a tensor of
/// shape `srcShape`, d's dim j being srcShape's dim dimMap[j].
std::optional<gpu::LinearLayout> linearize(const Dist &d, const std::vector<int> &dimMap,
                                           const std::vector<int64_t> &srcShape, int numWarps, int elemBits) {
  std::vector<int64_t> x(srcShape.size());
  return gpu::linearLayout(int64_t(d.numRegs()), numWarps, elemBits, [&](int64_t lane, int64_t warp, int64_t reg) {
    std::fill(x.begin(), x.end(), 0);
    for (size_t j = 0; j < d.shape.size(); ++j)
      x[size_t(dimMap[j])] = coordAt(d, j, lane, warp, size_t(reg));
    gpu::BitVec idx = 0;
    for (size_t i = 0; i < srcShape.size(); ++i) idx = idx * gpu::BitVec(srcShape[i]) + gpu::BitVec(x[i]);
    return idx;
  });
}

} // namespace

std::optional<Regs> Emitter::throughLdmatrix(const Regs &r, const Dist &from, const Dist &to,
                                             const std::vector<int> &dimMap, Location loc) {
  if (r.empty() || r[0]->getType()->getPrimitiveSizeInBits() != 16) return std::nullopt;
  int elemBits = 0;
  for (int64_t s : from.shape) {
    if (s <= 0 || (s & (s - 1))) return std::nullopt;
    int k = 0;
    while ((int64_t(1) << k) < s) ++k;
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
  if (!src || !dst) return std::nullopt;
  auto planned = gpu::planMatrixRoundTrip(*src, *dst, opts.arch.rfind("sm_9", 0) == 0);
  if (!planned) return std::nullopt;
  const gpu::MatrixPlan &plan = *planned;
  const gpu::LinearLayout &free = plan.free;

  llvm::Type *ty = r[0]->getType();
  needShared((int64_t(1) << elemBits) * 2, loc);
  beginSharedUse();
  smemClean = false;
  llvm::Value *base = smemBase();
  // xor over the set bits of v (i32, run time) of images[first + k]
  auto xorOfBits = [&](llvm::Value *v, const std::vector<gpu::BitVec> &images, size_t first, size_t count) {
    llvm::Value *acc = i32(0);
    for (size_t k = 0; k < count; ++k) {
      gpu::BitVec img = images[first + k];
      if (!img) continue;
      llvm::Value *bit = b.CreateAnd(b.CreateLShr(v, i32(int64_t(k))), i32(1));
      acc = b.CreateXor(acc, b.CreateMul(bit, i32(int64_t(img))));
    }
    return acc;
  };
  // ---- the free side: slot = thread part ^ register part, 2^freeBits
  // registers an access (the vector's element i at slot bits i)
  int64_t v = int64_t(1) << plan.freeBits;
  auto *vecTy = llvm::FixedVectorType::get(ty, unsigned(v));
  llvm::Value *freeThread = b.CreateXor(xorOfBits(lane, free.basis, size_t(free.regBits), 5),
                                        xorOfBits(warp, free.basis, size_t(free.regBits + 5), size_t(free.warpBits)));
  std::map<gpu::BitVec, std::vector<std::pair<gpu::BitVec, size_t>>> groups;   // high slot part -> (element, register)
  for (size_t i = 0; i < (size_t(1) << free.regBits); ++i) {
    gpu::BitVec slot = free.at(int64_t(i), 0, 0);
    groups[slot >> plan.freeBits].push_back({slot & gpu::BitVec(v - 1), i});
  }
  auto freeAddress = [&](gpu::BitVec hi) {
    llvm::Value *slot = b.CreateXor(freeThread, i32(int64_t(hi << plan.freeBits)));
    return b.CreateGEP(b.getInt8Ty(), base, b.CreateShl(slot, i32(1)));
  };
  // ---- the fixed side: instruction g's row address, linear in the lane
  // and warp bits (its run-time part made once)
  llvm::Value *rowRun = b.CreateXor(xorOfBits(lane, plan.fixedRowLane, 0, 5),
                                    xorOfBits(warp, plan.fixedRowWarp, 0, plan.fixedRowWarp.size()));
  auto fixedAddress = [&](int64_t g) {
    llvm::Value *row = b.CreateXor(rowRun, i32(int64_t(plan.fixedRow(0, 0, g))));
    return b.CreateGEP(b.getInt8Ty(), base, b.CreateShl(row, i32(4)));
  };
  unsigned nm = 1u << plan.mBits;
  // register e | q << 1 | g << (1 + mBits) of the fixed side is element e
  // of the 32-bit register of matrix q of instruction g
  auto fixedReg = [&](int64_t g, unsigned q, unsigned e) {
    return size_t(e | q << 1 | uint64_t(g) << (1 + plan.mBits));
  };
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
    for (int64_t g = 0; g < (int64_t(1) << plan.groupBits); ++g) {
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
  for (int64_t g = 0; g < (int64_t(1) << plan.groupBits); ++g) {
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
