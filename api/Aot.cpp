// Aot.cpp - kernels compiled ahead of time (`tilec compile --emit
// ptx|cubin -o FILE`), loaded and launched through the CUDA driver alone:
// no parsing, no compiler, no LLVM. The file carries its kernel's
// metadata (api/AotInfo.h); every launch checks its runtime arguments
// against the compiled signature (count, dtypes, ':16' and ':1') before
// anything reaches the GPU, so a mismatch is an Error, never a wrong answer.
#include "AotInfo.h"
#include "support/Spelling.h"
#include "support/Files.h"
#include "Internal.h"

#include "sema/ConstValue.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>

namespace tile {

using detail::AotKernelInfo;
using detail::AotParam;
using detail::kAotInfoVersion;
using detail::splitSignature;

// ------------------------------------------------------------ metadata

namespace {

[[noreturn]] void malformed(const std::string &where, const std::string &what) {
  throw Error(fmt::format("error: {}: malformed tile kernel metadata: {}\n", where, what));
}

/// Undoes the writer's escapes ("\n", "\\").
std::string unescape(std::string_view v, const std::string &where) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] != '\\') {
      out += v[i];
      continue;
    }
    if (++i == v.size()) malformed(where, "a value ends in a lone backslash");
    if (v[i] == 'n') out += '\n';
    else if (v[i] == '\\') out += '\\';
    else malformed(where, fmt::format("unknown escape '\\{}'", v[i]));
  }
  return out;
}

/// The key=value lines after the version line.
std::map<std::string, std::string> parseLines(std::string_view text, const std::string &where) {
  size_t nl = text.find('\n');
  std::string_view first = text.substr(0, nl);
  if (first.rfind("tile-aot ", 0) != 0) malformed(where, "it does not start with 'tile-aot <version>'");
  if (first != kAotInfoVersion)
    throw Error(fmt::format("error: {}: tile kernel metadata of version '{}', but this runtime reads version '{}' "
                            "(recompile with this version's tilec)\n",
                            where, first.substr(9), std::string_view(kAotInfoVersion).substr(9)));
  std::map<std::string, std::string> kv;
  while (nl != std::string_view::npos && nl + 1 < text.size()) {
    size_t start = nl + 1;
    nl = text.find('\n', start);
    std::string_view line = text.substr(start, nl == std::string_view::npos ? nl : nl - start);
    if (line.empty()) continue;
    size_t eq = line.find('=');
    if (eq == std::string_view::npos || eq == 0) malformed(where, fmt::format("line '{}' is not key=value", line));
    if (!kv.emplace(std::string(line.substr(0, eq)), unescape(line.substr(eq + 1), where)).second)
      malformed(where, fmt::format("key '{}' appears twice", line.substr(0, eq)));
  }
  return kv;
}

const std::string &required(const std::map<std::string, std::string> &kv, const char *key, const std::string &where) {
  auto it = kv.find(key);
  if (it == kv.end()) malformed(where, fmt::format("no '{}='", key));
  return it->second;
}

/// A whole-string decimal integer in [lo, hi].
std::optional<int64_t> parseInt(std::string_view v, int64_t lo, int64_t hi) {
  int64_t out = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || end != v.data() + v.size() || out < lo || out > hi) return std::nullopt;
  return out;
}

int requiredInt(const std::map<std::string, std::string> &kv, const char *key, int lo, int hi,
                const std::string &where) {
  const std::string &v = required(kv, key, where);
  std::optional<int64_t> i = parseInt(v, lo, hi);
  if (!i) malformed(where, fmt::format("{}={} is not an integer from {} to {}", key, v, lo, hi));
  return int(*i);
}

/// A runtime entry of the signature ("*f32:16", "i32:1", "f16") into p;
/// false when it is not one.
bool parseRuntimeEntry(std::string_view entry, AotParam &p) {
  size_t colon = entry.find(':');
  std::string_view ty = entry.substr(0, colon);
  p.type.isPtr = !ty.empty() && ty[0] == '*';
  if (p.type.isPtr) ty.remove_prefix(1);
  std::optional<Scalar> s = parseScalarName(ty);
  if (!s) return false;
  p.type.scalar = *s;
  while (colon != std::string_view::npos) {
    size_t next = entry.find(':', colon + 1);
    std::string_view suffix = entry.substr(colon + 1, next == std::string_view::npos ? next : next - colon - 1);
    if (suffix == "16") p.div16 = true;
    else if (suffix == "1") p.equalsOne = true;
    else return false;
    colon = next;
  }
  bool integral = p.type.isPtr || (isInt(p.type.scalar) && p.type.scalar != Scalar::I1);
  if (p.div16 && !integral) return false;
  if (p.equalsOne && (!integral || p.type.isPtr || p.div16)) return false;
  return true;
}

