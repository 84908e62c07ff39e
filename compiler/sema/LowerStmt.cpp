// LowerStmt.cpp - sema for statements: assignment, structured control flow
// with loop-carried and branch-merged variables, early return, and the
// inlining of @jit calls.
//
// Early return: when a branch of a runtime `if` contains a return, the
// statements after the `if` are lowered into each branch that falls
// through, so every op after a return is control dependent on not having
// returned. A function's return value is the pseudo-variable "$ret".
#include "sema/BuiltinsBlockPtr.h"
#include "support/Spelling.h"
#include "sema/Lowerer.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

namespace tile::sema {

using ast::StmtKind;
using ir::OpKind;

namespace {

constexpr const char *kRet = "$ret";

/// The first return statement in stmts (searching nested blocks), or null.
const ast::Stmt *firstReturn(const ast::StmtList &stmts) {
  for (const auto &s : stmts) {
    const ast::Stmt *r = nullptr;
    switch (s->kind) {
    case StmtKind::Return: return s.get();
    case StmtKind::If: {
      auto &i = static_cast<const ast::IfStmt &>(*s);
      r = firstReturn(i.body);
      if (!r) r = firstReturn(i.orelse);
      break;
    }
    case StmtKind::For: r = firstReturn(static_cast<const ast::ForStmt &>(*s).body); break;
    case StmtKind::While: r = firstReturn(static_cast<const ast::WhileStmt &>(*s).body); break;
    default: break;
    }
    if (r) return r;
  }
  return nullptr;
}

bool containsReturn(const ast::StmtList &stmts) { return firstReturn(stmts) != nullptr; }

/// Reports a return inside a loop at the return itself.
[[noreturn]] void failReturnInLoop(const ast::StmtList &a, const ast::StmtList &b = {}) {
  const ast::Stmt *r = firstReturn(a);
  if (!r) r = firstReturn(b);
  TILE_ASSERT(r, "no return to report");
  fail(r->loc, "return inside a loop is not supported in kernels");
}

bool sameVal(const Val &a, const Val &b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
  case Val::Kind::Const: return a.c == b.c;
  case Val::Kind::IR: return a.v == b.v;
  case Val::Kind::Namespace:
  case Val::Kind::Builtin: return a.name == b.name;
  case Val::Kind::JitFunction: return a.fn == b.fn;
  case Val::Kind::BlockPtr:
    if (!(a.c == b.c)) return false;
    [[fallthrough]];
  case Val::Kind::Tuple:
    if (a.elts.size() != b.elts.size()) return false;
    for (size_t i = 0; i < a.elts.size(); ++i)
      if (!sameVal(a.elts[i], b.elts[i])) return false;
    return true;
  default: return false;
  }
}

bool isNumberConst(const Val &v) { return v.isConst() && (v.c.isInt() || v.c.isFloat() || v.c.isBool()); }

std::string displayName(const std::string &n) { return n == kRet ? "the return value" : "'" + n + "'"; }

} // namespace

std::vector<std::string> Lowerer::carriedNames(const ast::StmtList &body, const std::set<std::string> &extra) {
  std::set<std::string> assigned = extra;
  ast::collectAssignedNames(body, assigned);
  std::vector<std::string> out;
  for (const std::string &n : assigned)
    if (scope.count(n)) out.push_back(n);
  return out;
}

bool Lowerer::lowerBlock(const ast::StmtList &stmts, size_t from) { return lowerList(stmts, from, nullptr) == Flow::Returned; }

Flow Lowerer::lowerList(const ast::StmtList &stmts, size_t from, const Cont *k) {
  for (size_t i = from; i < stmts.size(); ++i) {
    if (++opBudget > kMaxOps)
      fail(stmts[i]->loc, fmt::format("kernel too large: more than {} statements after unrolling and inlining", kMaxOps));
    Flow f = lowerStmt(stmts, i, k);
    if (f != Flow::Next) return f;
  }
  return Flow::Next;
}

Flow Lowerer::lowerCont(const Cont *k) {
  for (; k; k = k->next) {
    Flow f = lowerList(*k->list, k->from, k->next);
    if (f != Flow::Next) return f;
  }
  return Flow::Next;
}

