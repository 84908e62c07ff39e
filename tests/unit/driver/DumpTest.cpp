// DumpTest.cpp - the driver's stage dumps (TILE_DUMP_DIR / setDumpDir):
// numbered files in stage order, numbering that continues across runs, and
// dumps of kernels that come out of the KernelCache.
#include "driver/Dump.h"
#include "driver/Pipeline.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace tile;
namespace fs = std::filesystem;

namespace {

constexpr const char *kSource = R"(import triton
import triton.language as tl

@triton.jit
def fill(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, offs * 2 + 0, mask=offs < n)
)";

/// A fresh, empty directory under the system's temporary directory.
fs::path freshDir(const char *name) {
  fs::path p = fs::temp_directory_path() / fmt::format("tile-dump-test-{}-{}", name, ::getpid());
  fs::remove_all(p);
  return p;
}

std::vector<std::string> listing(const fs::path &dir) {
  std::vector<std::string> names;
  if (!fs::exists(dir)) return names;
  for (const auto &e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string readFile(const fs::path &p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

sema::Specialization fillSpec(const sema::Program &prog, int64_t block) {
  sema::ArgValue ptr;
  ptr.isPointer = true;
  ptr.elem = Scalar::F32;
  ptr.address = 0x1000;
  sema::ArgValue n;
  n.value = int64_t(100);
  sema::ArgValue b;
  b.value = block;
  const ast::FunctionDef *k = prog.kernel("fill");
  return sema::bindLaunch(prog, *k, {ptr, n}, {{"BLOCK", b}}, k->loc).spec;
}

} // namespace

TEST_CASE("compileKernel dumps ir, changed passes and ir-opt in order; numbering continues") {
  fs::path dir = freshDir("order");
  driver::setDumpDir(dir.string());
  // source text, as a file: its tokens and AST first
  auto prog = driver::loadProgramFromString("dump.tile", kSource);
  std::vector<std::string> parsed = listing(dir);
  CHECK(parsed == std::vector<std::string>{"001-dump-tokens.txt", "002-dump-ast.txt"});
  for (const std::string &f : parsed) fs::remove(dir / f);
  driver::compileKernel(*prog, *prog->kernel("fill"), fillSpec(*prog, 32), {});
  std::vector<std::string> files = listing(dir);
  REQUIRE(files.size() >= 3);
  CHECK(files.front() == "003-fill-ir.tir");
  CHECK(files.back().find("-fill-ir-opt.tir") != std::string::npos);
  // `offs * 2 + 0`: canonicalize drops the `+ 0`, so at least one pass changed the IR.
  CHECK(std::any_of(files.begin(), files.end(), [](const std::string &f) { return f.find("-fill-after-") != std::string::npos; }));
  std::string ir = readFile(dir / files.front());
  CHECK(ir.find("// kernel fill [*f32:16,i32,BLOCK=32], stage ir") == 0);
  CHECK(ir.find("tile.func @fill(") != std::string::npos);

  size_t before = files.size();
  driver::compileKernel(*prog, *prog->kernel("fill"), fillSpec(*prog, 32), {});
  files = listing(dir);
  CHECK(files.size() == 2 * before);
  CHECK(files[before].rfind(fmt::format("{:03}-fill-ir.tir", before + 3), 0) == 0);
  driver::setDumpDir("");
  fs::remove_all(dir);
}

TEST_CASE("a kernel taken from the cache is dumped into a new dump directory once") {
  auto prog = driver::loadProgramFromString("cache-dump.tile", kSource);
  const ast::FunctionDef *k = prog->kernel("fill");
  driver::KernelCache cache;
  driver::setDumpDir("");
  ::unsetenv("TILE_DUMP_DIR");
  auto first = cache.get(*prog, *k, fillSpec(*prog, 16), {});
  CHECK(cache.compilations() == 1);

  fs::path dir = freshDir("cache");
  ::setenv("TILE_DUMP_DIR", dir.string().c_str(), 1); // as an embedding program would
  auto hit = cache.get(*prog, *k, fillSpec(*prog, 16), {});
  CHECK(hit == first);
  CHECK(cache.compilations() == 1);
  std::vector<std::string> files = listing(dir);
  REQUIRE(!files.empty());
  CHECK(files.front() == "001-fill-ir.tir");
  CHECK(files.back().find("-fill-ir-opt.tir") != std::string::npos);

  // Dumped there already: further hits write nothing.
  cache.get(*prog, *k, fillSpec(*prog, 16), {});
  CHECK(listing(dir).size() == files.size());
  ::unsetenv("TILE_DUMP_DIR");
  cache.get(*prog, *k, fillSpec(*prog, 16), {});
  CHECK(listing(dir).size() == files.size());
  fs::remove_all(dir);
}

TEST_CASE("writeDump names files NNN-UNIT-STAGE.EXT and reports unwritable directories") {
  fs::path dir = freshDir("names");
  CHECK(fs::path(driver::writeDump(dir.string(), "my kernel", "llvm-opt", "ll", "x")).filename() ==
        "001-my_kernel-llvm-opt.ll");
  CHECK(readFile(dir / "001-my_kernel-llvm-opt.ll") == "x");
  CHECK_THROWS_AS(driver::writeDump("/dev/null/sub", "k", "ir", "tir", "x"), CompileError);
  fs::remove_all(dir);
}
