// Lexer.cpp - the tokenizer: indentation, literals, operators, brackets.
//
// One pass over the text, one token at a time, no backtracking beyond a few
// characters of lookahead, so time is linear in the input size.
#include "frontend/Lexer.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>

namespace tile::frontend {

namespace {

/// Deepest bracket or indentation nesting accepted ("nesting too deep").
constexpr size_t kMaxNesting = 256;

bool isDigit(int c) { return c >= '0' && c <= '9'; }
bool isIdentStart(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool isIdentChar(int c) { return isIdentStart(c) || isDigit(c); }
bool isHexDigit(int c) {
  return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
int hexValue(int c) {
  if (isDigit(c))
    return c - '0';
  return (c | 0x20) - 'a' + 10;
}

struct Spelled {
  TokenKind kind;
  std::string_view spelling;
};

constexpr Spelled kOps[] = {
#define TILE_X(K, S) {TokenKind::K, S},
    TILE_TOKEN_OPS(TILE_X)
#undef TILE_X
};
constexpr Spelled kKeywords[] = {
#define TILE_X(K, S) {TokenKind::K, S},
    TILE_TOKEN_KEYWORDS(TILE_X)
#undef TILE_X
};

/// Python keywords that tile files may not use.
constexpr std::string_view kUnsupportedKeywords[] = {
    "async", "await", "class", "del", "nonlocal", "yield"};

bool isOpeningBracket(TokenKind k) {
  return k == TokenKind::LParen || k == TokenKind::LBracket || k == TokenKind::LBrace;
}
bool isClosingBracket(TokenKind k) {
  return k == TokenKind::RParen || k == TokenKind::RBracket || k == TokenKind::RBrace;
}
TokenKind closerOf(TokenKind open) {
  if (open == TokenKind::LParen)
    return TokenKind::RParen;
  if (open == TokenKind::LBracket)
    return TokenKind::RBracket;
  return TokenKind::RBrace;
}

void appendUtf8(std::string &out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

/// Decodes one UTF-8 sequence at s[i]; returns its length, 0 if malformed.
size_t decodeUtf8(std::string_view s, size_t i, uint32_t &cp) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  unsigned char c = b(0);
  size_t len = c >= 0xF0 && c < 0xF8 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
  if (len == 0 || i + len > s.size())
    return 0;
  cp = c & (0x7F >> len);
  for (size_t k = 1; k < len; ++k) {
    if ((b(k) & 0xC0) != 0x80)
      return 0;
    cp = (cp << 6) | (b(k) & 0x3F);
  }
  return len;
}

struct OpenBracket {
  TokenKind kind;
  Location loc;
  size_t tokenIndex; ///< where the bracket's token is in the token list
};

struct IndentLevel {
  int col;    ///< tabs advance to the next multiple of 8
  int altCol; ///< tabs count as one column; must order levels the same way
};

class Lexer {
public:
  Lexer(int fileId, std::string text) : fileId_(fileId), text_(std::move(text)) {}
  /// Lexes everything; with errorsAsTokens, a mid-file error ends the token
  /// list with an Error token instead of throwing.
  std::vector<Token> run(bool errorsAsTokens);

private:
  void lexAll();
  void lexIndentation();
  void lexNewline();
  void lexContinuation();
  void lexToken();
  void lexNameOrString();
  void lexString(Location loc, bool raw);
  void lexFString(Location loc, bool raw);
  void lexFStringField(char quote, bool triple);
  void lexEscape(std::string &value);
  void lexNumber();
  void lexRadixInt(Location loc);
  void emitFloat(Location loc, std::string spelling);
  void emitDecimalInt(Location loc, std::string spelling);
  void emitInt(Location loc, std::string spelling, uint64_t v);
  void lexOperator();
  void trackBracket(TokenKind kind, Location loc);
  void finish();
  [[noreturn]] void failInvalidChar();
  void scanDecimalDigits();
  uint32_t readHexDigits(int count, const char *escape, Location loc);

  int peek(size_t k = 0) const {
    return pos_ + k < text_.size() ? static_cast<unsigned char>(text_[pos_ + k]) : -1;
  }
  bool atNewline() const { return peek() == '\n' || (peek() == '\r' && peek(1) == '\n'); }
  /// Steps over a newline at pos_ and starts the next physical line.
  void skipNewline() {
    pos_ += peek() == '\r' ? 2 : 1;
    ++line_;
    lineStart_ = pos_;
  }
  Location here() const {
    return {fileId_, line_, static_cast<int32_t>(pos_ - lineStart_ + 1)};
  }
  void emit(TokenKind kind, Location loc, std::string text = {}) {
    Token t;
    t.kind = kind;
    t.loc = loc;
    t.text = std::move(text);
    toks_.push_back(std::move(t));
  }
  /// Emits a token that belongs to the logical line (not layout).
  Token &emitReal(TokenKind kind, Location loc, std::string text = {}) {
    emit(kind, loc, std::move(text));
    lineHasTokens_ = true;
    lastEnd_ = here();
    return toks_.back();
  }

  int fileId_;
  std::string text_;
  size_t pos_ = 0;
  int line_ = 1;
  size_t lineStart_ = 0;
  bool atLineStart_ = true;
  bool lineHasTokens_ = false;
  Location lastEnd_{fileId_, 1, 1};
  std::vector<IndentLevel> indents_{{0, 0}};
  std::vector<OpenBracket> brackets_;
  /// Set when a bracket is never closed: the tokens from there on are
  /// dropped, so that a parser reports the bracket when it gets there.
  std::optional<size_t> unclosedAt_;
  std::vector<Token> toks_;
  int fstringDepth_ = 0; ///< f-strings inside f-strings' fields
};

std::vector<Token> Lexer::run(bool errorsAsTokens) {
  try {
    lexAll();
  } catch (const CompileError &e) {
    if (!errorsAsTokens)
      throw;
    if (unclosedAt_)
      toks_.resize(*unclosedAt_);
    emit(TokenKind::Error, e.loc, e.msg);
  }
  return std::move(toks_);
}

void Lexer::lexAll() {
  while (true) {
    if (atLineStart_) {
      lexIndentation();
      atLineStart_ = false;
    }
    while (peek() == ' ' || peek() == '\t' || peek() == '\f')
      ++pos_;
    int c = peek();
    if (c < 0)
      break;
    if (c == '#') {
      while (peek() >= 0 && peek() != '\n')
        ++pos_;
    } else if (atNewline()) {
      lexNewline();
    } else if (c == '\\') {
      lexContinuation();
    } else {
      lexToken();
    }
  }
  finish();
}

// Measures the indentation of a new logical line and emits INDENT/DEDENTs.
// Blank and comment-only lines do not count.
void Lexer::lexIndentation() {
  int col = 0, altCol = 0;
  for (;; ++pos_) {
    int c = peek();
    if (c == ' ') {
      ++col, ++altCol;
    } else if (c == '\t') {
      col = (col / 8 + 1) * 8;
      ++altCol;
    } else if (c == '\f') {
      col = altCol = 0;
    } else {
      break;
    }
  }
  if (peek() < 0 || peek() == '#' || atNewline())
    return;
  Location loc = here();
  auto inconsistent = [&] {
    fail(loc, "inconsistent use of tabs and spaces in indentation");
  };
  if (col > indents_.back().col) {
    if (altCol <= indents_.back().altCol)
      inconsistent();
    if (indents_.size() > kMaxNesting)
      fail(loc, "nesting too deep");
    indents_.push_back({col, altCol});
    emit(TokenKind::Indent, loc);
    return;
  }
  while (col < indents_.back().col) {
    indents_.pop_back();
    emit(TokenKind::Dedent, loc);
  }
  if (col != indents_.back().col)
    fail(loc, "unindent does not match any outer indentation level");
  if (altCol != indents_.back().altCol)
    inconsistent();
}

void Lexer::lexNewline() {
  if (brackets_.empty() && lineHasTokens_) {
    emit(TokenKind::Newline, lastEnd_);
    lineHasTokens_ = false;
  }
  skipNewline();
  // Inside brackets a new physical line continues the logical one.
  atLineStart_ = brackets_.empty();
}

void Lexer::lexContinuation() {
  Location loc = here();
  ++pos_;
  if (peek() < 0)
    fail(loc, "unexpected end of file after line continuation character");
  if (!atNewline())
    fail(loc, "unexpected character after line continuation character");
  skipNewline();
}

void Lexer::lexToken() {
  int c = peek();
  if (isIdentStart(c))
    return lexNameOrString();
  if (isDigit(c) || (c == '.' && isDigit(peek(1))))
    return lexNumber();
  if (c == '"' || c == '\'')
    return lexString(here(), /*raw=*/false);
  lexOperator();
}

void Lexer::failInvalidChar() {
  Location loc = here();
  int c = peek();
  if (c > 0x20 && c < 0x7F)
    fail(loc, fmt::format("invalid character '{}'", static_cast<char>(c)));
  if (c < 0x80)
    fail(loc, fmt::format("invalid non-printable character U+{:04X}", c));
  uint32_t cp = 0;
  size_t len = decodeUtf8(text_, pos_, cp);
  if (len == 0)
    fail(loc, fmt::format("invalid byte 0x{:02x} (the file is not valid UTF-8)", c));
  fail(loc, fmt::format("invalid character '{}' (U+{:04X})", text_.substr(pos_, len), cp));
}

void Lexer::lexNameOrString() {
  Location loc = here();
  size_t start = pos_;
  while (isIdentChar(peek()))
    ++pos_;
  std::string name = text_.substr(start, pos_ - start);
  if ((peek() == '"' || peek() == '\'') && name.size() <= 2) {
    std::string lower;
    for (char ch : name)
      lower += static_cast<char>(ch | 0x20);
    if (lower == "f" || lower == "rf" || lower == "fr")
      return lexFString(loc, lower != "f");
    if (lower == "b" || lower == "rb" || lower == "br")
      fail(loc, "bytes literals are not supported");
    if (lower == "r" || lower == "u")
      return lexString(loc, lower == "r");
  }
  for (const Spelled &kw : kKeywords)
    if (kw.spelling == name)
      return void(emitReal(kw.kind, loc, std::move(name)));
  for (std::string_view bad : kUnsupportedKeywords)
    if (bad == name)
      fail(loc, fmt::format("'{}' is not supported in tile files", name));
  emitReal(TokenKind::Name, loc, std::move(name));
}

// string = prefix? (quote chars quote | triple-quote chars triple-quote)
// loc is where the literal (with its prefix) starts; pos_ is on the quote.
void Lexer::lexString(Location loc, bool raw) {
  char quote = static_cast<char>(peek());
  bool triple = peek(1) == quote && peek(2) == quote;
  pos_ += triple ? 3 : 1;
  const char *unterminated =
      triple ? "unterminated triple-quoted string literal" : "unterminated string literal";
  std::string value;
  while (true) {
    int c = peek();
    if (c < 0)
      fail(loc, unterminated);
    if (c == quote) {
      if (!triple) {
        ++pos_;
        break;
      }
      if (peek(1) == quote && peek(2) == quote) {
        pos_ += 3;
        break;
      }
      value += quote;
      ++pos_;
    } else if (atNewline()) {
      if (!triple)
        fail(loc, unterminated);
      value += '\n';
      skipNewline();
    } else if (c == '\\' && raw) {
      // A raw string keeps the backslash, but it still protects a quote.
      value += '\\';
      ++pos_;
      if (atNewline()) {
        value += '\n';
        skipNewline();
      } else if (peek() >= 0) {
        value += static_cast<char>(peek());
        ++pos_;
      }
    } else if (c == '\\') {
      lexEscape(value);
    } else {
      value += static_cast<char>(c);
      ++pos_;
    }
  }
  emitReal(TokenKind::String, loc, std::move(value));
}

// An f-string becomes the tokens of a call the host evaluates (its
// expressions lexed in place, so their errors point into the literal):
//   f"a {x!r:>8} b"  ->  __fstr__("a ", (x), "r", ">8", " b")
// literal parts and, per field, its value, conversion and format spec.
// pos_ is on the opening quote.
void Lexer::lexFString(Location loc, bool raw) {
  char quote = static_cast<char>(peek());
  bool triple = peek(1) == quote && peek(2) == quote;
  pos_ += triple ? 3 : 1;
  if (fstringDepth_ >= 8)
    fail(loc, "f-strings nested too deep");
  ++fstringDepth_;
  emitReal(TokenKind::Name, loc, "__fstr__");
  emitReal(TokenKind::LParen, loc, "(");
  std::string literal;
  while (true) {
    int c = peek();
    if (c < 0 || (!triple && atNewline()))
      fail(loc, triple ? "unterminated triple-quoted f-string" : "unterminated f-string");
    if (c == quote && (!triple || (peek(1) == quote && peek(2) == quote))) {
      pos_ += triple ? 3 : 1;
      break;
    }
    if ((c == '{' || c == '}') && peek(1) == c) {   // {{ and }}: a brace
      literal += static_cast<char>(c);
      pos_ += 2;
    } else if (c == '}') {
      fail(here(), "f-string: a single '}' is not allowed (write '}}')");
    } else if (c == '{') {
      emitReal(TokenKind::String, loc, std::move(literal));
      literal.clear();
      emitReal(TokenKind::Comma, loc, ",");
      lexFStringField(quote, triple);
    } else if (atNewline()) {
      literal += '\n';
      skipNewline();
    } else if (c == '\\' && !raw) {
      lexEscape(literal);
    } else {
      literal += static_cast<char>(c);
      ++pos_;
    }
  }
  emitReal(TokenKind::String, loc, std::move(literal));
  emitReal(TokenKind::RParen, loc, ")");
  --fstringDepth_;
}

// One replacement field: pos_ is on its '{'. Emits "(expr), conv, spec,".
void Lexer::lexFStringField(char quote, bool triple) {
  Location open = here();
  ++pos_;
  size_t depth = brackets_.size();
  emitReal(TokenKind::LParen, open, "(");
  size_t first = toks_.size();
  while (true) {
    while (peek() == ' ' || peek() == '\t')
      ++pos_;
    int c = peek();
    if (c < 0 || atNewline() || (c == quote && !triple))
      fail(open, triple && c >= 0 && c != quote ? "f-string: an expression may not span lines here"
                                                : "f-string: expected '}'");
    bool top = brackets_.size() == depth;
    if (top && (c == '}' || c == ':' || (c == '!' && peek(1) != '=')))
      break;
    if (top && c == '=' && peek(1) != '=' && toks_.size() > first)
      fail(here(), "f-string: '=' (self-documenting expressions) is not supported");
    if (c == '#')
      fail(here(), "f-string: the expression may not contain '#'");
    lexToken();
  }
  if (toks_.size() == first)
    fail(open, "f-string: empty expression not allowed");
  emitReal(TokenKind::RParen, open, ")");
  emitReal(TokenKind::Comma, open, ",");
  std::string conversion, spec;
  if (peek() == '!') {
    ++pos_;
    if (peek() != 'r' && peek() != 's' && peek() != 'a')
      fail(here(), "f-string: expected 'r', 's' or 'a' after '!'");
    conversion = std::string(1, static_cast<char>(peek()));
    ++pos_;
  }
  if (peek() == ':') {
    ++pos_;
    while (peek() >= 0 && peek() != '}' && !atNewline()) {
      if (peek() == '{')
        fail(here(), "f-string: nested fields in a format spec are not supported");
      spec += static_cast<char>(peek());
      ++pos_;
    }
  }
  if (peek() != '}')
    fail(open, "f-string: expected '}'");
  ++pos_;
  emitReal(TokenKind::String, open, std::move(conversion));
  emitReal(TokenKind::Comma, open, ",");
  emitReal(TokenKind::String, open, std::move(spec));
  emitReal(TokenKind::Comma, open, ",");
}

uint32_t Lexer::readHexDigits(int count, const char *escape, Location loc) {
  uint32_t v = 0;
  for (int i = 0; i < count; ++i) {
    if (!isHexDigit(peek()))
      fail(loc, fmt::format("truncated {} escape", escape));
    v = v * 16 + hexValue(peek());
    ++pos_;
  }
  return v;
}

// Decodes one escape sequence of a non-raw string; pos_ is on the backslash.
void Lexer::lexEscape(std::string &value) {
  Location loc = here();
  ++pos_;
  int c = peek();
  if (c < 0)
    return; // the caller reports the unterminated literal
  if (atNewline())
    return skipNewline(); // backslash-newline continues the literal
  ++pos_;
  switch (c) {
  case '\\': value += '\\'; return;
  case '\'': value += '\''; return;
  case '"': value += '"'; return;
  case 'a': value += '\a'; return;
  case 'b': value += '\b'; return;
  case 'f': value += '\f'; return;
  case 'n': value += '\n'; return;
  case 'r': value += '\r'; return;
  case 't': value += '\t'; return;
  case 'v': value += '\v'; return;
  case 'x': return appendUtf8(value, readHexDigits(2, "\\xXX", loc));
  case 'u': return appendUtf8(value, readHexDigits(4, "\\uXXXX", loc));
  case 'N': fail(loc, "'\\N{...}' escapes are not supported");
  case 'U': {
    uint32_t cp = readHexDigits(8, "\\UXXXXXXXX", loc);
    if (cp > 0x10FFFF)
      fail(loc, "\\U escape is beyond the last unicode code point");
    return appendUtf8(value, cp);
  }
  default:
    break;
  }
  if (c >= '0' && c <= '7') {
    uint32_t v = c - '0';
    for (int i = 0; i < 2 && peek() >= '0' && peek() <= '7'; ++i, ++pos_)
      v = v * 8 + (peek() - '0');
    return appendUtf8(value, v);
  }
  // Python keeps unknown escapes verbatim.
  value += '\\';
  value += static_cast<char>(c);
}

// digits = digit ('_'? digit)*
void Lexer::scanDecimalDigits() {
  while (isDigit(peek()) || peek() == '_') {
    if (peek() == '_' && !isDigit(peek(1)))
      fail(here(), "invalid decimal literal");
    ++pos_;
  }
}

// number = digits ('.' digits?)? exponent? | '.' digits exponent?
//        | '0' [xob] ('_'? hexdigit)+
void Lexer::lexNumber() {
  Location loc = here();
  if (peek() == '0' && peek(1) >= 0 && std::strchr("xXoObB", peek(1)))
    return lexRadixInt(loc);
  size_t start = pos_;
  bool isFloat = false;
  if (peek() != '.')
    scanDecimalDigits();
  if (peek() == '.') {
    isFloat = true;
    ++pos_;
    if (isDigit(peek()))
      scanDecimalDigits();
  }
  if (peek() == 'e' || peek() == 'E') {
    size_t sign = peek(1) == '+' || peek(1) == '-' ? 1 : 0;
    if (isDigit(peek(1 + sign))) {
      isFloat = true;
      pos_ += 1 + sign;
      scanDecimalDigits();
    }
  }
  if (peek() == 'j' || peek() == 'J')
    fail(loc, "complex literals are not supported");
  if (isIdentChar(peek()))
    fail(loc, "invalid decimal literal");
  std::string spelling = text_.substr(start, pos_ - start);
  if (isFloat)
    return emitFloat(loc, std::move(spelling));
  emitDecimalInt(loc, std::move(spelling));
}

std::string withoutUnderscores(std::string_view spelling) {
  std::string digits;
  for (char ch : spelling)
    if (ch != '_')
      digits += ch;
  return digits;
}

void Lexer::emitFloat(Location loc, std::string spelling) {
  std::string digits = withoutUnderscores(spelling);
  double v = 0;
  auto res = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (res.ec == std::errc::result_out_of_range)
    v = std::strtod(digits.c_str(), nullptr); // inf or 0, as in Python
  emitReal(TokenKind::Float, loc, std::move(spelling)).floatValue = v;
}

void Lexer::emitDecimalInt(Location loc, std::string spelling) {
  std::string digits = withoutUnderscores(spelling);
  if (digits.size() > 1 && digits[0] == '0' &&
      digits.find_first_not_of('0') != std::string::npos)
    fail(loc, "leading zeros in decimal integer literals are not permitted; "
              "use an 0o prefix for octal integers");
  uint64_t v = 0;
  for (char ch : digits)
    if (__builtin_mul_overflow(v, 10u, &v) || __builtin_add_overflow(v, uint64_t(ch - '0'), &v))
      fail(loc, "integer literal too large");
  emitInt(loc, std::move(spelling), v);
}

void Lexer::lexRadixInt(Location loc) {
  size_t start = pos_;
  char prefix = static_cast<char>(peek(1) | 0x20);
  unsigned base = prefix == 'x' ? 16 : prefix == 'o' ? 8 : 2;
  const char *name = base == 16 ? "hexadecimal" : base == 8 ? "octal" : "binary";
  pos_ += 2;
  uint64_t v = 0;
  int ndigits = 0;
  while (isIdentChar(peek())) {
    int c = peek();
    if (c == '_') {
      if (!isHexDigit(peek(1)))
        fail(loc, fmt::format("invalid {} literal", name));
      ++pos_;
      continue;
    }
    unsigned d = isHexDigit(c) ? hexValue(c) : 99;
    if (d >= base && isDigit(c))
      fail(here(), fmt::format("invalid digit '{}' in {} literal", char(c), name));
    if (d >= base)
      fail(loc, fmt::format("invalid {} literal", name));
    if (__builtin_mul_overflow(v, uint64_t(base), &v) || __builtin_add_overflow(v, uint64_t(d), &v))
      fail(loc, "integer literal too large");
    ++ndigits;
    ++pos_;
  }
  if (ndigits == 0)
    fail(loc, fmt::format("invalid {} literal", name));
  emitInt(loc, text_.substr(start, pos_ - start), v);
}

void Lexer::emitInt(Location loc, std::string spelling, uint64_t v) {
  Token &t = emitReal(TokenKind::Int, loc, std::move(spelling));
  t.intValue = v;
  t.isUnsigned64 = v > uint64_t(std::numeric_limits<int64_t>::max());
}

void Lexer::lexOperator() {
  Location loc = here();
  if (peek() == ':' && peek(1) == '=')
    fail(loc, "the ':=' operator is not supported");
  const Spelled *best = nullptr;
  std::string_view rest(text_.data() + pos_, std::min<size_t>(3, text_.size() - pos_));
  for (const Spelled &op : kOps)
    if (op.spelling[0] == rest[0] && op.spelling.size() > (best ? best->spelling.size() : 0) &&
        rest.starts_with(op.spelling))
      best = &op;
  if (!best)
    failInvalidChar();
  trackBracket(best->kind, loc);
  pos_ += best->spelling.size();
  emitReal(best->kind, loc, std::string(best->spelling));
}

void Lexer::trackBracket(TokenKind kind, Location loc) {
  if (isOpeningBracket(kind)) {
    if (brackets_.size() >= kMaxNesting)
      fail(loc, "nesting too deep");
    brackets_.push_back({kind, loc, toks_.size()});
    return;
  }
  if (!isClosingBracket(kind))
    return;
  std::string_view close = tokenSpelling(kind);
  if (brackets_.empty())
    fail(loc, fmt::format("unmatched '{}'", close));
  const OpenBracket &open = brackets_.back();
  if (closerOf(open.kind) != kind) {
    std::string where = open.loc.line == loc.line ? "" : fmt::format(" on line {}", open.loc.line);
    fail(loc, fmt::format("closing '{}' does not match opening '{}'{}", close,
                          tokenSpelling(open.kind), where));
  }
  brackets_.pop_back();
}

void Lexer::finish() {
  if (!brackets_.empty()) {
    unclosedAt_ = brackets_.back().tokenIndex;
    fail(brackets_.back().loc,
         fmt::format("'{}' was never closed", tokenSpelling(brackets_.back().kind)));
  }
  if (lineHasTokens_)
    emit(TokenKind::Newline, lastEnd_);
  for (size_t i = 1; i < indents_.size(); ++i)
    emit(TokenKind::Dedent, lastEnd_);
  emit(TokenKind::Eof, lastEnd_);
}

} // namespace

std::string_view tokenSpelling(TokenKind k) {
  for (const Spelled &op : kOps)
    if (op.kind == k)
      return op.spelling;
  for (const Spelled &kw : kKeywords)
    if (kw.kind == k)
      return kw.spelling;
  return "";
}

bool isKeyword(TokenKind k) {
  for (const Spelled &kw : kKeywords)
    if (kw.kind == k)
      return true;
  return false;
}

std::string_view tokenClassName(TokenKind k) {
  switch (k) {
  case TokenKind::Name: return "NAME";
  case TokenKind::Int: return "INT";
  case TokenKind::Float: return "FLOAT";
  case TokenKind::String: return "STRING";
  case TokenKind::Newline: return "NEWLINE";
  case TokenKind::Indent: return "INDENT";
  case TokenKind::Dedent: return "DEDENT";
  case TokenKind::Eof: return "EOF";
  case TokenKind::Error: return "ERROR";
  default: return isKeyword(k) ? "KEYWORD" : "OP";
  }
}

std::string describeToken(const Token &t) {
  switch (t.kind) {
  case TokenKind::Name: return fmt::format("name '{}'", t.text);
  case TokenKind::Int: return fmt::format("integer literal '{}'", t.text);
  case TokenKind::Float: return fmt::format("float literal '{}'", t.text);
  case TokenKind::String: return "string literal";
  case TokenKind::Newline: return "end of line";
  case TokenKind::Indent: return "indent";
  case TokenKind::Dedent: return "unindent";
  case TokenKind::Eof: return "end of file";
  case TokenKind::Error: return "invalid token";
  default: return fmt::format("'{}'", tokenSpelling(t.kind));
  }
}

std::string quoteString(std::string_view s) {
  std::string out = "\"";
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7F) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += ch; // printable ASCII and UTF-8 bytes pass through
    }
  }
  return out + "\"";
}

std::vector<Token> lex(int fileId) {
  return Lexer(fileId, SourceManager::global().text(fileId)).run(false);
}

std::vector<Token> lexForParser(int fileId) {
  return Lexer(fileId, SourceManager::global().text(fileId)).run(true);
}

std::string dumpTokens(const std::vector<Token> &tokens) {
  std::string out;
  for (const Token &t : tokens) {
    out += fmt::format("{}:{} {}", t.loc.line, t.loc.col, tokenClassName(t.kind));
    if (t.kind == TokenKind::String)
      out += " " + quoteString(t.text);
    else if (!t.text.empty())
      out += " " + t.text;
    out += '\n';
  }
  return out;
}

} // namespace tile::frontend
