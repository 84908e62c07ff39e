// BatchedDotTest.cpp - tl.dot on 3-D operands ([B, M, K] @ [B, K, N] + acc)
// from source text, bit-exact against per-batch fmaf loops (k ascending, as
// Ops.def's dot), for f32 ("ieee" and "tf32"), f16, bf16 and i8 operands.
#include "KernelTestUtil.h"

using namespace tile;
using namespace tile::kernels::test;

namespace {

const char *kBatchedDot = R"(
@triton.jit
def bmm(a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
        PREC: tl.constexpr):
    rb = tl.arange(0, B)[:, None, None]
    rm = tl.arange(0, M)[None, :, None]
    rn = tl.arange(0, N)[None, None, :]
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rb * (M * K) + rm * K + rk[None, None, :])
    b = tl.load(b_ptr + rb * (K * N) + rk[None, :, None] * N + rn)
    c_ptrs = c_ptr + rb * (M * N) + rm * N + rn
    tl.store(c_ptrs, tl.dot(a, b, tl.load(c_ptrs), input_precision=PREC))
)";

struct Case {
  Scalar in;
  const char *prec;
  int64_t B, M, N, K;
};

void checkBatchedDot(const Case &t) {
  bool intDot = t.in == Scalar::I8;
  Scalar accType = intDot ? Scalar::I32 : Scalar::F32;
  HostArray a(t.in, t.B * t.M * t.K), b(t.in, t.B * t.K * t.N), c(accType, t.B * t.M * t.N);
  std::mt19937 rng(uint32_t(t.B * 1000 + t.M * 31 + t.N * 7 + t.K));
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::uniform_int_distribution<int> small(-128, 127);
  for (int64_t i = 0; i < a.n; ++i) intDot ? a.setInt(i, small(rng)) : a.set(i, dist(rng));
  for (int64_t i = 0; i < b.n; ++i) intDot ? b.setInt(i, small(rng)) : b.set(i, dist(rng));
  for (int64_t i = 0; i < c.n; ++i) intDot ? c.setInt(i, small(rng) * 1000) : c.set(i, dist(rng));
  std::vector<double> init(size_t(c.n));
  for (int64_t i = 0; i < c.n; ++i) init[size_t(i)] = intDot ? double(c.i(i)) : c.f(i);
  RunLog log = launch(kBatchedDot, "bmm", {a.arg(), b.arg(), c.arg()},
                      {{"B", valArg(t.B)}, {"M", valArg(t.M)}, {"N", valArg(t.N)}, {"K", valArg(t.K)},
                       {"PREC", valArg(t.prec)}},
                      {1, 1, 1});
  CHECK(log.warnings.empty());
  bool tf32 = t.in == Scalar::F32 && std::string(t.prec) == "tf32";
  auto operand = [&](double v) { return tf32 ? truncateToTF32(float(v)) : float(v); };
  int bad = 0;
  for (int64_t z = 0; z < t.B; ++z)
    for (int64_t i = 0; i < t.M; ++i)
      for (int64_t j = 0; j < t.N; ++j) {
        int64_t at = (z * t.M + i) * t.N + j;
        if (intDot) {
          uint32_t acc = uint32_t(int32_t(init[size_t(at)]));
          for (int64_t k = 0; k < t.K; ++k)
            acc += uint32_t(a.i((z * t.M + i) * t.K + k)) * uint32_t(b.i((z * t.K + k) * t.N + j));
          bad += c.i(at) != int64_t(int32_t(acc));
          continue;
        }
        float acc = float(init[size_t(at)]);
        for (int64_t k = 0; k < t.K; ++k)
          acc = std::fmaf(operand(a.f((z * t.M + i) * t.K + k)), operand(b.f((z * t.K + k) * t.N + j)), acc);
        bad += !sameFloat(c.f(at), acc);
      }
  CHECK(bad == 0);
}

} // namespace

TEST_CASE("batched 3-D dot is exact per batch (f32 ieee/tf32, f16, bf16, i8)") {
  for (const Case &t : {Case{Scalar::F32, "ieee", 2, 16, 32, 16}, Case{Scalar::F32, "tf32", 4, 16, 16, 32},
                        Case{Scalar::F16, "ieee", 2, 32, 16, 16}, Case{Scalar::BF16, "ieee", 1, 16, 16, 64},
                        Case{Scalar::I8, "ieee", 2, 16, 16, 32}}) {
    CAPTURE(scalarName(t.in));
    CAPTURE(t.prec);
    CAPTURE(t.B);
    checkBatchedDot(t);
  }
}
