// Pipeline.cpp - the "tile-pipeline" pass: per for loop, find the loads whose
// address slice can be evaluated one iteration ahead, then peel their first
// instance into a prologue and carry the next iteration's load through the
// loop. See Pipeline.h for the rules.
#include "gpu/Pipeline.h"

#include "gpu/AxisInfo.h"
#include "gpu/LayoutAssignment.h"
#include "gpu/PermuteLoads.h"

#include "transforms/DCE.h"
#include "transforms/RewriteUtils.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

namespace tile::gpu {

namespace {

using ir::Block;
using ir::Builder;
using ir::Op;
using ir::OpKind;
using ir::Type;
using ir::Value;

/// True when block b lies inside op's regions (at any depth).
bool isNestedIn(const Block *b, const Op *op) {
  while (b) {
    const ir::Region *r = b->parent;
    if (!r || !r->parent)
      return false;
    if (r->parent == op)
      return true;
    b = r->parent->parent;
  }
  return false;
}

bool mayStore(const Op &op) {
  if (op.kind == OpKind::Store || op.kind == OpKind::AtomicRMW || op.kind == OpKind::AtomicCas ||
      op.kind == OpKind::Barrier)
    return true;
  for (const auto &r : op.regions)
    for (const auto &inner : r->block->ops)
      if (mayStore(*inner))
        return true;
  return false;
}

/// Ops that may be evaluated one extra time, with other inputs, without
/// changing what the program does or reports (integer division only by a
/// constant that cannot trap).
bool isSliceOp(const Op &op) {
  if (!ir::isPureOp(op) || op.kind == OpKind::Load)
    return false;
  bool intDivision = (op.kind == OpKind::Div || op.kind == OpKind::Rem) && !op.result()->type.elem.isFloat();
  if (!intDivision) return true;
  // by a constant other than 0 and -1 (INT_MIN / -1 overflows): no new trap
  auto c = ir::matchConstant(op.operands[1]);
  return c && !c->isFloat && c->i != 0 && c->i != -1;
}

/// The body's carried arguments in argument order (so the clones made over
/// them, and the arguments added, come in one order from run to run).
struct ByIndex {
  bool operator()(const Value *x, const Value *y) const { return x->index < y->index; }
};
using ArgSet = std::set<Value *, ByIndex>;

/// One for loop: which values can be computed for another iteration, and
/// the rewrite.
class LoopPipeliner {
public:
  LoopPipeliner(Op &loop, const PipelineTarget &target, const AxisInfo &axis)
      : loop_(loop), body_(*loop.regions[0]->block), yield_(*body_.terminator()), iv_(body_.args[0].get()),
        target_(target), axis_(axis) {}

  /// Pipelines the eligible loads; false when there is none.
  bool run() {
    std::optional<int64_t> step = constantStep();
    if (!step)
      return false;
    findAddressArgs();
    std::vector<Op *> loads = eligibleLoads();
    if (loads.empty())
      return false;
    pred_ = *step > 0 ? "lt" : "gt";
    rewrite(loads);
    return true;
  }

private:
  Op &loop_;
  Block &body_;
  Op &yield_;
  Value *iv_;
  const PipelineTarget &target_;
  const AxisInfo &axis_;
  ArgSet addressArgs_;
  std::map<Value *, bool> memo_;
  std::string pred_;
  std::map<std::string, Value *> zeros_;   ///< by printed type

  Value *lb() const { return loop_.operands[0]; }
  Value *ub() const { return loop_.operands[1]; }
  Value *stepValue() const { return loop_.operands[2]; }
  /// Carried argument i >= 1 of the body: its init and its yielded value.
  Value *initOf(const Value *arg) const { return loop_.operands[2 + arg->index]; }
  Value *yieldedOf(const Value *arg) const { return yield_.operands[arg->index - 1]; }

  std::optional<int64_t> constantStep() const {
    auto c = ir::matchConstant(stepValue());
    if (!c || c->isFloat || c->i == 0)
      return std::nullopt;
    return c->i;
  }

  bool isInsideLoop(const Value *v) const {
    const Block *b = v->isBlockArg() ? v->owner : v->def->parent;
    return isNestedIn(b, &loop_);
  }

