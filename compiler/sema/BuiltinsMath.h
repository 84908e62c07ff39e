// BuiltinsMath.h - internal to sema: the math builtins beyond the basic
// unary functions (tl.clamp, tl.erf, tl.math.tanh/pow, tl.fdiv, tl.div_rn,
// tl.umulhi) and Triton's Philox random numbers (tl.randint, tl.randint4x,
// tl.rand, tl.rand4x, tl.randn, tl.randn4x). Builtins.cpp lists them in its
// table; BuiltinsMath.cpp implements them.
#pragma once

#include "sema/Lowerer.h"

namespace tile::sema {

/// tl.clamp(x, min, max, propagate_nan): min(max(x, min), max) on floats.
Val mathClamp(Lowerer &L, CallArgs &a);
/// tl.erf / tl.math.erf: the error function (IR op erf).
Val mathErf(Lowerer &L, CallArgs &a);
/// tl.math.tanh (libdevice.tanh): hyperbolic tangent (IR op tanh).
Val mathTanh(Lowerer &L, CallArgs &a);
/// tl.math.pow (libdevice.pow): x to the power y on floats (IR op pow).
Val mathPow(Lowerer &L, CallArgs &a);
/// tl.fdiv / tl.div_rn: IEEE float division, correctly rounded.
Val mathFdiv(Lowerer &L, CallArgs &a);
/// tl.umulhi: the high half of the unsigned product of two integers.
Val mathUmulhi(Lowerer &L, CallArgs &a);

/// tl.randint4x(seed, offset, n_rounds=10): Philox4x32-10 exactly as Triton
/// 3.6's random.py (64-bit offsets: their two words as the counter); four
/// uint32 tensors.
Val randRandint4x(Lowerer &L, CallArgs &a);
/// tl.randint: the first block of randint4x.
Val randRandint(Lowerer &L, CallArgs &a);
/// tl.rand: randint mapped to float32 in [0, 1) as Triton's uint_to_uniform_float.
Val randRand(Lowerer &L, CallArgs &a);
/// tl.rand4x: the four blocks of randint4x mapped to [0, 1).
Val randRand4x(Lowerer &L, CallArgs &a);
/// tl.randn: Box-Muller on the first two blocks (the cosine branch).
Val randRandn(Lowerer &L, CallArgs &a);
/// tl.randn4x: Box-Muller on blocks (1, 2) and (3, 4).
Val randRandn4x(Lowerer &L, CallArgs &a);

} // namespace tile::sema
