// ScanAtomicToLLVM.cpp - scans and atomics.
//
// scan: a simple, layout-independent lowering. Each operand (a scan of a
// tuple has several) is stored to shared memory at its row-major index; after a barrier every thread
// computes each of its result registers r (axis coordinate j) by running
// the combine region over the whole row in index order (from the end with
// reverse) and keeping the accumulator only while the index has not passed
// j. That is the interpreter's sequential order, so even float results
// agree exactly; the cost is O(len) per register, not a log-depth scan.
//
// atomics: a tensor's element may live in several threads (replicated
// layouts) or twice in one thread, but must be updated once. Its owner,
// derived from the layout (Emitter::owners; thread 0 for a scalar),
// performs `@p atom.global.<sem>.<scope>.<op>.<type>` (p: mask bit and
// owner bit) and stores the old value to shared memory at the element's
// row-major index; after a barrier every holder reads it (the next shared
// use begins with a barrier, so no later write races with those reads);
// an unread result goes nowhere. A scalar atomic (thread 0 acting for the
// program) with release semantics has a barrier before it, one with
// acquire semantics a barrier after it, so a lock taken and released by
// thread 0 orders the accesses of every warp in the critical section. Float max/min use Triton's scheme: the signed integer max (min)
// of the bits when the value's sign bit is clear, else the unsigned integer
// min (max).
#include "backend/ScanAtomicToLLVM.h"

#include <fmt/format.h>

namespace tile::backend {

namespace {

/// Runs the scan region on (acc..., x...) at the insertion point; returns
/// the yielded scalars.
Regs combineOnce(Emitter &e, ir::Block &body, const Regs &acc, const Regs &x) {
  size_t n = acc.size();
  for (size_t k = 0; k < n; ++k) {
    e.define(body.args[k].get(), {acc[k]});
    e.define(body.args[n + k].get(), {x[k]});
  }
  e.emitBlock(body);
  ir::Op *y = body.terminator();
  TILE_ASSERT(y && y->kind == ir::OpKind::Yield && y->operands.size() == n, "scan region must yield one value per operand");
  Regs out;
  for (ir::Value *v : y->operands) out.push_back(e.scalar(v));
  return out;
}

bool reverseAttr(const ir::Op &op) {
  auto it = op.attrs.find("reverse");
  return it != op.attrs.end() && std::get_if<bool>(&it->second) && std::get<bool>(it->second);
}

} // namespace

void emitScan(Emitter &e, ir::Op &op) {
  Builder &b = e.b;
  size_t n = op.operands.size();
  int axis = static_cast<int>(op.intAttr("axis"));
  bool reverse = reverseAttr(op);
  ir::Block &body = *op.regions[0]->block;
  const std::vector<int64_t> &shape = op.operands[0]->type.shape;
  int64_t numel = op.operands[0]->type.numElements();
  // Each operand at its own offset in shared memory (8-byte aligned).
  std::vector<llvm::Type *> ty(n), regTy(n);
  std::vector<int64_t> base(n);
  int64_t bytes = 0;
  for (size_t k = 0; k < n; ++k) {
    ty[k] = e.memType(op.operands[k]->type.elem);
    regTy[k] = e.llvmType(op.operands[k]->type.elem);
    base[k] = bytes;
    bytes += (numel * (int64_t)e.mod.getDataLayout().getTypeAllocSize(ty[k]) + 7) / 8 * 8;
  }
  e.needShared(bytes, op.loc);
  e.beginSharedUse();
  for (size_t k = 0; k < n; ++k) e.storeShared(e.regs(op.operands[k]), e.dist(op.operands[k]->type), ty[k], base[k]);
  e.barrier();
  int64_t len = shape[axis], stride = 1;
  for (size_t d = axis + 1; d < shape.size(); ++d) stride *= shape[d];
  // One entry per register to compute: its row's first index, its axis
  // coordinate and the results (result, register) it gives. Results of one
  // layout share their entries.
  struct Entry {
    llvm::Value *rowBase, *pos;
    std::vector<std::pair<size_t, size_t>> takes;   // (result k, register r)
  };
  std::vector<Entry> entries;
  bool oneLayout = true;
  for (size_t k = 1; k < n; ++k) oneLayout &= e.dist(op.result(unsigned(k))->type) == e.dist(op.result(0)->type);
  for (size_t k = 0; k < (oneLayout ? 1 : n); ++k) {
    size_t r = 0;
    for (auto &c : e.coords(e.dist(op.result(unsigned(k))->type))) {
      llvm::Value *idx = e.i32(0);
      for (size_t d = 0; d < shape.size(); ++d)
        idx = b.CreateAdd(b.CreateMul(idx, e.i32(shape[d])), (int)d == axis ? e.i32(0) : c[d]);
      Entry en{idx, c[axis], {}};
      if (oneLayout)
        for (size_t j = 0; j < n; ++j) en.takes.push_back({j, r});
      else
        en.takes.push_back({k, r});
      entries.push_back(std::move(en));
      ++r;
    }
  }
  auto element = [&](const Entry &en, size_t k, llvm::Value *i) {
    llvm::Value *v = e.loadShared(b.CreateAdd(en.rowBase, b.CreateMul(i, e.i32(stride))), ty[k], base[k]);
    return ty[k] != regTy[k] ? b.CreateTrunc(v, regTy[k]) : v;
  };
  // The loop carries n accumulators per entry, entry-major.
  Regs init;
  for (const Entry &en : entries)
    for (size_t k = 0; k < n; ++k) init.push_back(element(en, k, e.i32(reverse ? len - 1 : 0)));
  Regs out = e.countedLoop(1, len, init, [&](llvm::Value *t, const Regs &cur) {
    llvm::Value *i = reverse ? b.CreateSub(e.i32(len - 1), t) : t;
    Regs next;
    for (size_t q = 0; q < entries.size(); ++q) {
      const Entry &en = entries[q];
      Regs acc(cur.begin() + q * n, cur.begin() + (q + 1) * n), x;
      for (size_t k = 0; k < n; ++k) x.push_back(element(en, k, i));
      Regs c = combineOnce(e, body, acc, x);
      llvm::Value *take = reverse ? b.CreateICmpSGE(i, en.pos) : b.CreateICmpSLE(i, en.pos);
      for (size_t k = 0; k < n; ++k) next.push_back(b.CreateSelect(take, c[k], acc[k]));
    }
    return next;
  });
  std::vector<Regs> results(n);
  for (size_t k = 0; k < n; ++k) results[k].resize(e.dist(op.result(unsigned(k))->type).numRegs());
  for (size_t q = 0; q < entries.size(); ++q)
    for (auto [k, r] : entries[q].takes) results[k][r] = out[q * n + k];
  for (size_t k = 0; k < n; ++k) e.define(op.result(unsigned(k)), results[k]);   // no trailing barrier: see beginSharedUse
}

// ---------------------------------------------------------------- atomics

namespace {

struct AtomicLowering {
  Emitter &e;
  ir::Op &op;
  Scalar s;
  int bits;