  /// v can be recomputed for another iteration from outside values, the iv
  /// and the address-like carried values.
  bool isSliceable(Value *v) {
    if (!isInsideLoop(v) || v == iv_)
      return true;
    if (v->isBlockArg())
      return v->owner == &body_ && addressArgs_.count(v);
    auto it = memo_.find(v);
    if (it != memo_.end())
      return it->second;
    Op &def = *v->def;
    bool ok = def.parent == &body_ && isSliceOp(def);
    for (Value *operand : def.operands)
      ok = ok && isSliceable(operand);
    memo_[v] = ok;
    return ok;
  }

  /// Fixpoint: start from every carried value, drop those whose next value
  /// is not sliceable (it depends on a load, a region op, ...).
  void findAddressArgs() {
    for (size_t i = 1; i < body_.args.size(); ++i)
      addressArgs_.insert(body_.args[i].get());
    for (bool changed = true; changed;) {
      changed = false;
      memo_.clear();
      std::vector<Value *> dropped;
      for (Value *arg : addressArgs_)
        if (!isSliceable(yieldedOf(arg)))
          dropped.push_back(arg);
      for (Value *arg : dropped)
        addressArgs_.erase(arg);
      changed = !dropped.empty();
    }
    memo_.clear();
  }

  std::vector<Op *> eligibleLoads() {
    std::vector<Op *> loads;
    for (auto &op : body_.ops) {
      if (mayStore(*op))
        break;   // later loads could read what it writes
      if (op->kind != OpKind::Load)
        continue;
      bool needsOther = op->operands.size() == 1;
      if (needsOther && op->result()->type.elem.isPtr)
        continue;
      if (!loop_.hasAttr("num_stages") && !feedsDot(op->result()))
        continue;   // Triton's rule: without tl.range(num_stages=), only a dot's operands
      if (std::all_of(op->operands.begin(), op->operands.end(), [&](Value *v) { return isSliceable(v); }))
        loads.push_back(op.get());
    }
    return loads;
  }

  /// v reaches an operand tile (a or b) of a dot in the body, through any
  /// ops (nested regions included: a region op whose body reads a reached
  /// value counts as reaching its results).
  bool feedsDot(Value *v) const {
    std::set<const Value *> reached{v};
    bool dot = false;
    std::function<bool(const Op &)> reads = [&](const Op &op) {
      bool any = false;
      for (const Value *o : op.operands) any = any || reached.count(o);
      for (auto &r : op.regions)
        for (auto &inner : r->block->ops) any = reads(*inner) || any;
      if (op.kind == OpKind::Dot && (reached.count(op.operands[0]) || reached.count(op.operands[1]))) dot = true;
      if (any)
        for (auto &res : op.results) reached.insert(res.get());
      return any;
    };
    for (auto &op : body_.ops) reads(*op);
    return dot;
  }

  /// Clones the slice of v after b's insertion point, with map giving the
  /// iv and the carried values.
  Value *cloneSlice(Value *v, std::map<Value *, Value *> &map, Builder &b) {
    auto it = map.find(v);
    if (it != map.end())
      return it->second;
    if (!isInsideLoop(v))
      return v;
    Op &def = *v->def;
    TILE_ASSERT(def.parent == &body_ && isSliceOp(def), "pipelining a value outside the load's slice");
    std::vector<Value *> operands;
    for (Value *operand : def.operands)
      operands.push_back(cloneSlice(operand, map, b));
    std::vector<Type> types;
    for (auto &r : def.results)
      types.push_back(r->type);
    b.loc = def.loc;
    Op *clone = b.create(def.kind, operands, types, def.attrs);
    for (size_t i = 0; i < def.results.size(); ++i)
      map[def.result(i)] = clone->result(i);
    return map.at(v);
  }

  /// `lb < ub` is a known constant true (the loop runs at least once).
  bool runsAtLeastOnce() const {
    auto l = ir::matchConstant(lb()), u = ir::matchConstant(ub());
    if (!l || !u || l->isFloat || u->isFloat)
      return false;
    return pred_ == "lt" ? l->i < u->i : l->i > u->i;
  }

  /// A clone of load (its slice mapped by map) whose mask also requires the
  /// scalar cond (none: the mask is unchanged).
  Value *cloneLoad(Op &load, std::map<Value *, Value *> &map, Value *cond, Builder &b) {
    std::vector<Value *> operands;
    for (Value *v : load.operands)
      operands.push_back(cloneSlice(v, map, b));
    b.loc = load.loc;
    if (cond)
      guard(load, operands, cond, b);
    return b.create(OpKind::Load, operands, {load.result()->type}, load.attrs)->result();
  }

