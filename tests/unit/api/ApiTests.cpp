// ApiTests.cpp - the public C++ API (tile/tile.h) on the interpreter: the
// seed matmul loaded from dsl_examples and checked against a plain C++
// reference on ragged sizes, tensors and their copies, errors with the CLI's
// file:line:col text (and a context that keeps working after them), and
// several threads loading and launching at once.
#include <tile/tile.h>

#include "cuda/Cuda.h"

#include <doctest/doctest.h>

#include "ApiTestUtil.h"

#include <cmath>
#include <filesystem>
#include <set>

#include <fmt/format.h>
#include <unistd.h>
#include <cstring>
#include <chrono>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

const std::string kSeedMatmul = std::string(TILE_SOURCE_DIR) + "/dsl_examples/lesson2_matmul.tile";

tile::Context interpreter() { return tile::apitest::interpreterContext(false); }

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

using tile::apitest::toTF32;

std::vector<float> randomMatrix(int64_t rows, int64_t cols, std::mt19937 &rng) {
  std::normal_distribution<float> dist;
  std::vector<float> m(size_t(rows * cols));
  for (float &x : m) x = dist(rng);
  return m;
}

/// C = A @ B with tf32-truncated inputs, accumulated in double.
std::vector<float> referenceMatmul(const std::vector<float> &a, const std::vector<float> &b, int64_t M, int64_t N,
                                   int64_t K) {
  std::vector<float> c(size_t(M * N));
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < K; ++k) acc += double(toTF32(a[i * K + k])) * double(toTF32(b[k * N + j]));
      c[i * N + j] = float(acc);
    }
  return c;
}

/// Runs the seed's matmul_kernel through the API on M x K times K x N.
std::vector<float> runSeedMatmul(const tile::Kernel &mm, const tile::Context &ctx, const std::vector<float> &a,
                                 const std::vector<float> &b, int64_t M, int64_t N, int64_t K) {
  tile::Tensor ta = ctx.fromHost({M, K}, tile::DType::F32, a);
  tile::Tensor tb = ctx.fromHost({K, N}, tile::DType::F32, b);
  tile::Tensor tc = ctx.zeros({M, N}, tile::DType::F32);
  const int64_t block = 16;
  mm.launch({cdiv(M, block), cdiv(N, block)},
            {ta, tb, tc, M, N, K, ta.stride(0), ta.stride(1), tb.stride(0), tb.stride(1), tc.stride(0), tc.stride(1)},
            {{"N_ITERS", cdiv(K, block)}, {"BLOCK_M", block}, {"BLOCK_N", block}, {"BLOCK_K", block}});
  return tc.toHost<float>();
}

void checkClose(const std::vector<float> &actual, const std::vector<float> &expected, double tol) {
  REQUIRE(actual.size() == expected.size());
  size_t bad = 0;
  for (size_t i = 0; i < actual.size(); ++i)
    if (!(std::fabs(actual[i] - expected[i]) <= tol * (1 + std::fabs(expected[i])))) ++bad;
  CHECK(bad == 0);
}

const char *kAddSource = "import triton\n"
                         "import triton.language as tl\n"
                         "\n"
                         "@triton.jit\n"
                         "def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
                         "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                         "    mask = offs < n\n"
                         "    x = tl.load(x_ptr + offs, mask=mask)\n"
                         "    y = tl.load(y_ptr + offs, mask=mask)\n"
                         "    tl.store(out_ptr + offs, x + y, mask=mask)\n"
                         "\n"
                         "@triton.jit\n"
                         "def broken_kernel(out_ptr, BLOCK: tl.constexpr):\n"
                         "    offs = tl.arange(0, BLOCK)\n"
                         "    tl.store(out_ptr + offs, undefined_name)\n";

