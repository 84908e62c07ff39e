// Parser.cpp - recursive-descent parser from tokens to the syntax tree.
//
// One function per grammar rule, the rule in a comment above it. Binary
// operators use precedence climbing. Recursion is bounded by depth counters
// (exprDepth_, blockDepth_) so hostile input gets "nesting too deep" rather
// than a stack overflow; left-leaning chains (a+b+c..., a.b.c...) count
// toward the same bound because they deepen the tree later passes recurse on.
#include "frontend/Parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace tile::frontend {

namespace {

using namespace ast;

constexpr int kMaxDepth = 256;

/// Raises a depth counter for one recursion level; fails past kMaxDepth.
class DepthGuard {
public:
  DepthGuard(int &depth, Location loc) : depth_(depth) {
    if (++depth_ > kMaxDepth)
      fail(loc, "nesting too deep");
  }
  ~DepthGuard() { --depth_; }
  DepthGuard(const DepthGuard &) = delete;
  DepthGuard &operator=(const DepthGuard &) = delete;

private:
  int &depth_;
};

/// Counts the links of a left-leaning chain against the depth bound.
class ChainDepth {
public:
  explicit ChainDepth(int &depth) : depth_(depth) {}
  ~ChainDepth() { depth_ -= links_; }
  void link(Location loc) {
    ++links_;
    if (++depth_ > kMaxDepth)
      fail(loc, "nesting too deep");
  }
  ChainDepth(const ChainDepth &) = delete;
  ChainDepth &operator=(const ChainDepth &) = delete;

private:
  int &depth_;
  int links_ = 0;
};

struct BinaryOpInfo {
  int prec; // 0: not a binary operator
  BinOpKind op;
};

// | < ^ < & < << >> < + - < * / // % @   (** is handled by parsePower)
BinaryOpInfo binaryOpAt(TokenKind k) {
  switch (k) {
  case TokenKind::Pipe: return {1, BinOpKind::BitOr};
  case TokenKind::Caret: return {2, BinOpKind::BitXor};
  case TokenKind::Amp: return {3, BinOpKind::BitAnd};
  case TokenKind::LShift: return {4, BinOpKind::LShift};
  case TokenKind::RShift: return {4, BinOpKind::RShift};
  case TokenKind::Plus: return {5, BinOpKind::Add};
  case TokenKind::Minus: return {5, BinOpKind::Sub};
  case TokenKind::Star: return {6, BinOpKind::Mul};
  case TokenKind::Slash: return {6, BinOpKind::Div};
  case TokenKind::DoubleSlash: return {6, BinOpKind::FloorDiv};
  case TokenKind::Percent: return {6, BinOpKind::Mod};
  case TokenKind::At: return {6, BinOpKind::MatMul};
  default: return {0, BinOpKind::Add};
  }
}

std::optional<BinOpKind> augAssignOp(TokenKind k) {
  switch (k) {
  case TokenKind::PlusEq: return BinOpKind::Add;
  case TokenKind::MinusEq: return BinOpKind::Sub;
  case TokenKind::StarEq: return BinOpKind::Mul;
  case TokenKind::SlashEq: return BinOpKind::Div;
  case TokenKind::DoubleSlashEq: return BinOpKind::FloorDiv;
  case TokenKind::PercentEq: return BinOpKind::Mod;
  case TokenKind::DoubleStarEq: return BinOpKind::Pow;
  case TokenKind::AtEq: return BinOpKind::MatMul;
  case TokenKind::AmpEq: return BinOpKind::BitAnd;
  case TokenKind::PipeEq: return BinOpKind::BitOr;
  case TokenKind::CaretEq: return BinOpKind::BitXor;
  case TokenKind::LShiftEq: return BinOpKind::LShift;
  case TokenKind::RShiftEq: return BinOpKind::RShift;
  default: return std::nullopt;
  }
}

/// How assignment errors name an expression that cannot be a target.
const char *targetDescription(const Expr &e) {
  switch (e.kind) {
  case ExprKind::Call: return "function call";
  case ExprKind::Int:
  case ExprKind::Float:
  case ExprKind::Str:
  case ExprKind::Ellipsis: return "literal";
  case ExprKind::Bool: return static_cast<const BoolExpr &>(e).value ? "True" : "False";
  case ExprKind::None: return "None";
  case ExprKind::Compare: return "comparison";
  case ExprKind::IfExp: return "conditional expression";
  case ExprKind::Lambda: return "lambda";
  case ExprKind::Comprehension: return "comprehension";
  case ExprKind::List: return "list display (use a tuple)";
  case ExprKind::Dict: return "dict literal";
  case ExprKind::Tuple: return "tuple";
  default: return "expression";
  }
}

bool startsExpression(TokenKind k) {
  switch (k) {
  case TokenKind::Name: case TokenKind::Int: case TokenKind::Float:
  case TokenKind::String: case TokenKind::LParen: case TokenKind::LBracket:
  case TokenKind::LBrace: case TokenKind::Minus: case TokenKind::Plus:
  case TokenKind::Tilde: case TokenKind::KwNot: case TokenKind::KwLambda:
  case TokenKind::KwNone: case TokenKind::KwTrue: case TokenKind::KwFalse:
  case TokenKind::Ellipsis: case TokenKind::Star:
    return true;
  default:
    return false;
  }
}

class Parser {
public:
  Parser(int fileId, std::vector<Token> toks) : fileId_(fileId), toks_(std::move(toks)) {
    TILE_ASSERT(!toks_.empty(), "lexer returned no tokens");
    throwIfError();
  }
  std::shared_ptr<Module> parseModule();

private:
  // ------------------------------------------------------------ tokens
  const Token &cur() const { return toks_[pos_]; }
  const Token &ahead(size_t k) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
  bool at(TokenKind k) const { return cur().kind == k; }
  /// Consumes the current token and returns it.
  const Token &advance() {
    const Token &t = toks_[pos_];
    if (pos_ + 1 < toks_.size())
      ++pos_;
    throwIfError();
    return t;
  }
  bool accept(TokenKind k) {
    if (!at(k))
      return false;
    advance();
    return true;
  }
  /// A lexical error is reported once the parser gets that far.
  void throwIfError() const {
    if (cur().kind == TokenKind::Error)
      fail(cur().loc, cur().text);
  }
  [[noreturn]] void failHere(std::string_view msg) const {
    if (at(TokenKind::Indent))
      fail(cur().loc, "unexpected indent");
    fail(cur().loc, fmt::format("{}, found {}", msg, describeToken(cur())));
  }
  void expect(TokenKind k, std::string_view msg) {
    if (!accept(k))
      failHere(msg);
  }

