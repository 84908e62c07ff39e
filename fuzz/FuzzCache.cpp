// FuzzCache.cpp - libFuzzer target over the kernel cache's entry parser
// (driver::decodeCacheEntry, what DiskCache::load and `tilec cache list`
// read every entry file through: files anyone who can write the cache
// directory controls).
//
// Each input is read twice: as a whole entry file, and as the payload of an
// entry whose header (key digest, length, SHA-256) is made valid around it,
// so the payload decoder is reached past the checksum. Oracles: nothing
// crashes or allocates past the input; a decoded kernel has the fields a
// launch trusts (a name, 1-32 warps in a power of two, bounded shared
// memory); a decoded entry re-encodes to the same bytes (the format has one
// spelling of every kernel); an entry is accepted only under its own key.
#include "FuzzCommon.h"

#include "driver/DiskCache.h"

#include <cstdint>
#include <cstring>
#include <string>

using namespace tile;
using fuzz::bug;

namespace {

driver::CacheKey fuzzKey() {
  driver::CacheKey k;
  k.source = "@triton.jit\ndef k(x): pass\n";
  k.sourcePath = "fuzz.tile";
  k.kernel = "k";
  k.arch = "sm_90a";
  k.compilerVersion = "fuzz";
  return k;
}

void checkDecoded(const driver::CachedKernel &k, const driver::CacheKey &key, const std::string &file) {
  bool warpsOk = k.numWarps >= 1 && k.numWarps <= 32 && (k.numWarps & (k.numWarps - 1)) == 0;
  if (k.name.empty() || !warpsOk || k.sharedBytes < 0)
    bug("a decoded entry has fields no compile makes", k.name.substr(0, 64));
  if (driver::encodeCacheEntry(key, k) != file)
    bug("encode(decode(entry)) != entry", file.substr(0, 128));
  driver::CacheKey other = key;
  other.kernel += "_other";
  if (driver::decodeCacheEntry(file, &other))
    bug("an entry was accepted under another key", key.describe());
}

uint64_t readU64(const std::string &s, size_t at) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(static_cast<unsigned char>(s[at + i])) << (8 * i);
  return v;
}

/// An entry file around `payload` whose header is valid for `key`: the
/// header of a real entry for the same key with its length and checksum
/// replaced.
std::string wrapPayload(const driver::CacheKey &key, const std::string &payload) {
  std::string file = driver::encodeCacheEntry(key, driver::CachedKernel{"k", "", 0, 4, ""});
  constexpr size_t kHeader = 8 + 4 + 4 + 32 + 8 + 32;
  if (file.size() < kHeader || readU64(file, 48) != file.size() - kHeader)
    bug("encodeCacheEntry's header is not the documented one", "");
  file.resize(kHeader);
  for (int i = 0; i < 8; ++i) file[48 + i] = static_cast<char>((uint64_t(payload.size()) >> (8 * i)) & 0xff);
  std::string sum = driver::sha256Hex(payload);
  for (int i = 0; i < 32; ++i) file[56 + i] = static_cast<char>(std::stoi(sum.substr(2 * i, 2), nullptr, 16));
  return file + payload;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string bytes(reinterpret_cast<const char *>(data), size);
  static const driver::CacheKey key = fuzzKey();

  // 1. the input as a whole entry file: the stored key is unknown, so any
  //    key's entry that verifies must decode to trusted fields and re-encode
  //    under some key to its own bytes past the digest
  if (std::optional<driver::CachedKernel> k = driver::decodeCacheEntry(bytes, nullptr)) {
    std::string again = driver::encodeCacheEntry(key, *k);
    if (again.size() != bytes.size() || again.compare(48, std::string::npos, bytes, 48, std::string::npos) != 0)
      bug("a whole-file entry does not re-encode to its bytes", bytes.substr(0, 128));
  }

  // 2. the input as the payload of an entry with a valid header
  std::string file = wrapPayload(key, bytes);
  if (std::optional<driver::CachedKernel> k = driver::decodeCacheEntry(file, &key)) checkDecoded(*k, key, file);
  // a valid entry cut short is never accepted
  if (!file.empty() && driver::decodeCacheEntry(file.substr(0, file.size() - 1), &key))
    bug("a truncated entry was accepted", bytes.substr(0, 128));
  return 0;
}
