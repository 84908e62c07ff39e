// ParserTests.cpp - expression precedence, statements, node locations and
// the seed kernels' structure.
#include "FrontendTestUtil.h"
#include "SeedKernels.h"

using namespace tile;
using namespace tile::ast;
using namespace tile::frontend;
using namespace tile::frontend::test;

namespace {

template <typename T> const T &as(const Stmt &s) { return static_cast<const T &>(s); }
template <typename T> const T &as(const Expr &e) { return static_cast<const T &>(e); }

std::shared_ptr<Module> parse(const std::string &text) { return parseString("<test>", text); }

/// sexpr of the value of each statement `x = value` / expression statement.
std::string stmtSexpr(const Stmt &s) {
  if (s.kind == StmtKind::Expr)
    return sexpr(*as<ExprStmt>(s).value);
  if (s.kind == StmtKind::Assign)
    return sexpr(*as<AssignStmt>(s).value);
  return "<stmt>";
}

} // namespace

TEST_CASE("parser: arithmetic precedence and associativity") {
  CHECK(parseExpr("a + b * c") == "(+ a (* b c))");
  CHECK(parseExpr("a * b + c") == "(+ (* a b) c)");
  CHECK(parseExpr("a - b - c") == "(- (- a b) c)");
  CHECK(parseExpr("a / b // c % d @ e") == "(@ (% (// (/ a b) c) d) e)");
  CHECK(parseExpr("a | b ^ c & d << e + f") == "(| a (^ b (& c (<< d (+ e f)))))");
  CHECK(parseExpr("a << b >> c") == "(>> (<< a b) c)");
  CHECK(parseExpr("a & b | c & d") == "(| (& a b) (& c d))");
  CHECK(parseExpr("a ** b ** c") == "(** a (** b c))");
  CHECK(parseExpr("-x ** 2") == "(neg (** x 2))");
  CHECK(parseExpr("2 ** -1") == "(** 2 (neg 1))");
  CHECK(parseExpr("-a * ~b + +c") == "(+ (* (neg a) (inv b)) (pos c))");
  CHECK(parseExpr("- - a") == "(neg (neg a))");
  CHECK(parseExpr("a.b(c)[d] ** 2") == "(** (sub (call a.b c) d) 2)");
}

TEST_CASE("parser: boolean, comparison and conditional precedence") {
  CHECK(parseExpr("a or b and not c") == "(or a (and b (not c)))");
  CHECK(parseExpr("a and b and c or d") == "(or (and a b c) d)");
  CHECK(parseExpr("not a == b") == "(not (cmp a [==] b))");
  CHECK(parseExpr("a < b <= c") == "(cmp a [<] b [<=] c)");
  CHECK(parseExpr("a not in b is not c in d is e != f") ==
        "(cmp a [not in] b [is not] c [in] d [is] e [!=] f)");
  CHECK(parseExpr("a + 1 > b | c") == "(cmp (+ a 1) [>] (| b c))");
  CHECK(parseExpr("x if c else y") == "(ifexp c x y)");
  CHECK(parseExpr("x if a or b else y if c else z") == "(ifexp (or a b) x (ifexp c y z))");
  CHECK(parseExpr("[x * 2 for x in xs]") == "(listcomp (* x 2) [for x in xs])");
  CHECK(parseExpr("[(a, b) for a in range(3) if a for b in ys if b > a if b]") ==
        "(listcomp (tuple a b) [for a in (call range 3) if a] [for b in ys if (cmp b [>] a) if b])");
  CHECK(parseExpr("{k: v for k, v in zip(a, b)}") == "(dictcomp k:v [for (tuple k v) in (call zip a b)])");
  CHECK(parseExpr("(x for x in y)") == "(gencomp x [for x in y])");
  CHECK(parseExpr("sum(x for x in y)") == "(call sum (gencomp x [for x in y]))");
  CHECK(parseExpr("[c(w) for w in [1, 2] if w or v]") == "(listcomp (call c w) [for w in (list 1 2) if (or w v)])");
  // an f-string is a __fstr__ call; adjacent literals and f-strings are one atom
  CHECK(parseExpr("f'{x}!'") == "(call __fstr__ \"\" x \"\" \"\" \"!\")");
  CHECK(parseExpr("'a' f'{x:>3}' 'b'.upper()") ==
        "(call (+ (+ \"a\" (call __fstr__ \"\" x \"\" \">3\" \"\")) \"b\").upper)");
  CHECK(parseExpr("lambda: 0") == "(lambda 0)");
  CHECK(parseExpr("lambda a, b: a if b else 1") == "(lambda a b (ifexp b a 1))");
  CHECK(parseExpr("lambda META: (cdiv(n, META[\"BLOCK\"]),)") ==
        "(lambda META (tuple (call cdiv n (sub META \"BLOCK\"))))");
}

