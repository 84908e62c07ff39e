// inference_step.cpp - a C++ program that embeds tile the way an inference
// server would: one step of a transformer-style block on a batch of rows,
//   p = softmax(gelu(layer_norm(x) @ W + bias))
// three kernels (dsl_examples/host/inference.tile) on device-resident
// tensors, queued on one stream, checked against a plain C++ reference and
// timed.
//
//   inference_step [--device auto|interp|gpu] [--rows M] [--hidden H]
//                  [--out N] [--steps S] [--compiled DIR]
//
// Memory is the host's: on the GPU it is allocated with the CUDA driver
// itself (cuMemAlloc in device 0's primary context, the one tile, the CUDA
// runtime and torch share) and handed to tile with Context::fromAddress; on
// the interpreter it is std::vector storage, wrapped the same way (and
// bounds-checked there). On the GPU the launches go on a stream the host
// created (Context::adoptStream). --compiled DIR loads the kernels compiled
// ahead of time instead of the source (GPU only; no compiler needed):
//
//   tilec compile dsl_examples/host/inference.tile -k layer_norm_kernel
//       -s '*fp32:16,*fp32:16,*fp32:16,*fp32:16,i32,fp32' -D BLOCK=1024 --emit ptx -o DIR/layer_norm.ptx
//   tilec compile dsl_examples/host/inference.tile -k linear_gelu_kernel
//       -s '*fp32:16,*fp32:16,*fp32:16,*fp32:16,i32,i32,i32' -D BLOCK_M=64 -D BLOCK_N=64 -D BLOCK_K=32
//       --emit ptx -o DIR/linear_gelu.ptx
//   tilec compile dsl_examples/host/inference.tile -k softmax_kernel
//       -s '*fp32:16,*fp32:16,i32' -D BLOCK=1024 --num-warps 8 --emit ptx -o DIR/softmax.ptx
//
// (BLOCK must be at least H for the layer norm and at least N for the
// softmax: the defaults, H = 768 and N = 1024, fit.) Compiling from source
// on the GPU needs a build with TILE_HOST_EXAMPLE_GPU=ON (tile::llvm), as
// matmul_host.
#include <tile/tile.h>

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace {

struct Args {
  tile::DeviceKind device = tile::DeviceKind::Auto;
  int64_t rows = 64, hidden = 768, out = 1024, steps = 20;
  std::string compiled;
};

[[noreturn]] void usage(const std::string &why) {
  std::fprintf(stderr,
               "inference_step: %s\nusage: inference_step [--device auto|interp|gpu] [--rows M] [--hidden H] "
               "[--out N] [--steps S] [--compiled DIR]\n",
               why.c_str());
  std::exit(2);
}

Args parseArgs(int argc, char **argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (i + 1 >= argc) usage("'" + flag + "' needs a value");
    std::string v = argv[++i];
    auto number = [&] {
      char *end = nullptr;
      long long n = std::strtoll(v.c_str(), &end, 10);
      if (*end || n < 1 || n > (1 << 20)) usage(flag + " takes a count from 1 to 2^20, not '" + v + "'");
      return int64_t(n);
    };
    if (flag == "--device")
      a.device = v == "gpu" ? tile::DeviceKind::Gpu : v == "interp" ? tile::DeviceKind::Interpreter
                 : v == "auto" ? tile::DeviceKind::Auto : (usage("unknown device '" + v + "'"), tile::DeviceKind::Auto);
    else if (flag == "--rows") a.rows = number();
    else if (flag == "--hidden") a.hidden = number();
    else if (flag == "--out") a.out = number();
    else if (flag == "--steps") a.steps = number();
    else if (flag == "--compiled") a.compiled = v;
    else usage("unknown option '" + flag + "'");
  }
  return a;
}

