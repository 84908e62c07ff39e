// Scan.cpp - the interpreter's scan op: an inclusive scan along one axis
// that runs the op's combine region once per element after the first, in
// index order (from the last index with reverse). This sequential order is
// the reference the GPU back end is checked against.
#include "interp/Machine.h"

#include <fmt/format.h>

namespace tile::interp::detail {

namespace {

/// The input viewed as [outer, len, inner] around the scanned axis.
struct ScanView {
  int64_t outer = 1, len = 1, inner = 1;
};

ScanView viewOf(const Machine &m, const ExecOp &e, int64_t axis) {
  const std::vector<int64_t> &shape = *m.inInfo(e, 0).shape;
  if (axis < 0 || axis >= static_cast<int64_t>(shape.size()))
    m.error(*e.op, fmt::format("scan axis {} is out of range for a rank-{} tensor", axis, shape.size()));
  ScanView v;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d)
    (d < axis ? v.outer : d == axis ? v.len : v.inner) *= shape[d];
  return v;
}

/// One lane of one operand: float or integer storage.
struct Lane {
  double f = 0;
  int64_t i = 0;
};

Lane laneOf(const Slot &s, bool isFloat, int64_t at) {
  Lane l;
  if (isFloat) l.f = s.f[at];
  else l.i = s.i[at];
  return l;
}

void setScalar(Slot &s, bool isFloat, const Lane &l) {
  if (isFloat) s.f.assign(1, l.f);
  else s.i.assign(1, l.i);
}

/// Runs the combine region on (acc..., x...) and returns its yielded scalars.
void combine(Machine &m, ExecBlock &body, const std::vector<bool> &isFloat, std::vector<Lane> &acc,
             const std::vector<Lane> &x) {
  size_t n = acc.size();
  for (size_t k = 0; k < n; ++k) {
    setScalar(m.slots[body.args[k]], isFloat[k], acc[k]);
    setScalar(m.slots[body.args[n + k]], isFloat[k], x[k]);
  }
  m.execBlock(body);
  const std::vector<int> &y = body.terminatorOperands();
  TILE_ASSERT(y.size() == n, "scan region must yield one value per operand");
  for (size_t k = 0; k < n; ++k) acc[k] = laneOf(m.slots[y[k]], isFloat[k], 0);
}

void scanAll(Machine &m, ExecOp &e, const ScanView &v, bool reverse) {
  ExecBlock &body = e.regions.at(0);
  size_t n = e.op->operands.size();
  TILE_ASSERT(body.args.size() == 2 * n, "scan region takes two arguments per operand");
  std::vector<bool> isFloat(n);
  for (size_t k = 0; k < n; ++k) isFloat[k] = m.inInfo(e, int(k)).isFloat();
  std::vector<Slot *> out;
  for (size_t k = 0; k < n; ++k) out.push_back(&m.out(e, int(k)));
  std::vector<Lane> acc(n), x(n);
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t in = 0; in < v.inner; ++in) {
      int64_t base = o * v.len * v.inner + in;
      for (int64_t t = 0; t < v.len; ++t) {
        int64_t at = base + (reverse ? v.len - 1 - t : t) * v.inner;
        for (size_t k = 0; k < n; ++k) x[k] = laneOf(m.in(e, int(k)), isFloat[k], at);
        if (t == 0) acc = x;
        else combine(m, body, isFloat, acc, x);
        for (size_t k = 0; k < n; ++k) {
          if (isFloat[k]) out[k]->f[at] = acc[k].f;
          else out[k]->i[at] = acc[k].i;
        }
      }
    }
}

} // namespace

// scan %x... {axis, reverse} { ^(%acc..., %x...): ... yield %c... }
void evalScan(Machine &m, ExecOp &e) {
  int64_t axis = e.op->intAttr("axis");
  auto rev = e.op->attrs.find("reverse");
  bool reverse = rev != e.op->attrs.end() && std::get_if<bool>(&rev->second) && std::get<bool>(rev->second);
  scanAll(m, e, viewOf(m, e, axis), reverse);
}

} // namespace tile::interp::detail
