// BuiltinsScan.cpp - scans (tl.cumsum, tl.cumprod, tl.associative_scan),
// reductions with a combine function (tl.reduce, tl.xor_sum) and atomics
// (tl.atomic_*). Scans lower to the `scan` op, whose region is the combine
// function on two scalars (a @jit function inlined into it); tl.reduce is
// the scan's last element picked out by a select and a sum (exact: every
// other lane adds 0, or -0.0 for floats). Atomics lower to atomic_rmw /
// atomic_cas with Triton's defaults (sem "acq_rel", scope "gpu").
#include "sema/BuiltinsScan.h"

#include <fmt/format.h>

#include <functional>

namespace tile::sema::scan {

using ir::OpKind;

namespace {

/// The scope entry where a @jit function leaves its return value (as
/// LowerStmt.cpp's kRet).
constexpr const char *kRetName = "$ret";

int64_t constIntArg(const CallArgs &a, size_t i, const char *what) {
  const Val &v = a[i];
  if (v.isConst() && v.c.isInt()) return std::get<int64_t>(v.c.v);
  if (v.isConst() && v.c.isBool()) return std::get<bool>(v.c.v);
  fail(a.locs[i], fmt::format("{} of {} must be a constexpr integer", what, a.fnName));
}

bool constBoolArg(Lowerer &L, const CallArgs &a, size_t i) {
  if (!a.has(i)) return false;
  if (!a[i].isConst()) fail(a.locs[i], fmt::format("argument of {} must be a constexpr bool", a.fnName));
  return L.isTruthyConst(a[i], a.locs[i]);
}

/// The tensor a scan or reduction works on (tuples only in tl.reduce and
/// tl.associative_scan: tupleInputs).
ir::Value *inputTensor(Lowerer &L, const CallArgs &a) {
  const Val &v = a[0];
  if (v.kind == Val::Kind::Tuple)
    fail(a.locs[0], fmt::format("not supported: {} over a tuple of tensors", a.fnName));
  ir::Value *x = v.isIR() ? v.v : L.toIR(v, a.locs[0], "input");
  if (x->type.elem.isPtr) fail(a.locs[0], fmt::format("{} of pointers is not supported", a.fnName));
  return x;
}

int axisOf(const CallArgs &a, size_t i, int rank) {
  int64_t axis = constIntArg(a, i, "axis");
  if (axis < -rank || axis >= rank)
    fail(a.locs[i], fmt::format("axis {} is out of range for a tensor of rank {} in {}", axis, rank, a.fnName));
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

/// Inlines the @jit function `fn` called with already lowered arguments.
Val callJitWith(Lowerer &L, const ast::FunctionDef &fn, std::vector<Val> args, Location loc) {
  for (const ast::FunctionDef *f : L.callStack)
    if (f == &fn) fail(loc, fmt::format("recursive call to '{}': recursion is not supported in kernels", fn.name));
  if (L.callStack.size() >= kMaxInlineDepth) fail(loc, "@jit calls nested too deeply");
  if (args.size() > fn.params.size())
    fail(loc, fmt::format("combine function '{}' takes {} arguments but {} are passed", fn.name, fn.params.size(),
                          args.size()));
  std::map<std::string, Val> callee;
  for (size_t i = 0; i < fn.params.size(); ++i) {
    const ast::Param &p = fn.params[i];
    if (i >= args.size()) {
      if (!p.defaultValue) fail(loc, fmt::format("combine function '{}' needs argument '{}'", fn.name, p.name));
      args.push_back(Val::constant(L.evalConst(*p.defaultValue)));
    }
    callee[p.name] = args[i];
  }
  std::swap(L.scope, callee);
  L.callStack.push_back(&fn);
  bool callerInLoop = L.inRuntimeLoop;
  L.inRuntimeLoop = false;
  L.lowerBlock(fn.body);
  L.inRuntimeLoop = callerInLoop;
  Val ret = L.scope.count(kRetName) ? L.scope[kRetName] : Val::constant(ConstValue());
  L.callStack.pop_back();
  std::swap(L.scope, callee);
  return ret;
}

/// Rejects combine regions that do more than scalar arithmetic.
void checkCombineRegion(ir::Block &body, Location loc, const std::string &fnName) {
  ir::walk(body, [&](ir::Op &op) {
    bool tensor = false;
    for (auto &r : op.results) tensor |= r->type.isTensor();
    for (ir::Value *v : op.operands) tensor |= v->type.isTensor();
    bool effect = op.kind != OpKind::Yield && op.kind != OpKind::Condition && op.regions.empty() &&
                  (op.hasSideEffects() || op.kind == OpKind::Load);
    if (tensor || effect || op.kind == OpKind::While)
      fail(op.loc.valid() ? op.loc : loc,
           fmt::format("not supported: '{}' in the combine function of {} (only scalar arithmetic is allowed)",
                       ir::opName(op.kind), fnName));
  });
}

using Combine = std::function<ir::Value *(ir::Value *acc, ir::Value *x)>;
/// A combine of tuples: (acc_0..acc_n-1, x_0..x_n-1) -> n values.
using CombineN = std::function<std::vector<ir::Value *>(const std::vector<ir::Value *> &acc,
                                                        const std::vector<ir::Value *> &x)>;

/// A scan op over the tensors xs (one shape) along `axis`, its region built
/// by `combine`; one result per input.
std::vector<ir::Value *> buildScanN(Lowerer &L, const std::vector<ir::Value *> &xs, int axis, bool reverse,
                                    Location loc, const CombineN &combine, const std::string &fnName) {
  std::vector<ir::Type> types;
  for (ir::Value *x : xs) types.push_back(x->type);
  ir::Op *op = L.at(loc).create(OpKind::Scan, xs, types, {{"axis", static_cast<int64_t>(axis)}, {"reverse", reverse}});
  ir::Block *body = op->regions[0]->block.get();
  std::vector<ir::Value *> acc, v;
  for (ir::Value *x : xs) acc.push_back(body->addArg(ir::Type::scalar(x->type.elem)));
  for (ir::Value *x : xs) v.push_back(body->addArg(ir::Type::scalar(x->type.elem)));
  ir::Block *outer = L.b.block();
  L.b.setInsertionPointToEnd(body);
  std::vector<ir::Value *> c = combine(acc, v);
  L.at(loc).yield(c);
  L.b.setInsertionPointToEnd(outer);
  checkCombineRegion(*body, loc, fnName);
  std::vector<ir::Value *> out;
  for (size_t i = 0; i < xs.size(); ++i) out.push_back(op->result(static_cast<unsigned>(i)));
  return out;
}

ir::Value *buildScan(Lowerer &L, ir::Value *x, int axis, bool reverse, Location loc, const Combine &combine,
                     const std::string &fnName) {
  CombineN one = [&](const std::vector<ir::Value *> &p, const std::vector<ir::Value *> &q) {
    return std::vector<ir::Value *>{combine(p[0], q[0])};
  };
  return buildScanN(L, {x}, axis, reverse, loc, one, fnName)[0];
}

ir::Value *scanWithOp(Lowerer &L, ir::Value *x, int axis, bool reverse, Location loc, OpKind k,
                      const std::string &fnName) {
  return buildScan(L, x, axis, reverse, loc, [&](ir::Value *p, ir::Value *q) { return L.at(loc).binary(k, p, q); },
                   fnName);
}

/// A combine built from the @jit function given as argument i: called as
/// Triton calls it, with the accumulators then the new values, flattened
/// (f(a_0, .., a_n-1, b_0, .., b_n-1)); it returns n values (a tuple when
/// n > 1), each cast to its input's type.
CombineN jitCombine(Lowerer &L, const CallArgs &a, size_t i, std::vector<ElemType> elems) {
  const Val &f = a[i];
  if (f.kind != Val::Kind::JitFunction)
    fail(a.locs[i], fmt::format("the combine_fn of {} must be a @triton.jit function, got {}", a.fnName,
                                L.typeName(f)));
  const ast::FunctionDef *fn = f.fn;
  Location loc = a.locs[i];
  return [&L, fn, loc, elems](const std::vector<ir::Value *> &p, const std::vector<ir::Value *> &q) {
    std::vector<Val> args;
    for (ir::Value *v : p) args.push_back(Val::ir(v));
    for (ir::Value *v : q) args.push_back(Val::ir(v));
    Val r = callJitWith(L, *fn, args, loc);
    if (r.isConst() && r.c.isNone())
      fail(loc, fmt::format("combine function '{}' returns nothing", fn->name));
    std::vector<Val> rs;
    if (r.kind == Val::Kind::Tuple) rs = r.elts;
    else if (r.isConst() && std::holds_alternative<ConstTuple>(r.c.v))
      for (const ConstValue &c : std::get<ConstTuple>(r.c.v)) rs.push_back(Val::constant(c));
    else rs.push_back(r);
    if (rs.size() != elems.size())
      fail(loc, fmt::format("combine function '{}' returns {} value{} for {} input{}", fn->name, rs.size(),
                            rs.size() == 1 ? "" : "s", elems.size(), elems.size() == 1 ? "" : "s"));
    std::vector<ir::Value *> out;
    for (size_t k = 0; k < rs.size(); ++k) {
      ir::Value *v = L.toIRAs(rs[k], elems[k], loc);
      if (v->type.isTensor())
        fail(loc, fmt::format("combine function '{}' must return scalars, got {}", fn->name, v->type.str()));
      out.push_back(v);
    }
    return out;
  };
}

/// The tensors of tl.reduce / tl.associative_scan: one, or a tuple of
/// tensors of one shape.
std::vector<ir::Value *> tupleInputs(Lowerer &L, const CallArgs &a) {
  const Val &v = a[0];
  std::vector<Val> parts = v.kind == Val::Kind::Tuple ? v.elts : std::vector<Val>{v};
  if (parts.empty()) fail(a.locs[0], fmt::format("{} needs at least one tensor", a.fnName));
  std::vector<ir::Value *> xs;
  for (const Val &p : parts) {
    if (p.kind == Val::Kind::Tuple) fail(a.locs[0], fmt::format("not supported: nested tuples in {}", a.fnName));
    ir::Value *x = p.isIR() ? p.v : L.toIR(p, a.locs[0], "input");
    if (x->type.elem.isPtr) fail(a.locs[0], fmt::format("{} of pointers is not supported", a.fnName));
    if (!xs.empty() && x->type.shape != xs[0]->type.shape)
      fail(a.locs[0], fmt::format("the tensors of {} must have one shape, got {} and {}", a.fnName,
                                  xs[0]->type.str(), x->type.str()));
    xs.push_back(x);
  }
  return xs;
}

std::vector<ElemType> elemsOf(const std::vector<ir::Value *> &xs) {
  std::vector<ElemType> e;
  for (ir::Value *x : xs) e.push_back(x->type.elem);
  return e;
}

Val tupleOrOne(const std::vector<ir::Value *> &rs, bool tuple) {
  if (!tuple) return Val::ir(rs[0]);
  std::vector<Val> v;
  for (ir::Value *r : rs) v.push_back(Val::ir(r));
  return Val::tuple(std::move(v));
}

ir::Value *scanInput(Lowerer &L, const CallArgs &a) {
  ir::Value *x = inputTensor(L, a);
  if (!x->type.isTensor()) fail(a.locs[0], fmt::format("{} needs a tensor, got {}", a.fnName, x->type.str()));
  return x;
}

} // namespace

// ---------------------------------------------------------------- scans

Val bCumsum(Lowerer &L, CallArgs &a) {
  ir::Value *x = scanInput(L, a);
  ElemType t = x->type.elem;
  if (a.has(3)) {
    const Val &d = a[3];
    const DTypeValue *dt = d.isConst() ? std::get_if<DTypeValue>(&d.c.v) : nullptr;
    if (!dt || !dt->isPlain()) fail(a.locs[3], "expected a dtype such as tl.float32 for 'cumsum'");
    t = dt->type;
  } else if (t.isInt() && bitWidth(t.scalar) < 32) {
    t = ElemType::of(isSigned(t.scalar) ? Scalar::I32 : Scalar::U32);
  }
  x = L.castTo(x, t, a.loc);
  int axis = axisOf(a, 1, x->type.rank());
  return Val::ir(scanWithOp(L, x, axis, constBoolArg(L, a, 2), a.loc, OpKind::Add, a.fnName));
}

Val bCumprod(Lowerer &L, CallArgs &a) {
  ir::Value *x = scanInput(L, a);
  int axis = axisOf(a, 1, x->type.rank());
  return Val::ir(scanWithOp(L, x, axis, constBoolArg(L, a, 2), a.loc, OpKind::Mul, a.fnName));
}

Val bAssociativeScan(Lowerer &L, CallArgs &a) {
  std::vector<ir::Value *> xs = tupleInputs(L, a);
  if (!xs[0]->type.isTensor()) fail(a.locs[0], fmt::format("{} needs a tensor, got {}", a.fnName, xs[0]->type.str()));
  int axis = axisOf(a, 1, xs[0]->type.rank());
  CombineN f = jitCombine(L, a, 2, elemsOf(xs));
  std::vector<ir::Value *> rs = buildScanN(L, xs, axis, constBoolArg(L, a, 3), a.loc, f, a.fnName);
  return tupleOrOne(rs, a[0].kind == Val::Kind::Tuple);
}

Val bReduce(Lowerer &L, CallArgs &a) {
  std::vector<ir::Value *> xs = tupleInputs(L, a);
  bool tuple = a[0].kind == Val::Kind::Tuple;
  bool keep = constBoolArg(L, a, 3);
  CombineN f = jitCombine(L, a, 2, elemsOf(xs));
  if (!xs[0]->type.isTensor()) return tupleOrOne(xs, tuple);
  int rank = xs[0]->type.rank();
  std::optional<int> axis;
  if (a.has(1)) axis = axisOf(a, 1, rank);
  int ax = axis ? *axis : 0;
  std::vector<ir::Value *> ins;
  for (ir::Value *x : xs)
    ins.push_back(!axis && rank != 1 ? L.at(a.loc).reshape(x, {x->type.numElements()}) : x);
  std::vector<ir::Value *> scanned = buildScanN(L, ins, ax, false, a.loc, f, a.fnName);
  // Keep the last element along the axis; every other lane adds an exact 0.
  const ir::Type &inT = ins[0]->type;
  int64_t n = inT.shape[ax];
  std::vector<int64_t> idxShape(inT.rank(), 1);
  idxShape[ax] = n;
  ir::Value *idx = L.at(a.loc).arange(0, n);
  if (inT.rank() > 1) idx = L.at(a.loc).reshape(idx, idxShape);
  idx = L.broadcastTo(idx, inT.shape, a.loc);
  ir::Value *last = L.at(a.loc).constantInt(n - 1, inT.withElem(ElemType::of(Scalar::I32)));
  ir::Value *isLast = L.at(a.loc).cmp("eq", idx, last);
  std::vector<ir::Value *> rs;
  for (size_t k = 0; k < scanned.size(); ++k) {
    ir::Value *s = scanned[k];
    ElemType e = s->type.elem;
    ir::Value *zero = e.isFloat() ? L.at(a.loc).constantFloat(-0.0, s->type) : L.at(a.loc).constantInt(0, s->type);
    ir::Value *picked = L.at(a.loc).select(isLast, s, zero);
    ir::Value *r = L.at(a.loc).reduce(picked, "sum", ax, e);
    if (keep && !axis) r = L.at(a.loc).splat(r, std::vector<int64_t>(rank, 1));
    else if (keep) r = r->type.isTensor() ? L.at(a.loc).expandDims(r, ax) : L.at(a.loc).splat(r, {1});
    rs.push_back(r);
  }
  return tupleOrOne(rs, tuple);
}

Val bXorSum(Lowerer &L, CallArgs &a) {
  ir::Value *x = inputTensor(L, a);
  if (!x->type.elem.isInt())
    fail(a.locs[0], fmt::format("xor_sum needs integers, got {}", x->type.str()));
  std::optional<int> axis;
  if (a.has(1)) axis = static_cast<int>(constIntArg(a, 1, "axis"));
  return Val::ir(L.reduceAll(x, "xor", axis, constBoolArg(L, a, 2), a.loc));
}

// ---------------------------------------------------------------- atomics

namespace {

std::string orderArg(const CallArgs &a, size_t i, const char *what, const char *def,
                     std::initializer_list<const char *> allowed) {
  if (!a.has(i)) return def;
  const Val &v = a[i];
  if (!v.isConst() || !v.c.isStr()) fail(a.locs[i], fmt::format("{} of {} must be a string", what, a.fnName));
  std::string s = std::get<std::string>(v.c.v);
  std::string list;
  for (const char *x : allowed) {
    if (s == x) return s;
    list += fmt::format("{}\"{}\"", list.empty() ? "" : ", ", x);
  }
  fail(a.locs[i], fmt::format("{} of {} must be one of {}, got \"{}\"", what, a.fnName, list, s));
}

ir::Value *atomicPointer(Lowerer &L, const CallArgs &a) {
  const Val &p = a[0];
  if (!p.isIR() || !p.v->type.elem.isPtr)
    fail(a.locs[0], fmt::format("{} expects a pointer or a tensor of pointers, got {}", a.fnName, L.typeName(p)));
  return p.v;
}

/// Whether `kind` may operate on pointee type s (Triton's set).
/// Triton 3.6's element-type rule (semantic.py): atomic_cas takes 16, 32
/// and 64-bit elements; the other atomics reject i1, 8- and 16-bit integers,
/// and f16/bf16 except for add. The empty string: accepted.
std::string atomicTypeError(const std::string &kind, Scalar s) {
  std::string name = "atomic_" + kind;
  int w = bitWidth(s);
  if (kind == "cas")
    return w == 16 || w == 32 || w == 64 ? "" : "atomic_cas only supports elements with width {16, 32, 64}";
  if ((s == Scalar::F16 || s == Scalar::BF16) && kind != "add")
    return fmt::format("{} does not support {}", name, s == Scalar::F16 ? "fp16" : "bf16");
  if (isInt(s) && w < 32) return fmt::format("{} does not support {}", name, tritonDTypeName(s));
  if (isFloat(s) && (kind == "and" || kind == "or" || kind == "xor"))
    return fmt::format("{} does not support {} (bitwise atomics take integers)", name, tritonDTypeName(s));
  return "";
}

/// A value operand converted to the pointee type and the pointers' shape.
ir::Value *atomicOperand(Lowerer &L, const CallArgs &a, size_t i, ir::Value *ptr) {
  ir::Value *v = L.toIRAs(a[i], ElemType::of(ptr->type.elem.scalar), a.locs[i]);
  if (v->type.isTensor() && !ptr->type.isTensor())
    fail(a.locs[i], fmt::format("{}: a {} operand needs a tensor of pointers", a.fnName, v->type.str()));
  if (ptr->type.isTensor() &&
      (v->type.rank() > ptr->type.rank() ||
       L.broadcastShapes(v->type.shape, ptr->type.shape, a.locs[i], "value and pointer") != ptr->type.shape))
    fail(a.locs[i], fmt::format("{}: operand {} does not broadcast to the pointers' {}", a.fnName, v->type.str(),
                                ptr->type.str()));
  return L.broadcastTo(v, ptr->type.shape, a.locs[i]);
}

ir::Value *atomicMask(Lowerer &L, const CallArgs &a, size_t i, ir::Value *ptr) {
  if (!a.has(i)) return nullptr;
  const Val &m = a[i];
  if (m.isConst() && !m.c.isBool())
    fail(a.locs[i], fmt::format("the mask of {} must be boolean, got {}", a.fnName, m.c.repr()));
  ir::Value *v = L.toCondition(m, a.locs[i], "atomic mask");
  if (m.isIR() && m.v->type.elem != ElemType::of(Scalar::I1))
    fail(a.locs[i], fmt::format("the mask of {} must be boolean, got {} (compare it, e.g. `x != 0`)", a.fnName,
                                m.v->type.str()));
  if (v->type.isTensor() && !ptr->type.isTensor())
    fail(a.locs[i], fmt::format("{}: a tensor mask needs a tensor of pointers", a.fnName));
  if (ptr->type.isTensor() &&
      (v->type.rank() > ptr->type.rank() ||
       L.broadcastShapes(v->type.shape, ptr->type.shape, a.locs[i], "mask and pointer") != ptr->type.shape))
    fail(a.locs[i], fmt::format("{}: mask {} does not broadcast to the pointers' {}", a.fnName, v->type.str(),
                                ptr->type.str()));
  return L.broadcastTo(v, ptr->type.shape, a.locs[i]);
}

void checkAtomicType(const CallArgs &a, const std::string &kind, ir::Value *ptr) {
  std::string err = atomicTypeError(kind, ptr->type.elem.scalar);
  if (!err.empty()) fail(a.loc, err);
}

std::map<std::string, ir::Attr> orderAttrs(const CallArgs &a, size_t semIndex) {
  return {{"sem", orderArg(a, semIndex, "sem", "acq_rel", {"acq_rel", "acquire", "release", "relaxed"})},
          {"scope", orderArg(a, semIndex + 1, "scope", "gpu", {"gpu", "cta", "sys"})}};
}

Val atomicRmw(Lowerer &L, CallArgs &a, const char *kind) {
  ir::Value *ptr = atomicPointer(L, a);
  checkAtomicType(a, kind, ptr);
  ir::Value *val = atomicOperand(L, a, 1, ptr);
  ir::Value *mask = atomicMask(L, a, 2, ptr);
  std::map<std::string, ir::Attr> attrs = orderAttrs(a, 3);
  attrs["kind"] = std::string(kind);
  std::vector<ir::Value *> ops{ptr, val};
  if (mask) ops.push_back(mask);
  ir::Type rt = ptr->type.withElem(ElemType::of(ptr->type.elem.scalar));
  return Val::ir(L.at(a.loc).create(OpKind::AtomicRMW, ops, {rt}, attrs)->result());
}

} // namespace

Val bAtomicAdd(Lowerer &L, CallArgs &a) { return atomicRmw(L, a, "add"); }
Val bAtomicMax(Lowerer &L, CallArgs &a) { return atomicRmw(L, a, "max"); }
Val bAtomicMin(Lowerer &L, CallArgs &a) { return atomicRmw(L, a, "min"); }
Val bAtomicAnd(Lowerer &L, CallArgs &a) { return atomicRmw(L, a, "and"); }
Val bAtomicOr(Lowerer &L, CallArgs &a) { return atomicRmw(L, a, "or"); }
Val bAtomicXor(Lowerer &L, CallArgs &a) { return atomicRmw(L, a, "xor"); }
Val bAtomicXchg(Lowerer &L, CallArgs &a) { return atomicRmw(L, a, "xchg"); }

Val bAtomicCas(Lowerer &L, CallArgs &a) {
  ir::Value *ptr = atomicPointer(L, a);
  checkAtomicType(a, "cas", ptr);
  ir::Value *cmp = atomicOperand(L, a, 1, ptr);
  ir::Value *val = atomicOperand(L, a, 2, ptr);
  ir::Type rt = ptr->type.withElem(ElemType::of(ptr->type.elem.scalar));
  return Val::ir(L.at(a.loc).create(OpKind::AtomicCas, {ptr, cmp, val}, {rt}, orderAttrs(a, 3))->result());
}

} // namespace tile::sema::scan
