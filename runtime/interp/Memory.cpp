// Memory.cpp - the interpreter's load, store and atomics: every accessed
// lane is checked for alignment and against the MemoryMap before it touches
// host memory; masked-off lanes touch nothing and are never checked. An
// atomic applies its lanes one after another in row-major order (programs
// run one at a time, so each read-modify-write is trivially atomic).
#include "interp/Machine.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace tile::interp::detail {

namespace {

/// The tensor op e's pointers must stay inside (provenance: the one its
/// kernel parameter points into), or null when it may be any registered one.
const MemoryRegion *originRegion(const Machine &m, const ExecOp &e) {
  if (e.origin < 0 || static_cast<size_t>(e.origin) >= m.paramRegion.size()) return nullptr;
  const MemoryRegion &r = m.paramRegion[static_cast<size_t>(e.origin)];
  return r.bytes ? &r : nullptr;
}

/// True when [addr, addr+size) lies inside the tensor e's pointers derive
/// from, or, when that is not known, in any registered region (the last
/// region found is cached: nearly every lane of a kernel hits the same
/// tensor).
bool insideRegion(const MemoryRegion &r, uint64_t addr, uint64_t size) {
  return addr >= r.base && r.bytes >= size && addr - r.base <= r.bytes - size;
}

bool inBounds(Machine &m, const ExecOp &e, uint64_t addr, uint64_t size) {
  if (const MemoryRegion *own = originRegion(m, e))
    return insideRegion(*own, addr, size);
  uint64_t cached = m.cacheEnd - m.cacheBase;
  if (addr >= m.cacheBase && cached >= size && addr - m.cacheBase <= cached - size)
    return true;
  MemoryRegion r;
  if (!MemoryMap::global().find(addr, size, r))
    return false;
  m.cacheBase = r.base, m.cacheEnd = r.base + r.bytes;
  return true;
}

/// The registered region with the lowest base above addr, if any.
bool regionAbove(uint64_t addr, MemoryRegion &out) {
  bool found = false;
  MemoryRegion r;
  uint64_t probe = std::numeric_limits<uint64_t>::max();
  while (MemoryMap::global().nearest(probe, r) && r.base > addr) {
    out = r, found = true;
    if (r.base == 0)
      break;
    probe = r.base - 1;
  }
  return found;
}

/// How far from its nearest tensor an out-of-range access lies:
/// "address is 7 elements past the end of NAME (element offset 70 of 64)".
/// Element N past the end follows C++'s "one past the end" (offset == count
/// is 1 past the end). An address more than a whole tensor (and at least 1
/// KiB) away from every tensor "does not point into any tensor".
std::string describeAddress(uint64_t addr, uint64_t size) {
  MemoryRegion below, above;
  bool hasBelow = MemoryMap::global().nearest(addr, below);
  bool hasAbove = regionAbove(addr, above);
  uint64_t pastEnd = hasBelow ? addr + size - (below.base + below.bytes) : ~0ULL;
  uint64_t beforeStart = hasAbove ? above.base - addr : ~0ULL;
  auto near = [](uint64_t dist, const MemoryRegion &r) { return dist <= std::max<uint64_t>(r.bytes, 1024); };
  if (hasBelow && pastEnd <= beforeStart && near(pastEnd, below)) {
    int64_t offset = static_cast<int64_t>((addr - below.base) / size);
    int64_t count = static_cast<int64_t>(below.bytes / size);
    return fmt::format("address is {} elements past the end of {} (element offset {} of {})",
                       std::max<int64_t>(offset - count + 1, 1), below.name, offset, count);
  }
  if (hasAbove && near(beforeStart, above)) {
    uint64_t n = (beforeStart + size - 1) / size;
    return fmt::format("address is {} elements before the start of {} (element offset -{})", n, above.name, n);
  }
  return fmt::format("address 0x{:x} does not point into any tensor", addr);
}

/// describeAddress for op e: relative to the tensor its pointers derive
/// from, by the parameter's name, and the tensor it lands in if another.
std::string describeAccess(const Machine &m, const ExecOp &e, uint64_t addr, uint64_t size) {
  const MemoryRegion *own = originRegion(m, e);
  if (!own) return describeAddress(addr, size);
  size_t p = static_cast<size_t>(e.origin);
  std::string param = p < m.fn.paramNames.size() ? fmt::format("'{}'", m.fn.paramNames[p]) : fmt::format("{}", p);
  MemoryRegion other;
  bool landsElsewhere = MemoryMap::global().find(addr, size, other);
  uint64_t dist = addr >= own->base ? addr + size - (own->base + own->bytes) : own->base - addr;
  if (!landsElsewhere && dist > std::max<uint64_t>(own->bytes, 1024))
    return fmt::format("address 0x{:x} does not point into any tensor (its pointer derives from parameter {}, "
                       "which points into {})",
                       addr, param, own->name);
  std::string where;
  if (addr >= own->base) {
    int64_t offset = static_cast<int64_t>((addr - own->base) / size), count = static_cast<int64_t>(own->bytes / size);
    where = fmt::format("address is {} elements past the end of {} (element offset {} of {})",
                        std::max<int64_t>(offset - count + 1, 1), own->name, offset, count);
  } else {
    uint64_t n = (own->base - addr + size - 1) / size;
    where = fmt::format("address is {} elements before the start of {} (element offset -{})", n, own->name, n);
  }
  std::string lands = landsElsewhere ? fmt::format("; it lands inside {}", other.name) : "";
  return fmt::format("{}, which parameter {} points into{}", where, param, lands);
}

const char *accessName(const ExecOp &e) {
  switch (e.op->kind) {
  case ir::OpKind::Store: return "store";
  case ir::OpKind::AtomicRMW:
  case ir::OpKind::AtomicCas: return "atomic";
  default: return "load";
  }
}

inline void checkAligned(const Machine &m, const ExecOp &e, uint64_t addr, uint64_t size) {
  if ((addr & (size - 1)) == 0)   // (element sizes are powers of two; no division per element)
    return;
  m.error(*e.op, fmt::format("misaligned {} in kernel '{}' ({}): address 0x{:x} is not a multiple of the "
                             "element size ({} bytes)",
                             accessName(e), m.fn.name, m.where(), addr, size));
}

/// An out-of-range lane of a load: an error in strict mode, else a warning
/// (once per op per run) and the caller substitutes NaN or poison.
void badLoad(Machine &m, ExecOp &e, uint64_t addr, uint64_t size) {
  if (m.opts.strict)
    m.error(*e.op, fmt::format("out-of-bounds load in kernel '{}' ({}): {}", m.fn.name, m.where(),
                               describeAccess(m, e, addr, size)));
  if (e.warned)
    return;
  e.warned = true;
  const SlotInfo &out = m.outInfo(e);
  std::string poison = "NaN";
  if (!out.isFloat()) {
    uint64_t bits = static_cast<uint64_t>(poisonInt(out.elem.scalar));
    int width = bitWidth(out.elem.scalar);
    poison = fmt::format("poison (0x{:x})", width == 64 ? bits : bits & ((1ULL << width) - 1));
  }
  m.warn(*e.op, fmt::format("out-of-bounds load in kernel '{}' (first at {}): {}; the lanes read {}", m.fn.name,
                            m.where(), describeAccess(m, e, addr, size), poison));
}

template <typename T> T readRaw(uint64_t addr) {
  T v;
  std::memcpy(&v, reinterpret_cast<const void *>(addr), sizeof(T));
  return v;
}

template <typename T> void writeRaw(uint64_t addr, T v) {
  std::memcpy(reinterpret_cast<void *>(addr), &v, sizeof(T));
}

/// One element of type s at addr, as the slot stores it.
double readFloat(uint64_t addr, Scalar s) {
  switch (s) {
  case Scalar::F16: return halfBitsToFloat(readRaw<uint16_t>(addr));
  case Scalar::BF16: return bf16BitsToFloat(readRaw<uint16_t>(addr));
  case Scalar::F32: return readRaw<float>(addr);
  case Scalar::F8E4M3: case Scalar::F8E5M2: return fp8BitsToDouble(readRaw<uint8_t>(addr), s);
  default: return readRaw<double>(addr);
  }
}

int64_t readInt(uint64_t addr, Scalar s) {
  switch (s) {
  case Scalar::I1: return readRaw<uint8_t>(addr) != 0;
  case Scalar::I8: return readRaw<int8_t>(addr);
  case Scalar::I16: return readRaw<int16_t>(addr);
  case Scalar::I32: return readRaw<int32_t>(addr);
  case Scalar::U8: return readRaw<uint8_t>(addr);
  case Scalar::U16: return readRaw<uint16_t>(addr);
  case Scalar::U32: return readRaw<uint32_t>(addr);
  default: return readRaw<int64_t>(addr); // i64, u64 (bits)
  }
}

// The value is already rounded/wrapped to s, so these narrowings are exact.
void writeFloat(uint64_t addr, Scalar s, double v) {
  switch (s) {
  case Scalar::F16: return writeRaw(addr, floatToHalfBits(static_cast<float>(v)));
  case Scalar::BF16: return writeRaw(addr, floatToBF16Bits(static_cast<float>(v)));
  case Scalar::F32: return writeRaw(addr, static_cast<float>(v));
  case Scalar::F8E4M3: case Scalar::F8E5M2: return writeRaw(addr, toFp8Bits(v, s));
  default: return writeRaw(addr, v);
  }
}

void writeInt(uint64_t addr, Scalar s, int64_t v) {
  switch (byteSize(s)) {
  case 1: return writeRaw(addr, static_cast<uint8_t>(v));
  case 2: return writeRaw(addr, static_cast<uint16_t>(v));
  case 4: return writeRaw(addr, static_cast<uint32_t>(v));
  default: return writeRaw(addr, v);
  }
}

/// Mask and `other` operands, with strides (0 repeats a one-element operand).
struct Lanes {
  const int64_t *mask = nullptr;
  int64_t maskStride = 0;
  int other = -1;
  int64_t otherStride = 0;
  bool active(int64_t k) const { return !mask || mask[k * maskStride] != 0; }
};

Lanes lanesOf(const Machine &m, const ExecOp &e, int maskIndex) {
  Lanes l;
  if (static_cast<int>(e.in.size()) > maskIndex) {
    l.mask = m.in(e, maskIndex).i.data();
    l.maskStride = m.inInfo(e, maskIndex).n == 1 ? 0 : 1;
  }
  if (static_cast<int>(e.in.size()) > maskIndex + 1) {
    l.other = e.in[maskIndex + 1];
    l.otherStride = m.info[l.other].n == 1 ? 0 : 1;
  }
  return l;
}

} // namespace

