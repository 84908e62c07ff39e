// TensorTests.cpp - host tensor ops, broadcasting, promotion, views and
// MemoryMap registration, against hand-computed references.
#include "host/Tensor.h"
#include "interp/Interpreter.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace tile;
using namespace tile::host;

namespace {
Tensor f32(const Shape &s, std::vector<double> v) { return Tensor::fromDoubles(s, v, Scalar::F32); }
Tensor i32(const Shape &s, std::vector<int64_t> v) { return Tensor::fromInts(s, v, Scalar::I32); }
std::vector<double> values(const Tensor &t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.numel(); ++i)
    out.push_back(t.getDouble(i));
  return out;
}
ScalarOperand pyInt(int64_t i) { ScalarOperand s; s.i = i; return s; }
ScalarOperand pyFloat(double f) { ScalarOperand s; s.isFloat = true; s.f = f; return s; }
} // namespace

TEST_CASE("broadcasting a column and a row") {
  Tensor col = f32({3, 1}, {0, 10, 20});
  Tensor row = f32({1, 4}, {1, 2, 3, 4});
  Tensor r = binary(BinaryOp::Add, col, row);
  CHECK(r.shape() == Shape{3, 4});
  CHECK(values(r) == std::vector<double>{1, 2, 3, 4, 11, 12, 13, 14, 21, 22, 23, 24});
  // a missing leading axis broadcasts too
  Tensor r2 = binary(BinaryOp::Mul, f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({3}, {1, 0, -1}));
  CHECK(values(r2) == std::vector<double>{1, 0, -3, 4, 0, -6});
}

TEST_CASE("broadcast shape mismatch is an error naming both shapes") {
  CHECK_THROWS_WITH_AS(binary(BinaryOp::Add, f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({2}, {1, 2})),
                       "shapes [2, 3] and [2] cannot be broadcast together (axis 1: 3 vs 2)", HostError);
}

TEST_CASE("type promotion") {
  CHECK(promoteTypes(Scalar::I32, Scalar::F32) == Scalar::F32);
  CHECK(promoteTypes(Scalar::I64, Scalar::F16) == Scalar::F16);
  CHECK(promoteTypes(Scalar::F32, Scalar::F64) == Scalar::F64);
  CHECK(promoteTypes(Scalar::F16, Scalar::BF16) == Scalar::F32);
  CHECK(promoteTypes(Scalar::I8, Scalar::I32) == Scalar::I32);
  CHECK(promoteTypes(Scalar::U8, Scalar::I8) == Scalar::I16);
  CHECK(promoteTypes(Scalar::U32, Scalar::I32) == Scalar::I64);
  CHECK(promoteTypes(Scalar::I1, Scalar::U8) == Scalar::U8);
  Tensor ints = i32({2}, {3, 4});
  CHECK(binary(BinaryOp::Add, ints, f32({2}, {0.5, 0.5})).dtype() == Scalar::F32);
  CHECK(binary(BinaryOp::Add, ints, pyFloat(1.5)).dtype() == Scalar::F32);
  CHECK(binary(BinaryOp::Add, ints, pyInt(1)).dtype() == Scalar::I32); // Python ints are weak
  CHECK(binary(BinaryOp::Mul, Tensor::full({2}, 1, Scalar::F16), pyInt(2)).dtype() == Scalar::F16);
  Tensor q = binary(BinaryOp::Div, ints, i32({2}, {2, 8}));
  CHECK(q.dtype() == Scalar::F32);
  CHECK(values(q) == std::vector<double>{1.5, 0.5});
  Tensor cmp = binary(BinaryOp::Lt, ints, pyInt(4));
  CHECK(cmp.dtype() == Scalar::I1);
  CHECK(values(cmp) == std::vector<double>{1, 0});
  Tensor b = Tensor::fromInts({2}, {1, 1}, Scalar::I1);
  CHECK(binary(BinaryOp::Add, b, b).dtype() == Scalar::I64);
  CHECK(binary(BinaryOp::BitAnd, b, b).dtype() == Scalar::I1);
}

