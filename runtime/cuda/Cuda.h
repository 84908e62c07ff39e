// Cuda.h - the CUDA driver runtime: the driver loaded with dlopen at run time,
// modules loaded from PTX or cubin, kernel launches, device buffers, streams
// and events.
//
// Nothing here links against CUDA: Driver::get() returns null (with a reason)
// where libcuda.so.1 is missing, cuInit fails, there is no device, or
// TILE_NO_GPU=1 is set, and callers fall back to the interpreter. Every failing
// driver call throws cuda::Error naming the call, the kernel or object, and the
// driver's error name and string. The driver uses the device's primary context
// and makes it current on each thread that touches it.
//
// Lifetimes: a Function is valid while its Module lives; Modules, buffers,
// streams and events must not outlive the Driver (which lives until exit).
#pragma once

#include "cuda/DriverApi.h"
#include "support/DType.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tile::cuda {

/// A failing driver call or a launch rejected before reaching the driver.
class Error : public std::runtime_error {
public:
  Error(const std::string &message, int code)
      : std::runtime_error(message), Code(code) {}
  /// The CUresult (CUDA_ERROR_INVALID_VALUE for checks done by tile itself).
  int code() const { return Code; }

private:
  int Code;
};

/// "<call> failed[ for kernel '<kernel>']: <name> (<string>)".
std::string formatError(std::string_view call, int code, std::string_view name,
                        std::string_view string, std::string_view kernel = {});
/// "kernel '<kernel>' faulted: <name> (<string>)".
std::string formatFault(std::string_view kernel, std::string_view name,
                        std::string_view string);
/// True for the CUresults that report a fault of a running kernel (the
/// 700-series: illegal address, misaligned address, trap, launch failed...).
bool isKernelFault(int code);

/// What the device is.
struct DeviceInfo {
  std::string name;
  int ccMajor = 0;
  int ccMinor = 0;
  int smCount = 0;
  int maxSharedPerBlockOptin = 0; ///< bytes
  int maxThreadsPerBlock = 0;
  int maxGrid[3] = {0, 0, 0};
  size_t totalMemory = 0;   ///< bytes
  int driverVersion = 0;    ///< e.g. 13000 for CUDA 13.0
  /// "sm_90" for compute capability 9.0.
  std::string arch() const;
  /// The target tile compiles for: arch(), with the "a" suffix on 9.0
  /// ("sm_90a": wgmma and setmaxnreg need it).
  std::string targetArch() const;
};

class Stream;

/// The loaded driver, bound to device 0's primary context. One per process.
class Driver {
public:
  /// The process-wide driver, or null when no GPU can be used (see
  /// unavailableReason()). Thread safe; loads on first call. TILE_NO_GPU=1 in
  /// the environment makes it return null whenever it is set.
  static Driver *get();
  /// Why get() returned null ("" when it did not).
  static std::string unavailableReason();
  /// Loads the driver from `library` without touching the process-wide one
  /// (tests use it with a missing library). Null plus *reason on failure.
  static std::unique_ptr<Driver> load(const char *library, std::string *reason);

  ~Driver();
  Driver(const Driver &) = delete;
  Driver &operator=(const Driver &) = delete;

  const DeviceInfo &device() const { return Info; }
  const api::Api &api() const { return Fns; }

  /// Throws cuda::Error for a failed `call` (no-op on CUDA_SUCCESS).
  void check(api::CUresult result, const char *call,
             std::string_view kernel = {}) const {
    if (result != api::CudaSuccess)
      fail(result, call, kernel);
  }
  [[noreturn]] void fail(api::CUresult result, const char *call,
                         std::string_view kernel = {}) const;
  /// "CUDA_ERROR_X" and its description, from the driver.
  std::string errorName(api::CUresult result) const;
  std::string errorString(api::CUresult result) const;

  /// Makes the primary context current on the calling thread (cheap after the
  /// first call on a thread).
  void makeCurrent() const {
    if (CurrentOn != this)
      bindThread();
  }

  /// makeCurrent() for destructors: failures are ignored.
  void makeCurrentNoThrow() const noexcept;

