// tile/tile.h - the public C++ API for embedding the tile JIT in a host
// program: pick a device, load `.tile` source, look kernels up by name,
// allocate tensors, launch. No Python anywhere.
//
//   tile::Context ctx;                                   // GPU if usable, else the interpreter
//   tile::Program prog = ctx.loadFile("lesson2_matmul.tile");
//   tile::Kernel mm = prog.kernel("matmul_kernel");
//   tile::Tensor a = ctx.fromHost({M, K}, tile::DType::F32, hostA.data());
//   ...
//   mm.launch({tile::cdiv(M, 16), tile::cdiv(N, 16)},
//             {a, b, c, M, N, K, a.stride(0), a.stride(1), ...},
//             {{"N_ITERS", tile::cdiv(K, 16)}, {"BLOCK_M", 16}, {"BLOCK_N", 16}, {"BLOCK_K", 16}});
//   c.copyToHost(hostC.data(), hostC.size() * sizeof(float));
//
// Every failure is a tile::Error whose what() is the text tilec prints:
// `file:line:col: error: message`, the source line and a caret for errors
// in kernel source or launch arguments; the driver's message for GPU
// failures. A Context stays usable after an error.
//
// Thread safety: a Context, its Programs and Kernels may be used from
// several threads at once (compilation caches are locked); one Tensor must
// not be written by two launches at the same time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#if __cplusplus >= 202002L
#include <span>
#endif
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace tile {

/// A compile error, a bad launch, a failing driver call or a bad tensor
/// operation. what() is the complete, printable text (newline-terminated for
/// located errors, as the CLI prints it); the fields say the same in parts.
/// (A broken invariant of tile itself is not an Error: it aborts with
/// "internal compiler error" and the place in tile's source.)
class Error : public std::runtime_error {
public:
  enum class Kind {
    User,    ///< the source, its arguments or the call (compile errors, bad arguments, bad tensor operations)
    Launch,  ///< a kernel's run: an out-of-bounds store, a failed device_assert, a division by zero or a
             ///< timeout on the interpreter; a fault on the GPU (illegal address, device assert, ...)
    Driver,  ///< any other failing CUDA driver call (no GPU, out of memory, a bad module, ...)
  };
  /// An error without a source location: message() is text less a leading
  /// "error: " and the trailing newline.
  explicit Error(const std::string &text, Kind kind = Kind::User);
  /// A located one (line and column 1-based).
  Error(Kind kind, const std::string &text, std::string message, std::string file, int line, int column);
  Kind kind() const { return kind_; }
  /// The message alone: no location, "error: ", source line or caret.
  const std::string &message() const { return message_; }
  /// The source file (its display path: a loadString name, or a path) of a
  /// located error, else "".
  const std::string &file() const { return file_; }
  int line() const { return line_; }     ///< 0 when not located
  int column() const { return column_; } ///< 0 when not located

private:
  Kind kind_ = Kind::User;
  std::string message_, file_;
  int line_ = 0, column_ = 0;
};
/// "user", "launch", "driver".
const char *errorKindName(Error::Kind kind);

/// Element types of tensors (the kernel language's tl.float32, ...).
/// F8E4M3 and F8E5M2 are tl.float8e4nv and tl.float8e5 (torch's
/// float8_e4m3fn and float8_e5m2): one byte each, copied in and out as
/// raw bytes.
enum class DType { I1, I8, I16, I32, I64, U8, U16, U32, U64, F16, BF16, F32, F64, F8E4M3, F8E5M2 };
/// Bytes per element (I1 is stored as a byte).
size_t dtypeSize(DType dtype);

namespace detail {
template <typename> inline constexpr bool alwaysFalse = false;
} // namespace detail

/// The DType of a C++ element type, for the fromHost overloads that deduce
/// it: float F32, double F64, int8_t .. int64_t I8 .. I64, uint8_t U8,
/// uint32_t U32, uint64_t U64, bool I1. uint16_t has none (F16, BF16 and U16
/// all store it): pass the DType.
template <typename T> constexpr DType dtypeOf() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, float>) return DType::F32;
  else if constexpr (std::is_same_v<U, double>) return DType::F64;
  else if constexpr (std::is_same_v<U, bool>) return DType::I1;
  else if constexpr (std::is_same_v<U, uint16_t>)
    static_assert(detail::alwaysFalse<T>, "uint16_t holds F16, BF16 or U16: pass the tile::DType explicitly");
  else if constexpr (std::is_integral_v<U> && std::is_signed_v<U>)
    return sizeof(U) == 1 ? DType::I8 : sizeof(U) == 2 ? DType::I16 : sizeof(U) == 4 ? DType::I32 : DType::I64;
  else if constexpr (std::is_integral_v<U>)
    return sizeof(U) == 1 ? DType::U8 : sizeof(U) == 4 ? DType::U32 : DType::U64;
  else
    static_assert(detail::alwaysFalse<T>, "no tile::DType for this C++ type: pass the DType explicitly");
}

