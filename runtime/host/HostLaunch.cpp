// HostLaunch.cpp - `kernel[grid](args...)`: converts host values to sema
// launch arguments, resolves the grid (a tuple, an int, or a callable of
// META) and hands the request to the Launcher.
#include "host/Evaluator.h"
#include "host/Tuning.h"

#include <fmt/format.h>

#include <algorithm>

namespace tile::host {

sema::ConstValue toConstValue(const Value &v) {
  if (v.isNone())
    return sema::NoneValue{};
  if (v.is<bool>())
    return v.as<bool>();
  if (v.is<int64_t>())
    return v.as<int64_t>();
  if (v.is<double>())
    return v.as<double>();
  if (v.is<std::string>())
    return v.as<std::string>();
  if (v.is<DTypeVal>())
    return sema::DTypeValue{ElemType::of(v.as<DTypeVal>().scalar)};
  if (v.is<TupleVal>()) {
    sema::ConstTuple items;
    for (const Value &x : sequenceItems(v))
      items.push_back(toConstValue(x));
    return items;
  }
  throw HostError(fmt::format("a '{}' cannot be passed to a kernel (pass tensors, numbers, strings, "
                              "dtypes, None or tuples of them)", typeName(v)));
}

Value fromConstValue(const sema::ConstValue &c) {
  struct Conv {
    Value operator()(const sema::NoneValue &) { return Value(); }
    Value operator()(bool b) { return b; }
    Value operator()(int64_t i) { return i; }
    Value operator()(double d) { return d; }
    Value operator()(const std::string &s) { return s; }
    Value operator()(const sema::DTypeValue &d) { return DTypeVal{d.type.scalar}; }
    Value operator()(const sema::ConstTuple &t) {
      std::vector<Value> items;
      for (const sema::ConstValue &x : t)
        items.push_back(fromConstValue(x));
      return makeTuple(std::move(items));
    }
  };
  return std::visit(Conv{}, c.v);
}

namespace {
sema::ArgValue toArgValue(const Value &v, Location loc, const std::string &what) {
  sema::ArgValue a;
  a.loc = loc;
  if (v.is<Tensor>()) {
    const Tensor &t = v.as<Tensor>();
    a.isPointer = true;
    a.elem = t.dtype();
    a.address = t.address();
    return a;
  }
  try {
    a.value = toConstValue(v);
  } catch (const HostError &e) {
    fail(loc, fmt::format("{}: {}", what, e.what()));
  }
  return a;
}

int launchOption(const Value &v, Location loc, const char *name) {
  if (!v.is<int64_t>() || v.as<int64_t>() < 1 || v.as<int64_t>() > 1024)
    fail(loc, fmt::format("{} must be a positive int, got {}", name, repr(v)));
  return int(v.as<int64_t>());
}

/// META for a callable grid: every argument by parameter name.
Value metaDict(const KernelGridVal &kg, const CallArgs &args) {
  Value meta = makeDict();
  auto &items = *meta.as<DictVal>().items;
  for (size_t i = 0; i < args.args.size() && i < kg.def->params.size(); ++i)
    items.emplace_back(Value(kg.def->params[i].name), args.args[i]);
  for (const auto &[k, v] : args.kwargs)
    items.emplace_back(Value(k), v);
  return meta;
}

using MetaExtras = std::vector<std::pair<std::string, sema::ConstValue>>;

std::array<int64_t, 3> resolveGrid(Evaluator &ev, const KernelGridVal &kg, const CallArgs &args,
                                   const MetaExtras &extras = {}) {
  Value g = *kg.grid;
  if (g.is<FunctionVal>() || g.is<BuiltinVal>()) {
    CallArgs c;
    c.loc = kg.gridLoc;
    Value meta = metaDict(kg, args);
    auto &items = *meta.as<DictVal>().items;
    for (const auto &[extraName, value] : extras) {
      const std::string &name = extraName;   // clang 14 captures no structured binding
      auto same = [&](const std::pair<Value, Value> &kv) { return kv.first.as<std::string>() == name; };
      items.erase(std::remove_if(items.begin(), items.end(), same), items.end());
      items.emplace_back(Value(name), fromConstValue(value));
    }
    c.args = {meta};
    c.argLocs = {kg.gridLoc};
    g = ev.call(g, c);
  }
  std::vector<Value> dims = isSequence(g) ? sequenceItems(g) : std::vector<Value>{g};
  if (dims.empty() || dims.size() > 3)
    fail(kg.gridLoc, fmt::format("a launch grid needs 1 to 3 dimensions, got {}", repr(g)));
  std::array<int64_t, 3> grid{1, 1, 1};
  for (size_t i = 0; i < dims.size(); ++i) {
    if (!dims[i].isIntLike() || dims[i].toInt() < 0)
      fail(kg.gridLoc, fmt::format("grid dimension {} must be a non-negative int, got {} (grid {})", i,
                                   repr(dims[i]), repr(g)));
    grid[i] = dims[i].toInt();
  }
  // An empty grid is a clear error rather than a silent no-op (Triton
  // launches nothing): a zero there is almost always a size computed wrong.
  if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0)
    fail(kg.gridLoc, fmt::format("empty launch grid {}: every grid dimension must be at least 1 "
                                 "(nothing would run)", repr(g)));
  // the GPU's limits, on both devices (the interpreter would run a grid the
  // GPU refuses for hours): x below 2^31, y and z below 2^16
  constexpr int64_t kMaxGrid[3] = {(int64_t(1) << 31) - 1, 65535, 65535};
  for (size_t i = 0; i < 3; ++i)
    if (grid[i] > kMaxGrid[i])
      fail(kg.gridLoc, fmt::format("launch grid {}: dimension {} is {}, over the GPU's limit of {} ({})", repr(g), i,
                                   grid[i], kMaxGrid[i], i == 0 ? "2^31 - 1" : "2^16 - 1"));
  return grid;
}

LaunchRequest::TensorShape shapeOf(const Value &v) {
  if (!v.is<Tensor>()) return {};
  const Tensor &t = v.as<Tensor>();
  return {t.shape(), t.strides()};
}

} // namespace

