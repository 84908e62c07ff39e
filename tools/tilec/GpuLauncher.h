// GpuLauncher.h - runs `kernel[grid](...)` launches of host programs on the
// GPU: bind -> sema + passes -> layouts -> LLVM -> PTX (cached per
// specialization), host tensors mirrored in device memory around each
// launch. With `check`, every launch also runs on the CPU interpreter from
// the same inputs and the outputs must agree (the differential GPU test).
#pragma once

#include "backend/Codegen.h"
#include "cuda/Cuda.h"
#include "driver/Pipeline.h"
#include "host/Launcher.h"
#include "interp/Interpreter.h"

#include <map>
#include <memory>
#include <set>
#include <string>

namespace tile::tools {

struct GpuLaunchOptions {
  driver::PipelineOptions pipeline;
  std::string arch;          ///< empty: the device's ("sm_90a" on an H200)
  bool checkAgainstInterpreter = false;
  interp::Options interp;    ///< for the check runs
  /// tilec bench: after each launch, time `benchRepeats` more launches with
  /// CUDA events (after a warm-up) and print "bench: KERNEL ... median_ms=X".
  int benchRepeats = 0;
};

class GpuLauncher : public host::Launcher {
public:
  GpuLauncher(cuda::Driver &drv, GpuLaunchOptions opts);
  ~GpuLauncher() override;
  void launch(const sema::Program &prog, const host::LaunchRequest &req) override;
  /// A launch whose pointer arguments are device addresses already (device-
  /// resident tensors): no copies and no synchronization; the cached path
  /// whose host overhead bench/gpu measures.
  void launchResident(const sema::Program &prog, const host::LaunchRequest &req);
  int launches() const { return launches_; }
  int compilations() const { return compilations_; }

private:
  struct Kernel;
  struct Mirror;
  Kernel &compiled(const sema::Program &prog, const host::LaunchRequest &req, const sema::BoundLaunch &bound);
  void measureLaunchOverhead(const sema::Program &prog, const host::LaunchRequest &req,
                             const std::vector<Mirror *> &regions);
  /// Returns the median in ms.
  float benchmark(const Kernel &k, const host::LaunchRequest &req, const std::vector<void *> &params);
  void checkAgainstInterpreter(const Kernel &k, const host::LaunchRequest &req,
                               const sema::BoundLaunch &bound, const std::vector<Mirror *> &regions,
                               const std::vector<std::string> &before);

  cuda::Driver &drv_;
  GpuLaunchOptions opts_;
  std::map<std::string, std::unique_ptr<Kernel>> kernels_;
  std::map<uint64_t, std::unique_ptr<Mirror>> mirrors_;
  std::set<std::string> dumped_; ///< "key|dump dir": kernels whose stages are there
  int launches_ = 0, compilations_ = 0;
};

} // namespace tile::tools
