// IR.cpp - tile IR core: op names, types, blocks, ops and the Builder.
#include "ir/IR.h"
#include "support/Diagnostics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace tile::ir {

namespace {
struct OpInfo {
  const char *name;
  int numRegions;
  uint32_t traits;
};
using namespace trait;
constexpr OpInfo kOpInfo[] = {
#define TILE_OP(Kind, Name, NumRegions, ...) {Name, NumRegions, 0 __VA_OPT__(|) __VA_ARGS__},
#include "ir/Ops.def"
};
} // namespace

const char *opName(OpKind k) { return kOpInfo[static_cast<int>(k)].name; }
int opNumRegions(OpKind k) { return kOpInfo[static_cast<int>(k)].numRegions; }
uint32_t opTraits(OpKind k) { return kOpInfo[static_cast<int>(k)].traits; }

bool parseOpName(std::string_view name, OpKind &out) {
  for (size_t i = 0; i < std::size(kOpInfo); ++i)
    if (name == kOpInfo[i].name) {
      out = static_cast<OpKind>(i);
      return true;
    }
  return false;
}

// ------------------------------------------------------------------ Type

int64_t Type::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

bool Type::operator==(const Type &o) const {
  if (elem != o.elem || shape != o.shape)
    return false;
  if (!layout || !o.layout)
    return !layout && !o.layout;
  return layout->equals(*o.layout);
}

std::string Type::str() const {
  if (!isTensor())
    return elem.str();
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += fmt::format("{}x", d);
  s += elem.str();
  if (layout)
    s += ", " + layout->str();
  return s + ">";
}

// ------------------------------------------------------------- Block/Op

Value *Block::addArg(Type t) {
  args.push_back(std::make_unique<Value>(std::move(t), nullptr, this, static_cast<unsigned>(args.size())));
  return args.back().get();
}

Value *Op::addResult(Type t) {
  results.push_back(std::make_unique<Value>(std::move(t), this, nullptr, static_cast<unsigned>(results.size())));
  return results.back().get();
}

Region *Op::addRegion() {
  regions.push_back(std::make_unique<Region>(this));
  return regions.back().get();
}

namespace {
template <typename T> const T &getAttr(const Op &op, const std::string &name) {
  auto it = op.attrs.find(name);
  TILE_ASSERT(it != op.attrs.end(), fmt::format("op '{}' has no attribute '{}'", opName(op.kind), name));
  const T *v = std::get_if<T>(&it->second);
  TILE_ASSERT(v, fmt::format("attribute '{}' of op '{}' has the wrong kind", name, opName(op.kind)));
  return *v;
}
} // namespace

int64_t Op::intAttr(const std::string &name) const { return getAttr<int64_t>(*this, name); }
double Op::floatAttr(const std::string &name) const { return getAttr<double>(*this, name); }
bool Op::boolAttr(const std::string &name) const { return getAttr<bool>(*this, name); }
const std::string &Op::strAttr(const std::string &name) const { return getAttr<std::string>(*this, name); }
const std::vector<int64_t> &Op::intsAttr(const std::string &name) const {
  return getAttr<std::vector<int64_t>>(*this, name);
}

bool Op::hasSideEffects() const {
  if (hasTrait(kind, trait::SideEffects | trait::Terminator))
    return true;
  if (kind == OpKind::InlineAsm)   // tl.inline_asm_elementwise(..., is_pure=False)
    return !(hasAttr("pure") && boolAttr("pure"));
  for (const auto &r : regions)
    for (const auto &op : r->block->ops)
      if (!hasTrait(op->kind, trait::Terminator) && op->hasSideEffects())
        return true;
  // A while loop may not terminate: keep it even when its results are unused.
  return kind == OpKind::While;
}

Function *Module::lookup(const std::string &name) const {
  for (const auto &f : functions)
    if (f->name == name)
      return f.get();
  return nullptr;
}

