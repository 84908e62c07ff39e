// AxisInfo.h - Triton's axis-info analysis over the tile IR: for every
// integer or pointer value, per dim d,
//   contiguity[d]   runs of that many consecutive values along d (value
//                   +1 per index; pointers +1 element), the runs starting
//                   at indices that are multiples of it;
//   divisibility[d] a power of two dividing every value at an index whose
//                   d coordinate is a multiple of contiguity[d] (the first
//                   of each run; every value when contiguity[d] == 1);
//                   bytes for pointers;
//   constancy[d]    runs of that many equal values along d, starting at
//                   multiples of it;
// and, when it is known, the one value a value has everywhere.
//
// The transfer functions follow Triton's lib/Analysis/AxisInfo.cpp, where
// its rules are sound, and generalize some (runs shorter than the whole
// dim, shifts and masks, or/xor/and with runs). As in Triton, the rules for
// `//`, `%` and widening casts assume that the dividends (offsets) are not
// negative: C truncation of a negative dividend breaks runs that the rule
// claims (-5 % 4, -4 % 4, -3 % 4 = -1, 0, -3). Facts of values carried
// around loops are a fixpoint over the iterations. The layout pass and the
// back end read the facts for vector widths and layout orders.
#pragma once

#include "ir/IR.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tile::gpu {

/// One value's facts; scalars have one entry per vector.
struct AxisFacts {
  std::vector<int64_t> contiguity, divisibility, constancy;
  std::optional<int64_t> constant;   ///< the value everywhere, when known (integers)
};

class AxisInfo {
public:
  /// Facts of v; a conservative all-ones entry for unknown values.
  AxisFacts get(const ir::Value *v) const;
  /// The widest access (in elements, <= 16 bytes, a power of two) a thread
  /// can make along `dim` (the last dim when -1) of a pointer tensor, given
  /// its contiguity and alignment and, when given, the mask's constancy.
  /// 1 when unknown.
  int vectorWidth(const ir::Value *ptrTensor, const ir::Value *mask = nullptr, int dim = -1) const;
  /// The dims of a pointer tensor by decreasing contiguity, ties in the
  /// default order (later dims first): the order of a coalesced layout for
  /// an access through it (Triton's coalescing).
  std::vector<int64_t> accessOrder(const ir::Value *ptrTensor) const;

  std::map<const ir::Value *, AxisFacts> facts;
};

AxisInfo analyzeAxisInfo(const ir::Function &fn);

/// Test-only printer: "axis info of @NAME", then in walk order one line
/// per op result with facts,
/// "add: contiguity = [1, 16], divisibility = [16, 16], constancy = [1, 1],
/// constant_value = <none>", and for each region of an op, first a line
/// per block argument, "^arg1: contiguity = ...".
std::string printAxisInfo(const ir::Function &fn);

} // namespace tile::gpu
