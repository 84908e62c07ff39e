// InterpLauncher.h - the unit tests' Launcher, which runs kernels on the CPU
// interpreter: bind the arguments, compile the specialization through the
// driver's pipeline (cached: a second launch with the same specialization
// compiles nothing), interpret it over the grid. It lives with the tests so
// that runtime/host does not depend on the driver (tilec launches through
// the API: tools/tilec/ApiLauncher).
#pragma once

#include "driver/Pipeline.h"
#include "host/Launcher.h"
#include "interp/Interpreter.h"

namespace tile::host {

class InterpLauncher : public Launcher {
public:
  explicit InterpLauncher(interp::Options opts = {}, driver::PipelineOptions pipeline = {})
      : opts_(std::move(opts)), pipeline_(std::move(pipeline)) {}
  void launch(const sema::Program &prog, const LaunchRequest &req) override;
  int launches() const { return launches_; }
  const driver::KernelCache &cache() const { return cache_; }

private:
  interp::Options opts_;
  driver::PipelineOptions pipeline_;
  driver::KernelCache cache_;
  int launches_ = 0;
};

} // namespace tile::host
