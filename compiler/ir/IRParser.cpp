// IRParser.cpp - recursive-descent parser for the tile IR text form; one
// function per grammar rule, the rule in a comment above it.
#include "ir/IRParser.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <unordered_map>

namespace tile::ir {

LayoutParserFn &layoutParser() {
  static LayoutParserFn parser;
  return parser;
}

void setLayoutParser(LayoutParserFn parser) { layoutParser() = std::move(parser); }


namespace {

constexpr int kMaxNesting = 256;
constexpr int64_t kMaxElements = int64_t(1) << 40;

bool isNameChar(char c) { return std::isalnum((unsigned char)c) || c == '_' || c == '.'; }

class Parser {
public:
  Parser(std::string_view text, int fileId, std::string fileName)
      : text_(text), fileId_(fileId), fileName_(std::move(fileName)) {
    lineStarts_.push_back(0);
    for (size_t i = 0; i < text_.size(); ++i)
      if (text_[i] == '\n')
        lineStarts_.push_back(i + 1);
  }

  // module := func*
  std::unique_ptr<Module> parseModule() {
    auto m = std::make_unique<Module>();
    skipSpace();
    while (!atEnd()) {
      auto fn = parseFunction();
      if (m->lookup(fn->name))
        fail(fnLoc_, fmt::format("redefinition of function @{}", fn->name));
      m->functions.push_back(std::move(fn));
      skipSpace();
    }
    return m;
  }

private:
  std::string_view text_;
  int fileId_;
  std::string fileName_;
  size_t pos_ = 0;
  std::vector<size_t> lineStarts_;
  std::vector<std::unordered_map<std::string, Value *>> scopes_;
  std::unordered_map<std::string, int> fileIds_;
  Location fnLoc_;
  int depth_ = 0;

  // ---------------------------------------------------------------- lexing

  bool atEnd() const { return pos_ >= text_.size(); }
  char peek(size_t ahead = 0) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }

