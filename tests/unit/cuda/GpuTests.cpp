// GpuTests.cpp - CUDA runtime tests on a real device (doctest suite "gpu").
// Each prints "skipped: no CUDA driver" and passes where there is no GPU.
//
// The kernel-fault test leaves the context unusable, so it lives in its own
// suite "gpu-fault" that only runs with TILE_CUDA_FAULT_TEST=1; the "gpu"
// suite runs it in a child process (this binary, re-executed).
#include "PtxKernels.h"
#include "cuda/Cuda.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <numeric>
#include <spawn.h>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

extern char **environ;

using namespace tile::cuda;
using tile::cuda::test::AddOnePtx;

namespace {

Driver *gpuOrSkip() {
  Driver *driver = Driver::get();
  if (!driver)
    std::printf("skipped: no CUDA driver (%s)\n",
                Driver::unavailableReason().c_str());
  return driver;
}

std::string messageOf(const std::function<void()> &action) {
  try {
    action();
  } catch (const Error &error) {
    return error.what();
  }
  return "(no exception)";
}

/// 3*i for i in [0, n).
std::vector<int> ramp(size_t n) {
  std::vector<int> values(n);
  for (size_t i = 0; i < n; ++i)
    values[i] = int(3 * i);
  return values;
}

/// Runs add_one over a fresh ramp of n ints with the given launch shape and
/// checks every element was incremented exactly once.
void checkAddOne(Driver &driver, const Function &fn, unsigned n, Dim3 grid,
                 Dim3 block, uint32_t shared = 0, const Stream *stream = nullptr) {
  std::vector<int> host = ramp(n);
  DeviceBuffer buffer(driver, n * sizeof(int));
  buffer.copyFromHost(host.data(), n * sizeof(int));
  uint64_t ptr = buffer.devicePtr();
  fn.launch(grid, block, shared, stream, {&ptr, &n});
  if (stream)
    stream->synchronize();
  else
    driver.synchronize();
  buffer.copyToHost(host.data(), n * sizeof(int));
  int wrong = 0;
  for (unsigned i = 0; i < n; ++i)
    wrong += host[i] != int(3 * i + 1);
  CHECK(wrong == 0);
}

} // namespace