  // ------------------------------------------------------------ statements
  void parseStatement(StmtList &out);
  void parseSimpleStatements(StmtList &out);
  StmtPtr parseSmallStatement();
  StmtPtr parseExprStatement();
  StmtPtr parseAnnAssign(Location start, ExprPtr target);
  void checkAssignTarget(const Expr &e) const;
  StmtPtr parseReturn();
  StmtPtr parseAssert();
  StmtPtr parseImport();
  StmtPtr parseFromImport();
  std::string parseDottedName();
  StmtPtr parseGlobal();
  StmtPtr parseIf();
  StmtPtr parseWhile();
  StmtPtr parseWith();
  StmtPtr parseTry();
  StmtPtr parseFor();
  StmtPtr parseDecorated();
  StmtPtr parseFunctionDef(std::vector<ExprPtr> decorators);
  void parseParams(std::vector<Param> &params);
  StmtList parseBlock(const Token &header, std::string_view what);

  // ------------------------------------------------------------ expressions
  ExprPtr parseTestList();
  ExprPtr parseTargetList();
  ExprPtr parseTest();
  ExprPtr parseLambda();
  ExprPtr parseOr();
  ExprPtr parseAnd();
  ExprPtr parseNot();
  ExprPtr parseComparison();
  std::optional<CmpOpKind> comparisonAt() const;
  ExprPtr parseBinary(int minPrec);
  ExprPtr parseFactor();
  ExprPtr parsePower();
  ExprPtr parsePrimary();
  void parseCallArgs(CallExpr &call);
  /// An f-string (the lexer's __fstr__ call) starts at t; a string literal
  /// or f-string (or their concatenation) is e.
  bool isFString(const Token &t) const;
  bool isStringPiece(const Expr &e) const;
  ExprPtr parseComprehension(Location loc, ComprehensionExpr::Form form, ExprPtr elt, ExprPtr value = nullptr);
  ExprPtr parseSubscriptIndex();
  ExprPtr parseSubscriptItem();
  ExprPtr parseAtom();
  ExprPtr parseParenthesized();
  ExprPtr parseList();
  ExprPtr parseDict();
  ExprPtr parseStrings();

