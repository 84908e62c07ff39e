// ElementwiseKernelsTest.cpp - elementwise kernels from source, run on the
// interpreter and compared with plain C++ loops: vector add over dtypes and
// ragged sizes, where/minimum/maximum, integer // and % with negative
// operands (C truncation at run time, Python floor for constexprs), casts.
#include "KernelTestUtil.h"

using namespace tile;
using namespace tile::kernels::test;

namespace {

constexpr const char *kAdd = R"(
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
)";

/// A random value exactly representable in s.
double randomValue(std::mt19937 &rng, Scalar s) {
  if (isFloat(s)) {
    double v = std::uniform_real_distribution<double>(-100.0, 100.0)(rng);
    return roundToFloatType(v, s);
  }
  if (s == Scalar::I1) return double(rng() & 1);
  int bits = std::min(bitWidth(s), 31);
  int64_t lo = isSigned(s) ? -(int64_t(1) << (bits - 1)) : 0;
  int64_t hi = isSigned(s) ? (int64_t(1) << (bits - 1)) - 1 : (int64_t(1) << bits) - 1;
  return double(std::uniform_int_distribution<int64_t>(lo, hi)(rng));
}

} // namespace

TEST_CASE("vector add over dtypes and ragged sizes matches a C++ loop") {
  std::mt19937 rng(42);
  for (Scalar s : {Scalar::F32, Scalar::F16, Scalar::BF16, Scalar::F64, Scalar::I32, Scalar::I8, Scalar::I64,
                   Scalar::U8, Scalar::U16}) {
    for (int64_t n : {1, 127, 128, 1000}) {
      CAPTURE(scalarName(s));
      CAPTURE(n);
      HostArray x(s, n), y(s, n), out(s, n + 5);
      for (int64_t i = 0; i < n; ++i) x.set(i, randomValue(rng, s)), y.set(i, randomValue(rng, s));
      out.fill(7); // past n stays untouched
      RunLog log = launch(kAdd, "add_kernel", {x.arg(), y.arg(), out.arg(), valArg(n)},
                          {{"BLOCK", valArg(int64_t(128))}}, {cdiv(n, 128), 1, 1}, /*optimize=*/n % 2 == 0);
      CHECK(log.warnings.empty());
      int bad = 0;
      for (int64_t i = 0; i < n; ++i) {
        if (isFloat(s)) {
          double want = roundToFloatType(x.f(i) + y.f(i), s);
          bad += !sameFloat(out.f(i), want);
        } else {
          int64_t want = wrapToIntType(x.i(i) + y.i(i), s);
          bad += out.i(i) != want;
        }
      }
      CHECK(bad == 0);
      for (int64_t i = n; i < n + 5; ++i) CHECK(out.f(i) == 7);
    }
  }
}

TEST_CASE("where, minimum and maximum follow Triton (NaN yields the other operand)") {
  const char *src = R"(
@triton.jit
def k(X, Y, W, MN, MX, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(X + offs, mask=m)
    y = tl.load(Y + offs, mask=m)
    tl.store(W + offs, tl.where(x > y, x - y, 0.5), mask=m)
    tl.store(MN + offs, tl.minimum(x, y), mask=m)
    tl.store(MX + offs, tl.maximum(x, y), mask=m)
)";
  std::mt19937 rng(7);
  int64_t n = 300;
  HostArray x(Scalar::F32, n), y(Scalar::F32, n), w(Scalar::F32, n), mn(Scalar::F32, n), mx(Scalar::F32, n);
  for (int64_t i = 0; i < n; ++i) {
    x.set(i, i % 17 == 0 ? NAN : randomValue(rng, Scalar::F32));
    y.set(i, i % 23 == 0 ? NAN : randomValue(rng, Scalar::F32));
  }
  launch(src, "k", {x.arg(), y.arg(), w.arg(), mn.arg(), mx.arg(), valArg(n)}, {{"BLOCK", valArg(64)}},
         {cdiv(n, 64), 1, 1});
  int bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    float a = float(x.f(i)), b = float(y.f(i));
    bad += !sameFloat(w.f(i), a > b ? double(a - b) : 0.5);
    bad += !sameFloat(mn.f(i), std::fmin(a, b));
    bad += !sameFloat(mx.f(i), std::fmax(a, b));
  }
  CHECK(bad == 0);
}

