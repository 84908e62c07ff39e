// DotToLLVM.cpp - dot lowering. Two paths, both through shared memory:
//
// * Tensor cores (dotWithMma): an f32 accumulator, M % 16 == 0, N % 8 == 0,
//   the staging buffers fit in shared memory, and either f16 x f16 or
//   bf16 x bf16 with K % 16 == 0 (mma m16n8k16) or f32 x f32 with
//   input_precision "tf32" and K % 8 == 0 (mma m16n8k8 .tf32). f16/bf16: a
//   and b row-major (rows of 2^n 16-byte chunks XOR-swizzled, others padded
//   by 16 bytes: mmaStaging), A fragments read with ldmatrix.x4 and B
//   fragments with ldmatrix.x4.trans (two k steps) or .x2.trans. tf32: each f32 operand is
//   truncated once, as it is staged (toTf32: the low 13 bits dropped, as
//   the tensor cores read f32 bits and as the interpreter does); a and b stay row-major (rows padded
//   so that fragment reads hit 32 distinct banks), the A fragment of a k8
//   step comes from one ldmatrix.x4 (an 8x4 tf32 block is an 8x8 b16
//   matrix) and B from two ld.shared. When the accumulator has the layout
//   pass's m16n8 fragment layout (blocked [1,2] x [8,4] x [1,W]), every
//   thread's registers already are C fragments (the m16n8 C/D fragment is
//   the same for k16 and k8 tf32): each warp runs mma.sync.aligned.m16n8k*
//   .row.col over K for the tiles it holds, straight into its registers (no
//   C/D staging); such a dot directly in a for body stages its operands in
//   two static shared buffers that alternate by iteration, so it needs one
//   barrier per iteration instead of two (doubleBufferedBase), or, f16/bf16
//   with both operands loads of the body, takes them by cp.async into a
//   ring of that staging (planRingOperands, emitMmaRingCopy: one wait and
//   one barrier an iteration, no stores). For any other
//   accumulator layout C is staged too: warps take the 16x8 tiles
//   round-robin, write D back over C, and every thread reloads its registers
//   from there. f16/bf16 (and tf32) products are exact in
//   f32, so only the order of the f32 sums differs from the interpreter's k
//   order (the tensor core adds each k slice's products before adding C).
//   For K <= 4096 with unit-normal inputs this stays well inside the GPU
//   check's rtol 1e-4.
// * FMA (everything else, batched 3-D dots included): a (MxK, or BxMxK)
//   and b (KxN, or BxKxN) are written to shared memory, then every thread
//   computes its accumulator registers with one fma per k in ascending k
//   order (f16/bf16 inputs widened to f32 exactly; i8 inputs to i32; f32
//   inputs of a "tf32" dot truncated to tf32 first).
//   This equals the interpreter's exact products and f32 sums in k order.
#include "backend/Emitter.h"
#include "gpu/LayoutAssignment.h"

#include <llvm/IR/IntrinsicsNVPTX.h>

#include <fmt/format.h>

#include <array>
#include <map>

