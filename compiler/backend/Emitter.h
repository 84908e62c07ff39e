// Emitter.h - the core of the LLVM IR emission (private to compiler/backend):
// maps each tile IR value to its per-thread registers and holds the helpers
// that the per-family lowering files (*ToLLVM.cpp) share.
//
// A tensor value is a Regs vector, one llvm::Value per register in the order
// of gpu::regOffsets for its layout; a scalar is one (uniform) value. Every
// register's coordinates follow from its Dist (offsets + thread bases).
#pragma once

#include "backend/Codegen.h"
#include "gpu/AxisInfo.h"
#include "gpu/Layouts.h"
#include "ir/IR.h"

#include <llvm/Analysis/InstSimplifyFolder.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <functional>
#include <map>
#include <set>
#include <vector>

namespace tile::backend {

using Regs = std::vector<llvm::Value *>;

/// Where the registers of a tensor live: per register the compile-time
/// offsets, per dim the thread-dependent base (Layouts.h).
struct Dist {
  std::vector<int64_t> shape;
  std::vector<std::vector<int64_t>> offsets;
  std::vector<gpu::DimBase> bases;
  size_t numRegs() const { return offsets.size(); }
  bool operator==(const Dist &o) const;
};

/// Registers per access run: the largest power of two n <= maxElems such
/// that every aligned group of n registers is consecutive along `dim` (the
/// last dim when -1). With `aligned`, every run also starts at a multiple
/// of n in every thread (register offsets and thread bases), so its address
/// is aligned to its size wherever a row is. 1 when no wider run exists.
size_t contiguousRun(const Dist &d, size_t maxElems, bool aligned = false, int dim = -1);

/// The coordinate along dim `dim` of register `reg` of thread (lane, warp)
/// of `d` (the DimBase formula, at compile time).
int64_t coordAt(const Dist &d, size_t dim, int64_t lane, int64_t warp, size_t reg);

/// The dim along which a layout's consecutive registers run: a blocked
/// layout's order[0], a slice's first parent dim in order that it keeps
/// (the last dim without a layout).
int fastestDim(const ir::Type &t);

using Builder = llvm::IRBuilder<llvm::InstSimplifyFolder>;

/// Four i8 registers as one i32 (byte k in bits 8k..8k+7): the lane of the
/// vector they were extracted from when they are one lane's bytes in order,
/// else packed.
llvm::Value *packWord(Builder &b, llvm::ArrayRef<llvm::Value *> bytes);

class Emitter {
public:
  Emitter(llvm::Module &m, const ir::Function &fn, const TargetOptions &opts);
  /// Emits the kernel function into the module; returns the bytes of
  /// dynamic shared memory it uses.
  int emitKernel();

  // ---- values
  llvm::LLVMContext &ctx;
  llvm::Module &mod;
  const ir::Function &fn;
  TargetOptions opts;
  /// Folds what InstSimplify proves as each instruction is built (x + 0,
  /// x * 1, x / 1, constants): about 12% less IR for LLVM (seed matmul).
  /// Loops build their header phis with openLoopPhi for it.
  Builder b;
  /// Contiguity, alignment and constancy facts of the final IR: accesses
  /// they prove vectorizable need no run-time test.
  gpu::AxisInfo axis;

  const Regs &regs(ir::Value *v) const;
  /// True when some op of the function reads v (computed once, on first ask).
  bool isUsed(const ir::Value *v);
  llvm::Value *scalar(ir::Value *v) const;
  void define(ir::Value *v, Regs r);
  /// Registers of v laid out as `want` (same shape): v's own registers when
  /// the distributions agree, a compile-time remap when possible, else a
  /// round trip through shared memory. Scalars are splatted.
  Regs regsAs(ir::Value *v, const ir::Type &want);
  /// Registers laid out as `from` re-laid out as `to` (same shape).
  Regs convertRegs(const Regs &r, const ir::Type &from, const ir::Type &to, Location loc);