/// out = x + y for n elements through add_kernel; checks it exactly.
void addAndCheck(const tile::Context &ctx, const tile::Kernel &add, int64_t n, float bias) {
  std::vector<float> x(static_cast<size_t>(n)), y(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    x[size_t(i)] = float(i) + bias;
    y[size_t(i)] = 0.5f * float(i);
  }
  tile::Tensor tx = ctx.fromHost({n}, tile::DType::F32, x);
  tile::Tensor ty = ctx.fromHost({n}, tile::DType::F32, y);
  tile::Tensor out = ctx.zeros({n}, tile::DType::F32);
  add.launch({cdiv(n, 64)}, {tx, ty, out, n}, {{"BLOCK", 64}});
  std::vector<float> got = out.toHost<float>();
  for (int64_t i = 0; i < n; ++i) REQUIRE(got[size_t(i)] == x[size_t(i)] + y[size_t(i)]);
}

} // namespace

TEST_CASE("the seed matmul through the API matches a C++ reference on ragged sizes") {
  // The seed masks its loads along K only: ragged M and N read past A and B
  // (the lanes are masked off at the store), which the interpreter reports.
  std::mutex mu;
  std::vector<std::string> warnings;
  tile::ContextOptions o;
  o.device = tile::DeviceKind::Interpreter;
  o.onWarning = [&](const std::string &w) {
    std::lock_guard lock(mu);
    warnings.push_back(w);
  };
  tile::Context ctx(o);
  CHECK(ctx.device() == tile::DeviceKind::Interpreter);
  tile::Program prog = ctx.loadFile(kSeedMatmul);
  tile::Kernel mm = prog.kernel("matmul_kernel");
  std::mt19937 rng(7);
  struct Size {
    int64_t M, N, K;
  };
  for (Size s : {Size{37, 29, 45}, Size{16, 16, 16}, Size{5, 70, 3}}) {
    int64_t M = s.M, N = s.N, K = s.K;   // clang 14 captures no structured binding (CAPTURE)
    CAPTURE(M);
    CAPTURE(N);
    CAPTURE(K);
    std::vector<float> a = randomMatrix(M, K, rng), b = randomMatrix(K, N, rng);
    checkClose(runSeedMatmul(mm, ctx, a, b, M, N, K), referenceMatmul(a, b, M, N, K), 1e-5);
  }
  REQUIRE(!warnings.empty());
  CHECK(warnings[0].find("lesson2_matmul.tile:60:13: warning: out-of-bounds load in kernel 'matmul_kernel'") !=
        std::string::npos);
}

TEST_CASE("a 2-D grid fills every element exactly once") {
  tile::Context ctx = interpreter();
  tile::Kernel fill = ctx.loadFile(kSeedMatmul).kernel("tile_fill_kernel");
  const int64_t M = 37, N = 50;
  tile::Tensor out = ctx.zeros({M, N}, tile::DType::F32);
  fill.launch({cdiv(M, 16), cdiv(N, 16)}, {out, M, N}, {{"BLOCK_M", 16}, {"BLOCK_N", 16}});
  std::vector<float> got = out.toHost<float>();
  for (int64_t i = 0; i < M * N; ++i) REQUIRE(got[size_t(i)] == float(i));
}

TEST_CASE("async launches queue in order and synchronize() waits for them") {
  tile::Context ctx = interpreter();
  tile::Kernel fill = ctx.loadFile(kSeedMatmul).kernel("tile_fill_kernel");
  const int64_t M = 20, N = 33;
  std::vector<tile::Tensor> outs;
  tile::LaunchOptions async;
  async.async = true;
  for (int r = 0; r < 3; ++r) {
    outs.push_back(ctx.zeros({M + r, N}, tile::DType::F32));
    fill.launch({cdiv(M + r, 16), cdiv(N, 16)}, {outs.back(), M + r, N}, {{"BLOCK_M", 16}, {"BLOCK_N", 16}}, async);
  }
  ctx.synchronize();
  for (int r = 0; r < 3; ++r) {
    std::vector<float> got = outs[size_t(r)].toHost<float>();
    REQUIRE(got.size() == size_t((M + r) * N));
    for (int64_t i = 0; i < (M + r) * N; ++i) REQUIRE(got[size_t(i)] == float(i));
  }
}

