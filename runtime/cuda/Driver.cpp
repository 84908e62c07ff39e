// Driver.cpp - loading libcuda.so.1 with dlopen, device 0's primary context,
// error messages, and context-wide synchronization.
#include "cuda/Cuda.h"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <deque>
#include <dlfcn.h>
#include <mutex>

namespace tile::cuda {

thread_local const Driver *Driver::CurrentOn = nullptr;

/// Interned kernel names: stable addresses for noteLaunch's raw pointer.
struct Driver::Names {
  std::mutex Lock;
  std::deque<std::string> Strings;
};

std::string formatError(std::string_view call, int code, std::string_view name,
                        std::string_view string, std::string_view kernel) {
  std::string subject =
      kernel.empty() ? std::string() : fmt::format(" for kernel '{}'", kernel);
  return fmt::format("{} failed{}: {} ({})", call, subject, name, string);
}

std::string formatFault(std::string_view kernel, std::string_view name,
                        std::string_view string) {
  return fmt::format("kernel '{}' faulted: {} ({})", kernel, name, string);
}

bool isKernelFault(int code) {
  // CUDA_ERROR_ILLEGAL_ADDRESS (700) .. CUDA_ERROR_LAUNCH_FAILED (719) and
  // CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE (720) are the launch/exception
  // group; 701 (out of resources) is a launch-time error, not a fault, but it
  // is only returned by the launch itself, never by a synchronize.
  return code >= 700 && code <= 719;
}

std::string DeviceInfo::arch() const {
  return fmt::format("sm_{}{}", ccMajor, ccMinor);
}

std::string DeviceInfo::targetArch() const { return ccMajor == 9 && ccMinor == 0 ? arch() + "a" : arch(); }

namespace {

bool noGpuRequested() {
  const char *value = std::getenv("TILE_NO_GPU");
  return value && *value && std::strcmp(value, "0") != 0;
}

struct GlobalDriver {
  std::once_flag Once;
  std::unique_ptr<Driver> Instance;
  std::string Reason;
};

GlobalDriver &globalDriver() {
  // Leaked on purpose: modules held in other statics may unload at exit
  // after this would have been destroyed.
  static GlobalDriver *global = new GlobalDriver();
  return *global;
}

} // namespace

Driver *Driver::get() {
  if (noGpuRequested())
    return nullptr;
  GlobalDriver &global = globalDriver();
  std::call_once(global.Once, [&] {
    global.Instance = load("libcuda.so.1", &global.Reason);
  });
  return global.Instance.get();
}

std::string Driver::unavailableReason() {
  if (noGpuRequested())
    return "TILE_NO_GPU is set in the environment";
  if (get())
    return "";
  return globalDriver().Reason;
}

std::unique_ptr<Driver> Driver::load(const char *library, std::string *reason) {
  std::unique_ptr<Driver> driver(new Driver());
  driver->InternedNames = std::make_unique<Names>();
  if (!driver->open(library, reason) || !driver->initDevice(reason))
    return nullptr;
  return driver;
}

bool Driver::open(const char *library, std::string *reason) {
  Library = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!Library) {
    const char *why = dlerror();
    *reason = fmt::format("cannot load {}: {}", library, why ? why : "unknown");
    return false;
  }
#define TILE_CUDA_API_RESOLVE(field, symbol, type)                             \
  Fns.field = reinterpret_cast<decltype(Fns.field)>(dlsym(Library, symbol));                  \
  if (!Fns.field) {                                                            \
    *reason = fmt::format("{} has no entry point {}", library, symbol);        \
    return false;                                                              \
  }
  TILE_CUDA_API_LIST(TILE_CUDA_API_RESOLVE)
#undef TILE_CUDA_API_RESOLVE
  return true;
}

