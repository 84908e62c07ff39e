// LayoutAssignment.cpp - the "tile-layouts" pass: classes of values that
// share a layout (union-find), one layout per class (anchors first), then
// conversions or rematerialized producer chains where a use needs another
// layout, then dead-code removal. See LayoutAssignment.h for the rules.
#include "gpu/LayoutAssignment.h"

#include "gpu/AxisInfo.h"
#include "gpu/Layouts.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <set>

namespace tile::gpu {

bool dotRunsOnTensorCores(const ir::Op &op) {
  const ir::Type &a = op.operands[0]->type, &b = op.operands[1]->type, &r = op.result()->type;
  bool fp8 = a.elem.isFp8() && b.elem.isFp8();
  if (a.rank() != 2 || b.rank() != 2 || r.rank() != 2 || a.elem.isPtr || r.elem.isPtr || (b.elem != a.elem && !fp8))
    return false;
  if (r.elem.scalar != Scalar::F32 || a.shape[0] % 16 != 0 || b.shape[1] % 8 != 0)
    return false;
  if (a.elem.scalar == Scalar::F16 || a.elem.scalar == Scalar::BF16)
    return a.shape[1] % 16 == 0;
  // fp8 runs only as wgmma (m64nNk32); tile-fp8-dots gives every other fp8
  // dot f16 operands first
  if (fp8)
    return a.shape[1] % 32 == 0;
  // tf32 (m16n8k8) at every size: with the operands truncated once while
  // staged, the A fragment read by ldmatrix and, inside a loop, double-
  // buffered operands, it beats the FMA path even at the seed lesson's
  // 16x16x16 (H200: 16.3 against 9.8 TFLOP/s at 4096^3); both truncate the
  // inputs to tf32 the same way, so results do not depend on the choice.
  if (a.elem.scalar == Scalar::F32)
    return op.hasAttr("input_precision") && op.strAttr("input_precision") == "tf32" && a.shape[1] % 8 == 0;
  return false;
}

bool hasAsyncCopy(const std::string &arch) { return arch.rfind("sm_8", 0) == 0 || arch.rfind("sm_9", 0) == 0; }

bool mmaRingsEnabled() {
  const char *v = std::getenv("TILE_MMA_RING");   // read each time: a test turns it off and on
  return !(v && *v == '0');
}

bool mmaRingDot(const ir::Op &dot, int numWarps, const std::string &arch) {
  return dot.kind == ir::OpKind::Dot && mmaRingsEnabled() && hasAsyncCopy(arch) && dotRunsOnTensorCores(dot) &&
         byteSize(dot.operands[0]->type.elem.scalar) == 2 && !dotRunsOnWgmma(dot, numWarps, arch) &&
         dot.result()->type.shape[1] >= 8 * numWarps;
}

bool isByteDot(const ir::Op &op) {
  const ir::Type &a = op.operands[0]->type, &b = op.operands[1]->type;
  return !a.elem.isPtr && !b.elem.isPtr && byteSize(a.elem.scalar) == 1 && byteSize(b.elem.scalar) == 1;
}

namespace {
/// i8 x i8 into an i32 accumulator, 2-D (wgmma's s32.s8.s8; Triton's i8 dot).
bool int8Dot(const ir::Op &op) {
  const ir::Type &a = op.operands[0]->type, &b = op.operands[1]->type, &r = op.result()->type;
  return a.rank() == 2 && b.rank() == 2 && r.rank() == 2 && !a.elem.isPtr && !b.elem.isPtr && !r.elem.isPtr &&
         a.elem.scalar == Scalar::I8 && b.elem.scalar == Scalar::I8 && r.elem.scalar == Scalar::I32;
}
} // namespace

bool dotRunsOnWgmma(const ir::Op &op, int numWarps, const std::string &arch) {
  bool int8 = int8Dot(op);
  if (arch != "sm_90a" || !(int8 || dotRunsOnTensorCores(op))) return false;
  const ir::Type &a = op.operands[0]->type, &r = op.result()->type;
  bool half = a.elem.scalar == Scalar::F16 || a.elem.scalar == Scalar::BF16;
  bool tf32 = a.elem.scalar == Scalar::F32;   // dotRunsOnTensorCores: input_precision "tf32"
  bool bytes = isFp8(a.elem.scalar) || int8;  // dotRunsOnTensorCores: both operands fp8
  if (!half && !tf32 && !bytes) return false;
  int64_t M = r.shape[0], N = r.shape[1], K = a.shape[1];
  if (tf32) {
    // computed transposed, Cᵀ = Bᵀ Aᵀ (WgmmaToLLVM): wgmma's M is BN (m64
    // blocks over the warpgroups), its N is BM (a multiple of 8 up to
    // 256), a in K-major atoms of 32 tf32 a row; at most 128 accumulator
    // registers a thread
    return numWarps % 4 == 0 && N % (16 * numWarps) == 0 && M % 8 == 0 && M <= 256 &&
           M * N <= 128 * 32 * int64_t(numWarps) && K % 32 == 0;
  }
  // K-major rows of 128 bytes (64 halves, 128 fp8/i8) in 128-byte swizzle
  // atoms; BK 32 (8-bit: 64) fills half of each row (WgmmaToLLVM)
  int64_t rowElems = bytes ? 128 : 64;
  bool kOk = K % rowElems == 0 || K == rowElems / 2;
  // whole warpgroups, two 8-row repetitions per warp (each m64 block's
  // rows 16w + g and 16w + g + 8), B in 64-column swizzle atoms (the
  // descriptor strides probed on the H200: tests/gpu/probes), A in 64-k
  // atoms (128-byte rows); N 256 only while the accumulator stays within
  // 128 registers a thread (BM = 16 * num_warps: 128 x 256 on 8 warps)
  bool wide = N == 256 && M * N <= 128 * 32 * int64_t(numWarps);
  // N 8 to 56 (f16/bf16): B staged K-major (N rows of K, as A), by
  // cp.async where its registers run along K (attention backward's kᵀ and
  // qᵀ tiles, 32 keys or queries a block), else from registers 2 bytes at
  // a time; but an N-major B of N 32 (the tutorial matmul's 128x32x32)
  // N-major in 64-byte atoms, by cp.async (WgmmaToLLVM's Geometry)
  bool narrow = half && N % 8 == 0 && N < 64;
  return numWarps % 4 == 0 && M % (16 * numWarps) == 0 && (N == 64 || N == 128 || wide || narrow) && kOk;
}

int64_t sharedMemoryLimit(const std::string &arch) {
  return arch.rfind("sm_9", 0) == 0 ? 232448 : arch == "sm_80" || arch == "sm_87" ? 166912 : 101376;
}

int64_t sharedMemoryPerSM(const std::string &arch) {
  return arch.rfind("sm_9", 0) == 0 ? 233472 : arch == "sm_80" || arch == "sm_87" ? 167936 : 102400;
}

std::shared_ptr<const BlockedLayout> wgmmaAccLayout(int numWarps, bool transposed) {
  auto l = std::make_shared<BlockedLayout>();
  if (transposed) {
    l->sizePerThread = {2, 2};
    l->threadsPerWarp = {4, 8};
    l->warpsPerCTA = {1, numWarps};
    l->order = {0, 1};
    return l;
  }
  l->sizePerThread = {1, 2};
  l->threadsPerWarp = {8, 4};
  l->warpsPerCTA = {numWarps, 1};
  l->order = {1, 0};
  return l;
}

namespace {

using ir::OpKind;
using LayoutPtr = std::shared_ptr<const ir::Layout>;

/// Largest mma accumulator (bytes of f32) converted to the store's layout
/// (128 x 256: the wide wgmma tile; the conversion reuses the operand ring).
constexpr int64_t kMaxStoreConvertBytes = 128 * 1024;

/// The m16n8 f32 accumulator fragment as a blocked layout: lane l holds
/// rows l/4 (+8) and columns (l%4)*2 + {0,1} of each 16x8 tile; the warps
/// split N (DotToLLVM.cpp's dotWithMma relies on exactly this layout).
std::shared_ptr<const BlockedLayout> mmaAccLayout(int numWarps) {
  auto l = std::make_shared<BlockedLayout>();
  l->sizePerThread = {1, 2};
  l->threadsPerWarp = {8, 4};
  l->warpsPerCTA = {1, numWarps};
  l->order = {1, 0};
  return l;
}

class LayoutAssigner {
public:
  LayoutAssigner(ir::Function &fn, int numWarps, std::string arch)
      : fn_(fn), numWarps_(numWarps), arch_(std::move(arch)), axis_(analyzeAxisInfo(fn)) {}

