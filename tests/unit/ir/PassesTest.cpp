// PassesTest.cpp - constant-fold, canonicalize, cse, dce and the pass
// manager, each on small IR texts with hand-computed expected results.
#include "TestIR.h"
#include "ir/Verifier.h"
#include "transforms/PassManager.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <fstream>

using namespace tile;
using namespace tile::ir;
using namespace tile::ir::test;
using tile::transforms::PassManager;

namespace {

const char *kHeader = "tile.func @f(%p: ptr<f32>, %n: i32, %x: f32, %c: i1) {\n";

std::string fnText(const std::string &body) { return std::string(kHeader) + body + "}\n"; }

/// Runs the comma-separated passes (verifying after each) on fnText(body).
std::string run(const std::string &passes, const std::string &body) {
  Function &fn = parseFunction(fnText(body));
  PassManager pm;
  for (const auto &name : {passes})
    for (size_t start = 0; start <= name.size();) {
      size_t comma = std::min(name.find(',', start), name.size());
      REQUIRE(pm.add(name.substr(start, comma - start)));
      start = comma + 1;
    }
  pm.run(fn);
  return str(fn);
}

/// Folds `%r = OP a, b : T` (or unary/cast with one operand) and returns the
/// printed value of the constant that replaced it, or "not folded".
std::string fold(const std::string &op, const std::string &type, std::vector<std::string> vals,
                 const std::string &resultType = "", const std::string &attrs = "") {
  std::string body;
  std::vector<std::string> names;
  for (size_t i = 0; i < vals.size(); ++i) {
    body += fmt::format("  %a{} = constant {{value = {}}} : {}\n", i, vals[i], type);
    names.push_back(fmt::format("%a{}", i));
  }
  std::string rt = resultType.empty() ? type : resultType;
  body += fmt::format("  %r = {} {}{} : {}\n  print %r : {}\n", op, fmt::join(names, ", "), attrs, rt, rt);
  Function &fn = parseFunction(fnText(body));
  PassManager pm;
  pm.add("constant-fold");
  pm.run(fn);
  const Op &print = *fn.entry().ops.back();
  const Op *def = print.operands[0]->def;
  if (def->kind != OpKind::Constant)
    return "not folded";
  return printAttr(def->attrs.at("value"));
}

std::string f32Str(float f) { return printAttr(Attr{static_cast<double>(f)}); }

} // namespace

TEST_CASE("constant-fold: integers wrap and follow signedness") {
  CHECK(fold("add", "i8", {"100", "100"}) == "-56");
  CHECK(fold("add", "u8", {"200", "100"}) == "44");
  CHECK(fold("sub", "u32", {"0", "1"}) == "4294967295");
  CHECK(fold("mul", "i64", {"4611686018427387904", "4"}) == "0");
  CHECK(fold("div", "i32", {"-7", "2"}) == "-3");
  CHECK(fold("rem", "i32", {"-7", "2"}) == "-1");
  CHECK(fold("div", "u32", {"-2", "2"}) == "2147483647");   // -2 wraps to 4294967294
  CHECK(fold("div", "i32", {"7", "0"}) == "not folded");
  CHECK(fold("rem", "i32", {"7", "0"}) == "not folded");
  CHECK(fold("div", "i32", {"-2147483648", "-1"}) == "not folded");
  CHECK(fold("shr", "i32", {"-16", "2"}) == "-4");
  CHECK(fold("shr", "u32", {"-16", "2"}) == "1073741820");
  CHECK(fold("shr", "i32", {"-16", "40"}) == "-1");
  CHECK(fold("shl", "i32", {"1", "32"}) == "0");
  CHECK(fold("shl", "i32", {"1", "-1"}) == "not folded");
  CHECK(fold("min", "i32", {"-1", "1"}) == "-1");
  CHECK(fold("min", "u32", {"-1", "1"}) == "1");
  CHECK(fold("xor", "i1", {"1", "1"}) == "0");
  CHECK(fold("not", "i1", {"1"}) == "0");
  CHECK(fold("not", "u8", {"5"}) == "250");
  CHECK(fold("neg", "i32", {"-2147483648"}) == "-2147483648");
  CHECK(fold("abs", "i8", {"-128"}) == "-128");
  CHECK(fold("cmp", "i32", {"-1", "1"}, "i1", " {pred = \"lt\"}") == "1");
  CHECK(fold("cmp", "u32", {"-1", "1"}, "i1", " {pred = \"lt\"}") == "0");
}