TEST_CASE("parser: atoms, tuples, lists, dicts, strings") {
  CHECK(parseExpr("(x)") == "x");
  CHECK(parseExpr("(x,)") == "(tuple x)");
  CHECK(parseExpr("()") == "(tuple)");
  CHECK(parseExpr("(a, b,)") == "(tuple a b)");
  CHECK(parseExpr("a, b") == "(tuple a b)");
  CHECK(parseExpr("a,") == "(tuple a)");
  CHECK(parseExpr("[]") == "(list)");
  CHECK(parseExpr("[1, 2.5, 'x',]") == "(list 1 2.5f \"x\")");
  CHECK(parseExpr("{}") == "(dict)");
  CHECK(parseExpr("{'a': 1, b: c + 1}") == "(dict \"a\":1 b:(+ c 1))");
  CHECK(parseExpr("'a' \"b\" '''c'''") == "\"abc\"");
  CHECK(parseExpr("('a'\n 'b')") == "\"ab\"");
  CHECK(parseExpr("None, True, False, ...") == "(tuple None True False ...)");
}

TEST_CASE("parser: calls, subscripts and slices") {
  CHECK(parseExpr("f()") == "(call f)");
  CHECK(parseExpr("f(a, b=1, c=d,)") == "(call f a b=1 c=d)");
  CHECK(parseExpr("tl.load(p, mask=m, other=0.0)") == "(call tl.load p mask=m other=0f)");
  CHECK(parseExpr("f(a == b)") == "(call f (cmp a [==] b))");
  CHECK(parseExpr("triton.jit(debug=True)(f)") == "(call (call triton.jit debug=True) f)");
  CHECK(parseExpr("x[:, None]") == "(sub x (tuple (slice _ _ _) None))");
  CHECK(parseExpr("x[None, :]") == "(sub x (tuple None (slice _ _ _)))");
  CHECK(parseExpr("x[..., 1:2:2]") == "(sub x (tuple ... (slice 1 2 2)))");
  CHECK(parseExpr("x[::2]") == "(sub x (slice _ _ 2))");
  CHECK(parseExpr("x[a:]") == "(sub x (slice a _ _))");
  CHECK(parseExpr("x[:b]") == "(sub x (slice _ b _))");
  CHECK(parseExpr("x[a:b:]") == "(sub x (slice a b _))");
  CHECK(parseExpr("x[1,]") == "(sub x (tuple 1))");
  CHECK(parseExpr("x[()]") == "(sub x (tuple))");
  CHECK(parseExpr("x[i][j]") == "(sub (sub x i) j)");
}

TEST_CASE("parser: integer literal values reach the tree") {
  auto m = parse("a = 18446744073709551615\nb = 9223372036854775807\n");
  const auto &big = as<IntExpr>(*as<AssignStmt>(*m->body[0]).value);
  CHECK(big.isUnsigned64);
  CHECK(static_cast<uint64_t>(big.value) == 18446744073709551615ull);
  const auto &max = as<IntExpr>(*as<AssignStmt>(*m->body[1]).value);
  CHECK_FALSE(max.isUnsigned64);
  CHECK(max.value == INT64_MAX);
}

