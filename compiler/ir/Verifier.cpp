// Verifier.cpp - per-op checks driven by OpKind, plus scoping and region
// structure. Each check throws on the first violation.
#include "ir/Libdevice.h"
#include "ir/Verifier.h"
#include "ir/Printer.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <unordered_set>

namespace tile::ir {

namespace {

constexpr int64_t kMaxElements = int64_t(1) << 40;

bool isPowerOfTwo(int64_t d) { return d > 0 && (d & (d - 1)) == 0; }

std::string typeList(const std::vector<Type> &ts) {
  std::vector<std::string> s;
  for (const Type &t : ts)
    s.push_back(printType(t));
  return "(" + fmt::format("{}", fmt::join(s, ", ")) + ")";
}

std::vector<Type> typesOf(const std::vector<Value *> &vs, size_t from = 0) {
  std::vector<Type> ts;
  for (size_t i = from; i < vs.size(); ++i)
    ts.push_back(vs[i]->type);
  return ts;
}

std::vector<Type> typesOf(const std::vector<std::unique_ptr<Value>> &vs, size_t from = 0) {
  std::vector<Type> ts;
  for (size_t i = from; i < vs.size(); ++i)
    ts.push_back(vs[i]->type);
  return ts;
}

class Verifier {
public:
  explicit Verifier(const Function &fn) : fn_(fn) {}

  void run() {
    const Block &entry = fn_.entry();
    for (const auto &arg : entry.args) {
      if (arg->type.isTensor())
        fail(fn_.loc, fmt::format("verifier: parameter of @{} has tensor type {}", fn_.name,
                                  printType(arg->type)));
    }
    verifyBlock(entry);
  }

private:
  const Function &fn_;
  std::unordered_set<const Value *> visible_;
  const Op *op_ = nullptr;   ///< the op being checked, for error locations

  // ------------------------------------------------------------- helpers

  [[noreturn]] void error(const std::string &msg) const {
    Location loc = op_ && op_->loc.valid() ? op_->loc : fn_.loc;
    std::string what = op_ ? fmt::format("'{}' ", opName(op_->kind)) : "";
    fail(loc, fmt::format("verifier: {}{}", what, msg));
  }

  void checkType(const Type &t, const char *what) const {
    int64_t n = 1;
    for (int64_t d : t.shape) {
      if (!isPowerOfTwo(d))
        error(fmt::format("{} has type {}: tensor dims must be powers of two", what, printType(t)));
      if (d > kMaxElements / n)
        error(fmt::format("{} has type {}: too many elements", what, printType(t)));
      n *= d;
    }
  }

  void numOperands(size_t lo, size_t hi) const {
    size_t n = op_->operands.size();
    if (n < lo || n > hi) {
      std::string want = lo == hi ? std::to_string(lo) : fmt::format("{} to {}", lo, hi);
      error(fmt::format("expects {} operands, got {}", want, n));
    }
  }

  void numResults(size_t n) const {
    if (op_->results.size() != n)
      error(fmt::format("expects {} results, got {}", n, op_->results.size()));
  }

  const Type &operand(size_t i) const { return op_->operands[i]->type; }
  const Type &result(size_t i = 0) const { return op_->results[i]->type; }

  const Attr &attr(const std::string &name) const {
    auto it = op_->attrs.find(name);
    if (it == op_->attrs.end())
      error(fmt::format("needs attribute '{}'", name));
    return it->second;
  }

  template <typename T> const T &attrOf(const std::string &name, const char *kind) const {
    const T *v = std::get_if<T>(&attr(name));
    if (!v)
      error(fmt::format("attribute '{}' must be {}", name, kind));
    return *v;
  }
  int64_t intAttr(const std::string &name) const { return attrOf<int64_t>(name, "an integer"); }
  const std::string &strAttr(const std::string &name) const { return attrOf<std::string>(name, "a string"); }

  /// An expected type built without a layout matches any layout (the
  /// layout pass's choices are checked where layouts must agree).
  static bool matches(const Type &got, const Type &want) {
    if (want.layout || !got.layout)
      return got == want;
    Type g = got;
    g.layout = nullptr;
    return g == want;
  }

  void expectType(const Type &got, const Type &want, const char *what) const {
    if (!matches(got, want))
      error(fmt::format("{} has type {}, expected {}", what, printType(got), printType(want)));
  }

