// SemaTestUtil.h - helpers shared by sema's unit tests: compiling kernels
// from source strings (parse -> bindLaunch -> compileKernel), counting and
// finding ops in the resulting IR, and catching located errors.
#pragma once

#include "driver/Pipeline.h"
#include "frontend/Parser.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "sema/Lower.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tile::sema::test {

inline constexpr const char *kPrelude = "import triton\nimport triton.language as tl\n";

/// A tensor argument: a pointer to `elem` (the address is irrelevant to sema).
inline ArgValue ptrArg(Scalar elem) {
  ArgValue a;
  a.isPointer = true;
  a.elem = elem;
  a.address = 0x1000;
  return a;
}

/// A Python scalar, string, dtype or None argument.
inline ArgValue valArg(ConstValue v) {
  ArgValue a;
  a.value = std::move(v);
  return a;
}

using Keywords = std::vector<std::pair<std::string, ArgValue>>;

/// A parsed program with its kernel compiled for one launch.
struct Compiled {
  std::shared_ptr<const Program> prog;
  BoundLaunch bound;
  std::unique_ptr<ir::Function> fn;

  std::string text() const {
    ir::PrintOptions po;
    po.locations = false;
    return ir::print(*fn, po);
  }
};

/// Parses `body` (the prelude is prepended; line numbers in errors count it:
/// the body's first line is line 3) and compiles kernel `name`.
inline Compiled compileSource(const std::string &body, const std::string &name, const std::vector<ArgValue> &args,
                              const Keywords &kws = {}, bool optimize = false,
                              const std::string &path = "test.tile") {
  Compiled c;
  c.prog = driver::loadProgramFromString(path, kPrelude + body);
  const ast::FunctionDef *k = c.prog->kernel(name);
  REQUIRE_MESSAGE(k != nullptr, "no kernel named " << name);
  c.bound = bindLaunch(*c.prog, *k, args, kws, k->loc);
  driver::PipelineOptions opts;
  opts.optimize = optimize;
  c.fn = driver::compileKernel(*c.prog, *k, c.bound.spec, opts);
  ir::verify(*c.fn);
  return c;
}

inline std::vector<ir::Op *> opsOf(ir::Function &fn, ir::OpKind kind) {
  std::vector<ir::Op *> out;
  ir::walk(fn, [&](ir::Op &op) {
    if (op.kind == kind) out.push_back(&op);
  });
  return out;
}

inline int countOps(ir::Function &fn, ir::OpKind kind) { return static_cast<int>(opsOf(fn, kind).size()); }

/// Ops directly in a block (not nested), of one kind.
inline std::vector<ir::Op *> topLevelOps(ir::Block &b, ir::OpKind kind) {
  std::vector<ir::Op *> out;
  for (auto &op : b.ops)
    if (op->kind == kind) out.push_back(op.get());
  return out;
}

/// The single op of `kind` in fn (fails the test if there is not exactly one).
inline ir::Op *onlyOp(ir::Function &fn, ir::OpKind kind) {
  auto ops = opsOf(fn, kind);
  REQUIRE_MESSAGE(ops.size() == 1, "expected one " << ir::opName(kind) << ", found " << ops.size());
  return ops[0];
}

/// The type stored by the one tl.store of a kernel ("tensor<16xf32>").
inline std::string storedType(ir::Function &fn) { return onlyOp(fn, ir::OpKind::Store)->operands[1]->type.str(); }

/// Runs f, which must throw a CompileError; returns it.
inline CompileError expectError(const std::function<void()> &f) {
  try {
    f();
  } catch (const CompileError &e) {
    return e;
  }
  FAIL("expected a CompileError");
  return CompileError(Location{}, "");
}

/// Compiles and expects a CompileError whose message contains `needle`,
/// located at (line, col) of the full text (prelude included) when line > 0.
inline CompileError expectCompileError(const std::string &body, const std::string &name,
                                       const std::vector<ArgValue> &args, const std::string &needle, int line = 0,
                                       int col = 0, const Keywords &kws = {}) {
  CompileError e = expectError([&] { compileSource(body, name, args, kws); });
  INFO("message: " << e.msg);
  CHECK(e.msg.find(needle) != std::string::npos);
  if (line > 0) {
    CHECK(e.loc.line == line);
    CHECK(e.loc.col == col);
  }
  return e;
}

} // namespace tile::sema::test
