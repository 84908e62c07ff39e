// Builtins.cpp - the tl.* functions, tensor methods and the Python builtins
// a kernel may call. Each builtin declares its Python signature once (a
// string in kBuiltins) and gets its arguments matched against it.
#include "sema/BuiltinsAsm.h"
#include "support/Spelling.h"
#include "sema/BuiltinsBlockPtr.h"
#include "sema/BuiltinsDescriptor.h"
#include "sema/BuiltinsMath.h"
#include "sema/BuiltinsScan.h"
#include "sema/BuiltinsSelect.h"
#include "sema/BuiltinsShape.h"
#include "sema/Lowerer.h"

#include <fmt/format.h>

#include <functional>

#include <cctype>
#include <cmath>
#include <sstream>

namespace tile::sema {

using ir::OpKind;

namespace {

struct ParamSpec {
  std::string name;
  bool hasDefault = false;
  ConstValue def;
  bool variadic = false; ///< *name: collects the remaining positional arguments
};

using Handler = Val (*)(Lowerer &, CallArgs &);

struct BuiltinDef {
  const char *names;     ///< qualified names separated by spaces
  const char *signature; ///< "input, axis=None, keep_dims=False"
  Handler handler;
};

ConstValue parseDefault(const std::string &s) {
  if (s == "None") return ConstValue();
  if (s == "True") return true;
  if (s == "False") return false;
  if (s == "()") return ConstTuple{};
  if (!s.empty() && (s[0] == '\'' || s[0] == '"')) return s.substr(1, s.size() - 2);
  if (s.find('.') != std::string::npos) return std::stod(s);
  return static_cast<int64_t>(std::stoll(s));
}

std::vector<ParamSpec> parseSignature(const char *sig) {
  std::vector<ParamSpec> out;
  std::stringstream ss(sig);
  std::string item;
  while (std::getline(ss, item, ',')) {
    size_t a = item.find_first_not_of(' '), b = item.find_last_not_of(' ');
    if (a == std::string::npos) continue;
    item = item.substr(a, b - a + 1);
    ParamSpec p;
    if (item[0] == '*') { p.variadic = true; item = item.substr(1); }
    size_t eq = item.find('=');
    if (eq != std::string::npos) {
      p.hasDefault = true;
      p.def = parseDefault(item.substr(eq + 1));
      item = item.substr(0, eq);
    }
    p.name = item;
    out.push_back(std::move(p));
  }
  return out;
}

// ---- argument helpers

int64_t constInt(const CallArgs &a, size_t i, const char *what) {
  const Val &v = a[i];
  if (v.isConst() && v.c.isInt()) return std::get<int64_t>(v.c.v);
  if (v.isConst() && v.c.isBool()) return std::get<bool>(v.c.v);
  fail(a.locs[i], fmt::format("{} of {} must be a constexpr integer", what, a.fnName));
}

ElemType constDType(const CallArgs &a, size_t i) {
  const Val &v = a[i];
  if (v.isConst())
    if (auto *d = std::get_if<DTypeValue>(&v.c.v)) {
      if (!d->fp8.empty())
        fail(a.locs[i], fmt::format("not supported: tl.{} in '{}' (tile's fp8 types are tl.float8e4nv and tl.float8e5, "
                                    "the formats of Hopper's tensor cores)", d->fp8, a.fnName));
      if (d->isPlain()) return d->type;
    }
  fail(a.locs[i], fmt::format("expected a dtype such as tl.float32 for '{}'", a.fnName));
}

ir::Value *irArg(Lowerer &L, const CallArgs &a, size_t i, const char *what) {
  const Val &v = a[i];
  if (v.isIR()) return v.v;
  return L.toIR(v, a.locs[i], what);
}

ir::Value *tensorArg(Lowerer &L, const CallArgs &a, size_t i) {
  ir::Value *v = irArg(L, a, i, "input");
  return v;
}

/// A shape given as a tuple, a single int, or the remaining varargs.
std::vector<int64_t> shapeArg(const CallArgs &a, size_t i, const std::vector<Val> &rest) {
  std::vector<int64_t> shape;
  auto addDim = [&](const ConstValue &c, Location loc) {
    if (!c.isInt()) fail(loc, fmt::format("shape of {} must hold constexpr integers", a.fnName));
    shape.push_back(std::get<int64_t>(c.v));
  };
  const Val &v = a[i];
  if (v.isConst() && std::holds_alternative<ConstTuple>(v.c.v)) {
    for (const ConstValue &c : std::get<ConstTuple>(v.c.v)) addDim(c, a.locs[i]);
  } else if (v.isConst()) {
    addDim(v.c, a.locs[i]);
  } else {
    fail(a.locs[i], fmt::format("shape of {} must be a constexpr tuple", a.fnName));
  }
  for (const Val &r : rest) {
    if (!r.isConst()) fail(a.loc, fmt::format("shape of {} must hold constexpr integers", a.fnName));
    addDim(r.c, a.loc);
  }
  return shape;
}

/// A shape given through a *shape parameter: one tuple (`x.reshape((2, 4))`)
/// or several ints (`x.reshape(2, 4)`).
std::vector<int64_t> varargShape(const CallArgs &a) {
  if (a.varargs.empty()) fail(a.loc, fmt::format("{}() needs a shape", a.fnName));
  CallArgs first = a;
  first.vals = {a.varargs[0]};
  first.locs = {a.loc};
  return shapeArg(first, 0, std::vector<Val>(a.varargs.begin() + 1, a.varargs.end()));
}

int normalizeAxis(int64_t axis, int rank, Location loc, const std::string &fn) {
  if (axis < -rank || axis >= rank)
    fail(loc, fmt::format("axis {} is out of range for a tensor of rank {} in {}", axis, rank, fn));
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

// ---- program structure

Val bProgramId(Lowerer &L, CallArgs &a) {
  int64_t axis = constInt(a, 0, "axis");
  if (axis < 0 || axis > 2) fail(a.locs[0], fmt::format("program_id axis must be 0, 1 or 2, got {}", axis));
  return Val::ir(L.at(a.loc).programId(static_cast<int>(axis)));
}

Val bNumPrograms(Lowerer &L, CallArgs &a) {
  int64_t axis = constInt(a, 0, "axis");
  if (axis < 0 || axis > 2) fail(a.locs[0], fmt::format("num_programs axis must be 0, 1 or 2, got {}", axis));
  return Val::ir(L.at(a.loc).numPrograms(static_cast<int>(axis)));
}

Val bArange(Lowerer &L, CallArgs &a) {
  for (size_t i = 0; i < 2; ++i)
    if (!a[i].isConst() || !a[i].c.isInt())
      fail(a.locs[i], fmt::format("arange's {} must be a constexpr integer (declare it `: tl.constexpr`)",
                                  i == 0 ? "start" : "end"));
  int64_t start = constInt(a, 0, "start"), end = constInt(a, 1, "end");
  if (end <= start) fail(a.loc, fmt::format("arange needs end > start, got arange({}, {})", start, end));
  int64_t n = end - start;
  if ((n & (n - 1)) != 0)
    fail(a.loc, fmt::format("arange's range must be a power of two, got {} (= {} - {})", n, end, start));
  if (start < INT32_MIN || end > INT32_MAX) fail(a.loc, "arange bounds must fit in int32");
  L.tensorType(ElemType::of(Scalar::I32), {n}, a.loc);
  return Val::ir(L.at(a.loc).arange(start, end));
}

Val makeFull(Lowerer &L, const CallArgs &a, std::vector<int64_t> shape, const Val &value, ElemType t) {
  ir::Type ty = L.tensorType(t, shape, a.loc);
  if (value.isConst()) {
    if (!value.c.isInt() && !value.c.isFloat() && !value.c.isBool())
      fail(a.loc, fmt::format("the fill value of {} must be a number", a.fnName));
    ir::Value *c = L.toIRAs(value, t, a.loc);
    auto &b = L.at(a.loc);
    if (!ty.isTensor()) return Val::ir(c);
    // A splat constant: the constant op itself carries the tensor type.
    ir::Op *op = c->def;
    ir::Attr attr = op->attrs.at("value");
    op->parent->ops.remove_if([&](const std::unique_ptr<ir::Op> &o) { return o.get() == op; });
    ir::Value *r = b.create(OpKind::Constant, {}, {ty}, {{"value", attr}})->result();
    return Val::ir(r);
  }
  ir::Value *v = L.castTo(L.toIR(value, a.loc), t, a.loc);
  if (v->type.isTensor()) fail(a.loc, fmt::format("the fill value of {} must be a scalar", a.fnName));
  return Val::ir(ty.isTensor() ? L.at(a.loc).splat(v, shape) : v);
}

Val bZeros(Lowerer &L, CallArgs &a) { return makeFull(L, a, shapeArg(a, 0, {}), Val::constant(int64_t(0)), constDType(a, 1)); }
Val bFull(Lowerer &L, CallArgs &a) { return makeFull(L, a, shapeArg(a, 0, {}), a[1], constDType(a, 2)); }
Val bZerosLike(Lowerer &L, CallArgs &a) {
  ir::Value *x = tensorArg(L, a, 0);
  ElemType t = a.has(1) ? constDType(a, 1) : x->type.elem;
  return makeFull(L, a, x->type.shape, Val::constant(int64_t(0)), t);
}

// ---- memory

/// boundary_check (and padding_option) belong to block pointers, as in
/// Triton: with a pointer or a tensor of pointers they are errors.
void rejectBlockPointerArgs(const CallArgs &a, size_t boundaryCheck, std::optional<size_t> padding) {
  for (std::optional<size_t> i : {std::optional<size_t>(boundaryCheck), padding}) {
    if (!i || !a.has(*i)) continue;
    const Val &v = a[*i];
    bool empty = v.isConst() && ((std::holds_alternative<ConstTuple>(v.c.v) && std::get<ConstTuple>(v.c.v).empty()) ||
                                 (v.c.isStr() && std::get<std::string>(v.c.v).empty()));
    if (!empty)
      fail(a.locs[*i], fmt::format("{} needs a block pointer (tl.make_block_ptr); a pointer tensor is bounded with mask=",
                                   *i == boundaryCheck ? "boundary_check" : "padding_option"));
  }
}

ir::Value *pointerArg(Lowerer &L, const CallArgs &a) {
  const Val &p = a[0];
  if (!p.isIR() || !p.v->type.elem.isPtr)
    fail(a.locs[0], fmt::format("{} expects a pointer or a tensor of pointers, got {}", a.fnName, L.typeName(p)));
  return p.v;
}


/// A load/store mask: booleans only, as in Triton ("Mask must have boolean
/// scalar type"); a Python bool is a constant mask.
static ir::Value *toMask(Lowerer &L, const Val &v, Location loc, const char *what) {
  if (v.isConst() && !v.c.isBool() && (v.c.isInt() || v.c.isFloat()))
    fail(loc, fmt::format("{} must be boolean, got {}", what, v.c.repr()));
  ir::Value *x = L.toCondition(v, loc, what);
  if (!v.isConst() && v.kind == Val::Kind::IR && !(v.v->type.elem.scalar == Scalar::I1 && !v.v->type.elem.isPtr))
    fail(loc, fmt::format("{} must be boolean, got {} (compare it, e.g. `x != 0`)", what, v.v->type.str()));
  return x;
}

Val bLoad(Lowerer &L, CallArgs &a) {
  if (a[0].kind == Val::Kind::BlockPtr) return blockptr::load(L, a);
  ir::Value *ptr = pointerArg(L, a);
  rejectBlockPointerArgs(a, 3, 4);
  ir::Value *mask = nullptr, *other = nullptr;
  if (a.has(1)) {
    mask = toMask(L, a[1], a.locs[1], "load mask");
    std::vector<int64_t> shape = L.broadcastShapes(ptr->type.shape, mask->type.shape, a.locs[1], "pointer and mask");
    if (!shape.empty()) {
      ptr = L.broadcastTo(ptr, shape, a.loc);
      mask = L.broadcastTo(mask, shape, a.locs[1]);
    }
  }
  ElemType elem = ElemType::of(ptr->type.elem.scalar);
  if (mask && a.has(2)) {
    other = L.toIRAs(a[2], elem, a.locs[2]);
    if (other->type.rank() > ptr->type.rank() ||
        L.broadcastShapes(other->type.shape, ptr->type.shape, a.locs[2], "other and pointer") != ptr->type.shape)
      fail(a.locs[2], fmt::format("'other' of shape {} does not broadcast to the pointer's {}", other->type.str(), ptr->type.str()));
    other = L.broadcastTo(other, ptr->type.shape, a.locs[2]);
  }
  ir::Value *loaded = L.at(a.loc).load(ptr, mask, other);
  // volatile=True: every execution reads memory (a flag polled in a loop),
  // as Triton's ld.volatile; cache_modifier and eviction_policy are hints
  if (a.has(7) && a[7].isConst() && L.isTruthyConst(a[7], a.locs[7])) loaded->def->attrs["volatile"] = true;
  return Val::ir(loaded);
}

Val bStore(Lowerer &L, CallArgs &a) {
  if (a[0].kind == Val::Kind::BlockPtr) return blockptr::store(L, a);
  ir::Value *ptr = pointerArg(L, a);
  rejectBlockPointerArgs(a, 3, std::nullopt);
  ElemType elem = ElemType::of(ptr->type.elem.scalar);
  ir::Value *val = L.toIRAs(a[1], elem, a.locs[1]);
  ir::Value *mask = a.has(2) ? toMask(L, a[2], a.locs[2], "store mask") : nullptr;
  if (val->type.isTensor() && !ptr->type.isTensor())
    fail(a.locs[1], fmt::format("cannot store a {} through a single pointer", val->type.str()));
  std::vector<int64_t> shape = ptr->type.shape;
  if (mask) {
    if (mask->type.isTensor() && !ptr->type.isTensor())
      fail(a.locs[2], "a tensor mask needs a tensor of pointers");
    shape = L.broadcastShapes(shape, mask->type.shape, a.locs[2], "pointer and mask");
    ptr = L.broadcastTo(ptr, shape, a.loc);
    mask = L.broadcastTo(mask, shape, a.locs[2]);
  }
  if (val->type.rank() > static_cast<int>(shape.size()) ||
      L.broadcastShapes(val->type.shape, shape, a.locs[1], "value and pointer") != shape)
    fail(a.locs[1], fmt::format("shape mismatch in store: value is {} but the pointers are {}", val->type.str(),
                                ptr->type.str()));
  val = L.broadcastTo(val, shape, a.locs[1]);
  L.at(a.loc).store(ptr, val, mask);
  return Val::constant(ConstValue());
}

// ---- dot

Val bDot(Lowerer &L, CallArgs &a) {
  ir::Value *x = tensorArg(L, a, 0), *y = tensorArg(L, a, 1);
  // 2-D (M x K @ K x N) or batched 3-D (B x M x K @ B x K x N), as Triton
  int rank = x->type.rank();
  if ((rank != 2 && rank != 3) || y->type.rank() != rank)
    fail(a.loc, fmt::format("dot needs 2-D or 3-D (batched) operands of one rank, got {} and {}", x->type.str(),
                            y->type.str()));
  if (rank == 3 && x->type.shape[0] != y->type.shape[0])
    fail(a.loc, fmt::format("dot batch dimensions differ: {} @ {}", x->type.str(), y->type.str()));
  int64_t M = x->type.shape[rank - 2], K = x->type.shape[rank - 1], K2 = y->type.shape[rank - 2],
          N = y->type.shape[rank - 1];
  std::vector<int64_t> accShape{M, N};
  if (rank == 3) accShape.insert(accShape.begin(), x->type.shape[0]);
  if (K != K2)
    fail(a.loc, fmt::format("dot shape mismatch: {} @ {} (inner dimensions {} and {} differ)", x->type.str(),
                            y->type.str(), K, K2));
  if (M < 16 || N < 16 || K < 16)
    fail(a.loc, fmt::format("dot needs every dimension >= 16 (tensor-core tiles), got M={}, N={}, K={}", M, N, K));
  Scalar s = x->type.elem.scalar;
  // fp8 operands may mix e4m3 and e5m2 (wgmma takes each operand's type), as Triton's
  bool fp8 = x->type.elem.isFp8() && y->type.elem.isFp8();
  if (x->type.elem != y->type.elem && !fp8)
    fail(a.loc, fmt::format("dot operands must have the same dtype, got {} and {}", x->type.elem.str(), y->type.elem.str()));
  bool floatIn = s == Scalar::F16 || s == Scalar::BF16 || s == Scalar::F32 || s == Scalar::F64 || fp8;
  if (!floatIn && s != Scalar::I8)
    fail(a.loc, fmt::format("dot supports f16, bf16, f32, f64, fp8 (float8e4nv, float8e5) and i8 operands, got {}",
                            x->type.elem.str()));
  // Triton's result type: i32 for i8, f64 for f64, f32 for f32, bf16 and
  // fp8 (out_dtype bf16 is an error), out_dtype (f16 or f32) for f16 operands.
  ElemType out = ElemType::of(s == Scalar::I8 ? Scalar::I32 : s == Scalar::F64 ? Scalar::F64 : Scalar::F32);
  if (a.has(6) && floatIn) {
    ElemType want = constDType(a, 6);
    if (want.scalar == Scalar::BF16)
      fail(a.locs[6], "out_dtype=bfloat16 is unsupported. Please use out_dtype=float32/float16 and cast with "
                      "`.to(tl.bfloat16)`");
    if (s == Scalar::F16 && want.scalar != Scalar::F16 && want.scalar != Scalar::F32)
      fail(a.locs[6], fmt::format("out_dtype of a dot of f16 operands must be float16 or float32, got {}", want.str()));
    if (fp8 && want.scalar != Scalar::F32)
      fail(a.locs[6], fmt::format("out_dtype of a dot of fp8 operands must be float32 (tile accumulates fp8 dots in "
                                  "f32; cast the result with `.to()`), got {}", want.str()));
    if (s == Scalar::F16) out = want;
  }
  ir::Value *acc;
  if (a.has(2)) {
    acc = irArg(L, a, 2, "acc");
    if (acc->type.shape != accShape)
      fail(a.locs[2], fmt::format("dot accumulator must be {}{}x{}, got {}",
                                  rank == 3 ? fmt::format("{}x", accShape[0]) : "", M, N, acc->type.str()));
    if (acc->type.elem.isPtr || (floatIn && !acc->type.elem.isFloat()))
      fail(a.locs[2], fmt::format("dot accumulator of type {} does not match {} operands", acc->type.str(), x->type.elem.str()));
    Scalar as = acc->type.elem.scalar;
    if (!floatIn && as != Scalar::I32)   // Triton asserts acc.type == its int32 result
      fail(a.locs[2], fmt::format("dot accumulator of type {} does not match {} operands (expected int32)",
                                  acc->type.str(), x->type.elem.str()));
    if (floatIn && as != out.scalar && !(s == Scalar::F16 && (as == Scalar::F16 || as == Scalar::F32)))
      fail(a.locs[2], fmt::format("dot accumulator of type {} does not match {} operands (expected {})",
                                  acc->type.str(), x->type.elem.str(), out.str()));
  } else {
    acc = makeFull(L, a, accShape, Val::constant(int64_t(0)), out).v;
  }
  std::string prec = s == Scalar::F32 ? "tf32" : "ieee";
  if (a.has(4) && a[4].isConst() && a[4].c.isBool()) prec = std::get<bool>(a[4].c.v) && s == Scalar::F32 ? "tf32" : "ieee";
  if (a.has(3)) {
    if (!a[3].isConst() || !a[3].c.isStr()) fail(a.locs[3], "input_precision must be a string");
    prec = std::get<std::string>(a[3].c.v);
    if (prec != "tf32" && prec != "tf32x3" && prec != "ieee")
      fail(a.locs[3], fmt::format("input_precision must be \"tf32\", \"tf32x3\" or \"ieee\", got \"{}\"", prec));
  }
  return Val::ir(L.at(a.loc).dot(x, y, acc, prec));
}

// ---- elementwise

Val bWhere(Lowerer &L, CallArgs &a) {
  ir::Value *c = L.toCondition(a[0], a.locs[0], "where condition");
  auto [x, y] = L.selectArms(a[1], a[2], a.loc, a.locs[1], a.locs[2], "where");
  std::vector<int64_t> shape = L.broadcastShapes(c->type.shape, x->type.shape, a.loc, "condition and value");
  if (!shape.empty()) {
    c = L.broadcastTo(c, shape, a.locs[0]);
    x = L.broadcastTo(x, shape, a.locs[1]);
    y = L.broadcastTo(y, shape, a.locs[2]);
  }
  return Val::ir(L.at(a.loc).select(c, x, y));
}

Val minMax(Lowerer &L, CallArgs &a, OpKind k) {
  auto [x, y] = L.promote(a[0], a[1], a.loc);
  bool propagate = false;
  if (a.has(2) && a[2].isConst()) propagate = L.isTruthyConst(a[2], a.loc);
  ir::Op *op = L.at(a.loc).create(k, {x, y}, {x->type});
  if (propagate) op->attrs["propagate_nan"] = true;
  return Val::ir(op->result());
}
Val bMinimum(Lowerer &L, CallArgs &a) { return minMax(L, a, OpKind::Min); }
Val bMaximum(Lowerer &L, CallArgs &a) { return minMax(L, a, OpKind::Max); }

/// Float math: f16/bf16 compute in f32 and round back; ints are an error.
Val floatMath(Lowerer &L, CallArgs &a, OpKind k) {
  ir::Value *x = irArg(L, a, 0, "input");
  ElemType t = x->type.elem;
  if (!t.isFloat()) fail(a.locs[0], fmt::format("{} expects a floating-point input, got {}", a.fnName, x->type.str()));
  bool narrow = t.scalar == Scalar::F16 || t.scalar == Scalar::BF16;
  ir::Value *w = narrow ? L.castTo(x, ElemType::of(Scalar::F32), a.loc) : x;
  ir::Value *r = L.at(a.loc).unary(k, w);
  return Val::ir(narrow ? L.castTo(r, t, a.loc) : r);
}
#define TILE_MATH(Name, Kind) \
  Val b##Name(Lowerer &L, CallArgs &a) { return floatMath(L, a, OpKind::Kind); }
TILE_MATH(Exp, Exp)
TILE_MATH(Exp2, Exp2)
TILE_MATH(Log, Log)
TILE_MATH(Log2, Log2)
TILE_MATH(Sqrt, Sqrt)
TILE_MATH(Rsqrt, Rsqrt)
TILE_MATH(Sin, Sin)
TILE_MATH(Cos, Cos)
TILE_MATH(Floor, Floor)
TILE_MATH(Ceil, Ceil)
#undef TILE_MATH

Val bAbs(Lowerer &L, CallArgs &a) {
  if (a[0].isConst()) {
    const ConstValue &c = a[0].c;
    if (c.isInt()) return Val::constant(std::abs(std::get<int64_t>(c.v)));
    if (c.isFloat()) return Val::constant(std::fabs(std::get<double>(c.v)));
  }
  ir::Value *x = irArg(L, a, 0, "input");
  if (x->type.elem.isPtr) fail(a.locs[0], "abs of a pointer");
  if (x->type.elem.isInt() && !isSigned(x->type.elem.scalar)) return Val::ir(x);
  return Val::ir(L.at(a.loc).unary(OpKind::Abs, x));
}

Val bSigmoid(Lowerer &L, CallArgs &a) {
  ir::Value *x = irArg(L, a, 0, "input");
  if (!x->type.elem.isFloat()) fail(a.locs[0], fmt::format("sigmoid expects a floating-point input, got {}", x->type.str()));
  ElemType t = x->type.elem;
  ir::Value *w = L.castTo(x, ElemType::of(t.scalar == Scalar::F64 ? Scalar::F64 : Scalar::F32), a.loc);
  auto &b = L.at(a.loc);
  ir::Value *one = b.constantFloat(1.0, w->type);
  ir::Value *e = b.unary(OpKind::Exp, b.unary(OpKind::Neg, w));
  ir::Value *r = b.binary(OpKind::Div, one, b.binary(OpKind::Add, one, e));
  return Val::ir(L.castTo(r, t, a.loc));
}

Val bFma(Lowerer &L, CallArgs &a) {
  auto [x, y] = L.promote(a[0], a[1], a.loc);
  auto [xy, z] = L.promote(Val::ir(x), a[2], a.loc);
  x = L.broadcastTo(x, xy->type.shape, a.loc);
  y = L.broadcastTo(L.castTo(y, xy->type.elem, a.loc), xy->type.shape, a.loc);
  x = L.castTo(x, xy->type.elem, a.loc);
  if (!xy->type.elem.isFloat()) fail(a.loc, fmt::format("fma expects floating-point inputs, got {}", xy->type.str()));
  return Val::ir(L.at(a.loc).fma(x, y, z));
}

Val bCdiv(Lowerer &L, CallArgs &a) {
  Val sum = L.binaryOp(ast::BinOpKind::Add, a[0], a[1], a.loc);
  sum = L.binaryOp(ast::BinOpKind::Sub, sum, Val::constant(int64_t(1)), a.loc);
  return L.binaryOp(ast::BinOpKind::FloorDiv, sum, a[1], a.loc);
}

// ---- reductions

std::optional<int> axisArg(const CallArgs &a, size_t i) {
  if (!a.has(i)) return std::nullopt;
  return static_cast<int>(constInt(a, i, "axis"));
}

bool boolArg(Lowerer &L, const CallArgs &a, size_t i) {
  if (!a.has(i)) return false;
  if (!a[i].isConst()) fail(a.locs[i], fmt::format("argument of {} must be a constexpr bool", a.fnName));
  return L.isTruthyConst(a[i], a.locs[i]);
}

Val bSum(Lowerer &L, CallArgs &a) {
  ir::Value *x = irArg(L, a, 0, "input");
  if (x->type.elem.isPtr) fail(a.locs[0], "cannot sum pointers");
  ElemType t = x->type.elem;
  if (a.has(3)) t = constDType(a, 3);
  else if (t.isInt() && bitWidth(t.scalar) < 32) t = ElemType::of(isSigned(t.scalar) ? Scalar::I32 : Scalar::U32);
  x = L.castTo(x, t, a.loc);
  return Val::ir(L.reduceAll(x, "sum", axisArg(a, 1), boolArg(L, a, 2), a.loc));
}

Val maxMinReduce(Lowerer &L, CallArgs &a, const char *kind, const char *argKind) {
  ir::Value *x = irArg(L, a, 0, "input");
  if (x->type.elem.isPtr) fail(a.locs[0], fmt::format("cannot take the {} of pointers", kind));
  auto axis = axisArg(a, 1);
  bool keep = boolArg(L, a, 4);
  bool withIndices = boolArg(L, a, 2);
  // As Triton: bf16 reduces in f32; without indices, every type narrower
  // than 32 bits reduces in f32 / i32 (and the result has that type).
  ElemType t = x->type.elem;
  if (t.scalar == Scalar::BF16 || (!withIndices && t.isFloat() && bitWidth(t.scalar) < 32))
    x = L.castTo(x, ElemType::of(Scalar::F32), a.loc);
  else if (!withIndices && t.isInt() && bitWidth(t.scalar) < 32)
    x = L.castTo(x, ElemType::of(Scalar::I32), a.loc);
  ir::Value *m = L.reduceAll(x, kind, axis, keep, a.loc);
  if (!withIndices) return Val::ir(m);
  ir::Value *i = L.reduceAll(x, argKind, axis, keep, a.loc);
  return Val::tuple({Val::ir(m), Val::ir(i)});
}
Val bMax(Lowerer &L, CallArgs &a) { return maxMinReduce(L, a, "max", "argmax"); }

/// Triton's standard.softmax: over `dim` (None is 0), x - max(x) then exp
/// and division by the sum, the max and sum kept as dims or not (without,
/// the reduced tile broadcasts as trailing dims, as in Triton). Narrow
/// floats reduce in f32, so, as in Triton, the result of an f16 input is f32.
Val bSoftmax(Lowerer &L, CallArgs &a) {
  ir::Value *x = irArg(L, a, 0, "input");
  if (!x->type.elem.isFloat() || !x->type.isTensor())
    fail(a.locs[0], fmt::format("softmax expects a floating-point tensor, got {}", x->type.str()));
  int dim = axisArg(a, 1).value_or(0);
  bool keep = boolArg(L, a, 2);
  ElemType t = x->type.elem;
  ir::Value *w = bitWidth(t.scalar) < 32 ? L.castTo(x, ElemType::of(Scalar::F32), a.loc) : x;
  ir::Value *m = L.reduceAll(w, "max", dim, keep, a.loc);
  Val z = L.binaryOp(ast::BinOpKind::Sub, Val::ir(x), Val::ir(m), a.loc);
  ir::Value *num = L.at(a.loc).unary(OpKind::Exp, z.v);
  ir::Value *den = L.reduceAll(num, "sum", dim, keep, a.loc);
  return L.binaryOp(ast::BinOpKind::Div, Val::ir(num), Val::ir(den), a.loc);
}
Val bMin(Lowerer &L, CallArgs &a) { return maxMinReduce(L, a, "min", "argmin"); }

Val argReduce(Lowerer &L, CallArgs &a, const char *kind) {
  ir::Value *x = irArg(L, a, 0, "input");
  if (x->type.elem.scalar == Scalar::BF16 && !x->type.elem.isPtr) x = L.castTo(x, ElemType::of(Scalar::F32), a.loc);
  if (!a.has(1)) fail(a.loc, fmt::format("{} needs an axis", a.fnName));
  return Val::ir(L.reduceAll(x, kind, axisArg(a, 1), boolArg(L, a, 3), a.loc));
}
Val bArgmax(Lowerer &L, CallArgs &a) { return argReduce(L, a, "argmax"); }
Val bArgmin(Lowerer &L, CallArgs &a) { return argReduce(L, a, "argmin"); }

// ---- shapes

Val bBroadcastTo(Lowerer &L, CallArgs &a) {
  ir::Value *x = irArg(L, a, 0, "input");
  std::vector<int64_t> shape = varargShape(a);
  L.tensorType(x->type.elem, shape, a.loc);
  if (x->type.rank() > static_cast<int>(shape.size()) ||
      L.broadcastShapes(x->type.shape, shape, a.loc, "input and target") != shape)
    fail(a.loc, fmt::format("cannot broadcast {} to the requested shape", x->type.str()));
  return Val::ir(L.broadcastTo(x, shape, a.loc));
}

Val bBroadcast(Lowerer &L, CallArgs &a) {
  ir::Value *x = irArg(L, a, 0, "input"), *y = irArg(L, a, 1, "other");
  std::vector<int64_t> shape = L.broadcastShapes(x->type.shape, y->type.shape, a.loc, "operand");
  return Val::tuple({Val::ir(L.broadcastTo(x, shape, a.loc)), Val::ir(L.broadcastTo(y, shape, a.loc))});
}

Val bExpandDims(Lowerer &L, CallArgs &a) {
  ir::Value *x = irArg(L, a, 0, "input");
  std::vector<int64_t> axes = shapeArg(a, 1, {});
  int outRank = x->type.rank() + static_cast<int>(axes.size());
  std::vector<int> norm;
  for (int64_t ax : axes) norm.push_back(normalizeAxis(ax, outRank, a.locs[1], a.fnName));
  std::sort(norm.begin(), norm.end());
  for (int ax : norm) x = x->type.isTensor() ? L.at(a.loc).expandDims(x, ax) : L.at(a.loc).splat(x, {1});
  return Val::ir(x);
}

Val bReshape(Lowerer &L, CallArgs &a) {
  ir::Value *x = irArg(L, a, 0, "input");
  std::vector<int64_t> shape = varargShape(a);
  ir::Type t = L.tensorType(x->type.elem, shape, a.loc);
  if (t.numElements() != x->type.numElements())
    fail(a.loc, fmt::format("cannot reshape {} ({} elements) to {} ({} elements)", x->type.str(),
                            x->type.numElements(), t.str(), t.numElements()));
  if (!t.isTensor()) fail(a.loc, "reshape to a scalar is not supported");
  if (!x->type.isTensor()) return Val::ir(L.at(a.loc).splat(x, shape));
  return Val::ir(L.at(a.loc).reshape(x, shape));
}

Val permuteImpl(Lowerer &L, const CallArgs &a, ir::Value *x, std::vector<int64_t> order) {
  int rank = x->type.rank();
  if (static_cast<int>(order.size()) != rank)
    fail(a.loc, fmt::format("{} needs {} dimensions for {}, got {}", a.fnName, rank, x->type.str(), order.size()));
  std::vector<bool> seen(rank);
  for (int64_t &d : order) {
    d = normalizeAxis(d, rank, a.loc, a.fnName);
    if (seen[d]) fail(a.loc, fmt::format("{}: dimension {} appears twice", a.fnName, d));
    seen[d] = true;
  }
  return Val::ir(L.at(a.loc).permute(x, order));
}

Val bTrans(Lowerer &L, CallArgs &a) {
  ir::Value *x = irArg(L, a, 0, "input");
  if (a.varargs.empty()) {
    if (x->type.rank() != 2) fail(a.loc, fmt::format("trans without dims needs a 2-D tensor, got {}", x->type.str()));
    return Val::ir(L.at(a.loc).permute(x, {1, 0}));
  }
  return permuteImpl(L, a, x, varargShape(a));
}

Val bPermute(Lowerer &L, CallArgs &a) {
  ir::Value *x = irArg(L, a, 0, "input");
  return permuteImpl(L, a, x, varargShape(a));
}

/// tl.multiple_of / max_contiguous / max_constancy(input, values): a `hint`
/// op carrying the values per dim (an int applies to every dim), which the
/// GPU's axis analysis takes for vector widths; constexpr inputs are left
/// as they are (there is nothing to vectorize).
Val bHint(Lowerer &L, CallArgs &a) {
  if (!a[1].isConst()) fail(a.locs[1], fmt::format("the values of {} must be constexpr", a.fnName));
  if (!a[0].isIR()) return a[0];
  ir::Value *x = a[0].v;
  if (!x->type.elem.isPtr && !x->type.elem.isInt())
    fail(a.locs[0], fmt::format("{} applies to integers and pointers, got {}", a.fnName, x->type.str()));
  size_t rank = std::max<size_t>(1, x->type.shape.size());
  std::vector<int64_t> values;
  const ConstValue &c = a[1].c;
  if (c.isInt()) values.assign(rank, std::get<int64_t>(c.v));
  else if (const auto *t = std::get_if<ConstTuple>(&c.v)) {
    for (const ConstValue &e : *t) {
      if (!e.isInt()) fail(a.locs[1], fmt::format("the values of {} must be integers", a.fnName));
      values.push_back(std::get<int64_t>(e.v));
    }
  } else
    fail(a.locs[1], fmt::format("the values of {} must be an integer or a tuple of integers", a.fnName));
  if (values.size() != rank)
    fail(a.locs[1], fmt::format("{} needs {} value(s) for {}, got {}", a.fnName, rank, x->type.str(), values.size()));
  for (int64_t v : values)
    if (v < 1) fail(a.locs[1], fmt::format("the values of {} must be positive, got {}", a.fnName, v));
  std::string name = a.fnName.substr(a.fnName.rfind('.') + 1);
  ir::Op *op = L.at(a.loc).create(ir::OpKind::Hint, {x}, {x->type});
  op->attrs[name] = values;
  // Triton's hints annotate their input in place (the value, whatever
  // names it): `tl.multiple_of(a_ptrs, [16, 16])` as a statement, its result
  // dropped, still holds for the loads of a_ptrs that follow (tutorial 08's
  // grouped GEMM). So the names bound to the input now name the hint.
  std::function<void(Val &)> rebind = [&](Val &v) {
    if (v.isIR() && v.v == x) v.v = op->result();
    if (v.kind == Val::Kind::Tuple)
      for (Val &e : v.elts) rebind(e);
  };
  for (auto &[n, v] : L.scope) rebind(v);
  return Val::ir(op->result());
}

// ---- casts and constexpr helpers

/// fp_downcast_rounding= of tl.cast / .to(): None or "rtne" (the default),
/// or "rtz", which Triton has for f32 -> f16, bf16 and float8e5 only.
/// Returns true for rtz.
bool downcastRounding(Lowerer &L, const CallArgs &a, ElemType to) {
  if (!a.has(2) || (a[2].isConst() && a[2].c.isNone())) return false;
  if (!a[2].isConst() || !a[2].c.isStr()) fail(a.locs[2], "fp_downcast_rounding must be a string: 'rtne' or 'rtz'");
  const std::string &r = std::get<std::string>(a[2].c.v);
  if (r != "rtne" && r != "rtz")
    fail(a.locs[2], fmt::format("unknown fp_downcast_rounding '{}' (expected 'rtne' or 'rtz')", r));
  ElemType from = L.valElemType(a[0]);
  bool downcast = from.isFloat() && to.isFloat() && bitWidth(to.scalar) < bitWidth(from.scalar);
  if (!downcast)
    fail(a.locs[2], fmt::format("fp_downcast_rounding applies to narrowing float conversions only, not {} to {}",
                                from.str(), to.str()));
  if (r == "rtne") return false;
  bool rtzTarget = to.scalar == Scalar::F16 || to.scalar == Scalar::BF16 || to.scalar == Scalar::F8E5M2;
  if (from.scalar != Scalar::F32 || !rtzTarget)
    fail(a.locs[2], fmt::format("fp_downcast_rounding='rtz' converts float32 to float16, bfloat16 or float8e5 only "
                                "(as in Triton), not {} to {}",
                                tritonDTypeName(from.scalar), tritonDTypeName(to.scalar)));
  return true;
}

Val bCast(Lowerer &L, CallArgs &a) {
  ElemType t = constDType(a, 1);
  bool bitcast = boolArg(L, a, 3);
  if (!bitcast && downcastRounding(L, a, t)) {
    ir::Value *x = irArg(L, a, 0, "input");
    ir::Value *r = L.at(a.loc).cast(x, t);
    r->def->attrs["rounding"] = std::string("rtz");
    return Val::ir(r);
  }
  if (!bitcast) return Val::ir(L.toIRAs(a[0], t, a.locs[0]));
  ir::Value *x = irArg(L, a, 0, "input");
  int from = x->type.elem.isPtr ? 64 : bitWidth(x->type.elem.scalar), to = t.isPtr ? 64 : bitWidth(t.scalar);
  if (from != to) fail(a.loc, fmt::format("bitcast needs equal bit widths, got {} and {}", x->type.elem.str(), t.str()));
  if (x->type.elem == t) return Val::ir(x);
  return Val::ir(L.at(a.loc).bitcast(x, t));
}

/// tl.pointer_type(element_ty, address_space=1): the dtype of pointers to
/// element_ty (global memory only), for int <-> pointer casts.
Val bPointerType(Lowerer &, CallArgs &a) {
  ElemType t = constDType(a, 0);
  if (t.isPtr) fail(a.locs[0], "not supported: pointers to pointers (tl.pointer_type of a pointer type)");
  if (a.has(1) && !(a[1].isConst() && a[1].c.isInt() && std::get<int64_t>(a[1].c.v) == 1))
    fail(a.locs[1], "not supported: address spaces other than 1 (global memory)");
  return Val::constant(DTypeValue{ElemType::ptrTo(t.scalar), {}, {}});
}

/// tl.assume(cond): a hint for the optimizer; tile takes nothing from it
/// (the condition is still evaluated for its errors).
Val bAssume(Lowerer &L, CallArgs &a) {
  if (!a[0].isConst()) L.toCondition(a[0], a.locs[0], "assume condition");
  return Val::constant(ConstValue());
}

/// tl.debug_barrier(): a `barrier` op (bar.sync on the GPU).
Val bDebugBarrier(Lowerer &L, CallArgs &a) {
  L.at(a.loc).create(ir::OpKind::Barrier, {}, {});
  return Val::constant(ConstValue());
}

/// getattr(obj, "name"): the attribute named by a constexpr string (in
/// Triton's builtin namespace: `getattr(libdevice, FN)(x)`).
Val pyGetattr(Lowerer &L, CallArgs &a) {
  if (!a[1].isConst() || !a[1].c.isStr()) fail(a.locs[1], "getattr() needs a constexpr string attribute name");
  return L.getAttribute(a[0], std::get<std::string>(a[1].c.v), a.locs[1]);
}

Val bConstexpr(Lowerer &L, CallArgs &a) {
  if (!a[0].isConst()) fail(a.locs[0], "tl.constexpr needs a compile-time value");
  return a[0];
}

/// tl.range's loop hints, checked as Triton does (constexpr ints and bools):
/// (num_stages, loop_unroll_factor), None where not given; the for op gets
/// them as attributes (see lowerFor). disallow_acc_multi_buffer, flatten and
/// warp_specialize are accepted and ignored (docs/language.md says why).
ConstValue rangeHints(Lowerer &L, const CallArgs &a) {
  ConstTuple hints;
  const char *ints[] = {"num_stages", "loop_unroll_factor"};
  for (size_t i = 3; i < 5; ++i) {
    if (!a.has(i)) { hints.push_back(ConstValue()); continue; }
    if (!a[i].isConst() || !a[i].c.isInt() || std::get<int64_t>(a[i].c.v) < 0)
      fail(a.locs[i], fmt::format("{} of tl.range must be a constexpr non-negative integer, got {}", ints[i - 3],
                                  L.typeName(a[i])));
    hints.push_back(a[i].c);
  }
  for (size_t i = 5; i < 8; ++i)
    if (a.has(i) && !(a[i].isConst() && (a[i].c.isBool() || a[i].c.isInt())))
      fail(a.locs[i], fmt::format("this option of tl.range must be a constexpr bool, got {}", L.typeName(a[i])));
  return hints;
}

Val makeRange(Lowerer &L, CallArgs &a, bool isStatic) {
  Val r;
  r.kind = Val::Kind::Range;
  r.staticRange = isStatic;
  if (a.has(1)) r.elts = {a[0], a[1], a.has(2) ? a[2] : Val::constant(int64_t(1))};
  else r.elts = {Val::constant(int64_t(0)), a[0], a.has(2) ? a[2] : Val::constant(int64_t(1))};
  for (const Val &v : r.elts)
    if (!(v.isIR() || (v.isConst() && (v.c.isInt() || v.c.isBool()))))
      fail(a.loc, fmt::format("range bounds must be integers, got {}", L.typeName(v)));
  if (isStatic)
    for (const Val &v : r.elts)
      if (!v.isConst()) fail(a.loc, "static_range bounds must be constexpr");
  if (a.vals.size() > 3) r.c = rangeHints(L, a);
  return r;
}
Val bRange(Lowerer &L, CallArgs &a) { return makeRange(L, a, false); }
Val bStaticRange(Lowerer &L, CallArgs &a) { return makeRange(L, a, true); }

Val bDevicePrint(Lowerer &L, CallArgs &a) {
  if (!a[0].isConst() || !a[0].c.isStr()) fail(a.locs[0], "device_print's prefix must be a string");
  std::vector<ir::Value *> vals;
  for (const Val &v : a.varargs) vals.push_back(L.toIR(v, a.loc, "device_print argument"));
  ir::Op *op = L.at(a.loc).create(OpKind::Print, vals, {});
  op->attrs["prefix"] = std::get<std::string>(a[0].c.v);
  op->attrs["hex"] = boolArg(L, a, 1);
  return Val::constant(ConstValue());
}

std::string valueText(Lowerer &L, const Val &v) { return v.isConst() ? v.c.repr() : L.typeName(v); }

Val bStaticPrint(Lowerer &L, CallArgs &a) {
  std::string line;
  for (const Val &v : a.varargs) line += (line.empty() ? "" : " ") + valueText(L, v);
  fmt::print(stderr, "{}\n", line);
  return Val::constant(ConstValue());
}

Val bStaticAssert(Lowerer &L, CallArgs &a) {
  if (!a[0].isConst()) fail(a.locs[0], "static_assert needs a constexpr condition");
  if (!L.isTruthyConst(a[0], a.locs[0])) {
    std::string msg = a.has(1) && a[1].isConst() && a[1].c.isStr() ? std::get<std::string>(a[1].c.v) : "";
    fail(a.loc, msg.empty() ? "static assertion failed" : "static assertion failed: " + msg);
  }
  return Val::constant(ConstValue());
}

Val bDeviceAssert(Lowerer &L, CallArgs &a) {
  ir::Value *c = L.toCondition(a[0], a.locs[0], "device_assert condition");
  std::string msg = a.has(1) && a[1].isConst() && a[1].c.isStr() ? std::get<std::string>(a[1].c.v) : "";
  ir::Op *op = L.at(a.loc).create(OpKind::Assert, {c}, {});
  op->attrs["msg"] = msg;
  return Val::constant(ConstValue());
}

// ---- Python builtins on constexprs

ConstValue constOnly(const CallArgs &a, size_t i) {
  if (!a[i].isConst()) fail(a.locs[i], fmt::format("{}() in a kernel needs constexpr arguments", a.fnName));
  return a[i].c;
}

/// min/max with a runtime argument: as in Triton's code generator, the
/// builtins are tl.minimum / tl.maximum then (folded left to right).
Val pyMinMaxRuntime(Lowerer &L, const CallArgs &a, bool isMax) {
  if (a.varargs.empty() || a[0].kind == Val::Kind::Tuple)
    fail(a.loc, fmt::format("{}() of runtime values needs at least two arguments", a.fnName));
  Val acc = a[0];
  for (const Val &v : a.varargs) {
    auto [x, y] = L.promote(acc, v, a.loc);
    acc = Val::ir(L.at(a.loc).binary(isMax ? OpKind::Max : OpKind::Min, x, y));
  }
  return acc;
}

Val pyMinMax(Lowerer &L, CallArgs &a, bool isMax) {
  bool runtime = !a[0].isConst();
  for (const Val &v : a.varargs) runtime |= !v.isConst();
  if (runtime) return pyMinMaxRuntime(L, a, isMax);
  std::vector<ConstValue> vals;
  const ConstValue first = constOnly(a, 0);
  if (auto *t = std::get_if<ConstTuple>(&first.v); t && a.varargs.empty()) vals = *t;
  else vals.push_back(first);
  for (const Val &v : a.varargs) {
    if (!v.isConst()) fail(a.loc, fmt::format("{}() in a kernel needs constexpr arguments; use tl.{} for tensors",
                                              a.fnName, isMax ? "maximum" : "minimum"));
    vals.push_back(v.c);
  }
  if (vals.empty()) fail(a.loc, fmt::format("{}() of an empty sequence", a.fnName));
  ConstValue best = vals[0];
  for (size_t i = 1; i < vals.size(); ++i) {
    ConstValue gt = constCompare(isMax ? ast::CmpOpKind::Gt : ast::CmpOpKind::Lt, vals[i], best, a.loc);
    if (std::get<bool>(gt.v)) best = vals[i];
  }
  return Val::constant(best);
}
Val pyMin(Lowerer &L, CallArgs &a) { return pyMinMax(L, a, false); }
Val pyMax(Lowerer &L, CallArgs &a) { return pyMinMax(L, a, true); }

Val pyLen(Lowerer &L, CallArgs &a) {
  const Val &v = a[0];
  if (v.kind == Val::Kind::Tuple) return Val::constant(static_cast<int64_t>(v.elts.size()));
  if (v.isConst())
    if (auto *t = std::get_if<ConstTuple>(&v.c.v)) return Val::constant(static_cast<int64_t>(t->size()));
  if (v.isTensor()) return Val::constant(v.v->type.shape[0]);
  fail(a.locs[0], fmt::format("len() of {}", L.typeName(v)));
}

Val pyInt(Lowerer &L, CallArgs &a) {
  ConstValue c = constOnly(a, 0);
  if (c.isFloat()) {
    double d = std::get<double>(c.v);
    if (!std::isfinite(d) || std::fabs(d) > 9.2e18) fail(a.locs[0], "int() of a value out of range");
    return Val::constant(static_cast<int64_t>(d));
  }
  if (c.isBool()) return Val::constant(int64_t(std::get<bool>(c.v)));
  if (c.isInt()) return Val::constant(c);
  fail(a.locs[0], "int() needs a number");
}

Val pyFloat(Lowerer &L, CallArgs &a) {
  ConstValue c = constOnly(a, 0);
  if (c.isFloat()) return Val::constant(c);
  if (c.isInt()) return Val::constant(static_cast<double>(std::get<int64_t>(c.v)));
  if (c.isBool()) return Val::constant(std::get<bool>(c.v) ? 1.0 : 0.0);
  if (c.isStr()) {
    std::string s = std::get<std::string>(c.v);
    for (char &ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (s == "inf" || s == "+inf" || s == "infinity") return Val::constant(HUGE_VAL);
    if (s == "-inf" || s == "-infinity") return Val::constant(-HUGE_VAL);
    if (s == "nan" || s == "+nan" || s == "-nan") return Val::constant(std::nan(""));
    try {
      size_t used = 0;
      double d = std::stod(s, &used);
      if (used == s.size()) return Val::constant(d);
    } catch (...) {
    }
    fail(a.locs[0], fmt::format("could not convert string to float: '{}'", std::get<std::string>(c.v)));
  }
  fail(a.locs[0], "float() needs a number or a string");
}

Val pyBool(Lowerer &L, CallArgs &a) { return Val::constant(L.isTruthyConst(Val::constant(constOnly(a, 0)), a.loc)); }

Val nextPow2(Lowerer &L, CallArgs &a) {
  int64_t n = constInt(a, 0, "n");
  if (n > (int64_t(1) << 62)) fail(a.locs[0], "next_power_of_2 argument too large");
  int64_t p = 1;
  while (p < n) p <<= 1;
  return Val::constant(p);
}

// The table. Names without a prefix get "tl." (and are reachable as tensor
// methods when the receiver is the first parameter).
const BuiltinDef kBuiltins[] = {
    {"tl.program_id", "axis", bProgramId},
    {"tl.num_programs", "axis", bNumPrograms},
    {"tl.arange", "start, end", bArange},
    {"tl.zeros", "shape, dtype", bZeros},
    {"tl.full", "shape, value, dtype", bFull},
    {"tl.zeros_like", "input, dtype=None", bZerosLike},
    {"tl.load", "pointer, mask=None, other=None, boundary_check=(), padding_option='', cache_modifier='', "
                "eviction_policy='', volatile=False", bLoad},
    {"tl.store", "pointer, value, mask=None, boundary_check=(), cache_modifier='', eviction_policy=''", bStore},
    // Block pointers (BuiltinsBlockPtr.cpp); tl.load/tl.store dispatch on them.
    {"tl.make_block_ptr", "base, shape, strides, offsets, block_shape, order", blockptr::bMakeBlockPtr},
    {"tl.advance", "base, offsets", blockptr::bAdvance},
    // Tensor descriptors (BuiltinsDescriptor.cpp); desc.load / desc.store too.
    {"tl.make_tensor_descriptor", "base, shape, strides, block_shape, padding_option='zero'", descriptor::bMake},
    {"tl.load_tensor_descriptor", "desc, offsets", descriptor::bLoad},
    {"tl.store_tensor_descriptor", "desc, offsets, value", descriptor::bStore},
    {"tl.dot", "input, other, acc=None, input_precision=None, allow_tf32=None, max_num_imprecise_acc=None, "
               "out_dtype=None", bDot},
    {"tl.where", "condition, x, y", bWhere},
    {"tl.minimum", "x, y, propagate_nan=None", bMinimum},
    {"tl.maximum", "x, y, propagate_nan=None", bMaximum},
    {"tl.exp", "x", bExp}, {"tl.exp2", "x", bExp2}, {"tl.log", "x", bLog}, {"tl.log2", "x", bLog2},
    {"tl.sqrt", "x", bSqrt}, {"tl.sqrt_rn", "x", bSqrt}, {"tl.rsqrt", "x", bRsqrt}, {"tl.sin", "x", bSin},
    {"tl.cos", "x", bCos}, {"tl.floor", "x", bFloor}, {"tl.ceil", "x", bCeil},
    {"tl.abs", "x", bAbs}, {"tl.sigmoid", "x", bSigmoid}, {"tl.fma", "x, y, z", bFma},
    {"tl.cdiv triton.cdiv", "x, div", bCdiv},
    // Math and random numbers (BuiltinsMath.cpp). tl.math.* and libdevice.*
    // names fall back to tl.* (LowerExpr.cpp); tanh and pow exist only there.
    {"tl.clamp", "x, min, max, propagate_nan=0", mathClamp},
    {"tl.erf", "x", mathErf},
    {"tl.math.tanh", "x", mathTanh},
    {"tl.math.pow", "x, y", mathPow},
    {"tl.fdiv", "x, y, ieee_rounding=False", mathFdiv},
    {"tl.div_rn", "x, y", mathFdiv},
    {"tl.umulhi", "x, y", mathUmulhi},
    {"tl.randint", "seed, offset, n_rounds=10", randRandint},
    {"tl.randint4x", "seed, offset, n_rounds=10", randRandint4x},
    {"tl.rand", "seed, offset, n_rounds=10", randRand},
    {"tl.rand4x", "seed, offsets, n_rounds=10", randRand4x},
    {"tl.randn", "seed, offset, n_rounds=10", randRandn},
    {"tl.randn4x", "seed, offset, n_rounds=10", randRandn4x},
    {"tl.sum", "input, axis=None, keep_dims=False, dtype=None", bSum},
    {"tl.max", "input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False", bMax},
    {"tl.softmax", "x, dim=None, keep_dims=False, ieee_rounding=False", bSoftmax},
    {"tl.min", "input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False", bMin},
    {"tl.argmax", "input, axis=None, tie_break_left=True, keep_dims=False", bArgmax},
    {"tl.argmin", "input, axis=None, tie_break_left=True, keep_dims=False", bArgmin},
    {"tl.cumsum", "input, axis=0, reverse=False, dtype=None", scan::bCumsum},
    {"tl.cumprod", "input, axis=0, reverse=False", scan::bCumprod},
    {"tl.associative_scan", "input, axis, combine_fn, reverse=False", scan::bAssociativeScan},
    {"tl.reduce", "input, axis, combine_fn, keep_dims=False", scan::bReduce},
    {"tl.xor_sum", "input, axis=None, keep_dims=False", scan::bXorSum},
    {"tl.atomic_add", "pointer, val, mask=None, sem=None, scope=None", scan::bAtomicAdd},
    {"tl.atomic_max", "pointer, val, mask=None, sem=None, scope=None", scan::bAtomicMax},
    {"tl.atomic_min", "pointer, val, mask=None, sem=None, scope=None", scan::bAtomicMin},
    {"tl.atomic_and", "pointer, val, mask=None, sem=None, scope=None", scan::bAtomicAnd},
    {"tl.atomic_or", "pointer, val, mask=None, sem=None, scope=None", scan::bAtomicOr},
    {"tl.atomic_xor", "pointer, val, mask=None, sem=None, scope=None", scan::bAtomicXor},
    {"tl.atomic_xchg", "pointer, val, mask=None, sem=None, scope=None", scan::bAtomicXchg},
    {"tl.atomic_cas", "pointer, cmp, val, sem=None, scope=None", scan::bAtomicCas},
    {"tl.broadcast_to", "input, *shape", bBroadcastTo},
    {"tl.broadcast", "input, other", bBroadcast},
    {"tl.expand_dims", "input, axis", bExpandDims},
    {"tl.reshape tl.view", "input, *shape, can_reorder=False", bReshape},
    {"tl.trans", "input, *dims", bTrans},
    {"tl.permute", "input, *dims", bPermute},
    // join, split, interleave (BuiltinsShape.cpp)
    {"tl.join", "a, b", shapeJoin},
    {"tl.split", "a", shapeSplit},
    {"tl.interleave", "a, b", shapeInterleave},
    {"tl.multiple_of", "input, values", bHint},
    {"tl.max_contiguous", "input, values", bHint},
    {"tl.max_constancy", "input, values", bHint},
    {"tl.cast", "input, dtype, fp_downcast_rounding=None, bitcast=False", bCast},
    {"tl.pointer_type", "element_ty, address_space=1", bPointerType},
    {"tl.cat", "input, other, can_reorder=False", shapeCat},
    {"tl.flip", "x, dim=None", shapeFlip},
    {"tl.sort", "x, dim=None, descending=0", shapeSort},
    {"tl.ravel", "x, can_reorder=False", shapeRavel},
    // gather, histogram, topk (BuiltinsSelect.cpp)
    {"tl.gather", "src, index, axis", selectGather},
    {"tl.histogram", "input, num_bins, mask=None", selectHistogram},
    {"tl.topk", "x, k, dim=None", selectTopk},
    {"tl.inline_asm_elementwise", "asm, constraints, args, dtype, is_pure, pack", asmInlineElementwise},
    {"tl.swizzle2d", "i, j, size_i, size_j, size_g", shapeSwizzle2d},
    {"tl.assume", "cond", bAssume},
    {"tl.debug_barrier", "", bDebugBarrier},
    {"tl.constexpr", "value", bConstexpr},
    {"tl.range", "arg1, arg2=None, step=None, num_stages=None, loop_unroll_factor=None, disallow_acc_multi_buffer=False, "
                 "flatten=False, warp_specialize=False", bRange},
    {"tl.static_range", "arg1, arg2=None, step=None", bStaticRange},
    {"tl.device_print py.print", "prefix, *args, hex=False", bDevicePrint},   // print: Triton's device print
    {"tl.static_print", "*values", bStaticPrint},
    {"tl.static_assert", "cond, msg=''", bStaticAssert},
    {"tl.device_assert", "cond, msg=''", bDeviceAssert},
    {"py.range", "arg1, arg2=None, step=None", bRange},
    {"py.min", "arg, *rest", pyMin},
    {"py.max", "arg, *rest", pyMax},
    {"py.len", "obj", pyLen},
    {"py.int", "x", pyInt},
    {"py.float", "x", pyFloat},
    {"py.bool", "x", pyBool},
    {"py.abs", "x", bAbs},
    {"py.getattr", "obj, name", pyGetattr},
    {"triton.next_power_of_2", "n", nextPow2},
};

struct Registry {
  std::map<std::string, std::pair<const BuiltinDef *, std::vector<ParamSpec>>> byName;
  Registry() {
    for (const BuiltinDef &d : kBuiltins) {
      std::stringstream ss(d.names);
      std::string n;
      std::vector<ParamSpec> sig = parseSignature(d.signature);
      while (ss >> n) byName[n] = {&d, sig};
    }
  }
};

const Registry &registry() {
  static Registry r;
  return r;
}

} // namespace

const Val &CallArgs::operator[](size_t i) const {
  TILE_ASSERT(i < vals.size() && vals[i].has_value(), "builtin argument accessed without a value");
  return *vals[i];
}

bool Lowerer::isBuiltinName(const std::string &qualified) const { return registry().byName.count(qualified) != 0; }

Val Lowerer::callBuiltin(const std::string &name, const ast::CallExpr &c, const Val *receiver) {
  auto it = registry().byName.find(name);
  if (it == registry().byName.end()) fail(c.loc, fmt::format("'{}' is not a known function", name));
  // Not a structured binding: clang 14 (the fuzz build) cannot capture those.
  const auto &def = it->second.first;
  const auto &params = it->second.second;
  CallArgs a;
  a.loc = c.loc;
  a.fnName = name.substr(name.find('.') + 1);
  a.vals.resize(params.size());
  a.locs.assign(params.size(), c.loc);
  size_t next = 0;
  auto givePositional = [&](Val v, Location loc) {
    if (next < params.size() && params[next].variadic) { a.varargs.push_back(std::move(v)); return; }
    if (next >= params.size())
      fail(loc, fmt::format("{}() takes at most {} positional arguments", a.fnName, params.size()));
    a.vals[next] = std::move(v);
    a.locs[next] = loc;
    ++next;
  };
  if (receiver) givePositional(*receiver, c.func->loc);
  for (const auto &arg : c.args) givePositional(lowerExpr(*arg), arg->loc);
  for (const auto &kw : c.keywords) {
    size_t i = 0;
    while (i < params.size() && params[i].name != kw.name) ++i;
    if (i == params.size() || params[i].variadic) {
      std::vector<std::string> names;
      for (const auto &p : params)
        if (!p.variadic) names.push_back(p.name);
      fail(kw.loc, fmt::format("{}() got an unexpected keyword argument '{}'{}", a.fnName, kw.name, didYouMean(kw.name, names)));
    }
    if (a.vals[i]) fail(kw.loc, fmt::format("{}() got multiple values for argument '{}'", a.fnName, kw.name));
    a.vals[i] = lowerExpr(*kw.value);
    a.locs[i] = kw.loc;
  }
  for (size_t i = 0; i < params.size(); ++i) {
    if (a.vals[i] || params[i].variadic) continue;
    if (!params[i].hasDefault)
      fail(c.loc, fmt::format("{}() missing required argument '{}'", a.fnName, params[i].name));
    a.vals[i] = Val::constant(params[i].def);
  }
  return def->handler(*this, a);
}

ir::Value *Lowerer::reduceAll(ir::Value *x, const std::string &kind, std::optional<int> axis, bool keepDims,
                              Location loc) {
  ElemType out = kind == "argmax" || kind == "argmin" ? ElemType::of(Scalar::I32) : x->type.elem;
  if (!x->type.isTensor()) {
    if (out == x->type.elem) return x;
    return at(loc).constantInt(0, ir::Type::scalar(out));
  }
  int rank = x->type.rank();
  if (!axis) {
    ir::Value *flat = rank == 1 ? x : at(loc).reshape(x, {x->type.numElements()});
    ir::Value *r = at(loc).reduce(flat, kind, 0, out);
    if (!keepDims) return r;
    return at(loc).splat(r, std::vector<int64_t>(rank, 1));
  }
  int ax = normalizeAxis(*axis, rank, loc, kind);
  ir::Value *r = at(loc).reduce(x, kind, ax, out);
  if (!keepDims) return r;
  return r->type.isTensor() ? at(loc).expandDims(r, ax) : at(loc).splat(r, {1});
}

} // namespace tile::sema
