// Tensor.cpp - host tensor storage (registered with the interpreter's
// MemoryMap), element access with dtype conversion, views and copies.
#include "host/Tensor.h"

#include "interp/Interpreter.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace tile::host {

namespace {
std::atomic<int64_t> gNextTensorId{0};

std::string dtypeLabel(Scalar s) {
  return s == Scalar::I1 ? "bool" : std::string(tritonDTypeName(s));
}

double readElem(const uint8_t *p, Scalar s) {
  switch (s) {
  case Scalar::I1: return *p ? 1.0 : 0.0;
  case Scalar::I8: return *reinterpret_cast<const int8_t *>(p);
  case Scalar::I16: return *reinterpret_cast<const int16_t *>(p);
  case Scalar::I32: return *reinterpret_cast<const int32_t *>(p);
  case Scalar::I64: return double(*reinterpret_cast<const int64_t *>(p));
  case Scalar::U8: return *p;
  case Scalar::U16: return *reinterpret_cast<const uint16_t *>(p);
  case Scalar::U32: return *reinterpret_cast<const uint32_t *>(p);
  case Scalar::U64: return double(*reinterpret_cast<const uint64_t *>(p));
  case Scalar::F16: return halfBitsToFloat(*reinterpret_cast<const uint16_t *>(p));
  case Scalar::BF16: return bf16BitsToFloat(*reinterpret_cast<const uint16_t *>(p));
  case Scalar::F32: return *reinterpret_cast<const float *>(p);
  case Scalar::F64: return *reinterpret_cast<const double *>(p);
  case Scalar::F8E4M3: case Scalar::F8E5M2: return fp8BitsToDouble(*p, s);
  }
  return 0;
}

/// double -> int64 as numpy's astype does (truncation; NaN -> 0, saturating).
int64_t doubleToInt(double d) {
  if (std::isnan(d))
    return 0;
  if (d >= 9.2233720368547758e18)
    return std::numeric_limits<int64_t>::max();
  if (d <= -9.2233720368547758e18)
    return std::numeric_limits<int64_t>::min();
  return int64_t(d);
}

int64_t readIntElem(const uint8_t *p, Scalar s) {
  switch (s) {
  case Scalar::I1: return *p ? 1 : 0;
  case Scalar::I8: return *reinterpret_cast<const int8_t *>(p);
  case Scalar::I16: return *reinterpret_cast<const int16_t *>(p);
  case Scalar::I32: return *reinterpret_cast<const int32_t *>(p);
  case Scalar::I64: return *reinterpret_cast<const int64_t *>(p);
  case Scalar::U8: return *p;
  case Scalar::U16: return *reinterpret_cast<const uint16_t *>(p);
  case Scalar::U32: return *reinterpret_cast<const uint32_t *>(p);
  case Scalar::U64: return int64_t(*reinterpret_cast<const uint64_t *>(p));
  default: break;
  }
  // Float -> int truncates toward zero like numpy's astype; NaN/inf saturate.
  return doubleToInt(readElem(p, s));
}

void writeInt(uint8_t *p, Scalar s, int64_t v) {
  switch (s) {
  case Scalar::I1: *p = v != 0; return;
  case Scalar::I8: case Scalar::U8: *p = uint8_t(v); return;
  case Scalar::I16: case Scalar::U16: { uint16_t x = uint16_t(v); std::memcpy(p, &x, 2); return; }
  case Scalar::I32: case Scalar::U32: { uint32_t x = uint32_t(v); std::memcpy(p, &x, 4); return; }
  case Scalar::I64: case Scalar::U64: std::memcpy(p, &v, 8); return;
  default: break;
  }
}

void writeFloat(uint8_t *p, Scalar s, double v) {
  switch (s) {
  case Scalar::F16: { uint16_t h = floatToHalfBits(float(v)); std::memcpy(p, &h, 2); return; }
  case Scalar::BF16: { uint16_t h = floatToBF16Bits(float(v)); std::memcpy(p, &h, 2); return; }
  case Scalar::F32: { float f = float(v); std::memcpy(p, &f, 4); return; }
  case Scalar::F64: std::memcpy(p, &v, 8); return;
  case Scalar::F8E4M3: case Scalar::F8E5M2: *p = toFp8Bits(float(v), s); return;
  default: break;
  }
}

} // namespace