/// ceil(a / b) for positive integers (Triton's `triton.cdiv`): grid extents
/// and constexpr values, `tile::cdiv(n, 1024)`.
template <typename A, typename B> constexpr std::common_type_t<A, B> cdiv(A a, B b) {
  static_assert(std::is_integral_v<A> && std::is_integral_v<B>, "tile::cdiv takes integers");
  return (a + b - 1) / b;
}
/// "float32", "int64", ... (NumPy's names, as tilec prints them).
const char *dtypeName(DType dtype);

enum class DeviceKind {
  Auto,        ///< the GPU when a driver, a device and a GPU compiler are present, else the interpreter
  Interpreter, ///< the CPU interpreter: host memory, every access bounds-checked
  Gpu,         ///< the GPU through the CUDA driver; an Error when it cannot be used
};

struct ContextOptions {
  DeviceKind device = DeviceKind::Auto;
  /// Interpreter: an out-of-bounds unmasked load is an error, not a warning.
  bool strict = false;
  /// Interpreter: report int32 overflow in pointer offsets (a warning once
  /// an op, an error when strict), as tilec does by default.
  bool checkOffsetOverflow = true;
  /// Write every stage of this context's programs and kernels (tokens,
  /// AST, IR after each pass, LLVM IR, PTX) into this directory as numbered
  /// files, as tilec --dump-dir; empty: TILE_DUMP_DIR's, if set.
  std::string dumpDir;
  /// The kernel cache's directory for this context's GPU compiles; empty:
  /// the process's (TILE_CACHE_DIR, else $XDG_CACHE_HOME/tile or
  /// ~/.cache/tile; TILE_CACHE=0 turns that one off).
  std::string cacheDir;
  /// Run the optimization passes (off: sema's IR as is).
  bool optimize = true;
  /// GPU target ("sm_90a"); empty: the device's own.
  std::string arch;
  /// Receives interpreter warnings (an out-of-bounds masked-off load, ...),
  /// each formatted as the CLI prints it; empty: they go to stderr. May be
  /// called from several threads at once.
  std::function<void(const std::string &)> onWarning;
  /// Interpreter: a launch that runs longer than this many seconds stops
  /// with a tile::Error ("timed out after N s: kernel 'k' (program x, y,
  /// z)", located at the loop or the kernel); 0: no limit. Polled between
  /// programs and at loop back-edges. GPU launches are not bounded.
  double timeoutSeconds = 0;
};

namespace detail {
struct ContextImpl;
struct ProgramImpl;
struct TensorImpl;
struct StreamImpl;
struct KernelState;
struct Bridge;
} // namespace detail

/// Sizes and element strides, outermost first.
using Shape = std::vector<int64_t>;

/// A tensor in the context's memory: host memory on the interpreter, device
/// memory on the GPU. Contiguous (C order) when allocated; views (slice,
/// select, transpose, permute, reshape) and copies of the handle share its
/// storage. Cheap to copy.
class Tensor {
public:
  Tensor() = default;
  bool defined() const { return impl_ != nullptr; }
  DType dtype() const;
  const Shape &shape() const;
  const Shape &strides() const; ///< in elements
  int64_t dim(int axis) const;    ///< negative axes count from the end
  int64_t stride(int axis) const; ///< negative axes count from the end
  int64_t numel() const;
  size_t bytes() const;           ///< numel() * dtypeSize(dtype())
  /// The address a kernel sees, of the first element (the view's, past
  /// offset()): a host pointer (interpreter) or a CUdeviceptr.
  uint64_t address() const;
  /// Elements from the start of the storage to the first element of the view.
  int64_t offset() const;
  /// Strides are C order over the shape (sizes-1 axes ignored; a tensor
  /// with no elements is contiguous).
  bool isContiguous() const;

