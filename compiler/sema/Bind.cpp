// Bind.cpp - matches a launch's arguments to a kernel's parameters and
// derives the specialization (constexpr values and runtime types).
#include "sema/Lowerer.h"
#include "support/Spelling.h"

#include <fmt/format.h>

#include <limits>

namespace tile::sema {

std::string Specialization::key() const {
  std::string k;
  for (const Param &p : params) {
    if (!k.empty()) k += ",";
    if (p.isConstexpr) k += p.name + "=" + p.value.repr();
    else k += p.type.isPtr ? "*" + std::string(scalarName(p.type.scalar)) : std::string(scalarName(p.type.scalar));
    if (!p.isConstexpr && p.divisibility > 1) k += fmt::format(":{}", p.divisibility);
    if (!p.isConstexpr && p.equalsOne) k += ":1";
  }
  return k;
}

namespace {

/// The runtime type and bits of a non-constexpr argument, or nullopt when
/// the value specializes as a constexpr (None, strings, dtypes).
std::optional<ScalarArg> runtimeArg(const ArgValue &a) {
  ScalarArg s;
  if (a.isPointer) {
    s.type = ElemType::ptrTo(a.elem);
    s.i = static_cast<int64_t>(a.address);
    return s;
  }
  const ConstValue &c = a.value;
  if (c.isBool()) {
    s.type = ElemType::of(Scalar::I1);
    s.i = std::get<bool>(c.v);
    return s;
  }
  if (c.isInt()) {
    int64_t i = std::get<int64_t>(c.v);
    s.type = ElemType::of(i >= std::numeric_limits<int32_t>::min() && i <= std::numeric_limits<int32_t>::max()
                              ? Scalar::I32
                              : Scalar::I64);
    s.i = i;
    return s;
  }
  if (c.isFloat()) {
    s.type = ElemType::of(Scalar::F32);
    s.f = static_cast<float>(std::get<double>(c.v));
    return s;
  }
  return std::nullopt;
}

/// 16 when a pointer's address or an integer's value is a multiple of 16
/// (the alignment the GPU back end vectorizes on), as Triton's `:16`; 8 for
/// an integer that is a multiple of 8 only (not in Triton: a row stride of
/// 8 halves or 4 floats, e.g. 3000, still makes 16-byte rows, which the
/// cp.async operand path needs); i1 and floats never.
int64_t divisibilityOf(const ScalarArg &a) {
  bool integral = a.type.isPtr || (a.type.isInt() && a.type.scalar != Scalar::I1);
  if (!integral) return 1;
  if (a.i % 16 == 0) return 16;
  return !a.type.isPtr && a.i % 8 == 0 ? 8 : 1;
}

/// Integers equal to 1 specialize as Triton's do (unit strides).
bool equalsOneOf(const ScalarArg &a) {
  return !a.type.isPtr && a.type.isInt() && a.type.scalar != Scalar::I1 && a.i == 1;
}

} // namespace

BoundLaunch bindLaunch(const Program &prog, const ast::FunctionDef &kernel, const std::vector<ArgValue> &positional,
                       const std::vector<std::pair<std::string, ArgValue>> &keywords, Location callLoc) {
  const auto &params = kernel.params;
  std::vector<const ArgValue *> given(params.size(), nullptr);
  if (positional.size() > params.size())
    fail(positional[params.size()].loc.valid() ? positional[params.size()].loc : callLoc,
         fmt::format("kernel '{}' takes {} arguments but {} were given", kernel.name, params.size(), positional.size()));
  for (size_t i = 0; i < positional.size(); ++i) given[i] = &positional[i];
  for (const auto &[name, v] : keywords) {
    size_t i = 0;
    while (i < params.size() && params[i].name != name) ++i;
    Location loc = v.loc.valid() ? v.loc : callLoc;
    if (i == params.size())
      fail(loc, fmt::format("kernel '{}' has no parameter named '{}'{}", kernel.name, name,
                            didYouMeanAmong(name, params, launchOptionNames())));
    if (given[i]) fail(loc, fmt::format("kernel '{}' got two values for parameter '{}'", kernel.name, name));
    given[i] = &v;
  }
  BoundLaunch out;
  Lowerer consts(prog, nullptr);
  for (size_t i = 0; i < params.size(); ++i) {
    const ast::Param &p = params[i];
    Specialization::Param sp;
    sp.name = p.name;
    ArgValue fromDefault;
    const ArgValue *a = given[i];
    if (!a) {
      if (!p.defaultValue)
        fail(callLoc, fmt::format("missing argument '{}' of kernel '{}'{}", p.name, kernel.name,
                                  Program::isConstexprParam(p) ? " (a tl.constexpr: pass it as " + p.name + "=...)" : ""));
      fromDefault.value = consts.evalConst(*p.defaultValue);
      a = &fromDefault;
    }
    Location loc = a->loc.valid() ? a->loc : callLoc;
    if (Program::isConstexprParam(p)) {
      if (a->isPointer)
        fail(loc, fmt::format("parameter '{}' of kernel '{}' is tl.constexpr but got a tensor", p.name, kernel.name));
      sp.isConstexpr = true;
      sp.value = a->value;
    } else if (auto r = runtimeArg(*a)) {
      sp.type = r->type;
      sp.divisibility = divisibilityOf(*r);
      sp.equalsOne = equalsOneOf(*r);
      out.args.push_back(*r);
    } else {
      // None, strings and dtypes specialize like constexprs (as in Triton).
      sp.isConstexpr = true;
      sp.value = a->value;
    }
    out.spec.params.push_back(std::move(sp));
  }
  return out;
}

} // namespace tile::sema
