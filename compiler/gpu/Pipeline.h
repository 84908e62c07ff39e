// Pipeline.h - software pipelining of loads in `for` loops ("tile-pipeline"),
// Triton's num_stages: the loads of later iterations are issued at the end
// of the current one so they are in flight while it computes. Distance 1
// (the next iteration) for loads whose tiles wait in registers;
// num_stages - 1 for the operand tiles of dots that run as wgmma when they
// can go by cp.async (16-byte runs proven, `other` zero), whose tiles wait
// in shared memory (the back end's ring of num_stages buffers,
// WgmmaToLLVM.cpp), less where two programs an SM fit by registers and the
// ring would keep the second out of shared memory (never below 2); the same for a tile that reaches such a dot's A
// through elementwise ops (`a.to(tl.float16)`) when its B goes so and both
// rings fit in shared memory (the back end's register ring).
//
// Which loads: those whose value reaches an operand tile of a dot in the
// body (Triton's rule), or every load when the loop says
// tl.range(..., num_stages=n) (its `num_stages` attribute). Memory-bound
// loops (layer norm, softmax over column blocks) keep their loads in place:
// there the prefetch only adds instructions (measured on the H200).
//
// A load at the top level of a for body is pipelined when its operands
// depend, through pure region-free ops (integer div/rem only by a constant
// other than 0 and -1: an extra evaluation must not trap), only on values defined outside the loop,
// the induction variable, and "address-like" carried values (those whose
// yielded value is itself computable that way; a fixpoint), and no op before
// it in the body may store (moving the load earlier would reorder them).
// For each such load:
//   - before the loop, its slice is cloned with iv = lb and carried values =
//     their inits, the load masked by `lb < ub` (not when that is a known
//     constant true) so a zero-trip loop reads nothing;
//   - the loop carries the loaded value as a new last iter_arg; uses of the
//     load in the body use that argument;
//   - before the yield, the slice is cloned with iv = iv + step and carried
//     values = what this iteration yields, masked by `iv + step < ub`
//     (`>` for a negative step), and yielded; the original load goes.
// A load given a mask where it had none gets other = 0; a 2-D mask
// `broadcast(slice) & rest` whose slice varies only along the load's
// contiguous dim takes the guard into the slice before the broadcast (one
// `and` an element, not two). Loops whose step is
// not a nonzero integer constant are left alone. New values copy their types
// from the values they derive from, so the pass works with or without
// layouts. Dead ops are removed at the end (DCE).
//
// Known limits: the next-iteration slice runs once more than before; with
// the interpreter's offset-overflow check (on by default) an i32 overflow warning is
// possible there, and `iv + step` may wrap for bounds near the type's max.
#pragma once

#include "ir/IR.h"
#include "transforms/PassManager.h"

#include <string>

namespace tile::gpu {

struct PipelineTarget {
  int numStages = 3;
  int numWarps = 4;
  std::string arch;   ///< "": no wgmma, every distance is 1
};

/// Pipelines the loads of every for loop of fn (a no-op for numStages <=
/// 1). Returns true when fn changed.
bool pipelineLoops(ir::Function &fn, const PipelineTarget &target);
/// The same with distance 1 everywhere (no wgmma target).
bool pipelineLoops(ir::Function &fn, int numStages);

/// The pass "tile-pipeline" for numStages stages.
transforms::Pass pipelinePass(int numStages = 3);

} // namespace tile::gpu
