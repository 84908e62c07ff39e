// MatmulKernel.h - builds the seed tiled matmul kernel (lesson 2) with
// ir::Builder for the interpreter tests: a K loop carrying the accumulator
// and both pointer tiles, masked loads with other = 0, dot, masked store.
#pragma once

#include "ir/IR.h"

#include <string>

namespace tile::interp::test {

struct MatmulConfig {
  Scalar in = Scalar::F32, acc = Scalar::F32;
  int64_t blockM = 16, blockN = 16, blockK = 16, iters = 1;
  std::string precision = "tf32"; ///< the dot's input_precision (sema's f32 default)
};

/// Parameters: a, b, c, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
/// stride_cm, stride_cn (i32). Grid: (cdiv(M, BM), cdiv(N, BN)).
inline void buildMatmul(ir::Function &fn, const MatmulConfig &c) {
  using ir::OpKind;
  using ir::Type;
  using ir::Value;
  ir::Builder b(&fn.entry());
  auto param = [&](ElemType t, const char *name) {
    fn.paramNames.push_back(name);
    return fn.entry().addArg(Type::scalar(t));
  };
  ElemType i32 = ElemType::of(Scalar::I32);
  Value *aPtr = param(ElemType::ptrTo(c.in), "a_ptr"), *bPtr = param(ElemType::ptrTo(c.in), "b_ptr");
  Value *cPtr = param(ElemType::ptrTo(c.acc), "c_ptr");
  Value *M = param(i32, "M"), *N = param(i32, "N"), *K = param(i32, "K");
  Value *sam = param(i32, "stride_am"), *sak = param(i32, "stride_ak"), *sbk = param(i32, "stride_bk");
  Value *sbn = param(i32, "stride_bn"), *scm = param(i32, "stride_cm"), *scn = param(i32, "stride_cn");
  auto cst = [&](int64_t v) { return b.constantInt(v, Type::scalar(Scalar::I32)); };
  auto mul = [&](Value *x, Value *y) { return b.binary(OpKind::Mul, x, y); };
  auto add = [&](Value *x, Value *y) { return b.binary(OpKind::Add, x, y); };
  auto rangeFrom = [&](Value *pid, int64_t block) {
    return add(b.splat(mul(pid, cst(block)), {block}), b.arange(0, block));
  };
  // column (x[:, None] * s) + row (y[None, :] * t), broadcast to rows x cols
  auto tile2d = [&](Value *x, Value *s, Value *y, Value *t) {
    int64_t rows = x->type.shape[0], cols = y->type.shape[0];
    Value *col = mul(b.expandDims(x, 1), b.splat(s, {rows, 1}));
    Value *row = mul(b.expandDims(y, 0), b.splat(t, {1, cols}));
    return add(b.broadcast(col, {rows, cols}), b.broadcast(row, {rows, cols}));
  };
  Value *offsM = rangeFrom(b.programId(0), c.blockM), *offsN = rangeFrom(b.programId(1), c.blockN);
  Value *offsK = b.arange(0, c.blockK);
  Value *aPtrs = b.addptr(b.splat(aPtr, {c.blockM, c.blockK}), tile2d(offsM, sam, offsK, sak));
  Value *bPtrs = b.addptr(b.splat(bPtr, {c.blockK, c.blockN}), tile2d(offsK, sbk, offsN, sbn));
  Type accType = Type::tensor(ElemType::of(c.acc), {c.blockM, c.blockN});
  Value *acc0 = isFloat(c.acc) ? b.constantFloat(0.0, accType) : b.constantInt(0, accType);

  ir::Op *loop = b.create(OpKind::For, {cst(0), cst(c.iters), cst(1), acc0, aPtrs, bPtrs},
                          {accType, aPtrs->type, bPtrs->type});
  ir::Block *body = loop->regions[0]->block.get();
  Value *k = body->addArg(Type::scalar(Scalar::I32));
  Value *acc = body->addArg(accType), *ap = body->addArg(aPtrs->type), *bp = body->addArg(bPtrs->type);
  ir::Builder lb(body);
  Value *kRem = lb.binary(OpKind::Sub, K, lb.binary(OpKind::Mul, k, lb.constantInt(c.blockK, Type::scalar(Scalar::I32))));
  Value *aMask = lb.broadcast(lb.cmp("lt", lb.expandDims(offsK, 0), lb.splat(kRem, {1, c.blockK})), {c.blockM, c.blockK});
  Value *bMask = lb.broadcast(lb.cmp("lt", lb.expandDims(offsK, 1), lb.splat(kRem, {c.blockK, 1})), {c.blockK, c.blockN});
  Type aType = Type::tensor(ElemType::of(c.in), {c.blockM, c.blockK});
  Type bType = Type::tensor(ElemType::of(c.in), {c.blockK, c.blockN});
  Value *aZero = isFloat(c.in) ? lb.constantFloat(0.0, aType) : lb.constantInt(0, aType);
  Value *bZero = isFloat(c.in) ? lb.constantFloat(0.0, bType) : lb.constantInt(0, bType);
  Value *av = lb.load(ap, aMask, aZero), *bv = lb.load(bp, bMask, bZero);
  Value *next = lb.dot(av, bv, acc, c.precision);
  Value *aStep = lb.binary(OpKind::Mul, lb.constantInt(c.blockK, Type::scalar(Scalar::I32)), sak);
  Value *bStep = lb.binary(OpKind::Mul, lb.constantInt(c.blockK, Type::scalar(Scalar::I32)), sbk);
  Value *apNext = lb.addptr(ap, lb.splat(aStep, {c.blockM, c.blockK}));
  Value *bpNext = lb.addptr(bp, lb.splat(bStep, {c.blockK, c.blockN}));
  lb.yield({next, apNext, bpNext});

  Value *cPtrs = b.addptr(b.splat(cPtr, {c.blockM, c.blockN}), tile2d(offsM, scm, offsN, scn));
  Value *mRow = b.broadcast(b.cmp("lt", b.expandDims(offsM, 1), b.splat(M, {c.blockM, 1})), {c.blockM, c.blockN});
  Value *nCol = b.broadcast(b.cmp("lt", b.expandDims(offsN, 0), b.splat(N, {1, c.blockN})), {c.blockM, c.blockN});
  b.store(cPtrs, loop->result(0), b.binary(OpKind::And, mRow, nCol));
}

} // namespace tile::interp::test
