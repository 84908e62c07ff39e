// AotTests.cpp - kernels compiled ahead of time (`tilec compile --emit
// ptx|cubin -o`, Context::loadCompiled). Without a GPU: the metadata
// parser (api/AotInfo.h) on good and malformed texts, and loadCompiled's
// errors for missing, unreadable and foreign files and on the interpreter.
// With a CUDA driver and TILE_AOT_DIR (tests/gpu/aot_check.sh makes the
// files): vector add and the seed matmul, as PTX and as cubins, launched on
// random data of ragged sizes and compared with plain C++ references, and
// every violated assumption (dtype, ':16', ':1', constexpr) an Error.
#include "AotInfo.h"
#include "cuda/Cuda.h"

#include <tile/tile.h>

#include <doctest/doctest.h>

#include "ApiTestUtil.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace {

using tile::detail::AotKernelInfo;
using tile::detail::parseAotInfo;

const char *kAddInfo = "tile-aot 1\n"
                       "kernel=add_kernel\n"
                       "symbol=add_kernel\n"
                       "num_warps=4\n"
                       "num_stages=3\n"
                       "shared=0\n"
                       "arch=sm_90a\n"
                       "signature=*f32:16,*f32:16,*f32:16,i32,BLOCK_SIZE=1024\n"
                       "params=x_ptr,y_ptr,output_ptr,n_elements,BLOCK_SIZE\n";

/// kAddInfo with the line starting `key=` replaced by `line` (dropped when empty).
std::string withLine(const std::string &key, const std::string &line) {
  std::string text = kAddInfo;
  size_t at = text.find("\n" + key + "=") + 1;
  size_t end = text.find('\n', at) + 1;
  return text.substr(0, at) + (line.empty() ? "" : line + "\n") + text.substr(end);
}

tile::Context interpreter() { return tile::apitest::interpreterContext(false); }

/// A fresh file under the temporary directory holding `bytes`.
std::string tempFile(const std::string &name, const std::string &bytes) {
  std::filesystem::path p = std::filesystem::temp_directory_path() / ("tile-aot-test-" + name);
  std::ofstream(p, std::ios::binary) << bytes;
  return p.string();
}

} // namespace

TEST_CASE("aot metadata: vector add's text parses into every field") {
  AotKernelInfo info = parseAotInfo(kAddInfo, "add.ptx");
  CHECK(info.kernel == "add_kernel");
  CHECK(info.symbol == "add_kernel");
  CHECK(info.numWarps == 4);
  CHECK(info.numStages == 3);
  CHECK(info.sharedBytes == 0);
  CHECK(info.arch == "sm_90a");
  CHECK(info.signature == "*f32:16,*f32:16,*f32:16,i32,BLOCK_SIZE=1024");
  REQUIRE(info.params.size() == 5);
  const char *names[] = {"x_ptr", "y_ptr", "output_ptr", "n_elements", "BLOCK_SIZE"};
  for (int i = 0; i < 5; ++i) CHECK(info.params[size_t(i)].name == names[i]);
  for (int i = 0; i < 3; ++i) {
    CHECK(!info.params[size_t(i)].isConstexpr);
    CHECK(info.params[size_t(i)].type == tile::ElemType::ptrTo(tile::Scalar::F32));
    CHECK(info.params[size_t(i)].div16);
    CHECK(!info.params[size_t(i)].equalsOne);
  }
  CHECK(info.params[3].type == tile::ElemType::of(tile::Scalar::I32));
  CHECK(!info.params[3].div16);
  CHECK(info.params[4].isConstexpr);
  CHECK(info.params[4].value == "1024");
}

