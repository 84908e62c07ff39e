// PrinterParserTest.cpp - the IR text form: exact printed syntax, parse/print
// round trips, and parse errors on malformed text.
#include "TestIR.h"
#include "ir/Verifier.h"

#include <doctest/doctest.h>

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace tile;
using namespace tile::ir;
using namespace tile::ir::test;

TEST_CASE("printer: exact text of a small function") {
  Function fn("k", {});
  Value *p = fn.entry().addArg(Type::scalar(ElemType::ptrTo(Scalar::F16)));
  Value *n = fn.entry().addArg(Type::scalar(Scalar::I32));
  fn.paramNames = {"p", "p"};   // duplicate names get uniqued
  Builder b(&fn.entry());
  Value *r = b.arange(0, 8);
  Value *ptrs = b.addptr(b.splat(p, {8}), r);
  Value *m = b.cmp("lt", r, b.splat(n, {8}));
  b.store(ptrs, b.load(ptrs, m), m);
  CHECK(str(fn) == "tile.func @k(%p: ptr<f16>, %p_1: i32) {\n"
                   "  %0 = arange {end = 8, start = 0} : tensor<8xi32>\n"
                   "  %1 = splat %p : tensor<8xptr<f16>>\n"
                   "  %2 = addptr %1, %0 : tensor<8xptr<f16>>\n"
                   "  %3 = splat %p_1 : tensor<8xi32>\n"
                   "  %4 = cmp %0, %3 {pred = \"lt\"} : tensor<8xi1>\n"
                   "  %5 = load %2, %4 : tensor<8xf16>\n"
                   "  store %2, %5, %4 : tensor<8xptr<f16>>, tensor<8xf16>, tensor<8xi1>\n"
                   "}\n");
}

TEST_CASE("printer: attribute values") {
  CHECK(printAttr(Attr{int64_t(-5)}) == "-5");
  CHECK(printAttr(Attr{16.0}) == "16.0");
  CHECK(printAttr(Attr{0.1}) == "0.1");
  CHECK(printAttr(Attr{-0.0}) == "-0.0");
  CHECK(printAttr(Attr{1e300}) == "1e+300");
  CHECK(printAttr(Attr{std::numeric_limits<double>::infinity()}) == "inf");
  CHECK(printAttr(Attr{std::string("a\"b\\\n\x01")}) == "\"a\\\"b\\\\\\n\\x01\"");
  CHECK(printAttr(Attr{std::vector<int64_t>{1, 0}}) == "[1, 0]");
  CHECK(printAttr(Attr{true}) == "true");
  CHECK(printType(Type::tensor(ElemType::ptrTo(Scalar::BF16), {2, 4})) == "tensor<2x4xptr<bf16>>");
}

TEST_CASE("round trip: every op kind, nested regions") {
  auto fn = buildEveryOpFunction();
  verify(*fn);
  std::string text = str(*fn);
  for (int k = 0; k <= static_cast<int>(OpKind::Assert); ++k) {
    std::string name = opName(static_cast<OpKind>(k));
    bool found = text.find(" " + name + " ") != std::string::npos || text.find(" " + name + "\n") != std::string::npos;
    CHECK_MESSAGE(found, "op not printed: " << name);
  }
  Function &back = parseFunction(text);
  verify(back);
  CHECK(str(back) == text);
  CHECK(back.paramNames == std::vector<std::string>{"ptr", "n", "x"});
}

TEST_CASE("round trip: locations survive") {
  int file = SourceManager::global().addName("lesson \"2\".tile");
  auto fn = buildEveryOpFunction(Location{file, 9, 13});
  std::string text = print(*fn);
  CHECK(text.find("loc(\"lesson \\\"2\\\".tile\":9:13)") != std::string::npos);
  Function &back = parseFunction(text);
  CHECK(print(back) == text);
  CHECK(SourceManager::global().path(back.entry().ops.front()->loc.file) == "lesson \"2\".tile");
}