void Lowerer::assign(const ast::Expr &target, Val v) {
  switch (target.kind) {
  case ast::ExprKind::Name: scope[static_cast<const ast::NameExpr &>(target).id] = std::move(v); return;
  case ast::ExprKind::Tuple:
  case ast::ExprKind::List: {
    const auto &elts = target.kind == ast::ExprKind::Tuple ? static_cast<const ast::TupleExpr &>(target).elts
                                                           : static_cast<const ast::ListExpr &>(target).elts;
    std::vector<Val> vals;
    if (v.kind == Val::Kind::Tuple) vals = v.elts;
    else if (v.isConst() && std::holds_alternative<ConstTuple>(v.c.v))
      for (const ConstValue &c : std::get<ConstTuple>(v.c.v)) vals.push_back(Val::constant(c));
    else
      fail(target.loc, fmt::format("cannot unpack {} into {} names", typeName(v), elts.size()));
    if (vals.size() != elts.size())
      fail(target.loc, fmt::format("cannot unpack {} values into {} names", vals.size(), elts.size()));
    for (size_t i = 0; i < elts.size(); ++i) assign(*elts[i], vals[i]);
    return;
  }
  case ast::ExprKind::Subscript:
    fail(target.loc, "tensors are immutable in kernels: build a new tensor (e.g. with tl.where) instead of assigning to an element");
  default: fail(target.loc, "cannot assign to this expression");
  }
}

Flow Lowerer::lowerStmt(const ast::StmtList &stmts, size_t i, const Cont *k) {
  const ast::Stmt &s = *stmts[i];
  switch (s.kind) {
  case StmtKind::Expr: {
    auto &e = static_cast<const ast::ExprStmt &>(s);
    if (e.value->kind != ast::ExprKind::Str) lowerExpr(*e.value);
    return Flow::Next;
  }
  case StmtKind::Assign: {
    auto &a = static_cast<const ast::AssignStmt &>(s);
    Val v = lowerExpr(*a.value);
    for (const auto &t : a.targets) assign(*t, v);
    return Flow::Next;
  }
  case StmtKind::AugAssign: {
    auto &a = static_cast<const ast::AugAssignStmt &>(s);
    if (a.target->kind != ast::ExprKind::Name) fail(a.target->loc, "augmented assignment needs a plain name in kernels");
    const std::string &n = static_cast<const ast::NameExpr &>(*a.target).id;
    Val cur = lookupName(n, a.target->loc);
    Val rhs = lowerExpr(*a.value);
    scope[n] = binaryOp(a.op, cur, rhs, s.loc);
    return Flow::Next;
  }
  case StmtKind::AnnAssign: {
    auto &a = static_cast<const ast::AnnAssignStmt &>(s);
    if (!a.value) return Flow::Next;
    Val v = lowerExpr(*a.value);
    Val ann = lowerExpr(*a.annotation);
    if (ann.kind == Val::Kind::Builtin && ann.name == "tl.constexpr" && !v.isConst())
      fail(a.value->loc, "a value annotated tl.constexpr must be known at compile time");
    assign(*a.target, std::move(v));
    return Flow::Next;
  }
  case StmtKind::If: {
    auto &ifs = static_cast<const ast::IfStmt &>(s);
    return lowerIf(ifs, Cont{&stmts, i + 1, k});
  }
  case StmtKind::For: {
    auto &f = static_cast<const ast::ForStmt &>(s);
    Val range = lowerExpr(*f.iter);
    if (range.kind == Val::Kind::Range && !range.staticRange) lowerFor(f);
    else lowerStaticFor(f, range);
    return Flow::Next;
  }
  case StmtKind::While: lowerWhile(static_cast<const ast::WhileStmt &>(s)); return Flow::Next;
  case StmtKind::Return: {
    auto &r = static_cast<const ast::ReturnStmt &>(s);
    if (inRuntimeLoop) fail(s.loc, "return inside a loop is not supported in kernels");
    Val v = r.value ? lowerExpr(*r.value) : Val::constant(ConstValue());
    if (callStack.size() == 1 && !(v.isConst() && v.c.isNone())) fail(s.loc, "a kernel cannot return a value");
    scope[kRet] = std::move(v);
    return Flow::Returned;
  }
  case StmtKind::Pass: return Flow::Next;
  case StmtKind::With:
    fail(s.loc, "'with' is host code: not supported in kernels");
  case StmtKind::Try:
    fail(s.loc, "'try' is host code: not supported in kernels (Triton's @jit rejects it too)");
  case StmtKind::Raise:
    fail(s.loc, "'raise' is host code: not supported in kernels (Triton's @jit rejects it too); use "
                "tl.static_assert for a compile-time check or tl.device_assert at run time");
  case StmtKind::Break:
  case StmtKind::Continue:
    fail(s.loc, fmt::format("'{}' is not supported in kernels; express the exit in the loop condition",
                            s.kind == StmtKind::Break ? "break" : "continue"));
  case StmtKind::Assert: {
    auto &a = static_cast<const ast::AssertStmt &>(s);
    Val t = lowerExpr(*a.test);
    std::string msg;
    if (a.msg) {
      Val m = lowerExpr(*a.msg);
      msg = m.isConst() && m.c.isStr() ? std::get<std::string>(m.c.v) : (m.isConst() ? m.c.repr() : "");
    }
    if (t.isConst()) {
      if (!isTruthyConst(t, s.loc)) fail(s.loc, msg.empty() ? "assertion failed" : "assertion failed: " + msg);
      return Flow::Next;
    }
    ir::Op *op = at(s.loc).create(OpKind::Assert, {toCondition(t, a.test->loc, "assert condition")}, {});
    op->attrs["msg"] = msg;
    return Flow::Next;
  }
  case StmtKind::FunctionDef: fail(s.loc, "nested function definitions are not supported in kernels");
  case StmtKind::Import:
  case StmtKind::ImportFrom:
  case StmtKind::Global: return Flow::Next;
  }
  return Flow::Next;
}

