// IRParser.h - reads the tile IR text form written by Printer.h.
//
// parseModule(print(m)) rebuilds m: print(parseModule(print(m))) == print(m).
// Ops written without loc(...) are located at their position in the IR
// text, so verifier errors on hand-written IR point into the .tir file.
// The parser checks syntax, names (every %value defined before use, in
// scope, defined once) and the op's region count; everything else is the
// verifier's job, so tests can feed it malformed IR on purpose.
#pragma once

#include "ir/IR.h"

#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace tile::ir {

/// Parses a module; registers `text` with SourceManager under `fileName`.
/// Throws CompileError located in the text on any syntax error.
std::unique_ptr<Module> parseModule(std::string_view text, const std::string &fileName);

/// Layouts in tensor types (`tensor<16xf32, #blocked<...>>`) are parsed by a
/// function the GPU library installs (gpu::registerLayoutParser), so that
/// the IR does not depend on it: it gets the text from '#' up to the '>'
/// closing the type and returns null when the text is malformed.
using LayoutParserFn = std::function<std::shared_ptr<const Layout>(const std::string &)>;
void setLayoutParser(LayoutParserFn parser);
LayoutParserFn &layoutParser();

} // namespace tile::ir