TEST_CASE("constant-fold: floats round to their type") {
  CHECK(fold("add", "f32", {"0.1", "0.2"}) == f32Str(0.1f + 0.2f));
  CHECK(fold("add", "f64", {"0.1", "0.2"}) == printAttr(Attr{0.1 + 0.2}));
  CHECK(fold("add", "f16", {"1.0", "0.000244140625"}) == "1.0");       // 1 + 2^-12 rounds to 1 in f16
  CHECK(fold("add", "f16", {"1.0", "0.0009765625"}) == "1.0009765625"); // 1 + 2^-10 is exact
  CHECK(fold("mul", "bf16", {"1.0078125", "1.0078125"}) == "1.015625");
  CHECK(fold("div", "f32", {"1.0", "3.0"}) == f32Str(1.0f / 3.0f));
  CHECK(fold("div", "f32", {"1.0", "0.0"}) == "not folded");
  CHECK(fold("rem", "f32", {"-7.5", "2.0"}) == "-1.5");
  CHECK(fold("min", "f32", {"nan", "1.0"}) == "nan");
  CHECK(fold("max", "f32", {"-0.0", "0.0"}) == "0.0");
  CHECK(fold("min", "f32", {"0.0", "-0.0"}) == "-0.0");
  CHECK(fold("sqrt", "f32", {"2.0"}) == f32Str(std::sqrt(2.0f)));
  CHECK(fold("floor", "f32", {"-1.5"}) == "-2.0");
  CHECK(fold("exp", "f32", {"1.0"}) == "not folded");
  CHECK(fold("fma", "f32", {"0.1", "10.0", "-1.0"}) == f32Str(std::fmaf(0.1f, 10.0f, -1.0f)));
  CHECK(fold("cmp", "f32", {"nan", "nan"}, "i1", " {pred = \"ne\"}") == "1");
  CHECK(fold("cmp", "f32", {"nan", "nan"}, "i1", " {pred = \"eq\"}") == "0");
}

TEST_CASE("constant-fold: casts") {
  CHECK(fold("cast", "f32", {"3.7"}, "i32") == "3");
  CHECK(fold("cast", "f32", {"-3.7"}, "i32") == "-3");
  CHECK(fold("cast", "f32", {"1e10"}, "i32") == "2147483647");
  CHECK(fold("cast", "f32", {"-1e10"}, "u8") == "0");
  CHECK(fold("cast", "f32", {"nan"}, "i32") == "0");
  CHECK(fold("cast", "f32", {"0.5"}, "i1") == "1");
  CHECK(fold("cast", "i32", {"-1"}, "u8") == "255");
  CHECK(fold("cast", "u8", {"255"}, "i32") == "255");
  CHECK(fold("cast", "i8", {"-1"}, "i64") == "-1");
  CHECK(fold("cast", "i32", {"256"}, "i1") == "1");
  CHECK(fold("cast", "i32", {"16777217"}, "f32") == "16777216.0");
  CHECK(fold("cast", "i64", {"9007199254740993"}, "f32") == "not folded");
  CHECK(fold("cast", "f64", {"0.1"}, "f32") == f32Str(0.1f));
  CHECK(fold("bitcast", "f32", {"1.0"}, "i32") == "not folded");
}

TEST_CASE("constant-fold: splats and shape ops") {
  std::string out = run("constant-fold,dce", "  %a = constant {value = 3} : i32\n"
                                             "  %s = splat %a : tensor<4xi32>\n"
                                             "  %e = expand_dims %s {axis = 0} : tensor<1x4xi32>\n"
                                             "  %b = broadcast %e : tensor<2x4xi32>\n"
                                             "  %m = mul %b, %b : tensor<2x4xi32>\n"
                                             "  %r = reduce %m {axis = 1, kind = \"sum\"} : tensor<2xi32>\n"
                                             "  print %r : tensor<2xi32>\n");
  CHECK(out == fnText("  %0 = constant {value = 36} : tensor<2xi32>\n  print %0 : tensor<2xi32>\n"));
}