  void run() {
    collect(fn_.entry());
    unifyAll();
    if (splitMinorityLoads()) {   // the IR changed: unite again
      reset();
      axis_ = analyzeAxisInfo(fn_);
      collect(fn_.entry());
      unifyAll();
    }
    chooseLayouts();
    applyTypes();
    insertConversions(fn_.entry());
    foldIdentityConverts();
    removeDeadOps();
  }

private:
  ir::Function &fn_;
  int numWarps_;
  std::string arch_;
  AxisInfo axis_;
  std::vector<ir::Value *> values_;               ///< every tensor value, definition order
  std::vector<ir::Op *> ops_;                     ///< every op, pre-order
  std::map<ir::Value *, ir::Value *> parent_;     ///< union-find
  std::map<ir::Value *, LayoutPtr> classLayout_;  ///< by class root
  std::map<std::pair<ir::Value *, std::string>, ir::Value *> materialized_;
  LayoutPtr ownStoreLayout_;     ///< of the op insertConversions is at (storeOwnLayout)
  mutable bool clonePointers_ = false;   ///< see storeOwnLayout and smallLoad
  std::vector<ir::Value *> mmaResults_;           ///< results of dots that run on tensor cores
  /// Computed wgmma A operands (computedAChain) and the (op, operand) edges
  /// where their elementwise chains read the carried load tile: those are
  /// not united, so the chain takes the fragment layout and the tile is
  /// converted to it where it is read (from its ring, in the back end).
  std::set<const ir::Value *> registerA_;
  std::set<std::pair<const ir::Op *, size_t>> ringEdges_;
  /// (cheap offset, pointer result) of pointer arithmetic, united after the
  /// rest (uniteOffsets)
  std::vector<std::pair<ir::Value *, ir::Value *>> deferredOffsets_;
  /// (stored value, pointers) of stores, united after the rest (uniteStoredValues)
  std::vector<std::pair<ir::Value *, ir::Value *>> deferredStores_;

  // ---------------------------------------------------------------- classes

  void reset() {
    values_.clear();
    ops_.clear();
    parent_.clear();
    mmaResults_.clear();
    registerA_.clear();
    ringEdges_.clear();
    deferredOffsets_.clear();
    deferredStores_.clear();
  }

  /// Loads whose class's vector accesses run in another dimension order
  /// than their own (a tile read column-major through strides, added to one
  /// read row-major): united with the class, a load takes its layout and
  /// goes a scalar at a time, uncoalesced. After a first union, each such
  /// load (not of a dot's operand class or an MMA accumulator's, vector
  /// accesses proven in its own order and wider than in the class's) gets a
  /// convert_layout of its result for its users, so the second union leaves
  /// it in its pointers' layout, vectors along its own order, converted
  /// through shared memory to its users' (Triton's Coalesce gives every
  /// access its own layout). True when the IR changed.
  bool splitMinorityLoads() {
    ClassOrders orders = accessOrders();
    std::set<ir::Value *> dotClasses;
    for (ir::Op *op : ops_)
      if (op->kind == OpKind::Dot)
        for (size_t i = 0; i < 2; ++i) dotClasses.insert(find(op->operands[i]));
    std::vector<ir::Op *> split;
    for (ir::Op *op : ops_) {
      if (op->kind != OpKind::Load) continue;
      ir::Value *ptr = op->operands[0], *v = op->result();
      if (!ptr->type.isTensor() || v->type.elem.isPtr) continue;
      const std::vector<int64_t> &shape = ptr->type.shape;
      if (std::count_if(shape.begin(), shape.end(), [](int64_t d) { return d > 1; }) < 2) continue;
      const std::vector<int64_t> *cls = orderOf(orders, ptr);
      std::vector<int64_t> own = axis_.accessOrder(ptr);
      if (!cls || (*cls)[0] == own[0]) continue;
      int vec = axis_.vectorWidth(ptr, nullptr, int(own[0]));
      if (vec < 2 || axis_.vectorWidth(ptr, nullptr, int((*cls)[0])) >= vec) continue;
      if (inMmaClass(v) || dotClasses.count(find(v)) || registerA_.count(v)) continue;
      split.push_back(op);
    }
    std::map<ir::Value *, ir::Value *> converted;   // a load's result -> its convert's
    for (ir::Op *load : split) {
      ir::Value *v = load->result();
      ir::Builder b(&fn_.entry());
      insertAfterDef(b, v);
      converted[v] = b.create(OpKind::ConvertLayout, {v}, {v->type})->result();
    }
    ir::walk(fn_, [&](ir::Op &op) {   // every use but the converts' own
      if (op.kind == OpKind::ConvertLayout && converted.count(op.operands[0])) return;
      for (ir::Value *&o : op.operands)
        if (auto it = converted.find(o); it != converted.end()) o = it->second;
    });
    return !split.empty();
  }

