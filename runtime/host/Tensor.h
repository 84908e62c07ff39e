// Tensor.h - host tensors for .tile host code: a strided view of shared,
// 64-byte aligned storage of any tile::Scalar dtype, plus the NumPy-like
// operations host programs use to build inputs and check results.
//
// Every storage allocation registers itself in interp::MemoryMap::global()
// (named "tensor#N float32[64, 64]") so kernels launched on the interpreter
// can touch it and get bounds-checked; it unregisters when freed.
//
// Errors in tensor operations (shape mismatch, bad axis, ...) throw
// HostError, which has no location: the evaluator rethrows it located at
// the expression that failed.
#pragma once

#include "support/DType.h"
#include "support/Diagnostics.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace tile::host {

/// An error in a host operation; the caller adds the source location.
class HostError : public std::runtime_error {
public:
  explicit HostError(const std::string &msg) : std::runtime_error(msg) {}
};

using Shape = std::vector<int64_t>;

/// Owns one registered allocation.
class Storage {
public:
  Storage(int64_t bytes, std::string name);
  ~Storage();
  Storage(const Storage &) = delete;
  Storage &operator=(const Storage &) = delete;
  uint8_t *data() const { return data_; }
  int64_t bytes() const { return bytes_; }
  const std::string &name() const { return name_; }
  /// The first host variable bound to this storage names it in the
  /// interpreter's messages: "tensor 'x' float32[64]" instead of
  /// "tensor#3 float32[64]". Later bindings change nothing.
  void nameAfter(const std::string &variable);

private:
  uint8_t *data_ = nullptr;
  int64_t bytes_ = 0;
  std::string name_;
  bool named_ = false;
};

class Tensor {
public:
  Tensor() = default;
  /// A new zero-filled contiguous tensor.
  static Tensor zeros(const Shape &shape, Scalar dtype);
  static Tensor full(const Shape &shape, double value, Scalar dtype);
  /// From flat C-order values (converted to dtype).
  static Tensor fromDoubles(const Shape &shape, const std::vector<double> &values, Scalar dtype);
  static Tensor fromInts(const Shape &shape, const std::vector<int64_t> &values, Scalar dtype);

  bool defined() const { return storage_ != nullptr; }
  Scalar dtype() const { return dtype_; }
  const Shape &shape() const { return shape_; }
  const Shape &strides() const { return strides_; }
  int64_t offset() const { return offset_; }
  int ndim() const { return int(shape_.size()); }
  int64_t numel() const;
  int64_t dim(int axis) const; ///< negative axes count from the end
  bool isContiguous() const;
  /// Address of the first element (storage + offset).
  void *data() const;
  uint64_t address() const { return uint64_t(reinterpret_cast<uintptr_t>(data())); }
  const std::shared_ptr<Storage> &storage() const { return storage_; }
  /// "float32[64, 64]"
  std::string describe() const;

  /// Element at logical C-order position `flat`, converted.
  double getDouble(int64_t flat) const;
  int64_t getInt(int64_t flat) const;
  void setDouble(int64_t flat, double v);
  void setInt(int64_t flat, int64_t v);
  /// Element at a multi-index (must have ndim entries, in range).
  double at(const Shape &index) const;

  /// Views sharing storage.
  Tensor transpose() const;                 ///< .T: reverses all axes
  Tensor reshape(Shape newShape) const;     ///< one -1 allowed; copies if not contiguous
  Tensor select(int axis, int64_t index) const; ///< t[index] along axis (negative ok)
  /// t[start:start + count * step:step] along axis: a view (step > 0).
  Tensor slice(int axis, int64_t start, int64_t count, int64_t step) const;
  /// A view with a new axis of size 1 at `axis` (t[None]).
  Tensor unsqueeze(int axis) const;
  /// Copies.
  Tensor contiguous() const;
  Tensor clone() const;
  Tensor to(Scalar dtype) const;

  /// numpy's str(): "[[0. 1.]\n [2. 3.]]", summarized beyond 1000 elements.
  std::string str() const;

private:
  int64_t storageIndex(int64_t flat) const;
  Scalar dtype_ = Scalar::F32;
  Shape shape_;
  Shape strides_;
  int64_t offset_ = 0;
  std::shared_ptr<Storage> storage_;
};

/// Contiguous strides for a shape.
Shape contiguousStrides(const Shape &shape);
int64_t shapeNumel(const Shape &shape);
std::string shapeStr(const Shape &shape); ///< "[64, 64]"
/// The largest tensor Tensor::zeros (and every tensor made from it)
/// allocates, in bytes; past it a HostError names the shape. Default 128
/// GiB (no limit short of the 2^34-element one); fuzz-host lowers it so
/// that a program asking for too much is an error, not an out-of-memory.
void setMaxTensorBytes(uint64_t bytes);

// ------------------------------------------------------------------ ops

enum class BinaryOp { Add, Sub, Mul, Div, FloorDiv, Mod, Pow, Max, Min, BitAnd, BitOr, BitXor,
                      Eq, Ne, Lt, Le, Gt, Ge };
enum class UnaryOp { Neg, Abs, Exp, Log, Sqrt, Not, Tanh, Erf, Sigmoid, Gelu, Sin, Cos };

/// A Python number taking part in a tensor op: "weak" in type promotion
/// (int tensor + 1.5 -> float32, float16 tensor * 2 -> float16).
struct ScalarOperand {
  bool isFloat = false;
  bool isBool = false;
  double f = 0;
  int64_t i = 0;
};

/// The numpy broadcast of two shapes, or HostError.
Shape broadcastShapes(const Shape &a, const Shape &b);
/// Result dtype of combining two tensors (before comparison -> bool and
/// true division of ints -> float32).
Scalar promoteTypes(Scalar a, Scalar b);
/// "+", "//", ... for messages.
const char *binaryOpSpelling(BinaryOp op);

Tensor binary(BinaryOp op, const Tensor &a, const Tensor &b);
Tensor binary(BinaryOp op, const Tensor &a, const ScalarOperand &b);
Tensor binary(BinaryOp op, const ScalarOperand &a, const Tensor &b);
Tensor unary(UnaryOp op, const Tensor &a);
/// where(cond, a, b) with three-way broadcasting.
Tensor where(const Tensor &cond, const Tensor &a, const Tensor &b);
/// 2-D matmul accumulating in float64; float32 result unless an input is float64.
Tensor matmul(const Tensor &a, const Tensor &b);

enum class ReduceOp { Sum, Max, Min };
/// Reduces along axis (negative ok), or over everything when axis is absent
/// (result 0-d). sum of ints/bools -> int64.
Tensor reduce(ReduceOp op, const Tensor &a, std::optional<int> axis, bool keepdims = false);

/// A 0-d tensor holding a Python scalar in its default dtype.
Tensor scalarTensor(const ScalarOperand &s);

/// Deterministic PRNG shared by rand/randn; reseeded by seed(n).
void seedRandom(uint64_t seed);
Tensor randUniform(const Shape &shape, Scalar dtype); ///< [0, 1)
Tensor randNormal(const Shape &shape, Scalar dtype);  ///< N(0, 1)

/// numpy isclose semantics: |a - e| <= atol + rtol * |e|; NaN never close.
bool isClose(double actual, double expected, double rtol, double atol);

/// Python's repr of a float (shortest round trip): 1.0, 0.1, 1e-05, inf.
std::string pythonFloatRepr(double v);
/// numpy's repr of a scalar of a float dtype (shortest at that precision).
std::string numpyScalarRepr(double v, Scalar dtype);

} // namespace tile::host