  int fileId_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  int exprDepth_ = 0;
  int blockDepth_ = 0;
  int loopDepth_ = 0; // loops enclosing the current statement in its function
  int funcDepth_ = 0;
};

bool isStringStatement(const Stmt &s) {
  return s.kind == StmtKind::Expr &&
         static_cast<const ExprStmt &>(s).value->kind == ExprKind::Str;
}

// file = (statement)* EOF   ; a leading docstring is dropped
std::shared_ptr<Module> Parser::parseModule() {
  auto module = std::make_shared<Module>();
  module->fileId = fileId_;
  while (!at(TokenKind::Eof))
    parseStatement(module->body);
  if (!module->body.empty() && isStringStatement(*module->body.front()))
    module->body.erase(module->body.begin());
  return module;
}

// statement = if | while | for | def | decorated | simple_statements
void Parser::parseStatement(StmtList &out) {
  switch (cur().kind) {
  case TokenKind::Indent:
    fail(cur().loc, "unexpected indent");
  case TokenKind::KwIf:
    return out.push_back(parseIf());
  case TokenKind::KwWhile:
    return out.push_back(parseWhile());
  case TokenKind::KwWith:
    return out.push_back(parseWith());
  case TokenKind::KwTry:
    return out.push_back(parseTry());
  case TokenKind::KwFor:
    return out.push_back(parseFor());
  case TokenKind::KwDef:
    return out.push_back(parseFunctionDef({}));
  case TokenKind::At:
    return out.push_back(parseDecorated());
  case TokenKind::KwElif:
  case TokenKind::KwElse:
    fail(cur().loc, fmt::format("'{}' does not follow an 'if' block at the same indentation",
                                cur().text));
  case TokenKind::KwExcept:
  case TokenKind::KwFinally:
    fail(cur().loc, fmt::format("'{}' does not follow a 'try' block at the same indentation", cur().text));
  default:
    return parseSimpleStatements(out);
  }
}

// simple_statements = small_statement (';' small_statement)* [';'] NEWLINE
void Parser::parseSimpleStatements(StmtList &out) {
  while (true) {
    out.push_back(parseSmallStatement());
    if (!accept(TokenKind::Semi))
      break;
    if (at(TokenKind::Newline) || at(TokenKind::Eof))
      break;
  }
  if (!accept(TokenKind::Newline) && !at(TokenKind::Eof))
    failHere("expected end of statement");
}

// small_statement = pass | break | continue | return | assert | import
//                 | from_import | global | expr_statement
StmtPtr Parser::parseSmallStatement() {
  Location loc = cur().loc;
  switch (cur().kind) {
  case TokenKind::KwPass:
    advance();
    return std::make_unique<PassStmt>(loc);
  case TokenKind::KwBreak:
    if (loopDepth_ == 0)
      fail(loc, "'break' outside loop");
    advance();
    return std::make_unique<BreakStmt>(loc);
  case TokenKind::KwContinue:
    if (loopDepth_ == 0)
      fail(loc, "'continue' not properly in loop");
    advance();
    return std::make_unique<ContinueStmt>(loc);
  case TokenKind::KwReturn: return parseReturn();
  case TokenKind::KwRaise: {
    auto s = std::make_unique<RaiseStmt>(advance().loc);
    if (!at(TokenKind::Newline) && !at(TokenKind::Semi) && !at(TokenKind::Eof))
      s->exc = parseTest();
    if (at(TokenKind::KwFrom))
      fail(cur().loc, "'raise ... from ...' is not supported");
    return s;
  }
  case TokenKind::KwAssert: return parseAssert();
  case TokenKind::KwImport: return parseImport();
  case TokenKind::KwFrom: return parseFromImport();
  case TokenKind::KwGlobal: return parseGlobal();
  case TokenKind::KwIf:
  case TokenKind::KwWhile:
  case TokenKind::KwWith:
  case TokenKind::KwTry:
  case TokenKind::KwFor:
  case TokenKind::KwDef:
  case TokenKind::At:
    fail(loc, fmt::format("'{}' statement must start on its own line", cur().text));
  default:
    return parseExprStatement();
  }
}

// expr_statement = testlist (':' test ['=' testlist]
//                           | augop testlist | ('=' testlist)*)
StmtPtr Parser::parseExprStatement() {
  Location start = cur().loc;
  ExprPtr first = parseTestList();
  if (at(TokenKind::Colon))
    return parseAnnAssign(start, std::move(first));
  if (auto op = augAssignOp(cur().kind)) {
    Location opLoc = advance().loc;
    if (first->kind != ExprKind::Name && first->kind != ExprKind::Attribute &&
        first->kind != ExprKind::Subscript)
      fail(first->loc, fmt::format("cannot use augmented assignment on {}",
                                   targetDescription(*first)));
    ExprPtr value = parseTestList();
    return std::make_unique<AugAssignStmt>(opLoc, std::move(first), *op, std::move(value));
  }
  if (!at(TokenKind::Assign))
    return std::make_unique<ExprStmt>(start, std::move(first));
  auto assign = std::make_unique<AssignStmt>(start);
  ExprPtr value = std::move(first);
  while (accept(TokenKind::Assign)) {
    checkAssignTarget(*value);
    assign->targets.push_back(std::move(value));
    value = parseTestList();
  }
  assign->value = std::move(value);
  return assign;
}

// ann_assign = target ':' test ['=' testlist]
StmtPtr Parser::parseAnnAssign(Location start, ExprPtr target) {
  advance(); // ':'
  if (target->kind == ExprKind::Tuple)
    fail(target->loc, "only a single target (not a tuple) can be annotated");
  checkAssignTarget(*target);
  auto s = std::make_unique<AnnAssignStmt>(start);
  s->target = std::move(target);
  s->annotation = parseTest();
  if (accept(TokenKind::Assign))
    s->value = parseTestList();
  return s;
}

void Parser::checkAssignTarget(const Expr &e) const {
  if (e.kind == ExprKind::Name || e.kind == ExprKind::Attribute ||
      e.kind == ExprKind::Subscript)
    return;
  if (e.kind != ExprKind::Tuple)
    fail(e.loc, fmt::format("cannot assign to {}", targetDescription(e)));
  for (const ExprPtr &elt : static_cast<const TupleExpr &>(e).elts)
    checkAssignTarget(*elt);
}

// return = 'return' [testlist]
StmtPtr Parser::parseReturn() {
  Location loc = advance().loc;
  if (funcDepth_ == 0)
    fail(loc, "'return' outside function");
  auto s = std::make_unique<ReturnStmt>(loc);
  if (!at(TokenKind::Newline) && !at(TokenKind::Semi) && !at(TokenKind::Eof))
    s->value = parseTestList();
  return s;
}

// assert = 'assert' test [',' test]
StmtPtr Parser::parseAssert() {
  auto s = std::make_unique<AssertStmt>(advance().loc);
  s->test = parseTest();
  if (accept(TokenKind::Comma))
    s->msg = parseTest();
  return s;
}

// dotted_name = NAME ('.' NAME)*
std::string Parser::parseDottedName() {
  if (!at(TokenKind::Name))
    failHere("expected a module name");
  std::string name = advance().text;
  while (accept(TokenKind::Dot)) {
    if (!at(TokenKind::Name))
      failHere("expected a name after '.'");
    name += "." + advance().text;
  }
  return name;
}

// import = 'import' dotted_name ['as' NAME] (',' dotted_name ['as' NAME])*
StmtPtr Parser::parseImport() {
  auto s = std::make_unique<ImportStmt>(advance().loc);
  do {
    ImportStmt::Alias alias;
    alias.loc = cur().loc;
    alias.module = parseDottedName();
    if (accept(TokenKind::KwAs)) {
      if (!at(TokenKind::Name))
        failHere("expected a name after 'as'");
      alias.asName = advance().text;
    }
    s->names.push_back(std::move(alias));
  } while (accept(TokenKind::Comma));
  return s;
}

// from_import = 'from' dotted_name 'import' (aliases | '(' aliases [','] ')')
// aliases = NAME ['as' NAME] (',' NAME ['as' NAME])*
StmtPtr Parser::parseFromImport() {
  auto s = std::make_unique<ImportFromStmt>(advance().loc);
  if (at(TokenKind::Dot) || at(TokenKind::Ellipsis))
    fail(cur().loc, "relative imports are not supported");
  s->module = parseDottedName();
  expect(TokenKind::KwImport, "expected 'import' after module name");
  if (at(TokenKind::Star))
    fail(cur().loc, "'import *' is not supported");
  bool parens = accept(TokenKind::LParen);
  do {
    if (parens && at(TokenKind::RParen))
      break;
    if (!at(TokenKind::Name))
      failHere("expected a name to import");
    ImportFromStmt::Alias alias;
    alias.loc = cur().loc;
    alias.name = advance().text;
    if (accept(TokenKind::KwAs)) {
      if (!at(TokenKind::Name))
        failHere("expected a name after 'as'");
      alias.asName = advance().text;
    }
    s->names.push_back(std::move(alias));
  } while (accept(TokenKind::Comma));
  if (parens)
    expect(TokenKind::RParen, "expected ',' or ')' in import list");
  return s;
}

// global = 'global' NAME (',' NAME)*
StmtPtr Parser::parseGlobal() {
  auto s = std::make_unique<GlobalStmt>(advance().loc);
  do {
    if (!at(TokenKind::Name))
      failHere("expected a name after 'global'");
    s->names.push_back(advance().text);
  } while (accept(TokenKind::Comma));
  return s;
}

// block = simple_statements | NEWLINE INDENT statement+ DEDENT
StmtList Parser::parseBlock(const Token &header, std::string_view what) {
  StmtList body;
  if (!at(TokenKind::Newline)) {
    parseSimpleStatements(body);
    return body;
  }
  advance();
  if (!at(TokenKind::Indent))
    fail(cur().loc, fmt::format("expected an indented block after {} on line {}", what,
                                header.loc.line));
  DepthGuard guard(blockDepth_, cur().loc);
  advance();
  while (!at(TokenKind::Dedent) && !at(TokenKind::Eof))
    parseStatement(body);
  accept(TokenKind::Dedent);
  return body;
}

// if = ('if' | 'elif') test ':' block (elif | 'else' ':' block)?
// An elif becomes an IfStmt alone in orelse, so the chain nests.
StmtPtr Parser::parseIf() {
  const Token &kw = advance();
  std::string word = kw.text;
  auto s = std::make_unique<IfStmt>(kw.loc);
  std::optional<DepthGuard> elifGuard;
  if (kw.kind == TokenKind::KwElif)
    elifGuard.emplace(blockDepth_, kw.loc);
  s->test = parseTest();
  expect(TokenKind::Colon, fmt::format("expected ':' after '{}' condition", word));
  s->body = parseBlock(kw, fmt::format("'{}' statement", word));
  if (at(TokenKind::KwElif)) {
    s->orelse.push_back(parseIf());
  } else if (at(TokenKind::KwElse)) {
    const Token &elseTok = advance();
    expect(TokenKind::Colon, "expected ':' after 'else'");
    s->orelse = parseBlock(elseTok, "'else' statement");
  }
  return s;
}

// while = 'while' test ':' block
StmtPtr Parser::parseWhile() {
  const Token &kw = advance();
  auto s = std::make_unique<WhileStmt>(kw.loc);
  s->test = parseTest();
  expect(TokenKind::Colon, "expected ':' after 'while' condition");
  ++loopDepth_;
  s->body = parseBlock(kw, "'while' statement");
  --loopDepth_;
  if (at(TokenKind::KwElse))
    fail(cur().loc, "'else' after a 'while' loop is not supported");
  return s;
}

// with = 'with' test ['as' target] ':' block     (one context manager)
StmtPtr Parser::parseWith() {
  const Token &kw = advance();
  auto s = std::make_unique<WithStmt>(kw.loc);
  s->context = parseTest();
  if (accept(TokenKind::KwAs)) {
    s->target = parseBinary(1);
    checkAssignTarget(*s->target);
  }
  if (at(TokenKind::Comma))
    fail(cur().loc, "'with' takes one context manager here; nest the statements");
  expect(TokenKind::Colon, "expected ':' after the 'with' context");
  s->body = parseBlock(kw, "'with' statement");
  return s;
}

// try = 'try' ':' block ('except' [test ['as' NAME]] ':' block)*
//       ['else' ':' block] ['finally' ':' block]   (an except or a finally)
StmtPtr Parser::parseTry() {
  const Token &kw = advance();
  auto s = std::make_unique<TryStmt>(kw.loc);
  expect(TokenKind::Colon, "expected ':' after 'try'");
  s->body = parseBlock(kw, "'try' statement");
  while (at(TokenKind::KwExcept)) {
    const Token &ex = advance();
    ExceptHandler h;
    h.loc = ex.loc;
    if (!at(TokenKind::Colon)) {
      if (!s->handlers.empty() && !s->handlers.back().type)
        fail(ex.loc, "a bare 'except:' must be the last handler");
      h.type = parseTest();
      if (accept(TokenKind::KwAs)) {
        if (!at(TokenKind::Name))
          failHere("expected a name after 'as'");
        h.name = advance().text;
      }
    } else if (!s->handlers.empty() && !s->handlers.back().type) {
      fail(ex.loc, "a bare 'except:' must be the last handler");
    }
    expect(TokenKind::Colon, "expected ':' after the 'except' clause");
    h.body = parseBlock(ex, "'except' clause");
    s->handlers.push_back(std::move(h));
  }
  if (at(TokenKind::KwElse)) {
    const Token &e = advance();
    if (s->handlers.empty())
      fail(e.loc, "'else' after 'try' needs an 'except' clause before it");
    expect(TokenKind::Colon, "expected ':' after 'else'");
    s->orelse = parseBlock(e, "'else' clause");
  }
  if (at(TokenKind::KwFinally)) {
    const Token &f = advance();
    expect(TokenKind::Colon, "expected ':' after 'finally'");
    s->finalbody = parseBlock(f, "'finally' clause");
  }
  if (s->handlers.empty() && s->finalbody.empty())
    fail(kw.loc, "'try' needs an 'except' or a 'finally' clause");
  return s;
}

// for = 'for' target_list 'in' testlist ':' block
StmtPtr Parser::parseFor() {
  const Token &kw = advance();
  auto s = std::make_unique<ForStmt>(kw.loc);
  s->target = parseTargetList();
  checkAssignTarget(*s->target);
  expect(TokenKind::KwIn, "expected 'in' after 'for' loop variable");
  s->iter = parseTestList();
  expect(TokenKind::Colon, "expected ':' after 'for' iterable");
  ++loopDepth_;
  s->body = parseBlock(kw, "'for' statement");
  --loopDepth_;
  if (at(TokenKind::KwElse))
    fail(cur().loc, "'else' after a 'for' loop is not supported");
  return s;
}

// decorated = ('@' test NEWLINE)+ def
StmtPtr Parser::parseDecorated() {
  std::vector<ExprPtr> decorators;
  while (accept(TokenKind::At)) {
    decorators.push_back(parseTest());
    expect(TokenKind::Newline, "expected end of line after decorator");
  }
  if (!at(TokenKind::KwDef))
    failHere("expected 'def' after decorator");
  return parseFunctionDef(std::move(decorators));
}

// def = 'def' NAME '(' params ')' ['->' test] ':' block
StmtPtr Parser::parseFunctionDef(std::vector<ExprPtr> decorators) {
  const Token &kw = advance();
  auto f = std::make_unique<FunctionDef>(kw.loc);
  f->decorators = std::move(decorators);
  if (!at(TokenKind::Name))
    failHere("expected a function name after 'def'");
  f->name = advance().text;
  expect(TokenKind::LParen, "expected '(' after function name");
  parseParams(f->params);
  if (accept(TokenKind::Arrow))
    f->returns = parseTest();
  expect(TokenKind::Colon, "expected ':' after function signature");
  int outerLoops = loopDepth_;
  loopDepth_ = 0;
  ++funcDepth_;
  f->body = parseBlock(kw, "function definition");
  --funcDepth_;
  loopDepth_ = outerLoops;
  if (!f->body.empty() && isStringStatement(*f->body.front())) {
    auto &doc = static_cast<ExprStmt &>(*f->body.front());
    f->docstring = static_cast<StrExpr &>(*doc.value).value;
    f->body.erase(f->body.begin());
  }
  return f;
}

// params = [param (',' param)* [',']] ')'
// param = NAME [':' test] ['=' test]
void Parser::parseParams(std::vector<Param> &params) {
  bool sawDefault = false;
  while (!at(TokenKind::RParen)) {
    if (at(TokenKind::Star))
      fail(cur().loc, "'*' parameters are not supported");
    if (at(TokenKind::DoubleStar))
      fail(cur().loc, "'**' parameters are not supported");
    if (at(TokenKind::Slash))
      fail(cur().loc, "the positional-only marker '/' is not supported");
    if (!at(TokenKind::Name))
      failHere("expected a parameter name");
    Param p;
    p.loc = cur().loc;
    p.name = advance().text;
    for (const Param &other : params)
      if (other.name == p.name)
        fail(p.loc, fmt::format("duplicate parameter '{}'", p.name));
    if (accept(TokenKind::Colon))
      p.annotation = parseTest();
    if (accept(TokenKind::Assign)) {
      p.defaultValue = parseTest();
      sawDefault = true;
    } else if (sawDefault) {
      fail(p.loc, "parameter without a default follows a parameter with a default");
    }
    params.push_back(std::move(p));
    if (!accept(TokenKind::Comma))
      break;
  }
  expect(TokenKind::RParen, "expected ',' or ')' in parameter list");
}

// testlist = test (',' test)* [',']     (a comma makes a tuple)
ExprPtr Parser::parseTestList() {
  Location start = cur().loc;
  ExprPtr first = parseTest();
  if (!at(TokenKind::Comma))
    return first;
  auto tuple = std::make_unique<TupleExpr>(start);
  tuple->elts.push_back(std::move(first));
  while (accept(TokenKind::Comma) && startsExpression(cur().kind))
    tuple->elts.push_back(parseTest());
  return tuple;
}

// target_list = or_expr (',' or_expr)* [',']   (stops before 'in')
ExprPtr Parser::parseTargetList() {
  Location start = cur().loc;
  ExprPtr first = parseBinary(1);
  if (!at(TokenKind::Comma))
    return first;
  auto tuple = std::make_unique<TupleExpr>(start);
  tuple->elts.push_back(std::move(first));
  while (accept(TokenKind::Comma) && startsExpression(cur().kind))
    tuple->elts.push_back(parseBinary(1));
  return tuple;
}

// test = lambda | or_test ['if' or_test 'else' test]
ExprPtr Parser::parseTest() {
  DepthGuard guard(exprDepth_, cur().loc);
  if (at(TokenKind::KwLambda))
    return parseLambda();
  Location start = cur().loc;
  ExprPtr body = parseOr();
  if (!accept(TokenKind::KwIf))
    return body;
  ExprPtr test = parseOr();
  expect(TokenKind::KwElse, "expected 'else' in conditional expression");
  ExprPtr orelse = parseTest();
  return std::make_unique<IfExpExpr>(start, std::move(test), std::move(body), std::move(orelse));
}

// lambda = 'lambda' [NAME (',' NAME)* [',']] ':' test
ExprPtr Parser::parseLambda() {
  auto lambda = std::make_unique<LambdaExpr>(advance().loc);
  while (!at(TokenKind::Colon)) {
    if (at(TokenKind::Star) || at(TokenKind::DoubleStar))
      fail(cur().loc, "variadic lambda parameters are not supported");
    if (!at(TokenKind::Name))
      failHere("expected a lambda parameter name");
    Location loc = cur().loc;
    std::string name = advance().text;
    if (std::find(lambda->params.begin(), lambda->params.end(), name) != lambda->params.end())
      fail(loc, fmt::format("duplicate parameter '{}'", name));
    lambda->params.push_back(std::move(name));
    if (at(TokenKind::Assign))
      fail(cur().loc, "lambda parameter defaults are not supported");
    if (!accept(TokenKind::Comma))
      break;
  }
  expect(TokenKind::Colon, "expected ':' after lambda parameters");
  lambda->body = parseTest();
  return lambda;
}

// or_test = and_test ('or' and_test)*
ExprPtr Parser::parseOr() {
  Location start = cur().loc;
  ExprPtr first = parseAnd();
  if (!at(TokenKind::KwOr))
    return first;
  auto op = std::make_unique<BoolOpExpr>(start, BoolOpKind::Or);
  op->values.push_back(std::move(first));
  while (accept(TokenKind::KwOr))
    op->values.push_back(parseAnd());
  return op;
}

// and_test = not_test ('and' not_test)*
ExprPtr Parser::parseAnd() {
  Location start = cur().loc;
  ExprPtr first = parseNot();
  if (!at(TokenKind::KwAnd))
    return first;
  auto op = std::make_unique<BoolOpExpr>(start, BoolOpKind::And);
  op->values.push_back(std::move(first));
  while (accept(TokenKind::KwAnd))
    op->values.push_back(parseNot());
  return op;
}

// not_test = 'not' not_test | comparison
ExprPtr Parser::parseNot() {
  if (!at(TokenKind::KwNot))
    return parseComparison();
  Location loc = advance().loc;
  DepthGuard guard(exprDepth_, loc);
  return std::make_unique<UnaryOpExpr>(loc, UnaryOpKind::Not, parseNot());
}

std::optional<CmpOpKind> Parser::comparisonAt() const {
  switch (cur().kind) {
  case TokenKind::Lt: return CmpOpKind::Lt;
  case TokenKind::Gt: return CmpOpKind::Gt;
  case TokenKind::LtE: return CmpOpKind::LtE;
  case TokenKind::GtE: return CmpOpKind::GtE;
  case TokenKind::EqEq: return CmpOpKind::Eq;
  case TokenKind::NotEq: return CmpOpKind::NotEq;
  case TokenKind::KwIn: return CmpOpKind::In;
  case TokenKind::KwIs:
    return ahead(1).kind == TokenKind::KwNot ? CmpOpKind::IsNot : CmpOpKind::Is;
  case TokenKind::KwNot:
    if (ahead(1).kind == TokenKind::KwIn)
      return CmpOpKind::NotIn;
    return std::nullopt;
  default: return std::nullopt;
  }
}

// comparison = or_expr (comp_op or_expr)*
ExprPtr Parser::parseComparison() {
  ExprPtr left = parseBinary(1);
  if (!comparisonAt())
    return left;
  auto cmp = std::make_unique<CompareExpr>(cur().loc, std::move(left));
  while (auto op = comparisonAt()) {
    cmp->opLocs.push_back(advance().loc);
    if (*op == CmpOpKind::IsNot || *op == CmpOpKind::NotIn)
      advance();
    cmp->ops.push_back(*op);
    cmp->comparators.push_back(parseBinary(1));
  }
  return cmp;
}

// or_expr .. term: precedence climbing over binaryOpAt's table, all
// left-associative:  binary(p) = factor (op[prec >= p] binary(prec + 1))*
ExprPtr Parser::parseBinary(int minPrec) {
  ExprPtr lhs = parseFactor();
  ChainDepth chain(exprDepth_);
  while (true) {
    BinaryOpInfo info = binaryOpAt(cur().kind);
    if (info.prec == 0 || info.prec < minPrec)
      return lhs;
    Location opLoc = advance().loc;
    chain.link(opLoc);
    ExprPtr rhs = parseBinary(info.prec + 1);
    lhs = std::make_unique<BinOpExpr>(opLoc, info.op, std::move(lhs), std::move(rhs));
  }
}

// factor = ('+' | '-' | '~') factor | power
ExprPtr Parser::parseFactor() {
  UnaryOpKind op;
  if (at(TokenKind::Minus))
    op = UnaryOpKind::Neg;
  else if (at(TokenKind::Plus))
    op = UnaryOpKind::Pos;
  else if (at(TokenKind::Tilde))
    op = UnaryOpKind::Invert;
  else
    return parsePower();
  Location loc = advance().loc;
  DepthGuard guard(exprDepth_, loc);
  return std::make_unique<UnaryOpExpr>(loc, op, parseFactor());
}

// power = primary ['**' factor]      (right-associative; 2**-1 is fine)
ExprPtr Parser::parsePower() {
  ExprPtr base = parsePrimary();
  if (!at(TokenKind::DoubleStar))
    return base;
  Location loc = advance().loc;
  DepthGuard guard(exprDepth_, loc);
  ExprPtr exponent = parseFactor();
  return std::make_unique<BinOpExpr>(loc, BinOpKind::Pow, std::move(base), std::move(exponent));
}

// primary = atom ('.' NAME | '(' args ')' | '[' subscripts ']')*
ExprPtr Parser::parsePrimary() {
  Location start = cur().loc;
  ExprPtr e = parseAtom();
  ChainDepth chain(exprDepth_);
  while (true) {
    if (accept(TokenKind::Dot)) {
      if (!at(TokenKind::Name))
        failHere("expected an attribute name after '.'");
      const Token &name = advance();
      chain.link(name.loc);
      e = std::make_unique<AttributeExpr>(name.loc, std::move(e), name.text);
    } else if (at(TokenKind::LParen)) {
      chain.link(advance().loc);
      auto call = std::make_unique<CallExpr>(start, std::move(e));
      parseCallArgs(*call);
      e = std::move(call);
    } else if (at(TokenKind::LBracket)) {
      chain.link(advance().loc);
      ExprPtr index = parseSubscriptIndex();
      e = std::make_unique<SubscriptExpr>(start, std::move(e), std::move(index));
    } else if (isStringPiece(*e) && (at(TokenKind::String) || isFString(cur()))) {
      // adjacent literals, f-strings among them ("a" f"{x}"), are one atom
      ExprPtr next;
      if (at(TokenKind::String)) {
        next = parseStrings();
      } else {
        const Token &name = advance();
        auto call = std::make_unique<CallExpr>(name.loc, std::make_unique<NameExpr>(name.loc, name.text));
        advance(); // '('
        parseCallArgs(*call);
        next = std::move(call);
      }
      e = std::make_unique<BinOpExpr>(start, BinOpKind::Add, std::move(e), std::move(next));
    } else {
      return e;
    }
  }
}

bool Parser::isFString(const Token &t) const {
  return t.kind == TokenKind::Name && t.text == "__fstr__" && ahead(1).kind == TokenKind::LParen;
}

bool Parser::isStringPiece(const Expr &e) const {
  if (e.kind == ExprKind::Str)
    return true;
  if (e.kind == ExprKind::BinOp)   // an earlier concatenation
    return static_cast<const BinOpExpr &>(e).op == BinOpKind::Add && isStringPiece(*static_cast<const BinOpExpr &>(e).rhs);
  if (e.kind != ExprKind::Call)
    return false;
  const Expr &f = *static_cast<const CallExpr &>(e).func;
  return f.kind == ExprKind::Name && static_cast<const NameExpr &>(f).id == "__fstr__";
}

// args = [arg (',' arg)* [',']] ')'      arg = test | NAME '=' test
void Parser::parseCallArgs(CallExpr &call) {
  while (!at(TokenKind::RParen)) {
    if (at(TokenKind::Star))
      fail(cur().loc, "argument unpacking with '*' is not supported");
    if (at(TokenKind::DoubleStar))
      fail(cur().loc, "keyword argument unpacking with '**' is not supported");
    if (at(TokenKind::Name) && ahead(1).kind == TokenKind::Assign) {
      Keyword kw;
      kw.loc = cur().loc;
      kw.name = advance().text;
      advance(); // '='
      for (const Keyword &other : call.keywords)
        if (other.name == kw.name)
          fail(kw.loc, fmt::format("keyword argument repeated: '{}'", kw.name));
      kw.value = parseTest();
      call.keywords.push_back(std::move(kw));
    } else {
      Location argLoc = cur().loc;
      ExprPtr arg = parseTest();
      if (at(TokenKind::Assign))
        fail(argLoc, "a keyword argument name must be a plain name");
      if (at(TokenKind::KwFor)) {   // f(x for x in xs): the one argument
        if (!call.args.empty() || !call.keywords.empty())
          fail(argLoc, "a generator expression must be parenthesized unless it is the only argument");
        arg = parseComprehension(argLoc, ComprehensionExpr::Form::Generator, std::move(arg));
        if (!at(TokenKind::RParen))
          fail(argLoc, "a generator expression must be parenthesized unless it is the only argument");
      }
      if (!call.keywords.empty())
        fail(argLoc, "positional argument follows keyword argument");
      call.args.push_back(std::move(arg));
    }
    if (!accept(TokenKind::Comma))
      break;
  }
  expect(TokenKind::RParen, "expected ',' or ')' in call arguments");
}

// subscripts = subscript (',' subscript)* [','] ']'   (a comma makes a tuple)
ExprPtr Parser::parseSubscriptIndex() {
  Location start = cur().loc;
  if (at(TokenKind::RBracket))
    failHere("expected an index expression");
  ExprPtr first = parseSubscriptItem();
  if (accept(TokenKind::RBracket))
    return first;
  if (!at(TokenKind::Comma))
    failHere("expected ',' or ']' in subscript");
  auto tuple = std::make_unique<TupleExpr>(start);
  tuple->elts.push_back(std::move(first));
  while (accept(TokenKind::Comma) && !at(TokenKind::RBracket))
    tuple->elts.push_back(parseSubscriptItem());
  expect(TokenKind::RBracket, "expected ',' or ']' in subscript");
  return tuple;
}

// subscript = test | [test] ':' [test] [':' [test]]
ExprPtr Parser::parseSubscriptItem() {
  Location start = cur().loc;
  ExprPtr lower;
  if (!at(TokenKind::Colon)) {
    lower = parseTest();
    if (!at(TokenKind::Colon))
      return lower;
  }
  advance(); // ':'
  auto slice = std::make_unique<SliceExpr>(start);
  slice->lower = std::move(lower);
  auto endsPart = [&] {
    return at(TokenKind::Colon) || at(TokenKind::Comma) || at(TokenKind::RBracket);
  };
  if (!endsPart())
    slice->upper = parseTest();
  if (accept(TokenKind::Colon) && !endsPart())
    slice->step = parseTest();
  return slice;
}

// atom = NAME | NUMBER | STRING+ | 'True' | 'False' | 'None' | '...'
//      | '(' ... ')' | '[' ... ']' | '{' ... '}'
ExprPtr Parser::parseAtom() {
  const Token &t = cur();
  Location loc = t.loc;
  switch (t.kind) {
  case TokenKind::Name:
    return std::make_unique<NameExpr>(loc, advance().text);
  case TokenKind::Int: {
    auto lit = std::make_unique<IntExpr>(loc, static_cast<int64_t>(t.intValue));
    lit->isUnsigned64 = t.isUnsigned64;
    advance();
    return lit;
  }
  case TokenKind::Float:
    return std::make_unique<FloatExpr>(loc, advance().floatValue);
  case TokenKind::String: return parseStrings();
  case TokenKind::KwTrue:
  case TokenKind::KwFalse:
    return std::make_unique<BoolExpr>(loc, advance().kind == TokenKind::KwTrue);
  case TokenKind::KwNone:
    advance();
    return std::make_unique<NoneExpr>(loc);
  case TokenKind::Ellipsis:
    advance();
    return std::make_unique<EllipsisExpr>(loc);
  case TokenKind::LParen: return parseParenthesized();
  case TokenKind::LBracket: return parseList();
  case TokenKind::LBrace: return parseDict();
  case TokenKind::Star:
    fail(loc, "starred expressions are not supported");
  default:
    failHere("expected an expression");
  }
}

// parenthesized = '(' ')' | '(' test ')' | '(' test ',' [test (',' test)* [',']] ')'
ExprPtr Parser::parseParenthesized() {
  Location open = advance().loc;
  if (accept(TokenKind::RParen))
    return std::make_unique<TupleExpr>(open);
  ExprPtr first = parseTest();
  if (at(TokenKind::KwFor)) {
    ExprPtr gen = parseComprehension(open, ComprehensionExpr::Form::Generator, std::move(first));
    expect(TokenKind::RParen, "expected ')' after a generator expression");
    return gen;
  }
  if (accept(TokenKind::RParen))
    return first;
  if (!at(TokenKind::Comma))
    failHere("expected ')' after expression");
  auto tuple = std::make_unique<TupleExpr>(open);
  tuple->elts.push_back(std::move(first));
  while (accept(TokenKind::Comma) && !at(TokenKind::RParen))
    tuple->elts.push_back(parseTest());
  expect(TokenKind::RParen, "expected ',' or ')' in tuple");
  return tuple;
}

// list = '[' [test (',' test)* [',']] ']' | '[' test comp_for ']'
ExprPtr Parser::parseList() {
  auto list = std::make_unique<ListExpr>(advance().loc);
  while (!at(TokenKind::RBracket)) {
    list->elts.push_back(parseTest());
    if (at(TokenKind::KwFor)) {
      if (list->elts.size() > 1)
        fail(cur().loc, "a comprehension takes one element expression before 'for'");
      ExprPtr comp = parseComprehension(list->loc, ComprehensionExpr::Form::List, std::move(list->elts[0]));
      expect(TokenKind::RBracket, "expected ']' after a list comprehension");
      return comp;
    }
    if (!accept(TokenKind::Comma))
      break;
  }
  expect(TokenKind::RBracket, "expected ',' or ']' in list");
  return list;
}

// dict = '{' [test ':' test (',' test ':' test)* [',']] '}'
ExprPtr Parser::parseDict() {
  auto dict = std::make_unique<DictExpr>(advance().loc);
  while (!at(TokenKind::RBrace)) {
    if (at(TokenKind::DoubleStar))
      fail(cur().loc, "dict unpacking with '**' is not supported");
    ExprPtr key = parseTest();
    if (at(TokenKind::Comma) || at(TokenKind::RBrace) || at(TokenKind::KwFor))
      fail(dict->loc, "set literals are not supported");
    expect(TokenKind::Colon, "expected ':' after dict key");
    ExprPtr value = parseTest();
    if (at(TokenKind::KwFor)) {
      if (!dict->keys.empty())
        fail(cur().loc, "a comprehension takes one 'key: value' before 'for'");
      ExprPtr comp = parseComprehension(dict->loc, ComprehensionExpr::Form::Dict, std::move(key), std::move(value));
      expect(TokenKind::RBrace, "expected '}' after a dict comprehension");
      return comp;
    }
    dict->keys.push_back(std::move(key));
    dict->values.push_back(std::move(value));
    if (!accept(TokenKind::Comma))
      break;
  }
  expect(TokenKind::RBrace, "expected ',' or '}' in dict");
  return dict;
}

// comp_for = 'for' target_list 'in' or_test ('if' or_test | comp_for)*
ExprPtr Parser::parseComprehension(Location loc, ComprehensionExpr::Form form, ExprPtr elt, ExprPtr value) {
  auto comp = std::make_unique<ComprehensionExpr>(loc, form);
  comp->elt = std::move(elt);
  comp->value = std::move(value);
  while (at(TokenKind::KwFor)) {
    if (comp->fors.size() >= 32)
      fail(cur().loc, "a comprehension may have at most 32 'for' clauses");
    ComprehensionFor f;
    f.loc = advance().loc;
    f.target = parseTargetList();
    checkAssignTarget(*f.target);
    expect(TokenKind::KwIn, "expected 'in' after the comprehension's loop variable");
    f.iter = parseOr();
    while (accept(TokenKind::KwIf))
      f.ifs.push_back(parseOr());
    comp->fors.push_back(std::move(f));
  }
  return comp;
}

// strings = STRING+     (adjacent literals concatenate)
ExprPtr Parser::parseStrings() {
  Location loc = cur().loc;
  std::string value;
  while (at(TokenKind::String))
    value += advance().text;
  return std::make_unique<StrExpr>(loc, std::move(value));
}

} // namespace

std::shared_ptr<Module> parseFile(int fileId) {
  return Parser(fileId, lexForParser(fileId)).parseModule();
}

std::shared_ptr<Module> parseString(std::string path, std::string text) {
  return parseFile(SourceManager::global().addFile(std::move(path), std::move(text)));
}

} // namespace tile::frontend
