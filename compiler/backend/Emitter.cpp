// Emitter.cpp - the emitter core: the kernel signature and metadata, the
// value -> registers map, thread coordinates of registers, shared-memory
// round trips and register remapping between layouts, and op dispatch.
#include "backend/Emitter.h"

#include "backend/ScanAtomicToLLVM.h"
#include "gpu/LayoutAssignment.h"
#include "gpu/SegmentedShuffle.h"

#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/raw_ostream.h>

#include <set>

#include <fmt/format.h>

namespace tile::backend {

using ir::OpKind;

namespace {

bool sameBase(const gpu::DimBase &a, const gpu::DimBase &b) {
  auto norm = [](gpu::DimBase d) {
    if (d.laneMod == 1 || d.laneMul == 0) d.laneDiv = 1, d.laneMod = 1, d.laneMul = 0;
    if (d.warpMod == 1 || d.warpMul == 0) d.warpDiv = 1, d.warpMod = 1, d.warpMul = 0;
    return d;
  };
  gpu::DimBase x = norm(a), y = norm(b);
  return x.laneDiv == y.laneDiv && x.laneMod == y.laneMod && x.laneMul == y.laneMul && x.warpDiv == y.warpDiv &&
         x.warpMod == y.warpMod && x.warpMul == y.warpMul;
}

/// The vector width the fallback default layout uses: up to 4 elements per
/// thread along the fastest dim when the tensor has that many per thread.
int fallbackVec(const std::vector<int64_t> &shape, int numWarps) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return static_cast<int>(std::clamp<int64_t>(n / (numWarps * 32), 1, 4));
}

} // namespace

bool Dist::operator==(const Dist &o) const {
  if (shape != o.shape || offsets.size() != o.offsets.size() || bases.size() != o.bases.size()) return false;
  for (size_t d = 0; d < bases.size(); ++d)
    if (!sameBase(bases[d], o.bases[d])) return false;
  for (size_t r = 0; r < offsets.size(); ++r)
    for (size_t d = 0; d < shape.size(); ++d)
      if (offsets[r][d] % shape[d] != o.offsets[r][d] % shape[d]) return false;
  return true;
}

Emitter::Emitter(llvm::Module &m, const ir::Function &fn, const TargetOptions &opts)
    : ctx(m.getContext()), mod(m), fn(fn), opts(opts), b(m.getContext(), llvm::InstSimplifyFolder(m.getDataLayout())), axis(gpu::analyzeAxisInfo(fn)) {}

int fastestDim(const ir::Type &t) {
  if (const gpu::BlockedLayout *b = gpu::asBlocked(t)) return static_cast<int>(b->order[0]);
  if (const gpu::SliceLayout *s = gpu::asSlice(t))
    for (int64_t p : s->parent->order)
      if (p != s->dim) return static_cast<int>(p > s->dim ? p - 1 : p);
  return t.rank() - 1;
}

size_t contiguousRun(const Dist &d, size_t maxElems, bool aligned, int dim) {
  int rank = static_cast<int>(d.shape.size());
  int along = dim < 0 ? rank - 1 : dim;
  const gpu::DimBase &base = d.bases[along];
  for (size_t n = maxElems; n > 1; n /= 2) {
    if (d.numRegs() % n) continue;
    auto multiple = [&](int64_t v) { return v % (int64_t)n == 0; };
    bool ok = !aligned || ((base.laneMod == 1 || multiple(base.laneMul)) && (base.warpMod == 1 || multiple(base.warpMul)));
    for (size_t g = 0; g < d.numRegs() && ok; g += n) {
      ok = d.offsets[g][along] + (int64_t)n <= d.shape[along] && (!aligned || multiple(d.offsets[g][along]));
      for (size_t k = 1; k < n && ok; ++k)
        for (int x = 0; x < rank && ok; ++x)
          ok = d.offsets[g + k][x] == d.offsets[g][x] + (x == along ? (int64_t)k : 0);
    }
    if (ok) return n;
  }
  return 1;
}

llvm::Value *packWord(Builder &b, llvm::ArrayRef<llvm::Value *> bytes) {
  // the four bytes of one 32-bit lane of a vector (a load's): that lane
  // (LLVM's combiner and the NVPTX back end do not always see it through
  // the byte extracts, and rebuild it with bfe/bfi)
  auto *x0 = llvm::dyn_cast<llvm::ExtractElementInst>(bytes[0]);
  auto *vt = x0 ? llvm::dyn_cast<llvm::FixedVectorType>(x0->getVectorOperandType()) : nullptr;
  bool lane = vt && vt->getNumElements() % 4 == 0;
  uint64_t first = 0;
  for (int k = 0; k < 4 && lane; ++k) {
    auto *x = llvm::dyn_cast<llvm::ExtractElementInst>(bytes[k]);
    auto *idx = x ? llvm::dyn_cast<llvm::ConstantInt>(x->getIndexOperand()) : nullptr;
    lane = idx && x->getVectorOperand() == x0->getVectorOperand() && (k ? idx->getZExtValue() == first + uint64_t(k)
                                                                         : (first = idx->getZExtValue()) % 4 == 0);
  }
  if (lane) {
    auto *words = llvm::FixedVectorType::get(b.getInt32Ty(), vt->getNumElements() / 4);
    return b.CreateExtractElement(b.CreateBitCast(x0->getVectorOperand(), words), first / 4);
  }
  llvm::Value *v = llvm::PoisonValue::get(llvm::FixedVectorType::get(b.getInt8Ty(), 4));
  for (uint64_t k = 0; k < 4; ++k) v = b.CreateInsertElement(v, bytes[k], k);
  return b.CreateBitCast(v, b.getInt32Ty());
}