TEST_CASE("aot metadata: ':1', other types, escapes, quoted commas, unknown keys and the NUL") {
  std::string text = "tile-aot 1\n"
                     "kernel=fill_kernel\n"
                     "symbol=fill_kernel_0\n"
                     "num_warps=8\n"
                     "num_stages=2\n"
                     "shared=18432\n"
                     "arch=sm_80\n"
                     "future_key=whatever\n"
                     "signature=*bf16,i64:16,i32:1,f16,u8,i1,MODE='a,b\\n(c',T=(1, 2),BLOCK=64\n"
                     "params=out_ptr,n,stride,value,small,flag,MODE,T,BLOCK\n";
  text += std::string(1, '\0') + "garbage after the NUL";
  AotKernelInfo info = parseAotInfo(text, "fill.cubin");
  CHECK(info.symbol == "fill_kernel_0");
  CHECK(info.numWarps == 8);
  CHECK(info.numStages == 2);
  CHECK(info.sharedBytes == 18432);
  CHECK(info.signature == "*bf16,i64:16,i32:1,f16,u8,i1,MODE='a,b\n(c',T=(1, 2),BLOCK=64");
  REQUIRE(info.params.size() == 9);
  CHECK(info.params[0].type == tile::ElemType::ptrTo(tile::Scalar::BF16));
  CHECK(!info.params[0].div16);
  CHECK(info.params[1].type == tile::ElemType::of(tile::Scalar::I64));
  CHECK(info.params[1].div16);
  CHECK(info.params[2].equalsOne);
  CHECK(!info.params[2].div16);
  CHECK(info.params[3].type == tile::ElemType::of(tile::Scalar::F16));
  CHECK(info.params[4].type == tile::ElemType::of(tile::Scalar::U8));
  CHECK(info.params[5].type == tile::ElemType::of(tile::Scalar::I1));
  CHECK(info.params[6].isConstexpr);
  CHECK(info.params[6].value == "'a,b\n(c'");
  CHECK(info.params[7].value == "(1, 2)");
  CHECK(info.params[8].value == "64");
}

TEST_CASE("aot metadata: a kernel without parameters") {
  std::string text = withLine("signature", "signature=");
  text = text.substr(0, text.find("params=")) + "params=\n";
  CHECK(parseAotInfo(text, "k.ptx").params.empty());
}

TEST_CASE("aot metadata: splitSignature keeps quoted and bracketed commas") {
  using V = std::vector<std::string>;
  CHECK(tile::detail::splitSignature("") == V{});
  CHECK(tile::detail::splitSignature("i32") == V{"i32"});
  CHECK(tile::detail::splitSignature("*f32:16,i32") == V{"*f32:16", "i32"});
  CHECK(tile::detail::splitSignature("A=(1, (2, 3)),B='x,y',C=\"p,q\",D=[4, 5]") ==
        V{"A=(1, (2, 3))", "B='x,y'", "C=\"p,q\"", "D=[4, 5]"});
}

