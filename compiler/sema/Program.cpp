// Program.cpp - collects a parsed file's kernels, host functions, imports
// and module-level constants.
#include "sema/Lowerer.h"

#include <fmt/format.h>

namespace tile::sema {

namespace {
/// "triton.jit", "jit", "tl.jit", "triton.jit(...)" (any call of those).
std::string dottedName(const ast::Expr &e) {
  if (e.kind == ast::ExprKind::Name) return static_cast<const ast::NameExpr &>(e).id;
  if (e.kind == ast::ExprKind::Attribute) {
    auto &a = static_cast<const ast::AttributeExpr &>(e);
    std::string base = dottedName(*a.value);
    return base.empty() ? "" : base + "." + a.attr;
  }
  if (e.kind == ast::ExprKind::Call) return dottedName(*static_cast<const ast::CallExpr &>(e).func);
  return "";
}
} // namespace

bool Program::isJit(const ast::FunctionDef &fn) {
  for (const auto &d : fn.decorators) {
    std::string n = dottedName(*d);
    if (n == "triton.jit" || n == "jit" || n == "tl.jit" || n == "triton.language.jit" || n == "tile.jit")
      return true;
  }
  return false;
}

bool Program::isConstexprParam(const ast::Param &p) {
  if (!p.annotation) return false;
  // a string annotation (`BLOCK: "tl.constexpr"`, or any annotation under
  // `from __future__ import annotations`) counts when it names constexpr,
  // as Triton's check of the annotation's text
  std::string n = p.annotation->kind == ast::ExprKind::Str ? static_cast<const ast::StrExpr &>(*p.annotation).value
                                                           : dottedName(*p.annotation);
  return n == "tl.constexpr" || n == "constexpr" || n == "triton.language.constexpr" || n == "tile.constexpr";
}

Program::Program(std::shared_ptr<const ast::Module> m) : module(std::move(m)) {
  Lowerer consts(*this, nullptr);
  for (const auto &s : module->body) {
    switch (s->kind) {
    case ast::StmtKind::FunctionDef: {
      auto &f = static_cast<const ast::FunctionDef &>(*s);
      if (isJit(f)) jitFunctions[f.name] = &f;
      else hostFunctions[f.name] = &f;
      break;
    }
    case ast::StmtKind::Import:
      for (const auto &a : static_cast<const ast::ImportStmt &>(*s).names)
        imports[a.asName.empty() ? a.module.substr(0, a.module.find('.')) : a.asName] =
            a.asName.empty() ? a.module.substr(0, a.module.find('.')) : a.module;
      break;
    case ast::StmtKind::ImportFrom: {
      auto &imp = static_cast<const ast::ImportFromStmt &>(*s);
      for (const auto &a : imp.names) imports[a.asName.empty() ? a.name : a.asName] = imp.module + "." + a.name;
      break;
    }
    case ast::StmtKind::Assign:
    case ast::StmtKind::AnnAssign: {
      // Module-level constants: anything that evaluates at compile time.
      // Other assignments (host tensors, ...) belong to host code.
      const ast::Expr *value = nullptr;
      const ast::Expr *target = nullptr;
      if (s->kind == ast::StmtKind::Assign) {
        auto &a = static_cast<const ast::AssignStmt &>(*s);
        if (a.targets.size() == 1) target = a.targets[0].get(), value = a.value.get();
      } else {
        auto &a = static_cast<const ast::AnnAssignStmt &>(*s);
        target = a.target.get(), value = a.value.get();
      }
      if (!target || !value || target->kind != ast::ExprKind::Name) break;
      if (value->kind == ast::ExprKind::Name) {   // `alias = helper` (an imported name's `as`)
        auto &to = static_cast<const ast::NameExpr &>(*target).id;
        auto &from = static_cast<const ast::NameExpr &>(*value).id;
        if (auto it = jitFunctions.find(from); it != jitFunctions.end()) {
          jitFunctions[to] = it->second;
          break;
        }
      }
      try {
        globals[static_cast<const ast::NameExpr &>(*target).id] = consts.evalConst(*value);
      } catch (const CompileError &) {
      }
      break;
    }
    default: break;
    }
  }
}

const ast::FunctionDef *Program::kernel(const std::string &name) const {
  auto it = jitFunctions.find(name);
  return it == jitFunctions.end() ? nullptr : it->second;
}

std::unique_ptr<ir::Function> lowerKernel(const Program &prog, const ast::FunctionDef &kernel,
                                          const Specialization &spec) {
  auto fn = std::make_unique<ir::Function>(kernel.name, kernel.loc);
  Lowerer L(prog, fn.get());
  L.lowerKernelBody(kernel, spec);
  return fn;
}

} // namespace tile::sema