// ---------------------------------------------------------------- values

const Regs &Emitter::regs(ir::Value *v) const {
  auto it = values_.find(v);
  TILE_ASSERT(it != values_.end(), "value used before its definition in the llvm emitter");
  return it->second;
}

bool Emitter::isUsed(const ir::Value *v) {
  if (!used_) {
    used_.emplace();
    ir::walk(const_cast<ir::Function &>(fn), [&](ir::Op &op) { used_->insert(op.operands.begin(), op.operands.end()); });
  }
  return used_->count(v) != 0;
}

llvm::Value *Emitter::scalar(ir::Value *v) const {
  const Regs &r = regs(v);
  TILE_ASSERT(r.size() == 1 && !v->type.isTensor(), "expected a scalar");
  return r[0];
}

void Emitter::define(ir::Value *v, Regs r) {
  TILE_ASSERT(v->type.isTensor() ? r.size() == dist(v->type).numRegs() : r.size() == 1, "register count mismatch");
  values_[v] = std::move(r);
}

Regs Emitter::regsAs(ir::Value *v, const ir::Type &want) {
  if (!want.isTensor()) return regs(v);
  Dist to = dist(want);
  if (!v->type.isTensor()) return Regs(to.numRegs(), scalar(v));
  return convertRegs(regs(v), v->type, want, v->def ? v->def->loc : fn.loc);
}

Regs Emitter::convertRegs(const Regs &r, const ir::Type &fromType, const ir::Type &toType, Location loc) {
  if (!toType.isTensor()) return r;
  TILE_ASSERT(fromType.shape == toType.shape, "layout conversion between different shapes");
  Dist from = dist(fromType), to = dist(toType);
  if (from == to) return r;
  std::vector<int> ident;
  for (int d = 0; d < toType.rank(); ++d) ident.push_back(d);
  if (auto m = remap(r, from, to, ident)) return *m;
  if (auto m = throughShuffles(r, from, to)) return *m;
  return throughShared(r, from, to, memType(fromType.elem), loc);
}

// ---------------------------------------------------------------- types

llvm::Type *Emitter::llvmType(ElemType e) {
  if (e.isPtr) return llvm::PointerType::get(ctx, 1);
  switch (e.scalar) {
  case Scalar::I1: return b.getInt1Ty();
  case Scalar::I8: case Scalar::U8: return b.getInt8Ty();
  case Scalar::I16: case Scalar::U16: return b.getInt16Ty();
  case Scalar::I32: case Scalar::U32: return b.getInt32Ty();
  case Scalar::I64: case Scalar::U64: return b.getInt64Ty();
  case Scalar::F16: return b.getHalfTy();
  case Scalar::BF16: return b.getBFloatTy();
  case Scalar::F32: return b.getFloatTy();
  case Scalar::F64: return b.getDoubleTy();
  case Scalar::F8E4M3: case Scalar::F8E5M2: return b.getInt8Ty(); // bytes; cvt converts them
  }
  TILE_ASSERT(false, "unknown scalar");
  return nullptr;
}

llvm::Type *Emitter::memType(ElemType e) {
  if (!e.isPtr && e.scalar == Scalar::I1) return b.getInt8Ty();
  return llvmType(e);
}

Dist Emitter::dist(const ir::Type &t) const {
  TILE_ASSERT(t.isTensor(), "dist of a scalar");
  Dist d;
  d.shape = t.shape;
  std::shared_ptr<const ir::Layout> layout = t.layout;
  // Fallback while the layout pass has not run: Triton's default layout.
  if (!layout) layout = gpu::defaultBlocked(t.shape, opts.numWarps, fallbackVec(t.shape, opts.numWarps));
  d.offsets = gpu::regOffsets(*layout, t.shape);
  d.bases = gpu::dimBases(*layout);
  TILE_ASSERT(d.bases.size() == t.shape.size(), "layout rank differs from the tensor's");
  return d;
}

llvm::Value *Emitter::threadCoord(const gpu::DimBase &db) {
  llvm::Value *l = b.CreateMul(b.CreateURem(b.CreateUDiv(lane, i32(db.laneDiv)), i32(db.laneMod)), i32(db.laneMul));
  llvm::Value *w = b.CreateMul(b.CreateURem(b.CreateUDiv(warp, i32(db.warpDiv)), i32(db.warpMod)), i32(db.warpMul));
  return b.CreateAdd(l, w);
}

std::vector<std::vector<llvm::Value *>> Emitter::coords(const Dist &d) {
  int rank = static_cast<int>(d.shape.size());
  std::vector<llvm::Value *> base(rank);
  std::vector<bool> wraps(rank);
  for (int k = 0; k < rank; ++k) {
    const gpu::DimBase &db = d.bases[k];
    base[k] = threadCoord(db);
    int64_t maxOff = 0;
    for (const auto &o : d.offsets) maxOff = std::max(maxOff, o[k]);
    wraps[k] = (db.laneMod - 1) * db.laneMul + (db.warpMod - 1) * db.warpMul + maxOff >= d.shape[k];
  }
  std::vector<std::vector<llvm::Value *>> out;
  for (const auto &o : d.offsets) {
    std::vector<llvm::Value *> c(rank);
    for (int k = 0; k < rank; ++k) {
      c[k] = b.CreateAdd(base[k], i32(o[k]));
      if (wraps[k]) c[k] = b.CreateAnd(c[k], i32(d.shape[k] - 1));   // shapes are powers of two
    }
    out.push_back(std::move(c));
  }
  return out;
}

