// ScanAtomicToLLVM.cpp - scans and atomics.
//
// scan: a simple, layout-independent lowering. The operand is stored to
// shared memory at its row-major index; after a barrier every thread
// computes each of its result registers r (axis coordinate j) by running
// the combine region over the whole row in index order (from the end with
// reverse) and keeping the accumulator only while the index has not passed
// j. That is the interpreter's sequential order, so even float results
// agree exactly; the cost is O(len) per register, not a log-depth scan.
//
// atomics: a tensor's element may live in several threads (replicated
// layouts) or twice in one thread, but must be updated once. Each
// (thread, register) writes a unique id to a claim slot per element; after
// a barrier the one whose id survived performs `@p atom.global.<sem>.<scope>
// .<op>.<type>` (p: its mask bit) and stores the old value to shared memory;
// after a second barrier every holder reads it. A scalar atomic is done by
// thread 0. Float max/min use Triton's scheme: the signed integer max (min)
// of the bits when the value's sign bit is clear, else the unsigned integer
// min (max).
#include "backend/ScanAtomicToLLVM.h"

#include <fmt/format.h>

namespace tile::backend {

namespace {

/// Runs the scan region on (acc, x) at the insertion point.
llvm::Value *combineOnce(Emitter &e, ir::Block &body, llvm::Value *acc, llvm::Value *x) {
  e.define(body.args[0].get(), {acc});
  e.define(body.args[1].get(), {x});
  e.emitBlock(body);
  ir::Op *y = body.terminator();
  TILE_ASSERT(y && y->kind == ir::OpKind::Yield && y->operands.size() == 1, "scan region must yield one value");
  return e.scalar(y->operands[0]);
}

bool reverseAttr(const ir::Op &op) {
  auto it = op.attrs.find("reverse");
  return it != op.attrs.end() && std::get_if<bool>(&it->second) && std::get<bool>(it->second);
}

} // namespace

void emitScan(Emitter &e, ir::Op &op) {
  llvm::IRBuilder<> &b = e.b;
  ir::Value *x = op.operands[0], *res = op.result();
  int axis = static_cast<int>(op.intAttr("axis"));
  bool reverse = reverseAttr(op);
  ir::Block &body = *op.regions[0]->block;
  const std::vector<int64_t> &shape = x->type.shape;
  llvm::Type *ty = e.memType(x->type.elem), *regTy = e.llvmType(x->type.elem);
  e.needShared(x->type.numElements() * (int64_t)e.mod.getDataLayout().getTypeAllocSize(ty), op.loc);
  e.beginSharedUse();
  e.storeShared(e.regs(x), e.dist(x->type), ty, 0);
  e.barrier();
  int64_t len = shape[axis], stride = 1;
  for (size_t d = axis + 1; d < shape.size(); ++d) stride *= shape[d];
  // Per result register: the row's first index and its own axis coordinate.
  Regs rowBase, pos;
  for (auto &c : e.coords(e.dist(res->type))) {
    llvm::Value *idx = e.i32(0);
    for (size_t d = 0; d < shape.size(); ++d)
      idx = b.CreateAdd(b.CreateMul(idx, e.i32(shape[d])), (int)d == axis ? e.i32(0) : c[d]);
    rowBase.push_back(idx);
    pos.push_back(c[axis]);
  }
  auto element = [&](size_t r, llvm::Value *k) {
    llvm::Value *v = e.loadShared(b.CreateAdd(rowBase[r], b.CreateMul(k, e.i32(stride))), ty, 0);
    return ty != regTy ? b.CreateTrunc(v, regTy) : v;
  };
  Regs init;
  for (size_t r = 0; r < rowBase.size(); ++r) init.push_back(element(r, e.i32(reverse ? len - 1 : 0)));
  Regs out = e.countedLoop(1, len, init, [&](llvm::Value *t, const Regs &cur) {
    llvm::Value *k = reverse ? b.CreateSub(e.i32(len - 1), t) : t;
    Regs next;
    for (size_t r = 0; r < rowBase.size(); ++r) {
      llvm::Value *c = combineOnce(e, body, cur[r], element(r, k));
      llvm::Value *take = reverse ? b.CreateICmpSGE(k, pos[r]) : b.CreateICmpSLE(k, pos[r]);
      next.push_back(b.CreateSelect(take, c, cur[r]));
    }
    return next;
  });
  e.define(res, out);   // no trailing barrier: see beginSharedUse
}

// ---------------------------------------------------------------- atomics

namespace {

struct AtomicLowering {
  Emitter &e;
  ir::Op &op;
  Scalar s;
  int bits;

  llvm::IRBuilder<> &b() { return e.b; }
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

/// Emits `then` under `cond` (a plain branch; then() must not branch out).
void ifThen(Emitter &e, llvm::Value *cond, const std::function<void()> &then) {
  llvm::Function *f = e.b.GetInsertBlock()->getParent();
  auto *yes = llvm::BasicBlock::Create(e.ctx, "atom.own", f), *done = llvm::BasicBlock::Create(e.ctx, "atom.done", f);
  e.b.CreateCondBr(cond, yes, done);
  e.b.SetInsertPoint(yes);
  then();
  e.b.CreateBr(done);
  e.b.SetInsertPoint(done);
}

} // namespace

void emitAtomic(Emitter &e, ir::Op &op) {
  llvm::IRBuilder<> &b = e.b;
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
  int64_t claimBytes = ptr->type.isTensor() ? elems * 4 : 0, resultAt = (claimBytes + 7) / 8 * 8;
  e.needShared(resultAt + elems * al.bits / 8, op.loc);
  e.beginSharedUse();
  Regs idx = ptr->type.isTensor() ? e.linearIndex(e.dist(ptr->type)) : Regs{e.i32(0)};
  // Claim: the last (thread, register) id written per element owns it.
  Regs owner;
  if (ptr->type.isTensor()) {
    llvm::Value *self = b.CreateMul(e.tid, e.i32(static_cast<int64_t>(n)));
    llvm::Value *p0 = e.smemBase();
    for (size_t r = 0; r < n; ++r)
      b.CreateStore(b.CreateAdd(self, e.i32(r)), b.CreateGEP(b.getInt32Ty(), p0, idx[r]));
    e.smemClean = false;
    e.barrier();
    for (size_t r = 0; r < n; ++r)
      owner.push_back(b.CreateICmpEQ(e.loadShared(idx[r], b.getInt32Ty(), 0), b.CreateAdd(self, e.i32(r))));
  } else {
    owner.push_back(b.CreateICmpEQ(e.tid, e.i32(0)));
  }
  for (size_t r = 0; r < n; ++r) {
    llvm::Value *pred = masks.empty() ? owner[r] : b.CreateAnd(owner[r], masks[r]);
    llvm::Value *old = al.one(pred, ptrs[r], vals[r], cas ? cmps[r] : nullptr);
    ifThen(e, owner[r], [&] {
      llvm::Value *p = b.CreateGEP(b.getInt8Ty(), e.smemBase(), e.i32(resultAt));
      b.CreateStore(old, b.CreateGEP(valTy, p, idx[r]));
    });
  }
  e.smemClean = false;
  e.barrier();
  Regs out;
  Regs outIdx = res->type.isTensor() ? e.linearIndex(e.dist(res->type)) : Regs{e.i32(0)};
  for (llvm::Value *i : outIdx) out.push_back(al.fromBits(e.loadShared(i, valTy, resultAt)));
  e.define(res, out);
}

} // namespace tile::backend
