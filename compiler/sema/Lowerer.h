// Lowerer.h - internal to sema: the partial evaluator that turns a kernel's
// AST into tile IR. Split by concern: LowerExpr.cpp (expressions, operators,
// promotion and broadcasting), LowerStmt.cpp (statements, control flow,
// inlining of @jit calls), Builtins.cpp (tl.* functions and tensor methods).
#pragma once

#include "sema/Lower.h"

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tile::sema {

/// What a name or expression denotes while lowering: a compile-time value,
/// an IR value (scalar or tensor), a namespace such as `tl`, a builtin, a
/// @jit function, a tuple of any of these, a method bound to a receiver, or
/// a block pointer (tl.make_block_ptr; layout in BuiltinsBlockPtr.h).
struct Val {
  enum class Kind { Const, IR, Namespace, Builtin, JitFunction, Tuple, Method, Range, BlockPtr };
  Kind kind = Kind::Const;
  ConstValue c;                        ///< Const
  ir::Value *v = nullptr;              ///< IR
  std::string name;                    ///< Namespace path / Builtin / Method name
  const ast::FunctionDef *fn = nullptr;///< JitFunction
  std::vector<Val> elts;               ///< Tuple elements; Method: [receiver]; Range: [start, end, step];
                                       ///< BlockPtr: [base, shape..., strides..., offsets...]
  bool staticRange = false;            ///< Range from tl.static_range

  static Val constant(ConstValue c) { Val x; x.kind = Kind::Const; x.c = std::move(c); return x; }
  static Val ir(ir::Value *v) { Val x; x.kind = Kind::IR; x.v = v; return x; }
  static Val ns(std::string path) { Val x; x.kind = Kind::Namespace; x.name = std::move(path); return x; }
  static Val builtin(std::string n) { Val x; x.kind = Kind::Builtin; x.name = std::move(n); return x; }
  static Val tuple(std::vector<Val> e) { Val x; x.kind = Kind::Tuple; x.elts = std::move(e); return x; }
  static Val method(Val recv, std::string n) {
    Val x; x.kind = Kind::Method; x.name = std::move(n); x.elts.push_back(std::move(recv)); return x;
  }
  bool isConst() const { return kind == Kind::Const; }
  bool isIR() const { return kind == Kind::IR; }
  bool isTensor() const { return kind == Kind::IR && v->type.isTensor(); }
};

/// The elements of a tuple value, runtime or constexpr; none for anything
/// else (each builtin says what else it accepts, and the error).
inline std::optional<std::vector<Val>> tupleElements(const Val &v) {
  if (v.kind == Val::Kind::Tuple) return v.elts;
  if (v.isConst())
    if (auto *t = std::get_if<ConstTuple>(&v.c.v)) {
      std::vector<Val> out;
      for (const ConstValue &c : *t) out.push_back(Val::constant(c));
      return out;
    }
  return std::nullopt;
}

/// Arguments of a builtin call after matching against its parameter list.
struct CallArgs {
  Location loc;                         ///< the call
  std::string fnName;                   ///< for messages
  std::vector<std::optional<Val>> vals; ///< one per declared parameter (nullopt: absent, no default)
  std::vector<Location> locs;           ///< location of each given argument (call loc otherwise)
  std::vector<Val> varargs;             ///< extra positional arguments when the builtin takes *args
  const Val &operator[](size_t i) const;
  bool has(size_t i) const { return vals[i].has_value() && !(vals[i]->isConst() && vals[i]->c.isNone()); }
};

/// What lowering a statement did to the control flow of its list.
enum class Flow {
  Next,     ///< go on with the next statement
  Done,     ///< the rest of the list was lowered already (inside if branches)
  Returned, ///< every path returned: the rest is unreachable
};

class Lowerer {
public:
  /// fn null: constant evaluation only (module level, defaults).
  Lowerer(const Program &prog, ir::Function *fn);

  // ---- entry points
  void lowerKernelBody(const ast::FunctionDef &kernel, const Specialization &spec);
  /// Evaluates an expression that must be a compile-time constant (defaults,
  /// module-level constants). Throws CompileError otherwise.
  ConstValue evalConst(const ast::Expr &e);

  // ---- expressions (LowerExpr.cpp)
  Val lowerExpr(const ast::Expr &e);
  Val binaryOp(ast::BinOpKind op, const Val &a, const Val &b, Location loc);
  Val compareOp(ast::CmpOpKind op, const Val &a, const Val &b, Location loc);
  Val unaryOp(ast::UnaryOpKind op, const Val &a, Location loc);
  /// Materializes a constexpr number as an IR scalar (ints i32/i64, floats f32, bools i1).
  ir::Value *toIR(const Val &v, Location loc, const char *what = "value");
  /// toIR + cast to `elem`, keeping scalars scalar.
  ir::Value *toIRAs(const Val &v, ElemType elem, Location loc);
  ir::Value *castTo(ir::Value *v, ElemType elem, Location loc);
  ir::Value *broadcastTo(ir::Value *v, const std::vector<int64_t> &shape, Location loc);
  std::vector<int64_t> broadcastShapes(const std::vector<int64_t> &a, const std::vector<int64_t> &b,
                                       Location loc, const char *what);
  /// Brings two values to a common shape and element type (Triton's rules).
  std::pair<ir::Value *, ir::Value *> promote(const Val &a, const Val &b, Location loc, bool trueDiv = false);
  /// The two arms of a select (tl.where, a conditional expression): pointers
  /// of one element type stay pointers, broadcast to one shape; anything
  /// else is promoted as by arithmetic.
  std::pair<ir::Value *, ir::Value *> selectArms(const Val &a, const Val &b, Location loc, Location locA,
                                                 Location locB, const char *what);
  ElemType valElemType(const Val &v) const;
  ir::Value *toCondition(const Val &v, Location loc, const char *what);
  bool isTruthyConst(const Val &v, Location loc);
  Val getAttribute(const Val &base, const std::string &attr, Location loc);
  Val subscript(const Val &base, const ast::Expr &index, Location loc);
  Val call(const ast::CallExpr &c);
  Val callValue(const Val &callee, const ast::CallExpr &c);

  // ---- builtins (Builtins.cpp)
  Val callBuiltin(const std::string &name, const ast::CallExpr &c, const Val *receiver);
  bool isBuiltinName(const std::string &qualified) const;
  ir::Type tensorType(ElemType e, std::vector<int64_t> shape, Location loc);
  ir::Value *reduceAll(ir::Value *x, const std::string &kind, std::optional<int> axis, bool keepDims,
                       Location loc);

  /// libdevice.NAME(args) (BuiltinsLibdevice.cpp)
  Val callLibdevice(const std::string &name, const ast::CallExpr &c);

  // ---- statements (LowerStmt.cpp)
  /// Lowers a statement list; returns true when it ends in a return on every path.
  bool lowerBlock(const ast::StmtList &stmts, size_t from = 0);
  Val callJit(const ast::FunctionDef &fn, const ast::CallExpr &c);

  // ---- state
  const Program &prog;

private:
  std::unique_ptr<ir::Function> scratch_; ///< IR sink when evaluating constants only

public:
  ir::Function *fn;
  ir::Builder b;
  std::map<std::string, Val> scope;   ///< the current function's names
  std::vector<const ast::FunctionDef *> callStack;
  bool inRuntimeLoop = false;
  size_t opBudget = 0;

  Val lookupName(const std::string &name, Location loc);
  ir::Builder &at(Location loc) { b.loc = loc; return b; }
  Val constOrIR(ir::Value *v) { return Val::ir(v); }
  std::string typeName(const Val &v) const;

private:
  Val lowerExprImpl(const ast::Expr &e);
  Val lowerIfExp(const ast::IfExpExpr &ie, ir::Value *cond);
  /// The statements still to run after the current list: (list, index) frames.
  struct Cont {
    const ast::StmtList *list;
    size_t from;
    const Cont *next;
  };
  Flow lowerList(const ast::StmtList &stmts, size_t from, const Cont *k);
  Flow lowerCont(const Cont *k);
  Flow lowerStmt(const ast::StmtList &stmts, size_t i, const Cont *k);
  void assign(const ast::Expr &target, Val v);
  Flow lowerIf(const ast::IfStmt &s, const Cont &rest);
  void lowerFor(const ast::ForStmt &s);
  void lowerWhile(const ast::WhileStmt &s);
  void lowerStaticFor(const ast::ForStmt &s, const Val &range);
  std::vector<std::string> carriedNames(const ast::StmtList &body, const std::set<std::string> &extra = {});
  std::vector<Val> fieldsOf(const std::vector<std::string> &names, Location loc);
};

/// Python semantics of arithmetic on two constexpr values (floor division,
/// modulo with the divisor's sign, true division to float).
ConstValue constBinary(ast::BinOpKind op, const ConstValue &a, const ConstValue &b, Location loc);
ConstValue constCompare(ast::CmpOpKind op, const ConstValue &a, const ConstValue &b, Location loc);

/// Tensors may hold at most this many elements (Triton's limit too).
inline constexpr int64_t kMaxTensorElements = int64_t(1) << 20;
/// Upper bound on IR ops one kernel may lower to (static unrolling, inlining).
inline constexpr size_t kMaxOps = 200000;
inline constexpr size_t kMaxInlineDepth = 64;

} // namespace tile::sema
