// SeedLoweringTest.cpp - the seed lesson's three kernels lower to verified
// tile IR with and without optimization, with the structure the source
// implies (loop-carried accumulator and pointers, one dot, masked memory).
#include "SeedKernels.h"
#include "SemaTestUtil.h"

using namespace tile;
using namespace tile::sema;
using namespace tile::sema::test;
using ir::OpKind;

namespace {

std::vector<ArgValue> matmulArgs() {
  std::vector<ArgValue> a = {ptrArg(Scalar::F32), ptrArg(Scalar::F32), ptrArg(Scalar::F32)};
  for (int64_t v : {37, 50, 70, 70, 1, 50, 1, 50, 1}) a.push_back(valArg(v)); // M N K + strides
  return a;
}

Keywords matmulKws() {
  return {{"N_ITERS", valArg(int64_t(5))}, {"BLOCK_M", valArg(int64_t(16))},
          {"BLOCK_N", valArg(int64_t(16))}, {"BLOCK_K", valArg(int64_t(16))}};
}

} // namespace

TEST_CASE("seed matmul lowers to one loop carrying the accumulator and both pointer tiles") {
  for (bool opt : {false, true}) {
    CAPTURE(opt);
    Compiled c = compileSource(kSeedKernels, "matmul_kernel", matmulArgs(), matmulKws(), opt);
    ir::Function &fn = *c.fn;
    // 12 runtime parameters; the 4 constexprs were substituted.
    CHECK(fn.entry().args.size() == 12);
    CHECK(fn.paramNames.front() == "a_ptr");
    CHECK(fn.paramNames.back() == "stride_cn");
    // the 0x1000 pointers are :16, the ints (37, 50, 70, 1) are not
    REQUIRE(fn.paramDivisibility.size() == 12);
    CHECK(fn.paramDivisibility[0] == 16);
    CHECK(fn.paramDivisibility[2] == 16);
    CHECK(fn.paramDivisibility[3] == 1);

    ir::Op *loop = onlyOp(fn, OpKind::For);
    // lb, ub, step + 3 carried values: a_ptrs, acc, b_ptrs (not a, b: they are loop-local)
    REQUIRE(loop->operands.size() == 6);
    REQUIRE(loop->results.size() == 3);
    std::vector<std::string> carried;
    for (auto &r : loop->results) carried.push_back(r->type.str());
    std::sort(carried.begin(), carried.end());
    CHECK(carried == std::vector<std::string>{"tensor<16x16xf32>", "tensor<16x16xptr<f32>>", "tensor<16x16xptr<f32>>"});
    CHECK(loop->regions[0]->block->args.size() == 4); // iv + 3
    CHECK(loop->regions[0]->block->args[0]->type.str() == "i32");
    // range(0, N_ITERS) with N_ITERS = 5: the upper bound is a constant 5.
    ir::Op *ub = loop->operands[1]->def;
    REQUIRE(ub != nullptr);
    CHECK(ub->kind == OpKind::Constant);
    CHECK(ub->intAttr("value") == 5);

    ir::Op *dot = onlyOp(fn, OpKind::Dot);
    CHECK(dot->parent == loop->regions[0]->block.get());
    CHECK(dot->result()->type.str() == "tensor<16x16xf32>");
    CHECK(dot->operands[2]->isBlockArg()); // accumulates into the carried acc

    auto loads = opsOf(fn, OpKind::Load);
    REQUIRE(loads.size() == 2);
    for (ir::Op *l : loads) {
      CHECK(l->operands.size() == 3); // ptr, mask, other
      CHECK(l->operands[1]->type.str() == "tensor<16x16xi1>");
      CHECK(l->result()->type.str() == "tensor<16x16xf32>");
    }
    ir::Op *store = onlyOp(fn, OpKind::Store);
    CHECK(store->operands.size() == 3);
    CHECK(store->parent == &fn.entry());
  }
}

TEST_CASE("seed matmul with f16 inputs loads f16 and accumulates in f32") {
  std::vector<ArgValue> args = matmulArgs();
  args[0] = ptrArg(Scalar::F16);
  args[1] = ptrArg(Scalar::F16);
  Compiled c = compileSource(kSeedKernels, "matmul_kernel", args, matmulKws(), true);
  ir::Op *dot = onlyOp(*c.fn, OpKind::Dot);
  CHECK(dot->operands[0]->type.str() == "tensor<16x16xf16>");
  CHECK(dot->result()->type.str() == "tensor<16x16xf32>");
  // other=0.0 is materialized in the pointee type
  for (ir::Op *l : opsOf(*c.fn, OpKind::Load)) CHECK(l->operands[2]->type.str() == "tensor<16x16xf16>");
}