  // ---- types and layouts
  llvm::Type *llvmType(ElemType e);
  llvm::Type *memType(ElemType e);   ///< i1 is stored as a byte
  Dist dist(const ir::Type &t) const;
  /// Per register, per dim: the i32 coordinate.
  std::vector<std::vector<llvm::Value *>> coords(const Dist &d);
  /// The thread's part (lane and warp) of its coordinate along one dim.
  llvm::Value *threadCoord(const gpu::DimBase &db);
  /// Row-major linear index (i32) of each register.
  Regs linearIndex(const Dist &d);
  /// The shared-memory index of each register for a 2-D conversion that
  /// swizzles (`conversionSwizzle`: a transpose, or an MMA accumulator to
  /// row vectors): row major, with the 16-byte chunks of row r permuted by
  /// XOR with (r / keyRows) % chunks, so that threads reading (or writing)
  /// down a column hit different banks while 16-byte row runs stay whole.
  Regs swizzledIndex(const Dist &d, int64_t chunk, int64_t keyRows);
  /// Per register, an i1: this thread is the one owner of the register's
  /// element among every (thread, register) holding it, so a store, an
  /// atomic or a shared-memory write of a replicated value is issued once
  /// (Triton's free-variable mask on stores). Derived from the layout: lane
  /// and warp bits that move no coordinate must be 0, and along a dim whose
  /// threads wrap around the shape only the first wrap owns. Empty when no
  /// element of `d` has two holders (the common case: no predicate).
  Regs owners(const Dist &d);
  /// The owner of a scalar, which every thread holds: thread 0.
  llvm::Value *scalarOwner();
  /// masks AND owners, register by register (either may be empty: no mask).
  Regs withOwners(Regs masks, const Regs &owners);

  // ---- threads and shared memory
  llvm::Value *lane = nullptr, *warp = nullptr, *tid = nullptr;
  /// The warp index broadcast from lane 0 (shfl.sync.idx): the same value
  /// as `warp`, but ptxas then knows it is uniform across the warp, so
  /// values computed from it (a warpgroup's wgmma descriptors) live in
  /// uniform registers instead of going through R2UR before every MMA, as
  /// Triton does. Built once, in the entry block, on first use.
  llvm::Value *uniformWarp();
  llvm::Value *uniformWarp_ = nullptr;
  llvm::Value *sreg(const char *name);
  llvm::Value *smemBase();
  /// bar.sync; shared memory is then "clean" (no access since a barrier).
  void barrier();
  /// Starts a use of shared memory (before its first store). Barrier
  /// invariant: every use is store(s) -> barrier -> load(s) at offset 0, and
  /// needs no earlier thread still reading the buffer when it stores. So a
  /// use starts with a barrier unless no shared access has happened since
  /// the last barrier on every path to here (smemClean); a use ends with no
  /// barrier, since the next use's leading barrier covers its loads. Kernel
  /// entry is clean; entering or leaving a region (for/while/if) is dirty
  /// (a loop body follows the previous iteration's loads).
  void beginSharedUse();
  bool smemClean = true;
  /// Innermost for loops being emitted: their body block and an i32 that
  /// alternates 0, 1, 0, ... by iteration (double-buffered dot operands).
  struct LoopFrame {
    const ir::Block *body;
    llvm::Value *parity;
    llvm::Value *iter = nullptr;   ///< 0, 1, 2, ... by iteration
    bool exitBarrier = false;   ///< a double-buffered dot ran in the body
  };
  std::vector<LoopFrame> loops;
  /// Tensor-core dots whose accumulator's warps replicate each other (N <
  /// 8 x numWarps): each of the R copies runs every R-th k step into its own
  /// partial sum, carried through the loop; the loop's exit adds them up
  /// (KSplit.cpp). Value: R.
  std::map<const ir::Op *, int64_t> kSplitDots;
  /// R when carried value i of the for `loop` is such a partial sum, else 0.
  int64_t kSplitReplicas(const ir::Op &loop, size_t i);
  /// Per accumulator register: the sum of the R copies' partial sums.
  Regs combineKSplit(const Regs &partial, const ir::Type &t, int64_t replicas, Location loc);
  /// The index (0..R-1) of this warp's copy of a replicated mma accumulator.
  llvm::Value *replicaIndex(int64_t n);
  /// Reserves `bytes` of shared memory for the current use (uses are
  /// separated by barriers, so every one starts at offset 0).
  /// `what` says what the bytes are for, in the error when they do not fit.
  void needShared(int64_t bytes, Location loc, const std::string &what = "");
  /// Raises the dynamic shared memory's alignment to `bytes` (wgmma's
  /// 128-byte swizzled operand atoms need 1024).
  void alignShared(unsigned bytes);
  /// Opt-in shared memory per block of opts.arch, in bytes.
  int64_t sharedLimit() const;
  /// Stores regs (laid out as `from`) to shared memory at their row-major
  /// index, at byte offset `base`; no barrier.
  void storeShared(const Regs &r, const Dist &from, llvm::Type *ty, int64_t base);
  /// The same at the given indices.
  void storeSharedAt(const Regs &r, const Regs &idx, const Dist &from, llvm::Type *ty, int64_t base);
  /// A store issued only where `cond` (null: always), as a branch around it.
  void storeIf(llvm::Value *cond, llvm::Value *val, llvm::Value *ptr, llvm::MaybeAlign align = {});
  /// Loads the element at a row-major index from shared memory.
  llvm::Value *loadShared(llvm::Value *index, llvm::Type *ty, int64_t base);
  Regs throughShared(const Regs &r, const Dist &from, const Dist &to, llvm::Type *ty, Location loc);
  /// A 16-bit conversion through shared memory read back with ldmatrix
  /// (LdmatrixConvert.cpp): `from` and `to` linear, every element held
  /// once, power-of-two shapes; to's dim j is from's dim dimMap[j] (a
  /// permute), or, with no dimMap, the same row-major order (a conversion
  /// or a reshape). Empty when not admitted (nothing emitted).
  std::optional<Regs> throughLdmatrix(const Regs &r, const Dist &from, const Dist &to, const std::vector<int> &dimMap,
                                      Location loc);
  /// A conversion by warp shuffles (no shared memory, no barrier) when
  /// every `to` register of every thread is one `from` register (the same
  /// for all threads) of a lane of its own warp, for at most 32 registers
  /// of at most 32 bits a thread (a loaded vector broadcast against an MMA
  /// accumulator: attention backward's m and delta). Empty otherwise.
  std::optional<Regs> throughShuffles(const Regs &r, const Dist &from, const Dist &to);
  /// throughShuffles in two rounds, the second with immediate source
  /// lanes (gpu::planSegmentedShuffle); `source`: the `from` register of
  /// each `to` register; srcLanes: its source lane per thread. Empty when
  /// not so planned.
  std::map<std::vector<int64_t>, llvm::GlobalVariable *> laneTables;   ///< segmentedShuffles' permutations
  std::optional<Regs> segmentedShuffles(const Regs &r, const std::vector<size_t> &source,
                                        const std::vector<std::vector<int64_t>> &srcLanes);
  /// Register remapping when every `to` register is some `from` register in
  /// every thread; dimMap[j] is the `from` dim feeding `to` dim j (-1: none,
  /// the from-dim has size 1 or is absent). Empty when impossible.
  std::optional<Regs> remap(const Regs &r, const Dist &from, const Dist &to, const std::vector<int> &dimMap) const;

