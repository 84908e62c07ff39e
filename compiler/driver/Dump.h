// Dump.h - stage dumps into a directory (`tilec --dump-dir DIR`, or the
// environment variable TILE_DUMP_DIR in any program that embeds the
// compiler): one numbered file per stage, NNN-UNIT-STAGE.EXT, numbered in
// the order the stages ran. The driver writes the front-end and tile-IR
// stages; tilec's GPU path adds the layout, LLVM and PTX stages through the
// same functions.
#pragma once

#include <string>
#include <string_view>

namespace tile::driver {

/// The directory stages are dumped into: the one set by setDumpDir, else
/// $TILE_DUMP_DIR (read at every call, so an embedding program may set it
/// at any time), else "" (no dumps).
std::string dumpDir();
/// Overrides TILE_DUMP_DIR for this process ("" returns to the variable).
void setDumpDir(std::string dir);

/// Writes DIR/NNN-UNIT-STAGE.EXT, creating DIR. NNN continues after the
/// highest number already in DIR, so repeated runs add files instead of
/// overwriting them. Throws CompileError when the file cannot be written.
/// Returns the path written.
std::string writeDump(const std::string &dir, std::string_view unit, std::string_view stage, std::string_view ext,
                      std::string_view text);

} // namespace tile::driver
