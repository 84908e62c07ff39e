// ReduceControlKernelsTest.cpp - reductions (sum/max/min/argmax/argmin with
// axis and keep_dims) and control flow (early return, while loops with a
// runtime if inside, static_range, inlined helpers) run on the interpreter
// against C++ reference loops.
#include "KernelTestUtil.h"

using namespace tile;
using namespace tile::kernels::test;

namespace {

constexpr int64_t R = 8, C = 16;

/// Loads an R x C tile of X (row stride C) masked to n_rows valid rows.
constexpr const char *kReduce = R"(
@triton.jit
def k(X, SUM0, SUM1, MAX1, MIN0, AMAX1, AMIN0, ALL, KEEP, n_rows, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    m = (r[:, None] < n_rows) & (c[None, :] < C)
    x = tl.load(X + r[:, None] * C + c[None, :], mask=m, other=0)
    tl.store(SUM0 + c, tl.sum(x, axis=0))
    tl.store(SUM1 + r, tl.sum(x, axis=1))
    tl.store(MAX1 + r, tl.max(x, axis=1))
    tl.store(MIN0 + c, tl.min(x, axis=0))
    tl.store(AMAX1 + r, tl.argmax(x, axis=1))
    tl.store(AMIN0 + c, tl.argmin(x, axis=0))
    tl.store(ALL, tl.sum(x))
    kept = tl.max(x, axis=1, keep_dims=True)
    tl.static_assert(kept.shape == (R, 1))
    tl.store(KEEP + r[:, None] * C + c[None, :], x - kept)
)";

} // namespace

TEST_CASE("reductions along each axis, over everything and with keep_dims") {
  for (Scalar s : {Scalar::I32, Scalar::F32, Scalar::I8}) {
    for (int64_t nRows : {R, int64_t(5)}) {
      CAPTURE(scalarName(s));
      CAPTURE(nRows);
      Scalar sumT = s == Scalar::I8 ? Scalar::I32 : s; // tl.sum widens i8 like Triton
      HostArray x(s, R * C), sum0(sumT, C), sum1(sumT, R), max1(s, R), min0(s, C), amax1(Scalar::I32, R),
          amin0(Scalar::I32, C), all(sumT, 1), keep(s, R * C);
      std::mt19937 rng(uint32_t(nRows) * 17 + uint32_t(s));
      // small integers: exact sums in any order, and ties for arg-reductions
      for (int64_t i = 0; i < R * C; ++i) x.set(i, double(int64_t(rng() % 9) - 4));
      launch(kReduce, "k",
             {x.arg(), sum0.arg(), sum1.arg(), max1.arg(), min0.arg(), amax1.arg(), amin0.arg(), all.arg(), keep.arg(),
              valArg(nRows)},
             {{"R", valArg(R)}, {"C", valArg(C)}}, {1, 1, 1});
      auto v = [&](int64_t i, int64_t j) { return i < nRows ? x.f(i * C + j) : 0.0; };
      int bad = 0;
      double total = 0;
      for (int64_t j = 0; j < C; ++j) {
        double s0 = 0, mn = INFINITY;
        int64_t amin = 0;
        for (int64_t i = 0; i < R; ++i) {
          s0 += v(i, j);
          if (v(i, j) < mn) mn = v(i, j), amin = i;
        }
        bad += sum0.f(j) != s0;
        bad += min0.f(j) != mn;
        bad += amin0.i(j) != amin;
      }
      for (int64_t i = 0; i < R; ++i) {
        double s1 = 0, mx = -INFINITY;
        int64_t amax = 0;
        for (int64_t j = 0; j < C; ++j) {
          s1 += v(i, j);
          if (v(i, j) > mx) mx = v(i, j), amax = j;
        }
        total += s1;
        bad += sum1.f(i) != s1;
        bad += max1.f(i) != mx;
        bad += amax1.i(i) != amax;
        for (int64_t j = 0; j < C; ++j) bad += keep.f(i * C + j) != v(i, j) - mx;
      }
      bad += all.f(0) != total;
      CHECK(bad == 0);
    }
  }
}

