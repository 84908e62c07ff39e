// ApiLauncher.h - how `tilec run` and `tilec bench` launch the kernels of a
// host program: through the public C++ API (include/tile/tile.h), on the
// GPU or on the CPU interpreter, so that nothing is reachable only from
// the CLI. On the GPU the host program's tensors (host memory) are
// mirrored in device memory around each launch; with `check`, every
// launch also runs on an interpreter Context from the same inputs and the
// outputs must agree (the differential GPU test).
#pragma once

#include "Bench.h"
#include "cuda/Cuda.h"
#include "driver/Pipeline.h"
#include "host/Launcher.h"
#include "interp/Interpreter.h"

#include <tile/tile.h>

#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

namespace tile::tools {

/// An error the API formatted already (`file:line:col: error: ...` in
/// kernel source, with its source line): tilec prints it as it is.
struct FormattedError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ApiLaunchOptions {
  bool gpu = false;          ///< launch on the GPU (else the interpreter)
  driver::PipelineOptions pipeline;
  interp::Options interp;    ///< the interpreter's, and the check runs'
  std::string arch;          ///< empty: the device's ("sm_90a" on an H200)
  bool checkAgainstInterpreter = false; ///< GPU only
  /// tilec bench: on the GPU, time `benchRepeats` more launches with CUDA
  /// events (after a warm-up) and print "bench: KERNEL ... median_ms=X"; on
  /// the interpreter, time each launch once with the wall clock.
  int benchRepeats = 0;
};

class ApiLauncher : public host::Launcher {
public:
  explicit ApiLauncher(ApiLaunchOptions opts);
  ~ApiLauncher() override;
  void launch(const sema::Program &prog, const host::LaunchRequest &req) override;

private:
  struct Mirror;
  /// A launch's arguments in the API's terms.
  struct ApiArgs {
    std::vector<Arg> positional;
    NamedArgs keywords;
    std::vector<Mirror *> mirrors; ///< GPU: per pointer argument, in bound order
  };
  Program &programFor(const sema::Program &prog, Context &ctx, std::map<const sema::Program *, Program> &cache);
  ApiArgs deviceArgs(const host::LaunchRequest &req);
  ApiArgs hostArgs(const host::LaunchRequest &req, Context &ctx);
  void launchOnGpu(const sema::Program &prog, const host::LaunchRequest &req);
  void launchOnInterpreter(const sema::Program &prog, const host::LaunchRequest &req);
  /// Returns the median in ms.
  float benchmark(const Kernel &k, const host::LaunchRequest &req, const ApiArgs &args, const LaunchOptions &lo);
  void measureLaunchOverhead(const sema::Program &prog, const Kernel &k, const host::LaunchRequest &req,
                             const ApiArgs &args, const LaunchOptions &lo);
  void checkAgainstInterpreter(const sema::Program &prog, const host::LaunchRequest &req, const ApiArgs &args,
                               const std::vector<std::string> &before);

  ApiLaunchOptions opts_;
  Context ctx_;                                   ///< the GPU's, or the interpreter's
  std::optional<Context> checkCtx_;              ///< the interpreter's, for --check-gpu
  std::map<const sema::Program *, Program> programs_, checkPrograms_;
  std::map<uint64_t, std::unique_ptr<Mirror>> mirrors_; ///< by host base address
  Progress progress_;
  std::optional<cuda::L2Flush> l2Flush_; ///< bench: overwritten before each timed launch
  int launches_ = 0;
};

} // namespace tile::tools
