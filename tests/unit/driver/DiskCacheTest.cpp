// DiskCacheTest.cpp - the on-disk kernel cache (driver/DiskCache.h): round
// trips, key sensitivity, corrupt and truncated entries, concurrent writers
// (threads and processes), LRU eviction and the environment variables.
#include "driver/DiskCache.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;
using namespace tile::driver;

namespace {

/// A fresh directory under /tmp, removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    static int n = 0;
    path = fs::temp_directory_path() / fmt::format("tile-cache-test-{}-{}", getpid(), n++);
    fs::remove_all(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

DiskCache makeCache(const fs::path &dir, uint64_t maxBytes = uint64_t(1) << 30) {
  CacheConfig c;
  c.dir = dir;
  c.maxBytes = maxBytes;
  return DiskCache(c);
}

CacheKey sampleKey(const std::string &kernel = "add_kernel") {
  CacheKey k;
  k.source = "@triton.jit\ndef add_kernel(x, y, BLOCK: tl.constexpr):\n    pass\n";
  k.sourcePath = "add.tile";
  k.kernel = kernel;
  k.specialization = "*f32:16,*f32:16,BLOCK=128";
  k.numWarps = 4;
  k.numStages = 3;
  k.arch = "sm_90a";
  k.options = "O1";
  k.compilerVersion = "tile test";
  return k;
}

CachedKernel sampleKernel(const std::string &tag = "") {
  CachedKernel k;
  k.name = "add_kernel";
  k.ptx = ".version 8.4\n.target sm_90a\n// " + tag + "\n.visible .entry add_kernel() { ret; }\n";
  k.sharedBytes = 4096;
  k.numWarps = 4;
  k.description = "add_kernel [*f32:16] w4 s3 sm_90a";
  return k;
}

std::string slurp(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spit(const fs::path &p, const std::string &bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
}

bool same(const CachedKernel &a, const CachedKernel &b) {
  return a.name == b.name && a.ptx == b.ptx && a.sharedBytes == b.sharedBytes && a.numWarps == b.numWarps &&
         a.description == b.description;
}

} // namespace

TEST_CASE("sha256 matches the FIPS 180-2 test vectors") {
  CHECK(sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256Hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST_CASE("a stored kernel loads back unchanged, under a file named by its key") {
  TempDir dir;
  DiskCache cache = makeCache(dir.path);
  CacheKey key = sampleKey();
  CHECK_FALSE(cache.load(key).has_value());
  REQUIRE(cache.store(key, sampleKernel()));
  CHECK(fs::exists(dir.path / (key.digestHex() + ".tkc")));
  CHECK(key.digestHex().size() == 64);
  std::optional<CachedKernel> got = cache.load(key);
  REQUIRE(got.has_value());
  CHECK(same(*got, sampleKernel()));
  // Storing again replaces it.
  REQUIRE(cache.store(key, sampleKernel("v2")));
  CHECK(cache.load(key)->ptx == sampleKernel("v2").ptx);
  CHECK(cache.list().size() == 1);
}

TEST_CASE("any part of the key changing misses") {
  TempDir dir;
  DiskCache cache = makeCache(dir.path);
  REQUIRE(cache.store(sampleKey(), sampleKernel()));
  REQUIRE(cache.load(sampleKey()).has_value());
  std::vector<std::pair<const char *, void (*)(CacheKey &)>> changes = {
      {"source", [](CacheKey &k) { k.source += " "; }},
      {"path", [](CacheKey &k) { k.sourcePath = "other.tile"; }},
      {"kernel", [](CacheKey &k) { k.kernel = "add_kernel2"; }},
      {"spec", [](CacheKey &k) { k.specialization = "*f32:16,*f32,BLOCK=128"; }},
      {"warps", [](CacheKey &k) { k.numWarps = 8; }},
      {"stages", [](CacheKey &k) { k.numStages = 2; }},
      {"arch", [](CacheKey &k) { k.arch = "sm_80"; }},
      {"options", [](CacheKey &k) { k.options = "O0"; }},
      {"version", [](CacheKey &k) { k.compilerVersion = "tile test 2"; }},
      // Length prefixes: moving text between parts is a different key.
      {"boundary", [](CacheKey &k) {
         k.kernel = "add_kernel*f32:16";
         k.specialization = ",*f32:16,BLOCK=128";
       }},
  };
  for (auto &entry : changes) {
    auto &what = entry.first;   // clang 14 captures no structured binding (CAPTURE)
    auto &change = entry.second;
    CAPTURE(what);
    CacheKey k = sampleKey();
    change(k);
    CHECK(k.digestHex() != sampleKey().digestHex());
    CHECK_FALSE(cache.load(k).has_value());
  }
  CHECK(cache.load(sampleKey()).has_value());
}

TEST_CASE("corrupt and truncated entries are misses, removed, and rebuilt") {
  TempDir dir;
  DiskCache cache = makeCache(dir.path);
  CacheKey key = sampleKey();
  fs::path path = cache.entryPath(key);
  REQUIRE(cache.store(key, sampleKernel()));
  const std::string good = slurp(path);
  REQUIRE(good.size() > 100);

  std::vector<std::pair<std::string, std::string>> bad;
  for (size_t n : {size_t(0), size_t(10), size_t(87), size_t(88), good.size() / 2, good.size() - 1})
    bad.push_back({fmt::format("truncated to {}", n), good.substr(0, n)});
  std::string flipped = good;
  flipped[good.size() - 20] ^= 0x01; // inside the PTX
  bad.push_back({"payload bit flip", flipped});
  std::string magic = good;
  magic[0] = 'X';
  bad.push_back({"magic", magic});
  std::string version = good;
  version[8] = 9;
  bad.push_back({"format version", version});
  std::string sum = good;
  sum[60] ^= 0x80;
  bad.push_back({"checksum", sum});
  bad.push_back({"appended byte", good + "x"});
  std::string length = good;
  length[48] ^= 0x01;
  bad.push_back({"payload length", length});

  for (auto &entry : bad) {
    auto &what = entry.first;   // clang 14 captures no structured binding (CAPTURE)
    auto &bytes = entry.second;
    CAPTURE(what);
    spit(path, bytes);
    CHECK_FALSE(cache.load(key).has_value());
    CHECK_FALSE(fs::exists(path));
    // The caller compiles again and stores: the entry is good again.
    REQUIRE(cache.store(key, sampleKernel()));
    REQUIRE(cache.load(key).has_value());
    CHECK(slurp(path) == good);
  }
}

TEST_CASE("an entry copied under another key's name is not loaded") {
  TempDir dir;
  DiskCache cache = makeCache(dir.path);
  CacheKey a = sampleKey("a"), b = sampleKey("b");
  REQUIRE(cache.store(a, sampleKernel("a")));
  fs::copy_file(cache.entryPath(a), cache.entryPath(b));
  CHECK_FALSE(cache.load(b).has_value());
  CHECK(cache.load(a).has_value());
}

TEST_CASE("list, size and clear") {
  TempDir dir;
  DiskCache cache = makeCache(dir.path);
  CHECK(cache.list().empty());
  CHECK(cache.sizeBytes() == 0);
  CHECK(cache.clear() == 0); // a missing directory is an empty cache
  REQUIRE(cache.store(sampleKey("a"), sampleKernel("a")));
  REQUIRE(cache.store(sampleKey("b"), sampleKernel("b")));
  spit(dir.path / "notes.txt", "not an entry");
  spit(dir.path / (std::string(64, '0') + ".tkc"), "garbage");
  std::vector<CacheEntryInfo> entries = cache.list();
  REQUIRE(entries.size() == 3);
  int valid = 0;
  uint64_t total = 0;
  for (const CacheEntryInfo &e : entries) {
    valid += e.valid;
    total += e.bytes;
    CHECK(e.bytes == fs::file_size(e.path));
    if (e.valid) CHECK(e.description == sampleKernel().description);
  }
  CHECK(valid == 2);
  CHECK(cache.sizeBytes() == total);
  CHECK(cache.clear() == 3);
  CHECK(cache.list().empty());
  CHECK(fs::exists(dir.path / "notes.txt")); // not ours: left alone
}

TEST_CASE("least recently used entries are evicted past the size limit") {
  TempDir dir;
  DiskCache probe = makeCache(dir.path);
  REQUIRE(probe.store(sampleKey("k0"), sampleKernel("k0")));
  const uint64_t one = probe.sizeBytes();
  probe.clear();
  // Room for three entries, not four.
  DiskCache cache = makeCache(dir.path, one * 3 + one / 2);
  auto base = fs::file_time_type::clock::now() - std::chrono::hours(10);
  for (int i = 0; i < 3; ++i) {
    REQUIRE(cache.store(sampleKey(fmt::format("k{}", i)), sampleKernel(fmt::format("k{}", i))));
    fs::last_write_time(cache.entryPath(sampleKey(fmt::format("k{}", i))), base + std::chrono::minutes(i));
  }
  // k0 is the oldest; using it makes k1 the least recently used.
  REQUIRE(cache.load(sampleKey("k0")).has_value());
  REQUIRE(cache.store(sampleKey("k3"), sampleKernel("k3")));
  CHECK(cache.sizeBytes() <= one * 3 + one / 2);
  CHECK(cache.load(sampleKey("k0")).has_value());
  CHECK_FALSE(cache.load(sampleKey("k1")).has_value());
  CHECK(cache.load(sampleKey("k2")).has_value());
  CHECK(cache.load(sampleKey("k3")).has_value());
  // Stale temporary files of dead writers go too; fresh ones stay.
  fs::path stale = dir.path / "x.tkc.tmp.1.2.3", fresh = dir.path / "y.tkc.tmp.1.2.3";
  spit(stale, "partial");
  spit(fresh, "partial");
  fs::last_write_time(stale, base);
  cache.evict();
  CHECK_FALSE(fs::exists(stale));
  CHECK(fs::exists(fresh));
}

TEST_CASE("threads writing and reading one cache never read a bad entry") {
  TempDir dir;
  uint64_t one = 0;
  {
    DiskCache probe = makeCache(dir.path);
    REQUIRE(probe.store(sampleKey("k0"), sampleKernel("k0")));
    one = probe.sizeBytes();
    probe.clear();
  }
  // Room for three of the five keys: evictions race with the loads too.
  DiskCache cache = makeCache(dir.path, one * 3 + one / 2);
  std::atomic<int> bad{0}, hits{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 60; ++i) {
        std::string k = fmt::format("k{}", (i + t) % 5);
        if (std::optional<CachedKernel> got = cache.load(sampleKey(k))) {
          ++hits;
          if (!same(*got, sampleKernel(k))) ++bad;
        }
        cache.store(sampleKey(k), sampleKernel(k));
      }
    });
  for (std::thread &t : threads) t.join();
  CHECK(bad == 0);
  CHECK(hits > 0);
  for (const CacheEntryInfo &e : cache.list()) CHECK(e.valid);
}

TEST_CASE("processes sharing a cache never read a bad entry") {
  TempDir dir;
  uint64_t one = 0;
  {
    DiskCache probe = makeCache(dir.path);
    REQUIRE(probe.store(sampleKey("k0"), sampleKernel("k0")));
    one = probe.sizeBytes();
    probe.clear();
  }
  std::vector<pid_t> children;
  for (int p = 0; p < 4; ++p) {
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      DiskCache cache = makeCache(dir.path, one * 3 + one / 2);
      int status = 0;
      for (int i = 0; i < 80; ++i) {
        std::string k = fmt::format("k{}", (i + p) % 5);
        if (std::optional<CachedKernel> got = cache.load(sampleKey(k)); got && !same(*got, sampleKernel(k)))
          status = 1;
        cache.store(sampleKey(k), sampleKernel(k));
      }
      _exit(status);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = -1;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  DiskCache cache = makeCache(dir.path);
  CHECK_FALSE(cache.list().empty());
  for (const CacheEntryInfo &e : cache.list()) CHECK(e.valid);
  for (const auto &e : fs::directory_iterator(dir.path))
    CHECK(e.path().filename().string().find(".tmp.") == std::string::npos);
}

TEST_CASE("the environment chooses the directory, the limit and whether to cache") {
  struct Env {
    std::vector<std::pair<std::string, std::optional<std::string>>> saved;
    void set(const char *name, const char *value) {
      const char *old = std::getenv(name);
      saved.push_back({name, old ? std::optional<std::string>(old) : std::nullopt});
      if (value) setenv(name, value, 1);
      else unsetenv(name);
    }
    ~Env() {
      for (auto it = saved.rbegin(); it != saved.rend(); ++it)
        if (it->second) setenv(it->first.c_str(), it->second->c_str(), 1);
        else unsetenv(it->first.c_str());
    }
  } env;
  env.set("TILE_CACHE", nullptr);
  env.set("TILE_CACHE_MAX_BYTES", nullptr);
  env.set("TILE_CACHE_DIR", "/tmp/somewhere/tile-cache");
  CacheConfig c = cacheConfigFromEnv();
  CHECK(c.enabled);
  CHECK(c.dir == "/tmp/somewhere/tile-cache");
  CHECK(c.maxBytes == uint64_t(1) << 30);
  CHECK(c.error.empty());

  env.set("TILE_CACHE_DIR", nullptr);
  env.set("XDG_CACHE_HOME", nullptr);
  env.set("HOME", "/home/someone");
  CHECK(cacheConfigFromEnv().dir == "/home/someone/.cache/tile");
  env.set("XDG_CACHE_HOME", "/xdg");
  CHECK(cacheConfigFromEnv().dir == "/xdg/tile");
  env.set("XDG_CACHE_HOME", nullptr);
  env.set("HOME", nullptr);
  CHECK_FALSE(cacheConfigFromEnv().enabled);

  env.set("TILE_CACHE_DIR", "/tmp/x");
  for (const char *off : {"0", "off", "false", "no"}) {
    env.set("TILE_CACHE", off);
    CHECK_FALSE(cacheConfigFromEnv().enabled);
  }
  env.set("TILE_CACHE", "1");
  CHECK(cacheConfigFromEnv().enabled);

  env.set("TILE_CACHE_MAX_BYTES", "12345");
  CHECK(cacheConfigFromEnv().maxBytes == 12345);
  env.set("TILE_CACHE_MAX_BYTES", "64M");
  CHECK(cacheConfigFromEnv().maxBytes == uint64_t(64) << 20);
  env.set("TILE_CACHE_MAX_BYTES", "2G");
  CHECK(cacheConfigFromEnv().maxBytes == uint64_t(2) << 30);
  for (const char *bad : {"lots", "-5", "12T", "99999999999999999999", "4GG"}) {
    CAPTURE(bad);
    env.set("TILE_CACHE_MAX_BYTES", bad);
    CacheConfig b = cacheConfigFromEnv();
    CHECK(b.maxBytes == uint64_t(1) << 30);
    CHECK(b.error.find("TILE_CACHE_MAX_BYTES") != std::string::npos);
  }
}

TEST_CASE("the compiler version names this build") {
  std::string v = cacheCompilerVersion();
  CHECK(v.rfind("tile 0.1.0 cache 1", 0) == 0);
  CHECK(v.find(" exe ") != std::string::npos);
  CHECK(v == cacheCompilerVersion());
}

TEST_CASE("diskCacheAt: one cache a directory (a context's cacheDir), usable or null") {
  TempDir a, b;
  const DiskCache *ca = diskCacheAt(a.path.string());
  REQUIRE(ca != nullptr);
  CHECK(diskCacheAt(a.path.string()) == ca);
  const DiskCache *cb = diskCacheAt(b.path.string());
  REQUIRE(cb != nullptr);
  CHECK(cb != ca);
  CacheKey key = sampleKey();
  REQUIRE(ca->store(key, sampleKernel("a")));
  CHECK(fs::exists(a.path / (key.digestHex() + ".tkc")));
  CHECK_FALSE(cb->load(key).has_value());   // another directory, another cache
  REQUIRE(ca->load(key).has_value());
  CHECK(same(*ca->load(key), sampleKernel("a")));
  // a file where the directory should be: no cache (said on stderr)
  TempDir c;
  spit(c.path, "not a directory");
  CHECK(diskCacheAt(c.path.string()) == nullptr);
  fs::remove(c.path);
}