void replaceUses(Function &fn, const std::map<Value *, Value *> &map) {
  if (map.empty())
    return;
  auto resolve = [&](Value *v) {
    for (int guard = 0; guard < 1 << 20; ++guard) {
      auto it = map.find(v);
      if (it == map.end())
        return v;
      v = it->second;
    }
    TILE_ASSERT(false, "cycle in value replacement map");
    return v;
  };
  walk(fn, [&](Op &op) {
    for (Value *&v : op.operands)
      v = resolve(v);
  });
}

// --------------------------------------------------------------- Builder

void Builder::setInsertionPoint(Op *op) {
  block_ = op->parent;
  before_ = std::find_if(block_->ops.begin(), block_->ops.end(),
                         [&](const std::unique_ptr<Op> &o) { return o.get() == op; });
  TILE_ASSERT(before_ != block_->ops.end(), "insertion point op is not in its parent block");
}

Op *Builder::create(OpKind kind, std::vector<Value *> operands, std::vector<Type> resultTypes,
                    std::map<std::string, Attr> attrs) {
  auto op = std::make_unique<Op>(kind, loc);
  for (Value *v : operands)
    TILE_ASSERT(v, fmt::format("null operand for op '{}'", opName(kind)));
  op->operands = std::move(operands);
  op->attrs = std::move(attrs);
  op->parent = block_;
  for (Type &t : resultTypes)
    op->addResult(std::move(t));
  for (int i = 0; i < opNumRegions(kind); ++i)
    op->addRegion();
  Op *raw = op.get();
  block_->ops.insert(before_, std::move(op));
  return raw;
}

namespace {
/// fp8 has no arithmetic (as in Triton): the user's op, located, says what
/// does work. Every elementwise arithmetic, comparison and reduction that
/// sema or a pass builds comes through here.
void checkNotFp8(const Value *x, OpKind k, Location loc) {
  if (x->type.elem.isPtr || !isFp8(x->type.elem.scalar)) return;
  fail(loc, fmt::format("not supported: '{}' on {} values; fp8 values are loaded, stored, converted with .to() and "
                        "multiplied by tl.dot; convert them with .to(tl.float32) (or tl.float16) first",
                        opName(k), tritonDTypeName(x->type.elem.scalar)));
}

Type scalarOrTensor(ElemType e, const std::vector<int64_t> &shape) {
  return shape.empty() ? Type::scalar(e) : Type::tensor(e, shape);
}
} // namespace

