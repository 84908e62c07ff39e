// ReduceToLLVM.cpp - reductions along one axis. The fast path (the operand
// has a blocked layout that holds every element along the axis exactly
// once): each thread folds its own registers in ascending index order, then
// shfl.sync.bfly exchanges partials across the lanes that differ along the
// axis, then (only when several warps lie along the axis) shared memory
// combines the per-warp partials in warp order. The fallback writes the
// operand to shared memory and every thread folds its result registers
// sequentially. max/min ignore NaN (fmax/fmin); argmax/argmin keep the
// lowest index among equal values (and index 0 when all are NaN), so
// integer, max/min and arg results equal the interpreter's whatever the
// combination order. Float sums on the fast path are a tree (per-thread,
// then butterfly, then warps), not the interpreter's sequential order, so
// they may differ from it in rounding only (accepted, as in Triton); narrow
// floats accumulate in f32.
#include "backend/Emitter.h"

#include <llvm/IR/IntrinsicsNVPTX.h>

#include <fmt/format.h>

#include <map>

namespace tile::backend {

namespace {

struct Combiner {
  Emitter &e;
  std::string kind;
  ElemType elem;

  bool isArg() const { return kind == "argmax" || kind == "argmin"; }

  /// Is x strictly better than best (NaN never better; anything beats NaN)?
  llvm::Value *better(llvm::Value *x, llvm::Value *best) {
    Builder &b = e.b;
    bool max = kind == "argmax";
    if (elem.isFloat()) {
      llvm::Value *cmp = max ? b.CreateFCmpOGT(x, best) : b.CreateFCmpOLT(x, best);
      return b.CreateOr(cmp, b.CreateAnd(b.CreateFCmpUNO(best, best), b.CreateFCmpORD(x, x)));
    }
    bool sgn = isSigned(elem.scalar);
    return max ? (sgn ? b.CreateICmpSGT(x, best) : b.CreateICmpUGT(x, best))
               : (sgn ? b.CreateICmpSLT(x, best) : b.CreateICmpULT(x, best));
  }

  /// Combines two partials (each {value} or {value, index}); symmetric, so
  /// both lanes of a butterfly get the same result.
  Regs merge(const Regs &p, const Regs &q, Location loc) {
    if (!isArg()) return combine(p, q[0], nullptr, loc);
    Builder &b = e.b;
    llvm::Value *takeQ = b.CreateOr(better(q[0], p[0]),
                                    b.CreateAnd(b.CreateNot(better(p[0], q[0])), b.CreateICmpSLT(q[1], p[1])));
    return {b.CreateSelect(takeQ, q[0], p[0]), b.CreateSelect(takeQ, q[1], p[1])};
  }

