// AstDump.cpp - dumpAST: the syntax tree as indented S-expressions.
//
// Each node opens a line "(Kind line:col details", its children follow on
// deeper lines (optionally as "role=(...)"), and its ")" ends its last line.
// The format is for humans and FileCheck tests (`tilec --emit ast`).
#include "frontend/Parser.h"

#include <fmt/format.h>

namespace tile::frontend {

namespace {

using namespace ast;

const char *unaryOpSpelling(UnaryOpKind k) {
  switch (k) {
  case UnaryOpKind::Neg: return "-";
  case UnaryOpKind::Pos: return "+";
  case UnaryOpKind::Not: return "not";
  case UnaryOpKind::Invert: return "~";
  }
  return "?";
}

/// Shortest round-trip text, always recognisably a float ("1.0", "1e+30").
std::string floatText(double v) {
  std::string text = fmt::format("{}", v);
  if (text.find_first_of(".eni") == std::string::npos)
    text += ".0";
  return text;
}

class Dumper {
public:
  std::string take() { return std::move(out_) + "\n"; }

  void module(const Module &m) {
    open("", "Module", nullptr, "");
    for (const StmtPtr &s : m.body)
      stmt(*s);
    close();
  }

private:
  /// Starts "label(head line:col detail" on a new line one level deeper.
  void open(std::string_view label, std::string_view head, const Location *loc,
            std::string_view detail) {
    if (!out_.empty())
      out_ += '\n';
    out_.append(2 * depth_, ' ');
    out_ += label;
    out_ += '(';
    out_ += head;
    if (loc)
      out_ += fmt::format(" {}:{}", loc->line, loc->col);
    if (!detail.empty()) {
      out_ += ' ';
      out_ += detail;
    }
    ++depth_;
  }
  void close() {
    out_ += ')';
    --depth_;
  }
  void leaf(std::string_view label, std::string_view head, Location loc,
            std::string_view detail = "") {
    open(label, head, &loc, detail);
    close();
  }
  /// A plain "label value" line, for strings that are not nodes.
  void field(std::string_view label, std::string_view value) {
    out_ += '\n';
    out_.append(2 * depth_, ' ');
    out_ += fmt::format("{}={}", label, value);
  }
  void optionalExpr(std::string_view label, const ExprPtr &e) {
    if (e)
      expr(*e, label);
  }
  void stmts(std::string_view group, const StmtList &body) {
    open("", group, nullptr, "");
    for (const StmtPtr &s : body)
      stmt(*s);
    close();
  }

  void expr(const Expr &e, std::string_view label = "");
  void exprChildren(const Expr &e);
  void stmt(const Stmt &s);
  void stmtChildren(const Stmt &s);
  void functionDef(const FunctionDef &f);
  std::string exprDetail(const Expr &e) const;
  std::string stmtDetail(const Stmt &s) const;

