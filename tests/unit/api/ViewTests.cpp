// ViewTests.cpp - tensor views (slice, select, transpose, permute, reshape)
// and tensors over foreign memory (Context::fromAddress) on the
// interpreter: views gathered and scattered against plain C++ indexing of
// random data on ragged shapes, kernels launched on strided views and on
// wrapped std::vector memory (results, bounds checks, the registration's
// lifetime), and every bad argument an Error saying what is wrong.
#include <tile/tile.h>

#include "cuda/Cuda.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <functional>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace {

using Index = std::vector<int64_t>;

tile::Context interpreter(bool strict = false, std::vector<std::string> *warnings = nullptr) {
  tile::ContextOptions o;
  o.device = tile::DeviceKind::Interpreter;
  o.strict = strict;
  if (warnings) o.onWarning = [warnings](const std::string &w) { warnings->push_back(w); };
  return tile::Context(o);
}

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

template <typename T> uint64_t addressOf(const T *p) { return uint64_t(reinterpret_cast<uintptr_t>(p)); }

std::vector<int32_t> randomInts(size_t n, std::mt19937 &rng) {
  std::uniform_int_distribution<int32_t> dist(-1000000, 1000000);
  std::vector<int32_t> v(n);
  for (int32_t &x : v) x = dist(rng);
  return v;
}

std::vector<float> randomFloats(size_t n, std::mt19937 &rng) {
  std::uniform_real_distribution<float> dist(-10.0f, 10.0f);
  std::vector<float> v(n);
  for (float &x : v) x = dist(rng);
  return v;
}

/// Calls f on every multi-index of shape, in C order.
void forEachIndex(const tile::Shape &shape, const std::function<void(const Index &)> &f) {
  for (int64_t d : shape)
    if (d == 0) return;
  Index idx(shape.size(), 0);
  while (true) {
    f(idx);
    int d = int(shape.size()) - 1;
    for (; d >= 0 && ++idx[size_t(d)] == shape[size_t(d)]; --d) idx[size_t(d)] = 0;
    if (d < 0) return;
  }
}

/// The view's copyToHost equals `expected` at every index, in C order.
template <typename T> void checkGather(const tile::Tensor &view, const tile::Shape &shape,
                                       const std::function<T(const Index &)> &expected) {
  REQUIRE(view.shape() == shape);
  std::vector<T> got = view.toHost<T>();
  REQUIRE(int64_t(got.size()) == view.numel());
  size_t pos = 0, bad = 0;
  forEachIndex(shape, [&](const Index &idx) { bad += got[pos++] != expected(idx); });
  CHECK(pos == got.size());
  CHECK(bad == 0);
}

/// A 7 x 5 x 3 int32 tensor of random values and its host copy.
struct Parent {
  static constexpr int64_t A = 7, B = 5, C = 3;
  explicit Parent(tile::Context c = interpreter()) : ctx(std::move(c)) {}
  tile::Context ctx;
  std::mt19937 rng{1234};
  std::vector<int32_t> data = randomInts(size_t(A * B * C), rng);
  tile::Tensor t = ctx.fromHost({A, B, C}, tile::DType::I32, data);
  int32_t at(int64_t i, int64_t j, int64_t k) const { return data[size_t((i * B + j) * C + k)]; }
};

const char *kKernels = R"(import triton
import triton.language as tl

@triton.jit
def affine2d_kernel(src_ptr, dst_ptr, M, N, s_m, s_n, d_m, d_n,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    x = tl.load(src_ptr + offs_m[:, None] * s_m + offs_n[None, :] * s_n, mask=mask)
    tl.store(dst_ptr + offs_m[:, None] * d_m + offs_n[None, :] * d_n, x * 2.0 + 1.0, mask=mask)

@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x * 3.0, mask=mask)

@triton.jit
def read_all_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, x)

@triton.jit
def read_at_kernel(base_ptr, delta, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(base_ptr + delta + offs)
    tl.store(out_ptr + offs, x)
)";

/// dst[i, j] = 2 * src[i, j] + 1 over M x N views, through their strides.
void affine2d(const tile::Program &prog, const tile::Tensor &src, const tile::Tensor &dst) {
  int64_t M = src.dim(0), N = src.dim(1);
  prog.kernel("affine2d_kernel")
      .launch({cdiv(M, 4), cdiv(N, 4)},
              {src, dst, M, N, src.stride(0), src.stride(1), dst.stride(0), dst.stride(1)},
              {{"BLOCK_M", 4}, {"BLOCK_N", 4}});
}

/// The interpreter, and the GPU when a driver is present (no compiler is
/// needed for copies: device memory through the driver alone).
std::vector<tile::Context> contexts() {
  std::vector<tile::Context> out{interpreter()};
  if (tile::cuda::Driver::get()) {
    tile::ContextOptions o;
    o.device = tile::DeviceKind::Gpu;
    out.emplace_back(o);
  }
  return out;
}

} // namespace