  void collect(ir::Block &b) {
    for (auto &a : b.args)
      addValue(a.get());
    for (auto &op : b.ops) {
      ops_.push_back(op.get());
      for (auto &r : op->results)
        addValue(r.get());
      for (auto &r : op->regions)
        collect(*r->block);
    }
  }

  void addValue(ir::Value *v) {
    if (!v->type.isTensor())
      return;
    values_.push_back(v);
    parent_[v] = v;
  }

  ir::Value *find(ir::Value *v) {
    while (parent_[v] != v)
      v = parent_[v] = parent_[parent_[v]];
    return v;
  }

  void unite(ir::Value *a, ir::Value *b) {
    if (!a || !b || !a->type.isTensor() || !b->type.isTensor() || a->type.rank() != b->type.rank())
      return;
    parent_[find(a)] = find(b);
  }

  void unifyAll() {
    for (ir::Op *op : ops_)
      if (op->kind == OpKind::Dot && qualifiesForMma(*op))
        mmaResults_.push_back(op->result());
    for (ir::Op *op : ops_)
      if (op->kind == OpKind::Dot && computedAChain(*op, &ringEdges_))
        registerA_.insert(op->operands[0]);
    // dots and control flow first, so that the mma class is complete before
    // the load/store exceptions below ask whether a value belongs to it
    auto structural = [](const ir::Op &op) {
      return op.kind == OpKind::Dot || op.kind == OpKind::For || op.kind == OpKind::While || op.kind == OpKind::If;
    };
    for (ir::Op *op : ops_)
      if (structural(*op))
        unifyOp(*op);
    for (ir::Op *op : ops_)
      if (!structural(*op))
        unifyOp(*op);
    uniteOffsets();
    uniteStoredValues();
  }

  /// A stored value whose class holds a reduction's result keeps that
  /// layout (the reduction's slice) and is converted at the store: else the
  /// store's coalesced layout would become the class's, and a loop-carried
  /// running maximum or sum (attention's m_i and l_i, stored after the
  /// loop as the log-sum-exp) would be converted to it and back every
  /// iteration. A stored value whose class has vector accesses in another
  /// dimension order than the store's (a tile loaded column-major and
  /// stored row-major: a transpose) keeps its order and is converted at the
  /// store, through shared memory, so both sides stay coalesced (Triton's
  /// Coalesce gives each access its own layout). Other stored values share
  /// their pointers' layout.
  void uniteStoredValues() {
    std::set<ir::Value *> reduced;
    for (ir::Op *op : ops_)
      if (op->kind == OpKind::Reduce && op->result()->type.isTensor()) reduced.insert(find(op->result()));
    ClassOrders orders = accessOrders();
    for (auto &[value, ptr] : deferredStores_) {
      if (reduced.count(find(value))) continue;
      const std::vector<int64_t> *stored = orderOf(orders, value), *mine = orderOf(orders, ptr);
      if (stored && mine && *stored != *mine && !inMmaClass(value) && !inMmaClass(ptr)) continue;
      bool wasReduced = reduced.count(find(ptr)) != 0;
      uniteKeepingOrder(orders, value, ptr);
      if (wasReduced) reduced.insert(find(ptr));
    }
  }

  using ClassOrders = std::map<ir::Value *, std::vector<int64_t>>;

  /// The preferred access order of v's class (accessOrders), if it has one.
  const std::vector<int64_t> *orderOf(const ClassOrders &orders, ir::Value *v) {
    auto it = orders.find(find(v));
    return it == orders.end() ? nullptr : &it->second;
  }

  /// Unites a's class into b's; the union keeps b's order, else a's.
  void uniteKeepingOrder(ClassOrders &orders, ir::Value *a, ir::Value *b) {
    const std::vector<int64_t> *oa = orderOf(orders, a), *ob = orderOf(orders, b);
    std::vector<int64_t> keep = ob ? *ob : oa ? *oa : std::vector<int64_t>{};
    orders.erase(find(a));
    orders.erase(find(b));
    unite(a, b);
    if (!keep.empty()) orders[find(b)] = keep;
  }

  /// Whether an access of vector width vec (in the default order or not)
  /// takes a class's anchor from the best one so far: the widest wins,
  /// among equally wide ones the default order.
  static bool widerAccess(int vec, bool defaultOrder, int bestVec, bool bestDefaultOrder) {
    return vec > bestVec || (vec == bestVec && defaultOrder && !bestDefaultOrder);
  }

  /// The dimension order of the widest access (load or store) through each
  /// pointer class, by class root (ties: the default order first, as
  /// noteOp's anchor); only accesses that have an order to prefer: vector
  /// accesses of tiles with two or more dims longer than 1 (a column's
  /// order is no preference).
  ClassOrders accessOrders() {
    std::map<ir::Value *, std::pair<int, std::vector<int64_t>>> best;
    for (ir::Op *op : ops_) {
      if (op->kind != OpKind::Load && op->kind != OpKind::Store) continue;
      ir::Value *ptr = op->operands[0];
      if (!ptr->type.isTensor()) continue;
      const std::vector<int64_t> &shape = ptr->type.shape;
      if (std::count_if(shape.begin(), shape.end(), [](int64_t d) { return d > 1; }) < 2) continue;
      std::vector<int64_t> order = axis_.accessOrder(ptr);
      int vec = axis_.vectorWidth(ptr, nullptr, (int)order[0]);
      if (vec < 2) continue;
      auto note = [&](ir::Value *p, const std::vector<int64_t> &o) {
        auto [it, fresh] = best.try_emplace(find(p), vec, o);
        int rank = p->type.rank();
        if (!fresh && widerAccess(vec, o[0] == rank - 1, it->second.first, it->second.second[0] == rank - 1))
          it->second = {vec, o};
      };
      note(ptr, order);
      if (ir::Value *src = permuteSource(ptr)) note(src, unpermuteOrder(*ptr->def, order));
    }
    std::map<ir::Value *, std::vector<int64_t>> out;
    for (auto &[root, b] : best) out[root] = b.second;
    return out;
  }

