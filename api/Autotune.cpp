// Autotune.cpp - launches of kernels with @triton.autotune /
// @triton.heuristics (Autotune.h). A launch walks the decorators outermost
// first: a heuristics stage adds its values to the named arguments, an
// autotune stage adds the chosen config's (tuning it first when its key is
// new); the last stage is the ordinary launch (launchPlain), whose launch
// plans make a repeated tuned launch cheap.
#include "Autotune.h"

#include "Bridge.h"

#include "driver/DiskCache.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <unistd.h>

namespace tile::detail {

KernelState::~KernelState() = default;

std::unique_ptr<TuneState> makeTuneState(const sema::Program &prog, const ast::FunctionDef &kernel) {
  std::shared_ptr<const host::KernelTuning> spec = host::KernelTuning::of(prog, kernel);
  if (!spec) return nullptr;
  auto t = std::make_unique<TuneState>();
  t->spec = std::move(spec);
  return t;
}

namespace {

/// One launch on its way through the decorators.
struct Flow {
  ProgramImpl &p;
  KernelState &st;
  const LaunchGrid &grid;
  const std::vector<Arg> &args;
  NamedArgs named;     ///< the launch's named arguments plus what the stages added
  LaunchOptions lo;
  std::string config;  ///< the autotune config in use, described
};

enum class Mode { Launch, Compile };

const host::KernelTuning &spec(const Flow &f) { return *f.st.tuning->spec; }

/// The argument bound to parameter `name`, or null.
const Arg *argNamed(const Flow &f, const std::string &name) {
  for (size_t i = 0; i < f.args.size() && i < f.st.paramNames.size(); ++i)
    if (f.st.paramNames[i] == name) return &f.args[i];
  for (const auto &[n, v] : f.named)
    if (n == name) return &v;
  return nullptr;
}

void setNamed(Flow &f, const std::string &name, Arg value) {
  for (auto &[n, v] : f.named)
    if (n == name) {
      v = std::move(value);
      return;
    }
  f.named.emplace_back(name, std::move(value));
}

host::TuningArg tuningArg(const std::string &name, const Arg &a) {
  host::TuningArg t;
  t.name = name;
  std::visit(
      [&](const auto &v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, Tensor>) {
          t.isTensor = true;
          t.dtype = toScalar(v.dtype());
        } else if constexpr (std::is_same_v<T, DType>) {
          t.value = sema::DTypeValue{ElemType::of(toScalar(v))};
        } else if constexpr (std::is_same_v<T, std::nullptr_t>) {
          t.value = sema::NoneValue{};
        } else {
          t.value = v;
        }
      },
      a.value());
  return t;
}

Arg argOf(const sema::ConstValue &c, const std::string &what) {
  struct Conv {
    const std::string &what;
    Arg operator()(const sema::NoneValue &) const { return Arg(nullptr); }
    Arg operator()(bool b) const { return Arg(b); }
    Arg operator()(int64_t i) const { return Arg(static_cast<long long>(i)); }
    Arg operator()(double d) const { return Arg(d); }
    Arg operator()(const std::string &s) const { return Arg(s); }
    Arg operator()(const sema::DTypeValue &d) const { return Arg(Bridge::dtypeOf(d.type.scalar)); }
    Arg operator()(const sema::ConstTuple &) const {
      throw Error(fmt::format("error: {} is a tuple, which a launch cannot pass\n", what));
    }
  };
  return std::visit(Conv{what}, c.v);
}

/// Python's repr of an argument, for tuning keys.
std::string argText(const Arg &a) {
  const Arg::Value &v = a.value();
  if (const Tensor *t = std::get_if<Tensor>(&v)) return fmt::format("tensor<{}>", dtypeName(t->dtype()));
  if (const int64_t *i = std::get_if<int64_t>(&v)) return fmt::format("{}", *i);
  if (const double *d = std::get_if<double>(&v)) return fmt::format("{}", *d);
  if (const bool *b = std::get_if<bool>(&v)) return *b ? "True" : "False";
  if (const std::string *s = std::get_if<std::string>(&v)) return fmt::format("'{}'", *s);
  if (const DType *d = std::get_if<DType>(&v)) return dtypeName(*d);
  return "None";
}

void applyHeuristics(Flow &f, size_t stage) {
  const host::KernelTuning::Stage &s = spec(f).stages()[stage];
  for (size_t h = 0; h < s.heuristicNames.size(); ++h) {
    // The lambda's `args`: the positional arguments by name, then the
    // named ones (including earlier heuristics' and the config's values).
    std::vector<host::TuningArg> targs;
    for (size_t i = 0; i < f.args.size() && i < f.st.paramNames.size(); ++i)
      targs.push_back(tuningArg(f.st.paramNames[i], f.args[i]));
    for (const auto &[n, v] : f.named) targs.push_back(tuningArg(n, v));
    sema::ConstValue value = spec(f).heuristic(stage, h, targs);
    const std::string &name = s.heuristicNames[h];
    setNamed(f, name, argOf(value, fmt::format("the value of heuristic '{}'", name)));
  }
}

Flow withConfig(const Flow &f, const host::TuneConfig &c) {
  Flow g = f;
  for (const auto &[name, value] : c.kwargs) setNamed(g, name, argOf(value, "config parameter '" + name + "'"));
  g.lo.numWarps = c.numWarps;
  g.lo.numStages = c.numStages;
  g.config = c.describe();
  return g;
}

/// As Triton: a launch may not pass what the configs set.
void checkConflicts(const Flow &f, const host::AutotuneSpec &at) {
  std::vector<std::string> conflicts;
  for (const host::TuneConfig &c : at.configs)
    for (const auto &[name, value] : c.kwargs)
      if (argNamed(f, name) && std::find(conflicts.begin(), conflicts.end(), name) == conflicts.end())
        conflicts.push_back(name);
  if (!conflicts.empty())
    throw Error(fmt::format("error: conflicting meta-parameters: {}: the autotune configs of kernel '{}' set them, "
                            "so the launch must not pass them\n",
                            fmt::join(conflicts, ", "), f.st.kernel->name));
}

/// Triton's tuning key: the `key` arguments' values (those passed), then
/// the dtype of every tensor argument.
std::string tuningKey(const Flow &f, const host::AutotuneSpec &at) {
  std::string key;
  for (const std::string &name : at.key)
    if (const Arg *a = argNamed(f, name)) key += fmt::format("{}={}, ", name, argText(*a));
  key += "dtypes:";
  for (const Arg &a : f.args)
    if (const Tensor *t = std::get_if<Tensor>(&a.value())) key += fmt::format(" {}", dtypeName(t->dtype()));
  for (const auto &[n, a] : f.named)
    if (const Tensor *t = std::get_if<Tensor>(&a.value())) key += fmt::format(" {}={}", n, dtypeName(t->dtype()));
  return key;
}

// ------------------------------------------------------------ trial runs

/// reset_to_zero and restore_value around the trial runs (Triton's pre
/// and post hooks): zero before each run, put the saved contents back after
/// each, and zero once more when the tuning is done.
class Hooks {
public:
  Hooks(const Flow &f, const host::AutotuneSpec &at) {
    for (const std::string &name : at.resetToZero)
      if (const Tensor *t = tensorNamed(f, name)) zero_.push_back(*t);
    for (const std::string &name : at.restoreValue)
      if (const Tensor *t = tensorNamed(f, name)) {
        std::string bytes(t->bytes(), '\0');
        t->copyToHost(bytes.data(), bytes.size());
        saved_.emplace_back(*t, std::move(bytes));
      }
  }
  bool any() const { return !zero_.empty() || !saved_.empty(); }
  void before() const {
    for (Tensor &t : zero_) {
      std::string zeros(t.bytes(), '\0');
      t.copyFromHost(zeros.data(), zeros.size());
    }
  }
  void after() const {
    for (auto &[t, bytes] : saved_) t.copyFromHost(bytes.data(), bytes.size());
  }

private:
  static const Tensor *tensorNamed(const Flow &f, const std::string &name) {
    const Arg *a = argNamed(f, name);
    return a ? std::get_if<Tensor>(&a->value()) : nullptr;
  }
  mutable std::vector<Tensor> zero_; ///< handles: writing through them changes no member
  mutable std::vector<std::pair<Tensor, std::string>> saved_;
};

/// The self-erasing line "autotune: KERNEL config i/N [###...]" on stderr
/// while tuning, on a terminal only (TERM not "dumb"); TILE_PROGRESS=0/1
/// turns it off/on as for tilec bench's line (tools/tilec/Bench.h).
class ProgressLine {
public:
  ProgressLine() : enabled_(detail::Bridge::progressLines()) {}
  ~ProgressLine() { clear(); }
  void update(const std::string &kernel, size_t done, size_t total, const std::string &config) {
    if (!enabled_) return;
    constexpr size_t kWidth = 20;
    size_t filled = kWidth * done / total;
    std::string line = fmt::format("\r\033[Kautotune: {} [{}{}] {}/{} {}", kernel, std::string(filled, '#'),
                                   std::string(kWidth - filled, '.'), done, total, config);
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
    shown_ = true;
  }
  void clear() {
    if (!shown_) return;
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
    shown_ = false;
  }

private:
  bool enabled_ = false, shown_ = false;
};

CompiledInfo run(Flow &f, size_t stage, Mode mode);

/// The time of one config in ms: on the GPU the median of CUDA-event
/// timings of single launches after a warm-up, each after an L2 flush
/// (counts from warmup= and rep= and the flush as Triton's do_bench); on the
/// interpreter one wall-clock run.
double timeConfig(const Flow &g, size_t next, const host::AutotuneSpec &at, const Hooks &hooks) {
  Flow trial = g;
  const ContextImpl &ctx = *g.p.ctx;
  if (ctx.kind != DeviceKind::Gpu) {
    hooks.before();
    auto t0 = std::chrono::steady_clock::now();
    run(trial, next, Mode::Launch);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    hooks.after();
    return ms;
  }
  trial.lo.async = true;
  const cuda::Stream *stream = cudaStream(trial.lo.stream, &ctx);
  cuda::Event start(*ctx.driver), stop(*ctx.driver);
  cuda::L2Flush flush(*ctx.driver); // each timed launch starts with a cold L2, as in do_bench
  auto timed = [&] {
    hooks.before();
    Flow once = trial;
    flush.enqueue(stream);
    start.record(stream);
    run(once, next, Mode::Launch);
    stop.record(stream);
    stop.synchronize();
    hooks.after();
    return double(stop.elapsedMsSince(start));
  };
  timed(); // the first launch builds the plan
  double estimate = std::max(timed(), 1e-3);
  int cap = hooks.any() ? 100 : 1000; // hooks copy through the host
  int warmups = std::clamp(int(at.warmupMs / estimate), 1, cap);
  int reps = std::clamp(int(at.repMs / estimate), 1, cap);
  for (int i = 0; i < warmups; ++i) timed();
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) ms.push_back(timed());
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// ------------------------------------------------------------ disk cache

driver::CacheKey diskKey(const Flow &f, const host::AutotuneSpec &at, const std::string &key) {
  const ContextImpl &ctx = *f.p.ctx;
  const ast::FunctionDef &kernel = *f.st.kernel;
  driver::CacheKey k;
  k.source = driver::programSourceText(*f.p.program, kernel);
  k.sourcePath = SourceManager::global().path(kernel.loc.file);
  k.kernel = "autotune:" + kernel.name;
  k.specialization = key;
  k.numWarps = 0;
  k.numStages = 0;
  k.arch = fmt::format("{} {}", ctx.driver->device().name, ctx.options.arch);
  k.options = "pipeline " + ctx.pipeline.key() + "\n";
  for (const host::TuneConfig &c : at.configs) k.options += "config " + c.describe() + "\n";
  for (const auto &[name, value] : f.p.program->globals) k.options += fmt::format("global {}={}\n", name, value.repr());
  k.compilerVersion = driver::cacheCompilerVersion() + " autotune 1";
  return k;
}

/// The disk cache of f's context (its cacheDir's, else the process's).
const driver::DiskCache *contextDiskCache(const Flow &f) {
  const std::string &dir = f.p.ctx->pipeline.cacheDir;
  return dir.empty() ? driver::processDiskCache() : driver::diskCacheAt(dir);
}

std::optional<size_t> loadChoice(const Flow &f, const host::AutotuneSpec &at, const std::string &key) {
  const driver::DiskCache *disk = contextDiskCache(f);
  if (!disk || f.p.ctx->kind != DeviceKind::Gpu) return std::nullopt;
  std::optional<driver::CachedKernel> hit = disk->load(diskKey(f, at, key));
  if (!hit) return std::nullopt;
  char *end = nullptr;
  unsigned long idx = std::strtoul(hit->name.c_str(), &end, 10);
  if (hit->name.empty() || *end || idx >= at.configs.size() || hit->ptx != at.configs[idx].describe())
    return std::nullopt;
  return size_t(idx);
}

void storeChoice(const Flow &f, const host::AutotuneSpec &at, const std::string &key, size_t idx) {
  const driver::DiskCache *disk = contextDiskCache(f);
  if (!disk || f.p.ctx->kind != DeviceKind::Gpu) return;
  // An entry of the kernel cache whose "PTX" is the chosen config's text.
  const host::TuneConfig &c = at.configs[idx];
  disk->store(diskKey(f, at, key),
              driver::CachedKernel{std::to_string(idx), c.describe(), 0, c.numWarps,
                                   fmt::format("autotune {} [{}] -> {}", f.st.kernel->name, key, c.describe())});
}

// ------------------------------------------------------------ the stages

/// Runs (or compiles) every config from stage `next` on and returns the
/// index of the fastest; a config that does not compile (too much shared
/// memory, a failing static_assert, ...) is skipped, as in Triton.
size_t tune(Flow &f, size_t stage, const host::AutotuneSpec &at, const std::string &key) {
  const std::vector<host::TuneConfig> &configs = at.configs;
  std::vector<double> ms(configs.size(), std::numeric_limits<double>::infinity());
  std::optional<Error> firstError;
  Hooks hooks(f, at);
  ProgressLine progress;
  for (size_t i = 0; i < configs.size(); ++i) {
    progress.update(f.st.kernel->name, i, configs.size(), configs[i].describe());
    Flow g = withConfig(f, configs[i]);
    try {
      Flow c = g;
      translateErrors([&] { run(c, stage + 1, Mode::Compile); });
    } catch (const Error &e) {
      if (!firstError) firstError = e;
      continue;
    }
    ms[i] = timeConfig(g, stage + 1, at, hooks);
  }
  progress.clear();
  size_t best = size_t(std::min_element(ms.begin(), ms.end()) - ms.begin());
  if (std::isinf(ms[best])) throw *firstError;
  hooks.before(); // Triton's reset_only pre-hook: the real launch starts from zeros too
  return best;
}

/// TILE_PRINT_AUTOTUNING=1 (or Triton's TRITON_PRINT_AUTOTUNING=1): one
/// line per finished tuning, in Triton's words, on stdout.
void printAutotuning(const std::string &kernel, std::chrono::steady_clock::duration took, const std::string &config) {
  auto on = [](const char *name) {
    const char *v = std::getenv(name);
    return v && *v && std::string_view(v) != "0";
  };
  if (!on("TILE_PRINT_AUTOTUNING") && !on("TRITON_PRINT_AUTOTUNING")) return;
  fmt::print("Triton autotuning for function {} finished after {:.2f}s; best config selected: {};\n", kernel,
             std::chrono::duration<double>(took).count(), config);
  std::fflush(stdout);
}

CompiledInfo autotune(Flow &f, size_t stage, Mode mode) {
  const host::AutotuneSpec &at = spec(f).stages()[stage].autotune;
  TuneState &ts = *f.st.tuning;
  checkConflicts(f, at);
  std::optional<size_t> choice;
  std::string key;
  if (at.configs.size() == 1) {
    choice = 0; // nothing to choose: no timing (Triton's single config)
  } else {
    key = tuningKey(f, at);
    std::lock_guard lock(ts.mu);
    if (auto it = ts.best.find(key); it != ts.best.end()) choice = it->second;
  }
  if (!choice && mode == Mode::Compile) {
    // Kernel::compile before the first launch: every config, the first's info.
    std::optional<CompiledInfo> first;
    std::optional<Error> firstError;
    for (const host::TuneConfig &c : at.configs) {
      Flow g = withConfig(f, c);
      try {
        CompiledInfo info = translateErrors([&] { return run(g, stage + 1, Mode::Compile); });
        if (!first) first = info;
      } catch (const Error &e) {
        if (!firstError) firstError = e;
      }
    }
    if (!first) throw *firstError;
    return *first;
  }
  if (!choice) {
    std::lock_guard tuning(ts.tuneMu);
    {
      std::lock_guard lock(ts.mu);
      if (auto it = ts.best.find(key); it != ts.best.end()) choice = it->second;
    }
    if (!choice) choice = loadChoice(f, at, key);
    if (!choice) {
      auto t0 = std::chrono::steady_clock::now();
      choice = tune(f, stage, at, key);
      storeChoice(f, at, key, *choice);
      printAutotuning(f.st.kernel->name, std::chrono::steady_clock::now() - t0, at.configs[*choice].describe());
    }
    std::lock_guard lock(ts.mu);
    ts.best.emplace(key, *choice);
  }
  Flow g = withConfig(f, at.configs[*choice]);
  return run(g, stage + 1, mode);
}

CompiledInfo run(Flow &f, size_t stage, Mode mode) {
  const auto &stages = spec(f).stages();
  if (stage == stages.size()) {
    if (mode == Mode::Compile) {
      CompiledInfo info = compilePlain(f.p, f.st, f.args, f.named, f.lo);
      info.config = f.config;
      return info;
    }
    launchPlain(f.p, f.st, f.grid, f.args, f.named, f.lo);
    return {};
  }
  if (stages[stage].isAutotune) return autotune(f, stage, mode);
  applyHeuristics(f, stage);
  return run(f, stage + 1, mode);
}

} // namespace

void launchTuned(ProgramImpl &p, KernelState &st, const LaunchGrid &grid, const std::vector<Arg> &args,
                 const NamedArgs &constexprs, const LaunchOptions &options) {
  translateErrors([&] {
    Flow f{p, st, grid, args, constexprs, options, ""};
    run(f, 0, Mode::Launch);
  });
}

CompiledInfo compileTuned(ProgramImpl &p, KernelState &st, const std::vector<Arg> &args, const NamedArgs &constexprs,
                          const LaunchOptions &options) {
  return translateErrors([&] {
    LaunchGrid none;
    Flow f{p, st, none, args, constexprs, options, ""};
    return run(f, 0, Mode::Compile);
  });
}

} // namespace tile::detail

bool tile::detail::Bridge::progressLines() {
  const char *force = std::getenv("TILE_PROGRESS");
  if (force && *force) return std::strcmp(force, "0") != 0;
  const char *term = std::getenv("TERM");
  return isatty(fileno(stderr)) && !(term && std::strcmp(term, "dumb") == 0);
}
