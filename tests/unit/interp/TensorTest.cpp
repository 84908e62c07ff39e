// TensorTest.cpp - interpreter tests of tensor ops against reference loops:
// dot (through the seed matmul kernel, ragged sizes, several dtypes),
// reductions over each axis, shape ops, masked load/store with `other`.
#include "InterpTestUtil.h"
#include "MatmulKernel.h"

using namespace tile;
using namespace tile::interp;
using namespace tile::interp::test;
using ir::OpKind;
using ir::Type;
using ir::Value;

namespace {

void fillSmall(HostBuf &buf, std::mt19937_64 &rng, int range) {
  for (int64_t k = 0; k < buf.n; ++k) {
    int64_t v = int64_t(rng() % (2 * range + 1)) - range;
    if (isFloat(buf.s))
      buf.setF(k, double(v) + (rng() % 4) * 0.25);
    else
      buf.setI(k, v);
  }
}

struct MatmulCase {
  MatmulConfig cfg;
  int64_t M, N, K;
};

void checkMatmul(MatmulCase mc, uint64_t seed) {
  MatmulConfig &c = mc.cfg;
  c.iters = cdiv(mc.K, c.blockK);
  std::mt19937_64 rng(seed);
  HostBuf a(c.in, mc.M * mc.K), b(c.in, mc.K * mc.N), out(c.acc, mc.M * mc.N);
  fillSmall(a, rng, isFloat(c.in) ? 8 : 127);
  fillSmall(b, rng, isFloat(c.in) ? 8 : 127);
  if (isFloat(c.in))
    for (int64_t k = 0; k < a.n; k += 5)
      a.setF(k, a.f(k) * 1.0009765625 + 1e-3); // values that need rounding
  ir::Function fn("matmul", Location{});
  buildMatmul(fn, c);
  std::vector<ScalarArg> args = {a.arg(), b.arg(), out.arg(), i32Arg(mc.M), i32Arg(mc.N), i32Arg(mc.K),
                                 i32Arg(mc.K), i32Arg(1), i32Arg(mc.N), i32Arg(1), i32Arg(mc.N), i32Arg(1)};
  // The seed kernel masks its loads along K only: with M or N not a
  // multiple of the block, edge programs read past A and B (rows/columns the
  // masked store then drops). That warns once per load op.
  Capture cap;
  run(fn, Grid{cdiv(mc.M, c.blockM), cdiv(mc.N, c.blockN), 1}, args, cap.opts());
  CHECK(cap.warnings.size() == size_t(mc.M % c.blockM != 0) + size_t(mc.N % c.blockN != 0));
  for (const std::string &w : cap.warnings)
    CHECK(w.find("out-of-bounds load in kernel 'matmul'") != std::string::npos);
  for (int64_t i = 0; i < mc.M; ++i)
    for (int64_t j = 0; j < mc.N; ++j) {
      CAPTURE(i);
      CAPTURE(j);
      if (isFloat(c.in)) {
        // A "tf32" dot truncates f32 operands to tf32 first; f16/bf16 are exact.
        bool toTF32 = c.in == Scalar::F32 && c.precision == "tf32";
        auto operand = [&](double v) { return toTF32 ? truncateToTF32(float(v)) : float(v); };
        float acc = 0;
        for (int64_t k = 0; k < mc.K; ++k)
          acc = std::fmaf(operand(a.f(i * mc.K + k)), operand(b.f(k * mc.N + j)), acc);
        CHECK(out.f(i * mc.N + j) == double(acc));
      } else {
        uint32_t acc = 0;
        for (int64_t k = 0; k < mc.K; ++k)
          acc += uint32_t(a.i(i * mc.K + k)) * uint32_t(b.i(k * mc.N + j));
        CHECK(out.i(i * mc.N + j) == int64_t(int32_t(acc)));
      }
    }
}

} // namespace