// ------------------------------------------------------------------ storage

Storage::Storage(int64_t bytes, std::string name) : bytes_(bytes), name_(std::move(name)) {
  // Round up so that aligned_alloc's size requirement holds and an empty
  // tensor still has a distinct address.
  size_t alloc = size_t((std::max<int64_t>(bytes, 1) + 63) / 64 * 64);
  data_ = static_cast<uint8_t *>(std::aligned_alloc(64, alloc));
  if (!data_)
    throw HostError(fmt::format("out of memory allocating {} bytes for {}", bytes, name_));
  std::memset(data_, 0, alloc);
  interp::MemoryMap::global().add(data_, uint64_t(bytes), name_);
}

void Storage::nameAfter(const std::string &variable) {
  if (named_ || variable.empty() || variable[0] == '_')
    return;
  named_ = true;
  size_t space = name_.find(' ');
  name_ = fmt::format("tensor '{}'{}", variable, space == std::string::npos ? "" : name_.substr(space));
  interp::MemoryMap::global().rename(data_, name_);
}

Storage::~Storage() {
  interp::MemoryMap::global().remove(data_);
  std::free(data_);
}

// ------------------------------------------------------------------ shapes

Shape contiguousStrides(const Shape &shape) {
  Shape strides(shape.size());
  bool empty = std::find(shape.begin(), shape.end(), 0) != shape.end();
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    // a tensor with a 0 dimension holds nothing: its other dimensions may
    // be any size (found by fuzz-npy: (83333333333333333, 33333, 0)), and
    // its strides past a 64-bit product stay at the last that fit
    if (__builtin_mul_overflow(s, std::max<int64_t>(shape[i], 1), &s)) {
      if (!empty) throw HostError(fmt::format("shape {} has more elements than a 64-bit count holds", shapeStr(shape)));
      s = strides[i];
    }
  }
  return strides;
}

int64_t shapeNumel(const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    if (d < 0) throw HostError(fmt::format("shape {} has a negative dimension", shapeStr(shape)));
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;   // whatever the other dimensions
  for (int64_t d : shape)
    if (d < 0 || __builtin_mul_overflow(n, d, &n))
      throw HostError(fmt::format("shape {} has {}", shapeStr(shape),
                                  d < 0 ? "a negative dimension" : "more elements than a 64-bit count holds"));
  return n;
}