/// The parameters, from the signature's entries and the names in params=.
std::vector<AotParam> parseParams(const std::string &signature, const std::string &names, const std::string &where) {
  std::vector<std::string> entries = splitSignature(signature);
  std::vector<std::string> paramNames = splitSignature(names);
  if (entries.size() != paramNames.size())
    malformed(where, fmt::format("the signature has {} entries but params names {} parameters", entries.size(),
                                 paramNames.size()));
  std::vector<AotParam> out(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    AotParam &p = out[i];
    p.name = paramNames[i];
    if (p.name.empty()) malformed(where, fmt::format("parameter {} has no name", i + 1));
    if (entries[i].rfind(p.name + "=", 0) == 0) {
      p.isConstexpr = true;
      p.value = entries[i].substr(p.name.size() + 1);
    } else if (!parseRuntimeEntry(entries[i], p)) {
      malformed(where, fmt::format("signature entry '{}' of parameter '{}' is neither {}=VALUE nor a type such as "
                                   "'*f32:16' or 'i32'",
                                   entries[i], p.name, p.name));
    }
  }
  return out;
}

} // namespace

std::vector<std::string> detail::splitSignature(std::string_view signature) {
  std::vector<std::string> out;
  if (signature.empty()) return out;
  std::string cur;
  int depth = 0;
  char quote = 0;
  for (char c : signature) {
    if (quote) quote = c == quote ? 0 : quote;
    else if (c == '\'' || c == '"') quote = c;
    else if (c == '(' || c == '[' || c == '{') ++depth;
    else if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
    else if (c == ',' && depth == 0) {
      out.push_back(std::move(cur));
      cur.clear();
      continue;
    }
    cur += c;
  }
  out.push_back(std::move(cur));
  return out;
}

detail::AotKernelInfo detail::parseAotInfo(std::string_view text, const std::string &where) {
  text = text.substr(0, text.find('\0'));
  std::map<std::string, std::string> kv = parseLines(text, where);
  AotKernelInfo info;
  info.kernel = required(kv, "kernel", where);
  info.symbol = required(kv, "symbol", where);
  if (info.kernel.empty() || info.symbol.empty()) malformed(where, "an empty kernel or symbol name");
  info.numWarps = requiredInt(kv, "num_warps", 1, 32, where);
  if (info.numWarps & (info.numWarps - 1)) malformed(where, fmt::format("num_warps={} is not a power of two", info.numWarps));
  info.numStages = requiredInt(kv, "num_stages", 1, 1 << 20, where);
  info.sharedBytes = requiredInt(kv, "shared", 0, std::numeric_limits<int>::max(), where);
  info.arch = required(kv, "arch", where);
  info.signature = required(kv, "signature", where);
  info.params = parseParams(info.signature, required(kv, "params", where), where);
  return info;
}

// ------------------------------------------------------------- loading

/// One loaded file: its module, the kernel's entry and its metadata.
struct detail::AotModule {
  ContextImpl *ctx = nullptr; ///< kept alive by the owning ProgramImpl
  std::string path;
  AotKernelInfo info;
  std::vector<size_t> runtime; ///< indices into info.params of the runtime parameters
  cuda::Module module;
  cuda::Function function;
  std::string ptx; ///< the file's text when it was PTX

  explicit AotModule(cuda::Module m) : module(std::move(m)) {}
};

