// GpuLauncher.cpp - host-program launches on the GPU, with an optional
// differential check against the CPU interpreter.
#include "GpuLauncher.h"

#include "Bench.h"
#include "GpuCompile.h"
#include "backend/LLVMInfo.h"
#include "driver/DiskCache.h"
#include "driver/Dump.h"


#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>

namespace tile::tools {

struct GpuLauncher::Kernel {
  cuda::Module module;
  cuda::Function fn;
  backend::KernelBinary binary;
  std::shared_ptr<const ir::Function> ir; ///< un-laid-out IR, for the interpreter check (null without it)
};

/// A host allocation's device copy.
struct GpuLauncher::Mirror {
  interp::MemoryRegion host;
  cuda::DeviceBuffer device;
};

GpuLauncher::GpuLauncher(cuda::Driver &drv, GpuLaunchOptions opts) : drv_(drv), opts_(std::move(opts)) {
  if (opts_.arch.empty()) opts_.arch = drv.device().targetArch();
}

GpuLauncher::~GpuLauncher() = default;

GpuLauncher::Kernel &GpuLauncher::compiled(const sema::Program &prog, const host::LaunchRequest &req,
                                           const sema::BoundLaunch &bound) {
  std::string key = fmt::format("{}|{}|{}|w{}|s{}|{}", static_cast<const void *>(&prog), req.kernel->name,
                                bound.spec.key(), req.numWarps, req.numStages, opts_.arch);
  backend::TargetOptions t;
  t.arch = opts_.arch;
  t.numWarps = req.numWarps;
  t.numStages = req.numStages;
  std::string dir = driver::dumpDir();
  auto it = kernels_.find(key);
  if (it != kernels_.end()) {
    // Cached: compile once more only for the dumps of a new dump directory.
    if (!dir.empty() && dumped_.insert(key + "|" + dir).second) {
      std::unique_ptr<ir::Function> fn = driver::compileKernel(prog, *req.kernel, bound.spec, opts_.pipeline);
      runGpuPasses(*fn, t, opts_.pipeline, bound.spec.key());
      compilePTXWithDumps(*fn, t);
    }
    return *it->second;
  }
  if (!dir.empty()) dumped_.insert(key + "|" + dir);
  // The interpreter check needs the IR before the GPU passes; only then.
  std::shared_ptr<const ir::Function> plain;
  if (opts_.checkAgainstInterpreter) plain = driver::compileKernel(prog, *req.kernel, bound.spec, opts_.pipeline);
  // The disk cache (driver/DiskCache.h) skips the GPU passes and LLVM (the
  // tile-IR passes still run: cheap, and their warnings still show); with
  // a dump directory every stage is compiled, for the dumps.
  const driver::DiskCache *disk = driver::processDiskCache();
  driver::CacheKey diskKey;
  std::optional<driver::CachedKernel> hit;
  if (disk) {
    diskKey = driver::kernelCacheKey(prog, *req.kernel, bound.spec, opts_.pipeline, req.numWarps, req.numStages,
                                     opts_.arch, "LLVM " + backend::llvmVersion());
    if (dir.empty()) hit = disk->load(diskKey);
  }
  std::unique_ptr<ir::Function> fn = driver::compileKernel(prog, *req.kernel, bound.spec, opts_.pipeline);
  backend::KernelBinary bin;
  if (hit) {
    bin.name = hit->name;
    bin.ptx = std::move(hit->ptx);
    bin.sharedBytes = hit->sharedBytes;
    bin.numWarps = hit->numWarps;
  } else {
    runGpuPasses(*fn, t, opts_.pipeline, bound.spec.key());
    bin = compilePTXWithDumps(*fn, t);
  }
  cuda::Module module = [&] {
    try {
      return cuda::Module::fromPtx(drv_, bin.ptx, req.kernel->name);
    } catch (const cuda::Error &e) {
      throw CompileError(req.loc, fmt::format("loading kernel '{}' failed: {}", req.kernel->name, e.what()));
    }
  }();
  cuda::Function f = module.function(bin.name);
  // Stored once the driver accepted the PTX: a module that fails to load
  // is never cached.
  if (disk && !hit) disk->store(diskKey, driver::CachedKernel{bin.name, bin.ptx, bin.sharedBytes, bin.numWarps,
                                                              diskKey.describe()});
  // More live values than registers: the driver's JIT spilled to local
  // memory. Not an error (the kernel runs, slower); said once per
  // specialization, at the kernel's def, with what to change.
  if (f.localSizeBytes() > 0)
    std::fputs(formatDiagnostic(Severity::Warning, req.kernel->loc,
                                fmt::format("kernel '{}' ({}) spills {} bytes per thread to local memory ({} "
                                            "registers per thread); smaller blocks or more warps avoid it",
                                            req.kernel->name, bound.spec.key(), f.localSizeBytes(), f.numRegs()))
                   .c_str(),
               stderr);
  auto k = std::make_unique<Kernel>(Kernel{std::move(module), f, std::move(bin), std::move(plain)});
  ++compilations_;
  return *kernels_.emplace(key, std::move(k)).first->second;
}

namespace {


std::string describeElement(Scalar s, const unsigned char *p) {
  switch (s) {
  case Scalar::F16: { uint16_t h; std::memcpy(&h, p, 2); return fmt::format("{}", halfBitsToFloat(h)); }
  case Scalar::BF16: { uint16_t h; std::memcpy(&h, p, 2); return fmt::format("{}", bf16BitsToFloat(h)); }
  case Scalar::F32: { float f; std::memcpy(&f, p, 4); return fmt::format("{}", f); }
  case Scalar::F64: { double d; std::memcpy(&d, p, 8); return fmt::format("{}", d); }
  default: {
    int64_t v = 0;
    std::memcpy(&v, p, byteSize(s));
    return fmt::format("{}", wrapToIntType(v, s));
  }
  }
}

double elementValue(Scalar s, const unsigned char *p) {
  switch (s) {
  case Scalar::F16: { uint16_t h; std::memcpy(&h, p, 2); return halfBitsToFloat(h); }
  case Scalar::BF16: { uint16_t h; std::memcpy(&h, p, 2); return bf16BitsToFloat(h); }
  case Scalar::F32: { float f; std::memcpy(&f, p, 4); return f; }
  case Scalar::F64: { double d; std::memcpy(&d, p, 8); return d; }
  default: return 0;
  }
}

/// GPU and interpreter agree on an element: exactly for integers; for floats
/// within what approximate hardware math and FMA contraction allow.
bool sameElement(Scalar s, const unsigned char *a, const unsigned char *b) {
  if (!isFloat(s)) return std::memcmp(a, b, byteSize(s)) == 0;
  double x = elementValue(s, a), y = elementValue(s, b);
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  if (std::isinf(x) || std::isinf(y)) return x == y;
  double rtol = s == Scalar::F16 || s == Scalar::BF16 ? 1e-2 : s == Scalar::F32 ? 1e-4 : 1e-9;
  // f32 atol: sums of products in another order (tensor cores, shuffle
  // trees) differ by ~K ulps of the terms, which can be large next to a
  // result that cancels.
  double atol = s == Scalar::F16 || s == Scalar::BF16 ? 1e-2 : s == Scalar::F32 ? 1e-4 : 1e-12;
  return std::fabs(x - y) <= atol + rtol * std::fabs(y);
}

} // namespace

void GpuLauncher::launch(const sema::Program &prog, const host::LaunchRequest &req) {
  sema::BoundLaunch bound = sema::bindLaunch(prog, *req.kernel, req.positional, req.keywords, req.loc);
  Kernel &k = compiled(prog, req, bound);
  drv_.makeCurrent();
  // Mirror every tensor argument: host -> device before, device -> host after.
  std::vector<Mirror *> regions(bound.args.size(), nullptr);
  std::vector<cuda::ParamSlot> slots(bound.args.size());
  std::vector<void *> params(bound.args.size());
  for (size_t i = 0; i < bound.args.size(); ++i) {
    const ScalarArg &a = bound.args[i];
    uint64_t dev = 0;
    if (a.type.isPtr) {
      interp::MemoryRegion r;
      uint64_t addr = static_cast<uint64_t>(a.i);
      if (!interp::MemoryMap::global().nearest(addr, r) || addr < r.base || addr > r.base + r.bytes)
        throw CompileError(req.loc, fmt::format("argument {} of '{}' does not point into a host tensor", i + 1,
                                                req.kernel->name));
      auto it = mirrors_.find(r.base);
      if (it == mirrors_.end() || it->second->host.bytes != r.bytes) {
        auto m = std::make_unique<Mirror>(Mirror{r, cuda::DeviceBuffer(drv_, std::max<uint64_t>(r.bytes, 1))});
        it = mirrors_.insert_or_assign(r.base, std::move(m)).first;
      }
      Mirror &m = *it->second;
      if (r.bytes) m.device.copyFromHost(reinterpret_cast<const void *>(r.base), r.bytes);
      regions[i] = &m;
      dev = m.device.devicePtr() + (addr - r.base);
    }
    slots[i] = cuda::packParam(a, dev);
    params[i] = slots[i].bytes;
  }
  std::vector<std::string> before;
  if (opts_.checkAgainstInterpreter)
    for (Mirror *m : regions)
      before.push_back(m ? std::string(reinterpret_cast<const char *>(m->host.base), m->host.bytes) : "");
  cuda::Dim3 grid{req.grid[0], req.grid[1], req.grid[2]};
  try {
    k.fn.launch(grid, cuda::Dim3{req.numWarps * 32, 1, 1}, static_cast<uint32_t>(k.binary.sharedBytes), nullptr,
                params);
    drv_.synchronize();
  } catch (const cuda::Error &e) {
    throw CompileError(req.loc, e.what());
  }
  if (opts_.benchRepeats > 0 && benchmark(k, req, params) < 0.05)
    measureLaunchOverhead(prog, req, regions); // only tiny kernels: else it measures the queue
  for (Mirror *m : regions)
    if (m && m->host.bytes) m->device.copyToHost(reinterpret_cast<void *>(m->host.base), m->host.bytes);
  ++launches_;
  if (opts_.checkAgainstInterpreter) checkAgainstInterpreter(k, req, bound, regions, before);
}

void GpuLauncher::launchResident(const sema::Program &prog, const host::LaunchRequest &req) {
  sema::BoundLaunch bound = sema::bindLaunch(prog, *req.kernel, req.positional, req.keywords, req.loc);
  Kernel &k = compiled(prog, req, bound);
  cuda::ParamSlot slots[64];
  void *params[64];
  if (bound.args.size() > 64) throw CompileError(req.loc, "more than 64 kernel arguments");
  for (size_t i = 0; i < bound.args.size(); ++i) {
    slots[i] = cuda::packParam(bound.args[i], static_cast<uint64_t>(bound.args[i].i));
    params[i] = slots[i].bytes;
  }
  k.fn.launch(cuda::Dim3{req.grid[0], req.grid[1], req.grid[2]}, cuda::Dim3{req.numWarps * 32, 1, 1},
              static_cast<uint32_t>(k.binary.sharedBytes), nullptr, std::span<void *const>(params, bound.args.size()));
  ++launches_;
}

void GpuLauncher::measureLaunchOverhead(const sema::Program &prog, const host::LaunchRequest &req,
                                        const std::vector<Mirror *> &regions) {
  // The host cost of a cached launch with device-resident tensors: bind the
  // arguments, find the compiled specialization, pack the parameters,
  // cuLaunchKernel (asynchronous). The mirrors stand in for device tensors.
  constexpr int kLaunches = 2000;
  auto t0 = std::chrono::steady_clock::now();
  for (int n = 0; n < kLaunches; ++n) {
    sema::BoundLaunch b = sema::bindLaunch(prog, *req.kernel, req.positional, req.keywords, req.loc);
    Kernel &k = compiled(prog, req, b);
    cuda::ParamSlot slots[64];
    void *params[64];
    size_t count = std::min<size_t>(b.args.size(), 64);
    for (size_t i = 0; i < count; ++i) {
      uint64_t dev = regions[i] ? regions[i]->device.devicePtr() + (uint64_t(b.args[i].i) - regions[i]->host.base) : 0;
      slots[i] = cuda::packParam(b.args[i], dev);
      params[i] = slots[i].bytes;
    }
    k.fn.launch(cuda::Dim3{req.grid[0], req.grid[1], req.grid[2]}, cuda::Dim3{req.numWarps * 32, 1, 1},
                static_cast<uint32_t>(k.binary.sharedBytes), nullptr, std::span<void *const>(params, count));
  }
  double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / kLaunches;
  drv_.synchronize();
  fmt::print("launch-overhead: {} args={} host_us_per_cached_launch={:.2f} (includes queueing when the kernel is long)\n",
             req.kernel->name, req.positional.size() + req.keywords.size(), us);
  std::fflush(stdout);
}

float GpuLauncher::benchmark(const Kernel &k, const host::LaunchRequest &req, const std::vector<void *> &params) {
  // Each repeat is timed on its own (events around one launch); the
  // median is robust to the odd slow run. The first launches warm caches
  // and clocks.
  cuda::Dim3 grid{req.grid[0], req.grid[1], req.grid[2]}, block{req.numWarps * 32, 1, 1};
  auto once = [&] { k.fn.launch(grid, block, static_cast<uint32_t>(k.binary.sharedBytes), nullptr, params); };
  for (int i = 0; i < 5; ++i) once();
  drv_.synchronize();
  std::vector<float> ms;
  cuda::Event start(drv_), stop(drv_);
  Progress progress;
  std::string label = fmt::format("bench: launch {}: {}", launches_ + 1, req.kernel->name);
  for (int i = 0; i < opts_.benchRepeats; ++i) {
    progress.update(label, i, opts_.benchRepeats);
    start.record();
    once();
    stop.record();
    stop.synchronize();
    ms.push_back(stop.elapsedMsSince(start));
  }
  progress.clear();
  std::sort(ms.begin(), ms.end());
  float median = ms[ms.size() / 2];
  fmt::print("bench: {} grid=({},{},{}) warps={} regs={} smem={} median_ms={:.5f} min_ms={:.5f} reps={}{}\n",
             req.kernel->name, grid.x, grid.y, grid.z, req.numWarps, k.fn.numRegs(), k.binary.sharedBytes, median,
             ms.front(), ms.size(), workColumns(req, median));
  std::fflush(stdout);
  return median;
}

void GpuLauncher::checkAgainstInterpreter(const Kernel &k, const host::LaunchRequest &req,
                                          const sema::BoundLaunch &bound, const std::vector<Mirror *> &regions,
                                          const std::vector<std::string> &before) {
  // Keep the GPU's results, put the inputs back, run the interpreter on the
  // host copies, compare, and leave the interpreter's results in place.
  std::vector<std::string> gpu;
  for (Mirror *m : regions)
    gpu.push_back(m ? std::string(reinterpret_cast<const char *>(m->host.base), m->host.bytes) : "");
  for (size_t i = 0; i < regions.size(); ++i)
    if (regions[i]) std::memcpy(reinterpret_cast<void *>(regions[i]->host.base), before[i].data(), before[i].size());
  interp::run(*k.ir, interp::Grid{req.grid[0], req.grid[1], req.grid[2]}, bound.args, opts_.interp);
  for (size_t i = 0; i < regions.size(); ++i) {
    if (!regions[i]) continue;
    Scalar s = bound.args[i].type.scalar;
    const auto *g = reinterpret_cast<const unsigned char *>(gpu[i].data());
    const auto *c = reinterpret_cast<const unsigned char *>(regions[i]->host.base);
    size_t n = regions[i]->host.bytes / byteSize(s), bad = 0, first = 0;
    for (size_t e = 0; e < n; ++e)
      if (!sameElement(s, g + e * byteSize(s), c + e * byteSize(s)) && bad++ == 0) first = e;
    if (bad)
      throw CompileError(req.loc, fmt::format("GPU and interpreter disagree on kernel '{}', argument {} ({}): {} of {} "
                                              "elements differ; first at element {}: GPU {} vs interpreter {}",
                                              req.kernel->name, i + 1, regions[i]->host.name, bad, n, first,
                                              describeElement(s, g + first * byteSize(s)),
                                              describeElement(s, c + first * byteSize(s))));
  }
}

} // namespace tile::tools
