// ErrorTests.cpp - malformed inputs give located, actionable CompileErrors.
#include "FrontendTestUtil.h"

using namespace tile;
using namespace tile::frontend;
using namespace tile::frontend::test;

namespace {

struct Case {
  const char *src;
  int line, col;
  const char *msg;
};

void checkCases(const std::vector<Case> &cases) {
  for (const Case &c : cases) {
    std::string src = c.src;
    CAPTURE(src);
    ErrorInfo e = parseError(c.src);
    CAPTURE(e.col);
    CHECK(e.msg == c.msg);
    CHECK(e.line == c.line);
    CHECK(e.col == c.col);
  }
}

} // namespace

TEST_CASE("errors: statement syntax") {
  checkCases({
      {"if x\n    pass\n", 1, 5, "expected ':' after 'if' condition, found end of line"},
      {"if x == 1 return\n", 1, 11, "expected ':' after 'if' condition, found 'return'"},
      {"if a:\n  pass\nelif b\n  pass\n", 3, 7,
       "expected ':' after 'elif' condition, found end of line"},
      {"if a:\n  pass\nelse\n  pass\n", 3, 5, "expected ':' after 'else', found end of line"},
      {"while x\n", 1, 8, "expected ':' after 'while' condition, found end of line"},
      {"for i range(3):\n", 1, 7, "expected 'in' after 'for' loop variable, found name 'range'"},
      {"for i in x\n", 1, 11, "expected ':' after 'for' iterable, found end of line"},
      {"def f(x)\n  pass\n", 1, 9, "expected ':' after function signature, found end of line"},
      {"def (x):\n", 1, 5, "expected a function name after 'def', found '('"},
      {"def f x:\n", 1, 7, "expected '(' after function name, found name 'x'"},
      {"def f(x y):\n", 1, 9, "expected ',' or ')' in parameter list, found name 'y'"},
      {"def f(1):\n", 1, 7, "expected a parameter name, found integer literal '1'"},
      {"def f(x, x):\n  pass\n", 1, 10, "duplicate parameter 'x'"},
      {"def f(x=1, y):\n  pass\n", 1, 12,
       "parameter without a default follows a parameter with a default"},
      {"def f(*args):\n", 1, 7, "'*' parameters are not supported"},
      {"def f(**kw):\n", 1, 7, "'**' parameters are not supported"},
      {"@triton.jit\nx = 1\n", 2, 1, "expected 'def' after decorator, found name 'x'"},
      {"if x:\npass\n", 2, 1, "expected an indented block after 'if' statement on line 1"},
      {"def f():\n\n# c\nreturn 1\n", 4, 1,
       "expected an indented block after function definition on line 1"},
      {"for i in x:\n", 1, 12, "expected an indented block after 'for' statement on line 1"},
      {"x = 1\n    y = 2\n", 2, 5, "unexpected indent"},
      {"  x = 1\n", 1, 3, "unexpected indent"},
      {"else:\n  pass\n", 1, 1, "'else' does not follow an 'if' block at the same indentation"},
      {"x = 1 2\n", 1, 7, "expected end of statement, found integer literal '2'"},
      {"x = 1; if y: pass\n", 1, 8, "'if' statement must start on its own line"},
      {"if a: for b in c: pass\n", 1, 7, "'for' statement must start on its own line"},
      {"break\n", 1, 1, "'break' outside loop"},
      {"while x:\n  def f():\n    continue\n", 3, 5, "'continue' not properly in loop"},
      {"return 1\n", 1, 1, "'return' outside function"},
      {"for i in x:\n  pass\nelse:\n  pass\n", 3, 1,
       "'else' after a 'for' loop is not supported"},
      {"import\n", 1, 7, "expected a module name, found end of line"},
      {"from . import x\n", 1, 6, "relative imports are not supported"},
      {"from a import *\n", 1, 15, "'import *' is not supported"},
      {"from a x\n", 1, 8, "expected 'import' after module name, found name 'x'"},
      {"global 1\n", 1, 8, "expected a name after 'global', found integer literal '1'"},
  });
}