bool Driver::initDevice(std::string *reason) {
  api::CUresult result = Fns.init(0);
  if (result != api::CudaSuccess) {
    *reason = fmt::format("cuInit failed: {} ({})", errorName(result),
                          errorString(result));
    return false;
  }
  int count = 0;
  result = Fns.deviceGetCount(&count);
  if (result != api::CudaSuccess || count == 0) {
    *reason = "no CUDA device found";
    return false;
  }
  try {
    check(Fns.deviceGet(&Device, 0), "cuDeviceGet");
    check(Fns.primaryCtxRetain(&Context, Device), "cuDevicePrimaryCtxRetain");
    auto attribute = [&](api::CUdevice_attribute attr) {
      int value = 0;
      check(Fns.deviceGetAttribute(&value, attr, Device),
            "cuDeviceGetAttribute");
      return value;
    };
    char name[256] = {};
    check(Fns.deviceGetName(name, sizeof(name) - 1, Device), "cuDeviceGetName");
    Info.name = name;
    Info.ccMajor = attribute(api::DevComputeCapabilityMajor);
    Info.ccMinor = attribute(api::DevComputeCapabilityMinor);
    Info.smCount = attribute(api::DevMultiprocessorCount);
    Info.maxSharedPerBlockOptin = attribute(api::DevMaxSharedMemoryPerBlockOptin);
    Info.maxThreadsPerBlock = attribute(api::DevMaxThreadsPerBlock);
    Info.maxGrid[0] = attribute(api::DevMaxGridDimX);
    Info.maxGrid[1] = attribute(api::DevMaxGridDimY);
    Info.maxGrid[2] = attribute(api::DevMaxGridDimZ);
    check(Fns.deviceTotalMem(&Info.totalMemory, Device), "cuDeviceTotalMem");
    check(Fns.driverGetVersion(&Info.driverVersion), "cuDriverGetVersion");
  } catch (const Error &error) {
    *reason = error.what();
    return false;
  }
  return true;
}

Driver::~Driver() {
  if (CurrentOn == this)
    CurrentOn = nullptr;
  if (Context)
    Fns.primaryCtxRelease(Device);
  if (Library)
    dlclose(Library);
}

std::string Driver::errorName(api::CUresult result) const {
  const char *name = nullptr;
  if (Fns.getErrorName && Fns.getErrorName(result, &name) == api::CudaSuccess &&
      name)
    return name;
  return fmt::format("CUresult {}", result);
}

std::string Driver::errorString(api::CUresult result) const {
  const char *text = nullptr;
  if (Fns.getErrorString &&
      Fns.getErrorString(result, &text) == api::CudaSuccess && text)
    return text;
  return "unknown error";
}

void Driver::fail(api::CUresult result, const char *call,
                  std::string_view kernel) const {
  throw Error(formatError(call, result, errorName(result), errorString(result),
                          kernel),
              result);
}

void Driver::failSync(api::CUresult result, const char *call) const {
  const char *kernel = lastKernel();
  if (kernel && isKernelFault(result))
    throw Error(formatFault(kernel, errorName(result), errorString(result)),
                result);
  fail(result, call, kernel ? kernel : "");
}

void Driver::bindThread() const {
  check(Fns.ctxSetCurrent(Context), "cuCtxSetCurrent");
  CurrentOn = this;
}

void Driver::makeCurrentNoThrow() const noexcept {
  if (CurrentOn != this && Fns.ctxSetCurrent(Context) == api::CudaSuccess)
    CurrentOn = this;
}

void Driver::synchronize() const {
  makeCurrent();
  api::CUresult result = Fns.ctxSynchronize();
  if (result != api::CudaSuccess)
    failSync(result, "cuCtxSynchronize");
}

const char *Driver::intern(std::string_view name) {
  std::lock_guard<std::mutex> guard(InternedNames->Lock);
  for (const std::string &existing : InternedNames->Strings)
    if (existing == name)
      return existing.c_str();
  return InternedNames->Strings.emplace_back(name).c_str();
}

void synchronize() {
  Driver *driver = Driver::get();
  if (!driver)
    throw Error("synchronize: no CUDA driver: " + Driver::unavailableReason(),
                api::CudaErrorNoDevice);
  driver->synchronize();
}

} // namespace tile::cuda
