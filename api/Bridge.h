// Bridge.h - what tilec needs beyond the public API to run host programs
// through it: a Context with the CLI's interpreter and pipeline options
// (--strict, --check-overflow, --print-ir-after, ...) and a Program over a
// program tilec parsed itself (with its -D overrides). Everything else
// tilec run does goes through include/tile/tile.h. Not a public header.
#pragma once

#include "driver/Pipeline.h"
#include "interp/Interpreter.h"
#include "sema/Lower.h"

#include <tile/tile.h>

#include <memory>

namespace tile::detail {

struct Bridge {
  /// A context as `options` asks, with these interpreter and pipeline options.
  static Context context(ContextOptions options, const interp::Options &interp,
                         const driver::PipelineOptions &pipeline);
  /// A Program of ctx over an already parsed program.
  static Program program(const Context &ctx, std::shared_ptr<const sema::Program> program);
  /// The API's dtype for an element type.
  static DType dtypeOf(Scalar s);
  /// Whether self-erasing progress lines go to stderr (autotuning here,
  /// tilec bench): TILE_PROGRESS=0/1 decides, else stderr being a terminal
  /// with TERM other than "dumb".
  static bool progressLines();
};

} // namespace tile::detail
