// PrintTests.cpp - str() of tensors and scalars against NumPy's output
// (expected strings written from NumPy's documented formatting rules).
#include "host/Tensor.h"

#include <doctest/doctest.h>

#include <cmath>
#include <numeric>

using namespace tile;
using namespace tile::host;

namespace {
Tensor arangeF(int64_t n, Scalar s = Scalar::F32) {
  std::vector<double> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0.0);
  return Tensor::fromDoubles({n}, v, s);
}
Tensor f32(std::vector<double> v) { return Tensor::fromDoubles({int64_t(v.size())}, v, Scalar::F32); }
} // namespace

TEST_CASE("integral floats print with a trailing dot") {
  CHECK(arangeF(6).reshape({2, 3}).str() == "[[0. 1. 2.]\n [3. 4. 5.]]");
  CHECK(f32({-1, 2}).str() == "[-1.  2.]");
}

TEST_CASE("fractions are padded to align the decimal point") {
  CHECK(f32({1.5, 2.25, 3.0}).str() == "[1.5  2.25 3.  ]");
  CHECK(f32({0.1}).str() == "[0.1]");
  CHECK(f32({1.0 / 3.0}).str() == "[0.33333334]");
  CHECK(Tensor::fromDoubles({1}, {1.0 / 3.0}, Scalar::F64).str() == "[0.33333333]");
  CHECK(Tensor::fromDoubles({1}, {0.1}, Scalar::F16).str() == "[0.1]");
}

TEST_CASE("scientific notation for wide ranges") {
  CHECK(f32({0.001, 10.0}).str() == "[1.e-03 1.e+01]");
  CHECK(f32({1e-5, 1.5}).str() == "[1.0e-05 1.5e+00]");
  CHECK(f32({1e8}).str() == "[1.e+08]");
}

TEST_CASE("non-finite values") {
  CHECK(f32({1, NAN, INFINITY}).str() == "[ 1. nan inf]");
}

TEST_CASE("ints and bools") {
  CHECK(Tensor::fromInts({3}, {1, 22, 333}, Scalar::I32).str() == "[  1  22 333]");
  CHECK(Tensor::fromInts({3}, {-5, 0, 7}, Scalar::I64).str() == "[-5  0  7]");
  CHECK(Tensor::fromInts({2}, {1, 0}, Scalar::I1).str() == "[ True False]");
}

TEST_CASE("three dimensions separate blocks with a blank line") {
  CHECK(arangeF(8).reshape({2, 2, 2}).str() == "[[[0. 1.]\n  [2. 3.]]\n\n [[4. 5.]\n  [6. 7.]]]");
}

TEST_CASE("long rows wrap at 75 columns") {
  CHECK(arangeF(30).str() ==
        "[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11. 12. 13. 14. 15. 16. 17.\n"
        " 18. 19. 20. 21. 22. 23. 24. 25. 26. 27. 28. 29.]");
}

TEST_CASE("summarization beyond 1000 elements") {
  std::vector<int64_t> v(2000);
  std::iota(v.begin(), v.end(), 0);
  CHECK(Tensor::fromInts({2000}, v, Scalar::I64).str() == "[   0    1    2 ... 1997 1998 1999]");
  std::string row = " [0. 0. 0. ... 0. 0. 0.]";
  CHECK(Tensor::zeros({100, 100}, Scalar::F32).str() ==
        "[" + row.substr(1) + "\n" + row + "\n" + row + "\n ...\n" + row + "\n" + row + "\n" + row + "]");
}

TEST_CASE("0-d tensors and empty tensors") {
  CHECK(Tensor::full({}, 1.5, Scalar::F32).str() == "1.5");
  CHECK(Tensor::full({}, 0.1, Scalar::F32).str() == "0.1");
  CHECK(Tensor::full({}, 3, Scalar::I32).str() == "3");
  CHECK(Tensor::zeros({0}, Scalar::F32).str() == "[]");
}

TEST_CASE("Python float repr") {
  CHECK(pythonFloatRepr(1.5) == "1.5");
  CHECK(pythonFloatRepr(1.0) == "1.0");
  CHECK(pythonFloatRepr(0.1) == "0.1");
  CHECK(pythonFloatRepr(123456.0) == "123456.0");
  CHECK(pythonFloatRepr(1e-5) == "1e-05");
  CHECK(pythonFloatRepr(1e16) == "1e+16");
  CHECK(pythonFloatRepr(-2.5e-7) == "-2.5e-07");
  CHECK(pythonFloatRepr(0.0001) == "0.0001");
  CHECK(pythonFloatRepr(double(0.1f)) == "0.10000000149011612");
  CHECK(numpyScalarRepr(double(0.1f), Scalar::F32) == "0.1");
  CHECK(pythonFloatRepr(INFINITY) == "inf");
}