  std::string out_;
  int depth_ = 0;
};

const char *exprKindName(ExprKind k) {
  switch (k) {
  case ExprKind::Name: return "Name";
  case ExprKind::Int: return "Int";
  case ExprKind::Float: return "Float";
  case ExprKind::Str: return "Str";
  case ExprKind::Bool: return "Bool";
  case ExprKind::None: return "None";
  case ExprKind::Ellipsis: return "Ellipsis";
  case ExprKind::Attribute: return "Attribute";
  case ExprKind::Subscript: return "Subscript";
  case ExprKind::Slice: return "Slice";
  case ExprKind::Call: return "Call";
  case ExprKind::BinOp: return "BinOp";
  case ExprKind::UnaryOp: return "UnaryOp";
  case ExprKind::BoolOp: return "BoolOp";
  case ExprKind::Compare: return "Compare";
  case ExprKind::IfExp: return "IfExp";
  case ExprKind::Tuple: return "Tuple";
  case ExprKind::List: return "List";
  case ExprKind::Dict: return "Dict";
  case ExprKind::Lambda: return "Lambda";
  case ExprKind::Comprehension: return "Comprehension";
  }
  return "?";
}

const char *stmtKindName(StmtKind k) {
  switch (k) {
  case StmtKind::Expr: return "Expr";
  case StmtKind::Assign: return "Assign";
  case StmtKind::AugAssign: return "AugAssign";
  case StmtKind::AnnAssign: return "AnnAssign";
  case StmtKind::For: return "For";
  case StmtKind::While: return "While";
  case StmtKind::With: return "With";
  case StmtKind::Try: return "Try";
  case StmtKind::If: return "If";
  case StmtKind::Return: return "Return";
  case StmtKind::Raise: return "Raise";
  case StmtKind::Pass: return "Pass";
  case StmtKind::Break: return "Break";
  case StmtKind::Continue: return "Continue";
  case StmtKind::Assert: return "Assert";
  case StmtKind::FunctionDef: return "FunctionDef";
  case StmtKind::Import: return "Import";
  case StmtKind::ImportFrom: return "ImportFrom";
  case StmtKind::Global: return "Global";
  }
  return "?";
}

/// The inline part after "Kind line:col" (names, values, operators).
std::string Dumper::exprDetail(const Expr &e) const {
  switch (e.kind) {
  case ExprKind::Name: return static_cast<const NameExpr &>(e).id;
  case ExprKind::Int: {
    const auto &i = static_cast<const IntExpr &>(e);
    if (i.isUnsigned64)
      return fmt::format("{} u64", static_cast<uint64_t>(i.value));
    return fmt::format("{}", i.value);
  }
  case ExprKind::Float: return floatText(static_cast<const FloatExpr &>(e).value);
  case ExprKind::Str: return quoteString(static_cast<const StrExpr &>(e).value);
  case ExprKind::Bool: return static_cast<const BoolExpr &>(e).value ? "True" : "False";
  case ExprKind::Attribute: return static_cast<const AttributeExpr &>(e).attr;
  case ExprKind::BinOp: return binOpSpelling(static_cast<const BinOpExpr &>(e).op);
  case ExprKind::UnaryOp: return unaryOpSpelling(static_cast<const UnaryOpExpr &>(e).op);
  case ExprKind::BoolOp:
    return static_cast<const BoolOpExpr &>(e).op == BoolOpKind::And ? "and" : "or";
  case ExprKind::Compare: {
    std::string ops;
    for (CmpOpKind op : static_cast<const CompareExpr &>(e).ops)
      ops += (ops.empty() ? "" : ", ") + std::string(cmpOpSpelling(op));
    return ops;
  }
  case ExprKind::Comprehension: {
    auto form = static_cast<const ComprehensionExpr &>(e).form;
    return form == ComprehensionExpr::Form::List ? "list" : form == ComprehensionExpr::Form::Dict ? "dict" : "generator";
  }
  case ExprKind::Lambda: {
    std::string params;
    for (const std::string &p : static_cast<const LambdaExpr &>(e).params)
      params += (params.empty() ? "" : " ") + p;
    return params;
  }
  default: return "";
  }
}

void Dumper::expr(const Expr &e, std::string_view label) {
  open(label, exprKindName(e.kind), &e.loc, exprDetail(e));
  exprChildren(e);
  close();
}

void Dumper::exprChildren(const Expr &e) {
  switch (e.kind) {
  case ExprKind::Attribute:
    return expr(*static_cast<const AttributeExpr &>(e).value);
  case ExprKind::Subscript: {
    const auto &s = static_cast<const SubscriptExpr &>(e);
    expr(*s.value);
    return expr(*s.index, "index=");
  }
  case ExprKind::Slice: {
    const auto &s = static_cast<const SliceExpr &>(e);
    optionalExpr("lower=", s.lower);
    optionalExpr("upper=", s.upper);
    return optionalExpr("step=", s.step);
  }
  case ExprKind::Call: {
    const auto &c = static_cast<const CallExpr &>(e);
    expr(*c.func, "func=");
    for (const ExprPtr &a : c.args)
      expr(*a);
    for (const Keyword &kw : c.keywords) {
      open("", "Keyword", &kw.loc, kw.name);
      expr(*kw.value);
      close();
    }
    return;
  }
  case ExprKind::BinOp: {
    const auto &b = static_cast<const BinOpExpr &>(e);
    expr(*b.lhs);
    return expr(*b.rhs);
  }
  case ExprKind::UnaryOp:
    return expr(*static_cast<const UnaryOpExpr &>(e).operand);
  case ExprKind::BoolOp:
    for (const ExprPtr &v : static_cast<const BoolOpExpr &>(e).values)
      expr(*v);
    return;
  case ExprKind::Compare: {
    const auto &c = static_cast<const CompareExpr &>(e);
    expr(*c.left);
    for (const ExprPtr &v : c.comparators)
      expr(*v);
    return;
  }
  case ExprKind::IfExp: {
    const auto &i = static_cast<const IfExpExpr &>(e);
    expr(*i.test, "test=");
    expr(*i.body, "body=");
    return expr(*i.orelse, "orelse=");
  }
  case ExprKind::Tuple:
    for (const ExprPtr &v : static_cast<const TupleExpr &>(e).elts)
      expr(*v);
    return;
  case ExprKind::List:
    for (const ExprPtr &v : static_cast<const ListExpr &>(e).elts)
      expr(*v);
    return;
  case ExprKind::Dict: {
    const auto &d = static_cast<const DictExpr &>(e);
    for (size_t i = 0; i < d.keys.size(); ++i) {
      expr(*d.keys[i], "key=");
      expr(*d.values[i], "value=");
    }
    return;
  }
  case ExprKind::Lambda:
    return expr(*static_cast<const LambdaExpr &>(e).body);
  case ExprKind::Comprehension: {
    const auto &c = static_cast<const ComprehensionExpr &>(e);
    expr(*c.elt, c.value ? "key=" : "");
    if (c.value) expr(*c.value, "value=");
    for (const ComprehensionFor &f : c.fors) {
      expr(*f.target, "for=");
      expr(*f.iter, "in=");
      for (const ExprPtr &x : f.ifs) expr(*x, "if=");
    }
    return;
  }
  default:
    return; // literals and names have no children
  }
}

std::string Dumper::stmtDetail(const Stmt &s) const {
  switch (s.kind) {
  case StmtKind::AugAssign:
    return std::string(binOpSpelling(static_cast<const AugAssignStmt &>(s).op)) + "=";
  case StmtKind::FunctionDef: return static_cast<const FunctionDef &>(s).name;
  case StmtKind::ImportFrom: return static_cast<const ImportFromStmt &>(s).module;
  case StmtKind::Global: {
    std::string names;
    for (const std::string &n : static_cast<const GlobalStmt &>(s).names)
      names += (names.empty() ? "" : " ") + n;
    return names;
  }
  default: return "";
  }
}

void Dumper::stmt(const Stmt &s) {
  open("", stmtKindName(s.kind), &s.loc, stmtDetail(s));
  stmtChildren(s);
  close();
}

void Dumper::stmtChildren(const Stmt &s) {
  switch (s.kind) {
  case StmtKind::Expr:
    return expr(*static_cast<const ExprStmt &>(s).value);
  case StmtKind::Assign: {
    const auto &a = static_cast<const AssignStmt &>(s);
    for (const ExprPtr &t : a.targets)
      expr(*t, "target=");
    return expr(*a.value, "value=");
  }
  case StmtKind::AugAssign: {
    const auto &a = static_cast<const AugAssignStmt &>(s);
    expr(*a.target, "target=");
    return expr(*a.value, "value=");
  }
  case StmtKind::AnnAssign: {
    const auto &a = static_cast<const AnnAssignStmt &>(s);
    expr(*a.target, "target=");
    expr(*a.annotation, "annotation=");
    return optionalExpr("value=", a.value);
  }
  case StmtKind::For: {
    const auto &f = static_cast<const ForStmt &>(s);
    expr(*f.target, "target=");
    expr(*f.iter, "iter=");
    return stmts("body", f.body);
  }
  case StmtKind::While: {
    const auto &w = static_cast<const WhileStmt &>(s);
    expr(*w.test, "test=");
    return stmts("body", w.body);
  }
  case StmtKind::With: {
    const auto &w = static_cast<const WithStmt &>(s);
    expr(*w.context, "context=");
    optionalExpr("as=", w.target);
    return stmts("body", w.body);
  }
  case StmtKind::If: {
    const auto &i = static_cast<const IfStmt &>(s);
    expr(*i.test, "test=");
    stmts("body", i.body);
    if (!i.orelse.empty())
      stmts("orelse", i.orelse);
    return;
  }
  case StmtKind::Return:
    return optionalExpr("value=", static_cast<const ReturnStmt &>(s).value);
  case StmtKind::Raise:
    return optionalExpr("exc=", static_cast<const RaiseStmt &>(s).exc);
  case StmtKind::Try: {
    const auto &t = static_cast<const TryStmt &>(s);
    stmts("body", t.body);
    for (const ExceptHandler &h : t.handlers) {
      optionalExpr(h.name.empty() ? "except=" : "except " + h.name + "=", h.type);
      stmts("handler", h.body);
    }
    if (!t.orelse.empty())
      stmts("orelse", t.orelse);
    if (!t.finalbody.empty())
      stmts("finally", t.finalbody);
    return;
  }
  case StmtKind::Assert: {
    const auto &a = static_cast<const AssertStmt &>(s);
    expr(*a.test, "test=");
    return optionalExpr("msg=", a.msg);
  }
  case StmtKind::FunctionDef:
    return functionDef(static_cast<const FunctionDef &>(s));
  case StmtKind::Import:
    for (const auto &alias : static_cast<const ImportStmt &>(s).names)
      leaf("", "Alias", alias.loc,
           alias.asName.empty() ? alias.module : alias.module + " as " + alias.asName);
    return;
  case StmtKind::ImportFrom:
    for (const auto &alias : static_cast<const ImportFromStmt &>(s).names)
      leaf("", "Alias", alias.loc,
           alias.asName.empty() ? alias.name : alias.name + " as " + alias.asName);
    return;
  default:
    return; // pass, break, continue, global
  }
}

void Dumper::functionDef(const FunctionDef &f) {
  if (!f.decorators.empty()) {
    open("", "decorators", nullptr, "");
    for (const ExprPtr &d : f.decorators)
      expr(*d);
    close();
  }
  open("", "params", nullptr, "");
  for (const Param &p : f.params) {
    open("", "Param", &p.loc, p.name);
    optionalExpr("annotation=", p.annotation);
    optionalExpr("default=", p.defaultValue);
    close();
  }
  close();
  optionalExpr("returns=", f.returns);
  if (!f.docstring.empty())
    field("docstring", quoteString(f.docstring));
  stmts("body", f.body);
}

} // namespace

std::string dumpAST(const ast::Module &module) {
  Dumper d;
  d.module(module);
  return d.take();
}

} // namespace tile::frontend