  Builder &b() { return e.b; }
  llvm::Type *intTy() { return b().getIntNTy(bits); }
  const char *reg() const { return bits == 64 ? "l" : bits == 32 ? "r" : "h"; }

  llvm::Value *toBits(llvm::Value *v) { return v->getType()->isIntegerTy() ? v : b().CreateBitCast(v, intTy()); }
  llvm::Value *fromBits(llvm::Value *v) {
    llvm::Type *t = e.llvmType(ElemType::of(s));
    return t->isIntegerTy() ? v : b().CreateBitCast(v, t);
  }

  std::string order() const {
    return fmt::format(".{}.{}", op.strAttr("sem"), op.strAttr("scope"));
  }

  /// "add.u32", "max.s64", "exch.b32", ... for an integer or float kind.
  std::string opType(const std::string &kind, bool signedCmp) const {
    bool flt = isFloat(s);
    std::string w = std::to_string(bits);
    if (kind == "add")
      return flt ? (s == Scalar::F16 ? "add.noftz.f16" : s == Scalar::BF16 ? "add.noftz.bf16" : "add.f" + w)
                 : "add.u" + w;
    if (kind == "max" || kind == "min") return kind + (signedCmp ? ".s" : ".u") + w;
    if (kind == "xchg") return "exch.b" + w;
    return kind + ".b" + w;   // and, or, xor
  }

  /// Old value (bits) of one predicated atom; 0 where pred is false.
  llvm::Value *atom(const std::string &opTy, llvm::Value *pred, llvm::Value *ptr, llvm::Value *v, llvm::Value *cmp) {
    std::string text = fmt::format("mov.b{0} $0, 0;\n\t@$1 atom.global{1}.{2} $0, [$2], $3{3};", bits, order(), opTy,
                                   cmp ? ", $4" : "");
    std::string c = fmt::format("=&{0},b,l,{0}{1},~{{memory}}", reg(), cmp ? std::string(",") + reg() : "");
    std::vector<llvm::Value *> ins{pred, ptr};
    if (cmp) ins.push_back(cmp);
    ins.push_back(v);
    // atom.cas takes the compared value, then the new one
    return e.inlinePtx(intTy(), text, c, ins);
  }

