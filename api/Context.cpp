// Context.cpp - tile::Context (device choice), Program (loading), Kernel
// (argument binding, compile caches, launches on the interpreter or the
// GPU) and the translation of internal errors into tile::Error.
#include "Internal.h"

#include "Autotune.h"
#include "Bridge.h"

#include "driver/DiskCache.h"
#include "driver/Dump.h"
#include "sema/ConstValue.h"
#include "support/Spelling.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <atomic>
#include <climits>
#include <cstdio>
#include <span>
#include <unordered_map>
#include <cstring>
#include <optional>

namespace tile {

// ------------------------------------------------------------ GPU compiler

namespace {
std::atomic<const backend::CodeGenerator *> gGpuCompiler{nullptr};
}

void api::setGpuCompiler(const backend::CodeGenerator *codegen) { gGpuCompiler.store(codegen); }
const backend::CodeGenerator *api::gpuCompiler() { return gGpuCompiler.load(); }

// ------------------------------------------------------------------ errors

Error::Error(const std::string &text, Kind kind) : std::runtime_error(text), kind_(kind) {
  std::string_view m = text;
  if (m.starts_with("error: ")) m.remove_prefix(7);
  while (!m.empty() && m.back() == '\n') m.remove_suffix(1);
  message_ = std::string(m);
}

Error::Error(Kind kind, const std::string &text, std::string message, std::string file, int line, int column)
    : std::runtime_error(text), kind_(kind), message_(std::move(message)), file_(std::move(file)), line_(line),
      column_(column) {}

const char *errorKindName(Error::Kind kind) {
  switch (kind) {
  case Error::Kind::User: return "user";
  case Error::Kind::Launch: return "launch";
  case Error::Kind::Driver: return "driver";
  }
  return "user";
}

Error detail::located(const CompileError &e, Error::Kind kind) {
  if (!e.loc.valid()) return Error(e.formatted(), kind);
  return Error(kind, e.formatted(), e.msg, SourceManager::global().path(e.loc.file), e.loc.line, e.loc.col);
}

namespace {

/// A CUresult that ends a kernel's run (a fault, a device assert, a launch
/// its resources cannot hold), as opposed to a failing driver call.
bool isKernelFault(int code) {
  return (code >= 700 && code <= 702) || code == 710 || (code >= 714 && code <= 720);
}

} // namespace

void detail::rethrowAsError() {
  try {
    throw;
  } catch (const CompileError &e) {
    throw located(e, Error::Kind::User);
  } catch (const cuda::Error &e) {
    throw Error(fmt::format("error: {}\n", e.what()), isKernelFault(e.code()) ? Error::Kind::Launch : Error::Kind::Driver);
  } catch (const host::HostError &e) {
    throw Error(fmt::format("error: {}\n", e.what()));
  }
}

// ----------------------------------------------------------------- context

void detail::ContextImpl::noteFallback(const std::string &why) const {
  // Auto chose the interpreter: one line to the context's warning callback,
  // or to stderr the first time in the process
  std::string line = fmt::format("note: {}; running kernels on the CPU interpreter", why);
  if (options.onWarning) {
    options.onWarning(line);
    return;
  }
  static std::atomic<bool> noted{false};
  if (!noted.exchange(true)) std::fprintf(stderr, "%s\n", line.c_str());
}

detail::ContextImpl::ContextImpl(ContextOptions opts) : options(std::move(opts)) {
  pipeline.optimize = options.optimize;
  pipeline.dumpDir = options.dumpDir;
  pipeline.cacheDir = options.cacheDir;
  interp.strict = options.strict;
  interp.checkOffsetOverflow = options.checkOffsetOverflow;
  if (options.onWarning) interp.warn = options.onWarning;
  if (options.device == DeviceKind::Interpreter) return;
  cuda::Driver *drv = cuda::Driver::get();
  const backend::CodeGenerator *fn = api::gpuCompiler();
  if (options.device == DeviceKind::Auto && (!drv || !fn)) {
    noteFallback(drv ? fmt::format("this program has no GPU compiler for the {}: link tile::llvm and call "
                                   "tile::enableGpuCompiler()",
                                   drv->device().name)
                     : fmt::format("no GPU ({})", cuda::Driver::unavailableReason()));
    return;
  }
  if (!drv) throw Error(fmt::format("error: no usable GPU: {}\n", cuda::Driver::unavailableReason()));
  // Without a compiler a GPU context still runs precompiled kernels
  // (loadCompiled); launching a source kernel says what is missing.
  kind = DeviceKind::Gpu;
  driver = drv;
  compiler = fn;
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
  p->program = detail::translateErrors([&] { return driver::loadProgram(path, impl_->pipeline.dumpDir); });
  return Program(std::move(p));
}

Program Context::loadString(const std::string &source, const std::string &name) const {
  auto p = std::make_shared<detail::ProgramImpl>();
  p->ctx = impl_;
  p->program =
      detail::translateErrors([&] { return driver::loadProgramFromString(name, source, impl_->pipeline.dumpDir); });
  return Program(std::move(p));
}

namespace {

sema::ArgValue toArgValue(const Arg &arg);   // (below, with the launch path)

/// prog with module constants replaced (tilec -D): each must be one the
/// program defines, and a constant (no tensor).
std::shared_ptr<const sema::Program> withGlobals(std::shared_ptr<const sema::Program> prog, const NamedArgs &globals,
                                                 const std::string &file) {
  if (globals.empty()) return prog;
  auto p = std::make_shared<sema::Program>(*prog);
  std::vector<std::string> names;
  for (const auto &[name, value] : p->globals) names.push_back(name);
  for (const auto &[name, arg] : globals) {
    if (!p->globals.count(name))
      throw Error(fmt::format("error: {} defines no module constant '{}' to replace{}\n", file, name,
                              didYouMean(name, names)));
    sema::ArgValue v = toArgValue(arg);
    if (v.isPointer)
      throw Error(fmt::format("error: module constant '{}' of {} can only be replaced by a constant, not a tensor\n",
                              name, file));
    p->globals[name] = v.value;
  }
  return p;
}

} // namespace

Program Context::loadFile(const std::string &path, const NamedArgs &globals) const {
  Program prog = loadFile(path);
  prog.impl_->program = withGlobals(prog.impl_->program, globals, path);
  return prog;
}

Program Context::loadString(const std::string &source, const std::string &name, const NamedArgs &globals) const {
  Program prog = loadString(source, name);
  prog.impl_->program = withGlobals(prog.impl_->program, globals, name);
  return prog;
}

// ------------------------------------------------------------------ bridge

Context detail::Bridge::context(ContextOptions options, const interp::Options &interp,
                                const driver::PipelineOptions &pipeline) {
  Context ctx(std::move(options));
  interp::Options io = interp;
  if (!io.warn) io.warn = ctx.impl_->interp.warn;
  ctx.impl_->interp = std::move(io);
  ctx.impl_->pipeline = pipeline;
  return ctx;
}

Program detail::Bridge::program(const Context &ctx, std::shared_ptr<const sema::Program> program) {
  auto p = std::make_shared<ProgramImpl>();
  p->ctx = ctx.impl_;
  p->program = std::move(program);
  return Program(std::move(p));
}

DType detail::Bridge::dtypeOf(Scalar s) {
  for (int d = 0; d <= int(DType::F8E5M2); ++d)
    if (toScalar(DType(d)) == s) return DType(d);
  throw Error(fmt::format("error: no tile::DType for the element type {}\n", scalarName(s)));
}

// ----------------------------------------------------------------- program

detail::KernelState *kernelState(detail::ProgramImpl &p, const std::string &name);

Kernel Program::kernel(const std::string &name) const {
  bool found = impl_->aot ? detail::aotHasKernel(*impl_->aot, name) : impl_->program->kernel(name) != nullptr;
  if (found) return Kernel(impl_, name, kernelState(*impl_, name));
  std::vector<std::string> names = kernelNames();
  throw Error(fmt::format("error: no @triton.jit kernel named '{}' (the program has: {})\n", name,
                          names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "))));
}

std::vector<std::string> Program::kernelNames() const {
  if (impl_->aot) return detail::aotKernelNames(*impl_->aot);
  std::vector<std::string> names;
  for (const auto &[name, fn] : impl_->program->jitFunctions) names.push_back(name);
  return names;
}

// ------------------------------------------------------------------ launch
//
// A launch binds its arguments to the kernel's parameters (sema), which
// gives the specialization, compiles it once and runs it. Binding and
// compiling happen once per *launch plan*: the kernel's state maps a key
// made of exactly what the specialization depends on (constexpr values,
// runtime argument types, :16 divisibility, equal-to-1 integers, keyword
// names, warps and stages) to the compiled kernel and where each runtime
// parameter's value comes from. A repeated launch builds the key, finds
// the plan and packs the parameters: no sema, no strings formatted.

detail::KernelState *kernelState(detail::ProgramImpl &p, const std::string &name) {
  std::lock_guard lock(p.stateMu);
  std::unique_ptr<detail::KernelState> &st = p.states[name];
  if (!st) {
    auto fresh = std::make_unique<detail::KernelState>();
    if (p.program) {
      fresh->kernel = p.program->kernel(name);
      for (const ast::Param &param : fresh->kernel->params) {
        fresh->paramNames.push_back(param.name);
        fresh->paramConstexpr.push_back(sema::Program::isConstexprParam(param));
      }
      // Decorator errors throw here, every time the kernel is looked up.
      fresh->tuning = detail::translateErrors([&] { return detail::makeTuneState(*p.program, *fresh->kernel); });
    }
    st = std::move(fresh);
  }
  return st.get();
}

namespace {

sema::ArgValue toArgValue(const Arg &arg) {
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
        } else if constexpr (std::is_same_v<T, std::nullptr_t>) {
          out.value = sema::ConstValue();
        } else {
          out.value = v;
        }
      },
      arg.value());
  return out;
}

// ---------------------------------------------------------- plan keys

template <typename T> void appendRaw(std::string &key, const T &v) {
  key.append(reinterpret_cast<const char *>(&v), sizeof(T));
}

/// What of one argument the specialization depends on: the value of a
/// constexpr (and of strings, dtypes and None anywhere), else the class of
/// a runtime value as sema::bindLaunch types it.
void appendArgKey(std::string &key, const Arg &arg, bool constexprParam, const detail::ContextImpl &ctx,
                  const std::string &kernel) {
  const Arg::Value &v = arg.value();
  if (const Tensor *t = std::get_if<Tensor>(&v)) {
    const detail::TensorImpl &ti = detail::TensorImpl::of(*t);
    if (ti.ctx.get() != &ctx)
      throw Error(fmt::format("error: a tensor of another tile::Context passed to kernel '{}'\n", kernel));
    key += 'T';
    key += char(ti.dtype);
    key += char((ti.address() & 15) == 0);
  } else if (const int64_t *i = std::get_if<int64_t>(&v)) {
    if (constexprParam) {
      key += 'i';
      appendRaw(key, *i);
    } else {
      bool wide = *i < INT32_MIN || *i > INT32_MAX;
      key += 'I';
      key += char(wide | (*i % 16 == 0) << 1 | (*i == 1) << 2 | (*i % 8 == 0) << 3);   // sema's divisibilityOf
    }
  } else if (const double *d = std::get_if<double>(&v)) {
    key += constexprParam ? 'd' : 'D';
    if (constexprParam) appendRaw(key, *d);
  } else if (const bool *b = std::get_if<bool>(&v)) {
    key += constexprParam ? 'b' : 'B';
    if (constexprParam) key += char(*b);
  } else if (const std::string *s = std::get_if<std::string>(&v)) {
    key += 's';
    appendRaw(key, uint32_t(s->size()));
    key += *s;
  } else if (const DType *dt = std::get_if<DType>(&v)) {
    key += 't';
    key += char(*dt);
  } else {
    key += 'n';
  }
}

int paramIndex(const detail::KernelState &st, const std::string &name) {
  for (size_t i = 0; i < st.paramNames.size(); ++i)
    if (st.paramNames[i] == name) return int(i);
  return -1;
}

/// The plan key of a launch, in a per-thread buffer (no allocation once
/// it has grown to the longest key).
const std::string &planKey(const detail::KernelState &st, const std::vector<Arg> &args, const NamedArgs &constexprs,
                           const LaunchOptions &lo, const detail::ContextImpl &ctx) {
  thread_local std::string key;
  key.clear();
  appendRaw(key, uint16_t(lo.numWarps));
  appendRaw(key, uint16_t(lo.numStages));
  appendRaw(key, int8_t(lo.fpFusion));
  appendRaw(key, uint16_t(args.size()));
  for (size_t i = 0; i < args.size(); ++i)
    appendArgKey(key, args[i], i < st.paramConstexpr.size() && st.paramConstexpr[i], ctx, st.kernel->name);
  for (const auto &[name, value] : constexprs) {
    key += name;
    key += '\0';
    int pi = paramIndex(st, name);
    appendArgKey(key, value, pi >= 0 && st.paramConstexpr[size_t(pi)], ctx, st.kernel->name);
  }
  return key;
}

// ------------------------------------------------------------ compiling

void warnSpills(const detail::ContextImpl &ctx, const ast::FunctionDef &kernel, const std::string &signature,
                const cuda::Function &f) {
  // More live values than registers: the driver's JIT spilled to local
  // memory. Not an error (the kernel runs, slower); said once per
  // specialization, at the kernel's def, with what to change.
  if (f.localSizeBytes() <= 0) return;
  std::string text = formatDiagnostic(
      Severity::Warning, kernel.loc,
      fmt::format("kernel '{}' ({}) spills {} bytes per thread to local memory ({} registers per thread); "
                  "smaller blocks or more warps avoid it",
                  kernel.name, signature, f.localSizeBytes(), f.numRegs()));
  if (ctx.interp.warn) ctx.interp.warn(text);
  else std::fputs(text.c_str(), stderr);
}

/// TILE_TIME_STAGES=1: the stage times of the compile just done, on stderr.
void printStageTimes() {
  if (driver::timeStagesEnabled()) std::fputs(driver::formatStageTimes(driver::takeStageTimes()).c_str(), stderr);
}

detail::GpuKernel &gpuKernel(detail::ProgramImpl &p, const ast::FunctionDef &kernel, const sema::Specialization &spec,
                             const LaunchOptions &lo) {
  const detail::ContextImpl &ctx = *p.ctx;
  if (!ctx.compiler)
    throw Error(fmt::format("error: kernel '{}' needs the GPU compiler, which this program does not have: link "
                            "tile::llvm and call tile::enableGpuCompiler() (or load precompiled kernels with "
                            "Context::loadCompiled)\n",
                            kernel.name));
  std::string signature = spec.key();
  std::string key = fmt::format("{}|{}|w{}|s{}|f{}|{}", kernel.name, signature, lo.numWarps, lo.numStages,
                                lo.fpFusion, ctx.pipeline.key());
  {
    std::lock_guard lock(p.gpuMu);
    if (auto it = p.gpuKernels.find(key); it != p.gpuKernels.end()) return *it->second;
  }
  // Compile outside the lock; a thread that loses the race drops its copy.
  // driver::compileToPtx reads and fills the disk cache (DiskCache.h),
  // storing a kernel only once the driver accepted its module.
  backend::TargetOptions target;
  target.arch = ctx.options.arch;
  target.numWarps = lo.numWarps;
  target.numStages = lo.numStages;
  if (lo.fpFusion >= 0) target.fpFusion = lo.fpFusion == 1;
  std::optional<cuda::Module> module;
  driver::GpuKernel image =
      driver::compileToPtx(*p.program, kernel, spec, ctx.pipeline, target, *ctx.compiler, [&](const driver::GpuKernel &k) {
        ctx.driver->makeCurrent();
        module.emplace(cuda::Module::fromPtx(*ctx.driver, k.text, kernel.name));
      });
  printStageTimes();
  cuda::Function function = module->function(image.name);
  auto k = std::unique_ptr<detail::GpuKernel>(
      new detail::GpuKernel{std::move(*module), function, image.sharedBytes, std::move(image.text)});
  std::lock_guard lock(p.gpuMu);
  auto [it, inserted] = p.gpuKernels.emplace(key, std::move(k));
  if (inserted) warnSpills(ctx, kernel, signature, it->second->function);
  return *it->second;
}

/// Binds and compiles: the slow path of a launch, once per plan key.
std::unique_ptr<detail::LaunchPlan> makePlan(detail::ProgramImpl &p, const detail::KernelState &st,
                                     const std::vector<Arg> &args, const NamedArgs &constexprs,
                                     const LaunchOptions &lo) {
  const ast::FunctionDef &kernel = *st.kernel;
  std::vector<sema::ArgValue> positional;
  for (const Arg &a : args) positional.push_back(toArgValue(a));
  std::vector<std::pair<std::string, sema::ArgValue>> keywords;
  for (const auto &[name, value] : constexprs) keywords.emplace_back(name, toArgValue(value));
  sema::BoundLaunch b = sema::bindLaunch(*p.program, kernel, positional, keywords, kernel.loc);
  auto plan = std::make_unique<detail::LaunchPlan>();
  plan->signature = b.spec.key();
  for (size_t pi = 0; pi < b.spec.params.size(); ++pi) {
    if (b.spec.params[pi].isConstexpr) continue;
    detail::ArgSource src;
    if (pi < args.size()) {
      src = {detail::ArgSource::Positional, uint32_t(pi)};
    } else {
      for (size_t k = 0; k < constexprs.size(); ++k)
        if (constexprs[k].first == st.paramNames[pi]) src = {detail::ArgSource::Keyword, uint32_t(k)};
    }
    plan->sources.push_back(src);
  }
  TILE_ASSERT(plan->sources.size() == b.args.size(), "one source per runtime argument");
  plan->args = std::move(b.args);
  if (p.ctx->kind == DeviceKind::Gpu) plan->gpu = &gpuKernel(p, kernel, b.spec, lo);
  else {
    plan->interp = p.interpCache.get(*p.program, kernel, b.spec, p.ctx->pipeline);
    printStageTimes();
  }
  return plan;
}

detail::LaunchPlan &findOrMakePlan(detail::ProgramImpl &p, detail::KernelState &st, const std::vector<Arg> &args,
                           const NamedArgs &constexprs, const LaunchOptions &lo) {
  const std::string &key = planKey(st, args, constexprs, lo, *p.ctx);
  {
    std::lock_guard lock(st.mu);
    if (auto it = st.plans.find(key); it != st.plans.end()) return *it->second;
  }
  std::string owned = key;   // makePlan may launch nothing, but copy before anything reuses the buffer
  std::unique_ptr<detail::LaunchPlan> plan = makePlan(p, st, args, constexprs, lo);
  std::lock_guard lock(st.mu);
  return *st.plans.emplace(std::move(owned), std::move(plan)).first->second;
}

// ------------------------------------------------------------- running

/// The plan's runtime argument r with this launch's value.
/// The value this launch gives the plan's runtime argument r (null: the
/// parameter's default).
const Arg::Value *launchValue(const detail::LaunchPlan &plan, size_t r, const std::vector<Arg> &args,
                              const NamedArgs &constexprs) {
  const detail::ArgSource &src = plan.sources[r];
  if (src.kind == detail::ArgSource::Default) return nullptr;
  return src.kind == detail::ArgSource::Positional ? &args[src.index].value() : &constexprs[src.index].second.value();
}

ScalarArg boundArg(const detail::LaunchPlan &plan, size_t r, const std::vector<Arg> &args, const NamedArgs &constexprs) {
  ScalarArg a = plan.args[r];
  const Arg::Value *pv = launchValue(plan, r, args, constexprs);
  if (!pv) return a;
  const Arg::Value &v = *pv;
  if (const Tensor *t = std::get_if<Tensor>(&v)) a.i = int64_t(detail::TensorImpl::of(*t).address());
  else if (const int64_t *i = std::get_if<int64_t>(&v)) a.i = *i;
  else if (const double *d = std::get_if<double>(&v)) a.f = static_cast<float>(*d);
  else if (const bool *b = std::get_if<bool>(&v)) a.i = *b;
  return a;
}

void runOnGpu(const detail::ContextImpl &ctx, const detail::LaunchPlan &plan, Grid grid, const std::vector<Arg> &args,
              const NamedArgs &constexprs, const LaunchOptions &lo) {
  constexpr size_t kInline = 32;
  size_t n = plan.args.size();
  cuda::ParamSlot inlineSlots[kInline];
  void *inlineParams[kInline];
  std::vector<cuda::ParamSlot> heapSlots(n > kInline ? n : 0);
  std::vector<void *> heapParams(n > kInline ? n : 0);
  cuda::ParamSlot *slots = n > kInline ? heapSlots.data() : inlineSlots;
  void **params = n > kInline ? heapParams.data() : inlineParams;
  for (size_t r = 0; r < n; ++r) {
    ScalarArg a = boundArg(plan, r, args, constexprs);
    slots[r] = cuda::packParam(a, static_cast<uint64_t>(a.i));
    params[r] = slots[r].bytes;
  }
  const cuda::Stream *stream = detail::cudaStream(lo.stream, &ctx);
  ctx.driver->makeCurrent();
  plan.gpu->function.launch(cuda::Dim3{grid.x, grid.y, grid.z}, cuda::Dim3{lo.numWarps * 32, 1, 1},
                            static_cast<uint32_t>(plan.gpu->sharedBytes), stream,
                            std::span<void *const>(params, n));
  if (lo.async) return;
  if (stream) stream->synchronize();
  else ctx.driver->synchronize();
}

/// The tensor passed as the plan's runtime argument r, if it is one.
const Tensor *tensorArg(const detail::LaunchPlan &plan, size_t r, const std::vector<Arg> &args,
                        const NamedArgs &constexprs) {
  const Arg::Value *v = launchValue(plan, r, args, constexprs);
  return v ? std::get_if<Tensor>(v) : nullptr;
}

/// A view's own span, from its first element to its last, where it is
/// narrower than the registered memory it lies in (bytes 0 otherwise): the
/// interpreter then reports an access outside the view, not only one
/// outside the storage.
interp::MemoryRegion viewRegion(const detail::TensorImpl &t) {
  interp::MemoryRegion whole;
  if (t.numel() == 0 || !interp::MemoryMap::global().find(t.address(), 1, whole)) return {};
  int64_t last = 0;
  for (size_t i = 0; i < t.shape.size(); ++i) last += (t.shape[i] - 1) * t.strides[i];
  uint64_t bytes = uint64_t(last + 1) * t.elemBytes;
  if (t.address() == whole.base && bytes == whole.bytes) return {};
  return {t.address(), bytes,
          fmt::format("the view {}[{}] at element {} of {}", dtypeName(t.dtype), fmt::join(t.shape, ", "),
                      (t.address() - whole.base) / t.elemBytes, whole.name)};
}

void runOnInterpreter(const detail::ContextImpl &ctx, const detail::LaunchPlan &plan, Grid grid,
                      const std::vector<Arg> &args, const NamedArgs &constexprs) {
  std::vector<ScalarArg> bound(plan.args.size());
  std::vector<interp::MemoryRegion> views(plan.args.size());
  for (size_t r = 0; r < bound.size(); ++r) {
    bound[r] = boundArg(plan, r, args, constexprs);
    if (const Tensor *t = tensorArg(plan, r, args, constexprs)) views[r] = viewRegion(detail::TensorImpl::of(*t));
  }
  const interp::Options *opts = &ctx.interp;
  interp::Options timed;   // the deadline is per launch (copied only when there is one)
  if (ctx.options.timeoutSeconds > 0) {
    timed = ctx.interp;
    timed.deadline = Deadline::after(ctx.options.timeoutSeconds);
    opts = &timed;
  }
  try {
    interp::run(*plan.interp, interp::Grid{grid.x, grid.y, grid.z}, bound, *opts, views);
  } catch (const CompileError &e) {   // raised by the kernel's run
    throw detail::located(e, Error::Kind::Launch);
  }
}

void checkLaunch(Grid grid, const LaunchOptions &lo, const std::string &name) {
  if (grid.x < 1 || grid.y < 1 || grid.z < 1)
    throw Error(fmt::format("error: empty grid ({}, {}, {}) for kernel '{}': every extent must be at least 1\n",
                            grid.x, grid.y, grid.z, name));
  if (int64_t(grid.x) > (int64_t(1) << 31) - 1 || int64_t(grid.y) > 65535 || int64_t(grid.z) > 65535)
    throw Error(fmt::format("error: grid ({}, {}, {}) for kernel '{}' is over the GPU's limits (x below 2^31, y and z "
                            "below 2^16)\n",
                            grid.x, grid.y, grid.z, name));
  if (lo.numWarps < 1 || lo.numWarps > 32 || (lo.numWarps & (lo.numWarps - 1)))
    throw Error(fmt::format("error: num_warps must be a power of two from 1 to 32, not {}\n", lo.numWarps));
  if (lo.numStages < 1)
    throw Error(fmt::format("error: num_stages must be at least 1, not {}\n", lo.numStages));
}

} // namespace

