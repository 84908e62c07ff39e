// LoadStoreToLLVM.cpp - global loads and stores. Masked lanes go through
// predicated inline PTX (`@p ld.global`, result preset to `other`), so a
// masked-off lane touches no memory. Runs of registers contiguous along the
// fastest dim are versioned: when, at run time, the run's pointers are
// consecutive, aligned to the vector size and all unmasked, one vector
// access (ld/st.global.v2/v4) serves them; otherwise the per-element path.
#include "backend/Emitter.h"

#include <fmt/format.h>

namespace tile::backend {

namespace {

/// Largest power-of-two run (<= maxElems) such that every aligned group of
/// that many registers is contiguous along the last dim.
size_t vectorWidth(const Dist &d, size_t maxElems) {
  int last = static_cast<int>(d.shape.size()) - 1;
  for (size_t n = maxElems; n > 1; n /= 2) {
    if (d.numRegs() % n) continue;
    bool ok = true;
    for (size_t g = 0; g < d.numRegs() && ok; g += n)
      for (size_t k = 1; k < n && ok; ++k)
        for (int dim = 0; dim <= last && ok; ++dim)
          ok = d.offsets[g + k][dim] == d.offsets[g][dim] + (dim == last ? (int64_t)k : 0) &&
               d.offsets[g][last] + (int64_t)n <= d.shape[last];
    if (ok) return n;
  }
  return 1;
}

struct Access {
  Emitter &e;
  llvm::Type *memTy;   ///< element type in memory
  int bytes;
  const char *regConstraint() const { return bytes == 8 ? "l" : bytes == 4 ? "r" : "h"; }
  llvm::Type *asmTy() const { return e.b.getIntNTy(bytes == 1 ? 16 : bytes * 8); }
  std::string ptxTy() const { return bytes == 1 ? "u8" : fmt::format("b{}", bytes * 8); }

  llvm::Value *toBits(llvm::Value *v) {
    if (v->getType()->isPointerTy()) return e.b.CreatePtrToInt(v, asmTy());
    if (!v->getType()->isIntegerTy()) v = e.b.CreateBitCast(v, e.b.getIntNTy(bytes * 8));
    return e.b.CreateZExtOrTrunc(v, asmTy());
  }
  llvm::Value *fromBits(llvm::Value *v) {
    if (memTy->isPointerTy()) return e.b.CreateIntToPtr(v, memTy);
    v = e.b.CreateTrunc(v, e.b.getIntNTy(bytes * 8));
    return memTy->isIntegerTy() ? v : e.b.CreateBitCast(v, memTy);
  }

  llvm::Value *loadOne(llvm::Value *ptr, llvm::Value *mask, llvm::Value *other) {
    if (!mask) return e.b.CreateAlignedLoad(memTy, ptr, llvm::Align(bytes));
    std::string c = fmt::format("=&{0},{0},b,l", regConstraint());
    std::string text = fmt::format("mov.b{0} $0, $1;\n\t@$2 ld.global.{1} $0, [$3];", asmTy()->getIntegerBitWidth(), ptxTy());
    return fromBits(e.inlinePtx(asmTy(), text, c, {toBits(other), mask, ptr}));
  }

  void storeOne(llvm::Value *ptr, llvm::Value *val, llvm::Value *mask) {
    if (!mask) {
      e.b.CreateAlignedStore(val, ptr, llvm::Align(bytes));
      return;
    }
    std::string c = fmt::format("b,l,{}", regConstraint());
    e.inlinePtx(nullptr, fmt::format("@$0 st.global.{} [$1], $2;", ptxTy()), c + ",~{memory}", {mask, ptr, toBits(val)});
  }