TEST_CASE("views: metadata of slice, select, transpose and permute") {
  Parent p;
  tile::Tensor t = p.t;
  CHECK(t.offset() == 0);
  CHECK(t.isContiguous());
  tile::Tensor s = t.slice(0, 1, 7, 2);
  CHECK(s.shape() == tile::Shape{3, 5, 3});
  CHECK(s.strides() == tile::Shape{30, 3, 1});
  CHECK(s.offset() == 15);
  CHECK(s.address() == t.address() + 15 * 4);
  CHECK(!s.isContiguous());
  CHECK(t.slice(0, 2, 5).isContiguous());
  CHECK(t.select(0, 3).isContiguous());
  CHECK(!t.select(2, 0).isContiguous());
  CHECK(t.select(2, -1).offset() == 2);
  CHECK(!t.transpose(0, 1).isContiguous());
  CHECK(t.slice(1, 2, 3).transpose(1, 0).isContiguous() == false);
  CHECK(t.select(1, 2).select(1, 0).slice(0, 4, 5).isContiguous()); // one element
  CHECK(t.permute({2, 0, 1}).strides() == tile::Shape{1, 15, 3});
  CHECK(t.transpose(-1, 0).shape() == tile::Shape{3, 5, 7});
  // Python's clamping: negative bounds count from the end, out-of-range ones clamp.
  CHECK(t.slice(1, -4, 100, 3).shape() == tile::Shape{7, 2, 3});
  CHECK(t.slice(0, -100, 2).shape() == tile::Shape{2, 5, 3});
  CHECK(t.slice(0, 5, 2).shape() == tile::Shape{0, 5, 3});
  CHECK(t.slice(0, 3, 100, 1000).shape() == tile::Shape{1, 5, 3});
  CHECK(t.slice(0, 3, 100, 1000).offset() == 45);
}

TEST_CASE("views gather like plain C++ indexing (interpreter and GPU memory)") {
  for (const tile::Context &ctx : contexts()) {
    CAPTURE(ctx.describe());
    Parent p(ctx);
    tile::Tensor t = p.t;
    checkGather<int32_t>(t.slice(0, 1, 7, 2), {3, 5, 3}, [&](const Index &i) { return p.at(1 + 2 * i[0], i[1], i[2]); });
    checkGather<int32_t>(t.slice(1, -4, 100, 3), {7, 2, 3}, [&](const Index &i) { return p.at(i[0], 1 + 3 * i[1], i[2]); });
    checkGather<int32_t>(t.slice(2, 1, 3), {7, 5, 2}, [&](const Index &i) { return p.at(i[0], i[1], 1 + i[2]); });
    checkGather<int32_t>(t.select(2, -1), {7, 5}, [&](const Index &i) { return p.at(i[0], i[1], 2); });
    checkGather<int32_t>(t.select(1, 3), {7, 3}, [&](const Index &i) { return p.at(i[0], 3, i[1]); });
    checkGather<int32_t>(t.select(0, 6).select(0, 4).select(0, 1), {}, [&](const Index &) { return p.at(6, 4, 1); });
    checkGather<int32_t>(t.transpose(0, 2), {3, 5, 7}, [&](const Index &i) { return p.at(i[2], i[1], i[0]); });
    checkGather<int32_t>(t.transpose(1, -1), {7, 3, 5}, [&](const Index &i) { return p.at(i[0], i[2], i[1]); });
    // New axis i is source axis dims[i].
    checkGather<int32_t>(t.permute({1, 2, 0}), {5, 3, 7}, [&](const Index &i) { return p.at(i[2], i[0], i[1]); });
    checkGather<int32_t>(t.permute({2, 0, 1}), {3, 7, 5}, [&](const Index &i) { return p.at(i[1], i[2], i[0]); });
    // Views of views.
    checkGather<int32_t>(t.slice(0, 1, 7, 3).select(1, 3).transpose(0, 1), {3, 2},
                         [&](const Index &i) { return p.at(1 + 3 * i[1], 3, i[0]); });
    checkGather<int32_t>(t.permute({2, 0, 1}).slice(1, 6, 0).slice(2, 1, 5, 2), {3, 0, 2},
                         [&](const Index &) { return 0; });
    checkGather<int32_t>(t.transpose(0, 1).slice(0, 1, 5, 2).slice(2, 0, 3, 2).slice(1, 2, 7, 4), {2, 2, 2},
                         [&](const Index &i) { return p.at(2 + 4 * i[1], 1 + 2 * i[0], 2 * i[2]); });
    // The parent is unchanged by all that.
    CHECK(t.toHost<int32_t>() == p.data);
  }
}