TEST_SUITE("gpu") {

TEST_CASE("device info is sane") {
  Driver *driver = gpuOrSkip();
  if (!driver)
    return;
  const DeviceInfo &info = driver->device();
  MESSAGE(info.name << " " << info.arch() << " SMs=" << info.smCount
                    << " optin smem=" << info.maxSharedPerBlockOptin
                    << " driver=" << info.driverVersion);
  CHECK_FALSE(info.name.empty());
  CHECK(info.ccMajor >= 7);
  CHECK(info.ccMinor >= 0);
  CHECK(info.smCount > 0);
  CHECK(info.maxSharedPerBlockOptin >= 48 * 1024);
  CHECK(info.maxThreadsPerBlock == 1024);
  CHECK(info.maxGrid[0] >= 65535);
  CHECK(info.totalMemory > (size_t(1) << 30));
  CHECK(info.driverVersion >= 11000);
  CHECK(info.arch() == "sm_" + std::to_string(info.ccMajor) +
                           std::to_string(info.ccMinor));
}

TEST_CASE("device buffers round-trip, fill and copy") {
  Driver *driver = gpuOrSkip();
  if (!driver)
    return;
  std::vector<int> host = ramp(1000);
  DeviceBuffer a(*driver, host.size() * sizeof(int));
  CHECK(a.devicePtr() != 0);
  CHECK(a.size() == 4000);
  a.copyFromHost(host.data(), 4000);
  DeviceBuffer b(*driver, 4000);
  b.fill(0xAB);
  std::vector<int> back(1000, 0);
  b.copyToHost(back.data(), 4000);
  CHECK(back[0] == int(0xABABABAB));
  CHECK(back[999] == int(0xABABABAB));
  b.copyFrom(a, 4000);
  b.copyToHost(back.data(), 4000);
  CHECK(back == host);
  // Partial copy at an offset.
  int value = 0;
  b.copyToHost(&value, sizeof(int), 10 * sizeof(int));
  CHECK(value == 30);
  std::string message = messageOf([&] { b.copyToHost(back.data(), 4004); });
  CHECK(message == "copy to host of 4004 bytes at offset 0 overruns a device "
                   "buffer of 4000 bytes");
  DeviceBuffer moved = std::move(a);
  CHECK(a.devicePtr() == 0);
  moved.copyToHost(back.data(), 4000);
  CHECK(back == host);
}

TEST_CASE("an async fill writes every word, in stream order") {
  Driver *driver = gpuOrSkip();
  if (!driver)
    return;
  DeviceBuffer b(*driver, 4002); // the last 2 bytes are not a whole word: untouched
  b.fill(0xAB);
  Stream stream(*driver);
  b.fillAsync(0x01020304u, &stream);
  stream.synchronize();
  std::vector<uint32_t> back(1000, 0);
  b.copyToHost(back.data(), 4000);
  CHECK(std::count(back.begin(), back.end(), 0x01020304u) == 1000);
  uint16_t tail = 0;
  b.copyToHost(&tail, 2, 4000);
  CHECK(tail == 0xABAB);
  b.fillAsync(7); // the default stream; copyToHost waits for it
  b.copyToHost(back.data(), 4000);
  CHECK(std::count(back.begin(), back.end(), 7u) == 1000);
}

TEST_CASE("a PTX kernel runs on a 1-D grid") {
  Driver *driver = gpuOrSkip();
  if (!driver)
    return;
  Module module = Module::fromPtx(*driver, AddOnePtx, "add_one");
  Function fn = module.function("add_one");
  CHECK(std::string(fn.name()) == "add_one");
  CHECK(fn.numRegs() > 0);
  CHECK(fn.localSizeBytes() == 0);
  CHECK(fn.staticSharedBytes() == 0);
  CHECK(fn.maxThreadsPerBlock() >= 128);
  MESSAGE("JIT info log: " << module.infoLog());
  // Empty when the driver's JIT cache (~/.nv/ComputeCache) served the PTX.
  const std::string &log = module.infoLog();
  CHECK((log.empty() || log.find("add_one") != std::string::npos));
  checkAddOne(*driver, fn, 1000, {8, 1, 1}, {128, 1, 1});
  checkAddOne(*driver, fn, 1, {1, 1, 1}, {32, 1, 1});
}

TEST_CASE("a PTX kernel runs on a 3-D grid") {
  Driver *driver = gpuOrSkip();
  if (!driver)
    return;
  Module module = Module::fromPtx(*driver, AddOnePtx, "add_one");
  Function fn = module.function("add_one");
  checkAddOne(*driver, fn, 3 * 2 * 4 * 64, {3, 2, 4}, {64, 1, 1});
  checkAddOne(*driver, fn, 1500, {3, 2, 4}, {64, 1, 1}); // guarded tail
}

TEST_CASE("launches on a stream and from another thread") {
  Driver *driver = gpuOrSkip();
  if (!driver)
    return;
  Module module = Module::fromPtx(*driver, AddOnePtx, "add_one");
  Function fn = module.function("add_one");
  Stream stream(*driver);
  checkAddOne(*driver, fn, 4096, {32, 1, 1}, {128, 1, 1}, 0, &stream);
  std::thread worker(
      [&] { checkAddOne(*driver, fn, 777, {7, 1, 1}, {128, 1, 1}); });
  worker.join();
}

TEST_CASE("a PTX syntax error reports the JIT log") {
  Driver *driver = gpuOrSkip();
  if (!driver)
    return;
  std::string message = messageOf(
      [&] { Module::fromPtx(*driver, tile::cuda::test::SyntaxErrorPtx, "broken"); });
  MESSAGE(message);
  CHECK(message.find("cuModuleLoadDataEx failed for module 'broken': "
                     "CUDA_ERROR_INVALID_PTX") == 0);
  CHECK(message.find("JIT error log:") != std::string::npos);
  CHECK(message.find("bogus_opcode") != std::string::npos);
}

TEST_CASE("an unknown kernel name is reported") {
  Driver *driver = gpuOrSkip();
  if (!driver)
    return;
  Module module = Module::fromPtx(*driver, AddOnePtx, "add_one");
  std::string message = messageOf([&] { module.function("nope"); });
  CHECK(message.find("cuModuleGetFunction failed for kernel 'nope': "
                     "CUDA_ERROR_NOT_FOUND") == 0);
}

TEST_CASE("shared memory above 48 KB opts in; above the device limit fails") {
  Driver *driver = gpuOrSkip();
  if (!driver)
    return;
  Module module = Module::fromPtx(*driver, AddOnePtx, "add_one");
  Function fn = module.function("add_one");
  int limit = driver->device().maxSharedPerBlockOptin;
  checkAddOne(*driver, fn, 256, {2, 1, 1}, {128, 1, 1}, uint32_t(limit));
  checkAddOne(*driver, fn, 256, {2, 1, 1}, {128, 1, 1}, 64 * 1024);
  unsigned n = 1;
  uint64_t ptr = 0;
  std::string message = messageOf([&] {
    fn.launch({1, 1, 1}, {32, 1, 1}, uint32_t(limit + 1), nullptr, {&ptr, &n});
  });
  CHECK(message == "kernel 'add_one' needs " + std::to_string(limit + 1) +
                       " bytes of shared memory; the device allows " +
                       std::to_string(limit));
}

TEST_CASE("bad grids and blocks are rejected before launching") {
  Driver *driver = gpuOrSkip();
  if (!driver)
    return;
  Module module = Module::fromPtx(*driver, AddOnePtx, "add_one");
  Function fn = module.function("add_one");
  unsigned n = 1;
  uint64_t ptr = 0;
  auto launch = [&](Dim3 grid, Dim3 block) {
    return messageOf(
        [&] { fn.launch(grid, block, 0, nullptr, {&ptr, &n}); });
  };
  CHECK(launch({0, 1, 1}, {32, 1, 1}) ==
        "kernel 'add_one': grid dimension x is 0 (must be positive)");
  CHECK(launch({1, -2, 1}, {32, 1, 1}) ==
        "kernel 'add_one': grid dimension y is -2 (must be positive)");
  int64_t maxZ = driver->device().maxGrid[2];
  CHECK(launch({1, 1, maxZ + 1}, {32, 1, 1}) ==
        "kernel 'add_one': grid dimension z is " + std::to_string(maxZ + 1) +
            "; the device allows at most " + std::to_string(maxZ));
  CHECK(launch({1, 1, 1}, {2048, 1, 1}).find("block of 2048 threads") !=
        std::string::npos);
  CHECK(launch({1, 1, 1}, {0, 1, 1}).find("empty or negative") !=
        std::string::npos);
  driver->synchronize(); // nothing was launched, nothing faulted
}

TEST_CASE("events time a kernel") {
  Driver *driver = gpuOrSkip();
  if (!driver)
    return;
  Module module = Module::fromPtx(*driver, AddOnePtx, "add_one");
  Function fn = module.function("add_one");
  unsigned n = 1 << 24;
  DeviceBuffer buffer(*driver, size_t(n) * sizeof(int));
  buffer.fill(0);
  uint64_t ptr = buffer.devicePtr();
  Stream stream(*driver);
  Event start(*driver), stop(*driver);
  start.record(&stream);
  for (int i = 0; i < 4; ++i)
    fn.launch({n / 256, 1, 1}, {256, 1, 1}, 0, &stream, {&ptr, &n});
  stop.record(&stream);
  stop.synchronize();
  float ms = stop.elapsedMsSince(start);
  MESSAGE("4 x add_one over 64 MB: " << ms << " ms");
  CHECK(ms > 0);
  CHECK(ms < 1000);
  int value = -1;
  buffer.copyToHost(&value, sizeof(int), size_t(n - 1) * sizeof(int));
  CHECK(value == 4);
}

TEST_CASE("a cached launch costs well under 10 us of host time") {
  Driver *driver = gpuOrSkip();
  if (!driver)
    return;
  Module module = Module::fromPtx(*driver, AddOnePtx, "add_one");
  Function fn = module.function("add_one");
  DeviceBuffer buffer(*driver, 1024 * sizeof(int));
  uint64_t ptr = buffer.devicePtr();
  unsigned n = 1024;
  void *params[] = {&ptr, &n};
  Stream stream(*driver);
  fn.launch({4, 1, 1}, {256, 1, 1}, 0, &stream, params);
  stream.synchronize();
  constexpr int Launches = 200;
  auto begin = std::chrono::steady_clock::now();
  for (int i = 0; i < Launches; ++i)
    fn.launch({4, 1, 1}, {256, 1, 1}, 0, &stream, params);
  auto end = std::chrono::steady_clock::now();
  stream.synchronize();
  double us =
      std::chrono::duration<double, std::micro>(end - begin).count() / Launches;
  // The driver's own cost, for comparison: our checks should add little.
  begin = std::chrono::steady_clock::now();
  for (int i = 0; i < Launches; ++i)
    driver->api().launchKernel(fn.handle(), 4, 1, 1, 256, 1, 1, 0,
                               stream.handle(), params, nullptr);
  end = std::chrono::steady_clock::now();
  stream.synchronize();
  double rawUs =
      std::chrono::duration<double, std::micro>(end - begin).count() / Launches;
  MESSAGE("host time per launch: " << us << " us (raw cuLaunchKernel: "
                                   << rawUs << " us)");
  CHECK(us < 10.0);
}

TEST_CASE("a cubin image loads") {
  Driver *driver = gpuOrSkip();
  if (!driver)
    return;
  const char *ptxas = "/usr/local/cuda/bin/ptxas";
  if (!std::ifstream(ptxas)) {
    std::printf("skipped: no %s to make a cubin\n", ptxas);
    return;
  }
  std::string base = "/tmp/tile_cuda_test_" + std::to_string(getpid());
  std::ofstream(base + ".ptx") << AddOnePtx;
  std::string command = std::string(ptxas) + " -arch=" +
                        driver->device().arch() + " " + base + ".ptx -o " +
                        base + ".cubin";
  REQUIRE(std::system(command.c_str()) == 0);
  std::ifstream file(base + ".cubin", std::ios::binary);
  std::vector<char> image((std::istreambuf_iterator<char>(file)),
                          std::istreambuf_iterator<char>());
  std::remove((base + ".ptx").c_str());
  std::remove((base + ".cubin").c_str());
  REQUIRE_FALSE(image.empty());
  Module module = Module::fromCubin(*driver, image.data(), image.size(), "cubin");
  checkAddOne(*driver, module.function("add_one"), 300, {3, 1, 1}, {128, 1, 1});
}

TEST_CASE("a kernel fault is reported by synchronize (in a child process)") {
  Driver *driver = gpuOrSkip();
  if (!driver)
    return;
  std::vector<std::string> env;
  for (char **entry = environ; *entry; ++entry)
    env.emplace_back(*entry);
  env.emplace_back("TILE_CUDA_FAULT_TEST=1");
  std::vector<char *> envp;
  for (std::string &entry : env)
    envp.push_back(entry.data());
  envp.push_back(nullptr);
  char self[] = "/proc/self/exe";
  char suite[] = "--test-suite=gpu-fault";
  char *argv[] = {self, suite, nullptr};
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, self, nullptr, nullptr, argv, envp.data()) == 0);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

} // TEST_SUITE("gpu")

TEST_SUITE("gpu-fault") {

TEST_CASE("an out-of-bounds store is reported as a fault of its kernel") {
  const char *enabled = std::getenv("TILE_CUDA_FAULT_TEST");
  if (!enabled || std::string(enabled) != "1") {
    std::printf("skipped: set TILE_CUDA_FAULT_TEST=1 (leaves the CUDA context "
                "unusable)\n");
    return;
  }
  Driver *driver = gpuOrSkip();
  if (!driver)
    return;
  Module module =
      Module::fromPtx(*driver, tile::cuda::test::BadStorePtx, "bad_store");
  Function fn = module.function("bad_store");
  fn.launch({1, 1, 1}, {32, 1, 1}, 0, nullptr, std::vector<void *>{});
  std::string message = messageOf([&] { driver->synchronize(); });
  MESSAGE(message);
  CHECK(message == "kernel 'bad_store' faulted: CUDA_ERROR_ILLEGAL_ADDRESS "
                   "(an illegal memory access was encountered)");
}

} // TEST_SUITE("gpu-fault")
