// WgmmaToLLVM.cpp - dot lowering to Hopper warpgroup MMAs
// (wgmma.mma_async, sm_90a, inline PTX: LLVM 19 has no intrinsics), for the
// dots gpu::dotRunsOnWgmma admits (f16/bf16 in, f32 accumulator, whole
// warpgroups, N 64 or 128 (256 with BM = 16 x num_warps), K 32 or a
// multiple of 64; or f32 in as tf32, N a multiple of 16 x num_warps, K a
// multiple of 32).
//
// Operands come by cp.async (planAsyncOperands, below) or are staged from
// registers into shared memory in the layouts the wgmma matrix descriptors
// read, both with the 128-byte swizzle (16-byte
// chunk c of a 128-byte row r stored at chunk c ^ (r % 8)):
//   A (M x K, K-major): atoms of 8 rows x 64 k (1024 bytes); atom
//     (k / 64, row / 8) at ((k / 64) * M / 8 + row / 8) * 1024. Descriptor:
//     LBO 16 B (unused), SBO 1024 B (next 8 rows), +32 B per k16 step.
//   B (K x N, N-major: the row-major b as it is, imm-trans-b = 1): atoms of
//     8 k x 64 columns; atom (k / 8, n / 64) at ((k / 8) * N / 64 + n / 64)
//     * 1024. Descriptor: LBO 1024 B (next 64 columns), SBO N / 64 * 1024 B
//     (next 8 k), + 2 * SBO per k16 step (probed bit-exact on the H200:
//     tests/gpu/probes/wgmma_mn_major.cu). A B 32 columns wide (N 32):
//     one atom of 8 k x 32 columns (64-byte rows, the 64-byte swizzle:
//     chunk c of row k at c ^ ((k % 8) / 2)), SBO 512 B, so that it comes
//     by cp.async as it lies in memory.
// tf32 (m64nNk8), computed transposed, Cᵀ = Bᵀ Aᵀ (wgmma reads tf32 only
// K-major; b is N-major): wgmma's M is BN, its N is BM. Its B operand is a,
// in the K-major atoms above (32 tf32 a row, rows m in order: descriptor
// SBO 1024, + 32 B per k8 step, no transpose immediates); its A operand is
// Bᵀ from registers, loaded from b in row-major rows of N + 8 words (two
// 8-byte ld.shared a k8 step: a0/a1 at k = 8ks + l%4, columns n, n + 1 with
// n = 64 blk + 16w' + 2(l/4), a2/a3 at k + 4), so fragment rows r and r + 8
// are columns n and n + 1, and the D fragment is wgmmaAccLayout's
// transposed form. The tensor cores truncate the f32 bits to tf32, as the
// interpreter does (staging from registers masks them the same way).
// Warpgroup q of G = W / 4 issues, for each of its m64 blocks q, q + G,
// ..., K / 16 wgmma m64nNk16 into that block's N / 2 accumulator registers,
// then commits and waits. The m64 block's D fragment gives warp w' of the
// group rows 16w' + l/4 (+8) and columns 8j + 2(l%4) (+1); the accumulator's
// layout (gpu::wgmmaAccLayout: blocked [1,2] x [8,4] x [W,1]) gives warp w
// rows 8w + l/4 + 8W*i. Staging A's row L at smem row R(L) makes them the
// same registers: with L = g + 8w + 8W(2m + h), w = 4q + w',
//   R = 64(mG + q) + 16w' + 8h + g.
// f16/bf16 A in wgmmaAccLayout (attention's p) is read from registers
// instead (registerFragsA); an A defined before its loop (attention's q) is
// staged once, before the loop, into a buffer of its own
// (planInvariantOperands); a B whose
// registers run along k (kᵀ) is staged K-major, as A, with imm-trans-b 0;
// an A whose registers run along m (Aᵀ) is staged M-major, in B's N-major
// atoms (8 k x 64 m; an m64 block is one atom wide), with imm-trans-a 1.
// B tiles of such dots may come by cp.async into rings of their own
// (planRingOperands), and a later dot reading the same tile through
// tl.trans reads its ring slot through a descriptor of the other operand
// order (a ring alias: planRingAliases, aliasDescB). mma.sync dots
// (DotToLLVM.cpp) take rings from the same planning (Emitter::mmaStaging).
// f16/bf16 products are exact in f32; only the order of the f32 sums
// differs from the interpreter's k order, as for mma.sync.
#include "backend/Emitter.h"
#include "gpu/LayoutAssignment.h"
#include "gpu/PermuteLoads.h"

#include <llvm/IR/IntrinsicsNVPTX.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>

