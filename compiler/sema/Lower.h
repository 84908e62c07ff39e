// Lower.h - sema: specializes a @jit kernel of a parsed file on its launch
// arguments and lowers it to tile IR.
//
// Sema is a partial evaluator, as Triton's code generator is: constexpr
// values (literals, tl.constexpr parameters, Python arithmetic on them,
// static_range, constexpr if-conditions) are computed at compile time;
// everything else becomes IR. @jit helpers are inlined; recursion is an
// error. Every error is a CompileError located at the offending token.
#pragma once

#include "frontend/AST.h"
#include "ir/IR.h"
#include "sema/ConstValue.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tile::sema {

/// The kernels, host functions and module-level constants of a parsed file.
class Program {
public:
  /// Collects definitions; evaluates module-level `NAME = <constant expr>`
  /// assignments (and `NAME: tl.constexpr = ...`) into globals.
  explicit Program(std::shared_ptr<const ast::Module> module);

  std::shared_ptr<const ast::Module> module;
  /// @triton.jit / @jit / @tl.jit functions, by name (kernels and helpers).
  std::map<std::string, const ast::FunctionDef *> jitFunctions;
  /// Undecorated defs: host code.
  std::map<std::string, const ast::FunctionDef *> hostFunctions;
  /// Module-level constants visible to kernels (and -D overrides).
  std::map<std::string, ConstValue> globals;
  /// Names bound by import statements: alias -> dotted path
  /// ("tl" -> "triton.language", "cdiv" -> "triton.cdiv").
  std::map<std::string, std::string> imports;

  const ast::FunctionDef *kernel(const std::string &name) const;
  static bool isJit(const ast::FunctionDef &fn);
  static bool isConstexprParam(const ast::Param &p);
};

/// One launch argument as host code gives it.
struct ArgValue {
  ConstValue value;           ///< Python scalars, strings, None, dtypes
  bool isPointer = false;     ///< a tensor: a pointer to `elem` at `address`
  Scalar elem = Scalar::F32;
  uint64_t address = 0;
  Location loc;
};

/// The stand-in arguments of a Triton AOT signature ("*fp32:16,*fp16,i32:1,
/// fp32": pointers and integers divisible by 16, 8 or equal to 1 as marked),
/// which bind to the specialization the signature names (tilec compile -s,
/// Kernel::compileFor). std::invalid_argument on an unknown type name.
std::vector<ArgValue> parseAotSignature(const std::string &sig);

/// What a kernel is specialized on: per parameter, in order, either its
/// constexpr value or the type of its runtime argument.
struct Specialization {
  struct Param {
    std::string name;
    bool isConstexpr = false;
    ConstValue value;      ///< constexpr parameters
    ElemType type;         ///< runtime parameters
    /// Runtime pointers and integers: 16 when the address (in bytes) or the
    /// value is a multiple of 16 (Triton's `:16` specialization), 8 for an
    /// integer that is a multiple of 8 only, else 1.
    int64_t divisibility = 1;
    /// Runtime integers whose value is 1 (Triton's equal-to-1
    /// specialization, ":1" in a signature): the kernel sees the constant 1
    /// (still of the parameter's type), so unit strides give contiguous
    /// pointer tensors that the back end vectorizes. The parameter stays in
    /// the launch ABI.
    bool equalsOne = false;
  };
  std::vector<Param> params;
  /// Stable text used as a cache key and in dumps:
  /// "*f32:16,*f32:16,i32:1,i32,BLOCK=16" (":16": divisibility 16, ":1":
  /// equal to 1).
  std::string key() const;
};

/// The launch options a kernel launch takes besides its parameters
/// (`kernel[grid](..., num_warps=4)`): bindLaunch never sees them, the host
/// launch reads them, and `tilec check` accepts them.
inline const std::vector<std::string> &launchOptionNames() {
  static const std::vector<std::string> names{"num_warps", "num_stages", "enable_fp_fusion", "num_ctas"};
  return names;
}

struct BoundLaunch {
  Specialization spec;
  std::vector<ScalarArg> args;   ///< runtime arguments, in parameter order
};

/// Matches positional and keyword launch arguments to the kernel's
/// parameters (defaults applied, constexpr parameters captured); Python ints
/// become i32 (i64 when out of range), floats f32, bools i1, tensors
/// pointers. Missing, extra or duplicate arguments are errors at callLoc.
BoundLaunch bindLaunch(const Program &prog, const ast::FunctionDef &kernel,
                       const std::vector<ArgValue> &positional,
                       const std::vector<std::pair<std::string, ArgValue>> &keywords,
                       Location callLoc);

/// Lowers one specialization of a kernel to a verified tile IR function.
std::unique_ptr<ir::Function> lowerKernel(const Program &prog, const ast::FunctionDef &kernel,
                                          const Specialization &spec);

} // namespace tile::sema
