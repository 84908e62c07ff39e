// ApiTestUtil.h - helpers shared by the API tests.
#pragma once

#include <tile/tile.h>

#include <cstdint>
#include <cstring>

namespace tile::apitest {

/// A context on the CPU interpreter; `strict` as ContextOptions::strict.
inline tile::Context interpreterContext(bool strict) {
  tile::ContextOptions o;
  o.device = tile::DeviceKind::Interpreter;
  o.strict = strict;
  return tile::Context(o);
}

/// f32 -> tf32, the low 13 bits dropped (what tl.dot does to f32 inputs by
/// default, input_precision="tf32", as the tensor cores read f32 bits).
inline float toTF32(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits &= ~0x1FFFu;
  std::memcpy(&f, &bits, 4);
  return f;
}

} // namespace tile::apitest
