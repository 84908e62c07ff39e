// HostEval.cpp - the tree-walking evaluator of host code: statements,
// expressions, scopes and calls. Operators live in HostOps.cpp, builtins in
// HostBuiltins.cpp, kernel launches in HostLaunch.cpp.
#include "host/Evaluator.h"
#include "support/Spelling.h"

#include <fmt/format.h>

namespace tile::host {

using namespace tile::ast;

// ------------------------------------------------------------------ ArgParser

ArgParser::ArgParser(const CallArgs &call, std::string fname, std::vector<std::string> params)
    : call_(call), fname_(std::move(fname)) {
  bool varargs = false;
  std::vector<std::string> names;
  size_t required = 0;
  for (const std::string &p : params) {
    if (p == "*") {
      varargs = true;
      continue;
    }
    bool optional = p.back() == '=';
    names.push_back(optional ? p.substr(0, p.size() - 1) : p);
    if (!optional && !varargs)
      required = names.size();
  }
  size_t positional = varargs ? std::min(call.args.size(), required) : call.args.size();
  // (a builtin that calls another may pass arguments without locations)
  auto locOf = [&](size_t i) { return i < call.argLocs.size() ? call.argLocs[i] : call.loc; };
  if (!varargs && call.args.size() > names.size())
    fail(locOf(names.size()), fmt::format("{}() takes at most {} positional argument{} but {} were given",
                                                 fname_, names.size(), names.size() == 1 ? "" : "s",
                                                 call.args.size()));
  for (size_t i = 0; i < positional; ++i)
    bound_[names[i]] = {call.args[i], locOf(i)};
  for (size_t i = positional; i < call.args.size(); ++i) {
    rest_.push_back(call.args[i]);
    restLocs_.push_back(locOf(i));
  }
  for (size_t i = 0; i < call.kwargs.size(); ++i) {
    const std::string &k = call.kwargs[i].first;
    if (std::find(names.begin(), names.end(), k) == names.end())
      fail(call.kwLocs[i], fmt::format("{}() got an unexpected keyword argument '{}'{}", fname_, k, didYouMean(k, names)));
    if (bound_.count(k))
      fail(call.kwLocs[i], fmt::format("{}() got multiple values for argument '{}'", fname_, k));
    bound_[k] = {call.kwargs[i].second, call.kwLocs[i]};
  }
  for (size_t i = 0; i < required; ++i)
    if (!bound_.count(names[i]) && !(varargs && !rest_.empty()))
      fail(call.loc, fmt::format("{}() missing required argument '{}'", fname_, names[i]));
}

bool ArgParser::has(const std::string &name) const { return bound_.count(name) != 0; }

const Value &ArgParser::get(const std::string &name) const {
  auto it = bound_.find(name);
  TILE_ASSERT(it != bound_.end(), "ArgParser::get of an absent argument");
  return it->second.first;
}

Value ArgParser::getOr(const std::string &name, Value def) const {
  auto it = bound_.find(name);
  if (it == bound_.end() || it->second.first.isNone())
    return def;
  return it->second.first;
}

Location ArgParser::loc(const std::string &name) const {
  auto it = bound_.find(name);
  return it == bound_.end() ? call_.loc : it->second.second;
}

// ------------------------------------------------------------------ evaluator

Evaluator::Evaluator(const sema::Program &prog, Launcher &launcher, const HostOptions &opts)
    : prog_(prog), launcher_(launcher), opts_(opts), module_(std::make_shared<Scope>()) {
  installBuiltins(builtins_);
  // A `if __name__ == "__main__": main()` guard must not run main twice:
  // the evaluator calls the entry function itself.
  module_->vars["__name__"] = Value("__tile__");
  for (const auto &[name, c] : opts_.defines)
    module_->vars[name] = fromConstValue(c);
}

Evaluator::~Evaluator() {
  // A function holds the scope it was defined in, and that scope holds the
  // function: empty every scope a closure captured, which frees them all.
  std::vector<std::shared_ptr<Scope>> alive;
  for (const std::weak_ptr<Scope> &w : closureScopes_)
    if (std::shared_ptr<Scope> s = w.lock()) alive.push_back(std::move(s));
  for (const std::shared_ptr<Scope> &s : alive) {
    s->vars.clear();
    s->parent.reset();
  }
}

std::shared_ptr<Scope> Evaluator::closeOver(std::shared_ptr<Scope> scope) {
  if (closureScopes_.empty() || closureScopes_.back().lock() != scope) {
    // a loop that makes closures in fresh frames: forget the frames gone
    if (closureScopes_.size() >= closureScopesPruneAt_) {
      std::erase_if(closureScopes_, [](const std::weak_ptr<Scope> &w) { return w.expired(); });
      closureScopesPruneAt_ = std::max<size_t>(64, 2 * closureScopes_.size());
    }
    closureScopes_.push_back(scope);
  }
  return scope;
}

int Evaluator::run() {
  Value ret;
  const ast::Module &mod = *prog_.module;
  for (const StmtPtr &s : mod.body) {
    if (s->kind == StmtKind::Assign) {
      execAssign(static_cast<const AssignStmt &>(*s), *module_, true);
      continue;
    }
    if (exec(*s, *module_, ret) != Flow::Normal)
      fail(s->loc, "'return', 'break' or 'continue' outside a function or loop");
  }
  auto it = module_->vars.find(opts_.entry);
  if (it == module_->vars.end() || !it->second.is<FunctionVal>()) {
    std::string path = SourceManager::global().path(mod.fileId);
    fail(Location{mod.fileId, 1, 1}, fmt::format("no {}() in {}: nothing to run", opts_.entry, path));
  }
  CallArgs args;
  args.loc = it->second.as<FunctionVal>().def->loc;
  Value status = call(it->second, args);
  if (status.isIntLike())
    return int(status.toInt());
  return 0;
}

void Evaluator::declareModule() {
  Value ret;
  for (const StmtPtr &s : prog_.module->body) {
    switch (s->kind) {
    case StmtKind::Import:
    case StmtKind::ImportFrom:
    case StmtKind::FunctionDef:
    case StmtKind::Assign:
      try {
        if (s->kind == StmtKind::Assign) execAssign(static_cast<const AssignStmt &>(*s), *module_, true);
        else exec(*s, *module_, ret);
      } catch (const CompileError &) {
      }
      break;
    default: break;
    }
  }
}

void Evaluator::checkInterrupt(Location loc) const {
  if (opts_.interrupt && opts_.interrupt->load())
    fail(loc, "interrupted");
  if (opts_.deadline && opts_.deadline->passed())
    fail(loc, fmt::format("timed out after {} s", opts_.deadline->seconds));
}

Scope &Evaluator::targetScope(Scope &scope, const std::string &name) {
  return scope.globalNames.count(name) ? *module_ : scope;
}

// ------------------------------------------------------------------ statements

Evaluator::Flow Evaluator::execBlock(const StmtList &body, Scope &scope, Value &ret) {
  for (const StmtPtr &s : body) {
    Flow f = exec(*s, scope, ret);
    if (f != Flow::Normal)
      return f;
  }
  return Flow::Normal;
}

Evaluator::Flow Evaluator::exec(const Stmt &s, Scope &scope, Value &ret) {
  switch (s.kind) {
  case StmtKind::Expr:
    eval(*static_cast<const ExprStmt &>(s).value, scope);
    return Flow::Normal;
  case StmtKind::Assign:
    execAssign(static_cast<const AssignStmt &>(s), scope, false);
    return Flow::Normal;
  case StmtKind::AugAssign:
    execAugAssign(static_cast<const AugAssignStmt &>(s), scope);
    return Flow::Normal;
  case StmtKind::AnnAssign: {
    const auto &a = static_cast<const AnnAssignStmt &>(s);
    bool overridden = &scope == module_.get() && a.target->kind == ExprKind::Name &&
                      opts_.defines.count(static_cast<const NameExpr &>(*a.target).id);
    if (a.value && !overridden)
      assignTarget(*a.target, eval(*a.value, scope), scope);
    return Flow::Normal;
  }
  case StmtKind::For: return execFor(static_cast<const ForStmt &>(s), scope, ret);
  case StmtKind::While: return execWhile(static_cast<const WhileStmt &>(s), scope, ret);
  case StmtKind::With: {
    // only context managers that change nothing here (no_grad(), ...):
    // their builtins return a "harmless context" marker; the body runs once
    const auto &w = static_cast<const WithStmt &>(s);
    Value ctx = eval(*w.context, scope);
    if (!(ctx.is<std::string>() && ctx.as<std::string>() == kHarmlessContext))
      fail(w.context->loc, fmt::format("'with' of a '{}' is not supported in host code (only context managers that "
                                       "change nothing here: torch.no_grad(), torch.inference_mode(), "
                                       "torch.cuda.device(i))", typeName(ctx)));
    if (w.target) assignTarget(*w.target, Value(), scope);
    return execBlock(w.body, scope, ret);
  }
  case StmtKind::If: {
    const auto &i = static_cast<const IfStmt &>(s);
    if (test(*i.test, scope))
      return execBlock(i.body, scope, ret);
    return execBlock(i.orelse, scope, ret);
  }
  case StmtKind::Return: {
    const auto &r = static_cast<const ReturnStmt &>(s);
    ret = r.value ? eval(*r.value, scope) : Value();
    return Flow::Return;
  }
  case StmtKind::Pass: return Flow::Normal;
  case StmtKind::Raise: execRaise(static_cast<const RaiseStmt &>(s), scope);
  case StmtKind::Try: return execTry(static_cast<const TryStmt &>(s), scope, ret);
  case StmtKind::Break: return Flow::Break;
  case StmtKind::Continue: return Flow::Continue;
  case StmtKind::Assert: execAssert(static_cast<const AssertStmt &>(s), scope); return Flow::Normal;
  case StmtKind::FunctionDef: {
    const auto &def = static_cast<const FunctionDef &>(s);
    defineFunction(def, scope, scope.shared_from_this());
    return Flow::Normal;
  }
  case StmtKind::Import:
  case StmtKind::ImportFrom: execImport(s, scope); return Flow::Normal;
  case StmtKind::Global:
    for (const std::string &n : static_cast<const GlobalStmt &>(s).names)
      scope.globalNames.insert(n);
    return Flow::Normal;
  }
  return Flow::Normal;
}

Evaluator::Flow Evaluator::execFor(const ForStmt &s, Scope &scope, Value &ret) {
  Value iter = eval(*s.iter, scope);
  auto body = [&](const Value &item) {
    checkInterrupt(s.loc);
    assignTarget(*s.target, item, scope);
    return execBlock(s.body, scope, ret);
  };
  auto handle = [](Flow f) { return f == Flow::Break || f == Flow::Return; };
  if (iter.is<RangeVal>()) {
    RangeVal r = iter.as<RangeVal>();
    for (int64_t i = 0, n = r.size(); i < n; ++i) {
      Flow f = body(Value(r.at(i)));
      if (handle(f))
        return f == Flow::Return ? f : Flow::Normal;
    }
    return Flow::Normal;
  }
  for (const Value &item : iterItems(iter, s.iter->loc)) {
    Flow f = body(item);
    if (handle(f))
      return f == Flow::Return ? f : Flow::Normal;
  }
  return Flow::Normal;
}

std::vector<Value> Evaluator::iterItems(const Value &iter, Location loc) {
  std::optional<std::vector<Value>> items = iterationItems(iter);
  if (!items)
    fail(loc, fmt::format("'{}' object is not iterable", typeName(iter)));
  return std::move(*items);
}

Evaluator::Flow Evaluator::execWhile(const WhileStmt &s, Scope &scope, Value &ret) {
  while (test(*s.test, scope)) {
    checkInterrupt(s.loc);
    Flow f = execBlock(s.body, scope, ret);
    if (f == Flow::Return)
      return f;
    if (f == Flow::Break)
      break;
  }
  return Flow::Normal;
}

void Evaluator::execAssign(const AssignStmt &s, Scope &scope, bool moduleLevel) {
  // -D NAME=VALUE overrides `NAME = ...` at module level.
  if (moduleLevel && s.targets.size() == 1 && s.targets[0]->kind == ExprKind::Name &&
      opts_.defines.count(static_cast<const NameExpr &>(*s.targets[0]).id))
    return;
  Value v = eval(*s.value, scope);
  for (const ExprPtr &t : s.targets)
    assignTarget(*t, v, scope);
}

void Evaluator::execAugAssign(const AugAssignStmt &s, Scope &scope) {
  Value cur = eval(*s.target, scope);
  Value rhs = eval(*s.value, scope);
  Value result;
  try {
    result = binaryOp(s.op, cur, rhs);
  } catch (const HostError &e) {
    fail(s.loc, e.what());
  }
  // Tensors update in place (torch semantics: aliases see the change).
  if (cur.is<Tensor>() && result.is<Tensor>() && cur.as<Tensor>().shape() == result.as<Tensor>().shape()) {
    Tensor dst = cur.as<Tensor>();
    const Tensor &src = result.as<Tensor>();
    for (int64_t i = 0, n = dst.numel(); i < n; ++i)
      isFloat(src.dtype()) ? dst.setDouble(i, src.getDouble(i)) : dst.setInt(i, src.getInt(i));
    return;
  }
  assignTarget(*s.target, result, scope);
}

bool Evaluator::test(const Expr &e, Scope &scope) {
  Value v = eval(e, scope);
  try {
    return truthy(v);
  } catch (const HostError &err) {
    fail(e.loc, err.what());
  }
}

void Evaluator::execAssert(const AssertStmt &s, Scope &scope) {
  if (test(*s.test, scope))
    return;
  if (s.msg)
    fail(s.loc, "assertion failed: " + str(eval(*s.msg, scope)));
  fail(s.loc, "assertion failed");
}

void Evaluator::execImport(const Stmt &s, Scope &scope) {
  if (s.kind == StmtKind::Import) {
    for (const auto &a : static_cast<const ImportStmt &>(s).names) {
      if (!isKnownModule(a.module))
        fail(a.loc, fmt::format("cannot import '{}' in host code (available: torch, triton, "
                                "triton.language, numpy, tile, math)", a.module));
      // `import triton.language` binds `triton`; `import x.y as z` binds z.
      std::string bound = a.asName.empty() ? a.module.substr(0, a.module.find('.')) : a.asName;
      scope.vars[bound] = ModuleVal{a.asName.empty() ? bound : a.module};
    }
    return;
  }
  const auto &f = static_cast<const ImportFromStmt &>(s);
  if (f.module == "__future__") return;   // `from __future__ import annotations`: nothing to bind
  if (!isKnownModule(f.module))
    fail(s.loc, fmt::format("cannot import from '{}' in host code (available: torch, triton, "
                            "triton.language, numpy, tile, math)", f.module));
  for (const auto &a : f.names) {
    std::string bound = a.asName.empty() ? a.name : a.asName;
    if (isKnownModule(f.module + "." + a.name)) {
      scope.vars[bound] = ModuleVal{f.module + "." + a.name};
      continue;
    }
    auto it = builtins_.find(a.name);
    if (it == builtins_.end())
      fail(a.loc, fmt::format("'{}' is not available from '{}' in host code", a.name, f.module));
    scope.vars[bound] = it->second;
  }
}

void Evaluator::defineFunction(const FunctionDef &def, Scope &scope, const std::shared_ptr<Scope> &self) {
  if (sema::Program::isJit(def)) {
    targetScope(scope, def.name).vars[def.name] = KernelVal{&def};
    return;
  }
  FunctionVal fn;
  fn.def = &def;
  fn.closure = closeOver(self);
  fn.defaults = std::make_shared<std::vector<Value>>();
  for (const Param &p : def.params)
    fn.defaults->push_back(p.defaultValue ? eval(*p.defaultValue, scope) : Value());
  targetScope(scope, def.name).vars[def.name] = fn;
}

void Evaluator::assignTarget(const Expr &target, const Value &v, Scope &scope) {
  switch (target.kind) {
  case ExprKind::Name: {
    const std::string &id = static_cast<const NameExpr &>(target).id;
    if (v.is<Tensor>() && v.as<Tensor>().defined())
      v.as<Tensor>().storage()->nameAfter(id);   // out-of-bounds messages name the variable
    targetScope(scope, id).vars[id] = v;
    return;
  }
  case ExprKind::Tuple:
  case ExprKind::List: {
    const auto &elts = target.kind == ExprKind::Tuple ? static_cast<const TupleExpr &>(target).elts
                                                      : static_cast<const ListExpr &>(target).elts;
    std::vector<Value> items;
    if (isSequence(v))
      items = sequenceItems(v);
    else if (v.is<Tensor>() && v.as<Tensor>().ndim() > 0)
      for (int64_t i = 0; i < v.as<Tensor>().shape()[0]; ++i)
        items.push_back(v.as<Tensor>().select(0, i));
    else
      fail(target.loc, fmt::format("cannot unpack a '{}' into {} names", typeName(v), elts.size()));
    if (items.size() != elts.size())
      fail(target.loc, fmt::format("cannot unpack {} values into {} names", items.size(), elts.size()));
    for (size_t i = 0; i < elts.size(); ++i)
      assignTarget(*elts[i], items[i], scope);
    return;
  }
  case ExprKind::Subscript:
    assignSubscript(static_cast<const SubscriptExpr &>(target), v, scope);
    return;
  default:
    fail(target.loc, "cannot assign to this expression in host code");
  }
}

void Evaluator::assignSubscript(const SubscriptExpr &target, const Value &v, Scope &scope) {
  Value c = eval(*target.value, scope);
  Value index = eval(*target.index, scope);
  try {
    if (c.is<ListVal>()) {
      auto &items = *c.as<ListVal>().items;
      if (!index.isIntLike())
        throw HostError(fmt::format("list indices must be integers, not '{}'", typeName(index)));
      int64_t n = int64_t(items.size()), i = index.toInt();
      if (i < -n || i >= n)
        throw HostError(fmt::format("list assignment index out of range (index {}, length {})", i, n));
      items[size_t(i < 0 ? i + n : i)] = v;
      return;
    }
    if (c.is<DictVal>()) {
      dictSet(c.as<DictVal>(), index, v);
      return;
    }
    if (c.is<Tensor>()) {
      Tensor dst = subscript(c, index).as<Tensor>();
      Tensor src = v.is<Tensor>() ? v.as<Tensor>() : toTensor(v, "assigned value");
      Shape b = broadcastShapes(dst.shape(), src.shape());
      if (b != dst.shape())
        throw HostError(fmt::format("cannot assign a tensor of shape {} to a view of shape {}",
                                    shapeStr(src.shape()), shapeStr(dst.shape())));
      Tensor full = binary(BinaryOp::Add, Tensor::zeros(dst.shape(), src.dtype()), src);
      for (int64_t i = 0, n = dst.numel(); i < n; ++i)
        isFloat(full.dtype()) ? dst.setDouble(i, full.getDouble(i)) : dst.setInt(i, full.getInt(i));
      return;
    }
    throw HostError(fmt::format("'{}' object does not support item assignment", typeName(c)));
  } catch (const HostError &e) {
    fail(target.loc, e.what());
  }
}

// ------------------------------------------------------------------ expressions

Value Evaluator::eval(const Expr &e, Scope &scope) {
  try {
    return evalInner(e, scope);
  } catch (const HostError &err) {
    fail(e.loc, err.what());
  }
}

Value Evaluator::evalInner(const Expr &e, Scope &scope) {
  switch (e.kind) {
  case ExprKind::Name: return evalName(static_cast<const NameExpr &>(e), scope);
  case ExprKind::Int: {
    const auto &i = static_cast<const IntExpr &>(e);
    if (i.isUnsigned64)
      fail(e.loc, "integer literal does not fit in a 64-bit signed host int");
    return i.value;
  }
  case ExprKind::Float: return static_cast<const FloatExpr &>(e).value;
  case ExprKind::Str: return static_cast<const StrExpr &>(e).value;
  case ExprKind::Bool: return static_cast<const BoolExpr &>(e).value;
  case ExprKind::None: return Value();
  case ExprKind::Ellipsis: return EllipsisVal{};
  case ExprKind::Attribute: return evalAttribute(static_cast<const AttributeExpr &>(e), scope);
  case ExprKind::Subscript: return evalSubscript(static_cast<const SubscriptExpr &>(e), scope);
  case ExprKind::Slice: {
    const auto &s = static_cast<const SliceExpr &>(e);
    auto part = [&](const ExprPtr &p) { return p ? eval(*p, scope) : Value(); };
    return SliceVal{std::make_shared<const std::vector<Value>>(
        std::vector<Value>{part(s.lower), part(s.upper), part(s.step)})};
  }
  case ExprKind::Call: return evalCall(static_cast<const CallExpr &>(e), scope);
  case ExprKind::BinOp: {
    const auto &b = static_cast<const BinOpExpr &>(e);
    Value l = eval(*b.lhs, scope);
    Value r = eval(*b.rhs, scope);
    return binaryOp(b.op, l, r);
  }
  case ExprKind::UnaryOp: {
    const auto &u = static_cast<const UnaryOpExpr &>(e);
    Value v = eval(*u.operand, scope);
    switch (u.op) {
    case UnaryOpKind::Not: return !truthy(v);
    case UnaryOpKind::Pos:
      if (!v.isNumber() && !v.is<Tensor>())
        throw HostError(fmt::format("bad operand type for unary +: '{}'", typeName(v)));
      return v.is<bool>() ? Value(v.toInt()) : v;
    case UnaryOpKind::Neg:
      if (v.is<Tensor>())
        return unary(UnaryOp::Neg, v.as<Tensor>());
      if (v.is<double>())
        return -v.as<double>();
      if (v.isIntLike())
        return binaryOp(BinOpKind::Sub, Value(int64_t(0)), v);
      throw HostError(fmt::format("bad operand type for unary -: '{}'", typeName(v)));
    case UnaryOpKind::Invert:
      if (v.is<Tensor>())
        return unary(UnaryOp::Not, v.as<Tensor>());
      if (v.isIntLike())
        return ~v.toInt();
      throw HostError(fmt::format("bad operand type for unary ~: '{}'", typeName(v)));
    }
    return v;
  }
  case ExprKind::BoolOp: {
    const auto &b = static_cast<const BoolOpExpr &>(e);
    Value v;
    for (const ExprPtr &x : b.values) {
      v = eval(*x, scope);
      bool t = truthy(v);
      if ((b.op == BoolOpKind::And && !t) || (b.op == BoolOpKind::Or && t))
        return v;
    }
    return v;
  }
  case ExprKind::Compare: return evalCompare(static_cast<const CompareExpr &>(e), scope);
  case ExprKind::IfExp: {
    const auto &i = static_cast<const IfExpExpr &>(e);
    return truthy(eval(*i.test, scope)) ? eval(*i.body, scope) : eval(*i.orelse, scope);
  }
  case ExprKind::Tuple:
  case ExprKind::List: {
    const auto &elts = e.kind == ExprKind::Tuple ? static_cast<const TupleExpr &>(e).elts
                                                 : static_cast<const ListExpr &>(e).elts;
    std::vector<Value> items;
    for (const ExprPtr &x : elts)
      items.push_back(eval(*x, scope));
    return e.kind == ExprKind::Tuple ? makeTuple(std::move(items)) : makeList(std::move(items));
  }
  case ExprKind::Dict: {
    const auto &d = static_cast<const DictExpr &>(e);
    Value dict = makeDict();
    for (size_t i = 0; i < d.keys.size(); ++i) {
      Value k = eval(*d.keys[i], scope);
      dictSet(dict.as<DictVal>(), k, eval(*d.values[i], scope));
    }
    return dict;
  }
  case ExprKind::Lambda: return evalLambda(static_cast<const LambdaExpr &>(e), scope);
  case ExprKind::Comprehension: return evalComprehension(static_cast<const ComprehensionExpr &>(e), scope);
  }
  fail(e.loc, "unsupported expression in host code");
}

Value Evaluator::evalName(const NameExpr &e, Scope &scope) {
  for (Scope *s = &scope; s; s = s->parent.get()) {
    auto it = s->vars.find(e.id);
    if (it != s->vars.end())
      return it->second;
  }
  auto it = module_->vars.find(e.id);
  if (it != module_->vars.end())
    return it->second;
  auto b = builtins_.find(e.id);
  if (b != builtins_.end())
    return b->second;
  fail(e.loc, fmt::format("unknown name '{}'", e.id));
}

Value Evaluator::evalCompare(const CompareExpr &e, Scope &scope) {
  Value left = eval(*e.left, scope);
  Value result = true;
  for (size_t i = 0; i < e.ops.size(); ++i) {
    Value right = eval(*e.comparators[i], scope);
    Location at = i < e.opLocs.size() ? e.opLocs[i] : e.loc;
    try {
      result = compareOp(e.ops[i], left, right);
      if (!result.is<Tensor>() && !truthy(result))
        return result;
    } catch (const HostError &err) {
      fail(at, err.what());
    }
    left = right;
  }
  return result;
}

Value Evaluator::evalSubscript(const SubscriptExpr &e, Scope &scope) {
  Value c = eval(*e.value, scope);
  Value index = eval(*e.index, scope);
  if (c.is<KernelVal>())
    return KernelGridVal{c.as<KernelVal>().def, std::make_shared<Value>(index), e.index->loc};
  return subscript(c, index);
}

Value Evaluator::evalAttribute(const AttributeExpr &e, Scope &scope) {
  Value obj = eval(*e.value, scope);
  if (obj.is<ModuleVal>()) {
    std::string full = obj.as<ModuleVal>().name + "." + e.attr;
    if (isKnownModule(full))
      return ModuleVal{full};
    auto it = builtins_.find(e.attr);
    if (it == builtins_.end()) {
      std::vector<std::string> names;
      for (const auto &[n, v] : builtins_) names.push_back(n);
      fail(e.loc, fmt::format("'{}' is not supported in host code{} (docs/language.md, \"Host code\", lists "
                              "what is)",
                              full, didYouMean(e.attr, names)));
    }
    return it->second;
  }
  if (obj.is<Tensor>())
    return tensorAttribute(obj.as<Tensor>(), e.attr);
  if (obj.is<DTypeVal>() && e.attr == "itemsize")
    return int64_t(byteSize(obj.as<DTypeVal>().scalar));
  return containerAttribute(obj, e.attr);
}

Value Evaluator::evalLambda(const LambdaExpr &e, Scope &scope) {
  FunctionVal fn;
  fn.lambda = &e;
  fn.closure = closeOver(scope.shared_from_this());
  return fn;
}

Value Evaluator::evalComprehension(const ComprehensionExpr &e, Scope &scope) {
  // Python 3's rules: the first iterable is evaluated in the enclosing
  // scope, the loop variables live in the comprehension's own (they do not
  // leak); a generator is evaluated at once, into a list
  auto inner = std::make_shared<Scope>();
  inner->parent = scope.shared_from_this();
  std::vector<Value> items;
  Value dict = makeDict();
  std::function<void(size_t)> loop = [&](size_t k) {
    if (k == e.fors.size()) {
      Value x = eval(*e.elt, *inner);
      if (e.form != ComprehensionExpr::Form::Dict) {
        items.push_back(std::move(x));
        return;
      }
      dictSet(dict.as<DictVal>(), x, eval(*e.value, *inner));
      return;
    }
    const ComprehensionFor &f = e.fors[k];
    for (const Value &item : iterItems(eval(*f.iter, k == 0 ? scope : *inner), f.iter->loc)) {
      checkInterrupt(f.loc);
      assignTarget(*f.target, item, *inner);
      if (std::all_of(f.ifs.begin(), f.ifs.end(), [&](const ExprPtr &c) { return truthy(eval(*c, *inner)); }))
        loop(k + 1);
    }
  };
  loop(0);
  return e.form == ComprehensionExpr::Form::Dict ? dict : makeList(std::move(items));
}

Value Evaluator::evalCall(const CallExpr &e, Scope &scope) {
  Value fn = eval(*e.func, scope);
  CallArgs args;
  args.loc = e.loc;
  for (const ExprPtr &a : e.args) {
    args.args.push_back(eval(*a, scope));
    args.argLocs.push_back(a->loc);
  }
  for (const Keyword &k : e.keywords) {
    args.kwargs.emplace_back(k.name, eval(*k.value, scope));
    args.kwLocs.push_back(k.loc);
  }
  try {
    return call(fn, args);
  } catch (const HostError &err) {
    fail(e.loc, err.what());
  }
}

Value Evaluator::call(const Value &fn, CallArgs &args) {
  checkInterrupt(args.loc);
  if (fn.is<FunctionVal>())
    return callFunction(fn.as<FunctionVal>(), args);
  if (fn.is<BuiltinVal>())
    return (*fn.as<BuiltinVal>().fn)(*this, args);
  if (fn.is<KernelGridVal>()) {
    launchKernel(*this, fn.as<KernelGridVal>(), args);
    return Value();
  }
  if (fn.is<KernelVal>())
    fail(args.loc, fmt::format("kernel '{}' must be launched with a grid: {}[grid](...)",
                               fn.as<KernelVal>().def->name, fn.as<KernelVal>().def->name));
  fail(args.loc, fmt::format("'{}' object is not callable", typeName(fn)));
}

namespace {
/// Binds call arguments to a def's or lambda's parameters, Python style.
void bindParams(const FunctionVal &fn, CallArgs &args, Scope &frame) {
  std::vector<std::string> names;
  if (fn.def)
    for (const Param &p : fn.def->params)
      names.push_back(p.name);
  else
    names = fn.lambda->params;
  std::string fname = fn.name();
  if (args.args.size() > names.size())
    fail(args.loc, fmt::format("{}() takes {} positional argument{} but {} were given", fname, names.size(),
                               names.size() == 1 ? "" : "s", args.args.size()));
  std::vector<bool> bound(names.size(), false);
  for (size_t i = 0; i < args.args.size(); ++i) {
    frame.vars[names[i]] = args.args[i];
    bound[i] = true;
  }
  for (size_t k = 0; k < args.kwargs.size(); ++k) {
    auto it = std::find(names.begin(), names.end(), args.kwargs[k].first);
    if (it == names.end())
      fail(args.kwLocs[k], fmt::format("{}() got an unexpected keyword argument '{}'{}", fname, args.kwargs[k].first,
                                       didYouMean(args.kwargs[k].first, names)));
    size_t i = size_t(it - names.begin());
    if (bound[i])
      fail(args.kwLocs[k], fmt::format("{}() got multiple values for argument '{}'", fname, names[i]));
    frame.vars[names[i]] = args.kwargs[k].second;
    bound[i] = true;
  }
  for (size_t i = 0; i < names.size(); ++i) {
    if (bound[i])
      continue;
    if (!fn.def || !fn.def->params[i].defaultValue)
      fail(args.loc, fmt::format("{}() missing required argument '{}'", fname, names[i]));
    frame.vars[names[i]] = (*fn.defaults)[i];
  }
}
} // namespace

Value Evaluator::callFunction(const FunctionVal &fn, CallArgs &args) {
  if (depth_ >= opts_.maxCallDepth)
    fail(args.loc, fmt::format("maximum host call depth ({}) exceeded calling {}(): unbounded recursion?",
                               opts_.maxCallDepth, fn.name()));
  auto frame = std::make_shared<Scope>();
  frame->parent = fn.closure == module_ ? nullptr : fn.closure;
  bindParams(fn, args, *frame);
  struct DepthGuard {
    int &d;
    ~DepthGuard() { --d; }
  } guard{++depth_};
  if (fn.lambda)
    return eval(*fn.lambda->body, *frame);
  Value ret;
  execBlock(fn.def->body, *frame, ret);
  return ret;
}

// ------------------------------------------------------------------ entry

std::set<std::string> builtinNames() {
  std::map<std::string, Value> table;
  installBuiltins(table);
  std::set<std::string> names;
  for (const auto &[name, v] : table) names.insert(name);
  return names;
}

int runHostProgram(const sema::Program &prog, Launcher &launcher, const HostOptions &opts) {
  Evaluator ev(prog, launcher, opts);
  return ev.run();
}

} // namespace tile::host