TEST_CASE("tensors: shape, strides, dtypes, copies") {
  tile::Context ctx = interpreter();
  tile::Tensor t = ctx.zeros({3, 4, 5}, tile::DType::I16);
  CHECK(t.shape() == tile::Shape{3, 4, 5});
  CHECK(t.strides() == tile::Shape{20, 5, 1});
  CHECK(t.stride(-1) == 1);
  CHECK(t.dim(-3) == 3);
  CHECK(t.numel() == 60);
  CHECK(t.bytes() == 120);
  CHECK(t.toHost<int16_t>() == std::vector<int16_t>(60, 0));
  std::vector<int16_t> v(60);
  for (int i = 0; i < 60; ++i) v[size_t(i)] = int16_t(i * 3 - 90);
  t.copyFromHost(v);
  CHECK(t.toHost<int16_t>() == v);
  CHECK(tile::dtypeSize(tile::DType::BF16) == 2);
  CHECK(std::string(tile::dtypeName(tile::DType::F64)) == "float64");
  CHECK_THROWS_WITH_AS(t.copyFromHost(v.data(), 10), doctest::Contains("copy from host of 10 bytes"), tile::Error);
  CHECK_THROWS_AS(t.dim(3), tile::Error);
  CHECK_THROWS_AS(ctx.fromHost({2, 2}, tile::DType::F32, std::vector<float>(3)), tile::Error);
  CHECK_THROWS_AS(tile::Tensor().numel(), tile::Error);
}

TEST_CASE("device choice: Auto picks the interpreter without a GPU compiler; Gpu says why it cannot") {
  tile::Context ctx; // no tile::enableGpuCompiler() in this binary
  CHECK(ctx.device() == tile::DeviceKind::Interpreter);
  CHECK(ctx.describe() == "interpreter");
  // the fallback is said on the warning callback, once for the context, with the reason
  std::vector<std::string> notes;
  tile::ContextOptions quiet;
  quiet.onWarning = [&](const std::string &w) { notes.push_back(w); };
  tile::Context told(quiet);
  CHECK(told.device() == tile::DeviceKind::Interpreter);
  REQUIRE(notes.size() == 1);
  bool why = notes[0].find(tile::cuda::Driver::get() ? "note: this program has no GPU compiler for the "
                                                      : "note: no GPU (") == 0;
  CHECK(why);
  CHECK(notes[0].find("running kernels on the CPU interpreter") != std::string::npos);
  // chosen explicitly, nothing is said
  notes.clear();
  quiet.device = tile::DeviceKind::Interpreter;
  tile::Context asked(quiet);
  CHECK(notes.empty());
  tile::ContextOptions o;
  o.device = tile::DeviceKind::Gpu;
  if (!tile::cuda::Driver::get()) {
    CHECK_THROWS_WITH_AS(tile::Context{o}, doctest::Contains("error: no usable GPU"), tile::Error);
    return;
  }
  // A GPU without the compiler: precompiled kernels only; a source kernel
  // says what is missing.
  tile::Context gpu(o);
  CHECK(gpu.device() == tile::DeviceKind::Gpu);
  tile::Kernel k = gpu.loadString("import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef k(x_ptr):\n"
                                  "    tl.store(x_ptr, 1.0)\n",
                                  "k.tile")
                       .kernel("k");
  tile::Tensor t = gpu.zeros({1}, tile::DType::F32);
  CHECK_THROWS_WITH_AS(k.launch({1}, {t}), doctest::Contains("needs the GPU compiler"), tile::Error);
}

TEST_CASE("compileFor without the GPU compiler says what is missing") {
  // api_tests do not link tile::llvm (tests/package's app_gpu compiles for real)
  tile::Context ctx = interpreter();
  tile::Kernel k = ctx.loadString(kAddSource, "kernels.tile").kernel("add_kernel");
  CHECK_THROWS_WITH_AS(k.compileFor("sm_90a", "*fp32:16,*fp32:16,*fp32:16,i32", {{"BLOCK", 128}}),
                       doctest::Contains("compiling kernel 'add_kernel' for sm_90a needs the GPU compiler"),
                       tile::Error);
}

