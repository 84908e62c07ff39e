// PermuteLoads.cpp - the "tile-permute-loads" pass (PermuteLoads.h).
#include "gpu/PermuteLoads.h"

#include "gpu/AxisInfo.h"
#include "gpu/LayoutAssignment.h"
#include "transforms/RewriteUtils.h"

#include <map>

namespace tile::gpu {

using namespace ir;

namespace {

struct Target {
  int numWarps, numStages;
  const std::string &arch;
};

std::map<const Value *, int> countUses(Function &fn) {
  std::map<const Value *, int> uses;
  walk(fn, [&](Op &op) {
    for (Value *v : op.operands) ++uses[v];
  });
  return uses;
}

/// Whether blk is a for loop's body.
bool inLoopBody(const Block &blk) {
  return blk.parent && blk.parent->parent && blk.parent->parent->kind == OpKind::For;
}

/// Whether v is a load of blk, or a permute of one.
bool loadedIn(const Value *v, const Block &blk) {
  if (v->def && v->def->kind == OpKind::Permute) v = v->def->operands[0];
  return v->def && v->def->kind == OpKind::Load && v->def->parent == &blk;
}

/// Whether dot, in a loop body, may take its operands by a cp.async ring
/// of its mma.sync staging (gpu::mmaRingDot; the pipeline pass's
/// mmaRingDistance, the back end's planRingOperands): more than two
/// stages, and both operands loads of the body (permuted or not). With an
/// operand from elsewhere (attention's q @ kᵀ, q loaded before the loop)
/// both stay in registers, where permuting the values is cheaper.
bool ringDotInLoop(const Op &dot, const Target &t) {
  return inLoopBody(*dot.parent) && t.numStages > 2 && mmaRingDot(dot, t.numWarps, t.arch) &&
         loadedIn(dot.operands[0], *dot.parent) && loadedIn(dot.operands[1], *dot.parent);
}

/// Whether v is an A or B operand of a dot in blk that runs as wgmma, or
/// (`ring`: v's load has no other use) of an mma.sync dot with a ring.
bool feedsStagedDot(const Value *v, const Block &blk, const Target &t, bool ring) {
  for (auto &o : blk.ops)
    if (o->kind == OpKind::Dot && (o->operands[0] == v || o->operands[1] == v) &&
        (dotRunsOnWgmma(*o, t.numWarps, t.arch) || (ring && ringDotInLoop(*o, t))))
      return true;
  return false;
}

int64_t tileBytes(const Value *v) { return v->type.numElements() * byteSize(v->type.elem.scalar); }

/// Whether the loop whose body holds `ld` keeps its wgmma operands in
/// shared memory with one more tile an iteration (the second load): its
/// loads that feed wgmma dots (directly or through a permute) in rings of
/// num_stages slots, the dots' A tiles defined before the loop in buffers
/// of their own, and kScratchReserve for the rest of the body. Where they would not
/// fit, the back end would give up the invariant buffers (restaged every
/// iteration) or the rings: the load then stays shared (the attention
/// backward's dkdv at HEAD_DIM 128 on 5 stages).
bool roomForSecondLoad(const Op &ld, const Target &t) {
  const Block &body = *ld.parent;
  const Op &loop = *body.parent->parent;
  int64_t stages = loop.hasAttr("num_stages") ? loop.intAttr("num_stages") : t.numStages;
  // (the permuted use of a shared load counts as the second load it gets)
  int64_t perStage = 0, invariant = 0;
  for (auto &o : body.ops) {
    if (o->kind != OpKind::Dot || !dotRunsOnWgmma(*o, t.numWarps, t.arch)) continue;
    for (size_t i = 0; i < 2; ++i) {
      const Value *v = o->operands[i];
      if (v->def && v->def->kind == OpKind::Permute) v = v->def->operands[0];
      bool outside = v->isBlockArg() ? v->owner != &body : v->def->parent != &body;
      if (i == 0 && outside) invariant += tileBytes(v);
      else if (!outside && v->def && v->def->kind == OpKind::Load) perStage += tileBytes(v);
    }
  }
  return invariant + stages * perStage + kScratchReserve <= sharedMemoryLimit(t.arch);
}

/// The load that `perm` permutes, when the rewrite applies to it; `shared`
/// tells whether the load has other uses too (then it stays, and the
/// permuted load is a second one).
Op *permutedLoad(Op &perm, const std::map<const Value *, int> &uses, const Target &t, const AxisInfo &axis,
                 bool &shared) {
  Op *ld = perm.operands[0]->def;
  if (!ld || ld->kind != OpKind::Load || ld->results.size() != 1 || ld->parent != perm.parent) return nullptr;
  auto lu = uses.find(ld->result()), pu = uses.find(perm.result());
  if (lu == uses.end() || pu == uses.end() || pu->second != 1) return nullptr;
  shared = lu->second != 1;
  if (shared && (!inLoopBody(*ld->parent) || sharesOperandRing(*ld, axis, t.numWarps, t.arch) ||
                 !roomForSecondLoad(*ld, t)))
    return nullptr;
  return feedsStagedDot(perm.result(), *perm.parent, t, !shared) ? ld : nullptr;
}

/// The load of the permuted operands, built before ld.
Value *loadPermuted(Rewriter &rw, Op &perm, Op &ld) {
  const std::vector<int64_t> &order = perm.intsAttr("order");
  Builder b = rw.builderBefore(ld);
  std::vector<Value *> operands;
  for (Value *v : ld.operands) {
    Value *x = rw.resolve(v);
    auto c = matchConstant(x);
    Type type = x->type;
    type.shape = perm.result()->type.shape;
    if (c && x->def && x->def->kind == OpKind::Constant)
      operands.push_back(c->isFloat ? b.constantFloat(c->f, type) : b.constantInt(c->i, type));
    else
      operands.push_back(b.permute(x, order));
  }
  return b.create(OpKind::Load, operands, {perm.result()->type}, ld.attrs)->result();
}

} // namespace

bool aliasRowsFit(int64_t rows) { return rows % 64 == 0; }

bool sharesOperandRing(const Op &ld, const AxisInfo &axis, int numWarps, const std::string &arch) {
  const Value *v = ld.result();
  const Type &type = v->type;
  if (ld.kind != OpKind::Load || type.rank() != 2 || byteSize(type.elem.scalar) != 2) return false;
  // the ops of ld's block (at any depth) that read x, once per use
  auto users = [&](const Value *x) {
    std::vector<const Op *> out;
    walk(*ld.parent, [&](const Op &o) {
      for (const Value *operand : o.operands)
        if (operand == x) out.push_back(&o);
    });
    return out;
  };
  auto wgmmaB = [&](const Op *o, const Value *x) {
    return o->kind == OpKind::Dot && o->parent == ld.parent && o->operands[1] == x && o->operands[0] != x &&
           dotRunsOnWgmma(*o, numWarps, arch);
  };
  std::vector<const Op *> u = users(v);
  if (u.size() != 2) return false;
  const Op *perm = u[0]->kind == OpKind::Permute ? u[0] : u[1], *dot = perm == u[0] ? u[1] : u[0];
  if (perm->kind != OpKind::Permute || perm->parent != ld.parent || perm->intsAttr("order") != std::vector<int64_t>{1, 0} ||
      !wgmmaB(dot, v))
    return false;
  std::vector<const Op *> pu = users(perm->result());
  if (pu.size() != 1 || !wgmmaB(pu[0], perm->result())) return false;
  // the direct reader first: it owns the ring, the transposed one reads its slot
  for (auto &o : ld.parent->ops) {
    if (o.get() == pu[0]) return false;
    if (o.get() == dot) break;
  }
  const Value *mask = ld.operands.size() > 1 ? ld.operands[1] : nullptr;
  for (int along = 0; along < 2; ++along)
    if (axis.vectorWidth(ld.operands[0], mask, along) >= 8)
      return aliasRowsFit(type.shape[size_t(along)]) && type.shape[size_t(1 - along)] % 8 == 0;
  return false;
}

bool permuteLoads(Function &fn, int numWarps, int numStages, const std::string &arch) {
  Target t{numWarps, numStages, arch};
  std::map<const Value *, int> uses = countUses(fn);
  // the axis analysis (for sharesOperandRing) only where a load is permuted
  bool permutedLoads = false;
  walk(fn, [&](Op &op) {
    permutedLoads |= op.kind == OpKind::Permute && op.operands[0]->def && op.operands[0]->def->kind == OpKind::Load;
  });
  if (!permutedLoads) return false;
  AxisInfo axis = analyzeAxisInfo(fn);
  Rewriter rw(fn);
  rw.walk([&](Op &op) {
    if (op.kind != OpKind::Permute) return;
    bool shared = false;
    Op *ld = permutedLoad(op, uses, t, axis, shared);
    if (!ld) return;
    rw.replaceOp(op, {loadPermuted(rw, op, *ld)});
    if (!shared) rw.erase(*ld);
    rw.changed = true;
  });
  return rw.changed;
}

transforms::Pass permuteLoadsPass(int numWarps, int numStages, const std::string &arch) {
  return {"tile-permute-loads",
          [numWarps, numStages, arch](Function &fn) { return permuteLoads(fn, numWarps, numStages, arch); }};
}

} // namespace tile::gpu
