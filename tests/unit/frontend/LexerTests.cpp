// LexerTests.cpp - tokens of tricky inputs: layout, literals, operators.
#include "FrontendTestUtil.h"

using namespace tile;
using namespace tile::frontend;
using namespace tile::frontend::test;

TEST_CASE("lexer: dumpTokens format with line:col") {
  std::string dump = dumpTokens(lexString("def f(x):\n    return x += 1\n"));
  CHECK(dump == "1:1 KEYWORD def\n"
                "1:5 NAME f\n"
                "1:6 OP (\n"
                "1:7 NAME x\n"
                "1:8 OP )\n"
                "1:9 OP :\n"
                "1:10 NEWLINE\n"
                "2:5 INDENT\n"
                "2:5 KEYWORD return\n"
                "2:12 NAME x\n"
                "2:14 OP +=\n"
                "2:17 INT 1\n"
                "2:18 NEWLINE\n"
                "2:18 DEDENT\n"
                "2:18 EOF\n");
}

TEST_CASE("lexer: indentation, blank lines and comments") {
  std::string src = "if a:\n"
                    "\n"
                    "    # comment at another depth\n"
                    "        \n"
                    "    b\n"
                    "    if c:\n"
                    "            d\n"
                    "e  # trailing\n";
  CHECK(tokenSummary(src) == "KEYWORD if NAME a OP : NEWLINE INDENT NAME b NEWLINE "
                             "KEYWORD if NAME c OP : NEWLINE INDENT NAME d NEWLINE "
                             "DEDENT DEDENT NAME e NEWLINE EOF");
  // No trailing newline, file ends while indented.
  CHECK(tokenSummary("if a:\n  b") == "KEYWORD if NAME a OP : NEWLINE INDENT NAME b NEWLINE DEDENT EOF");
  CHECK(tokenSummary("") == "EOF");
  CHECK(tokenSummary("\n\n  # only a comment\n") == "EOF");
  CHECK(tokenSummary("x\r\ny\r\n") == "NAME x NEWLINE NAME y NEWLINE EOF");
}

TEST_CASE("lexer: tabs advance to multiples of 8") {
  // A tab and eight spaces are the same level, consistently in both counts?
  // No: "\t" is col 8 / altcol 1, "        " is col 8 / altcol 8 -> ambiguous.
  ErrorInfo e = lexError("if a:\n\tb\n        c\n");
  CHECK(e.msg == "inconsistent use of tabs and spaces in indentation");
  CHECK(e.line == 3);
  CHECK(e.col == 9);
  // Tabs used consistently are fine.
  CHECK(tokenSummary("if a:\n\tb\n\tif c:\n\t\td\n") ==
        "KEYWORD if NAME a OP : NEWLINE INDENT NAME b NEWLINE KEYWORD if NAME c OP : "
        "NEWLINE INDENT NAME d NEWLINE DEDENT DEDENT EOF");
  // "  \t" reaches column 8 like "\t" but differs with tabs counted as 1.
  CHECK(lexError("if a:\n\tb\n  \tc\n").msg ==
        "inconsistent use of tabs and spaces in indentation");
}

TEST_CASE("lexer: brackets join lines, backslash continues") {
  CHECK(tokenSummary("f(a,\n      b)\n") == "NAME f OP ( NAME a OP , NAME b OP ) NEWLINE EOF");
  CHECK(tokenSummary("x = [1,\n# c\n\n 2]\n") ==
        "NAME x OP = OP [ INT 1 OP , INT 2 OP ] NEWLINE EOF");
  CHECK(tokenSummary("x = 1 + \\\n    2\ny\n") ==
        "NAME x OP = INT 1 OP + INT 2 NEWLINE NAME y NEWLINE EOF");
  // Indentation after a bracketed continuation still works.
  CHECK(tokenSummary("if (a and\n b):\n  c\n") ==
        "KEYWORD if OP ( NAME a KEYWORD and NAME b OP ) OP : NEWLINE INDENT NAME c "
        "NEWLINE DEDENT EOF");
}

