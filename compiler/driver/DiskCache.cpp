// DiskCache.cpp - the on-disk kernel cache: key hashing (SHA-256 through
// OpenSSL's libcrypto), the entry format with its verification, atomic
// writes and least-recently-used eviction.
#include "DiskCache.h"

#include "frontend/AST.h"
#include "support/Diagnostics.h"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;

namespace tile::driver {

namespace {

using Digest = std::array<unsigned char, 32>;

constexpr char kMagic[8] = {'T', 'I', 'L', 'E', 'K', 'C', '\r', '\n'};
constexpr uint32_t kFormatVersion = 1;
/// magic, version, reserved, key digest, payload length, payload SHA-256.
constexpr size_t kHeaderBytes = 8 + 4 + 4 + 32 + 8 + 32;
constexpr const char *kEntrySuffix = ".tkc";
constexpr const char *kTempMarker = ".tmp.";
/// Temporary files older than this belong to writers that died mid-write.
constexpr auto kStaleTemp = std::chrono::hours(1);

Digest sha256(const std::string &bytes) {
  Digest d{};
  unsigned int n = 0;
  EVP_Digest(bytes.data(), bytes.size(), d.data(), &n, EVP_sha256(), nullptr);
  return d;
}

std::string hex(const Digest &d) {
  std::string s;
  s.reserve(64);
  for (unsigned char c : d) s += fmt::format("{:02x}", c);
  return s;
}

void putU32(std::string &out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

void putU64(std::string &out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

void putString(std::string &out, const std::string &s) {
  putU64(out, s.size());
  out += s;
}

/// Bounds-checked little-endian reader over a payload.
struct Reader {
  const std::string &buf;
  size_t pos = 0;
  bool ok = true;

  uint64_t u(int bytes) {
    if (!ok || buf.size() - pos < static_cast<size_t>(bytes)) {
      ok = false;
      return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= uint64_t(static_cast<unsigned char>(buf[pos + i])) << (8 * i);
    pos += bytes;
    return v;
  }
  std::string str() {
    uint64_t n = u(8);
    if (!ok || buf.size() - pos < n) {
      ok = false;
      return {};
    }
    std::string s = buf.substr(pos, n);
    pos += n;
    return s;
  }
};

/// More than any GPU's shared memory per block (the H200 has 227 KiB).
constexpr int kMaxSharedBytes = 1 << 20;

std::string encodePayload(const CachedKernel &k) {
  std::string p;
  putString(p, k.name);
  putString(p, k.ptx);
  putU32(p, static_cast<uint32_t>(k.sharedBytes));
  putU32(p, static_cast<uint32_t>(k.numWarps));
  putString(p, k.description);
  return p;
}

std::optional<CachedKernel> decodePayload(const std::string &p) {
  Reader r{p};
  CachedKernel k;
  k.name = r.str();
  k.ptx = r.str();
  k.sharedBytes = static_cast<int32_t>(r.u(4));
  k.numWarps = static_cast<int32_t>(r.u(4));
  k.description = r.str();
  if (!r.ok || r.pos != p.size()) return std::nullopt;
  // what a launch trusts: a kernel name, a warp count the compiler makes,
  // a shared-memory size a launch can ask for
  bool warpsOk = k.numWarps >= 1 && k.numWarps <= 32 && (k.numWarps & (k.numWarps - 1)) == 0;
  if (k.name.empty() || !warpsOk || k.sharedBytes < 0 || k.sharedBytes > kMaxSharedBytes) return std::nullopt;
  return k;
}

/// No valid entry is larger (the PTX of the largest kernels is a few MB).
constexpr off_t kMaxEntryBytes = off_t(64) << 20;

/// An entry file's bytes: only a regular file, opened without following a
/// symlink and without blocking (a FIFO or device at an entry's path is
/// skipped, not waited on or read forever), and at most kMaxEntryBytes.
std::optional<std::string> readFile(const fs::path &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  std::optional<std::string> out;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= kMaxEntryBytes) {
    std::string bytes(size_t(st.st_size), '\0');
    size_t got = 0;
    while (got < bytes.size()) {
      ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += size_t(n);
    }
    if (got == bytes.size()) out = std::move(bytes);
  }
  ::close(fd);
  return out;
}

Digest keyDigest(const CacheKey &k) {
  std::string text = "tile-kernel-cache-key-1\n";
  for (const auto &[name, value] : {std::pair<const char *, std::string>{"source", k.source},
                                    {"path", k.sourcePath},
                                    {"kernel", k.kernel},
                                    {"spec", k.specialization},
                                    {"warps", std::to_string(k.numWarps)},
                                    {"stages", std::to_string(k.numStages)},
                                    {"arch", k.arch},
                                    {"options", k.options},
                                    {"version", k.compilerVersion}}) {
    text += name;
    putString(text, value);
  }
  return sha256(text);
}

} // namespace

std::string encodeCacheEntry(const CacheKey &key, const CachedKernel &kernel) {
  Digest d = keyDigest(key);
  std::string payload = encodePayload(kernel);
  std::string file(kMagic, 8);
  putU32(file, kFormatVersion);
  putU32(file, 0);
  file.append(reinterpret_cast<const char *>(d.data()), 32);
  putU64(file, payload.size());
  Digest sum = sha256(payload);
  file.append(reinterpret_cast<const char *>(sum.data()), 32);
  file += payload;
  return file;
}

std::optional<CachedKernel> decodeCacheEntry(const std::string &file, const CacheKey *key) {
  if (file.size() < kHeaderBytes || std::memcmp(file.data(), kMagic, 8) != 0) return std::nullopt;
  Reader r{file, 8};
  if (r.u(4) != kFormatVersion) return std::nullopt;
  r.u(4);
  if (key && std::memcmp(file.data() + 16, keyDigest(*key).data(), 32) != 0) return std::nullopt;
  r.pos = 48;
  if (r.u(8) != file.size() - kHeaderBytes) return std::nullopt;
  std::string payload = file.substr(kHeaderBytes);
  if (std::memcmp(file.data() + 56, sha256(payload).data(), 32) != 0) return std::nullopt;
  return decodePayload(payload);
}

namespace {

bool isEntry(const fs::path &p) {
  std::string name = p.filename().string();
  return name.size() == 64 + 4 && name.ends_with(kEntrySuffix);
}

bool isTemp(const fs::path &p) { return p.filename().string().find(kTempMarker) != std::string::npos; }

/// A name no other thread or process writes: pid, thread and a counter.
std::string tempSuffix() {
  static std::atomic<uint64_t> counter{0};
  size_t tid = std::hash<std::thread::id>{}(std::this_thread::get_id());
  return fmt::format("{}{}.{:x}.{}", kTempMarker, getpid(), tid, counter++);
}

std::optional<uint64_t> parseBytes(const std::string &s) {
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0]))) return std::nullopt;
  size_t end = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(s, &end);
  } catch (...) {
    return std::nullopt;
  }
  std::string suffix = s.substr(end);
  uint64_t scale = suffix.empty()                      ? 1
                   : suffix == "K" || suffix == "k" ? uint64_t(1) << 10
                   : suffix == "M" || suffix == "m" ? uint64_t(1) << 20
                   : suffix == "G" || suffix == "g" ? uint64_t(1) << 30
                                                    : 0;
  if (scale == 0 || v > UINT64_MAX / scale) return std::nullopt;
  return v * scale;
}

} // namespace

