// WgmmaEpilogue.cpp - which ops after a fresh wgmma dot run one column
// chunk at a time as its MMAs finish (dotWithWgmma's chunked issue).
//
// A dot without an accumulator whose result only elementwise ops read,
// `acc += tl.dot(a, b) * a_s[:, None] * b_s[None, :]` (a block-scaled
// matmul), needs the fresh product and the carried accumulator in
// registers at once: at 128x256 on 8 warps (or 128x128 on 4) that is 256
// registers a thread, and ptxas spills a kilobyte an iteration. Issued as
// chunks of columns, each waited for while the next runs, with the
// elementwise ops of a chunk emitted right after its wait, only two chunks'
// registers are live beside the accumulator. The ops that may so run:
//   - chain ops: elementwise, of the dot's shape and layout, reading the
//     dot's result or another chain op's, every other operand of the same
//     layout and available before the dot's MMAs (defined before the dot,
//     or an early op);
//   - early ops: broadcasts, expand_dims (register remaps only), splats and
//     constants after the dot whose operands are available before it
//     (`a_s[:, None]`): emitted before the MMAs.
// Both are pure, so emitting them ahead of their place changes nothing but
// the order of instructions; emitOp skips them at their place.
#include "backend/Emitter.h"

#include <llvm/IR/InlineAsm.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <set>

namespace tile::backend {

namespace {

/// Whether a broadcast or expand_dims is a register remap (no shared memory).
bool remapsInRegisters(const Emitter &e, const ir::Op &op) {
  const ir::Value *src = op.operands[0], *r = op.result();
  if (!src->type.isTensor()) return true;   // a broadcast of a scalar is a splat
  std::vector<int> dimMap;
  if (op.kind == ir::OpKind::Broadcast) {
    for (int d = 0; d < r->type.rank(); ++d) dimMap.push_back(src->type.shape[size_t(d)] == 1 ? -1 : d);
  } else {
    int axis = static_cast<int>(op.intAttr("axis"));
    for (int d = 0; d < r->type.rank(); ++d) dimMap.push_back(d == axis ? -1 : d < axis ? d : d - 1);
  }
  Dist from = e.dist(src->type);
  return e.remap(Regs(from.numRegs(), nullptr), from, e.dist(r->type), dimMap).has_value();
}

bool isChainKind(ir::OpKind k) {
  using K = ir::OpKind;
  // (the ops emitOp sends elsewhere: libdevice calls, extern calls, hints)
  return ir::isElementwise(k) && k != K::Hint && k != K::Erf && k != K::Tanh && k != K::Pow &&
         k != K::ExternElementwise;
}

} // namespace

Emitter::DotEpilogue Emitter::planDotEpilogue(ir::Op &dot) {
  DotEpilogue out;
  ir::Block &blk = *dot.parent;
  auto at = std::find_if(blk.ops.begin(), blk.ops.end(), [&](const auto &o) { return o.get() == &dot; });
  if (at == blk.ops.end()) return out;
  const ir::Type &rt = dot.result()->type;
  std::set<const ir::Value *> after, chain{dot.result()}, early;
  for (auto it = std::next(at); it != blk.ops.end(); ++it)
    for (auto &r : (*it)->results) after.insert(r.get());
  // available before the MMAs: defined before the dot (or outside its
  // block), or by an early op
  auto available = [&](const ir::Value *v) { return !after.count(v) || early.count(v); };
  for (auto it = std::next(at); it != blk.ops.end(); ++it) {
    ir::Op &o = **it;
    if (o.results.size() != 1 || !o.regions.empty()) continue;
    bool allAvailable = std::all_of(o.operands.begin(), o.operands.end(), available);
    bool shapeOp = o.kind == ir::OpKind::Broadcast || o.kind == ir::OpKind::ExpandDims;
    if (allAvailable && (o.kind == ir::OpKind::Constant || o.kind == ir::OpKind::Splat ||
                         (shapeOp && remapsInRegisters(*this, o)))) {
      early.insert(o.result());
      out.early.push_back(&o);
      continue;
    }
    if (!isChainKind(o.kind) || castsInPairs(o)) continue;
    const ir::Type &t = o.result()->type;
    if (t.shape != rt.shape || !t.layout || !t.layout->equals(*rt.layout)) continue;
    bool readsChain = false, fits = true;
    for (const ir::Value *v : o.operands) {
      bool sameDist = v->type.isTensor() && v->type.shape == rt.shape && v->type.layout && v->type.layout->equals(*rt.layout);
      if (chain.count(v)) readsChain = true;
      else if (!sameDist || !available(v)) fits = false;
    }
    if (!readsChain || !fits) continue;
    chain.insert(o.result());
    out.chain.push_back(&o);
  }
  // only worth it when every reader of the product runs by chunks (the
  // dot's own block holds its readers: results do not escape regions)
  if (out.chain.empty()) return {};
  const ir::Value *product = dot.result();
  bool others = false;
  ir::walk(blk, [&](ir::Op &o) {
    bool reads = std::find(o.operands.begin(), o.operands.end(), product) != o.operands.end();
    if (reads && std::find(out.chain.begin(), out.chain.end(), &o) == out.chain.end()) others = true;
  });
  return others ? DotEpilogue{} : out;
}

void Emitter::emitChunkedEpilogue(ir::Op &dot, const DotEpilogue &epi, ChunkShape shape,
                                  const std::vector<std::vector<size_t>> &slot, size_t numRegs,
                                  const std::function<Regs(int64_t, int64_t)> &issueChunk) {
  auto sync = [&](const char *text) {
    llvm::cast<llvm::CallInst>(inlinePtx(nullptr, text, "~{memory}", {}))->addFnAttr(llvm::Attribute::Convergent);
  };
  for (ir::Op *o : epi.early) {
    emitOp(*o);
    emittedAhead.insert(o);
  }
  std::vector<std::pair<int64_t, int64_t>> order;   // (m64 block, chunk)
  for (int64_t m = 0; m < shape.blocks; ++m)
    for (int64_t c = 0; c < shape.chunks; ++c) order.emplace_back(m, c);
  auto start = [&](size_t g) {
    sync("wgmma.fence.sync.aligned;");
    Regs r = issueChunk(order[g].first, order[g].second);
    sync("wgmma.commit_group.sync.aligned;");
    return r;
  };
  ir::Value *product = dot.result();
  std::map<const ir::Value *, Regs> part{{product, Regs(numRegs, nullptr)}};
  for (ir::Op *o : epi.chain) part[o->result()] = Regs(numRegs, nullptr);
  Regs running = start(0);
  for (size_t g = 0; g < order.size(); ++g) {
    bool last = g + 1 == order.size();
    Regs next = last ? Regs{} : start(g + 1);   // the next chunk runs while this one's ops do
    Regs done = wgmmaWait(running, last ? 0 : 1);
    auto [m, c] = order[g];
    std::vector<size_t> mine;
    for (int64_t i = 0; i < shape.perChunk; ++i) {
      size_t r = slot[size_t(m)][size_t(c * shape.perChunk + i)];
      part[product][r] = done[size_t(i)];
      mine.push_back(r);
    }
    for (ir::Op *o : epi.chain) {
      std::vector<Regs> in;
      for (ir::Value *v : o->operands) in.push_back(part.count(v) ? part.at(v) : regs(v));
      Regs &out = part[o->result()];
      for (size_t r : mine) out[r] = elementwiseReg(*o, in, r);
    }
    running = next;
  }
  define(product, part[product]);
  for (ir::Op *o : epi.chain) {
    define(o->result(), part[o->result()]);
    emittedAhead.insert(o);
  }
}

} // namespace tile::backend
