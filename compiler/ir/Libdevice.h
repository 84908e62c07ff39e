// Libdevice.h - the libdevice functions kernels can call
// (`libdevice.NAME(...)`, from triton.language.extra[.cuda]), as Triton's
// CUDA back end exposes them (third_party/nvidia/language/cuda/libdevice.py):
// per function its overloads, each an argument type list, a result type and
// the __nv_* symbol. They lower to the `extern_elementwise` op, which names
// the symbol; the GPU calls it from libdevice, the interpreter runs its own
// implementation of that symbol (runtime/interp/Extern.cpp).
#pragma once

#include "support/DType.h"

#include <string>
#include <string_view>
#include <vector>

namespace tile::ir {

struct ExternOverload {
  std::vector<Scalar> args;
  Scalar ret;
  std::string symbol;
};

struct LibdeviceFn {
  std::string name;
  std::vector<ExternOverload> overloads;
  /// Triton converts the i32 result to i1 (isnan, isinf, finitef, isfinited).
  bool toBool = false;
};

/// The function `name` of libdevice, or null.
const LibdeviceFn *findLibdeviceFn(std::string_view name);
/// The overload whose symbol is `symbol` (e.g. "__nv_log1pf"), or null.
const ExternOverload *findLibdeviceSymbol(std::string_view symbol);
/// Every function, in the table's order (docs, tests).
const std::vector<LibdeviceFn> &libdeviceFns();

} // namespace tile::ir