  // Views: new handles on the same storage; writes through one show in
  // the other. Out-of-range axes or bounds are Errors.
  /// Elements start, start+step, ... below stop along axis (Python's
  /// x[start:stop:step], negative start/stop count from the end, clamped).
  /// step >= 1: negative strides are not supported.
  Tensor slice(int axis, int64_t start, int64_t stop, int64_t step = 1) const;
  /// Index `index` along axis, which disappears (x[..., index, ...]);
  /// a negative index counts from the end.
  Tensor select(int axis, int64_t index) const;
  Tensor transpose(int axis0, int axis1) const;
  /// dims[i] is the source axis of new axis i (a permutation).
  Tensor permute(const std::vector<int> &dims) const;
  /// The same elements in another shape (one extent may be -1); contiguous
  /// tensors only, else an Error (copy it first).
  Tensor reshape(const Shape &shape) const;

  /// Copies `bytes` (== bytes()) from host memory into the tensor, in C
  /// order of its shape (views are scattered through their strides). On the
  /// GPU a non-contiguous view is written as a read-modify-write of the
  /// bytes from its first element to its last: not atomic with respect to
  /// kernels writing between its elements at the same time.
  void copyFromHost(const void *src, size_t bytes);
  /// Copies the tensor into host memory (`bytes` == bytes()), C order of
  /// its shape (views are gathered).
  void copyToHost(void *dst, size_t bytes) const;
  /// Whole-tensor copies into / out of a std::vector of the matching C type.
  template <typename T> void copyFromHost(const std::vector<T> &src) { copyFromHost(src.data(), src.size() * sizeof(T)); }
  template <typename T> std::vector<T> toHost() const {
    std::vector<T> out(bytes() / sizeof(T));
    copyToHost(out.data(), out.size() * sizeof(T));
    return out;
  }
#if __cplusplus >= 202002L
  /// The same through spans (C++20): the span's bytes must be bytes().
  template <typename T, size_t E> void copyFromHost(std::span<T, E> src) { copyFromHost(src.data(), src.size_bytes()); }
  template <typename T, size_t E> void copyToHost(std::span<T, E> dst) const {
    static_assert(!std::is_const_v<T>, "copyToHost writes into the span");
    copyToHost(static_cast<void *>(dst.data()), dst.size_bytes());
  }
#endif

private:
  friend class Context;
  friend class Kernel;
  friend struct detail::TensorImpl;
  explicit Tensor(std::shared_ptr<detail::TensorImpl> impl) : impl_(std::move(impl)) {}
  const detail::TensorImpl &impl() const;
  std::shared_ptr<detail::TensorImpl> impl_;
};

/// A launch argument: a tensor (passed as a pointer to its first element),
/// an integer (i32, or i64 when out of range, as Python ints), a float (f32)
/// or a bool. Constexprs may also be strings, dtypes or None (nullptr).
class Arg {
public:
  Arg(const Tensor &t) : v_(t) {}
  Arg(int v) : v_(int64_t(v)) {}
  Arg(long v) : v_(int64_t(v)) {}
  Arg(long long v) : v_(int64_t(v)) {}
  Arg(unsigned v) : v_(int64_t(v)) {}
  Arg(double v) : v_(v) {}
  Arg(float v) : v_(double(v)) {}
  Arg(bool v) : v_(v) {}
  Arg(const char *s) : v_(std::string(s)) {}
  Arg(std::string s) : v_(std::move(s)) {}
  Arg(DType d) : v_(d) {}
  Arg(std::nullptr_t) : v_(nullptr) {} ///< Python's None
  using Value = std::variant<Tensor, int64_t, double, bool, std::string, DType, std::nullptr_t>;
  const Value &value() const { return v_; }

private:
  Value v_;
};

/// A 1-, 2- or 3-D grid of programs.
struct Grid {
  Grid(int64_t x) : x(x) {}
  Grid(int64_t x, int64_t y) : x(x), y(y) {}
  Grid(int64_t x, int64_t y, int64_t z) : x(x), y(y), z(z) {}
  int64_t x = 1, y = 1, z = 1;
};