std::string shapeStr(const Shape &shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

// ------------------------------------------------------------------ tensor

namespace {
std::atomic<uint64_t> gMaxTensorBytes{uint64_t(1) << 37};
} // namespace

void setMaxTensorBytes(uint64_t bytes) { gMaxTensorBytes = bytes; }

Tensor Tensor::zeros(const Shape &shape, Scalar dtype) {
  for (int64_t d : shape)
    if (d < 0)
      throw HostError(fmt::format("negative dimension in shape {}", shapeStr(shape)));
  int64_t n = shapeNumel(shape);
  if (n > (int64_t(1) << 34) || uint64_t(n) * byteSize(dtype) > gMaxTensorBytes)
    throw HostError(fmt::format("tensor of shape {} is too large ({} bytes; this process allows {})", shapeStr(shape),
                                uint64_t(n) * byteSize(dtype), gMaxTensorBytes.load()));
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = shape;
  t.strides_ = contiguousStrides(shape);
  std::string name = fmt::format("tensor#{} {}{}", gNextTensorId++, dtypeLabel(dtype), shapeStr(shape));
  t.storage_ = std::make_shared<Storage>(n * byteSize(dtype), std::move(name));
  return t;
}

Tensor Tensor::full(const Shape &shape, double value, Scalar dtype) {
  Tensor t = zeros(shape, dtype);
  if (value != 0)
    for (int64_t i = 0, n = t.numel(); i < n; ++i)
      t.setDouble(i, value);
  return t;
}

Tensor Tensor::fromDoubles(const Shape &shape, const std::vector<double> &values, Scalar dtype) {
  Tensor t = zeros(shape, dtype);
  TILE_ASSERT(int64_t(values.size()) == t.numel(), "fromDoubles: size mismatch");
  for (size_t i = 0; i < values.size(); ++i)
    t.setDouble(int64_t(i), values[i]);
  return t;
}

Tensor Tensor::fromInts(const Shape &shape, const std::vector<int64_t> &values, Scalar dtype) {
  Tensor t = zeros(shape, dtype);
  TILE_ASSERT(int64_t(values.size()) == t.numel(), "fromInts: size mismatch");
  for (size_t i = 0; i < values.size(); ++i)
    t.setInt(int64_t(i), values[i]);
  return t;
}

int64_t Tensor::numel() const { return shapeNumel(shape_); }

int64_t Tensor::dim(int axis) const {
  int a = axis < 0 ? axis + ndim() : axis;
  if (a < 0 || a >= ndim())
    throw HostError(fmt::format("axis {} is out of range for a tensor of {} dimensions", axis, ndim()));
  return shape_[size_t(a)];
}

bool Tensor::isContiguous() const {
  if (numel() == 0) return true;   // nothing to lay out; its other dimensions may be any size
  int64_t expect = 1;   // numel() fits in 64 bits, so this product does too
  for (size_t i = shape_.size(); i-- > 0;) {
    if (shape_[i] != 1 && strides_[i] != expect)
      return false;
    expect *= shape_[i];
  }
  return true;
}

void *Tensor::data() const {
  TILE_ASSERT(storage_, "data() of an undefined tensor");
  return storage_->data() + offset_ * byteSize(dtype_);
}

std::string Tensor::describe() const { return dtypeLabel(dtype_) + shapeStr(shape_); }

int64_t Tensor::storageIndex(int64_t flat) const {
  int64_t idx = offset_;
  for (size_t i = shape_.size(); i-- > 0;) {
    int64_t d = shape_[i];
    idx += (flat % d) * strides_[i];
    flat /= d;
  }
  return idx;
}

double Tensor::getDouble(int64_t flat) const {
  return readElem(storage_->data() + storageIndex(flat) * byteSize(dtype_), dtype_);
}

int64_t Tensor::getInt(int64_t flat) const {
  return readIntElem(storage_->data() + storageIndex(flat) * byteSize(dtype_), dtype_);
}

void Tensor::setDouble(int64_t flat, double v) {
  uint8_t *p = storage_->data() + storageIndex(flat) * byteSize(dtype_);
  if (isFloat(dtype_))
    return writeFloat(p, dtype_, v);
  writeInt(p, dtype_, dtype_ == Scalar::I1 ? int64_t(v != 0) : doubleToInt(v));
}

void Tensor::setInt(int64_t flat, int64_t v) {
  uint8_t *p = storage_->data() + storageIndex(flat) * byteSize(dtype_);
  if (isFloat(dtype_))
    return writeFloat(p, dtype_, double(v));
  writeInt(p, dtype_, v);
}

double Tensor::at(const Shape &index) const {
  TILE_ASSERT(index.size() == shape_.size(), "at(): wrong index rank");
  int64_t idx = offset_;
  for (size_t i = 0; i < index.size(); ++i)
    idx += index[i] * strides_[i];
  return readElem(storage_->data() + idx * byteSize(dtype_), dtype_);
}

Tensor Tensor::transpose() const {
  Tensor t = *this;
  std::reverse(t.shape_.begin(), t.shape_.end());
  std::reverse(t.strides_.begin(), t.strides_.end());
  return t;
}

Tensor Tensor::reshape(Shape newShape) const {
  int inferred = -1;
  int64_t known = 1;
  for (size_t i = 0; i < newShape.size(); ++i) {
    if (newShape[i] == -1 && inferred < 0) {
      inferred = int(i);
      continue;
    }
    if (newShape[i] < 0 || __builtin_mul_overflow(known, newShape[i], &known))
      throw HostError(fmt::format("invalid shape {} for reshape", shapeStr(newShape)));
  }
  if (inferred >= 0 && known > 0 && numel() % known == 0)
    newShape[size_t(inferred)] = numel() / known;
  if ((inferred >= 0 && newShape[size_t(inferred)] < 0) || shapeNumel(newShape) != numel())
    throw HostError(fmt::format("cannot reshape a tensor of shape {} ({} elements) into shape {}",
                                shapeStr(shape_), numel(), shapeStr(newShape)));
  Tensor t = isContiguous() ? *this : contiguous();
  t.shape_ = newShape;
  t.strides_ = contiguousStrides(newShape);
  return t;
}

Tensor Tensor::select(int axis, int64_t index) const {
  int64_t n = dim(axis);
  int a = axis < 0 ? axis + ndim() : axis;
  int64_t i = index < 0 ? index + n : index;
  if (i < 0 || i >= n)
    throw HostError(fmt::format("index {} is out of bounds for axis {} with size {}", index, a, n));
  Tensor t = *this;
  t.offset_ += i * strides_[size_t(a)];
  t.shape_.erase(t.shape_.begin() + a);
  t.strides_.erase(t.strides_.begin() + a);
  return t;
}

Tensor Tensor::slice(int axis, int64_t start, int64_t count, int64_t step) const {
  Tensor t = *this;
  size_t a = size_t(axis < 0 ? axis + ndim() : axis);
  t.offset_ += start * strides_[a];
  t.shape_[a] = count;
  t.strides_[a] *= step;
  return t;
}

Tensor Tensor::unsqueeze(int axis) const {
  Tensor t = *this;
  t.shape_.insert(t.shape_.begin() + axis, 1);
  t.strides_.insert(t.strides_.begin() + axis, 0);
  return t;
}

Tensor Tensor::contiguous() const {
  if (isContiguous())
    return *this;
  return clone();
}

Tensor Tensor::clone() const { return to(dtype_); }

Tensor Tensor::to(Scalar dtype) const {
  Tensor t = zeros(shape_, dtype);
  int64_t n = numel();
  bool exactInts = isInt(dtype_) && isInt(dtype);
  for (int64_t i = 0; i < n; ++i) {
    if (exactInts)
      t.setInt(i, getInt(i));
    else
      t.setDouble(i, getDouble(i));
  }
  return t;
}

// ------------------------------------------------------------------ random

namespace {
uint64_t gRandomState = 0;

uint64_t nextRandom() {
  // splitmix64: tiny, deterministic across platforms.
  uint64_t z = (gRandomState += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double nextUniform() { return double(nextRandom() >> 11) * (1.0 / 9007199254740992.0); }
} // namespace

void seedRandom(uint64_t seed) { gRandomState = seed; }

Tensor randUniform(const Shape &shape, Scalar dtype) {
  Tensor t = Tensor::zeros(shape, dtype);
  for (int64_t i = 0, n = t.numel(); i < n; ++i)
    t.setDouble(i, nextUniform());
  return t;
}

Tensor randNormal(const Shape &shape, Scalar dtype) {
  Tensor t = Tensor::zeros(shape, dtype);
  for (int64_t i = 0, n = t.numel(); i < n; ++i) {
    // Box-Muller; 1 - u keeps the log argument in (0, 1].
    double u1 = 1.0 - nextUniform(), u2 = nextUniform();
    t.setDouble(i, std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2));
  }
  return t;
}

} // namespace tile::host
