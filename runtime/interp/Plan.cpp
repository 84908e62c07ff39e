// Plan.cpp - turns an ir::Function into the interpreter's execution plan:
// dense slot numbers for every value (computed once per run), evaluator
// pointers taken from the Ops.def table, precomputed gathers for broadcast
// and permute, and the set of i32 ops checked for offset overflow.
#include "interp/Machine.h"

#include <fmt/format.h>

#include <unordered_map>
#include <unordered_set>

namespace tile::interp::detail {

namespace {

constexpr EvalFn kEval[] = {
#define TILE_OP(Kind, ...) &eval##Kind,
#include "ir/Ops.def"
};

class PlanBuilder {
public:
  explicit PlanBuilder(Machine &m) : m_(m) {}

  void build() {
    collectOffsetArithmetic();
    m_.entry = block(m_.fn.entry());
  }

private:
  Machine &m_;
  std::unordered_map<const ir::Value *, int> slotOf_;
  std::unordered_set<const ir::Op *> offsetOps_;

  int define(const ir::Value *v) {
    int id = static_cast<int>(m_.info.size());
    slotOf_[v] = id;
    m_.info.push_back({v->type.elem, v->type.numElements(), &v->type.shape});
    m_.slots.emplace_back();
    return id;
  }

  int use(const ir::Op &op, const ir::Value *v) {
    auto it = slotOf_.find(v);
    TILE_ASSERT(it != slotOf_.end(),
                fmt::format("operand of '{}' is used before its definition", ir::opName(op.kind)));
    return it->second;
  }

  ExecBlock block(const ir::Block &b) {
    ExecBlock eb;
    for (const auto &a : b.args)
      eb.args.push_back(define(a.get()));
    eb.ops.reserve(b.ops.size());
    for (const auto &op : b.ops)
      eb.ops.push_back(execOp(*op));
    return eb;
  }

  ExecOp execOp(const ir::Op &op) {
    ExecOp e;
    e.op = &op;
    e.eval = kEval[static_cast<int>(op.kind)];
    for (const ir::Value *v : op.operands)
      e.in.push_back(use(op, v));
    // Regions see values defined before the op, not the op's own results.
    for (const auto &r : op.regions)
      e.regions.push_back(block(*r->block));
    for (const auto &r : op.results)
      e.out.push_back(define(r.get()));
    e.checkOverflow = offsetOps_.count(&op) != 0;
    if (op.kind == ir::OpKind::Load || op.kind == ir::OpKind::Store || op.kind == ir::OpKind::AtomicRMW ||
        op.kind == ir::OpKind::AtomicCas) {
      std::unordered_set<const ir::Value *> visiting;
      int o = originOf(op.operands[0], visiting, 0);
      e.origin = o >= 0 ? o : -1;
    }
    if (op.kind == ir::OpKind::Broadcast || op.kind == ir::OpKind::Permute)
      e.gather = gatherIndices(op);
    return e;
  }

  // ---- provenance: which kernel parameter a pointer is derived from
  static constexpr int kPending = -2;   ///< on a cycle being resolved: no information
  static int join(int a, int b) { return a == kPending ? b : b == kPending ? a : a == b ? a : -1; }

  /// The parameter v's pointers all derive from, -1 if not one, kPending
  /// when only a cycle through v (a loop-carried pointer) was seen.
  int originOf(const ir::Value *v, std::unordered_set<const ir::Value *> &visiting, int depth) {
    if (depth > 256) return -1;
    if (!visiting.insert(v).second) return kPending;
    int o = originStep(v, visiting, depth);
    visiting.erase(v);
    return o;
  }

  int originStep(const ir::Value *v, std::unordered_set<const ir::Value *> &visiting, int depth) {
    auto of = [&](const ir::Value *x) { return originOf(x, visiting, depth + 1); };
    if (v->isBlockArg()) {
      const ir::Block *b = v->owner;
      if (b == &m_.fn.entry()) return v->type.elem.isPtr ? static_cast<int>(v->index) : -1;
      const ir::Op *loop = b->parent ? b->parent->parent : nullptr;
      if (!loop) return -1;
      if (loop->kind == ir::OpKind::For && b == loop->regions[0]->block.get() && v->index > 0)
        return join(of(loop->operands[2 + v->index]), of(b->terminator()->operands[v->index - 1]));
      if (loop->kind == ir::OpKind::While && b == loop->regions[0]->block.get())
        return join(of(loop->operands[v->index]), of(loop->regions[1]->block->terminator()->operands[v->index]));
      if (loop->kind == ir::OpKind::While)   // the do region: the condition's values
        return of(loop->regions[0]->block->terminator()->operands[1 + v->index]);
      return -1;
    }
    const ir::Op *d = v->def;
    switch (d->kind) {
    case ir::OpKind::AddPtr:
    case ir::OpKind::Splat:
    case ir::OpKind::Broadcast:
    case ir::OpKind::ExpandDims:
    case ir::OpKind::Reshape:
    case ir::OpKind::Permute:
    case ir::OpKind::ConvertLayout:
      return of(d->operands[0]);
    case ir::OpKind::Select:
      return join(of(d->operands[1]), of(d->operands[2]));
    case ir::OpKind::For:
      return join(of(d->operands[3 + v->index]), of(d->regions[0]->block->terminator()->operands[v->index]));
    case ir::OpKind::While:
      return of(d->regions[0]->block->terminator()->operands[1 + v->index]);
    case ir::OpKind::If: {
      int o = kPending;
      for (const auto &r : d->regions)
        if (const ir::Op *t = r->block->terminator(); t && t->kind == ir::OpKind::Yield)
          o = join(o, of(t->operands[v->index]));
      return d->regions.size() == 2 ? o : -1;
    }
    default:
      return -1;
    }
  }