TEST_CASE("errors: assignment targets") {
  checkCases({
      {"f(x) = 1\n", 1, 1, "cannot assign to function call"},
      {"1 = x\n", 1, 1, "cannot assign to literal"},
      {"a + b = c\n", 1, 3, "cannot assign to expression"},
      {"a, f() = 1, 2\n", 1, 4, "cannot assign to function call"},
      {"x = None = 1\n", 1, 5, "cannot assign to None"},
      {"[a, b] = c\n", 1, 1, "cannot assign to list display (use a tuple)"},
      {"a, b += 1\n", 1, 1, "cannot use augmented assignment on tuple"},
      {"f() += 1\n", 1, 1, "cannot use augmented assignment on function call"},
      {"a, b: int = 1\n", 1, 1, "only a single target (not a tuple) can be annotated"},
      {"for f() in x:\n  pass\n", 1, 5, "cannot assign to function call"},
  });
}

TEST_CASE("errors: expressions") {
  checkCases({
      {"x = \n", 1, 4, "expected an expression, found end of line"},
      {"x = 1 +\n", 1, 8, "expected an expression, found end of line"},
      {"x = (1 + )\n", 1, 10, "expected an expression, found ')'"},
      {"x = a if b\n", 1, 11, "expected 'else' in conditional expression, found end of line"},
      {"f(a b)\n", 1, 5, "expected ',' or ')' in call arguments, found name 'b'"},
      {"f(a=1, b)\n", 1, 8, "positional argument follows keyword argument"},
      {"f(a=1, a=2)\n", 1, 8, "keyword argument repeated: 'a'"},
      {"f(a.b=1)\n", 1, 3, "a keyword argument name must be a plain name"},
      {"f(*args)\n", 1, 3, "argument unpacking with '*' is not supported"},
      {"f(**kw)\n", 1, 3, "keyword argument unpacking with '**' is not supported"},
      {"f(x for x in y, 1)\n", 1, 3, "a generator expression must be parenthesized unless it is the only argument"},
      {"f(1, x for x in y)\n", 1, 6, "a generator expression must be parenthesized unless it is the only argument"},
      {"x = [i, j for i in y]\n", 1, 11, "a comprehension takes one element expression before 'for'"},
      {"x = [i for i y]\n", 1, 14, "expected 'in' after the comprehension's loop variable, found name 'y'"},
      {"x = [i for f() in y]\n", 1, 12, "cannot assign to function call"},
      {"x = (i for i in y z)\n", 1, 19, "expected ')' after a generator expression, found name 'z'"},
      {"x = {a, b}\n", 1, 5, "set literals are not supported"},
      {"x = {1: 2, a: b for a in c}\n", 1, 17, "a comprehension takes one 'key: value' before 'for'"},
      {"x = {**a}\n", 1, 6, "dict unpacking with '**' is not supported"},
      {"x = *a, b\n", 1, 5, "starred expressions are not supported"},
      {"x[]\n", 1, 3, "expected an index expression, found ']'"},
      {"x[1 2]\n", 1, 5, "expected ',' or ']' in subscript, found integer literal '2'"},
      {"x.1\n", 1, 2, "expected end of statement, found float literal '.1'"},
      {"x.if\n", 1, 3, "expected an attribute name after '.', found 'if'"},
      {"x = (a b)\n", 1, 8, "expected ')' after expression, found name 'b'"},
      {"x = lambda a=1: a\n", 1, 13, "lambda parameter defaults are not supported"},
      {"x = lambda *a: a\n", 1, 12, "variadic lambda parameters are not supported"},
      {"x = a not b\n", 1, 7, "expected end of statement, found 'not'"},
      {"x = a == not b\n", 1, 10, "expected an expression, found 'not'"},
  });
}