void launchKernel(Evaluator &ev, const KernelGridVal &kg, CallArgs &args) {
  LaunchRequest req;
  req.kernel = kg.def;
  req.loc = args.loc;
  req.tuned = hasTuningDecorators(*kg.def);
  if (req.tuned && (kg.grid->is<FunctionVal>() || kg.grid->is<BuiltinVal>())) {
    // The grid reads the tuned values (META['BLOCK']): the launcher calls
    // it once it has chosen them.
    req.gridFn = [&ev, kg, args](const MetaExtras &extras) { return resolveGrid(ev, kg, args, extras); };
  } else {
    req.grid = resolveGrid(ev, kg, args);
  }
  // A str for a parameter that is not tl.constexpr (Triton rejects it):
  // reported at the launch, naming the parameter, not inside the kernel.
  auto checkRuntimeParam = [&](const ast::Param *p, const Value &v, Location at) {
    if (!p || sema::Program::isConstexprParam(*p) || !v.is<std::string>()) return;
    fail(at, fmt::format("argument '{}' of kernel '{}' is a str ({}); a parameter that is not tl.constexpr takes a "
                         "tensor (a pointer), a number or a bool",
                         p->name, kg.def->name, repr(v)));
  };
  auto paramNamed = [&](const std::string &name) -> const ast::Param * {
    for (const ast::Param &p : kg.def->params)
      if (p.name == name) return &p;
    return nullptr;
  };
  for (size_t i = 0; i < args.args.size(); ++i) {
    checkRuntimeParam(i < kg.def->params.size() ? &kg.def->params[i] : nullptr, args.args[i], args.argLocs[i]);
    req.positional.push_back(toArgValue(args.args[i], args.argLocs[i], fmt::format("argument {}", i + 1)));
    req.positionalShapes.push_back(shapeOf(args.args[i]));
  }
  for (size_t i = 0; i < args.kwargs.size(); ++i) {
    const std::string &name = args.kwargs[i].first;   // not a structured binding: clang 14 captures none
    const Value &v = args.kwargs[i].second;
    // As Triton: a launch option the kernel also declares as a parameter
    // (the persistent-softmax tutorial's `num_stages: tl.constexpr`) binds
    // to both.
    bool alsoParam = std::any_of(kg.def->params.begin(), kg.def->params.end(),
                                 [&](const ast::Param &p) { return p.name == name; });
    if (alsoParam) checkRuntimeParam(paramNamed(name), v, args.kwLocs[i]);
    if (alsoParam) {
      req.keywords.emplace_back(name, toArgValue(v, args.kwLocs[i], fmt::format("argument '{}'", name)));
      req.keywordShapes.push_back(shapeOf(v));
    }
    if (name == "num_warps") {
      req.numWarps = launchOption(v, args.kwLocs[i], "num_warps");
      continue;
    }
    if (name == "num_stages") {
      req.numStages = launchOption(v, args.kwLocs[i], "num_stages");
      continue;
    }
    if (name == "enable_fp_fusion") {
      if (!v.is<bool>()) fail(args.kwLocs[i], fmt::format("enable_fp_fusion must be True or False, got {}", repr(v)));
      req.fpFusion = v.as<bool>() ? 1 : 0;
      continue;
    }
    if (name == "num_ctas") {   // accepted as Triton's default; clusters are not supported
      if (launchOption(v, args.kwLocs[i], "num_ctas") != 1)
        fail(args.kwLocs[i], "not supported: num_ctas other than 1 (thread block clusters)");
      continue;
    }
    if (!alsoParam) {
      req.keywords.emplace_back(name, toArgValue(v, args.kwLocs[i], fmt::format("argument '{}'", name)));
      req.keywordShapes.push_back(shapeOf(v));
    }
  }
  req.flops = ev.pendingWork().flops;
  req.bytes = ev.pendingWork().bytes;
  ev.pendingWork() = {}; // it describes this launch only
  try {
    ev.launcher().launch(ev.program(), req);
  } catch (CompileError &e) {
    e.uncatchable = true;   // a kernel's failure is not host code's to swallow (HostTry.cpp)
    throw;
  }
}

} // namespace tile::host