Regs Emitter::linearIndex(const Dist &d) {
  Regs out;
  for (auto &c : coords(d)) {
    llvm::Value *idx = i32(0);
    for (size_t k = 0; k < c.size(); ++k) idx = b.CreateAdd(b.CreateMul(idx, i32(d.shape[k])), c[k]);
    out.push_back(idx);
  }
  return out;
}

namespace {

/// The bits of an index in [0, count) that `(index / div) % mod` reads
/// (all powers of two in layouts).
uint32_t bitsRead(int64_t div, int64_t mod, int64_t count) {
  if (mod <= 1) return 0;
  TILE_ASSERT((div & (div - 1)) == 0 && (mod & (mod - 1)) == 0, "layout factors must be powers of two");
  return uint32_t((div * mod - 1) & ~(div - 1) & (count - 1));
}

} // namespace

Regs Emitter::owners(const Dist &d) {
  int rank = static_cast<int>(d.shape.size());
  uint32_t laneUsed = 0, warpUsed = 0;
  std::vector<bool> wraps(rank);
  for (int k = 0; k < rank; ++k) {
    const gpu::DimBase &db = d.bases[k];
    if (db.laneMul) laneUsed |= bitsRead(db.laneDiv, db.laneMod, 32);
    if (db.warpMul) warpUsed |= bitsRead(db.warpDiv, db.warpMod, opts.numWarps);
    int64_t maxOff = 0;
    for (const auto &o : d.offsets) maxOff = std::max(maxOff, o[k]);
    wraps[k] = (db.laneMod - 1) * db.laneMul + (db.warpMod - 1) * db.warpMul + maxOff >= d.shape[k];
  }
  uint32_t laneFree = 31u & ~laneUsed, warpFree = uint32_t(opts.numWarps - 1) & ~warpUsed;
  bool anyWrap = std::find(wraps.begin(), wraps.end(), true) != wraps.end();
  if (!laneFree && !warpFree && !anyWrap) return {};
  llvm::Value *thread = b.getTrue();
  if (laneFree) thread = b.CreateICmpEQ(b.CreateAnd(lane, i32(laneFree)), i32(0));
  if (warpFree) thread = b.CreateAnd(thread, b.CreateICmpEQ(b.CreateAnd(warp, i32(warpFree)), i32(0)));
  std::vector<llvm::Value *> base(rank);
  for (int k = 0; k < rank; ++k) {
    if (!wraps[k]) continue;
    const gpu::DimBase &db = d.bases[k];
    llvm::Value *l = b.CreateMul(b.CreateURem(b.CreateUDiv(lane, i32(db.laneDiv)), i32(db.laneMod)), i32(db.laneMul));
    llvm::Value *w = b.CreateMul(b.CreateURem(b.CreateUDiv(warp, i32(db.warpDiv)), i32(db.warpMod)), i32(db.warpMul));
    base[k] = b.CreateAdd(l, w);
  }
  Regs out;
  for (const auto &o : d.offsets) {
    llvm::Value *own = thread;
    for (int k = 0; k < rank; ++k)
      if (wraps[k]) own = b.CreateAnd(own, b.CreateICmpULT(b.CreateAdd(base[k], i32(o[k])), i32(d.shape[k])));
    out.push_back(own);
  }
  return out;
}

llvm::Value *Emitter::scalarOwner() { return b.CreateICmpEQ(tid, i32(0)); }

Regs Emitter::withOwners(Regs masks, const Regs &own) {
  if (own.empty()) return masks;
  if (masks.empty()) return own;
  for (size_t i = 0; i < masks.size(); ++i) masks[i] = b.CreateAnd(masks[i], own[i]);
  return masks;
}

// ---------------------------------------------------------------- threads, shared memory

llvm::Value *Emitter::sreg(const char *name) {
  static const std::map<std::string, llvm::Intrinsic::ID> ids = {
      {"tid.x", llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x},       {"ctaid.x", llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x},
      {"ctaid.y", llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y},   {"ctaid.z", llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z},
      {"nctaid.x", llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x}, {"nctaid.y", llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_y},
      {"nctaid.z", llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_z}};
  return b.CreateIntrinsic(ids.at(name), {}, {});
}

llvm::Value *Emitter::uniformWarp() {
  if (uniformWarp_) return uniformWarp_;
  llvm::IRBuilderBase::InsertPointGuard guard(b);
  auto *at = llvm::dyn_cast<llvm::Instruction>(warp);
  if (at) b.SetInsertPoint(at->getNextNode());
  else b.SetInsertPoint(&kernel->getEntryBlock(), kernel->getEntryBlock().getFirstInsertionPt());
  uniformWarp_ = b.CreateIntrinsic(llvm::Intrinsic::nvvm_shfl_sync_idx_i32, {},
                                   {b.getInt32(-1), warp, b.getInt32(0), b.getInt32(31)});
  return uniformWarp_;
}

llvm::Value *Emitter::smemBase() {
  if (!smem_) {
    auto *ty = llvm::ArrayType::get(b.getInt8Ty(), 0);
    smem_ = new llvm::GlobalVariable(mod, ty, false, llvm::GlobalValue::ExternalLinkage, nullptr, "global_smem",
                                     nullptr, llvm::GlobalValue::NotThreadLocal, 3);
    smem_->setAlignment(llvm::Align(16));
  }
  return smem_;
}

void Emitter::barrier() {
  b.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});
  smemClean = true;
}

void Emitter::beginSharedUse() {
  if (!smemClean) barrier();   // earlier readers of the buffer are done
}

int64_t Emitter::sharedLimit() const {
  return gpu::sharedMemoryLimit(opts.arch);
}