namespace {

/// evalLoad's loop for one element type: `read(addr)` gives the slot's
/// value (double or int64); masked-off lanes take `other` (or 0), lanes out
/// of bounds NaN or poison after badLoad. The tensor the pointers derive
/// from is looked up once.
template <bool IsFloat, typename Read>
void loadLanes(Machine &m, ExecOp &e, const int64_t *p, int64_t sp, Scalar s, const Lanes &lanes, Read read) {
  const SlotInfo &out = m.outInfo(e);
  Slot &r = m.out(e);
  uint64_t size = byteSize(s);
  const Slot *other = lanes.other >= 0 ? &m.slots[lanes.other] : nullptr;
  const MemoryRegion *own = originRegion(m, e);
  for (int64_t k = 0; k < out.n; ++k) {
    if (!lanes.active(k)) {
      if constexpr (IsFloat)
        r.f[k] = other ? other->f[k * lanes.otherStride] : 0.0;
      else
        r.i[k] = other ? other->i[k * lanes.otherStride] : 0;
      continue;
    }
    uint64_t addr = static_cast<uint64_t>(p[k * sp]);
    checkAligned(m, e, addr, size);
    if (own ? !insideRegion(*own, addr, size) : !inBounds(m, e, addr, size)) {
      badLoad(m, e, addr, size);
      if constexpr (IsFloat)
        r.f[k] = std::numeric_limits<double>::quiet_NaN();
      else
        r.i[k] = poisonInt(s);
      continue;
    }
    if constexpr (IsFloat)
      r.f[k] = read(addr);
    else
      r.i[k] = read(addr);
  }
}

} // namespace