  /// The operand of the permute that defines ptr (tile-permute-loads'
  /// `load(permute(p))`), or null: an access through the permute is one of
  /// the operand's class too, in the dimension order put back.
  static ir::Value *permuteSource(const ir::Value *ptr) {
    return ptr->def && ptr->def->kind == OpKind::Permute && ptr->def->operands[0]->type.isTensor()
               ? ptr->def->operands[0]
               : nullptr;
  }

  /// An access order of a permute's result as one of its operand (result
  /// dim i is operand dim order[i]).
  static std::vector<int64_t> unpermuteOrder(const ir::Op &permute, const std::vector<int64_t> &order) {
    const auto &perm = permute.intsAttr("order");
    std::vector<int64_t> out;
    for (int64_t d : order) out.push_back(perm[size_t(d)]);
    return out;
  }

  /// Pointer arithmetic keeps its cheap offsets in its class (the seed
  /// matmul's cp.async addresses stay computed once, in one layout), except
  /// where one CSE'd index web feeds pointer classes whose accesses want
  /// different dimension orders: attention's q (contiguous along its
  /// columns) and kᵀ (along its rows) share `arange(0, 64)[None, :]` when
  /// BLOCK_N == HEAD_DIM. The first pointer class to reach the web keeps
  /// it; one of another order, or one with vector accesses when the web is
  /// in an MMA accumulator's class, clones the chain in its own layout.
  void uniteOffsets() {
    ClassOrders orders = accessOrders();
    for (auto &[offset, ptr] : deferredOffsets_) {
      if (find(offset) == find(ptr)) continue;
      const std::vector<int64_t> *web = orderOf(orders, offset), *mine = orderOf(orders, ptr);
      if (web && mine && *web != *mine) continue;
      // a web already in an MMA accumulator's class (attention's causal
      // mask shares q's row and column offsets) would give pointers with
      // vector accesses the fragment layout: they clone it in their own
      if (mine && inMmaClass(offset) && !inMmaClass(ptr)) continue;
      uniteKeepingOrder(orders, offset, ptr);
    }
  }

  /// Whether v's class holds the result of a dot that runs on tensor cores.
  bool inMmaClass(ir::Value *v) {
    if (!v->type.isTensor())
      return false;
    return std::any_of(mmaResults_.begin(), mmaResults_.end(), [&](ir::Value *r) { return find(r) == find(v); });
  }


  void unifyOp(ir::Op &op) {
    if (isElementwise(op.kind) || op.kind == OpKind::Load || op.kind == OpKind::Store ||
        op.kind == OpKind::Broadcast) {
      ir::Value *first = op.results.empty() ? op.operands[0] : op.result();
      for (size_t i = 0; i < op.operands.size(); ++i) {
        // a stored mma accumulator keeps its fragment layout (the pointers
        // keep their coalesced one): one convert at the store, after the
        // loop. The convert goes through shared memory, so only for tiles
        // that surely fit (128 KiB of f32); a larger one is stored from the
        // fragment layout, its pointers (and what they share) laid out so.
        if (op.kind == OpKind::Store && i == 1 && inMmaClass(op.operands[i]) &&
            op.operands[i]->type.numElements() * 4 <= kMaxStoreConvertBytes)
          continue;
        // a stored value joins its pointers' class after the rest, unless it
        // comes from a reduction (uniteStoredValues)
        if (op.kind == OpKind::Store && i == 1 && op.operands[i]->type.isTensor() &&
            !(!cheap(first, 0) && cheap(op.operands[i], 0))) {
          deferredStores_.push_back({op.operands[i], first});
          continue;
        }
        // a load's `other` shared with an mma accumulator (one CSE'd splat of
        // 0.0 for both, as in f32 matmuls) must not pull the load into the
        // fragment layout: the splat is cloned in the load's layout instead
        if (op.kind == OpKind::Load && i == 2 && inMmaClass(op.operands[i]))
          continue;
        // index arithmetic (a cheap chain: aranges, splats, broadcasts and
        // elementwise ops of them) feeding data does not tie the data's class
        // to the other users of a CSE'd index: each user clones the chain in
        // its own layout (insertConversions). Else attention's q load, whose
        // row offsets the causal mask of q @ k shares, took the MMA
        // accumulator's fragment layout instead of its coalesced one.
        // Pointer arithmetic keeps its offsets in its class (the seed
        // matmul's cp.async addresses stay computed once, in one layout).
        if (!cheap(first, 0) && cheap(op.operands[i], 0)) {
          if (op.kind == OpKind::AddPtr) deferredOffsets_.push_back({op.operands[i], first});
          continue;
        }
        if (ringEdges_.count({&op, i})) continue;
        unite(op.operands[i], first);
      }
      return;
    }
    switch (op.kind) {
    case OpKind::InlineAsm:   // elementwise, but never cloned (not cheap): operands and results in one layout
      for (ir::Value *v : op.operands) unite(v, op.result());
      for (auto &r : op.results) unite(r.get(), op.result());
      return;
    case OpKind::AtomicRMW:   // pointers, values, masks and old values in one layout (the verifier's rule)
    case OpKind::AtomicCas:
    case OpKind::Scan:        // every operand and result in one layout
      for (ir::Value *v : op.operands) unite(v, op.operands[0]);
      for (auto &r : op.results) unite(r.get(), op.operands[0]);
      return;
    case OpKind::Dot:
      return unite(op.operands[2], op.result());
    case OpKind::For: {
      ir::Block &body = *op.regions[0]->block;
      for (size_t i = 0; i < op.results.size(); ++i) {
        unite(op.operands[3 + i], body.args[1 + i].get());
        unite(op.results[i].get(), body.args[1 + i].get());
        if (body.terminator() && i < body.terminator()->operands.size())
          unite(body.terminator()->operands[i], body.args[1 + i].get());
      }
      return;
    }
    case OpKind::While: {
      ir::Block &cond = *op.regions[0]->block, &body = *op.regions[1]->block;
      for (size_t i = 0; i < cond.args.size(); ++i) {
        unite(op.operands[i], cond.args[i].get());
        if (body.terminator() && i < body.terminator()->operands.size())
          unite(body.terminator()->operands[i], cond.args[i].get());
      }
      ir::Op *c = cond.terminator();
      for (size_t i = 0; i < op.results.size(); ++i) {
        unite(op.results[i].get(), body.args[i].get());
        if (c && i + 1 < c->operands.size())
          unite(c->operands[i + 1], body.args[i].get());
      }
      return;
    }
    case OpKind::If:
      for (size_t i = 0; i < op.results.size(); ++i)
        for (auto &r : op.regions)
          if (r->block->terminator() && i < r->block->terminator()->operands.size())
            unite(r->block->terminator()->operands[i], op.results[i].get());
      return;
    default:
      return;
    }
  }