namespace {

/// CUDA_ERROR_NOT_FOUND: cuModuleGetGlobal of a name the module lacks.
constexpr int kCudaErrorNotFound = 500;
/// A metadata global larger than this is not ours.
constexpr size_t kMaxInfoBytes = 1 << 20;

std::string readFile(const std::string &path) {
  FileText f = readWholeFile(path);
  if (!f.ok()) throw Error(fmt::format("error: cannot read '{}': {}\n", path, f.error));
  return std::move(f.text);
}

enum class ImageKind { Ptx, Binary };

/// PTX text, or a cubin / fatbin (ELF or fatbin magic); else an Error.
ImageKind imageKind(const std::string &bytes, const std::string &path) {
  if (bytes.rfind("\x7f" "ELF", 0) == 0 || bytes.rfind("\x50\xed\x55\xba", 0) == 0) return ImageKind::Binary;
  if (bytes.find('\0') == std::string::npos && (bytes.rfind("//", 0) == 0 || bytes.find(".version") != std::string::npos))
    return ImageKind::Ptx;
  throw Error(fmt::format("error: '{}' is neither PTX nor a cubin: load files written by `tilec compile --emit "
                          "ptx|cubin -o FILE`\n",
                          path));
}

cuda::Module loadModule(detail::ContextImpl &ctx, const std::string &bytes, ImageKind kind, const std::string &path) {
  ctx.driver->makeCurrent();
  try {
    if (kind == ImageKind::Ptx) return cuda::Module::fromPtx(*ctx.driver, bytes, path);
    return cuda::Module::fromCubin(*ctx.driver, bytes.data(), bytes.size(), path);
  } catch (const cuda::Error &e) {
    std::string hint = kind == ImageKind::Binary
                           ? fmt::format(" (a cubin runs only on the GPU architecture it was compiled for; this "
                                         "device is {}: compile with --arch, or ship PTX)",
                                         ctx.driver->device().targetArch())
                           : std::string();
    throw Error(fmt::format("error: cannot load '{}': {}{}\n", path, e.what(), hint));
  }
}

/// The metadata text of a loaded module.
std::string readInfo(detail::ContextImpl &ctx, const cuda::Module &module, const std::string &path) {
  std::pair<cuda::api::CUdeviceptr, size_t> global;
  try {
    global = module.global(detail::kAotInfoSymbol);
  } catch (const cuda::Error &e) {
    if (e.code() != kCudaErrorNotFound) throw;
    throw Error(fmt::format("error: '{}' has no tile kernel metadata ({}): it was not produced by `tilec compile "
                            "--emit ptx|cubin`\n",
                            path, detail::kAotInfoSymbol));
  }
  if (global.second == 0 || global.second > kMaxInfoBytes)
    throw Error(fmt::format("error: '{}': its {} global has {} bytes, not tile kernel metadata\n", path,
                            detail::kAotInfoSymbol, global.second));
  std::string text(global.second, '\0');
  cuda::copyToHost(*ctx.driver, text.data(), global.first, text.size());
  return text;
}

} // namespace

std::shared_ptr<detail::AotModule> detail::loadAotModule(ContextImpl &ctx, const std::string &path) {
  std::string bytes = readFile(path);
  ImageKind kind = imageKind(bytes, path);
  if (ctx.kind != DeviceKind::Gpu)
    throw Error(fmt::format("error: cannot load '{}': precompiled kernels need a GPU context; this one is the "
                            "interpreter (load the .tile source with Context::loadFile to run it there)\n",
                            path));
  return translateErrors([&] {
    auto m = std::make_shared<AotModule>(loadModule(ctx, bytes, kind, path));
    m->ctx = &ctx;
    m->path = path;
    m->info = parseAotInfo(readInfo(ctx, m->module, path), path);
    for (size_t i = 0; i < m->info.params.size(); ++i)
      if (!m->info.params[i].isConstexpr) m->runtime.push_back(i);
    try {
      m->function = m->module.function(m->info.symbol);
    } catch (const cuda::Error &e) {
      throw Error(fmt::format("error: '{}': its metadata names the entry '{}', which the module lacks: {}\n", path,
                              m->info.symbol, e.what()));
    }
    if (kind == ImageKind::Ptx) m->ptx = std::move(bytes);
    return m;
  });
}

std::vector<std::string> detail::aotKernelNames(const AotModule &m) { return {m.info.kernel}; }

bool detail::aotHasKernel(const AotModule &m, const std::string &name) { return name == m.info.kernel; }

// ------------------------------------------------------------ launching

namespace {

/// "kernel 'add_kernel' (precompiled in 'add.ptx', *f32:16,...)" for messages.
std::string kernelDesc(const detail::AotModule &m) {
  return fmt::format("kernel '{}' (precompiled in '{}' for {})", m.info.kernel, m.path, m.info.signature);
}

/// "*f32:16" for one runtime parameter.
std::string typeText(const detail::AotParam &p) {
  return fmt::format("{}{}{}{}", p.type.isPtr ? "*" : "", scalarName(p.type.scalar), p.div16 ? ":16" : "",
                     p.equalsOne ? ":1" : "");
}

/// What an argument is, for messages: "a float16 tensor", "the int 5", ...
std::string argDesc(const Arg &a) {
  return std::visit(
      [](const auto &v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, Tensor>) return v.defined() ? fmt::format("a {} tensor", dtypeName(v.dtype())) : "an undefined tensor";
        else if constexpr (std::is_same_v<T, int64_t>) return fmt::format("the int {}", v);
        else if constexpr (std::is_same_v<T, double>) return fmt::format("the float {}", v);
        else if constexpr (std::is_same_v<T, bool>) return v ? "the bool true" : "the bool false";
        else if constexpr (std::is_same_v<T, std::string>) return fmt::format("the string '{}'", v);
        else if constexpr (std::is_same_v<T, DType>) return fmt::format("the dtype {}", dtypeName(v));
        else return "None";
      },
      a.value());
}