std::string sha256Hex(const std::string &bytes) { return hex(sha256(bytes)); }

std::string CacheKey::digestHex() const { return hex(keyDigest(*this)); }

std::string CacheKey::describe() const {
  return fmt::format("{} [{}] w{} s{} {}", kernel, specialization, numWarps, numStages, arch);
}

std::string programSourceText(const sema::Program &prog, const ast::FunctionDef &kernel) {
  const SourceManager &sm = SourceManager::global();
  std::string text = sm.text(kernel.loc.file);
  if (prog.module->importedFiles.empty())
    return text;
  auto append = [&](const char *what, int id) {
    std::string other = sm.text(id);
    text += fmt::format("\n#{} {} {} bytes\n{}", what, sm.path(id), other.size(), other);
  };
  for (int id : prog.module->importedFiles)
    if (id != kernel.loc.file)
      append("import", id);
  if (kernel.loc.file != prog.module->fileId)
    append("importer", prog.module->fileId);
  return text;
}

CacheKey kernelCacheKey(const sema::Program &prog, const ast::FunctionDef &kernel, const sema::Specialization &spec,
                        const PipelineOptions &pipeline, int numWarps, int numStages, const std::string &arch,
                        const std::string &backendVersion) {
  CacheKey k;
  k.source = programSourceText(prog, kernel);
  k.sourcePath = SourceManager::global().path(kernel.loc.file);
  k.kernel = kernel.name;
  k.specialization = spec.key();
  k.numWarps = numWarps;
  k.numStages = numStages;
  k.arch = arch;
  k.options = "pipeline " + pipeline.key() + "\n";
  for (const auto &[name, value] : prog.globals) k.options += fmt::format("global {}={}\n", name, value.repr());
  k.compilerVersion = cacheCompilerVersion();
  if (!backendVersion.empty()) k.compilerVersion += " " + backendVersion;
  return k;
}