TEST_CASE("aot metadata: malformed texts are Errors naming the file and what is wrong") {
  struct Bad {
    std::string text, expect;
  };
  std::string noParams = kAddInfo;
  noParams = noParams.substr(0, noParams.find("params="));
  const Bad bad[] = {
      {"", "does not start with 'tile-aot"},
      {"hello\n", "does not start with 'tile-aot"},
      {std::string("tile-aot 2\n") + (kAddInfo + 11), "version '2'"},
      {withLine("kernel", ""), "no 'kernel='"},
      {withLine("symbol", ""), "no 'symbol='"},
      {withLine("num_warps", ""), "no 'num_warps='"},
      {withLine("num_stages", ""), "no 'num_stages='"},
      {withLine("shared", ""), "no 'shared='"},
      {withLine("arch", ""), "no 'arch='"},
      {withLine("signature", ""), "no 'signature='"},
      {noParams, "no 'params='"},
      {withLine("kernel", "kernel="), "empty kernel"},
      {withLine("num_warps", "num_warps=3"), "not a power of two"},
      {withLine("num_warps", "num_warps=64"), "num_warps=64 is not an integer from 1 to 32"},
      {withLine("num_warps", "num_warps=4x"), "num_warps=4x"},
      {withLine("num_stages", "num_stages=0"), "num_stages=0"},
      {withLine("shared", "shared=-1"), "shared=-1"},
      {withLine("shared", "shared=99999999999"), "shared=99999999999"},
      {withLine("arch", "arch sm_90a"), "line 'arch sm_90a' is not key=value"},
      {withLine("arch", "=sm_90a"), "is not key=value"},
      {withLine("arch", "arch=sm_90a\nkernel=again"), "key 'kernel' appears twice"},
      {withLine("arch", "arch=sm_90a\\"), "lone backslash"},
      {withLine("arch", "arch=sm\\t90a"), "unknown escape"},
      {withLine("signature", "signature=*f32:16,*f32:16,i32,BLOCK_SIZE=1024"), "4 entries but params names 5"},
      {withLine("signature", "signature=*q32:16,*f32:16,*f32:16,i32,BLOCK_SIZE=1024"), "entry '*q32:16' of parameter 'x_ptr'"},
      {withLine("signature", "signature=*f32:8,*f32:16,*f32:16,i32,BLOCK_SIZE=1024"), "entry '*f32:8'"},
      {withLine("signature", "signature=*f32:1,*f32:16,*f32:16,i32,BLOCK_SIZE=1024"), "entry '*f32:1'"},
      {withLine("signature", "signature=*f32:16,*f32:16,*f32:16,f32:16,BLOCK_SIZE=1024"), "entry 'f32:16'"},
      {withLine("signature", "signature=*f32:16,*f32:16,*f32:16,i32:16:1,BLOCK_SIZE=1024"), "entry 'i32:16:1'"},
      {withLine("signature", "signature=*f32:16,*f32:16,*f32:16,i32,BLOCK=1024"), "entry 'BLOCK=1024' of parameter 'BLOCK_SIZE'"},
      {withLine("params", "params=x_ptr,,output_ptr,n_elements,BLOCK_SIZE"), "parameter 2 has no name"},
  };
  for (const Bad &b : bad) {
    CAPTURE(b.text);
    CHECK_THROWS_WITH_AS(parseAotInfo(b.text, "k.ptx"), doctest::Contains("error: k.ptx: "), tile::Error);
    CHECK_THROWS_WITH_AS(parseAotInfo(b.text, "k.ptx"), doctest::Contains(b.expect.c_str()), tile::Error);
  }
}

TEST_CASE("aot loadCompiled: missing, unreadable and foreign files, and the interpreter, are Errors") {
  tile::Context ctx = interpreter();
  CHECK_THROWS_WITH_AS(ctx.loadCompiled("/nonexistent/add.ptx"), doctest::Contains("cannot read '/nonexistent/add.ptx'"),
                       tile::Error);
  std::string dir = std::filesystem::temp_directory_path().string();
  CHECK_THROWS_WITH_AS(ctx.loadCompiled(dir), doctest::Contains("a directory"), tile::Error);
  std::string empty = tempFile("empty.ptx", "");
  CHECK_THROWS_WITH_AS(ctx.loadCompiled(empty), doctest::Contains("is neither PTX nor a cubin"), tile::Error);
  std::string binary = tempFile("junk.bin", std::string("\x01\x02\0\x03junk", 8));
  CHECK_THROWS_WITH_AS(ctx.loadCompiled(binary), doctest::Contains("is neither PTX nor a cubin"), tile::Error);
  // A well-formed PTX file: the interpreter cannot run it.
  std::string ptx = tempFile("k.ptx", "//\n.version 8.0\n.target sm_90a\n.address_size 64\n");
  CHECK_THROWS_WITH_AS(ctx.loadCompiled(ptx), doctest::Contains("precompiled kernels need a GPU context"), tile::Error);
  CHECK_THROWS_WITH_AS(ctx.loadCompiled(ptx), doctest::Contains(("error: cannot load '" + ptx + "'").c_str()), tile::Error);
  std::string elf = tempFile("k.cubin", std::string("\x7f" "ELF\x02\x01\x01", 7));
  CHECK_THROWS_WITH_AS(ctx.loadCompiled(elf), doctest::Contains("need a GPU context"), tile::Error);
  // The context still works.
  CHECK(ctx.zeros({4}, tile::DType::F32).numel() == 4);
  for (const std::string &f : {empty, binary, ptx, elf}) std::filesystem::remove(f);
}

// ------------------------------------------------------------------ GPU

