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

/// Runs the combine region on (acc, x) and returns its yielded scalar.
template <typename T> T combine(Machine &m, ExecBlock &body, std::vector<T> Slot::*field, T acc, T x) {
  (m.slots[body.args[0]].*field).assign(1, acc);
  (m.slots[body.args[1]].*field).assign(1, x);
  m.execBlock(body);
  const std::vector<int> &y = body.terminatorOperands();
  TILE_ASSERT(y.size() == 1, "scan region must yield one value");
  return (m.slots[y[0]].*field).at(0);
}

template <typename T> void scanAll(Machine &m, ExecOp &e, std::vector<T> Slot::*field, const ScanView &v,
                                   bool reverse) {
  ExecBlock &body = e.regions.at(0);
  TILE_ASSERT(body.args.size() == 2, "scan region takes two arguments");
  const std::vector<T> &x = m.in(e, 0).*field;
  std::vector<T> &r = m.out(e).*field;
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t in = 0; in < v.inner; ++in) {
      int64_t base = o * v.len * v.inner + in, prev = -1;
      for (int64_t t = 0; t < v.len; ++t) {
        int64_t at = base + (reverse ? v.len - 1 - t : t) * v.inner;
        r[at] = prev < 0 ? x[at] : combine(m, body, field, r[prev], x[at]);
        prev = at;
      }
    }
}

} // namespace

// scan %x {axis, reverse} { ^(%acc, %x): ... yield %c }
void evalScan(Machine &m, ExecOp &e) {
  int64_t axis = e.op->intAttr("axis");
  auto rev = e.op->attrs.find("reverse");
  bool reverse = rev != e.op->attrs.end() && std::get_if<bool>(&rev->second) && std::get<bool>(rev->second);
  ScanView v = viewOf(m, e, axis);
  if (m.inInfo(e, 0).isFloat())
    scanAll<double>(m, e, &Slot::f, v, reverse);
  else
    scanAll<int64_t>(m, e, &Slot::i, v, reverse);
}

} // namespace tile::interp::detail
