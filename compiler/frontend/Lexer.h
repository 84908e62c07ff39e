// Lexer.h - turns a registered source file into tokens.
//
// Produces Python-style NEWLINE / INDENT / DEDENT tokens from indentation,
// decodes literals and tracks brackets (newlines inside brackets are
// ignored; unbalanced brackets are errors). Runs in linear time.
#pragma once

#include "frontend/Token.h"

#include <vector>

namespace tile::frontend {

/// Lexes SourceManager::global()'s file `fileId`; throws CompileError on the
/// first lexical error. The result always ends with an Eof token.
std::vector<Token> lex(int fileId);

/// Like lex(), but a lexical error becomes a trailing Error token (after the
/// tokens before it) instead of an exception, so a parser can report an
/// earlier syntax error first. For a bracket that is never closed, the Error
/// token replaces the bracket and everything after it.
std::vector<Token> lexForParser(int fileId);

/// One token per line: "3:5 NAME offs_m", "3:12 OP +=", "4:1 INDENT".
std::string dumpTokens(const std::vector<Token> &tokens);

} // namespace tile::frontend