TEST_CASE("lexer: integer literals") {
  auto one = [](const std::string &s) {
    std::vector<Token> t = lexString(s);
    REQUIRE(t.size() == 3);
    REQUIRE(t[0].kind == TokenKind::Int);
    return t[0];
  };
  CHECK(one("0").intValue == 0);
  CHECK(one("00").intValue == 0);
  CHECK(one("1_000_000").intValue == 1000000);
  CHECK(one("0x1F").intValue == 31);
  CHECK(one("0X_ff").intValue == 255);
  CHECK(one("0o17").intValue == 15);
  CHECK(one("0b1010_1010").intValue == 170);
  CHECK(one("9223372036854775807").intValue == 9223372036854775807ull);
  CHECK_FALSE(one("9223372036854775807").isUnsigned64);
  Token big = one("9223372036854775808");
  CHECK(big.intValue == 9223372036854775808ull);
  CHECK(big.isUnsigned64);
  CHECK(one("18446744073709551615").intValue == 18446744073709551615ull);
  CHECK(one("0xFFFFFFFFFFFFFFFF").isUnsigned64);
  ErrorInfo e = lexError("x = 18446744073709551616\n");
  CHECK(e.msg == "integer literal too large");
  CHECK(e.line == 1);
  CHECK(e.col == 5);
  CHECK(lexError("0x1_0000_0000_0000_0000").msg == "integer literal too large");
  CHECK(lexError("007").msg.starts_with("leading zeros in decimal integer literals"));
  CHECK(lexError("1__0").msg == "invalid decimal literal");
  CHECK(lexError("1_").msg == "invalid decimal literal");
  CHECK(lexError("12abc").msg == "invalid decimal literal");
  CHECK(lexError("0x").msg == "invalid hexadecimal literal");
  ErrorInfo oct = lexError("y = 0o78");
  CHECK(oct.msg == "invalid digit '8' in octal literal");
  CHECK(oct.col == 8);
  CHECK(lexError("0b102").msg == "invalid digit '2' in binary literal");
  CHECK(lexError("3j").msg == "complex literals are not supported");
}

TEST_CASE("lexer: float literals") {
  auto one = [](const std::string &s) {
    std::vector<Token> t = lexString(s);
    REQUIRE(t.size() == 3);
    REQUIRE(t[0].kind == TokenKind::Float);
    return t[0].floatValue;
  };
  CHECK(one("1.") == 1.0);
  CHECK(one(".5") == 0.5);
  CHECK(one("1e-3") == 0.001);
  CHECK(one("1E+2") == 100.0);
  CHECK(one("1_000.5") == 1000.5);
  CHECK(one("2.5e1_0") == 2.5e10);
  CHECK(one("1.e2") == 100.0);
  CHECK(one("1e999") == std::numeric_limits<double>::infinity());
  CHECK(one("1e-999") == 0.0);
  // "1.x" is not a float followed by an attribute.
  CHECK(lexError("1.x").msg == "invalid decimal literal");
  // Attribute access on names is unaffected by the float rules.
  CHECK(tokenSummary("a.b .5") == "NAME a OP . NAME b FLOAT .5 NEWLINE EOF");
}

