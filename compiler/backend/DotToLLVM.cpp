// DotToLLVM.cpp - dot lowering. Two paths, both through shared memory:
//
// * Tensor cores (dotWithMma): f16 x f16 or bf16 x bf16 with an f32
//   accumulator, M % 16 == 0, N % 8 == 0, K % 16 == 0, and the staging
//   buffers fit in shared memory. a (row-major), b (transposed, so that the
//   "col" B fragment is two consecutive halves) and the incoming accumulator
//   (f32, row-major) go to shared memory; warps take the 16x8 output tiles
//   round-robin and run mma.sync.aligned.m16n8k16.row.col over K, writing D
//   back over C; then every thread reads its accumulator registers (the
//   layout pass's blocked layout) from there. f16/bf16 products are exact in
//   f32, so only the order of the f32 sums differs from the interpreter's k
//   order (the tensor core adds each k16 slice's products before adding C).
//   For K <= 4096 with unit-normal inputs this stays well inside the GPU
//   check's rtol 1e-4.
// * FMA (everything else): a (MxK) and b (KxN) are written to shared
//   memory, then every thread computes its accumulator registers with one
//   fma per k in ascending k order (f16/bf16 inputs widened to f32 exactly;
//   i8 inputs to i32). This equals the interpreter's exact products and f32
//   sums in k order; tf32 input precision is not applied.
#include "backend/Emitter.h"

#include <llvm/IR/IntrinsicsNVPTX.h>

#include <fmt/format.h>

namespace tile::backend {

namespace {

/// Halves of padding per shared row of a and b^T: rows stay 16-byte aligned
/// and the 8 rows one fragment load touches fall in different banks.
constexpr int64_t kRowPad = 8;

int64_t alignUp(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

} // namespace

bool Emitter::dotWithMma(ir::Op &op) {
  ir::Value *a = op.operands[0], *bv = op.operands[1], *acc = op.operands[2], *res = op.result();
  int64_t M = a->type.shape[0], K = a->type.shape[1], N = bv->type.shape[1];
  Scalar ea = a->type.elem.scalar, er = res->type.elem.scalar;
  if (a->type.elem.isPtr || bv->type.elem != a->type.elem || !isNarrowFloat(ea) || er != Scalar::F32 ||
      res->type.elem.isPtr)
    return false;
  if (M % 16 != 0 || N % 8 != 0 || K % 16 != 0) return false;
  int64_t stride = K + kRowPad;   // halves per row of a and of b^T
  int64_t offB = alignUp(M * stride * 2, 16);
  int64_t offC = alignUp(offB + N * stride * 2, 16);
  int64_t bytes = offC + M * N * 4;
  if (bytes > sharedLimit()) return false;   // the FMA path needs less
  needShared(bytes, op.loc);

  llvm::Type *half = memType(a->type.elem), *f32 = b.getFloatTy(), *i32Ty = b.getInt32Ty();
  llvm::Value *base = smemBase();
  auto storeAt = [&](const Regs &r, const Dist &d, llvm::Type *ty, int64_t off, int64_t sRow, int64_t sCol) {
    auto crd = coords(d);
    llvm::Value *p0 = b.CreateGEP(b.getInt8Ty(), base, i32(off));
    smemClean = false;
    for (size_t i = 0; i < r.size(); ++i) {
      llvm::Value *idx = b.CreateAdd(b.CreateMul(crd[i][0], i32(sRow)), b.CreateMul(crd[i][1], i32(sCol)));
      b.CreateStore(r[i], b.CreateGEP(ty, p0, idx));
    }
  };
  beginSharedUse();
  storeAt(regs(a), dist(a->type), half, 0, stride, 1);
  storeAt(regs(bv), dist(bv->type), half, offB, 1, stride);   // b^T: row n, column k
  Dist d = dist(res->type);
  storeShared(regsAs(acc, res->type), d, f32, offC);
  barrier();

  // Fragment coordinates (PTX ISA, "Matrix fragments for mma.m16n8k16 with
  // floating point type"): g = lane / 4, t = lane % 4.
  //   A (4 x b32): {row g, g+8} x {k 2t..2t+1, 2t+8..2t+9}, order (g,k) (g+8,k) (g,k+8) (g+8,k+8)
  //   B (2 x b32): column g, k 2t..2t+1 and 2t+8..2t+9
  //   C/D (4 f32): (g, 2t) (g, 2t+1) (g+8, 2t) (g+8, 2t+1)
  llvm::Value *g = b.CreateUDiv(lane, i32(4)), *t2 = b.CreateMul(b.CreateURem(lane, i32(4)), i32(2));
  llvm::Function *mma = llvm::Intrinsic::getDeclaration(
      &mod, ea == Scalar::F16 ? llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_f32_f32
                              : llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_bf16);
  llvm::FunctionType *mmaTy = mma->getFunctionType();
  // One b32 (two halves) at half index `idx` of the region at byte `off`.
  auto loadPair = [&](int64_t off, llvm::Value *idx, unsigned param) -> llvm::Value * {
    llvm::Value *p = b.CreateGEP(half, b.CreateGEP(b.getInt8Ty(), base, i32(off)), idx);
    llvm::Value *v = b.CreateAlignedLoad(i32Ty, p, llvm::Align(4));
    return b.CreateBitCast(v, mmaTy->getParamType(param));   // <2 x half> for f16, i32 for bf16
  };
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
    llvm::Value *cCol = b.CreateAdd(col0, t2), *bRow = b.CreateAdd(col0, g);
    llvm::Value *cBase = b.CreateGEP(b.getInt8Ty(), base, i32(offC));
    Regs c;
    for (int i = 0; i < 4; ++i) c.push_back(b.CreateLoad(f32, b.CreateGEP(f32, cBase, cIndex(row0, cCol, i))));
    Regs dv = countedLoop(0, K / 16, c, [&](llvm::Value *ks, const Regs &cur) -> Regs {
      llvm::Value *k0 = b.CreateAdd(b.CreateMul(ks, i32(16)), t2);
      std::vector<llvm::Value *> args;
      for (int i = 0; i < 4; ++i) {
        llvm::Value *row = b.CreateAdd(row0, i32(i & 1 ? 8 : 0)), *k = b.CreateAdd(k0, i32(i >= 2 ? 8 : 0));
        args.push_back(loadPair(0, b.CreateAdd(b.CreateMul(row, i32(stride)), k), i));
      }
      for (int i = 0; i < 2; ++i) {
        llvm::Value *k = b.CreateAdd(k0, i32(i * 8));
        args.push_back(loadPair(offB, b.CreateAdd(b.CreateMul(bRow, i32(stride)), k), 4 + i));
      }
      args.insert(args.end(), cur.begin(), cur.end());
      llvm::Value *out = b.CreateCall(mma, args);
      Regs next;
      for (unsigned i = 0; i < 4; ++i) next.push_back(b.CreateExtractValue(out, i));
      return next;
    });
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

void Emitter::emitDot(ir::Op &op) {
  ir::Value *a = op.operands[0], *bv = op.operands[1], *acc = op.operands[2], *res = op.result();
  if (a->type.rank() != 2 || bv->type.rank() != 2) fail(op.loc, "the gpu back end supports 2-d dot only");
  if (dotWithMma(op)) return;
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