  // ---------------------------------------------------------------- choice

  struct ClassInfo {
    std::vector<ir::Value *> members;
    int rank = 0;
    int64_t elements = 0;
    std::vector<int64_t> shape;      ///< of the largest member
    LayoutPtr anchor;                ///< coalesced layout of a load/store
    int anchorVec = 0;
    bool anchorDefaultOrder = false; ///< the anchor's fastest dim is the last
    bool forceBlocked = false;
    bool mma = false;                ///< holds the result of a dot on tensor cores
    bool wgmma = false;              ///< ... of one that can run as wgmma
    bool notWgmma = false;           ///< ... of one that cannot
    bool wgmmaTf32 = false;          ///< ... of a tf32 one (transposed fragment)
    bool wgmmaHalf = false;          ///< ... of an f16/bf16 one
    bool registerA = false;          ///< holds a computed wgmma A (registerA_)
    int byteK = -1;                  ///< K's dim when an operand of an 8-bit wgmma dot
    const ir::Op *reduce = nullptr;  ///< a reduce producing a member
    std::vector<const ir::Op *> expandUsers;
  };

  void chooseLayouts() {
    std::map<ir::Value *, ClassInfo> classes;
    for (ir::Value *v : values_) {
      ClassInfo &c = classes[find(v)];
      c.members.push_back(v);
      c.rank = v->type.rank();
      if (v->type.numElements() > c.elements) {
        c.elements = v->type.numElements();
        c.shape = v->type.shape;
      }
    }
    for (ir::Op *op : ops_)
      noteOp(*op, classes);
    for (const ir::Value *a : registerA_)
      classes[find(const_cast<ir::Value *>(a))].registerA = true;
    std::vector<ClassInfo *> order;
    for (auto &[root, c] : classes)
      order.push_back(&c);
    std::stable_sort(order.begin(), order.end(), [](ClassInfo *a, ClassInfo *b) { return a->rank > b->rank; });
    for (ClassInfo *c : order)
      classLayout_[find(c->members.front())] = pick(*c);
  }

  void noteOp(const ir::Op &op, std::map<ir::Value *, ClassInfo> &classes) {
    auto cls = [&](ir::Value *v) { return &classes[find(v)]; };
    switch (op.kind) {
    case OpKind::Load:
    case OpKind::Store: {
      ir::Value *ptr = op.operands[0];
      if (!ptr->type.isTensor())
        return;
      ir::Value *mask = op.operands.size() > (op.kind == OpKind::Load ? 1u : 2u)
                            ? op.operands[op.kind == OpKind::Load ? 1 : 2]
                            : nullptr;
      // Triton's coalescing: the fastest dim is the most contiguous one
      // (ties: the default order), the vector width along it
      std::vector<int64_t> order = axis_.accessOrder(ptr);
      int vec = axis_.vectorWidth(ptr, mask, (int)order[0]);
      // the widest access of the class anchors it; among equally wide ones
      // the first in the default order (as before orders were chosen)
      auto anchor = [&](ClassInfo *c, const std::vector<int64_t> &shape, const std::vector<int64_t> &o) {
        bool defaultOrder = o[0] == int64_t(shape.size()) - 1;
        if (widerAccess(vec, defaultOrder, c->anchorVec, c->anchorDefaultOrder)) {
          c->anchorVec = vec;
          c->anchorDefaultOrder = defaultOrder;
          c->anchor = defaultBlocked(shape, numWarps_, vec, o);
        }
      };
      anchor(cls(ptr), ptr->type.shape, order);
      // the permuted pointers' source: the same layout with its dims put
      // back, so that the permute renames registers
      if (ir::Value *src = permuteSource(ptr)) {
        std::vector<int64_t> o = unpermuteOrder(*ptr->def, order);
        anchor(cls(src), src->type.shape, o);
      }
      return;
    }
    case OpKind::ExpandDims:
      cls(op.result())->forceBlocked = true;
      if (op.operands[0]->type.isTensor())
        cls(op.operands[0])->expandUsers.push_back(&op);
      return;
    case OpKind::Reduce:
      cls(op.operands[0])->forceBlocked = true;
      if (op.result()->type.isTensor() && !cls(op.result())->reduce)
        cls(op.result())->reduce = &op;
      return;
    case OpKind::Dot:
      cls(op.result())->forceBlocked = true;
      if (qualifiesForMma(op)) {
        ClassInfo *c = cls(op.result());
        c->mma = true;
        bool wgmma = dotRunsOnWgmma(op, numWarps_, arch_);
        (wgmma ? c->wgmma : c->notWgmma) = true;
        if (wgmma) (op.operands[0]->type.elem.scalar == Scalar::F32 ? c->wgmmaTf32 : c->wgmmaHalf) = true;
        if (wgmma && isByteDot(op)) {
          cls(op.operands[0])->byteK = 1;
          cls(op.operands[1])->byteK = 0;
        }
      }
      return;
    default:
      return;
    }
  }

  /// mma.sync or wgmma (i8 dots qualify only as wgmma)
  bool qualifiesForMma(const ir::Op &op) const {
    return dotRunsOnTensorCores(op) || dotRunsOnWgmma(op, numWarps_, arch_);
  }