TEST_CASE("errors carry the CLI's file:line:col text and the context keeps working") {
  tile::Context ctx = interpreter();
  tile::Program prog = ctx.loadString(kAddSource, "kernels.tile");
  CHECK(prog.kernelNames() == std::vector<std::string>{"add_kernel", "broken_kernel"});
  tile::Tensor out = ctx.zeros({16}, tile::DType::F32);
  try {
    prog.kernel("broken_kernel").launch({1}, {out}, {{"BLOCK", 16}});
    FAIL("no error");
  } catch (const tile::Error &e) {
    std::string text = e.what();
    CHECK(text.rfind("kernels.tile:15:30: error: ", 0) == 0);
    CHECK(text.find("undefined_name") != std::string::npos);
    CHECK(text.find("    tl.store(out_ptr + offs, undefined_name)\n") != std::string::npos); // the source line
    CHECK(text.find("^") != std::string::npos);                                                  // and a caret
    // the same in fields
    CHECK(e.kind() == tile::Error::Kind::User);
    CHECK(e.file() == "kernels.tile");
    CHECK(e.line() == 15);
    CHECK(e.column() == 30);
    CHECK(e.message().find("undefined_name") != std::string::npos);
    CHECK(e.message().find("kernels.tile") == std::string::npos);
    CHECK(e.message().find('\n') == std::string::npos);
  }
  // The same context, the same program: other kernels still run.
  addAndCheck(ctx, prog.kernel("add_kernel"), 100, 1.0f);

  CHECK_THROWS_WITH_AS(ctx.loadString("def f(:\n    pass\n", "syntax.tile"), doctest::Contains("syntax.tile:1:"),
                       tile::Error);
  CHECK_THROWS_WITH_AS(ctx.loadFile("/nonexistent/x.tile"), doctest::Contains("error:"), tile::Error);
  CHECK_THROWS_WITH_AS(prog.kernel("nope"), doctest::Contains("add_kernel, broken_kernel"), tile::Error);
  tile::Kernel add = prog.kernel("add_kernel");
  // A missing argument is located at the kernel's definition.
  CHECK_THROWS_WITH_AS(add.launch({1}, {out, out, out}, {{"BLOCK", 16}}), doctest::Contains("kernels.tile:5:"),
                       tile::Error);
  CHECK_THROWS_WITH_AS(add.launch({0}, {out, out, out, 16}, {{"BLOCK", 16}}), doctest::Contains("empty grid"),
                       tile::Error);
  // grids over the GPU's limits, on every device (the interpreter would run them for hours)
  CHECK_THROWS_WITH_AS(add.launch({int64_t(1) << 31}, {out, out, out, 16}, {{"BLOCK", 16}}),
                       doctest::Contains("over the GPU's limits"), tile::Error);
  CHECK_THROWS_WITH_AS(add.launch({1, 65536}, {out, out, out, 16}, {{"BLOCK", 16}}),
                       doctest::Contains("over the GPU's limits"), tile::Error);
  CHECK_THROWS_WITH_AS(add.launch({1, 1, 65536}, {out, out, out, 16}, {{"BLOCK", 16}}),
                       doctest::Contains("over the GPU's limits"), tile::Error);
  // An out-of-bounds store is caught by the interpreter, located at the
  // store: an error of the kernel's run (Kind::Launch).
  CHECK_THROWS_WITH_AS(add.launch({1}, {out, out, out, 64}, {{"BLOCK", 64}}),
                       doctest::Contains("kernels.tile:10:5: error: out-of-bounds store"), tile::Error);
  try {
    add.launch({1}, {out, out, out, 64}, {{"BLOCK", 64}});
    FAIL("no error");
  } catch (const tile::Error &e) {
    CHECK(e.kind() == tile::Error::Kind::Launch);
    CHECK(std::string(tile::errorKindName(e.kind())) == "launch");
    CHECK(e.file() == "kernels.tile");
    CHECK(e.line() == 10);
    CHECK(e.column() == 5);
    CHECK(e.message().rfind("out-of-bounds store in kernel 'add_kernel'", 0) == 0);
  }
  // errors without a location: file() empty, line() and column() 0, the
  // message without "error: "
  try {
    add.launch({0}, {out, out, out, 16}, {{"BLOCK", 16}});
    FAIL("no error");
  } catch (const tile::Error &e) {
    CHECK(e.kind() == tile::Error::Kind::User);
    CHECK(e.file().empty());
    CHECK(e.line() == 0);
    CHECK(e.column() == 0);
    CHECK(e.message().rfind("empty grid", 0) == 0);
  }
  tile::Tensor foreign = interpreter().zeros({16}, tile::DType::F32);
  CHECK_THROWS_WITH_AS(add.launch({1}, {foreign, out, out, 16}, {{"BLOCK", 16}}),
                       doctest::Contains("another tile::Context"), tile::Error);
  addAndCheck(ctx, add, 1000, -3.0f);
}