namespace tile::backend {

namespace {

/// Bytes of padding per shared row of a and b^T: rows stay 16-byte aligned
/// and the 8 rows one fragment load touches fall in different banks (8
/// halves, or 4 f32 words: with K % 8 == 0 the f32 row stride is 4 mod 8
/// words, so rows g = 0..7 start in banks 4g mod 32).
constexpr int64_t kRowPadBytes = 16;

/// Words of padding per shared row of a tf32 b (row-major K x N): with
/// N % 8 == 0 the row stride is 8 mod 32 words, so a B fragment's rows
/// t = 0..3 start in banks 0, 8, 16, 24 and its 8 columns fill them.
constexpr int64_t kTf32BPadWords = 8;

/// Staging bytes up to which a k-split dot surely runs on tensor cores.
constexpr int64_t kMaxKSplitStagingBytes = 64 * 1024;

/// Static shared memory a kernel may spend on double-buffered dot operands.
constexpr int64_t kMaxDoubleBufferBytes = 32 * 1024;

int64_t alignUp(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

} // namespace

/// For an accumulator laid out as the m16n8 fragment layout (the layout
/// pass's choice for mma dots: sizePerThread [1, 2], threadsPerWarp [8, 4],
/// warpsPerCTA [1, numWarps], order [1, 0]), per 16x8 tile a thread holds,
/// its four registers in fragment slot order (g,2t) (g,2t+1) (g+8,2t)
/// (g+8,2t+1). Empty when the layout is another one.
/// Whether op is a dot with f32 operands that asks for tf32 input precision.
static bool isTf32Dot(const ir::Op &op) {
  const ir::Type &a = op.operands[0]->type;
  return !a.elem.isPtr && a.elem.scalar == Scalar::F32 && op.hasAttr("input_precision") &&
         op.strAttr("input_precision") == "tf32";
}

static std::vector<std::array<size_t, 4>> fragmentRegs(const ir::Type &t, int numWarps) {
  auto *l = gpu::asBlocked(t);
  if (!l || l->sizePerThread != std::vector<int64_t>{1, 2} || l->threadsPerWarp != std::vector<int64_t>{8, 4} ||
      l->warpsPerCTA != std::vector<int64_t>{1, numWarps} || l->order != std::vector<int64_t>{1, 0})
    return {};
  // the row base is g and the column base (warp * 8 + 2t) % N is 8-aligned
  // plus 2t (N % 8 == 0), so a register's tile and slot follow from its
  // compile-time offsets: rows off0 / 16 and (off0 % 16) / 8, column pair
  // off1 - off1 % 2 and element off1 % 2
  std::map<std::pair<int64_t, int64_t>, std::array<size_t, 4>> tiles;
  std::map<std::pair<int64_t, int64_t>, int> filled;
  auto offs = gpu::regOffsets(*l, t.shape);
  for (size_t r = 0; r < offs.size(); ++r) {
    auto key = std::make_pair(offs[r][0] / 16, offs[r][1] - offs[r][1] % 2);
    int slot = static_cast<int>((offs[r][0] % 16) / 8 * 2 + offs[r][1] % 2);
    tiles[key][slot] = r;
    filled[key] |= 1 << slot;
  }
  std::vector<std::array<size_t, 4>> out;
  for (auto &[key, regs] : tiles) {
    if (filled[key] != 15) return {};
    out.push_back(regs);
  }
  return out;
}

llvm::Value *Emitter::toTf32(llvm::Value *v) {
  // the low 13 bits dropped (truncateToTF32): what the tensor cores read
  // from unconverted f32 bits, as the cp.async wgmma path feeds them; a
  // NaN whose payload was all in those bits stays a quiet NaN
  llvm::Value *bits = b.CreateBitCast(v, b.getInt32Ty());
  llvm::Value *kept = b.CreateAnd(bits, i32(int32_t(0xffffe000u)));
  return b.CreateSelect(b.CreateFCmpUNO(v, v), b.CreateOr(kept, i32(0x00400000)), kept);
}

/// Operand buffers of a tensor-core dot directly in a for body, in static
/// shared memory of their own, two of them alternating by iteration: the
/// stores of iteration i + 1 go to the other buffer than the reads of
/// iteration i, and the reads of i are done before anyone passes the
/// barrier of i + 1, so the dot needs no leading barrier (one bar.sync per
/// iteration instead of two). Null when the dot does not qualify.
llvm::Value *Emitter::doubleBufferedBase(const ir::Op &op, bool direct, int64_t bufBytes) {
  if (!direct || loops.empty() || loops.back().body != op.parent) return nullptr;
  if (staticSharedBytes + 2 * bufBytes > kMaxDoubleBufferBytes) return nullptr;
  if (sharedBytes + staticSharedBytes + 2 * bufBytes > sharedLimit()) return nullptr;
  auto *ty = llvm::ArrayType::get(b.getInt8Ty(), 2 * bufBytes);
  auto *gv = new llvm::GlobalVariable(mod, ty, false, llvm::GlobalValue::InternalLinkage, llvm::UndefValue::get(ty),
                                      fmt::format("dot_operands_{}", staticSharedBytes), nullptr,
                                      llvm::GlobalValue::NotThreadLocal, 3);
  gv->setAlignment(llvm::Align(16));
  staticSharedBytes += 2 * bufBytes;
  loops.back().exitBarrier = true;
  return b.CreateGEP(b.getInt8Ty(), gv, b.CreateMul(loops.back().parity, i32(bufBytes)));
}

/// Whether an f16/bf16 staging row of `bytes` is swizzled rather than
/// padded: a power-of-two count of 16-byte chunks; from registers, below
/// 128 bytes only. Measured on the H100 (tutorial matmul, 4096^3): 64-byte
/// rows staged from registers gain 10-20% (padded, their 16-byte stores
/// conflict 2-way), 128-byte rows (16x64x64 on 4 warps) lose 30%; in a
/// ring both gain (cp.async rings reach Triton's speed only swizzled).
static bool swizzledRow(int64_t bytes, bool ring) {
  return bytes >= 16 && (bytes & (bytes - 1)) == 0 && (ring || bytes < 128);
}

int Emitter::mmaStagingAlong(const ir::Type &t) const {
  if (t.elem.scalar != Scalar::F16 && t.elem.scalar != Scalar::BF16) return 1;
  return fastestDim(t) == 0 && contiguousRun(dist(t), 8, /*aligned=*/true, 0) >= 2 ? 0 : 1;
}

Emitter::MmaStaging Emitter::mmaStaging(const ir::Op &dot, bool ring) const {
  int64_t M = dot.operands[0]->type.shape[0], K = dot.operands[0]->type.shape[1], N = dot.operands[1]->type.shape[1];
  bool tf32 = isTf32Dot(dot);
  int64_t esz = tf32 ? 4 : 2;
  bool transA = !tf32 && mmaStagingAlong(dot.operands[0]->type) == 0;
  bool transB = !tf32 && mmaStagingAlong(dot.operands[1]->type) == 0;
  int64_t rowA = transA ? M : K, rowB = transB ? K : N;   // elements a row, unpadded
  bool swA = !tf32 && swizzledRow(rowA * esz, ring), swB = !tf32 && swizzledRow(rowB * esz, ring);
  int64_t stride = rowA + (swA ? 0 : kRowPadBytes / esz);   // elements per row of a
  // b row-major (k rows of N) or transposed (n rows of K). tf32: rows N +
  // 8 words apart, so that a B fragment's 4 k rows x 8 columns fall in 32
  // different banks; f16 and bf16: swizzled, or padded by 8 halves
  // (16-byte rows for ldmatrix, 8 rows in distinct banks)
  int64_t strideB = rowB + (swB ? 0 : tf32 ? kTf32BPadWords : kRowPadBytes / esz);
  int64_t offB = alignUp((transA ? K : M) * stride * esz, 16);
  MmaStaging st{esz, stride, strideB, offB, offB + (transB ? N : K) * strideB * esz};
  st.swizzleA = swA;
  st.swizzleB = swB;
  st.transA = transA;
  st.transB = transB;
  return st;
}

llvm::Value *Emitter::stagingOffset(const MmaStaging &st, int operand, llvm::Value *row, llvm::Value *col) {
  if (operand ? st.transB : st.transA) std::swap(row, col);   // (row, col) of the tile -> of the staging
  int64_t rowElems = operand ? st.strideB : st.stride, rowBytes = rowElems * st.esize;
  llvm::Value *off = b.CreateMul(b.CreateAdd(b.CreateMul(row, i32(rowElems)), col), i32(st.esize));
  if (operand ? st.swizzleB : st.swizzleA) {
    // chunk c of row r goes to chunk c ^ ((r / perPhase) % maxPhase): the 8
    // rows an ldmatrix reads at one chunk fall in 8 different 16-byte bank
    // groups of their 128-byte lines, and the 128 contiguous bytes that 8
    // threads store stay one line (Triton's swizzled shared layout)
    int64_t perPhase = std::max<int64_t>(1, 128 / rowBytes), maxPhase = std::min<int64_t>(rowBytes / 16, 8);
    llvm::Value *phase = b.CreateURem(b.CreateUDiv(row, i32(perPhase)), i32(maxPhase));
    off = b.CreateXor(off, b.CreateMul(phase, i32(16)));
  }
  return operand ? b.CreateAdd(off, i32(st.offB)) : off;
}

bool Emitter::mmaRingCandidate(const ir::Op &dot) const {
  return gpu::mmaRingDot(dot, opts.numWarps, opts.arch) && !fragmentRegs(dot.result()->type, opts.numWarps).empty();
}

bool Emitter::dotWithMma(ir::Op &op) {
  ir::Value *a = op.operands[0], *bv = op.operands[1], *acc = op.operands[2], *res = op.result();
  int64_t M = a->type.shape[0], K = a->type.shape[1], N = bv->type.shape[1];
  Scalar ea = a->type.elem.scalar;
  bool tf32 = isTf32Dot(op);
  if (!gpu::dotRunsOnTensorCores(op)) return false;
  int64_t kStep = tf32 ? 8 : 16;   // K of one mma: m16n8k8 tf32, m16n8k16 f16/bf16
  // accumulator registers already in fragment order: no staging of C/D
  std::vector<std::array<size_t, 4>> frags = fragmentRegs(res->type, opts.numWarps);
  bool direct = !frags.empty();
  auto split = kSplitDots.find(&op);
  int64_t replicas = split == kSplitDots.end() ? 1 : split->second;
  TILE_ASSERT(replicas == 1 || direct, "a k-split dot needs the fragment layout");
  llvm::Value *rep = replicas == 1 ? nullptr : replicaIndex(N);
  // operands by cp.async into a ring (planRingOperands)
  bool ring = asyncWait.count(&op) != 0;
  const MmaStaging st = mmaStaging(op, ring);
  int64_t esz = st.esize, strideB = st.strideB, offB = st.offB;
  int64_t offC = alignUp(st.bytes, 16), bytes = direct ? st.bytes : offC + M * N * 4;
  if (bytes > sharedLimit()) {   // the FMA path needs less
    TILE_ASSERT(replicas == 1, "a k-split dot must run on tensor cores");
    return false;
  }
  llvm::Value *base = nullptr;   // a ring's: this iteration's slot
  if (ring) {
    TILE_ASSERT(direct && replicas == 1, "an mma ring dot's staging");
    base = b.CreateGEP(b.getInt8Ty(), ringBase.at(&op), b.CreateMul(readSlot(op), i32(bytes)));
  } else {
    base = doubleBufferedBase(op, direct, alignUp(bytes, 16));
  }
  if (!base) {
    needShared(bytes, op.loc);
    base = smemBase();
    beginSharedUse();
  }

  llvm::Type *half = memType(a->type.elem), *f32 = b.getFloatTy(), *i32Ty = b.getInt32Ty();
  llvm::Type *elemTy = tf32 ? i32Ty : half;   // what is stored
  // Row-major staging; runs of registers consecutive along the row go as
  // one 16-, 8- or 4-byte store (rows are 16-byte aligned).
  auto storeAt = [&](Regs r, const Dist &d, int operand) {
    auto crd = coords(d);
    smemClean = false;
    // tf32 operands are truncated once, here (the tensor core would drop
    // the 13 low bits anyway; explicit, the value is tf32 on every path)
    if (tf32)
      for (llvm::Value *&x : r) x = toTf32(x);
    bool trans = operand ? st.transB : st.transA;
    size_t n = contiguousRun(d, 16 / esz, /*aligned=*/true, trans ? 0 : 1);
    Regs own = owners(d);   // replicated operand registers store once (uniform over a run)
    for (size_t i = 0; i < r.size(); i += n) {
      llvm::Value *p = b.CreateGEP(b.getInt8Ty(), base, stagingOffset(st, operand, crd[i][0], crd[i][1]));
      llvm::Value *mine = own.empty() ? nullptr : own[i];
      if (n == 1) {
        storeIf(mine, r[i], p);
        continue;
      }
      llvm::Value *v = llvm::PoisonValue::get(llvm::FixedVectorType::get(elemTy, n));
      for (size_t k = 0; k < n; ++k) v = b.CreateInsertElement(v, r[i + k], k);
      storeIf(mine, v, p, llvm::Align(n * esz));
    }
  };
  bool clean = smemClean;
  if (ring) {   // this iteration's tiles have landed (or an earlier dot waited for them)
    if (!asyncWaitedBefore.count(&op)) {
      asyncWaitGroup(asyncWait.at(&op));
      barrier();
    }
  } else {
    storeAt(regs(a), dist(a->type), 0);
    storeAt(regs(bv), dist(bv->type), 1);
  }
  Dist d = dist(res->type);
  if (!direct) storeShared(regsAs(acc, res->type), d, f32, offC);
  if (!ring) barrier();

  // Fragment coordinates (PTX ISA, "Matrix fragments for mma.m16n8k16 with
  // floating point type" and "for mma.m16n8k8", .tf32): g = lane / 4,
  // t = lane % 4, h = kStep / 2.
  //   A (4 x b32): {row g, g+8} x {k kt, kt+h}, order (g,k) (g+8,k) (g,k+h) (g+8,k+h)
  //   B (2 x b32): column g, k kt and kt+h
  //   C/D (4 f32): (g, 2t) (g, 2t+1) (g+8, 2t) (g+8, 2t+1)
  // where k16 f16/bf16: kt = 2t and each b32 holds k kt..kt+1 (two halves);
  // k8 tf32: kt = t and each b32 holds the one tf32 element at k kt.
  llvm::Value *g = b.CreateUDiv(lane, i32(4)), *t2 = b.CreateMul(b.CreateURem(lane, i32(4)), i32(2));
  llvm::Value *kt = tf32 ? b.CreateURem(lane, i32(4)) : t2;
  llvm::Intrinsic::ID mmaId = tf32                ? llvm::Intrinsic::nvvm_mma_m16n8k8_row_col_tf32
                              : ea == Scalar::F16 ? llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_f32_f32
                                                  : llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_bf16;
  llvm::Function *mma = llvm::Intrinsic::getDeclaration(&mod, mmaId);
  llvm::FunctionType *mmaTy = mma->getFunctionType();
  // One fragment b32 at element index `idx` of the region at byte `off`:
  // one (already truncated) tf32.
  auto loadWord = [&](int64_t off, llvm::Value *idx, unsigned param) -> llvm::Value * {
    llvm::Value *p = b.CreateGEP(elemTy, b.CreateGEP(b.getInt8Ty(), base, i32(off)), idx);
    return b.CreateAlignedLoad(i32Ty, p, llvm::Align(4));
  };
  // ldmatrix reads 8x8 b16 matrices whose rows run along the staging's
  // rows (16-byte aligned, 8 rows in distinct banks); the fragments want
  // them along m (A) and n (B): the .trans form where the two differ (a
  // row-major b, a transposed a). Lanes 8i..8i+7 give the row addresses of
  // matrix i.
  auto ldmatrix = [&](unsigned count, int operand) {
    using namespace llvm::Intrinsic;
    static const ID ids[2][2] = {{nvvm_ldmatrix_sync_aligned_m8n8_x2_b16, nvvm_ldmatrix_sync_aligned_m8n8_x2_trans_b16},
                                 {nvvm_ldmatrix_sync_aligned_m8n8_x4_b16, nvvm_ldmatrix_sync_aligned_m8n8_x4_trans_b16}};
    bool rowsAlongK = operand ? !st.transB : st.transA;
    return llvm::Intrinsic::getDeclaration(&mod, ids[count == 4][rowsAlongK], {base->getType()});
  };
  // Lane l's (row, col) offsets in the operand's tile when matrix l / 8
  // starts at (dRow, dCol) (null: 0): that matrix's row l % 8, along the
  // staging's rows. Made once, before the k loops.
  llvm::Value *lane8 = b.CreateURem(lane, i32(8));
  llvm::Value *l8 = b.CreateMul(b.CreateUDiv(lane, i32(8)), i32(8));   // (l / 8) * 8
  using LaneOffsets = std::pair<llvm::Value *, llvm::Value *>;
  auto laneOffsets = [&](int operand, llvm::Value *dRow, llvm::Value *dCol) -> LaneOffsets {
    // (l % 8 + (l / 8) * 8 is the lane itself)
    auto plus = [&](llvm::Value *d) { return !d ? lane8 : d == l8 ? lane : b.CreateAdd(lane8, d); };
    if (operand ? st.transB : st.transA) return {dRow, plus(dCol)};
    return {plus(dRow), dCol};
  };
  auto ldmAddress = [&](int operand, const LaneOffsets &lanes, llvm::Value *row, llvm::Value *col) {
    auto plus = [&](llvm::Value *v, llvm::Value *d) { return d ? b.CreateAdd(v, d) : v; };
    return b.CreateGEP(b.getInt8Ty(), base, stagingOffset(st, operand, plus(row, lanes.first), plus(col, lanes.second)));
  };
  llvm::Value *hi8 = b.CreateMul(b.CreateAnd(b.CreateUDiv(lane, i32(8)), i32(1)), i32(8));   // ((l / 8) % 2) * 8
  llvm::Value *kHalf = b.CreateMul(b.CreateUDiv(lane, i32(16)), i32(16 / esz));              // (l / 16) * h
  const LaneOffsets aLanes = laneOffsets(0, hi8, kHalf), bLanes = laneOffsets(1, hi8, nullptr),
                    bPairLanes = laneOffsets(1, l8, nullptr);
  auto unpack = [&](llvm::Value *r, unsigned n, unsigned firstParam) {
    std::vector<llvm::Value *> out;
    for (unsigned i = 0; i < n; ++i)   // <2 x half> for f16, i32 for bf16 and tf32
      out.push_back(b.CreateBitCast(b.CreateExtractValue(r, i), mmaTy->getParamType(firstParam + i)));
    return out;
  };
  // The A fragment of one k step in one ldmatrix.x4. Its four 8x8 b16
  // matrices are (rows 0-7, k 0-h) (rows 8-15, k 0-h) (rows 0-7, k h-2h)
  // (rows 8-15, k h-2h) with h = 8 halves = 16 bytes (f16/bf16), or 4 tf32
  // (an 8x4 tf32 block viewed as b16 is an 8x8 matrix whose row r, b32
  // column c lands in lane 4r + c): exactly a0..a3.
  auto loadAFrag = [&](llvm::Value *rowBase, llvm::Value *k0) -> std::vector<llvm::Value *> {
    llvm::Value *p = ldmAddress(0, aLanes, rowBase, k0);
    return unpack(b.CreateCall(ldmatrix(4, 0), {p}), 4, 0);
  };
  // f16/bf16 B fragment of one k step in one ldmatrix.x2: matrix i is k
  // rows 8i..8i+7 of the tile's 8 columns, handing lane 4g + t the pair
  // (k 2t, 2t + 1) of column g = b_i. Lanes 0..15 give the row addresses
  // (16..31 repeat them).
  auto loadBFrag16 = [&](llvm::Value *kBase, llvm::Value *col0) -> std::vector<llvm::Value *> {
    return unpack(b.CreateCall(ldmatrix(2, 1), {ldmAddress(1, bLanes, kBase, col0)}), 2, 4);
  };
  // Two k steps' B fragments of one tile in one ldmatrix.x4, matrix i at k
  // kBase + 8i: registers 0-1 are the first step's fragment, 2-3 the second's.
  auto loadBFragPair = [&](llvm::Value *kBase, llvm::Value *col0) -> std::array<std::vector<llvm::Value *>, 2> {
    llvm::Value *r = b.CreateCall(ldmatrix(4, 1), {ldmAddress(1, bPairLanes, kBase, col0)});
    std::array<std::vector<llvm::Value *>, 2> out;
    for (unsigned i = 0; i < 4; ++i)
      out[i / 2].push_back(b.CreateBitCast(b.CreateExtractValue(r, i), mmaTy->getParamType(4 + i % 2)));
    return out;
  };
  // D = A[row0 - g .. +16, :] * B[:, col0 .. +8] + C over all of K, for the
  // tile whose fragment rows start at row0 (= tile row * 16 + g) and whose
  // columns start at col0 (= tile column * 8).
  auto mmaStep = [&](std::vector<llvm::Value *> args, const std::vector<llvm::Value *> &bFrag, const Regs &cur) {
    args.insert(args.end(), bFrag.begin(), bFrag.end());
    args.insert(args.end(), cur.begin(), cur.end());
    llvm::Value *out = b.CreateCall(mma, args);
    Regs next;
    for (unsigned i = 0; i < 4; ++i) next.push_back(b.CreateExtractValue(out, i));
    return next;
  };
  auto mmaTile = [&](llvm::Value *row0, llvm::Value *col0, const Regs &c) -> Regs {
    llvm::Value *bRow = b.CreateAdd(col0, g);
    int64_t steps = K / kStep / replicas;
    if (!tf32 && replicas == 1 && steps % 2 == 0)   // k steps in pairs: B by one ldmatrix.x4 a pair
      return countedLoop(0, steps / 2, c, [&](llvm::Value *j, const Regs &cur) -> Regs {
        llvm::Value *kBase = b.CreateMul(j, i32(2 * kStep));
        auto bf = loadBFragPair(kBase, col0);
        Regs mid = mmaStep(loadAFrag(b.CreateSub(row0, g), kBase), bf[0], cur);
        return mmaStep(loadAFrag(b.CreateSub(row0, g), b.CreateAdd(kBase, i32(kStep))), bf[1], mid);
      });
    // a k-split accumulator copy runs k steps rep, rep + R, rep + 2R, ...
    return countedLoop(0, steps, c, [&](llvm::Value *j, const Regs &cur) -> Regs {
      llvm::Value *ks = replicas == 1 ? j : b.CreateAdd(b.CreateMul(j, i32(replicas)), rep);
      llvm::Value *k0 = b.CreateAdd(b.CreateMul(ks, i32(kStep)), kt);
      llvm::Value *kBase = b.CreateMul(ks, i32(kStep));
      std::vector<llvm::Value *> af = loadAFrag(b.CreateSub(row0, g), kBase), bf;
      if (tf32) {
        for (int i = 0; i < 2; ++i) {   // b_i: k kt + 4i, column g
          llvm::Value *k = b.CreateAdd(k0, i32(i * kStep / 2));
          bf.push_back(loadWord(offB, b.CreateAdd(b.CreateMul(k, i32(strideB)), bRow), 4 + i));
        }
      } else {
        bf = loadBFrag16(kBase, col0);
      }
      return mmaStep(af, bf, cur);
    });
  };

  if (direct) {
    // every warp runs the tiles its registers hold (warps whose columns wrap
    // past N compute the same tiles as others: harmless, all lanes converge)
    Regs cur = regsAs(acc, res->type), fin = cur;
    auto crd = coords(d);
    for (const auto &f : frags) {
      Regs c;
      for (size_t r : f) c.push_back(cur[r]);
      Regs dv = mmaTile(crd[f[0]][0], b.CreateSub(crd[f[0]][1], t2), c);
      for (int i = 0; i < 4; ++i) fin[f[i]] = dv[i];
    }
    smemClean = ring ? clean : false;   // a ring is not the scratch region
    define(res, fin);   // no trailing barrier: see beginSharedUse
    return true;
  }

  auto cIndex = [&](llvm::Value *row0, llvm::Value *col0, int i) {
    llvm::Value *row = b.CreateAdd(row0, i32(i >= 2 ? 8 : 0)), *col = b.CreateAdd(col0, i32(i & 1));
    return b.CreateAdd(b.CreateMul(row, i32(N)), col);
  };
  int64_t tilesN = N / 8, numTiles = (M / 16) * tilesN, numWarps = opts.numWarps;
  int64_t rounds = (numTiles + numWarps - 1) / numWarps;
  countedLoop(0, rounds, {}, [&](llvm::Value *round, const Regs &) -> Regs {
    llvm::Value *tile = b.CreateAdd(warp, b.CreateMul(round, i32(numWarps)));
    llvm::BasicBlock *skip = nullptr;
    if (rounds * numWarps != numTiles) {   // the last round leaves some warps idle (warp-uniform branch)
      auto *work = llvm::BasicBlock::Create(ctx, "mma.tile", b.GetInsertBlock()->getParent());
      skip = llvm::BasicBlock::Create(ctx, "mma.next", b.GetInsertBlock()->getParent());
      b.CreateCondBr(b.CreateICmpULT(tile, i32(numTiles)), work, skip);
      b.SetInsertPoint(work);
    }
    llvm::Value *row0 = b.CreateAdd(b.CreateMul(b.CreateUDiv(tile, i32(tilesN)), i32(16)), g);
    llvm::Value *col0 = b.CreateMul(b.CreateURem(tile, i32(tilesN)), i32(8));
    llvm::Value *cCol = b.CreateAdd(col0, t2);
    llvm::Value *cBase = b.CreateGEP(b.getInt8Ty(), base, i32(offC));
    Regs c;
    for (int i = 0; i < 4; ++i) c.push_back(b.CreateLoad(f32, b.CreateGEP(f32, cBase, cIndex(row0, cCol, i))));
    Regs dv = mmaTile(row0, col0, c);
    for (int i = 0; i < 4; ++i) b.CreateStore(dv[i], b.CreateGEP(f32, cBase, cIndex(row0, cCol, i)));
    if (skip) {
      b.CreateBr(skip);
      b.SetInsertPoint(skip);
    }
    return {};
  });
  smemClean = false;
  barrier();
  Regs fin;
  for (llvm::Value *idx : linearIndex(d)) fin.push_back(loadShared(idx, f32, offC));
  define(res, fin);   // no trailing barrier: see beginSharedUse
  return true;
}

// ---------------------------------------------------------------- k split
//
// With N < 8 x numWarps, the m16n8 fragment layout repeats every N / 8 warps
// (R = 8 x numWarps / N copies of each accumulator element, e.g. 2 for the
// seed lesson's 16x16 tiles on 4 warps). Instead of R warps computing the
// same products, copy r runs k steps r, r + R, ... into its own partial sum;
// this is legal when the accumulator is a loop-carried value used only by
// the dot and the dot's result only by the yield. The loop starts copy 0
// from the init and the others from 0, and its exit adds the R partial sums
// in copy order (the same order in every copy, so the copies agree again).

namespace {

/// The ops of blk (at any depth) that use v, once per use.
void collectUses(const ir::Value *v, ir::Block &blk, std::vector<ir::Op *> &out) {
  for (auto &op : blk.ops) {
    for (ir::Value *o : op->operands)
      if (o == v) out.push_back(op.get());
    for (auto &r : op->regions) collectUses(v, *r->block, out);
  }
}

} // namespace

llvm::Value *Emitter::replicaIndex(int64_t n) { return b.CreateUDiv(warp, i32(n / 8)); }

int64_t Emitter::kSplitReplicas(const ir::Op &loop, size_t i) {
  ir::Block &body = *loop.regions[0]->block;
  ir::Value *arg = body.args[1 + i].get();
  std::vector<ir::Op *> uses;
  collectUses(arg, body, uses);
  if (uses.size() != 1 || uses[0]->kind != ir::OpKind::Dot || uses[0]->parent != &body) return 0;
  ir::Op &dot = *uses[0];
  ir::Op *yield = body.terminator();
  std::vector<ir::Op *> resUses;
  collectUses(dot.result(), body, resUses);
  if (dot.operands[2] != arg || resUses.size() != 1 || resUses[0] != yield || yield->operands[i] != dot.result())
    return 0;
  const ir::Type &t = dot.result()->type;
  if (!gpu::dotRunsOnTensorCores(dot) || fragmentRegs(t, opts.numWarps).empty() || !(arg->type == t)) return 0;
  int64_t M = t.shape[0], N = t.shape[1], K = dot.operands[0]->type.shape[1];
  int64_t kStep = isTf32Dot(dot) ? 8 : 16, esz = isTf32Dot(dot) ? 4 : 2;
  if (N % 8 || 8 * opts.numWarps <= N || (8 * opts.numWarps) % N) return 0;
  int64_t replicas = 8 * opts.numWarps / N;
  if ((K / kStep) % replicas) return 0;
  // the staging must surely fit (dotWithMma must not fall back to FMA)
  if ((M + N) * (K + 16) * esz > kMaxKSplitStagingBytes) return 0;
  kSplitDots[&dot] = replicas;
  return replicas;
}

Regs Emitter::combineKSplit(const Regs &partial, const ir::Type &t, int64_t replicas, Location loc) {
  int64_t n = t.numElements();
  llvm::Type *f32 = b.getFloatTy();
  needShared(replicas * n * 4, loc);
  beginSharedUse();
  Regs idx = linearIndex(dist(t));
  llvm::Value *own = b.CreateMul(replicaIndex(t.shape[1]), i32(n));
  smemClean = false;
  for (size_t i = 0; i < partial.size(); ++i)
    b.CreateStore(partial[i], b.CreateGEP(f32, smemBase(), b.CreateAdd(own, idx[i])));
  barrier();
  Regs out;
  for (size_t i = 0; i < partial.size(); ++i) {
    llvm::Value *sum = loadShared(idx[i], f32, 0);
    for (int64_t r = 1; r < replicas; ++r) sum = b.CreateFAdd(sum, loadShared(b.CreateAdd(idx[i], i32(r * n)), f32, 0));
    out.push_back(sum);
  }
  return out;
}

void Emitter::emitDot(ir::Op &op) {
  ir::Value *a = op.operands[0], *bv = op.operands[1], *acc = op.operands[2], *res = op.result();
  // a batched (3-D) dot never runs on tensor cores (dotRunsOnTensorCores
  // wants rank 2): the FMA path below computes all its batches at once
  if (dotWithWgmma(op) || dotWithMma(op)) return;
  int rank = a->type.rank();
  int64_t batch = rank == 3 ? a->type.shape[0] : 1;
  int64_t M = a->type.shape[rank - 2], K = a->type.shape[rank - 1], N = bv->type.shape[rank - 1];
  ElemType ea = a->type.elem, eb = bv->type.elem, er = res->type.elem;
  bool intDot = er.isInt(), tf32 = isTf32Dot(op);
  llvm::Type *ta = memType(ea), *tb = memType(eb);
  int64_t bytesA = batch * M * K * (int64_t)mod.getDataLayout().getTypeAllocSize(ta);
  int64_t offB = (bytesA + 15) / 16 * 16;
  needShared(offB + batch * K * N * (int64_t)mod.getDataLayout().getTypeAllocSize(tb), op.loc);
  beginSharedUse();
  // tf32 inputs are truncated once, as they are staged (not per k in the loop):
  // tf32 values are f32 with 13 zero low bits, so their products stay exact.
  auto staged = [&](ir::Value *v) {
    Regs r = regs(v);
    if (tf32 && v->type.elem.scalar == Scalar::F32)
      for (llvm::Value *&x : r) x = b.CreateBitCast(toTf32(x), b.getFloatTy());
    return r;
  };
  storeShared(staged(a), dist(a->type), ta, 0);
  storeShared(staged(bv), dist(bv->type), tb, offB);
  barrier();
  Dist d = dist(res->type);
  auto crd = coords(d);
  Regs init = regsAs(acc, res->type);
  llvm::Type *accTy = llvmType(er);
  auto widen = [&](llvm::Value *v, ElemType e) -> llvm::Value * {
    if (intDot) return b.CreateIntCast(v, accTy, isSigned(e.scalar));
    return v->getType() == accTy ? v : b.CreateFPExt(v, accTy);
  };
  // per register: the row of a (batch z, row i) and the column of b (batch
  // z, column j) it reads, as element offsets into the staged a and b
  std::vector<llvm::Value *> rowA, colB;
  for (const auto &c : crd) {
    llvm::Value *z = rank == 3 ? c[0] : i32(0), *i = c[rank - 2], *j = c[rank - 1];
    rowA.push_back(b.CreateMul(b.CreateAdd(b.CreateMul(z, i32(M)), i), i32(K)));
    colB.push_back(b.CreateAdd(b.CreateMul(z, i32(K * N)), j));
  }
  Regs fin = countedLoop(0, K, init, [&](llvm::Value *k, const Regs &cur) {
    Regs next;
    for (size_t r = 0; r < cur.size(); ++r) {
      llvm::Value *x = widen(loadShared(b.CreateAdd(rowA[r], k), ta, 0), ea);
      llvm::Value *y = widen(loadShared(b.CreateAdd(b.CreateMul(k, i32(N)), colB[r]), tb, offB), eb);
      next.push_back(intDot ? b.CreateAdd(cur[r], b.CreateMul(x, y))
                            : b.CreateIntrinsic(llvm::Intrinsic::fma, {accTy}, {x, y, cur[r]}));
    }
    return next;
  });
  define(res, fin);   // no trailing barrier: see beginSharedUse
}

} // namespace tile::backend