TEST_CASE("interp: seed matmul (dot in a K loop) matches fmaf reference loops") {
  MatmulCase cases[] = {
      {{Scalar::F32, Scalar::F32, 16, 16, 16}, 33, 17, 40},
      {{Scalar::F32, Scalar::F32, 16, 16, 16}, 1, 1, 1},
      {{Scalar::F32, Scalar::F32, 16, 16, 16, 1, "ieee"}, 33, 17, 40},
      {{Scalar::F32, Scalar::F32, 16, 16, 16, 1, "tf32x3"}, 17, 18, 19},
      {{Scalar::F16, Scalar::F32, 16, 32, 8}, 20, 7, 9},
      {{Scalar::BF16, Scalar::F32, 32, 16, 16}, 7, 33, 100},
      {{Scalar::I8, Scalar::I32, 32, 16, 16}, 40, 33, 50},
      {{Scalar::F64, Scalar::F64, 16, 16, 16}, 9, 9, 20},
  };
  uint64_t seed = 100;
  for (const MatmulCase &mc : cases) {
    CAPTURE(scalarName(mc.cfg.in));
    CAPTURE(mc.cfg.precision);
    CAPTURE(mc.M);
    if (mc.cfg.in == Scalar::F64)
      continue; // f64 checked below with double fma
    checkMatmul(mc, seed++);
  }
}

namespace {

/// Offsets of a rows x cols row-major tile: r[:, None] * cols + c[None, :].
Value *rowMajor(ir::Builder &b, int64_t rows, int64_t cols) {
  Value *r = b.binary(OpKind::Mul, b.expandDims(b.arange(0, rows), 1),
                      b.splat(b.constantInt(cols, Type::scalar(Scalar::I32)), {rows, 1}));
  Value *c = b.expandDims(b.arange(0, cols), 0);
  return b.binary(OpKind::Add, b.broadcast(r, {rows, cols}), b.broadcast(c, {rows, cols}));
}

Value *load2d(Kernel &k, Value *ptr, int64_t rows, int64_t cols) {
  return k.b.load(k.b.addptr(k.b.splat(ptr, {rows, cols}), rowMajor(k.b, rows, cols)));
}

void store1d(Kernel &k, Value *ptr, Value *v) {
  int64_t n = v->type.numElements();
  if (!v->type.isTensor()) {
    k.b.store(ptr, v);
    return;
  }
  k.b.store(k.b.addptr(k.b.splat(ptr, {n}), k.b.arange(0, n)), v);
}

const char *kKinds[] = {"sum", "max", "min", "argmax", "argmin"};

/// Reference reduction of the column (axis 0) or row (axis 1) `at`.
template <typename T> void refReduce(const std::string &kind, const std::vector<T> &xs, T &acc, int64_t &idx) {
  acc = xs[0], idx = 0;
  for (size_t k = 1; k < xs.size(); ++k) {
    T y = xs[k];
    if (kind == "sum") {
      acc = acc + y;
      continue;
    }
    bool isMax = kind == "max" || kind == "argmax";
    if constexpr (std::is_floating_point_v<T>) {
      // NaN is ignored, as by Triton's default max/min combine functions.
      if (std::isnan(y))
        continue;
      if (std::isnan(acc)) {
        acc = y, idx = int64_t(k);
        continue;
      }
    }
    if (isMax ? y > acc : y < acc)
      acc = y, idx = int64_t(k);
  }
}

} // namespace