TEST_CASE("copyFromHost into a strided view changes exactly its elements (interpreter and GPU memory)") {
  for (const tile::Context &ctx : contexts()) {
    CAPTURE(ctx.describe());
    Parent p(ctx);
    std::mt19937 rng(99);
    struct Case {
      const char *name;
      std::function<tile::Tensor(const tile::Tensor &)> view;
      std::function<size_t(const Index &)> parentIndex; ///< of a view index
    };
    auto flat = [](int64_t i, int64_t j, int64_t k) { return size_t((i * Parent::B + j) * Parent::C + k); };
    std::vector<Case> cases = {
        {"slice+select", [](const tile::Tensor &t) { return t.slice(0, 1, 7, 2).select(2, 1); },
         [&](const Index &i) { return flat(1 + 2 * i[0], i[1], 1); }},
        {"transpose", [](const tile::Tensor &t) { return t.transpose(0, 2); },
         [&](const Index &i) { return flat(i[2], i[1], i[0]); }},
        {"permute+slice", [](const tile::Tensor &t) { return t.permute({1, 2, 0}).slice(2, 2, 7, 2); },
         [&](const Index &i) { return flat(2 + 2 * i[2], i[0], i[1]); }},
        {"0-d", [](const tile::Tensor &t) { return t.select(0, 4).select(0, 2).select(0, 0); },
         [&](const Index &) { return flat(4, 2, 0); }},
    };
    for (const Case &c : cases) {
      CAPTURE(c.name);
      tile::Tensor t = p.ctx.fromHost({Parent::A, Parent::B, Parent::C}, tile::DType::I32, p.data);
      tile::Tensor v = c.view(t);
      std::vector<int32_t> values = randomInts(size_t(v.numel()), rng);
      v.copyFromHost(values);
      std::vector<int32_t> expected = p.data;
      size_t pos = 0;
      forEachIndex(v.shape(), [&](const Index &i) { expected[c.parentIndex(i)] = values[pos++]; });
      CHECK(t.toHost<int32_t>() == expected);
      CHECK(v.toHost<int32_t>() == values);
  }
}
}

TEST_CASE("reshape: contiguous tensors only, one inferred extent") {
  Parent p;
  tile::Tensor t = p.t;
  tile::Tensor r = t.reshape({5, -1, 7});
  CHECK(r.shape() == tile::Shape{5, 3, 7});
  CHECK(r.strides() == tile::Shape{21, 7, 1});
  CHECK(r.toHost<int32_t>() == p.data);
  CHECK(t.reshape({-1}).shape() == tile::Shape{105});
  // A contiguous slice keeps its offset.
  tile::Tensor rows = t.slice(0, 2, 4).reshape({2, 15});
  CHECK(rows.offset() == 30);
  checkGather<int32_t>(rows, {2, 15}, [&](const Index &i) { return p.at(2 + i[0], i[1] / 3, i[1] % 3); });
  // Writes through a reshaped view show in the parent.
  std::vector<int32_t> ones(15, 1);
  t.select(0, 3).reshape({15}).copyFromHost(ones);
  checkGather<int32_t>(t, {7, 5, 3}, [&](const Index &i) { return i[0] == 3 ? 1 : p.at(i[0], i[1], i[2]); });
  CHECK(t.slice(0, 0, 0).reshape({5, 0}).shape() == tile::Shape{5, 0});
  CHECK_THROWS_WITH_AS(t.transpose(0, 1).reshape({105}), doctest::Contains("non-contiguous int32[5, 7, 3]"),
                       tile::Error);
  CHECK_THROWS_WITH_AS(t.transpose(0, 1).reshape({105}), doctest::Contains("copy it"), tile::Error);
  CHECK_THROWS_WITH_AS(t.reshape({4, -1}), doctest::Contains("cannot reshape a tensor of 105 elements into shape [4, -1]"),
                       tile::Error);
  CHECK_THROWS_WITH_AS(t.reshape({104}), doctest::Contains("105 elements"), tile::Error);
  CHECK_THROWS_WITH_AS(t.reshape({-1, -1}), doctest::Contains("only one extent may be -1"), tile::Error);
  CHECK_THROWS_WITH_AS(t.reshape({0, -1}), doctest::Contains("cannot reshape"), tile::Error);
  CHECK_THROWS_WITH_AS(t.reshape({-3, -35}), doctest::Contains("negative extent -3"), tile::Error);
}

