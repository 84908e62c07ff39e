// Context.cpp - tile::Context (device choice), Program (loading), Kernel
// (argument binding, compile caches, launches on the interpreter or the
// GPU) and the translation of internal errors into tile::Error.
#include "Internal.h"

#include "driver/DiskCache.h"
#include "driver/Dump.h"
#include "sema/ConstValue.h"

#include <fmt/format.h>

#include <atomic>
#include <cstring>
#include <optional>

namespace tile {

// ------------------------------------------------------------ GPU compiler

namespace {
std::atomic<api::GpuCompileFn> gGpuCompiler{nullptr};
}

void api::setGpuCompiler(GpuCompileFn fn) { gGpuCompiler.store(fn); }
api::GpuCompileFn api::gpuCompiler() { return gGpuCompiler.load(); }

// ------------------------------------------------------------------ errors

void detail::rethrowAsError() {
  try {
    throw;
  } catch (const CompileError &e) {
    throw Error(e.formatted());
  } catch (const cuda::Error &e) {
    throw Error(fmt::format("error: {}\n", e.what()));
  } catch (const host::HostError &e) {
    throw Error(fmt::format("error: {}\n", e.what()));
  }
}

// ----------------------------------------------------------------- context

namespace {

} // namespace

detail::ContextImpl::ContextImpl(ContextOptions opts) : options(std::move(opts)) {
  pipeline.optimize = options.optimize;
  interp.strict = options.strict;
  if (options.onWarning) interp.warn = options.onWarning;
  if (options.device == DeviceKind::Interpreter) return;
  cuda::Driver *drv = cuda::Driver::get();
  api::GpuCompileFn fn = api::gpuCompiler();
  if (options.device == DeviceKind::Auto && (!drv || !fn)) return;
  if (!drv) throw Error(fmt::format("error: no usable GPU: {}\n", cuda::Driver::unavailableReason()));
  if (!fn)
    throw Error("error: no GPU compiler in this program: link tile::llvm and call tile::enableGpuCompiler()\n");
  kind = DeviceKind::Gpu;
  driver = drv;
  compile = fn;
  if (options.arch.empty()) options.arch = drv->device().targetArch();
}

Context::Context(ContextOptions options) : impl_(std::make_shared<detail::ContextImpl>(std::move(options))) {}

DeviceKind Context::device() const { return impl_->kind; }

std::string Context::describe() const {
  if (impl_->kind == DeviceKind::Interpreter) return "interpreter";
  return fmt::format("gpu ({}, {})", impl_->driver->device().name, impl_->options.arch);
}

void Context::synchronize() const {
  if (impl_->kind != DeviceKind::Gpu) return;
  detail::translateErrors([&] {
    impl_->driver->makeCurrent();
    impl_->driver->synchronize();
  });
}

Program Context::loadFile(const std::string &path) const {
  auto p = std::make_shared<detail::ProgramImpl>();
  p->ctx = impl_;
  p->program = detail::translateErrors([&] { return driver::loadProgram(path); });
  return Program(std::move(p));
}

Program Context::loadString(const std::string &source, const std::string &name) const {
  auto p = std::make_shared<detail::ProgramImpl>();
  p->ctx = impl_;
  p->program = detail::translateErrors([&] { return driver::loadProgramFromString(name, source); });
  return Program(std::move(p));
}

// ----------------------------------------------------------------- program

Kernel Program::kernel(const std::string &name) const {
  if (impl_->program->kernel(name)) return Kernel(impl_, name);
  std::vector<std::string> names = kernelNames();
  throw Error(fmt::format("error: no @triton.jit kernel named '{}' (the program has: {})\n", name,
                          names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "))));
}

std::vector<std::string> Program::kernelNames() const {
  std::vector<std::string> names;
  for (const auto &[name, fn] : impl_->program->jitFunctions) names.push_back(name);
  return names;
}

// ------------------------------------------------------------------ launch

namespace {

sema::ArgValue toArgValue(const Arg &arg, const detail::ContextImpl &ctx) {
  sema::ArgValue out;
  std::visit(
      [&](const auto &v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, Tensor>) {
          if (!v.defined()) throw Error("error: an undefined tile::Tensor passed to a kernel\n");
          out.isPointer = true;
          out.elem = detail::toScalar(v.dtype());
          out.address = v.address();
        } else if constexpr (std::is_same_v<T, DType>) {
          out.value = sema::DTypeValue{ElemType::of(detail::toScalar(v))};
        } else {
          out.value = v;
        }
      },
      arg.value());
  return out;
}

detail::GpuKernel &gpuKernel(detail::ProgramImpl &p, const ast::FunctionDef &kernel, const sema::Specialization &spec,
                             const LaunchOptions &lo) {
  const detail::ContextImpl &ctx = *p.ctx;
  std::string key = fmt::format("{}|{}|w{}|s{}|{}", kernel.name, spec.key(), lo.numWarps, lo.numStages,
                                ctx.pipeline.key());
  {
    std::lock_guard lock(p.gpuMu);
    if (auto it = p.gpuKernels.find(key); it != p.gpuKernels.end()) return *it->second;
  }
  // Compile outside the lock; a thread that loses the race drops its copy.
  // The disk cache (driver/DiskCache.h) skips the compile; with a dump
  // directory it is only written, so the stages are dumped.
  const driver::DiskCache *disk = driver::processDiskCache();
  driver::CacheKey diskKey;
  std::optional<driver::CachedKernel> hit;
  if (disk) {
    diskKey = driver::kernelCacheKey(*p.program, kernel, spec, ctx.pipeline, lo.numWarps, lo.numStages,
                                     ctx.options.arch);
    if (driver::dumpDir().empty()) hit = disk->load(diskKey);
  }
  api::GpuImage image;
  if (hit) {
    image = api::GpuImage{hit->name, std::move(hit->ptx), hit->sharedBytes};
  } else {
    std::unique_ptr<ir::Function> fn = driver::compileKernel(*p.program, kernel, spec, ctx.pipeline);
    image = ctx.compile(*fn, lo.numWarps, lo.numStages, ctx.options.arch);
  }
  ctx.driver->makeCurrent();
  cuda::Module module = cuda::Module::fromPtx(*ctx.driver, image.ptx, kernel.name);
  cuda::Function function = module.function(image.name);
  // Stored once the driver accepted the PTX: a failing module is never cached.
  if (disk && !hit)
    disk->store(diskKey, driver::CachedKernel{image.name, image.ptx, image.sharedBytes, lo.numWarps,
                                              diskKey.describe()});
  auto k = std::unique_ptr<detail::GpuKernel>(new detail::GpuKernel{std::move(module), function, image.sharedBytes});
  std::lock_guard lock(p.gpuMu);
  return *p.gpuKernels.emplace(key, std::move(k)).first->second;
}

void launchOnGpu(detail::ProgramImpl &p, const ast::FunctionDef &kernel, const sema::BoundLaunch &b, Grid grid,
                 const LaunchOptions &lo) {
  detail::GpuKernel &k = gpuKernel(p, kernel, b.spec, lo);
  std::vector<cuda::ParamSlot> slots(b.args.size());
  std::vector<void *> params(b.args.size());
  for (size_t i = 0; i < b.args.size(); ++i) {
    slots[i] = cuda::packParam(b.args[i], static_cast<uint64_t>(b.args[i].i));
    params[i] = slots[i].bytes;
  }
  p.ctx->driver->makeCurrent();
  k.function.launch(cuda::Dim3{grid.x, grid.y, grid.z}, cuda::Dim3{lo.numWarps * 32, 1, 1},
                    static_cast<uint32_t>(k.sharedBytes), nullptr, params);
  if (!lo.async) p.ctx->driver->synchronize();
}

void checkLaunch(Grid grid, const LaunchOptions &lo, const std::string &name) {
  if (grid.x < 1 || grid.y < 1 || grid.z < 1)
    throw Error(fmt::format("error: empty grid ({}, {}, {}) for kernel '{}': every extent must be at least 1\n",
                            grid.x, grid.y, grid.z, name));
  if (lo.numWarps < 1 || lo.numWarps > 32 || (lo.numWarps & (lo.numWarps - 1)))
    throw Error(fmt::format("error: num_warps must be a power of two from 1 to 32, not {}\n", lo.numWarps));
  if (lo.numStages < 1)
    throw Error(fmt::format("error: num_stages must be at least 1, not {}\n", lo.numStages));
}

} // namespace

void Kernel::launch(Grid grid, const std::vector<Arg> &args, const NamedArgs &constexprs,
                    LaunchOptions options) const {
  checkLaunch(grid, options, name_);
  detail::ProgramImpl &p = *prog_;
  const detail::ContextImpl &ctx = *p.ctx;
  std::vector<sema::ArgValue> positional;
  for (size_t i = 0; i < args.size(); ++i) {
    const Tensor *t = std::get_if<Tensor>(&args[i].value());
    if (t && t->impl_ && t->impl_->ctx.get() != &ctx) // another context's memory
      throw Error(fmt::format("error: argument {} of kernel '{}' is a tensor of another tile::Context\n", i + 1, name_));
    positional.push_back(toArgValue(args[i], ctx));
  }
  std::vector<std::pair<std::string, sema::ArgValue>> keywords;
  for (const auto &[name, value] : constexprs) keywords.emplace_back(name, toArgValue(value, ctx));
  const ast::FunctionDef &kernel = *p.program->kernel(name_);
  detail::translateErrors([&] {
    sema::BoundLaunch b = sema::bindLaunch(*p.program, kernel, positional, keywords, kernel.loc);
    if (ctx.kind == DeviceKind::Gpu) return launchOnGpu(p, kernel, b, grid, options);
    std::shared_ptr<const ir::Function> fn = p.interpCache.get(*p.program, kernel, b.spec, ctx.pipeline);
    interp::run(*fn, interp::Grid{grid.x, grid.y, grid.z}, b.args, ctx.interp);
  });
}

} // namespace tile
