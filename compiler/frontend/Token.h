// Token.h - the tokens the lexer produces for .tile files.
//
// Operator and keyword kinds come from one X-macro list each, so the enum,
// the spellings and the lexer's keyword table cannot drift apart.
#pragma once

#include "support/Diagnostics.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace tile::frontend {

// X(Kind, spelling). Order does not matter: the lexer matches the longest
// spelling itself.
#define TILE_TOKEN_OPS(X)                                                      \
  X(LParen, "(") X(RParen, ")") X(LBracket, "[") X(RBracket, "]")              \
  X(LBrace, "{") X(RBrace, "}") X(Comma, ",") X(Colon, ":") X(Semi, ";")       \
  X(Dot, ".") X(Ellipsis, "...") X(Arrow, "->") X(At, "@") X(Assign, "=")      \
  X(Plus, "+") X(Minus, "-") X(Star, "*") X(Slash, "/") X(Percent, "%")        \
  X(DoubleStar, "**") X(DoubleSlash, "//") X(LShift, "<<") X(RShift, ">>")     \
  X(Amp, "&") X(Pipe, "|") X(Caret, "^") X(Tilde, "~")                         \
  X(Lt, "<") X(Gt, ">") X(LtE, "<=") X(GtE, ">=") X(EqEq, "==")                \
  X(NotEq, "!=") X(PlusEq, "+=") X(MinusEq, "-=") X(StarEq, "*=")              \
  X(SlashEq, "/=") X(DoubleSlashEq, "//=") X(PercentEq, "%=")                  \
  X(DoubleStarEq, "**=") X(AtEq, "@=") X(AmpEq, "&=") X(PipeEq, "|=")          \
  X(CaretEq, "^=") X(LShiftEq, "<<=") X(RShiftEq, ">>=")

// The keywords tile files may use. Python's other keywords are rejected by
// the lexer with "'class' is not supported in tile files".
#define TILE_TOKEN_KEYWORDS(X)                                                 \
  X(KwAnd, "and") X(KwAs, "as") X(KwAssert, "assert") X(KwBreak, "break")      \
  X(KwContinue, "continue") X(KwDef, "def") X(KwElif, "elif")                  \
  X(KwElse, "else") X(KwFalse, "False") X(KwFor, "for") X(KwFrom, "from")      \
  X(KwGlobal, "global") X(KwIf, "if") X(KwImport, "import") X(KwIn, "in")      \
  X(KwIs, "is") X(KwLambda, "lambda") X(KwNone, "None") X(KwNot, "not")        \
  X(KwOr, "or") X(KwPass, "pass") X(KwRaise, "raise") X(KwReturn, "return")    \
  X(KwTrue, "True") X(KwWhile, "while") X(KwWith, "with") X(KwTry, "try")      \
  X(KwExcept, "except") X(KwFinally, "finally")

enum class TokenKind {
  Name,    ///< identifier; text is the name
  Int,     ///< integer literal; text is the spelling, intValue the bits
  Float,   ///< float literal; text is the spelling, floatValue the value
  String,  ///< one string literal; text is the decoded value
  Newline, ///< end of a logical line
  Indent,
  Dedent,
  Eof,
  /// A lexer error found after the tokens before it; the parser reports it
  /// when it reaches this token, so earlier syntax errors win. text = message.
  Error,
#define TILE_X(K, S) K,
  TILE_TOKEN_OPS(TILE_X) TILE_TOKEN_KEYWORDS(TILE_X)
#undef TILE_X
};

struct Token {
  TokenKind kind = TokenKind::Eof;
  Location loc;
  std::string text;
  uint64_t intValue = 0;
  bool isUnsigned64 = false; ///< Int above INT64_MAX (kept as uint64 bits)
  double floatValue = 0;
};

/// The fixed spelling of an operator or keyword kind; "" for other kinds.
std::string_view tokenSpelling(TokenKind k);
/// Upper-case class name used by dumpTokens: NAME, INT, OP, KEYWORD, ...
std::string_view tokenClassName(TokenKind k);
bool isKeyword(TokenKind k);
/// How an error message names a token: "name 'x'", "')'", "end of file".
std::string describeToken(const Token &t);
/// A string as a double-quoted literal with escapes, for dumps: "a\\n".
std::string quoteString(std::string_view s);

} // namespace tile::frontend