TEST_CASE("views: bad axes, indices, steps and permutations are Errors") {
  Parent p;
  tile::Tensor t = p.t;
  CHECK_THROWS_WITH_AS(t.slice(3, 0, 1), doctest::Contains("error: axis 3 is out of range for a 3-d tensor"),
                       tile::Error);
  CHECK_THROWS_WITH_AS(t.slice(-4, 0, 1), doctest::Contains("axis -4 is out of range"), tile::Error);
  CHECK_THROWS_WITH_AS(t.slice(0, 0, 7, 0), doctest::Contains("slice step must be at least 1, not 0"), tile::Error);
  CHECK_THROWS_WITH_AS(t.slice(0, 7, 0, -1), doctest::Contains("negative strides are not supported"), tile::Error);
  CHECK_THROWS_WITH_AS(t.select(0, 7), doctest::Contains("index 7 is out of range for axis 0 of size 7"),
                       tile::Error);
  CHECK_THROWS_WITH_AS(t.select(-2, -6), doctest::Contains("index -6 is out of range for axis 1 of size 5"),
                       tile::Error);
  CHECK_NOTHROW(t.select(-2, -5));
  CHECK_THROWS_WITH_AS(t.select(0, 0).select(0, 0).select(0, 0).select(0, 0),
                       doctest::Contains("axis 0 is out of range for a 0-d tensor"), tile::Error);
  CHECK_THROWS_WITH_AS(t.transpose(0, 3), doctest::Contains("axis 3 is out of range"), tile::Error);
  CHECK_THROWS_WITH_AS(t.permute({0, 1}), doctest::Contains("needs 3 axes, not 2"), tile::Error);
  CHECK_THROWS_WITH_AS(t.permute({0, 2, -1}), doctest::Contains("not a permutation: axis 2 appears twice"),
                       tile::Error);
  CHECK_THROWS_WITH_AS(t.permute({0, 1, 3}), doctest::Contains("axis 3 is out of range"), tile::Error);
  CHECK_THROWS_WITH_AS(tile::Tensor().slice(0, 0, 1), doctest::Contains("undefined tile::Tensor"), tile::Error);
  CHECK_THROWS_WITH_AS(tile::Tensor().transpose(0, 1), doctest::Contains("undefined"), tile::Error);
  std::vector<int32_t> small(3);
  CHECK_THROWS_WITH_AS(t.select(0, 1).copyToHost(small.data(), 12),
                       doctest::Contains("copy to host of 12 bytes, but the int32[5, 3] tensor holds 60 bytes"),
                       tile::Error);
  // Errors leave the tensor as it was.
  CHECK(t.toHost<int32_t>() == p.data);
}

TEST_CASE("empty views copy nothing") {
  Parent p;
  tile::Tensor e = p.t.slice(1, 4, 4);
  CHECK(e.numel() == 0);
  CHECK(e.bytes() == 0);
  CHECK(e.isContiguous());
  e.copyFromHost(nullptr, 0);
  e.copyToHost(nullptr, 0);
  CHECK(e.toHost<int32_t>().empty());
  CHECK(p.t.toHost<int32_t>() == p.data);
}

TEST_CASE("kernels launched on strided views read and write through their strides") {
  tile::Context ctx = interpreter(/*strict=*/true);
  tile::Program prog = ctx.loadString(kKernels, "views.tile");
  std::mt19937 rng(5);
  const int64_t A = 9, B = 6, C = 4;
  std::vector<float> data = randomFloats(size_t(A * B * C), rng);
  tile::Tensor src = ctx.fromHost({A, B, C}, tile::DType::F32, data);
  auto P = [&](int64_t i, int64_t j, int64_t k) { return data[size_t((i * B + j) * C + k)]; };
  // A 6 x 4 view at offset 25 with strides (4, 48): view[a][b] = P(1 + 2b, a, 1).
  tile::Tensor view = src.select(2, 1).slice(0, 1, 9, 2).transpose(0, 1);
  REQUIRE(view.shape() == tile::Shape{6, 4});
  REQUIRE(view.strides() == tile::Shape{4, 48});

  SUBCASE("into the transpose of a contiguous tensor") {
    tile::Tensor out = ctx.zeros({4, 6}, tile::DType::F32);
    affine2d(prog, view, out.transpose(0, 1));
    std::vector<float> got = out.toHost<float>();
    for (int64_t b = 0; b < 4; ++b)
      for (int64_t a = 0; a < 6; ++a) REQUIRE(got[size_t(b * 6 + a)] == P(1 + 2 * b, a, 1) * 2.0f + 1.0f);
  }
  SUBCASE("into a strided window of a bigger tensor: nothing outside it changes") {
    tile::Tensor big = ctx.zeros({8, 10}, tile::DType::F32);
    tile::Tensor window = big.slice(0, 1, 7).slice(1, 2, 10, 2); // rows 1..6, columns 2, 4, 6, 8
    REQUIRE(window.offset() == 12);
    affine2d(prog, view, window);
    std::vector<float> got = big.toHost<float>();
    for (int64_t r = 0; r < 8; ++r)
      for (int64_t c = 0; c < 10; ++c) {
        bool inside = r >= 1 && r <= 6 && c >= 2 && c % 2 == 0;
        float want = inside ? P(1 + 2 * ((c - 2) / 2), r - 1, 1) * 2.0f + 1.0f : 0.0f;
        REQUIRE(got[size_t(r * 10 + c)] == want);
      }
  }
  CHECK(src.toHost<float>() == data);
}

