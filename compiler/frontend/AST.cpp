// AST.cpp - spellings of the syntax tree's operator kinds.
#include "frontend/AST.h"

namespace tile::ast {

const char *binOpSpelling(BinOpKind k) {
  switch (k) {
  case BinOpKind::Add: return "+";
  case BinOpKind::Sub: return "-";
  case BinOpKind::Mul: return "*";
  case BinOpKind::Div: return "/";
  case BinOpKind::FloorDiv: return "//";
  case BinOpKind::Mod: return "%";
  case BinOpKind::Pow: return "**";
  case BinOpKind::MatMul: return "@";
  case BinOpKind::LShift: return "<<";
  case BinOpKind::RShift: return ">>";
  case BinOpKind::BitAnd: return "&";
  case BinOpKind::BitOr: return "|";
  case BinOpKind::BitXor: return "^";
  }
  return "?";
}

const char *cmpOpSpelling(CmpOpKind k) {
  switch (k) {
  case CmpOpKind::Eq: return "==";
  case CmpOpKind::NotEq: return "!=";
  case CmpOpKind::Lt: return "<";
  case CmpOpKind::LtE: return "<=";
  case CmpOpKind::Gt: return ">";
  case CmpOpKind::GtE: return ">=";
  case CmpOpKind::Is: return "is";
  case CmpOpKind::IsNot: return "is not";
  case CmpOpKind::In: return "in";
  case CmpOpKind::NotIn: return "not in";
  }
  return "?";
}

void collectTargetNames(const Expr &t, std::set<std::string> &out) {
  if (t.kind == ExprKind::Name) out.insert(static_cast<const NameExpr &>(t).id);
  if (t.kind == ExprKind::Tuple)
    for (const auto &e : static_cast<const TupleExpr &>(t).elts) collectTargetNames(*e, out);
  if (t.kind == ExprKind::List)
    for (const auto &e : static_cast<const ListExpr &>(t).elts) collectTargetNames(*e, out);
}

void collectAssignedNames(const StmtList &stmts, std::set<std::string> &out, bool withDefs) {
  for (const auto &s : stmts) {
    switch (s->kind) {
    case StmtKind::Assign:
      for (const auto &t : static_cast<const AssignStmt &>(*s).targets) collectTargetNames(*t, out);
      break;
    case StmtKind::AugAssign: collectTargetNames(*static_cast<const AugAssignStmt &>(*s).target, out); break;
    case StmtKind::AnnAssign: collectTargetNames(*static_cast<const AnnAssignStmt &>(*s).target, out); break;
    case StmtKind::If: {
      auto &i = static_cast<const IfStmt &>(*s);
      collectAssignedNames(i.body, out, withDefs);
      collectAssignedNames(i.orelse, out, withDefs);
      break;
    }
    case StmtKind::For: {
      auto &f = static_cast<const ForStmt &>(*s);
      collectTargetNames(*f.target, out);
      collectAssignedNames(f.body, out, withDefs);
      break;
    }
    case StmtKind::While: collectAssignedNames(static_cast<const WhileStmt &>(*s).body, out, withDefs); break;
    case StmtKind::With: {
      const auto &w = static_cast<const WithStmt &>(*s);
      if (w.target) collectTargetNames(*w.target, out);
      collectAssignedNames(w.body, out, withDefs);
      break;
    }
    case StmtKind::Try: {
      const auto &t = static_cast<const TryStmt &>(*s);
      collectAssignedNames(t.body, out, withDefs);
      for (const ExceptHandler &h : t.handlers) {
        if (!h.name.empty()) out.insert(h.name);
        collectAssignedNames(h.body, out, withDefs);
      }
      collectAssignedNames(t.orelse, out, withDefs);
      collectAssignedNames(t.finalbody, out, withDefs);
      break;
    }
    case StmtKind::FunctionDef:
      if (withDefs) out.insert(static_cast<const FunctionDef &>(*s).name);
      break;
    default: break;
    }
  }
}

} // namespace tile::ast