  void expectNoPtr(const Type &t, const char *what) const {
    if (t.elem.isPtr)
      error(fmt::format("{} must not be a pointer, got {}", what, printType(t)));
  }

  void expectI1(const Type &t, const char *what) const {
    if (t.elem != ElemType::of(Scalar::I1))
      error(fmt::format("{} must be i1, got {}", what, printType(t)));
  }

  void expectSameShape(const Type &a, const Type &b, const char *what) const {
    if (a.shape != b.shape)
      error(fmt::format("{} shape differs: {} vs {}", what, printType(a), printType(b)));
  }

  void expectTypes(const std::vector<Type> &got, const std::vector<Type> &want, const char *what) const {
    bool same = got.size() == want.size();
    for (size_t i = 0; same && i < got.size(); ++i)
      same = matches(got[i], want[i]);
    if (!same)
      error(fmt::format("{} types {} do not match {}", what, typeList(got), typeList(want)));
  }

  // -------------------------------------------------------------- blocks

  void verifyBlock(const Block &b) {
    std::vector<const Value *> added;
    for (const auto &arg : b.args) {
      checkType(arg->type, "block argument");
      visible_.insert(arg.get());
      added.push_back(arg.get());
    }
    for (const auto &op : b.ops) {
      verifyOp(*op, b);
      for (const auto &r : op->results) {
        visible_.insert(r.get());
        added.push_back(r.get());
      }
    }
    for (const Value *v : added)
      visible_.erase(v);
  }

  void verifyOp(const Op &op, const Block &b) {
    op_ = &op;
    if (op.parent != &b)
      error("has a wrong parent block pointer");
    for (size_t i = 0; i < op.operands.size(); ++i) {
      if (!op.operands[i])
        error(fmt::format("operand {} is null", i));
      if (!visible_.count(op.operands[i]))
        error(fmt::format("operand {} is used before its definition or outside its scope", i));
    }
    for (size_t i = 0; i < op.results.size(); ++i) {
      if (op.results[i]->def != &op || op.results[i]->index != i)
        error(fmt::format("result {} has wrong def/index", i));
      checkType(op.results[i]->type, "result");
    }
    if ((int)op.regions.size() != opNumRegions(op.kind))
      error(fmt::format("expects {} regions, got {}", opNumRegions(op.kind), op.regions.size()));
    checkTerminatorPlacement(op, b);
    // Regions first: a misplaced terminator inside reads better than "the
    // region must end with yield" on the op.
    for (const auto &r : op.regions) {
      if (r->parent != &op || r->block->parent != r.get())
        error("has a region with wrong parent pointers");
      verifyBlock(*r->block);
      op_ = &op;
    }
    verifyKind(op);
  }

  // yield/condition only end the region of the op that expects them.
  void checkTerminatorPlacement(const Op &op, const Block &b) const {
    if (op.kind != OpKind::Yield && op.kind != OpKind::Condition)
      return;
    if (b.terminator() != &op)
      error("must be the last op of its region");
    const Op *owner = b.parent ? b.parent->parent : nullptr;
    if (!owner)
      error("is not allowed in a function body");
    bool firstRegion = owner->regions.size() > 0 && owner->regions[0]->block.get() == &b;
    bool isCond = owner->kind == OpKind::While && firstRegion;
    if ((op.kind == OpKind::Condition) != isCond)
      error(fmt::format("cannot terminate this region of '{}'", opName(owner->kind)));
  }

  // ------------------------------------------------------------ op kinds