TEST_CASE("canonicalize: algebraic identities") {
  std::string in = "  %z = constant {value = 0} : i32\n"
                   "  %one = constant {value = 1} : i32\n"
                   "  %a = add %n, %z : i32\n"
                   "  %b = mul %one, %a : i32\n"
                   "  %c0 = sub %b, %z : i32\n"
                   "  %m = constant {value = -1} : i32\n"
                   "  %d = and %c0, %m : i32\n"
                   "  %e = mul %d, %z : i32\n"
                   "  %f = add %d, %e : i32\n"
                   "  %g = cast %f : i32\n"
                   "  print %g : i32\n";
  CHECK(run("canonicalize,dce", in) == fnText("  print %n : i32\n"));
  // x + 0.0 is not x (for x = -0.0); x + -0.0 and x * 1.0 are.
  std::string fl = "  %pz = constant {value = 0.0} : f32\n"
                   "  %nz = constant {value = -0.0} : f32\n"
                   "  %one = constant {value = 1.0} : f32\n"
                   "  %a = add %x, %nz : f32\n"
                   "  %b = mul %a, %one : f32\n"
                   "  %c0 = add %b, %pz : f32\n"
                   "  print %c0 : f32\n";
  CHECK(run("canonicalize,dce", fl) == fnText("  %0 = constant {value = 0.0} : f32\n"
                                              "  %1 = add %x, %0 : f32\n"
                                              "  print %1 : f32\n"));
  // all-ones of u8 is 255
  CHECK(run("canonicalize,dce", "  %m = constant {value = 255} : u8\n  %v = cast %n : u8\n  %a = and %v, %m : u8\n"
                                "  print %a : u8\n") ==
        fnText("  %0 = cast %n : u8\n  print %0 : u8\n"));
  CHECK(run("canonicalize,dce", "  %a = sub %n, %n : i32\n  print %a : i32\n") ==
        fnText("  %0 = constant {value = 0} : i32\n  print %0 : i32\n"));
}

TEST_CASE("canonicalize: shapes, pointers and select") {
  std::string in = "  %s = splat %n : tensor<1x8xi32>\n"
                   "  %b = broadcast %s : tensor<4x8xi32>\n"
                   "  %b2 = broadcast %b : tensor<4x8xi32>\n"
                   "  %r = reshape %b2 : tensor<4x8xi32>\n"
                   "  %t = permute %r {order = [0, 1]} : tensor<4x8xi32>\n"
                   "  %z = constant {value = 0} : i32\n"
                   "  %q = addptr %p, %z : ptr<f32>\n"
                   "  %tr = constant {value = 1} : i1\n"
                   "  %v = select %tr, %x, %x : f32\n"
                   "  %w = select %c, %v, %v : f32\n"
                   "  print %t, %q, %w : tensor<4x8xi32>, ptr<f32>, f32\n";
  CHECK(run("canonicalize,dce", in) == fnText("  %0 = splat %n : tensor<4x8xi32>\n"
                                              "  print %0, %p, %x : tensor<4x8xi32>, ptr<f32>, f32\n"));
  CHECK(run("canonicalize,dce", "  %f = constant {value = 0} : i1\n  %s = select %f, %n, %n : i32\n"
                                "  %a = add %n, %n : i32\n  %t = select %f, %n, %a : i32\n  print %t : i32\n") ==
        fnText("  %0 = add %n, %n : i32\n  print %0 : i32\n"));
  CHECK(run("canonicalize", "  %c2 = constant {value = 2.5} : f32\n  %s = splat %c2 : tensor<4xf32>\n"
                            "  print %s : tensor<4xf32>\n") ==
        fnText("  %0 = constant {value = 2.5} : f32\n  %1 = constant {value = 2.5} : tensor<4xf32>\n"
               "  print %1 : tensor<4xf32>\n"));
}

TEST_CASE("canonicalize: if with a constant condition, for with zero trips") {
  std::string in = "  %t = constant {value = 0} : i1\n"
                   "  %r = if %t : i32 {\n"
                   "    %a = add %n, %n : i32\n"
                   "    yield %a : i32\n"
                   "  } else {\n"
                   "    %b = mul %n, %n : i32\n"
                   "    store %p, %x : ptr<f32>, f32\n"
                   "    yield %b : i32\n"
                   "  }\n"
                   "  print %r : i32\n";
  CHECK(run("canonicalize,dce", in) ==
        fnText("  %0 = mul %n, %n : i32\n  store %p, %x : ptr<f32>, f32\n  print %0 : i32\n"));
  std::string loop = "  %lb = constant {value = 5} : i32\n"
                     "  %ub = constant {value = 5} : i32\n"
                     "  %st = constant {value = 1} : i32\n"
                     "  %r = for %lb, %ub, %st, %x : f32 {\n"
                     "  ^bb0(%i: i32, %a: f32):\n"
                     "    store %p, %a : ptr<f32>, f32\n"
                     "    yield %a : f32\n"
                     "  }\n"
                     "  print %r : f32\n";
  CHECK(run("canonicalize,dce", loop) == fnText("  print %x : f32\n"));
  // One trip: kept.
  std::string once = loop;
  once.replace(once.find("value = 5} : i32\n  %st"), 9, "value = 6");
  CHECK(run("canonicalize,dce", once).find("for") != std::string::npos);
  // A negative step runs while iv > ub: 5 > 5 is false, zero trips.
  std::string down = loop;
  down.replace(down.find("value = 1}"), 10, "value = -1}");
  CHECK(run("canonicalize,dce", down) == fnText("  print %x : f32\n"));
}

