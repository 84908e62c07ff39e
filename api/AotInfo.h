// AotInfo.h - the metadata `tilec compile --emit ptx|cubin` embeds in its
// output (tools/tilec/AotWrite.cpp writes it) and Context::loadCompiled
// reads back (api/Aot.cpp): which kernel the file holds and the
// specialization it was compiled for. Parsing needs no GPU. Not a public
// header.
//
// The text lives in the module's global `__tile_kernel_info` (bytes,
// NUL-terminated), one `key=value` per line after a version line:
//
//   tile-aot 1
//   kernel=add_kernel                   the @jit function's name
//   symbol=add_kernel                   the PTX entry
//   num_warps=4
//   num_stages=3
//   shared=0                            dynamic shared bytes per launch
//   arch=sm_90a
//   signature=*f32:16,*f32:16,*f32:16,i32,BLOCK_SIZE=1024
//   params=x_ptr,y_ptr,output_ptr,n_elements,BLOCK_SIZE
//
// signature is sema::Specialization::key(): one entry per parameter, in
// order; constexprs as NAME=repr, runtime ones as their type ("*f32",
// "i32", "f16", ...) with ":16" (divisible by 16) or ":1" (equal to 1).
// params names every parameter, constexprs included. In values, "\n" and
// "\\" stand for a newline and a backslash. Unknown keys are ignored (later
// versions may add some).
#pragma once

#include "support/DType.h"

#include <string>
#include <string_view>
#include <vector>

namespace tile::detail {

/// The name of the global variable holding the metadata.
inline constexpr const char *kAotInfoSymbol = "__tile_kernel_info";
/// The version line the metadata starts with.
inline constexpr const char *kAotInfoVersion = "tile-aot 1";

/// One parameter of a precompiled kernel.
struct AotParam {
  std::string name;
  bool isConstexpr = false;
  std::string value;     ///< constexprs: the compiled value's repr ("16", "'relu'")
  ElemType type;         ///< runtime parameters
  bool div16 = false;    ///< ":16": the address or value is a multiple of 16
  bool equalsOne = false; ///< ":1": the value is 1
};

/// What the metadata says about the kernel in a precompiled file.
struct AotKernelInfo {
  std::string kernel;
  std::string symbol;
  int numWarps = 4;
  int numStages = 3;
  int sharedBytes = 0; ///< dynamic shared memory each launch passes
  std::string arch;
  std::string signature;
  std::vector<AotParam> params; ///< every parameter, in order
};

/// Parses the metadata text (up to its NUL, if any). A wrong version line,
/// a missing or malformed key, or a signature that does not match params is
/// a tile::Error "error: <where>: ...".
AotKernelInfo parseAotInfo(std::string_view text, const std::string &where);

/// Splits a specialization key at its top-level commas (not those inside
/// quotes or brackets of a constexpr's repr); "" gives no entries.
std::vector<std::string> splitSignature(std::string_view signature);

} // namespace tile::detail