  void verifyKind(const Op &op) {
    switch (op.kind) {
    case OpKind::Constant: return verifyConstant();
    case OpKind::Arange: return verifyArange();
    case OpKind::ProgramId:
    case OpKind::NumPrograms: return verifyProgramId();
    case OpKind::Splat: return verifySplat();
    case OpKind::Broadcast: return verifyBroadcast();
    case OpKind::ExpandDims: return verifyExpandDims();
    case OpKind::Reshape: return verifyReshape();
    case OpKind::ConvertLayout: return verifyConvertLayout();
    case OpKind::Hint: return verifyHint();
    case OpKind::Permute: return verifyPermute();
    case OpKind::Cast:
    case OpKind::Bitcast: return verifyCast();
    case OpKind::Add: case OpKind::Sub: case OpKind::Mul: case OpKind::Div: case OpKind::Rem:
    case OpKind::And: case OpKind::Or: case OpKind::Xor: case OpKind::Shl: case OpKind::Shr:
    case OpKind::Min: case OpKind::Max: case OpKind::Pow: return verifyBinary();
    case OpKind::Cmp: return verifyCmp();
    case OpKind::Select: return verifySelect();
    case OpKind::AddPtr: return verifyAddPtr();
    case OpKind::Neg: case OpKind::Not: case OpKind::Abs: case OpKind::Exp: case OpKind::Exp2:
    case OpKind::Log: case OpKind::Log2: case OpKind::Sqrt: case OpKind::Rsqrt: case OpKind::Sin:
    case OpKind::Cos: case OpKind::Floor: case OpKind::Ceil: case OpKind::Erf: case OpKind::Tanh: return verifyUnary();
    case OpKind::Fma: return verifyFma();
    case OpKind::ExternElementwise: return verifyExtern();
    case OpKind::Load: return verifyLoad();
    case OpKind::Store: return verifyStore();
    case OpKind::Dot: return verifyDot();
    case OpKind::Reduce: return verifyReduce();
    case OpKind::Scan: return verifyScan();
    case OpKind::AtomicRMW: return verifyAtomicRMW();
    case OpKind::AtomicCas: return verifyAtomicCas();
    case OpKind::For: return verifyFor();
    case OpKind::While: return verifyWhile();
    case OpKind::If: return verifyIf();
    case OpKind::Yield: return numResults(0);
    case OpKind::Condition: return verifyCondition();
    case OpKind::Barrier: numOperands(0, 0); return numResults(0);
    case OpKind::Print: return verifyPrint();
    case OpKind::Assert: return verifyAssert();
    case OpKind::InlineAsm: return verifyInlineAsm();
    }
  }

  void verifyConstant() {
    numOperands(0, 0);
    numResults(1);
    const Type &t = result();
    if (t.elem.isPtr)
      error("cannot have a pointer type");
    if (t.elem.isFloat())
      attrOf<double>("value", "a float for a float type");
    else
      attrOf<int64_t>("value", "an integer for an integer type");
  }

  void verifyArange() {
    numOperands(0, 0);
    numResults(1);
    int64_t start = intAttr("start"), end = intAttr("end");
    if (end <= start || end - start > kMaxElements)
      error(fmt::format("needs start < end, got [{}, {})", start, end));
    expectType(result(), Type::tensor(ElemType::of(Scalar::I32), {end - start}), "result");
  }

  void verifyProgramId() {
    numOperands(0, 0);
    numResults(1);
    int64_t axis = intAttr("axis");
    if (axis < 0 || axis > 2)
      error(fmt::format("axis must be 0, 1 or 2, got {}", axis));
    expectType(result(), Type::scalar(Scalar::I32), "result");
  }

  void verifyShapeOpCommon() {
    numOperands(1, 1);
    numResults(1);
    if (result().elem != operand(0).elem)
      error(fmt::format("changes the element type: {} to {}", printType(operand(0)), printType(result())));
  }

  void verifySplat() {
    verifyShapeOpCommon();
    if (operand(0).isTensor())
      error("operand must be a scalar");
    if (!result().isTensor())
      error("result must be a tensor");
  }

  void verifyBroadcast() {
    verifyShapeOpCommon();
    const Type &in = operand(0), &out = result();
    if (in.rank() != out.rank() || !in.isTensor())
      error(fmt::format("needs tensors of equal rank: {} to {}", printType(in), printType(out)));
    for (int i = 0; i < in.rank(); ++i)
      if (in.shape[i] != out.shape[i] && in.shape[i] != 1)
        error(fmt::format("cannot broadcast {} to {}", printType(in), printType(out)));
  }

  void verifyExpandDims() {
    verifyShapeOpCommon();
    int64_t axis = intAttr("axis");
    std::vector<int64_t> shape = operand(0).shape;
    if (axis < 0 || axis > (int64_t)shape.size())
      error(fmt::format("axis {} out of range for {}", axis, printType(operand(0))));
    shape.insert(shape.begin() + axis, 1);
    if (result().shape != shape)
      error(fmt::format("result shape {} is wrong for axis {}", printType(result()), axis));
  }