TEST_CASE("interp: reductions over each axis of 2-D tensors") {
  constexpr int64_t R = 8, C = 16;
  std::mt19937_64 rng(4242);
  const Scalar types[] = {Scalar::F32, Scalar::F16, Scalar::I32, Scalar::I8, Scalar::U16};
  for (Scalar s : types)
    for (const char *kindC : kKinds)
      for (int axis = 0; axis < 2; ++axis) {
        std::string kind = kindC;
        CAPTURE(scalarName(s));
        CAPTURE(kind);
        CAPTURE(axis);
        bool arg = kind.rfind("arg", 0) == 0;
        Scalar outType = arg ? Scalar::I32 : (kind == "sum" && s == Scalar::I8) ? Scalar::I32 : s;
        int64_t outN = axis == 0 ? C : R;
        HostBuf x(s, R * C), out(outType, outN);
        fillSmall(x, rng, isFloat(s) ? 100 : 3); // small ints: many ties
        if (isFloat(s) && kind != "sum")
          x.setF(5 * C + 3, std::nan("")); // row 5, column 3
        if (s == Scalar::I8 && kind == "sum")
          for (int64_t k = 0; k < x.n; ++k)
            x.setI(k, 100 + int64_t(k % 20)); // overflows i8, not i32
        Kernel kern;
        Value *xp = kern.param(ElemType::ptrTo(s), "x"), *op = kern.param(ElemType::ptrTo(outType), "out");
        store1d(kern, op, kern.b.reduce(load2d(kern, xp, R, C), kind, axis, ElemType::of(outType)));
        run(*kern.fn, Grid{}, {x.arg(), out.arg()});
        for (int64_t at = 0; at < outN; ++at) {
          CAPTURE(at);
          int64_t len = axis == 0 ? R : C, idx = 0;
          auto elem = [&](int64_t k) { return axis == 0 ? k * C + at : at * C + k; };
          if (isFloat(s)) {
            std::vector<float> xs;
            for (int64_t k = 0; k < len; ++k)
              xs.push_back(float(x.f(elem(k))));
            float acc;
            refReduce(kind, xs, acc, idx);
            if (kind == "sum" && s == Scalar::F16) { // rounds to f16 after each add
              double a = xs[0];
              for (int64_t k = 1; k < len; ++k)
                a = halfBitsToFloat(floatToHalfBits(float(a + xs[k])));
              acc = float(a);
            }
            if (arg)
              CHECK(out.i(at) == idx);
            else
              CHECK(sameFloat(out.f(at), acc));
          } else {
            std::vector<int64_t> xs;
            for (int64_t k = 0; k < len; ++k)
              xs.push_back(x.i(elem(k)));
            int64_t acc;
            refReduce(kind, xs, acc, idx);
            HostBuf wrapped(outType, 1);
            wrapped.setI(0, arg ? idx : acc); // sums wrap to the result type
            CHECK(out.i(at) == wrapped.i(0));
          }
        }
      }
}

TEST_CASE("interp: reduce of a 1-D tensor gives a scalar") {
  HostBuf x(Scalar::F32, 16), out(Scalar::F32, 1);
  for (int k = 0; k < 16; ++k)
    x.setF(k, k * 0.5);
  Kernel kern;
  Value *xp = kern.param(ElemType::ptrTo(Scalar::F32), "x"), *op = kern.param(ElemType::ptrTo(Scalar::F32), "out");
  Value *v = kern.b.load(kern.b.addptr(kern.b.splat(xp, {16}), kern.b.arange(0, 16)));
  kern.b.store(op, kern.b.reduce(v, "sum", 0, ElemType::of(Scalar::F32)));
  run(*kern.fn, Grid{}, {x.arg(), out.arg()});
  CHECK(out.f(0) == 60.0);
}

TEST_CASE("interp: broadcast, expand_dims, reshape and permute") {
  constexpr int64_t R = 4, C = 8;
  HostBuf x(Scalar::I32, R * C), row(Scalar::I32, C), outT(Scalar::I32, R * C), outB(Scalar::I32, R * C),
      outR(Scalar::I32, R * C), out3(Scalar::I32, R * C);
  for (int64_t k = 0; k < R * C; ++k)
    x.setI(k, 1000 + k);
  for (int64_t k = 0; k < C; ++k)
    row.setI(k, k * k);
  Kernel kern;
  Value *xp = kern.param(ElemType::ptrTo(Scalar::I32), "x"), *rp = kern.param(ElemType::ptrTo(Scalar::I32), "row");
  Value *tp = kern.param(ElemType::ptrTo(Scalar::I32), "t"), *bp = kern.param(ElemType::ptrTo(Scalar::I32), "b");
  Value *rsp = kern.param(ElemType::ptrTo(Scalar::I32), "r"), *p3 = kern.param(ElemType::ptrTo(Scalar::I32), "p3");
  ir::Builder &b = kern.b;
  Value *xv = load2d(kern, xp, R, C);
  // transpose: out[j][i] = x[i][j]
  b.store(b.addptr(b.splat(tp, {C, R}), rowMajor(b, C, R)), b.permute(xv, {1, 0}));
  // broadcast a (1, C) row over R rows and add
  Value *rv = b.expandDims(b.load(b.addptr(b.splat(rp, {C}), b.arange(0, C))), 0);
  b.store(b.addptr(b.splat(bp, {R, C}), rowMajor(b, R, C)), b.binary(OpKind::Add, xv, b.broadcast(rv, {R, C})));
  // reshape keeps row-major order
  store1d(kern, rsp, b.reshape(b.reshape(xv, {2, 16}), {32}));
  // 3-D permute: x3[a][b][c] (2x2x8) -> y[c][a][b]
  store1d(kern, p3, b.reshape(b.permute(b.reshape(xv, {2, 2, 8}), {2, 0, 1}), {32}));
  run(*kern.fn, Grid{}, {x.arg(), row.arg(), outT.arg(), outB.arg(), outR.arg(), out3.arg()});
  for (int64_t i = 0; i < R; ++i)
    for (int64_t j = 0; j < C; ++j) {
      CHECK(outT.i(j * R + i) == x.i(i * C + j));
      CHECK(outB.i(i * C + j) == x.i(i * C + j) + j * j);
    }
  for (int64_t k = 0; k < R * C; ++k)
    CHECK(outR.i(k) == x.i(k));
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t bb = 0; bb < 2; ++bb)
      for (int64_t c = 0; c < 8; ++c)
        CHECK(out3.i((c * 2 + a) * 2 + bb) == x.i((a * 2 + bb) * 8 + c));
}