TEST_CASE("integer floor division and modulo follow Python") {
  Tensor a = i32({4}, {-7, 7, -7, 7});
  Tensor b = i32({4}, {2, 2, -2, -2});
  CHECK(values(binary(BinaryOp::FloorDiv, a, b)) == std::vector<double>{-4, 3, 3, -4});
  CHECK(values(binary(BinaryOp::Mod, a, b)) == std::vector<double>{1, 1, -1, -1});
  CHECK(values(binary(BinaryOp::Mod, f32({2}, {-7.5, 7.5}), pyFloat(2))) == std::vector<double>{0.5, 1.5});
  CHECK_THROWS_WITH_AS(binary(BinaryOp::FloorDiv, a, pyInt(0)), "integer division by zero", HostError);
}

TEST_CASE("int8 arithmetic wraps to the dtype") {
  Tensor a = Tensor::fromInts({1}, {127}, Scalar::I8);
  Tensor r = binary(BinaryOp::Add, a, pyInt(1));
  CHECK(r.dtype() == Scalar::I8);
  CHECK(r.getInt(0) == -128);
}

TEST_CASE("matmul accumulates and promotes") {
  Tensor a = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = f32({3, 2}, {7, 8, 9, 10, 11, 12});
  Tensor c = matmul(a, b);
  CHECK(c.dtype() == Scalar::F32);
  CHECK(values(c) == std::vector<double>{58, 64, 139, 154});
  CHECK(matmul(a.to(Scalar::F64), b).dtype() == Scalar::F64);
  CHECK(matmul(a.to(Scalar::F16), b.to(Scalar::I32)).dtype() == Scalar::F32);
  CHECK_THROWS_WITH_AS(matmul(a, a), "matmul shape mismatch: float32[2, 3] @ float32[2, 3] (inner dimensions 3 and 2 differ)",
                       HostError);
  // a transposed (strided) operand
  CHECK(values(matmul(a, a.transpose())) == std::vector<double>{14, 32, 32, 77});
}

TEST_CASE("reductions") {
  Tensor a = f32({2, 3}, {1, 5, 3, 4, 2, 6});
  CHECK(values(reduce(ReduceOp::Sum, a, 0)) == std::vector<double>{5, 7, 9});
  CHECK(values(reduce(ReduceOp::Sum, a, 1)) == std::vector<double>{9, 12});
  CHECK(values(reduce(ReduceOp::Max, a, -1)) == std::vector<double>{5, 6});
  CHECK(values(reduce(ReduceOp::Min, a, 0)) == std::vector<double>{1, 2, 3});
  Tensor all = reduce(ReduceOp::Sum, a, std::nullopt);
  CHECK(all.ndim() == 0);
  CHECK(all.getDouble(0) == 21);
  CHECK(reduce(ReduceOp::Sum, i32({2}, {1, 2}), std::nullopt).dtype() == Scalar::I64);
  CHECK(reduce(ReduceOp::Max, a, 1, true).shape() == Shape{2, 1});
  CHECK_THROWS_AS(reduce(ReduceOp::Sum, a, 2), HostError);
  CHECK_THROWS_AS(reduce(ReduceOp::Max, Tensor::zeros({0}, Scalar::F32), 0), HostError);
}

TEST_CASE("views: transpose, reshape, select, contiguous") {
  Tensor a = f32({2, 3}, {0, 1, 2, 3, 4, 5});
  Tensor t = a.transpose();
  CHECK(t.shape() == Shape{3, 2});
  CHECK(t.strides() == Shape{1, 3});
  CHECK(!t.isContiguous());
  CHECK(t.storage() == a.storage());
  CHECK(values(t) == std::vector<double>{0, 3, 1, 4, 2, 5});
  Tensor tc = t.contiguous();
  CHECK(tc.isContiguous());
  CHECK(tc.storage() != a.storage());
  Tensor r = a.reshape({3, -1});
  CHECK(r.shape() == Shape{3, 2});
  CHECK(r.storage() == a.storage()); // contiguous reshape is a view
  CHECK(values(t.reshape({6})) == std::vector<double>{0, 3, 1, 4, 2, 5});
  CHECK_THROWS_AS(a.reshape({4, 2}), HostError);
  Tensor row = a.select(0, 1);
  CHECK(values(row) == std::vector<double>{3, 4, 5});
  CHECK(a.select(1, -1).getDouble(1) == 5);
  CHECK_THROWS_WITH_AS(a.select(0, 2), "index 2 is out of bounds for axis 0 with size 2", HostError);
}