  void verifyReshape() {
    verifyShapeOpCommon();
    if (operand(0).numElements() != result().numElements())
      error(fmt::format("changes the element count: {} to {}", printType(operand(0)), printType(result())));
  }

  void verifyHint() {
    numOperands(1, 1);
    numResults(1);
    if (!(operand(0) == result())) error(fmt::format("must keep its type: {} to {}", printType(operand(0)), printType(result())));
    if (!result().elem.isPtr && !result().elem.isInt())
      error(fmt::format("hints apply to integers and pointers, got {}", printType(result())));
    size_t rank = std::max<size_t>(1, result().shape.size());
    for (const char *name : {"multiple_of", "max_contiguous", "max_constancy"}) {
      auto it = op_->attrs.find(name);
      if (it == op_->attrs.end()) continue;
      const auto *v = std::get_if<std::vector<int64_t>>(&it->second);
      if (!v || v->size() != rank) error(fmt::format("'{}' must be a list of {} integers", name, rank));
      else
        for (int64_t x : *v)
          if (x < 1) error(fmt::format("'{}' values must be positive", name));
    }
  }

  void verifyConvertLayout() {
    verifyShapeOpCommon();
    if (operand(0).shape != result().shape || operand(0).elem != result().elem)
      error(fmt::format("must keep shape and element type: {} to {}", printType(operand(0)), printType(result())));
  }

  void verifyPermute() {
    verifyShapeOpCommon();
    const auto &order = attrOf<std::vector<int64_t>>("order", "an integer list");
    const Type &in = operand(0);
    std::vector<int64_t> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < std::max(sorted.size(), in.shape.size()); ++i)
      if (sorted.size() != in.shape.size() || sorted[i] != (int64_t)i)
        error(fmt::format("order {} is not a permutation of the dims of {}", printAttr(order), printType(in)));
    std::vector<int64_t> shape;
    for (int64_t d : order)
      shape.push_back(in.shape[d]);
    if (shape != result().shape)
      error(fmt::format("result {} does not match order {}", printType(result()), printAttr(order)));
  }

  static int elemBits(ElemType e) { return e.isPtr ? 64 : bitWidth(e.scalar); }

  void verifyCast() {
    numOperands(1, 1);
    numResults(1);
    expectSameShape(operand(0), result(), "operand and result");
    if (op_->kind == OpKind::Cast) {
      expectNoPtr(operand(0), "operand");
      expectNoPtr(result(), "result");
      return;
    }
    if (elemBits(operand(0).elem) != elemBits(result().elem))
      error(fmt::format("needs equal bit widths: {} to {}", printType(operand(0)), printType(result())));
  }

  void verifyBinary() {
    numOperands(2, 2);
    numResults(1);
    if (operand(0) != operand(1))
      error(fmt::format("operands must have the same type, got {} and {}", printType(operand(0)),
                        printType(operand(1))));
    expectType(result(), operand(0), "result");
    expectNoPtr(operand(0), "operand");
    bool intOnly = op_->kind == OpKind::And || op_->kind == OpKind::Or || op_->kind == OpKind::Xor ||
                   op_->kind == OpKind::Shl || op_->kind == OpKind::Shr;
    if (intOnly && !operand(0).elem.isInt())
      error(fmt::format("needs integer operands, got {}", printType(operand(0))));
    if (op_->kind == OpKind::Pow && !operand(0).elem.isFloat())
      error(fmt::format("needs float operands, got {}", printType(operand(0))));
  }

  void verifyCmp() {
    numOperands(2, 2);
    numResults(1);
    static const std::set<std::string> preds{"eq", "ne", "lt", "le", "gt", "ge"};
    if (!preds.count(strAttr("pred")))
      error(fmt::format("unknown predicate \"{}\"", strAttr("pred")));
    if (operand(0) != operand(1))
      error(fmt::format("operands must have the same type, got {} and {}", printType(operand(0)),
                        printType(operand(1))));
    expectType(result(), operand(0).withElem(ElemType::of(Scalar::I1)), "result");
  }

  void verifySelect() {
    numOperands(3, 3);
    numResults(1);
    expectI1(operand(0), "condition");
    expectSameShape(operand(0), operand(1), "condition and value");
    if (operand(1) != operand(2))
      error(fmt::format("arms must have the same type, got {} and {}", printType(operand(1)),
                        printType(operand(2))));
    expectType(result(), operand(1), "result");
  }

