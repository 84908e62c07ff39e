// tile-opt: reads tile IR text, verifies it, runs passes, prints the result.
//
//   tile-opt FILE.tir [--pass=a,b,c] [--print-ir-after-all]
//            [--print-ir-after=a,b] [--print-ir-before=a,b] [--no-verify]
//            [--no-locations] [--split-input-file] [--timing]
//            [--arch=sm_90a] [--num-warps=N] [--num-stages=N]
//
// The passes are the registry's (transforms/PassManager.h), GPU ones
// included (gpu/Passes.h: tile-pipeline, tile-layouts, built for --arch,
// --num-warps and --num-stages; the default arch "" means no particular
// GPU, as the layout tests expect), and test-print-axis-info (prints the
// axis info of every op result to stdout). `--help` lists them.
//
// Without --pass the default pipeline runs. --pass= (empty) runs nothing:
// parse, verify and print. With --split-input-file the input is cut at lines
// `// -----`, each chunk is handled on its own (keeping its line numbers)
// and the outputs are joined with `// -----`. Errors go to stderr as
// diagnostics; the exit status is 1 when any chunk failed, 2 on a usage
// error (an unknown option or pass).
#include "gpu/Layouts.h"
#include "support/Files.h"
#include "gpu/Passes.h"
#include "ir/IRParser.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "transforms/PassManager.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

using namespace tile;

namespace {

struct Options {
  std::string file;
  bool passesGiven = false;
  std::vector<std::string> passes;
  bool printAfterAll = false;
  std::vector<std::string> printAfter, printBefore;
  bool verify = true;
  bool locations = true;
  bool split = false;
  bool timing = false;
  transforms::PassTarget target; ///< for the GPU passes
};

std::string passList() {
  std::string out;
  for (const transforms::PassInfo &p : transforms::registeredPasses())
    out += fmt::format("  {:<22} {}\n", p.name, p.summary);
  return out;
}

/// Parses the command line; exits 0 after --help, 2 on a usage error.
Options parseArgs(int argc, char **argv) {
  Options o;
  CLI::App app{"tile-opt: reads tile IR text, verifies it, runs passes, prints the result", "tile-opt"};
  app.footer("Passes (--pass, --print-ir-after, --print-ir-before):\n" + passList() +
             "Without --pass the default pipeline runs; --pass= (empty) only parses, verifies and prints.");
  bool noVerify = false, noLocations = false;
  std::string passes;
  app.add_option("file", o.file, "IR text file ('-' for stdin)")->required();
  CLI::Option *passOpt = app.add_option("--pass", passes, "passes to run, in order (comma separated)");
  app.add_flag("--print-ir-after-all", o.printAfterAll, "dump the IR after every pass, on stderr");
  app.add_option("--print-ir-after", o.printAfter, "dump the IR after the named passes")->delimiter(',');
  app.add_option("--print-ir-before", o.printBefore, "dump the IR before the named passes")->delimiter(',');
  app.add_flag("--no-verify", noVerify, "do not verify the input and the IR after each pass");
  app.add_flag("--no-locations", noLocations, "omit loc(...) in the output");
  app.add_flag("--split-input-file", o.split, "handle each `// -----` chunk on its own");
  app.add_flag("--timing", o.timing, "per-pass wall time on stderr");
  app.add_option("--arch", o.target.arch, "GPU passes: target architecture (default none: no wgmma)");
  app.add_option("--num-warps", o.target.numWarps, "GPU passes: warps per program (default 4)")
      ->check(CLI::IsMember({1, 2, 4, 8, 16, 32}));
  app.add_option("--num-stages", o.target.numStages, "tile-pipeline: software pipelining depth (default 3)")
      ->check(CLI::Range(1, 8));
  // `--pass=` (nothing: parse, verify, print) is an empty value, which
  // CLI11 would count as missing.
  std::vector<std::string> args;
  for (int i = argc - 1; i >= 1; --i)
    args.push_back(std::string_view(argv[i]) == "--pass=" ? "--pass=," : argv[i]);
  try {
    app.parse(args);
  } catch (const CLI::ParseError &e) {
    int rc = app.exit(e);
    std::exit(rc == 0 ? 0 : 2);
  }
  o.verify = !noVerify;
  o.locations = !noLocations;
  o.passesGiven = passOpt->count() > 0;
  std::string_view rest = passes;
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    if (std::string_view item = rest.substr(0, comma); !item.empty())
      o.passes.emplace_back(item);
    if (comma == std::string_view::npos)
      break;
    rest.remove_prefix(comma + 1);
  }
  for (const auto *names : {&o.passes, &o.printAfter, &o.printBefore})
    for (const std::string &name : *names)
      if (!transforms::createPass(name, o.target)) {
        std::fprintf(stderr, "tile-opt: unknown pass '%s' (passes: %s)\n", name.c_str(),
                     transforms::passNames(true).c_str());
        std::exit(2);
      }
  return o;
}

