// VerifierTest.cpp - the verifier accepts well-formed IR and rejects each
// class of malformed IR with a located "verifier: " message.
#include "TestIR.h"
#include "ir/Verifier.h"

#include <doctest/doctest.h>

using namespace tile;
using namespace tile::ir;
using namespace tile::ir::test;

namespace {

/// The verifier message for a function body (params: %p: ptr<f32>, %n: i32,
/// %x: f32, %c: i1), or "ok".
std::string verifyBody(const std::string &body) {
  std::string text = "tile.func @f(%p: ptr<f32>, %n: i32, %x: f32, %c: i1) {\n" + body + "}\n";
  Function &fn = parseFunction(text);
  try {
    verify(fn);
  } catch (const CompileError &e) {
    CHECK(e.msg.rfind("verifier: ", 0) == 0);
    CHECK(e.loc.line >= 2);   // located at an op, not the function
    return e.msg;
  }
  return "ok";
}

bool rejects(const std::string &body, const std::string &fragment) {
  std::string msg = verifyBody(body);
  INFO("body: " << body << "\nmessage: " << msg);
  CHECK(msg.find(fragment) != std::string::npos);
  return msg.find(fragment) != std::string::npos;
}

} // namespace

TEST_CASE("verifier: accepts the every-op function") {
  auto fn = buildEveryOpFunction();
  CHECK_NOTHROW(verify(*fn));
  CHECK(verifyBody("  %0 = add %n, %n : i32\n") == "ok");
}

TEST_CASE("verifier: operand counts and types") {
  rejects("  %0 = add %n, %x : i32\n", "'add' operands must have the same type, got i32 and f32");
  rejects("  %0 = add %n, %n : f32\n", "result has type f32, expected i32");
  rejects("  %0 = and %x, %x : f32\n", "needs integer operands");
  rejects("  %0 = exp %n : i32\n", "needs a float operand");
  rejects("  %0 = neg %n, %n : i32\n", "expects 1 operands, got 2");
  rejects("  %0 = select %n, %x, %x : f32\n", "condition must be i1");
  rejects("  %0 = select %c, %x, %n : f32\n", "arms must have the same type");
  rejects("  %0 = load %n : i32\n", "needs a pointer operand");
  rejects("  %0 = load %p : i32\n", "result has type i32, expected f32");
  rejects("  store %p, %n : ptr<f32>, i32\n", "stored value has type i32, expected f32");
  rejects("  %0 = addptr %n, %n : i32\n", "first operand must be a pointer");
  rejects("  %0 = addptr %p, %x : ptr<f32>\n", "offset must be an integer");
  rejects("  %0 = cmp %n, %n {pred = \"lt\"} : i32\n", "result has type i32, expected i1");
  rejects("  %0 = cmp %n, %n {pred = \"less\"} : i1\n", "unknown predicate");
  rejects("  %0 = cast %p : i64\n", "must not be a pointer");
  rejects("  %0 = bitcast %n : f16\n", "needs equal bit widths");
  rejects("  %0 = fma %n, %n, %n : i32\n", "needs float operands");
  rejects("  %0 = constant {value = 1} : f32\n", "attribute 'value' must be a float");
  rejects("  %0 = constant : i32\n", "needs attribute 'value'");
  rejects("  %0 = assert %n : i32\n", "expects 0 results");
}

