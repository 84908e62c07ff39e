// Internal.h - what the public handles of tile/tile.h point at: the
// context (device, options, GPU compiler), a loaded program with its
// compiled-kernel caches, and a tensor's storage (a host tensor on the
// interpreter, a device buffer on the GPU). Also the one place that turns
// internal exceptions into tile::Error.
#pragma once

#include "GpuCompiler.h"

#include "cuda/Cuda.h"
#include "driver/Pipeline.h"
#include "host/Tensor.h"
#include "interp/Interpreter.h"

#include <tile/tile.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace tile::detail {

Scalar toScalar(DType d);

struct ContextImpl : std::enable_shared_from_this<ContextImpl> {
  ContextOptions options;
  DeviceKind kind = DeviceKind::Interpreter;
  cuda::Driver *driver = nullptr;     ///< GPU contexts
  api::GpuCompileFn compile = nullptr; ///< GPU contexts
  driver::PipelineOptions pipeline;
  interp::Options interp;

  explicit ContextImpl(ContextOptions opts);
  std::shared_ptr<TensorImpl> allocate(const Shape &shape, DType dtype);
};

struct TensorImpl {
  std::shared_ptr<ContextImpl> ctx;
  DType dtype = DType::F32;
  Shape shape, strides;
  host::Tensor hostTensor;          ///< interpreter: registered host memory
  std::shared_ptr<cuda::DeviceBuffer> device; ///< GPU
  int64_t numel() const;
  size_t bytes() const { return size_t(numel()) * dtypeSize(dtype); }
  uint64_t address() const;
};

/// A kernel compiled for the GPU, loaded as a module.
struct GpuKernel {
  cuda::Module module;
  cuda::Function function;
  int sharedBytes = 0;
};

struct ProgramImpl {
  std::shared_ptr<ContextImpl> ctx;
  std::shared_ptr<const sema::Program> program;
  /// Per program, so entries die with it (KernelCache keys on the program's
  /// address, which a later program may reuse).
  driver::KernelCache interpCache;
  std::mutex gpuMu;
  std::map<std::string, std::unique_ptr<GpuKernel>> gpuKernels; ///< by spec, warps, stages
};

/// Runs f, turning CompileError, cuda::Error and host::HostError into
/// tile::Error with the text the CLI prints.
template <typename F> decltype(auto) translateErrors(F &&f);

[[noreturn]] void rethrowAsError();

template <typename F> decltype(auto) translateErrors(F &&f) {
  try {
    return f();
  } catch (const Error &) {
    throw;
  } catch (...) {
    rethrowAsError();
  }
}

} // namespace tile::detail