  LayoutPtr pick(const ClassInfo &c) {
    // the accumulator's registers are the mma fragments: the whole class
    // (loop-carried acc, its init and the values it feeds or is fed by)
    // takes that layout, so the K loop needs no conversion
    if (c.mma)
      return c.wgmma && !c.notWgmma && !(c.wgmmaTf32 && c.wgmmaHalf) ? wgmmaAccLayout(numWarps_, c.wgmmaTf32)
                                                                      : mmaAccLayout(numWarps_);
    if (c.anchor)
      return c.byteK >= 0 ? byteOperandLayout(c) : c.anchor;
    if (c.registerA)
      return wgmmaAccLayout(numWarps_, false);
    if (!c.forceBlocked) {
      if (c.reduce)
        return reduceLayout(*c.reduce);
      for (const ir::Op *e : c.expandUsers)
        if (auto *b = dynamic_cast<const BlockedLayout *>(layoutOf(e->result()).get()))
          return sliceOf((int)e->intAttr("axis"), *b);
    }
    return defaultBlocked(c.shape, numWarps_);
  }

  /// An 8-bit wgmma operand read along M or N (not K): wgmma reads it
  /// K-major, so it is staged from registers, and the load's layout gives
  /// each thread runs along K too (byteTransposeBlocked), which it stores
  /// 4 or 8 bytes at a time; one along K keeps the coalesced anchor (it
  /// goes by cp.async, or 16 bytes a store).
  LayoutPtr byteOperandLayout(const ClassInfo &c) const {
    auto *a = dynamic_cast<const BlockedLayout *>(c.anchor.get());
    if (!a || a->rank() != 2 || a->order[0] == c.byteK) return c.anchor;
    int m = int(a->order[0]);
    LayoutPtr t = byteTransposeBlocked(c.shape, numWarps_, int(a->sizePerThread[m]), m);
    return t ? t : c.anchor;
  }

  static LayoutPtr sliceOf(int dim, const BlockedLayout &parent) {
    auto s = std::make_shared<SliceLayout>();
    s->dim = dim;
    s->parent = std::make_shared<BlockedLayout>(parent);
    return s;
  }

  /// The reduce result's own layout: the slice of its input's layout.
  LayoutPtr reduceLayout(const ir::Op &reduce) {
    // the operand's class is forced blocked; a slice-typed operand is
    // converted to it at the use
    LayoutPtr in = classLayout_.at(find(reduce.operands[0]));
    auto *b = dynamic_cast<const BlockedLayout *>(in.get());
    TILE_ASSERT(b, "reduce input must have a blocked layout");
    return sliceOf((int)reduce.intAttr("axis"), *b);
  }

  /// The layout v actually has (reduce results: their slice).
  LayoutPtr layoutOf(ir::Value *v) {
    if (v->def && v->def->kind == OpKind::Reduce)
      return reduceLayout(*v->def);
    auto it = classLayout_.find(find(v));
    TILE_ASSERT(it != classLayout_.end(), "layout needed before its class was decided");
    return it->second;
  }

  void applyTypes() {
    std::vector<std::pair<ir::Value *, LayoutPtr>> assigned;
    for (ir::Value *v : values_)
      assigned.push_back({v, layoutOf(v)});
    for (auto &[v, l] : assigned)
      v->type.layout = l;
  }

  // ---------------------------------------------------------------- uses

  /// The layout operand i of op must have, or null for "any".
  LayoutPtr required(ir::Op &op, size_t i) {
    ir::Value *v = op.operands[i];
    if (!v->type.isTensor())
      return nullptr;
    switch (op.kind) {
    case OpKind::ExpandDims: {
      auto *b = dynamic_cast<const BlockedLayout *>(op.result()->type.layout.get());
      TILE_ASSERT(b, "expand_dims result must be blocked");
      return sliceOf((int)op.intAttr("axis"), *b);
    }
    case OpKind::Permute:
      return permuteOperandLayout(op);
    case OpKind::Reshape:
    case OpKind::ConvertLayout:
    case OpKind::Print:
    case OpKind::Assert:
      return nullptr;
    case OpKind::Dot:
      if (i == 0 && computedWgmmaA(op))
        return wgmmaAccLayout(numWarps_, false);
      return i == 2 ? op.result()->type.layout : nullptr;
    case OpKind::Load:    // `other` may be in another class (unifyOp): the result's layout
      return op.result()->type.isTensor() ? classLayout_.at(find(op.result())) : classLayout_.at(find(v));
    case OpKind::Store:   // the value may be in another class (unifyOp): the pointers' layout
      if (ownStoreLayout_)
        return ownStoreLayout_;
      return op.operands[0]->type.isTensor() ? classLayout_.at(find(op.operands[0])) : classLayout_.at(find(v));
    default:
      // an elementwise op's cheap operands may be in another class (unifyOp):
      // the result's layout
      if ((isElementwise(op.kind) || op.kind == OpKind::Broadcast) && op.result()->type.isTensor())
        return classLayout_.at(find(op.result()));
      return classLayout_.at(find(v));
    }
  }

  /// A permute's cheap operand (a mask or offsets computed from aranges,
  /// splats and compares) is computed in the result's layout with its dims
  /// put back, so that the permute only renames registers (a load moved
  /// before a permute by tile-permute-loads keeps the cp.async path, whose
  /// loop may hold no shared-memory exchange); any other operand keeps its
  /// own layout (the back end permutes in registers where it can, else
  /// through shared memory, as a conversion would).
  LayoutPtr permuteOperandLayout(ir::Op &op) {
    auto *r = dynamic_cast<const BlockedLayout *>(op.result()->type.layout.get());
    if (!r || !cheap(op.operands[0], 0))
      return nullptr;
    const auto &perm = op.intsAttr("order");   // result dim i is operand dim perm[i]
    auto in = std::make_shared<BlockedLayout>(*r);
    for (size_t i = 0; i < perm.size(); ++i) {
      in->sizePerThread[size_t(perm[i])] = r->sizePerThread[i];
      in->threadsPerWarp[size_t(perm[i])] = r->threadsPerWarp[i];
      in->warpsPerCTA[size_t(perm[i])] = r->warpsPerCTA[i];
    }
    in->order = unpermuteOrder(op, r->order);
    return in;
  }