  /// A zero of type t defined before the loop (shared by prologue and body).
  Value *zeroOf(const Type &t) {
    auto it = zeros_.find(t.str());
    if (it != zeros_.end())
      return it->second;
    Builder pre(loop_.parent);
    pre.setInsertionPoint(&loop_);
    pre.loc = loop_.loc;
    Value *zero = t.elem.isFloat() ? pre.constantFloat(0.0, t) : pre.constantInt(0, t);
    return zeros_[t.str()] = zero;
  }

  /// Adds cond to the load's mask (operands: ptr [, mask [, other]]).
  void guard(Op &load, std::vector<Value *> &operands, Value *cond, Builder &b) {
    Value *ptr = operands[0];
    Value *lanes = cond;
    if (ptr->type.isTensor()) {
      Type maskType = operands.size() > 1 ? operands[1]->type : ptr->type.withElem(ElemType::of(Scalar::I1));
      lanes = b.create(OpKind::Splat, {cond}, {maskType})->result();
    }
    if (operands.size() > 1) {
      int along = ptr->type.isTensor() ? int(axis_.accessOrder(load.operands[0])[0]) : -1;
      Value *folded = along >= 0 ? andIntoSlice(operands[1], cond, along, b, 2) : nullptr;
      operands[1] = folded ? folded : b.create(OpKind::And, {operands[1], lanes}, {operands[1]->type})->result();
      return;
    }
    operands = {ptr, lanes, zeroOf(load.result()->type)};
  }

  /// mask & cond (a scalar) with cond joined into a broadcast slice of the
  /// mask that is 1 on every dim but `along` (the load's contiguous dim):
  /// `broadcast(cols) & rows` becomes `broadcast(cols & cond) & rows`, so a
  /// thread's 16-byte chunks (one value of the slice) cost one `and` each,
  /// not two. Null when the mask has no such slice within `depth` ands.
  Value *andIntoSlice(Value *mask, Value *cond, int along, Builder &b, int depth) {
    Op *d = mask->isBlockArg() ? nullptr : mask->def;
    if (!d) return nullptr;
    if (d->kind == OpKind::Broadcast) {
      Value *src = d->operands[0];
      const Type &st = src->type;
      if (!st.isTensor() || st.rank() != mask->type.rank()) return nullptr;
      for (size_t i = 0; i < st.shape.size(); ++i)
        if (int(i) != along && st.shape[i] != 1) return nullptr;
      Value *lanes = b.create(OpKind::Splat, {cond}, {st})->result();
      Value *joined = b.create(OpKind::And, {src, lanes}, {st})->result();
      return b.create(OpKind::Broadcast, {joined}, {mask->type}, d->attrs)->result();
    }
    if (d->kind != OpKind::And || depth == 0) return nullptr;
    for (size_t i = 0; i < 2; ++i)
      if (Value *inner = andIntoSlice(d->operands[i], cond, along, b, depth - 1))
        return b.create(OpKind::And, {inner, d->operands[1 - i]}, {mask->type})->result();
    return nullptr;
  }

  /// The one op of the body that uses v, or null (none, or several).
  const Op *onlyUser(const Value *v) const {
    const Op *user = nullptr;
    for (auto &op : body_.ops)
      for (const Value *o : op->operands)
        if (o == v) {
          if (user) return nullptr;
          user = op.get();
        }
    return user;
  }

  /// Whether load moves 16-byte runs along dim `along` (-1: its fastest)
  /// with `other` zero: what cp.async needs.
  bool copiesBy16Bytes(const Op &load, int along) const {
    if (load.operands.size() > 2) {
      auto c = ir::matchConstant(load.operands[2]);
      if (!c || (c->isFloat ? c->f != 0.0 : c->i != 0)) return false;
    }
    if (along < 0) along = int(axis_.accessOrder(load.operands[0])[0]);
    int chunk = int(16 / byteSize(load.result()->type.elem.scalar));   // 16-byte cp.async chunks
    return axis_.vectorWidth(load.operands[0], load.operands.size() > 1 ? load.operands[1] : nullptr, along) >= chunk;
  }

