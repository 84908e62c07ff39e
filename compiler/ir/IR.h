// IR.h - the tile IR: SSA values typed as scalars or tensors, ops with
// attributes and structured regions, functions.
//
// Ownership: a Function owns its body Region; a Region owns its Blocks (the
// tile IR uses exactly one block per region); a Block owns its arguments and
// ops; an Op owns its results and regions. Values are referenced by raw
// pointer. There are no use lists: passes that rewrite uses collect a
// replacement map and apply it with replaceUses().
#pragma once

#include "support/DType.h"
#include "support/Diagnostics.h"

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace tile::ir {

enum class OpKind : uint8_t {
#define TILE_OP(Kind, ...) Kind,
#include "ir/Ops.def"
};
const char *opName(OpKind k);
int opNumRegions(OpKind k);

/// Op traits, declared per op in Ops.def (which says what each means).
namespace trait {
enum : uint32_t { Elementwise = 1, SideEffects = 2, ReadsMemory = 4, Terminator = 8, Commutative = 16 };
}
/// The bitwise or of k's traits.
uint32_t opTraits(OpKind k);
inline bool hasTrait(OpKind k, uint32_t t) { return (opTraits(k) & t) != 0; }
inline bool isElementwise(OpKind k) { return hasTrait(k, trait::Elementwise); }
bool parseOpName(std::string_view name, OpKind &out);

/// Distributed layout of a tensor over a program's threads. Added by the GPU
/// back end's layout pass; null everywhere before it. The interpreter
/// ignores layouts.
struct Layout {
  virtual ~Layout() = default;
  virtual std::string str() const = 0;          ///< printed in the type: "#blocked<...>"
  virtual bool equals(const Layout &o) const = 0;
};

/// A scalar (empty shape) or a tensor with a static power-of-two shape.
struct Type {
  ElemType elem;
  std::vector<int64_t> shape;
  std::shared_ptr<const Layout> layout;

  static Type scalar(ElemType e) { return {e, {}, nullptr}; }
  static Type scalar(Scalar s) { return {ElemType::of(s), {}, nullptr}; }
  static Type tensor(ElemType e, std::vector<int64_t> shape) { return {e, std::move(shape), nullptr}; }
  bool isTensor() const { return !shape.empty(); }
  int rank() const { return (int)shape.size(); }
  int64_t numElements() const;
  Type withElem(ElemType e) const { return {e, shape, layout}; }
  Type withShape(std::vector<int64_t> s) const { return {elem, std::move(s), nullptr}; }
  bool operator==(const Type &o) const;
  bool operator!=(const Type &o) const { return !(*this == o); }
  /// "i32", "ptr<f32>", "tensor<16x16xf32>", "tensor<16xptr<f16>>"
  std::string str() const;
};

class Op;
class Block;
class Region;

class Value {
public:
  Value(Type t, Op *def, Block *owner, unsigned index)
      : type(std::move(t)), def(def), owner(owner), index(index) {}
  Type type;
  Op *def;          ///< defining op, or null for a block argument
  Block *owner;     ///< block of a block argument, or null for op results
  unsigned index;   ///< result number / argument number
  bool isBlockArg() const { return def == nullptr; }
};

/// Attribute values. Integer lists carry shapes, orders, axes.
using Attr = std::variant<int64_t, double, bool, std::string, std::vector<int64_t>>;

class Block {
public:
  explicit Block(Region *parent) : parent(parent) {}
  Region *parent;
  std::vector<std::unique_ptr<Value>> args;
  std::list<std::unique_ptr<Op>> ops;

  Value *addArg(Type t);
  Op *terminator() const { return ops.empty() ? nullptr : ops.back().get(); }
};

class Region {
public:
  explicit Region(Op *parent) : parent(parent), block(std::make_unique<Block>(this)) {}
  Op *parent;   ///< null for a function body
  std::unique_ptr<Block> block;
};

class Op {
public:
  Op(OpKind kind, Location loc) : kind(kind), loc(loc) {}
  OpKind kind;
  Location loc;
  Block *parent = nullptr;
  std::vector<Value *> operands;
  std::vector<std::unique_ptr<Value>> results;
  std::map<std::string, Attr> attrs;   ///< ordered: printing is stable
  std::vector<std::unique_ptr<Region>> regions;

  Value *result(unsigned i = 0) const { return results.at(i).get(); }
  Value *addResult(Type t);
  Region *addRegion();

  bool hasAttr(const std::string &name) const { return attrs.count(name) != 0; }
  int64_t intAttr(const std::string &name) const;
  double floatAttr(const std::string &name) const;
  bool boolAttr(const std::string &name) const;
  const std::string &strAttr(const std::string &name) const;
  const std::vector<int64_t> &intsAttr(const std::string &name) const;

  /// Ops with side effects or regions are never removed by DCE/CSE.
  bool hasSideEffects() const;
};

/// A specialized kernel: parameters are the body block's arguments (scalars
/// and pointers only; constexprs have been substituted by sema).
class Function {
public:
  Function(std::string name, Location loc)
      : name(std::move(name)), loc(loc), body(std::make_unique<Region>(nullptr)) {}
  std::string name;
  Location loc;
  std::vector<std::string> paramNames;   ///< one per body argument
  /// Per body argument: a power of two the integer value or the pointer's
  /// byte address is known to be divisible by (Triton's `:16`
  /// specialization); empty means 1 for all.
  std::vector<int64_t> paramDivisibility;
  std::unique_ptr<Region> body;
  Block &entry() const { return *body->block; }
};

class Module {
public:
  std::vector<std::unique_ptr<Function>> functions;
  Function *lookup(const std::string &name) const;
};

/// Visits every op in pre-order (an op before the ops of its regions).
template <typename F> void walk(Block &b, F &&f);
template <typename F> void walk(Function &fn, F &&f) { walk(fn.entry(), f); }
template <typename F> void walk(Block &b, F &&f) {
  for (auto &op : b.ops) {
    f(*op);
    for (auto &r : op->regions)
      walk(*r->block, f);
  }
}

/// Rewrites every operand use of a key of `map` inside fn to its value
/// (following chains a->b->c).
void replaceUses(Function &fn, const std::map<Value *, Value *> &map);

/// Inserts ops at the end of a block (or before a given op) and checks the
/// invariants that are cheap to check. Used by sema, passes and tests.
class Builder {
public:
  explicit Builder(Block *b) : block_(b), before_(b->ops.end()) {}
  void setInsertionPointToEnd(Block *b) { block_ = b; before_ = b->ops.end(); }
  /// Inserts before `op` from now on.
  void setInsertionPoint(Op *op);
  Block *block() const { return block_; }
  Location loc;   ///< location given to created ops

  /// Generic creation: kind, operands, result types, attributes.
  Op *create(OpKind kind, std::vector<Value *> operands, std::vector<Type> resultTypes,
             std::map<std::string, Attr> attrs = {});

  // Convenience helpers (result types inferred where unambiguous).
  Value *constantInt(int64_t v, Type t);
  Value *constantFloat(double v, Type t);
  Value *arange(int64_t start, int64_t end);
  Value *programId(int axis);
  Value *numPrograms(int axis);
  Value *splat(Value *x, std::vector<int64_t> shape);
  Value *broadcast(Value *x, std::vector<int64_t> shape);
  Value *expandDims(Value *x, int axis);
  Value *reshape(Value *x, std::vector<int64_t> shape);
  Value *permute(Value *x, std::vector<int64_t> order);
  Value *cast(Value *x, ElemType to);
  Value *bitcast(Value *x, ElemType to);
  Value *binary(OpKind k, Value *a, Value *b);       ///< add..max: same types
  Value *cmp(const std::string &pred, Value *a, Value *b);
  Value *select(Value *c, Value *a, Value *b);
  Value *addptr(Value *p, Value *off);
  Value *unary(OpKind k, Value *x);                  ///< neg..ceil
  Value *fma(Value *a, Value *b, Value *c);
  Value *load(Value *ptr, Value *mask = nullptr, Value *other = nullptr);
  void store(Value *ptr, Value *val, Value *mask = nullptr);
  Value *dot(Value *a, Value *b, Value *acc, const std::string &inputPrecision);
  Value *reduce(Value *x, const std::string &kind, int axis, ElemType resultElem);
  void yield(std::vector<Value *> vals);

private:
  Block *block_;
  std::list<std::unique_ptr<Op>>::iterator before_;
};

} // namespace tile::ir