  /// cuCtxSynchronize; an asynchronous kernel fault is reported as
  /// "kernel 'k' faulted: ..." naming the last launched kernel.
  void synchronize() const;
  /// Raises the error of a synchronizing `call` with the fault wording.
  [[noreturn]] void failSync(api::CUresult result, const char *call) const;

  /// A stable copy of `name` that lives as long as the driver.
  const char *intern(std::string_view name);
  void noteLaunch(const char *kernel) const {
    LastKernel.store(kernel, std::memory_order_relaxed);
  }
  /// The kernel launched last on any thread (null if none).
  const char *lastKernel() const {
    return LastKernel.load(std::memory_order_relaxed);
  }

private:
  Driver() = default;
  bool open(const char *library, std::string *reason);
  bool initDevice(std::string *reason);
  void bindThread() const;

  void *Library = nullptr;
  api::Api Fns;
  api::CUdevice Device = 0;
  api::CUcontext Context = nullptr;
  DeviceInfo Info;
  mutable std::atomic<const char *> LastKernel{nullptr};
  struct Names;
  std::unique_ptr<Names> InternedNames;
  static thread_local const Driver *CurrentOn;
};

/// Same as Driver::get()->synchronize(); throws if there is no driver.
void synchronize();

/// Grid or block extents. Signed so a negative grid is caught, not wrapped.
struct Dim3 {
  int64_t x = 1, y = 1, z = 1;
};

/// One kernel parameter's bytes, as the PTX signature expects them.
struct ParamSlot {
  alignas(8) unsigned char bytes[8] = {};
};

/// Packs a launch argument: floats in their own width (f16/bf16 rounded),
/// integers in their low bytes, pointers as `pointer` (the device address).
ParamSlot packParam(const ScalarArg &a, uint64_t pointer);

/// A kernel of a loaded module. Cheap to copy; valid while its Module lives.
class Function {
public:
  Function() = default;

  /// Launches on `stream` (null: the default stream). `params` holds one
  /// pointer per kernel parameter, pointing at its value. Rejects empty,
  /// negative or too large grids, bad blocks and too much shared memory
  /// before reaching the driver. No allocation on the success path.
  void launch(Dim3 grid, Dim3 block, uint32_t sharedBytes, const Stream *stream,
              std::span<void *const> params) const;
  void launch(Dim3 grid, Dim3 block, uint32_t sharedBytes, const Stream *stream,
              const std::vector<void *> &params) const {
    launch(grid, block, sharedBytes, stream, std::span<void *const>(params));
  }

  const char *name() const { return Name; }
  int numRegs() const { return NumRegs; }
  int localSizeBytes() const { return LocalBytes; }
  int staticSharedBytes() const { return StaticShared; }
  int maxThreadsPerBlock() const { return MaxThreads; }
  api::CUfunction handle() const { return Handle; }

private:
  friend class Module;
  Function(Driver &driver, api::CUfunction handle, const char *name);
  void checkGrid(const Dim3 &grid) const;
  void checkBlock(const Dim3 &block) const;
  void ensureShared(uint32_t sharedBytes) const;

  Driver *Drv = nullptr;
  api::CUfunction Handle = nullptr;
  const char *Name = "";
  int NumRegs = 0;
  int LocalBytes = 0;
  int StaticShared = 0;
  int MaxThreads = 0;
  /// Dynamic shared bytes allowed without cuFuncSetAttribute (48 KB default,
  /// raised on demand). Shared by copies of this Function.
  std::shared_ptr<std::atomic<int>> DynamicSharedLimit;
};

/// A loaded module (PTX JIT-compiled by the driver, or a cubin). Move-only;
/// unloads in the destructor.
class Module {
public:
  /// JIT-compiles PTX text; on failure the Error carries the JIT error log.
  static Module fromPtx(Driver &driver, std::string_view ptx,
                        std::string_view name = "module");
  /// Loads a cubin (or fatbin) image.
  static Module fromCubin(Driver &driver, const void *image, size_t bytes,
                          std::string_view name = "module");

  Module(Module &&other) noexcept;
  Module &operator=(Module &&other) noexcept;
  ~Module();

