// FuzzProgram.h - the program a .tile fuzz input makes, for the targets that
// start from source text (fuzz-frontend, fuzz-host).
#pragma once

#include "FuzzCommon.h"

#include "driver/Pipeline.h"

#include <memory>
#include <string>

namespace tile::fuzz {

/// Parses and checks `text` as "fuzz.tile". A rejected input must carry a
/// located diagnostic (else the fuzzer reports a bug); it gives null.
inline std::shared_ptr<const sema::Program> loadProgramOrNull(const std::string &text) {
  try {
    return driver::loadProgramFromString("fuzz.tile", text, {}, /*fileImports=*/false);
  } catch (const CompileError &e) {
    checkLocated(e, text);
    return nullptr;
  }
}

} // namespace tile::fuzz
