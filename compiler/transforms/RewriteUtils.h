// RewriteUtils.h - helpers shared by the rewriting passes: a value
// replacement map applied while walking, deferred op erasure, constant
// matching and the purity predicates.
//
// Passes walk ops in program order; a use always comes after its
// definition in that order (the verifier guarantees it), so remapping each
// op's operands just before visiting it applies every earlier replacement.
// Erased ops are kept alive until the Rewriter dies so that a freed Value's
// address can never be reused by a new value that the map still names.
#pragma once

#include "ir/IR.h"

#include <functional>
#include <map>
#include <optional>

namespace tile::ir {

/// The value of a constant op (or a splat of one), as stored in its attr.
struct ConstVal {
  bool isFloat = false;
  int64_t i = 0;
  double f = 0.0;
};

/// The constant behind v: a `constant` op or a `splat` of one.
std::optional<ConstVal> matchConstant(const Value *v);
/// True when v is an integer constant equal to `x` after wrapping both to v's
/// element type, or a float constant bit-identical to `x` (for x = -0.0).
bool isConstInt(const Value *v, int64_t x);
bool isConstFloat(const Value *v, double x);

/// Pure ops without regions: removable when unused, mergeable by CSE.
/// Loads are pure for DCE but never merged (a store may come between).
bool isPureOp(const Op &op);

class Rewriter {
public:
  explicit Rewriter(Function &fn) : fn_(fn) {}
  ~Rewriter();

  /// Walks every op in program order: remaps its operands, walks its
  /// regions, then calls visit(op). visit may erase op or insert before it.
  void walk(const std::function<void(Op &)> &visit);

  Value *resolve(Value *v) const;
  /// Replaces every use of op's results with vals and erases op.
  void replaceOp(Op &op, const std::vector<Value *> &vals);
  /// Unlinks op from its block; it is destroyed with the Rewriter.
  void erase(Op &op);
  /// A Builder inserting right before op, with op's location.
  Builder builderBefore(Op &op);

  bool changed = false;

private:
  Function &fn_;
  std::map<Value *, Value *> map_;
  std::vector<std::unique_ptr<Op>> graveyard_;
  void walkBlock(Block &b, const std::function<void(Op &)> &visit);
};

} // namespace tile::ir