CacheConfig cacheConfigFromEnv() {
  CacheConfig c;
  auto env = [](const char *name) -> std::string {
    const char *v = std::getenv(name);
    return v ? v : "";
  };
  std::string on = env("TILE_CACHE");
  if (on == "0" || on == "off" || on == "false" || on == "no") c.enabled = false;
  if (std::string dir = env("TILE_CACHE_DIR"); !dir.empty()) c.dir = dir;
  else if (std::string xdg = env("XDG_CACHE_HOME"); !xdg.empty()) c.dir = fs::path(xdg) / "tile";
  else if (std::string home = env("HOME"); !home.empty()) c.dir = fs::path(home) / ".cache" / "tile";
  else c.enabled = false;
  if (std::string max = env("TILE_CACHE_MAX_BYTES"); !max.empty()) {
    if (std::optional<uint64_t> v = parseBytes(max)) c.maxBytes = *v;
    else c.error = fmt::format("TILE_CACHE_MAX_BYTES must be a byte count with an optional K, M or G suffix, "
                               "not '{}'",
                               max);
  }
  return c;
}

DiskCache::DiskCache(CacheConfig config) : config_(std::move(config)) {}

fs::path DiskCache::entryPath(const CacheKey &key) const { return config_.dir / (key.digestHex() + kEntrySuffix); }

std::optional<CachedKernel> DiskCache::load(const CacheKey &key) const {
  fs::path path = entryPath(key);
  std::optional<std::string> file = readFile(path);
  if (!file) return std::nullopt;
  std::optional<CachedKernel> k = decodeCacheEntry(*file, &key);
  std::error_code ec;
  if (!k) {
    // Rebuilt by the caller and replaced by its store; removing it first
    // keeps `tilec cache list` honest if that store never comes.
    fs::remove(path, ec);
    return std::nullopt;
  }
  fs::last_write_time(path, fs::file_time_type::clock::now(), ec);
  return k;
}

bool DiskCache::store(const CacheKey &key, const CachedKernel &kernel) const {
  std::error_code ec;
  fs::create_directories(config_.dir, ec);
  std::string file = encodeCacheEntry(key, kernel);
  fs::path final = entryPath(key);
  fs::path temp = final;
  temp += tempSuffix();
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) return false;
    out.write(file.data(), static_cast<std::streamsize>(file.size()));
    out.close();
    if (!out) {
      fs::remove(temp, ec);
      return false;
    }
  }
  // rename(2) replaces atomically: readers see the old entry or the new
  // one, never a partial file (both are complete and equal anyway).
  fs::rename(temp, final, ec);
  if (ec) {
    fs::remove(temp, ec);
    return false;
  }
  evict();
  return true;
}

std::vector<CacheEntryInfo> DiskCache::list() const {
  std::vector<CacheEntryInfo> out;
  std::error_code ec;
  for (fs::directory_iterator it(config_.dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!isEntry(it->path()) || !it->is_regular_file(ec)) continue;
    CacheEntryInfo info;
    info.path = it->path();
    info.bytes = it->file_size(ec);
    info.lastUse = it->last_write_time(ec);
    if (ec) continue; // removed meanwhile
    if (std::optional<std::string> file = readFile(info.path)) {
      if (std::optional<CachedKernel> k = decodeCacheEntry(*file, nullptr)) {
        info.valid = true;
        info.description = k->description;
      }
    }
    out.push_back(std::move(info));
  }
  std::sort(out.begin(), out.end(), [](const CacheEntryInfo &a, const CacheEntryInfo &b) {
    return a.lastUse != b.lastUse ? a.lastUse < b.lastUse : a.path < b.path;
  });
  return out;
}

uint64_t DiskCache::sizeBytes() const {
  uint64_t total = 0;
  std::error_code ec;
  for (fs::directory_iterator it(config_.dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!isEntry(it->path())) continue;
    std::error_code sec;
    uint64_t n = it->file_size(sec);
    if (!sec) total += n;
  }
  return total;
}