  /// The load of `body` that v is, or that v carries in (tile-pipeline's
  /// prefetch: a loop argument that a load of the body yields, num_stages -
  /// 1 ahead through a chain of arguments each yielding the next); null
  /// otherwise.
  static const ir::Op *carriedLoad(const ir::Value *v, const ir::Block &body) {
    const ir::Op *yield = body.terminator();
    for (int n = 0; n < 8 && v->isBlockArg() && v->owner == &body && v->index > 0 && yield; ++n)
      v = yield->operands[v->index - 1];
    return !v->isBlockArg() && v->def && v->def->parent == &body && v->def->kind == OpKind::Load ? v->def : nullptr;
  }

  /// Whether a load's runs of 16 bytes are proven (what the cp.async paths
  /// need).
  bool sixteenByteRuns(const ir::Op &load) {
    const ir::Value *ptr = load.operands[0], *mask = load.operands.size() > 1 ? load.operands[1] : nullptr;
    std::vector<int64_t> order = axis_.accessOrder(ptr);
    return !order.empty() &&
           axis_.vectorWidth(ptr, mask, int(order[0])) * byteSize(load.result()->type.elem.scalar) >= 16;
  }

  /// Whether a wgmma dot's f16/bf16 A is computed in the dot's loop body
  /// from a load there through elementwise ops (`a.to(tl.float16)` of an
  /// f32 load, `a * scale`): then, as in Triton, A goes to the dot in
  /// registers, in the accumulator's fragment layout, and B keeps the
  /// cp.async path of register-A dots (a ring of its own). The elementwise
  /// chain computes in the fragment layout from the load's tile converted
  /// to it, which the back end reads from a ring of shared memory that
  /// cp.async fills num_stages - 1 iterations ahead (tile-pipeline gives
  /// the load that distance), as Triton's local_load. Only where B can go
  /// by cp.async: else both are staged either way, and registers for A
  /// only cost. Before layouts are chosen (unifyAll) the dot's own layout
  /// is not asked; `edges` gets the chain's reads of the carried tile.
  bool computedAChain(const ir::Op &dot, std::set<std::pair<const ir::Op *, size_t>> *edges = nullptr) {
    ir::Value *a = dot.operands[0];
    if (a->isBlockArg() || !a->def || a->def->parent != dot.parent || a->type.elem.scalar == Scalar::F32 ||
        isByteDot(dot) || !dotRunsOnWgmma(dot, numWarps_, arch_))
      return false;
    const ir::Block &body = *dot.parent;
    if (!body.parent || !body.parent->parent || body.parent->parent->kind != OpKind::For) return false;
    const ir::Op *bLoad = carriedLoad(dot.operands[1], body);
    if (!bLoad || !sixteenByteRuns(*bLoad)) return false;
    // elementwise steps (at most 8) from A up to a load of the body
    std::function<bool(const ir::Value *, int)> fromLoad = [&](const ir::Value *v, int depth) {
      if (v->isBlockArg() || !v->def || v->def->parent != &body || depth > 8 || !isElementwise(v->def->kind))
        return false;
      bool found = false;
      for (size_t i = 0; i < v->def->operands.size(); ++i) {
        const ir::Value *o = v->def->operands[i];
        if (!o->type.isTensor() || o->type.shape != v->type.shape) continue;
        if (carriedLoad(o, body)) {
          if (edges) edges->insert({v->def, i});
          found = true;
        } else {
          found = fromLoad(o, depth + 1) || found;
        }
      }
      return found;
    };
    return fromLoad(a, 0);
  }

  bool computedWgmmaA(const ir::Op &dot) {
    const ir::Type &r = dot.result()->type;
    return r.layout && r.layout->equals(*wgmmaAccLayout(numWarps_, false)) && computedAChain(dot);
  }

  /// A store of a converted tensor-core accumulator whose pointers' class
  /// gives a thread more than 16 bytes in a row (the class also holds the
  /// 16-bit operand loads: 8 elements, 32 bytes of f32) gets a layout of its
  /// own with the store's vector width, its pointers and mask cloned in it:
  /// then each warp instruction writes whole 32-byte sectors (half sectors
  /// per instruction cost the H200 40% more DRAM reads at 4096^3). Null
  /// otherwise.
  LayoutPtr storeOwnLayout(ir::Op &op) {
    if (op.kind != OpKind::Store || op.operands.size() < 2 || !op.operands[0]->type.isTensor() ||
        !inMmaClass(op.operands[1]))
      return nullptr;
    auto cls = classLayout_.find(find(op.operands[0]));
    auto *b = cls == classLayout_.end() ? nullptr : dynamic_cast<const BlockedLayout *>(cls->second.get());
    if (!b || b->sizePerThread[b->order[0]] * byteSize(op.operands[1]->type.elem.scalar) <= 16)
      return nullptr;
    std::vector<int64_t> order = axis_.accessOrder(op.operands[0]);
    int vec = axis_.vectorWidth(op.operands[0], op.operands.size() > 2 ? op.operands[2] : nullptr, (int)order[0]);
    return defaultBlocked(op.operands[0]->type.shape, numWarps_, vec, order);
  }

  void insertConversions(ir::Block &b) {
    for (auto &op : b.ops) {
      // pointer chains are cloned (not converted) only into such a store's layout
      ownStoreLayout_ = storeOwnLayout(*op);
      clonePointers_ = ownStoreLayout_ != nullptr;
      for (size_t i = 0; i < op->operands.size(); ++i) {
        LayoutPtr req = required(*op, i);
        if (req && !op->operands[i]->type.layout->equals(*req))
          op->operands[i] = materialize(op->operands[i], req, 0);
      }
      for (auto &r : op->regions)
        insertConversions(*r->block);
    }
  }

  /// Positions a builder right after v's definition (block start for args).
  void insertAfterDef(ir::Builder &b, ir::Value *v) {
    ir::Block *block = v->isBlockArg() ? v->owner : v->def->parent;
    auto it = block->ops.begin();
    if (!v->isBlockArg())
      while (it->get() != v->def)
        ++it;
    if (!v->isBlockArg())
      ++it;
    b.setInsertionPointToEnd(block);
    if (it != block->ops.end())
      b.setInsertionPoint(it->get());
    b.loc = v->isBlockArg() ? fn_.loc : v->def->loc;
  }

