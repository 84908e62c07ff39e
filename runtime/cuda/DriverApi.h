// DriverApi.h - the slice of the CUDA driver API that tile uses, declared by
// hand so the build has no CUDA dependency, plus the table of entry points
// resolved from libcuda.so.1 at run time.
//
// Types and enum values are those of the driver API's cuda.h (checked against
// the CUDA 13.0 toolkit): CUresult, the CUjit_option, CUfunction_attribute and
// CUdevice_attribute values below keep their documented numbers, which the
// driver ABI guarantees stable. Entry points use the versioned `_v2` symbols
// where cuda.h #defines the plain name to them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace tile::cuda::api {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
using CUjit_option = int;
using CUfunction_attribute = int;
using CUdevice_attribute = int;

// CUresult values (cuda.h, enum cudaError_enum).
constexpr CUresult CudaSuccess = 0;
constexpr CUresult CudaErrorInvalidValue = 1;
constexpr CUresult CudaErrorNoDevice = 100;
constexpr CUresult CudaErrorIllegalAddress = 700;
constexpr CUresult CudaErrorLaunchFailed = 719;

// CUjit_option values (cuda.h, enum CUjit_option_enum).
constexpr CUjit_option JitInfoLogBuffer = 3;
constexpr CUjit_option JitInfoLogBufferSizeBytes = 4;
constexpr CUjit_option JitErrorLogBuffer = 5;
constexpr CUjit_option JitErrorLogBufferSizeBytes = 6;
constexpr CUjit_option JitLogVerbose = 12;

// CUfunction_attribute values (cuda.h, enum CUfunction_attribute_enum).
constexpr CUfunction_attribute FuncMaxThreadsPerBlock = 0;
constexpr CUfunction_attribute FuncSharedSizeBytes = 1;
constexpr CUfunction_attribute FuncLocalSizeBytes = 3;
constexpr CUfunction_attribute FuncNumRegs = 4;
constexpr CUfunction_attribute FuncMaxDynamicSharedSizeBytes = 8;

// CUdevice_attribute values (cuda.h, enum CUdevice_attribute_enum).
constexpr CUdevice_attribute DevMaxThreadsPerBlock = 1;
constexpr CUdevice_attribute DevMaxGridDimX = 5;
constexpr CUdevice_attribute DevMaxGridDimY = 6;
constexpr CUdevice_attribute DevMaxGridDimZ = 7;
constexpr CUdevice_attribute DevMultiprocessorCount = 16;
constexpr CUdevice_attribute DevComputeCapabilityMajor = 75;
constexpr CUdevice_attribute DevComputeCapabilityMinor = 76;
constexpr CUdevice_attribute DevMaxSharedMemoryPerBlockOptin = 97;

// Stream / event flags (cuda.h, CUstream_flags_enum, CUevent_flags_enum).
constexpr unsigned StreamNonBlocking = 0x1;
constexpr unsigned EventDefault = 0x0;

// X(field, symbol, signature): every entry point tile resolves. All are
// required; a driver missing one is reported as unavailable.
#define TILE_CUDA_API_LIST(X)                                                  \
  X(init, "cuInit", CUresult (*)(unsigned))                                    \
  X(driverGetVersion, "cuDriverGetVersion", CUresult (*)(int *))               \
  X(getErrorName, "cuGetErrorName", CUresult (*)(CUresult, const char **))     \
  X(getErrorString, "cuGetErrorString", CUresult (*)(CUresult, const char **)) \
  X(deviceGetCount, "cuDeviceGetCount", CUresult (*)(int *))                   \
  X(deviceGet, "cuDeviceGet", CUresult (*)(CUdevice *, int))                   \
  X(deviceGetName, "cuDeviceGetName", CUresult (*)(char *, int, CUdevice))     \
  X(deviceGetAttribute, "cuDeviceGetAttribute",                                \
    CUresult (*)(int *, CUdevice_attribute, CUdevice))                         \
  X(deviceTotalMem, "cuDeviceTotalMem_v2", CUresult (*)(size_t *, CUdevice))   \
  X(primaryCtxRetain, "cuDevicePrimaryCtxRetain",                              \
    CUresult (*)(CUcontext *, CUdevice))                                       \
  X(primaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", CUresult (*)(CUdevice)) \
  X(ctxSetCurrent, "cuCtxSetCurrent", CUresult (*)(CUcontext))                 \
  X(ctxSynchronize, "cuCtxSynchronize", CUresult (*)())                        \
  X(moduleLoadDataEx, "cuModuleLoadDataEx",                                    \
    CUresult (*)(CUmodule *, const void *, unsigned, CUjit_option *, void **)) \
  X(moduleUnload, "cuModuleUnload", CUresult (*)(CUmodule))                    \
  X(moduleGetFunction, "cuModuleGetFunction",                                  \
    CUresult (*)(CUfunction *, CUmodule, const char *))                        \
  X(moduleGetGlobal, "cuModuleGetGlobal_v2",                                   \
    CUresult (*)(CUdeviceptr *, size_t *, CUmodule, const char *))             \
  X(funcGetAttribute, "cuFuncGetAttribute",                                    \
    CUresult (*)(int *, CUfunction_attribute, CUfunction))                     \
  X(funcSetAttribute, "cuFuncSetAttribute",                                    \
    CUresult (*)(CUfunction, CUfunction_attribute, int))                       \
  X(launchKernel, "cuLaunchKernel",                                            \
    CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, \
                 unsigned, unsigned, CUstream, void **, void **))              \
  X(memAlloc, "cuMemAlloc_v2", CUresult (*)(CUdeviceptr *, size_t))            \
  X(memFree, "cuMemFree_v2", CUresult (*)(CUdeviceptr))                        \
  X(memcpyHtoD, "cuMemcpyHtoD_v2",                                             \
    CUresult (*)(CUdeviceptr, const void *, size_t))                           \
  X(memcpyDtoH, "cuMemcpyDtoH_v2", CUresult (*)(void *, CUdeviceptr, size_t))  \
  X(memcpyDtoD, "cuMemcpyDtoD_v2",                                             \
    CUresult (*)(CUdeviceptr, CUdeviceptr, size_t))                            \
  X(memsetD8, "cuMemsetD8_v2",                                                 \
    CUresult (*)(CUdeviceptr, unsigned char, size_t))                          \
  X(memsetD32Async, "cuMemsetD32Async",                                       \
    CUresult (*)(CUdeviceptr, unsigned, size_t, CUstream))                     \
  X(streamCreate, "cuStreamCreate", CUresult (*)(CUstream *, unsigned))        \
  X(streamDestroy, "cuStreamDestroy_v2", CUresult (*)(CUstream))               \
  X(streamSynchronize, "cuStreamSynchronize", CUresult (*)(CUstream))          \
  X(eventCreate, "cuEventCreate", CUresult (*)(CUevent *, unsigned))           \
  X(eventDestroy, "cuEventDestroy_v2", CUresult (*)(CUevent))                  \
  X(eventRecord, "cuEventRecord", CUresult (*)(CUevent, CUstream))             \
  X(eventSynchronize, "cuEventSynchronize", CUresult (*)(CUevent))             \
  X(eventElapsedTime, "cuEventElapsedTime",                                    \
    CUresult (*)(float *, CUevent, CUevent))

/// The resolved entry points; every field is non-null once loaded.
struct Api {
#define TILE_CUDA_API_FIELD(field, symbol, type)                               \
  std::type_identity_t<type> field = nullptr;
  TILE_CUDA_API_LIST(TILE_CUDA_API_FIELD)
#undef TILE_CUDA_API_FIELD
};

} // namespace tile::cuda::api
