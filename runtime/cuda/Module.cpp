// Module.cpp - modules loaded from PTX or cubin, and kernel launches with
// their pre-launch checks (grid, block, shared memory).
#include "cuda/Cuda.h"
#include "support/Diagnostics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace tile::cuda {

namespace {

/// Kernels may use this much dynamic shared memory without opting in.
constexpr int DefaultDynamicSharedLimit = 48 * 1024;
constexpr size_t JitLogBytes = 64 * 1024;

/// The log text up to its terminator, without trailing newlines.
std::string logText(const std::vector<char> &buffer) {
  std::string text(buffer.data(), strnlen(buffer.data(), buffer.size()));
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
    text.pop_back();
  return text;
}

[[noreturn]] void failLaunch(const Function &fn, const std::string &what) {
  throw Error(fmt::format("kernel '{}': {}", fn.name(), what),
              api::CudaErrorInvalidValue);
}

} // namespace

// --- Module ------------------------------------------------------------------

Module Module::fromPtx(Driver &driver, std::string_view ptx,
                       std::string_view name) {
  Module module(driver, std::string(name));
  std::string text(ptx); // the driver wants NUL-terminated PTX
  module.load(text.c_str(), /*captureLogs=*/true);
  return module;
}

Module Module::fromCubin(Driver &driver, const void *image, size_t bytes,
                         std::string_view name) {
  if (!image || bytes == 0)
    throw Error(fmt::format("module '{}': empty cubin image", name),
                api::CudaErrorInvalidValue);
  Module module(driver, std::string(name));
  module.load(image, /*captureLogs=*/false);
  return module;
}

void Module::load(const void *image, bool captureLogs) {
  Drv->makeCurrent();
  std::vector<char> info(captureLogs ? JitLogBytes : 1, '\0');
  std::vector<char> error(captureLogs ? JitLogBytes : 1, '\0');
  api::CUjit_option options[] = {
      api::JitInfoLogBuffer, api::JitInfoLogBufferSizeBytes,
      api::JitErrorLogBuffer, api::JitErrorLogBufferSizeBytes,
      api::JitLogVerbose};
  // Size options are passed by value, cast to void* as the driver API wants.
  void *values[] = {info.data(), reinterpret_cast<void *>(info.size()),
                    error.data(), reinterpret_cast<void *>(error.size()),
                    reinterpret_cast<void *>(uintptr_t{1})};
  unsigned count = captureLogs ? 5 : 0;
  api::CUresult result = Drv->api().moduleLoadDataEx(
      &Handle, image, count, captureLogs ? options : nullptr,
      captureLogs ? values : nullptr);
  InfoLog = logText(info);
  if (result == api::CudaSuccess)
    return;
  Handle = nullptr;
  std::string message = fmt::format(
      "cuModuleLoadDataEx failed for module '{}': {} ({})", Name,
      Drv->errorName(result), Drv->errorString(result));
  std::string log = logText(error);
  if (!log.empty())
    message += "\nJIT error log:\n" + log;
  throw Error(message, result);
}

Module::Module(Module &&other) noexcept
    : Drv(other.Drv), Handle(other.Handle), Name(std::move(other.Name)),
      InfoLog(std::move(other.InfoLog)) {
  other.Handle = nullptr;
}

Module &Module::operator=(Module &&other) noexcept {
  if (this == &other)
    return *this;
  release();
  Drv = other.Drv;
  Handle = other.Handle;
  Name = std::move(other.Name);
  InfoLog = std::move(other.InfoLog);
  other.Handle = nullptr;
  return *this;
}

Module::~Module() { release(); }

void Module::release() {
  if (!Handle)
    return;
  // Errors are ignored: after a kernel fault every call fails, and a
  // destructor must not throw.
  Drv->makeCurrentNoThrow();
  Drv->api().moduleUnload(Handle);
  Handle = nullptr;
}

Function Module::function(std::string_view name) const {
  Drv->makeCurrent();
  std::string key(name);
  api::CUfunction handle = nullptr;
  api::CUresult result =
      Drv->api().moduleGetFunction(&handle, Handle, key.c_str());
  if (result != api::CudaSuccess)
    Drv->fail(result, "cuModuleGetFunction", key);
  return Function(*Drv, handle, Drv->intern(name));
}

std::pair<api::CUdeviceptr, size_t>
Module::global(std::string_view name) const {
  Drv->makeCurrent();
  std::string key(name);
  api::CUdeviceptr ptr = 0;
  size_t bytes = 0;
  api::CUresult result =
      Drv->api().moduleGetGlobal(&ptr, &bytes, Handle, key.c_str());
  if (result != api::CudaSuccess)
    throw Error(fmt::format("cuModuleGetGlobal failed for global '{}' of "
                            "module '{}': {} ({})",
                            key, Name, Drv->errorName(result),
                            Drv->errorString(result)),
                result);
  return {ptr, bytes};
}

// --- Function ----------------------------------------------------------------

