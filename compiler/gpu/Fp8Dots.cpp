// Fp8Dots.cpp - the "tile-fp8-dots" pass (Fp8Dots.h).
#include "gpu/Fp8Dots.h"

#include "gpu/LayoutAssignment.h"

namespace tile::gpu {

using namespace ir;

bool fp8Dots(Function &fn, int numWarps, const std::string &arch) {
  std::vector<Op *> dots;
  walk(fn, [&](Op &op) {
    if (op.kind == OpKind::Dot && (op.operands[0]->type.elem.isFp8() || op.operands[1]->type.elem.isFp8()) && !dotRunsOnWgmma(op, numWarps, arch)) dots.push_back(&op);
  });
  for (Op *dot : dots) {
    Builder b(dot->parent);
    b.setInsertionPoint(dot);
    b.loc = dot->loc;
    for (int i = 0; i < 2; ++i) {
      Value *&x = dot->operands[size_t(i)];
      if (isFp8(x->type.elem.scalar)) x = b.cast(x, ElemType::of(Scalar::F16));
    }
  }
  return !dots.empty();
}

transforms::Pass fp8DotsPass(int numWarps, const std::string &arch) {
  return {"tile-fp8-dots", [numWarps, arch](Function &fn) { return fp8Dots(fn, numWarps, arch); }};
}

} // namespace tile::gpu
