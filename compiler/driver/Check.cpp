// Check.cpp - static checks of a parsed file for `tilec check` (Check.h).
#include "driver/Check.h"
#include "support/Spelling.h"

#include "sema/Lowerer.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

namespace tile::driver {

namespace {

using ast::ExprKind;
using ast::StmtKind;

/// Matches a call's arguments against a @jit function's parameters the way
/// bindLaunch does; `extraKeywords` are accepted besides (launch options).
std::optional<std::string> arityProblem(const ast::FunctionDef &fn, const ast::CallExpr &c,
                                        const std::set<std::string> &extraKeywords, bool allowMissing = false) {
  if (c.args.size() > fn.params.size())
    return fmt::format("'{}' takes {} arguments but {} were given", fn.name, fn.params.size(), c.args.size());
  std::set<std::string> given;
  for (size_t i = 0; i < c.args.size(); ++i) given.insert(fn.params[i].name);
  for (const ast::Keyword &k : c.keywords) {
    bool known = std::any_of(fn.params.begin(), fn.params.end(), [&](const ast::Param &p) { return p.name == k.name; });
    // a launch option the kernel also declares binds to both (as Triton)
    if (extraKeywords.count(k.name)) {
      if (known) given.insert(k.name);
      continue;
    }
    if (!known)
      return fmt::format("'{}' has no parameter named '{}'{}", fn.name, k.name,
                         didYouMeanAmong(k.name, fn.params, {extraKeywords.begin(), extraKeywords.end()}));
    if (!given.insert(k.name).second) return fmt::format("argument '{}' of '{}' given twice", k.name, fn.name);
  }
  if (allowMissing) return std::nullopt;
  for (const ast::Param &p : fn.params)
    if (!given.count(p.name) && !p.defaultValue) return fmt::format("missing argument '{}' of '{}'", p.name, fn.name);
  return std::nullopt;
}

/// @triton.autotune / @triton.heuristics (host/Tuning.h) supply constexprs
/// the launch does not pass.
bool hasTuningDecorator(const ast::FunctionDef &fn) {
  for (const ast::ExprPtr &d : fn.decorators) {
    if (d->kind != ExprKind::Call) continue;
    const ast::Expr *f = static_cast<const ast::CallExpr &>(*d).func.get();
    std::string name = f->kind == ExprKind::Attribute ? static_cast<const ast::AttributeExpr &>(*f).attr
                       : f->kind == ExprKind::Name    ? static_cast<const ast::NameExpr &>(*f).id
                                                      : "";
    if (name == "autotune" || name == "heuristics") return true;
  }
  return false;
}

/// Walks one function body. Kernels get name resolution; host code only
/// the launch checks (host code is dynamic Python).
class Checker {
public:
  Checker(const sema::Program &prog, std::vector<CompileError> &errors, const std::set<std::string> &hostNames,
          const HostNames &host)
      : prog_(prog), lowerer_(prog, nullptr), errors_(errors), hostNames_(hostNames), host_(host) {}

  void checkKernel(const ast::FunctionDef &fn) {
    kernel_ = true;
    locals_.clear();
    for (const ast::Param &p : fn.params) locals_.insert(p.name);
    ast::collectAssignedNames(fn.body, locals_, /*withDefs=*/true);
    for (const ast::Param &p : fn.params)
      if (p.defaultValue) expr(*p.defaultValue);
    stmts(fn.body);
  }

  void checkHost(const ast::FunctionDef &fn) {
    kernel_ = false;
    locals_.clear();
    hostFunction(fn);
  }

private:
  void error(Location loc, std::string msg) { errors_.emplace_back(loc, std::move(msg)); }

  /// A host def's body, its parameters and the names it binds local (a
  /// nested def also sees the enclosing function's).
  void hostFunction(const ast::FunctionDef &fn) {
    std::set<std::string> saved = locals_;
    for (const ast::Param &p : fn.params) {
      locals_.insert(p.name);
      if (p.defaultValue) expr(*p.defaultValue);
    }
    ast::collectAssignedNames(fn.body, locals_, /*withDefs=*/true);
    for (const auto &s : fn.body)
      if (s->kind == StmtKind::Global)
        for (const std::string &n : static_cast<const ast::GlobalStmt &>(*s).names) locals_.insert(n);
    stmts(fn.body);
    locals_ = std::move(saved);
  }