std::string readInput(const std::string &path) {
  std::stringstream ss;
  if (path == "-") {
    ss << std::cin.rdbuf();
    return ss.str();
  }
  FileText f = readWholeFile(path);
  if (!f.ok())
    throw CompileError(Location{}, fmt::format("cannot read '{}': {}", path, f.error));
  return f.text;
}

/// Chunks separated by `// -----` lines; each chunk is padded with the
/// newlines before it so that diagnostics keep the file's line numbers.
std::vector<std::string> splitChunks(const std::string &text) {
  std::vector<std::string> chunks;
  std::string current;
  int line = 0, chunkStart = 0;
  std::istringstream in(text);
  std::string l;
  while (std::getline(in, l)) {
    std::string_view t = l;
    while (!t.empty() && (t.back() == ' ' || t.back() == '\r'))
      t.remove_suffix(1);
    if (t == "// -----") {
      chunks.push_back(std::string(chunkStart, '\n') + current);
      current.clear();
      chunkStart = line + 1;
    } else {
      current += l + "\n";
    }
    ++line;
  }
  chunks.push_back(std::string(chunkStart, '\n') + current);
  return chunks;
}

transforms::PassManager makePassManager(const Options &o) {
  transforms::PassManager pm;
  pm.verifyEach = o.verify;
  pm.printAfterAll = o.printAfterAll;
  pm.printAfter.insert(o.printAfter.begin(), o.printAfter.end());
  pm.printBefore.insert(o.printBefore.begin(), o.printBefore.end());
  pm.timing = o.timing;
  pm.printOptions.locations = o.locations;
  if (!o.passesGiven) {
    transforms::addDefaultPipeline(pm);
    return pm;
  }
  for (const std::string &name : o.passes)
    pm.add(*transforms::createPass(name, o.target));
  return pm;
}

/// Parses, verifies, optimizes and prints one chunk; false on error.
bool processChunk(const Options &o, const std::string &text, std::string &out) {
  try {
    auto module = ir::parseModule(text, o.file);
    if (o.verify)
      ir::verify(*module);
    transforms::PassManager pm = makePassManager(o);
    pm.run(*module);
    ir::PrintOptions po;
    po.locations = o.locations;
    out += ir::print(*module, po);
    if (o.timing)
      std::fputs(pm.timingReport().c_str(), stderr);
    return true;
  } catch (const CompileError &e) {
    std::fputs(e.formatted().c_str(), stderr);
    return false;
  }
}

} // namespace

int main(int argc, char **argv) {
  gpu::registerLayoutParser();
  gpu::registerPasses();
  Options o = parseArgs(argc, argv);
  std::string text;
  try {
    text = readInput(o.file);
  } catch (const CompileError &e) {
    std::fprintf(stderr, "tile-opt: %s\n", e.msg.c_str());
    return 1;
  }
  std::vector<std::string> chunks = o.split ? splitChunks(text) : std::vector<std::string>{text};
  bool ok = true;
  std::string out;
  for (size_t i = 0; i < chunks.size(); ++i) {
    if (i)
      out += "// -----\n";
    ok &= processChunk(o, chunks[i], out);
  }
  std::fputs(out.c_str(), stdout);
  return ok ? 0 : 1;
}
