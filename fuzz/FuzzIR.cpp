// FuzzIR.cpp - libFuzzer target over the IR text parser: parse, verify
// every function, then for the ones that verify a print/parse round trip
// and the optimization pipeline.
//
// Oracles: syntax errors are located CompileErrors; a verified function
// prints to text that reads back to the same text; the passes keep verified
// IR valid (a pass that breaks it is a bug, not a user error).
#include "FuzzCommon.h"

#include "ir/IRParser.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "transforms/PassManager.h"

#include <cstdint>

using namespace tile;

namespace {

void checkVerified(ir::Function &fn) {
  std::string once = ir::print(fn);
  try {
    auto m = ir::parseModule(once, "roundtrip.tir");
    if (m->functions.size() != 1)
      fuzz::bug("round trip: wrong function count", once);
    std::string twice = ir::print(*m->functions[0]);
    if (twice != once)
      fuzz::bug("round trip: print(parse(print(f))) != print(f)", once + "\n----- reprinted:\n" + twice);
  } catch (const CompileError &e) {
    fuzz::bug("round trip: printed IR does not parse", std::string(e.what()) + "\n" + once);
  }
  transforms::PassManager pm;
  pm.verifyEach = true;
  transforms::addDefaultPipeline(pm);
  try {
    pm.run(fn);
  } catch (const CompileError &e) {
    fuzz::bug("a pass broke verified IR", std::string(e.what()) + "\n" + once);
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz::SourceScope scope;
  std::string text(reinterpret_cast<const char *>(data), size);
  std::unique_ptr<ir::Module> m;
  try {
    m = ir::parseModule(text, "fuzz.tir");
  } catch (const CompileError &e) {
    fuzz::checkLocated(e, text);
    return 0;
  }
  for (auto &fn : m->functions) {
    try {
      ir::verify(*fn);
    } catch (const CompileError &e) {
      (void)e.formatted();
      continue;
    }
    checkVerified(*fn);
  }
  return 0;
}