TEST_CASE("cse: merges equal pure ops, respecting scopes") {
  std::string in = "  %a = add %n, %n : i32\n"
                   "  %b = add %n, %n : i32\n"
                   "  %c0 = mul %a, %b : i32\n"
                   "  %d = cmp %n, %n {pred = \"lt\"} : i1\n"
                   "  %e = cmp %n, %n {pred = \"le\"} : i1\n"
                   "  %z = constant {value = 0.0} : f32\n"
                   "  %nz = constant {value = -0.0} : f32\n"
                   "  %l1 = load %p : f32\n"
                   "  %l2 = load %p : f32\n"
                   "  print %c0, %d, %e, %z, %nz, %l1, %l2 : i32, i1, i1, f32, f32, f32, f32\n";
  CHECK(run("cse", in) == fnText("  %0 = add %n, %n : i32\n"
                                 "  %1 = mul %0, %0 : i32\n"
                                 "  %2 = cmp %n, %n {pred = \"lt\"} : i1\n"
                                 "  %3 = cmp %n, %n {pred = \"le\"} : i1\n"
                                 "  %4 = constant {value = 0.0} : f32\n"
                                 "  %5 = constant {value = -0.0} : f32\n"
                                 "  %6 = load %p : f32\n"
                                 "  %7 = load %p : f32\n"
                                 "  print %1, %2, %3, %4, %5, %6, %7 : i32, i1, i1, f32, f32, f32, f32\n"));
  std::string nested = "  %a = add %n, %n : i32\n"
                       "  %r = if %c : i32 {\n"
                       "    %b = add %n, %n : i32\n"     // replaced by the outer %a
                       "    %m = mul %n, %n : i32\n"
                       "    %s = add %b, %m : i32\n"
                       "    yield %s : i32\n"
                       "  } else {\n"
                       "    %m2 = mul %n, %n : i32\n"    // sibling branch: kept
                       "    yield %m2 : i32\n"
                       "  }\n"
                       "  %m3 = mul %n, %n : i32\n"      // inner values never replace outer ones
                       "  print %r, %m3 : i32, i32\n";
  CHECK(run("cse", nested) == fnText("  %0 = add %n, %n : i32\n"
                                     "  %1 = if %c : i32 {\n"
                                     "    %2 = mul %n, %n : i32\n"
                                     "    %3 = add %0, %2 : i32\n"
                                     "    yield %3 : i32\n"
                                     "  } else {\n"
                                     "    %4 = mul %n, %n : i32\n"
                                     "    yield %4 : i32\n"
                                     "  }\n"
                                     "  %5 = mul %n, %n : i32\n"
                                     "  print %1, %5 : i32, i32\n"));
}

TEST_CASE("dce: removes dead pure ops and side-effect-free regions") {
  std::string in = "  %a = add %n, %n : i32\n"
                   "  %b = mul %a, %a : i32\n"
                   "  %l = load %p : f32\n"
                   "  %r = for %n, %n, %n, %x : f32 {\n"
                   "  ^bb0(%i: i32, %v: f32):\n"
                   "    %w = add %v, %l : f32\n"
                   "    yield %w : f32\n"
                   "  }\n"
                   "  %r2 = for %n, %n, %n, %x : f32 {\n"
                   "  ^bb0(%i2: i32, %v2: f32):\n"
                   "    store %p, %v2 : ptr<f32>, f32\n"
                   "    %dead = add %v2, %v2 : f32\n"
                   "    yield %v2 : f32\n"
                   "  }\n"
                   "  %k = add %n, %n : i32\n"
                   "  %w2 = while %k : i32 {\n"
                   "  ^bb0(%q: i32):\n"
                   "    condition %c, %q : i1, i32\n"
                   "  } do {\n"
                   "  ^bb0(%q2: i32):\n"
                   "    yield %q2 : i32\n"
                   "  }\n"
                   "  store %p, %x : ptr<f32>, f32\n";
  CHECK(run("dce", in) == fnText("  %0 = for %n, %n, %n, %x : f32 {\n"
                                 "  ^bb0(%1: i32, %2: f32):\n"
                                 "    store %p, %2 : ptr<f32>, f32\n"
                                 "    yield %2 : f32\n"
                                 "  }\n"
                                 "  %3 = add %n, %n : i32\n"
                                 "  %4 = while %3 : i32 {\n"
                                 "  ^bb0(%5: i32):\n"
                                 "    condition %c, %5 : i1, i32\n"
                                 "  } do {\n"
                                 "  ^bb0(%6: i32):\n"
                                 "    yield %6 : i32\n"
                                 "  }\n"
                                 "  store %p, %x : ptr<f32>, f32\n"));
}