  void verifyAddPtr() {
    numOperands(2, 2);
    numResults(1);
    if (!operand(0).elem.isPtr)
      error(fmt::format("first operand must be a pointer, got {}", printType(operand(0))));
    if (!operand(1).elem.isInt())
      error(fmt::format("offset must be an integer, got {}", printType(operand(1))));
    expectSameShape(operand(0), operand(1), "pointer and offset");
    expectType(result(), operand(0), "result");
  }

  void verifyUnary() {
    numOperands(1, 1);
    numResults(1);
    expectType(result(), operand(0), "result");
    expectNoPtr(operand(0), "operand");
    OpKind k = op_->kind;
    if (k == OpKind::Not && !operand(0).elem.isInt())
      error(fmt::format("needs an integer operand, got {}", printType(operand(0))));
    if (k != OpKind::Not && k != OpKind::Neg && k != OpKind::Abs && !operand(0).elem.isFloat())
      error(fmt::format("needs a float operand, got {}", printType(operand(0))));
  }

  void verifyExtern() {
    numOperands(1, 4);
    numResults(1);
    const ExternOverload *o = findLibdeviceSymbol(strAttr("symbol"));
    if (!o) error(fmt::format("unknown libdevice symbol \"{}\"", strAttr("symbol")));
    if (o->args.size() != op_->operands.size())
      error(fmt::format("{} takes {} operands", strAttr("symbol"), o->args.size()));
    for (size_t i = 0; i < o->args.size(); ++i) {
      expectSameShape(operand(i), result(), "operand and result");
      if (operand(i).elem != ElemType::of(o->args[i]))
        error(fmt::format("operand {} of {} must be {}, got {}", i, strAttr("symbol"), scalarName(o->args[i]),
                          printType(operand(i))));
    }
    if (result().elem != ElemType::of(o->ret))
      error(fmt::format("{} returns {}, not {}", strAttr("symbol"), scalarName(o->ret), printType(result())));
  }

  void verifyFma() {
    numOperands(3, 3);
    numResults(1);
    if (operand(0) != operand(1) || operand(0) != operand(2))
      error("operands must have the same type");
    if (!operand(0).elem.isFloat())
      error(fmt::format("needs float operands, got {}", printType(operand(0))));
    expectType(result(), operand(0), "result");
  }

  void checkPtrMask(size_t maskIndex) const {
    if (!operand(0).elem.isPtr)
      error(fmt::format("needs a pointer operand, got {}", printType(operand(0))));
    if (op_->operands.size() <= maskIndex)
      return;
    expectI1(operand(maskIndex), "mask");
    expectSameShape(operand(0), operand(maskIndex), "pointer and mask");
  }

  void verifyLoad() {
    numOperands(1, 3);
    numResults(1);
    checkPtrMask(1);
    Type want = operand(0).withElem(ElemType::of(operand(0).elem.scalar));
    expectType(result(), want, "result");
    if (op_->operands.size() == 3)
      expectType(operand(2), want, "'other'");
  }

  void verifyStore() {
    numOperands(2, 3);
    numResults(0);
    checkPtrMask(2);
    expectType(operand(1), operand(0).withElem(ElemType::of(operand(0).elem.scalar)), "stored value");
  }

  void verifyDot() {
    numOperands(3, 3);
    numResults(1);
    const Type &a = operand(0), &b = operand(1), &c = operand(2);
    int r = a.rank();   // 2, or 3 with a leading batch dimension
    if ((r != 2 && r != 3) || b.rank() != r || c.rank() != r)
      error("needs rank-2 operands, or rank-3 ones (batched)");
    if (a.shape[r - 1] != b.shape[r - 2] || c.shape[r - 2] != a.shape[r - 2] || c.shape[r - 1] != b.shape[r - 1] ||
        (r == 3 && (a.shape[0] != b.shape[0] || a.shape[0] != c.shape[0])))
      error(fmt::format("shapes do not compose: {} x {} + {}", printType(a), printType(b), printType(c)));
    bool fp8 = a.elem.isFp8() && b.elem.isFp8();
    if (a.elem != b.elem && !fp8)   // e4m3 and e5m2 may mix
      error(fmt::format("inputs differ in element type: {} and {}", printType(a), printType(b)));
    expectNoPtr(a, "input");
    expectNoPtr(c, "accumulator");
    expectType(result(), c, "result");
    static const std::set<std::string> precisions{"tf32", "tf32x3", "ieee"};
    if (!precisions.count(strAttr("input_precision")))
      error(fmt::format("unknown input_precision \"{}\"", strAttr("input_precision")));
  }