TEST_CASE("verifier: shapes") {
  rejects("  %0 = arange {end = 12, start = 0} : tensor<12xi32>\n", "powers of two");
  rejects("  %0 = arange {end = 16, start = 0} : tensor<8xi32>\n", "result has type tensor<8xi32>");
  rejects("  %0 = splat %n : tensor<4xi32>\n  %1 = broadcast %0 : tensor<8xi32>\n", "cannot broadcast");
  rejects("  %0 = splat %n : tensor<4xi32>\n  %1 = broadcast %0 : tensor<4x4xi32>\n", "equal rank");
  rejects("  %0 = splat %n : tensor<4xi32>\n  %1 = expand_dims %0 {axis = 2} : tensor<4x1xi32>\n", "axis 2 out of range");
  rejects("  %0 = splat %n : tensor<4xi32>\n  %1 = expand_dims %0 {axis = 0} : tensor<4x1xi32>\n", "shape");
  rejects("  %0 = splat %n : tensor<4x4xi32>\n  %1 = reshape %0 : tensor<8xi32>\n", "changes the element count");
  rejects("  %0 = splat %n : tensor<4x4xi32>\n  %1 = reshape %0 : tensor<16xf32>\n", "changes the element type");
  rejects("  %0 = splat %n : tensor<4x8xi32>\n  %1 = permute %0 {order = [0, 0]} : tensor<4x8xi32>\n",
          "not a permutation");
  rejects("  %0 = splat %n : tensor<4x8xi32>\n  %1 = permute %0 {order = [1, 0]} : tensor<4x8xi32>\n",
          "does not match order");
  rejects("  %0 = splat %x : tensor<4x8xf32>\n  %1 = splat %x : tensor<4x8xf32>\n"
          "  %2 = dot %0, %1, %0 {input_precision = \"ieee\"} : tensor<4x8xf32>\n",
          "shapes do not compose");
  rejects("  %0 = splat %x : tensor<4x4xf32>\n  %1 = dot %0, %0, %0 {input_precision = \"fp8\"} : tensor<4x4xf32>\n",
          "unknown input_precision");
  rejects("  %0 = splat %x : tensor<4x4xf32>\n  %1 = reduce %0 {axis = 2, kind = \"sum\"} : tensor<4xf32>\n",
          "axis 2 out of range");
  rejects("  %0 = splat %x : tensor<4x4xf32>\n  %1 = reduce %0 {axis = 0, kind = \"argmax\"} : tensor<4xf32>\n",
          "result element f32 is wrong");
  rejects("  %0 = program_id {axis = 3} : i32\n", "axis must be 0, 1 or 2");
  rejects("  %0 = splat %c : tensor<4xi1>\n  %1 = splat %x : tensor<8xf32>\n  %2 = select %0, %1, %1 : tensor<8xf32>\n",
          "condition and value shape differs");
}

TEST_CASE("verifier: regions and terminators") {
  rejects("  %0 = for %n, %n, %n, %x : f32 {\n  ^bb0(%i: i32, %a: f32):\n    yield %i : i32\n  }\n",
          "yielded types (i32) do not match (f32)");
  rejects("  %0 = for %n, %n, %n, %x : f32 {\n  ^bb0(%i: i64, %a: f32):\n    yield %a : f32\n  }\n",
          "body arguments");
  rejects("  %0 = for %n, %n, %n, %x : f32 {\n  ^bb0(%i: i32, %a: f32):\n  }\n", "body must end with 'yield'");
  rejects("  %0 = for %x, %x, %x : f32 {\n  ^bb0(%i: f32):\n    yield\n  }\n", "bounds must be integer scalars");
  rejects("  %0 = if %n : i32 {\n    yield %n : i32\n  } else {\n    yield %n : i32\n  }\n",
          "condition must be an i1 scalar");
  rejects("  %0 = if %c : i32 {\n    yield %n : i32\n  } else {\n    yield %x : f32\n  }\n", "yielded types (f32)");
  rejects("  %0 = while %n : i32 {\n  ^bb0(%a: i32):\n    yield %a : i32\n  } do {\n  ^bb0(%b: i32):\n"
          "    yield %b : i32\n  }\n",
          "cannot terminate this region of 'while'");
  rejects("  %0 = while %n : i32 {\n  ^bb0(%a: i32):\n  } do {\n  ^bb0(%b: i32):\n    yield %b : i32\n  }\n",
          "condition region must end with 'condition'");
  rejects("  %0 = while %n : i32 {\n  ^bb0(%a: i32):\n    condition %c, %x : i1, f32\n  } do {\n  ^bb0(%b: i32):\n"
          "    yield %b : i32\n  }\n",
          "values forwarded by 'condition'");
  rejects("  yield %n : i32\n", "not allowed in a function body");
  rejects("  if %c {\n    yield\n    %0 = add %n, %n : i32\n  } else {\n    yield\n  }\n", "must be the last op");
  rejects("  if %c {\n    condition %c : i1\n  } else {\n    yield\n  }\n", "cannot terminate this region");
}