TEST_CASE("seed tile_fill broadcasts a column and a row into a 2-D tile") {
  for (bool opt : {false, true}) {
    CAPTURE(opt);
    Compiled c = compileSource(kSeedKernels, "tile_fill_kernel", {ptrArg(Scalar::F32), valArg(37), valArg(50)},
                               {{"BLOCK_M", valArg(16)}, {"BLOCK_N", valArg(32)}}, opt);
    CHECK(c.fn->entry().args.size() == 3);
    CHECK(countOps(*c.fn, OpKind::ProgramId) == 2);
    CHECK(countOps(*c.fn, OpKind::For) == 0);
    ir::Op *store = onlyOp(*c.fn, OpKind::Store);
    CHECK(store->operands[0]->type.str() == "tensor<16x32xptr<f32>>");
    CHECK(store->operands[2]->type.str() == "tensor<16x32xi1>");
    // linear.to(tl.float32): an i32 -> f32 cast feeds the store.
    ir::Op *cast = store->operands[1]->def;
    REQUIRE(cast != nullptr);
    CHECK(cast->kind == OpKind::Cast);
    CHECK(cast->operands[0]->type.str() == "tensor<16x32xi32>");
    CHECK(countOps(*c.fn, OpKind::ExpandDims) >= 2);
  }
}

TEST_CASE("seed transpose loads without other and stores the loaded tile") {
  std::vector<ArgValue> args = {ptrArg(Scalar::F32), ptrArg(Scalar::F32)};
  for (int64_t v : {32, 32, 32, 1, 32, 1}) args.push_back(valArg(v));
  Compiled c = compileSource(kSeedKernels, "transpose_kernel", args, {{"BLOCK_M", valArg(16)}, {"BLOCK_N", valArg(16)}});
  ir::Op *load = onlyOp(*c.fn, OpKind::Load);
  CHECK(load->operands.size() == 2);
  ir::Op *store = onlyOp(*c.fn, OpKind::Store);
  CHECK(store->operands[1] == load->result());
}

TEST_CASE("seed transpose with BLOCK_M != BLOCK_N is a located shape mismatch at the store") {
  std::vector<ArgValue> args = {ptrArg(Scalar::F32), ptrArg(Scalar::F32)};
  for (int64_t v : {32, 32, 32, 1, 32, 1}) args.push_back(valArg(v));
  CompileError e = expectError([&] {
    compileSource(kSeedKernels, "transpose_kernel", args, {{"BLOCK_M", valArg(16)}, {"BLOCK_N", valArg(32)}});
  });
  INFO(e.formatted());
  // The mask (from the loaded BLOCK_N x BLOCK_M tile) meets the store's
  // BLOCK_M x BLOCK_N pointers first.
  CHECK(e.msg == "cannot broadcast pointer and mask shapes (16, 32) and (32, 16): dimension 0 is 16 vs 32");
  CHECK(e.loc.col == 29);
  CHECK(SourceManager::global().line(e.loc.file, e.loc.line).find("tl.store(out_ptrs, val, mask=mask)") !=
        std::string::npos);
}

TEST_CASE("Specialization::key lists runtime types and constexpr values in parameter order") {
  Compiled c = compileSource(kSeedKernels, "matmul_kernel", matmulArgs(), matmulKws());
  CHECK(c.bound.spec.key() ==
        "*f32:16,*f32:16,*f32:16,i32,i32,i32,i32,i32:1,i32,i32:1,i32,i32:1,N_ITERS=5,BLOCK_M=16,BLOCK_N=16,BLOCK_K=16");
  CHECK(c.bound.args.size() == 12);
  CHECK(c.bound.args[3].type == ElemType::of(Scalar::I32));
  CHECK(c.bound.args[3].i == 37);
  CHECK(c.bound.args[0].type == ElemType::ptrTo(Scalar::F32));
  CHECK(c.bound.args[0].i == 0x1000);
}

TEST_CASE("KernelCache compiles each specialization once") {
  auto prog = driver::loadProgramFromString("cache.tile", std::string(kPrelude) + kSeedKernels);
  const ast::FunctionDef *k = prog->kernel("tile_fill_kernel");
  REQUIRE(k);
  driver::KernelCache cache;
  driver::PipelineOptions opts;
  auto bind = [&](int64_t block) {
    return bindLaunch(*prog, *k, {ptrArg(Scalar::F32), valArg(8), valArg(8)},
                      {{"BLOCK_M", valArg(block)}, {"BLOCK_N", valArg(16)}}, k->loc);
  };
  auto f1 = cache.get(*prog, *k, bind(16).spec, opts);
  auto f2 = cache.get(*prog, *k, bind(16).spec, opts);
  CHECK(f1 == f2);
  CHECK(cache.compilations() == 1);
  auto f3 = cache.get(*prog, *k, bind(32).spec, opts);
  CHECK(f3 != f1);
  opts.optimize = false;
  cache.get(*prog, *k, bind(16).spec, opts);
  CHECK(cache.compilations() == 3);
  CHECK(cache.size() == 3);
}
