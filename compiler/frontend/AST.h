// AST.h - syntax tree of the Python subset that .tile files are written in.
//
// One tree serves both kernels (@jit functions, lowered to tile IR by sema)
// and host code (plain defs, evaluated by runtime/host). Nodes are plain
// structs tagged with a kind; check kinds with `kind`, not dynamic_cast.
// Every node carries the Location of its first token (for binary operators:
// the operator token, which is where a caret helps most).
#pragma once

#include "support/Diagnostics.h"

#include <memory>
#include <set>
#include <string>
#include <vector>

namespace tile::ast {

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;
using StmtList = std::vector<StmtPtr>;

enum class ExprKind {
  Name, Int, Float, Str, Bool, None, Ellipsis,
  Attribute, Subscript, Slice, Call,
  BinOp, UnaryOp, BoolOp, Compare, IfExp,
  Tuple, List, Dict, Lambda, Comprehension
};

enum class BinOpKind {
  Add, Sub, Mul, Div, FloorDiv, Mod, Pow, MatMul,
  LShift, RShift, BitAnd, BitOr, BitXor
};
enum class UnaryOpKind { Neg, Pos, Not, Invert };
enum class BoolOpKind { And, Or };
enum class CmpOpKind { Eq, NotEq, Lt, LtE, Gt, GtE, Is, IsNot, In, NotIn };

const char *binOpSpelling(BinOpKind k);   ///< "+", "//", "@", ...
const char *cmpOpSpelling(CmpOpKind k);   ///< "<", "is not", ...

struct Expr {
  ExprKind kind;
  Location loc;
  explicit Expr(ExprKind k, Location l) : kind(k), loc(l) {}
  virtual ~Expr() = default;
};

struct NameExpr : Expr {
  std::string id;
  NameExpr(Location l, std::string id) : Expr(ExprKind::Name, l), id(std::move(id)) {}
};
/// Integer literal. Python ints are unbounded; values outside int64 are a
/// lexer error ("integer literal too large").
struct IntExpr : Expr {
  int64_t value;
  /// true for literals above INT64_MAX that still fit in uint64 (kept as bits)
  bool isUnsigned64 = false;
  IntExpr(Location l, int64_t v) : Expr(ExprKind::Int, l), value(v) {}
};
struct FloatExpr : Expr {
  double value;
  FloatExpr(Location l, double v) : Expr(ExprKind::Float, l), value(v) {}
};
/// String literal (adjacent literals already concatenated; escapes decoded).
struct StrExpr : Expr {
  std::string value;
  StrExpr(Location l, std::string v) : Expr(ExprKind::Str, l), value(std::move(v)) {}
};
struct BoolExpr : Expr {
  bool value;
  BoolExpr(Location l, bool v) : Expr(ExprKind::Bool, l), value(v) {}
};
struct NoneExpr : Expr {
  explicit NoneExpr(Location l) : Expr(ExprKind::None, l) {}
};
struct EllipsisExpr : Expr {
  explicit EllipsisExpr(Location l) : Expr(ExprKind::Ellipsis, l) {}
};
/// value.attr  (loc: the attribute name)
struct AttributeExpr : Expr {
  ExprPtr value;
  std::string attr;
  AttributeExpr(Location l, ExprPtr v, std::string a)
      : Expr(ExprKind::Attribute, l), value(std::move(v)), attr(std::move(a)) {}
};
/// value[index]; several comma-separated indices become one TupleExpr.
struct SubscriptExpr : Expr {
  ExprPtr value;
  ExprPtr index;
  SubscriptExpr(Location l, ExprPtr v, ExprPtr i)
      : Expr(ExprKind::Subscript, l), value(std::move(v)), index(std::move(i)) {}
};
/// lower:upper:step inside a subscript; each part may be null.
struct SliceExpr : Expr {
  ExprPtr lower, upper, step;
  explicit SliceExpr(Location l) : Expr(ExprKind::Slice, l) {}
};
struct Keyword {
  std::string name;
  ExprPtr value;
  Location loc;
};
/// func(args..., name=value...)
struct CallExpr : Expr {
  ExprPtr func;
  std::vector<ExprPtr> args;
  std::vector<Keyword> keywords;
  CallExpr(Location l, ExprPtr f) : Expr(ExprKind::Call, l), func(std::move(f)) {}
};
struct BinOpExpr : Expr {
  BinOpKind op;
  ExprPtr lhs, rhs;
  BinOpExpr(Location l, BinOpKind o, ExprPtr a, ExprPtr b)
      : Expr(ExprKind::BinOp, l), op(o), lhs(std::move(a)), rhs(std::move(b)) {}
};
struct UnaryOpExpr : Expr {
  UnaryOpKind op;
  ExprPtr operand;
  UnaryOpExpr(Location l, UnaryOpKind o, ExprPtr e)
      : Expr(ExprKind::UnaryOp, l), op(o), operand(std::move(e)) {}
};
/// a and b and c  (values has two or more entries)
struct BoolOpExpr : Expr {
  BoolOpKind op;
  std::vector<ExprPtr> values;
  BoolOpExpr(Location l, BoolOpKind o) : Expr(ExprKind::BoolOp, l), op(o) {}
};
/// left op0 c0 op1 c1 ...  (chained comparison; ops.size() == comparators.size())
struct CompareExpr : Expr {
  ExprPtr left;
  std::vector<CmpOpKind> ops;
  std::vector<ExprPtr> comparators;
  std::vector<Location> opLocs;
  CompareExpr(Location l, ExprPtr lhs) : Expr(ExprKind::Compare, l), left(std::move(lhs)) {}
};
/// body if test else orelse
struct IfExpExpr : Expr {
  ExprPtr test, body, orelse;
  IfExpExpr(Location l, ExprPtr t, ExprPtr b, ExprPtr o)
      : Expr(ExprKind::IfExp, l), test(std::move(t)), body(std::move(b)), orelse(std::move(o)) {}
};
struct TupleExpr : Expr {
  std::vector<ExprPtr> elts;
  explicit TupleExpr(Location l) : Expr(ExprKind::Tuple, l) {}
};
struct ListExpr : Expr {
  std::vector<ExprPtr> elts;
  explicit ListExpr(Location l) : Expr(ExprKind::List, l) {}
};
struct DictExpr : Expr {
  std::vector<ExprPtr> keys, values;
  explicit DictExpr(Location l) : Expr(ExprKind::Dict, l) {}
};
/// lambda a, b: expr  (used for grids: lambda META: (cdiv(n, META["BLOCK"]),))
struct LambdaExpr : Expr {
  std::vector<std::string> params;
  ExprPtr body;
  explicit LambdaExpr(Location l) : Expr(ExprKind::Lambda, l) {}
};

/// One `for target in iter if cond ...` clause of a comprehension.
struct ComprehensionFor {
  ExprPtr target, iter;
  std::vector<ExprPtr> ifs;
  Location loc;
};
/// [elt for ...], {key: value for ...}, (elt for ...) / f(elt for ...):
/// host code only (a generator is evaluated at once, into a list).
struct ComprehensionExpr : Expr {
  enum class Form { List, Dict, Generator } form;
  ExprPtr elt, value;   ///< value: a dict comprehension's (elt is its key)
  std::vector<ComprehensionFor> fors;
  ComprehensionExpr(Location l, Form f) : Expr(ExprKind::Comprehension, l), form(f) {}
};

// ---------------------------------------------------------------- statements

enum class StmtKind {
  Expr, Assign, AugAssign, AnnAssign, For, While, If, Return, Pass, Break,
  Continue, Assert, FunctionDef, Import, ImportFrom, Global, Raise, With, Try
};

struct Stmt {
  StmtKind kind;
  Location loc;
  explicit Stmt(StmtKind k, Location l) : kind(k), loc(l) {}
  virtual ~Stmt() = default;
};

struct ExprStmt : Stmt {
  ExprPtr value;
  ExprStmt(Location l, ExprPtr v) : Stmt(StmtKind::Expr, l), value(std::move(v)) {}
};
/// t1 = t2 = value ; a target may be a TupleExpr (a, b = ...), a Name,
/// a Subscript or an Attribute.
struct AssignStmt : Stmt {
  std::vector<ExprPtr> targets;
  ExprPtr value;
  explicit AssignStmt(Location l) : Stmt(StmtKind::Assign, l) {}
};
/// target op= value   (loc: the operator)
struct AugAssignStmt : Stmt {
  ExprPtr target;
  BinOpKind op;
  ExprPtr value;
  AugAssignStmt(Location l, ExprPtr t, BinOpKind o, ExprPtr v)
      : Stmt(StmtKind::AugAssign, l), target(std::move(t)), op(o), value(std::move(v)) {}
};
/// target: annotation [= value]
struct AnnAssignStmt : Stmt {
  ExprPtr target, annotation, value; // value may be null
  explicit AnnAssignStmt(Location l) : Stmt(StmtKind::AnnAssign, l) {}
};
struct ForStmt : Stmt {
  ExprPtr target, iter;
  StmtList body;
  explicit ForStmt(Location l) : Stmt(StmtKind::For, l) {}
};
struct WhileStmt : Stmt {
  ExprPtr test;
  StmtList body;
  explicit WhileStmt(Location l) : Stmt(StmtKind::While, l) {}
};
/// if/elif/else: an elif is an IfStmt alone in orelse.
struct IfStmt : Stmt {
  ExprPtr test;
  StmtList body, orelse;
  explicit IfStmt(Location l) : Stmt(StmtKind::If, l) {}
};
struct ReturnStmt : Stmt {
  ExprPtr value; // may be null
  explicit ReturnStmt(Location l) : Stmt(StmtKind::Return, l) {}
};
/// with ctx [as target]: body -- host code, for context managers that
/// change nothing tile computes (torch.no_grad(), ...).
struct WithStmt : Stmt {
  ExprPtr context, target; // target may be null
  StmtList body;
  explicit WithStmt(Location l) : Stmt(StmtKind::With, l) {}
};
/// except [type [as name]]: body -- one handler of a TryStmt (type null:
/// a bare except).
struct ExceptHandler {
  Location loc;
  ExprPtr type;        ///< may be null
  std::string name;    ///< empty without 'as'
  StmtList body;
};
/// try: body (except ...)* [else: orelse] [finally: finalbody] -- host code.
struct TryStmt : Stmt {
  StmtList body, orelse, finalbody;
  std::vector<ExceptHandler> handlers;
  explicit TryStmt(Location l) : Stmt(StmtKind::Try, l) {}
};
/// raise [exc]: host code raises exc (its message, located here); a
/// try/except may catch it, else it ends the run.
struct RaiseStmt : Stmt {
  ExprPtr exc; // may be null (a bare raise)
  explicit RaiseStmt(Location l) : Stmt(StmtKind::Raise, l) {}
};
struct PassStmt : Stmt {
  explicit PassStmt(Location l) : Stmt(StmtKind::Pass, l) {}
};
struct BreakStmt : Stmt {
  explicit BreakStmt(Location l) : Stmt(StmtKind::Break, l) {}
};
struct ContinueStmt : Stmt {
  explicit ContinueStmt(Location l) : Stmt(StmtKind::Continue, l) {}
};
struct AssertStmt : Stmt {
  ExprPtr test, msg; // msg may be null
  explicit AssertStmt(Location l) : Stmt(StmtKind::Assert, l) {}
};
struct Param {
  std::string name;
  ExprPtr annotation; // may be null
  ExprPtr defaultValue; // may be null
  Location loc;
};
struct FunctionDef : Stmt {
  std::string name;
  std::vector<Param> params;
  std::vector<ExprPtr> decorators; // e.g. triton.jit, jit, triton.jit(...)
  ExprPtr returns;                 // annotation, may be null
  std::string docstring;           // first-statement string, removed from body
  StmtList body;
  explicit FunctionDef(Location l) : Stmt(StmtKind::FunctionDef, l) {}
};
/// import a.b.c [as x], ...
struct ImportStmt : Stmt {
  struct Alias { std::string module, asName; Location loc; };
  std::vector<Alias> names;
  explicit ImportStmt(Location l) : Stmt(StmtKind::Import, l) {}
};
/// from a.b import c [as d], ...
struct ImportFromStmt : Stmt {
  std::string module;
  struct Alias { std::string name, asName; Location loc; };
  std::vector<Alias> names;
  explicit ImportFromStmt(Location l) : Stmt(StmtKind::ImportFrom, l) {}
};
struct GlobalStmt : Stmt {
  std::vector<std::string> names;
  explicit GlobalStmt(Location l) : Stmt(StmtKind::Global, l) {}
};

/// A parsed .tile file.
struct Module {
  int fileId = -1;
  StmtList body;
  /// The .tile files spliced in by `from NAME import ...` (Imports.h), in
  /// the order they were read: their text is part of every kernel's cache key.
  std::vector<int> importedFiles;
};

/// The names a statement list assigns, at any depth of if/for/while (Python
/// scoping: a name assigned anywhere in a function is local to all of it):
/// assignment targets (through tuples and lists), for targets and, when
/// withDefs, the names of nested defs.
void collectAssignedNames(const StmtList &stmts, std::set<std::string> &out, bool withDefs = false);
/// The names an assignment or loop target binds (through tuples and lists).
void collectTargetNames(const Expr &target, std::set<std::string> &out);

} // namespace tile::ast