TEST_CASE("lexer: string literals") {
  CHECK(tokenSummary("'a' \"b\"") == "STRING \"a\" STRING \"b\" NEWLINE EOF");
  CHECK(tokenSummary(R"('\n\t\\\'\x41\101\u00e9\0')") ==
        "STRING \"\\n\\t\\\\'AA\xc3\xa9\\x00\" NEWLINE EOF");
  CHECK(tokenSummary(R"(r'\n\'' R"\d")") == R"(STRING "\\n\\'" STRING "\\d" NEWLINE EOF)");
  CHECK(tokenSummary("u'x'") == "STRING \"x\" NEWLINE EOF");
  CHECK(tokenSummary(R"('\q')") == R"(STRING "\\q" NEWLINE EOF)");
  std::vector<Token> t = lexString("x = '''a\n'b'\n\"\"c'''\ny");
  REQUIRE(t.size() == 7);
  CHECK(t[2].kind == TokenKind::String);
  CHECK(t[2].text == "a\n'b'\n\"\"c");
  CHECK(t[4].loc.line == 4); // line counting continues after the literal
  CHECK(t[4].text == "y");
  CHECK(tokenSummary("'a\\\nb'") == "STRING \"ab\" NEWLINE EOF");

  ErrorInfo e = lexError("x = 'abc\ny = 1\n");
  CHECK(e.msg == "unterminated string literal");
  CHECK(e.line == 1);
  CHECK(e.col == 5);
  ErrorInfo tri = lexError("x = 1\ns = r\"\"\"abc\n\n");
  CHECK(tri.msg == "unterminated triple-quoted string literal");
  CHECK(tri.line == 2);
  CHECK(tri.col == 5);
  // an f-string is the tokens of a __fstr__ call, its fields lexed in place
  CHECK(tokenSummary("f'a{x + 1!r:>4}b{{'") ==
        "NAME __fstr__ OP ( STRING \"a\" OP , OP ( NAME x OP + INT 1 OP ) OP , STRING \"r\" OP , "
        "STRING \">4\" OP , STRING \"b{\" OP ) NEWLINE EOF");
  CHECK(tokenSummary("rF'\\{y[0]}'") ==
        "NAME __fstr__ OP ( STRING \"\\\\\" OP , OP ( NAME y OP [ INT 0 OP ] OP ) OP , STRING \"\" OP , "
        "STRING \"\" OP , STRING \"\" OP ) NEWLINE EOF");
  ErrorInfo f = lexError("x = f'{y'");
  CHECK(f.msg == "f-string: expected '}'");
  CHECK(f.col == 7);
  CHECK(lexError("x = f'ab").msg == "unterminated f-string");
  CHECK(lexError("x = b'y'").msg == "bytes literals are not supported");
  CHECK(lexError(R"('\x4')").msg == R"(truncated \xXX escape)");
  CHECK(lexError(R"('\N{DASH}')").msg == R"('\N{...}' escapes are not supported)");
}

TEST_CASE("lexer: operators use the longest match") {
  CHECK(tokenSummary("a**=b//=c>>=d<<=e") ==
        "NAME a OP **= NAME b OP //= NAME c OP >>= NAME d OP <<= NAME e NEWLINE EOF");
  CHECK(tokenSummary("a ** b // c @ d << e >> f -> g != h") ==
        "NAME a OP ** NAME b OP // NAME c OP @ NAME d OP << NAME e OP >> NAME f "
        "OP -> NAME g OP != NAME h NEWLINE EOF");
  CHECK(tokenSummary("+= -= *= /= %= @= &= |= ^=") ==
        "OP += OP -= OP *= OP /= OP %= OP @= OP &= OP |= OP ^= NEWLINE EOF");
  CHECK(tokenSummary("x[...,1:2]") ==
        "NAME x OP [ OP ... OP , INT 1 OP : INT 2 OP ] NEWLINE EOF");
  CHECK(tokenSummary("a<=b>=c==d<e>f~g") ==
        "NAME a OP <= NAME b OP >= NAME c OP == NAME d OP < NAME e OP > NAME f OP ~ "
        "NAME g NEWLINE EOF");
  ErrorInfo w = lexError("if (n := 3):");
  CHECK(w.msg == "the ':=' operator is not supported");
  CHECK(w.col == 7);
}

TEST_CASE("lexer: keywords") {
  CHECK(tokenSummary("not in is None True False lambda") ==
        "KEYWORD not KEYWORD in KEYWORD is KEYWORD None KEYWORD True KEYWORD False "
        "KEYWORD lambda NEWLINE EOF");
  CHECK(tokenSummary("match case type _ none") ==
        "NAME match NAME case NAME type NAME _ NAME none NEWLINE EOF");
  ErrorInfo e = lexError("x = 1\nclass Foo:\n");
  CHECK(e.msg == "'class' is not supported in tile files");
  CHECK(e.line == 2);
  CHECK(e.col == 1);
  CHECK(lexError("  del x").msg == "'del' is not supported in tile files");
  CHECK(lexError("yield 3").msg == "'yield' is not supported in tile files");
}

TEST_CASE("lexer: invalid characters and brackets") {
  ErrorInfo d = lexError("x = a $ b");
  CHECK(d.msg == "invalid character '$'");
  CHECK(d.col == 7);
  CHECK(lexError("a ? b").msg == "invalid character '?'");
  CHECK(lexError("a ! b").msg == "invalid character '!'");
  CHECK(lexError("x = \x01").msg == "invalid non-printable character U+0001");
  CHECK(lexError("x = \xe2\x82\xac").msg == "invalid character '\xe2\x82\xac' (U+20AC)");
  CHECK(lexError("x = \xff").msg == "invalid byte 0xff (the file is not valid UTF-8)");
  CHECK(lexError("x = 1\ry").msg == "invalid non-printable character U+000D");
  // Non-ASCII text is fine inside strings and comments.
  CHECK(tokenSummary("'\xe2\x82\xac' # \xff") == "STRING \"\xe2\x82\xac\" NEWLINE EOF");

  ErrorInfo open = lexError("x = foo(1,\n        [2, 3],\n");
  CHECK(open.msg == "'(' was never closed");
  CHECK(open.line == 1);
  CHECK(open.col == 8);
  ErrorInfo close = lexError("x = 1)\n");
  CHECK(close.msg == "unmatched ')'");
  CHECK(close.col == 6);
  ErrorInfo mismatch = lexError("x = (1,\n 2]");
  CHECK(mismatch.msg == "closing ']' does not match opening '(' on line 1");
  CHECK(mismatch.line == 2);
  CHECK(mismatch.col == 3);
  CHECK(lexError("x = {1)").msg == "closing ')' does not match opening '{'");
  ErrorInfo bs = lexError("x = 1 \\ y");
  CHECK(bs.msg == "unexpected character after line continuation character");
  CHECK(bs.col == 7);
  CHECK(lexError("x = 1 \\").msg == "unexpected end of file after line continuation character");
}

TEST_CASE("lexer: indentation errors") {
  ErrorInfo e = lexError("if a:\n    b\n  c\n");
  CHECK(e.msg == "unindent does not match any outer indentation level");
  CHECK(e.line == 3);
  CHECK(e.col == 3);
}

TEST_CASE("lexer: nesting limits") {
  CHECK_NOTHROW(lexString(std::string(256, '(') + std::string(256, ')')));
  ErrorInfo e = lexError(std::string(257, '[') + std::string(257, ']'));
  CHECK(e.msg == "nesting too deep");
  CHECK(e.col == 257);
  std::string deep;
  for (int i = 0; i < 300; ++i)
    deep += std::string(i, ' ') + "if x:\n";
  ErrorInfo ind = lexError(deep);
  CHECK(ind.msg == "nesting too deep");
  CHECK(ind.line == 258);
}

TEST_CASE("lexer: very long lines and large inputs") {
  std::string line = "x = 0";
  for (int i = 0; i < 50000; ++i)
    line += " | 1";
  std::vector<Token> t = lexString(line + "\n");
  CHECK(t.size() == 3 + 2 * 50000 + 2);
  CHECK(t[t.size() - 3].loc.col == static_cast<int>(line.size()));
  std::string many;
  for (int i = 0; i < 20000; ++i)
    many += "a = b\n";
  CHECK(lexString(many).size() == 4 * 20000 + 1);
}
