// HostTestUtil.h - runs a host program given as a string and captures its
// output, exit status and first error (test helper).
#pragma once

#include "frontend/Parser.h"
#include "host/HostEval.h"
#include "InterpLauncher.h"

#include <sstream>
#include <string>

namespace hosttest {

/// Records launches instead of running them.
struct RecordingLauncher : tile::host::Launcher {
  std::vector<tile::host::LaunchRequest> requests;
  void launch(const tile::sema::Program &, const tile::host::LaunchRequest &r) override { requests.push_back(r); }
};

struct RunResult {
  int status = 0;
  std::string out;
  std::string error;      ///< CompileError message, "" when none
  tile::Location errLoc;
  /// Keeps the syntax tree alive: recorded LaunchRequests point into it.
  std::shared_ptr<const tile::ast::Module> module;
};

inline RunResult runHost(const std::string &src, tile::host::Launcher &launcher,
                         tile::host::HostOptions opts = {}) {
  RunResult r;
  std::ostringstream os;
  opts.out = &os;
  try {
    auto mod = tile::frontend::parseString("test.tile", src);
    r.module = mod;
    tile::sema::Program prog(mod);
    r.status = tile::host::runHostProgram(prog, launcher, opts);
  } catch (const tile::CompileError &e) {
    r.status = 1;
    r.error = e.msg;
    r.errLoc = e.loc;
  }
  r.out = os.str();
  return r;
}

inline RunResult runHost(const std::string &src, tile::host::HostOptions opts = {}) {
  RecordingLauncher l;
  return runHost(src, l, std::move(opts));
}

} // namespace hosttest
