// ApiLauncher.cpp - host-program launches through the public API, with
// device mirrors of host tensors on the GPU, an optional differential check
// against the interpreter and the timing of `tilec bench`.
#include "ApiLauncher.h"

#include "Bridge.h"
#include "Internal.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>

namespace tile::tools {

/// A host allocation's device copy.
struct ApiLauncher::Mirror {
  interp::MemoryRegion host;
  cuda::DeviceBuffer device;
};

namespace {

/// "x_ptr: *float32, n=1000, BLOCK=100": a launch's arguments by parameter,
/// for the note that says which specialization failed to compile.
std::string describeLaunch(const host::LaunchRequest &req) {
  auto value = [](const sema::ArgValue &a) {
    return a.isPointer ? fmt::format("*{}", tritonDTypeName(a.elem)) : a.value.repr();
  };
  std::vector<std::string> parts;
  for (size_t i = 0; i < req.positional.size(); ++i) {
    std::string name = i < req.kernel->params.size() ? req.kernel->params[i].name : fmt::format("argument {}", i + 1);
    parts.push_back(fmt::format("{}{}{}", name, req.positional[i].isPointer ? ": " : "=", value(req.positional[i])));
  }
  for (const auto &[name, v] : req.keywords)
    parts.push_back(fmt::format("{}={}", name, value(v)));
  std::string out;
  for (const std::string &p : parts) out += (out.empty() ? "" : ", ") + p;
  return out.size() > 300 ? out.substr(0, 300) + "..." : out;
}

/// An error out of a launch: one located in the kernel's source gets a note
/// at the launch in the host program (with the launch's arguments); one
/// that is not (a driver error) is located at the launch.
[[noreturn]] void rethrowAt(const host::LaunchRequest &req, const Error &e) {
  Location loc = req.loc;
  std::string text = e.what();
  if (text.rfind("error: ", 0) != 0) {   // located in kernel source already
    if (e.kind() == Error::Kind::User && loc.valid())
      text += formatDiagnostic(Severity::Note, loc,
                               fmt::format("while specializing '{}' for this launch: {}", req.kernel->name,
                                           describeLaunch(req)));
    throw FormattedError(text);
  }
  text = text.substr(7);
  while (!text.empty() && text.back() == '\n') text.pop_back();
  throw CompileError(loc, text); // a driver error: at the launch
}

/// A host value as an API argument (tensors are made by the caller).
Arg scalarArg(const sema::ArgValue &a, Location loc) {
  struct Conv {
    Location loc;
    Arg operator()(const sema::NoneValue &) const { return Arg(nullptr); }
    Arg operator()(bool b) const { return Arg(b); }
    Arg operator()(int64_t i) const { return Arg(static_cast<long long>(i)); }
    Arg operator()(double d) const { return Arg(d); }
    Arg operator()(const std::string &s) const { return Arg(s); }
    Arg operator()(const sema::DTypeValue &d) const { return Arg(detail::Bridge::dtypeOf(d.type.scalar)); }
    Arg operator()(const sema::ConstTuple &) const { fail(loc, "tuples cannot be passed to kernels"); }
  };
  return std::visit(Conv{a.loc.valid() ? a.loc : loc}, a.value.v);
}

std::string describeElement(Scalar s, const unsigned char *p) {
  switch (s) {
  case Scalar::F16: { uint16_t h; std::memcpy(&h, p, 2); return fmt::format("{}", halfBitsToFloat(h)); }
  case Scalar::BF16: { uint16_t h; std::memcpy(&h, p, 2); return fmt::format("{}", bf16BitsToFloat(h)); }
  case Scalar::F32: { float f; std::memcpy(&f, p, 4); return fmt::format("{}", f); }
  case Scalar::F64: { double d; std::memcpy(&d, p, 8); return fmt::format("{}", d); }
  case Scalar::F8E4M3: case Scalar::F8E5M2: return fmt::format("{} (0x{:02x})", fp8BitsToDouble(*p, s), *p);
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
  case Scalar::F8E4M3: case Scalar::F8E5M2: return fp8BitsToDouble(*p, s);
  default: return 0;
  }
}

/// GPU and interpreter agree on an element: exactly for integers; for floats
/// within what approximate hardware math and FMA contraction allow.
bool sameElement(Scalar s, const unsigned char *a, const unsigned char *b) {
  if (!isFloat(s)) return std::memcmp(a, b, byteSize(s)) == 0;
  double x = elementValue(s, a), y = elementValue(s, b);
  // fp8 comes only from conversions, which are bit-exact on both devices
  if (isFp8(s)) return *a == *b || (std::isnan(x) && std::isnan(y));
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  if (std::isinf(x) || std::isinf(y)) return x == y;
  double rtol = s == Scalar::F16 || s == Scalar::BF16 ? 1e-2 : s == Scalar::F32 ? 1e-4 : 1e-9;
  // f32 atol: sums of products in another order (tensor cores, shuffle
  // trees) differ by ~K ulps of the terms, which can be large next to a
  // result that cancels.
  double atol = s == Scalar::F16 || s == Scalar::BF16 ? 1e-2 : s == Scalar::F32 ? 1e-4 : 1e-12;
  return std::fabs(x - y) <= atol + rtol * std::fabs(y);
}

ContextOptions contextOptions(const ApiLaunchOptions &o, bool gpu) {
  ContextOptions c;
  c.device = gpu ? DeviceKind::Gpu : DeviceKind::Interpreter;
  c.strict = o.interp.strict;
  c.optimize = o.pipeline.optimize;
  c.arch = o.arch;
  return c;
}

LaunchOptions launchOptions(const host::LaunchRequest &req, bool async = false) {
  LaunchOptions lo;
  lo.numWarps = req.numWarps;
  lo.numStages = req.numStages;
  lo.fpFusion = req.fpFusion;
  lo.async = async;
  return lo;
}

Grid gridOf(const host::LaunchRequest &req) { return Grid(req.grid[0], req.grid[1], req.grid[2]); }

/// A META entry as a host value (tensors have none: the grid function's
/// own arguments hold them).
std::optional<sema::ConstValue> metaValue(const Arg &a) {
  const Arg::Value &v = a.value();
  if (const int64_t *i = std::get_if<int64_t>(&v)) return sema::ConstValue(*i);
  if (const double *d = std::get_if<double>(&v)) return sema::ConstValue(*d);
  if (const bool *b = std::get_if<bool>(&v)) return sema::ConstValue(*b);
  if (const std::string *str = std::get_if<std::string>(&v)) return sema::ConstValue(*str);
  if (const DType *d = std::get_if<DType>(&v)) return sema::ConstValue(sema::DTypeValue{ElemType::of(detail::toScalar(*d))});
  if (std::get_if<std::nullptr_t>(&v)) return sema::ConstValue(sema::NoneValue{});
  return std::nullopt;
}

/// Launches req's kernel: with its grid, or, for a tuned kernel's callable
/// grid, with a grid function that hands the host program's grid the META
/// entries the tuning added. Returns the grid the launch used.
Grid launchRequest(const Kernel &k, const host::LaunchRequest &req, const std::vector<Arg> &positional,
                   const NamedArgs &keywords, const LaunchOptions &lo) {
  if (!req.gridFn) {
    k.launch(gridOf(req), positional, keywords, lo);
    return gridOf(req);
  }
  Grid used = gridOf(req);
  GridFunction fn = [&](const Meta &meta) {
    std::vector<std::pair<std::string, sema::ConstValue>> extras;
    for (size_t i = 0; i < meta.values().size(); ++i) {
      const auto &[name, value] = meta.values()[i];
      bool passed = i < positional.size();
      for (const auto &kw : req.keywords) passed = passed || kw.first == name;
      if (passed) continue;
      if (std::optional<sema::ConstValue> c = metaValue(value)) extras.emplace_back(name, *c);
    }
    std::array<int64_t, 3> g = req.gridFn(extras);
    used = Grid(g[0], g[1], g[2]);
    return used;
  };
  k.launch(fn, positional, keywords, lo);
  return used;
}

} // namespace

ApiLauncher::ApiLauncher(ApiLaunchOptions opts)
    : opts_(std::move(opts)), ctx_(detail::Bridge::context(contextOptions(opts_, opts_.gpu), opts_.interp, opts_.pipeline)) {
  if (opts_.gpu && opts_.checkAgainstInterpreter)
    checkCtx_ = detail::Bridge::context(contextOptions(opts_, false), opts_.interp, opts_.pipeline);
}

ApiLauncher::~ApiLauncher() = default;

Program &ApiLauncher::programFor(const sema::Program &prog, Context &ctx,
                                 std::map<const sema::Program *, Program> &cache) {
  auto it = cache.find(&prog);
  if (it != cache.end()) return it->second;
  // Not owned: the host program outlives its launches.
  std::shared_ptr<const sema::Program> view(std::shared_ptr<void>(), &prog);
  return cache.emplace(&prog, detail::Bridge::program(ctx, view)).first->second;
}

/// The shape and strides a tensor argument is handed to the API with: a
/// zero-element view at its address is all an ordinary launch needs (its
/// address and dtype); a tuned kernel's reset_to_zero / restore_value act
/// on the whole tensor.
static std::pair<Shape, Shape> viewOf(const host::LaunchRequest &req, bool keyword, size_t i) {
  const auto &shapes = keyword ? req.keywordShapes : req.positionalShapes;
  if (!req.tuned || i >= shapes.size() || shapes[i].shape.empty()) return {Shape{0}, Shape{}};
  return {shapes[i].shape, shapes[i].strides};
}

ApiLauncher::ApiArgs ApiLauncher::hostArgs(const host::LaunchRequest &req, Context &ctx) {
  auto arg = [&](const sema::ArgValue &a, bool keyword, size_t i) {
    // Host tensors are registered interpreter memory.
    if (!a.isPointer) return scalarArg(a, req.loc);
    auto [shape, strides] = viewOf(req, keyword, i);
    return Arg(ctx.fromAddress(a.address, shape, detail::Bridge::dtypeOf(a.elem), strides));
  };
  ApiArgs out;
  for (size_t i = 0; i < req.positional.size(); ++i) out.positional.push_back(arg(req.positional[i], false, i));
  for (size_t i = 0; i < req.keywords.size(); ++i)
    out.keywords.emplace_back(req.keywords[i].first, arg(req.keywords[i].second, true, i));
  return out;
}

ApiLauncher::ApiArgs ApiLauncher::deviceArgs(const host::LaunchRequest &req) {
  ApiArgs out;
  auto arg = [&](const sema::ArgValue &a, bool keyword, size_t i) {
    if (!a.isPointer) return scalarArg(a, req.loc);
    interp::MemoryRegion r;
    uint64_t addr = a.address;
    if (!interp::MemoryMap::global().nearest(addr, r) || addr < r.base || addr > r.base + r.bytes)
      fail(a.loc.valid() ? a.loc : req.loc,
           fmt::format("argument of '{}' does not point into a host tensor", req.kernel->name));
    auto it = mirrors_.find(r.base);
    if (it == mirrors_.end() || it->second->host.bytes != r.bytes) {
      cuda::Driver &drv = *cuda::Driver::get();
      auto m = std::make_unique<Mirror>(Mirror{r, cuda::DeviceBuffer(drv, std::max<uint64_t>(r.bytes, 1))});
      it = mirrors_.insert_or_assign(r.base, std::move(m)).first;
    }
    out.mirrors.push_back(it->second.get());
    uint64_t dev = it->second->device.devicePtr() + (addr - r.base);
    auto [shape, strides] = viewOf(req, keyword, i);
    return Arg(ctx_.fromAddress(dev, shape, detail::Bridge::dtypeOf(a.elem), strides));
  };
  for (size_t i = 0; i < req.positional.size(); ++i) out.positional.push_back(arg(req.positional[i], false, i));
  for (size_t i = 0; i < req.keywords.size(); ++i)
    out.keywords.emplace_back(req.keywords[i].first, arg(req.keywords[i].second, true, i));
  return out;
}

void ApiLauncher::launch(const sema::Program &prog, const host::LaunchRequest &req) {
  // Bound here first for errors located at the launch in the host program
  // (the API locates them at the kernel). A tuned kernel's arguments lack
  // the tuned constexprs until the API has chosen them.
  if (!req.tuned) sema::bindLaunch(prog, *req.kernel, req.positional, req.keywords, req.loc);
  try {
    if (opts_.gpu) launchOnGpu(prog, req);
    else launchOnInterpreter(prog, req);
  } catch (const Error &e) {
    progress_.clear();
    rethrowAt(req, e);
  }
  ++launches_;
}

namespace {

/// TILE_RECORD_LAUNCHES=FILE (a test aid, tests/ptx_snapshot.py): appends
/// one line per interpreter launch, "SOURCE|KERNEL|SPECIALIZATION|WARPS|STAGES",
/// so a script can compile every launched specialization to PTX.
void recordLaunch(const host::LaunchRequest &req, const CompiledInfo &info) {
  const char *path = std::getenv("TILE_RECORD_LAUNCHES");
  if (!path || !*path) return;
  if (FILE *f = std::fopen(path, "a")) {
    fmt::print(f, "{}|{}|{}|{}|{}\n", SourceManager::global().path(req.kernel->loc.file), req.kernel->name,
               info.signature, info.numWarps, info.numStages);
    std::fclose(f);
  }
}

} // namespace

void ApiLauncher::launchOnInterpreter(const sema::Program &prog, const host::LaunchRequest &req) {
  Kernel k = programFor(prog, ctx_, programs_).kernel(req.kernel->name);
  ApiArgs args = hostArgs(req, ctx_);
  if (std::getenv("TILE_RECORD_LAUNCHES")) recordLaunch(req, k.compile(args.positional, args.keywords, launchOptions(req)));
  if (opts_.benchRepeats <= 0) {
    launchRequest(k, req, args.positional, args.keywords, launchOptions(req));
    return;
  }
  // tilec bench on the interpreter: one wall-clock timing of the
  // interpretation, the compile done before it.
  std::fflush(stdout);
  progress_.update(fmt::format("bench: launch {}: {} on the interpreter", launches_ + 1, req.kernel->name), 0, 0);
  k.compile(args.positional, args.keywords, launchOptions(req));
  auto t0 = std::chrono::steady_clock::now();
  Grid grid = launchRequest(k, req, args.positional, args.keywords, launchOptions(req));
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  progress_.clear();
  // the grid and warps the launch used (an autotuned config's, a grid lambda's)
  CompiledInfo info = k.compile(args.positional, args.keywords, launchOptions(req));
  fmt::print("bench: {} grid=({},{},{}) warps={} interp_ms={:.3f}{}{} (CPU interpreter, not a GPU time)\n",
             req.kernel->name, grid.x, grid.y, grid.z, info.numWarps, ms, workColumns(req, ms, /*interpreter=*/true),
             info.config.empty() ? "" : fmt::format(" config=({})", info.config));
  std::fflush(stdout);
}

void ApiLauncher::launchOnGpu(const sema::Program &prog, const host::LaunchRequest &req) {
  Kernel k = programFor(prog, ctx_, programs_).kernel(req.kernel->name);
  ApiArgs args = deviceArgs(req);
  for (Mirror *m : args.mirrors)
    if (m->host.bytes) m->device.copyFromHost(reinterpret_cast<const void *>(m->host.base), m->host.bytes);
  std::vector<std::string> before;
  if (checkCtx_)
    for (Mirror *m : args.mirrors) before.emplace_back(reinterpret_cast<const char *>(m->host.base), m->host.bytes);
  launchRequest(k, req, args.positional, args.keywords, launchOptions(req));
  if (opts_.benchRepeats > 0 && benchmark(k, req, args, launchOptions(req, true)) < 0.05 && !req.tuned)
    measureLaunchOverhead(prog, k, req, args, launchOptions(req, true)); // only tiny kernels: else it measures the queue
  for (Mirror *m : args.mirrors)
    if (m->host.bytes) m->device.copyToHost(reinterpret_cast<void *>(m->host.base), m->host.bytes);
  if (checkCtx_) checkAgainstInterpreter(prog, req, args, before);
}

namespace {

/// The median over kRounds rounds of kLaunches calls of `launch`, each
/// round from an empty queue (the driver's queue holds about a thousand
/// launches: more would time the GPU draining it), in us per call.
constexpr int kRounds = 9, kLaunches = 256;
double medianLaunchUs(const std::function<void()> &launch, const std::function<void()> &sync) {
  std::vector<double> perLaunch;
  for (int round = 0; round < kRounds; ++round) {
    sync();
    auto t0 = std::chrono::steady_clock::now();
    for (int n = 0; n < kLaunches; ++n) launch();
    perLaunch.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
                        kLaunches);
  }
  sync();
  std::sort(perLaunch.begin(), perLaunch.end());
  return perLaunch[perLaunch.size() / 2];
}

} // namespace