/// One runtime argument's check failed.
[[noreturn]] void badArg(const detail::AotModule &m, size_t r, const detail::AotParam &p, const std::string &why) {
  throw Error(fmt::format("error: argument {} ('{}') of {}: {}\n", r + 1, p.name, kernelDesc(m), why));
}

/// A ':16' / ':1' assumption the value breaks.
[[noreturn]] void badAssumption(const detail::AotModule &m, size_t r, const detail::AotParam &p,
                                const std::string &what, const char *assumed) {
  badArg(m, r, p,
         fmt::format("{}, but the kernel was compiled assuming {} ('{}' in its signature); recompile it with another "
                     "--signature to pass such values",
                     what, assumed, typeText(p)));
}

[[noreturn]] void wrongType(const detail::AotModule &m, size_t r, const detail::AotParam &p, const Arg &a) {
  badArg(m, r, p, fmt::format("{} was given, but the kernel was compiled for {}", argDesc(a), typeText(p)));
}

/// A tensor for a pointer parameter: this context's, of the element type,
/// aligned as compiled.
ScalarArg pointerArg(const detail::AotModule &m, size_t r, const detail::AotParam &p, const Arg &a) {
  const Tensor *t = std::get_if<Tensor>(&a.value());
  if (!t || !t->defined() || detail::toScalar(t->dtype()) != p.type.scalar) wrongType(m, r, p, a);
  if (detail::TensorImpl::of(*t).ctx.get() != m.ctx) badArg(m, r, p, "a tensor of another tile::Context");
  ScalarArg s;
  s.type = p.type;
  s.i = static_cast<int64_t>(t->address());
  if (p.div16 && t->address() % 16 != 0)
    badAssumption(m, r, p, fmt::format("its address 0x{:x} is not a multiple of 16 bytes", t->address()),
                  "16-byte alignment");
  return s;
}

/// The range of values an integer parameter of type s takes.
std::pair<int64_t, int64_t> intRange(Scalar s) {
  switch (s) {
  case Scalar::I1: return {0, 1};
  case Scalar::I8: return {INT8_MIN, INT8_MAX};
  case Scalar::I16: return {INT16_MIN, INT16_MAX};
  case Scalar::I32: return {INT32_MIN, INT32_MAX};
  case Scalar::U8: return {0, UINT8_MAX};
  case Scalar::U16: return {0, UINT16_MAX};
  case Scalar::U32: return {0, UINT32_MAX};
  case Scalar::U64: return {0, INT64_MAX};
  default: return {INT64_MIN, INT64_MAX};
  }
}

/// An int (or a bool, for i1) for an integer parameter: in range, and
/// divisible or equal to one as compiled.
ScalarArg intArg(const detail::AotModule &m, size_t r, const detail::AotParam &p, const Arg &a) {
  ScalarArg s;
  s.type = p.type;
  if (const bool *b = std::get_if<bool>(&a.value()); b && p.type.scalar == Scalar::I1) s.i = *b;
  else if (const int64_t *i = std::get_if<int64_t>(&a.value())) s.i = *i;
  else wrongType(m, r, p, a);
  auto [lo, hi] = intRange(p.type.scalar);
  if (s.i < lo || s.i > hi)
    badArg(m, r, p, fmt::format("{} does not fit the parameter's type {}", s.i, scalarName(p.type.scalar)));
  if (p.div16 && s.i % 16 != 0)
    badAssumption(m, r, p, fmt::format("{} is not a multiple of 16", s.i), "it is a multiple of 16");
  if (p.equalsOne && s.i != 1) badAssumption(m, r, p, fmt::format("{} is not 1", s.i), "it is 1");
  return s;
}

/// A float (or an int) for a float parameter.
ScalarArg floatArg(const detail::AotModule &m, size_t r, const detail::AotParam &p, const Arg &a) {
  ScalarArg s;
  s.type = p.type;
  if (const double *d = std::get_if<double>(&a.value())) s.f = *d;
  else if (const int64_t *i = std::get_if<int64_t>(&a.value())) s.f = double(*i);
  else wrongType(m, r, p, a);
  return s;
}