void detail::launchPlain(ProgramImpl &p, KernelState &st, const LaunchGrid &lg, const std::vector<Arg> &args,
                         const NamedArgs &constexprs, const LaunchOptions &options) {
  Grid grid = lg.fn ? (*lg.fn)(Meta(metaOf(st, args, constexprs, options))) : lg.grid;
  checkLaunch(grid, options, st.kernel->name);
  LaunchPlan &plan = findOrMakePlan(p, st, args, constexprs, options);
  if (p.ctx->kind == DeviceKind::Gpu) runOnGpu(*p.ctx, plan, grid, args, constexprs, options);
  else runOnInterpreter(*p.ctx, plan, grid, args, constexprs);
}

NamedArgs detail::metaOf(const KernelState &st, const std::vector<Arg> &args, const NamedArgs &constexprs,
                         const LaunchOptions &options) {
  NamedArgs meta;
  for (size_t i = 0; i < args.size() && i < st.paramNames.size(); ++i) meta.emplace_back(st.paramNames[i], args[i]);
  for (const auto &kv : constexprs) meta.push_back(kv);
  meta.emplace_back("num_warps", options.numWarps);
  meta.emplace_back("num_stages", options.numStages);
  return meta;
}

const Arg *Meta::find(const std::string &name) const {
  for (const auto &[n, v] : values_)
    if (n == name) return &v;
  return nullptr;
}

