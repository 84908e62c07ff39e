// AotWrite.cpp - appends the kernel metadata Context::loadCompiled reads
// (api/AotInfo.h) to the PTX `tilec compile --emit ptx|cubin` writes.
#include "AotWrite.h"

#include "AotInfo.h"

#include <fmt/format.h>

namespace tile::tools {

namespace {

/// A value on one line: newlines and backslashes escaped.
std::string escape(const std::string &v) {
  std::string out;
  for (char c : v) {
    if (c == '\n') out += "\\n";
    else if (c == '\\') out += "\\\\";
    else out += c;
  }
  return out;
}

/// The names of every parameter, constexprs included, comma-separated.
std::string paramNames(const sema::Specialization &spec) {
  std::string out;
  for (const sema::Specialization::Param &p : spec.params) out += (out.empty() ? "" : ",") + p.name;
  return out;
}

} // namespace

std::string aotInfoText(const std::string &kernel, const backend::KernelBinary &kb, const sema::Specialization &spec,
                        const backend::TargetOptions &target) {
  return fmt::format("{}\nkernel={}\nsymbol={}\nnum_warps={}\nnum_stages={}\nshared={}\narch={}\nsignature={}\n"
                     "params={}\n",
                     detail::kAotInfoVersion, kernel, kb.name, target.numWarps, target.numStages, kb.sharedBytes,
                     target.arch, escape(spec.key()), paramNames(spec));
}

std::string appendAotInfo(const std::string &ptx, const std::string &info) {
  std::string out = ptx;
  if (!out.empty() && out.back() != '\n') out += '\n';
  out += "\n// tile kernel metadata, read by tile::Context::loadCompiled:\n";
  size_t start = 0;
  while (start < info.size()) {
    size_t nl = info.find('\n', start);
    out += "//   " + info.substr(start, nl - start) + "\n";
    start = nl == std::string::npos ? info.size() : nl + 1;
  }
  out += fmt::format(".visible .global .align 1 .b8 {}[{}] = {{", detail::kAotInfoSymbol, info.size() + 1);
  for (size_t i = 0; i <= info.size(); ++i) {
    unsigned byte = i < info.size() ? static_cast<unsigned char>(info[i]) : 0u;
    out += fmt::format("{}{}{}", i ? "," : "", i % 24 == 0 ? "\n  " : " ", byte);
  }
  return out + "\n};\n";
}

std::string aotOutput(const std::string &kernel, const backend::KernelBinary &kb, const sema::Specialization &spec,
                      const backend::TargetOptions &target, bool cubin) {
  std::string ptx = appendAotInfo(kb.ptx, aotInfoText(kernel, kb, spec, target));
  return cubin ? backend::ptxToCubin(ptx, target.arch) : ptx;
}

} // namespace tile::tools