  /// A loop header's phi (at the insert point) for a value entering from
  /// `pre` as `init`. Until closeLoopPhi gives it the latch's value, an
  /// opaque stand-in (a freeze of poison in `pre`) holds that place: the
  /// folder threads operations over phis and would otherwise fold the body
  /// as if the loop ran once.
  llvm::PHINode *openLoopPhi(llvm::Value *init, llvm::BasicBlock *pre);
  void closeLoopPhi(llvm::PHINode *phi, llvm::Value *next, llvm::BasicBlock *latch);
  /// A counted loop k = start..end-1 carrying `init`; body(k, current)
  /// returns the next values. Returns the values after the loop.
  Regs countedLoop(int64_t start, int64_t end, const Regs &init,
                   const std::function<Regs(llvm::Value *, const Regs &)> &body);

  // ---- inline PTX
  /// x / y as div.full.f32 (f32 operands).
  llvm::Value *approxDiv(llvm::Value *x, llvm::Value *y);
  /// A conversion to or from fp8 (bytes): cvt ... .e4m3x2 / .e5m2x2, as
  /// Triton on sm_90 (support/DType.h: toFp8Bits), one element at a time.
  llvm::Value *fp8Cast(const ir::Op &op, Scalar from, Scalar to, llvm::Value *x);
  /// An f32 -> f16/bf16 cast that downcastPairs emits two at a time.
  bool packedDowncast(ElemType from, ElemType to) const;
  Regs downcastPairs(const Regs &x, Scalar to);
  /// An i8/u8 -> f16 cast of four registers at a time (bytesToHalves).
  bool castsInQuads(const ir::Op &op) const;
  Regs bytesToHalves(const Regs &x, bool isSigned);
  llvm::Value *inlinePtx(llvm::Type *ret, const std::string &text, const std::string &constraints,
                         llvm::ArrayRef<llvm::Value *> ins);
  /// An instruction with no side effects that touches no memory: LLVM may
  /// CSE, hoist or drop it.
  llvm::Value *purePtx(llvm::Type *ret, const std::string &text, const std::string &constraints,
                       llvm::ArrayRef<llvm::Value *> ins);
  llvm::CallInst *asmCall(llvm::Type *ret, const std::string &text, const std::string &constraints,
                          llvm::ArrayRef<llvm::Value *> ins, bool sideEffects);