TEST_CASE("default pipeline reaches a fixpoint") {
  std::string in = "  %c4 = constant {value = 4} : i32\n"
                   "  %c2 = constant {value = 2} : i32\n"
                   "  %s = mul %c4, %c2 : i32\n"          // 8
                   "  %z = sub %s, %s : i32\n"            // 0
                   "  %a = add %n, %z : i32\n"            // n
                   "  %b = add %n, %n : i32\n"
                   "  %b2 = add %a, %n : i32\n"           // == %b after canonicalize
                   "  %t = cmp %s, %c4 {pred = \"gt\"} : i1\n"
                   "  %r = if %t : i32 {\n"
                   "    yield %b : i32\n"
                   "  } else {\n"
                   "    yield %b2 : i32\n"
                   "  }\n"
                   "  %m = mul %r, %b2 : i32\n"
                   "  print %m : i32\n";
  Function &fn = parseFunction(fnText(in));
  PassManager pm;
  transforms::addDefaultPipeline(pm);
  CHECK(pm.run(fn));
  CHECK(str(fn) == fnText("  %0 = add %n, %n : i32\n  %1 = mul %0, %0 : i32\n  print %1 : i32\n"));
  CHECK_FALSE(pm.run(fn));
}

TEST_CASE("pass manager: registry, dumps, verification names the pass") {
  CHECK(transforms::lookupPass("cse") != nullptr);
  CHECK(transforms::lookupPass("constant-fold") != nullptr);
  CHECK(transforms::lookupPass("licm") == nullptr);
  CHECK(transforms::passNames().find("canonicalize, combine-dot-add, constant-fold, cse, dce") == 0);
  CHECK_FALSE(transforms::createPass("licm"));

  Function &fn = parseFunction(fnText("  %a = add %n, %n : i32\n  %b = add %n, %n : i32\n  print %a, %b : i32, i32\n"));
  PassManager pm;
  std::string dumps;
  pm.output = [&](std::string_view s) { dumps += s; };
  pm.printOptions.locations = false;
  pm.printBefore = {"cse"};
  pm.printAfter = {"cse"};
  pm.timing = true;
  pm.add("cse");
  pm.add("dce");
  pm.run(fn);
  CHECK(dumps.find("// -----// IR Dump Before cse //----- //\ntile.func @f") == 0);
  CHECK(dumps.find("// -----// IR Dump After cse //----- //\n" + fnText("  %0 = add %n, %n : i32\n  print %0, %0 : i32, i32\n")) !=
        std::string::npos);
  CHECK(dumps.find("After dce") == std::string::npos);
  CHECK(pm.timingReport().find("cse: ") == 0);

  // A pass that breaks the IR: the error names it.
  PassManager broken;
  broken.add(transforms::Pass{"breaker", [](Function &f) {
                                f.entry().ops.front()->operands.pop_back();
                                return true;
                              }});
  // A pass that breaks the IR: a compiler bug, reported as one, naming the
  // pass and the op, with the broken IR written to a file that reads back.
  std::string msg;
  try {
    broken.run(fn);
  } catch (const CompileError &e) {
    msg = e.msg;
  }
  CHECK(msg.find("internal compiler error: invalid IR after pass 'breaker': verifier: 'add'") == 0);
  size_t at = msg.find("the IR is in ");
  REQUIRE(at != std::string::npos);
  std::string path = msg.substr(at + 13, msg.find(';', at) - at - 13);
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  CHECK(text.find("tile.func @f") == 0);
  std::remove(path.c_str());
}