int64_t Meta::operator[](const std::string &name) const {
  const Arg *a = find(name);
  if (!a) throw Error(fmt::format("error: META has no entry '{}'\n", name));
  if (const int64_t *i = std::get_if<int64_t>(&a->value())) return *i;
  if (const bool *b = std::get_if<bool>(&a->value())) return *b;
  throw Error(fmt::format("error: META['{}'] is not an integer\n", name));
}

void Kernel::launch(Grid grid, const std::vector<Arg> &args, const NamedArgs &constexprs,
                    const LaunchOptions &options) const {
  detail::ProgramImpl &p = *prog_;
  if (state_->tuning) return detail::launchTuned(p, *state_, detail::LaunchGrid{grid}, args, constexprs, options);
  checkLaunch(grid, options, name_);
  if (p.aot) return detail::launchAot(*p.aot, name_, grid, args, constexprs, options);
  detail::translateErrors([&] {
    detail::LaunchPlan &plan = findOrMakePlan(p, *state_, args, constexprs, options);
    if (p.ctx->kind == DeviceKind::Gpu) runOnGpu(*p.ctx, plan, grid, args, constexprs, options);
    else runOnInterpreter(*p.ctx, plan, grid, args, constexprs);
  });
}

void Kernel::launchGridFunction(const GridFunction &grid, const std::vector<Arg> &args, const NamedArgs &constexprs,
                                const LaunchOptions &options) const {
  detail::ProgramImpl &p = *prog_;
  detail::LaunchGrid lg{Grid(1), &grid};
  if (state_->tuning) return detail::launchTuned(p, *state_, lg, args, constexprs, options);
  if (p.aot) {
    Grid g = grid(Meta(detail::metaOf(*state_, args, constexprs, options)));
    checkLaunch(g, options, name_);
    return detail::launchAot(*p.aot, name_, g, args, constexprs, options);
  }
  detail::translateErrors([&] { detail::launchPlain(p, *state_, lg, args, constexprs, options); });
}

