// Printer.cpp - writes functions and modules in the tile IR text form
// described in Printer.h. The output is deterministic: value names depend
// only on op order, attributes are sorted, floats print in shortest
// round-trip form.
#include "ir/Printer.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <set>
#include <unordered_map>

namespace tile::ir {

namespace {

std::string escapeString(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string printDouble(double d) {
  if (std::isnan(d))
    return std::signbit(d) ? "-nan" : "nan";
  if (std::isinf(d))
    return d < 0 ? "-inf" : "inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), d);
  std::string s(buf, res.ptr);
  // Keep floats distinguishable from ints: 16.0 prints as "16.0".
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s;
}

bool isIdentifier(const std::string &s) {
  if (s.empty() || !(std::isalpha((unsigned char)s[0]) || s[0] == '_'))
    return false;
  for (unsigned char c : s)
    if (!std::isalnum(c) && c != '_')
      return false;
  return true;
}

/// Prints one function; owns the value numbering.
class FunctionPrinter {
public:
  FunctionPrinter(const PrintOptions &opts) : opts_(opts) {}

  std::string run(const Function &fn) {
    nameParams(fn);
    out_ += fmt::format("tile.func @{}(", fn.name);
    const Block &entry = fn.entry();
    for (size_t i = 0; i < entry.args.size(); ++i) {
      const Value *v = entry.args[i].get();
      out_ += fmt::format("{}{}: {}", i ? ", " : "", name(v), printType(v->type));
      if (i < fn.paramDivisibility.size() && fn.paramDivisibility[i] > 1)
        out_ += fmt::format(" {{divisibility = {}}}", fn.paramDivisibility[i]);
    }
    out_ += ")";
    printLoc(fn.loc);
    out_ += " {\n";
    printOps(entry, 1);
    out_ += "}\n";
    return std::move(out_);
  }

private:
  const PrintOptions &opts_;
  std::string out_;
  std::unordered_map<const Value *, std::string> names_;
  int next_ = 0;

  void nameParams(const Function &fn) {
    std::set<std::string> used;
    const Block &entry = fn.entry();
    for (size_t i = 0; i < entry.args.size(); ++i) {
      std::string base = i < fn.paramNames.size() ? fn.paramNames[i] : "";
      if (!isIdentifier(base))
        base = fmt::format("arg{}", i);
      std::string n = base;
      for (int k = 1; used.count(n); ++k)
        n = fmt::format("{}_{}", base, k);
      used.insert(n);
      names_[entry.args[i].get()] = "%" + n;
    }
  }

  std::string name(const Value *v) {
    if (!v)
      return "%<null>";
    auto it = names_.find(v);
    return it == names_.end() ? "%<undef>" : it->second;
  }

  void define(const Value *v) { names_[v] = fmt::format("%{}", next_++); }

  void printLoc(Location loc) {
    if (!opts_.locations || !loc.valid())
      return;
    out_ += fmt::format(" loc({}:{}:{})", escapeString(SourceManager::global().path(loc.file)), loc.line,
                        loc.col);
  }

  void indent(int depth) { out_.append(2 * depth, ' '); }

  void printOps(const Block &b, int depth) {
    for (const auto &op : b.ops)
      printOp(*op, depth);
  }

  void printOp(const Op &op, int depth) {
    indent(depth);
    for (size_t i = 0; i < op.results.size(); ++i) {
      define(op.results[i].get());
      out_ += fmt::format("{}{}", i ? ", " : "", name(op.results[i].get()));
    }
    if (!op.results.empty())
      out_ += " = ";
    out_ += opName(op.kind);
    for (size_t i = 0; i < op.operands.size(); ++i)
      out_ += fmt::format("{}{}", i ? ", " : " ", name(op.operands[i]));
    printAttrs(op);
    printTypes(op);
    printRegions(op, depth);
    printLoc(op.loc);
    out_ += "\n";
  }

  void printAttrs(const Op &op) {
    if (op.attrs.empty())
      return;
    out_ += " {";
    bool first = true;
    for (const auto &[key, value] : op.attrs) {
      out_ += fmt::format("{}{} = {}", first ? "" : ", ", key, printAttr(value));
      first = false;
    }
    out_ += "}";
  }

  // Result types, or operand types for an op without results.
  void printTypes(const Op &op) {
    std::vector<std::string> types;
    if (!op.results.empty()) {
      for (const auto &r : op.results)
        types.push_back(printType(r->type));
    } else {
      for (const Value *v : op.operands)
        types.push_back(v ? printType(v->type) : "<null>");
    }
    if (!types.empty())
      out_ += fmt::format(" : {}", fmt::join(types, ", "));
  }

  static const char *regionKeyword(OpKind k) {
    if (k == OpKind::If)
      return "else";
    if (k == OpKind::While)
      return "do";
    return "region";
  }

  void printRegions(const Op &op, int depth) {
    for (size_t i = 0; i < op.regions.size(); ++i) {
      if (i)
        out_ += fmt::format(" {}", regionKeyword(op.kind));
      out_ += " {\n";
      const Block &b = *op.regions[i]->block;
      if (!b.args.empty()) {
        indent(depth);
        out_ += "^bb0(";
        for (size_t a = 0; a < b.args.size(); ++a) {
          define(b.args[a].get());
          out_ += fmt::format("{}{}: {}", a ? ", " : "", name(b.args[a].get()), printType(b.args[a]->type));
        }
        out_ += "):\n";
      }
      printOps(b, depth + 1);
      indent(depth);
      out_ += "}";
    }
  }
};

} // namespace

std::string printType(const Type &t) {
  std::string elem = t.elem.isPtr ? fmt::format("ptr<{}>", scalarName(t.elem.scalar))
                                  : std::string(scalarName(t.elem.scalar));
  if (!t.isTensor())
    return elem;
  std::string s = "tensor<";
  for (int64_t d : t.shape)
    s += fmt::format("{}x", d);
  s += elem;
  if (t.layout)
    s += ", " + t.layout->str();
  return s + ">";
}

std::string printAttr(const Attr &a) {
  if (auto *i = std::get_if<int64_t>(&a))
    return std::to_string(*i);
  if (auto *d = std::get_if<double>(&a))
    return printDouble(*d);
  if (auto *b = std::get_if<bool>(&a))
    return *b ? "true" : "false";
  if (auto *s = std::get_if<std::string>(&a))
    return escapeString(*s);
  const auto &list = std::get<std::vector<int64_t>>(a);
  return fmt::format("[{}]", fmt::join(list, ", "));
}

std::string print(const Function &fn, const PrintOptions &opts) { return FunctionPrinter(opts).run(fn); }

std::string print(const Module &m, const PrintOptions &opts) {
  std::string out;
  for (size_t i = 0; i < m.functions.size(); ++i) {
    if (i)
      out += "\n";
    out += print(*m.functions[i], opts);
  }
  return out;
}

} // namespace tile::ir