TEST_CASE("fromAddress wraps host memory on the interpreter, bounds-checked like any tensor") {
  std::vector<std::string> warnings;
  tile::Context ctx = interpreter(/*strict=*/false, &warnings);
  tile::Context strict = interpreter(/*strict=*/true);
  tile::Program prog = ctx.loadString(kKernels, "foreign.tile");
  tile::Program strictProg = strict.loadString(kKernels, "foreign.tile");
  std::mt19937 rng(11);
  // The wrapped ranges lie inside bigger vectors, so a read past them
  // touches real, unregistered memory.
  std::vector<float> mem = randomFloats(96, rng);
  std::vector<float> outMem(48, -7.0f);
  tile::Tensor x = ctx.fromAddress(addressOf(&mem[8]), {32}, tile::DType::F32);
  tile::Tensor out = ctx.fromAddress(addressOf(&outMem[4]), {32}, tile::DType::F32);
  CHECK(x.address() == addressOf(&mem[8]));
  CHECK(x.offset() == 0);
  CHECK(x.strides() == tile::Shape{1});
  CHECK(x.toHost<float>() == std::vector<float>(mem.begin() + 8, mem.begin() + 40));

  tile::Kernel scale = prog.kernel("scale_kernel");
  scale.launch({2}, {x, out, int64_t(32)}, {{"BLOCK", 16}});
  for (size_t i = 0; i < 48; ++i) REQUIRE(outMem[i] == (i >= 4 && i < 36 ? mem[i + 4] * 3.0f : -7.0f));
  CHECK(warnings.empty());

  // Views of wrapped memory, written by a kernel through their strides.
  std::fill(outMem.begin(), outMem.end(), -7.0f);
  tile::Tensor outT = out.reshape({4, 8}).transpose(0, 1); // 8 x 4, strides (1, 8)
  affine2d(prog, x.reshape({8, 4}), outT);
  for (int64_t i = 0; i < 8; ++i)
    for (int64_t j = 0; j < 4; ++j) REQUIRE(outMem[size_t(4 + j * 8 + i)] == mem[size_t(8 + i * 4 + j)] * 2.0f + 1.0f);

  // A read past the wrapped range: a warning, or an Error in strict mode.
  tile::Tensor sink = ctx.zeros({64}, tile::DType::F32);
  prog.kernel("read_all_kernel").launch({1}, {x, sink}, {{"BLOCK", 64}});
  REQUIRE(!warnings.empty());
  CHECK(warnings[0].find("out-of-bounds load in kernel 'read_all_kernel'") != std::string::npos);
  CHECK(warnings[0].find("fromAddress float32[32]") != std::string::npos);
  tile::Tensor sx = strict.fromAddress(addressOf(&mem[8]), {32}, tile::DType::F32);
  tile::Tensor strictSink = strict.zeros({64}, tile::DType::F32);
  CHECK_THROWS_WITH_AS(strictProg.kernel("read_all_kernel").launch({1}, {sx, strictSink}, {{"BLOCK", 64}}),
                       doctest::Contains("error: out-of-bounds load in kernel 'read_all_kernel'"), tile::Error);
  // A store past it is an error even when not strict, and writes nothing there.
  std::fill(outMem.begin(), outMem.end(), -7.0f);
  CHECK_THROWS_WITH_AS(scale.launch({3}, {x, out, int64_t(40)}, {{"BLOCK", 16}}),
                       doctest::Contains("out-of-bounds store in kernel 'scale_kernel'"), tile::Error);
  for (size_t i = 36; i < 48; ++i) CHECK(outMem[i] == -7.0f);
}

