// Printer.h - the textual form of the tile IR (what tile-opt reads and
// writes, what --print-ir-after dumps and what lit tests check).
//
// Syntax (one op per line, regions indented by two spaces):
//   tile.func @name(%a: ptr<f32>, %n: i32) loc("k.tile":3:1) {
//     %0 = constant {value = 16} : i32 loc("k.tile":4:9)
//     %1 = add %n, %0 : i32
//     %2 = for %lb, %ub, %st, %init : f32 {
//     ^bb0(%3: i32, %4: f32):
//       yield %4 : f32
//     }
//     store %a, %x : ptr<f32>, f32
//   }
// After `:` come the result types, or the operand types for ops without
// results (store, yield, ...). Attributes are sorted by name; floats print in
// the shortest form that reads back to the same double. Multi-region ops
// separate their regions with a keyword: `} else {` (if), `} do {` (while).
#pragma once

#include "ir/IR.h"

#include <string>

namespace tile::ir {

struct PrintOptions {
  bool locations = true;   ///< append loc("file":line:col) to ops that have one
};

std::string printType(const Type &t);
std::string printAttr(const Attr &a);
std::string print(const Function &fn, const PrintOptions &opts = {});
std::string print(const Module &m, const PrintOptions &opts = {});

} // namespace tile::ir