TEST_CASE("verifier: use before definition and scoping (Builder-made IR)") {
  Function fn("f", {});
  Value *n = fn.entry().addArg(Type::scalar(Scalar::I32));
  Builder b(&fn.entry());
  Value *a = b.binary(OpKind::Add, n, n);
  Op *addOp = a->def;
  Value *later = b.binary(OpKind::Mul, n, n);
  addOp->operands[1] = later;   // uses a value defined after it
  CHECK_THROWS_WITH_AS(verify(fn), doctest::Contains("verifier: 'add' operand 1 is used before its definition"),
                       CompileError);
  addOp->operands[1] = n;
  CHECK_NOTHROW(verify(fn));

  // A value from inside an if's region used after the if.
  Value *c = b.cmp("eq", n, n);
  Op *ifOp = b.create(OpKind::If, {c}, {});
  Builder tb(ifOp->regions[0]->block.get());
  Value *inner = tb.binary(OpKind::Add, n, n);
  tb.yield({});
  Builder(ifOp->regions[1]->block.get()).yield({});
  CHECK_NOTHROW(verify(fn));
  b.binary(OpKind::Add, inner, n);
  CHECK_THROWS_WITH_AS(verify(fn), doctest::Contains("outside its scope"), CompileError);
}

TEST_CASE("verifier: tensor parameters are rejected") {
  Function fn("f", {});
  fn.entry().addArg(Type::tensor(ElemType::of(Scalar::F32), {4}));
  CHECK_THROWS_WITH_AS(verify(fn), doctest::Contains("parameter of @f has tensor type"), CompileError);
}

TEST_CASE("op traits come from Ops.def") {
  using ir::OpKind;
  namespace tr = ir::trait;
  CHECK(ir::isElementwise(OpKind::Add));
  CHECK(ir::isElementwise(OpKind::Erf));
  CHECK(ir::isElementwise(OpKind::Select));
  CHECK_FALSE(ir::isElementwise(OpKind::Load));
  CHECK_FALSE(ir::isElementwise(OpKind::Dot));
  CHECK_FALSE(ir::isElementwise(OpKind::Reduce));
  CHECK(ir::hasTrait(OpKind::Add, tr::Commutative));
  CHECK_FALSE(ir::hasTrait(OpKind::Sub, tr::Commutative));
  CHECK(ir::hasTrait(OpKind::Store, tr::SideEffects));
  CHECK(ir::hasTrait(OpKind::Barrier, tr::SideEffects));
  CHECK_FALSE(ir::hasTrait(OpKind::Load, tr::SideEffects));
  CHECK(ir::hasTrait(OpKind::Load, tr::ReadsMemory));
  CHECK(ir::hasTrait(OpKind::Yield, tr::Terminator));
  CHECK(ir::hasTrait(OpKind::Condition, tr::Terminator));
  CHECK_FALSE(ir::hasTrait(OpKind::For, tr::Terminator));
  // every elementwise op has no regions; the names still line up
  for (int k = 0; k <= static_cast<int>(OpKind::Assert); ++k)
    if (ir::isElementwise(OpKind(k))) CHECK(ir::opNumRegions(OpKind(k)) == 0);
  CHECK(std::string(ir::opName(OpKind::Erf)) == "erf");
}
