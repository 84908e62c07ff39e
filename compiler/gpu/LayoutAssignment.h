// LayoutAssignment.h - the layout-assignment pass ("tile-layouts"): gives
// every tensor value (op results and block arguments) a distributed layout,
// after Triton's Coalesce pass and layout propagation, simplified:
//   - values that must share a layout (elementwise operands and results,
//     load/store operands, broadcast in/out, dot acc/result, loop and if
//     carried values) form one class; a class with a load or store takes the
//     coalesced layout of its pointers (Triton's coalescing: the order's
//     fastest dim is the pointers' most contiguous dim, the vector width
//     along it from AxisInfo; the widest access of a class wins, ties go to
//     the default order, last dim fastest), a class
//     holding a reduce result takes its slice layout, a class feeding
//     expand_dims takes the matching slice, any other a default blocked one;
//   - where a use needs another layout (expand_dims operands, reduce results,
//     conflicting requirements), a cheap producer chain (constants, aranges,
//     splats, elementwise ops, broadcasts, expand_dims) is cloned in the
//     needed layout, anything else goes through convert_layout, placed right
//     after the producer (so loop-invariant values convert once);
//   - a dot that runs on tensor cores (f32 acc, M%16, N%8 zero, and f16/bf16
//     inputs with K%16 zero or f32 inputs, input_precision "tf32", K%8
//     zero) gives its class (acc, result, loop-carried acc) the m16n8
//     accumulator fragment layout, #blocked<[1, 2], [8, 4], [1, W], [1, 0]>,
//     ahead of load/store coalescing; the final store of such an
//     accumulator (up to 128 KiB, kMaxStoreConvertBytes) gets one convert after the loop;
//   - pointer arithmetic keeps its cheap offsets in its class, except where
//     one CSE'd index web feeds pointer classes whose accesses prefer
//     different orders (attention's q and kᵀ share `arange(0, 64)[None, :]`
//     when BLOCK_N == HEAD_DIM): the first keeps it, the other clones it;
//   - a stored value whose class has vector accesses in another dimension
//     order than its store's pointers keeps its class and is converted at
//     the store (a transpose stays coalesced on both sides);
//   - a stored value whose class holds a reduce result keeps the slice
//     layout and is converted at the store (a loop-carried running max
//     stored after the loop is not converted every iteration);
//   - the A operand of a wgmma dot (f16/bf16) defined outside the dot's loop
//     is converted once, before the loop, to the accumulator's layout, which
//     is wgmma's register-operand layout (attention's q); one computed in the
//     loop body from a load there by elementwise ops (`a.to(tl.float16)`)
//     is computed in that layout: the chain is cut from the load's class,
//     and the loaded tile is converted where the body reads it (the back end
//     reads it from a ring of shared memory: WgmmaToLLVM's register rings);
//   - dead ops are removed.
// Afterwards the function verifies. The interpreter ignores layouts.
#pragma once

#include "gpu/Layouts.h"
#include "ir/IR.h"
#include "transforms/PassManager.h"

#include <string>

namespace tile::gpu {

/// The one rule for which dots run on tensor cores (mma.sync m16n8k16 for
/// f16/bf16, m16n8k8 for f32 with input_precision "tf32"), shared by this
/// pass (their accumulators take the m16n8 fragment layout) and the LLVM
/// back end (DotToLLVM.cpp).
bool dotRunsOnTensorCores(const ir::Op &dot);

/// Tensor-core dots that run as Hopper warpgroup MMAs (wgmma.mma_async,
/// WgmmaToLLVM.cpp): sm_90a, f16/bf16 operands, whole warpgroups, M a
/// multiple of 16 x numWarps, N 64 or 128 (or 256), K 32 or a multiple of
/// 64; or f32 operands as tf32, computed transposed: N a multiple of 16 x
/// numWarps, M a multiple of 8 up to 256, K a multiple of 32; or 8-bit
/// operands (fp8 into f32, i8 into i32), K 64 or a multiple of 128. Their
/// accumulators take wgmmaAccLayout instead of the m16n8 one. An i8 dot
/// runs as wgmma or on the FMA path (there is no i8 mma.sync path).
bool dotRunsOnWgmma(const ir::Op &dot, int numWarps, const std::string &arch);

/// A dot of 8-bit operands (fp8 or i8): as wgmma, k32 steps with both
/// operands K-major in shared memory (wgmma reads no other order for them).
bool isByteDot(const ir::Op &dot);

/// Whether arch has cp.async (sm_80 and up); "" (no target) has not.
bool hasAsyncCopy(const std::string &arch);
/// Whether mma.sync dots take their operands by cp.async rings
/// (tile-pipeline's mmaRingDistance, the back end's mmaRingCandidate): on
/// unless TILE_MMA_RING=0 (the kernel cache does not key on it). With
/// their staging swizzled (no padding, no bank conflicts) the rings run the
/// tutorial's small configs at Triton's speed on the H100 (64x32x32 on 2
/// warps 174 against Triton's 173 TF/s; registers: 126); padded, they did
/// not (103); see bench/results/idioms-h100-2026-12-07-session27.md.
bool mmaRingsEnabled();
/// Whether dot may take its operands by cp.async rings of its mma.sync
/// staging (tile-pipeline's mmaRingDistance, tile-permute-loads, the back
/// end's mmaRingCandidate): rings on, a target with cp.async, an f16/bf16
/// dot on tensor cores that does not run as wgmma, N >= 8 x num_warps (no
/// replicated accumulator columns, whose dots split k instead).
bool mmaRingDot(const ir::Op &dot, int numWarps, const std::string &arch);

/// Opt-in shared memory per block of arch, in bytes.
int64_t sharedMemoryLimit(const std::string &arch);
/// Shared memory of one SM (all its programs, 1 KiB reserved for each).
int64_t sharedMemoryPerSM(const std::string &arch);
/// Room a loop's operand rings leave for the rest of its body's shared
/// memory (layout conversions, reductions) when the body has any.
constexpr int64_t kScratchReserve = 32 * 1024;

/// #blocked<[1, 2], [8, 4], [W, 1], [1, 0]>: lane l of warp w holds rows
/// 8w + l/4 + 8W*i and column pairs 2(l%4) + 8j. Each m64 wgmma block's
/// D fragment (rows 16w' + l/4 (+8), the same columns) is this with the
/// rows of A permuted as they are staged (WgmmaToLLVM.cpp).
/// transposed (tf32 dots, computed as Cᵀ = Bᵀ Aᵀ): #blocked<[2, 2], [4, 8],
/// [1, W], [0, 1]>: lane l of warp w holds rows 2(l%4) + {0,1} + 8j and
/// columns 16w + 2(l/4) + {0,1} + 16W*i, the D fragment of Cᵀ with Bᵀ's
/// rows permuted as its register fragments are loaded.
std::shared_ptr<const BlockedLayout> wgmmaAccLayout(int numWarps, bool transposed = false);

/// Assigns layouts for a program of numWarps warps compiled for arch
/// ("": no wgmma); returns true (it always changes a function with
/// tensors).
bool assignLayouts(ir::Function &fn, int numWarps, const std::string &arch = "");

/// The pass "tile-layouts" for numWarps warps.
transforms::Pass layoutPass(int numWarps = 4, const std::string &arch = "");

/// True when every tensor-typed value in fn has a layout.
bool allTensorsHaveLayouts(const ir::Function &fn);

} // namespace tile::gpu