ScalarArg runtimeArg(const detail::AotModule &m, size_t r, const Arg &a) {
  const detail::AotParam &p = m.info.params[m.runtime[r]];
  if (p.type.isPtr) return pointerArg(m, r, p, a);
  if (isFloat(p.type.scalar)) return floatArg(m, r, p, a);
  return intArg(m, r, p, a);
}

/// The repr a constexpr argument would have in a specialization key.
std::string constRepr(const Arg &a) {
  return std::visit(
      [](const auto &v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, Tensor>) return "<tensor>";
        else if constexpr (std::is_same_v<T, DType>)
          return sema::ConstValue(sema::DTypeValue{ElemType::of(detail::toScalar(v))}).repr();
        else if constexpr (std::is_same_v<T, std::nullptr_t>) return sema::ConstValue().repr();
        else return sema::ConstValue(v).repr();
      },
      a.value());
}

/// Constexprs are fixed at compile time: each one passed must name a
/// constexpr parameter and equal its compiled value (so launch code
/// written for Context::loadFile runs a precompiled kernel unchanged).
void checkConstexprs(const detail::AotModule &m, const NamedArgs &constexprs) {
  for (const auto &[name, value] : constexprs) {
    const detail::AotParam *p = nullptr;
    for (const detail::AotParam &q : m.info.params)
      if (q.name == name) p = &q;
    if (!p)
      throw Error(fmt::format("error: {} has no parameter named '{}'{}\n", kernelDesc(m), name,
                              didYouMeanAmong(name, m.info.params)));
    if (!p->isConstexpr)
      throw Error(fmt::format("error: '{}' is a runtime parameter of {}: pass it positionally\n", name, kernelDesc(m)));
    std::string given = constRepr(value);
    if (given != p->value)
      throw Error(fmt::format("error: {}={} for {}, which was compiled with {}={} (constexprs are fixed when "
                              "the kernel is compiled; recompile with -D {}={})\n",
                              name, given, kernelDesc(m), name, p->value, name, given));
  }
}

} // namespace

void detail::launchAot(const AotModule &m, const std::string &, Grid grid, const std::vector<Arg> &args,
                       const NamedArgs &constexprs, const LaunchOptions &options) {
  size_t n = m.runtime.size();
  if (args.size() != n) {
    std::vector<std::string> names;
    for (size_t i : m.runtime) names.push_back(m.info.params[i].name);
    throw Error(fmt::format("error: {} takes {} runtime arguments ({}) but {} were given\n", kernelDesc(m), n,
                            fmt::join(names, ", "), args.size()));
  }
  checkConstexprs(m, constexprs);
  std::vector<cuda::ParamSlot> slots(n);
  std::vector<void *> params(n);
  for (size_t r = 0; r < n; ++r) {
    ScalarArg a = runtimeArg(m, r, args[r]);
    slots[r] = cuda::packParam(a, static_cast<uint64_t>(a.i));
    params[r] = slots[r].bytes;
  }
  translateErrors([&] {
    const cuda::Stream *stream = cudaStream(options.stream, m.ctx);
    m.ctx->driver->makeCurrent();
    m.function.launch(cuda::Dim3{grid.x, grid.y, grid.z}, cuda::Dim3{m.info.numWarps * 32, 1, 1},
                      static_cast<uint32_t>(m.info.sharedBytes), stream, params);
    if (options.async) return;
    if (stream) stream->synchronize();
    else m.ctx->driver->synchronize();
  });
}

CompiledInfo detail::aotInfo(const AotModule &m, const std::string &) {
  CompiledInfo info;
  info.signature = m.info.signature;
  info.numWarps = m.info.numWarps;
  info.numStages = m.info.numStages;
  info.registers = m.function.numRegs();
  info.spillBytes = m.function.localSizeBytes();
  info.sharedBytes = m.function.staticSharedBytes() + m.info.sharedBytes;
  info.ptx = m.ptx;
  info.cuFunction = reinterpret_cast<uint64_t>(m.function.handle());
  info.dynamicSharedBytes = m.info.sharedBytes;
  return info;
}

Program Context::loadCompiled(const std::string &path) const {
  auto p = std::make_shared<detail::ProgramImpl>();
  p->ctx = impl_;
  p->aot = detail::loadAotModule(*impl_, path);
  return Program(std::move(p));
}

} // namespace tile