TEST_CASE("interp: masked load with other and masked store") {
  constexpr int64_t n = 100, block = 32;
  HostBuf x(Scalar::F16, n), out(Scalar::F16, n);
  std::mt19937_64 rng(8);
  fillSmall(x, rng, 50);
  for (int64_t k = 0; k < n; ++k)
    out.setF(k, 777.0); // sentinel for lanes the store skips
  Kernel kern;
  Value *xp = kern.param(ElemType::ptrTo(Scalar::F16), "x"), *op = kern.param(ElemType::ptrTo(Scalar::F16), "out");
  Value *nv = kern.param(ElemType::of(Scalar::I32), "n");
  ir::Builder &b = kern.b;
  Value *offs = kern.blockOffsets(block);
  Value *inRange = kern.lessThan(offs, nv);
  Value *three = b.splat(kern.i32(3), {block});
  Value *notDiv3 = b.cmp("ne", b.binary(OpKind::Rem, offs, three), b.splat(kern.i32(0), {block}));
  Value *other = b.constantFloat(-2.5, Type::tensor(ElemType::of(Scalar::F16), {block}));
  Value *v = b.load(kern.ptrs(xp, offs), b.binary(OpKind::And, inRange, notDiv3), other);
  Value *even = b.cmp("eq", b.binary(OpKind::And, offs, b.splat(kern.i32(1), {block})), b.splat(kern.i32(0), {block}));
  b.store(kern.ptrs(op, offs), v, b.binary(OpKind::And, inRange, even));
  run(*kern.fn, Grid{cdiv(n, block), 1, 1}, {x.arg(), out.arg(), i32Arg(n)});
  for (int64_t k = 0; k < n; ++k) {
    CAPTURE(k);
    double expect = k % 2 != 0 ? 777.0 : k % 3 == 0 ? -2.5 : x.f(k);
    CHECK(out.f(k) == expect);
  }
}

TEST_CASE("interp: f64 dot accumulates with double fma") {
  HostBuf a(Scalar::F64, 16 * 16), b(Scalar::F64, 16 * 16), out(Scalar::F64, 16 * 16);
  std::mt19937_64 rng(12);
  for (int64_t k = 0; k < a.n; ++k)
    a.setF(k, std::uniform_real_distribution<double>(-1, 1)(rng)), b.setF(k, std::uniform_real_distribution<double>(-1, 1)(rng));
  ir::Function fn("matmul64", Location{});
  buildMatmul(fn, {Scalar::F64, Scalar::F64, 16, 16, 16, 1});
  run(fn, Grid{}, {a.arg(), b.arg(), out.arg(), i32Arg(16), i32Arg(16), i32Arg(16), i32Arg(16), i32Arg(1),
                   i32Arg(16), i32Arg(1), i32Arg(16), i32Arg(1)});
  for (int64_t i = 0; i < 16; ++i)
    for (int64_t j = 0; j < 16; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < 16; ++k)
        acc = std::fma(a.f(i * 16 + k), b.f(k * 16 + j), acc);
      CHECK(out.f(i * 16 + j) == acc);
    }
}