Function::Function(Driver &driver, api::CUfunction handle, const char *name)
    : Drv(&driver), Handle(handle), Name(name) {
  auto attribute = [&](api::CUfunction_attribute attr) {
    int value = 0;
    driver.check(driver.api().funcGetAttribute(&value, attr, handle),
                 "cuFuncGetAttribute", name);
    return value;
  };
  NumRegs = attribute(api::FuncNumRegs);
  LocalBytes = attribute(api::FuncLocalSizeBytes);
  StaticShared = attribute(api::FuncSharedSizeBytes);
  MaxThreads = attribute(api::FuncMaxThreadsPerBlock);
  // Without opting in, static plus dynamic shared memory may reach 48 KB.
  DynamicSharedLimit = std::make_shared<std::atomic<int>>(
      std::max(0, DefaultDynamicSharedLimit - StaticShared));
}

void Function::checkGrid(const Dim3 &grid) const {
  const int64_t dims[3] = {grid.x, grid.y, grid.z};
  for (int i = 0; i < 3; ++i) {
    if (dims[i] <= 0)
      failLaunch(*this, fmt::format("grid dimension {} is {} (must be positive)",
                                    "xyz"[i], dims[i]));
    if (dims[i] > Drv->device().maxGrid[i])
      failLaunch(*this, fmt::format("grid dimension {} is {}; the device allows "
                                    "at most {}",
                                    "xyz"[i], dims[i], Drv->device().maxGrid[i]));
  }
}

void Function::checkBlock(const Dim3 &block) const {
  if (block.x <= 0 || block.y <= 0 || block.z <= 0)
    failLaunch(*this, fmt::format("block ({}, {}, {}) has an empty or negative "
                                  "dimension",
                                  block.x, block.y, block.z));
  int64_t threads = block.x * block.y * block.z;
  if (threads > MaxThreads)
    failLaunch(*this, fmt::format("block of {} threads; the kernel allows at "
                                  "most {}",
                                  threads, MaxThreads));
}

void Function::ensureShared(uint32_t sharedBytes) const {
  int64_t needed = int64_t(sharedBytes) + StaticShared;
  int allowed = Drv->device().maxSharedPerBlockOptin;
  if (needed > allowed)
    throw Error(fmt::format("kernel '{}' needs {} bytes of shared memory; the "
                            "device allows {}",
                            Name, needed, allowed),
                api::CudaErrorInvalidValue);
  Drv->check(Drv->api().funcSetAttribute(Handle,
                                         api::FuncMaxDynamicSharedSizeBytes,
                                         int(sharedBytes)),
             "cuFuncSetAttribute", Name);
  // Keep the largest limit set so far; concurrent raises may race, but each
  // sets a value large enough for its own launch before launching.
  int current = DynamicSharedLimit->load(std::memory_order_relaxed);
  while (current < int(sharedBytes) &&
         !DynamicSharedLimit->compare_exchange_weak(current, int(sharedBytes)))
    ;
}

void Function::launch(Dim3 grid, Dim3 block, uint32_t sharedBytes,
                      const Stream *stream,
                      std::span<void *const> params) const {
  TILE_ASSERT(Drv, "launch of a default-constructed cuda::Function");
  checkGrid(grid);
  checkBlock(block);
  if (int64_t(sharedBytes) >
      DynamicSharedLimit->load(std::memory_order_relaxed))
    ensureShared(sharedBytes);
  Drv->makeCurrent();
  Drv->noteLaunch(Name);
  api::CUresult result = Drv->api().launchKernel(
      Handle, unsigned(grid.x), unsigned(grid.y), unsigned(grid.z),
      unsigned(block.x), unsigned(block.y), unsigned(block.z), sharedBytes,
      stream ? stream->handle() : nullptr, const_cast<void **>(params.data()),
      nullptr);
  if (result != api::CudaSuccess)
    Drv->fail(result, "cuLaunchKernel", Name);
}

ParamSlot packParam(const ScalarArg &a, uint64_t pointer) {
  ParamSlot s;
  if (a.type.isPtr) {
    std::memcpy(s.bytes, &pointer, 8);
    return s;
  }
  switch (a.type.scalar) {
  case Scalar::F32: {
    float f = static_cast<float>(a.f);
    std::memcpy(s.bytes, &f, 4);
    break;
  }
  case Scalar::F64: std::memcpy(s.bytes, &a.f, 8); break;
  case Scalar::F16: {
    uint16_t h = floatToHalfBits(static_cast<float>(a.f));
    std::memcpy(s.bytes, &h, 2);
    break;
  }
  case Scalar::BF16: {
    uint16_t h = floatToBF16Bits(static_cast<float>(a.f));
    std::memcpy(s.bytes, &h, 2);
    break;
  }
  default: {
    int64_t v = a.i; // little endian: the low bytes are the narrow value
    std::memcpy(s.bytes, &v, 8);
  }
  }
  return s;
}

} // namespace tile::cuda
