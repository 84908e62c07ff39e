// LoadStoreToLLVM.cpp - global loads and stores. Masked lanes go through
// predicated inline PTX (`@p ld.global`, result preset to `other`), so a
// masked-off lane touches no memory. Runs of registers contiguous along the
// layout's fastest dim (order[0], any dim) are versioned: when, at run time, the run's pointers are
// consecutive, aligned to the vector size and all unmasked, one vector
// access (ld/st.global.v2/v4) serves them; otherwise the per-element path.
// Where the axis facts prove a run consecutive, aligned and uniformly
// masked (Triton's case: unit strides, 16-divisible sizes), the vector
// access is emitted directly, predicated by the run's one mask bit.
// A store's element held by several threads (a scalar, a replicated
// layout) is stored by its one owner (Emitter::owners): the mask is ANDed
// with the owner bit, which is uniform over a run (runs never wrap).
#include "backend/Emitter.h"

#include <fmt/format.h>

namespace tile::backend {

namespace {

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

  /// A volatile load is side-effecting asm even unmasked: never hoisted out
  /// of a polling loop nor merged with another.
  llvm::Value *loadOne(llvm::Value *ptr, llvm::Value *mask, llvm::Value *other, bool isVolatile = false) {
    if (!mask && !isVolatile) return e.b.CreateAlignedLoad(memTy, ptr, llvm::Align(bytes));
    std::string c = fmt::format("=&{0},{0},b,l", regConstraint());
    std::string text = fmt::format("mov.b{0} $0, $1;\n\t@$2 ld{1}.global.{2} $0, [$3];", asmTy()->getIntegerBitWidth(),
                                   isVolatile ? ".volatile" : "", ptxTy());
    return fromBits(e.inlinePtx(asmTy(), text, c, {toBits(other), mask ? mask : e.b.getTrue(), ptr}));
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
    Builder &b = e.b;
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

/// Elements per access proven by the axis facts for every register group of
/// `d` (runs of n registers starting at multiples of n along `dim`), or 1
/// when the facts do not cover n.
size_t provenWidth(const Emitter &e, const Dist &d, int dim, const ir::Value *ptr, const ir::Value *mask, size_t n,
                   const Access &acc) {
  if (n < 2 || acc.memTy->isPointerTy() || n * acc.bytes < 4) return 1;
  if ((size_t)e.axis.vectorWidth(ptr, mask, dim) < n) return 1;
  return contiguousRun(d, n, /*aligned=*/true, dim) == n ? n : 1;
}

/// Registers per access group: the layout's run along `dim` (at most 16
/// bytes). 16-bit and wider elements take the run even when unproven (a
/// run-time check picks the vector or the scalar path); byte elements (i8,
/// fp8, bools) only when the axis facts prove it, since a run-time check of
/// up to 16 byte pointers costs more than it saves.
size_t accessRun(const Emitter &e, const Dist &d, int dim, const ir::Value *ptr, const ir::Value *mask,
                 const Access &acc) {
  size_t run = contiguousRun(d, 16 / acc.bytes, false, dim);
  if (acc.bytes >= 2) return run;
  return provenWidth(e, d, dim, ptr, mask, run, acc) == run ? run : 1;
}

/// A run of n elements as 32-bit words, and back (for b32 vector asm).
Regs toWords(Emitter &e, const Access &acc, const Regs &elems, size_t g, size_t n) {
  // 16-bit elements that are the two halves of one word (a packed cast's
  // extractelement 0 and 1 of one <2 x half>): that word, not a repacking
  auto pairOf = [&](llvm::Value *lo, llvm::Value *hi) -> llvm::Value * {
    auto *x = llvm::dyn_cast<llvm::ExtractElementInst>(lo), *y = llvm::dyn_cast<llvm::ExtractElementInst>(hi);
    if (!x || !y || x->getVectorOperand() != y->getVectorOperand()) return nullptr;
    auto *i = llvm::dyn_cast<llvm::ConstantInt>(x->getIndexOperand()), *j = llvm::dyn_cast<llvm::ConstantInt>(y->getIndexOperand());
    auto *vt = llvm::cast<llvm::FixedVectorType>(x->getVectorOperand()->getType());
    if (!i || !j || i->getZExtValue() != 0 || j->getZExtValue() != 1 || vt->getNumElements() != 2) return nullptr;
    return e.b.CreateBitCast(x->getVectorOperand(), e.b.getInt32Ty());
  };
  if (acc.bytes == 2 && n % 2 == 0) {
    Regs out;
    for (size_t k = 0; k < n; k += 2) {
      llvm::Value *w = pairOf(elems[g + k], elems[g + k + 1]);
      if (!w) break;
      out.push_back(w);
    }
    if (out.size() == n / 2) return out;
  }
  auto *vty = llvm::FixedVectorType::get(acc.memTy, n);
  llvm::Value *v = llvm::PoisonValue::get(vty);
  for (size_t k = 0; k < n; ++k) v = e.b.CreateInsertElement(v, elems[g + k], k);
  size_t words = n * acc.bytes / 4;
  llvm::Value *w = e.b.CreateBitCast(v, llvm::FixedVectorType::get(e.b.getInt32Ty(), words));
  Regs out;
  for (size_t k = 0; k < words; ++k) out.push_back(e.b.CreateExtractElement(w, k));
  return out;
}

Regs fromWords(Emitter &e, const Access &acc, const Regs &words, size_t n) {
  auto *wty = llvm::FixedVectorType::get(e.b.getInt32Ty(), words.size());
  llvm::Value *w = llvm::PoisonValue::get(wty);
  for (size_t k = 0; k < words.size(); ++k) w = e.b.CreateInsertElement(w, words[k], k);
  llvm::Value *v = e.b.CreateBitCast(w, llvm::FixedVectorType::get(acc.memTy, n));
  Regs out;
  for (size_t k = 0; k < n; ++k) out.push_back(e.b.CreateExtractElement(v, k));
  return out;
}

/// "{$a, $a+1, ...}" (or "$a" for one word) for vector asm operands.
std::string wordList(size_t first, size_t words) {
  if (words == 1) return fmt::format("${}", first);
  std::string s = "{";
  for (size_t k = 0; k < words; ++k) s += fmt::format("{}${}", k ? ", " : "", first + k);
  return s + "}";
}

std::string vecSuffix(size_t words) { return words == 1 ? "b32" : fmt::format("v{}.b32", words); }

/// A proven run: one predicated vector load, lanes preset to `other`.
Regs provenLoad(Emitter &e, const Access &acc, llvm::Value *ptr, llvm::Value *mask, const Regs &others, size_t g,
                size_t n) {
  if (!mask) {
    llvm::Value *v = e.b.CreateAlignedLoad(llvm::FixedVectorType::get(acc.memTy, n), ptr, llvm::Align(n * acc.bytes));
    Regs r;
    for (size_t k = 0; k < n; ++k) r.push_back(e.b.CreateExtractElement(v, k));
    return r;
  }
  Regs preset = toWords(e, acc, others, g, n);
  size_t words = preset.size();
  std::string text, c;
  for (size_t k = 0; k < words; ++k) {
    text += fmt::format("mov.b32 ${}, ${};\n\t", k, words + k);
    c += "=&r,";
  }
  for (size_t k = 0; k < words; ++k) c += "r,";
  c += "b,l";
  text += fmt::format("@${} ld.global.{} {}, [${}];", 2 * words, vecSuffix(words), wordList(0, words), 2 * words + 1);
  std::vector<llvm::Type *> rets(words, e.b.getInt32Ty());
  llvm::Type *ret = words == 1 ? rets[0] : llvm::StructType::get(e.ctx, rets);
  Regs ins = preset;
  ins.push_back(mask);
  ins.push_back(ptr);
  llvm::Value *res = e.inlinePtx(ret, text, c, ins);
  Regs got;
  for (size_t k = 0; k < words; ++k) got.push_back(words == 1 ? res : e.b.CreateExtractValue(res, (unsigned)k));
  return fromWords(e, acc, got, n);
}

/// A proven run: one predicated vector store.
void provenStore(Emitter &e, const Access &acc, llvm::Value *ptr, llvm::Value *mask, const Regs &vals, size_t g,
                 size_t n) {
  if (!mask && acc.bytes == 1) {
    // byte runs as b32 words through asm: LLVM folds a store of words back
    // into <16 x i8>, which NVPTX splits into four st.global.u32
    Regs words = toWords(e, acc, vals, g, n);
    std::string c = "l";
    for (size_t k = 0; k < words.size(); ++k) c += ",r";
    Regs ins{ptr};
    ins.insert(ins.end(), words.begin(), words.end());
    e.inlinePtx(nullptr, fmt::format("st.global.{} [$0], {};", vecSuffix(words.size()), wordList(1, words.size())),
                c + ",~{memory}", ins);
    return;
  }
  if (!mask) {
    // 16-bit runs go as 32-bit words (as the masked path): pairs that a
    // packed cast made (cvt.rn.f16x2.f32) are stored as they are
    bool words = acc.bytes == 2 && n % 2 == 0;
    Regs parts = words ? toWords(e, acc, vals, g, n) : Regs(vals.begin() + long(g), vals.begin() + long(g + n));
    llvm::Value *v = llvm::PoisonValue::get(llvm::FixedVectorType::get(words ? e.b.getInt32Ty() : acc.memTy, unsigned(parts.size())));
    for (size_t k = 0; k < parts.size(); ++k) v = e.b.CreateInsertElement(v, parts[k], k);
    e.b.CreateAlignedStore(v, ptr, llvm::Align(n * acc.bytes));
    return;
  }
  Regs words = toWords(e, acc, vals, g, n);
  std::string c = "b,l";
  for (size_t k = 0; k < words.size(); ++k) c += ",r";
  std::string text = fmt::format("@$0 st.global.{} [$1], {};", vecSuffix(words.size()), wordList(2, words.size()));
  Regs ins{mask, ptr};
  ins.insert(ins.end(), words.begin(), words.end());
  e.inlinePtx(nullptr, text, c + ",~{memory}", ins);
}

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
  if (auto it = asyncLoads.find(&op); it != asyncLoads.end()) return emitAsyncCopy(op, it->second);
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
  int dim = rt.isTensor() ? fastestDim(rt) : 0;
  ir::Value *maskV = op.operands.size() > 1 ? op.operands[1] : nullptr;
  size_t n = rt.isTensor() ? accessRun(*this, dist(rt), dim, op.operands[0], maskV, acc) : 1;
  bool proven = rt.isTensor() && provenWidth(*this, dist(rt), dim, op.operands[0], maskV, n, acc) == n && n > 1;
  if (op.hasAttr("volatile")) n = 1, proven = false;   // ld.volatile, an element at a time
  Regs out;
  for (size_t g = 0; g < ptrs.size(); g += n) {
    if (proven) {
      Regs r = provenLoad(*this, acc, ptrs[g], masks.empty() ? nullptr : masks[g], others, g, n);
      out.insert(out.end(), r.begin(), r.end());
      continue;
    }
    auto slow = [&] {
      Regs r;
      for (size_t k = 0; k < n; ++k)
        r.push_back(acc.loadOne(ptrs[g + k], masks.empty() ? nullptr : masks[g + k], others[g + k], op.hasAttr("volatile")));
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
  // one owner per element: replicated registers (and scalars) store once
  masks = withOwners(std::move(masks), pt.isTensor() ? owners(dist(pt)) : Regs{scalarOwner()});
  for (llvm::Value *&v : vals)
    if (v->getType() != acc.memTy) v = b.CreateZExt(v, acc.memTy);
  int dim = pt.isTensor() ? fastestDim(pt) : 0;
  ir::Value *maskV = op.operands.size() > 2 ? op.operands[2] : nullptr;
  size_t n = pt.isTensor() ? accessRun(*this, dist(pt), dim, ptr, maskV, acc) : 1;
  bool proven = pt.isTensor() && provenWidth(*this, dist(pt), dim, ptr, maskV, n, acc) == n && n > 1;
  for (size_t g = 0; g < ptrs.size(); g += n) {
    if (proven) {
      provenStore(*this, acc, ptrs[g], masks.empty() ? nullptr : masks[g], vals, g, n);
      continue;
    }
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