  /// A name host code reads: a local, a module-level binding or a host
  /// builtin (hostNames_: empty when the caller has no host evaluator, and
  /// then nothing is checked).
  void hostName(const ast::NameExpr &n) {
    if (hostNames_.empty() || locals_.count(n.id) || hostNames_.count(n.id)) return;
    std::vector<std::string> candidates(locals_.begin(), locals_.end());
    candidates.insert(candidates.end(), hostNames_.begin(), hostNames_.end());
    error(n.loc, fmt::format("name '{}' is not defined{}", n.id, didYouMean(n.id, candidates)));
  }

  /// `torch.nn.functional.gelu`, `np.tanh`, `F.fancy`: an attribute chain
  /// from an imported host module names a submodule or a builtin, as the
  /// evaluator resolves it (HostEval.cpp, evalAttribute). True when e was
  /// such a chain (checked), false for anything else.
  bool hostModuleAttribute(const ast::AttributeExpr &e) {
    std::vector<const ast::AttributeExpr *> chain{&e};
    while (chain.back()->value->kind == ExprKind::Attribute)
      chain.push_back(&static_cast<const ast::AttributeExpr &>(*chain.back()->value));
    if (!host_.isModule || chain.back()->value->kind != ExprKind::Name) return false;
    const std::string &root = static_cast<const ast::NameExpr &>(*chain.back()->value).id;
    auto imp = prog_.imports.find(root);
    if (locals_.count(root) || imp == prog_.imports.end() || !host_.isModule(imp->second)) return false;
    std::string module = imp->second;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      const std::string &attr = (*it)->attr;
      if (host_.isModule(module + "." + attr)) {
        module += "." + attr;
        continue;
      }
      if (!host_.builtins.count(attr))
        error((*it)->loc, fmt::format("'{}.{}' is not supported in host code{}", module, attr,
                                      didYouMean(attr, {host_.builtins.begin(), host_.builtins.end()})));
      return true;   // a builtin: what follows is an attribute of its value
    }
    return true;
  }

  /// A call of a host def by name: the arguments its parameters take.
  void hostCallArity(const ast::CallExpr &c) {
    if (c.func->kind != ExprKind::Name || locals_.count(static_cast<const ast::NameExpr &>(*c.func).id)) return;
    auto it = prog_.hostFunctions.find(static_cast<const ast::NameExpr &>(*c.func).id);
    if (it == prog_.hostFunctions.end()) return;
    if (auto p = arityProblem(*it->second, c, {})) error(c.loc, *p);
  }

  /// The static meaning of a name or attribute chain in a kernel, when it
  /// has one (namespaces, @jit functions, constants); nullopt for locals
  /// and runtime values, and after reporting an unbound name.
  std::optional<sema::Val> resolve(const ast::Expr &e) {
    if (e.kind == ExprKind::Name) {
      auto &n = static_cast<const ast::NameExpr &>(e);
      if (locals_.count(n.id)) return std::nullopt;
      try {
        return lowerer_.lookupName(n.id, e.loc);
      } catch (const CompileError &err) {
        error(err.loc, err.msg);
        return std::nullopt;
      }
    }
    if (e.kind == ExprKind::Attribute) {
      auto &a = static_cast<const ast::AttributeExpr &>(e);
      std::optional<sema::Val> base = resolve(*a.value);
      if (!base || base->kind != sema::Val::Kind::Namespace) return std::nullopt;
      try {
        return lowerer_.getAttribute(*base, a.attr, e.loc);
      } catch (const CompileError &err) {
        error(err.loc, err.msg);
        return std::nullopt;
      }
    }
    expr(e);
    return std::nullopt;
  }

