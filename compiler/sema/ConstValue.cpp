// ConstValue.cpp - Python-style rendering of constexpr values.
#include "sema/ConstValue.h"

#include <fmt/format.h>

namespace tile::sema {

namespace {
std::string floatRepr(double d) {
  std::string s = fmt::format("{}", d);
  if (s.find_first_of(".eni") == std::string::npos)
    s += ".0";
  return s;
}
} // namespace

std::string ConstValue::repr() const {
  struct Visitor {
    std::string operator()(const NoneValue &) const { return "None"; }
    std::string operator()(bool b) const { return b ? "True" : "False"; }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return floatRepr(d); }
    std::string operator()(const std::string &s) const { return "'" + s + "'"; }
    std::string operator()(const DTypeValue &t) const {
      if (!t.fp8.empty()) return "tl." + t.fp8;
      if (t.isBlock()) {
        std::string dims;
        for (int64_t d : t.shape) dims += (dims.empty() ? "" : ", ") + std::to_string(d);
        return fmt::format("<[{}], {}>", dims, ConstValue(DTypeValue{t.type}).repr());
      }
      return t.type.isPtr ? fmt::format("pointer<{}>", tritonDTypeName(t.type.scalar))
                          : fmt::format("tl.{}", tritonDTypeName(t.type.scalar));
    }
    std::string operator()(const ConstTuple &t) const {
      std::string s = "(";
      for (size_t i = 0; i < t.size(); ++i)
        s += (i ? ", " : "") + t[i].repr();
      return s + (t.size() == 1 ? ",)" : ")");
    }
  };
  return std::visit(Visitor{}, v);
}

} // namespace tile::sema
