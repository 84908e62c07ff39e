// BuiltinsScan.h - the scan, custom-reduction and atomic builtins
// (tl.cumsum, tl.cumprod, tl.associative_scan, tl.reduce, tl.xor_sum,
// tl.atomic_*), implemented in BuiltinsScan.cpp and listed in the table of
// Builtins.cpp.
#pragma once

#include "sema/Lowerer.h"

namespace tile::sema::scan {

/// tl.cumsum(input, axis=0, reverse=False, dtype=None): an inclusive sum
/// scan; ints narrower than 32 bits sum in i32/u32 as tl.sum does.
Val bCumsum(Lowerer &L, CallArgs &a);
/// tl.cumprod(input, axis=0, reverse=False): an inclusive product scan.
Val bCumprod(Lowerer &L, CallArgs &a);
/// tl.associative_scan(input, axis, combine_fn, reverse=False): an inclusive
/// scan whose combine function is a @jit function of two scalars.
Val bAssociativeScan(Lowerer &L, CallArgs &a);
/// tl.reduce(input, axis, combine_fn, keep_dims=False): a reduction with a
/// @jit combine function (the last element of the scan, combined in index
/// order).
Val bReduce(Lowerer &L, CallArgs &a);
/// tl.xor_sum(input, axis=None, keep_dims=False): bitwise xor of integers.
Val bXorSum(Lowerer &L, CallArgs &a);

/// tl.atomic_add .. tl.atomic_xchg(pointer, val, mask=None, sem=None,
/// scope=None): returns the old values.
Val bAtomicAdd(Lowerer &L, CallArgs &a);
Val bAtomicMax(Lowerer &L, CallArgs &a);   ///< see bAtomicAdd
Val bAtomicMin(Lowerer &L, CallArgs &a);   ///< see bAtomicAdd
Val bAtomicAnd(Lowerer &L, CallArgs &a);   ///< see bAtomicAdd
Val bAtomicOr(Lowerer &L, CallArgs &a);    ///< see bAtomicAdd
Val bAtomicXor(Lowerer &L, CallArgs &a);   ///< see bAtomicAdd
Val bAtomicXchg(Lowerer &L, CallArgs &a);  ///< see bAtomicAdd
/// tl.atomic_cas(pointer, cmp, val, sem=None, scope=None): returns the old
/// values.
Val bAtomicCas(Lowerer &L, CallArgs &a);

} // namespace tile::sema::scan