TEST_CASE("parser: assignments") {
  auto m = parse("a = b = c\n"
                 "a, b = b, a\n"
                 "x[i], y.z = 1, 2\n"
                 "(a, (b, c)) = t\n"
                 "n += 1\n"
                 "p **= q\n"
                 "x: tl.constexpr = 4\n"
                 "y: int\n");
  REQUIRE(m->body.size() == 8);
  const auto &chain = as<AssignStmt>(*m->body[0]);
  REQUIRE(chain.targets.size() == 2);
  CHECK(sexpr(*chain.targets[0]) == "a");
  CHECK(sexpr(*chain.targets[1]) == "b");
  CHECK(sexpr(*chain.value) == "c");
  const auto &swap = as<AssignStmt>(*m->body[1]);
  REQUIRE(swap.targets.size() == 1);
  CHECK(sexpr(*swap.targets[0]) == "(tuple a b)");
  CHECK(sexpr(*swap.value) == "(tuple b a)");
  CHECK(sexpr(*as<AssignStmt>(*m->body[2]).targets[0]) == "(tuple (sub x i) y.z)");
  CHECK(sexpr(*as<AssignStmt>(*m->body[3]).targets[0]) == "(tuple a (tuple b c))");
  const auto &aug = as<AugAssignStmt>(*m->body[4]);
  CHECK(aug.op == BinOpKind::Add);
  CHECK(aug.loc == Location{m->fileId, 5, 3});
  CHECK(as<AugAssignStmt>(*m->body[5]).op == BinOpKind::Pow);
  const auto &ann = as<AnnAssignStmt>(*m->body[6]);
  CHECK(sexpr(*ann.target) == "x");
  CHECK(sexpr(*ann.annotation) == "tl.constexpr");
  CHECK(sexpr(*ann.value) == "4");
  CHECK(as<AnnAssignStmt>(*m->body[7]).value == nullptr);
}

TEST_CASE("parser: all augmented assignment operators") {
  const char *ops[] = {"+=", "-=", "*=", "/=", "//=", "%=", "**=", "@=",
                       "&=", "|=", "^=", "<<=", ">>="};
  BinOpKind kinds[] = {BinOpKind::Add, BinOpKind::Sub, BinOpKind::Mul, BinOpKind::Div,
                       BinOpKind::FloorDiv, BinOpKind::Mod, BinOpKind::Pow,
                       BinOpKind::MatMul, BinOpKind::BitAnd, BinOpKind::BitOr,
                       BinOpKind::BitXor, BinOpKind::LShift, BinOpKind::RShift};
  for (size_t i = 0; i < std::size(ops); ++i) {
    auto m = parse(fmt::format("x {} 2\n", ops[i]));
    REQUIRE(m->body[0]->kind == StmtKind::AugAssign);
    CHECK(as<AugAssignStmt>(*m->body[0]).op == kinds[i]);
    CHECK(std::string(binOpSpelling(kinds[i])) + "=" == ops[i]);
  }
}

TEST_CASE("parser: control flow") {
  auto m = parse("def f(n):\n"
                 "    for i, j in zip(a, b):\n"
                 "        if i: continue\n"
                 "        elif j:\n"
                 "            break\n"
                 "        elif i > j: pass\n"
                 "        else:\n"
                 "            x = 1; y = 2;\n"
                 "    while n > 0:\n"
                 "        n -= 1\n"
                 "    assert n == 0, 'msg'\n"
                 "    assert n\n"
                 "    return n, 1\n"
                 "    return\n");
  const auto &f = as<FunctionDef>(*m->body[0]);
  REQUIRE(f.body.size() == 6);
  const auto &loop = as<ForStmt>(*f.body[0]);
  CHECK(sexpr(*loop.target) == "(tuple i j)");
  CHECK(sexpr(*loop.iter) == "(call zip a b)");
  REQUIRE(loop.body.size() == 1);
  const auto &if1 = as<IfStmt>(*loop.body[0]);
  CHECK(if1.body[0]->kind == StmtKind::Continue);
  REQUIRE(if1.orelse.size() == 1);
  const auto &elif1 = as<IfStmt>(*if1.orelse[0]);
  CHECK(elif1.loc.line == 4);
  CHECK(sexpr(*elif1.test) == "j");
  CHECK(elif1.body[0]->kind == StmtKind::Break);
  REQUIRE(elif1.orelse.size() == 1);
  const auto &elif2 = as<IfStmt>(*elif1.orelse[0]);
  CHECK(elif2.body[0]->kind == StmtKind::Pass);
  REQUIRE(elif2.orelse.size() == 2);
  CHECK(elif2.orelse[1]->kind == StmtKind::Assign);
  const auto &w = as<WhileStmt>(*f.body[1]);
  CHECK(sexpr(*w.test) == "(cmp n [>] 0)");
  const auto &a = as<AssertStmt>(*f.body[2]);
  CHECK(sexpr(*a.msg) == "\"msg\"");
  CHECK(as<AssertStmt>(*f.body[3]).msg == nullptr);
  CHECK(sexpr(*as<ReturnStmt>(*f.body[4]).value) == "(tuple n 1)");
  CHECK(as<ReturnStmt>(*f.body[5]).value == nullptr);
}