TEST_CASE("fromAddress: strides, copies, memory of other tensors") {
  tile::Context ctx = interpreter(/*strict=*/true);
  std::mt19937 rng(21);
  // A 5 x 7 matrix stored column-major.
  std::vector<float> colMajor = randomFloats(35, rng);
  tile::Tensor m = ctx.fromAddress(addressOf(colMajor.data()), {5, 7}, tile::DType::F32, {1, 5});
  CHECK(!m.isContiguous());
  checkGather<float>(m, {5, 7}, [&](const Index &i) { return colMajor[size_t(i[1] * 5 + i[0])]; });
  checkGather<float>(m.transpose(0, 1), {7, 5}, [&](const Index &i) { return colMajor[size_t(i[0] * 5 + i[1])]; });
  std::vector<float> rowMajor = randomFloats(35, rng);
  m.copyFromHost(rowMajor);
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t j = 0; j < 7; ++j) REQUIRE(colMajor[size_t(j * 5 + i)] == rowMajor[size_t(i * 7 + j)]);

  // Inside another tensor's memory: nothing new is registered, kernels run.
  tile::Program prog = ctx.loadString(kKernels, "inside.tile");
  std::vector<float> hostData = randomFloats(16, rng);
  tile::Tensor h = ctx.fromHost({16}, tile::DType::F32, hostData);
  tile::Tensor inner = ctx.fromAddress(h.address() + 4 * sizeof(float), {8}, tile::DType::F32);
  tile::Tensor out = ctx.zeros({8}, tile::DType::F32);
  prog.kernel("scale_kernel").launch({1}, {inner, out, int64_t(8)}, {{"BLOCK", 8}});
  std::vector<float> got = out.toHost<float>();
  for (size_t i = 0; i < 8; ++i) REQUIRE(got[i] == hostData[i + 4] * 3.0f);

  // Empty tensors: any address, even null.
  CHECK(ctx.fromAddress(0, {0, 3}, tile::DType::F32).numel() == 0);
  CHECK(ctx.fromAddress(0, {4, 0}, tile::DType::F64, {0, 0}).toHost<double>().empty());
}

TEST_CASE("fromAddress: the registration lives while any view does") {
  tile::Context ctx = interpreter(/*strict=*/true);
  tile::Program prog = ctx.loadString(kKernels, "life.tile");
  tile::Kernel readAll = prog.kernel("read_all_kernel");
  tile::Tensor sink = ctx.zeros({64}, tile::DType::F32);
  std::vector<float> mem(64, 1.5f);
  // Reads mem[8, 40) through the sink's pointer: out of the sink's bounds
  // (provenance), and the error names the tensor it lands in while one is
  // registered over mem.
  int64_t delta = int64_t(addressOf(&mem[8]) - sink.address());
  REQUIRE(delta % 4 == 0);
  auto readThroughSink = [&] {
    prog.kernel("read_at_kernel").launch({1}, {sink, delta / 4, sink}, {{"BLOCK", 32}});
  };
  {
    tile::Tensor whole = ctx.fromAddress(addressOf(&mem[8]), {32}, tile::DType::F32);
    tile::Tensor view = whole.slice(0, 0, 4);
    tile::Tensor inside = ctx.fromAddress(addressOf(&mem[10]), {2}, tile::DType::F32); // shares it
    whole = tile::Tensor();
    // Both keep the range [8, 40) registered; each is bounds-checked as
    // itself (a view's span, a tensor's own elements).
    readAll.launch({1}, {view, sink}, {{"BLOCK", 4}});
    readAll.launch({1}, {inside, sink}, {{"BLOCK", 2}});
    CHECK_THROWS_WITH_AS(readAll.launch({1}, {view, sink}, {{"BLOCK", 32}}),
                         doctest::Contains("past the end of the view float32[4] at element 0 of fromAddress float32[32]"),
                         tile::Error);
    CHECK_THROWS_WITH_AS(readAll.launch({1}, {inside, sink}, {{"BLOCK", 16}}),
                         doctest::Contains("out-of-bounds load"), tile::Error);
    // Overlapping a registered range without lying inside it.
    CHECK_THROWS_WITH_AS(ctx.fromAddress(addressOf(&mem[30]), {20}, tile::DType::F32),
                         doctest::Contains("overlaps fromAddress float32[32]"), tile::Error);
    CHECK_THROWS_WITH_AS(ctx.fromAddress(addressOf(&mem[0]), {64}, tile::DType::F32),
                         doctest::Contains("wrap the whole allocation once"), tile::Error);
    CHECK_THROWS_WITH_AS(readThroughSink(), doctest::Contains("it lands inside fromAddress float32[32]"),
                         tile::Error);
  }
  // All gone: the range is unregistered.
  CHECK_THROWS_WITH_AS(readThroughSink(), doctest::Contains("out-of-bounds load"), tile::Error);
  try {
    readThroughSink();
  } catch (const tile::Error &e) {
    CHECK(std::string(e.what()).find("lands inside") == std::string::npos);
  }
  // A one-element tensor at the same place registers only itself.
  tile::Tensor one = ctx.fromAddress(addressOf(&mem[8]), {1}, tile::DType::F32);
  readAll.launch({1}, {one, sink}, {{"BLOCK", 1}});
  CHECK_THROWS_WITH_AS(readAll.launch({1}, {one, sink}, {{"BLOCK", 2}}), doctest::Contains("out-of-bounds load"),
                       tile::Error);
  one = tile::Tensor();
  // And the whole range can be wrapped again.
  tile::Tensor again = ctx.fromAddress(addressOf(&mem[0]), {64}, tile::DType::F32);
  readAll.launch({1}, {again, sink}, {{"BLOCK", 64}});
  CHECK(sink.toHost<float>() == mem);
}