namespace tile::backend {

namespace {

int64_t log2i(int64_t v) {
  int64_t l = 0;
  while ((int64_t(1) << l) < v) ++l;
  return l;
}

/// The shared-memory operand layouts of one wgmma dot (see the file
/// comment): element size, and whether the dot is computed transposed (tf32:
/// Cᵀ = Bᵀ Aᵀ, b row-major with padded rows, read into registers). K-major
/// rows are 128 bytes (128-byte swizzle); an f16/bf16 a of BK 32 fills half
/// of each row (the MMAs read only that half), which keeps the one swizzle
/// mode verified on the H200 (the 64-byte mode, tried with the descriptor
/// as guessed, gave wrong results).
struct Geometry {
  int64_t M, N, K, esize;
  bool transposed;
  /// f16/bf16 A in the accumulator's fragment layout (wgmma's register
  /// operand layout): read from registers, nothing staged
  bool aRegs = false;
  /// f16/bf16 B whose registers run along K (kᵀ read through strides):
  /// staged K-major (N rows of K, as A), imm-trans-b 0
  bool bKMajor = false;
  /// f16/bf16 A (from shared memory) whose registers run along M (Aᵀ read
  /// through strides, or `tl.trans` of a K x M tile): staged M-major in
  /// 128-byte swizzle atoms as an N-major B is, imm-trans-a 1
  bool aMNMajor = false;
  /// A defined before the loop, staged once into a buffer of its own
  /// before it (Emitter::ownA): the dot's operand region holds B only
  bool aOwn = false;
  /// K-major row bytes, the swizzle span: 128 (128-byte swizzle), or 64
  /// (64-byte swizzle) where K is 64 bytes (f16/bf16 BK 32, fp8/i8 BK 64),
  /// which halves those operands' shared memory against 128-byte rows
  /// half filled
  int64_t rowBytes = 128;
  /// MN-major B row bytes (8 k x mnSpan / esize n atoms): 128, or 64
  /// (64-byte swizzle) for a B 32 halves wide (N 32, wgmma n32), whose
  /// 64-byte rows are the tile's own (Triton's choice of span for it)
  int64_t mnSpan = 128;
  /// tf32 b rows are N + 8 words apart: the fragment loads (lanes 4 k x 8
  /// column pairs, 8 bytes each) then hit distinct banks in each half-warp.
  static constexpr int64_t bPadWords = 8;
  static Geometry of(const ir::Op &dot, int numWarps, bool ownA = false) {
    const ir::Type &a = dot.operands[0]->type, &bt = dot.operands[1]->type;
    bool tf32 = a.elem.scalar == Scalar::F32, bytes = gpu::isByteDot(dot);
    Geometry g{a.shape[0], bt.shape[1], a.shape[1], tf32 ? 4 : bytes ? 1 : 2, tf32};
    if (tf32) return g;
    // TILE_WGMMA_ROW128=1: half-filled 128-byte rows instead (an experiment's
    // baseline; the kernel cache does not key on it)
    static const bool row128 = std::getenv("TILE_WGMMA_ROW128") != nullptr;
    if (g.K * g.esize == 64 && !row128) g.rowBytes = 64;
    if (bytes) {   // wgmma reads fp8 and i8 K-major only: both staged so, whatever their registers' order
      g.bKMajor = true;
      g.aOwn = ownA;
      return g;
    }
    g.aRegs = a.layout && a.layout->equals(*gpu::wgmmaAccLayout(numWarps, false));
    auto *bl = dynamic_cast<const gpu::BlockedLayout *>(bt.layout.get());
    // a B narrower than a 64-column atom is staged K-major, but for N 32
    // in 64-byte atoms (TILE_WGMMA_ROW128: half-filled 128-byte atoms)
    bool narrowMN = g.N == 32;
    if (narrowMN) g.mnSpan = row128 ? 128 : 64;
    g.bKMajor = (bl && bl->rank() == 2 && bl->order[0] == 0 && bl->sizePerThread[0] > 1) || (g.N < 64 && !narrowMN);
    auto *al = dynamic_cast<const gpu::BlockedLayout *>(a.layout.get());
    g.aMNMajor = !g.aRegs && al && al->rank() == 2 && al->order[0] == 0 && al->sizePerThread[0] > 1;
    g.aOwn = ownA && !g.aRegs;
    return g;
  }
  int64_t aK() const { return (K + rowBytes / esize - 1) / (rowBytes / esize) * (rowBytes / esize); }
  int64_t bRowBytes() const { return (N + bPadWords) * esize; }   ///< transposed only
  int64_t bytes() const {   ///< a then b
    return offB() + (transposed ? K * bRowBytes() : bKMajor ? N * aK() * esize : K * nAtoms() * mnSpan);
  }
  /// MN-major B: the atoms along N (N-major atoms of 8 k x mnSpan bytes)
  int64_t nAtoms() const { return (N * esize + mnSpan - 1) / mnSpan; }
  int64_t aBytes() const { return M * aK() * esize; }
  int64_t offB() const { return aRegs || aOwn ? 0 : aBytes(); }
  int64_t kStep() const { return 32 / esize; }                ///< K of one MMA: k16, k8 for tf32, k32 for fp8/i8
};

/// The geometry of a wgmma dot as this emitter plans it.
Geometry geometry(const Emitter &e, const ir::Op &dot) {
  return Geometry::of(dot, e.opts.numWarps, e.ownA.count(&dot) != 0);
}

/// Groups of n registers that hold n consecutive elements along `along`
/// (the others' coordinates equal), each group's first at a multiple of n
/// along it in every thread (its register offset and the lane's and warp's
/// parts): the widest such n <= maxElems that covers every register, in
/// register order of the groups' first members. The members need not be
/// consecutive registers: a tile whose registers run along the other dim
/// (an N-contiguous fp8 B staged K-major) still stores a run of bytes along
/// K at a time. One group a register when no wider one exists.
std::vector<std::vector<size_t>> runsAlong(const Dist &d, size_t maxElems, int along) {
  std::map<std::vector<int64_t>, size_t> at;
  for (size_t i = 0; i < d.numRegs(); ++i) at.emplace(d.offsets[i], i);
  const gpu::DimBase &base = d.bases[along];
  for (size_t n = maxElems; n > 1; n /= 2) {
    auto multiple = [&](int64_t v) { return v % int64_t(n) == 0; };
    if (d.numRegs() % n || !(base.laneMod == 1 || multiple(base.laneMul)) ||
        !(base.warpMod == 1 || multiple(base.warpMul)))
      continue;
    std::vector<std::vector<size_t>> groups;
    bool ok = true;
    for (size_t i = 0; i < d.numRegs() && ok; ++i) {
      if (!multiple(d.offsets[i][along])) continue;
      std::vector<size_t> g{i};
      for (size_t k = 1; k < n && ok; ++k) {
        std::vector<int64_t> o = d.offsets[i];
        o[along] += int64_t(k);
        auto it = at.find(o);
        ok = it != at.end();
        if (ok) g.push_back(it->second);
      }
      groups.push_back(std::move(g));
    }
    if (ok && groups.size() * n == d.numRegs()) return groups;
  }
  std::vector<std::vector<size_t>> single;
  for (size_t i = 0; i < d.numRegs(); ++i) single.push_back({i});
  return single;
}

unsigned vecLen(llvm::Value *v) { return llvm::cast<llvm::FixedVectorType>(v->getType())->getNumElements(); }

/// Stores the registers of operand tile v at base + off + at(row, col).
/// Runs of up to 16 bytes consecutive along `along` stay inside one 16-byte
/// chunk (they start at a multiple of their length). tf32 operands are
/// truncated here (toTf32), as the tensor cores read the cp.async path's
/// f32 bits. The runs' registers are found by their coordinates
/// (runsAlong); bytes go as 32-bit lanes (packWord).
void stageTile(Emitter &e, const Geometry &geo, ir::Value *v, llvm::Value *base, int64_t off, int along,
               const std::function<llvm::Value *(llvm::Value *, llvm::Value *)> &at) {
  Builder &b = e.b;
  bool tf32 = geo.esize == 4;
  Dist d = e.dist(v->type);
  auto crd = e.coords(d);
  const Regs &r = e.regs(v);
  std::vector<std::vector<size_t>> groups = runsAlong(d, size_t(16 / geo.esize), along);
  llvm::Type *vt = tf32 ? b.getInt32Ty() : e.memType(v->type.elem);
  auto value = [&](size_t i) { return tf32 ? e.toTf32(r[i]) : r[i]; };
  llvm::Value *p0 = b.CreateGEP(b.getInt8Ty(), base, e.i32(off));
  Regs own = e.owners(d);   // replicated operand registers store once (uniform over a run)
  for (const std::vector<size_t> &g : groups) {
    size_t len = g.size();
    llvm::Value *p = b.CreateGEP(b.getInt8Ty(), p0, at(crd[g[0]][0], crd[g[0]][1]));
    uint64_t bytes = len * uint64_t(geo.esize);
    llvm::Value *vec;
    if (geo.esize == 1 && len % 4 == 0) {   // bytes by 32-bit lanes, a load's lanes as they are
      vec = llvm::PoisonValue::get(llvm::FixedVectorType::get(b.getInt32Ty(), len / 4));
      for (size_t k = 0; k < len; k += 4)
        vec = b.CreateInsertElement(vec, packWord(b, {r[g[k]], r[g[k + 1]], r[g[k + 2]], r[g[k + 3]]}), k / 4);
    } else {
      vec = llvm::PoisonValue::get(llvm::FixedVectorType::get(vt, len));
      for (size_t k = 0; k < len; ++k) vec = b.CreateInsertElement(vec, value(g[k]), k);
    }
    e.storeIf(own.empty() ? nullptr : own[g[0]], vecLen(vec) == 1 ? b.CreateExtractElement(vec, uint64_t(0)) : vec, p,
              llvm::Align(bytes));
  }
}

/// Byte offsets, in an operand buffer, of an element: A's row L goes to smem
/// row R(L).
struct Tiles {
  Emitter &e;
  Geometry g;
  int64_t W;
  llvm::Value *i32(int64_t v) { return e.i32(v); }
  /// Row r (of `rows`) and element k of a K-major operand: 8-row atoms of
  /// S-byte rows, atom (k / rowElems, r / 8); 16-byte chunk c of row r
  /// stored at c ^ (r % 8) (S = 128), c ^ ((r % 8) / 2) (S = 64): the
  /// swizzle XORs address bits 4.. with bits 7.., over the span.
  llvm::Value *kMajor(llvm::Value *r, llvm::Value *k, int64_t rows) {
    Builder &b = e.b;
    int64_t S = g.rowBytes, rowElems = S / g.esize, chunkElems = 16 / g.esize;
    llvm::Value *atom = b.CreateAdd(b.CreateMul(b.CreateUDiv(k, i32(rowElems)), i32(rows / 8)), b.CreateLShr(r, i32(3)));
    llvm::Value *r8 = b.CreateAnd(r, i32(7));
    llvm::Value *key = S == 128 ? r8 : b.CreateLShr(r8, i32(log2i(128 / S)));
    llvm::Value *chunk = b.CreateXor(b.CreateUDiv(b.CreateURem(k, i32(rowElems)), i32(chunkElems)), key);
    return b.CreateAdd(b.CreateAdd(b.CreateMul(atom, i32(8 * S)), b.CreateMul(r8, i32(S))),
                       b.CreateAdd(b.CreateMul(chunk, i32(16)), b.CreateMul(b.CreateURem(k, i32(chunkElems)), i32(g.esize))));
  }
  llvm::Value *offsetA(llvm::Value *L, llvm::Value *k) {
    if (g.transposed) return kMajor(L, k, g.M);   // wgmma's B operand: rows m in order
    Builder &b = e.b;
    int64_t G = W / 4, lw = log2i(W);
    llvm::Value *gg = b.CreateAnd(L, i32(7));
    llvm::Value *w = b.CreateAnd(b.CreateLShr(L, i32(3)), i32(W - 1));
    llvm::Value *hh = b.CreateLShr(L, i32(3 + lw));
    llvm::Value *blk = b.CreateAdd(b.CreateMul(b.CreateLShr(hh, i32(1)), i32(G)), b.CreateLShr(w, i32(2)));
    llvm::Value *R = b.CreateAdd(b.CreateAdd(b.CreateMul(blk, i32(64)), b.CreateMul(b.CreateAnd(w, i32(3)), i32(16))),
                                 b.CreateAdd(b.CreateMul(b.CreateAnd(hh, i32(1)), i32(8)), gg));
    return g.aMNMajor ? mnMajor(k, R, g.M) : kMajor(R, k, g.M);
  }
  /// Element k of column n (of `cols`) of an MN-major operand: S-byte
  /// rows of S / 2 n (S = 128, or 64 for a 32-wide B), 8-row atoms
  /// (k / 8, n / (S / 2)), the n-atoms of one k group side by side (a
  /// narrower operand fills the first part of one); 16-byte chunk c of row
  /// k stored at c ^ (k % 8) (S = 128), c ^ ((k % 8) / 2) (S = 64).
  llvm::Value *mnMajor(llvm::Value *k, llvm::Value *n, int64_t cols, int64_t S = 128) {
    Builder &b = e.b;
    int64_t rowElems = S / 2, atoms = (cols + rowElems - 1) / rowElems;
    llvm::Value *atom =
        b.CreateAdd(b.CreateMul(b.CreateLShr(k, i32(3)), i32(atoms)), b.CreateLShr(n, i32(log2i(rowElems))));
    llvm::Value *k8 = b.CreateAnd(k, i32(7));
    llvm::Value *key = S == 128 ? k8 : b.CreateLShr(k8, i32(log2i(128 / S)));
    llvm::Value *chunk = b.CreateXor(b.CreateAnd(b.CreateLShr(n, i32(3)), i32(S / 16 - 1)), key);
    return b.CreateAdd(b.CreateAdd(b.CreateMul(atom, i32(8 * S)), b.CreateMul(k8, i32(S))),
                       b.CreateAdd(b.CreateMul(chunk, i32(16)), b.CreateMul(b.CreateAnd(n, i32(7)), i32(g.esize))));
  }
  llvm::Value *offsetB(llvm::Value *k, llvm::Value *n) {
    Builder &b = e.b;
    if (g.transposed)   // row-major, padded rows
      return b.CreateAdd(b.CreateMul(k, i32(g.bRowBytes())), b.CreateMul(n, i32(g.esize)));
    return g.bKMajor ? kMajor(n, k, g.N) : mnMajor(k, n, g.N, g.mnSpan);
  }
};

/// The columns of one chunk of a chunked epilogue (WgmmaEpilogue.cpp): 32
/// (16 registers) where B is K-major, one 64-column atom N-major; 0 when
/// the MMA is not at least two of them.
int64_t epilogueChunk(const Geometry &geo, int64_t mmaN) {
  int64_t n = geo.bKMajor ? 32 : geo.mnSpan == 128 ? 64 : 0;
  return n && mmaN % n == 0 && mmaN / n >= 2 ? n : 0;
}

} // namespace

bool Emitter::dotWithWgmma(ir::Op &op) {
  ir::Value *a = op.operands[0], *bv = op.operands[1], *acc = op.operands[2], *res = op.result();
  int W = opts.numWarps;
  auto aliasIt = ringAlias.find(&op);
  const ir::Op *owner = aliasIt != ringAlias.end() ? aliasIt->second : nullptr;
  Geometry geo = geometry(*this, op);
  // a ring alias reads its owner's B tile in the other operand order
  if (owner) geo.bKMajor = !geometry(*this, *owner).bKMajor;
  if (!gpu::dotRunsOnWgmma(op, W, opts.arch) || !res->type.layout ||
      !res->type.layout->equals(*gpu::wgmmaAccLayout(W, geo.transposed)))
    return false;
  int64_t M = a->type.shape[0], K = a->type.shape[1], N = bv->type.shape[1], G = W / 4;
  int64_t offB = geo.offB(), bytes = geo.bytes();
  bool tf32 = geo.esize == 4;
  auto piped = pipelinedWgmma.find(&op);
  bool inFlight = piped != pipelinedWgmma.end(), aliasScratch = inFlight && piped->second;
  if ((inFlight ? 2 : 1) * bytes > sharedLimit()) return false;
  alignShared(1024);   // the swizzle atoms' descriptors assume 1024-byte alignment
  llvm::Value *base;
  if (inFlight) {
    // two buffers alternating by iteration (iteration i + 1 stages into one
    // while iteration i's MMAs read the other): the scratch region when
    // nothing else in the loop uses it (emitFor began the use before the
    // loop), else a region of their own
    llvm::Value *region = aliasScratch ? smemBase() : dotBuffers(2 * bytes, op.loc);
    if (aliasScratch) needShared(2 * bytes, op.loc);
    else loops.back().exitBarrier = true;
    // cp.async operands: a ring of depth + 1 buffers, iteration i's at i % ring
    llvm::Value *slot = asyncDepth.count(&op) ? readSlot(op) : loops.back().parity;
    base = b.CreateGEP(b.getInt8Ty(), region, b.CreateMul(slot, i32(bytes)));
  } else if (owner) {   // the owner's slot of this iteration, its B tile
    const Geometry og = geometry(*this, *owner);
    base = b.CreateGEP(b.getInt8Ty(), ringBase.at(owner),
                       b.CreateAdd(b.CreateMul(readSlot(*owner), i32(og.bytes())), i32(og.offB())));
  } else if (asyncWait.count(&op)) {   // B by cp.async into its own ring: iteration i's tile at i % ring
    base = b.CreateGEP(b.getInt8Ty(), ringBase.at(&op), b.CreateMul(readSlot(op), i32(bytes)));
  } else {
    needShared(bytes, op.loc);
    beginSharedUse();
    base = smemBase();
  }

  // ---- staging
  Tiles tiles{*this, geo, W};
  auto offsetA = [&](llvm::Value *L, llvm::Value *k) { return tiles.offsetA(L, k); };
  auto offsetB = [&](llvm::Value *k, llvm::Value *n) { return tiles.offsetB(k, n); };
  auto stage = [&](ir::Value *v, int64_t off, int along,
                   const std::function<llvm::Value *(llvm::Value *, llvm::Value *)> &at) {
    stageTile(*this, geo, v, base, off, along, at);
  };
  bool clean = smemClean;
  bool async = asyncDots.count(&op) || owner;   // the operands came by cp.async
  bool waited = asyncWaitedBefore.count(&op) || owner;   // an earlier dot waited for this one's tile
  bool bStaged = stagedB.count(&op) != 0;
  if (async) {   // this iteration's copies are done (or an earlier dot waited); later ones may stay in flight
    if (!waited) asyncWaitGroup(asyncWait.count(&op) ? asyncWait.at(&op) : asyncDepth.at(&op) - 1);
    // B computed in registers, into this iteration's slot: the MMAs that
    // last read the slot (ring-size iterations ago) are done
    if (bStaged) stage(bv, offB, geo.bKMajor ? 0 : 1, offsetB);
  } else {
    if (!geo.aRegs && !geo.aOwn) stage(a, 0, geo.aMNMajor ? 0 : 1, offsetA);
    stage(bv, offB, geo.bKMajor ? 0 : 1, offsetB);
  }
  // in flight: the previous iteration's MMAs may still run; this
  // iteration's chain onto the same accumulator registers (wgmma orders
  // MMAs into one accumulator), so the tensor cores never wait for the
  // barrier below
  Regs cur = regsAs(acc, res->type);
  // st.shared (generic proxy) before wgmma's reads (async proxy). Not after
  // cp.async, as Triton: the fence compiles to MEMBAR.ALL.CTA, which also
  // waits for this thread's copies of the later stages still in flight, so
  // it would undo the pipelining (4096^3 bf16 on the H200: see
  // docs/architecture.md); cp.async.wait_group and the barrier order the
  // copies before the MMAs.
  if (!async || bStaged) inlinePtx(nullptr, "fence.proxy.async.shared::cta;", "~{memory}", {});
  auto convergent = [](llvm::Value *call) {
    llvm::cast<llvm::CallInst>(call)->addFnAttr(llvm::Attribute::Convergent);
    return call;
  };
  // tf32 in flight: the previous iteration's MMAs read registers that this
  // iteration's fragment loads overwrite (the same PTX registers), and the
  // buffer this iteration's copies refill: wait for them in this warp here,
  // and in every warp once the barrier is passed (one barrier an iteration;
  // the copies of a later stage, issued after the MMAs, overlap them)
  if (tf32 && inFlight) convergent(inlinePtx(nullptr, "wgmma.wait_group.sync.aligned 0;", "~{memory}", {}));
  if (!waited) barrier();
  // the scratch region is untouched when the operands have buffers of their own
  smemClean = (inFlight && !aliasScratch) || asyncWait.count(&op) || owner ? clean : false;

  // ---- descriptors
  // A descriptor's start field is (address >> 4) in bits 0-13. Shared
  // addresses are below 2^18 and every operand offset is a multiple of 16,
  // so (addr + off) >> 4 = addr >> 4 + off >> 4 with no carry out of the
  // field: one descriptor per (LBO, SBO) is built from the buffer's address,
  // and each MMA step's is that plus a constant (one 64-bit add, not five
  // instructions an MMA in the loop).
  llvm::Value *aBuffer = geo.aOwn ? ownABase.at(&op) : base;
  auto addrFieldOf = [&](llvm::Value *buffer) {
    llvm::Value *addr = b.CreatePtrToInt(buffer, b.getInt32Ty());
    return b.CreateZExt(b.CreateLShr(b.CreateAnd(addr, i32(0x3FFFF)), i32(4)), b.getInt64Ty());
  };
  std::map<llvm::Value *, llvm::Value *> addrFields{{base, addrFieldOf(base)}};
  if (aBuffer != base) addrFields[aBuffer] = addrFieldOf(aBuffer);
  std::map<std::tuple<llvm::Value *, int64_t, int64_t, int64_t>, llvm::Value *> descBases;
  // swizzle mode (bits 62-63): 1 = 128-byte span, 2 = 64-byte
  auto descAt = [&](llvm::Value *buffer, llvm::Value *off, int64_t lbo, int64_t sbo, int64_t span = 128) {
    llvm::Value *&start = descBases[{buffer, lbo, sbo, span}];
    if (!start) {
      uint64_t mode = span == 128 ? 1 : 2;
      uint64_t fixed = (uint64_t(lbo / 16) << 16) | (uint64_t(sbo / 16) << 32) | (mode << 62);
      start = b.CreateOr(addrFields.at(buffer), b.getInt64(fixed));
    }
    return b.CreateAdd(start, b.CreateZExt(b.CreateLShr(off, i32(4), "", /*isExact=*/true), b.getInt64Ty()), "",
                       /*HasNUW=*/true, /*HasNSW=*/true);
  };
  auto desc = [&](llvm::Value *off, int64_t lbo, int64_t sbo, int64_t span = 128) {
    return descAt(base, off, lbo, sbo, span);
  };
  // the warpgroup, for descriptors: uniform, so they are too (per-thread
  // addresses keep `warp`, whose bits LLVM folds with the lane's); with one
  // warpgroup, 0, so that each descriptor is its buffer's plus a constant
  llvm::Value *q = G == 1 ? i32(0) : b.CreateLShr(uniformWarp(), i32(2));
  // A of m64 block (mG + q), MMA k step ks (32 bytes of k each); B of step
  // ks. K-major: 8-row atoms of S = 128 bytes (SBO 8 S), steps inside a
  // row, rows of 128 bytes of k side by side (`rows` / 8 atoms apart).
  int64_t S = geo.rowBytes, stepsPerRow = S / 32;
  auto kMajorOff = [&](int64_t ks, int64_t rows) { return (ks / stepsPerRow) * (rows / 8) * 8 * S + (ks % stepsPerRow) * 32; };
  auto descA = [&](int64_t m, int64_t ks) {
    llvm::Value *blk = b.CreateAdd(q, i32(m * G));
    if (geo.aMNMajor)   // the m64 block is one atom wide; k16 = two 8-row atoms, M / 64 atoms apart
      return descAt(aBuffer, b.CreateAdd(b.CreateMul(blk, i32(1024)), i32(2 * ks * (M / 64) * 1024)), 1024,
                    M / 64 * 1024);
    llvm::Value *off = b.CreateAdd(b.CreateMul(blk, i32(8 * 8 * S)), i32(kMajorOff(ks, M)));
    return descAt(aBuffer, off, 16, 8 * S, S);
  };
  // A ring alias: the owner's B tile x (K1 x N1) is this dot's B = xᵀ
  // (K = N1, N = K1). Owner K-major (8-row atoms of n1 = k, 128-byte rows
  // of k1 = n, atom (k1 / 64, n1 / 8) at ((k1 / 64) N1 / 8 + n1 / 8) * 1024):
  // to this dot the same bytes are N-major atoms of 8 k x 64 n, the next 64
  // n (LBO) N1 / 8 atoms on, the next 8 k (SBO) one atom on. Owner N-major
  // (atom (k1 / 8, n1 / 64) at ((k1 / 8) N1 / 64 + n1 / 64) * 1024): K-major
  // rows n = k1, the next 8 rows (SBO) N1 / 64 atoms on, the next 64 k one
  // atom on. The chunk swizzle is the same in both: c ^ (row % 8).
  auto aliasDescB = [&](int64_t ks) {
    const Geometry og = geometry(*this, *owner);
    if (!geo.bKMajor) return desc(i32(2 * ks * 1024), og.N / 8 * 1024, 1024);
    return desc(i32((ks / 4) * 1024 + (ks % 4) * 32), 16, og.N / 64 * 1024);
  };
  // (from column n0: a multiple of 8 K-major, of the atom's 64 N-major)
  auto descB = [&](int64_t ks, int64_t n0) {
    if (owner) return aliasDescB(ks);
    if (geo.transposed) return desc(i32(kMajorOff(ks, M)), 16, 8 * S, S);   // a, K-major
    if (geo.bKMajor) return desc(i32(offB + kMajorOff(ks, N) + n0 * S), 16, 8 * S, S);
    int64_t atom = 8 * geo.mnSpan, kGroup = geo.nAtoms() * atom;   // next n atom (LBO), next 8 k (SBO)
    return desc(i32(offB + 2 * ks * kGroup + n0 / 64 * atom), atom, kGroup, geo.mnSpan);
  };
  // tf32: the A fragment (Bᵀ) of m64 block (mG + q), step ks, from b's
  // padded rows: warp w' of the group, lane g*4 + t holds Bᵀ rows r = 16w' +
  // g and r + 8 (b columns n = 64 blk + 16w' + 2g and n + 1: the row
  // permutation of wgmmaAccLayout's transposed form) at k = 8ks + t (a0,
  // a1) and k + 4 (a2, a3): two 8-byte loads.
  auto fragA = [&](int64_t m, int64_t ks) {
    llvm::Value *g4 = b.CreateLShr(lane, i32(2)), *t = b.CreateAnd(lane, i32(3));
    llvm::Value *n = b.CreateAdd(b.CreateMul(b.CreateAdd(b.CreateLShr(warp, i32(2)), i32(m * G)), i32(64)),
                                 b.CreateAdd(b.CreateMul(b.CreateAnd(warp, i32(3)), i32(16)), b.CreateMul(g4, i32(2))));
    llvm::Value *k = b.CreateAdd(t, i32(8 * ks));
    llvm::Type *v2 = llvm::FixedVectorType::get(b.getInt32Ty(), 2);
    std::vector<llvm::Value *> out;
    for (int64_t dk : {0, 4}) {
      llvm::Value *off = b.CreateAdd(i32(offB), offsetB(b.CreateAdd(k, i32(dk)), n));
      llvm::Value *v = b.CreateAlignedLoad(v2, b.CreateGEP(b.getInt8Ty(), base, off), llvm::Align(8));
      out.push_back(b.CreateExtractElement(v, uint64_t(0)));
      out.push_back(b.CreateExtractElement(v, uint64_t(1)));
    }
    return out;
  };

  // ---- accumulator registers per m64 block, in wgmma fragment order:
  // D[4j + 2h + e] is row 16w' + g + 8h, column 8j + 2t + e of the block.
  // Untransposed, rows are C's rows (8w + g + 8W i of the layout: a's rows
  // were permuted as staged); transposed (tf32) they are C's columns
  // 16w + 2g + h + 16W i and the columns C's rows.
  auto offs = gpu::regOffsets(*res->type.layout, res->type.shape);
  int64_t mmaM = geo.transposed ? N : M, mmaN = geo.transposed ? M : N;
  int64_t blocks = mmaM / (64 * G), perBlock = mmaN / 2;
  std::vector<std::vector<size_t>> slot(static_cast<size_t>(blocks), std::vector<size_t>(static_cast<size_t>(perBlock)));
  for (size_t r = 0; r < offs.size(); ++r) {
    int64_t row = offs[r][0], col = offs[r][1];
    if (geo.transposed) {
      int64_t i = col / (16 * W), h = col % 2, j = row / 8, e = row % 2;
      slot[size_t(i)][size_t(4 * j + 2 * h + e)] = r;
      continue;
    }
    int64_t hh = row / (8 * W), j = col / 8, e = col % 2;
    slot[size_t(hh / 2)][size_t(4 * j + 2 * (hh % 2) + e)] = r;
  }
  auto ptxType = [](Scalar s) {
    return s == Scalar::F16    ? "f16"
           : s == Scalar::BF16 ? "bf16"
           : s == Scalar::I8   ? "s8"
           : s == Scalar::F8E4M3 ? "e4m3"
                                 : "e5m2";
  };
  const char *ty = ptxType(a->type.elem.scalar), *tyB = ptxType(bv->type.elem.scalar);
  bool fp8 = geo.esize == 1;   // fp8 or i8: both operands by descriptor, K-major
  // i8 accumulates in s32 registers; integer wgmma has no scale-a/b immediates
  bool intAcc = res->type.elem.isInt();
  // tf32: A from registers (4 b32), B (a) K-major, no transpose immediates;
  // f16/bf16: A from registers (aRegs) or a descriptor, B N-major
  // (imm-trans-b 1) or K-major
  bool regA = tf32 || geo.aRegs;
  int transB = geo.bKMajor ? 0 : 1, transA = geo.aMNMajor ? 1 : 0;
  // an accumulator of +0.0 (or integer 0) constants (`tl.dot(a, b)` without
  // acc): the first step ignores D (scale-d 0), so no register is zeroed for it
  bool zeroAcc = std::all_of(cur.begin(), cur.end(), [](llvm::Value *v) {
    if (auto *i = llvm::dyn_cast<llvm::ConstantInt>(v)) return i->isZero();
    auto *c = llvm::dyn_cast<llvm::ConstantFP>(v);
    return c && c->isZero() && !c->isNegative();
  });
  // the MMA of n columns into n / 2 registers: its text for the first step
  // and the others, constraints, result type
  struct MmaForm {
    std::string first, next, constraints;
    llvm::StructType *ty;
    int64_t count;
  };
  auto formFor = [&](int64_t n) {
    int64_t count = n / 2, p0 = 2 * count;
    std::string regList, tied, outs;
    for (int64_t i = 0; i < count; ++i) {
      regList += fmt::format("{}${}", i ? "," : "", i);
      tied += fmt::format(",{}", i);
      outs += intAcc ? (i ? ",=r" : "=r") : (i ? ",=f" : "=f");
    }
    // scale-d (the first immediate): 1 adds D, 0 ignores it (D = A * B)
    // fp8: both operands by descriptor, K-major (no transpose immediates)
    auto text = [&](int scaleD) {
      if (fp8 && intAcc)
        return fmt::format("wgmma.mma_async.sync.aligned.m64n{}k32.s32.{}.{} {{{}}}, ${}, ${}, {};", n, ty, tyB,
                           regList, p0, p0 + 1, scaleD);
      if (fp8)
        return fmt::format("wgmma.mma_async.sync.aligned.m64n{}k32.f32.{}.{} {{{}}}, ${}, ${}, {}, 1, 1;", n, ty, tyB,
                           regList, p0, p0 + 1, scaleD);
      return tf32 ? fmt::format("wgmma.mma_async.sync.aligned.m64n{}k8.f32.tf32.tf32 {{{}}}, {{${},${},${},${}}}, ${}, {}, 1, 1;",
                                n, regList, p0, p0 + 1, p0 + 2, p0 + 3, p0 + 4, scaleD)
             : regA ? fmt::format("wgmma.mma_async.sync.aligned.m64n{}k16.f32.{}.{} {{{}}}, {{${},${},${},${}}}, ${}, {}, 1, 1, {};",
                                  n, ty, ty, regList, p0, p0 + 1, p0 + 2, p0 + 3, p0 + 4, scaleD, transB)
                    : fmt::format("wgmma.mma_async.sync.aligned.m64n{}k16.f32.{}.{} {{{}}}, ${}, ${}, {}, 1, 1, {}, {};",
                                  n, ty, ty, regList, p0, p0 + 1, scaleD, transA, transB);
    };
    std::vector<llvm::Type *> fl(size_t(count), intAcc ? b.getInt32Ty() : b.getFloatTy());
    return MmaForm{zeroAcc ? text(0) : text(1), text(1), outs + tied + (regA ? ",r,r,r,r,l,~{memory}" : ",l,l,~{memory}"),
                   llvm::StructType::get(ctx, fl), count};
  };
  int64_t steps = K / geo.kStep();
  // the register fragments are loaded before the fence, which orders them
  // before the MMAs that read them
  std::vector<std::vector<std::vector<llvm::Value *>>> frags(static_cast<size_t>(blocks));
  if (tf32)
    for (int64_t m = 0; m < blocks; ++m)
      for (int64_t ks = 0; ks < steps; ++ks) frags[size_t(m)].push_back(fragA(m, ks));
  if (geo.aRegs) frags = registerFragsA(a, blocks, steps);
  // the K / kStep MMAs of m64 block m, columns n0 .. n0 + n, onto c
  auto issue = [&](const MmaForm &f, int64_t m, Regs c, int64_t n0) {
    for (int64_t ks = 0; ks < steps; ++ks) {
      std::vector<llvm::Value *> ins(c.begin(), c.end());
      if (ks == 0 && zeroAcc)
        for (llvm::Value *&x : ins) x = llvm::UndefValue::get(x->getType());
      if (regA) {
        for (llvm::Value *x : frags[size_t(m)][size_t(ks)]) ins.push_back(x);
      } else {
        ins.push_back(descA(m, ks));
      }
      ins.push_back(descB(ks, n0));
      llvm::Value *s = convergent(inlinePtx(f.ty, ks == 0 ? f.first : f.next, f.constraints, ins));
      for (int64_t i = 0; i < f.count; ++i) c[size_t(i)] = b.CreateExtractValue(s, unsigned(i));
    }
    return c;
  };
  bool deferred = deferredDots.count(&op) != 0;   // waited for in the next iteration, or after the loop
  // a fresh product read only by elementwise ops (acc += dot * scales), too
  // large to sit in registers beside an accumulator of its size (a thread
  // has 255): by column chunks, each one's ops right after its wait
  // (WgmmaEpilogue.cpp)
  bool crowded = 2 * int64_t(cur.size()) + 32 > 255;
  if (int64_t n = epilogueChunk(geo, mmaN); n && crowded && zeroAcc && !tf32 && !inFlight && !deferred && !owner &&
                                            !deferredWait.count(&op)) {
    DotEpilogue epi = planDotEpilogue(op);
    if (!epi.chain.empty()) {
      const MmaForm f = formFor(n);
      Regs fresh(size_t(f.count), llvm::UndefValue::get(intAcc ? b.getInt32Ty() : b.getFloatTy()));
      emitChunkedEpilogue(op, epi, {blocks, mmaN / n, n / 2}, slot, cur.size(),
                          [&](int64_t m, int64_t c) { return issue(f, m, fresh, c * n); });
      return true;
    }
  }
  const MmaForm form = formFor(mmaN);
  convergent(inlinePtx(nullptr, "wgmma.fence.sync.aligned;", "~{memory}", {}));
  std::vector<Regs> blockAcc(static_cast<size_t>(blocks));
  for (int64_t m = 0; m < blocks; ++m) {
    Regs c;
    for (size_t r : slot[size_t(m)]) c.push_back(cur[r]);
    blockAcc[size_t(m)] = issue(form, m, c, 0);
  }
  convergent(inlinePtx(nullptr, "wgmma.commit_group.sync.aligned;", "~{memory}", {}));
  if (inFlight && !tf32) {
    // the previous iteration's MMAs are done in this warp (this one's stay
    // in flight), and in every warp once the barrier is passed: the rest of
    // the iteration may overwrite their operand buffer (the cp.async ring's
    // oldest slot, or the staging buffer of the next iteration). (tf32
    // waits at the start of the next iteration, above.)
    convergent(inlinePtx(nullptr, "wgmma.wait_group.sync.aligned 1;", "~{memory}", {}));
    if (!hasSpareSlot(op)) barrier();
  }
  Regs fin = cur;
  for (int64_t m = 0; m < blocks; ++m)
    for (int64_t i = 0; i < perBlock; ++i) fin[slot[size_t(m)][size_t(i)]] = blockAcc[size_t(m)][size_t(i)];
  if (auto later = deferredWait.find(&op); later != deferredWait.end()) {
    // this dot's wait also ends the MMAs a later dot of the previous
    // iteration left running (planDeferredWaits): its accumulator, carried
    // in, is threaded through the same wait, and the body reads it only
    // after it
    ir::Value *arg = later->second;
    Regs both = fin, carriedAcc = regs(arg);
    both.insert(both.end(), carriedAcc.begin(), carriedAcc.end());
    Regs waited = wgmmaWait(both);
    define(res, Regs(waited.begin(), waited.begin() + long(fin.size())));
    define(arg, Regs(waited.begin() + long(fin.size()), waited.end()));
    return true;
  }
  define(res, inFlight || deferred ? fin : wgmmaWait(fin));   // no trailing barrier: see beginSharedUse
  return true;
}

std::vector<std::vector<std::vector<llvm::Value *>>> Emitter::registerFragsA(ir::Value *a, int64_t blocks, int64_t steps) {
  // wgmma's register A fragment of an m64k16 step has the accumulator's
  // fragment form: element i (of 8) of warp w' of the group, lane g*4 + t,
  // is row 16w' + g + 8((i / 2) % 2), k 8(i / 4) + 2t + i % 2, and register
  // j holds elements 2j, 2j + 1. In the accumulator's layout this thread
  // holds A's rows 8w + g + 8W(2m + h) (m64 block m, h = (i / 2) % 2) and
  // columns 8jl + 2t + e: the same rows as the result's (see the file
  // comment), so no register moves between threads.
  int64_t W = opts.numWarps;
  auto offs = gpu::regOffsets(*a->type.layout, a->type.shape);
  const Regs &r = regs(a);
  std::vector<std::vector<std::vector<size_t>>> at(size_t(blocks), std::vector<std::vector<size_t>>(size_t(steps), std::vector<size_t>(8)));
  for (size_t i = 0; i < offs.size(); ++i) {
    int64_t row = offs[i][0], col = offs[i][1], hh = row / (8 * W);
    at[size_t(hh / 2)][size_t(col / 16)][size_t(4 * ((col % 16) / 8) + 2 * (hh % 2) + col % 2)] = i;
  }
  llvm::Type *pair = llvm::FixedVectorType::get(r[0]->getType(), 2);
  std::vector<std::vector<std::vector<llvm::Value *>>> out(static_cast<size_t>(blocks));
  for (int64_t m = 0; m < blocks; ++m)
    for (int64_t ks = 0; ks < steps; ++ks) {
      std::vector<llvm::Value *> f;
      for (size_t j = 0; j < 4; ++j) {
        const std::vector<size_t> &e = at[size_t(m)][size_t(ks)];
        llvm::Value *v = b.CreateInsertElement(llvm::PoisonValue::get(pair), r[e[2 * j]], uint64_t(0));
        v = b.CreateInsertElement(v, r[e[2 * j + 1]], uint64_t(1));
        f.push_back(b.CreateBitCast(v, b.getInt32Ty()));
      }
      out[size_t(m)].push_back(f);
    }
  return out;
}

namespace {

/// The most alignment padding a ring of 1024-byte swizzle atoms needs.
constexpr int64_t kRingAlign = 1023;

/// Whether an op of blk (at any depth) other than `except` may use the
/// shared scratch region: anything but register-only ops (layout
/// conversions, shape ops through shared memory, reductions, dots, nested
/// control flow, prints and asserts all may; a permute whose layouts line up
/// is a register remap, as tl.trans of a loaded tile's pointers is).
bool usesScratchBesides(const Emitter &e, const ir::Block &blk, const ir::Op *except) {
  using K = ir::OpKind;
  for (auto &o : blk.ops) {
    if (o.get() == except) continue;
    switch (o->kind) {
#include "ir/ElementwiseCases.inc"
    case K::Constant: case K::Arange: case K::ProgramId: case K::NumPrograms: case K::Splat: case K::Broadcast:
    case K::ExpandDims: case K::Load: case K::Store: case K::Yield: case K::Condition: case K::InlineAsm:
      break;
    case K::Permute:
      if (!e.permutesInRegisters(*o) && !e.aliasPermutes.count(o.get())) return true;
      break;
    case K::Reshape: case K::ConvertLayout: case K::Dot: case K::Reduce: case K::Scan:
    case K::AtomicRMW: case K::AtomicCas: case K::For: case K::While: case K::If: case K::Barrier: case K::Print:
    case K::Assert:
      return true;
    }
  }
  return false;
}

} // namespace

Regs Emitter::wgmmaWait(const Regs &acc, int pending) {
  // the wait takes and returns the accumulators, so that nothing reads
  // them before it
  return tieRegisters(acc, fmt::format("wgmma.wait_group.sync.aligned {};", pending));
}

Regs Emitter::tieRegisters(const Regs &acc, const std::string &text) {
  // in chunks of at most 64 registers (one `text`, then empty asm that
  // only ties the rest, ordered after it)
  Regs out;
  for (size_t first = 0; first < acc.size(); first += 64) {
    size_t n = std::min<size_t>(64, acc.size() - first);
    // f32 accumulators, or s32 ones of i8 dots
    bool ints = acc[first]->getType()->isIntegerTy();
    std::string outs, tied;
    for (size_t i = 0; i < n; ++i) {
      outs += ints ? (i ? ",=r" : "=r") : (i ? ",=f" : "=f");
      tied += fmt::format(",{}", i);
    }
    std::vector<llvm::Type *> fl(n, ints ? b.getInt32Ty() : b.getFloatTy());
    std::vector<llvm::Value *> ins(acc.begin() + long(first), acc.begin() + long(first + n));
    llvm::Value *s = inlinePtx(llvm::StructType::get(ctx, fl), first == 0 ? text : "// wgmma accumulators",
                               outs + tied + ",~{memory}", ins);
    llvm::cast<llvm::CallInst>(s)->addFnAttr(llvm::Attribute::Convergent);
    for (size_t i = 0; i < n; ++i) out.push_back(b.CreateExtractValue(s, unsigned(i)));
  }
  return out;
}

bool Emitter::wgmmaInFlight(const ir::Op &loop, size_t i) {
  ir::Block &body = *loop.regions[0]->block;
  ir::Value *arg = body.args[1 + i].get();
  ir::Op *dot = nullptr;
  for (auto &o : body.ops)
    for (ir::Value *v : o->operands)
      if (v == arg) {
        if (dot || o->kind != ir::OpKind::Dot) return false;
        dot = o.get();
      }
  // (a use nested deeper than the body also disqualifies: the loop above
  // only sees direct uses, so look for others)
  if (!dot || dot->operands[2] != arg || dot->operands[0] == arg || dot->operands[1] == arg) return false;
  std::function<bool(const ir::Block &)> usedInside = [&](const ir::Block &blk) {
    for (auto &o : blk.ops) {
      for (auto &r : o->regions)
        if (usedInside(*r->block)) return true;
      if (&blk != &body)
        for (ir::Value *v : o->operands)
          if (v == arg || v == dot->result()) return true;
    }
    return false;
  };
  if (usedInside(body)) return false;
  ir::Op *yield = body.terminator();
  for (auto &o : body.ops)
    for (ir::Value *v : o->operands)
      if (v == dot->result() && o.get() != yield) return false;
  for (size_t j = 0; j < yield->operands.size(); ++j)
    if (yield->operands[j] == dot->result() && j != i) return false;
  if (yield->operands[i] != dot->result() || !(arg->type == dot->result()->type)) return false;
  const ir::Type &t = dot->result()->type;
  const Geometry geo = geometry(*this, *dot);
  if (!gpu::dotRunsOnWgmma(*dot, opts.numWarps, opts.arch) || !t.layout || !t.layout->equals(*gpu::wgmmaAccLayout(opts.numWarps, geo.transposed)))
    return false;
  // an A read from registers stays in flight only until the next
  // iteration redefines those PTX registers (the same ones each iteration),
  // before the dot: such a dot waits for its MMAs at once. An A in a buffer
  // of its own is planned as those are (its B by cp.async into a ring of
  // its own, planRingOperands), not double-buffered here
  if (geo.aRegs || geo.aOwn) return false;
  pipelinedWgmma[dot] = !usesScratchBesides(*this, body, dot);
  return true;
}

bool Emitter::stagesB(const ir::Op &loop, size_t i) const {
  const ir::Value *arg = loop.regions[0]->block->args[1 + i].get();
  return std::any_of(stagedB.begin(), stagedB.end(), [&](const ir::Op *dot) { return dot->operands[2] == arg; });
}

void Emitter::releaseRings(const ir::Op &loop) {
  auto it = loopRings.find(&loop);
  auto own = ownAAt.find(&loop);
  if (it == loopRings.end() && own == ownAAt.end()) return;
  barrier();
  int64_t first = dotBufferTop;
  if (it != loopRings.end())
    for (const ir::Op *dot : it->second)
      if (auto at = ringAt.find(dot); at != ringAt.end()) first = std::min(first, at->second);
  if (own != ownAAt.end()) first = std::min(first, own->second);
  // a staged A that a later loop of its block stages too stays reserved
  // (stagedA; the buffers above it were reserved after it)
  releasedLoops.insert(&loop);
  int64_t kept = 0;
  for (auto s = stagedA.begin(); s != stagedA.end();) {
    bool later = std::any_of(ownA.begin(), ownA.end(), [&](const auto &d) {
      return d.first->operands[0] == s->first && d.second->parent == s->second.block && !releasedLoops.count(d.second);
    });
    if (s->second.at < first || later) {   // below this loop's buffers, or still to be read
      if (s->second.at >= first) kept = std::max(kept, s->second.end);
      ++s;
    } else {
      s = stagedA.erase(s);
    }
  }
  dotBufferTop = std::max(first, kept);   // the rings were the last buffers reserved: their copies started just before the loop
  ringsReleased |= dotBufferTop == 0;
}

llvm::Value *Emitter::dotBuffers(int64_t bytes, Location loc) {
  if (!dotBufferAt)
    dotBufferAt = new llvm::GlobalVariable(mod, b.getInt32Ty(), /*isConstant=*/true, llvm::GlobalValue::InternalLinkage,
                                           b.getInt32(0), "dot_buffers_at");
  if (freeSharedBytes > 0 && !smemClean) barrier();   // a scratch use over these bytes may still be read
  int64_t at = dotBufferTop;
  dotBufferTop += (bytes + 1023) / 1024 * 1024;
  dotBufferBytes = std::max(dotBufferBytes, dotBufferTop);
  needShared(sharedBytes, loc);   // checks the limit with the buffers counted
  llvm::Value *start = b.CreateAdd(b.CreateLoad(b.getInt32Ty(), dotBufferAt), i32(at));
  return b.CreateGEP(b.getInt8Ty(), smemBase(), start);
}

} // namespace tile::backend