int64_t nextPow2(int64_t n) {
  int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

/// The CUDA driver calls the host makes itself (loaded at run time, so the
/// program needs no CUDA at build time): memory and a stream in device 0's
/// primary context.
class HostCuda {
public:
  HostCuda() {
    lib_ = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib_) fail("cannot load libcuda.so.1");
    sym(init_, "cuInit");
    sym(deviceGet_, "cuDeviceGet");
    sym(retain_, "cuDevicePrimaryCtxRetain");
    sym(release_, "cuDevicePrimaryCtxRelease_v2");
    sym(setCurrent_, "cuCtxSetCurrent");
    sym(memAlloc_, "cuMemAlloc_v2");
    sym(memFree_, "cuMemFree_v2");
    sym(streamCreate_, "cuStreamCreate");
    sym(streamDestroy_, "cuStreamDestroy_v2");
    sym(streamSync_, "cuStreamSynchronize");
    check(init_(0), "cuInit");
    check(deviceGet_(&device_, 0), "cuDeviceGet");
    check(retain_(&ctx_, device_), "cuDevicePrimaryCtxRetain");
    check(setCurrent_(ctx_), "cuCtxSetCurrent");
    check(streamCreate_(&stream_, 0), "cuStreamCreate");
  }
  ~HostCuda() {
    setCurrent_(ctx_);
    for (uint64_t p : allocations_) memFree_(p);
    if (stream_) streamDestroy_(stream_);
    release_(device_);
  }
  uint64_t alloc(size_t bytes) {
    uint64_t p = 0;
    check(setCurrent_(ctx_), "cuCtxSetCurrent");
    check(memAlloc_(&p, bytes), "cuMemAlloc");
    allocations_.push_back(p);
    return p;
  }
  uint64_t stream() const { return uint64_t(reinterpret_cast<uintptr_t>(stream_)); }
  void synchronize() { check(streamSync_(stream_), "cuStreamSynchronize"); }

private:
  template <typename F> void sym(F &f, const char *name) {
    f = reinterpret_cast<F>(dlsym(lib_, name));
    if (!f) fail(std::string("libcuda.so.1 has no ") + name);
  }
  [[noreturn]] static void fail(const std::string &why) {
    std::fprintf(stderr, "inference_step: %s\n", why.c_str());
    std::exit(1);
  }
  static void check(int result, const char *call) {
    if (result != 0) fail(std::string(call) + " failed with CUresult " + std::to_string(result));
  }
  void *lib_ = nullptr;
  int device_ = 0;
  void *ctx_ = nullptr, *stream_ = nullptr;
  std::vector<uint64_t> allocations_;
  int (*init_)(unsigned) = nullptr;
  int (*deviceGet_)(int *, int) = nullptr;
  int (*retain_)(void **, int) = nullptr;
  int (*release_)(int) = nullptr;
  int (*setCurrent_)(void *) = nullptr;
  int (*memAlloc_)(uint64_t *, size_t) = nullptr;
  int (*memFree_)(uint64_t) = nullptr;
  int (*streamCreate_)(void **, unsigned) = nullptr;
  int (*streamDestroy_)(void *) = nullptr;
  int (*streamSync_)(void *) = nullptr;
};

/// Host memory for the interpreter, the driver's for the GPU; tensors over it.
struct Memory {
  tile::Context &ctx;
  HostCuda *cuda = nullptr;
  std::vector<std::vector<float>> host;   // the interpreter's storage
  tile::Tensor tensor(tile::Shape shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    uint64_t address;
    if (cuda) {
      address = cuda->alloc(size_t(n) * sizeof(float));
    } else {
      host.emplace_back(size_t(n), 0.0f);
      address = uint64_t(reinterpret_cast<uintptr_t>(host.back().data()));
    }
    return ctx.fromAddress(address, shape, tile::DType::F32);
  }
};

std::vector<float> randoms(size_t n, float scale, std::mt19937 &rng) {
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> v(n);
  for (float &x : v) x = dist(rng);
  return v;
}

double gelu(double x) { return 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))); }

/// softmax(gelu(layer_norm(x) * lnw + lnb) @ w + bias), rows of out, in double.
std::vector<double> reference(const Args &a, const std::vector<float> &x, const std::vector<float> &lnw,
                              const std::vector<float> &lnb, const std::vector<float> &w, const std::vector<float> &bias,
                              double eps) {
  std::vector<double> p(size_t(a.rows * a.out));
  std::vector<double> h(size_t(a.hidden)), act(size_t(a.out));
  for (int64_t r = 0; r < a.rows; ++r) {
    double mean = 0, var = 0;
    for (int64_t k = 0; k < a.hidden; ++k) mean += x[size_t(r * a.hidden + k)];
    mean /= double(a.hidden);
    for (int64_t k = 0; k < a.hidden; ++k) var += std::pow(x[size_t(r * a.hidden + k)] - mean, 2);
    var /= double(a.hidden);
    for (int64_t k = 0; k < a.hidden; ++k)
      h[size_t(k)] = (x[size_t(r * a.hidden + k)] - mean) / std::sqrt(var + eps) * lnw[size_t(k)] + lnb[size_t(k)];
    double top = -INFINITY;
    for (int64_t j = 0; j < a.out; ++j) {
      double s = bias[size_t(j)];
      for (int64_t k = 0; k < a.hidden; ++k) s += h[size_t(k)] * w[size_t(k * a.out + j)];
      act[size_t(j)] = gelu(s);
      top = std::max(top, act[size_t(j)]);
    }
    double sum = 0;
    for (int64_t j = 0; j < a.out; ++j) sum += std::exp(act[size_t(j)] - top);
    for (int64_t j = 0; j < a.out; ++j) p[size_t(r * a.out + j)] = std::exp(act[size_t(j)] - top) / sum;
  }
  return p;
}

} // namespace

