// InterpLauncher.cpp - bind -> compile (cached) -> interpret.
#include "InterpLauncher.h"

#include <fmt/format.h>

namespace tile::host {

void InterpLauncher::launch(const sema::Program &prog, const LaunchRequest &req) {
  if (req.tuned)
    fail(req.loc, fmt::format("not supported: launching '{}' (@triton.autotune / @triton.heuristics) through this "
                              "launcher; tilec run launches tuned kernels through the API", req.kernel->name));
  sema::BoundLaunch b = sema::bindLaunch(prog, *req.kernel, req.positional, req.keywords, req.loc);
  std::shared_ptr<const ir::Function> fn = cache_.get(prog, *req.kernel, b.spec, pipeline_);
  interp::Grid grid{req.grid[0], req.grid[1], req.grid[2]};
  interp::run(*fn, grid, b.args, opts_);
  ++launches_;
}

} // namespace tile::host