/// An ordered queue of launches on the GPU (cuStreamCreate); default-
/// constructed: the context's default stream. Launches on one stream run
/// in order; launches on different streams may overlap. Streams are
/// blocking: tensor copies (on the default stream) wait for earlier work
/// on every stream. On the interpreter every launch runs at once. Cheap
/// to copy; destroyed with its last copy.
class Stream {
public:
  Stream() = default;
  bool isDefault() const { return impl_ == nullptr; }
  /// Waits for the stream's launches; a kernel fault is an Error naming it.
  /// (The default stream: Context::synchronize().)
  void synchronize() const;
  /// The driver's CUstream, to order the host's own CUDA work with tile's
  /// launches; 0 for the default stream and on the interpreter.
  uint64_t nativeHandle() const;

private:
  friend class Context;
  friend struct detail::StreamImpl;
  explicit Stream(std::shared_ptr<detail::StreamImpl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<detail::StreamImpl> impl_;
};

struct LaunchOptions {
  int numWarps = 4;
  int numStages = 3;
  /// Triton's enable_fp_fusion (GPU): 1 contracts a*b+c into fma, 0 rounds
  /// every multiply and add on its own, -1 the default: on, unless the
  /// environment has TILE_DEFAULT_FP_FUSION=0.
  int fpFusion = -1;
  /// Where the launch is queued (GPU); the default stream by default.
  Stream stream;
  /// Return once the launch is queued (GPU; the interpreter runs it at
  /// once). Launches run in order; Context::synchronize() waits for them
  /// and reports a kernel fault. The tensors passed must live until then;
  /// Tensor::copyToHost/toHost wait for earlier launches by themselves.
  bool async = false;
};

/// Constexpr (and keyword) arguments by name: {{"BLOCK", 64}, ...}.
using NamedArgs = std::vector<std::pair<std::string, Arg>>;

/// Triton's META, what a grid function sees: every argument of the launch
/// by parameter name, the values an @triton.autotune config and
/// @triton.heuristics chose, and num_warps / num_stages.
class Meta {
public:
  explicit Meta(NamedArgs values) : values_(std::move(values)) {}
  /// The value named `name`, or null.
  const Arg *find(const std::string &name) const;
  /// The integer named `name` (a bool counts as 0 or 1); an Error when it
  /// is absent or not an integer.
  int64_t operator[](const std::string &name) const;
  const NamedArgs &values() const { return values_; }

private:
  NamedArgs values_;
};

/// A grid computed from META: `[&](const tile::Meta &m) { return tile::Grid(tile::cdiv(n, m["BLOCK"])); }`
/// (Triton's `lambda META: (triton.cdiv(n, META['BLOCK']),)`).
using GridFunction = std::function<Grid(const Meta &)>;

/// What one specialization of a kernel compiled to (Kernel::compile).
struct CompiledInfo {
  /// The specialization: "*f32:16,*f32:16,i32,BLOCK=64" (":16": divisible
  /// by 16, ":1": equal to 1).
  std::string signature;
  int numWarps = 4;
  int numStages = 3;
  /// GPU only (0 on the interpreter): registers per thread, bytes spilled
  /// to local memory per thread, shared memory per program (static and
  /// dynamic), and the PTX.
  int registers = 0;
  int spillBytes = 0;
  int sharedBytes = 0;
  std::string ptx;
  /// GPU only: the CUfunction handle, for programs that also drive the
  /// CUDA driver themselves (valid while the Program lives; 0 otherwise),
  /// and the dynamic shared memory a launch of it must pass.
  uint64_t cuFunction = 0;
  int dynamicSharedBytes = 0;
  /// Kernels with @triton.autotune: the config this specialization runs
  /// ("BLOCK=64, num_warps=4, num_stages=3"); empty otherwise.
  std::string config;
};

/// One @triton.jit kernel of a Program. Cheap to copy; keeps its program alive.
class Kernel {
public:
  const std::string &name() const { return name_; }
  /// Specializes the kernel on the arguments (compiled once per
  /// specialization, then cached), runs it over the grid and waits for it
  /// (unless options.async). A repeated launch with arguments of the same
  /// specialization takes a fast path: no binding, no compiling.
  ///
  /// Kernels of Context::loadCompiled take the runtime arguments only (the
  /// constexprs and num_warps were fixed by tilec compile): each is
  /// checked against the compiled signature, divisibility included.
  ///
  /// Kernels with @triton.autotune / @triton.heuristics (docs/language.md,
  /// "Launch options, autotune, heuristics") are tuned here too: the
  /// heuristics' values are computed at every launch and passed as their
  /// constexprs; the first launch for a tuning key (the values of the
  /// `key` arguments and the dtypes of the tensor arguments) runs every
  /// config and keeps the fastest, in memory and, on the GPU, in the disk
  /// cache. The config's num_warps / num_stages replace options'. Passing
  /// a tuned constexpr explicitly is an Error.
  void launch(Grid grid, const std::vector<Arg> &args, const NamedArgs &constexprs = {},
              const LaunchOptions &options = {}) const;
  /// The same with a grid computed from META: any callable taking a
  /// `const Meta &` and returning a Grid (a GridFunction). For tuned
  /// kernels META holds the chosen config: the grid is computed once per
  /// config while tuning.
  template <typename F, typename = std::enable_if_t<std::is_invocable_r_v<Grid, F &, const Meta &>>>
  void launch(F &&grid, const std::vector<Arg> &args, const NamedArgs &constexprs = {},
              const LaunchOptions &options = {}) const {
    launchGridFunction(GridFunction(std::forward<F>(grid)), args, constexprs, options);
  }
  /// Compiles (or finds in the caches) the specialization a launch with
  /// these arguments would run, without running it (Triton's warmup). For
  /// an autotuned kernel: every config is compiled; the info is the tuned
  /// config's when this key was tuned already, else the first config's.
  CompiledInfo compile(const std::vector<Arg> &args, const NamedArgs &constexprs = {},
                       const LaunchOptions &options = {}) const;
  /// Compiles, ahead of time and without a GPU, the specialization that a
  /// Triton AOT signature names (`tilec compile -s`: "*fp32:16,*fp32:16,i32"
  /// with `:16` divisible by 16, `:8` by 8, `:1` equal to 1) for the GPU
  /// architecture `arch` ("sm_90a", "sm_80", ...): the info's signature,
  /// warps, stages, dynamic shared memory and PTX (registers, spills and
  /// the function handle stay 0: nothing is loaded). Constexprs by name.
  /// Needs the GPU compiler (tile::llvm, enableGpuCompiler()): an Error
  /// saying so otherwise, as for a kernel of Context::loadCompiled.
  CompiledInfo compileFor(const std::string &arch, const std::string &signature, const NamedArgs &constexprs = {},
                          const LaunchOptions &options = {}) const;

private:
  friend class Program;
  void launchGridFunction(const GridFunction &grid, const std::vector<Arg> &args, const NamedArgs &constexprs,
                          const LaunchOptions &options) const;
  Kernel(std::shared_ptr<detail::ProgramImpl> prog, std::string name, detail::KernelState *state)
      : prog_(std::move(prog)), name_(std::move(name)), state_(state) {}
  std::shared_ptr<detail::ProgramImpl> prog_;
  std::string name_;
  detail::KernelState *state_ = nullptr; ///< owned by prog_
};

/// A parsed `.tile` file. Cheap to copy.
class Program {
public:
  /// The @jit kernel named `name`; an Error listing the kernels if absent.
  Kernel kernel(const std::string &name) const;
  /// The names of the program's @jit functions, sorted.
  std::vector<std::string> kernelNames() const;

private:
  friend class Context;
  friend struct detail::Bridge;
  explicit Program(std::shared_ptr<detail::ProgramImpl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<detail::ProgramImpl> impl_;
};

/// A device and everything compiled for it. Cheap to copy (copies share it).
class Context {
public:
  /// The device of options.device (Auto by default; TILE_NO_GPU=1 makes Auto
  /// choose the interpreter).
  explicit Context(ContextOptions options = {});
  DeviceKind device() const; ///< Interpreter or Gpu, never Auto
  /// "interpreter" or "gpu (NVIDIA H200, sm_90a)".
  std::string describe() const;
  /// Waits for every launch queued with LaunchOptions::async (a no-op on
  /// the interpreter); a kernel fault is an Error naming the kernel.
  void synchronize() const;

