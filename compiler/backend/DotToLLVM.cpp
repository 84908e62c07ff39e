// DotToLLVM.cpp - dot "through shared memory and FMA": a (MxK) and b (KxN)
// are written to shared memory, then every thread computes its accumulator
// registers with one fma per k in ascending k order (f16/bf16 inputs widened
// to f32 exactly; i8 inputs to i32). This equals the interpreter's exact
// products and f32 sums in k order; tf32 input precision is not applied.
#include "backend/Emitter.h"

#include <fmt/format.h>

namespace tile::backend {

void Emitter::emitDot(ir::Op &op) {
  ir::Value *a = op.operands[0], *bv = op.operands[1], *acc = op.operands[2], *res = op.result();
  if (a->type.rank() != 2 || bv->type.rank() != 2) fail(op.loc, "the gpu back end supports 2-d dot only");
  int64_t M = a->type.shape[0], K = a->type.shape[1], N = bv->type.shape[1];
  ElemType ea = a->type.elem, eb = bv->type.elem, er = res->type.elem;
  bool intDot = er.isInt();
  llvm::Type *ta = memType(ea), *tb = memType(eb);
  int64_t bytesA = M * K * (int64_t)mod.getDataLayout().getTypeAllocSize(ta);
  int64_t offB = (bytesA + 15) / 16 * 16;
  needShared(offB + K * N * (int64_t)mod.getDataLayout().getTypeAllocSize(tb), op.loc);
  beginSharedUse();
  storeShared(regs(a), dist(a->type), ta, 0);
  storeShared(regs(bv), dist(bv->type), tb, offB);
  barrier();
  Dist d = dist(res->type);
  auto crd = coords(d);
  Regs init = regsAs(acc, res->type);
  llvm::Type *accTy = llvmType(er);
  auto widen = [&](llvm::Value *v, ElemType e) -> llvm::Value * {
    if (intDot) return b.CreateIntCast(v, accTy, isSigned(e.scalar));
    return v->getType() == accTy ? v : b.CreateFPExt(v, accTy);
  };
  Regs fin = countedLoop(0, K, init, [&](llvm::Value *k, const Regs &cur) {
    Regs next;
    for (size_t r = 0; r < cur.size(); ++r) {
      llvm::Value *x = widen(loadShared(b.CreateAdd(b.CreateMul(crd[r][0], i32(K)), k), ta, 0), ea);
      llvm::Value *y = widen(loadShared(b.CreateAdd(b.CreateMul(k, i32(N)), crd[r][1]), tb, offB), eb);
      next.push_back(intDot ? b.CreateAdd(cur[r], b.CreateMul(x, y))
                            : b.CreateIntrinsic(llvm::Intrinsic::fma, {accTy}, {x, y, cur[r]}));
    }
    return next;
  });
  define(res, fin);   // no trailing barrier: see beginSharedUse
}

} // namespace tile::backend