// ------------------------------------------------------------------ if

Flow Lowerer::lowerIf(const ast::IfStmt &s, const Cont &rest) {
  Val test = lowerExpr(*s.test);
  bool hasReturn = containsReturn(s.body) || containsReturn(s.orelse);
  if (test.isConst()) {
    // Decided at compile time: only the taken branch exists.
    return lowerList(isTruthyConst(test, s.loc) ? s.body : s.orelse, 0, &rest);
  }
  if (test.isTensor())
    fail(s.test->loc, fmt::format("an if condition must be a scalar, got {}; use tl.where to choose elementwise",
                                  test.v->type.str()));
  if (hasReturn && inRuntimeLoop) failReturnInLoop(s.body, s.orelse);
  ir::Value *cond = toCondition(test, s.test->loc, "if condition");
  ir::Op *ifOp = at(s.loc).create(OpKind::If, {cond}, {});
  ir::Block *blocks[2] = {ifOp->regions[0]->block.get(), ifOp->regions[1]->block.get()};
  const ast::StmtList *branches[2] = {&s.body, &s.orelse};
  std::map<std::string, Val> before = scope, after[2];
  bool term[2];
  for (int k = 0; k < 2; ++k) {
    scope = before;
    b.setInsertionPointToEnd(blocks[k]);
    // Statements after an if that returns run only where it fell through:
    // with returns, each branch goes on with the rest of the function.
    Flow f = lowerList(*branches[k], 0, hasReturn ? &rest : nullptr);
    if (hasReturn && f == Flow::Next) f = lowerCont(&rest);
    term[k] = f == Flow::Returned;
    if (hasReturn && !scope.count(kRet)) scope[kRet] = Val::constant(ConstValue());
    after[k] = std::move(scope);
  }
  // Names both branches define, and that differ, become the if's results.
  std::vector<std::string> merged;
  std::map<std::string, Val> out = before;
  for (auto &[name, tv] : after[0]) {
    auto it = after[1].find(name);
    if (it == after[1].end()) {
      out.erase(name);
      continue;
    }
    if (sameVal(tv, it->second)) out[name] = tv;
    else merged.push_back(name);
  }
  for (auto &[name, ev] : after[1])
    if (!after[0].count(name)) out.erase(name);
  std::vector<ir::Value *> yields[2];
  // One scalar or tensor that differs between the branches becomes a result.
  auto mergeLeaf = [&](const std::string &name, const Val &v0, const Val &v1) -> Val {
    Val v[2] = {v0, v1};
    // The common type: an IR side wins; two numbers promote.
    ElemType t = v[0].isIR() ? valElemType(v[0]) : v[1].isIR() ? valElemType(v[1]) : valElemType(v[0]);
    if (!v[0].isIR() && !v[1].isIR() && (v[0].c.isFloat() || v[1].c.isFloat())) t = ElemType::of(Scalar::F32);
    ir::Value *iv[2];
    for (int k = 0; k < 2; ++k) {
      b.setInsertionPointToEnd(blocks[k]);
      iv[k] = v[k].isIR() ? v[k].v : toIRAs(v[k], t, s.loc);
    }
    if (iv[0]->type != iv[1]->type)
      fail(s.loc, fmt::format("{} is {} in the then-branch but {} in the else-branch", displayName(name),
                              iv[0]->type.str(), iv[1]->type.str()));
    yields[0].push_back(iv[0]);
    yields[1].push_back(iv[1]);
    return Val::ir(ifOp->addResult(iv[0]->type));
  };
  for (const std::string &name : merged) {
    Val v[2] = {after[0][name], after[1][name]};
    if (v[0].kind == Val::Kind::BlockPtr && v[1].kind == Val::Kind::BlockPtr && v[0].c == v[1].c) {
      // Block pointers of one block_shape and order merge field by field
      // (base, shape, strides, offsets): only the fields that differ become results.
      Val m = v[0];
      for (size_t k = 0; k < m.elts.size(); ++k)
        if (!sameVal(v[0].elts[k], v[1].elts[k])) m.elts[k] = mergeLeaf(name, v[0].elts[k], v[1].elts[k]);
      out[name] = m;
      continue;
    }
    if (v[0].kind == Val::Kind::BlockPtr || v[1].kind == Val::Kind::BlockPtr) {
      if (name == kRet)
        fail(s.loc, "the function returns block pointers of different block shapes or orders (or not a block pointer) "
                    "on different paths");
      out.erase(name);
      continue;
    }
    if (v[0].kind == Val::Kind::Tuple || v[1].kind == Val::Kind::Tuple) {
      // tuples of one length whose differing elements are numbers or
      // tensors (nested tuples too) merge element by element, as Triton's
      // tuples do: `return a, b` on both paths of a helper
      std::function<bool(const Val &, const Val &)> mergeable = [&](const Val &x, const Val &y) {
        if (sameVal(x, y)) return true;
        if (x.kind == Val::Kind::Tuple && y.kind == Val::Kind::Tuple) {
          if (x.elts.size() != y.elts.size()) return false;
          for (size_t k = 0; k < x.elts.size(); ++k)
            if (!mergeable(x.elts[k], y.elts[k])) return false;
          return true;
        }
        return (x.isIR() || isNumberConst(x)) && (y.isIR() || isNumberConst(y));
      };
      std::function<Val(const Val &, const Val &)> mergeTuple = [&](const Val &x, const Val &y) {
        if (sameVal(x, y)) return x;
        if (x.kind != Val::Kind::Tuple) return mergeLeaf(name, x, y);
        Val m = x;
        for (size_t k = 0; k < m.elts.size(); ++k) m.elts[k] = mergeTuple(x.elts[k], y.elts[k]);
        return m;
      };
      if (mergeable(v[0], v[1])) {
        out[name] = mergeTuple(v[0], v[1]);
        continue;
      }
      auto what = [&](const Val &x) {
        return x.kind == Val::Kind::Tuple ? fmt::format("a tuple of {}", x.elts.size()) : typeName(x);
      };
      if (name == kRet)
        fail(s.loc, fmt::format("the function returns {} on one path and {} on another (tuples must have one length "
                                "and numbers or tensors where they differ)", what(v[0]), what(v[1])));
      out.erase(name);
      continue;
    }
    if (!(v[0].isIR() || isNumberConst(v[0])) || !(v[1].isIR() || isNumberConst(v[1]))) {
      if (name == kRet)
        fail(s.loc, fmt::format("the function returns {} on one path and {} on another", typeName(v[0]), typeName(v[1])));
      out.erase(name); // differing compile-time objects: unusable after the if
      continue;
    }
    out[name] = mergeLeaf(name, v[0], v[1]);
  }
  for (int k = 0; k < 2; ++k) {
    b.setInsertionPointToEnd(blocks[k]);
    at(s.loc).yield(yields[k]);
  }
  b.setInsertionPointToEnd(ifOp->parent);
  scope = std::move(out);
  if (!hasReturn) return Flow::Next;
  // The rest of the list was lowered inside the branches.
  return term[0] && term[1] ? Flow::Returned : Flow::Done;
}

