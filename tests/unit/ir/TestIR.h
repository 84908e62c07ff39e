// TestIR.h - helpers shared by the IR unit tests: a function using every op
// kind, built with ir::Builder, and parse/print shorthands.
#pragma once

#include "ir/IR.h"
#include "ir/IRParser.h"
#include "ir/Printer.h"

#include <memory>
#include <string>

namespace tile::ir::test {

/// A verifiable function that uses every op kind, with nested regions
/// (a for inside an if inside a while).
std::unique_ptr<Function> buildEveryOpFunction(Location loc = {});

/// Parses text holding one function; returns it (the module is leaked into
/// a static list so the function stays alive).
Function &parseFunction(const std::string &text);

/// print without locations
std::string str(const Function &fn);

} // namespace tile::ir::test