TEST_CASE("several threads load and launch at once on one context") {
  tile::Context ctx = interpreter();
  tile::Program shared = ctx.loadFile(kSeedMatmul);
  tile::Program sharedAdd = ctx.loadString(kAddSource, "shared.tile");
  const int kThreads = 6;
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      try {
        // Half the threads load their own copy of the program (parsing at
        // once), half share one (compiling into one cache at once).
        tile::Program prog = t % 2 ? ctx.loadString(kAddSource, "t.tile") : sharedAdd;
        for (int rep = 0; rep < 3; ++rep) addAndCheck(ctx, prog.kernel("add_kernel"), 50 + 37 * t + rep, float(t));
        std::mt19937 rng{unsigned(t)};
        int64_t M = 17 + t, N = 20 - t, K = 33;
        std::vector<float> a = randomMatrix(M, K, rng), b = randomMatrix(K, N, rng);
        std::vector<float> c = runSeedMatmul(shared.kernel("matmul_kernel"), ctx, a, b, M, N, K);
        std::vector<float> ref = referenceMatmul(a, b, M, N, K);
        for (size_t i = 0; i < c.size(); ++i)
          if (std::fabs(c[i] - ref[i]) > 1e-5 * (1 + std::fabs(ref[i]))) ++failures[size_t(t)];
        // An error on one thread leaves the others alone.
        try {
          prog.kernel("broken_kernel").launch({1}, {ctx.zeros({16}, tile::DType::F32)}, {{"BLOCK", 16}});
          ++failures[size_t(t)];
        } catch (const tile::Error &) {
        }
      } catch (const std::exception &) {
        ++failures[size_t(t)];
      }
    });
  for (std::thread &th : threads) th.join();
  CHECK(failures == std::vector<int>(kThreads, 0));
}

TEST_CASE("ContextOptions::timeoutSeconds stops an interpreted launch that never ends, and only that one") {
  const char *src = R"PY(
import triton
import triton.language as tl

@triton.jit
def spin_kernel(x_ptr, n):
    i = tl.load(x_ptr)
    while i < n:
        i = i * 1
    tl.store(x_ptr, i + 1)
)PY";
  tile::ContextOptions o;
  o.device = tile::DeviceKind::Interpreter;
  o.timeoutSeconds = 0.2;
  tile::Context ctx(o);
  tile::Kernel spin = ctx.loadString(src, "spin.tile").kernel("spin_kernel");
  tile::Tensor x = ctx.zeros({1}, tile::DType::I32);
  auto t0 = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH_AS(spin.launch({1}, {x, int64_t(1)}), doctest::Contains("spin.tile:8:5: error: timed out after 0.2 s: kernel 'spin_kernel' (program 0, 0, 0)"), tile::Error);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20));
  // the deadline is per launch: a launch that ends (n = 0) runs after it
  spin.launch({1}, {x, int64_t(0)});
  CHECK(x.toHost<int32_t>()[0] == 1);
}

