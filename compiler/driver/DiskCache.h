// DiskCache.h - the on-disk cache of compiled GPU kernels (PTX plus what a
// launch needs), shared by tilec's GPU launcher and the embedding API.
// Entries live under TILE_CACHE_DIR (default ~/.cache/tile), one file per
// kernel, named by the SHA-256 of everything that determines the PTX;
// written atomically, verified by a checksum on every load, evicted least
// recently used first past TILE_CACHE_MAX_BYTES. No LLVM here: the layout,
// key and entry format are in docs/architecture.md ("The kernel cache").
#pragma once

#include "driver/Pipeline.h"
#include "sema/Lower.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace tile::driver {

/// Everything that determines a compiled kernel. Each part goes into the
/// hash length-prefixed, so no two different keys hash the same text.
struct CacheKey {
  std::string source;          ///< the whole .tile text
  std::string sourcePath;      ///< the PTX's line info names the file
  std::string kernel;
  std::string specialization;  ///< sema::Specialization::key()
  int numWarps = 4;
  int numStages = 3;
  std::string arch;
  std::string options;         ///< pipeline options, -D globals: anything else that changes the code
  std::string compilerVersion; ///< cacheCompilerVersion() plus the back end's version

  /// 64 lower-case hex digits: the entry's file name without ".tkc".
  std::string digestHex() const;
  /// "KERNEL [SPEC] w4 s3 sm_90a": what `tilec cache list` shows.
  std::string describe() const;
};

/// The cache key's source text of a kernel of prog: its file's text, then
/// each imported .tile file's path and text (helpers and constants may live
/// in any of them).
std::string programSourceText(const sema::Program &prog, const ast::FunctionDef &kernel);

/// The key of one GPU compilation: the kernel's whole source file (helpers
/// and module constants live there), the program's globals (-D overrides),
/// the pipeline options and cacheCompilerVersion() plus backendVersion.
CacheKey kernelCacheKey(const sema::Program &prog, const ast::FunctionDef &kernel, const sema::Specialization &spec,
                        const PipelineOptions &pipeline, int numWarps, int numStages, const std::string &arch,
                        const std::string &backendVersion = "");

/// A compiled kernel as the cache stores it (backend::KernelBinary minus
/// the LLVM IR, which no launch needs).
struct CachedKernel {
  std::string name;   ///< the kernel's symbol in the PTX
  std::string ptx;
  int sharedBytes = 0; ///< dynamic shared memory each launch passes
  int numWarps = 4;
  std::string description; ///< CacheKey::describe() of the key it was stored under
};

struct CacheConfig {
  bool enabled = true;
  std::filesystem::path dir;
  uint64_t maxBytes = uint64_t(1) << 30;
  /// Set when an environment variable was malformed (the default is used).
  std::string error;
};

/// From TILE_CACHE ("0", "off", "false", "no" disable), TILE_CACHE_DIR
/// (else $XDG_CACHE_HOME/tile, else $HOME/.cache/tile; neither: disabled)
/// and TILE_CACHE_MAX_BYTES (bytes, with an optional K, M or G suffix).
CacheConfig cacheConfigFromEnv();

/// The bytes of an entry file: header (magic, format version, the key's
/// digest, payload length and SHA-256) and payload (docs/architecture.md,
/// "The kernel cache"). DiskCache::store writes them.
std::string encodeCacheEntry(const CacheKey &key, const CachedKernel &kernel);
/// The kernel an entry file holds, when its header is intact, its payload
/// has exactly the recorded length and checksum, its fields are ones the
/// compiler makes (a name, 1-32 warps in a power of two, 0 to 1 MiB of
/// shared memory) and, when key is given, it was stored under key; else
/// nullopt. DiskCache::load and list read entries through it; fuzz-cache
/// fuzzes it.
std::optional<CachedKernel> decodeCacheEntry(const std::string &file, const CacheKey *key);

/// One entry as `tilec cache list` shows it.
struct CacheEntryInfo {
  std::filesystem::path path;
  uint64_t bytes = 0;
  std::filesystem::file_time_type lastUse;
  bool valid = false;       ///< header and checksum verified
  std::string description;  ///< from the payload ("" when invalid)
};

class DiskCache {
public:
  explicit DiskCache(CacheConfig config);

  const CacheConfig &config() const { return config_; }
  /// The entry for key, verified; a missing, truncated or corrupt entry is
  /// a miss (a bad file is removed so the next store replaces it). A hit
  /// touches the entry's mtime (its last use, for eviction).
  std::optional<CachedKernel> load(const CacheKey &key) const;
  /// Writes the entry atomically (temporary file in the cache directory,
  /// then rename), then evicts past the size limit. False when the
  /// directory is not writable: a cache failure never fails a compile.
  bool store(const CacheKey &key, const CachedKernel &kernel) const;
  /// Oldest last use first.
  std::vector<CacheEntryInfo> list() const;
  /// Bytes of all entries.
  uint64_t sizeBytes() const;
  /// Removes every entry (and stray temporary files); other files in the
  /// directory are left alone. Returns the number of entries removed.
  int clear(int *failed = nullptr) const;   ///< failed: entries that could not be removed
  /// Why the directory cannot hold a cache (it is a file, it cannot be
  /// read); empty when it is usable or does not exist yet.
  std::string unusable() const;
  /// Removes least recently used entries until at most maxBytes remain.
  void evict() const;

  std::filesystem::path entryPath(const CacheKey &key) const;

private:
  CacheConfig config_;
};

/// The process-wide cache from cacheConfigFromEnv() (read once); null when
/// disabled. A malformed variable is reported once on stderr.
const DiskCache *processDiskCache();

/// A cache in dir with the process's other settings (TILE_CACHE_MAX_BYTES),
/// one per directory for the process's life (a ContextOptions::cacheDir);
/// null when dir cannot hold one (said once on stderr).
const DiskCache *diskCacheAt(const std::string &dir);

/// "tile 0.1.0 cache 1" and the build of this program (its executable's
/// size and mtime): rebuilding the compiler invalidates what it cached.
std::string cacheCompilerVersion();

/// SHA-256 of bytes, 64 lower-case hex digits (OpenSSL's libcrypto).
std::string sha256Hex(const std::string &bytes);

} // namespace tile::driver