TEST_CASE("fromAddress: bad arguments are Errors") {
  tile::Context ctx = interpreter();
  std::vector<float> mem(16);
  uint64_t a = addressOf(mem.data());
  CHECK_THROWS_WITH_AS(ctx.fromAddress(0, {4}, tile::DType::F32), doctest::Contains("null address"), tile::Error);
  CHECK_THROWS_WITH_AS(ctx.fromAddress(a, {4, -1}, tile::DType::F32),
                       doctest::Contains("negative size in tensor shape [4, -1]"), tile::Error);
  CHECK_THROWS_WITH_AS(ctx.fromAddress(a, {4, 2}, tile::DType::F32, {1}),
                       doctest::Contains("1 strides [1] for the 2-d shape [4, 2]"), tile::Error);
  CHECK_THROWS_WITH_AS(ctx.fromAddress(a, {4, 2}, tile::DType::F32, {-2, 1}),
                       doctest::Contains("negative strides are not supported"), tile::Error);
  CHECK_THROWS_WITH_AS(ctx.fromAddress(a + 2, {4}, tile::DType::F32), doctest::Contains("not a multiple of the float32"),
                       tile::Error);
  CHECK_THROWS_WITH_AS(ctx.fromAddress(a, {int64_t(1) << 40, int64_t(1) << 40}, tile::DType::F32),
                       doctest::Contains("a float32[1099511627776, 1099511627776] tensor is too large"), tile::Error);
  CHECK_THROWS_WITH_AS(ctx.zeros({int64_t(1) << 31, int64_t(1) << 31, 4}, tile::DType::I8),
                       doctest::Contains("too large"), tile::Error);
  CHECK_THROWS_WITH_AS(ctx.fromAddress(a, {2, 2}, tile::DType::F32, {int64_t(1) << 62, 1}),
                       doctest::Contains("spans more memory"), tile::Error);
  // Errors leave nothing registered: the same memory wraps fine afterwards.
  CHECK(ctx.fromAddress(a, {16}, tile::DType::F32).numel() == 16);
}

// ---------------------------------------------------------------- host copies: deduced dtypes, spans, cdiv

static_assert(tile::cdiv(1000, 256) == 4 && tile::cdiv(1024, 256) == 4 && tile::cdiv(int64_t(1) << 40, 3) == 366503875926);
static_assert(tile::dtypeOf<float>() == tile::DType::F32 && tile::dtypeOf<const double>() == tile::DType::F64 &&
              tile::dtypeOf<int8_t>() == tile::DType::I8 && tile::dtypeOf<int16_t>() == tile::DType::I16 &&
              tile::dtypeOf<int32_t>() == tile::DType::I32 && tile::dtypeOf<int64_t>() == tile::DType::I64 &&
              tile::dtypeOf<uint8_t>() == tile::DType::U8 && tile::dtypeOf<uint32_t>() == tile::DType::U32 &&
              tile::dtypeOf<uint64_t>() == tile::DType::U64 && tile::dtypeOf<bool>() == tile::DType::I1);

