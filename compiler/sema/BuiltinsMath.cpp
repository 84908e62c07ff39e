// BuiltinsMath.cpp - math builtins (clamp, erf, tanh, pow, fdiv, umulhi)
// and Triton's Philox random numbers, lowered to tile IR.
//
// The random functions follow python/triton/language/random.py: the counter
// is (offset, 0, 0, 0), the key (seed_lo, seed_hi), ten rounds of
//   c0' = umulhi(B, c2) ^ c1 ^ k0   c1' = B * c2
//   c2' = umulhi(A, c0) ^ c3 ^ k1   c3' = A * c0
//   k0 += KEY_A, k1 += KEY_B
// built from existing integer ops (casts, mul, shr, xor, add), so the
// interpreter and the GPU compute the same bits.
#include "sema/BuiltinsMath.h"

#include <fmt/format.h>

namespace tile::sema {

using ir::OpKind;

namespace {

ir::Value *valueArg(Lowerer &L, const CallArgs &a, size_t i, const char *what) {
  const Val &v = a[i];
  if (v.isIR()) return v.v;
  return L.toIR(v, a.locs[i], what);
}

/// Float math on one operand: f16/bf16 compute in f32 and round back.
Val floatUnaryMath(Lowerer &L, CallArgs &a, OpKind k) {
  ir::Value *x = valueArg(L, a, 0, "input");
  ElemType t = x->type.elem;
  if (!t.isFloat() || t.isPtr)
    fail(a.locs[0], fmt::format("{} expects a floating-point input, got {}", a.fnName, x->type.str()));
  bool narrow = t.scalar == Scalar::F16 || t.scalar == Scalar::BF16;
  ir::Value *w = narrow ? L.castTo(x, ElemType::of(Scalar::F32), a.loc) : x;
  ir::Value *r = L.at(a.loc).unary(k, w);
  return Val::ir(narrow ? L.castTo(r, t, a.loc) : r);
}

/// Two float operands brought to one type and shape (Triton's promotion).
std::pair<ir::Value *, ir::Value *> floatPair(Lowerer &L, const CallArgs &a) {
  auto [x, y] = L.promote(a[0], a[1], a.loc, /*divOrMod=*/true);
  if (!x->type.elem.isFloat() || x->type.elem.isPtr)
    fail(a.loc, fmt::format("{} expects floating-point operands, got {} and {}", a.fnName, L.typeName(a[0]),
                            L.typeName(a[1])));
  return {x, y};
}

ElemType unsignedOf(int bits) {
  switch (bits) {
  case 8: return ElemType::of(Scalar::U8);
  case 16: return ElemType::of(Scalar::U16);
  case 32: return ElemType::of(Scalar::U32);
  default: return ElemType::of(Scalar::U64);
  }
}

ir::Value *constLike(ir::Builder &b, ir::Value *like, uint64_t v) {
  return b.constantInt(static_cast<int64_t>(v), like->type);
}

/// High 64 bits of the 128-bit product of two u64 values, from 32-bit halves.
ir::Value *umulhi64(ir::Builder &b, ir::Value *x, ir::Value *y) {
  ir::Value *mask = constLike(b, x, 0xffffffffULL), *sh = constLike(b, x, 32);
  ir::Value *x0 = b.binary(OpKind::And, x, mask), *x1 = b.binary(OpKind::Shr, x, sh);
  ir::Value *y0 = b.binary(OpKind::And, y, mask), *y1 = b.binary(OpKind::Shr, y, sh);
  ir::Value *p00 = b.binary(OpKind::Mul, x0, y0), *p01 = b.binary(OpKind::Mul, x0, y1);
  ir::Value *p10 = b.binary(OpKind::Mul, x1, y0), *p11 = b.binary(OpKind::Mul, x1, y1);
  // mid < 3 * 2^32: the carry into the high word.
  ir::Value *mid = b.binary(OpKind::Add, b.binary(OpKind::Shr, p00, sh),
                            b.binary(OpKind::Add, b.binary(OpKind::And, p01, mask), b.binary(OpKind::And, p10, mask)));
  ir::Value *hi = b.binary(OpKind::Add, p11, b.binary(OpKind::Shr, p01, sh));
  hi = b.binary(OpKind::Add, hi, b.binary(OpKind::Shr, p10, sh));
  return b.binary(OpKind::Add, hi, b.binary(OpKind::Shr, mid, sh));
}

/// umulhi on two unsigned values of one type: widened to u64 up to 32 bits.
ir::Value *umulhiUnsigned(ir::Builder &b, ir::Value *x, ir::Value *y) {
  int bits = bitWidth(x->type.elem.scalar);
  if (bits == 64) return umulhi64(b, x, y);
  ElemType u64 = ElemType::of(Scalar::U64);
  ir::Value *p = b.binary(OpKind::Mul, b.cast(x, u64), b.cast(y, u64));
  ir::Value *hi = b.binary(OpKind::Shr, p, constLike(b, p, static_cast<uint64_t>(bits)));
  return b.cast(hi, x->type.elem);
}

// ---- Philox

struct PhiloxConsts {
  uint64_t keyA, keyB, roundA, roundB;
};

constexpr PhiloxConsts kPhilox4x32{0x9E3779B9ULL, 0xBB67AE85ULL, 0xD2511F53ULL, 0xCD9E8D57ULL};

struct Philox4 {
  ir::Value *c[4];
};

int64_t roundsArg(const CallArgs &a, size_t i) {
  if (!a.has(i)) return 10;
  const Val &v = a[i];
  if (!v.isConst() || !v.c.isInt()) fail(a.locs[i], fmt::format("n_rounds of {} must be a constexpr integer", a.fnName));
  int64_t n = std::get<int64_t>(v.c.v);
  if (n < 0 || n > 64) fail(a.locs[i], fmt::format("n_rounds of {} must be in [0, 64], got {}", a.fnName, n));
  return n;
}

/// Philox4x32 as Triton 3.6's randint4x / philox(): the counter is
/// (low word of the offset, its high word for 64-bit offsets else 0, 0, 0),
/// the key the low and high words of the seed as uint64; the four blocks
/// are uint32 whatever the offset width (32-bit offsets matched Triton 3.6
/// bit for bit on the H200, bench/gpu/triton_random.tile, where Triton's
/// 64-bit-offset blocks came out uint32 too; older Tritons ran Philox4x64
/// on 64-bit offsets).
Philox4 philoxRun(Lowerer &L, const CallArgs &a) {
  ir::Value *off = valueArg(L, a, 1, "offset");
  ElemType ot = off->type.elem;
  if (!ot.isInt() || ot.isPtr || ot.scalar == Scalar::I1)
    fail(a.locs[1], fmt::format("the offset of {} must be an integer tensor, got {}", a.fnName, off->type.str()));
  int bits = bitWidth(ot.scalar);
  if (bits != 32 && bits != 64)
    fail(a.locs[1], fmt::format("the offset of {} must have 32 or 64 bits (Triton's philox), got {}", a.fnName,
                                off->type.str()));
  ir::Value *seed = valueArg(L, a, 0, "seed");
  if (seed->type.isTensor() || !seed->type.elem.isInt() || seed->type.elem.isPtr)
    fail(a.locs[0], fmt::format("the seed of {} must be an integer scalar, got {}", a.fnName, seed->type.str()));
  int64_t rounds = roundsArg(a, 2);
  auto &b = L.at(a.loc);
  ElemType ut = unsignedOf(bits), u32 = ElemType::of(Scalar::U32);
  ir::Value *seed64 = L.castTo(seed, ElemType::of(Scalar::U64), a.loc);
  ir::Value *k0 = b.cast(seed64, u32);
  ir::Value *k1 = b.cast(b.binary(OpKind::Shr, seed64, b.constantInt(32, seed64->type)), u32);
  ir::Value *offU = ot == ut ? off : b.bitcast(off, ut);
  ir::Value *c0 = bits == 32 ? offU : b.cast(offU, u32);
  ir::Value *zero = b.constantInt(0, c0->type);
  ir::Value *c1 = bits == 32 ? zero : b.cast(b.binary(OpKind::Shr, offU, b.constantInt(32, offU->type)), u32);
  ir::Value *c2 = zero, *c3 = zero;
  const PhiloxConsts &k = kPhilox4x32;
  ir::Value *A = constLike(b, c0, k.roundA), *B = constLike(b, c0, k.roundB);
  ir::Value *keyA = constLike(b, k0, k.keyA), *keyB = constLike(b, k0, k.keyB);
  auto spread = [&](ir::Value *key) { return c0->type.isTensor() ? b.splat(key, c0->type.shape) : key; };
  for (int64_t r = 0; r < rounds; ++r) {
    ir::Value *n0 = b.binary(OpKind::Xor, b.binary(OpKind::Xor, umulhiUnsigned(b, B, c2), c1), spread(k0));
    ir::Value *n2 = b.binary(OpKind::Xor, b.binary(OpKind::Xor, umulhiUnsigned(b, A, c0), c3), spread(k1));
    ir::Value *n1 = b.binary(OpKind::Mul, B, c2);
    ir::Value *n3 = b.binary(OpKind::Mul, A, c0);
    c0 = n0, c1 = n1, c2 = n2, c3 = n3;
    k0 = b.binary(OpKind::Add, k0, keyA);
    k1 = b.binary(OpKind::Add, k1, keyB);
  }
  return {{c0, c1, c2, c3}};
}

/// Triton's uint_to_uniform_float on uint32 blocks: read as signed, fold
/// negatives with -x - 1 (= ~x), then times the largest scale keeping the
/// result below 1.
ir::Value *uniformFloat(Lowerer &L, ir::Value *x, Location loc) {
  auto &b = L.at(loc);
  ir::Value *s = b.bitcast(x, ElemType::of(Scalar::I32));
  ir::Value *neg = b.cmp("lt", s, b.constantInt(0, s->type));
  s = b.select(neg, b.unary(OpKind::Not, s), s);
  ir::Value *f = b.cast(s, ElemType::of(Scalar::F32));
  return b.binary(OpKind::Mul, f, b.constantFloat(4.6566127342e-10f, f->type));
}

/// Box-Muller as Triton's pair_uniform_to_normal: (r cos th, r sin th).
std::pair<ir::Value *, ir::Value *> boxMuller(Lowerer &L, ir::Value *u1, ir::Value *u2, Location loc) {
  auto &b = L.at(loc);
  auto cst = [&](double v) { return b.constantFloat(static_cast<float>(v), u1->type); };
  u1 = b.binary(OpKind::Max, u1, cst(1.0e-7));
  ir::Value *th = b.binary(OpKind::Mul, cst(6.283185307179586), u2);
  ir::Value *r = b.unary(OpKind::Sqrt, b.binary(OpKind::Mul, cst(-2.0), b.unary(OpKind::Log, u1)));
  return {b.binary(OpKind::Mul, r, b.unary(OpKind::Cos, th)), b.binary(OpKind::Mul, r, b.unary(OpKind::Sin, th))};
}

} // namespace

// ---- math

Val mathClamp(Lowerer &L, CallArgs &a) {
  // As Triton's semantic.clamp: x is promoted with min, then with max.
  auto [lo, x] = L.promote(a[1], a[0], a.loc);
  auto [hi, x2] = L.promote(a[2], Val::ir(x), a.loc);
  x = x2;
  if (!x->type.elem.isFloat() || x->type.elem.isPtr)
    fail(a.loc, fmt::format("clamp supports floating-point inputs only (as Triton), got {}", x->type.str()));
  lo = L.broadcastTo(L.castTo(lo, x->type.elem, a.loc), x->type.shape, a.locs[1]);
  hi = L.broadcastTo(hi, x->type.shape, a.locs[2]);
  if (a.has(3) && !a[3].isConst())
    fail(a.locs[3], "propagate_nan of clamp must be a constexpr (tl.PropagateNan.NONE or tl.PropagateNan.ALL)");
  bool propagate = a.has(3) && L.isTruthyConst(a[3], a.locs[3]);
  auto &b = L.at(a.loc);
  ir::Op *mx = b.create(OpKind::Max, {x, lo}, {x->type});
  if (propagate) mx->attrs["propagate_nan"] = true;
  ir::Op *mn = b.create(OpKind::Min, {mx->result(), hi}, {x->type});
  if (propagate) mn->attrs["propagate_nan"] = true;
  return Val::ir(mn->result());
}

Val mathErf(Lowerer &L, CallArgs &a) { return floatUnaryMath(L, a, OpKind::Erf); }
Val mathTanh(Lowerer &L, CallArgs &a) { return floatUnaryMath(L, a, OpKind::Tanh); }

Val mathPow(Lowerer &L, CallArgs &a) {
  auto [x, y] = floatPair(L, a);
  ElemType t = x->type.elem;
  bool narrow = t.scalar == Scalar::F16 || t.scalar == Scalar::BF16;
  if (narrow) {
    x = L.castTo(x, ElemType::of(Scalar::F32), a.loc);
    y = L.castTo(y, ElemType::of(Scalar::F32), a.loc);
  }
  ir::Value *r = L.at(a.loc).binary(OpKind::Pow, x, y);
  return Val::ir(narrow ? L.castTo(r, t, a.loc) : r);
}

Val mathFdiv(Lowerer &L, CallArgs &a) {
  // tl.div_rn and tl.fdiv(ieee_rounding=True): correctly rounded on the
  // GPU (the `ieee` attribute); `/` and tl.fdiv otherwise: div.full.f32,
  // about 2 ulp, as Triton
  bool ieee = a.vals.size() < 3 || (a.has(2) && L.isTruthyConst(a[2], a.locs[2]));
  auto [x, y] = floatPair(L, a);
  ir::Value *r = L.at(a.loc).binary(OpKind::Div, x, y);
  if (ieee && r->def) r->def->attrs["ieee"] = true;
  return Val::ir(r);
}

Val mathUmulhi(Lowerer &L, CallArgs &a) {
  auto [x, y] = L.promote(a[0], a[1], a.loc);
  ElemType t = x->type.elem;
  if (!t.isInt() || t.isPtr || t.scalar == Scalar::I1)
    fail(a.loc, fmt::format("umulhi expects integer operands, got {}", x->type.str()));
  auto &b = L.at(a.loc);
  ElemType ut = unsignedOf(bitWidth(t.scalar));
  if (t != ut) x = b.bitcast(x, ut), y = b.bitcast(y, ut);
  ir::Value *r = umulhiUnsigned(b, x, y);
  return Val::ir(t == ut ? r : b.bitcast(r, t));
}

// ---- random

Val randRandint4x(Lowerer &L, CallArgs &a) {
  Philox4 p = philoxRun(L, a);
  return Val::tuple({Val::ir(p.c[0]), Val::ir(p.c[1]), Val::ir(p.c[2]), Val::ir(p.c[3])});
}

Val randRandint(Lowerer &L, CallArgs &a) { return Val::ir(philoxRun(L, a).c[0]); }

Val randRand(Lowerer &L, CallArgs &a) { return Val::ir(uniformFloat(L, philoxRun(L, a).c[0], a.loc)); }

Val randRand4x(Lowerer &L, CallArgs &a) {
  Philox4 p = philoxRun(L, a);
  std::vector<Val> out;
  for (ir::Value *c : p.c) out.push_back(Val::ir(uniformFloat(L, c, a.loc)));
  return Val::tuple(std::move(out));
}

Val randRandn(Lowerer &L, CallArgs &a) {
  Philox4 p = philoxRun(L, a);
  ir::Value *u1 = uniformFloat(L, p.c[0], a.loc), *u2 = uniformFloat(L, p.c[1], a.loc);
  return Val::ir(boxMuller(L, u1, u2, a.loc).first);
}

Val randRandn4x(Lowerer &L, CallArgs &a) {
  Philox4 p = philoxRun(L, a);
  ir::Value *u[4];
  for (int i = 0; i < 4; ++i) u[i] = uniformFloat(L, p.c[i], a.loc);
  auto [n1, n2] = boxMuller(L, u[0], u[1], a.loc);
  auto [n3, n4] = boxMuller(L, u[2], u[3], a.loc);
  return Val::tuple({Val::ir(n1), Val::ir(n2), Val::ir(n3), Val::ir(n4)});
}

} // namespace tile::sema