// ---------------------------------------------------------------- loops

std::vector<Val> Lowerer::fieldsOf(const std::vector<std::string> &names, Location loc) {
  std::vector<Val> out;
  for (const std::string &n : names) out.push_back(scope.at(n));
  return out;
}

namespace {
/// One loop-carried IR value: a name's value (elt < 0), or one offset of the
/// block pointer a name holds (elt indexes its elts; the rest of a block
/// pointer stays fixed in the loop).
struct Slot {
  std::string name;
  int elt = -1;
};

std::vector<Slot> carriedSlots(Lowerer &L, const std::vector<std::string> &names) {
  std::vector<Slot> slots;
  for (const std::string &n : names) {
    const Val &v = L.scope.at(n);
    if (v.kind != Val::Kind::BlockPtr) {
      slots.push_back({n, -1});
      continue;
    }
    for (int i = 0; i < blockptr::rank(v); ++i) slots.push_back({n, static_cast<int>(blockptr::offsetIndex(v, i))});
  }
  return slots;
}

Val &slotVal(std::map<std::string, Val> &scope, const Slot &s) {
  Val &v = scope.at(s.name);
  return s.elt < 0 ? v : v.elts[s.elt];
}

/// Initial IR values of loop-carried slots: constexpr numbers are
/// materialized (i32 / f32 / i1; block-pointer offsets i32), anything else
/// compile-time is rejected.
std::vector<ir::Value *> carriedInits(Lowerer &L, const std::vector<Slot> &slots, Location loc) {
  std::vector<ir::Value *> inits;
  for (const Slot &s : slots) {
    const Val &v = slotVal(L.scope, s);
    if (v.isIR()) { inits.push_back(v.v); continue; }
    if (isNumberConst(v)) {
      inits.push_back(s.elt < 0 ? L.toIR(v, loc) : L.toIRAs(v, ElemType::of(Scalar::I32), loc));
      continue;
    }
    fail(loc, fmt::format("'{}' holds {} and is reassigned in the loop; only numbers, tensors and block pointers "
                          "can be loop-carried", s.name, L.typeName(v)));
  }
  return inits;
}

std::vector<ir::Value *> carriedNext(Lowerer &L, const std::vector<Slot> &slots, const std::vector<ir::Value *> &inits,
                                     const std::map<std::string, Val> &before, Location loc) {
  std::vector<ir::Value *> next;
  for (size_t i = 0; i < slots.size(); ++i) {
    const std::string &name = slots[i].name;
    const Val &whole = L.scope.at(name);
    if (slots[i].elt >= 0 && !blockptr::sameFrame(whole, before.at(name)))
      fail(loc, whole.kind == Val::Kind::BlockPtr
                    ? fmt::format("block pointer '{}' gets a different base, shape, strides, block_shape or order in "
                                  "the loop; only its offsets can change (tl.advance)", name)
                    : fmt::format("loop-carried block pointer '{}' becomes {} in the loop body", name, L.typeName(whole)));
    if (slots[i].elt < 0 && whole.kind == Val::Kind::BlockPtr)
      fail(loc, fmt::format("loop-carried '{}' becomes a block pointer in the loop body; create it before the loop",
                            name));
    const Val &v = slotVal(L.scope, slots[i]);
    ir::Value *x = v.isIR() ? v.v : isNumberConst(v) ? L.toIRAs(v, inits[i]->type.elem, loc) : nullptr;
    if (!x) fail(loc, fmt::format("loop-carried '{}' becomes {} in the loop body", name, L.typeName(v)));
    if (x->type != inits[i]->type && !x->type.isTensor() && !inits[i]->type.isTensor() && v.isConst())
      x = L.castTo(x, inits[i]->type.elem, loc);
    if (x->type != inits[i]->type)
      fail(loc, fmt::format("loop-carried variable '{}' enters the loop as {} but the body makes it {}; "
                            "initialize it with that type (e.g. tl.zeros(shape, dtype))",
                            name, inits[i]->type.str(), x->type.str()));
    next.push_back(x);
  }
  return next;
}
} // namespace