  void call(const ast::CallExpr &c) {
    for (const auto &a : c.args) expr(*a);
    for (const ast::Keyword &k : c.keywords) expr(*k.value);
    if (!kernel_) {
      // Host launches: kernel[grid](...).
      if (c.func->kind == ExprKind::Subscript) {
        auto &s = static_cast<const ast::SubscriptExpr &>(*c.func);
        expr(*s.index);
        if (s.value->kind == ExprKind::Name)
          if (const ast::FunctionDef *k = prog_.kernel(static_cast<const ast::NameExpr &>(*s.value).id))
            if (auto p = arityProblem(*k, c, {sema::launchOptionNames().begin(), sema::launchOptionNames().end()},
                                        hasTuningDecorator(*k))) error(c.loc, *p);
        return;
      }
      expr(*c.func);
      hostCallArity(c);
      return;
    }
    std::optional<sema::Val> f = resolve(*c.func);
    if (f && f->kind == sema::Val::Kind::JitFunction)
      if (auto p = arityProblem(*f->fn, c, {})) error(c.loc, *p);
  }

  void expr(const ast::Expr &e) {
    switch (e.kind) {
    case ExprKind::Name:
      if (kernel_) resolve(e);
      else hostName(static_cast<const ast::NameExpr &>(e));
      return;
    case ExprKind::Attribute:
      if (kernel_) resolve(e);
      else if (!hostModuleAttribute(static_cast<const ast::AttributeExpr &>(e)))
        expr(*static_cast<const ast::AttributeExpr &>(e).value);
      return;
    case ExprKind::Call: return call(static_cast<const ast::CallExpr &>(e));
    case ExprKind::Subscript: {
      auto &s = static_cast<const ast::SubscriptExpr &>(e);
      expr(*s.value);
      expr(*s.index);
      return;
    }
    case ExprKind::Slice: {
      auto &s = static_cast<const ast::SliceExpr &>(e);
      for (const ast::ExprPtr *p : {&s.lower, &s.upper, &s.step})
        if (*p) expr(**p);
      return;
    }
    case ExprKind::BinOp: {
      auto &b = static_cast<const ast::BinOpExpr &>(e);
      expr(*b.lhs);
      expr(*b.rhs);
      return;
    }
    case ExprKind::UnaryOp: return expr(*static_cast<const ast::UnaryOpExpr &>(e).operand);
    case ExprKind::BoolOp:
      for (const auto &v : static_cast<const ast::BoolOpExpr &>(e).values) expr(*v);
      return;
    case ExprKind::Compare: {
      auto &c = static_cast<const ast::CompareExpr &>(e);
      expr(*c.left);
      for (const auto &v : c.comparators) expr(*v);
      return;
    }
    case ExprKind::IfExp: {
      auto &i = static_cast<const ast::IfExpExpr &>(e);
      expr(*i.test);
      expr(*i.body);
      expr(*i.orelse);
      return;
    }
    case ExprKind::Tuple:
      for (const auto &v : static_cast<const ast::TupleExpr &>(e).elts) expr(*v);
      return;
    case ExprKind::List:
      for (const auto &v : static_cast<const ast::ListExpr &>(e).elts) expr(*v);
      return;
    case ExprKind::Dict: {
      auto &d = static_cast<const ast::DictExpr &>(e);
      for (const auto &v : d.keys) expr(*v);
      for (const auto &v : d.values) expr(*v);
      return;
    }
    case ExprKind::Comprehension: {
      // the first iterable is read outside; the loop variables are the
      // comprehension's own (they do not leak, as in Python 3)
      auto &c = static_cast<const ast::ComprehensionExpr &>(e);
      std::set<std::string> saved = locals_;
      for (const ast::ComprehensionFor &f : c.fors) {
        expr(*f.iter);
        ast::collectTargetNames(*f.target, locals_);
        for (const auto &x : f.ifs) expr(*x);
      }
      expr(*c.elt);
      if (c.value) expr(*c.value);
      locals_ = std::move(saved);
      return;
    }
    case ExprKind::Lambda: {
      // Lambda parameters shadow for the body only.
      auto &l = static_cast<const ast::LambdaExpr &>(e);
      std::set<std::string> saved = locals_;
      locals_.insert(l.params.begin(), l.params.end());
      expr(*l.body);
      locals_ = std::move(saved);
      return;
    }
    default: return; // literals
    }
  }