void Emitter::alignShared(unsigned bytes) {
  smemBase();
  if (smem_->getAlign().valueOrOne().value() < bytes) smem_->setAlignment(llvm::Align(bytes));
}

void Emitter::needShared(int64_t bytes, Location loc, const std::string &what) {
  int64_t &used = freeScratch() ? freeSharedBytes : sharedBytes;
  used = std::max(used, bytes);
  int64_t limit = sharedLimit(),
          total = std::max(sharedBytes + (dotBufferBytes ? dotBufferBytes + 1023 : 0), freeSharedBytes) + staticSharedBytes;
  if (total > limit)
    fail(loc, fmt::format("kernel needs {} bytes of shared memory{}; {} allows {}", total,
                          what.empty() ? "" : " (" + what + ")", opts.arch, limit));
}

void Emitter::storeShared(const Regs &r, const Dist &from, llvm::Type *ty, int64_t base) {
  storeSharedAt(r, linearIndex(from), from, ty, base);
}

void Emitter::storeSharedAt(const Regs &r, const Regs &idx, const Dist &from, llvm::Type *ty, int64_t base) {
  Regs own = owners(from);
  llvm::Value *p0 = b.CreateGEP(b.getInt8Ty(), smemBase(), i32(base));
  smemClean = false;
  for (size_t i = 0; i < r.size(); ++i) {
    llvm::Value *v = r[i]->getType() == ty ? r[i] : b.CreateZExt(r[i], ty);
    storeIf(own.empty() ? nullptr : own[i], v, b.CreateGEP(ty, p0, idx[i]));
  }
}

void Emitter::storeIf(llvm::Value *cond, llvm::Value *val, llvm::Value *ptr, llvm::MaybeAlign align) {
  if (!cond || isa<llvm::ConstantInt>(cond)) {   // (a constant owner bit is true)
    b.CreateAlignedStore(val, ptr, align);
    return;
  }
  llvm::Function *f = b.GetInsertBlock()->getParent();
  auto *yes = llvm::BasicBlock::Create(ctx, "own", f), *done = llvm::BasicBlock::Create(ctx, "own.done", f);
  b.CreateCondBr(cond, yes, done);
  b.SetInsertPoint(yes);
  b.CreateAlignedStore(val, ptr, align);
  b.CreateBr(done);
  b.SetInsertPoint(done);
}

llvm::Value *Emitter::loadShared(llvm::Value *index, llvm::Type *ty, int64_t base) {
  llvm::Value *p0 = b.CreateGEP(b.getInt8Ty(), smemBase(), i32(base));
  smemClean = false;
  return b.CreateLoad(ty, b.CreateGEP(ty, p0, index));
}

Regs Emitter::swizzledIndex(const Dist &d, int64_t chunk, int64_t keyRows) {
  // (col / chunk ^ key) * chunk + col % chunk is col ^ key * chunk (powers of
  // two: the key only has the chunk index's bits); the rest of an aligned
  // run (one chunk at most) follows its first element, + 1 each, so that
  // LLVM still joins the run into one vector access
  int64_t chunks = d.shape[1] / chunk, W = d.shape[1];
  size_t n = contiguousRun(d, size_t(chunk), /*aligned=*/true, 1);
  auto follow = [&](Regs &out, size_t i) {
    if (i % n == 0) return false;
    out.push_back(b.CreateAdd(out[i - i % n], i32(int64_t(i % n))));
    return true;
  };
  auto key = [&](int64_t row) { return (row / keyRows) % chunks * chunk; };
  auto keyOf = [&](llvm::Value *row) {
    return b.CreateMul(b.CreateURem(b.CreateUDiv(row, i32(keyRows)), i32(chunks)), i32(chunk));
  };
  // the thread's part of each coordinate (lane and warp) and the registers'
  // offsets in disjoint bits, no wrapping: row = r0 | dr, col = c0 | dc, so
  // the index is T ^ S_i with T = r0 * W | (c0 ^ key(r0)) per thread and
  // S_i = dr * W | (dc ^ key(dr)) a constant: one xor a register
  auto bitsOf = [](const gpu::DimBase &db) { return (db.laneMod - 1) * db.laneMul | (db.warpMod - 1) * db.warpMul; };
  auto pow2 = [](int64_t v) { return v > 0 && (v & (v - 1)) == 0; };
  bool disjoint = pow2(keyRows) && pow2(chunks) && pow2(chunk) && pow2(W) && pow2(d.shape[0]);
  for (int k = 0; k < 2 && disjoint; ++k) {
    const gpu::DimBase &db = d.bases[size_t(k)];
    disjoint = (db.laneMod == 1 || (pow2(db.laneMod) && pow2(db.laneMul))) &&
               (db.warpMod == 1 || (pow2(db.warpMod) && pow2(db.warpMul))) &&
               ((db.laneMod - 1) * db.laneMul & (db.warpMod - 1) * db.warpMul) == 0;
    for (const auto &o : d.offsets)
      disjoint = disjoint && (bitsOf(db) & o[size_t(k)]) == 0 && (bitsOf(db) | o[size_t(k)]) < d.shape[size_t(k)];
  }
  Regs out;
  if (disjoint) {
    llvm::Value *r0 = threadCoord(d.bases[0]), *c0 = threadCoord(d.bases[1]);
    llvm::Value *T = b.CreateOr(b.CreateMul(r0, i32(W)), b.CreateXor(c0, keyOf(r0)));
    for (size_t i = 0; i < d.offsets.size(); ++i) {
      if (follow(out, i)) continue;
      int64_t dr = d.offsets[i][0], dc = d.offsets[i][1];
      out.push_back(b.CreateXor(T, i32(dr * W | (dc ^ key(dr)))));
    }
    return out;
  }
  auto crd = coords(d);
  for (size_t i = 0; i < crd.size(); ++i) {
    if (follow(out, i)) continue;
    llvm::Value *row = crd[i][0], *col = crd[i][1];
    out.push_back(b.CreateAdd(b.CreateMul(row, i32(W)), b.CreateXor(col, keyOf(row))));
  }
  return out;
}

