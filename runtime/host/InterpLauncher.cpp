// InterpLauncher.cpp - bind -> lower -> interpret, nothing else.
#include "host/InterpLauncher.h"

namespace tile::host {

void InterpLauncher::launch(const sema::Program &prog, const LaunchRequest &req) {
  sema::BoundLaunch b = sema::bindLaunch(prog, *req.kernel, req.positional, req.keywords, req.loc);
  std::unique_ptr<ir::Function> fn = sema::lowerKernel(prog, *req.kernel, b.spec);
  interp::Grid grid{req.grid[0], req.grid[1], req.grid[2]};
  interp::run(*fn, grid, b.args, opts_);
  ++launches_;
}

} // namespace tile::host