  /// How many iterations ahead load is issued: numStages - 1 for an
  /// operand tile of a dot that runs as wgmma when the load can go by
  /// cp.async (16-byte runs proven, `other` zero), so the tiles wait in
  /// shared memory, not registers; the same for a tile that reaches a
  /// wgmma dot's A through elementwise ops (`a.to(tl.float16)`), whose B
  /// goes so: it waits in a ring of shared memory and is read into the
  /// dot's register fragments (LayoutAssignment's computedWgmmaA,
  /// WgmmaToLLVM's planRingOperands); 1 for everything else.
  int distanceOf(const Op &load) const {
    if (target_.numStages <= 2) return 1;
    if (sharesOperandRing(load, axis_, target_.numWarps, target_.arch))   // two dots' B, one ring
      return copiesBy16Bytes(load, -1) ? target_.numStages - 1 : 1;
    const Value *v = load.result();
    const Op *user = onlyUser(v);
    // up a chain of single-use elementwise ops of the same shape to a dot's A
    for (int n = 0; n < 8 && user && isElementwise(user->kind) && user->result() &&
                    user->result()->type.shape == v->type.shape;
         ++n) {
      const Value *next = user->result();
      const Op *up = onlyUser(next);
      if (up && up->kind == OpKind::Dot && up->operands[0] == next && next->type.elem.scalar != Scalar::F32 &&
          !isByteDot(*up) &&
          dotRunsOnWgmma(*up, target_.numWarps, target_.arch) && copiesBy16Bytes(load, -1)) {
        // both rings (num_stages slots each) must fit
        const Value *bv = up->operands[1];
        bool bAhead = !bv->isBlockArg() && bv->def && bv->def->kind == OpKind::Load && bv->def->parent == &body_ &&
                      distanceOf(*bv->def) > 1;
        int64_t tiles = v->type.numElements() * byteSize(v->type.elem.scalar) +
                        bv->type.numElements() * byteSize(bv->type.elem.scalar);
        return bAhead && target_.numStages * tiles <= sharedMemoryLimit(target_.arch) ? target_.numStages - 1 : 1;
      }
      user = up;
    }
    if (!user || user->kind != OpKind::Dot || user->operands[2] == v) return 1;
    if (!dotRunsOnWgmma(*user, target_.numWarps, target_.arch)) return mmaRingDistance(*user);
    // along k or n for B (staged K-major or N-major), along k or m for A
    // (staged K-major or M-major): the pointers' most contiguous dim; 8-bit
    // operands (fp8, i8) are staged K-major only, so only a run along k copies
    int along = -1;
    if (isByteDot(*user)) along = user->operands[1] == v ? 0 : 1;
    return copiesBy16Bytes(load, along) ? wgmmaRingDistance(*user) : 1;
  }

  /// num_stages - 1, but where two programs of this dot fit an SM by
  /// registers (the accumulator and about 40 more a thread), no deeper than
  /// lets the ring (distance + 1 slots of both tiles) fit in half an SM's
  /// shared memory, and never below 2: Triton's num_stages buffers hold
  /// num_stages - 1 tiles, and a second program an SM overlaps one's
  /// prologue and epilogue with the other's loop (H100, 4096^3 f16,
  /// 128x128x64 on 4 warps: distance 3 in 5 slots, one program, 600
  /// TFLOP/s; distance 2 in 3 slots, two programs, 652; Triton 608 at
  /// num_stages=4).
  int wgmmaRingDistance(const Op &dot) const {
    int d = target_.numStages - 1;
    const Type &acc = dot.result()->type;
    const Value *a = dot.operands[0], *bv = dot.operands[1];
    int64_t threads = 32 * int64_t(target_.numWarps);
    // (a body with other dots, attention's, holds more than this one's
    // accumulator: left alone)
    bool onlyDot = std::count_if(body_.ops.begin(), body_.ops.end(),
                                 [](const auto &op) { return op->kind == OpKind::Dot; }) == 1;
    bool twoByRegisters = onlyDot && 2 * threads * (acc.numElements() / threads + 40) <= 65536;
    int64_t tiles = a->type.numElements() * byteSize(a->type.elem.scalar) +
                    bv->type.numElements() * byteSize(bv->type.elem.scalar);
    // (a ring that cannot fit at all stays: the back end reports it, as
    // Triton's OutOfResources)
    bool fits = (d + 1) * tiles <= sharedMemoryLimit(target_.arch);
    int64_t half = sharedMemoryPerSM(target_.arch) / 2 - 2048;
    while (twoByRegisters && fits && d > 2 && (d + 1) * tiles > half) --d;
    return d;
  }