TEST_CASE("errors: lexical errors through the parser") {
  checkCases({
      {"x = 'abc\n", 1, 5, "unterminated string literal"},
      {"x = \"\"\"abc\n\n", 1, 5, "unterminated triple-quoted string literal"},
      {"a = 1\nb = $\n", 2, 5, "invalid character '$'"},
      {"if a:\n    b\n  c\n", 3, 3, "unindent does not match any outer indentation level"},
      {"x = foo(1,\n  2\ny = 3\n", 1, 8, "'(' was never closed"},
      {"x = [1, (2, 3]\n", 1, 14, "closing ']' does not match opening '('"},
      {"x = 1)\n", 1, 6, "unmatched ')'"},
      {"x = f'ab\n", 1, 5, "unterminated f-string"},
      {"x = f'{y'\n", 1, 7, "f-string: expected '}'"},
      {"x = f'a}'\n", 1, 8, "f-string: a single '}' is not allowed (write '}}')"},
      {"x = f'{}'\n", 1, 7, "f-string: empty expression not allowed"},
      {"x = f'{y!q}'\n", 1, 10, "f-string: expected 'r', 's' or 'a' after '!'"},
      {"x = f'{y=}'\n", 1, 9, "f-string: '=' (self-documenting expressions) is not supported"},
      {"raise E from e\n", 1, 9, "'raise ... from ...' is not supported"},
      {"with a, b:\n  pass\n", 1, 7, "'with' takes one context manager here; nest the statements"},
      {"with a as f():\n  pass\n", 1, 11, "cannot assign to function call"},
      {"class A:\n  pass\n", 1, 1, "'class' is not supported in tile files"},
      {"x = 99999999999999999999\n", 1, 5, "integer literal too large"},
      {"if (x := 1): pass\n", 1, 7, "the ':=' operator is not supported"},
  });
  // The first error in the file wins: a syntax error before a lexical one.
  ErrorInfo e = parseError("x = = 1\ny = $\n");
  CHECK(e.msg == "expected an expression, found '='");
  CHECK(e.line == 1);
  CHECK(e.col == 5);
  e = parseError("x = = 1\ny = f(\n");
  CHECK(e.msg == "expected an expression, found '='");
  // The innermost unclosed bracket is reported, even if tokens follow it.
  e = parseError("def f(x, y=[1, 2:\n    pass\n");
  CHECK(e.msg == "'[' was never closed");
  CHECK(e.line == 1);
  CHECK(e.col == 12);
}

TEST_CASE("errors: nesting too deep, never a stack overflow") {
  auto deep = [](const std::string &src) {
    ErrorInfo e = parseError(src);
    CHECK(e.msg == "nesting too deep");
    return e;
  };
  ErrorInfo parens = deep("x = " + std::string(300, '(') + "1" + std::string(300, ')') + "\n");
  CHECK(parens.line == 1);
  CHECK(parens.col == 4 + 257);
  std::string notChain = "x = ";
  for (int i = 0; i < 5000; ++i)
    notChain += "not ";
  deep(notChain + "y\n");
  deep("x = " + std::string(5000, '-') + "y\n");
  std::string pow = "x = 2";
  for (int i = 0; i < 5000; ++i)
    pow += " ** 2";
  deep(pow + "\n");
  std::string sum = "x = 1";
  for (int i = 0; i < 5000; ++i)
    sum += " + 1";
  deep(sum + "\n");
  std::string attrs = "x = a";
  for (int i = 0; i < 5000; ++i)
    attrs += ".b(c)[d]";
  deep(attrs + "\n");
  std::string lambdas = "x = ";
  for (int i = 0; i < 5000; ++i)
    lambdas += "lambda: ";
  deep(lambdas + "0\n");
  std::string ifexp = "x = 0";
  for (int i = 0; i < 5000; ++i)
    ifexp += " if c else 0";
  deep(ifexp + "\n");
  std::string elifs = "if a:\n  pass\n";
  for (int i = 0; i < 5000; ++i)
    elifs += "elif a:\n  pass\n";
  deep(elifs);
  // Brackets interleaved with other constructs hit the same bound.
  std::string mixed = "x = ";
  for (int i = 0; i < 200; ++i)
    mixed += "[-f(";
  deep(mixed + "1" + "\n");
  // Long flat constructs are not nesting.
  std::string boolChain = "x = a";
  for (int i = 0; i < 5000; ++i)
    boolChain += " and a < b";
  CHECK_NOTHROW(parseString("<test>", boolChain + "\n"));
}