  /// The old value of one element (as bits); the atomic runs where pred.
  llvm::Value *one(llvm::Value *pred, llvm::Value *ptr, llvm::Value *v, llvm::Value *cmp) {
    if (op.kind == ir::OpKind::AtomicCas) return atom("cas.b" + std::to_string(bits), pred, ptr, toBits(v), toBits(cmp));
    const std::string &kind = op.strAttr("kind");
    llvm::Value *vb = toBits(v);
    if ((kind == "max" || kind == "min") && isFloat(s)) {
      llvm::Value *neg = b().CreateICmpSLT(vb, llvm::ConstantInt::get(intTy(), 0));
      bool mx = kind == "max";
      llvm::Value *pPos = b().CreateAnd(pred, b().CreateNot(neg)), *pNeg = b().CreateAnd(pred, neg);
      llvm::Value *oldPos = atom(opType(kind, true), pPos, ptr, vb, nullptr);
      llvm::Value *oldNeg = atom(opType(mx ? "min" : "max", false), pNeg, ptr, vb, nullptr);
      return b().CreateSelect(neg, oldNeg, oldPos);
    }
    return atom(opType(kind, isSigned(s)), pred, ptr, vb, nullptr);
  }
};

} // namespace

void emitAtomic(Emitter &e, ir::Op &op) {
  Builder &b = e.b;
  bool cas = op.kind == ir::OpKind::AtomicCas;
  ir::Value *ptr = op.operands[0], *res = op.result();
  ElemType elem = ElemType::of(ptr->type.elem.scalar);
  ir::Type vt = ptr->type.withElem(elem), mt = ptr->type.withElem(ElemType::of(Scalar::I1));
  if (elem.scalar == Scalar::BF16 && e.opts.arch < "sm_90")
    fail(op.loc, fmt::format("not supported: atomic_add on bf16 before sm_90 (atom.add.noftz.bf16), target {}",
                             e.opts.arch));
  AtomicLowering al{e, op, elem.scalar, bitWidth(elem.scalar)};
  Regs ptrs = e.regs(ptr);
  Regs vals = e.regsAs(op.operands[cas ? 2 : 1], vt);
  Regs cmps = cas ? e.regsAs(op.operands[1], vt) : Regs{};
  Regs masks = !cas && op.operands.size() > 2 ? e.regsAs(op.operands[2], mt) : Regs{};
  size_t n = ptrs.size();
  int64_t elems = ptr->type.isTensor() ? ptr->type.numElements() : 1;
  llvm::Type *valTy = b.getIntNTy(al.bits);
  Regs owner = ptr->type.isTensor() ? e.owners(e.dist(ptr->type)) : Regs{e.scalarOwner()};
  if (owner.empty()) owner.assign(n, b.getTrue());
  bool returned = e.isUsed(res);   // else no old value goes back
  // A scalar atomic is one thread's act on behalf of the whole program: a
  // release orders every thread's earlier accesses (the barrier's
  // cumulativity), an acquire every thread's later ones (the barrier after).
  const std::string &sem = op.strAttr("sem");
  bool scalar = !ptr->type.isTensor(), releases = sem == "release" || sem == "acq_rel";
  bool acquires = sem == "acquire" || sem == "acq_rel";
  if (scalar && releases) e.barrier();
  Regs idx;
  if (returned) {
    e.needShared(elems * al.bits / 8, op.loc);
    e.beginSharedUse();
    idx = ptr->type.isTensor() ? e.linearIndex(e.dist(ptr->type)) : Regs{e.i32(0)};
  }
  for (size_t r = 0; r < n; ++r) {
    llvm::Value *pred = masks.empty() ? owner[r] : b.CreateAnd(owner[r], masks[r]);
    llvm::Value *old = al.one(pred, ptrs[r], vals[r], cas ? cmps[r] : nullptr);
    if (returned) e.storeIf(owner[r], old, b.CreateGEP(valTy, e.smemBase(), idx[r]));
  }
  if (!returned) {   // nothing reads the result
    if (scalar && acquires) e.barrier();
    size_t regs = res->type.isTensor() ? e.dist(res->type).numRegs() : 1;
    e.define(res, Regs(regs, llvm::PoisonValue::get(e.llvmType(res->type.elem))));
    return;
  }
  e.smemClean = false;
  e.barrier();
  Regs out;
  Regs outIdx = res->type.isTensor() ? e.linearIndex(e.dist(res->type)) : Regs{e.i32(0)};
  for (llvm::Value *i : outIdx) out.push_back(al.fromBits(e.loadShared(i, valTy, 0)));
  e.define(res, out);
}

} // namespace tile::backend