  /// The one tensor operand of a reduce or scan and its `axis` attr, checked.
  int64_t checkAxisOperand() {
    numOperands(1, 1);
    numResults(1);
    const Type &in = operand(0);
    if (!in.isTensor())
      error("needs a tensor operand");
    expectNoPtr(in, "operand");
    int64_t axis = intAttr("axis");
    if (axis < 0 || axis >= in.rank())
      error(fmt::format("axis {} out of range for {}", axis, printType(in)));
    return axis;
  }

  void verifyReduce() {
    int64_t axis = checkAxisOperand();
    const Type &in = operand(0);
    const std::string &kind = strAttr("kind");
    static const std::set<std::string> kinds{"sum", "max", "min", "argmax", "argmin", "xor"};
    if (!kinds.count(kind))
      error(fmt::format("unknown kind \"{}\"", kind));
    if (kind == "xor" && !in.elem.isInt())
      error(fmt::format("xor needs integers, got {}", printType(in)));
    std::vector<int64_t> shape = in.shape;
    shape.erase(shape.begin() + axis);
    if (result().shape != shape)
      error(fmt::format("result {} has the wrong shape", printType(result())));
    ElemType e = result().elem;
    ElemType i32 = ElemType::of(Scalar::I32);
    bool ok = kind.rfind("arg", 0) == 0 ? e == i32 : e == in.elem;
    if (kind == "sum" && in.elem.isInt() && bitWidth(in.elem.scalar) < 32 && e == i32)
      ok = true;
    if (!ok)
      error(fmt::format("result element {} is wrong for a {} of {}", e.str(), kind, printType(in)));
  }

  const Op *terminatorOf(const Region &r, OpKind want, const char *what) const {
    const Op *t = r.block->terminator();
    if (!t || t->kind != want)
      error(fmt::format("{} must end with '{}'", what, opName(want)));
    return t;
  }

  /// scan of n tensors of one shape: n results of their types, a region of
  /// 2n scalar arguments (accumulators, then values) yielding n scalars.
  void verifyScan() {
    size_t n = op_->operands.size();
    if (n == 0) error("needs at least one operand");
    numResults(n);
    int64_t axis = intAttr("axis");
    std::vector<Type> elems;
    for (size_t i = 0; i < n; ++i) {
      const Type &in = operand(i);
      if (!in.isTensor()) error("needs tensor operands");
      expectNoPtr(in, "operand");
      expectSameShape(in, operand(0), "operands");
      expectType(result(i), in, "result");
      elems.push_back(Type::scalar(in.elem));
    }
    if (axis < 0 || axis >= operand(0).rank())
      error(fmt::format("axis {} out of range for {}", axis, printType(operand(0))));
    std::vector<Type> args = elems;
    args.insert(args.end(), elems.begin(), elems.end());
    const Block &body = *op_->regions[0]->block;
    expectTypes(typesOf(body.args), args, "combine arguments");
    const Op *y = terminatorOf(*op_->regions[0], OpKind::Yield, "combine region");
    expectTypes(typesOf(y->operands), elems, "yielded");
  }

  /// sem and scope attributes of an atomic.
  void checkAtomicOrder() const {
    static const std::set<std::string> sems{"acq_rel", "acquire", "release", "relaxed"};
    static const std::set<std::string> scopes{"gpu", "cta", "sys"};
    if (!sems.count(strAttr("sem")))
      error(fmt::format("unknown sem \"{}\"", strAttr("sem")));
    if (!scopes.count(strAttr("scope")))
      error(fmt::format("unknown scope \"{}\"", strAttr("scope")));
  }

  void verifyAtomicRMW() {
    numOperands(2, 3);
    numResults(1);
    checkPtrMask(2);
    Type want = operand(0).withElem(ElemType::of(operand(0).elem.scalar));
    expectType(operand(1), want, "value");
    expectType(result(), want, "result");
    static const std::set<std::string> kinds{"add", "max", "min", "and", "or", "xor", "xchg"};
    if (!kinds.count(strAttr("kind")))
      error(fmt::format("unknown kind \"{}\"", strAttr("kind")));
    checkAtomicOrder();
  }

