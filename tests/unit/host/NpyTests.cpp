// NpyTests.cpp - .npy round trips for every dtype, the exact header bytes,
// and clear errors for malformed files.
#include "host/Npy.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>

using namespace tile;
using namespace tile::host;

TEST_CASE("npy round trip for every dtype") {
  const Scalar all[] = {Scalar::I1, Scalar::I8, Scalar::I16, Scalar::I32, Scalar::I64, Scalar::U8, Scalar::U16,
                        Scalar::U32, Scalar::U64, Scalar::F16, Scalar::BF16, Scalar::F32, Scalar::F64};
  for (Scalar s : all) {
    CAPTURE(std::string(scalarName(s)));
    Tensor t = Tensor::zeros({2, 3}, s);
    for (int64_t i = 0; i < 6; ++i)
      t.setDouble(i, s == Scalar::I1 ? i % 2 : double(i * 3 - (isSigned(s) ? 7 : 0)) / (isFloat(s) ? 4 : 1));
    std::string bytes = serializeNpy(t);
    CHECK((bytes.find('\n') + 1) % 64 == 0); // data is 64-byte aligned
    Tensor back = parseNpy(bytes, "mem.npy");
    CHECK(back.shape() == t.shape());
    CHECK(back.dtype() == (s == Scalar::BF16 ? Scalar::U16 : s));
    for (int64_t i = 0; i < 6; ++i)
      CHECK(back.getInt(i) == (s == Scalar::BF16 ? back.getInt(i) : t.getInt(i)));
    if (s != Scalar::BF16)
      for (int64_t i = 0; i < 6; ++i)
        CHECK(back.getDouble(i) == t.getDouble(i));
  }
}

TEST_CASE("npy header is what numpy writes") {
  Tensor t = Tensor::fromDoubles({3}, {1, 2, 3}, Scalar::F32);
  std::string b = serializeNpy(t);
  CHECK(b.substr(0, 8) == std::string("\x93NUMPY\x01\x00", 8));
  CHECK(b.find("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }") == 10);
  CHECK(b.size() == 128 + 12); // 10 + 58 + 1 header bytes, padded to 128
  Tensor m = Tensor::zeros({2, 3}, Scalar::I64);
  CHECK(serializeNpy(m).find("'shape': (2, 3), }") != std::string::npos);
  CHECK(serializeNpy(Tensor::zeros({}, Scalar::U8)).find("'descr': '|u1', 'fortran_order': False, 'shape': (), }") != std::string::npos);
}

TEST_CASE("npy of a strided view saves the logical order") {
  Tensor t = Tensor::fromDoubles({2, 3}, {0, 1, 2, 3, 4, 5}, Scalar::F32).transpose();
  Tensor back = parseNpy(serializeNpy(t), "t.npy");
  CHECK(back.shape() == Shape{3, 2});
  CHECK(back.getDouble(1) == 3);
  CHECK(back.getDouble(2) == 1);
}

TEST_CASE("fortran-order npy loads as the right values") {
  std::string dict = "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }";
  dict += std::string(128 - 10 - dict.size() - 1, ' ') + "\n";
  std::string b = std::string("\x93NUMPY\x01\x00", 8) + char(dict.size()) + '\0' + dict;
  // column-major data of [[0, 1, 2], [3, 4, 5]]
  for (int32_t v : {0, 3, 1, 4, 2, 5})
    b.append(reinterpret_cast<const char *>(&v), 4);
  Tensor t = parseNpy(b, "f.npy");
  CHECK(t.shape() == Shape{2, 3});
  for (int64_t i = 0; i < 6; ++i)
    CHECK(t.getInt(i) == i);
}

TEST_CASE("malformed npy files give clear errors") {
  CHECK_THROWS_WITH_AS(parseNpy("hello world", "x.npy"), "x.npy: not a .npy file (missing the \\x93NUMPY magic)",
                       HostError);
  std::string good = serializeNpy(Tensor::zeros({4}, Scalar::F32));
  CHECK_THROWS_WITH_AS(parseNpy(good.substr(0, good.size() - 3), "t.npy"),
                       "t.npy: truncated .npy data: header says float32[4] (16 bytes) but only 13 bytes follow",
                       HostError);
  std::string c8 = good;
  c8.replace(c8.find("<f4"), 3, "<c8");
  CHECK_THROWS_WITH_AS(parseNpy(c8, "c.npy"), doctest::Contains("unsupported .npy dtype '<c8'"), HostError);
  std::string be = good;
  be.replace(be.find("<f4"), 3, ">f4");
  CHECK_THROWS_WITH_AS(parseNpy(be, "b.npy"), doctest::Contains("big-endian"), HostError);
  std::string noShape = good;
  noShape.replace(noShape.find("'shape'"), 7, "'shapf'");
  CHECK_THROWS_WITH_AS(parseNpy(noShape, "s.npy"), doctest::Contains("malformed .npy header (no 'shape')"), HostError);
  CHECK_THROWS_WITH_AS(loadNpy("/nonexistent/dir/x.npy"),
                       "cannot read '/nonexistent/dir/x.npy': No such file or directory", HostError);
  // the reason, not just "cannot open": a directory reads as nothing, so it is named
  std::string dir = std::filesystem::temp_directory_path().string();
  CHECK_THROWS_WITH_AS(loadNpy(dir), ("cannot read '" + dir + "': a directory").c_str(), HostError);
  CHECK_THROWS_WITH_AS(saveNpy(dir, Tensor::fromDoubles({1}, {1.0}, Scalar::F32)),
                       ("cannot open '" + dir + "' for writing: a directory").c_str(), HostError);
  CHECK_THROWS_WITH_AS(saveNpy("/nonexistent/dir/y.npy", Tensor::fromDoubles({1}, {1.0}, Scalar::F32)),
                       "cannot open '/nonexistent/dir/y.npy' for writing: No such file or directory", HostError);
}

TEST_CASE("bfloat16 saves as raw uint16 bits with a note and loads back") {
  auto path = (std::filesystem::temp_directory_path() / "tile_host_bf16_test.npy").string();
  Tensor t = Tensor::fromDoubles({3}, {1.0, -2.5, 0.333984375}, Scalar::BF16);
  std::optional<std::string> note = saveNpy(path, t);
  REQUIRE(note);
  CHECK(note->find("<u2") != std::string::npos);
  Tensor raw = loadNpy(path);
  CHECK(raw.dtype() == Scalar::U16);
  CHECK(raw.getInt(0) == 0x3f80);
  Tensor back = loadNpy(path, Scalar::BF16);
  CHECK(back.dtype() == Scalar::BF16);
  CHECK(back.getDouble(1) == -2.5);
  CHECK(back.getDouble(2) == 0.333984375);
  CHECK(!saveNpy(path, Tensor::zeros({1}, Scalar::F32)));
  std::remove(path.c_str());
}