void Lowerer::lowerFor(const ast::ForStmt &s) {
  if (s.target->kind != ast::ExprKind::Name) fail(s.target->loc, "the loop variable must be a plain name");
  const std::string &iv = static_cast<const ast::NameExpr &>(*s.target).id;
  Val range = lowerExpr(*s.iter);
  // Bounds share one integer type: i32 unless something needs i64.
  ElemType t = ElemType::of(Scalar::I32);
  for (const Val &v : range.elts) {
    ElemType e = valElemType(v);
    if (!e.isInt() || e.isPtr) fail(s.iter->loc, "range bounds must be integers");
    if (bitWidth(e.scalar) == 64) t = ElemType::of(Scalar::I64);
    if (v.isIR() && v.v->type.isTensor()) fail(s.iter->loc, "range bounds must be scalars");
  }
  const Val &step = range.elts[2];
  if (step.isConst() && step.c.isInt() && std::get<int64_t>(step.c.v) == 0)
    fail(s.iter->loc, "range() step must not be zero");
  ir::Value *bounds[3];
  for (int k = 0; k < 3; ++k) bounds[k] = toIRAs(range.elts[k], t, s.iter->loc);
  std::vector<std::string> names = carriedNames(s.body);
  names.erase(std::remove(names.begin(), names.end(), iv), names.end());
  std::vector<Slot> slots = carriedSlots(*this, names);
  std::vector<ir::Value *> inits = carriedInits(*this, slots, s.loc);
  std::vector<ir::Value *> operands{bounds[0], bounds[1], bounds[2]};
  operands.insert(operands.end(), inits.begin(), inits.end());
  ir::Op *forOp = at(s.loc).create(OpKind::For, operands, {});
  if (auto *hints = std::get_if<ConstTuple>(&range.c.v))   // tl.range's num_stages, loop_unroll_factor
    for (size_t i = 0; i < hints->size(); ++i)
      if ((*hints)[i].isInt()) forOp->attrs[i == 0 ? "num_stages" : "loop_unroll_factor"] = std::get<int64_t>((*hints)[i].v);
  ir::Block *body = forOp->regions[0]->block.get();
  std::map<std::string, Val> before = scope;
  scope[iv] = Val::ir(body->addArg(ir::Type::scalar(t)));
  for (size_t i = 0; i < slots.size(); ++i) slotVal(scope, slots[i]) = Val::ir(body->addArg(inits[i]->type));
  bool wasInLoop = inRuntimeLoop;
  inRuntimeLoop = true;
  b.setInsertionPointToEnd(body);
  lowerBlock(s.body);
  std::vector<ir::Value *> next = carriedNext(*this, slots, inits, before, s.loc);
  at(s.loc).yield(next);
  inRuntimeLoop = wasInLoop;
  b.setInsertionPointToEnd(forOp->parent);
  scope = std::move(before);
  for (size_t i = 0; i < slots.size(); ++i) slotVal(scope, slots[i]) = Val::ir(forOp->addResult(inits[i]->type));
}

