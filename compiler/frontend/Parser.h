// Parser.h - the front end's public entry points: source text to syntax tree.
//
// A hand-written recursive-descent parser over the lexer's tokens. Every
// malformed input gives a located CompileError; nesting deeper than 256
// levels (brackets, expressions, blocks) is reported as "nesting too deep"
// instead of exhausting the stack.
//
// Locations: each node carries its first token's location, except
// BinOp/Compare/AugAssign (the operator), Attribute (the attribute name, as
// AST.h says) and FunctionDef (the 'def' keyword, not its decorators).
#pragma once

#include "frontend/AST.h"
#include "frontend/Lexer.h"
#include "frontend/Token.h"

#include <memory>
#include <string>
#include <vector>

namespace tile::frontend {

/// Lexes and parses SourceManager::global()'s file `fileId`.
std::shared_ptr<ast::Module> parseFile(int fileId);

/// Registers `text` under `path` in SourceManager::global(), then parses it.
std::shared_ptr<ast::Module> parseString(std::string path, std::string text);

/// Splices the .tile files module's top-level `from NAME import ...`
/// statements name (NAME.tile, or a/b.tile for `a.b`, relative to the
/// importing file's folder or the nearest folder above it that has it) into module: their top-level statements, less
/// their `main`, go where the import stood, each file once, recursively; an
/// `as` alias becomes `alias = name`. Imports of torch, triton, numpy, tile,
/// math and __future__ stay as they are. Located errors: a missing file or
/// name, a cycle, `import NAME` of a .tile file, and a top-level name bound in
/// two files (the files share one namespace: a kernel must not silently see
/// another file's constant of the same name). Imports.cpp.
void spliceImports(ast::Module &module);

/// An indented S-expression per node, with line:col, e.g.
///   (Assign 4:5
///     (Name 4:5 pid_m)
///     value=(Call 4:13 ...))
std::string dumpAST(const ast::Module &module);

} // namespace tile::frontend
