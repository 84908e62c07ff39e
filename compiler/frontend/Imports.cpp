// Imports.cpp - `from kernels import add_kernel`: .tile files that import
// each other (Parser.h, spliceImports).
//
// tile has one namespace per program: an imported file's top-level
// statements are spliced into the importer where the import stands, so
// kernels, helpers and module constants of both files are visible to sema
// and the host evaluator as if written in one file. What Python would keep
// apart (two files binding the same name) is a located error instead of a
// silent shadowing, so no kernel ever sees another file's constant.
#include "frontend/Parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

namespace tile::frontend {

using namespace ast;

namespace {

bool isHostModule(const std::string &dotted) {
  std::string top = dotted.substr(0, dotted.find('.'));
  static const std::set<std::string> kModules = {"torch", "triton", "numpy", "tile", "math", "__future__"};
  return kModules.count(top) > 0;
}

/// The names a top-level statement binds, with where.
void topLevelBindings(const Stmt &s, std::vector<std::pair<std::string, Location>> &out) {
  std::set<std::string> names;
  switch (s.kind) {
  case StmtKind::FunctionDef: out.emplace_back(static_cast<const FunctionDef &>(s).name, s.loc); return;
  case StmtKind::Assign:
    for (const ExprPtr &t : static_cast<const AssignStmt &>(s).targets)
      collectTargetNames(*t, names);
    break;
  case StmtKind::AnnAssign: collectTargetNames(*static_cast<const AnnAssignStmt &>(s).target, names); break;
  default: return;
  }
  for (const std::string &n : names)
    out.emplace_back(n, s.loc);
}

class Splicer {
public:
  void splice(Module &m) {
    std::string path = SourceManager::global().path(m.fileId);
    stack_.push_back(canonical(path));
    StmtList out;
    for (StmtPtr &s : m.body) {
      if (s->kind == StmtKind::Import)
        rejectFileImport(static_cast<const ImportStmt &>(*s), path);
      if (s->kind != StmtKind::ImportFrom || !spliceFrom(static_cast<const ImportFromStmt &>(*s), path, m, out))
        out.push_back(std::move(s));
    }
    m.body = std::move(out);
    stack_.pop_back();
  }

  /// After the whole program is spliced: one binding file per name.
  void checkBindings(const Module &m) const {
    std::map<std::string, Location> first;
    for (const StmtPtr &s : m.body) {
      std::vector<std::pair<std::string, Location>> names;
      topLevelBindings(*s, names);
      for (const auto &[n, loc] : names) {
        auto [it, fresh] = first.emplace(n, loc);
        if (fresh || it->second.file == loc.file)
          continue;
        CompileError e(loc, fmt::format("'{}' is defined in two files of this program; imported .tile files share "
                                        "one namespace, so rename one of them",
                                        n));
        e.notes.emplace_back(it->second, fmt::format("'{}' first defined here", n));
        throw e;
      }
    }
  }

private:
  std::vector<std::string> stack_;   ///< the files being spliced (canonical paths)
  std::map<std::string, std::set<std::string>> done_;   ///< spliced file -> its top-level names

  static std::string canonical(const std::string &path) {
    std::error_code ec;
    auto p = std::filesystem::weakly_canonical(path, ec);
    return ec ? path : p.string();
  }

  /// NAME.tile (a/b.tile for a.b) beside the importer, else in the nearest
  /// folder above it that has it (a project's root: bench/gpu/cases.tile
  /// imports dsl_examples.vector_add); the beside path when none has it.
  static std::filesystem::path fileFor(const std::string &module, const std::string &importer) {
    std::string rel = module;
    for (char &c : rel)
      if (c == '.')
        c = '/';
    std::error_code ec;
    std::filesystem::path dir = std::filesystem::absolute(importer, ec).parent_path();
    std::filesystem::path beside = std::filesystem::path(importer).parent_path() / (rel + ".tile");
    for (int up = 0; up < 64 && !dir.empty(); ++up) {
      if (std::filesystem::is_regular_file(dir / (rel + ".tile"), ec))
        return up == 0 ? beside : dir / (rel + ".tile");
      if (dir == dir.parent_path())
        break;
      dir = dir.parent_path();
    }
    return beside;
  }

