// ReduceToLLVM.cpp - reductions along one axis, through shared memory: the
// input is written at its row-major indices, then every thread folds the
// elements of each of its result registers in ascending index order (the
// interpreter's order, so sums agree bit for bit; narrow floats accumulate
// in f32). max/min ignore NaN (fmax/fmin); argmax/argmin keep the lowest
// index among equal values.
#include "backend/Emitter.h"

#include <fmt/format.h>

namespace tile::backend {

namespace {

struct Combiner {
  Emitter &e;
  std::string kind;
  ElemType elem;

  bool isArg() const { return kind == "argmax" || kind == "argmin"; }

  /// Is x strictly better than best (NaN never better; anything beats NaN)?
  llvm::Value *better(llvm::Value *x, llvm::Value *best) {
    llvm::IRBuilder<> &b = e.b;
    bool max = kind == "argmax";
    if (elem.isFloat()) {
      llvm::Value *cmp = max ? b.CreateFCmpOGT(x, best) : b.CreateFCmpOLT(x, best);
      return b.CreateOr(cmp, b.CreateAnd(b.CreateFCmpUNO(best, best), b.CreateFCmpORD(x, x)));
    }
    bool sgn = isSigned(elem.scalar);
    return max ? (sgn ? b.CreateICmpSGT(x, best) : b.CreateICmpUGT(x, best))
               : (sgn ? b.CreateICmpSLT(x, best) : b.CreateICmpULT(x, best));
  }

  /// acc = {value} or {value, index}; x is the element at index k.
  Regs combine(const Regs &acc, llvm::Value *x, llvm::Value *k, Location loc) {
    llvm::IRBuilder<> &b = e.b;
    if (isArg()) {
      llvm::Value *bt = better(x, acc[0]);
      return {b.CreateSelect(bt, x, acc[0]), b.CreateSelect(bt, k, acc[1])};
    }
    bool flt = elem.isFloat(), sgn = !flt && isSigned(elem.scalar);
    if (kind == "sum") return {flt ? b.CreateFAdd(acc[0], x) : b.CreateAdd(acc[0], x)};
    using namespace llvm::Intrinsic;
    if (kind == "max") return {b.CreateBinaryIntrinsic(flt ? maxnum : sgn ? smax : umax, acc[0], x)};
    if (kind == "min") return {b.CreateBinaryIntrinsic(flt ? minnum : sgn ? smin : umin, acc[0], x)};
    fail(loc, fmt::format("unknown reduction '{}'", kind));
  }
};

} // namespace

void Emitter::emitReduce(ir::Op &op) {
  ir::Value *x = op.operands[0], *res = op.result();
  int axis = static_cast<int>(op.intAttr("axis"));
  Combiner cb{*this, op.strAttr("kind"), x->type.elem};
  if (!x->type.isTensor()) fail(op.loc, "reduce needs a tensor operand");
  const std::vector<int64_t> &shape = x->type.shape;
  llvm::Type *ty = memType(x->type.elem);
  llvm::Type *regTy = llvmType(x->type.elem);
  Scalar s = x->type.elem.scalar;
  int64_t n = x->type.numElements();
  needShared(n * (int64_t)mod.getDataLayout().getTypeAllocSize(ty), op.loc);
  barrier();
  storeShared(regs(x), dist(x->type), ty, 0);
  barrier();
  // Coordinates (rank-1 dims) of each result register.
  std::vector<std::vector<llvm::Value *>> outCoords;
  if (res->type.isTensor()) outCoords = coords(dist(res->type));
  else outCoords.push_back({});
  // Row-major index of the element at `k` along the axis for result register r.
  int64_t stride = 1;
  for (size_t d = axis + 1; d < shape.size(); ++d) stride *= shape[d];
  Regs baseIdx;
  for (auto &c : outCoords) {
    llvm::Value *idx = i32(0);
    for (size_t d = 0, j = 0; d < shape.size(); ++d)
      idx = b.CreateAdd(b.CreateMul(idx, i32(shape[d])), (int)d == axis ? i32(0) : c[j++]);
    baseIdx.push_back(idx);
  }
  auto element = [&](size_t r, llvm::Value *k) {
    llvm::Value *v = loadShared(b.CreateAdd(baseIdx[r], b.CreateMul(k, i32(stride))), ty, 0);
    if (ty != regTy) v = b.CreateTrunc(v, regTy);
    return cb.isArg() || cb.kind != "sum" ? v : toF32(v, s);
  };
  size_t per = cb.isArg() ? 2 : 1;
  Regs init;
  for (size_t r = 0; r < baseIdx.size(); ++r) {
    init.push_back(element(r, i32(0)));
    if (cb.isArg()) init.push_back(i32(0));
  }
  Regs fin = countedLoop(1, shape[axis], init, [&](llvm::Value *k, const Regs &cur) {
    Regs next;
    for (size_t r = 0; r < baseIdx.size(); ++r) {
      Regs acc(cur.begin() + r * per, cur.begin() + (r + 1) * per);
      Regs nx = cb.combine(acc, element(r, k), k, op.loc);
      next.insert(next.end(), nx.begin(), nx.end());
    }
    return next;
  });
  barrier();
  Regs out;
  for (size_t r = 0; r < baseIdx.size(); ++r) {
    llvm::Value *v = fin[r * per + (per - 1)];
    if (!cb.isArg() && cb.kind == "sum") v = fromF32(v, s);
    if (cb.isArg() && v->getType() != llvmType(res->type.elem)) v = b.CreateIntCast(v, llvmType(res->type.elem), true);
    out.push_back(v);
  }
  define(res, out);
}

} // namespace tile::backend
