// ControlFlowTest.cpp - how sema lowers control flow: constexpr if removes
// the dead branch, runtime if merges variables into its results, loops
// carry exactly the variables they reassign, static_range unrolls, and
// @jit helpers are inlined (tuples, early returns).
#include "SemaTestUtil.h"

using namespace tile;
using namespace tile::sema;
using namespace tile::sema::test;
using ir::OpKind;

namespace {

Compiled compileK(const std::string &src, std::vector<ArgValue> args = {}, const Keywords &kws = {},
                  bool opt = false) {
  if (args.empty()) args = {ptrArg(Scalar::F32), valArg(int64_t(5))};
  return compileSource(src, "k", args, kws, opt);
}

std::vector<std::string> resultTypes(ir::Op *op) {
  std::vector<std::string> out;
  for (auto &r : op->results) out.push_back(r->type.str());
  return out;
}

} // namespace

TEST_CASE("a constexpr if keeps only the taken branch") {
  const char *src = R"(
@triton.jit
def k(X, n, FLAG: tl.constexpr):
    offs = tl.arange(0, 16)
    x = tl.load(X + offs)
    if FLAG:
        x = x + 1.0
    else:
        x = x * 2.0
        x = x - 3.0
    tl.store(X + offs, x)
)";
  Compiled t = compileK(src, {}, {{"FLAG", valArg(true)}});
  CHECK(countOps(*t.fn, OpKind::If) == 0);
  CHECK(countOps(*t.fn, OpKind::Mul) == 0);
  CHECK(countOps(*t.fn, OpKind::Sub) == 0);
  // X + offs twice (addptr) and x + 1.0 (add)
  CHECK(countOps(*t.fn, OpKind::Add) == 1);
  Compiled f = compileK(src, {}, {{"FLAG", valArg(false)}});
  CHECK(countOps(*f.fn, OpKind::If) == 0);
  CHECK(countOps(*f.fn, OpKind::Add) == 0);
  CHECK(countOps(*f.fn, OpKind::Mul) == 1);
  CHECK(countOps(*f.fn, OpKind::Sub) == 1);
}

TEST_CASE("constexpr conditions may combine constexprs with and/or/not and comparisons") {
  const char *src = R"(
@triton.jit
def k(X, n, A: tl.constexpr, B: tl.constexpr):
    offs = tl.arange(0, 16)
    if A > 4 and not B is None:
        tl.store(X + offs, 1.0)
    elif A == 4 or B:
        tl.store(X + offs, 2.0)
)";
  CHECK(countOps(*compileK(src, {}, {{"A", valArg(8)}, {"B", valArg(1)}}).fn, OpKind::Store) == 1);
  CHECK(countOps(*compileK(src, {}, {{"A", valArg(8)}, {"B", valArg(ConstValue())}}).fn, OpKind::Store) == 0);
  CHECK(countOps(*compileK(src, {}, {{"A", valArg(4)}, {"B", valArg(ConstValue())}}).fn, OpKind::Store) == 1);
  CHECK(countOps(*compileK(src, {}, {{"A", valArg(4)}, {"B", valArg(ConstValue())}}).fn, OpKind::If) == 0);
}

TEST_CASE("a runtime if merges the variables its branches change into results") {
  Compiled c = compileK(R"(
@triton.jit
def k(X, n):
    offs = tl.arange(0, 16)
    x = tl.load(X + offs)
    y = x * 2.0
    cnt = 0
    if n > 3:
        x = x + 1.0
        cnt = 1
        tmp = x
    else:
        cnt = 2
    tl.store(X + offs, x + y + cnt)
)");
  ir::Op *ifOp = onlyOp(*c.fn, OpKind::If);
  // x changes in one branch, cnt in both (to different constants); y is untouched.
  CHECK(resultTypes(ifOp) == std::vector<std::string>{"i32", "tensor<16xf32>"});
  CHECK(ifOp->operands[0]->type.str() == "i1");
  for (auto &r : ifOp->regions) {
    ir::Op *y = r->block->terminator();
    REQUIRE(y);
    CHECK(y->kind == OpKind::Yield);
    CHECK(y->operands.size() == 2);
  }
}

TEST_CASE("a name defined in only one branch of a runtime if is unknown after it") {
  expectCompileError(R"(
@triton.jit
def k(X, n):
    if n > 3:
        t = 1.0
    tl.store(X, t)
)",
                     "k", {ptrArg(Scalar::F32), valArg(5)}, "unknown name 't'", 8, 17);
}