// load %ptr [, %mask [, %other]]: masked-off lanes give `other`, or 0 when
// there is none (the GPU leaves them undefined).
void evalLoad(Machine &m, ExecOp &e) {
  const SlotInfo &ptrInfo = m.inInfo(e, 0);
  if (!ptrInfo.elem.isPtr)
    m.error(*e.op, fmt::format("load needs a pointer, got {}", ptrInfo.elem.str()));
  const int64_t *p = m.in(e, 0).i.data();
  int64_t sp = ptrInfo.n == 1 ? 0 : 1;
  Scalar s = ptrInfo.elem.scalar;
  Lanes lanes = lanesOf(m, e, 1);
  // the common element types read without a switch per element
  switch (s) {
  case Scalar::F32: return loadLanes<true>(m, e, p, sp, s, lanes, [](uint64_t a) { return double(readRaw<float>(a)); });
  case Scalar::F16:
    return loadLanes<true>(m, e, p, sp, s, lanes, [](uint64_t a) { return double(halfBitsToFloat(readRaw<uint16_t>(a))); });
  case Scalar::I32:
    return loadLanes<false>(m, e, p, sp, s, lanes, [](uint64_t a) { return int64_t(readRaw<int32_t>(a)); });
  default:
    if (m.outInfo(e).isFloat()) return loadLanes<true>(m, e, p, sp, s, lanes, [s](uint64_t a) { return readFloat(a, s); });
    return loadLanes<false>(m, e, p, sp, s, lanes, [s](uint64_t a) { return readInt(a, s); });
  }
}