  /// With mmaRingsEnabled, an f16/bf16 dot on mma.sync (a target with cp.async) whose A and B are both
  /// loads of the body, each its one use, running by 16-byte chunks along
  /// their most contiguous dim (k or m for A, n or k for B): num_stages - 1,
  /// as Triton's pipeliner does for mma v2 (the back end's
  /// planRingOperands copies both into a ring of its staging, rows along
  /// that dim); 1 otherwise.
  int mmaRingDistance(const Op &dot) const {
    if (!mmaRingDot(dot, target_.numWarps, target_.arch)) return 1;
    for (int k = 0; k < 2; ++k) {
      const Value *v = dot.operands[size_t(k)];
      const Op *ld = v->isBlockArg() ? nullptr : v->def;
      // (and a tile of at least a 16-byte chunk a thread, which the layout then gives each)
      if (!ld || ld->kind != OpKind::Load || ld->parent != &body_ || onlyUser(v) != &dot || !copiesBy16Bytes(*ld, -1) ||
          v->type.numElements() < 8 * 32 * target_.numWarps)
        return 1;
    }
    return target_.numStages - 1;
  }

  /// The map for iteration `k` steps after `from`'s: iv advanced, carried
  /// address values advanced through their yield slices (cloned at b).
  std::map<Value *, Value *> advance(std::map<Value *, Value *> &from, Builder &b) {
    return advance(from, b, addressArgs_);
  }
  std::map<Value *, Value *> advance(std::map<Value *, Value *> &from, Builder &b, const ArgSet &args) {
    std::map<Value *, Value *> to{{iv_, b.binary(OpKind::Add, from.at(iv_), stepValue())}};
    for (Value *arg : args)
      to[arg] = cloneSlice(yieldedOf(arg), from, b);
    return to;
  }

  /// The carried address values v's slice reads (in the body), into `out`.
  void argsOfSlice(Value *v, ArgSet &out, std::set<Value *> &seen) {
    if (!isInsideLoop(v) || v == iv_ || !seen.insert(v).second) return;
    if (v->isBlockArg()) {
      if (out.insert(v).second) argsOfSlice(yieldedOf(v), out, seen);
      return;
    }
    for (Value *operand : v->def->operands) argsOfSlice(operand, out, seen);
  }

  /// The map of iteration iv + distance * step for the farthest loads, from
  /// carried values: the address values of iteration iv + (distance - 1) *
  /// step ride along the loop (initialised from the prologue's `last` map)
  /// and advance once per iteration. Recomputing them from this
  /// iteration's values instead (distance - 1 chained slices) leaves LLVM a
  /// per-element 64-bit add for every look-ahead step and every pointer.
  std::map<Value *, Value *> carryFarthest(const std::map<Value *, Value *> &last, int distance,
                                           const std::vector<Op *> &loads, Builder &b) {
    ArgSet used;   // what the loads' addresses and masks read, through the yields
    std::set<Value *> seen;
    for (Op *load : loads)
      for (Value *v : load->operands) argsOfSlice(v, used, seen);
    std::map<Value *, Value *> farthest;
    Value *lead = b.constantInt(int64_t(distance - 1), iv_->type);
    farthest[iv_] = b.binary(OpKind::Add, iv_, b.binary(OpKind::Mul, lead, stepValue()));
    for (Value *arg : used) {
      loop_.operands.push_back(last.at(arg));
      loop_.addResult(arg->type);
      farthest[arg] = body_.addArg(arg->type);
    }
    std::map<Value *, Value *> to = advance(farthest, b, used);
    for (Value *arg : used) yield_.operands.push_back(to.at(arg));
    return to;
  }