int main(int argc, char **argv) {
  Args a = parseArgs(argc, argv);
  try {
#ifdef TILE_WITH_GPU_COMPILER
    tile::enableGpuCompiler();
#endif
    tile::ContextOptions opts;
    opts.device = a.device;
    opts.onWarning = [](const std::string &w) { std::fprintf(stderr, "%s\n", w.c_str()); };
    tile::Context ctx(opts);
    bool gpu = ctx.device() == tile::DeviceKind::Gpu;
    if (!a.compiled.empty() && !gpu) usage("--compiled needs the GPU (precompiled kernels run through the driver)");
    std::printf("device: %s\n", ctx.describe().c_str());

    HostCuda *cuda = nullptr;
    std::unique_ptr<HostCuda> owned;
    if (gpu) cuda = (owned = std::make_unique<HostCuda>()).get();
    Memory mem{ctx, cuda, {}};
    std::mt19937 rng(2026);
    std::vector<float> x = randoms(size_t(a.rows * a.hidden), 1.0f, rng), lnw = randoms(size_t(a.hidden), 0.2f, rng),
                       lnb = randoms(size_t(a.hidden), 0.1f, rng),
                       w = randoms(size_t(a.hidden * a.out), 1.0f / std::sqrt(float(a.hidden)), rng),
                       bias = randoms(size_t(a.out), 0.1f, rng);
    for (float &v : lnw) v += 1.0f;
    tile::Tensor tx = mem.tensor({a.rows, a.hidden}), tlnw = mem.tensor({a.hidden}), tlnb = mem.tensor({a.hidden}),
                 tw = mem.tensor({a.hidden, a.out}), tbias = mem.tensor({a.out}), th = mem.tensor({a.rows, a.hidden}),
                 tact = mem.tensor({a.rows, a.out}), tp = mem.tensor({a.rows, a.out});
    tx.copyFromHost(x);
    tlnw.copyFromHost(lnw);
    tlnb.copyFromHost(lnb);
    tw.copyFromHost(w);
    tbias.copyFromHost(bias);

    const double eps = 1e-5;
    const int64_t BM = 64, BN = 64, BK = 32;
    bool aot = !a.compiled.empty();
    std::optional<tile::Program> src;
    if (!aot) src = ctx.loadFile(TILE_INFERENCE_KERNELS);
    auto kernel = [&](const char *file, const char *name) {
      return aot ? ctx.loadCompiled(a.compiled + "/" + file).kernel(name) : src->kernel(name);
    };
    tile::Kernel layerNorm = kernel("layer_norm.ptx", "layer_norm_kernel");
    tile::Kernel linear = kernel("linear_gelu.ptx", "linear_gelu_kernel");
    tile::Kernel softmax = kernel("softmax.ptx", "softmax_kernel");
    // precompiled kernels carry their constexprs; from source they are passed
    auto consts = [&](tile::NamedArgs c) { return aot ? tile::NamedArgs{} : c; };

    tile::LaunchOptions lo;
    lo.stream = gpu ? ctx.adoptStream(cuda->stream()) : ctx.createStream();
    lo.async = true;
    tile::LaunchOptions wide = lo;
    wide.numWarps = 8;
    auto step = [&] {
      layerNorm.launch({a.rows}, {tx, th, tlnw, tlnb, a.hidden, eps}, consts({{"BLOCK", nextPow2(a.hidden)}}), lo);
      linear.launch({tile::cdiv(a.rows, BM), tile::cdiv(a.out, BN)}, {th, tw, tbias, tact, a.rows, a.out, a.hidden},
                    consts({{"BLOCK_M", BM}, {"BLOCK_N", BN}, {"BLOCK_K", BK}}), lo);
      softmax.launch({a.rows}, {tact, tp, a.out}, consts({{"BLOCK", nextPow2(a.out)}}), wide);
    };
    auto finish = [&] { gpu ? cuda->synchronize() : lo.stream.synchronize(); };

    step();
    finish();
    std::vector<float> got = tp.toHost<float>();
    std::vector<double> want = reference(a, x, lnw, lnb, w, bias, eps);
    double worst = 0;
    for (size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::fabs(double(got[i]) - want[i]));
    std::printf("step: %lld rows, %lld -> %lld; largest |p - reference| = %.3g\n", (long long)a.rows,
                (long long)a.hidden, (long long)a.out, worst);
    if (!(worst <= 1e-4)) {
      std::fprintf(stderr, "inference_step: FAILED: the probabilities differ from the reference by %g\n", worst);
      return 1;
    }
    auto t0 = std::chrono::steady_clock::now();
    for (int64_t s = 0; s < a.steps; ++s) step();
    finish();
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%lld steps: %.3f ms a step (three launches, %s)\n", (long long)a.steps, ms / double(a.steps),
                aot ? "precompiled" : "compiled from source");
    std::printf("inference_step: ok\n");
    return 0;
  } catch (const tile::Error &e) {
    std::fprintf(stderr, "%s", e.what());
    return 1;
  }
}