  Location locAt(size_t pos) const {
    auto it = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), pos);
    size_t line = it - lineStarts_.begin();
    return Location{fileId_, static_cast<int32_t>(line), static_cast<int32_t>(pos - lineStarts_[line - 1] + 1)};
  }
  Location here() const { return locAt(pos_); }

  [[noreturn]] void error(const std::string &msg) const { fail(here(), msg); }

  std::string describeNext() const {
    if (atEnd())
      return "end of input";
    size_t n = 1;
    while (isNameChar(peek(0)) && pos_ + n < text_.size() && isNameChar(text_[pos_ + n]) && n < 20)
      ++n;
    return fmt::format("'{}'", text_.substr(pos_, n));
  }

  // Whitespace and `//` comments.
  void skipSpace() {
    while (!atEnd()) {
      char c = peek();
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++pos_;
      } else if (c == '/' && peek(1) == '/') {
        while (!atEnd() && peek() != '\n')
          ++pos_;
      } else {
        return;
      }
    }
  }

  bool consume(char c) {
    skipSpace();
    if (peek() != c)
      return false;
    ++pos_;
    return true;
  }

  void expect(char c, const char *what) {
    if (!consume(c))
      error(fmt::format("expected '{}' {}, found {}", c, what, describeNext()));
  }

  // ident := [A-Za-z0-9_.]+
  std::string parseName(const char *what) {
    skipSpace();
    size_t start = pos_;
    while (!atEnd() && isNameChar(peek()))
      ++pos_;
    if (start == pos_)
      error(fmt::format("expected {}, found {}", what, describeNext()));
    return std::string(text_.substr(start, pos_ - start));
  }

  bool peekKeyword(std::string_view kw) {
    skipSpace();
    return text_.substr(pos_, kw.size()) == kw && !isNameChar(peek(kw.size()));
  }

  int64_t parseInt(const char *what) {
    skipSpace();
    size_t start = pos_;
    if (peek() == '-')
      ++pos_;
    while (std::isdigit((unsigned char)peek()))
      ++pos_;
    int64_t v = 0;
    auto res = std::from_chars(text_.data() + start, text_.data() + pos_, v);
    if (res.ec != std::errc() || res.ptr != text_.data() + pos_) {
      pos_ = start;
      error(fmt::format("expected {} (an integer), found {}", what, describeNext()));
    }
    return v;
  }

  // string := '"' (char | '\' escape)* '"'
  std::string parseString() {
    skipSpace();
    if (peek() != '"')
      error(fmt::format("expected a string, found {}", describeNext()));
    Location start = here();
    ++pos_;
    std::string out;
    while (true) {
      if (atEnd() || peek() == '\n')
        fail(start, "unterminated string");
      char c = text_[pos_++];
      if (c == '"')
        return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      out += parseEscape();
    }
  }

  char parseEscape() {
    char e = atEnd() ? '\0' : text_[pos_++];
    switch (e) {
    case 'n': return '\n';
    case 't': return '\t';
    case '"': return '"';
    case '\\': return '\\';
    case 'x': {
      int v = 0;
      for (int i = 0; i < 2; ++i) {
        char h = peek();
        if (!std::isxdigit((unsigned char)h))
          error("bad \\x escape in string");
        v = v * 16 + (std::isdigit((unsigned char)h) ? h - '0' : std::tolower(h) - 'a' + 10);
        ++pos_;
      }
      return static_cast<char>(v);
    }
    default:
      --pos_;
      error("unknown escape in string");
    }
  }

  // ----------------------------------------------------------------- types

  // scalar := i1 | i8 | ... | f64
  Scalar parseScalar() {
    Location loc = (skipSpace(), here());
    std::string n = parseName("an element type");
    auto s = parseScalarName(n);
    if (!s)
      fail(loc, fmt::format("unknown element type '{}'", n));
    return *s;
  }

  // elem := scalar | 'ptr' '<' scalar '>'
  ElemType parseElemType() {
    if (!peekKeyword("ptr"))
      return ElemType::of(parseScalar());
    pos_ += 3;
    expect('<', "after 'ptr'");
    Scalar s = parseScalar();
    expect('>', "to close 'ptr<'");
    return ElemType::ptrTo(s);
  }

  // type := elem | 'tensor' '<' (int 'x')+ elem '>'
  Type parseType() {
    if (!peekKeyword("tensor"))
      return Type::scalar(parseElemType());
    pos_ += 6;
    expect('<', "after 'tensor'");
    std::vector<int64_t> shape;
    int64_t elements = 1;
    skipSpace();
    while (std::isdigit((unsigned char)peek())) {
      Location loc = here();
      size_t start = pos_;
      while (std::isdigit((unsigned char)peek()))
        ++pos_;
      int64_t d = 0;
      auto res = std::from_chars(text_.data() + start, text_.data() + pos_, d);
      if (res.ec != std::errc() || d <= 0 || d > kMaxElements / elements)
        fail(loc, "tensor dimension out of range");
      elements *= d;
      shape.push_back(d);
      if (peek() != 'x')
        error("expected 'x' after a tensor dimension");
      ++pos_;
    }
    if (shape.empty())
      error("expected a tensor dimension");
    ElemType e = parseElemType();
    Type t = Type::tensor(e, std::move(shape));
    if (consume(','))
      t.layout = parseLayoutText();
    expect('>', "to close 'tensor<'");
    return t;
  }

  std::vector<Type> parseTypeList() {
    std::vector<Type> types{parseType()};
    while (consume(','))
      types.push_back(parseType());
    return types;
  }

  // ------------------------------------------------------------ attributes

  // number := int | float | 'inf' | 'nan' (with optional '-')
  Attr parseNumber() {
    size_t start = pos_;
    bool neg = peek() == '-';
    if (neg)
      ++pos_;
    if (peekKeyword("inf") || peekKeyword("nan")) {
      bool inf = peek() == 'i';
      pos_ += 3;
      double v = inf ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
      return neg ? -v : v;
    }
    bool isFloat = false;
    while (std::isdigit((unsigned char)peek()) || peek() == '.' || peek() == 'e' || peek() == 'E' ||
           ((peek() == '+' || peek() == '-') && (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E'))) {
      isFloat |= !std::isdigit((unsigned char)peek());
      ++pos_;
    }
    std::string tok(text_.substr(start, pos_ - start));
    if (isFloat) {
      double d = 0;
      auto res = std::from_chars(tok.data(), tok.data() + tok.size(), d);
      if (res.ec != std::errc() || res.ptr != tok.data() + tok.size())
        fail(locAt(start), fmt::format("bad float literal '{}'", tok));
      return d;
    }
    int64_t v = 0;
    auto res = std::from_chars(tok.data(), tok.data() + tok.size(), v);
    if (res.ec != std::errc() || res.ptr != tok.data() + tok.size())
      fail(locAt(start), fmt::format("bad integer literal '{}'", tok));
    return v;
  }

  // attr := number | 'true' | 'false' | string | '[' [int (',' int)*] ']'
  Attr parseAttrValue() {
    skipSpace();
    char c = peek();
    if (c == '"')
      return parseString();
    if (c == '[') {
      ++pos_;
      std::vector<int64_t> list;
      if (consume(']'))
        return list;
      do
        list.push_back(parseInt("a list element"));
      while (consume(','));
      expect(']', "to close the list");
      return list;
    }
    if (peekKeyword("true") || peekKeyword("false")) {
      bool b = peek() == 't';
      pos_ += b ? 4 : 5;
      return b;
    }
    if (c == '-' || std::isdigit((unsigned char)c) || peekKeyword("inf") || peekKeyword("nan"))
      return parseNumber();
    error(fmt::format("expected an attribute value, found {}", describeNext()));
  }

  // A '{' starts an attribute dictionary when `{ name =` follows.
  bool atAttrDict() {
    skipSpace();
    if (peek() != '{')
      return false;
    size_t p = pos_ + 1;
    while (p < text_.size() && std::isspace((unsigned char)text_[p]))
      ++p;
    size_t start = p;
    while (p < text_.size() && isNameChar(text_[p]))
      ++p;
    if (p == start)
      return false;
    while (p < text_.size() && (text_[p] == ' ' || text_[p] == '\t'))
      ++p;
    return p < text_.size() && text_[p] == '=';
  }

  // attrs := '{' name '=' attr (',' name '=' attr)* '}'
  void parseAttrDict(Op &op) {
    expect('{', "to open attributes");
    do {
      skipSpace();
      Location loc = here();
      std::string key = parseName("an attribute name");
      expect('=', "after the attribute name");
      Attr value = parseAttrValue();
      if (!op.attrs.emplace(key, std::move(value)).second)
        fail(loc, fmt::format("duplicate attribute '{}'", key));
    } while (consume(','));
    expect('}', "to close attributes");
  }

  // loc := 'loc' '(' string ':' int ':' int ')'
  bool parseOptionalLoc(Location &out) {
    if (!peekKeyword("loc"))
      return false;
    pos_ += 3;
    expect('(', "after 'loc'");
    std::string path = parseString();
    expect(':', "after the location's file");
    int64_t line = parseInt("a line number");
    expect(':', "after the line number");
    int64_t col = parseInt("a column number");
    expect(')', "to close 'loc('");
    if (line <= 0 || col < 0 || line > INT32_MAX || col > INT32_MAX)
      error("location out of range");
    out = Location{fileIdFor(path), static_cast<int32_t>(line), static_cast<int32_t>(col)};
    return true;
  }

  int fileIdFor(const std::string &path) {
    if (path == fileName_)
      return fileId_;
    auto it = fileIds_.find(path);
    if (it != fileIds_.end())
      return it->second;
    return fileIds_[path] = SourceManager::global().addName(path);
  }

  // ---------------------------------------------------------------- values

  // value := '%' name
  std::string parseValueName() {
    skipSpace();
    if (peek() != '%')
      error(fmt::format("expected a value (%name), found {}", describeNext()));
    ++pos_;
    if (!isNameChar(peek()))
      error("expected a value name after '%'");
    return parseName("a value name");
  }

  Value *lookup(const std::string &name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto found = it->find(name);
      if (found != it->end())
        return found->second;
    }
    return nullptr;
  }

  void define(const std::string &name, Value *v, Location loc) {
    if (lookup(name))
      fail(loc, fmt::format("redefinition of value %{}", name));
    scopes_.back()[name] = v;
  }

  Value *parseOperand() {
    skipSpace();
    Location loc = here();
    std::string name = parseValueName();
    Value *v = lookup(name);
    if (!v)
      fail(loc, fmt::format("use of undefined value %{}", name));
    return v;
  }

  // ------------------------------------------------------------- functions

  // divisibility := '{' 'divisibility' '=' int '}'   (a power of two)
  int64_t parseOptionalDivisibility() {
    skipSpace();
    if (peek() != '{')
      return 1;
    ++pos_;
    skipSpace();
    Location loc = here();
    if (!peekKeyword("divisibility"))
      error("expected 'divisibility' in a parameter's attributes");
    pos_ += 12;
    expect('=', "after 'divisibility'");
    skipSpace();
    loc = here();
    Attr a = parseAttrValue();
    auto *v = std::get_if<int64_t>(&a);
    if (!v || *v < 1 || (*v & (*v - 1)) != 0 || *v > (int64_t(1) << 30))
      fail(loc, "divisibility must be a power of two");
    expect('}', "to close the parameter's attributes");
    return *v;
  }

  // layout := '#' ... up to the '>' closing the tensor type; the text is
  // handed to the parser the GPU library installs (setLayoutParser)
  std::shared_ptr<const Layout> parseLayoutText() {
    skipSpace();
    Location loc = here();
    if (peek() != '#')
      error("expected a layout after ',' in a tensor type");
    size_t start = pos_;
    int depth = 0;
    while (!atEnd() && !(depth == 0 && peek() == '>')) {
      if (peek() == '<')
        ++depth;
      else if (peek() == '>')
        --depth;
      else if (peek() == '\n')
        break;
      ++pos_;
    }
    const auto &parser = layoutParser();
    if (!parser)
      fail(loc, "layouts in IR text need the GPU library's layout parser");
    auto layout = parser(std::string(text_.substr(start, pos_ - start)));
    if (!layout)
      fail(loc, "malformed layout");
    return layout;
  }

  // func := 'tile.func' '@' name '(' [value ':' type (',' ...)*] ')' [loc] '{' op* '}'
  std::unique_ptr<Function> parseFunction() {
    skipSpace();
    fnLoc_ = here();
    if (!peekKeyword("tile.func"))
      error(fmt::format("expected 'tile.func', found {}", describeNext()));
    pos_ += 9;
    expect('@', "before the function name");
    if (!isNameChar(peek()))
      error("expected a function name after '@'");
    auto fn = std::make_unique<Function>(parseName("a function name"), fnLoc_);
    scopes_.assign(1, {});
    expect('(', "to open the parameter list");
    if (!consume(')')) {
      do {
        skipSpace();
        Location loc = here();
        std::string name = parseValueName();
        expect(':', "after the parameter name");
        Value *arg = fn->entry().addArg(parseType());
        define(name, arg, loc);
        fn->paramNames.push_back(name);
        fn->paramDivisibility.push_back(parseOptionalDivisibility());
      } while (consume(','));
      expect(')', "to close the parameter list");
    }
    if (std::all_of(fn->paramDivisibility.begin(), fn->paramDivisibility.end(), [](int64_t d) { return d == 1; }))
      fn->paramDivisibility.clear();
    parseOptionalLoc(fn->loc);
    expect('{', "to open the function body");
    parseOps(fn->entry());
    expect('}', "to close the function body");
    scopes_.clear();
    return fn;
  }

  void parseOps(Block &b) {
    while (true) {
      skipSpace();
      if (atEnd() || peek() == '}')
        return;
      parseOp(b);
    }
  }

  // op := [value (',' value)* '='] opname [value (',' value)*] [attrs]
  //       [':' type (',' type)*] region* [loc]
  void parseOp(Block &b) {
    skipSpace();
    Location opLoc = here();
    std::vector<std::pair<std::string, Location>> resultNames;
    if (peek() == '%') {
      do {
        skipSpace();
        Location loc = here();
        resultNames.emplace_back(parseValueName(), loc);
      } while (consume(','));
      expect('=', "after the result names");
    }
    skipSpace();
    Location nameLoc = here();
    std::string name = parseName("an op name");
    OpKind kind;
    if (!parseOpName(name, kind))
      fail(nameLoc, fmt::format("unknown op '{}'", name));
    auto op = std::make_unique<Op>(kind, opLoc);
    op->parent = &b;
    // Operands start on the op's line: `yield` then a newline ends the op.
    while (peek() == ' ' || peek() == '\t')
      ++pos_;
    if (peek() == '%') {
      do
        op->operands.push_back(parseOperand());
      while (consume(','));
    }
    if (atAttrDict())
      parseAttrDict(*op);
    parseTypes(*op, resultNames.size());
    parseRegions(*op);
    parseOptionalLoc(op->loc);
    for (size_t i = 0; i < resultNames.size(); ++i)
      define(resultNames[i].first, op->result(i), resultNames[i].second);
    b.ops.push_back(std::move(op));
  }

  // Result types for ops with results; otherwise the operand types, which
  // must agree with the operands' definitions.
  void parseTypes(Op &op, size_t numResults) {
    skipSpace();
    Location loc = here();
    std::vector<Type> types;
    if (consume(':'))
      types = parseTypeList();
    if (numResults) {
      if (types.size() != numResults)
        fail(loc, fmt::format("op '{}' has {} results but {} result types", opName(op.kind), numResults,
                              types.size()));
      for (Type &t : types)
        op.addResult(std::move(t));
      return;
    }
    if (types.empty())
      return;
    if (types.size() != op.operands.size())
      fail(loc, fmt::format("op '{}' has {} operands but {} operand types", opName(op.kind), op.operands.size(),
                            types.size()));
    for (size_t i = 0; i < types.size(); ++i)
      if (types[i] != op.operands[i]->type)
        fail(loc, fmt::format("operand {} of '{}' has type {}, not {}", i, opName(op.kind),
                              op.operands[i]->type.str(), types[i].str()));
  }

  // regions := region ([keyword] region)*   (as many as the op kind has)
  void parseRegions(Op &op) {
    for (int i = 0; i < opNumRegions(op.kind); ++i) {
      skipSpace();
      if (i > 0 && std::isalpha((unsigned char)peek()))
        parseName("a region keyword");
      parseRegion(*op.addRegion());
    }
  }

  // region := '{' ['^' name '(' value ':' type (',' ...)* ')' ':'] op* '}'
  void parseRegion(Region &r) {
    if (++depth_ > kMaxNesting)
      error("regions nested too deeply");
    expect('{', "to open a region");
    scopes_.emplace_back();
    if (consume('^')) {
      parseName("a block label");
      expect('(', "after the block label");
      if (!consume(')')) {
        do {
          skipSpace();
          Location loc = here();
          std::string name = parseValueName();
          expect(':', "after the block argument name");
          define(name, r.block->addArg(parseType()), loc);
        } while (consume(','));
        expect(')', "to close the block arguments");
      }
      expect(':', "after the block arguments");
    }
    parseOps(*r.block);
    expect('}', "to close a region");
    scopes_.pop_back();
    --depth_;
  }
};

} // namespace

std::unique_ptr<Module> parseModule(std::string_view text, const std::string &fileName) {
  int id = SourceManager::global().addFile(fileName, std::string(text));
  return Parser(text, id, fileName).parseModule();
}

} // namespace tile::ir