namespace tile::backend {

// ------------------------------------------------------------ cp.async operands

namespace {

/// The ops of blk (at any depth) that use v, once per use.
void usesOf(const ir::Value *v, const ir::Block &blk, std::vector<const ir::Op *> &out) {
  for (auto &op : blk.ops) {
    for (ir::Value *o : op->operands)
      if (o == v) out.push_back(op.get());
    for (auto &r : op->regions) usesOf(v, *r->block, out);
  }
}

/// Whether block b lies (at any depth) inside the regions of body's ops.
bool isInsideBlock(const ir::Block *b, const ir::Block &body) {
  while (b && b->parent && b->parent->parent) {
    b = b->parent->parent->parent;
    if (b == &body) return true;
  }
  return false;
}

bool isZeroConstant(const ir::Value *v) {
  if (!v->def || v->def->kind != ir::OpKind::Constant) return false;
  const ir::Attr &a = v->def->attrs.at("value");
  if (auto *d = std::get_if<double>(&a)) return *d == 0.0 && !std::signbit(*d);
  if (auto *i = std::get_if<int64_t>(&a)) return *i == 0;
  return false;
}

} // namespace

std::vector<size_t> Emitter::asyncChain(ir::Op &loop, const ir::Op &dot, int k) {
  const Geometry geo = geometry(*this, dot);
  // a load qualifies when it moves 16-byte chunks proven contiguous,
  // aligned and uniformly masked, with `other` zero (cp.async's zero fill)
  // the 16-byte chunks' direction in shared memory
  int along = (k == 1 && geo.bKMajor) || (k == 0 && geo.aMNMajor) ? 0 : 1;
  auto qualifies = [&](const ir::Value *v, const ir::Block &scope, const ir::Op *onlyUser) {
    return copiesBy16Bytes(v, scope, onlyUser, along);
  };
  return carriedChain(loop, dot, dot.operands[size_t(k)], qualifies);
}

bool Emitter::copiesBy16Bytes(const ir::Value *v, const ir::Block &scope, const ir::Op *onlyUser, int along) {
  const ir::Op *ld = v->def;
  if (!ld || ld->kind != ir::OpKind::Load || ld->parent != &scope) return false;
  if (ld->operands.size() > 2 && !isZeroConstant(ld->operands[2])) return false;
  std::vector<const ir::Op *> users;
  usesOf(v, scope, users);
  if (users.size() != 1 || users[0] != onlyUser) return false;
  size_t chunk = size_t(16 / byteSize(v->type.elem.scalar));
  if (contiguousRun(dist(v->type), chunk, /*aligned=*/true, along) != chunk) return false;
  return axis.vectorWidth(ld->operands[0], ld->operands.size() > 1 ? ld->operands[1] : nullptr, along) >= int(chunk);
}

std::vector<size_t> Emitter::carriedChain(ir::Op &loop, const ir::Op &consumer, const ir::Value *v,
                                          const LoadTest &qualifies) {
  // the carried tiles of iterations i, i + 1, ... (the first feeds the
  // consumer, each next one is yielded into the one before, the newest
  // comes from a load in the body), each loaded before the loop too
  ir::Block &blk = *loop.parent, &body = *loop.regions[0]->block;
  ir::Op *yield = body.terminator();
  std::vector<size_t> chain;
  bool ok = true;
  while (ok && v->isBlockArg() && v->owner == &body && v->index > 0) {
    size_t j = v->index - 1;
    std::vector<const ir::Op *> users, after;
    usesOf(v, body, users);
    if (auto alias = aliasCandidates.find(v); alias != aliasCandidates.end() && chain.empty())   // planRingAliases
      users.erase(std::remove(users.begin(), users.end(), alias->second), users.end());
    usesOf(loop.results[j].get(), blk, after);
    ok = users.size() == 1 && users[0] == (chain.empty() ? &consumer : yield) && after.empty() &&
         qualifies(loop.operands[3 + j], blk, &loop) && chain.size() < 8;
    chain.push_back(j);
    v = yield->operands[j];
  }
  if (!ok || chain.empty() || !qualifies(v, body, yield)) return {};
  return chain;
}

void Emitter::markAsync(ir::Op &loop, const ir::Op *dot, int k, const std::vector<size_t> &chain) {
  ir::Op *yield = loop.regions[0]->block->terminator();
  for (size_t c = 0; c < chain.size(); ++c) {
    asyncLoads[loop.operands[3 + chain[c]]->def] = {dot, k, int(c)};
    asyncCarried.insert({&loop, chain[c]});
  }
  asyncLoads[yield->operands[chain.back()]->def] = {dot, k, -1};
  asyncDots.insert(dot);
  asyncDepth[dot] = int(chain.size());
}

void Emitter::planAsyncOperands(ir::Block &blk) {
  for (auto &op : blk.ops) {
    for (auto &r : op->regions) planAsyncOperands(*r->block);
    if (op->kind == ir::OpKind::While) planInvariantOperands(*op);
    if (op->kind != ir::OpKind::For) continue;
    planInvariantOperands(*op);
    ir::Block &body = *op->regions[0]->block;
    bool pipelined = false;
    for (size_t i = 0; i + 1 < body.args.size(); ++i) {
      if (!wgmmaInFlight(*op, i)) continue;
      const ir::Op *dot = nullptr;
      for (const auto &[d, alias] : pipelinedWgmma)
        if (d->parent == &body && d->operands[2] == body.args[1 + i].get() && alias) dot = d;
      if (!dot) continue;
      std::vector<size_t> a = asyncChain(*op, *dot, 0), b2 = asyncChain(*op, *dot, 1);
      // B computed from its load (a conversion, a scale): A alone by
      // cp.async, B staged from registers into the same slot each iteration
      bool mixed = !a.empty() && b2.empty() && geometry(*this, *dot).esize == 2;
      if (a.empty() || (b2.empty() && !mixed) || (!mixed && a.size() != b2.size())) continue;
      markAsync(*op, dot, 0, a);
      if (mixed) stagedB.insert(dot);
      else markAsync(*op, dot, 1, b2);
      planSpareSlot(*dot);
      pipelined = true;
    }
    if (!pipelined) {
      planRingOperands(*op);
      planDeferredWaits(*op);
    }
  }
}

void Emitter::planSpareSlot(const ir::Op &dot) {
  // With depth + 1 slots, iteration i's copies refill the slot that
  // iteration i - 1's MMAs read: every warp must have waited for those
  // (wgmma.wait_group 1) before any warp copies, a second barrier an
  // iteration. With depth + 2 slots they refill iteration i - 2's slot,
  // whose MMAs every warp waited for before the barrier that begins
  // iteration i. Taken where it fits, unless it leaves one program an SM
  // where there were more: one barrier an iteration is worth more than a
  // third program (H100, 4096^3 f16, 128x128x32 on 4 warps, 4 stages: 517
  // TFLOP/s with 4 slots, 3 programs an SM, two barriers; 572 with 5 slots,
  // 2 programs, one barrier). TILE_RING_SPARE=0 / 1 forces it off / on.
  const Geometry geo = geometry(*this, dot);
  int64_t bytes = geo.bytes(), depth = asyncDepth.at(&dot);
  ringSlots[&dot] = int(depth) + 1;
  if (geo.esize == 4) return;   // tf32 waits for all MMAs at the iteration's start
  static const char *force = std::getenv("TILE_RING_SPARE");
  // a ring's bytes: its slots and up to 1023 of alignment (1024-byte atoms,
  // as ringFits); each program also has 1 KiB of the SM's shared memory
  // reserved
  int64_t perSM = gpu::sharedMemoryPerSM(opts.arch), reserved = 1024;
  auto programs = [&](int64_t slots) { return perSM / (slots * bytes + kRingAlign + reserved); };
  bool fits = ringFits(dot, depth + 2);   // (an async dot's body exchanges nothing through scratch)
  int64_t now = programs(depth + 1), then = programs(depth + 2);
  bool take = force ? *force == '1' && fits : fits && (then >= 2 || then == now);
  if (take) ringSlots[&dot] += 1;
}

void Emitter::planInvariantOperands(ir::Op &loop) {
  // a wgmma dot of the body whose f16/bf16 A is defined before the loop
  // and is not read from registers (attention's q): staged once, before
  // the loop, into a buffer of its own, and read by descriptor in every
  // iteration (Triton's local_alloc of q), so that its registers are free
  // in the loop
  if (!ownOperands) return;
  bool isWhile = loop.kind == ir::OpKind::While;
  ir::Block &body = *loop.regions[isWhile ? 1 : 0]->block;
  auto inLoop = [&](const ir::Block *blk) {
    for (auto &r : loop.regions)
      if (blk == r->block.get() || isInsideBlock(blk, *r->block)) return true;
    return false;
  };
  for (auto &o : body.ops) {
    if (!wgmmaAccDot(*o)) continue;
    const ir::Value *a = o->operands[0];
    if (inLoop(a->isBlockArg() ? a->owner : a->def->parent) || a->type.elem.scalar == Scalar::F32) continue;
    if (Geometry::of(*o, opts.numWarps).aRegs) continue;
    ownA[o.get()] = &loop;
  }
}

void Emitter::stageInvariantOperands(const ir::Op &loop) {
  bool any = false;
  for (const auto &[dot, l] : ownA) {
    if (l != &loop) continue;
    const Geometry geo = geometry(*this, *dot);
    StagedA &buf = ownABuffer(*dot, loop);
    ownABase[dot] = buf.base;
    if (buf.written) continue;   // staged for an earlier loop, or for an earlier dot of this one
    buf.written = true;
    llvm::Value *base = buf.base;
    Tiles tiles{*this, geo, opts.numWarps};
    stageTile(*this, geo, dot->operands[0], base, 0, geo.aMNMajor ? 0 : 1,
              [&](llvm::Value *L, llvm::Value *k) { return tiles.offsetA(L, k); });
    usedOwnOperands = any = true;
  }
  if (!any) return;
  // st.shared (generic proxy) before wgmma's reads (async proxy), in every warp
  inlinePtx(nullptr, "fence.proxy.async.shared::cta;", "~{memory}", {});
  barrier();
}

Emitter::StagedA &Emitter::ownABuffer(const ir::Op &dot, const ir::Op &loop) {
  auto staged = stagedA.find(dot.operands[0]);
  if (staged == stagedA.end() || staged->second.block != loop.parent) {
    int64_t at = dotBufferTop;
    usedOwnOperands = true;   // (buffers that do not fit: the kernel is emitted again without them)
    llvm::Value *base = dotBuffers(geometry(*this, dot).aBytes(), dot.loc);
    staged = stagedA.insert_or_assign(dot.operands[0], StagedA{base, at, dotBufferTop, loop.parent, false}).first;
  }
  auto at = ownAAt.find(&loop);
  ownAAt[&loop] = at == ownAAt.end() ? staged->second.at : std::min(at->second, staged->second.at);
  return staged->second;
}

void Emitter::reserveInvariantOperands(const ir::Op &loop) {
  for (const auto &[dot, l] : ownA)
    if (l == &loop) ownABuffer(*dot, loop);
}

bool Emitter::wgmmaAccDot(const ir::Op &o) const {
  if (o.kind != ir::OpKind::Dot || !gpu::dotRunsOnWgmma(o, opts.numWarps, opts.arch)) return false;
  const ir::Type &t = o.result()->type;   // (the tf32 dots' transposed layout is another)
  return t.layout && t.layout->equals(*gpu::wgmmaAccLayout(opts.numWarps, false));
}

void Emitter::planDeferredWaits(ir::Op &loop) {
  // attention's p @ v: its MMAs may run on into the next iteration until
  // q @ kᵀ there waits for its own (one wait_group 0 ends both), when
  //  - it is a wgmma dot with A from registers whose result only the yield
  //    takes, and the carried accumulator is read, in the body, only after
  //    an earlier wgmma dot (the one that waits);
  //  - its A registers are not redefined before that wait: A is defined
  //    before the loop or computed from the earlier dot's result;
  //  - its B ring has one slot more: the tile of iteration i + d is issued
  //    after this iteration's barrier, which the warps pass before waiting
  //    for the MMAs of iteration i - 1, so it goes to iteration i - 2's slot.
  ir::Block &body = *loop.regions[0]->block;
  ir::Op *yield = body.terminator();
  std::vector<ir::Op *> dots;
  for (auto &o : body.ops)
    if (wgmmaAccDot(*o) && !pipelinedWgmma.count(o.get())) dots.push_back(o.get());
  for (size_t i = 1; i < dots.size(); ++i) {
    ir::Op *first = dots[i - 1], *dot = dots[i];
    if (!geometry(*this, *dot).aRegs || deferredWait.count(first) || deferredDots.count(first)) continue;
    std::vector<const ir::Op *> users;
    usesOf(dot->result(), body, users);
    size_t j = 0;
    while (j < yield->operands.size() && yield->operands[j] != dot->result()) ++j;
    if (users.size() != 1 || users[0] != yield || j == yield->operands.size()) continue;
    ir::Value *arg = body.args[1 + j].get();
    // every use of the carried accumulator: directly in the body, after
    // `first` (not by `first` itself, which reads before its wait)
    bool afterFirst = true, seen = false;
    for (auto &o : body.ops) {
      for (ir::Value *v : o->operands)
        if (v == arg && !seen) afterFirst = false;
      if (o.get() == first) seen = true;
      for (auto &r : o->regions) {
        std::vector<const ir::Op *> nested;
        usesOf(arg, *r->block, nested);
        if (!nested.empty()) afterFirst = false;
      }
    }
    if (!afterFirst || asyncCarried.count({&loop, j})) continue;
    // A: before the loop, or derived from `first`'s result
    std::function<bool(const ir::Value *, int)> fromFirst = [&](const ir::Value *v, int depth) {
      if (v->isBlockArg()) return v->owner != &body && !isInsideBlock(v->owner, body);
      if (v->def == first) return true;
      if (v->def->parent != &body) return !isInsideBlock(v->def->parent, body);
      if (depth > 64 || v->def->operands.empty()) return false;
      return std::any_of(v->def->operands.begin(), v->def->operands.end(),
                         [&](const ir::Value *o) { return o->type.isTensor() && fromFirst(o, depth + 1); });
    };
    if (!fromFirst(dot->operands[0], 0)) continue;
    deferredWait[first] = arg;
    deferredDots.insert(dot);
    deferredCarried.insert({&loop, j});
    if (ringSlots.count(dot)) ringSlots[dot] += 1;
    // a ring alias's MMAs read its owner's slot: one more there (once)
    auto alias = ringAlias.find(dot);
    if (alias != ringAlias.end() && !deferredDots.count(alias->second))
      ringSlots[alias->second] += 1;
  }
}

void Emitter::planRingAliases(ir::Op &loop) {
  // dot2 = dot(a2, permute(x)), x a carried tile of the body that only
  // dot1 (before dot2, as its B) and the permute read, both dots with A
  // from registers or a buffer of their own, f16/bf16, x's rows whole
  // 128-byte swizzle rows in dot1's staging (aliasDescB): dot2 may read
  // dot1's ring. Candidates here (carriedChain lets x have the permute as
  // a second user); kept where dot1 got its ring (keepRingAliases).
  ir::Block &body = *loop.regions[0]->block;
  std::map<const ir::Op *, size_t> at;
  for (auto &o : body.ops) at[o.get()] = at.size();
  for (auto &o : body.ops) {
    const ir::Op *perm = o->operands.size() > 1 ? o->operands[1]->def : nullptr;
    if (!wgmmaAccDot(*o) || !perm || perm->kind != ir::OpKind::Permute || perm->parent != &body ||
        o->operands[0] == o->operands[1])
      continue;
    const ir::Value *x = perm->operands[0];
    if (!x->isBlockArg() || x->owner != &body || x->index == 0 || aliasCandidates.count(x)) continue;
    std::vector<const ir::Op *> xu, pu;
    usesOf(x, body, xu);
    usesOf(perm->result(), body, pu);
    if (pu.size() != 1 || pu[0] != o.get() || xu.size() != 2) continue;
    const ir::Op *first = xu[0] == perm ? xu[1] : xu[0];
    if (first == perm || first->parent != &body || !wgmmaAccDot(*first) || first->operands[1] != x ||
        first->operands[0] == x || at.at(first) > at.at(o.get()))
      continue;
    const Geometry g1 = geometry(*this, *first), g2 = geometry(*this, *o);
    if (!(g1.aRegs || g1.aOwn) || !(g2.aRegs || g2.aOwn) || g1.esize != 2 || g2.esize != 2) continue;
    // (whole 64-element atoms along the tile's rows: aliasDescB's strides)
    if ((g1.bKMajor ? g1.rowBytes != 128 || g1.N % 8 : g1.K % 16) || !gpu::aliasRowsFit(g1.bKMajor ? g1.K : g1.N))
      continue;
    ringAlias[o.get()] = first;
    aliasCandidates[x] = perm;
  }
}

void Emitter::keepRingAliases(const ir::Op &loop) {
  const ir::Block *body = loop.regions[0]->block.get();
  for (auto it = ringAlias.begin(); it != ringAlias.end();) {
    const ir::Op *dot = it->first, *owner = it->second;
    if (dot->parent != body || aliasPermutes.count(dot->operands[1]->def)) {
      ++it;
      continue;
    }
    const ir::Value *x = dot->operands[1]->def->operands[0];
    aliasCandidates.erase(x);
    auto rings = loopRings.find(&loop);
    if (rings == loopRings.end() || !std::count(rings->second.begin(), rings->second.end(), owner)) {
      it = ringAlias.erase(it);
      continue;
    }
    aliasPermutes.insert(dot->operands[1]->def);
    ++it;
  }
}

void Emitter::planRingOperands(ir::Op &loop) {
  planRingAliases(loop);
  planRingOperandsOf(loop);
  keepRingAliases(loop);
}

void Emitter::planRingOperandsOf(ir::Op &loop) {
  // dots that read A from registers and wait for their MMAs (attention's
  // q @ kᵀ and p @ v): B by cp.async into a ring of its own (dotBuffers,
  // beside the scratch region the rest of the body uses), one commit
  // group per tile; the tile of iteration i + d is issued after the dot of
  // iteration i (the pipeline pass puts it before the yield), so every
  // warp has passed that dot's barrier, and with it the MMAs of iteration
  // i - 1 that read the slot it refills
  ir::Block &blk = *loop.parent, &body = *loop.regions[0]->block;
  ir::Op *yield = body.terminator();
  auto position = [](const ir::Block &b, const ir::Op *o) {
    size_t n = 0;
    for (auto &x : b.ops) {
      if (x.get() == o) return n;
      ++n;
    }
    return n;
  };
  struct Ring {
    const ir::Op *dot;   ///< its consumer: a dot (B's ring) or a convert (a register ring)
    std::vector<size_t> chain;
    size_t at, issue;   ///< body positions of the consumer and of its next tile's load
    int operand;        ///< AsyncOperand::operand
  };
  std::vector<Ring> rings;
  auto ringOf = [&](const ir::Op &dot, const std::vector<size_t> &chain, int operand) {
    return Ring{&dot, chain, position(body, &dot), position(body, yield->operands[chain.back()]->def), operand};
  };
  for (auto &o : body.ops) {
    if (mmaRingCandidate(*o)) {
      // an mma.sync dot: A and B by cp.async into one ring of slots of its
      // row-major staging (both tiles' rows along k / n, 16-byte chunks)
      auto chainOf = [&](int k) {
        auto qualifies = [&](const ir::Value *v, const ir::Block &scope, const ir::Op *onlyUser) {
          return copiesBy16Bytes(v, scope, onlyUser, mmaStagingAlong(o->operands[size_t(k)]->type));
        };
        return carriedChain(loop, *o, o->operands[size_t(k)], qualifies);
      };
      std::vector<size_t> a = chainOf(0), bc = chainOf(1);
      if (a.empty() || a.size() != bc.size() || !ringFits(*o, int64_t(a.size()) + 1)) continue;
      Ring ra = ringOf(*o, a, 0), rb = ringOf(*o, bc, 1);
      if (ra.issue > ra.at && rb.issue > rb.at) rings.insert(rings.end(), {ra, rb});
      continue;
    }
    if (!wgmmaAccDot(*o)) continue;
    Geometry g = geometry(*this, *o);
    if (!g.aRegs && !g.aOwn) {
      // a dot whose MMAs are waited for in its iteration (its result is
      // more than the carried accumulator: `acc += tl.dot(a, b) * scale`,
      // block-scaled fp8): A and B by cp.async into one ring of slots of
      // both tiles, each tile its own commit group, under the same rule
      // (not one in flight: wgmmaInFlight double-buffers its operands)
      if (g.esize == 4 || pipelinedWgmma.count(o.get())) continue;
      std::vector<size_t> a = asyncChain(loop, *o, 0), bc = asyncChain(loop, *o, 1);
      if (a.empty() || a.size() != bc.size() || !ringFits(*o, int64_t(a.size()) + 1)) continue;
      Ring ra = ringOf(*o, a, 0), rb = ringOf(*o, bc, 1);
      if (ra.issue > ra.at && rb.issue > rb.at) rings.insert(rings.end(), {ra, rb});
      continue;
    }
    std::vector<size_t> chain = asyncChain(loop, *o, 1);
    if (chain.empty()) continue;
    Ring r = ringOf(*o, chain, 1);
    if (r.issue > r.at) rings.push_back(r);
  }
  if (rings.empty()) return;
  // a computed A's tile (LayoutAssignment's computedWgmmaA) beside its
  // dot's B ring
  for (auto &o : body.ops) {
    if (o->kind != ir::OpKind::ConvertLayout) continue;
    std::vector<size_t> chain = registerRingChain(loop, *o);
    if (chain.empty()) continue;
    Ring r{o.get(), chain, position(body, o.get()), position(body, yield->operands[chain.back()]->def), 2};
    if (r.issue > r.at) rings.push_back(r);
  }
  // the wait before each dot: cp.async.wait_group N lets the N groups
  // committed last stay in flight, so N = the fewest groups committed
  // after the dot's own tile, over the iterations whose tile came from the
  // prologue and the steady state (k groups an iteration, in body order)
  size_t k = rings.size();
  std::vector<std::pair<size_t, std::pair<size_t, size_t>>> prologue;   // (position in blk, (ring, stage))
  for (size_t r = 0; r < k; ++r)
    for (size_t c = 0; c < rings[r].chain.size(); ++c)
      prologue.push_back({position(blk, loop.operands[3 + rings[r].chain[c]]->def), {r, c}});
  std::sort(prologue.begin(), prologue.end());
  for (size_t r = 0; r < k; ++r) {
    size_t d = rings[r].chain.size(), before = 0, order = 0;
    for (const Ring &q : rings) {
      before += q.issue < rings[r].at;
      order += q.issue < rings[r].issue;
    }
    int64_t n = int64_t(k - 1 - order + k * (d - 1) + before);
    for (size_t i = 0; i < d; ++i)
      for (size_t p = 0; p < prologue.size(); ++p)
        if (prologue[p].second == std::make_pair(r, i))
          n = std::min(n, int64_t(prologue.size() - 1 - p + k * i + before));
    markAsync(loop, rings[r].dot, rings[r].operand, rings[r].chain);
    usedRegisterRings |= rings[r].operand == 2;
    loopRings[&loop].push_back(rings[r].dot);
    // a dot with both operands in its ring waits for the later of its tiles
    int wait = int(std::max<int64_t>(0, n));
    auto [w, fresh] = asyncWait.insert({rings[r].dot, wait});
    if (!fresh) w->second = std::min(w->second, wait);
    ringSlots[rings[r].dot] = int(d) + 1;
  }
  // a later ring dot with no copy issued between it and an earlier one
  // (attention's p @ v after q @ kᵀ) has its tile waited for there: one
  // wait and one barrier an iteration. Its slot is refilled after the
  // earlier dot's barrier of the next iteration, which every warp reaches
  // only after this dot's MMAs (each waits for its own).
  std::vector<size_t> byAt(k);
  for (size_t r = 0; r < k; ++r) byAt[r] = r;
  std::sort(byAt.begin(), byAt.end(), [&](size_t x, size_t y) { return rings[x].at < rings[y].at; });
  size_t lead = byAt[0];
  for (size_t j = 1; j < k; ++j) {
    const Ring &cur = rings[byAt[j]];
    if (cur.dot == rings[lead].dot) continue;   // the other tile of the same dot
    bool issued = std::any_of(rings.begin(), rings.end(), [&](const Ring &q) {
      return q.issue > rings[lead].at && q.issue < cur.at;
    });
    if (issued) {
      lead = byAt[j];
      continue;
    }
    asyncWait[rings[lead].dot] = std::min(asyncWait[rings[lead].dot], asyncWait[cur.dot]);
    asyncWaitedBefore.insert(cur.dot);
  }
}

bool Emitter::ringFits(const ir::Op &dot, int64_t slots) {
  // the slots (up to kRingAlign of alignment: 1024-byte atoms) and, when
  // the body exchanges through the scratch region too, room for that
  int64_t scratch = usesScratchBesides(*this, *dot.parent, &dot) ? gpu::kScratchReserve : 0;
  return slots * ringSlotBytes(dot) + kRingAlign + scratch <= sharedLimit();
}

llvm::Value *Emitter::ringRegion(const ir::Op &consumer, int64_t bytes, Location loc) {
  if (!ringBase.count(&consumer)) {   // before the loop
    // the loop's own A buffers go below its rings, so that they can stay
    // reserved for a later loop when the rings are given back
    const ir::Op *loop = consumer.parent && consumer.parent->parent ? consumer.parent->parent->parent : nullptr;
    if (loop) reserveInvariantOperands(*loop);
    ringAt[&consumer] = dotBufferTop;
    ringBase[&consumer] = dotBuffers(ringSlots.at(&consumer) * bytes, loc);
  }
  return ringBase.at(&consumer);
}

void Emitter::asyncWaitGroup(int n) {
  b.CreateCall(llvm::Intrinsic::getDeclaration(&mod, llvm::Intrinsic::nvvm_cp_async_wait_group),
               {b.getInt32(uint32_t(n))});
}

void Emitter::asyncCommitGroup() {
  b.CreateCall(llvm::Intrinsic::getDeclaration(&mod, llvm::Intrinsic::nvvm_cp_async_commit_group), {});
}

llvm::Value *Emitter::readSlot(const ir::Op &ring) { return b.CreateURem(loops.back().iter, i32(ringSlots.at(&ring))); }

llvm::Value *Emitter::copySlot(const AsyncOperand &a) {
  if (a.stage >= 0) return i32(a.stage);
  return b.CreateURem(b.CreateAdd(loops.back().iter, i32(asyncDepth.at(a.dot))), i32(ringSlots.at(a.dot)));
}

void Emitter::copyToOwnRing(ir::Op &load, const AsyncOperand &a, int64_t slotBytes, int64_t off,
                            const ChunkOffset &offset) {
  llvm::Value *region = ringRegion(*a.dot, slotBytes, load.loc);
  llvm::Value *base =
      b.CreateGEP(b.getInt8Ty(), region, b.CreateAdd(b.CreateMul(copySlot(a), i32(slotBytes)), i32(off)));
  copyChunks(load, base, offset);
  asyncCommitGroup();
  defineVirtual(load.result());
}

int64_t Emitter::ringSlotBytes(const ir::Op &dot) const {
  return gpu::dotRunsOnWgmma(dot, opts.numWarps, opts.arch) ? geometry(*this, dot).bytes() : mmaStaging(dot, true).bytes;
}

void Emitter::emitMmaRingCopy(ir::Op &load, const AsyncOperand &a) {
  const MmaStaging st = mmaStaging(*a.dot, true);
  copyToOwnRing(load, a, st.bytes, 0,
                [&](const std::vector<llvm::Value *> &c) { return stagingOffset(st, a.operand, c[0], c[1]); });
}

void Emitter::emitAsyncCopy(ir::Op &load, const AsyncOperand &a) {
  if (a.operand == 2) return emitRingCopy(load, a);
  if (!gpu::dotRunsOnWgmma(*a.dot, opts.numWarps, opts.arch)) return emitMmaRingCopy(load, a);
  const ir::Op &dot = *a.dot;
  const Geometry geo = geometry(*this, dot);
  int64_t bytes = geo.bytes();
  int ring = ringSlots.at(&dot);
  bool own = asyncWait.count(&dot) != 0;   // a ring of its own (planRingOperands)
  llvm::Value *region;
  if (own) {
    region = ringRegion(dot, bytes, load.loc);
  } else {
    alignShared(1024);
    needShared(ring * bytes, load.loc,
               fmt::format("num_stages={} buffers of {} bytes of dot operands; use fewer stages or smaller blocks", ring,
                           bytes));
    // the first copies into the ring start a shared use (the loop then needs
    // none of its own); the body's go to the buffer of iteration i + depth
    if (asyncIssued[&dot] == 0) beginSharedUse();
    region = smemBase();
    smemClean = false;
  }
  llvm::Value *base = b.CreateGEP(b.getInt8Ty(), region,
                                  b.CreateAdd(b.CreateMul(copySlot(a), i32(bytes)), i32(a.operand ? geo.offB() : 0)));
  Tiles tiles{*this, geo, opts.numWarps};
  copyChunks(load, base, [&](const std::vector<llvm::Value *> &c) {
    return a.operand == 0 ? tiles.offsetA(c[0], c[1]) : tiles.offsetB(c[0], c[1]);
  });
  // one commit group per iteration's pair of tiles (a and b), so that the
  // dot can wait for its own iteration's with wait_group depth - 1; one per
  // tile in a ring of its own (asyncWait counts them)
  if (++asyncIssued[&dot] % (own || stagedB.count(&dot) ? 1 : 2) == 0) asyncCommitGroup();
  defineVirtual(load.result());
}

void Emitter::copyChunks(ir::Op &load, llvm::Value *base, const ChunkOffset &offset) {
  ir::Value *res = load.result();
  ir::Type pt = res->type, mt = res->type;
  pt.elem = load.operands[0]->type.elem;
  mt.elem = ElemType::of(Scalar::I1);
  Regs ptrs = regsAs(load.operands[0], pt);
  Regs masks = load.operands.size() > 1 ? regsAs(load.operands[1], mt) : Regs{};
  Dist d = dist(res->type);
  auto crd = coords(d);
  Regs owner = owners(d);   // a replicated tile's chunk is copied by its owner alone
  for (size_t g = 0; g < ptrs.size(); g += size_t(16 / byteSize(res->type.elem.scalar))) {
    llvm::Value *dst = b.CreateGEP(b.getInt8Ty(), base, offset(crd[g]));
    llvm::Value *size = masks.empty() ? i32(16) : b.CreateSelect(masks[g], i32(16), i32(0));
    if (owner.empty())
      inlinePtx(nullptr, "cp.async.cg.shared.global [$0], [$1], 16, $2;", "r,l,r,~{memory}", {dst, ptrs[g], size});
    else
      inlinePtx(nullptr, "@$3 cp.async.cg.shared.global [$0], [$1], 16, $2;", "r,l,r,b,~{memory}",
                {dst, ptrs[g], size, owner[g]});
  }
}

// ------------------------------------------------------------ register rings

namespace {

/// A register ring's tile in shared memory: rows along the tile's
/// contiguous dim (`along`, the load layout's fastest), the 16-byte chunks
/// of row r stored at chunk c ^ (r % S), S = min(8, chunks a row), so that
/// the fragment layout's reads (8 rows, 4 threads a row, 4 or 8 bytes
/// each) fall in distinct banks.
struct RingTile {
  int along;
  int64_t esize, rowBytes, bytes;

