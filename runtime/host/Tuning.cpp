// Tuning.cpp - reads @triton.autotune / @triton.heuristics with the host
// evaluator (Tuning.h), and the triton.Config builtin.
#include "host/Tuning.h"
#include "support/Spelling.h"

#include "host/Evaluator.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <sstream>

namespace tile::host {

namespace {

using ast::ExprKind;

/// "triton.autotune" for triton.autotune(...), "" for anything else.
std::string dottedName(const ast::Expr &e) {
  if (e.kind == ExprKind::Name) return static_cast<const ast::NameExpr &>(e).id;
  if (e.kind == ExprKind::Attribute) {
    auto &a = static_cast<const ast::AttributeExpr &>(e);
    std::string base = dottedName(*a.value);
    return base.empty() ? "" : base + "." + a.attr;
  }
  if (e.kind == ExprKind::Call) return dottedName(*static_cast<const ast::CallExpr &>(e).func);
  return "";
}

bool endsWith(const std::string &s, const std::string &tail) {
  return s == tail || (s.size() > tail.size() && s.compare(s.size() - tail.size() - 1, std::string::npos, "." + tail) == 0);
}
bool isAutotune(const std::string &n) { return n == "autotune" || endsWith(n, "autotune"); }
bool isHeuristics(const std::string &n) { return n == "heuristics" || endsWith(n, "heuristics"); }

/// The marker key of the dict that triton.Config returns.
constexpr const char *kConfigTag = "__triton_config__";

/// A kernel launch from inside a decorator: there is none to make.
class NoLauncher : public Launcher {
public:
  void launch(const sema::Program &, const LaunchRequest &req) override {
    fail(req.loc, "kernels cannot be launched while evaluating @triton.autotune or @triton.heuristics");
  }
};

const ast::Param *findParam(const ast::FunctionDef &k, const std::string &name) {
  for (const ast::Param &p : k.params)
    if (p.name == name) return &p;
  return nullptr;
}

const Value *dictGet(const Value &dict, const std::string &key) {
  for (const auto &[k, v] : *dict.as<DictVal>().items)
    if (k.is<std::string>() && k.as<std::string>() == key) return &v;
  return nullptr;
}

/// The location of element i of a list/tuple literal, else of the whole expression.
Location elementLoc(const ast::Expr &e, size_t i) {
  if (e.kind == ExprKind::List) {
    auto &l = static_cast<const ast::ListExpr &>(e);
    if (i < l.elts.size()) return l.elts[i]->loc;
  }
  if (e.kind == ExprKind::Tuple) {
    auto &t = static_cast<const ast::TupleExpr &>(e);
    if (i < t.elts.size()) return t.elts[i]->loc;
  }
  return e.loc;
}

} // namespace

// ------------------------------------------------------------ triton.Config

void addTuningBuiltins(std::map<std::string, Value> &table) {
  using Fn = std::function<Value(Evaluator &, CallArgs &)>;
  Fn config = [](Evaluator &, CallArgs &c) {
    ArgParser p(c, "Config", {"kwargs", "num_warps=", "num_stages=", "num_ctas=", "maxnreg=", "pre_hook=",
                              "ir_override="});
    const Value &kw = p.get("kwargs");
    if (!kw.is<DictVal>()) fail(p.loc("kwargs"), fmt::format("Config() expects a dict of meta-parameters, not '{}'", typeName(kw)));
    for (const auto &[k, v] : *kw.as<DictVal>().items)
      if (!k.is<std::string>()) fail(p.loc("kwargs"), fmt::format("Config() meta-parameter names must be strings, not {}", repr(k)));
    auto intOpt = [&](const char *name, int64_t def) {
      Value v = p.getOr(name, Value(def));
      if (!v.is<int64_t>() || v.as<int64_t>() < 1)
        fail(p.loc(name), fmt::format("Config() {} must be a positive int, got {}", name, repr(v)));
      return v.as<int64_t>();
    };
    int64_t warps = intOpt("num_warps", 4), stages = intOpt("num_stages", 3);
    if (warps > 32 || (warps & (warps - 1)))
      fail(p.loc("num_warps"), fmt::format("Config() num_warps must be a power of two from 1 to 32, not {}", warps));
    if (intOpt("num_ctas", 1) != 1) fail(p.loc("num_ctas"), "not supported: num_ctas (thread block clusters)");
    for (const char *name : {"maxnreg", "pre_hook", "ir_override"})
      if (p.has(name) && !p.get(name).isNone()) fail(p.loc(name), fmt::format("not supported: Config {}", name));
    Value out = makeDict();
    auto &items = *out.as<DictVal>().items;
    items.emplace_back(Value(kConfigTag), Value(true));
    items.emplace_back(Value("kwargs"), kw);
    items.emplace_back(Value("num_warps"), Value(warps));
    items.emplace_back(Value("num_stages"), Value(stages));
    return out;
  };
  table["Config"] = BuiltinVal{"Config", std::make_shared<Fn>(std::move(config))};
}

std::string TuneConfig::describe() const {
  std::string out;
  for (const auto &[name, value] : kwargs) out += fmt::format("{}={}, ", name, value.repr());
  return out + fmt::format("num_warps={}, num_stages={}", numWarps, numStages);
}

// ------------------------------------------------------------ reading decorators

struct KernelTuning::Impl {
  NoLauncher launcher;
  HostOptions options;
  std::unique_ptr<Evaluator> ev;
  std::vector<std::vector<Value>> heuristics; ///< per stage, per heuristic: the callable
  std::map<Scalar, Value> emptyTensors;      ///< what a tensor argument looks like to a heuristic
};

namespace {

/// The arguments of a decorator call matched to Triton's signature.
struct DecoratorArgs {
  std::map<std::string, const ast::Expr *> given;
  std::map<std::string, Location> locs;
};

DecoratorArgs matchArgs(const ast::CallExpr &call, const char *fname, const std::vector<std::string> &names) {
  DecoratorArgs out;
  if (call.args.size() > names.size())
    fail(call.args[names.size()]->loc, fmt::format("{}() takes at most {} positional arguments", fname, names.size()));
  for (size_t i = 0; i < call.args.size(); ++i) {
    out.given[names[i]] = call.args[i].get();
    out.locs[names[i]] = call.args[i]->loc;
  }
  for (const ast::Keyword &k : call.keywords) {
    if (std::find(names.begin(), names.end(), k.name) == names.end())
      fail(k.loc, fmt::format("{}() got an unexpected keyword argument '{}'{}", fname, k.name, didYouMean(k.name, names)));
    if (out.given.count(k.name)) fail(k.loc, fmt::format("{}() got multiple values for argument '{}'", fname, k.name));
    out.given[k.name] = k.value.get();
    out.locs[k.name] = k.loc;
  }
  return out;
}

/// A list of parameter names (key=, reset_to_zero=, restore_value=).
std::vector<std::string> nameList(Evaluator &ev, const ast::Expr &e, const ast::FunctionDef &kernel, const char *what,
                                  bool tensorsOnly) {
  Value v = ev.evalInModule(e);
  if (v.isNone()) return {};
  if (!isSequence(v)) fail(e.loc, fmt::format("autotune {} must be a list of parameter names, not '{}'", what, typeName(v)));
  std::vector<std::string> out;
  const std::vector<Value> &items = sequenceItems(v);
  for (size_t i = 0; i < items.size(); ++i) {
    Location loc = elementLoc(e, i);
    if (!items[i].is<std::string>())
      fail(loc, fmt::format("autotune {} must be a list of parameter names, not {}", what, repr(items[i])));
    const std::string &name = items[i].as<std::string>();
    const ast::Param *p = findParam(kernel, name);
    if (!p) fail(loc, fmt::format("autotune {} names '{}', which is not a parameter of kernel '{}'", what, name, kernel.name));
    if (tensorsOnly && sema::Program::isConstexprParam(*p))
      fail(loc, fmt::format("autotune {} names '{}', a tl.constexpr parameter of kernel '{}' (it must name a tensor)",
                            what, name, kernel.name));
    out.push_back(name);
  }
  return out;
}

void checkTunedName(const ast::FunctionDef &kernel, const std::string &name, Location loc, const char *what) {
  const ast::Param *p = findParam(kernel, name);
  if (!p || !sema::Program::isConstexprParam(*p))
    fail(loc, fmt::format("{} '{}' is not a tl.constexpr parameter of kernel '{}'", what, name, kernel.name));
}

AutotuneSpec readAutotune(Evaluator &ev, const ast::CallExpr &call, const ast::FunctionDef &kernel) {
  DecoratorArgs a = matchArgs(call, "autotune",
                              {"configs", "key", "prune_configs_by", "reset_to_zero", "restore_value", "pre_hook",
                               "post_hook", "warmup", "rep", "use_cuda_graph", "do_bench", "cache_results"});
  AutotuneSpec spec;
  spec.loc = call.loc;
  auto given = [&](const char *name) -> const ast::Expr * {
    auto it = a.given.find(name);
    if (it == a.given.end()) return nullptr;
    return it->second->kind == ExprKind::None ? nullptr : it->second;
  };
  for (const char *name : {"prune_configs_by", "pre_hook", "post_hook", "do_bench"})
    if (given(name)) fail(a.locs[name], fmt::format("not supported: {}", name));
  if (const ast::Expr *e = given("use_cuda_graph"); e && truthy(ev.evalInModule(*e)))
    fail(a.locs["use_cuda_graph"], "not supported: use_cuda_graph");
  if (const ast::Expr *e = given("cache_results")) (void)ev.evalInModule(*e); // results are always cached
  if (!a.given.count("configs")) fail(call.loc, "autotune() missing required argument 'configs'");
  if (!a.given.count("key")) fail(call.loc, "autotune() missing required argument 'key'");

  const ast::Expr &cfgExpr = *a.given["configs"];
  Value cfgs = ev.evalInModule(cfgExpr);
  if (!isSequence(cfgs)) fail(cfgExpr.loc, fmt::format("autotune configs must be a list of triton.Config, not '{}'", typeName(cfgs)));
  const std::vector<Value> &items = sequenceItems(cfgs);
  for (size_t i = 0; i < items.size(); ++i) {
    Location loc = elementLoc(cfgExpr, i);
    if (!items[i].is<DictVal>() || !dictGet(items[i], kConfigTag))
      fail(loc, fmt::format("autotune configs must be triton.Config objects, not {}", repr(items[i])));
    TuneConfig c;
    c.loc = loc;
    c.numWarps = int(dictGet(items[i], "num_warps")->as<int64_t>());
    c.numStages = int(dictGet(items[i], "num_stages")->as<int64_t>());
    for (const auto &[k, v] : *dictGet(items[i], "kwargs")->as<DictVal>().items) {
      const std::string &name = k.as<std::string>();
      checkTunedName(kernel, name, loc, "config parameter");
      try {
        c.kwargs.emplace_back(name, toConstValue(v));
      } catch (const HostError &e) {
        fail(loc, fmt::format("config parameter '{}': {}", name, e.what()));
      }
    }
    spec.configs.push_back(std::move(c));
  }
  if (spec.configs.empty()) spec.configs.push_back(TuneConfig{{}, 4, 3, cfgExpr.loc}); // Triton's default Config({})
  spec.key = nameList(ev, *a.given["key"], kernel, "key", false);
  if (const ast::Expr *e = given("reset_to_zero")) spec.resetToZero = nameList(ev, *e, kernel, "reset_to_zero", true);
  if (const ast::Expr *e = given("restore_value")) spec.restoreValue = nameList(ev, *e, kernel, "restore_value", true);
  for (const char *name : {"warmup", "rep"}) {
    const ast::Expr *e = given(name);
    if (!e) continue;
    Value v = ev.evalInModule(*e);
    if (!v.isNumber() || v.toDouble() <= 0)
      fail(e->loc, fmt::format("autotune {} must be a positive number of milliseconds, got {}", name, repr(v)));
    (std::string(name) == "warmup" ? spec.warmupMs : spec.repMs) = v.toDouble();
  }
  return spec;
}

} // namespace

KernelTuning::~KernelTuning() = default;

bool hasTuningDecorators(const ast::FunctionDef &kernel) {
  for (const ast::ExprPtr &d : kernel.decorators) {
    if (d->kind != ExprKind::Call) continue;
    std::string n = dottedName(*d);
    if (isAutotune(n) || isHeuristics(n)) return true;
  }
  return false;
}

std::shared_ptr<const KernelTuning> KernelTuning::of(const sema::Program &prog, const ast::FunctionDef &kernel) {
  if (!hasTuningDecorators(kernel)) return nullptr;
  std::shared_ptr<KernelTuning> t(new KernelTuning());
  t->kernel_ = &kernel;
  t->impl_ = std::make_unique<Impl>();
  Impl &impl = *t->impl_;
  impl.options.defines = prog.globals;
  impl.ev = std::make_unique<Evaluator>(prog, impl.launcher, impl.options);
  impl.ev->declareModule();
  bool sawAutotune = false;
  for (const ast::ExprPtr &d : kernel.decorators) {
    if (d->kind != ExprKind::Call) continue;
    std::string n = dottedName(*d);
    auto &call = static_cast<const ast::CallExpr &>(*d);
    Stage stage;
    std::vector<Value> fns;
    if (isAutotune(n)) {
      if (sawAutotune) fail(d->loc, "not supported: more than one @triton.autotune on a kernel");
      sawAutotune = true;
      stage.isAutotune = true;
      stage.autotune = readAutotune(*impl.ev, call, kernel);
    } else if (isHeuristics(n)) {
      DecoratorArgs a = matchArgs(call, "heuristics", {"values"});
      if (!a.given.count("values")) fail(call.loc, "heuristics() missing required argument 'values'");
      const ast::Expr &e = *a.given["values"];
      Value values = impl.ev->evalInModule(e);
      if (!values.is<DictVal>())
        fail(e.loc, fmt::format("heuristics values must be a dict of {{name: lambda args: ...}}, not '{}'", typeName(values)));
      const auto &items = *values.as<DictVal>().items;
      for (size_t i = 0; i < items.size(); ++i) {
        Location loc = e.loc;
        if (e.kind == ExprKind::Dict && i < static_cast<const ast::DictExpr &>(e).keys.size())
          loc = static_cast<const ast::DictExpr &>(e).keys[i]->loc;
        const auto &[k, fn] = items[i];
        if (!k.is<std::string>()) fail(loc, fmt::format("heuristic names must be strings, not {}", repr(k)));
        checkTunedName(kernel, k.as<std::string>(), loc, "heuristic");
        if (!fn.is<FunctionVal>() && !fn.is<BuiltinVal>())
          fail(loc, fmt::format("heuristic '{}' must be a function of the arguments (lambda args: ...), not '{}'",
                                k.as<std::string>(), typeName(fn)));
        stage.heuristicNames.push_back(k.as<std::string>());
        stage.heuristicLocs.push_back(loc);
        fns.push_back(fn);
      }
    } else {
      continue;
    }
    t->stages_.push_back(std::move(stage));
    impl.heuristics.push_back(std::move(fns));
  }
  return t;
}

sema::ConstValue KernelTuning::heuristic(size_t s, size_t h, const std::vector<TuningArg> &args) const {
  std::lock_guard lock(mu_);
  Impl &impl = *impl_;
  Value dict = makeDict();
  auto &items = *dict.as<DictVal>().items;
  for (const TuningArg &a : args) {
    if (!a.isTensor) {
      items.emplace_back(Value(a.name), fromConstValue(a.value));
      continue;
    }
    auto it = impl.emptyTensors.find(a.dtype);
    if (it == impl.emptyTensors.end()) it = impl.emptyTensors.emplace(a.dtype, Tensor::zeros({0}, a.dtype)).first;
    items.emplace_back(Value(a.name), it->second);
  }
  const Stage &stage = stages_[s];
  CallArgs call;
  call.loc = stage.heuristicLocs[h];
  call.args = {dict};
  call.argLocs = {call.loc};
  Value r = impl.ev->call(impl.heuristics[s][h], call);
  try {
    return toConstValue(r);
  } catch (const HostError &e) {
    fail(call.loc, fmt::format("heuristic '{}' returned {}: {}", stage.heuristicNames[h], repr(r), e.what()));
  }
}

} // namespace tile::host
