// CSE.cpp - a scoped table of op keys: one scope per region, searched from
// the innermost outwards, popped when the region ends.
#include "transforms/CSE.h"
#include "transforms/RewriteUtils.h"
#include "ir/Printer.h"

#include <fmt/format.h>

#include <cstring>
#include <unordered_map>

namespace tile::ir {

namespace {

std::string attrKey(const Attr &a) {
  if (auto *d = std::get_if<double>(&a)) {
    uint64_t bits;
    std::memcpy(&bits, d, sizeof bits);
    return fmt::format("f{:x}", bits);
  }
  return fmt::format("{}:{}", a.index(), printAttr(a));
}

std::string opKey(const Op &op) {
  std::string key = opName(op.kind);
  for (const Value *v : op.operands)
    key += fmt::format(" {}", fmt::ptr(v));
  for (const auto &[name, value] : op.attrs)
    key += fmt::format(" {}={}", name, attrKey(value));
  for (const auto &r : op.results)
    key += " : " + printType(r->type);
  return key;
}

class CSEPass {
public:
  explicit CSEPass(Function &fn) : fn_(fn), rw_(fn) {}

  bool run() {
    scopes_.clear();
    runBlock(fn_.entry());
    return rw_.changed;
  }

private:
  Function &fn_;
  Rewriter rw_;
  std::vector<std::unordered_map<std::string, Op *>> scopes_;

  Op *lookup(const std::string &key) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto found = it->find(key);
      if (found != it->end())
        return found->second;
    }
    return nullptr;
  }

  void runBlock(Block &b) {
    scopes_.emplace_back();
    for (auto it = b.ops.begin(); it != b.ops.end();) {
      Op &op = **it;
      ++it;
      for (Value *&v : op.operands)
        v = rw_.resolve(v);
      for (auto &r : op.regions)
        runBlock(*r->block);
      visit(op);
    }
    scopes_.pop_back();
  }

  void visit(Op &op) {
    if (!isPureOp(op) || ir::hasTrait(op.kind, ir::trait::ReadsMemory) || op.results.empty())
      return;
    std::string key = opKey(op);
    if (Op *prev = lookup(key)) {
      std::vector<Value *> vals;
      for (auto &r : prev->results)
        vals.push_back(r.get());
      rw_.replaceOp(op, vals);
      return;
    }
    scopes_.back().emplace(std::move(key), &op);
  }
};

} // namespace

bool cse(Function &fn) { return CSEPass(fn).run(); }

} // namespace tile::ir