namespace {

/// The swizzle of a 2-D conversion through shared memory, (chunk, keyRows):
/// for register runs along dim 1 on one side and along dim 0 on the other
/// (a transpose), 16-byte chunks of a row (the row side's runs cover whole
/// chunks) keyed by the run length down the columns; for runs along rows on
/// both sides, one shorter than a chunk (below), keyed by the row; else
/// (0, 0), the plain row-major order. Without it, a warp reading runs down
/// a column of a 64-wide f16 tile hits one bank 8 or 16 times over.
std::pair<int64_t, int64_t> conversionSwizzle(const Dist &from, const Dist &to, int64_t elemBytes) {
  if (from.shape.size() != 2 || to.shape != from.shape || elemBytes > 16) return {0, 0};
  int64_t chunk = 16 / elemBytes, cols = from.shape[1];
  if (cols % chunk != 0 || cols / chunk < 2) return {0, 0};
  auto run = [](const Dist &d, int dim) { return (int64_t)contiguousRun(d, 64, false, dim); };
  // whether a thread holds two elements side by side in a row
  auto pairsInRows = [](const Dist &d) {
    std::set<std::pair<int64_t, int64_t>> at;
    for (const auto &o : d.offsets) at.insert({o[0], o[1]});
    for (const auto &o : d.offsets)
      if (at.count({o[0], o[1] + 1})) return true;
    return false;
  };
  // the row side's runs must be whole chunks and the column side's plain
  // columns (16-byte accesses stay whole; MMA fragments, 2 x 2 blocks, do
  // not qualify)
  int64_t down = 0;
  if (run(from, 1) >= chunk && run(to, 0) > 1 && !pairsInRows(to)) down = run(to, 0);
  else if (run(from, 0) > 1 && !pairsInRows(from) && run(to, 1) >= chunk) down = run(from, 0);
  if (down > 1) return {chunk, down};
  // both sides along rows, one in runs shorter than a chunk spread over
  // rows (an MMA accumulator's fragments, 2 elements a row in 8 rows a
  // warp, converted to a store's 16-byte vectors): chunks keyed by the row,
  // so a warp's 8 rows of one column fall in 8 distinct chunks. Unswizzled
  // rows of 128 bytes or a multiple put them in one bank: 8 wavefronts a
  // store (the 128 x 256 f16 epilogue, 64 stores a thread).
  bool rowsBothSides = run(from, 0) == 1 && run(to, 0) == 1;
  if (rowsBothSides && std::min(run(from, 1), run(to, 1)) < chunk && (cols * elemBytes) % 128 == 0) return {chunk, 1};
  return {0, 0};
}

} // namespace

Regs Emitter::throughShared(const Regs &r, const Dist &from, const Dist &to, llvm::Type *ty, Location loc) {
  int64_t n = 1;
  for (int64_t s : from.shape) n *= s;
  int64_t elemBytes = (int64_t)mod.getDataLayout().getTypeAllocSize(ty);
  needShared(n * elemBytes, loc);
  llvm::Type *regTy = r.empty() ? ty : r[0]->getType();
  // accesses narrower than 8 bytes on a side (a transpose's columns):
  // ldmatrix or stmatrix moves 16
  if (elemBytes == 2 && std::min(contiguousRun(from, 8, true), contiguousRun(to, 8, true)) < 4)
    if (auto l = throughLdmatrix(r, from, to, {}, loc)) return *l;
  auto [chunk, keyRows] = conversionSwizzle(from, to, elemBytes);
  beginSharedUse();
  storeSharedAt(r, chunk ? swizzledIndex(from, chunk, keyRows) : linearIndex(from), from, ty, 0);
  barrier();
  Regs out;
  for (llvm::Value *idx : chunk ? swizzledIndex(to, chunk, keyRows) : linearIndex(to)) {
    llvm::Value *v = loadShared(idx, ty, 0);
    out.push_back(regTy == ty ? v : b.CreateTrunc(v, regTy));
  }
  return out;
}

/// A thread's base along a dim (gpu::DimBase's formula; warp's term alone
/// for lane 0).
static int64_t baseAt(const gpu::DimBase &db, int64_t lane, int64_t warp) {
  return ((lane / db.laneDiv) % db.laneMod) * db.laneMul + ((warp / db.warpDiv) % db.warpMod) * db.warpMul;
}

/// The coordinate along dim d of register `reg` of thread (lane, warp).
int64_t coordAt(const Dist &d, size_t dim, int64_t lane, int64_t warp, size_t reg) {
  return (baseAt(d.bases[dim], lane, warp) + d.offsets[reg][dim]) % d.shape[dim];
}

