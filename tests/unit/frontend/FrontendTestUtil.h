// FrontendTestUtil.h - helpers shared by the front end's unit tests: lexing
// and parsing strings, a compact expression printer, error expectations.
#pragma once

#include "frontend/Parser.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <string>

namespace tile::frontend::test {

inline std::vector<Token> lexString(const std::string &text) {
  return lex(SourceManager::global().addFile("<test>", text));
}

/// Token kinds and texts on one line: "NAME x OP = INT 1 NEWLINE EOF".
inline std::string tokenSummary(const std::string &text) {
  std::string out;
  for (const Token &t : lexString(text)) {
    if (!out.empty())
      out += ' ';
    out += tokenClassName(t.kind);
    if (t.kind == TokenKind::String)
      out += " " + quoteString(t.text);
    else if (!t.text.empty())
      out += " " + t.text;
  }
  return out;
}

/// A compact prefix form of an expression: "(+ a (* b c))", for checking
/// precedence and associativity against hand-written expectations.
std::string sexpr(const ast::Expr &e);

inline std::string sexpr(const ast::ExprPtr &e) { return e ? sexpr(*e) : "_"; }

inline std::string sexpr(const ast::Expr &e) {
  using namespace ast;
  auto list = [](std::string head, const std::vector<ExprPtr> &elts) {
    for (const ExprPtr &x : elts)
      head += " " + sexpr(*x);
    return "(" + head + ")";
  };
  switch (e.kind) {
  case ExprKind::Name: return static_cast<const NameExpr &>(e).id;
  case ExprKind::Int: return std::to_string(static_cast<const IntExpr &>(e).value);
  case ExprKind::Float: return fmt::format("{}f", static_cast<const FloatExpr &>(e).value);
  case ExprKind::Str: return quoteString(static_cast<const StrExpr &>(e).value);
  case ExprKind::Bool: return static_cast<const BoolExpr &>(e).value ? "True" : "False";
  case ExprKind::None: return "None";
  case ExprKind::Ellipsis: return "...";
  case ExprKind::Attribute: {
    const auto &a = static_cast<const AttributeExpr &>(e);
    return sexpr(*a.value) + "." + a.attr;
  }
  case ExprKind::Subscript: {
    const auto &s = static_cast<const SubscriptExpr &>(e);
    return "(sub " + sexpr(*s.value) + " " + sexpr(*s.index) + ")";
  }
  case ExprKind::Slice: {
    const auto &s = static_cast<const SliceExpr &>(e);
    return "(slice " + sexpr(s.lower) + " " + sexpr(s.upper) + " " + sexpr(s.step) + ")";
  }
  case ExprKind::Call: {
    const auto &c = static_cast<const CallExpr &>(e);
    std::string out = "(call " + sexpr(*c.func);
    for (const ExprPtr &a : c.args)
      out += " " + sexpr(*a);
    for (const Keyword &k : c.keywords)
      out += " " + k.name + "=" + sexpr(*k.value);
    return out + ")";
  }
  case ExprKind::BinOp: {
    const auto &b = static_cast<const BinOpExpr &>(e);
    return fmt::format("({} {} {})", binOpSpelling(b.op), sexpr(*b.lhs), sexpr(*b.rhs));
  }
  case ExprKind::UnaryOp: {
    const auto &u = static_cast<const UnaryOpExpr &>(e);
    const char *ops[] = {"neg", "pos", "not", "inv"};
    return fmt::format("({} {})", ops[static_cast<int>(u.op)], sexpr(*u.operand));
  }
  case ExprKind::BoolOp: {
    const auto &b = static_cast<const BoolOpExpr &>(e);
    return list(b.op == BoolOpKind::And ? "and" : "or", b.values);
  }
  case ExprKind::Compare: {
    const auto &c = static_cast<const CompareExpr &>(e);
    std::string out = "(cmp " + sexpr(*c.left);
    for (size_t i = 0; i < c.ops.size(); ++i)
      out += fmt::format(" [{}] {}", cmpOpSpelling(c.ops[i]), sexpr(*c.comparators[i]));
    return out + ")";
  }
  case ExprKind::IfExp: {
    const auto &i = static_cast<const IfExpExpr &>(e);
    return "(ifexp " + sexpr(*i.test) + " " + sexpr(*i.body) + " " + sexpr(*i.orelse) + ")";
  }
  case ExprKind::Tuple: return list("tuple", static_cast<const TupleExpr &>(e).elts);
  case ExprKind::List: return list("list", static_cast<const ListExpr &>(e).elts);
  case ExprKind::Dict: {
    const auto &d = static_cast<const DictExpr &>(e);
    std::string out = "(dict";
    for (size_t i = 0; i < d.keys.size(); ++i)
      out += " " + sexpr(*d.keys[i]) + ":" + sexpr(*d.values[i]);
    return out + ")";
  }
  case ExprKind::Comprehension: {
    const auto &c = static_cast<const ComprehensionExpr &>(e);
    const char *forms[] = {"listcomp", "dictcomp", "gencomp"};
    std::string out = std::string("(") + forms[static_cast<int>(c.form)] + " " + sexpr(*c.elt);
    if (c.value)
      out += ":" + sexpr(*c.value);
    for (const ComprehensionFor &f : c.fors) {
      out += " [for " + sexpr(*f.target) + " in " + sexpr(*f.iter);
      for (const ExprPtr &x : f.ifs)
        out += " if " + sexpr(*x);
      out += "]";
    }
    return out + ")";
  }
  case ExprKind::Lambda: {
    const auto &l = static_cast<const LambdaExpr &>(e);
    std::string out = "(lambda";
    for (const std::string &p : l.params)
      out += " " + p;
    return out + " " + sexpr(*l.body) + ")";
  }
  }
  return "?";
}

/// Parses `_ = text` and returns sexpr of the right-hand side.
inline std::string parseExpr(const std::string &text) {
  auto m = parseString("<test>", "_ = " + text + "\n");
  REQUIRE(m->body.size() == 1);
  REQUIRE(m->body[0]->kind == ast::StmtKind::Assign);
  return sexpr(*static_cast<const ast::AssignStmt &>(*m->body[0]).value);
}

struct ErrorInfo {
  int line = 0, col = 0;
  std::string msg;
};

/// Runs f and returns the CompileError it throws; fails the test if none.
template <typename F> ErrorInfo catchError(F &&f) {
  try {
    f();
  } catch (const CompileError &e) {
    return {e.loc.line, e.loc.col, e.msg};
  }
  FAIL("expected a CompileError");
  return {};
}

inline ErrorInfo parseError(const std::string &text) {
  return catchError([&] { parseString("<test>", text); });
}

inline ErrorInfo lexError(const std::string &text) {
  return catchError([&] { lexString(text); });
}

} // namespace tile::frontend::test
