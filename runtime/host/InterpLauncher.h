// InterpLauncher.h - a Launcher that binds, lowers and interprets each
// launch with no optimization and no cache (tests and a fallback).
#pragma once

#include "host/Launcher.h"
#include "interp/Interpreter.h"

namespace tile::host {

class InterpLauncher : public Launcher {
public:
  explicit InterpLauncher(interp::Options opts = {}) : opts_(std::move(opts)) {}
  void launch(const sema::Program &prog, const LaunchRequest &req) override;
  int launches() const { return launches_; }

private:
  interp::Options opts_;
  int launches_ = 0;
};

} // namespace tile::host