void Lowerer::lowerWhile(const ast::WhileStmt &s) {
  // A probe for a constant-false condition: the ops it emitted are dropped
  // (an atomic in the condition must run only in the loop's condition).
  ir::Block *probeBlock = b.block();
  size_t probeMark = probeBlock->ops.size();
  Val first = lowerExpr(*s.test);
  if (b.block() == probeBlock)
    while (probeBlock->ops.size() > probeMark) probeBlock->ops.pop_back();
  if (first.isConst() && !isTruthyConst(first, s.loc)) return;
  std::vector<Slot> slots = carriedSlots(*this, carriedNames(s.body));
  std::vector<ir::Value *> inits = carriedInits(*this, slots, s.loc);
  ir::Op *w = at(s.loc).create(OpKind::While, inits, {});
  ir::Block *condB = w->regions[0]->block.get(), *bodyB = w->regions[1]->block.get();
  std::map<std::string, Val> before = scope;
  std::vector<ir::Value *> condArgs;
  for (size_t i = 0; i < slots.size(); ++i) {
    condArgs.push_back(condB->addArg(inits[i]->type));
    slotVal(scope, slots[i]) = Val::ir(condArgs.back());
  }
  b.setInsertionPointToEnd(condB);
  Val test = lowerExpr(*s.test);
  if (test.isTensor()) fail(s.test->loc, fmt::format("a while condition must be a scalar, got {}", test.v->type.str()));
  std::vector<ir::Value *> condOps{toCondition(test, s.test->loc, "while condition")};
  condOps.insert(condOps.end(), condArgs.begin(), condArgs.end());
  at(s.loc).create(OpKind::Condition, condOps, {});
  scope = before;
  for (size_t i = 0; i < slots.size(); ++i) slotVal(scope, slots[i]) = Val::ir(bodyB->addArg(inits[i]->type));
  bool wasInLoop = inRuntimeLoop;
  inRuntimeLoop = true;
  b.setInsertionPointToEnd(bodyB);
  lowerBlock(s.body);
  at(s.loc).yield(carriedNext(*this, slots, inits, before, s.loc));
  inRuntimeLoop = wasInLoop;
  b.setInsertionPointToEnd(w->parent);
  scope = std::move(before);
  for (size_t i = 0; i < slots.size(); ++i) slotVal(scope, slots[i]) = Val::ir(w->addResult(inits[i]->type));
}