void ApiLauncher::measureLaunchOverhead(const sema::Program &prog, const Kernel &k, const host::LaunchRequest &req,
                                        const ApiArgs &args, const LaunchOptions &lo) {
  // The host cost of a cached API launch with device-resident tensors (the
  // plan lookup, parameter packing and cuLaunchKernel, asynchronous), and
  // beside it the driver's own floor: cuLaunchKernel of the same function
  // with parameters packed once.
  Grid grid = gridOf(req);
  double us = medianLaunchUs([&] { k.launch(grid, args.positional, args.keywords, lo); }, [&] { ctx_.synchronize(); });
  CompiledInfo info = k.compile(args.positional, args.keywords, lo);
  sema::BoundLaunch bound = sema::bindLaunch(prog, *req.kernel, req.positional, req.keywords, req.loc);
  std::vector<cuda::ParamSlot> slots;
  for (const ScalarArg &a : bound.args) {
    uint64_t dev = 0;
    if (a.type.isPtr) {
      interp::MemoryRegion r;
      interp::MemoryMap::global().nearest(uint64_t(a.i), r);
      dev = mirrors_.at(r.base)->device.devicePtr() + (uint64_t(a.i) - r.base);
    }
    slots.push_back(cuda::packParam(a, dev));
  }
  std::vector<void *> params;
  for (cuda::ParamSlot &slot : slots) params.push_back(slot.bytes);
  cuda::Driver &drv = *cuda::Driver::get();
  auto fn = reinterpret_cast<cuda::api::CUfunction>(info.cuFunction);
  double floorUs = medianLaunchUs(
      [&] {
        drv.check(drv.api().launchKernel(fn, unsigned(grid.x), unsigned(grid.y), unsigned(grid.z),
                                         unsigned(req.numWarps * 32), 1, 1, uint32_t(info.dynamicSharedBytes), nullptr,
                                         params.data(), nullptr),
                  "cuLaunchKernel");
      },
      [&] { ctx_.synchronize(); });
  fmt::print("launch-overhead: {} args={} host_us_per_cached_launch={:.2f} driver_floor_us={:.2f} (median of {} "
             "rounds of {} async launches: through the API, and cuLaunchKernel alone)\n",
             req.kernel->name, req.positional.size() + req.keywords.size(), us, floorUs, kRounds, kLaunches);
  std::fflush(stdout);
}