TEST_CASE("parser: functions, decorators, docstrings, imports") {
  auto m = parse("'''module docstring'''\n"
                 "import triton, numpy as np\n"
                 "import triton.language as tl\n"
                 "from triton.language import (zeros as z,\n  arange,)\n"
                 "from a.b import c\n"
                 "global G, H\n"
                 "@triton.jit\n"
                 "@jit\n"
                 "@triton.jit(debug=True)\n"
                 "def k(x, y: int, z: tl.constexpr = 4, w=None) -> tl.tensor:\n"
                 "    \"\"\"Doc.\n    more\"\"\"\n"
                 "    return x\n"
                 "def g(): 'only a docstring'\n");
  REQUIRE(m->body.size() == 7);
  const auto &imp = as<ImportStmt>(*m->body[0]);
  REQUIRE(imp.names.size() == 2);
  CHECK(imp.names[0].module == "triton");
  CHECK(imp.names[1].module == "numpy");
  CHECK(imp.names[1].asName == "np");
  CHECK(as<ImportStmt>(*m->body[1]).names[0].module == "triton.language");
  const auto &from = as<ImportFromStmt>(*m->body[2]);
  CHECK(from.module == "triton.language");
  REQUIRE(from.names.size() == 2);
  CHECK(from.names[0].name == "zeros");
  CHECK(from.names[0].asName == "z");
  CHECK(from.names[1].name == "arange");
  CHECK(from.names[1].loc.line == 5);
  CHECK(as<ImportFromStmt>(*m->body[3]).module == "a.b");
  CHECK(as<GlobalStmt>(*m->body[4]).names == std::vector<std::string>{"G", "H"});
  const auto &k = as<FunctionDef>(*m->body[5]);
  CHECK(k.name == "k");
  CHECK(k.loc == Location{m->fileId, 11, 1});
  REQUIRE(k.decorators.size() == 3);
  CHECK(sexpr(*k.decorators[0]) == "triton.jit");
  CHECK(sexpr(*k.decorators[1]) == "jit");
  CHECK(sexpr(*k.decorators[2]) == "(call triton.jit debug=True)");
  REQUIRE(k.params.size() == 4);
  CHECK(k.params[0].annotation == nullptr);
  CHECK(sexpr(*k.params[1].annotation) == "int");
  CHECK(sexpr(*k.params[2].annotation) == "tl.constexpr");
  CHECK(sexpr(*k.params[2].defaultValue) == "4");
  CHECK(sexpr(*k.params[3].defaultValue) == "None");
  CHECK(k.params[3].loc == Location{m->fileId, 11, 39});
  CHECK(sexpr(*k.returns) == "tl.tensor");
  CHECK(k.docstring == "Doc.\n    more");
  REQUIRE(k.body.size() == 1);
  CHECK(k.body[0]->kind == StmtKind::Return);
  const auto &g = as<FunctionDef>(*m->body[6]);
  CHECK(g.docstring == "only a docstring");
  CHECK(g.body.empty());
}