  /// Parses a `.tile` file; syntax errors are Errors located in it.
  Program loadFile(const std::string &path) const;
  /// Parses source text; `name` is the file name diagnostics show.
  Program loadString(const std::string &source, const std::string &name = "<string>") const;
  /// The same with module constants replaced, as `tilec -D NAME=VALUE`
  /// does: `ctx.loadFile(path, {{"BLOCK", 256}})` makes every kernel of the
  /// program read BLOCK as 256. Ints, floats, bools, strings, dtypes and
  /// nullptr; a name the program does not define at module level is an
  /// Error (with a suggestion for a near miss).
  Program loadFile(const std::string &path, const NamedArgs &globals) const;
  Program loadString(const std::string &source, const std::string &name, const NamedArgs &globals) const;
  /// Loads kernels compiled ahead of time (`tilec compile --emit ptx|cubin
  /// -o FILE`) through the CUDA driver alone: no parsing, no compiler, no
  /// LLVM. GPU contexts only (an Error on the interpreter).
  Program loadCompiled(const std::string &path) const;

  /// A new stream for asynchronous launches (LaunchOptions::stream).
  Stream createStream() const;
  /// A stream the host created (a CUstream, as `cuStreamCreate` or
  /// `torch.cuda.current_stream().cuda_stream` gives it): launches on it
  /// queue behind the host's own work there. tile never destroys it: keep
  /// it alive while the Stream is used. 0 is the default stream. The
  /// handle must belong to the context tile uses, device 0's primary
  /// context (the CUDA runtime's and torch's). GPU contexts only.
  Stream adoptStream(uint64_t handle) const;

