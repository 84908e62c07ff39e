// ElementwiseToLLVM.cpp - constants, indices, program ids and every
// elementwise op (arithmetic, casts, comparisons, select, addptr, math), one
// register at a time, with the semantics of ir/Ops.def: f16/bf16 arithmetic
// runs in f32 and rounds back (as the interpreter does); transcendental
// functions use PTX's approximate instructions (ex2/lg2/sin/cos.approx,
// about 2 ulp in f32); in f64 they call libdevice (__nv_exp, ..., a few ulp;
// Libdevice.cpp links it). sqrt and rsqrt (1 / sqrt, as the interpreter)
// are correctly rounded in every type. Triton's conventions
// (docs/language.md): f32 `/` is div.full.f32 unless the div op is `ieee`,
// exp2 flushes subnormal results, f32 -> f16/bf16 casts go in pairs.
#include "backend/Emitter.h"

#include <llvm/IR/IntrinsicsNVPTX.h>

#include <fmt/format.h>

#include <map>

namespace tile::backend {

using ir::OpKind;
using llvm::Intrinsic::ID;

namespace {

bool isSignedInt(ElemType t) { return !t.isPtr && isInt(t.scalar) && isSigned(t.scalar); }

} // namespace

void Emitter::emitConstant(ir::Op &op) {
  ir::Value *r = op.result();
  llvm::Type *ty = llvmType(r->type.elem);
  llvm::Value *c = nullptr;
  const ir::Attr &a = op.attrs.at("value");
  double fv = std::holds_alternative<double>(a) ? std::get<double>(a) : 0.0;
  if (std::holds_alternative<int64_t>(a)) fv = double(std::get<int64_t>(a));
  if (r->type.elem.isFloat() && isFp8(r->type.elem.scalar))
    c = b.getInt8(toFp8Bits(fv, r->type.elem.scalar)); // fp8 lives in bytes
  else if (r->type.elem.isFloat())
    c = llvm::ConstantFP::get(ty, fv);
  else if (r->type.elem.isPtr)
    c = llvm::ConstantExpr::getIntToPtr(b.getInt64(std::get<int64_t>(a)), ty);
  else
    c = llvm::ConstantInt::get(ty, std::holds_alternative<int64_t>(a) ? std::get<int64_t>(a) : (int64_t)std::get<bool>(a));
  define(r, r->type.isTensor() ? Regs(dist(r->type).numRegs(), c) : Regs{c});
}

void Emitter::emitArange(ir::Op &op) {
  ir::Value *r = op.result();
  Regs out;
  for (auto &c : coords(dist(r->type))) out.push_back(b.CreateAdd(c[0], i32(op.intAttr("start"))));
  define(r, out);
}

void Emitter::emitProgramId(ir::Op &op) {
  static const char *ids[] = {"ctaid.x", "ctaid.y", "ctaid.z"}, *counts[] = {"nctaid.x", "nctaid.y", "nctaid.z"};
  int64_t axis = op.intAttr("axis");
  if (axis < 0 || axis > 2) fail(op.loc, fmt::format("program axis {} is out of range 0..2", axis));
  define(op.result(), {sreg(op.kind == OpKind::ProgramId ? ids[axis] : counts[axis])});
}

// ---------------------------------------------------------------- per register

llvm::Value *Emitter::binaryScalar(const ir::Op &op, ElemType t, llvm::Value *x, llvm::Value *y) {
  if (t.isFloat()) {
    Scalar s = t.scalar;
    x = toF32(x, s), y = toF32(y, s);
    bool nan = op.hasAttr("propagate_nan") && op.boolAttr("propagate_nan");
    llvm::Value *r = nullptr;
    switch (op.kind) {
    case OpKind::Add: r = b.CreateFAdd(x, y); break;
    case OpKind::Sub: r = b.CreateFSub(x, y); break;
    case OpKind::Mul: r = b.CreateFMul(x, y); break;
    case OpKind::Div:
      // f32 `/` is div.full.f32 (about 2 ulp, as Triton's); tl.div_rn and
      // fdiv(ieee_rounding=True) are correctly rounded (div.rn.f32)
      r = s != Scalar::F64 && !(op.hasAttr("ieee") && op.boolAttr("ieee")) ? approxDiv(x, y) : b.CreateFDiv(x, y);
      break;
    case OpKind::Rem: r = b.CreateFRem(x, y); break;
    case OpKind::Min: r = b.CreateBinaryIntrinsic(nan ? llvm::Intrinsic::minimum : llvm::Intrinsic::minnum, x, y); break;
    case OpKind::Max: r = b.CreateBinaryIntrinsic(nan ? llvm::Intrinsic::maximum : llvm::Intrinsic::maxnum, x, y); break;
    default: fail(op.loc, fmt::format("'{}' is not defined on {}", ir::opName(op.kind), t.str()));
    }
    return fromF32(r, s);
  }
  bool sgn = isSignedInt(t);
  unsigned bits = x->getType()->getIntegerBitWidth();
  switch (op.kind) {
  case OpKind::Add: return b.CreateAdd(x, y);
  case OpKind::Sub: return b.CreateSub(x, y);
  case OpKind::Mul: return b.CreateMul(x, y);
  case OpKind::And: return b.CreateAnd(x, y);
  case OpKind::Or: return b.CreateOr(x, y);
  case OpKind::Xor: return b.CreateXor(x, y);
  case OpKind::Div: case OpKind::Rem: {
    if (!sgn) return op.kind == OpKind::Div ? b.CreateUDiv(x, y) : b.CreateURem(x, y);
    // INT_MIN / -1 wraps and INT_MIN % -1 is 0, as in the interpreter (LLVM
    // leaves them undefined).
    llvm::Value *m1 = b.CreateICmpEQ(y, llvm::ConstantInt::getSigned(y->getType(), -1));
    llvm::Value *safe = b.CreateSelect(m1, llvm::ConstantInt::get(y->getType(), 1), y);
    if (op.kind == OpKind::Div) return b.CreateSelect(m1, b.CreateNeg(x), b.CreateSDiv(x, safe));
    return b.CreateSelect(m1, llvm::ConstantInt::get(y->getType(), 0), b.CreateSRem(x, safe));
  }
  case OpKind::Shl: case OpKind::Shr: {
    // Amounts read as unsigned; >= width shifts everything out (or gives the sign).
    llvm::Value *big = b.CreateICmpUGE(y, llvm::ConstantInt::get(y->getType(), bits));
    llvm::Value *amt = b.CreateSelect(big, llvm::ConstantInt::get(y->getType(), bits - 1), y);
    if (op.kind == OpKind::Shr && sgn) return b.CreateAShr(x, amt);
    llvm::Value *r = op.kind == OpKind::Shl ? b.CreateShl(x, amt) : b.CreateLShr(x, amt);
    return b.CreateSelect(big, llvm::ConstantInt::get(x->getType(), 0), r);
  }
  case OpKind::Min: return b.CreateBinaryIntrinsic(sgn ? llvm::Intrinsic::smin : llvm::Intrinsic::umin, x, y);
  case OpKind::Max: return b.CreateBinaryIntrinsic(sgn ? llvm::Intrinsic::smax : llvm::Intrinsic::umax, x, y);
  default: fail(op.loc, fmt::format("'{}' is not defined on {}", ir::opName(op.kind), t.str()));
  }
}

llvm::Value *Emitter::cmpScalar(const ir::Op &op, ElemType t, llvm::Value *x, llvm::Value *y) {
  const std::string &p = op.strAttr("pred");
  if (t.isFloat()) {
    using P = llvm::CmpInst::Predicate;
    P pr = p == "eq" ? P::FCMP_OEQ : p == "ne" ? P::FCMP_UNE : p == "lt" ? P::FCMP_OLT : p == "le" ? P::FCMP_OLE
         : p == "gt" ? P::FCMP_OGT : P::FCMP_OGE;
    return b.CreateFCmp(pr, x, y);
  }
  bool sgn = isSignedInt(t);
  using P = llvm::CmpInst::Predicate;
  P pr = p == "eq" ? P::ICMP_EQ : p == "ne" ? P::ICMP_NE
       : p == "lt" ? (sgn ? P::ICMP_SLT : P::ICMP_ULT) : p == "le" ? (sgn ? P::ICMP_SLE : P::ICMP_ULE)
       : p == "gt" ? (sgn ? P::ICMP_SGT : P::ICMP_UGT) : (sgn ? P::ICMP_SGE : P::ICMP_UGE);
  return b.CreateICmp(pr, x, y);
}

llvm::Value *Emitter::fp8Cast(const ir::Op &op, Scalar from, Scalar to, llvm::Value *x) {
  Scalar fp8 = isFp8(from) ? from : to;
  static const char *kFp8Archs[] = {"sm_89", "sm_90", "sm_90a"};
  if (std::find(std::begin(kFp8Archs), std::end(kFp8Archs), opts.arch) == std::end(kFp8Archs))
    fail(op.loc, fmt::format("{} conversions need sm_89 or later (cvt with .e4m3x2/.e5m2x2); this kernel compiles "
                             "for {}", tritonDTypeName(fp8), opts.arch));
  const char *fmt8 = fp8 == Scalar::F8E4M3 ? "e4m3x2" : "e5m2x2";
  bool rtz = op.hasAttr("rounding") && op.strAttr("rounding") == "rtz";
  if (isFp8(from)) {
    // the byte to f16 (exact; the upper input byte is 0), then on from f16
    llvm::Value *in = b.CreateZExt(x, b.getInt16Ty());
    llvm::Value *pair = purePtx(b.getInt32Ty(), fmt::format("cvt.rn.f16x2.{} $0, $1;", fmt8), "=r,h", {in});
    llvm::Value *h = b.CreateBitCast(b.CreateTrunc(pair, b.getInt16Ty()), b.getHalfTy());
    if (to == Scalar::F16) return h;
    llvm::Value *f = b.CreateFPExt(h, b.getFloatTy());
    return to == Scalar::F32 ? f : b.CreateFPTrunc(f, llvmType(ElemType::of(to))); // bf16: exact
  }
  llvm::Value *bits16;
  if (rtz) {
    // Triton's rtz: f32 -> f16 toward zero, whose upper byte is the e5m2
    llvm::Value *h = purePtx(b.getInt16Ty(), "cvt.rz.f16.f32 $0, $1;", "=h,f", {x});
    return b.CreateTrunc(b.CreateLShr(h, 8), b.getInt8Ty());
  }
  if (from == Scalar::F16) {
    llvm::Value *in = b.CreateZExt(b.CreateBitCast(x, b.getInt16Ty()), b.getInt32Ty());
    bits16 = purePtx(b.getInt16Ty(), fmt::format("cvt.rn.satfinite.{}.f16x2 $0, $1;", fmt8), "=h,r", {in});
  } else {
    llvm::Value *f = from == Scalar::F32 ? x : b.CreateFPExt(x, b.getFloatTy()); // bf16: exact
    bits16 = purePtx(b.getInt16Ty(), fmt::format("cvt.rn.satfinite.{}.f32 $0, $1, $1;", fmt8), "=h,f", {f});
  }
  return b.CreateTrunc(bits16, b.getInt8Ty()); // the lower byte: the converted value
}

llvm::Value *Emitter::castScalar(const ir::Op &op, ElemType from, ElemType to, llvm::Value *x) {
  llvm::Type *ty = llvmType(to);
  if (from == to) return x;
  if (!from.isPtr && !to.isPtr && (isFp8(from.scalar) || isFp8(to.scalar))) return fp8Cast(op, from.scalar, to.scalar, x);
  if (op.hasAttr("rounding") && op.strAttr("rounding") == "rtz") {
    // fp_downcast_rounding="rtz" from f32 (sema allows f16 and bf16 here)
    const char *text = to.scalar == Scalar::F16 ? "cvt.rz.f16.f32 $0, $1;" : "cvt.rz.bf16.f32 $0, $1;";
    return b.CreateBitCast(purePtx(b.getInt16Ty(), text, "=h,f", {x}), ty);
  }
  if (!to.isPtr && to.scalar == Scalar::I1) {
    if (from.isFloat()) return b.CreateFCmpUNE(x, llvm::ConstantFP::get(x->getType(), 0.0));
    return b.CreateICmpNE(x, llvm::Constant::getNullValue(x->getType()));
  }
  if (from.isPtr || to.isPtr) fail(op.loc, fmt::format("cannot cast {} to {}", from.str(), to.str()));
  if (from.isInt() && to.isInt()) return b.CreateIntCast(x, ty, isSignedInt(from));
  if (from.isInt()) return isSignedInt(from) ? b.CreateSIToFP(x, ty) : b.CreateUIToFP(x, ty);
  if (to.isInt()) {
    // Saturating, NaN -> 0, as PTX cvt.rzi.sat.
    ID id = isSigned(to.scalar) ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat;
    llvm::Value *src = toF32(x, from.scalar);
    return b.CreateIntrinsic(id, {ty, src->getType()}, {src});
  }
  if (isNarrowFloat(from.scalar) && isNarrowFloat(to.scalar)) return b.CreateFPTrunc(b.CreateFPExt(x, b.getFloatTy()), ty);
  if (bitWidth(from.scalar) < bitWidth(to.scalar)) return b.CreateFPExt(x, ty);
  return b.CreateFPTrunc(x, ty);
}

llvm::Value *Emitter::approxDiv(llvm::Value *x, llvm::Value *y) {
  // by a power of two: the exact product (what LLVM makes of x / 2.0)
  if (auto *c = llvm::dyn_cast<llvm::ConstantFP>(y)) {
    const llvm::APFloat &v = c->getValueAPF();
    if (v.isFiniteNonZero() && v.getExactInverse(nullptr)) return b.CreateFDiv(x, y);
  }
  return purePtx(b.getFloatTy(), "div.full.f32 $0, $1, $2;", "=f,f,f", {x, y});
}

bool Emitter::packedDowncast(ElemType from, ElemType to) const {
  // cvt.rn.{f16,bf16}x2.f32: sm_80 and later
  bool narrow = !to.isPtr && (to.scalar == Scalar::F16 || to.scalar == Scalar::BF16);
  // (a cast with fp_downcast_rounding="rtz" goes one by one, castScalar)
  return !from.isPtr && from.scalar == Scalar::F32 && narrow && opts.arch != "sm_75";
}

Regs Emitter::downcastPairs(const Regs &x, Scalar to) {
  // Two f32 registers to one f16x2 / bf16x2 in one instruction (as
  // Triton's casts; LLVM 19 rounds each on its own, cvt.rn.f16.f32, which
  // ptxas does not pair): d's upper half is the first source's.
  bool half = to == Scalar::F16;
  llvm::Type *pair = llvm::FixedVectorType::get(half ? b.getHalfTy() : b.getBFloatTy(), 2);
  const char *text = half ? "cvt.rn.f16x2.f32 $0, $1, $2;" : "cvt.rn.bf16x2.f32 $0, $1, $2;";
  Regs out;
  for (size_t r = 0; r + 1 < x.size(); r += 2) {
    llvm::Value *v = b.CreateBitCast(purePtx(b.getInt32Ty(), text, "=r,f,f", {x[r + 1], x[r]}), pair);
    out.push_back(b.CreateExtractElement(v, uint64_t(0)));
    out.push_back(b.CreateExtractElement(v, uint64_t(1)));
  }
  return out;
}

bool Emitter::castsInQuads(const ir::Op &op) const {
  const ir::Type &rt = op.result()->type;
  const ElemType from = op.operands[0]->type.elem;
  size_t n = rt.isTensor() ? dist(rt).numRegs() : 1;
  return op.kind == OpKind::Cast && n % 4 == 0 && !from.isPtr && !rt.elem.isPtr &&
         (from.scalar == Scalar::I8 || from.scalar == Scalar::U8) && rt.elem.scalar == Scalar::F16 &&
         !op.hasAttr("rounding");
}

Regs Emitter::bytesToHalves(const Regs &x, bool isSigned) {
  // Four bytes in one register (b + 128 for signed bytes: the top bits
  // flipped), each put under the f16 exponent byte 0x64 (prmt): the halves
  // 1024 + b, exact; less 1024 (1152 signed) in one sub.f16x2 a pair. Five
  // instructions for four elements where sitofp takes three each.
  llvm::Type *quad = llvm::FixedVectorType::get(b.getInt8Ty(), 4);
  llvm::Type *pair = llvm::FixedVectorType::get(b.getHalfTy(), 2);
  llvm::Value *exponent = b.getInt32(0x64646464);
  llvm::Value *bias = llvm::ConstantFP::get(pair, isSigned ? 1152.0 : 1024.0);
  Regs out;
  for (size_t r = 0; r + 3 < x.size(); r += 4) {
    llvm::Value *v = llvm::PoisonValue::get(quad);
    for (unsigned k = 0; k < 4; ++k) v = b.CreateInsertElement(v, x[r + k], uint64_t(k));
    llvm::Value *w = b.CreateBitCast(v, b.getInt32Ty());
    if (isSigned) w = b.CreateXor(w, b.getInt32(0x80808080));
    for (const char *sel : {"16704", "17218"}) {   // 0x4140, 0x4342: bytes 0, 1 / 2, 3 under 0x64
      llvm::Value *h = purePtx(b.getInt32Ty(), fmt::format("prmt.b32 $0, $1, $2, {};", sel), "=r,r,r", {w, exponent});
      llvm::Value *f = b.CreateFSub(b.CreateBitCast(h, pair), bias);
      out.push_back(b.CreateExtractElement(f, uint64_t(0)));
      out.push_back(b.CreateExtractElement(f, uint64_t(1)));
    }
  }
  return out;
}

llvm::Value *Emitter::unaryScalar(const ir::Op &op, ElemType t, llvm::Value *x) {
  if (op.kind == OpKind::Not) return b.CreateNot(x);
  if (t.isInt()) {
    if (op.kind == OpKind::Neg) return b.CreateNeg(x);
    if (op.kind == OpKind::Abs) return isSignedInt(t) ? b.CreateBinaryIntrinsic(llvm::Intrinsic::abs, x, b.getFalse()) : x;
    fail(op.loc, fmt::format("'{}' needs a float operand, got {}", ir::opName(op.kind), t.str()));
  }
  Scalar s = t.scalar;
  bool f64 = s == Scalar::F64;
  llvm::Value *f = toF32(x, s);
  auto approx = [&](ID id, llvm::Value *v) -> llvm::Value * { return b.CreateIntrinsic(id, {}, {v}); };
  if (f64) {
    static const std::map<OpKind, const char *> nv = {{OpKind::Exp, "__nv_exp"}, {OpKind::Exp2, "__nv_exp2"},
                                                      {OpKind::Log, "__nv_log"}, {OpKind::Log2, "__nv_log2"},
                                                      {OpKind::Sin, "__nv_sin"}, {OpKind::Cos, "__nv_cos"}};
    if (auto it = nv.find(op.kind); it != nv.end()) return libdeviceCall(it->second, f, op);
  }
  auto unary = [&](ID id) { return b.CreateUnaryIntrinsic(id, f); };
  llvm::Value *r = nullptr;
  switch (op.kind) {
  case OpKind::Neg: r = b.CreateFNeg(f); break;
  case OpKind::Abs: r = unary(llvm::Intrinsic::fabs); break;
  case OpKind::Sqrt: r = unary(llvm::Intrinsic::sqrt); break;   // sqrt.rn
  case OpKind::Rsqrt: r = b.CreateFDiv(llvm::ConstantFP::get(f->getType(), 1.0), unary(llvm::Intrinsic::sqrt)); break;
  case OpKind::Floor: r = unary(llvm::Intrinsic::floor); break;
  case OpKind::Ceil: r = unary(llvm::Intrinsic::ceil); break;
  // exp2 flushes subnormal results to zero (ex2.approx.ftz, as Triton's
  // tl.math.exp2): without .ftz ptxas brackets every MUFU.EX2 with a range
  // test and two multiplies
  case OpKind::Exp2: r = approx(llvm::Intrinsic::nvvm_ex2_approx_ftz_f, f); break;
  case OpKind::Exp:
    r = approx(llvm::Intrinsic::nvvm_ex2_approx_f, b.CreateFMul(f, llvm::ConstantFP::get(f->getType(), 1.4426950408889634)));
    break;
  case OpKind::Log2: r = approx(llvm::Intrinsic::nvvm_lg2_approx_f, f); break;
  case OpKind::Log:
    r = b.CreateFMul(approx(llvm::Intrinsic::nvvm_lg2_approx_f, f), llvm::ConstantFP::get(f->getType(), 0.6931471805599453));
    break;
  case OpKind::Sin: r = approx(llvm::Intrinsic::nvvm_sin_approx_f, f); break;
  case OpKind::Cos: r = approx(llvm::Intrinsic::nvvm_cos_approx_f, f); break;
  default: fail(op.loc, fmt::format("unsupported elementwise op '{}'", ir::opName(op.kind)));
  }
  return fromF32(r, s);
}

// ---------------------------------------------------------------- per op

std::vector<Regs> Emitter::elementwiseInputs(ir::Op &op) {
  const ir::Type &rt = op.result()->type;
  std::vector<Regs> in;
  for (ir::Value *v : op.operands) {
    // Operands keep their own element type; only the distribution follows the result.
    ir::Type want = rt;
    want.elem = v->type.elem;
    in.push_back(regsAs(v, want));
  }
  return in;
}

llvm::Value *Emitter::elementwiseReg(const ir::Op &op, const std::vector<Regs> &in, size_t r) {
  const ir::Type &rt = op.result()->type;
  ElemType t0 = op.operands.empty() ? rt.elem : op.operands[0]->type.elem;
  switch (op.kind) {
  case OpKind::Cast: return castScalar(op, t0, rt.elem, in[0][r]);
  case OpKind::Bitcast: {
    llvm::Type *ty = llvmType(rt.elem);
    if (rt.elem.isPtr && !t0.isPtr) return b.CreateIntToPtr(in[0][r], ty);
    if (!rt.elem.isPtr && t0.isPtr) return b.CreatePtrToInt(in[0][r], ty);
    return b.CreateBitCast(in[0][r], ty);
  }
  case OpKind::Cmp: return cmpScalar(op, t0, in[0][r], in[1][r]);
  case OpKind::Select: return b.CreateSelect(in[0][r], in[1][r], in[2][r]);
  case OpKind::AddPtr: {
    ElemType ot = op.operands[1]->type.elem;
    llvm::Value *off = b.CreateIntCast(in[1][r], b.getInt64Ty(), isSignedInt(ot));
    return b.CreateGEP(memType(ElemType::of(rt.elem.scalar)), in[0][r], off);
  }
  case OpKind::Fma: {
    Scalar s = rt.elem.scalar;
    if (!rt.elem.isFloat()) fail(op.loc, "fma needs float operands");
    return fromF32(b.CreateIntrinsic(llvm::Intrinsic::fma, {toF32(in[0][r], s)->getType()},
                                     {toF32(in[0][r], s), toF32(in[1][r], s), toF32(in[2][r], s)}),
                   s);
  }
  default:
    if (op.operands.size() == 2) return binaryScalar(op, t0, in[0][r], in[1][r]);
    if (op.operands.size() == 1) return unaryScalar(op, t0, in[0][r]);
    fail(op.loc, fmt::format("unsupported op '{}' in the gpu back end", ir::opName(op.kind)));
  }
}

bool Emitter::castsInPairs(const ir::Op &op) const {
  const ir::Type &rt = op.result()->type;
  size_t n = rt.isTensor() ? dist(rt).numRegs() : 1;
  return op.kind == OpKind::Cast && n % 2 == 0 && packedDowncast(op.operands[0]->type.elem, rt.elem) &&
         !op.hasAttr("rounding");
}

void Emitter::emitElementwise(ir::Op &op) {
  ir::Value *res = op.result();
  const ir::Type &rt = res->type;
  std::vector<Regs> in = elementwiseInputs(op);
  if (castsInPairs(op)) return define(res, downcastPairs(in[0], rt.elem.scalar));
  if (castsInQuads(op)) return define(res, bytesToHalves(in[0], op.operands[0]->type.elem.scalar == Scalar::I8));
  size_t n = rt.isTensor() ? dist(rt).numRegs() : 1;
  Regs out;
  for (size_t r = 0; r < n; ++r) out.push_back(elementwiseReg(op, in, r));
  define(res, out);
}

} // namespace tile::backend