  void rejectFileImport(const ImportStmt &s, const std::string &importer) const {
    for (const auto &a : s.names)
      if (!isHostModule(a.module) && std::filesystem::exists(fileFor(a.module, importer)))
        fail(a.loc, fmt::format("import the names of '{}': `from {} import NAME, ...` (tile splices imported "
                                ".tile files into one namespace; `import {}` and `{}.NAME` are not supported)",
                                fileFor(a.module, importer).string(), a.module, a.module, a.module));
  }

  /// Splices the file `from NAME import ...` names, if it is one; false for
  /// the host's modules.
  bool spliceFrom(const ImportFromStmt &s, const std::string &importer, Module &into, StmtList &out) {
    if (isHostModule(s.module))
      return false;
    std::filesystem::path file = fileFor(s.module, importer);
    if (!std::filesystem::is_regular_file(file))
      fail(s.loc, fmt::format("cannot import from '{}': no file {} (tile imports .tile files by their path "
                              "relative to the importing file or a folder above it; the host's modules are "
                              "torch, triton, triton.language, numpy, tile and math)",
                              s.module, file.string()));
    std::string key = canonical(file.string());
    for (size_t i = 0; i < stack_.size(); ++i)
      if (stack_[i] == key) {
        std::string chain;
        for (size_t j = i; j < stack_.size(); ++j)
          chain += std::filesystem::path(stack_[j]).filename().string() + " -> ";
        fail(s.loc, fmt::format("import cycle: {}{}", chain, file.filename().string()));
      }
    if (!done_.count(key))
      readFile(s, file, key, into, out);
    const std::set<std::string> &names = done_.at(key);
    for (const auto &a : s.names) {
      if (a.name == "*")
        continue;
      if (!names.count(a.name))
        fail(a.loc, fmt::format("cannot import name '{}' from '{}' ({}): it defines no such top-level name",
                                a.name, s.module, file.string()));
      if (!a.asName.empty() && a.asName != a.name) {
        auto alias = std::make_unique<AssignStmt>(a.loc);
        alias->targets.push_back(std::make_unique<NameExpr>(a.loc, a.asName));
        alias->value = std::make_unique<NameExpr>(a.loc, a.name);
        out.push_back(std::move(alias));
      }
    }
    return true;
  }

  void readFile(const ImportFromStmt &s, const std::filesystem::path &file, const std::string &key, Module &into,
                StmtList &out) {
    int id = -1;
    try {
      id = SourceManager::global().loadFile(file.string());
    } catch (const CompileError &e) {
      fail(s.loc, e.msg);
    }
    std::shared_ptr<Module> sub = parseFile(id);
    splice(*sub);
    into.importedFiles.insert(into.importedFiles.end(), sub->importedFiles.begin(), sub->importedFiles.end());
    into.importedFiles.push_back(id);
    std::set<std::string> &names = done_[key];
    for (StmtPtr &st : sub->body) {
      if (st->kind == StmtKind::FunctionDef && static_cast<const FunctionDef &>(*st).name == "main")
        continue;   // the imported file's own program
      std::vector<std::pair<std::string, Location>> bound;
      topLevelBindings(*st, bound);
      for (const auto &b : bound)
        names.insert(b.first);
      out.push_back(std::move(st));
    }
  }
};

} // namespace

void spliceImports(Module &module) {
  // most programs import only the host's modules: no file system work then
  bool candidate = std::any_of(module.body.begin(), module.body.end(), [](const StmtPtr &st) {
    if (st->kind == StmtKind::ImportFrom)
      return !isHostModule(static_cast<const ImportFromStmt &>(*st).module);
    if (st->kind == StmtKind::Import)
      for (const auto &a : static_cast<const ImportStmt &>(*st).names)
        if (!isHostModule(a.module))
          return true;
    return false;
  });
  if (!candidate)
    return;
  Splicer s;
  s.splice(module);
  if (!module.importedFiles.empty())
    s.checkBindings(module);
}

} // namespace tile::frontend
