// Debug.cpp - the interpreter's device_print and device_assert.
#include "interp/Machine.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdio>

namespace tile::interp::detail {

namespace {

/// "(1, 2)": the multi-dimensional index of flat element k.
std::string indexString(const std::vector<int64_t> &shape, int64_t k) {
  std::vector<int64_t> idx(shape.size());
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    idx[d] = k % shape[d];
    k /= shape[d];
  }
  return fmt::format("({})", fmt::join(idx, ", "));
}

std::string formatElement(const Slot &s, const SlotInfo &si, int64_t k, bool hex) {
  if (hex || si.elem.isPtr)
    return fmt::format("0x{:x}", elementBits(s, si, k));
  if (si.isFloat()) {
    if (si.elem.scalar == Scalar::F64)
      return fmt::format("{}", s.f[k]);
    return fmt::format("{}", static_cast<float>(s.f[k])); // shortest form that reads back
  }
  if (isUnsignedLike(si.elem))
    return fmt::format("{}", static_cast<uint64_t>(s.i[k]));
  return fmt::format("{}", s.i[k]);
}

void emit(const Machine &m, const std::string &line) {
  if (m.opts.print) {
    m.opts.print(line);
    return;
  }
  std::fputs(line.c_str(), stdout);
}

} // namespace

// Lines as Triton's device_print writes them:
//   pid (0, 0, 0) idx (3) PREFIX 1.5
// one per element (scalars have no idx part); with several operands each
// line names its operand: "PREFIX (operand 1) 1.5". As in Triton, a
// non-empty prefix is followed by a space unless it ends with one. Each line
// (newline-terminated) is one call of opts.print.
void evalBarrier(Machine &, ExecOp &) {}   // a program's lanes already run in lockstep

void evalPrint(Machine &m, ExecOp &e) {
  std::string prefix = e.op->hasAttr("prefix") ? e.op->strAttr("prefix") : "";
  if (!prefix.empty() && prefix.back() != ' ')
    prefix += ' ';
  bool hex = e.op->hasAttr("hex") && e.op->boolAttr("hex");
  std::string pid = fmt::format("pid ({}, {}, {})", m.pid[0], m.pid[1], m.pid[2]);
  for (size_t o = 0; o < e.in.size(); ++o) {
    const Slot &s = m.in(e, static_cast<int>(o));
    const SlotInfo &si = m.inInfo(e, static_cast<int>(o));
    std::string operand = e.in.size() > 1 ? fmt::format("(operand {}) ", o) : "";
    for (int64_t k = 0; k < si.n; ++k) {
      std::string idx = si.shape->empty() ? "" : " idx " + indexString(*si.shape, k);
      emit(m, fmt::format("{}{} {}{}{}\n", pid, idx, prefix, operand, formatElement(s, si, k, hex)));
    }
  }
}

// inline_asm: PTX cannot run here.
void evalInlineAsm(Machine &m, ExecOp &e) {
  m.error(*e.op, "not supported on the interpreter: tl.inline_asm_elementwise (inline PTX runs on the GPU only)");
}

// assert %cond {msg}: every lane must be non-zero; the first failing lane is
// reported.
void evalAssert(Machine &m, ExecOp &e) {
  const SlotInfo &si = m.inInfo(e, 0);
  const Slot &s = m.in(e, 0);
  for (int64_t k = 0; k < si.n; ++k) {
    bool ok = si.isFloat() ? s.f[k] != 0.0 : s.i[k] != 0;
    if (ok)
      continue;
    std::string msg = e.op->hasAttr("msg") ? e.op->strAttr("msg") : "";
    std::string idx = si.shape->empty() ? "" : " idx " + indexString(*si.shape, k);
    m.error(*e.op, fmt::format("device assertion failed in kernel '{}' ({}{}): {}", m.fn.name, m.where(), idx,
                               msg.empty() ? "assertion is false" : msg));
  }
}

} // namespace tile::interp::detail