  /// For each output element, the flat index of the input element it copies.
  static std::vector<int64_t> gatherIndices(const ir::Op &op) {
    const std::vector<int64_t> &inShape = op.operands.at(0)->type.shape;
    const std::vector<int64_t> &outShape = op.result()->type.shape;
    int rank = static_cast<int>(outShape.size());
    std::vector<int64_t> inStride(inShape.size(), 1);
    for (int d = static_cast<int>(inShape.size()) - 2; d >= 0; --d)
      inStride[d] = inStride[d + 1] * inShape[d + 1];
    // stride of the input element along each output dim
    std::vector<int64_t> step(rank, 0);
    if (op.kind == ir::OpKind::Permute) {
      const std::vector<int64_t> &order = op.intsAttr("order");
      TILE_ASSERT((int)order.size() == rank && inShape.size() == order.size(), "permute rank mismatch");
      for (int d = 0; d < rank; ++d)
        step[d] = inStride.at(order[d]);
    } else {
      // Broadcast: same rank (a lower-rank input is aligned to the right,
      // numpy style); a dim of size 1 repeats.
      int shift = rank - static_cast<int>(inShape.size());
      TILE_ASSERT(shift >= 0, "broadcast to a lower rank");
      for (int d = shift; d < rank; ++d)
        step[d] = inShape[d - shift] == 1 ? 0 : inStride[d - shift];
    }
    int64_t n = op.result()->type.numElements();
    std::vector<int64_t> gather(n);
    std::vector<int64_t> idx(rank, 0);
    int64_t src = 0;
    for (int64_t k = 0; k < n; ++k) {
      gather[k] = src;
      for (int d = rank - 1; d >= 0; --d) {
        src += step[d];
        if (++idx[d] < outShape[d])
          break;
        src -= step[d] * outShape[d];
        idx[d] = 0;
      }
    }
    return gather;
  }

  // ---- offset overflow analysis
  //
  // Walks backwards from every addptr offset through the ops that compute it
  // (and through loop-carried values), marking i32 add/sub/mul/shl. Loads
  // stop the walk: a loaded offset is data, not arithmetic done here.

  void collectOffsetArithmetic() {
    if (!m_.opts.checkOffsetOverflow)
      return;
    std::vector<const ir::Value *> work;
    ir::walk(const_cast<ir::Function &>(m_.fn), [&](ir::Op &op) {
      if (op.kind == ir::OpKind::AddPtr)
        work.push_back(op.operands.at(1));
    });
    std::unordered_set<const ir::Value *> seen;
    while (!work.empty()) {
      const ir::Value *v = work.back();
      work.pop_back();
      if (!seen.insert(v).second)
        continue;
      for (const ir::Value *src : sources(*v))
        work.push_back(src);
      if (v->def && isCheckedArith(*v->def))
        offsetOps_.insert(v->def);
    }
  }

  static bool isCheckedArith(const ir::Op &op) {
    using K = ir::OpKind;
    bool arith = op.kind == K::Add || op.kind == K::Sub || op.kind == K::Mul || op.kind == K::Shl;
    return arith && op.result()->type.elem == ElemType::of(Scalar::I32);
  }

  static void addTerminatorOperand(const ir::Block &b, unsigned k, std::vector<const ir::Value *> &out) {
    const ir::Op *t = b.terminator();
    if (t && (t->kind == ir::OpKind::Yield || t->kind == ir::OpKind::Condition) && k < t->operands.size())
      out.push_back(t->operands[k]);
  }

  /// The values v is computed from (conservatively).
  static std::vector<const ir::Value *> sources(const ir::Value &v) {
    std::vector<const ir::Value *> out;
    if (v.def) {
      const ir::Op &op = *v.def;
      if (op.kind == ir::OpKind::Load)
        return out;
      for (const ir::Value *o : op.operands)
        out.push_back(o);
      for (const auto &r : op.regions) {
        unsigned k = v.index + (op.kind == ir::OpKind::While && &r == &op.regions[0] ? 1 : 0);
        addTerminatorOperand(*r->block, k, out);
      }
      return out;
    }
    const ir::Region *region = v.owner->parent;
    const ir::Op *parent = region->parent;
    if (!parent)
      return out; // a kernel parameter
    if (parent->kind == ir::OpKind::For) {
      if (v.index == 0) {
        out.push_back(parent->operands.at(0));
        out.push_back(parent->operands.at(2));
        return out;
      }
      out.push_back(parent->operands.at(3 + v.index - 1));
      addTerminatorOperand(*region->block, v.index - 1, out);
      return out;
    }
    if (parent->kind == ir::OpKind::While) {
      const ir::Block &cond = *parent->regions.at(0)->block;
      const ir::Block &body = *parent->regions.at(1)->block;
      if (region == parent->regions[0].get()) {
        out.push_back(parent->operands.at(v.index));
        addTerminatorOperand(body, v.index, out);
      } else {
        addTerminatorOperand(cond, v.index + 1, out);
      }
    }
    return out;
  }
};

} // namespace

void buildPlan(Machine &m) { PlanBuilder(m).build(); }

} // namespace tile::interp::detail
