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

} // namespace tile::ast