  void stmts(const ast::StmtList &body) {
    for (const auto &s : body) stmt(*s);
  }

  void stmt(const ast::Stmt &s) {
    switch (s.kind) {
    case StmtKind::Expr: return expr(*static_cast<const ast::ExprStmt &>(s).value);
    case StmtKind::Assign: {
      auto &a = static_cast<const ast::AssignStmt &>(s);
      expr(*a.value);
      for (const auto &t : a.targets)
        if (t->kind != ExprKind::Name) expr(*t); // subscript/attribute targets read their base
      return;
    }
    case StmtKind::AugAssign: {
      auto &a = static_cast<const ast::AugAssignStmt &>(s);
      expr(*a.target);
      expr(*a.value);
      return;
    }
    case StmtKind::AnnAssign: {
      auto &a = static_cast<const ast::AnnAssignStmt &>(s);
      if (a.value) expr(*a.value);
      return;
    }
    case StmtKind::For: {
      auto &f = static_cast<const ast::ForStmt &>(s);
      expr(*f.iter);
      return stmts(f.body);
    }
    case StmtKind::While: {
      auto &w = static_cast<const ast::WhileStmt &>(s);
      expr(*w.test);
      return stmts(w.body);
    }
    case StmtKind::With: {
      auto &w = static_cast<const ast::WithStmt &>(s);
      expr(*w.context);
      return stmts(w.body);
    }
    case StmtKind::If: {
      auto &i = static_cast<const ast::IfStmt &>(s);
      expr(*i.test);
      stmts(i.body);
      return stmts(i.orelse);
    }
    case StmtKind::Return:
      if (auto &r = static_cast<const ast::ReturnStmt &>(s); r.value) expr(*r.value);
      return;
    case StmtKind::Raise:
      if (auto &r = static_cast<const ast::RaiseStmt &>(s); r.exc) expr(*r.exc);
      return;
    case StmtKind::Try: {
      auto &t = static_cast<const ast::TryStmt &>(s);
      stmts(t.body);
      for (const ast::ExceptHandler &h : t.handlers) {
        if (h.type) expr(*h.type);
        stmts(h.body);
      }
      stmts(t.orelse);
      return stmts(t.finalbody);
    }
    case StmtKind::Assert: {
      auto &a = static_cast<const ast::AssertStmt &>(s);
      expr(*a.test);
      if (a.msg) expr(*a.msg);
      return;
    }
    case StmtKind::FunctionDef:
      if (!kernel_) hostFunction(static_cast<const ast::FunctionDef &>(s));
      return;
    default: return;
    }
  }

  const sema::Program &prog_;
  sema::Lowerer lowerer_;
  std::vector<CompileError> &errors_;
  const std::set<std::string> &hostNames_;
  const HostNames &host_;
  std::set<std::string> locals_;
  bool kernel_ = true;
};

} // namespace

std::vector<CompileError> checkProgram(const sema::Program &prog, const HostNames &host) {
  std::vector<CompileError> errors;
  // what host functions may read besides their locals: the builtins and
  // every module-level binding (defs, assignments, imports, loop targets)
  std::set<std::string> hostNames;
  if (!host.builtins.empty()) {
    hostNames = host.builtins;
    ast::collectAssignedNames(prog.module->body, hostNames, /*withDefs=*/true);
    for (const auto &[alias, path] : prog.imports) hostNames.insert(alias);
    for (const auto &[name, v] : prog.globals) hostNames.insert(name);
    for (const char *n : {"__name__", "__file__"}) hostNames.insert(n);
  }
  Checker checker(prog, errors, hostNames, host);
  for (const auto &s : prog.module->body) {
    if (s->kind != StmtKind::FunctionDef) continue;
    auto &fn = static_cast<const ast::FunctionDef &>(*s);
    if (sema::Program::isJit(fn)) checker.checkKernel(fn);
    else checker.checkHost(fn);
  }
  return errors;
}

} // namespace tile::driver