TEST_CASE("parser: node locations") {
  auto m = parse("x = a.b + f(c)[d] < e\n"
                 "if (p,\n    q): pass\n");
  const auto &assign = as<AssignStmt>(*m->body[0]);
  CHECK(assign.loc == Location{m->fileId, 1, 1});
  const auto &cmp = as<CompareExpr>(*assign.value);
  CHECK(cmp.loc.col == 19); // the operator
  REQUIRE(cmp.opLocs.size() == 1);
  CHECK(cmp.opLocs[0].col == 19);
  const auto &add = as<BinOpExpr>(*cmp.left);
  CHECK(add.loc.col == 9);
  CHECK(as<AttributeExpr>(*add.lhs).loc.col == 7); // the attribute name
  CHECK(as<AttributeExpr>(*add.lhs).value->loc.col == 5);
  const auto &sub = as<SubscriptExpr>(*add.rhs);
  CHECK(sub.loc.col == 11); // first token
  CHECK(sub.value->loc.col == 11);
  CHECK(sub.index->loc.col == 16);
  const auto &tuple = as<TupleExpr>(*as<IfStmt>(*m->body[1]).test);
  CHECK(tuple.loc == Location{m->fileId, 2, 4});
  CHECK(tuple.elts[1]->loc == Location{m->fileId, 3, 5});
}

TEST_CASE("parser: tile_fill_kernel") {
  auto m = parse(kTileFill);
  REQUIRE(m->body.size() == 3);
  CHECK(m->body[0]->kind == StmtKind::Import);
  CHECK(as<ImportStmt>(*m->body[1]).names[0].asName == "tl");
  const auto &f = as<FunctionDef>(*m->body[2]);
  CHECK(f.name == "tile_fill_kernel");
  CHECK(sexpr(*f.decorators.at(0)) == "triton.jit");
  std::vector<std::string> names;
  for (const Param &p : f.params)
    names.push_back(p.name + (p.annotation ? ":" + sexpr(*p.annotation) : ""));
  CHECK(names == std::vector<std::string>{"out_ptr", "M", "N", "BLOCK_M:tl.constexpr",
                                          "BLOCK_N:tl.constexpr"});
  REQUIRE(f.body.size() == 7);
  std::vector<std::string> got;
  for (const StmtPtr &s : f.body)
    got.push_back(stmtSexpr(*s));
  CHECK(got == std::vector<std::string>{
                   "(call tl.program_id axis=0)",
                   "(call tl.program_id axis=1)",
                   "(+ (* pid_m BLOCK_M) (call tl.arange 0 BLOCK_M))",
                   "(+ (* pid_n BLOCK_N) (call tl.arange 0 BLOCK_N))",
                   "(+ (* (sub offs_m (tuple (slice _ _ _) None)) N) "
                   "(sub offs_n (tuple None (slice _ _ _))))",
                   "(& (cmp (sub offs_m (tuple (slice _ _ _) None)) [<] M) "
                   "(cmp (sub offs_n (tuple None (slice _ _ _))) [<] N))",
                   "(call tl.store (+ out_ptr linear) (call linear.to tl.float32) mask=mask)"});
  CHECK(f.body[6]->kind == StmtKind::Expr);
  CHECK(f.body[4]->loc == Location{m->fileId, 16, 5});
}

TEST_CASE("parser: matmul_kernel") {
  auto m = parse(kMatmul);
  REQUIRE(m->body.size() == 3);
  const auto &f = as<FunctionDef>(*m->body[2]);
  CHECK(f.name == "matmul_kernel");
  REQUIRE(f.params.size() == 16);
  CHECK(f.params[12].name == "N_ITERS");
  CHECK(f.params[15].name == "BLOCK_K");
  CHECK(f.params[15].loc.line == 12);
  REQUIRE(f.body.size() == 12);
  CHECK(stmtSexpr(*f.body[5]) ==
        "(+ (+ a_ptr (* (sub offs_m (tuple (slice _ _ _) None)) stride_am)) "
        "(* (sub offs_k (tuple None (slice _ _ _))) stride_ak))");
  CHECK(stmtSexpr(*f.body[7]) == "(call tl.zeros (tuple BLOCK_M BLOCK_N) dtype=tl.float32)");
  const auto &loop = as<ForStmt>(*f.body[8]);
  CHECK(sexpr(*loop.target) == "k");
  CHECK(sexpr(*loop.iter) == "(call range 0 N_ITERS)");
  REQUIRE(loop.body.size() == 5);
  CHECK(stmtSexpr(*loop.body[0]) ==
        "(call tl.load a_ptrs mask=(cmp (sub offs_k (tuple None (slice _ _ _))) [<] "
        "(- K (* k BLOCK_K))) other=0f)");
  CHECK(stmtSexpr(*loop.body[2]) == "(call tl.dot a b acc)");
  const auto &aug = as<AugAssignStmt>(*loop.body[3]);
  CHECK(sexpr(*aug.target) == "a_ptrs");
  CHECK(sexpr(*aug.value) == "(* BLOCK_K stride_ak)");
  CHECK(aug.loc == Location{m->fileId, 32, 16});
  CHECK(stmtSexpr(*f.body[11]) == "(call tl.store c_ptrs acc mask=mask)");
}

