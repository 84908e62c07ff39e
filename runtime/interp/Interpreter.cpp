// Interpreter.cpp - the interpreter's entry point (run), the memory map, and
// the structured control flow ops (for, while, if) that drive block
// execution.
#include "interp/Machine.h"

#include <fmt/format.h>

#include <cstdio>
#include <limits>

namespace tile::interp {

// ---- MemoryMap --------------------------------------------------------------

MemoryMap &MemoryMap::global() {
  static MemoryMap map;
  return map;
}

void MemoryMap::add(const void *base, uint64_t bytes, std::string name) {
  std::lock_guard lock(mu_);
  uint64_t b = reinterpret_cast<uint64_t>(base);
  regions_[b] = MemoryRegion{b, bytes, std::move(name)};
}

void MemoryMap::rename(const void *base, std::string name) {
  std::lock_guard lock(mu_);
  if (auto it = regions_.find(reinterpret_cast<uint64_t>(base)); it != regions_.end())
    it->second.name = std::move(name);
}

void MemoryMap::remove(const void *base) {
  std::lock_guard lock(mu_);
  regions_.erase(reinterpret_cast<uint64_t>(base));
}

bool MemoryMap::find(uint64_t addr, uint64_t size, MemoryRegion &out) const {
  std::lock_guard lock(mu_);
  auto it = regions_.upper_bound(addr);
  if (it == regions_.begin())
    return false;
  --it;
  const MemoryRegion &r = it->second;
  // addr >= r.base here; compare sizes to avoid overflow in addr + size.
  if (size > r.bytes || addr - r.base > r.bytes - size)
    return false;
  out = r;
  return true;
}

bool MemoryMap::nearest(uint64_t addr, MemoryRegion &out) const {
  std::lock_guard lock(mu_);
  auto it = regions_.upper_bound(addr);
  if (it == regions_.begin())
    return false;
  out = std::prev(it)->second;
  return true;
}

namespace detail {

// ---- Machine ------------------------------------------------------------------

std::string Machine::where() const { return fmt::format("program {}, {}, {}", pid[0], pid[1], pid[2]); }

void Machine::warn(const ir::Op &op, const std::string &msg) const {
  std::string text = formatDiagnostic(Severity::Warning, op.loc, msg);
  if (opts.warn) {
    opts.warn(text);
    return;
  }
  std::fputs(text.c_str(), stderr);
}

void Machine::error(const ir::Op &op, const std::string &msg) const { fail(op.loc, msg); }

void Machine::stopIfAsked(Location loc) const {
  if (opts.interrupt && opts.interrupt->load())
    fail(loc, fmt::format("interrupted: kernel '{}' ({})", fn.name, where()));
  if (opts.deadline && opts.deadline->passed())
    fail(loc, fmt::format("timed out after {} s: kernel '{}' ({})", opts.deadline->seconds, fn.name, where()));
}

void Machine::execBlock(ExecBlock &b) {
  for (ExecOp &e : b.ops)
    e.eval(*this, e);
}

const std::vector<int> &ExecBlock::terminatorOperands() const {
  static const std::vector<int> kNone;
  if (ops.empty())
    return kNone;
  ir::OpKind k = ops.back().op->kind;
  if (k != ir::OpKind::Yield && k != ir::OpKind::Condition)
    return kNone;
  return ops.back().in;
}

namespace {

void copySlot(Machine &m, int dst, int src) {
  if (dst == src)
    return;
  if (m.info[dst].isFloat())
    m.slots[dst].f = m.slots[src].f;
  else
    m.slots[dst].i = m.slots[src].i;
}

/// Copies `from` (slot ids) into `to`; the lists must match one to one.
void copySlots(Machine &m, const ExecOp &e, const std::vector<int> &to, const std::vector<int> &from,
               size_t fromOffset = 0) {
  TILE_ASSERT(from.size() >= fromOffset && to.size() == from.size() - fromOffset,
              fmt::format("'{}' region passes {} values, expected {}", ir::opName(e.op->kind),
                          from.size() - fromOffset, to.size()));
  for (size_t k = 0; k < to.size(); ++k)
    copySlot(m, to[k], from[k + fromOffset]);
}

bool scalarTrue(const Machine &m, int slot) {
  const SlotInfo &si = m.info[slot];
  if (si.isFloat())
    return m.slots[slot].f.at(0) != 0.0;
  return m.slots[slot].i.at(0) != 0;
}

/// iv < ub (or > for a negative step) in the induction variable's signedness.
bool forContinues(ElemType t, int64_t iv, int64_t ub, bool up) {
  if (isUnsignedLike(t))
    return up ? uint64_t(iv) < uint64_t(ub) : uint64_t(iv) > uint64_t(ub);
  return up ? iv < ub : iv > ub;
}

/// iv + step; false when it leaves the type's range (the loop then ends:
/// iv would have passed ub, and wrapping around would never terminate).
bool forStep(ElemType t, int64_t iv, int64_t step, int64_t &next) {
  if (isUnsignedLike(t)) {
    uint64_t u = uint64_t(iv) + uint64_t(step);
    if (step > 0 ? u < uint64_t(iv) : u > uint64_t(iv))
      return false;
    next = static_cast<int64_t>(u);
  } else if (__builtin_add_overflow(iv, step, &next)) {
    return false;
  }
  return wrapToIntType(next, t.scalar) == next;
}

} // namespace

// ---- control flow ---------------------------------------------------------------

// for %lb, %ub, %step, %init... { ^(%iv, %iter...) ... yield }: the results
// slots double as the loop-carried state between iterations.
void evalFor(Machine &m, ExecOp &e) {
  ElemType ivType = m.inInfo(e, 0).elem;
  int64_t lb = m.in(e, 0).i.at(0), ub = m.in(e, 1).i.at(0), step = m.in(e, 2).i.at(0);
  if (step == 0)
    m.error(*e.op, fmt::format("for loop step is zero in kernel '{}' ({})", m.fn.name, m.where()));
  ExecBlock &body = e.regions.at(0);
  TILE_ASSERT(body.args.size() == e.out.size() + 1, "for body takes the iv and one arg per result");
  copySlots(m, e, e.out, e.in, 3);
  bool up = step > 0;
  for (int64_t iv = lb; forContinues(ivType, iv, ub, up);) {
    m.slots[body.args[0]].i.assign(1, iv);
    for (size_t k = 0; k < e.out.size(); ++k)
      copySlot(m, body.args[k + 1], e.out[k]);
    m.execBlock(body);
    copySlots(m, e, e.out, body.terminatorOperands());
    m.poll(e.op->loc);
    if (!forStep(ivType, iv, step, iv))
      break;
  }
}

void evalWhile(Machine &m, ExecOp &e) {
  ExecBlock &cond = e.regions.at(0), &body = e.regions.at(1);
  copySlots(m, e, e.out, e.in);
  for (;;) {
    copySlots(m, e, cond.args, e.out);
    m.execBlock(cond);
    const std::vector<int> &c = cond.terminatorOperands();
    TILE_ASSERT(!c.empty(), "while condition region lacks its condition op");
    copySlots(m, e, e.out, c, 1);
    if (!scalarTrue(m, c[0]))
      return;
    copySlots(m, e, body.args, e.out);
    m.execBlock(body);
    copySlots(m, e, e.out, body.terminatorOperands());
    m.poll(e.op->loc);
  }
}

void evalIf(Machine &m, ExecOp &e) {
  ExecBlock &branch = e.regions.at(scalarTrue(m, e.in.at(0)) ? 0 : 1);
  m.execBlock(branch);
  copySlots(m, e, e.out, branch.terminatorOperands());
}

// Terminators: their parent op reads their operands.
void evalYield(Machine &, ExecOp &) {}
void evalCondition(Machine &, ExecOp &) {}

} // namespace detail

// ---- run ---------------------------------------------------------------------------

namespace {

void setArg(detail::Machine &m, int slot, const ScalarArg &a, size_t index) {
  const detail::SlotInfo &si = m.info[slot];
  const std::string &name = index < m.fn.paramNames.size() ? m.fn.paramNames[index] : std::string("?");
  if (si.elem.isPtr != a.type.isPtr)
    fail(m.fn.loc, fmt::format("kernel '{}' argument {} ('{}') must be {}, got {}", m.fn.name, index, name,
                               si.elem.str(), a.type.str()));
  // Scalars are converted to the parameter's type (the host may pass an i64
  // for an i32 parameter); pointers keep their address.
  if (si.isFloat()) {
    double v = a.type.isFloat() ? a.f : static_cast<double>(a.i);
    m.slots[slot].f.assign(1, detail::roundFloat(v, si.elem.scalar));
    return;
  }
  int64_t v = a.type.isFloat() ? static_cast<int64_t>(a.f) : a.i;
  m.slots[slot].i.assign(1, si.elem.isPtr ? v : wrapToIntType(v, si.elem.scalar));
}

} // namespace

void run(const ir::Function &fn, const Grid &grid, const std::vector<ScalarArg> &args, const Options &opts,
         std::span<const MemoryRegion> views) {
  if (grid.x < 0 || grid.y < 0 || grid.z < 0)
    fail(fn.loc, fmt::format("kernel '{}' launched with a negative grid ({}, {}, {})", fn.name, grid.x, grid.y,
                             grid.z));
  detail::Machine m(fn, opts, grid);
  detail::buildPlan(m);
  if (args.size() != m.entry.args.size())
    fail(fn.loc, fmt::format("kernel '{}' takes {} arguments, got {}", fn.name, m.entry.args.size(), args.size()));
  m.paramRegion.assign(args.size(), MemoryRegion{});
  for (size_t k = 0; k < args.size(); ++k) {
    setArg(m, m.entry.args[k], args[k], k);
    if (args[k].type.isPtr && !MemoryMap::global().find(static_cast<uint64_t>(args[k].i), 1, m.paramRegion[k]))
      m.paramRegion[k] = MemoryRegion{};
    if (args[k].type.isPtr && k < views.size() && views[k].bytes) m.paramRegion[k] = views[k];
  }
  // An empty grid launches nothing, as in Triton.
  for (int64_t z = 0; z < grid.z; ++z)
    for (int64_t y = 0; y < grid.y; ++y)
      for (int64_t x = 0; x < grid.x; ++x) {
        m.pid[0] = x, m.pid[1] = y, m.pid[2] = z;
        m.poll(fn.loc);
        m.execBlock(m.entry);
      }
}

} // namespace tile::interp