float ApiLauncher::benchmark(const Kernel &k, const host::LaunchRequest &req, const ApiArgs &args,
                             const LaunchOptions &lo) {
  // Each repeat is timed on its own (events around one launch) after an L2
  // flush, as triton.testing.do_bench times Triton's kernels: the timed
  // launch starts with a cold L2 and the host's cost of launching is hidden
  // behind the flush. The median is robust to the odd slow run. The first
  // launches warm clocks and the compile cache.
  cuda::Driver &drv = *cuda::Driver::get();
  if (!l2Flush_) l2Flush_.emplace(drv);
  Grid grid = gridOf(req);
  auto once = [&] { grid = launchRequest(k, req, args.positional, args.keywords, lo); };
  for (int i = 0; i < 5; ++i) once();
  ctx_.synchronize();
  std::vector<float> ms;
  cuda::Event start(drv), stop(drv);
  std::string label = fmt::format("bench: launch {}: {}", launches_ + 1, req.kernel->name);
  for (int i = 0; i < opts_.benchRepeats; ++i) {
    progress_.update(label, i, opts_.benchRepeats);
    l2Flush_->enqueue();
    start.record();
    once();
    stop.record();
    stop.synchronize();
    ms.push_back(stop.elapsedMsSince(start));
  }
  progress_.clear();
  std::sort(ms.begin(), ms.end());
  float median = ms[ms.size() / 2];
  CompiledInfo info = k.compile(args.positional, args.keywords, lo);
  fmt::print("bench: {} grid=({},{},{}) warps={} regs={} smem={} median_ms={:.5f} min_ms={:.5f} reps={}{}{}\n",
             req.kernel->name, grid.x, grid.y, grid.z, info.numWarps, info.registers, info.sharedBytes, median,
             ms.front(), ms.size(), workColumns(req, median),
             info.config.empty() ? "" : fmt::format(" config=({})", info.config));
  std::fflush(stdout);
  return median;
}