  void rewrite(const std::vector<Op *> &loads) {
    std::vector<int> distance;
    int maxDistance = 1;
    for (Op *load : loads) {
      distance.push_back(distanceOf(*load));
      maxDistance = std::max(maxDistance, distance.back());
    }
    // prologue: the loads of iterations lb, lb + step, ... (as deep as each
    // load's distance), each guarded by its iteration being in range
    Builder pre(loop_.parent);
    pre.setInsertionPoint(&loop_);
    pre.loc = loop_.loc;
    std::vector<std::map<Value *, Value *>> iters(1, {{iv_, lb()}});
    for (Value *arg : addressArgs_)
      iters[0][arg] = initOf(arg);
    std::vector<std::vector<Value *>> prologue(loads.size());
    for (int k = 0; k < maxDistance; ++k) {
      if (k > 0) iters.push_back(advance(iters[size_t(k - 1)], pre));
      Value *iv = iters[size_t(k)].at(iv_);
      Value *enter = k == 0 && runsAtLeastOnce() ? nullptr : pre.cmp(pred_, iv, ub());
      for (size_t i = 0; i < loads.size(); ++i)
        if (k < distance[i]) prologue[i].push_back(cloneLoad(*loads[i], iters[size_t(k)], enter, pre));
    }

    // In the body: iteration iv + distance * step's loads, just before the
    // yield. (Issuing them first in the body was measured on the H200: no
    // gain for the seed matmul at 16x16x16 and 25% slower at 64x64x32, from
    // the registers the in-flight tiles hold across the whole iteration.)
    Builder next(&body_);
    next.setInsertionPoint(&yield_);
    next.loc = loop_.loc;
    std::vector<std::map<Value *, Value *>> ahead;
    std::map<Value *, Value *> after{{iv_, next.binary(OpKind::Add, iv_, stepValue())}};
    for (Value *arg : addressArgs_)
      after[arg] = yieldedOf(arg);
    ahead.push_back(after);
    for (int k = 1; k + 1 < maxDistance; ++k) ahead.push_back(advance(ahead.back(), next));
    if (maxDistance > 1) {
      std::vector<Op *> farthest;
      for (size_t i = 0; i < loads.size(); ++i)
        if (distance[i] == maxDistance) farthest.push_back(loads[i]);
      ahead.push_back(carryFarthest(iters.back(), maxDistance, farthest, next));
    }
    std::map<Value *, Value *> replaced;
    for (size_t i = 0; i < loads.size(); ++i) {
      Op &load = *loads[i];
      std::map<Value *, Value *> &at = ahead[size_t(distance[i] - 1)];
      Value *more = next.cmp(pred_, at.at(iv_), ub());
      Value *nextLoad = cloneLoad(load, at, more, next);
      // carried: the tiles of iterations iv, iv + step, ..., the newest last
      std::vector<Value *> args;
      for (int k = 0; k < distance[i]; ++k) {
        loop_.operands.push_back(prologue[i][size_t(k)]);
        loop_.addResult(load.result()->type);
        args.push_back(body_.addArg(load.result()->type));
      }
      for (int k = 1; k < distance[i]; ++k) yield_.operands.push_back(args[size_t(k)]);
      yield_.operands.push_back(nextLoad);
      replaced[load.result()] = args[0];
    }
    replaceLoads(replaced);
  }

  /// Uses of the old loads become the carried values; the loads go.
  void replaceLoads(const std::map<Value *, Value *> &replaced) {
    for (auto &op : body_.ops)
      replaceIn(*op, replaced);
    body_.ops.remove_if([&](const std::unique_ptr<Op> &op) {
      return op->kind == OpKind::Load && replaced.count(op->result());
    });
  }

  static void replaceIn(Op &op, const std::map<Value *, Value *> &replaced) {
    for (Value *&v : op.operands) {
      auto it = replaced.find(v);
      if (it != replaced.end())
        v = it->second;
    }
    for (auto &r : op.regions)
      for (auto &inner : r->block->ops)
        replaceIn(*inner, replaced);
  }
};

} // namespace

bool pipelineLoops(ir::Function &fn, int numStages) {
  PipelineTarget t;
  t.numStages = numStages;
  return pipelineLoops(fn, t);
}

bool pipelineLoops(ir::Function &fn, const PipelineTarget &target) {
  // a loop's own num_stages (tl.range(..., num_stages=n)) overrides the launch's
  auto stagesOf = [&](const Op &loop) {
    return loop.hasAttr("num_stages") ? int(loop.intAttr("num_stages")) : target.numStages;
  };
  std::vector<Op *> loops;
  ir::walk(fn, [&](Op &op) {
    if (op.kind == OpKind::For && stagesOf(op) > 1)
      loops.push_back(&op);
  });
  if (loops.empty())
    return false;
  bool changed = false;
  AxisInfo axis = analyzeAxisInfo(fn);
  for (Op *loop : loops) {
    PipelineTarget t = target;
    t.numStages = stagesOf(*loop);
    changed |= LoopPipeliner(*loop, t, axis).run();
  }
  if (changed)
    ir::dce(fn);
  return changed;
}

transforms::Pass pipelinePass(int numStages) {
  return {"tile-pipeline", [numStages](ir::Function &fn) { return pipelineLoops(fn, numStages); }};
}

} // namespace tile::gpu