namespace {

/// The lane that, in `from`'s register `reg`, holds the element whose
/// coordinate along each dim is x[dim] (thread (·, warp)), by inverting the
/// lane terms of the layout's bases; -1 where a coordinate does not split so.
int64_t laneHolding(const Dist &from, const std::vector<int64_t> &x, int64_t warp, size_t reg) {
  int64_t lane = 0;
  for (size_t d = 0; d < x.size(); ++d) {
    const gpu::DimBase &db = from.bases[d];
    int64_t part = ((x[d] - baseAt(db, 0, warp) - from.offsets[reg][d]) % from.shape[d] + from.shape[d]) % from.shape[d];
    if (db.laneMod <= 1 || db.laneMul == 0) {
      if (part) return -1;
      continue;
    }
    if (part % db.laneMul || part / db.laneMul >= db.laneMod) return -1;
    lane += (part / db.laneMul) * db.laneDiv;
  }
  return lane < 32 ? lane : -1;
}

} // namespace

std::optional<Regs> Emitter::throughShuffles(const Regs &r, const Dist &from, const Dist &to) {
  size_t rank = to.shape.size();
  if (r.empty() || to.numRegs() > 32 || from.shape != to.shape) return std::nullopt;
  llvm::Type *ty = r[0]->getType();
  unsigned bits = ty->getPrimitiveSizeInBits();
  if (bits == 0 || bits > 32 || ty->isVectorTy()) return std::nullopt;
  // for each `to` register: the `from` register that every thread reads,
  // checked by evaluating the lane formula for every thread at compile time
  int W = opts.numWarps;
  std::vector<size_t> source(to.numRegs());
  std::vector<std::vector<int64_t>> srcLanes(to.numRegs());   // per `to` register, per thread (warp-major)
  std::vector<int64_t> x(rank);
  for (size_t j = 0; j < to.numRegs(); ++j) {
    bool found = false;
    for (size_t s = 0; s < from.numRegs() && !found; ++s) {
      bool ok = true;
      srcLanes[j].clear();
      for (int64_t w = 0; w < W && ok; ++w)
        for (int64_t l = 0; l < 32 && ok; ++l) {
          for (size_t d = 0; d < rank; ++d) x[d] = coordAt(to, d, l, w, j);
          int64_t src = laneHolding(from, x, w, s);
          for (size_t d = 0; d < rank && ok; ++d) ok = src >= 0 && coordAt(from, d, src, w, s) == x[d];
          srcLanes[j].push_back(src);
        }
      if (ok) {
        source[j] = s;
        found = true;
      }
    }
    if (!found) return std::nullopt;
  }
  if (auto seg = segmentedShuffles(r, source, srcLanes)) return seg;
  // the same formula at run time, from each `to` register's coordinates
  // (shapes are powers of two, as coords() assumes)
  auto crd = coords(to);
  llvm::Type *i32t = b.getInt32Ty();
  Regs out;
  for (size_t j = 0; j < to.numRegs(); ++j) {
    size_t s = source[j];
    llvm::Value *srcLane = i32(0);
    for (size_t d = 0; d < rank; ++d) {
      const gpu::DimBase &db = from.bases[d];
      if (db.laneMod <= 1 || db.laneMul == 0) continue;
      gpu::DimBase warpTerm = db;
      warpTerm.laneMul = 0;
      llvm::Value *w = threadCoord(warpTerm);
      llvm::Value *part = b.CreateAnd(b.CreateSub(b.CreateSub(crd[j][d], w), i32(from.offsets[s][d])),
                                      i32(from.shape[d] - 1));
      srcLane = b.CreateAdd(srcLane, b.CreateMul(b.CreateUDiv(part, i32(db.laneMul)), i32(db.laneDiv)));
    }
    llvm::Value *v = r[s];
    llvm::Value *word = bits == 32 ? b.CreateBitCast(v, i32t) : b.CreateZExt(b.CreateBitCast(v, b.getIntNTy(bits)), i32t);
    llvm::Value *got = b.CreateIntrinsic(llvm::Intrinsic::nvvm_shfl_sync_idx_i32, {},
                                         {b.getInt32(-1), word, srcLane, b.getInt32(31)});
    out.push_back(bits == 32 ? b.CreateBitCast(got, ty) : b.CreateBitCast(b.CreateTrunc(got, b.getIntNTy(bits)), ty));
  }
  return out;
}

std::optional<Regs> Emitter::segmentedShuffles(const Regs &r, const std::vector<size_t> &source,
                                               const std::vector<std::vector<int64_t>> &srcLanes) {
  auto plan = gpu::planSegmentedShuffle(srcLanes);
  if (!plan) return std::nullopt;
  // P(lane): one load from a 32-entry table in global memory (a warp reads
  // its 128 bytes at once; the constant bank would serialize 32 addresses),
  // invariant, so hoisted out of loops
  auto *tableTy = llvm::ArrayType::get(b.getInt32Ty(), 32);
  std::vector<llvm::Constant *> entries;
  for (int64_t p : plan->permute) entries.push_back(b.getInt32(uint32_t(p)));
  llvm::GlobalVariable *&table = laneTables[plan->permute];   // one per distinct table
  if (!table)
    table = new llvm::GlobalVariable(mod, tableTy, /*isConstant=*/true, llvm::GlobalValue::InternalLinkage,
                                     llvm::ConstantArray::get(tableTy, entries), "shuffle_lanes", nullptr,
                                     llvm::GlobalValue::NotThreadLocal, /*AddressSpace=*/1);
  auto *perm = b.CreateLoad(b.getInt32Ty(), b.CreateInBoundsGEP(tableTy, table, {i32(0), lane}));
  perm->setMetadata(llvm::LLVMContext::MD_invariant_load, llvm::MDNode::get(ctx, {}));
  llvm::Type *ty = r[0]->getType(), *i32t = b.getInt32Ty();
  unsigned bits = ty->getPrimitiveSizeInBits();
  auto toWord = [&](llvm::Value *v) {
    return bits == 32 ? b.CreateBitCast(v, i32t) : b.CreateZExt(b.CreateBitCast(v, b.getIntNTy(bits)), i32t);
  };
  auto fromWord = [&](llvm::Value *w) {
    return bits == 32 ? b.CreateBitCast(w, ty) : b.CreateBitCast(b.CreateTrunc(w, b.getIntNTy(bits)), ty);
  };
  auto shfl = [&](llvm::Value *word, llvm::Value *srcLane, int64_t c) {
    return b.CreateIntrinsic(llvm::Intrinsic::nvvm_shfl_sync_idx_i32, {}, {b.getInt32(-1), word, srcLane, i32(c)});
  };
  std::map<size_t, llvm::Value *> permuted;   // per source register
  Regs out;
  for (size_t j = 0; j < source.size(); ++j) {
    llvm::Value *&p = permuted[source[j]];
    if (!p) p = shfl(toWord(r[source[j]]), perm, 31);
    out.push_back(fromWord(shfl(p, i32(plan->lane[j]), plan->clamp())));
  }
  return out;
}