TEST_CASE("dtype conversion rounds and truncates") {
  Tensor a = Tensor::fromDoubles({3}, {1.0 / 3.0, -2.7, 70000}, Scalar::F64);
  Tensor h = a.to(Scalar::F16);
  CHECK(h.getDouble(0) == 0.333251953125);
  CHECK(std::isinf(h.getDouble(2)));
  Tensor bf = a.to(Scalar::BF16);
  CHECK(bf.getDouble(0) == 0.333984375);
  Tensor i = a.to(Scalar::I32);
  CHECK(i.getInt(0) == 0);
  CHECK(i.getInt(1) == -2);
  CHECK(Tensor::fromInts({1}, {300}, Scalar::I64).to(Scalar::U8).getInt(0) == 44);
}

TEST_CASE("unary math and where") {
  Tensor a = f32({3}, {-1, 0, 4});
  CHECK(values(unary(UnaryOp::Abs, a)) == std::vector<double>{1, 0, 4});
  CHECK(values(unary(UnaryOp::Sqrt, f32({2}, {4, 9}))) == std::vector<double>{2, 3});
  CHECK(unary(UnaryOp::Exp, i32({1}, {0})).dtype() == Scalar::F32);
  Tensor w = where(binary(BinaryOp::Gt, a, pyInt(0)), a, f32({1}, {-5}));
  CHECK(values(w) == std::vector<double>{-5, -5, 4});
}

TEST_CASE("storage registers in the interpreter's memory map") {
  interp::MemoryRegion r;
  uint64_t addr;
  {
    Tensor a = Tensor::zeros({64, 64}, Scalar::F32);
    addr = a.address();
    CHECK(addr % 64 == 0);
    REQUIRE(interp::MemoryMap::global().find(addr, 4, r));
    CHECK(r.bytes == 64 * 64 * 4);
    CHECK(r.name.find("float32[64, 64]") != std::string::npos);
    CHECK(r.name.rfind("tensor#", 0) == 0);
    Tensor view = a.transpose(); // views share the registration
    CHECK(interp::MemoryMap::global().find(addr + 4 * 4095, 4, r));
    CHECK(!interp::MemoryMap::global().find(addr + 4 * 4096, 4, r));
  }
  CHECK(!interp::MemoryMap::global().find(addr, 4, r));
}

TEST_CASE("isclose follows numpy") {
  CHECK(isClose(1.0, 1.0 + 1e-6, 1e-5, 1e-8));
  CHECK(!isClose(1.0, 1.1, 1e-5, 1e-8));
  CHECK(isClose(INFINITY, INFINITY, 1e-5, 1e-8));
  CHECK(!isClose(NAN, NAN, 1e-5, 1e-8));
  CHECK(isClose(0.0, 1e-9, 1e-5, 1e-8));
}

TEST_CASE("random numbers are deterministic per seed") {
  seedRandom(7);
  Tensor a = randUniform({100}, Scalar::F32);
  seedRandom(7);
  Tensor b = randUniform({100}, Scalar::F32);
  CHECK(values(a) == values(b));
  double mn = 1, mx = 0;
  for (double v : values(a)) {
    mn = std::min(mn, v);
    mx = std::max(mx, v);
  }
  CHECK(mn >= 0);
  CHECK(mx < 1);
  CHECK(mx - mn > 0.5);
}