TEST_CASE("branches must agree on a merged variable's type") {
  expectCompileError(R"(
@triton.jit
def k(X, n):
    offs = tl.arange(0, 16)
    x = tl.load(X + offs)
    if n > 3:
        x = x.to(tl.float16)
    tl.store(X + offs, x)
)",
                     "k", {ptrArg(Scalar::F32), valArg(5)}, "'x' is tensor<16xf16> in the then-branch but tensor<16xf32> in the else-branch", 8, 5);
}

TEST_CASE("a for loop carries exactly the variables its body reassigns") {
  Compiled c = compileK(R"(
@triton.jit
def k(X, n):
    offs = tl.arange(0, 16)
    acc = tl.zeros((16,), dtype=tl.float32)
    p = X + offs
    scale = 2.0
    count = 0
    for i in range(0, n):
        t = tl.load(p) * scale
        acc += t
        p += 16
        count = count + 1
    tl.store(X + offs, acc + count)
)");
  ir::Op *loop = onlyOp(*c.fn, OpKind::For);
  // acc, count, p (sorted by name); not scale (read only), t or i (loop-local)
  CHECK(resultTypes(loop) == std::vector<std::string>{"tensor<16xf32>", "i32", "tensor<16xptr<f32>>"});
  CHECK(loop->operands.size() == 6);
  CHECK(loop->operands[1]->type.str() == "i32");
  ir::Block &body = *loop->regions[0]->block;
  CHECK(body.args.size() == 4);
  ir::Op *y = body.terminator();
  REQUIRE(y->kind == OpKind::Yield);
  CHECK(y->operands.size() == 3);
  // the store after the loop uses the loop's results
  ir::Op *store = onlyOp(*c.fn, OpKind::Store);
  CHECK(store->parent == &c.fn->entry());
}

TEST_CASE("range bounds pick i64 when one of them is i64; a negative step counts down") {
  Compiled c = compileK(R"(
@triton.jit
def k(X, n):
    acc = 0.0
    for i in range(n, 0, -2):
        acc += 1.0
    tl.store(X, acc)
)",
                        {ptrArg(Scalar::F32), valArg(int64_t(1) << 40)});
  ir::Op *loop = onlyOp(*c.fn, OpKind::For);
  CHECK(loop->regions[0]->block->args[0]->type.str() == "i64");
  ir::Op *step = loop->operands[2]->def;
  REQUIRE(step);
  CHECK(step->intAttr("value") == -2);
  CHECK(resultTypes(loop) == std::vector<std::string>{"f32"});
}

TEST_CASE("a while loop carries its reassigned variables through condition and body") {
  Compiled c = compileK(R"(
@triton.jit
def k(X, n):
    i = 0
    acc = 1.0
    while i < n:
        acc = acc * 2.0
        i += 1
    tl.store(X, acc)
)");
  ir::Op *w = onlyOp(*c.fn, OpKind::While);
  CHECK(resultTypes(w) == std::vector<std::string>{"f32", "i32"});
  CHECK(w->operands.size() == 2);
  ir::Op *cond = w->regions[0]->block->terminator();
  REQUIRE(cond->kind == OpKind::Condition);
  CHECK(cond->operands.size() == 3);
  CHECK(cond->operands[0]->type.str() == "i1");
  CHECK(w->regions[1]->block->terminator()->kind == OpKind::Yield);
}

TEST_CASE("a while loop whose condition is constexpr false vanishes") {
  Compiled c = compileK(R"(
@triton.jit
def k(X, n, GO: tl.constexpr):
    acc = 1.0
    while GO:
        acc = acc * 2.0
    tl.store(X, acc)
)",
                        {}, {{"GO", valArg(false)}});
  CHECK(countOps(*c.fn, OpKind::While) == 0);
  CHECK(countOps(*c.fn, OpKind::Mul) == 0);
}