void ApiLauncher::checkAgainstInterpreter(const sema::Program &prog, const host::LaunchRequest &req,
                                          const ApiArgs &args, const std::vector<std::string> &before) {
  // Keep the GPU's results, put the inputs back, run the interpreter on the
  // host copies, compare, and leave the interpreter's results in place.
  const std::vector<Mirror *> &mirrors = args.mirrors;
  std::vector<std::string> gpu;
  for (Mirror *m : mirrors) gpu.emplace_back(reinterpret_cast<const char *>(m->host.base), m->host.bytes);
  for (size_t i = 0; i < mirrors.size(); ++i)
    std::memcpy(reinterpret_cast<void *>(mirrors[i]->host.base), before[i].data(), before[i].size());
  Kernel k = programFor(prog, *checkCtx_, checkPrograms_).kernel(req.kernel->name);
  ApiArgs host = hostArgs(req, *checkCtx_);
  launchRequest(k, req, host.positional, host.keywords, launchOptions(req));
  // The pointer arguments, in the order deviceArgs mirrored them.
  std::vector<Scalar> elems;
  for (const sema::ArgValue &a : req.positional)
    if (a.isPointer) elems.push_back(a.elem);
  for (const auto &[name, a] : req.keywords)
    if (a.isPointer) elems.push_back(a.elem);
  for (size_t i = 0; i < mirrors.size(); ++i) {
    Scalar s = elems[i];
    const auto *g = reinterpret_cast<const unsigned char *>(gpu[i].data());
    const auto *c = reinterpret_cast<const unsigned char *>(mirrors[i]->host.base);
    size_t n = mirrors[i]->host.bytes / byteSize(s), bad = 0, first = 0;
    for (size_t e = 0; e < n; ++e)
      if (!sameElement(s, g + e * byteSize(s), c + e * byteSize(s)) && bad++ == 0) first = e;
    if (bad)
      throw CompileError(req.loc, fmt::format("GPU and interpreter disagree on kernel '{}', pointer argument {} ({}): "
                                              "{} of {} elements differ; first at element {}: GPU {} vs interpreter {}",
                                              req.kernel->name, i + 1, mirrors[i]->host.name, bad, n, first,
                                              describeElement(s, g + first * byteSize(s)),
                                              describeElement(s, c + first * byteSize(s))));
  }
}

} // namespace tile::tools