  /// acc = {value} or {value, index}; x is the element at index k.
  Regs combine(const Regs &acc, llvm::Value *x, llvm::Value *k, Location loc) {
    Builder &b = e.b;
    if (isArg()) {
      llvm::Value *bt = better(x, acc[0]);
      return {b.CreateSelect(bt, x, acc[0]), b.CreateSelect(bt, k, acc[1])};
    }
    bool flt = elem.isFloat(), sgn = !flt && isSigned(elem.scalar);
    if (kind == "sum") return {flt ? b.CreateFAdd(acc[0], x) : b.CreateAdd(acc[0], x)};
    if (kind == "xor") return {b.CreateXor(acc[0], x)};
    using namespace llvm::Intrinsic;
    if (kind == "max") return {b.CreateBinaryIntrinsic(flt ? maxnum : sgn ? smax : umax, acc[0], x)};
    if (kind == "min") return {b.CreateBinaryIntrinsic(flt ? minnum : sgn ? smin : umin, acc[0], x)};
    fail(loc, fmt::format("unknown reduction '{}'", kind));
  }
};

bool isPow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

} // namespace

/// One shfl.sync.bfly of any value of at most 64 bits (as one or two i32).
llvm::Value *Emitter::shuffleXor(llvm::Value *v, int laneMask) {
  llvm::Type *ty = v->getType();
  unsigned bits = ty->getPrimitiveSizeInBits();
  TILE_ASSERT(bits > 0 && bits <= 64, "shuffle of an unsupported type");
  auto shfl32 = [&](llvm::Value *w) {
    return b.CreateIntrinsic(llvm::Intrinsic::nvvm_shfl_sync_bfly_i32, {},
                             {b.getInt32(0xffffffffu), w, i32(laneMask), i32(0x1f)});
  };
  if (ty->isFloatTy())
    return b.CreateIntrinsic(llvm::Intrinsic::nvvm_shfl_sync_bfly_f32, {},
                             {b.getInt32(0xffffffffu), v, i32(laneMask), i32(0x1f)});
  llvm::Type *intTy = b.getIntNTy(bits);
  llvm::Value *asInt = ty->isIntegerTy() ? v : b.CreateBitCast(v, intTy);
  llvm::Value *out;
  if (bits <= 32) {
    out = b.CreateTrunc(shfl32(b.CreateZExt(asInt, b.getInt32Ty())), intTy);
  } else {
    llvm::Value *lo = shfl32(b.CreateTrunc(asInt, b.getInt32Ty()));
    llvm::Value *hi = shfl32(b.CreateTrunc(b.CreateLShr(asInt, 32), b.getInt32Ty()));
    out = b.CreateOr(b.CreateZExt(lo, intTy), b.CreateShl(b.CreateZExt(hi, intTy), 32));
  }
  return ty->isIntegerTy() ? out : b.CreateBitCast(out, ty);
}

/// Per group of a shuffle reduction's registers, the owner of its per-warp
/// partial slot (null: every holder is the owner): the result's slice
/// layout with one more dim, the warp index along the axis (each warp has
/// a slot of its own), so lanes along the axis and free lanes and warps
/// store once.
std::map<const std::vector<size_t> *, llvm::Value *>
Emitter::partialOwners(const ir::Type &sliceType, const std::vector<const std::vector<size_t> *> &order,
                       const gpu::DimBase &axisBase) {
  Dist od;
  if (sliceType.isTensor()) od = dist(sliceType);
  else od.offsets.assign(1, {});
  od.shape.push_back(axisBase.warpMod);
  od.bases.push_back({1, 1, 0, axisBase.warpDiv, axisBase.warpMod, 1});
  for (auto &o : od.offsets) o.push_back(0);
  Regs own = owners(od);
  std::map<const std::vector<size_t> *, llvm::Value *> out;
  if (own.empty()) return out;
  for (size_t r = 0; r < order.size(); ++r) {   // a group met twice: owned through either register
    auto [it, fresh] = out.emplace(order[r], own[r]);
    if (!fresh) it->second = b.CreateOr(it->second, own[r]);
  }
  return out;
}

bool Emitter::reduceWithShuffles(ir::Op &op) {
  ir::Value *x = op.operands[0], *res = op.result();
  int axis = static_cast<int>(op.intAttr("axis"));
  auto parent = std::dynamic_pointer_cast<const gpu::BlockedLayout>(x->type.layout);
  if (!parent || x->type.elem.isPtr) return false;
  Combiner cb{*this, op.strAttr("kind"), x->type.elem};
  const std::vector<int64_t> &shape = x->type.shape;
  Dist dx = dist(x->type);
  const gpu::DimBase &ab = dx.bases[axis];
  // Every element along the axis must be held exactly once (no wrap) by
  // (lane bits, warp bits, registers) along the axis.
  bool lanes = ab.laneMod > 1, warps = ab.warpMod > 1;
  if ((lanes && (ab.laneMul <= 0 || !isPow2(ab.laneDiv) || !isPow2(ab.laneMod))) || (warps && ab.warpMul <= 0))
    return false;
  int64_t maxOff = 0;
  for (const auto &o : dx.offsets) maxOff = std::max(maxOff, o[axis]);
  if ((ab.laneMod - 1) * ab.laneMul + (ab.warpMod - 1) * ab.warpMul + maxOff >= shape[axis]) return false;

  // Group the registers by their coordinates off the axis, ascending along it.
  auto keyOf = [&](const std::vector<int64_t> &off) {
    std::vector<int64_t> k;
    for (size_t d = 0; d < shape.size(); ++d)
      if ((int)d != axis) k.push_back(off[d] % shape[d]);
    return k;
  };
  std::map<std::vector<int64_t>, std::vector<size_t>> groups;
  for (size_t r = 0; r < dx.numRegs(); ++r) groups[keyOf(dx.offsets[r])].push_back(r);
  // The result as the slice of x's layout: its registers, by group.
  ir::Type sliceType = res->type;
  std::vector<const std::vector<size_t> *> order;
  if (res->type.isTensor()) {
    auto sl = std::make_shared<gpu::SliceLayout>();
    sl->dim = axis;
    sl->parent = parent;
    sliceType.layout = sl;
    for (const auto &o : gpu::regOffsets(*sl, res->type.shape)) {
      std::vector<int64_t> k;
      for (size_t j = 0; j < o.size(); ++j) k.push_back(o[j] % res->type.shape[j]);
      auto it = groups.find(k);
      if (it == groups.end()) return false;
      order.push_back(&it->second);
    }
  } else {
    if (groups.size() != 1) return false;
    order.push_back(&groups.begin()->second);
  }

  Scalar s = x->type.elem.scalar;
  bool sum = !cb.isArg() && cb.kind == "sum";
  const Regs &xr = regs(x);
  auto crd = coords(dx);
  // 1. In-thread, ascending along the axis (offsets grow with the index).
  // Keyed by group, ordered by each group's first register (not by the
  // groups' addresses, which made the emitted order depend on the heap).
  auto byFirstReg = [](const std::vector<size_t> *a, const std::vector<size_t> *b) { return (*a)[0] < (*b)[0]; };
  std::map<const std::vector<size_t> *, Regs, decltype(byFirstReg)> part(byFirstReg);
  for (const auto *g : order) {
    if (part.count(g)) continue;
    std::vector<size_t> rs = *g;
    std::sort(rs.begin(), rs.end(), [&](size_t p, size_t q) { return dx.offsets[p][axis] < dx.offsets[q][axis]; });
    auto elem = [&](size_t r) { return sum ? toF32(xr[r], s) : xr[r]; };
    Regs acc = {elem(rs[0])};
    if (cb.isArg()) acc.push_back(crd[rs[0]][axis]);
    for (size_t i = 1; i < rs.size(); ++i) acc = cb.combine(acc, elem(rs[i]), crd[rs[i]][axis], op.loc);
    part[g] = acc;
  }
  // 2. Butterfly across the lanes along the axis (lane bits laneDiv * 2^j).
  for (int64_t bit = 1; bit < ab.laneMod; bit <<= 1)
    for (auto &[g, acc] : part) {
      Regs other;
      for (llvm::Value *v : acc) other.push_back(shuffleXor(v, static_cast<int>(ab.laneDiv * bit)));
      acc = cb.merge(acc, other, op.loc);
    }
  // 3. Across the warps along the axis: per-warp partials in shared memory
  //    at [warp along axis][result element], combined in warp order. Lanes
  //    holding the same slot hold the same value.
  if (warps) {
    int64_t nOut = 1;
    for (size_t d = 0; d < shape.size(); ++d)
      if ((int)d != axis) nOut *= shape[d];
    llvm::Type *vty = part.begin()->second[0]->getType();
    llvm::Type *mty = vty->isIntegerTy(1) ? b.getInt8Ty() : vty;
    int64_t vbytes = (int64_t)mod.getDataLayout().getTypeAllocSize(mty);
    int64_t offIdx = (ab.warpMod * nOut * vbytes + 15) / 16 * 16;
    needShared(offIdx + (cb.isArg() ? ab.warpMod * nOut * 4 : 0), op.loc);
    llvm::Value *wIdx = b.CreateURem(b.CreateUDiv(warp, i32(ab.warpDiv)), i32(ab.warpMod));
    std::map<const std::vector<size_t> *, llvm::Value *> outIdx;
    for (auto &[g, acc] : part) {
      llvm::Value *idx = i32(0);
      for (size_t d = 0; d < shape.size(); ++d)
        if ((int)d != axis) idx = b.CreateAdd(b.CreateMul(idx, i32(shape[d])), crd[(*g)[0]][d]);
      outIdx[g] = idx;
    }
    beginSharedUse();
    smemClean = false;
    auto slot = [&](llvm::Value *w, llvm::Value *idx, llvm::Type *t, int64_t base) {
      return b.CreateGEP(t, b.CreateGEP(b.getInt8Ty(), smemBase(), i32(base)),
                         b.CreateAdd(b.CreateMul(w, i32(nOut)), idx));
    };
    std::map<const std::vector<size_t> *, llvm::Value *> owner = partialOwners(sliceType, order, ab);
    for (auto &[g, acc] : part) {
      storeIf(owner[g], mty == vty ? acc[0] : b.CreateZExt(acc[0], mty), slot(wIdx, outIdx[g], mty, 0));
      if (cb.isArg()) storeIf(owner[g], acc[1], slot(wIdx, outIdx[g], b.getInt32Ty(), offIdx));
    }
    barrier();
    smemClean = false;
    for (auto &[g, acc] : part) {
      llvm::Value *at = outIdx[g];   // a plain variable: clang before 16 cannot capture a structured binding in a lambda
      auto load = [&](int64_t w) {
        llvm::Value *v = b.CreateLoad(mty, slot(i32(w), at, mty, 0));
        Regs p = {mty == vty ? v : b.CreateTrunc(v, vty)};
        if (cb.isArg()) p.push_back(b.CreateLoad(b.getInt32Ty(), slot(i32(w), at, b.getInt32Ty(), offIdx)));
        return p;
      };
      Regs a = load(0);
      for (int64_t w = 1; w < ab.warpMod; ++w) a = cb.merge(a, load(w), op.loc);
      acc = a;
    }
  }
  Regs out;
  llvm::Type *resTy = llvmType(res->type.elem);
  for (const auto *g : order) {
    const Regs &acc = part[g];
    llvm::Value *v = acc.back();
    if (sum) v = fromF32(v, s);
    if (cb.isArg() && v->getType() != resTy) v = b.CreateIntCast(v, resTy, true);
    out.push_back(v);
  }
  define(res, res->type.isTensor() ? convertRegs(out, sliceType, res->type, op.loc) : out);
  return true;
}

void Emitter::emitReduce(ir::Op &op) {
  ir::Value *x = op.operands[0];
  if (!x->type.isTensor()) fail(op.loc, "reduce needs a tensor operand");
  if (!reduceWithShuffles(op)) reduceThroughShared(op);
}

void Emitter::reduceThroughShared(ir::Op &op) {
  ir::Value *x = op.operands[0], *res = op.result();
  int axis = static_cast<int>(op.intAttr("axis"));
  Combiner cb{*this, op.strAttr("kind"), x->type.elem};
  const std::vector<int64_t> &shape = x->type.shape;
  llvm::Type *ty = memType(x->type.elem);
  llvm::Type *regTy = llvmType(x->type.elem);
  Scalar s = x->type.elem.scalar;
  int64_t n = x->type.numElements();
  needShared(n * (int64_t)mod.getDataLayout().getTypeAllocSize(ty), op.loc);
  beginSharedUse();
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
  Regs out;   // no trailing barrier: see beginSharedUse
  for (size_t r = 0; r < baseIdx.size(); ++r) {
    llvm::Value *v = fin[r * per + (per - 1)];
    if (!cb.isArg() && cb.kind == "sum") v = fromF32(v, s);
    if (cb.isArg() && v->getType() != llvmType(res->type.elem)) v = b.CreateIntCast(v, llvmType(res->type.elem), true);
    out.push_back(v);
  }
  define(res, out);
}

} // namespace tile::backend