TEST_CASE("round trip: float constants are exact") {
  for (double d : {0.1, -0.0, 1.0 / 3.0, 1e-310, 6.02214076e23, std::numeric_limits<double>::max(),
                   -std::numeric_limits<double>::infinity()}) {
    Function fn("c", {});
    Builder b(&fn.entry());
    b.constantFloat(d, Type::scalar(Scalar::F64));
    Function &back = parseFunction(str(fn));
    double got = back.entry().ops.front()->floatAttr("value");
    CHECK(std::memcmp(&got, &d, sizeof d) == 0);
  }
  Function fn("c", {});
  Builder b(&fn.entry());
  b.constantFloat(std::nan(""), Type::scalar(Scalar::F32));
  CHECK(std::isnan(parseFunction(str(fn)).entry().ops.front()->floatAttr("value")));
}

TEST_CASE("parser: unlocated ops get their position in the text") {
  Function &fn = parseFunction("tile.func @f() {\n  %a = constant {value = 1} : i32\n}\n");
  Location loc = fn.entry().ops.front()->loc;
  CHECK(loc.line == 2);
  CHECK(loc.col == 3);
  CHECK(SourceManager::global().path(loc.file) == "test.tir");
}

namespace {
std::string parseError(const std::string &text) {
  try {
    parseModule(text, "bad.tir");
  } catch (const CompileError &e) {
    return fmt::format("{}:{}: {}", e.loc.line, e.loc.col, e.msg);
  }
  return "no error";
}
} // namespace

TEST_CASE("parser: errors are located") {
  CHECK(parseError("tile.func @f() {\n  %0 = add %1, %1 : i32\n}") == "2:12: use of undefined value %1");
  CHECK(parseError("tile.func @f() {\n  %0 = frob : i32\n}") == "2:8: unknown op 'frob'");
  CHECK(parseError("tile.func @f() {\n  %0 = constant {value = 1} : i33\n}") == "2:31: unknown element type 'i33'");
  CHECK(parseError("tile.func @f() {\n  %0 = constant {value = 1} : i32\n  %0 = constant {value = 1} : i32\n}") ==
        "3:3: redefinition of value %0");
  CHECK(parseError("tile.func @f(%a: i32) {\n  %0 = add %a, %a : i32, i32\n}") ==
        "2:19: op 'add' has 1 results but 2 result types");
  CHECK(parseError("tile.func @f(%a: i32) {\n  yield %a : f32\n}").find("operand 0 of 'yield' has type i32") !=
        std::string::npos);
  CHECK(parseError("tile.func @f() {\n  %0 = constant {value = \"x} : i32\n}") == "2:26: unterminated string");
  CHECK(parseError("tile.func @f() {") == "1:17: expected '}' to close the function body, found end of input");
  CHECK(parseError("tile.func @f() {}\ntile.func @f() {}") == "2:1: redefinition of function @f");
  CHECK(parseError("tile.func @f() {\n  %0 = constant {value = 99999999999999999999} : i64\n}") ==
        "2:26: bad integer literal '99999999999999999999'");
  // A value defined in a region is not visible after it.
  CHECK(parseError("tile.func @f(%c: i1) {\n  if %c {\n    %0 = constant {value = 1} : i32\n    yield\n  } else {\n"
                   "    yield\n  }\n  %1 = add %0, %0 : i32\n}") == "8:12: use of undefined value %0");
}

TEST_CASE("parser: garbage never crashes") {
  auto fn = buildEveryOpFunction();
  std::string text = str(*fn);
  std::mt19937 rng(1234);
  const std::string junk = "%{}()<>:,=\"^x0-9. \n@tile.func";
  int parsed = 0, failed = 0;
  for (int i = 0; i < 400; ++i) {
    std::string t = text;
    if (i % 2 == 0)
      t.resize(rng() % t.size());
    for (int j = 0; j < 1 + i % 3; ++j)
      t[rng() % t.size()] = junk[rng() % junk.size()];
    try {
      auto m = parseModule(t, "fuzz.tir");
      ++parsed;
      try {
        verify(*m);
      } catch (const CompileError &) {
      }
    } catch (const CompileError &) {
      ++failed;
    }
  }
  CHECK(failed > 0);
  CHECK(parsed + failed == 400);
}

TEST_CASE("parser: deep nesting is an error, not a stack overflow") {
  std::string t = "tile.func @f(%c: i1) {\n";
  for (int i = 0; i < 1000; ++i)
    t += "if %c {\n";
  CHECK(parseError(t).find("nested too deeply") != std::string::npos);
}
