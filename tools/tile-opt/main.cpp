// tile-opt: reads tile IR text, verifies it, runs passes, prints the result.
//
//   tile-opt FILE.tir [--pass=a,b,c] [--print-ir-after-all]
//            [--print-ir-after=a,b] [--print-ir-before=a,b] [--no-verify]
//            [--no-locations] [--split-input-file] [--timing] [--num-warps=N]
//
// Besides the registry's passes: tile-layouts (the GPU layout assignment,
// for --num-warps warps, default 4), tile-pipeline (load pipelining for 3
// stages) and test-print-axis-info (prints the axis info of every op result
// to stdout).
//
// Without --pass the default pipeline runs. --pass= (empty) runs nothing:
// parse, verify and print. With --split-input-file the input is cut at lines
// `// -----`, each chunk is handled on its own (keeping its line numbers)
// and the outputs are joined with `// -----`. Errors go to stderr as
// diagnostics; the exit status is 1 when any chunk failed.
#include "gpu/AxisInfo.h"
#include "gpu/LayoutAssignment.h"
#include "gpu/Layouts.h"
#include "gpu/Pipeline.h"
#include "ir/IRParser.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "transforms/PassManager.h"

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
  int numWarps = 4;   ///< for tile-layouts
};

std::vector<std::string> splitCommas(std::string_view s) {
  std::vector<std::string> out;
  while (!s.empty()) {
    size_t comma = s.find(',');
    std::string_view item = s.substr(0, comma);
    if (!item.empty())
      out.emplace_back(item);
    if (comma == std::string_view::npos)
      break;
    s.remove_prefix(comma + 1);
  }
  return out;
}

[[noreturn]] void usage(const std::string &msg) {
  std::fprintf(stderr, "tile-opt: %s\nusage: tile-opt FILE.tir [--pass=a,b,c] [--print-ir-after-all] "
                       "[--print-ir-after=a,b] [--print-ir-before=a,b] [--no-verify] [--no-locations] "
                       "[--split-input-file] [--timing]\n",
               msg.c_str());
  std::exit(2);
}

Options parseArgs(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    auto value = [&](std::string_view flag) { return a.substr(flag.size()); };
    if (a.rfind("--pass=", 0) == 0) {
      o.passesGiven = true;
      o.passes = splitCommas(value("--pass="));
    } else if (a == "--print-ir-after-all") {
      o.printAfterAll = true;
    } else if (a.rfind("--print-ir-after=", 0) == 0) {
      o.printAfter = splitCommas(value("--print-ir-after="));
    } else if (a.rfind("--print-ir-before=", 0) == 0) {
      o.printBefore = splitCommas(value("--print-ir-before="));
    } else if (a == "--no-verify") {
      o.verify = false;
    } else if (a == "--no-locations") {
      o.locations = false;
    } else if (a == "--split-input-file") {
      o.split = true;
    } else if (a.rfind("--num-warps=", 0) == 0) {
      o.numWarps = std::atoi(std::string(value("--num-warps=")).c_str());
      if (o.numWarps < 1 || o.numWarps > 32 || (o.numWarps & (o.numWarps - 1)))
        usage("--num-warps must be a power of two from 1 to 32");
    } else if (a == "--timing") {
      o.timing = true;
    } else if (a == "-h" || a == "--help") {
      usage("IR optimizer");
    } else if (a.rfind("-", 0) == 0 && a != "-") {
      usage(fmt::format("unknown option '{}'", a));
    } else if (o.file.empty()) {
      o.file = std::string(a);
    } else {
      usage("more than one input file");
    }
  }
  if (o.file.empty())
    usage("no input file");
  return o;
}

std::string readInput(const std::string &path) {
  std::stringstream ss;
  if (path == "-") {
    ss << std::cin.rdbuf();
    return ss.str();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw CompileError(Location{}, fmt::format("cannot open '{}'", path));
  ss << in.rdbuf();
  return ss.str();
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
  for (const std::string &name : o.passes) {
    if (name == "tile-layouts") {
      pm.add(gpu::layoutPass(o.numWarps));
      continue;
    }
    if (name == "tile-pipeline") {
      pm.add(gpu::pipelinePass(3));
      continue;
    }
    if (name == "test-print-axis-info") {
      pm.add({name, [](ir::Function &fn) {
                std::fputs(gpu::printAxisInfo(fn).c_str(), stdout);
                return false;
              }});
      continue;
    }
    if (!pm.add(name))
      usage(fmt::format("unknown pass '{}'", name));
  }
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
