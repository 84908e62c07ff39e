// Evaluator.h - internals of the host-code interpreter shared by the
// evaluator (HostEval.cpp), the builtins (HostBuiltins.cpp) and kernel
// launches (HostLaunch.cpp). Not a public API: use HostEval.h.
#pragma once

#include "host/HostEval.h"
#include "host/Value.h"

#include <map>
#include <set>
#include <string>
#include <unordered_map>

namespace tile::host {

/// One function activation (or the module). Lookups walk parent links:
/// a def or lambda closes over the scope it was created in.
struct Scope : std::enable_shared_from_this<Scope> {
  std::unordered_map<std::string, Value> vars;
  std::shared_ptr<Scope> parent;
  std::set<std::string> globalNames; ///< `global x` in this function
};

struct CallArgs {
  std::vector<Value> args;
  std::vector<Location> argLocs;
  std::vector<std::pair<std::string, Value>> kwargs;
  std::vector<Location> kwLocs;
  Location loc;
};

/// Matches a builtin call against a Python-like signature: names, "name="
/// for optional ones, "*" to accept extra positionals (in rest()).
/// Unknown keywords, missing and surplus arguments are located errors.
class ArgParser {
public:
  ArgParser(const CallArgs &call, std::string fname, std::vector<std::string> params);
  bool has(const std::string &name) const;
  const Value &get(const std::string &name) const;
  /// The value, or def when absent or None.
  Value getOr(const std::string &name, Value def) const;
  Location loc(const std::string &name) const;
  const std::vector<Value> &rest() const { return rest_; }
  const std::vector<Location> &restLocs() const { return restLocs_; }

private:
  const CallArgs &call_;
  std::string fname_;
  std::map<std::string, std::pair<Value, Location>> bound_;
  std::vector<Value> rest_;
  std::vector<Location> restLocs_;
};

class Evaluator {
public:
  Evaluator(const sema::Program &prog, Launcher &launcher, const HostOptions &opts);
  ~Evaluator();
  Evaluator(const Evaluator &) = delete;
  Evaluator &operator=(const Evaluator &) = delete;
  int run();

  /// Calls any callable value (host function, lambda, builtin, kernel grid).
  Value call(const Value &fn, CallArgs &args);
  /// For decorator arguments (host/Tuning.h), instead of run(): binds the
  /// module's imports, defs and assignments (a failing assignment leaves
  /// its name unbound), nothing else.
  void declareModule();
  /// Evaluates an expression in the module scope.
  Value evalInModule(const ast::Expr &e) { return eval(e, *module_); }
  std::ostream &out() { return *opts_.out; }
  const HostOptions &options() const { return opts_; }
  const sema::Program &program() const { return prog_; }
  Launcher &launcher() { return launcher_; }
  /// bench_work(flops=, bytes=): the work of the next launch (then reset).
  struct BenchWork {
    double flops = 0, bytes = 0;
  };
  BenchWork &pendingWork() { return pendingWork_; }

private:
  enum class Flow { Normal, Break, Continue, Return };

  // statements
  Flow execBlock(const ast::StmtList &body, Scope &scope, Value &ret);
  Flow exec(const ast::Stmt &s, Scope &scope, Value &ret);
  Flow execFor(const ast::ForStmt &s, Scope &scope, Value &ret);
  /// The items a `for` over v visits (a copy: the body may change a list);
  /// not for ranges, which execFor walks without a list.
  std::vector<Value> iterItems(const Value &v, Location loc);
  Flow execWhile(const ast::WhileStmt &s, Scope &scope, Value &ret);
  /// try/except/else/finally (HostTry.cpp): the errors of host code and of
  /// launches are catchable, as Python exceptions named by their message's
  /// "Type: " prefix (RuntimeError without one, AssertionError for failed
  /// asserts); interrupts, timeouts and runaway recursion are not.
  Flow execTry(const ast::TryStmt &s, Scope &scope, Value &ret);
  Flow runFinally(const ast::TryStmt &s, Scope &scope, Value &ret, Flow inner);
  const ast::ExceptHandler *findHandler(const ast::TryStmt &s, const std::string &type, Scope &scope);
  [[noreturn]] void execRaise(const ast::RaiseStmt &s, Scope &scope);
  void execAssign(const ast::AssignStmt &s, Scope &scope, bool moduleLevel);
  void execAugAssign(const ast::AugAssignStmt &s, Scope &scope);
  void execAssert(const ast::AssertStmt &s, Scope &scope);
  void execImport(const ast::Stmt &s, Scope &scope);
  void defineFunction(const ast::FunctionDef &def, Scope &scope, const std::shared_ptr<Scope> &self);
  void assignTarget(const ast::Expr &target, const Value &v, Scope &scope);
  void assignSubscript(const ast::SubscriptExpr &target, const Value &v, Scope &scope);

