// Machine.h - internal state of one interpreter run: the execution plan (the
// function's ops with operands resolved to dense value slots), the value
// slots themselves, and the numeric helpers every op evaluator shares.
//
// Values: every ir::Value gets a slot number once per run. A slot holds the
// flat row-major elements of the value: `f` for float element types (each
// element already rounded to its type), `i` for everything else (ints
// sign/zero-extended from their width as tile::wrapToIntType leaves them, u64
// as its bits, i1 as 0/1, pointers as host addresses). Slots keep their
// capacity between loop iterations, so steady-state loops do not allocate.
#pragma once

#include "interp/Interpreter.h"

#include <cmath>
#include <cstring>
#include <cstdint>
#include <string>
#include <vector>

namespace tile::interp::detail {

struct Slot {
  std::vector<int64_t> i;
  std::vector<double> f;
};

/// Static facts about a slot, taken from its ir::Value's type.
struct SlotInfo {
  ElemType elem;
  int64_t n = 1;                              ///< element count (1 for scalars)
  const std::vector<int64_t> *shape = nullptr;
  bool isFloat() const { return elem.isFloat(); }
};

class Machine;
struct ExecOp;
using EvalFn = void (*)(Machine &, ExecOp &);

struct ExecBlock {
  std::vector<int> args;
  std::vector<ExecOp> ops;
  /// Operands of the terminator (yield / condition), empty when none.
  const std::vector<int> &terminatorOperands() const;
};

struct ExecOp {
  const ir::Op *op = nullptr;
  EvalFn eval = nullptr;
  std::vector<int> in, out;
  std::vector<ExecBlock> regions;
  /// Precomputed element gather for broadcast/permute (output -> input index).
  std::vector<int64_t> gather;
  bool warned = false;         ///< a once-per-op-per-run warning was issued
  bool checkOverflow = false;  ///< i32 arithmetic feeding an addptr offset
  /// Loads, stores, atomics: the kernel parameter every lane's pointer is
  /// derived from (through addptr, splat, broadcast, shape ops, selects
  /// and loop-carried values), or -1 when that is not one parameter.
  int origin = -1;
};

class Machine {
public:
  Machine(const ir::Function &fn, const Options &opts, Grid grid)
      : fn(fn), opts(opts), grid(grid) {}

  const ir::Function &fn;
  const Options &opts;
  Grid grid;
  int64_t pid[3] = {0, 0, 0};
  std::vector<Slot> slots;
  std::vector<SlotInfo> info;
  ExecBlock entry;

  /// The last memory region a lane hit: [cacheBase, cacheEnd).
  uint64_t cacheBase = 0, cacheEnd = 0;
  /// Per kernel parameter: the registered tensor its pointer argument
  /// points into (bytes 0 when none, or not a pointer). An access whose op
  /// has that parameter as its origin is in bounds only inside it.
  std::vector<MemoryRegion> paramRegion;

  const Slot &in(const ExecOp &e, int k) const { return slots[e.in[k]]; }
  const SlotInfo &inInfo(const ExecOp &e, int k) const { return info[e.in[k]]; }
  const SlotInfo &outInfo(const ExecOp &e, int k = 0) const { return info[e.out[k]]; }
  /// The k-th result slot, resized to its element count (ints or floats).
  Slot &out(const ExecOp &e, int k = 0) {
    Slot &s = slots[e.out[k]];
    const SlotInfo &si = info[e.out[k]];
    if (si.isFloat())
      s.f.resize(si.n);
    else
      s.i.resize(si.n);
    return s;
  }

  /// "program 3, 0, 0"
  std::string where() const;
  /// Sends a formatted warning (located at the op) to opts.warn or stderr.
  void warn(const ir::Op &op, const std::string &msg) const;
  /// Throws a CompileError at the op.
  [[noreturn]] void error(const ir::Op &op, const std::string &msg) const;
  /// Stops the run (a located error at loc) if it was interrupted or is past
  /// its deadline; called between programs and at loop back-edges.
  void poll(Location loc) const {
    if ((opts.interrupt && opts.interrupt->load(std::memory_order_relaxed)) || opts.deadline) stopIfAsked(loc);
  }
  void stopIfAsked(Location loc) const;
  void execBlock(ExecBlock &b);
};

// ---- numeric helpers -------------------------------------------------------

/// Rounds to a float type: f32 through float (inlined: hot), f16/bf16 through
/// tile::roundToFloatType (via float, round to nearest even).
inline double roundFloat(double v, Scalar s) {
  if (s == Scalar::F64)
    return v;
  if (s == Scalar::F32)
    return static_cast<float>(v);
  return roundToFloatType(v, s);
}

/// Pointers and i1 compare and divide as unsigned, like uN.
inline bool isUnsignedLike(ElemType e) { return e.isPtr || !isSigned(e.scalar); }

/// The pattern an out-of-range int load yields: 0x5A5A... truncated.
inline int64_t poisonInt(Scalar s) { return wrapToIntType(static_cast<int64_t>(0x5A5A5A5A5A5A5A5AULL), s); }

/// The raw bits of one element (for bitcast and hex printing).
uint64_t elementBits(const Slot &s, const SlotInfo &si, int64_t k);
/// Stores raw bits as one element of the given type.
void setElementBits(Slot &s, ElemType e, int64_t k, uint64_t bits);

// ---- evaluators (one per op kind, generated from Ops.def) -----------------

#define TILE_OP(Kind, ...) void eval##Kind(Machine &m, ExecOp &e);
#include "ir/Ops.def"

/// Builds the execution plan of m.fn into m.entry, m.slots and m.info.
void buildPlan(Machine &m);

} // namespace tile::interp::detail