CompiledInfo Kernel::compile(const std::vector<Arg> &args, const NamedArgs &constexprs,
                             const LaunchOptions &options) const {
  detail::ProgramImpl &p = *prog_;
  if (state_->tuning) return detail::compileTuned(p, *state_, args, constexprs, options);
  checkLaunch(Grid(1), options, name_);
  if (p.aot) return detail::aotInfo(*p.aot, name_);
  return detail::translateErrors([&] { return detail::compilePlain(p, *state_, args, constexprs, options); });
}

CompiledInfo Kernel::compileFor(const std::string &arch, const std::string &signature, const NamedArgs &constexprs,
                                const LaunchOptions &options) const {
  detail::ProgramImpl &p = *prog_;
  checkLaunch(Grid(1), options, name_);
  if (p.aot)
    throw Error(fmt::format("error: kernel '{}' was loaded precompiled (Context::loadCompiled): it has no source to "
                            "compile for {}\n",
                            name_, arch));
  const backend::CodeGenerator *codegen = api::gpuCompiler();
  if (!codegen)
    throw Error(fmt::format("error: compiling kernel '{}' for {} needs the GPU compiler, which this program does not "
                            "have: link tile::llvm and call tile::enableGpuCompiler()\n",
                            name_, arch));
  return detail::translateErrors([&] {
    const ast::FunctionDef &kernel = *state_->kernel;
    std::vector<sema::ArgValue> positional;
    try {
      positional = sema::parseAotSignature(signature);
    } catch (const std::invalid_argument &e) {
      throw Error(fmt::format("error: kernel '{}': {}\n", name_, e.what()));
    }
    std::vector<std::pair<std::string, sema::ArgValue>> keywords;
    for (const auto &[name, value] : constexprs) keywords.emplace_back(name, toArgValue(value));
    sema::BoundLaunch b = sema::bindLaunch(*p.program, kernel, positional, keywords, kernel.loc);
    backend::TargetOptions target;
    target.arch = arch;
    target.numWarps = options.numWarps;
    target.numStages = options.numStages;
    if (options.fpFusion >= 0) target.fpFusion = options.fpFusion == 1;
    driver::GpuKernel image = driver::compileToPtx(*p.program, kernel, b.spec, p.ctx->pipeline, target, *codegen);
    printStageTimes();
    CompiledInfo info;
    info.signature = b.spec.key();
    info.numWarps = options.numWarps;
    info.numStages = options.numStages;
    info.sharedBytes = info.dynamicSharedBytes = image.sharedBytes;
    info.ptx = std::move(image.text);
    return info;
  });
}

CompiledInfo detail::compilePlain(ProgramImpl &p, KernelState &st, const std::vector<Arg> &args,
                                  const NamedArgs &constexprs, const LaunchOptions &options) {
  checkLaunch(Grid(1), options, st.kernel->name);
  const detail::LaunchPlan &plan = findOrMakePlan(p, st, args, constexprs, options);
  CompiledInfo info;
  info.signature = plan.signature;
  info.numWarps = options.numWarps;
  info.numStages = options.numStages;
  if (const detail::GpuKernel *k = plan.gpu) {
    info.registers = k->function.numRegs();
    info.spillBytes = k->function.localSizeBytes();
    info.sharedBytes = k->function.staticSharedBytes() + k->sharedBytes;
    info.ptx = k->ptx;
    info.cuFunction = reinterpret_cast<uint64_t>(k->function.handle());
    info.dynamicSharedBytes = k->sharedBytes;
  }
  return info;
}

} // namespace tile
