// tile/tile.h - the public C++ API for embedding the tile JIT in a host
// program: pick a device, load `.tile` source, look kernels up by name,
// allocate tensors, launch. No Python anywhere.
//
//   tile::Context ctx;                                   // GPU if usable, else the interpreter
//   tile::Program prog = ctx.loadFile("lesson2_matmul.tile");
//   tile::Kernel mm = prog.kernel("matmul_kernel");
//   tile::Tensor a = ctx.fromHost({M, K}, tile::DType::F32, hostA.data());
//   ...
//   mm.launch({cdiv(M, 16), cdiv(N, 16)},
//             {a, b, c, M, N, K, a.stride(0), a.stride(1), ...},
//             {{"N_ITERS", cdiv(K, 16)}, {"BLOCK_M", 16}, {"BLOCK_N", 16}, {"BLOCK_K", 16}});
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
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace tile {

/// A compile error, a bad launch, a failing driver call or a bad tensor
/// operation. what() is the complete, printable text (newline-terminated for
/// located errors, as the CLI prints it).
class Error : public std::runtime_error {
public:
  explicit Error(const std::string &text) : std::runtime_error(text) {}
};

/// Element types of tensors (the kernel language's tl.float32, ...).
enum class DType { I1, I8, I16, I32, I64, U8, U16, U32, U64, F16, BF16, F32, F64 };
/// Bytes per element (I1 is stored as a byte).
size_t dtypeSize(DType dtype);
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
  /// Run the optimization passes (off: sema's IR as is).
  bool optimize = true;
  /// GPU target ("sm_90a"); empty: the device's own.
  std::string arch;
  /// Receives interpreter warnings (an out-of-bounds masked-off load, ...),
  /// each formatted as the CLI prints it; empty: they go to stderr. May be
  /// called from several threads at once.
  std::function<void(const std::string &)> onWarning;
};

namespace detail {
struct ContextImpl;
struct ProgramImpl;
struct TensorImpl;
} // namespace detail

/// Sizes and element strides, outermost first.
using Shape = std::vector<int64_t>;

/// A tensor in the context's memory: host memory on the interpreter, device
/// memory on the GPU. Contiguous (C order) when allocated; copies with the
/// other tensors share storage. Cheap to copy.
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
  /// The address a kernel sees: a host pointer (interpreter) or a CUdeviceptr.
  uint64_t address() const;
  /// Copies `bytes` (== bytes()) from host memory into the tensor.
  void copyFromHost(const void *src, size_t bytes);
  /// Copies the tensor into host memory (`bytes` == bytes()).
  void copyToHost(void *dst, size_t bytes) const;
  /// Whole-tensor copies into / out of a std::vector of the matching C type.
  template <typename T> void copyFromHost(const std::vector<T> &src) { copyFromHost(src.data(), src.size() * sizeof(T)); }
  template <typename T> std::vector<T> toHost() const {
    std::vector<T> out(bytes() / sizeof(T));
    copyToHost(out.data(), out.size() * sizeof(T));
    return out;
  }

private:
  friend class Context;
  friend class Kernel;
  explicit Tensor(std::shared_ptr<detail::TensorImpl> impl) : impl_(std::move(impl)) {}
  const detail::TensorImpl &impl() const;
  std::shared_ptr<detail::TensorImpl> impl_;
};

/// A launch argument: a tensor (passed as a pointer to its first element),
/// an integer (i32, or i64 when out of range, as Python ints), a float (f32)
/// or a bool. Constexprs may also be strings or dtypes.
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
  using Value = std::variant<Tensor, int64_t, double, bool, std::string, DType>;
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

struct LaunchOptions {
  int numWarps = 4;
  int numStages = 3;
  /// Return once the launch is queued (GPU; the interpreter runs it at
  /// once). Launches run in order; Context::synchronize() waits for them
  /// and reports a kernel fault. The tensors passed must live until then;
  /// Tensor::copyToHost/toHost wait for earlier launches by themselves.
  bool async = false;
};

/// Constexpr (and keyword) arguments by name: {{"BLOCK", 64}, ...}.
using NamedArgs = std::vector<std::pair<std::string, Arg>>;

/// One @triton.jit kernel of a Program. Cheap to copy; keeps its program alive.
class Kernel {
public:
  const std::string &name() const { return name_; }
  /// Specializes the kernel on the arguments (compiled once per
  /// specialization, then cached), runs it over the grid and waits for it
  /// (unless options.async).
  void launch(Grid grid, const std::vector<Arg> &args, const NamedArgs &constexprs = {},
              LaunchOptions options = {}) const;

private:
  friend class Program;
  Kernel(std::shared_ptr<detail::ProgramImpl> prog, std::string name) : prog_(std::move(prog)), name_(std::move(name)) {}
  std::shared_ptr<detail::ProgramImpl> prog_;
  std::string name_;
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

  /// A new zero-filled contiguous tensor.
  Tensor zeros(const Shape &shape, DType dtype) const;
  /// A new contiguous tensor holding a copy of host memory (C order,
  /// numel * dtypeSize bytes).
  Tensor fromHost(const Shape &shape, DType dtype, const void *data) const;
  template <typename T> Tensor fromHost(const Shape &shape, DType dtype, const std::vector<T> &data) const {
    checkHostSize(shape, dtype, data.size() * sizeof(T));
    return fromHost(shape, dtype, static_cast<const void *>(data.data()));
  }

private:
  void checkHostSize(const Shape &shape, DType dtype, size_t bytes) const;
  std::shared_ptr<detail::ContextImpl> impl_;
};

/// Installs the GPU compiler (LLVM NVPTX back end) for every Context created
/// afterwards. Declared here, defined in the `tile::llvm` library (the only
/// part that links LLVM); without it, DeviceKind::Gpu is an Error and Auto
/// chooses the interpreter.
void enableGpuCompiler();

} // namespace tile