TEST_CASE("static_range unrolls with the induction variable as a constexpr") {
  Compiled c = compileK(R"(
@triton.jit
def k(X, n, N: tl.constexpr):
    acc = tl.zeros((16,), dtype=tl.int32)
    for i in tl.static_range(1, N, 2):
        tl.static_assert(i % 2 == 1)
        acc = acc + i
    tl.store(X + tl.arange(0, 16), acc)
)",
                        {}, {{"N", valArg(8)}});
  CHECK(countOps(*c.fn, OpKind::For) == 0);
  CHECK(countOps(*c.fn, OpKind::Add) == 4); // i = 1, 3, 5, 7 (the addptr is not an add)
  std::vector<int64_t> addends;
  for (ir::Op *add : opsOf(*c.fn, OpKind::Add)) {
    ir::Op *splat = add->operands[1]->def;
    REQUIRE(splat);
    ir::Op *cst = splat->kind == OpKind::Splat ? splat->operands[0]->def : splat;
    REQUIRE(cst->kind == OpKind::Constant);
    addends.push_back(cst->intAttr("value"));
  }
  CHECK(addends == std::vector<int64_t>{1, 3, 5, 7});
}

TEST_CASE("a for over a constexpr tuple unrolls too") {
  Compiled c = compileK(R"(
@triton.jit
def k(X, n):
    acc = 0.0
    for w in (0.5, 0.25, 2.0):
        acc = acc + w
    tl.store(X, acc)
)");
  CHECK(countOps(*c.fn, OpKind::For) == 0);
  // acc is a constexpr throughout: 2.75 is folded, no IR add at all
  CHECK(countOps(*c.fn, OpKind::Add) == 0);
  ir::Op *store = onlyOp(*c.fn, OpKind::Store);
  CHECK(store->operands[1]->def->floatAttr("value") == 2.75);
}

TEST_CASE("@jit helpers are inlined, including tuple returns and defaults") {
  Compiled c = compileK(R"(
@triton.jit
def minmax(a, b):
    return tl.minimum(a, b), tl.maximum(a, b)

@triton.jit
def scaled(x, factor: tl.constexpr = 3):
    return x * factor

@triton.jit
def k(X, n):
    offs = tl.arange(0, 16)
    x = tl.load(X + offs)
    y = tl.load(X + 16 + offs)
    lo, hi = minmax(x, y)
    tl.store(X + offs, scaled(lo) + scaled(hi, factor=5))
)");
  CHECK(countOps(*c.fn, OpKind::Min) == 1);
  CHECK(countOps(*c.fn, OpKind::Max) == 1);
  std::vector<double> factors;
  for (ir::Op *m : opsOf(*c.fn, OpKind::Mul)) {
    ir::Op *s = m->operands[1]->def;
    factors.push_back((s->kind == OpKind::Splat ? s->operands[0]->def : s)->floatAttr("value"));
  }
  CHECK(factors == std::vector<double>{3.0, 5.0});
}

TEST_CASE("a helper with an early return lowers to an if whose result is the return value") {
  Compiled c = compileK(R"(
@triton.jit
def absval(x):
    if x < 0:
        return -x
    return x

@triton.jit
def k(X, n):
    tl.store(X, absval(n).to(tl.float32))
)");
  ir::Op *ifOp = onlyOp(*c.fn, OpKind::If);
  CHECK(resultTypes(ifOp) == std::vector<std::string>{"i32"});
  ir::Op *thenYield = ifOp->regions[0]->block->terminator();
  ir::Op *elseYield = ifOp->regions[1]->block->terminator();
  CHECK(thenYield->operands[0]->def->kind == OpKind::Neg);
  CHECK(elseYield->operands[0]->isBlockArg()); // x itself: the kernel's n
}

TEST_CASE("a helper with an early return may be called inside a loop") {
  Compiled c = compileK(R"(
@triton.jit
def clamp_low(x, lo):
    if x < lo:
        return lo
    return x

@triton.jit
def k(X, n):
    acc = 0
    for i in range(0, n):
        acc += clamp_low(i - 2, 0)
    tl.store(X, acc)
)");
  ir::Op *loop = onlyOp(*c.fn, OpKind::For);
  ir::Op *ifOp = onlyOp(*c.fn, OpKind::If);
  CHECK(ifOp->parent == loop->regions[0]->block.get());
}

TEST_CASE("statements after an early return in a kernel run only where it fell through") {
  Compiled c = compileK(R"(
@triton.jit
def k(X, n):
    pid = tl.program_id(0)
    if pid * 16 >= n:
        return
    offs = pid * 16 + tl.arange(0, 16)
    tl.store(X + offs, 1.0, mask=offs < n)
)");
  ir::Op *ifOp = onlyOp(*c.fn, OpKind::If);
  CHECK(ifOp->results.empty());
  ir::Op *store = onlyOp(*c.fn, OpKind::Store);
  CHECK(store->parent == ifOp->regions[1]->block.get());
}
