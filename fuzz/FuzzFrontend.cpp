// FuzzFrontend.cpp - libFuzzer target over the whole front end: lexer,
// parser, Program (module constants), bindLaunch and sema's lowering of
// every @jit function with a default specialization, then the verifier, an
// IR print/parse round trip and the optimization pipeline.
//
// Oracles: user errors are located CompileErrors; sema's output verifies;
// print(parse(print(f))) == print(f); the passes keep verified IR valid.
// Crashes, sanitizer findings, timeouts and memory blow-ups are found by
// libFuzzer itself.
#include "FuzzProgram.h"

#include "driver/Pipeline.h"
#include "frontend/Parser.h"
#include "ir/IRParser.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "sema/Lower.h"
#include "transforms/PassManager.h"

#include <cctype>
#include <cstdint>
#include <fstream>
#include <memory>

using namespace tile;
using fuzz::bug;

namespace {

/// Optional: where FuzzReplay --dump-ir writes the IR of every kernel it
/// lowers (seeds for the IR fuzzer).
std::string gDumpDir;
int gDumpCount = 0;

bool looksLikePointer(const std::string &name) {
  std::string lower;
  for (char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.find("ptr") != std::string::npos || std::isupper(static_cast<unsigned char>(name[0]));
}

/// The default specialization: constexprs without a default are 16, other
/// parameters without a default are f32 pointers when their name looks like
/// one (`x_ptr`, `X`), else i32 scalars.
void defaultArgs(const ast::FunctionDef &k, std::vector<sema::ArgValue> &positional,
                 std::vector<std::pair<std::string, sema::ArgValue>> &keywords) {
  for (const ast::Param &p : k.params) {
    if (p.defaultValue || p.name.empty())
      continue;
    sema::ArgValue a;
    a.loc = k.loc;
    if (sema::Program::isConstexprParam(p)) {
      a.value = sema::ConstValue(int64_t(16));
      keywords.emplace_back(p.name, a);
      continue;
    }
    if (looksLikePointer(p.name)) {
      a.isPointer = true;
      a.elem = Scalar::F32;
      a.address = 0x10000;
    } else {
      a.value = sema::ConstValue(int64_t(100));
    }
    positional.push_back(a);
  }
}

std::string printNoLoc(const ir::Function &fn) { return ir::print(fn); }

/// Round trip and passes on IR that sema produced and the verifier accepted.
void checkIR(ir::Function &fn) {
  std::string once = printNoLoc(fn);
  if (!gDumpDir.empty())
    std::ofstream(gDumpDir + "/kernel" + std::to_string(gDumpCount++) + ".tir") << once;
  try {
    auto m = ir::parseModule(once, "roundtrip.tir");
    if (m->functions.size() != 1)
      bug("round trip: wrong function count", once);
    std::string twice = printNoLoc(*m->functions[0]);
    if (twice != once)
      bug("round trip: print(parse(print(f))) != print(f)", once + "\n----- reprinted:\n" + twice);
  } catch (const CompileError &e) {
    bug("round trip: printed IR does not parse", std::string(e.what()) + "\n" + once);
  }
  transforms::PassManager pm;
  pm.verifyEach = true;
  transforms::addDefaultPipeline(pm);
  try {
    pm.run(fn);
  } catch (const CompileError &e) {
    bug("a pass broke verified IR", std::string(e.what()) + "\n" + once);
  }
}

void lowerEveryKernel(const sema::Program &prog, std::string_view text) {
  int budget = 8; // bounds the work per input
  for (const auto &[name, kernel] : prog.jitFunctions) {
    if (budget-- == 0)
      return;
    std::unique_ptr<ir::Function> fn;
    try {
      std::vector<sema::ArgValue> positional;
      std::vector<std::pair<std::string, sema::ArgValue>> keywords;
      defaultArgs(*kernel, positional, keywords);
      sema::BoundLaunch bound = sema::bindLaunch(prog, *kernel, positional, keywords, kernel->loc);
      fn = sema::lowerKernel(prog, *kernel, bound.spec);
    } catch (const CompileError &e) {
      fuzz::checkLocated(e, text);
      continue;
    }
    try {
      ir::verify(*fn);
    } catch (const CompileError &e) {
      bug("sema produced IR that does not verify", std::string(e.what()) + "\n" + printNoLoc(*fn));
    }
    checkIR(*fn);
  }
}

} // namespace

extern "C" void tileFuzzSetDumpDir(const char *dir) { gDumpDir = dir; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz::SourceScope scope;
  std::string text(reinterpret_cast<const char *>(data), size);
  std::shared_ptr<const sema::Program> prog = fuzz::loadProgramOrNull(text);
  if (!prog) return 0;
  lowerEveryKernel(*prog, text);
  return 0;
}