TEST_CASE("integer // and % truncate toward zero at run time, as in C") {
  const char *src = R"(
@triton.jit
def k(A, B, Q, R, Q3, R3, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(A + offs, mask=m)
    b = tl.load(B + offs, mask=m, other=1)
    tl.store(Q + offs, a // b, mask=m)
    tl.store(R + offs, a % b, mask=m)
    tl.store(Q3 + offs, a // -3, mask=m)
    tl.store(R3 + offs, a % -3, mask=m)
)";
  for (Scalar s : {Scalar::I32, Scalar::I8, Scalar::I64}) {
    CAPTURE(scalarName(s));
    int64_t n = 200;
    HostArray a(s, n), b(s, n), q(s, n), r(s, n), q3(s, n), r3(s, n);
    std::mt19937 rng(3);
    for (int64_t i = 0; i < n; ++i) {
      a.setInt(i, int64_t(rng() % 201) - 100);
      int64_t d = int64_t(rng() % 21) - 10;
      b.setInt(i, d == 0 ? 7 : d);
    }
    launch(src, "k", {a.arg(), b.arg(), q.arg(), r.arg(), q3.arg(), r3.arg(), valArg(n)}, {{"BLOCK", valArg(32)}},
           {cdiv(n, 32), 1, 1});
    int bad = 0;
    for (int64_t i = 0; i < n; ++i) {
      bad += q.i(i) != a.i(i) / b.i(i);
      bad += r.i(i) != a.i(i) % b.i(i);
      bad += q3.i(i) != a.i(i) / -3;
      bad += r3.i(i) != a.i(i) % -3;
    }
    CHECK(bad == 0);
    // a case that differs from Python: -7 // 2 == -3 and -7 % 2 == -1 in C
    CHECK(-7 / 2 == -3);
  }
}

TEST_CASE("constexpr // and % follow Python (floor), runtime ones C (truncation)") {
  const char *src = R"(
@triton.jit
def k(OUT, a, b, CA: tl.constexpr, CB: tl.constexpr):
    tl.store(OUT + 0, CA // CB)
    tl.store(OUT + 1, CA % CB)
    tl.store(OUT + 2, a // b)
    tl.store(OUT + 3, a % b)
)";
  HostArray out(Scalar::I32, 4);
  launch(src, "k", {out.arg(), valArg(-7), valArg(2)}, {{"CA", valArg(-7)}, {"CB", valArg(2)}}, {1, 1, 1});
  CHECK(out.i(0) == -4);
  CHECK(out.i(1) == 1);
  CHECK(out.i(2) == -3);
  CHECK(out.i(3) == -1);
}

TEST_CASE("casts: float to int truncates and saturates, ints extend by their own signedness") {
  const char *src = R"(
@triton.jit
def k(F, I8, U8, TO_I32, TO_F16, TO_BF16, FROM_I8, FROM_U8, TO_I1, TO_I8, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    f = tl.load(F + offs, mask=m)
    tl.store(TO_I32 + offs, f.to(tl.int32), mask=m)
    tl.store(TO_F16 + offs, f.to(tl.float16), mask=m)
    tl.store(TO_BF16 + offs, f.to(tl.bfloat16), mask=m)
    tl.store(TO_I1 + offs, f.to(tl.int1), mask=m)
    a = tl.load(I8 + offs, mask=m)
    u = tl.load(U8 + offs, mask=m)
    tl.store(FROM_I8 + offs, a.to(tl.int32), mask=m)
    tl.store(FROM_U8 + offs, u.to(tl.int32), mask=m)
    tl.store(TO_I8 + offs, (a.to(tl.int32) * 3).to(tl.int8), mask=m)
)";
  const int64_t n = 40;
  HostArray f(Scalar::F32, n), i8(Scalar::I8, n), u8(Scalar::U8, n), toI32(Scalar::I32, n), toF16(Scalar::F16, n),
      toBF16(Scalar::BF16, n), fromI8(Scalar::I32, n), fromU8(Scalar::I32, n), toI1(Scalar::I1, n),
      toI8(Scalar::I8, n);
  std::mt19937 rng(11);
  const double specials[] = {0.0, -0.0, 2.5, -2.5, 3e9, -3e9, 1e-8, 65519.0, 70000.0, -1.75};
  for (int64_t i = 0; i < n; ++i) {
    f.set(i, i < 10 ? specials[i] : std::uniform_real_distribution<double>(-1000, 1000)(rng));
    i8.setInt(i, int64_t(rng() % 256) - 128);
    u8.setInt(i, int64_t(rng() % 256));
  }
  launch(src, "k",
         {f.arg(), i8.arg(), u8.arg(), toI32.arg(), toF16.arg(), toBF16.arg(), fromI8.arg(), fromU8.arg(), toI1.arg(),
          toI8.arg(), valArg(n)},
         {{"BLOCK", valArg(64)}}, {1, 1, 1});
  int bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    float v = float(f.f(i));
    int64_t sat = v >= 2147483648.0f ? INT32_MAX : v <= -2147483648.0f ? INT32_MIN : int64_t(std::trunc(v));
    bad += toI32.i(i) != sat;
    bad += !sameFloat(toF16.f(i), halfBitsToFloat(floatToHalfBits(v)));
    bad += !sameFloat(toBF16.f(i), bf16BitsToFloat(floatToBF16Bits(v)));
    bad += toI1.i(i) != (v != 0.0f ? 1 : 0);
    bad += fromI8.i(i) != int64_t(int8_t(i8.i(i)));
    bad += fromU8.i(i) != int64_t(uint8_t(u8.i(i)));
    bad += toI8.i(i) != int64_t(int8_t(uint8_t(i8.i(i) * 3)));
  }
  CHECK(bad == 0);
  CHECK(toF16.f(8) == INFINITY); // 70000 overflows half
  CHECK(toI32.i(4) == INT32_MAX);
}
