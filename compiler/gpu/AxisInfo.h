// AxisInfo.h - Triton's axis-info analysis over the tile IR: for every
// integer or pointer value, per dim, its contiguity (length of runs of
// consecutive values), divisibility (a power of two dividing the first
// value of each run; bytes for pointers) and constancy (length of runs of
// equal values). The layout pass reads it to pick vector widths.
#pragma once

#include "ir/IR.h"

#include <map>
#include <string>
#include <vector>

namespace tile::gpu {

/// One value's facts; scalars have one entry per vector.
struct AxisFacts {
  std::vector<int64_t> contiguity, divisibility, constancy;
};

class AxisInfo {
public:
  /// Facts of v; a conservative all-ones entry for unknown values.
  AxisFacts get(const ir::Value *v) const;
  /// The widest access (in elements, <= 16 bytes, a power of two) a thread
  /// can make along the last dim of a pointer tensor, given its contiguity
  /// and alignment and, when given, the mask's constancy. 1 when unknown.
  int vectorWidth(const ir::Value *ptrTensor, const ir::Value *mask = nullptr) const;

  std::map<const ir::Value *, AxisFacts> facts;
};

AxisInfo analyzeAxisInfo(const ir::Function &fn);

/// Test-only printer: one line per op result with facts, in walk order:
/// "add: contiguity = [1, 16], divisibility = [16, 16], constancy = [1, 1]".
std::string printAxisInfo(const ir::Function &fn);

} // namespace tile::gpu