  /// i1: ptrs, masks (maybe null) of a group are consecutive, aligned, all on.
  llvm::Value *fastCondition(const Regs &ptrs, const Regs &masks, size_t g, size_t n) {
    llvm::IRBuilder<> &b = e.b;
    llvm::Value *p0 = b.CreatePtrToInt(ptrs[g], b.getInt64Ty());
    llvm::Value *ok = b.CreateICmpEQ(b.CreateAnd(p0, b.getInt64(n * bytes - 1)), b.getInt64(0));
    for (size_t k = 1; k < n; ++k) {
      llvm::Value *pk = b.CreatePtrToInt(ptrs[g + k], b.getInt64Ty());
      ok = b.CreateAnd(ok, b.CreateICmpEQ(b.CreateSub(pk, p0), b.getInt64(k * bytes)));
    }
    for (size_t k = 0; k < n && !masks.empty(); ++k) ok = b.CreateAnd(ok, masks[g + k]);
    return ok;
  }
};

/// Emits `fast` and `slow` on the two sides of a run-time test and joins
/// their results (of equal count and types) with phis.
Regs versioned(Emitter &e, llvm::Value *cond, const std::function<Regs()> &fast, const std::function<Regs()> &slow) {
  llvm::Function *f = e.b.GetInsertBlock()->getParent();
  auto *fastBB = llvm::BasicBlock::Create(e.ctx, "vec", f);
  auto *slowBB = llvm::BasicBlock::Create(e.ctx, "scalar", f);
  auto *join = llvm::BasicBlock::Create(e.ctx, "join", f);
  e.b.CreateCondBr(cond, fastBB, slowBB);
  e.b.SetInsertPoint(fastBB);
  Regs a = fast();
  llvm::BasicBlock *fastEnd = e.b.GetInsertBlock();
  e.b.CreateBr(join);
  e.b.SetInsertPoint(slowBB);
  Regs s = slow();
  llvm::BasicBlock *slowEnd = e.b.GetInsertBlock();
  e.b.CreateBr(join);
  e.b.SetInsertPoint(join);
  Regs out;
  for (size_t i = 0; i < a.size(); ++i) {
    llvm::PHINode *phi = e.b.CreatePHI(a[i]->getType(), 2);
    phi->addIncoming(a[i], fastEnd);
    phi->addIncoming(s[i], slowEnd);
    out.push_back(phi);
  }
  return out;
}

} // namespace

void Emitter::emitLoad(ir::Op &op) {
  ir::Value *res = op.result();
  const ir::Type &rt = res->type;
  ElemType elem = rt.elem;
  Access acc{*this, memType(elem), (int)mod.getDataLayout().getTypeAllocSize(memType(elem))};
  ir::Type pt = rt, mt = rt;
  pt.elem = op.operands[0]->type.elem;
  mt.elem = ElemType::of(Scalar::I1);
  Regs ptrs = regsAs(op.operands[0], pt);
  Regs masks = op.operands.size() > 1 ? regsAs(op.operands[1], mt) : Regs{};
  Regs others = op.operands.size() > 2 ? regsAs(op.operands[2], rt) : Regs(ptrs.size(), llvm::Constant::getNullValue(llvmType(elem)));
  for (llvm::Value *&o : others)
    if (o->getType() != acc.memTy) o = b.CreateZExt(o, acc.memTy);   // i1 -> byte
  size_t n = rt.isTensor() && acc.bytes >= 2 ? vectorWidth(dist(rt), 16 / acc.bytes) : 1;
  Regs out;
  for (size_t g = 0; g < ptrs.size(); g += n) {
    auto slow = [&] {
      Regs r;
      for (size_t k = 0; k < n; ++k) r.push_back(acc.loadOne(ptrs[g + k], masks.empty() ? nullptr : masks[g + k], others[g + k]));
      return r;
    };
    if (n == 1) {
      Regs r = slow();
      out.insert(out.end(), r.begin(), r.end());
      continue;
    }
    auto fast = [&] {
      auto *vty = llvm::FixedVectorType::get(acc.memTy, n);
      llvm::Value *v = b.CreateAlignedLoad(vty, ptrs[g], llvm::Align(n * acc.bytes));
      Regs r;
      for (size_t k = 0; k < n; ++k) r.push_back(b.CreateExtractElement(v, k));
      return r;
    };
    Regs r = versioned(*this, acc.fastCondition(ptrs, masks, g, n), fast, slow);
    out.insert(out.end(), r.begin(), r.end());
  }
  if (acc.memTy != llvmType(elem))
    for (llvm::Value *&v : out) v = b.CreateICmpNE(v, llvm::ConstantInt::get(acc.memTy, 0));
  define(res, out);
}

void Emitter::emitStore(ir::Op &op) {
  ir::Value *ptr = op.operands[0];
  ir::Type pt = ptr->type, vt = ptr->type, mt = ptr->type;
  vt.elem = op.operands[1]->type.elem;
  mt.elem = ElemType::of(Scalar::I1);
  ElemType elem = vt.elem;
  Access acc{*this, memType(elem), (int)mod.getDataLayout().getTypeAllocSize(memType(elem))};
  Regs ptrs = regs(ptr);
  Regs vals = regsAs(op.operands[1], vt);
  Regs masks = op.operands.size() > 2 ? regsAs(op.operands[2], mt) : Regs{};
  for (llvm::Value *&v : vals)
    if (v->getType() != acc.memTy) v = b.CreateZExt(v, acc.memTy);
  size_t n = pt.isTensor() && acc.bytes >= 2 ? vectorWidth(dist(pt), 16 / acc.bytes) : 1;
  for (size_t g = 0; g < ptrs.size(); g += n) {
    auto slow = [&] {
      for (size_t k = 0; k < n; ++k) acc.storeOne(ptrs[g + k], vals[g + k], masks.empty() ? nullptr : masks[g + k]);
      return Regs{};
    };
    if (n == 1) {
      slow();
      continue;
    }
    auto fast = [&] {
      auto *vty = llvm::FixedVectorType::get(acc.memTy, n);
      llvm::Value *v = llvm::PoisonValue::get(vty);
      for (size_t k = 0; k < n; ++k) v = b.CreateInsertElement(v, vals[g + k], k);
      b.CreateAlignedStore(v, ptrs[g], llvm::Align(n * acc.bytes));
      return Regs{};
    };
    versioned(*this, acc.fastCondition(ptrs, masks, g, n), fast, slow);
  }
}

} // namespace tile::backend