void Lowerer::lowerStaticFor(const ast::ForStmt &s, const Val &range) {
  std::vector<Val> items;
  if (range.kind == Val::Kind::Range) {
    int64_t v[3];
    for (int k = 0; k < 3; ++k) {
      const ConstValue &c = range.elts[k].c;
      v[k] = c.isBool() ? std::get<bool>(c.v) : std::get<int64_t>(c.v);
    }
    if (v[2] == 0) fail(s.iter->loc, "static_range() step must not be zero");
    for (int64_t i = v[0]; v[2] > 0 ? i < v[1] : i > v[1]; i += v[2]) {
      if (items.size() >= 4096) fail(s.iter->loc, "static_range unrolls more than 4096 iterations");
      items.push_back(Val::constant(i));
    }
  } else if (range.kind == Val::Kind::Tuple) {
    items = range.elts;
  } else if (range.isConst() && std::holds_alternative<ConstTuple>(range.c.v)) {
    for (const ConstValue &c : std::get<ConstTuple>(range.c.v)) items.push_back(Val::constant(c));
  } else {
    fail(s.iter->loc, fmt::format("kernels can loop over range(), tl.range(), tl.static_range() or a constexpr tuple, not {}",
                                  typeName(range)));
  }
  if (containsReturn(s.body)) failReturnInLoop(s.body);
  for (Val &item : items) {
    assign(*s.target, item);
    lowerBlock(s.body);
  }
}

// ---------------------------------------------------------------- calls