  static RingTile of(const ir::Type &t) {
    int along = fastestDim(t);
    int64_t esize = byteSize(t.elem.scalar);
    return {along, esize, t.shape[size_t(along)] * esize, t.numElements() * esize};
  }
  llvm::Value *offset(Emitter &e, const std::vector<llvm::Value *> &crd) const {
    llvm::Value *row = crd[size_t(1 - along)], *byte = e.b.CreateMul(crd[size_t(along)], e.i32(esize));
    int64_t spread = std::min<int64_t>(8, rowBytes / 16);
    llvm::Value *chunk = e.b.CreateXor(e.b.CreateLShr(byte, e.i32(4)), e.b.CreateAnd(row, e.i32(spread - 1)));
    llvm::Value *inRow = e.b.CreateOr(e.b.CreateShl(chunk, e.i32(4)), e.b.CreateAnd(byte, e.i32(15)));
    return e.b.CreateAdd(e.b.CreateMul(row, e.i32(rowBytes)), inRow);
  }
};

} // namespace

std::vector<size_t> Emitter::registerRingChain(ir::Op &loop, const ir::Op &convert) {
  const ir::Value *src = convert.operands[0];
  const ir::Type &t = src->type, &r = convert.result()->type;
  if (!registerRings || t.rank() != 2 || !t.layout || !r.layout ||
      !r.layout->equals(*gpu::wgmmaAccLayout(opts.numWarps, false)) || t.elem.isPtr ||
      t.elem.scalar == Scalar::I1)
    return {};
  int along = fastestDim(t);
  if (along < 0 || along > 1 || t.shape[size_t(along)] * byteSize(t.elem.scalar) < 16) return {};
  auto qualifies = [&](const ir::Value *v, const ir::Block &scope, const ir::Op *onlyUser) {
    return copiesBy16Bytes(v, scope, onlyUser, along);
  };
  return carriedChain(loop, convert, src, qualifies);
}

void Emitter::emitRingCopy(ir::Op &load, const AsyncOperand &a) {
  RingTile tile = RingTile::of(load.result()->type);
  copyToOwnRing(load, a, tile.bytes, 0, [&](const std::vector<llvm::Value *> &c) { return tile.offset(*this, c); });
}

void Emitter::emitRingRead(ir::Op &convert) {
  ir::Value *src = convert.operands[0], *res = convert.result();
  RingTile tile = RingTile::of(src->type);
  if (!asyncWaitedBefore.count(&convert)) {   // this iteration's tile (and what waits with it) has landed
    asyncWaitGroup(asyncWait.at(&convert));
    barrier();
  }
  llvm::Value *base = b.CreateGEP(b.getInt8Ty(), ringBase.at(&convert), b.CreateMul(readSlot(convert), i32(tile.bytes)));
  Dist d = dist(res->type);
  auto crd = coords(d);
  size_t n = contiguousRun(d, size_t(16 / tile.esize), /*aligned=*/true, tile.along);
  llvm::Type *ty = memType(res->type.elem);
  Regs out;
  for (size_t i = 0; i < d.numRegs(); i += n) {
    llvm::Value *p = b.CreateGEP(b.getInt8Ty(), base, tile.offset(*this, crd[i]));
    if (n == 1) {
      out.push_back(b.CreateAlignedLoad(ty, p, llvm::Align(uint64_t(tile.esize))));
      continue;
    }
    llvm::Value *vec = b.CreateAlignedLoad(llvm::FixedVectorType::get(ty, unsigned(n)), p,
                                           llvm::Align(uint64_t(n * tile.esize)));
    for (size_t k = 0; k < n; ++k) out.push_back(b.CreateExtractElement(vec, uint64_t(k)));
  }
  define(res, out);
}

} // namespace tile::backend