  bool cheap(const ir::Value *v, int depth) const {
    if (!v->type.isTensor())
      return true;
    if (v->isBlockArg() || depth > 8)
      return false;
    OpKind k = v->def->kind;
    if (k == OpKind::Load)
      return smallLoad(*v->def, depth);
    bool kindOk = k == OpKind::Constant || k == OpKind::Arange || k == OpKind::Splat || k == OpKind::Broadcast ||
                  k == OpKind::ExpandDims || (isElementwise(k) && (k != OpKind::AddPtr || clonePointers_));
    if (!kindOk)
      return false;
    return std::all_of(v->def->operands.begin(), v->def->operands.end(),
                       [&](const ir::Value *o) { return cheap(o, depth + 1); });
  }

  /// A load of fewer elements than the CTA has threads (a row's or a
  /// column's scales, a bias) whose pointers and mask are cheap, pointer
  /// arithmetic included: loaded again in the layout a user needs (each
  /// thread its own elements, from L1) rather than converted through shared
  /// memory, which costs barriers; Triton's rule for rematerializing loads
  /// (isExpensiveLoadOrStore). Not a volatile load.
  bool smallLoad(const ir::Op &load, int depth) const {
    if (load.hasAttr("volatile") || load.result()->type.numElements() >= int64_t(numWarps_) * 32)
      return false;
    PointerClones clones(clonePointers_);
    return std::all_of(load.operands.begin(), load.operands.end(),
                       [&](const ir::Value *o) { return cheap(o, depth + 1); });
  }

  /// Pointer arithmetic counts as cheap while one lives (the operands of a
  /// load cloned into another layout).
  struct PointerClones {
    bool &flag, saved;
    explicit PointerClones(bool &f) : flag(f), saved(f) { flag = true; }
    ~PointerClones() { flag = saved; }
  };

  /// v in layout `to`: a clone of its cheap producer chain or a convert.
  ir::Value *materialize(ir::Value *v, LayoutPtr to, int depth) {
    if (!v->type.isTensor() || v->type.layout->equals(*to))
      return v;
    auto key = std::make_pair(v, to->str());
    if (auto it = materialized_.find(key); it != materialized_.end())
      return it->second;
    bool expandOk = !(v->def && v->def->kind == OpKind::ExpandDims) ||
                    dynamic_cast<const BlockedLayout *>(to.get()) != nullptr;
    ir::Value *out = cheap(v, depth) && expandOk ? cloneIn(v, to, depth) : convert(v, to);
    materialized_[key] = out;
    return out;
  }

  ir::Value *convert(ir::Value *v, LayoutPtr to) {
    ir::Builder b(&fn_.entry());
    insertAfterDef(b, v);
    ir::Type t = v->type;
    t.layout = to;
    return b.create(OpKind::ConvertLayout, {v}, {t})->result();
  }

  ir::Value *cloneIn(ir::Value *v, LayoutPtr to, int depth) {
    const ir::Op &src = *v->def;
    std::optional<PointerClones> clones;   // a small load's pointers are cloned with it (smallLoad)
    if (src.kind == OpKind::Load)
      clones.emplace(clonePointers_);
    std::vector<ir::Value *> operands;
    for (ir::Value *o : src.operands) {
      LayoutPtr need = to;
      if (src.kind == OpKind::ExpandDims)
        need = sliceOf((int)src.intAttr("axis"), *dynamic_cast<const BlockedLayout *>(to.get()));
      operands.push_back(materialize(o, need, depth + 1));
    }
    ir::Builder b(&fn_.entry());
    insertAfterDef(b, v);
    ir::Type t = v->type;
    t.layout = to;
    return b.create(src.kind, operands, {t}, src.attrs)->result();
  }

  // ---------------------------------------------------------------- DCE

  /// A convert_layout to its operand's own layout (a load split by
  /// splitMinorityLoads whose class took its layout after all) goes.
  void foldIdentityConverts() {
    std::map<ir::Value *, ir::Value *> same;
    ir::walk(fn_, [&](ir::Op &op) {
      for (ir::Value *&o : op.operands)
        if (auto it = same.find(o); it != same.end()) o = it->second;
      if (op.kind == OpKind::ConvertLayout && op.operands[0]->type.layout && op.result()->type.layout &&
          op.operands[0]->type.layout->equals(*op.result()->type.layout))
        same[op.result()] = op.operands[0];
    });
  }

  void removeDeadOps() {
    for (bool changed = true; changed;) {
      std::set<const ir::Value *> used;
      ir::walk(fn_, [&](ir::Op &op) { used.insert(op.operands.begin(), op.operands.end()); });
      changed = removeDead(fn_.entry(), used);
    }
  }

  bool removeDead(ir::Block &b, const std::set<const ir::Value *> &used) {
    bool changed = false;
    for (auto it = b.ops.begin(); it != b.ops.end();) {
      ir::Op &op = **it;
      for (auto &r : op.regions)
        changed |= removeDead(*r->block, used);
      bool dead = !op.hasSideEffects() && op.regions.empty() &&
                  std::none_of(op.results.begin(), op.results.end(), [&](auto &r) { return used.count(r.get()); });
      if (dead) {
        it = b.ops.erase(it);
        changed = true;
      } else {
        ++it;
      }
    }
    return changed;
  }
};

bool hasLayouts(const ir::Block &b) {
  for (auto &a : b.args)
    if (a->type.isTensor() && !a->type.layout)
      return false;
  for (auto &op : b.ops) {
    for (auto &r : op->results)
      if (r->type.isTensor() && !r->type.layout)
        return false;
    for (auto &r : op->regions)
      if (!hasLayouts(*r->block))
        return false;
  }
  return true;
}

} // namespace

bool assignLayouts(ir::Function &fn, int numWarps, const std::string &arch) {
  TILE_ASSERT(numWarps >= 1 && (numWarps & (numWarps - 1)) == 0, "numWarps must be a power of two");
  LayoutAssigner(fn, numWarps, arch).run();
  return true;
}

transforms::Pass layoutPass(int numWarps, const std::string &arch) {
  return {"tile-layouts", [numWarps, arch](ir::Function &fn) { return assignLayouts(fn, numWarps, arch); }};
}

bool allTensorsHaveLayouts(const ir::Function &fn) { return hasLayouts(fn.entry()); }

} // namespace tile::gpu