// store %ptr, %value [, %mask]: an out-of-range active lane is an error
// (lanes before it in the same op may already have been written).
void evalStore(Machine &m, ExecOp &e) {
  const SlotInfo &ptrInfo = m.inInfo(e, 0), &val = m.inInfo(e, 1);
  if (!ptrInfo.elem.isPtr)
    m.error(*e.op, fmt::format("store needs a pointer, got {}", ptrInfo.elem.str()));
  if (val.elem.isPtr || val.isFloat() != isFloat(ptrInfo.elem.scalar))
    m.error(*e.op, fmt::format("cannot store {} through {}", val.elem.str(), ptrInfo.elem.str()));
  const int64_t *p = m.in(e, 0).i.data();
  int64_t sp = ptrInfo.n == 1 ? 0 : 1, sv = val.n == 1 ? 0 : 1;
  Scalar s = ptrInfo.elem.scalar;
  uint64_t size = byteSize(s);
  Lanes lanes = lanesOf(m, e, 2);
  const Slot &v = m.in(e, 1);
  int64_t n = std::max(ptrInfo.n, val.n);
  for (int64_t k = 0; k < n; ++k) {
    if (!lanes.active(k))
      continue;
    uint64_t addr = static_cast<uint64_t>(p[k * sp]);
    checkAligned(m, e, addr, size);
    if (!inBounds(m, e, addr, size))
      m.error(*e.op, fmt::format("out-of-bounds store in kernel '{}' ({}): {}", m.fn.name, m.where(),
                                 describeAccess(m, e, addr, size)));
    if (val.isFloat())
      writeFloat(addr, s, v.f[k * sv]);
    else
      writeInt(addr, s, v.i[k * sv]);
  }
}

// ---- atomics -------------------------------------------------------------