TEST_CASE("fromHost deduces the dtype from the element type; spans in and out; tile::cdiv") {
  tile::Context ctx = interpreter();
  std::mt19937 rng(7);
  std::vector<int32_t> ints = randomInts(5 * 7, rng);
  tile::Tensor ti = ctx.fromHost({5, 7}, ints);
  CHECK(ti.dtype() == tile::DType::I32);
  CHECK(ti.toHost<int32_t>() == ints);
  std::vector<float> floats = randomFloats(3 * 11, rng);
  tile::Tensor tf = ctx.fromHost({3, 11}, std::span<const float>(floats));
  CHECK(tf.dtype() == tile::DType::F32);
  // a span out of a strided view: its elements in C order, as plain indexing gives them
  tile::Tensor col = tf.select(1, 4);
  std::vector<float> got(3, 0.0f);
  col.copyToHost(std::span<float>(got));
  for (size_t i = 0; i < 3; ++i) CHECK(got[i] == floats[i * 11 + 4]);
  // a span in, through the view: exactly its elements change
  std::vector<float> fresh{-1.5f, 2.25f, 8.0f};
  col.copyFromHost(std::span<const float>(fresh));
  std::vector<float> all = tf.toHost<float>();
  for (size_t i = 0; i < 3; ++i)
    for (size_t j = 0; j < 11; ++j) CHECK(all[i * 11 + j] == (j == 4 ? fresh[i] : floats[i * 11 + j]));
  // sizes are checked as for pointers and vectors
  CHECK_THROWS_AS(ctx.fromHost({4, 7}, ints), tile::Error);
  CHECK_THROWS_AS(ctx.fromHost({2}, tile::DType::F64, std::span<const float>(floats.data(), 3)), tile::Error);
  CHECK_THROWS_AS(col.copyToHost(std::span<float>(got.data(), 2)), tile::Error);
  // a launch grid from tile::cdiv covers a ragged size exactly once
  tile::Kernel fill = ctx.loadString(R"(
import triton
import triton.language as tl

@triton.jit
def fill_kernel(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, offs, mask=offs < n)
)").kernel("fill_kernel");
  const int64_t n = 1000;
  tile::Tensor out = ctx.fromHost({n}, std::vector<int32_t>(size_t(n), -1));
  fill.launch({tile::cdiv(n, 128)}, {out, n}, {{"BLOCK", 128}});
  std::vector<int32_t> filled = out.toHost<int32_t>();
  for (int64_t i = 0; i < n; ++i) CHECK(filled[size_t(i)] == i);
  // a misspelt constexpr names the parameter it was probably meant for
  CHECK_THROWS_WITH_AS(fill.launch({1}, {out, n}, {{"BLOK", 128}}),
                       doctest::Contains("has no parameter named 'BLOK' (did you mean 'BLOCK'?)"), tile::Error);
}

TEST_CASE("a launch through a view is bounds-checked against the view, not its storage") {
  std::vector<std::string> warnings;
  tile::Context ctx = interpreter(/*strict=*/false, &warnings);
  tile::Program prog = ctx.loadString(kKernels, "viewbounds.tile");
  tile::Kernel scale = prog.kernel("scale_kernel");
  std::mt19937 rng(21);
  std::vector<float> data = randomFloats(100, rng);
  tile::Tensor src = ctx.fromHost({100}, tile::DType::F32, data);
  tile::Tensor out = ctx.zeros({100}, tile::DType::F32);
  tile::Tensor view = out.slice(0, 20, 30);   // 10 of out's 100 elements
  auto expectOut = [&](int64_t written) {
    std::vector<float> got = out.toHost<float>();
    for (int64_t i = 0; i < 100; ++i) {
      bool inside = i >= 20 && i < 20 + written;
      REQUIRE(got[size_t(i)] == (inside ? data[size_t(i - 20)] * 3.0f : 0.0f));
    }
  };
  // inside the view: written, nothing else
  scale.launch({1}, {src, view, int64_t(10)}, {{"BLOCK", 16}});
  expectOut(10);
  CHECK(warnings.empty());
  // six elements past the view (still inside out's storage): an error that
  // names the view and where the address lands, and nothing past the view
  // written (the in-bounds lanes of that launch were rewritten, the same)
  std::string msg;
  try {
    scale.launch({1}, {src, view, int64_t(16)}, {{"BLOCK", 16}});
  } catch (const tile::Error &e) {
    msg = e.what();
  }
  CHECK(msg.find("out-of-bounds store in kernel 'scale_kernel'") != std::string::npos);
  CHECK(msg.find("the view float32[10] at element 20 of tensor#") != std::string::npos);
  CHECK(msg.find("element offset 10 of 10") != std::string::npos);
  CHECK(msg.find("it lands inside tensor#") != std::string::npos);
  expectOut(10);
  // a read past a view of the source: a warning naming the view
  tile::Tensor sink = ctx.zeros({64}, tile::DType::F32);
  prog.kernel("read_all_kernel").launch({1}, {src.slice(0, 50, 82), sink}, {{"BLOCK", 64}});
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("out-of-bounds load in kernel 'read_all_kernel'") != std::string::npos);
  CHECK(warnings[0].find("the view float32[32] at element 50 of tensor#") != std::string::npos);
  // a strided view's span runs from its first element to its last: a
  // column of a 10 x 10 matrix, read whole, is in bounds
  tile::Tensor m = ctx.fromHost({10, 10}, tile::DType::F32, data);
  tile::Tensor col = m.slice(1, 3, 4);   // 10 x 1, strides (10, 1): a span of 91 elements
  tile::Tensor colOut = ctx.zeros({10, 1}, tile::DType::F32);
  affine2d(prog, col, colOut);
  std::vector<float> got = colOut.toHost<float>();
  for (int64_t i = 0; i < 10; ++i) REQUIRE(got[size_t(i)] == data[size_t(i * 10 + 3)] * 2.0f + 1.0f);
  CHECK(warnings.size() == 1);
}