std::optional<Regs> Emitter::remap(const Regs &r, const Dist &from, const Dist &to, const std::vector<int> &dimMap) const {
  for (size_t j = 0; j < to.shape.size(); ++j) {
    int i = dimMap[j];
    if (i < 0) continue;
    if (from.shape[i] != to.shape[j] || !sameBase(from.bases[i], to.bases[j])) return std::nullopt;
  }
  // Every from-dim of size > 1 must feed some to-dim.
  for (size_t i = 0; i < from.shape.size(); ++i)
    if (from.shape[i] > 1 && std::find(dimMap.begin(), dimMap.end(), (int)i) == dimMap.end()) return std::nullopt;
  Regs out;
  for (const auto &to_off : to.offsets) {
    std::optional<size_t> found;
    for (size_t s = 0; s < from.offsets.size() && !found; ++s) {
      bool ok = true;
      for (size_t j = 0; j < to.shape.size() && ok; ++j) {
        int i = dimMap[j];
        if (i >= 0) ok = from.offsets[s][i] % from.shape[i] == to_off[j] % to.shape[j];
      }
      if (ok) found = s;
    }
    if (!found) return std::nullopt;
    out.push_back(r[*found]);
  }
  return out;
}

llvm::PHINode *Emitter::openLoopPhi(llvm::Value *init, llvm::BasicBlock *pre) {
  llvm::PHINode *p = b.CreatePHI(init->getType(), 2);
  p->addIncoming(init, pre);
  auto *stub = new llvm::FreezeInst(llvm::PoisonValue::get(init->getType()), "latch.stub");
  stub->insertBefore(pre->getTerminator());
  p->addIncoming(stub, pre);
  return p;
}

void Emitter::closeLoopPhi(llvm::PHINode *phi, llvm::Value *next, llvm::BasicBlock *latch) {
  auto *stub = llvm::cast<llvm::FreezeInst>(phi->getIncomingValue(1));
  phi->setIncomingValue(1, next);
  phi->setIncomingBlock(1, latch);
  stub->eraseFromParent();
}

Regs Emitter::countedLoop(int64_t start, int64_t end, const Regs &init,
                          const std::function<Regs(llvm::Value *, const Regs &)> &body) {
  if (start >= end) return init;
  llvm::BasicBlock *pre = b.GetInsertBlock();
  auto *loop = llvm::BasicBlock::Create(ctx, "k.loop", pre->getParent());
  auto *exit = llvm::BasicBlock::Create(ctx, "k.exit", pre->getParent());
  b.CreateBr(loop);
  b.SetInsertPoint(loop);
  llvm::PHINode *k = openLoopPhi(i32(start), pre);
  Regs cur;
  for (llvm::Value *v : init) cur.push_back(openLoopPhi(v, pre));
  Regs next = body(k, cur);
  llvm::Value *kNext = b.CreateAdd(k, i32(1));
  llvm::BasicBlock *latch = b.GetInsertBlock();
  closeLoopPhi(k, kNext, latch);
  for (size_t i = 0; i < cur.size(); ++i) closeLoopPhi(llvm::cast<llvm::PHINode>(cur[i]), next[i], latch);
  b.CreateCondBr(b.CreateICmpSLT(kNext, i32(end)), loop, exit);
  b.SetInsertPoint(exit);
  return next;
}

// ---------------------------------------------------------------- inline PTX, floats

llvm::CallInst *Emitter::asmCall(llvm::Type *ret, const std::string &text, const std::string &constraints,
                                 llvm::ArrayRef<llvm::Value *> ins, bool sideEffects) {
  std::vector<llvm::Type *> tys;
  for (llvm::Value *v : ins) tys.push_back(v->getType());
  auto *fty = llvm::FunctionType::get(ret ? ret : b.getVoidTy(), tys, false);
  if (llvm::Error e = llvm::InlineAsm::verify(fty, constraints)) {
    std::string msg = llvm::toString(std::move(e));
    TILE_ASSERT(false, msg.c_str());
  }
  return b.CreateCall(llvm::InlineAsm::get(fty, text, constraints, sideEffects), ins);
}

llvm::Value *Emitter::inlinePtx(llvm::Type *ret, const std::string &text, const std::string &constraints,
                                llvm::ArrayRef<llvm::Value *> ins) {
  return asmCall(ret, text, constraints, ins, /*sideEffects=*/true);
}

llvm::Value *Emitter::purePtx(llvm::Type *ret, const std::string &text, const std::string &constraints,
                              llvm::ArrayRef<llvm::Value *> ins) {
  llvm::CallInst *c = asmCall(ret, text, constraints, ins, /*sideEffects=*/false);
  c->setDoesNotAccessMemory();
  c->setDoesNotThrow();
  return c;
}