namespace {

/// TILE_AOT_DIR, or "" when the GPU test should skip (no directory or no
/// driver). TILE_AOT_REQUIRE_GPU=1 (aot_check.sh) makes a missing driver
/// a failure instead.
std::string aotDir() {
  const char *dir = std::getenv("TILE_AOT_DIR");
  if (!dir || !*dir) {
    MESSAGE("TILE_AOT_DIR is not set: skipping (tests/gpu/aot_check.sh sets it)");
    return "";
  }
  const char *require = std::getenv("TILE_AOT_REQUIRE_GPU");
  if (!tile::cuda::Driver::get()) {
    if (require && std::string(require) == "1") FAIL("no CUDA driver: " << tile::cuda::Driver::unavailableReason());
    MESSAGE("no CUDA driver: skipping: " << tile::cuda::Driver::unavailableReason());
    return "";
  }
  return dir;
}

/// The GPU context: loadCompiled needs no GPU compiler (none is linked here).
tile::Context gpu() {
  tile::ContextOptions o;
  o.device = tile::DeviceKind::Gpu;
  return tile::Context(o);
}

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// The compiled value of constexpr `name` in a signature ("...,NAME=64,...").
int64_t constexprOf(const std::string &signature, const std::string &name) {
  size_t at = signature.find("," + name + "=");
  REQUIRE(at != std::string::npos);
  return std::stoll(signature.substr(at + name.size() + 2));
}

std::vector<float> randomFloats(size_t n, std::mt19937 &rng) {
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  std::vector<float> v(n);
  for (float &x : v) x = dist(rng);
  return v;
}

using tile::apitest::toTF32;

/// out = x + y for n elements on the precompiled add_kernel; exact.
void checkAdd(const tile::Context &ctx, const tile::Kernel &add, int64_t n, std::mt19937 &rng) {
  CAPTURE(n);
  int64_t block = constexprOf(add.compile({}).signature, "BLOCK_SIZE");
  std::vector<float> x = randomFloats(size_t(n), rng), y = randomFloats(size_t(n), rng);
  tile::Tensor tx = ctx.fromHost({n}, tile::DType::F32, x);
  tile::Tensor ty = ctx.fromHost({n}, tile::DType::F32, y);
  tile::Tensor out = ctx.zeros({n}, tile::DType::F32);
  add.launch({cdiv(n, block)}, {tx, ty, out, n});
  std::vector<float> got = out.toHost<float>();
  size_t bad = 0;
  for (size_t i = 0; i < size_t(n); ++i) bad += got[i] != x[i] + y[i];
  CHECK(bad == 0);
}

/// The errors vector add's signature promises: none of them launches.
void checkAddErrors(const tile::Context &ctx, const tile::Kernel &add) {
  const int64_t n = 1000;
  tile::Tensor x = ctx.fromHost({n + 1}, tile::DType::F32, std::vector<float>(size_t(n + 1), 1.0f));
  tile::Tensor out = ctx.fromHost({n}, tile::DType::F32, std::vector<float>(size_t(n), -7.0f));
  tile::Tensor x4 = x.slice(0, 1, n + 1); // 4 bytes past a 16-byte boundary
  tile::Tensor half = ctx.zeros({n}, tile::DType::F16);
  tile::Tensor x0 = x.slice(0, 0, n);
  CHECK_THROWS_WITH_AS(add.launch({1}, {x4, x0, out, n}),
                       doctest::Contains("argument 1 ('x_ptr')"), tile::Error);
  CHECK_THROWS_WITH_AS(add.launch({1}, {x0, x0, x4, n}),
                       doctest::Contains("is not a multiple of 16 bytes, but the kernel was compiled assuming"),
                       tile::Error);
  CHECK_THROWS_WITH_AS(add.launch({1}, {x0, half, out, n}),
                       doctest::Contains("a float16 tensor was given, but the kernel was compiled for *f32:16"),
                       tile::Error);
  CHECK_THROWS_WITH_AS(add.launch({1}, {x0, x0, out}), doctest::Contains("takes 4 runtime arguments"), tile::Error);
  CHECK_THROWS_WITH_AS(add.launch({1}, {x0, x0, out, int64_t(1) << 40}), doctest::Contains("does not fit"),
                       tile::Error);
  CHECK_THROWS_WITH_AS(add.launch({1}, {x0, x0, out, 2.5}), doctest::Contains("the float 2.5 was given"), tile::Error);
  CHECK_THROWS_WITH_AS(add.launch({1}, {x0, x0, out, n}, {{"BLOCK_SIZE", 64}}),
                       doctest::Contains("which was compiled with BLOCK_SIZE="), tile::Error);
  CHECK_THROWS_WITH_AS(add.launch({1}, {x0, x0, out, n}, {{"n_elements", n}}),
                       doctest::Contains("'n_elements' is a runtime parameter"), tile::Error);
  CHECK_THROWS_WITH_AS(add.launch({1}, {x0, x0, out, n}, {{"nope", 1}}), doctest::Contains("no parameter named 'nope'"),
                       tile::Error);
  tile::Tensor foreign = gpu().zeros({n}, tile::DType::F32);
  CHECK_THROWS_WITH_AS(add.launch({1}, {x0, x0, foreign, n}), doctest::Contains("another tile::Context"), tile::Error);
  // Nothing ran: out still holds its sentinel.
  for (float v : out.toHost<float>()) REQUIRE(v == -7.0f);
  // The compiled constexpr value itself is accepted.
  int64_t block = constexprOf(add.compile({}).signature, "BLOCK_SIZE");
  add.launch({cdiv(n, block)}, {x0, x0, out, n}, {{"BLOCK_SIZE", block}});
  for (float v : out.toHost<float>()) REQUIRE(v == 2.0f);
}

/// The seed matmul on M x K times K x N. The seed masks its loads along K
/// only, so A and B get storage padded to whole blocks (the kernel reads,
/// and the store drops, the rows and columns past M and N).
std::vector<float> runMatmul(const tile::Context &ctx, const tile::Kernel &mm, const std::vector<float> &a,
                             const std::vector<float> &b, int64_t M, int64_t N, int64_t K) {
  std::string sig = mm.compile({}).signature;
  int64_t bm = constexprOf(sig, "BLOCK_M"), bn = constexprOf(sig, "BLOCK_N");
  tile::Tensor pa = ctx.zeros({cdiv(M, bm) * bm, K}, tile::DType::F32);
  tile::Tensor pb = ctx.zeros({K + 1, N + bn}, tile::DType::F32);
  tile::Tensor ta = pa.slice(0, 0, M);
  tile::Tensor tb = pb.slice(0, 0, K).slice(1, 0, N);
  ta.copyFromHost(a);
  tb.copyFromHost(b);
  tile::Tensor tc = ctx.zeros({M, N}, tile::DType::F32);
  mm.launch({cdiv(M, bm), cdiv(N, bn)},
            {ta, tb, tc, M, N, K, ta.stride(0), ta.stride(1), tb.stride(0), tb.stride(1), tc.stride(0), tc.stride(1)});
  return tc.toHost<float>();
}

void checkMatmul(const tile::Context &ctx, const tile::Kernel &mm, std::mt19937 &rng) {
  std::string sig = mm.compile({}).signature;
  int64_t K = constexprOf(sig, "N_ITERS") * constexprOf(sig, "BLOCK_K") - 3; // ragged K, the compiled N_ITERS
  for (auto mn : {std::pair<int64_t, int64_t>{100, 75}, {1, 1}, {64, 33}}) {
    int64_t M = mn.first, N = mn.second;   // clang 14 captures no structured binding (CAPTURE)
    CAPTURE(M);
    CAPTURE(N);
    CAPTURE(K);
    std::vector<float> a = randomFloats(size_t(M * K), rng), b = randomFloats(size_t(K * N), rng);
    std::vector<float> got = runMatmul(ctx, mm, a, b, M, N, K);
    size_t bad = 0;
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double acc = 0;
        for (int64_t k = 0; k < K; ++k) acc += double(toTF32(a[size_t(i * K + k)])) * double(toTF32(b[size_t(k * N + j)]));
        bad += !(std::fabs(got[size_t(i * N + j)] - acc) <= 5e-4 * (1 + std::fabs(acc))); // f32 sums
      }
    CHECK(bad == 0);
  }
  // ':1' strides: a transposed B (stride_bn = K) breaks the assumption.
  tile::Tensor t = ctx.zeros({8, 8}, tile::DType::F32);
  tile::Tensor tt = t.transpose(0, 1);
  CHECK_THROWS_WITH_AS(
      mm.launch({1, 1}, {t, tt, t, 8, 8, 8, t.stride(0), t.stride(1), tt.stride(0), tt.stride(1), t.stride(0), t.stride(1)}),
      doctest::Contains("argument 10 ('stride_bn')"), tile::Error);
  CHECK_THROWS_WITH_AS(
      mm.launch({1, 1}, {t, t, t, 8, 8, 8, 8, 2, 8, 1, 8, 1}),
      doctest::Contains("argument 8 ('stride_ak') of kernel 'matmul_kernel'"), tile::Error);
  CHECK_THROWS_WITH_AS(mm.launch({1, 1}, {t, t, t, 8, 8, 8, 8, 2, 8, 1, 8, 1}),
                       doctest::Contains("2 is not 1, but the kernel was compiled assuming it is 1"), tile::Error);
}

} // namespace