std::string DiskCache::unusable() const {
  std::error_code ec;
  fs::file_status st = fs::status(config_.dir, ec);
  if (st.type() == fs::file_type::not_found) return "";   // created by the first store
  if (ec) return fmt::format("cannot use the cache directory '{}': {}", config_.dir.string(), ec.message());
  if (st.type() != fs::file_type::directory)
    return fmt::format("the cache directory '{}' is not a directory", config_.dir.string());
  fs::directory_iterator it(config_.dir, ec);
  if (ec) return fmt::format("cannot read the cache directory '{}': {}", config_.dir.string(), ec.message());
  return "";
}

int DiskCache::clear(int *failed) const {
  int removed = 0, failures = 0;
  std::error_code ec;
  std::vector<fs::path> victims;
  for (fs::directory_iterator it(config_.dir, ec), end; !ec && it != end; it.increment(ec))
    if (isEntry(it->path()) || isTemp(it->path())) victims.push_back(it->path());
  for (const fs::path &p : victims) {
    std::error_code rec;
    if (fs::remove(p, rec)) removed += isEntry(p);
    else if (rec) ++failures;
  }
  if (failed) *failed = failures;
  return removed;
}

void DiskCache::evict() const {
  struct Item {
    fs::path path;
    uint64_t bytes;
    fs::file_time_type mtime;
  };
  std::vector<Item> items;
  uint64_t total = 0;
  auto now = fs::file_time_type::clock::now();
  std::error_code ec;
  for (fs::directory_iterator it(config_.dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code sec;
    fs::file_time_type mtime = it->last_write_time(sec);
    if (sec) continue;
    if (isTemp(it->path())) {
      if (now - mtime > kStaleTemp) fs::remove(it->path(), sec);
      continue;
    }
    if (!isEntry(it->path())) continue;
    uint64_t n = it->file_size(sec);
    if (sec) continue;
    items.push_back({it->path(), n, mtime});
    total += n;
  }
  if (total <= config_.maxBytes) return;
  std::sort(items.begin(), items.end(), [](const Item &a, const Item &b) {
    return a.mtime != b.mtime ? a.mtime < b.mtime : a.path < b.path;
  });
  // Another process may evict the same files at once: a failed remove
  // still counts, the entry is gone either way.
  for (const Item &i : items) {
    if (total <= config_.maxBytes) break;
    std::error_code rec;
    fs::remove(i.path, rec);
    total -= i.bytes;
  }
}

const DiskCache *processDiskCache() {
  static const DiskCache *cache = [] () -> const DiskCache * {
    CacheConfig c = cacheConfigFromEnv();
    if (!c.error.empty()) std::fprintf(stderr, "warning: %s; using %llu\n", c.error.c_str(),
                                       static_cast<unsigned long long>(c.maxBytes));
    if (!c.enabled) return nullptr;
    auto *cache = new DiskCache(std::move(c));
    if (std::string why = cache->unusable(); !why.empty())   // once a process: compiles go on uncached
      std::fprintf(stderr, "warning: %s; kernels are not cached\n", why.c_str());
    return cache;
  }();
  return cache;
}

const DiskCache *diskCacheAt(const std::string &dir) {
  static std::mutex mu;
  // never destroyed (as processDiskCache's): a compile may run during exit
  static auto *caches = new std::map<std::string, std::unique_ptr<const DiskCache>>;
  std::lock_guard lock(mu);
  auto [it, fresh] = caches->try_emplace(dir, nullptr);
  if (!fresh) return it->second.get();
  CacheConfig c = cacheConfigFromEnv();
  c.enabled = true;
  c.dir = dir;
  auto cache = std::make_unique<const DiskCache>(std::move(c));
  if (std::string why = cache->unusable(); !why.empty()) {
    std::fprintf(stderr, "warning: %s; kernels are not cached\n", why.c_str());
    return nullptr;
  }
  return (it->second = std::move(cache)).get();
}

std::string cacheCompilerVersion() {
  static const std::string version = [] {
    std::string v = fmt::format("tile 0.1.0 cache {}", kFormatVersion);
    struct stat st {};
    if (::stat("/proc/self/exe", &st) == 0)
      v += fmt::format(" exe {} {}.{}", st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
    return v;
  }();
  return version;
}

} // namespace tile::driver