Val Lowerer::callJit(const ast::FunctionDef &fn, const ast::CallExpr &c) {
  for (const ast::FunctionDef *f : callStack)
    if (f == &fn) fail(c.loc, fmt::format("recursive call to '{}': recursion is not supported in kernels", fn.name));
  if (callStack.size() >= kMaxInlineDepth) fail(c.loc, "@jit calls nested too deeply");
  std::vector<std::optional<Val>> args(fn.params.size());
  if (c.args.size() > fn.params.size())
    fail(c.loc, fmt::format("'{}' takes {} arguments but {} were given", fn.name, fn.params.size(), c.args.size()));
  for (size_t i = 0; i < c.args.size(); ++i) args[i] = lowerExpr(*c.args[i]);
  for (const auto &kw : c.keywords) {
    size_t i = 0;
    while (i < fn.params.size() && fn.params[i].name != kw.name) ++i;
    if (i == fn.params.size())
      fail(kw.loc, fmt::format("'{}' got an unexpected keyword argument '{}'{}", fn.name, kw.name,
                               didYouMeanAmong(kw.name, fn.params)));
    if (args[i]) fail(kw.loc, fmt::format("'{}' got multiple values for argument '{}'", fn.name, kw.name));
    args[i] = lowerExpr(*kw.value);
  }
  std::map<std::string, Val> callee;
  for (size_t i = 0; i < fn.params.size(); ++i) {
    const ast::Param &p = fn.params[i];
    if (!args[i]) {
      if (!p.defaultValue) fail(c.loc, fmt::format("'{}' missing required argument '{}'", fn.name, p.name));
      args[i] = Val::constant(evalConst(*p.defaultValue));
    }
    // Triton decides constexpr-ness of a helper's arguments by their values,
    // not its annotations: a constexpr argument specializes the inlined
    // call, a runtime one (a tensor, or a runtime scalar such as the
    // flash-attention tutorial's N_CTX) is an ordinary runtime argument.
    callee[p.name] = *args[i];
  }
  std::swap(scope, callee);
  callStack.push_back(&fn);
  // The callee's returns leave the callee, not the caller's loop: a helper
  // with an early return may be called inside a loop.
  bool callerInLoop = inRuntimeLoop;
  inRuntimeLoop = false;
  try {
    lowerBlock(fn.body);
  } catch (CompileError &e) {   // the chain of calls up to the kernel, innermost first
    if (e.notes.size() < 16) e.notes.emplace_back(c.loc, fmt::format("in '{}', called from here", fn.name));
    throw;
  }
  inRuntimeLoop = callerInLoop;
  Val ret = scope.count(kRet) ? scope[kRet] : Val::constant(ConstValue());
  callStack.pop_back();
  std::swap(scope, callee);
  return ret;
}

// ---------------------------------------------------------------- kernel

Lowerer::Lowerer(const Program &prog, ir::Function *target)
    : prog(prog), scratch_(target ? nullptr : std::make_unique<ir::Function>("$const", Location{})),
      fn(target ? target : scratch_.get()), b(&fn->entry()) {}

void Lowerer::lowerKernelBody(const ast::FunctionDef &kernel, const Specialization &spec) {
  TILE_ASSERT(spec.params.size() == kernel.params.size(), "specialization does not match the kernel");
  for (size_t i = 0; i < spec.params.size(); ++i) {
    const auto &p = spec.params[i];
    if (p.isConstexpr) {
      scope[p.name] = Val::constant(p.value);
      continue;
    }
    ir::Value *arg = fn->entry().addArg(ir::Type::scalar(p.type));
    scope[p.name] = Val::ir(p.equalsOne ? b.constantInt(1, ir::Type::scalar(p.type)) : arg);
    fn->paramNames.push_back(p.name);
    fn->paramDivisibility.push_back(p.divisibility);
  }
  // All ones is the same as none (and prints as before).
  if (std::all_of(fn->paramDivisibility.begin(), fn->paramDivisibility.end(), [](int64_t d) { return d == 1; }))
    fn->paramDivisibility.clear();
  callStack.push_back(&kernel);
  lowerBlock(kernel.body);
  callStack.pop_back();
}

ConstValue Lowerer::evalConst(const ast::Expr &e) {
  Val v = lowerExpr(e);
  if (!v.isConst()) fail(e.loc, "default values must be compile-time constants");
  return v.c;
}

} // namespace tile::sema