TEST_CASE("aot on the GPU: precompiled vector add and seed matmul (PTX and cubin) match C++ references") {
  std::string dir = aotDir();
  if (dir.empty()) return;
  tile::Context ctx = gpu();
  std::mt19937 rng(11);
  for (const char *ext : {"ptx", "cubin"}) {
    CAPTURE(ext);
    tile::Program addProg = ctx.loadCompiled(dir + "/add." + ext);
    CHECK(addProg.kernelNames() == std::vector<std::string>{"add_kernel"});
    CHECK_THROWS_WITH_AS(addProg.kernel("matmul_kernel"), doctest::Contains("add_kernel"), tile::Error);
    tile::Kernel add = addProg.kernel("add_kernel");
    tile::CompiledInfo info = add.compile({});
    CHECK(info.signature.rfind("*f32:16,*f32:16,*f32:16,i32,BLOCK_SIZE=", 0) == 0);
    CHECK(info.numWarps == 4);
    CHECK(info.registers > 0);
    CHECK(info.ptx.empty() == (std::string(ext) == "cubin"));
    for (int64_t n : {int64_t(1000003), int64_t(1), int64_t(4097)}) checkAdd(ctx, add, n, rng);
    checkAddErrors(ctx, add);

    tile::Kernel mm = ctx.loadCompiled(dir + "/matmul." + ext).kernel("matmul_kernel");
    CHECK(mm.compile({}).sharedBytes > 0);
    checkMatmul(ctx, mm, rng);
  }
}