  /// A new zero-filled contiguous tensor.
  Tensor zeros(const Shape &shape, DType dtype) const;
  /// A new contiguous tensor holding a copy of host memory (C order,
  /// numel * dtypeSize bytes).
  Tensor fromHost(const Shape &shape, DType dtype, const void *data) const;
  template <typename T> Tensor fromHost(const Shape &shape, DType dtype, const std::vector<T> &data) const {
    checkHostSize(shape, dtype, data.size() * sizeof(T));
    return fromHost(shape, dtype, static_cast<const void *>(data.data()));
  }
  /// The dtype from the element type (dtypeOf<T>): `ctx.fromHost({n},
  /// hostX)` for a std::vector<float> makes an F32 tensor.
  template <typename T> Tensor fromHost(const Shape &shape, const std::vector<T> &data) const {
    return fromHost(shape, dtypeOf<T>(), data);
  }
#if __cplusplus >= 202002L
  /// From a span (C++20), its bytes checked against the shape's.
  template <typename T, size_t E> Tensor fromHost(const Shape &shape, DType dtype, std::span<T, E> data) const {
    checkHostSize(shape, dtype, data.size_bytes());
    return fromHost(shape, dtype, static_cast<const void *>(data.data()));
  }
  template <typename T, size_t E> Tensor fromHost(const Shape &shape, std::span<T, E> data) const {
    return fromHost(shape, dtypeOf<T>(), data);
  }
#endif
  /// A tensor over memory tile does not own, at `address` (of its first
  /// element): a CUdeviceptr on the GPU (from cuMemAlloc, PyTorch, ...), a
  /// host pointer on the interpreter. strides: in elements, non-negative,
  /// empty for C order. The memory must outlive every use of the tensor.
  /// On the interpreter the range is registered for bounds checks (unless
  /// it lies inside another tensor's memory) until the tensor's last handle
  /// or view dies: free the memory only after that. A range overlapping
  /// registered memory without lying inside it is an Error (wrap the whole
  /// allocation once and take views).
  Tensor fromAddress(uint64_t address, const Shape &shape, DType dtype, const Shape &strides = {}) const;

private:
  friend struct detail::Bridge;
  void checkHostSize(const Shape &shape, DType dtype, size_t bytes) const;
  std::shared_ptr<detail::ContextImpl> impl_;
};

/// Installs the GPU compiler (LLVM NVPTX back end) for every Context created
/// afterwards. Declared here, defined in the `tile::llvm` library (the only
/// part that links LLVM); without it, DeviceKind::Gpu is an Error and Auto
/// chooses the interpreter.
void enableGpuCompiler();

} // namespace tile