llvm::Value *Emitter::toF32(llvm::Value *v, Scalar s) { return isNarrowFloat(s) ? b.CreateFPExt(v, b.getFloatTy()) : v; }

llvm::Value *Emitter::fromF32(llvm::Value *v, Scalar s) {
  return isNarrowFloat(s) ? b.CreateFPTrunc(v, llvmType(ElemType::of(s))) : v;
}

// ---------------------------------------------------------------- dispatch

void Emitter::emitBlock(ir::Block &blk) {
  for (auto &op : blk.ops) emitOp(*op);
}

void Emitter::emitOp(ir::Op &op) {
  if (emittedAhead.count(&op)) return;
  switch (op.kind) {
  case OpKind::Constant: return emitConstant(op);
  case OpKind::Arange: return emitArange(op);
  case OpKind::ProgramId: case OpKind::NumPrograms: return emitProgramId(op);
  case OpKind::Splat: return emitSplat(op);
  case OpKind::Broadcast: return emitBroadcast(op);
  case OpKind::ExpandDims: return emitExpandDims(op);
  case OpKind::Reshape: case OpKind::Permute: case OpKind::ConvertLayout: return emitViaShared(op);
  case OpKind::Load: return emitLoad(op);
  case OpKind::Store: return emitStore(op);
  case OpKind::Dot: return emitDot(op);
  case OpKind::Reduce: return emitReduce(op);
  case OpKind::Scan: return emitScan(*this, op);
  case OpKind::AtomicRMW: case OpKind::AtomicCas: return emitAtomic(*this, op);
  case OpKind::For: case OpKind::While: case OpKind::If:
    // Conservative for the barrier invariant (beginSharedUse): a region may
    // run after shared loads of an earlier iteration or of the other branch.
    smemClean = false;
    if (op.kind == OpKind::For && emitFor(op)) return;   // ended with a barrier: smemClean is exact
    if (op.kind == OpKind::While) emitWhile(op);
    else if (op.kind == OpKind::If) emitIf(op);
    smemClean = false;
    return;
  case OpKind::Yield: case OpKind::Condition: return;   // read by the parent op
  case OpKind::Print: return emitPrint(op);
  case OpKind::Barrier: return barrier();
  case OpKind::Assert: return emitAssert(op);
  case OpKind::InlineAsm: return emitInlineAsm(op);
#include "ir/ElementwiseCases.inc"
    if (op.kind == OpKind::Hint) return define(op.result(), regs(op.operands[0]));   // identity; AxisInfo read it
    if (op.kind == OpKind::Erf || op.kind == OpKind::Tanh || op.kind == OpKind::Pow) return emitMathCall(op);
    if (op.kind == OpKind::ExternElementwise) return emitExternCall(op);
    return emitElementwise(op);
  }
}

// ---------------------------------------------------------------- kernel

int Emitter::emitKernel() {
  std::vector<llvm::Type *> params;
  for (auto &a : fn.entry().args) {
    if (a->type.isTensor()) fail(fn.loc, "kernel parameters must be scalars or pointers");
    params.push_back(llvmType(a->type.elem));
  }
  auto *fty = llvm::FunctionType::get(b.getVoidTy(), params, false);
  kernel = llvm::Function::Create(fty, llvm::GlobalValue::ExternalLinkage, fn.name, mod);
  kernel->setCallingConv(llvm::CallingConv::PTX_Kernel);
  for (size_t i = 0; i < fn.entry().args.size(); ++i) {
    llvm::Argument *arg = kernel->getArg(i);
    if (i < fn.paramNames.size()) arg->setName(fn.paramNames[i]);
    int64_t div = i < fn.paramDivisibility.size() ? fn.paramDivisibility[i] : 1;
    if (fn.entry().args[i]->type.elem.isPtr && div >= 16) arg->addAttr(llvm::Attribute::getWithAlignment(ctx, llvm::Align(16)));
  }
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", kernel));
  tid = sreg("tid.x");
  lane = b.CreateURem(tid, i32(32));
  warp = b.CreateUDiv(tid, i32(32));
  uniformWarp_ = nullptr;
  for (size_t i = 0; i < fn.entry().args.size(); ++i) values_[fn.entry().args[i].get()] = {kernel->getArg(i)};
  planAsyncOperands(const_cast<ir::Block &>(fn.entry()));
  emitBlock(fn.entry());
  b.CreateRetVoid();
  if (dotBufferAt) {   // the operand buffers go after the scratch uses
    int64_t at = (sharedBytes + 1023) / 1024 * 1024;
    dotBufferAt->setInitializer(b.getInt32(static_cast<uint32_t>(at)));
    sharedBytes = std::max(at + dotBufferBytes, freeSharedBytes);
  }

  llvm::NamedMDNode *ann = mod.getOrInsertNamedMetadata("nvvm.annotations");
  auto md = [&](const char *key, int v) {
    llvm::Metadata *ops[] = {llvm::ValueAsMetadata::get(kernel), llvm::MDString::get(ctx, key),
                             llvm::ValueAsMetadata::get(b.getInt32(v))};
    ann->addOperand(llvm::MDNode::get(ctx, ops));
  };
  md("kernel", 1);
  md("maxntidx", opts.numWarps * 32);
  std::string err;
  llvm::raw_string_ostream os(err);
  if (llvm::verifyModule(mod, &os)) TILE_ASSERT(false, ("invalid llvm ir emitted: " + err).c_str());
  return static_cast<int>(sharedBytes);
}

} // namespace tile::backend