TEST_CASE("aot on the GPU: async launches on a stream, and a PTX file without metadata") {
  std::string dir = aotDir();
  if (dir.empty()) return;
  tile::Context ctx = gpu();
  tile::Kernel add = ctx.loadCompiled(dir + "/add.ptx").kernel("add_kernel");
  const int64_t n = 70001;
  tile::Tensor acc = ctx.fromHost({n}, tile::DType::F32, std::vector<float>(size_t(n), 0.0f));
  tile::Tensor one = ctx.fromHost({n}, tile::DType::F32, std::vector<float>(size_t(n), 1.0f));
  tile::LaunchOptions lo;
  lo.async = true;
  lo.stream = ctx.createStream();
  int64_t block = constexprOf(add.compile({}).signature, "BLOCK_SIZE");
  for (int i = 0; i < 10; ++i) add.launch({cdiv(n, block)}, {acc, one, acc, n}, {}, lo);
  lo.stream.synchronize();
  for (float v : acc.toHost<float>()) REQUIRE(v == 10.0f);

  // The same PTX with its metadata cut off: not ours.
  std::ifstream in(dir + "/add.ptx", std::ios::binary);
  std::string ptx((std::istreambuf_iterator<char>(in)), {});
  size_t cut = ptx.find("// tile kernel metadata");
  REQUIRE(cut != std::string::npos);
  std::string bare = tempFile("bare.ptx", ptx.substr(0, cut));
  CHECK_THROWS_WITH_AS(ctx.loadCompiled(bare), doctest::Contains("it was not produced by `tilec compile"), tile::Error);
  std::filesystem::remove(bare);
}