namespace {

/// The bits of a float value (as the slot holds it) and back.
uint64_t floatToBits(double v, Scalar s) {
  if (s == Scalar::F16) return floatToHalfBits(static_cast<float>(v));
  if (s == Scalar::BF16) return floatToBF16Bits(static_cast<float>(v));
  if (s == Scalar::F32) {
    float f = static_cast<float>(v);
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
  }
  uint64_t b;
  std::memcpy(&b, &v, 8);
  return b;
}

double bitsToFloat(uint64_t b, Scalar s) {
  if (s == Scalar::F32) {
    uint32_t u = static_cast<uint32_t>(b);
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}

/// Float max/min as the GPU does it (Triton's scheme): a value with the
/// sign bit clear takes the signed integer max (min) of the bits, one with
/// it set the unsigned integer min (max).
double floatMaxMin(double old, double v, Scalar s, bool isMax) {
  int w = bitWidth(s);
  uint64_t ob = floatToBits(old, s), vb = floatToBits(v, s);
  bool neg = (vb >> (w - 1)) & 1;
  int64_t os = wrapToIntType(static_cast<int64_t>(ob), w == 32 ? Scalar::I32 : Scalar::I64);
  int64_t vs = wrapToIntType(static_cast<int64_t>(vb), w == 32 ? Scalar::I32 : Scalar::I64);
  uint64_t r;
  if (!neg)   // signed compare
    r = isMax ? (vs > os ? vb : ob) : (vs < os ? vb : ob);
  else        // max of a negative: unsigned min; min of a negative: unsigned max
    r = isMax ? std::min(ob, vb) : std::max(ob, vb);
  return bitsToFloat(r, s);
}

double floatRmw(const std::string &kind, double old, double v, Scalar s) {
  if (kind == "add") return roundFloat(old + v, s);
  if (kind == "xchg") return v;
  return floatMaxMin(old, v, s, kind == "max");
}

int64_t intRmw(const std::string &kind, int64_t old, int64_t v, Scalar s) {
  bool uns = !isSigned(s);
  int64_t r = v;   // xchg
  if (kind == "add") r = static_cast<int64_t>(uint64_t(old) + uint64_t(v));
  else if (kind == "and") r = old & v;
  else if (kind == "or") r = old | v;
  else if (kind == "xor") r = old ^ v;
  else if (kind == "max") r = uns ? (uint64_t(v) > uint64_t(old) ? v : old) : std::max(old, v);
  else if (kind == "min") r = uns ? (uint64_t(v) < uint64_t(old) ? v : old) : std::min(old, v);
  return wrapToIntType(r, s);
}

/// The address of active lane k, checked like a store's.
uint64_t atomicAddress(Machine &m, ExecOp &e, const int64_t *p, int64_t sp, int64_t k, uint64_t size) {
  uint64_t addr = static_cast<uint64_t>(p[k * sp]);
  checkAligned(m, e, addr, size);
  if (!inBounds(m, e, addr, size))
    m.error(*e.op, fmt::format("out-of-bounds {} in kernel '{}' ({}): {}", ir::opName(e.op->kind), m.fn.name,
                               m.where(), describeAccess(m, e, addr, size)));
  return addr;
}

} // namespace

// atomic_rmw %ptr, %val [, %mask] {kind}: old values out, masked-off lanes 0.
void evalAtomicRMW(Machine &m, ExecOp &e) {
  const SlotInfo &ptrInfo = m.inInfo(e, 0), &out = m.outInfo(e);
  if (!ptrInfo.elem.isPtr)
    m.error(*e.op, fmt::format("atomic needs a pointer, got {}", ptrInfo.elem.str()));
  const std::string &kind = e.op->strAttr("kind");
  const int64_t *p = m.in(e, 0).i.data();
  int64_t sp = ptrInfo.n == 1 ? 0 : 1, sv = m.inInfo(e, 1).n == 1 ? 0 : 1;
  Scalar s = ptrInfo.elem.scalar;
  uint64_t size = byteSize(s);
  Lanes lanes = lanesOf(m, e, 2);
  const Slot &v = m.in(e, 1);
  Slot &r = m.out(e);
  bool flt = out.isFloat();
  for (int64_t k = 0; k < out.n; ++k) {
    if (!lanes.active(k)) {
      if (flt) r.f[k] = 0.0;
      else r.i[k] = 0;
      continue;
    }
    uint64_t addr = atomicAddress(m, e, p, sp, k, size);
    if (flt) {
      double old = readFloat(addr, s);
      writeFloat(addr, s, floatRmw(kind, old, v.f[k * sv], s));
      r.f[k] = old;
    } else {
      int64_t old = readInt(addr, s);
      writeInt(addr, s, intRmw(kind, old, v.i[k * sv], s));
      r.i[k] = old;
    }
  }
}

// atomic_cas %ptr, %cmp, %val: per lane, old = *p; *p = val when old == cmp
// (bitwise, as atom.cas).
void evalAtomicCas(Machine &m, ExecOp &e) {
  const SlotInfo &ptrInfo = m.inInfo(e, 0), &out = m.outInfo(e);
  if (!ptrInfo.elem.isPtr)
    m.error(*e.op, fmt::format("atomic_cas needs a pointer, got {}", ptrInfo.elem.str()));
  const int64_t *p = m.in(e, 0).i.data();
  int64_t sp = ptrInfo.n == 1 ? 0 : 1, sc = m.inInfo(e, 1).n == 1 ? 0 : 1, sv = m.inInfo(e, 2).n == 1 ? 0 : 1;
  Scalar s = ptrInfo.elem.scalar;
  uint64_t size = byteSize(s);
  const Slot &c = m.in(e, 1), &v = m.in(e, 2);
  Slot &r = m.out(e);
  bool flt = out.isFloat();
  for (int64_t k = 0; k < out.n; ++k) {
    uint64_t addr = atomicAddress(m, e, p, sp, k, size);
    if (flt) {
      double old = readFloat(addr, s);
      if (floatToBits(old, s) == floatToBits(c.f[k * sc], s))
        writeFloat(addr, s, v.f[k * sv]);
      r.f[k] = old;
    } else {
      int64_t old = readInt(addr, s);
      if (old == c.i[k * sc])
        writeInt(addr, s, v.i[k * sv]);
      r.i[k] = old;
    }
  }
}

} // namespace tile::interp::detail
