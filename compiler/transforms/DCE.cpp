// DCE.cpp - use counts over the whole function, then a backward sweep of
// every block (users before definitions), so chains die in one sweep.
#include "transforms/DCE.h"

#include <unordered_map>

namespace tile::ir {

namespace {

class DCEPass {
public:
  explicit DCEPass(Function &fn) : fn_(fn) {}

  bool run() {
    walk(fn_, [&](Op &op) { countUses(op, +1); });
    bool changed = false;
    while (sweep(fn_.entry()))
      changed = true;
    return changed;
  }

private:
  Function &fn_;
  std::unordered_map<const Value *, int> uses_;

  void countUses(Op &op, int delta) {
    for (Value *v : op.operands)
      uses_[v] += delta;
  }

  bool isDead(const Op &op) const {
    if (op.results.empty() || op.hasSideEffects())
      return false;
    for (const auto &r : op.results) {
      auto it = uses_.find(r.get());
      if (it != uses_.end() && it->second > 0)
        return false;
    }
    return true;
  }

  bool sweep(Block &b) {
    bool changed = false;
    for (auto it = b.ops.end(); it != b.ops.begin();) {
      --it;
      Op &op = **it;
      for (auto &r : op.regions)
        changed |= sweep(*r->block);
      if (!isDead(op))
        continue;
      countUses(op, -1);
      for (auto &r : op.regions)
        walk(*r->block, [&](Op &inner) { countUses(inner, -1); });
      it = b.ops.erase(it);
      changed = true;
    }
    return changed;
  }
};

} // namespace

bool dce(Function &fn) { return DCEPass(fn).run(); }

} // namespace tile::ir