  /// The kernel `name` (cuModuleGetFunction).
  Function function(std::string_view name) const;
  /// Address and size of the global variable `name` (cuModuleGetGlobal).
  std::pair<api::CUdeviceptr, size_t> global(std::string_view name) const;
  /// The JIT info log (registers, spills); empty for cubins and when the
  /// driver's JIT cache served the PTX (CUDA_CACHE_DISABLE=1 forces a JIT).
  const std::string &infoLog() const { return InfoLog; }
  const std::string &name() const { return Name; }

private:
  Module(Driver &driver, std::string name) : Drv(&driver), Name(std::move(name)) {}
  void load(const void *image, bool captureLogs);
  void release();

  Driver *Drv = nullptr;
  api::CUmodule Handle = nullptr;
  std::string Name;
  std::string InfoLog;
};

/// Device memory (cuMemAlloc / cuMemFree). Move-only.
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  DeviceBuffer(Driver &driver, size_t bytes);
  DeviceBuffer(DeviceBuffer &&other) noexcept;
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
  ~DeviceBuffer();

  void copyFromHost(const void *src, size_t bytes, size_t offset = 0);
  void copyToHost(void *dst, size_t bytes, size_t offset = 0) const;
  void copyFrom(const DeviceBuffer &src, size_t bytes);
  /// Sets every byte to `value`.
  void fill(uint8_t value);
  /// Sets every 32-bit word to `value`, queued on `stream` (null: the
  /// default stream); returns before the GPU has done it.
  void fillAsync(uint32_t value, const Stream *stream = nullptr);

  api::CUdeviceptr devicePtr() const { return Ptr; }
  size_t size() const { return Bytes; }

private:
  void checkRange(const char *what, size_t bytes, size_t offset) const;
  void release();

  Driver *Drv = nullptr;
  api::CUdeviceptr Ptr = 0;
  size_t Bytes = 0;
};

/// What triton.testing.do_bench does before each timed run: overwrite a
/// 256 MiB buffer, so that every timed launch starts with a cold L2 (the
/// H200's is 50 MiB) and the GPU is busy while the host prepares the launch
/// (its host-side cost is then not timed). enqueue() queues the overwrite
/// on `stream`; record the start event after it. Where the device has no
/// 256 MiB to spare, timings go on without the flush.
class L2Flush {
public:
  static constexpr size_t Bytes = size_t(256) << 20;
  explicit L2Flush(Driver &driver) {
    try {
      Buffer = DeviceBuffer(driver, Bytes);
    } catch (const std::exception &) {   // out of memory: no flush
    }
  }
  void enqueue(const Stream *stream = nullptr) { Buffer.fillAsync(0, stream); }

private:
  DeviceBuffer Buffer;
};

/// Copies `bytes` of device memory that no DeviceBuffer owns (a module's
/// global, from Module::global) into host memory. Synchronous, like
/// DeviceBuffer::copyToHost: an earlier kernel's fault surfaces here.
void copyToHost(Driver &driver, void *dst, api::CUdeviceptr src, size_t bytes);

/// A stream. Move-only. Non-blocking by default (no implicit ordering
/// with the legacy default stream); blocking streams are ordered with it,
/// so synchronous copies wait for their work.
class Stream {
public:
  explicit Stream(Driver &driver, bool blocking = false);
  /// A stream someone else created (and destroys): never destroyed here.
  static Stream adopt(Driver &driver, api::CUstream handle);
  Stream(Stream &&other) noexcept;
  Stream &operator=(Stream &&) = delete;
  ~Stream();
  /// Waits for the stream; kernel faults are reported like Driver::synchronize.
  void synchronize() const;
  api::CUstream handle() const { return Handle; }

private:
  Stream(Driver &driver, api::CUstream handle) : Drv(&driver), Handle(handle), Owned(false) {}
  Driver *Drv;
  api::CUstream Handle = nullptr;
  bool Owned = true;
};

/// A timing event. Move-only.
class Event {
public:
  explicit Event(Driver &driver);
  Event(Event &&other) noexcept;
  Event &operator=(Event &&) = delete;
  ~Event();
  void record(const Stream *stream = nullptr);
  void synchronize() const;
  /// Milliseconds from `start` to this event (both recorded and complete).
  float elapsedMsSince(const Event &start) const;
  api::CUevent handle() const { return Handle; }

private:
  Driver *Drv;
  api::CUevent Handle = nullptr;
};

} // namespace tile::cuda