TEST_CASE("module constants replaced at load, as tilec -D") {
  tile::Context ctx = interpreter();
  const std::string source = R"(import triton
import triton.language as tl

SCALE = 2.0
BLOCK = 16


@triton.jit
def scale_kernel(x_ptr, out_ptr, n):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * SCALE, mask=mask)
)";
  const int64_t n = 100;
  std::vector<float> x(n);
  for (int64_t i = 0; i < n; ++i) x[size_t(i)] = float(i) - 37.5f;
  tile::Tensor in = ctx.fromHost({n}, x);
  auto run = [&](const tile::Program &prog, int64_t block) {
    tile::Tensor out = ctx.zeros({n}, tile::DType::F32);
    prog.kernel("scale_kernel").launch({tile::cdiv(n, block)}, {in, out, n});
    return out.toHost<float>();
  };
  std::vector<float> got = run(ctx.loadString(source, "consts.tile"), 16);
  for (int64_t i = 0; i < n; ++i) REQUIRE(got[size_t(i)] == x[size_t(i)] * 2.0f);
  // BLOCK 64 (two programs cover 100 elements only if the kernel reads it) and SCALE 3.5
  got = run(ctx.loadString(source, "consts.tile", {{"SCALE", 3.5}, {"BLOCK", 64}}), 64);
  for (int64_t i = 0; i < n; ++i) REQUIRE(got[size_t(i)] == x[size_t(i)] * 3.5f);
  // the program loaded without replacements is unchanged
  got = run(ctx.loadString(source, "consts.tile"), 16);
  for (int64_t i = 0; i < n; ++i) REQUIRE(got[size_t(i)] == x[size_t(i)] * 2.0f);
  CHECK_THROWS_WITH_AS(ctx.loadString(source, "consts.tile", {{"SCAL", 1.0}}),
                       doctest::Contains("consts.tile defines no module constant 'SCAL' to replace (did you mean 'SCALE'?)"),
                       tile::Error);
  CHECK_THROWS_WITH_AS(ctx.loadString(source, "consts.tile", {{"SCALE", in}}),
                       doctest::Contains("can only be replaced by a constant, not a tensor"), tile::Error);
}

TEST_CASE("ContextOptions: a dump directory of the context's own, the offset-overflow check") {
  namespace fs = std::filesystem;
  const std::string source = R"(import triton
import triton.language as tl


@triton.jit
def wrap_kernel(x_ptr, out_ptr, big, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    far = offs + big * 4
    x = tl.load(x_ptr + far, mask=offs < 0, other=1.0)
    tl.store(out_ptr + offs, x)
)";
  fs::path dir = fs::temp_directory_path() / fmt::format("tile-api-dump-{}", ::getpid());
  fs::remove_all(dir);
  std::vector<std::string> warnings;
  tile::ContextOptions o;
  o.device = tile::DeviceKind::Interpreter;
  o.dumpDir = dir.string();
  o.onWarning = [&](const std::string &w) { warnings.push_back(w); };
  tile::Context ctx(o);
  tile::Program prog = ctx.loadString(source, "wrap.tile");
  tile::Tensor x = ctx.zeros({16}, tile::DType::F32), out = ctx.zeros({16}, tile::DType::F32);
  // big * 4 overflows int32: the check warns at the multiplication
  prog.kernel("wrap_kernel").launch({1}, {x, out, int64_t(1) << 30}, {{"BLOCK", 16}});
  CHECK(out.toHost<float>() == std::vector<float>(16, 1.0f));
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("overflow") != std::string::npos);
  std::set<std::string> stages;
  for (const auto &entry : fs::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();   // NNN-unit-stage.ext
    stages.insert(name.substr(name.find('-', 4) + 1));
  }
  CHECK(stages.count("tokens.txt") == 1);
  CHECK(stages.count("ast.txt") == 1);
  bool ir = false, opt = false;
  for (const std::string &s : stages) {
    ir = ir || s.rfind("ir.", 0) == 0;
    opt = opt || s.rfind("ir-opt.", 0) == 0;
  }
  CHECK(ir);
  CHECK(opt);
  fs::remove_all(dir);
  // the same launch with the check off: no warning
  warnings.clear();
  o.dumpDir.clear();
  o.checkOffsetOverflow = false;
  tile::Context quiet(o);
  tile::Tensor qx = quiet.zeros({16}, tile::DType::F32), qout = quiet.zeros({16}, tile::DType::F32);
  quiet.loadString(source, "wrap.tile").kernel("wrap_kernel").launch({1}, {qx, qout, int64_t(1) << 30}, {{"BLOCK", 16}});
  CHECK(qout.toHost<float>() == std::vector<float>(16, 1.0f));
  CHECK(warnings.empty());
  CHECK(!fs::exists(dir));
}