TEST_CASE("max with return_indices gives the value and the first index of it") {
  const char *src = R"(
@triton.jit
def k(X, V, I, C: tl.constexpr):
    x = tl.load(X + tl.arange(0, C))
    v, i = tl.max(x, axis=0, return_indices=True)
    tl.store(V, v)
    tl.store(I, i)
)";
  HostArray x(Scalar::F32, 32), v(Scalar::F32, 1), i(Scalar::I32, 1);
  for (int64_t k = 0; k < 32; ++k) x.set(k, double((k * 7) % 11));
  launch(src, "k", {x.arg(), v.arg(), i.arg()}, {{"C", valArg(32)}}, {1, 1, 1});
  CHECK(v.f(0) == 10);
  CHECK(i.i(0) == 3); // (3 * 7) % 11 == 10, the first such k
}

TEST_CASE("an early-return kernel leaves the programs past the end idle") {
  const char *src = R"(
@triton.jit
def k(X, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid * BLOCK >= n:
        return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    tl.store(X + offs, x * 2 + pid)
)";
  // n is a multiple of BLOCK, so the loads need no mask: only the programs
  // past n would overrun, and they return first.
  const int64_t n = 64;
  HostArray x(Scalar::I32, n);
  for (int64_t i = 0; i < n; ++i) x.setInt(i, i);
  RunLog log = launch(src, "k", {x.arg(), valArg(n)}, {{"BLOCK", valArg(16)}}, {10, 1, 1}, true, /*strict=*/true);
  CHECK(log.warnings.empty());
  int bad = 0;
  for (int64_t i = 0; i < n; ++i) bad += x.i(i) != i * 2 + i / 16;
  CHECK(bad == 0);
}

TEST_CASE("a while loop with a runtime if inside: Collatz step counts") {
  const char *src = R"(
@triton.jit
def collatz(X, STEPS):
    pid = tl.program_id(0)
    x = tl.load(X + pid)
    steps = 0
    while x != 1:
        if x % 2 == 0:
            x = x // 2
        else:
            x = 3 * x + 1
        steps += 1
    tl.store(STEPS + pid, steps)
)";
  const int64_t n = 50;
  HostArray x(Scalar::I64, n), steps(Scalar::I32, n);
  for (int64_t i = 0; i < n; ++i) x.setInt(i, i + 1);
  for (bool opt : {true, false}) {
    launch(src, "collatz", {x.arg(), steps.arg()}, {}, {n, 1, 1}, opt);
    int bad = 0;
    for (int64_t i = 0; i < n; ++i) {
      int64_t v = i + 1, c = 0;
      while (v != 1) v = v % 2 == 0 ? v / 2 : 3 * v + 1, ++c;
      bad += steps.i(i) != c;
    }
    CHECK(bad == 0);
  }
}

TEST_CASE("static_range unrolls a Horner polynomial; helpers with early returns inline") {
  const char *src = R"(
@triton.jit
def relu_or_scale(v, s):
    if s < 0:
        return tl.maximum(v, 0.0)
    return v * s

@triton.jit
def k(X, Y, n, s, DEG: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(X + offs, mask=m)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in tl.static_range(DEG):
        acc = acc * x + (i + 1)
    for j in range(0, 2):
        acc = relu_or_scale(acc, s)
    tl.store(Y + offs, acc, mask=m)
)";
  const int64_t n = 77;
  HostArray x(Scalar::F32, n), y(Scalar::F32, n);
  std::mt19937 rng(9);
  for (int64_t i = 0; i < n; ++i) x.set(i, std::uniform_real_distribution<double>(-2, 2)(rng));
  for (double s : {-1.0, 0.5}) {
    launch(src, "k", {x.arg(), y.arg(), valArg(n), valArg(s)}, {{"DEG", valArg(4)}, {"BLOCK", valArg(32)}},
           {cdiv(n, 32), 1, 1});
    int bad = 0;
    for (int64_t i = 0; i < n; ++i) {
      float xv = float(x.f(i)), acc = 0.0f;
      for (int d = 0; d < 4; ++d) acc = acc * xv + float(d + 1);
      for (int j = 0; j < 2; ++j) acc = s < 0 ? std::fmax(acc, 0.0f) : acc * float(s);
      bad += !sameFloat(y.f(i), acc);
    }
    CHECK(bad == 0);
  }
}
