// FuzzHost.cpp - libFuzzer target over host code and kernel launches on the
// interpreter: a .tile file's module body and main() run as `tilec run
// --interpret` runs them (host evaluator, bindLaunch, the pass pipeline,
// interp::run), with a budget that keeps one input small: at most 256
// programs per launch, a one-second deadline, 64 MiB per tensor and no
// file access.
//
// Oracles: every error is a located CompileError inside the input with a
// message (host errors, launch errors, interpreter errors such as an
// out-of-bounds access); nothing else escapes. Crashes, sanitizer findings
// and memory blow-ups are found by libFuzzer itself.
#include "FuzzProgram.h"

#include "../tests/unit/host/InterpLauncher.h"
#include "driver/Pipeline.h"
#include "host/HostEval.h"
#include "host/Tensor.h"

#include <cstdint>
#include <sstream>

using namespace tile;

namespace {

constexpr int64_t kMaxPrograms = 256;

/// InterpLauncher with the fuzz budget: a larger grid is a located error.
class BudgetLauncher : public host::InterpLauncher {
public:
  explicit BudgetLauncher(interp::Options opts) : InterpLauncher(std::move(opts)) {}
  void launch(const sema::Program &prog, const host::LaunchRequest &req) override {
    int64_t programs = 1;
    for (int64_t g : req.grid)
      if (g > kMaxPrograms || (programs *= std::max<int64_t>(g, 1)) > kMaxPrograms)
        fail(req.loc, "fuzz budget: a grid of more than 256 programs");
    InterpLauncher::launch(prog, req);
  }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static bool once = (host::setMaxTensorBytes(uint64_t(64) << 20), true);
  (void)once;
  fuzz::SourceScope scope;
  std::string text(reinterpret_cast<const char *>(data), size);
  std::shared_ptr<const sema::Program> prog = fuzz::loadProgramOrNull(text);
  if (!prog) return 0;
  Deadline deadline = Deadline::after(1.0);
  interp::Options iopts;
  iopts.warn = [](const std::string &) {};
  iopts.print = [](const std::string &) {};
  iopts.deadline = deadline;
  BudgetLauncher launcher(iopts);
  std::ostringstream out;
  host::HostOptions hopts;
  hopts.out = &out;
  hopts.deadline = deadline;
  hopts.fileAccess = false;
  try {
    host::runHostProgram(*prog, launcher, hopts);
  } catch (const CompileError &e) {
    fuzz::checkLocated(e, text);
  }
  return 0;
}