Value *Builder::constantInt(int64_t v, Type t) {
  return create(OpKind::Constant, {}, {std::move(t)}, {{"value", v}})->result();
}
Value *Builder::constantFloat(double v, Type t) {
  return create(OpKind::Constant, {}, {std::move(t)}, {{"value", v}})->result();
}
Value *Builder::arange(int64_t start, int64_t end) {
  return create(OpKind::Arange, {}, {Type::tensor(ElemType::of(Scalar::I32), {end - start})},
                {{"start", start}, {"end", end}})
      ->result();
}
Value *Builder::programId(int axis) {
  return create(OpKind::ProgramId, {}, {Type::scalar(Scalar::I32)}, {{"axis", int64_t(axis)}})->result();
}
Value *Builder::numPrograms(int axis) {
  return create(OpKind::NumPrograms, {}, {Type::scalar(Scalar::I32)}, {{"axis", int64_t(axis)}})->result();
}
Value *Builder::splat(Value *x, std::vector<int64_t> shape) {
  return create(OpKind::Splat, {x}, {Type::tensor(x->type.elem, std::move(shape))})->result();
}
Value *Builder::broadcast(Value *x, std::vector<int64_t> shape) {
  return create(OpKind::Broadcast, {x}, {Type::tensor(x->type.elem, std::move(shape))})->result();
}
Value *Builder::expandDims(Value *x, int axis) {
  std::vector<int64_t> shape = x->type.shape;
  TILE_ASSERT(axis >= 0 && axis <= (int)shape.size(), "expand_dims axis out of range");
  shape.insert(shape.begin() + axis, 1);
  return create(OpKind::ExpandDims, {x}, {Type::tensor(x->type.elem, shape)}, {{"axis", int64_t(axis)}})
      ->result();
}
Value *Builder::reshape(Value *x, std::vector<int64_t> shape) {
  return create(OpKind::Reshape, {x}, {scalarOrTensor(x->type.elem, shape)})->result();
}
Value *Builder::permute(Value *x, std::vector<int64_t> order) {
  std::vector<int64_t> shape;
  for (int64_t d : order)
    shape.push_back(x->type.shape.at(d));
  return create(OpKind::Permute, {x}, {Type::tensor(x->type.elem, shape)}, {{"order", order}})->result();
}
Value *Builder::cast(Value *x, ElemType to) {
  return create(OpKind::Cast, {x}, {x->type.withElem(to)})->result();
}
Value *Builder::bitcast(Value *x, ElemType to) {
  return create(OpKind::Bitcast, {x}, {x->type.withElem(to)})->result();
}
Value *Builder::binary(OpKind k, Value *a, Value *b) {
  TILE_ASSERT(a->type == b->type, fmt::format("'{}' operands differ: {} vs {}", opName(k), a->type.str(), b->type.str()));
  checkNotFp8(a, k, loc);
  return create(k, {a, b}, {a->type})->result();
}
Value *Builder::cmp(const std::string &pred, Value *a, Value *b) {
  TILE_ASSERT(a->type == b->type, "cmp operands differ");
  checkNotFp8(a, OpKind::Cmp, loc);
  return create(OpKind::Cmp, {a, b}, {a->type.withElem(ElemType::of(Scalar::I1))}, {{"pred", pred}})->result();
}
Value *Builder::select(Value *c, Value *a, Value *b) {
  return create(OpKind::Select, {c, a, b}, {a->type})->result();
}
Value *Builder::addptr(Value *p, Value *off) {
  return create(OpKind::AddPtr, {p, off}, {p->type})->result();
}
Value *Builder::unary(OpKind k, Value *x) {
  checkNotFp8(x, k, loc);
  return create(k, {x}, {x->type})->result();
}
Value *Builder::fma(Value *a, Value *b, Value *c) {
  checkNotFp8(a, OpKind::Fma, loc);
  return create(OpKind::Fma, {a, b, c}, {a->type})->result();
}
Value *Builder::load(Value *ptr, Value *mask, Value *other) {
  std::vector<Value *> ops{ptr};
  if (mask)
    ops.push_back(mask);
  if (other) {
    TILE_ASSERT(mask, "load with 'other' needs a mask");
    ops.push_back(other);
  }
  ElemType e = ElemType::of(ptr->type.elem.scalar);
  return create(OpKind::Load, ops, {ptr->type.withElem(e)})->result();
}
void Builder::store(Value *ptr, Value *val, Value *mask) {
  std::vector<Value *> ops{ptr, val};
  if (mask)
    ops.push_back(mask);
  create(OpKind::Store, ops, {});
}
Value *Builder::dot(Value *a, Value *b, Value *acc, const std::string &inputPrecision) {
  return create(OpKind::Dot, {a, b, acc}, {acc->type}, {{"input_precision", inputPrecision}})->result();
}
Value *Builder::reduce(Value *x, const std::string &kind, int axis, ElemType resultElem) {
  std::vector<int64_t> shape = x->type.shape;
  TILE_ASSERT(axis >= 0 && axis < (int)shape.size(), "reduce axis out of range");
  checkNotFp8(x, OpKind::Reduce, loc);
  shape.erase(shape.begin() + axis);
  return create(OpKind::Reduce, {x}, {scalarOrTensor(resultElem, shape)},
                {{"kind", kind}, {"axis", int64_t(axis)}})
      ->result();
}
void Builder::yield(std::vector<Value *> vals) { create(OpKind::Yield, std::move(vals), {}); }

} // namespace tile::ir