  void verifyAtomicCas() {
    numOperands(3, 3);
    numResults(1);
    checkPtrMask(3);
    Type want = operand(0).withElem(ElemType::of(operand(0).elem.scalar));
    expectType(operand(1), want, "compared value");
    expectType(operand(2), want, "new value");
    expectType(result(), want, "result");
    checkAtomicOrder();
  }

  void verifyFor() {
    numOperands(3, SIZE_MAX);
    const Type &lb = operand(0);
    if (lb.isTensor() || !lb.elem.isInt())
      error(fmt::format("bounds must be integer scalars, got {}", printType(lb)));
    if (operand(1) != lb || operand(2) != lb)
      error("lower bound, upper bound and step must have the same type");
    std::vector<Type> inits = typesOf(op_->operands, 3);
    expectTypes(typesOf(op_->results), inits, "results");
    const Block &body = *op_->regions[0]->block;
    std::vector<Type> args{lb};
    args.insert(args.end(), inits.begin(), inits.end());
    expectTypes(typesOf(body.args), args, "body arguments (induction variable, iter args)");
    const Op *y = terminatorOf(*op_->regions[0], OpKind::Yield, "body");
    expectTypes(typesOf(y->operands), inits, "yielded");
  }

  void verifyWhile() {
    std::vector<Type> inits = typesOf(op_->operands);
    std::vector<Type> results = typesOf(op_->results);
    const Block &before = *op_->regions[0]->block, &after = *op_->regions[1]->block;
    expectTypes(typesOf(before.args), inits, "condition region arguments");
    const Op *c = terminatorOf(*op_->regions[0], OpKind::Condition, "condition region");
    if (c->operands.empty())
      error("condition must have a condition operand");
    expectTypes(typesOf(c->operands, 1), results, "values forwarded by 'condition'");
    expectTypes(typesOf(after.args), results, "body arguments");
    const Op *y = terminatorOf(*op_->regions[1], OpKind::Yield, "body");
    expectTypes(typesOf(y->operands), inits, "yielded");
  }

  void verifyIf() {
    numOperands(1, 1);
    if (operand(0) != Type::scalar(Scalar::I1))
      error(fmt::format("condition must be an i1 scalar, got {}", printType(operand(0))));
    std::vector<Type> results = typesOf(op_->results);
    for (int i = 0; i < 2; ++i) {
      const Region &r = *op_->regions[i];
      if (!r.block->args.empty())
        error("branches take no arguments");
      const Op *y = terminatorOf(r, OpKind::Yield, i == 0 ? "then branch" : "else branch");
      expectTypes(typesOf(y->operands), results, "yielded");
    }
  }

  void verifyCondition() {
    numResults(0);
    numOperands(1, SIZE_MAX);
    if (operand(0) != Type::scalar(Scalar::I1))
      error(fmt::format("condition must be an i1 scalar, got {}", printType(operand(0))));
  }

  void verifyPrint() {
    numResults(0);
    if (op_->hasAttr("prefix"))
      strAttr("prefix");
    if (op_->hasAttr("hex"))
      attrOf<bool>("hex", "a bool");
  }

  void verifyInlineAsm() {
    if (op_->results.empty())
      error("needs at least one result");
    strAttr("asm");
    strAttr("constraints");
    attrOf<bool>("pure", "a bool");
    if (attrOf<int64_t>("pack", "an integer") < 1)
      error("pack must be at least 1");
    const Type &r = result();
    for (const auto &res : op_->results)
      if (res->type.shape != r.shape)
        error("results must have one shape");
    for (const Value *v : op_->operands)
      if (v->type.shape != r.shape)
        error(fmt::format("operands must have the results' shape, got {}", printType(v->type)));
  }

  void verifyAssert() {
    numResults(0);
    numOperands(1, 1);
    expectI1(operand(0), "condition");
    if (op_->hasAttr("msg"))
      strAttr("msg");
  }
};

} // namespace

void verify(const Function &fn) { Verifier(fn).run(); }

void verify(const Module &m) {
  for (const auto &fn : m.functions)
    verify(*fn);
}

} // namespace tile::ir
