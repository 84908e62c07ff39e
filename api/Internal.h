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
#include <unordered_map>
#include <vector>
#include <memory>
#include <mutex>
#include <string>

namespace tile::detail {

Scalar toScalar(DType d);

struct ContextImpl : std::enable_shared_from_this<ContextImpl> {
  ContextOptions options;
  DeviceKind kind = DeviceKind::Interpreter;
  cuda::Driver *driver = nullptr;                ///< GPU contexts
  const backend::CodeGenerator *compiler = nullptr;    ///< GPU contexts
  driver::PipelineOptions pipeline;
  interp::Options interp;

  explicit ContextImpl(ContextOptions opts);
  std::shared_ptr<TensorImpl> allocate(const Shape &shape, DType dtype);
  /// Auto chose the interpreter: says why (onWarning, else stderr once a process).
  void noteFallback(const std::string &why) const;
};

/// What a Tensor handle points at: a strided view (shape, non-negative
/// strides, offset) of storage shared with every view of it (api/Tensor.cpp).
/// The storage is a registered host allocation (interpreter), a device
/// buffer (GPU), or memory tile does not own (Context::fromAddress).
struct TensorImpl {
  /// The impl of a defined tensor (an Error for an undefined one).
  static const TensorImpl &of(const Tensor &t) { return t.impl(); }
  std::shared_ptr<ContextImpl> ctx;
  DType dtype = DType::F32;
  Shape shape;
  Shape strides;          ///< in elements, never negative
  int64_t offset = 0;     ///< elements from the storage's start to the first element
  uint64_t base = 0;      ///< the storage's start: a host pointer or a CUdeviceptr
  uint32_t elemBytes = 4; ///< dtypeSize(dtype), cached for address()
  /// Keeps the storage alive while any view lives: a host::Storage
  /// (interpreter), a cuda::DeviceBuffer (GPU), the MemoryMap registration
  /// of a fromAddress range (interpreter; null when the range lies in
  /// memory registered otherwise) or null (fromAddress on the GPU).
  std::shared_ptr<const void> storage;

  /// The address of the view's first element, as kernels see it (called on
  /// every launch: no allocation, no lock).
  uint64_t address() const { return base + uint64_t(offset) * elemBytes; }
  int64_t numel() const;
  size_t bytes() const { return size_t(numel()) * elemBytes; }
  bool onGpu() const { return ctx->kind == DeviceKind::Gpu; }
};

/// A kernel compiled for the GPU, loaded as a module.
struct GpuKernel {
  cuda::Module module;
  cuda::Function function;
  int sharedBytes = 0; ///< dynamic shared memory each launch passes
  std::string ptx;
};

struct AotModule; ///< api/Aot.cpp: kernels of Context::loadCompiled

// A kernel's launch plans (api/Context.cpp explains them).
/// Where a runtime parameter's value comes from.
struct ArgSource {
  enum Kind : uint8_t { Positional, Keyword, Default } kind = Default;
  uint32_t index = 0;
};

struct LaunchPlan {
  std::vector<ScalarArg> args;      ///< the bound runtime arguments (types; defaults' values)
  std::vector<ArgSource> sources;   ///< one per args entry
  std::string signature;            ///< sema::Specialization::key()
  GpuKernel *gpu = nullptr; ///< GPU contexts; owned by the program
  std::shared_ptr<const ir::Function> interp; ///< interpreter contexts
};

struct TuneState; ///< api/Autotune.h

struct KernelState {
  const ast::FunctionDef *kernel = nullptr; ///< null for precompiled kernels
  std::vector<std::string> paramNames;
  std::vector<bool> paramConstexpr;
  std::mutex mu;
  std::unordered_map<std::string, std::unique_ptr<LaunchPlan>> plans; ///< never erased
  /// @triton.autotune / @triton.heuristics: launches go through
  /// api/Autotune.cpp, which adds the tuned constexprs; null for the rest.
  std::unique_ptr<TuneState> tuning;
  ~KernelState();
};


struct ProgramImpl {
  std::shared_ptr<ContextImpl> ctx;
  std::shared_ptr<const sema::Program> program; ///< null for loadCompiled
  std::shared_ptr<AotModule> aot;               ///< loadCompiled only
  std::mutex stateMu;
  std::map<std::string, std::unique_ptr<KernelState>> states; ///< by kernel name
  /// Per program, so entries die with it (KernelCache keys on the program's
  /// address, which a later program may reuse).
  driver::KernelCache interpCache;
  std::mutex gpuMu;
  std::map<std::string, std::unique_ptr<GpuKernel>> gpuKernels; ///< by spec, warps, stages
};

/// The grid of a launch: fixed, or computed from META (GridFunction).
struct LaunchGrid {
  Grid grid{1};
  const GridFunction *fn = nullptr;
};

// ------------------------------------------- untuned launches (Context.cpp)
/// Kernel::launch / compile without autotune and heuristics (the launch
/// plans); Autotune.cpp calls these with the tuned constexprs added.
void launchPlain(ProgramImpl &p, KernelState &st, const LaunchGrid &grid, const std::vector<Arg> &args,
                 const NamedArgs &constexprs, const LaunchOptions &options);
CompiledInfo compilePlain(ProgramImpl &p, KernelState &st, const std::vector<Arg> &args, const NamedArgs &constexprs,
                          const LaunchOptions &options);
/// META of a launch: the arguments by parameter name (positional, then
/// named), num_warps and num_stages.
NamedArgs metaOf(const KernelState &st, const std::vector<Arg> &args, const NamedArgs &constexprs,
                 const LaunchOptions &options);

// ------------------------------------------------ precompiled kernels (Aot.cpp)
/// Loads `tilec compile --emit ptx|cubin -o` output; ctx must be a GPU context.
std::shared_ptr<AotModule> loadAotModule(ContextImpl &ctx, const std::string &path);
/// Sorted kernel names of the module.
std::vector<std::string> aotKernelNames(const AotModule &m);
bool aotHasKernel(const AotModule &m, const std::string &name);
/// Checks the runtime arguments against the compiled signature, packs
/// them and launches (waits unless options.async).
void launchAot(const AotModule &m, const std::string &name, Grid grid, const std::vector<Arg> &args,
               const NamedArgs &constexprs, const LaunchOptions &options);
CompiledInfo aotInfo(const AotModule &m, const std::string &name);

/// The driver stream of a launch's LaunchOptions::stream (null: the
/// default stream); with ctx, a stream of another context is an Error.
const cuda::Stream *cudaStream(const Stream &s, const ContextImpl *ctx = nullptr);

/// Runs f, turning CompileError, cuda::Error and host::HostError into
/// tile::Error with the text the CLI prints.
template <typename F> decltype(auto) translateErrors(F &&f);

[[noreturn]] void rethrowAsError();
/// A CompileError as a located tile::Error of the given kind.
Error located(const CompileError &e, Error::Kind kind);

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
