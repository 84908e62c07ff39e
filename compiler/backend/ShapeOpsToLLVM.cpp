// ShapeOpsToLLVM.cpp - splat, broadcast, expand_dims (register remapping
// when the layouts line up, else shared memory), and convert_layout,
// reshape, permute (through shared memory: each thread writes its registers
// at the row-major index of their coordinates, then reads its own).
#include "backend/Emitter.h"

#include <numeric>

namespace tile::backend {

void Emitter::emitSplat(ir::Op &op) {
  ir::Value *r = op.result();
  define(r, Regs(dist(r->type).numRegs(), scalar(op.operands[0])));
}

/// Register remap from `src` (dims mapped by dimMap) into `to`, else a
/// shared-memory gather where each destination register reads the source
/// element at srcIndex(destination coordinates).
static Regs gather(Emitter &e, ir::Op &op, const Dist &to, const std::vector<int> &dimMap) {
  ir::Value *src = op.operands[0];
  Dist from = e.dist(src->type);
  if (auto r = e.remap(e.regs(src), from, to, dimMap)) return *r;
  std::vector<int> dims(dimMap.size());
  std::iota(dims.begin(), dims.end(), 0);
  if (std::is_permutation(dimMap.begin(), dimMap.end(), dims.begin()))   // a permute (no broadcast dim)
    if (auto r = e.throughLdmatrix(e.regs(src), from, to, dimMap, op.loc)) return *r;
  llvm::Type *ty = e.memType(src->type.elem);
  int64_t n = 1;
  for (int64_t s : from.shape) n *= s;
  e.needShared(n * (int64_t)e.mod.getDataLayout().getTypeAllocSize(ty), op.loc);
  e.beginSharedUse();
  e.storeShared(e.regs(src), from, ty, 0);
  e.barrier();
  Regs out;
  llvm::Type *regTy = e.llvmType(src->type.elem);
  for (auto &c : e.coords(to)) {
    llvm::Value *idx = e.i32(0);
    for (size_t i = 0; i < from.shape.size(); ++i) {
      auto it = std::find(dimMap.begin(), dimMap.end(), (int)i);
      llvm::Value *ci = it == dimMap.end() ? e.i32(0) : c[it - dimMap.begin()];
      if (from.shape[i] == 1) ci = e.i32(0);
      idx = e.b.CreateAdd(e.b.CreateMul(idx, e.i32(from.shape[i])), ci);
    }
    llvm::Value *v = e.loadShared(idx, ty, 0);
    out.push_back(regTy == ty ? v : e.b.CreateTrunc(v, regTy));
  }
  return out;
}

void Emitter::emitBroadcast(ir::Op &op) {
  ir::Value *r = op.result();
  if (!op.operands[0]->type.isTensor()) return emitSplat(op);
  std::vector<int> dimMap;
  for (int d = 0; d < r->type.rank(); ++d) dimMap.push_back(op.operands[0]->type.shape[d] == 1 ? -1 : d);
  define(r, gather(*this, op, dist(r->type), dimMap));
}

void Emitter::emitExpandDims(ir::Op &op) {
  ir::Value *r = op.result();
  int axis = static_cast<int>(op.intAttr("axis"));
  std::vector<int> dimMap;
  for (int d = 0; d < r->type.rank(); ++d) dimMap.push_back(d == axis ? -1 : d < axis ? d : d - 1);
  define(r, gather(*this, op, dist(r->type), dimMap));
}

bool Emitter::permutesInRegisters(const ir::Op &op) const {
  const auto &order = op.intsAttr("order");
  std::vector<int> dimMap(order.begin(), order.end());
  Dist from = dist(op.operands[0]->type);
  return remap(Regs(from.numRegs(), nullptr), from, dist(op.result()->type), dimMap).has_value();
}

void Emitter::emitViaShared(ir::Op &op) {
  ir::Value *src = op.operands[0], *r = op.result();
  Dist to = dist(r->type);
  if (op.kind == ir::OpKind::ConvertLayout) {
    if (asyncDepth.count(&op)) return emitRingRead(op);   // a register ring's tile, in shared memory
    define(r, regsAs(src, r->type));
    return;
  }
  if (op.kind == ir::OpKind::Permute) {
    if (aliasPermutes.count(&op)) return defineVirtual(r);   // a ring alias's B: its owner's tile in shared memory
    // Result dim i is input dim order[i].
    const auto &order = op.intsAttr("order");
    std::vector<int> dimMap(order.begin(), order.end());
    define(r, gather(*this, op, to, dimMap));
    return;
  }
  // reshape: same row-major element order.
  Dist from = dist(src->type);
  llvm::Type *ty = memType(src->type.elem);
  if (from.shape.size() == to.shape.size() && from == to) {
    define(r, regs(src));
    return;
  }
  define(r, throughShared(regs(src), from, to, ty, op.loc));
}

} // namespace tile::backend
