// Passes.cpp - the GPU passes' registry entries.
#include "gpu/Passes.h"

#include "gpu/AxisInfo.h"
#include "gpu/Fp8Dots.h"
#include "gpu/LayoutAssignment.h"
#include "gpu/PermuteLoads.h"
#include "gpu/Pipeline.h"
#include "transforms/PassManager.h"

#include <cstdio>
#include <mutex>

namespace tile::gpu {

void registerPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    transforms::registerPass({"tile-fp8-dots", "an fp8 dot that does not run as wgmma reads f16 operands (exact)",
                              [](const transforms::PassTarget &t) { return fp8DotsPass(t.numWarps, t.arch); }});
    transforms::registerPass({"tile-permute-loads", "a wgmma dot's permuted load loads permuted pointers",
                              [](const transforms::PassTarget &t) { return permuteLoadsPass(t.numWarps, t.numStages, t.arch); }});
    transforms::registerPass({"tile-pipeline", "issue loop loads num_stages - 1 iterations ahead",
                              [](const transforms::PassTarget &t) {
                                PipelineTarget target{t.numStages, t.numWarps, t.arch};
                                return transforms::Pass{"tile-pipeline", [target](ir::Function &fn) {
                                                          return pipelineLoops(fn, target);
                                                        }};
                              }});
    transforms::registerPass({"tile-layouts", "give every tensor value a distributed layout for num_warps",
                              [](const transforms::PassTarget &t) { return layoutPass(t.numWarps, t.arch); }});
    transforms::registerPass({"test-print-axis-info", "print the axis info of every op result (stdout)",
                              [](const transforms::PassTarget &) {
                                return transforms::Pass{"test-print-axis-info", [](ir::Function &fn) {
                                                          std::fputs(printAxisInfo(fn).c_str(), stdout);
                                                          return false;
                                                        }};
                              },
                              true});
  });
}

} // namespace tile::gpu