TEST_CASE("parser: transpose_kernel") {
  auto m = parse(kTranspose);
  const auto &f = as<FunctionDef>(*m->body.at(2));
  CHECK(f.name == "transpose_kernel");
  CHECK(f.params.size() == 10);
  REQUIRE(f.body.size() == 9);
  CHECK(stmtSexpr(*f.body[5]) ==
        "(& (cmp (sub offs_n (tuple (slice _ _ _) None)) [<] N) "
        "(cmp (sub offs_m (tuple None (slice _ _ _))) [<] M))");
  CHECK(stmtSexpr(*f.body[6]) == "(call tl.load in_ptrs mask=mask)");
  CHECK(stmtSexpr(*f.body[8]) == "(call tl.store out_ptrs val mask=mask)");
}

TEST_CASE("parser: dumpAST shape") {
  auto m = parse("@jit\ndef f(a: int = 1):\n    'doc'\n    x[:, None] += -a ** 2\n"
                 "    return 0.0, 2.5e-3, 1e30, 'a\\n\"'\n");
  CHECK(dumpAST(*m) == "(Module\n"
                       "  (FunctionDef 2:1 f\n"
                       "    (decorators\n"
                       "      (Name 1:2 jit))\n"
                       "    (params\n"
                       "      (Param 2:7 a\n"
                       "        annotation=(Name 2:10 int)\n"
                       "        default=(Int 2:16 1)))\n"
                       "    docstring=\"doc\"\n"
                       "    (body\n"
                       "      (AugAssign 4:16 +=\n"
                       "        target=(Subscript 4:5\n"
                       "          (Name 4:5 x)\n"
                       "          index=(Tuple 4:7\n"
                       "            (Slice 4:7)\n"
                       "            (None 4:10)))\n"
                       "        value=(UnaryOp 4:19 -\n"
                       "          (BinOp 4:22 **\n"
                       "            (Name 4:20 a)\n"
                       "            (Int 4:25 2))))\n"
                       "      (Return 5:5\n"
                       "        value=(Tuple 5:12\n"
                       "          (Float 5:12 0.0)\n"
                       "          (Float 5:17 0.0025)\n"
                       "          (Float 5:25 1e+30)\n"
                       "          (Str 5:31 \"a\\n\\\"\"))))))\n");
}

TEST_CASE("parser: deep but legal nesting and long inputs") {
  // 200 nested parentheses and 200 nested blocks are fine.
  auto m = parse("x = " + std::string(200, '(') + "1" + std::string(200, ')') + "\n");
  CHECK(sexpr(*as<AssignStmt>(*m->body[0]).value) == "1");
  std::string blocks = "def f():\n";
  for (int i = 1; i <= 200; ++i)
    blocks += std::string(i, ' ') + "while x:\n";
  blocks += std::string(201, ' ') + "break\n";
  CHECK_NOTHROW(parse(blocks));
  // 20k statements and a 20k-element list parse quickly.
  std::string many;
  for (int i = 0; i < 20000; ++i)
    many += "a = b + 1\n";
  CHECK(parse(many)->body.size() == 20000);
  std::string list = "x = [";
  for (int i = 0; i < 20000; ++i)
    list += "1, ";
  m = parse(list + "]\n");
  CHECK(as<ListExpr>(*as<AssignStmt>(*m->body[0]).value).elts.size() == 20000);
}