  // expressions
  Value eval(const ast::Expr &e, Scope &scope);
  /// Python truthiness of an expression, errors located at it.
  bool test(const ast::Expr &e, Scope &scope);
  Value evalInner(const ast::Expr &e, Scope &scope);
  Value evalName(const ast::NameExpr &e, Scope &scope);
  Value evalCall(const ast::CallExpr &e, Scope &scope);
  Value evalCompare(const ast::CompareExpr &e, Scope &scope);
  Value evalSubscript(const ast::SubscriptExpr &e, Scope &scope);
  Value evalAttribute(const ast::AttributeExpr &e, Scope &scope);
  Value evalLambda(const ast::LambdaExpr &e, Scope &scope);
  Value evalComprehension(const ast::ComprehensionExpr &e, Scope &scope);
  Value callFunction(const FunctionVal &fn, CallArgs &args);
  void checkInterrupt(Location loc) const;

  /// scope, remembered as one a closure captured (~Evaluator breaks the
  /// function <-> scope cycles).
  std::shared_ptr<Scope> closeOver(std::shared_ptr<Scope> scope);

  /// The scope an assignment to name writes (honours `global`).
  Scope &targetScope(Scope &scope, const std::string &name);

  const sema::Program &prog_;
  Launcher &launcher_;
  HostOptions opts_;
  std::shared_ptr<Scope> module_;
  std::map<std::string, Value> builtins_;
  int depth_ = 0;
  /// The exceptions the enclosing except clauses handle, innermost last
  /// (a bare `raise` re-raises the last).
  std::vector<CompileError> handling_;
  BenchWork pendingWork_;
  std::vector<std::weak_ptr<Scope>> closureScopes_;
  size_t closureScopesPruneAt_ = 64;
};

// ------------------------------------------------------------- shared helpers

/// Python binary operators on values (numbers, strings, containers, tensors).
Value binaryOp(ast::BinOpKind op, const Value &a, const Value &b);
/// The value of a context manager that changes nothing tile computes
/// (torch.no_grad(), ...): `with` runs its body once (HostEval.cpp).
inline constexpr const char *kHarmlessContext = "\x01tile: a context manager that changes nothing here";
/// Python's printf-style `text % args` (HostBuiltins.cpp).
Value percentFormat(const std::string &text, const Value &args);
/// A host number as a weakly typed tensor operand.
ScalarOperand scalarOperandOf(const Value &v);
/// Python comparison (<, ==, in, is, ...); tensors compare elementwise.
Value compareOp(ast::CmpOpKind op, const Value &a, const Value &b);
/// Python truthiness; tensors must have one element.
bool truthy(const Value &v);
/// Subscript read: tuples, lists, dicts, strings, ranges, tensors.
Value subscript(const Value &container, const Value &index);

/// Conversions used by builtins; failures are HostErrors.
Tensor toTensor(const Value &v, const char *what);
Shape toShape(const Value &v, const char *what);
Scalar toDType(const Value &v, const char *what);
int64_t toIndex(const Value &v, const char *what);
/// A number, or a one-element tensor (as Python's float(t)).
double toReal(const Value &v, const char *what);

/// Fills the builtin table (zeros, print, assert_close, dtypes, ...).
void installBuiltins(std::map<std::string, Value> &table);
/// triton.Config (host/Tuning.cpp).
void addTuningBuiltins(std::map<std::string, Value> &table);
/// t.attr: shape, dtype, T, reshape, sum, ...; HostError when unknown.
Value tensorAttribute(const Tensor &t, const std::string &attr);
/// list.append, dict.get/keys/values/items; HostError when unknown.
Value containerAttribute(const Value &obj, const std::string &attr);
/// Whether a module name is one host code may import.
bool isKnownModule(const std::string &name);

/// kernel[grid](args...): converts the arguments, resolves the grid and
/// calls the launcher.
void launchKernel(Evaluator &ev, const KernelGridVal &kg, CallArgs &args);
/// Host value -> sema value (for kernels and -D); HostError if impossible.
sema::ConstValue toConstValue(const Value &v);
Value fromConstValue(const sema::ConstValue &c);

} // namespace tile::host
