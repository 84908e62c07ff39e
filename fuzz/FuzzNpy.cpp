// FuzzNpy.cpp - libFuzzer target over the .npy reader (host code reads
// .npy files a user names: an untrusted header and payload).
//
// Oracles: malformed bytes are a HostError with a message, never a crash
// or an allocation the file cannot fill (a parsed tensor's data came from
// the input, so it is no larger than the input); a parsed tensor
// serializes to a canonical .npy that reads back to the same bytes.
#include "FuzzCommon.h"

#include "host/Npy.h"
#include "host/Tensor.h"

#include <cstdint>
#include <string>

using namespace tile;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string bytes(reinterpret_cast<const char *>(data), size);
  host::Tensor t;
  try {
    t = host::parseNpy(bytes, "fuzz.npy");
  } catch (const host::HostError &e) {
    if (std::string(e.what()).empty()) fuzz::bug("empty .npy error", bytes.substr(0, 128));
    return 0;
  }
  if (t.numel() < 0 || uint64_t(t.numel()) * byteSize(t.dtype()) > size)
    fuzz::bug("a tensor larger than its file", bytes.substr(0, 128));
  std::string once = host::serializeNpy(t);
  try {
    if (host::serializeNpy(host::parseNpy(once, "roundtrip.npy")) != once)
      fuzz::bug("round trip: serialize(parse(serialize(t))) != serialize(t)", bytes.substr(0, 128));
  } catch (const host::HostError &e) {
    fuzz::bug("round trip: a serialized tensor does not parse", e.what());
  }
  return 0;
}