  // ---- libdevice (Libdevice.cpp)
  /// Calls the libdevice function `fnName` (same type in and out); fails at
  /// op when libdevice is not installed. Sets libdevicePath.
  llvm::Value *libdeviceCall(const char *fnName, llvm::Value *x, const ir::Op &op);
  std::string libdevicePath;   ///< non-empty once a libdevice function is called

  // ---- arithmetic helpers shared by the families
  llvm::Value *i32(int64_t v) { return b.getInt32(static_cast<uint32_t>(v)); }
  llvm::Value *toF32(llvm::Value *v, Scalar s);
  llvm::Value *fromF32(llvm::Value *v, Scalar s);
  bool isNarrowFloat(Scalar s) const { return s == Scalar::F16 || s == Scalar::BF16; }

  // ---- lowering
  void emitBlock(ir::Block &blk);
  void emitOp(ir::Op &op);
  // ElementwiseToLLVM.cpp
  void emitConstant(ir::Op &op);
  void emitArange(ir::Op &op);
  void emitProgramId(ir::Op &op);
  void emitElementwise(ir::Op &op);
  /// An elementwise op's operand registers in its result's distribution.
  std::vector<Regs> elementwiseInputs(ir::Op &op);
  /// Register r of an elementwise op's result from its operands' (not the
  /// paired f16/bf16 downcast: castsInPairs).
  llvm::Value *elementwiseReg(const ir::Op &op, const std::vector<Regs> &in, size_t r);
  /// A cast to f16/bf16 that rounds two registers at once (downcastPairs).
  bool castsInPairs(const ir::Op &op) const;
  llvm::Value *binaryScalar(const ir::Op &op, ElemType t, llvm::Value *a, llvm::Value *c);
  llvm::Value *unaryScalar(const ir::Op &op, ElemType t, llvm::Value *a);
  llvm::Value *castScalar(const ir::Op &op, ElemType from, ElemType to, llvm::Value *a);
  llvm::Value *cmpScalar(const ir::Op &op, ElemType t, llvm::Value *a, llvm::Value *c);
  // MathToLLVM.cpp
  /// erf, tanh, pow: one libdevice call per register (f16/bf16 through f32).
  void emitMathCall(ir::Op &op);
  void emitExternCall(ir::Op &op);
  // InlineAsmToLLVM.cpp
  /// tl.inline_asm_elementwise: one LLVM inline-asm call per `pack` registers.
  void emitInlineAsm(ir::Op &op);
  // LoadStoreToLLVM.cpp
  void emitLoad(ir::Op &op);
  void emitStore(ir::Op &op);
  // ShapeOpsToLLVM.cpp
  void emitSplat(ir::Op &op);
  void emitBroadcast(ir::Op &op);
  void emitExpandDims(ir::Op &op);
  void emitViaShared(ir::Op &op);   ///< convert_layout, reshape, permute
  /// Whether a permute's result layout is its operand's with the dims
  /// reordered (a register remap: no shared memory).
  bool permutesInRegisters(const ir::Op &op) const;
  // ReduceToLLVM.cpp
  void emitReduce(ir::Op &op);
  bool reduceWithShuffles(ir::Op &op);   ///< false: layout unsuited, nothing emitted
  void reduceThroughShared(ir::Op &op);
  std::map<const std::vector<size_t> *, llvm::Value *>
  partialOwners(const ir::Type &sliceType, const std::vector<const std::vector<size_t> *> &order,
                const gpu::DimBase &axisBase);
  /// shfl.sync.bfly.b32 of v (up to 64 bits) with lane ^ laneMask, all lanes.
  llvm::Value *shuffleXor(llvm::Value *v, int laneMask);
  // DotToLLVM.cpp
  void emitDot(ir::Op &op);
  /// dot on tensor cores (mma.sync m16n8k16, or m16n8k8 tf32); false:
  /// shapes or types unsuited, nothing emitted.
  bool dotWithMma(ir::Op &op);
  /// An mma.sync dot's operand staging (DotToLLVM.cpp): a (M x K) then b
  /// (K x N), row-major, or an f16/bf16 operand whose registers run along
  /// its dimension 0 transposed (`transA`: a as K rows of M; `transB`: b as
  /// N rows of K; mmaStagingAlong). f16/bf16 rows of a power-of-two count
  /// of 16-byte chunks are unpadded, their chunks XOR-swizzled by row
  /// (`swizzleA`, `swizzleB`): in a cp.async ring (`ring`) always, staged
  /// from registers only below 128 bytes (where padded rows' stores
  /// conflict); other rows are padded (16 bytes; tf32 b 8 words).
  struct MmaStaging {
    int64_t esize, stride, strideB, offB, bytes;   ///< element bytes; elements a row of a and of b; byte offset of b; in all
    bool swizzleA = false, swizzleB = false, transA = false, transB = false;
  };
  MmaStaging mmaStaging(const ir::Op &dot, bool ring) const;
  /// The dimension along which an mma.sync operand of type t is staged in
  /// rows: 0 when its registers run along dimension 0 by at least two
  /// elements (a k-major b, an m-major a), else 1.
  int mmaStagingAlong(const ir::Type &t) const;
  /// Byte offset in an mma staging of element (row, col) of a (operand 0)
  /// or b (operand 1); b's offset offB included.
  llvm::Value *stagingOffset(const MmaStaging &st, int operand, llvm::Value *row, llvm::Value *col);
  /// Whether dot may take its operands by cp.async into a ring
  /// (planRingOperands): mma.sync with f16/bf16 operands, its accumulator
  /// in the fragment layout with no replicated columns (N >= 8 warps).
  bool mmaRingCandidate(const ir::Op &dot) const;
  llvm::Value *doubleBufferedBase(const ir::Op &op, bool direct, int64_t bufBytes);
  // WgmmaToLLVM.cpp
  /// dot as Hopper warpgroup MMAs (wgmma.mma_async); false: not admitted
  /// by gpu::dotRunsOnWgmma or its accumulator not in wgmmaAccLayout.
  bool dotWithWgmma(ir::Op &op);
  /// wgmma's register A fragments (4 b32 each) of an f16/bf16 `a` in the
  /// accumulator's fragment layout, per m64 block and k16 step.
  std::vector<std::vector<std::vector<llvm::Value *>>> registerFragsA(ir::Value *a, int64_t blocks, int64_t steps);
  /// True when carried value i of the for `loop` is the accumulator of a
  /// wgmma dot directly in its body that only that dot reads and whose
  /// result only the yield takes: the dot then leaves its MMAs in flight
  /// into the next iteration (waiting for them just before its own
  /// barrier) and stages operands in two buffers; the loop's exit waits.
  bool wgmmaInFlight(const ir::Op &loop, size_t i);
  /// The dots wgmmaInFlight admitted; true: their loop body uses no other
  /// shared memory, so their buffers are the scratch region itself (the
  /// loop's entry then begins a shared use), else buffers of their own
  /// (dotBuffers).
  std::map<const ir::Op *, bool> pipelinedWgmma;
  /// wgmma.wait_group `pending` (0: all), with the accumulator registers
  /// threaded through it (nothing reads them before the wait).
  Regs wgmmaWait(const Regs &acc, int pending = 0);
  /// acc threaded through inline asm (`text` in the first chunk, none in
  /// the others), so that nothing reads it before and LLVM sees opaque values.
  Regs tieRegisters(const Regs &acc, const std::string &text);
  // WgmmaEpilogue.cpp
  /// The ops after a fresh wgmma dot that run one column chunk at a time as
  /// its MMAs finish: early ops (register-only broadcasts, expand_dims,
  /// splats, constants) emitted before the MMAs, and chain ops
  /// (elementwise, in the product's layout), emitted chunk by chunk; empty
  /// when the product has another reader.
  struct DotEpilogue {
    std::vector<ir::Op *> early, chain;
  };
  DotEpilogue planDotEpilogue(ir::Op &dot);
  /// How a dot's MMAs split: m64 blocks, column chunks of each, registers a chunk.
  struct ChunkShape {
    int64_t blocks, chunks, perChunk;
  };
  /// Issues chunk (m, c) by issueChunk (its MMAs, fresh registers), two in
  /// flight at a time; after each one's wait, emits the epilogue's early
  /// ops (first) and chain ops for its registers (slot[m][c * perChunk +
  /// i] of the product); defines the product and the chain's results.
  void emitChunkedEpilogue(ir::Op &dot, const DotEpilogue &epi, ChunkShape shape,
                           const std::vector<std::vector<size_t>> &slot, size_t numRegs,
                           const std::function<Regs(int64_t, int64_t)> &issueChunk);
  /// Ops emitted ahead of their place (a dot's chunked epilogue): emitOp
  /// skips them there.
  std::set<const ir::Op *> emittedAhead;
  /// Reserves `bytes` of dynamic shared memory placed after every scratch
  /// use (the offset is a constant fixed once the kernel is emitted), for
  /// operand buffers that stay live across a loop; returns its address.
  llvm::Value *dotBuffers(int64_t bytes, Location loc);
  int64_t dotBufferBytes = 0;   ///< the most ever reserved at once
  int64_t dotBufferTop = 0;     ///< reserved now (rings of a finished loop are given back)
  /// Scratch uses outside every loop while no dot buffer is reserved,
  /// after rings were given back (an epilogue's convert after the K loop),
  /// may overlap the dot buffers' memory: their bytes count apart, and the
  /// next dot buffer reserved after such a use waits at a barrier for its
  /// readers (dotBuffers).
  int64_t freeSharedBytes = 0;
  bool ringsReleased = false;
  bool freeScratch() const { return ringsReleased && dotBufferTop == 0 && loops.empty(); }
  /// Per loop with rings of its own (planRingOperands): its ring dots; per
  /// ring dot: where its ring starts among the dot buffers.
  std::map<const ir::Op *, std::vector<const ir::Op *>> loopRings;
  std::map<const ir::Op *, int64_t> ringAt;
  /// After a loop with rings of its own: a barrier (every warp's last MMAs
  /// reading them are done, so whatever runs next, a sibling loop reusing
  /// the memory or the next round of an enclosing loop refilling them, may
  /// write them) and the rings' memory given back.
  void releaseRings(const ir::Op &loop);
  /// wgmma dots whose A is defined before their loop and is not read from
  /// registers: A is staged once before the loop into a dot buffer of its
  /// own (planInvariantOperands, stageInvariantOperands); per such dot: its
  /// loop and its buffer; per such loop: where its first buffer starts
  /// among the dot buffers (given back with its rings).
  std::map<const ir::Op *, const ir::Op *> ownA;
  std::map<const ir::Op *, llvm::Value *> ownABase;
  std::map<const ir::Op *, int64_t> ownAAt;
  /// Per staged A value: its buffer, kept after its loop while a later loop
  /// of the same block stages the same value (the causal attention
  /// backward's k and v, read by a masked and an unmasked loop), which then
  /// reads it instead of staging it again (its registers die at the first).
  struct StagedA {
    llvm::Value *base;
    int64_t at, end;
    const ir::Block *block;
    bool written;
  };
  std::map<const ir::Value *, StagedA> stagedA;
  std::set<const ir::Op *> releasedLoops;
  /// The buffer of dot's own A (reserved at its loop's first ring, below
  /// the rings, or at the loop): an earlier loop's of the same value in the
  /// same block, else a new one.
  StagedA &ownABuffer(const ir::Op &dot, const ir::Op &loop);
  void reserveInvariantOperands(const ir::Op &loop);
  void planInvariantOperands(ir::Op &loop);
  void stageInvariantOperands(const ir::Op &loop);
  /// Off in the emission that retries a kernel whose buffers did not fit.
  bool ownOperands = true;
  bool usedOwnOperands = false;
  llvm::GlobalVariable *dotBufferAt = nullptr;
  /// Operand tiles of pipelined wgmma dots (in the scratch region) that go
  /// from global to shared memory by cp.async instead of through registers:
  /// the tiles the pipeline pass prefetches one iteration ahead, loaded
  /// before the loop (into buffer 0) and in its body (into the next
  /// iteration's buffer). planAsyncOperands finds them before emission.
  struct AsyncOperand {
    const ir::Op *dot;
    int operand;      ///< 0: a, 1: b, 2: a register ring's tile (`dot` is its convert)
    int stage;        ///< before the loop: the iteration (0 .. depth-1) it loads; -1: in the body
  };
  /// Per async dot: how many iterations ahead its tiles are loaded (the
  /// pipeline's distance d); the ring has d + 1 buffers.
  std::map<const ir::Op *, int> asyncDepth;
  /// Per async dot: copies emitted so far (a commit group closes each pair).
  std::map<const ir::Op *, int> asyncIssued;
  std::map<const ir::Op *, AsyncOperand> asyncLoads;          ///< by load
  std::set<std::pair<const ir::Op *, size_t>> asyncCarried;   ///< (for, carried index) of such tiles
  std::set<const ir::Op *> asyncDots;
  /// Async dots in flight whose A alone goes by cp.async: B is computed in
  /// registers (`tl.dot(a, w.to(tl.float16), acc)`, dequantized weights)
  /// and staged each iteration into its slot of the ring, beside A.
  std::set<const ir::Op *> stagedB;
  /// Whether carried value i of loop is the accumulator of a stagedB dot.
  bool stagesB(const ir::Op &loop, size_t i) const;
  void planAsyncOperands(ir::Block &blk);
  /// Operand k's carried chain (indices of the loop's carried values, the
  /// tile of this iteration first) when every tile of it can go by
  /// cp.async to dot's staging layout; empty otherwise.
  std::vector<size_t> asyncChain(ir::Op &loop, const ir::Op &dot, int k);
  /// The carried chain of `v` (as asyncChain) that `consumer` alone reads,
  /// each tile from a load that `qualifies` (value, its block, its one user).
  using LoadTest = std::function<bool(const ir::Value *, const ir::Block &, const ir::Op *)>;
  std::vector<size_t> carriedChain(ir::Op &loop, const ir::Op &consumer, const ir::Value *v, const LoadTest &qualifies);
  /// Register rings: a convert_layout of a carried tile into a ring dot's
  /// A fragment layout (computed A, LayoutAssignment's computedWgmmaA)
  /// whose tiles cp.async copies into a ring of their own; the convert
  /// reads its iteration's slot with ld.shared (Triton's local_load). Off
  /// when the kernel is emitted again because the rings did not fit.
  bool registerRings = true;
  bool usedRegisterRings = false;
  /// The carried chain of a convert's operand when it can be a register
  /// ring; empty otherwise.
  std::vector<size_t> registerRingChain(ir::Op &loop, const ir::Op &convert);
  /// Whether the load defining v (in scope, used by onlyUser alone) can go
  /// by cp.async: 16-byte chunks along `along` proven contiguous, aligned
  /// and uniformly masked, `other` zero (cp.async's zero fill).
  bool copiesBy16Bytes(const ir::Value *v, const ir::Block &scope, const ir::Op *onlyUser, int along);
  /// cp.async of each 16-byte chunk of load's tile to base + offset(its
  /// coordinates), src-size 0 where masked off.
  using ChunkOffset = std::function<llvm::Value *(const std::vector<llvm::Value *> &)>;
  void copyChunks(ir::Op &load, llvm::Value *base, const ChunkOffset &offset);
  /// A register ring's cp.async of one tile, and the convert's read.
  void emitRingCopy(ir::Op &load, const AsyncOperand &a);
  void emitRingRead(ir::Op &convert);
  /// The ring of `consumer` (a ring dot or a register ring's convert), in
  /// the dot buffers, reserved at its first copy (before the loop).
  llvm::Value *ringRegion(const ir::Op &consumer, int64_t bytes, Location loc);
  /// cp.async.wait_group n.
  void asyncWaitGroup(int n);
  void markAsync(ir::Op &loop, const ir::Op *dot, int k, const std::vector<size_t> &chain);
  /// An async dot's ring: depth + 1 slots, or depth + 2 (a spare one) where
  /// it fits, so that its copies never refill a slot the previous
  /// iteration's MMAs may still read and no barrier follows its
  /// wgmma.wait_group (into ringSlots).
  void planSpareSlot(const ir::Op &dot);
  bool hasSpareSlot(const ir::Op &dot) const {
    auto slots = ringSlots.find(&dot), depth = asyncDepth.find(&dot);
    return !asyncWait.count(&dot) && slots != ringSlots.end() && depth != asyncDepth.end() &&
           slots->second == depth->second + 2;
  }
  /// The dots of loop (none in flight) with A from registers whose B goes
  /// by cp.async into a ring of their own (WgmmaToLLVM.cpp).
  void planRingOperands(ir::Op &loop);
  void planRingOperandsOf(ir::Op &loop);
  /// Ring aliases (Triton's memdesc_trans): a dot whose B is tl.trans of
  /// a ring dot's carried B tile (the attention backward's qᵀ and do, read
  /// by two dots each) reads that dot's ring slot through a descriptor of
  /// the other operand order, with no copy, wait or barrier of its own;
  /// per such dot: the ring's owner. `aliasPermutes` are the permutes
  /// between them (no registers), `aliasCandidates` (the carried tile: its
  /// permute) those planRingOperands tries.
  std::map<const ir::Op *, const ir::Op *> ringAlias;
  std::set<const ir::Op *> aliasPermutes;
  std::map<const ir::Value *, const ir::Op *> aliasCandidates;
  void planRingAliases(ir::Op &loop);
  void keepRingAliases(const ir::Op &loop);
  /// Bytes of one slot of dot's ring (a wgmma dot's Geometry, an mma.sync
  /// dot's MmaStaging), and an mma.sync ring dot's cp.async of one tile.
  int64_t ringSlotBytes(const ir::Op &dot) const;
  void emitMmaRingCopy(ir::Op &load, const AsyncOperand &a);
  /// cp.async.commit_group; the ring slot `ring` (its consumer) reads this
  /// iteration, and the slot a's copy goes to (its prologue stage, or
  /// iteration i + depth's); a tile's copy into a ring of its own (slots of
  /// slotBytes, the tile at off in its slot), one commit group.
  void asyncCommitGroup();
  llvm::Value *readSlot(const ir::Op &ring);
  llvm::Value *copySlot(const AsyncOperand &a);
  void copyToOwnRing(ir::Op &load, const AsyncOperand &a, int64_t slotBytes, int64_t off, const ChunkOffset &offset);
  /// Whether a ring of `slots` slots of the dot's tiles fits in shared memory.
  bool ringFits(const ir::Op &dot, int64_t slots);
  /// Per dot of planRingOperands: its cp.async.wait_group count, and its ring.
  std::map<const ir::Op *, int> asyncWait;
  std::map<const ir::Op *, llvm::Value *> ringBase;
  /// Ring dots whose tile an earlier dot of the body waited for (no wait,
  /// no barrier of their own).
  std::set<const ir::Op *> asyncWaitedBefore;
  /// Per ring: its slots (depth + 1; one more when its MMAs run on, or for
  /// an async dot's spare slot).
  std::map<const ir::Op *, int> ringSlots;
  /// Dots whose MMAs run on into the next iteration (planDeferredWaits),
  /// the dot whose wait ends them (with the carried accumulator it waits
  /// for), and the loops' carried indices of those accumulators (waited
  /// for after the loop).
  std::set<const ir::Op *> deferredDots;
  std::map<const ir::Op *, ir::Value *> deferredWait;
  std::set<std::pair<const ir::Op *, size_t>> deferredCarried;
  void planDeferredWaits(ir::Op &loop);
  /// A dot that runs as wgmma with its accumulator in the untransposed
  /// fragment layout (f16/bf16: planRingOperands, planDeferredWaits).
  bool wgmmaAccDot(const ir::Op &o) const;
  /// A load of asyncLoads: cp.async of each 16-byte chunk to its swizzled
  /// place, src-size 0 where masked off (zero fill), one commit group.
  void emitAsyncCopy(ir::Op &load, const AsyncOperand &a);
  /// A value with no registers (a tile that lives in shared memory).
  void defineVirtual(ir::Value *v) { values_[v] = {}; }
  /// f32 `v` as tf32 (truncateToTF32: the low 13 bits dropped), as an i32
  /// holding the tf32 bits.
  llvm::Value *toTf32(llvm::Value *v);
  // ControlFlowToLLVM.cpp
  /// True when the loop ends with a barrier (smemClean then stays exact).
  bool emitFor(ir::Op &op);
  void emitWhile(ir::Op &op);
  void emitIf(ir::Op &op);
  void emitPrint(ir::Op &op);
  void emitAssert(ir::Op &op);
  /// Values of a region's terminator (yield/condition), in its block's
  /// current state; registers laid out as `types`.
  std::vector<Regs> terminatorValues(ir::Op &term, const std::vector<ir::Type> &types, size_t first);

  llvm::Function *kernel = nullptr;
  int64_t sharedBytes = 0;
  /// Static shared memory (double-buffered dot operands), beside the
  /// dynamic buffer; counted against the same limit.
  int64_t staticSharedBytes = 0;

private:
  std::map<ir::Value *, Regs> values_;
  std::optional<std::set<const ir::Value *>> used_;
  llvm::GlobalVariable *smem_ = nullptr;
};





/// The libdevice bitcode's path ("" when absent; `looked` lists the paths
/// tried).
std::string findLibdevice(std::string *looked);
/// Links the libdevice functions m calls into m (internalized) and sets
/// the nvvm-reflect-ftz flag to 0.
void linkLibdevice(llvm::Module &m, const std::string &path, Location loc);

} // namespace tile::backend
