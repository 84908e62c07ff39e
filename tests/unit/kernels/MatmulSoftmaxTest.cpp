// MatmulSoftmaxTest.cpp - the seed matmul at ragged sizes (bit-exact in the
// stored rows, with the warning its unmasked row loads deserve) and a row
// softmax, against C++ reference loops.
#include "../sema/SeedKernels.h"
#include "KernelTestUtil.h"

using namespace tile;
using namespace tile::kernels::test;

namespace {

struct MatmulCase {
  int64_t M, N, K;
};

/// Runs the seed matmul_kernel on random A (MxK), B (KxN) of type s and
/// checks C against fmaf accumulation for k ascending (the dot semantics in
/// Ops.def: the seed's tl.dot has the default input_precision, so f32
/// operands are truncated to tf32 first). Returns the run's warnings.
std::vector<std::string> runMatmul(MatmulCase mc, Scalar s, bool optimize) {
  const int64_t B = 16;
  HostArray a(s, mc.M * mc.K), b(s, mc.K * mc.N), c(Scalar::F32, mc.M * mc.N);
  std::mt19937 rng(uint32_t(mc.M * 131 + mc.N * 7 + mc.K));
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  for (int64_t i = 0; i < a.n; ++i) a.set(i, dist(rng));
  for (int64_t i = 0; i < b.n; ++i) b.set(i, dist(rng));
  c.fill(-1);
  std::vector<sema::ArgValue> args = {a.arg(), b.arg(), c.arg()};
  for (int64_t v : {mc.M, mc.N, mc.K, mc.K, int64_t(1), mc.N, int64_t(1), mc.N, int64_t(1)}) args.push_back(valArg(v));
  RunLog log = launch(sema::test::kSeedKernels, "matmul_kernel", args,
                      {{"N_ITERS", valArg(cdiv(mc.K, B))}, {"BLOCK_M", valArg(B)}, {"BLOCK_N", valArg(B)},
                       {"BLOCK_K", valArg(B)}},
                      {cdiv(mc.M, B), cdiv(mc.N, B), 1}, optimize);
  // f16/bf16 values are already tf32-exact; f32 ones are truncated.
  auto operand = [&](double v) { return s == Scalar::F32 ? truncateToTF32(float(v)) : float(v); };
  int bad = 0;
  for (int64_t i = 0; i < mc.M; ++i)
    for (int64_t j = 0; j < mc.N; ++j) {
      float acc = 0.0f;
      for (int64_t k = 0; k < mc.K; ++k) acc = std::fmaf(operand(a.f(i * mc.K + k)), operand(b.f(k * mc.N + j)), acc);
      bad += !sameFloat(c.f(i * mc.N + j), acc);
    }
  CHECK(bad == 0);
  return log.warnings;
}

} // namespace

TEST_CASE("seed matmul is exact at ragged M, N, K") {
  for (MatmulCase mc : {MatmulCase{16, 16, 16}, MatmulCase{37, 50, 70}, MatmulCase{1, 1, 1}, MatmulCase{33, 17, 5},
                        MatmulCase{20, 64, 32}}) {
    for (bool opt : {true, false}) {
      CAPTURE(mc.M);
      CAPTURE(mc.N);
      CAPTURE(mc.K);
      CAPTURE(opt);
      std::vector<std::string> warnings = runMatmul(mc, Scalar::F32, opt);
      bool raggedRows = mc.M % 16 != 0;
      if (raggedRows) {
        // a_ptrs covers BLOCK_M rows but the loads mask only k: the rows past
        // M read outside A. They are never stored; the interpreter says so.
        REQUIRE(!warnings.empty());
        CHECK(warnings[0].find("out-of-bounds load") != std::string::npos);
        CHECK(warnings[0].find("matmul_kernel") != std::string::npos);
      }
      if (mc.M % 16 == 0 && mc.N % 16 == 0 && mc.K % 16 == 0) CHECK(warnings.empty());
    }
  }
}

TEST_CASE("seed matmul with f16 and bf16 inputs accumulates in f32") {
  for (Scalar s : {Scalar::F16, Scalar::BF16}) {
    CAPTURE(scalarName(s));
    runMatmul({48, 40, 20}, s, true);
  }
}

TEST_CASE("seed matmul in strict mode turns the row overrun into an error") {
  const int64_t M = 20, N = 16, K = 16;
  HostArray a(Scalar::F32, M * K), b(Scalar::F32, K * N), c(Scalar::F32, M * N);
  std::vector<sema::ArgValue> args = {a.arg(), b.arg(), c.arg()};
  for (int64_t v : {M, N, K, K, int64_t(1), N, int64_t(1), N, int64_t(1)}) args.push_back(valArg(v));
  CompileError e = sema::test::expectError([&] {
    launch(sema::test::kSeedKernels, "matmul_kernel", args,
           {{"N_ITERS", valArg(1)}, {"BLOCK_M", valArg(16)}, {"BLOCK_N", valArg(16)}, {"BLOCK_K", valArg(16)}},
           {2, 1, 1}, true, /*strict=*/true);
  });
  CHECK(e.msg.find("out-of-bounds load in kernel 'matmul_kernel' (program 1, 0, 0)") != std::string::npos);
  CHECK(SourceManager::global().line(e.loc.file, e.loc.line).find("a = tl.load(a_ptrs") != std::string::npos);
}

TEST_CASE("row softmax matches a double-precision reference") {
  const char *src = R"(
@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                   BLOCK_SIZE: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=2):
        row_start_ptr = input_ptr + row_idx * input_row_stride
        col_offsets = tl.arange(0, BLOCK_SIZE)
        input_ptrs = row_start_ptr + col_offsets
        mask = col_offsets < n_cols
        row = tl.load(input_ptrs, mask=mask, other=-float('inf'))
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        softmax_output = numerator / denominator
        output_row_start_ptr = output_ptr + row_idx * output_row_stride
        output_ptrs = output_row_start_ptr + col_offsets
        tl.store(output_ptrs, softmax_output, mask=mask)
)";
  const int64_t rows = 13, cols = 100, stride = 104;
  HostArray x(Scalar::F32, rows * stride), y(Scalar::F32, rows * stride);
  std::mt19937 rng(5);
  for (int64_t i = 0; i < x.n; ++i) x.set(i, std::uniform_real_distribution<double>(-20, 20)(rng));
  y.fill(-1);
  RunLog log = launch(src, "softmax_kernel", {y.arg(), x.arg(), valArg(stride), valArg(stride), valArg(rows), valArg(cols)},
                      {{"BLOCK_SIZE", valArg(128)}}, {4, 1, 1});
  CHECK(log.warnings.empty());
  double worst = 0;
  for (int64_t r = 0; r < rows; ++r) {
    double mx = -INFINITY, sum = 0;
    for (int64_t j = 0; j < cols; ++j) mx = std::max(mx, x.f(r * stride + j));
    for (int64_t j = 0; j < cols; ++j) sum += std::exp(x.f(r * stride + j) - mx);
    for (int64_t j = 0; j < cols; ++j) {
      double want = std::exp(x.f(r * stride + j) - mx) / sum;
      worst = std::max(worst, std::fabs(y.f(r * stride + j) - want) / want);
    }
    for (int64_t j = cols; j < stride; ++j) CHECK(y.f(r * stride + j) == -1); // padding untouched
  }
  CHECK(worst < 1e-5);
}
