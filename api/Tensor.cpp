// Tensor.cpp - tile::Tensor: allocation, views and host copies; dtype names
// and sizes; Context::fromAddress.
//
// A tensor is a strided view of storage that every view of it shares:
// registered host memory on the interpreter (so kernels are bounds-checked
// against it), device memory on the GPU, or memory tile does not own
// (fromAddress). Strides are never negative, so a view's first element is
// its lowest address. Copies of non-contiguous views are gathered and
// scattered through the strides: in place in host memory on the
// interpreter, through a host staging copy of the view's byte span on the
// GPU.
#include "Internal.h"

#include <fmt/format.h>

#include <cstring>
#include <limits>

namespace tile {

namespace {

struct DTypeInfo {
  Scalar scalar;
  const char *name;
};

const DTypeInfo &info(DType d) {
  static const DTypeInfo table[] = {
      {Scalar::I1, "bool"},     {Scalar::I8, "int8"},       {Scalar::I16, "int16"},   {Scalar::I32, "int32"},
      {Scalar::I64, "int64"},   {Scalar::U8, "uint8"},      {Scalar::U16, "uint16"},  {Scalar::U32, "uint32"},
      {Scalar::U64, "uint64"},  {Scalar::F16, "float16"},   {Scalar::BF16, "bfloat16"},
      {Scalar::F32, "float32"}, {Scalar::F64, "float64"}, {Scalar::F8E4M3, "float8_e4m3fn"},
      {Scalar::F8E5M2, "float8_e5m2"},
  };
  return table[static_cast<int>(d)];
}

// ------------------------------------------------------------- validation

int normalizeAxis(int axis, size_t ndim) {
  int n = static_cast<int>(ndim);
  int a = axis < 0 ? axis + n : axis;
  if (a < 0 || a >= n) throw Error(fmt::format("error: axis {} is out of range for a {}-d tensor\n", axis, n));
  return a;
}

/// "float32[7, 5] tensor" for messages.
std::string describe(const detail::TensorImpl &t) {
  return fmt::format("{}{} tensor", dtypeName(t.dtype), host::shapeStr(t.shape));
}

void checkCopySize(const detail::TensorImpl &t, size_t bytes, const char *what) {
  if (bytes != t.bytes())
    throw Error(fmt::format("error: {} of {} bytes, but the {} holds {} bytes\n", what, bytes, describe(t),
                            t.bytes()));
}

/// Sizes are non-negative and numel * element size fits in int64.
void checkShape(const Shape &shape, DType dtype) {
  int64_t bytes = int64_t(dtypeSize(dtype));
  for (int64_t d : shape)
    if (d < 0) throw Error(fmt::format("error: negative size in tensor shape {}\n", host::shapeStr(shape)));
  for (int64_t d : shape)
    if (__builtin_mul_overflow(bytes, d, &bytes))
      throw Error(fmt::format("error: a {}{} tensor is too large\n", dtypeName(dtype), host::shapeStr(shape)));
}

/// out = a * b + c; false on int64 overflow.
bool mulAdd(int64_t a, int64_t b, int64_t c, int64_t &out) {
  int64_t p;
  return !__builtin_mul_overflow(a, b, &p) && !__builtin_add_overflow(p, c, &out);
}

/// Elements from a view's first element to its last, inclusive (0 when it
/// has none); false when that overflows int64.
bool spanElements(const Shape &shape, const Shape &strides, int64_t &span) {
  span = 0;
  for (int64_t d : shape)
    if (d == 0) return true;
  int64_t last = 0;
  for (size_t i = 0; i < shape.size(); ++i)
    if (!mulAdd(shape[i] - 1, strides[i], last, last)) return false;
  return !__builtin_add_overflow(last, 1, &span);
}

/// Element span of a view that tile made itself (it fits: views only shrink).
int64_t spanOf(const detail::TensorImpl &t) {
  int64_t span = 0;
  spanElements(t.shape, t.strides, span);
  return span;
}

// ------------------------------------------- fromAddress on the interpreter

/// The MemoryMap registration of a fromAddress range, shared by every tensor
/// over it (and by fromAddress tensors over ranges inside it); the range is
/// unregistered when the last one dies. Regions must not overlap (the
/// interpreter finds an address's region by its base), so a range that
/// overlaps registered memory without lying inside it is an Error.
class ForeignRegion {
public:
  /// The registration covering [address, address + bytes): a live one that
  /// contains it, a new one, or null when the range lies inside memory
  /// registered otherwise (a host tensor's). bytes > 0.
  static std::shared_ptr<ForeignRegion> acquire(uint64_t address, uint64_t bytes, const std::string &name);
  explicit ForeignRegion(uint64_t base) : base_(base) {}
  ~ForeignRegion();
  ForeignRegion(const ForeignRegion &) = delete;
  ForeignRegion &operator=(const ForeignRegion &) = delete;

private:
  struct Entry {
    std::weak_ptr<ForeignRegion> region;
    std::string name; ///< as registered in the MemoryMap
  };
  /// The registrations by base address. The entry of a dead one is erased
  /// by its destructor or by the next acquire that meets it, whichever
  /// comes first.
  struct Registry {
    std::mutex mu;
    std::map<uint64_t, Entry> entries;
  };
  static Registry &registry() {
    static Registry r;
    return r;
  }
  /// Under the registry lock: erases the entry at `base` if its region is
  /// dead, and unregisters the region; true when a MemoryMap region was
  /// removed.
  static bool dropIfDead(Registry &r, uint64_t base);
  /// Under the registry lock: a registered region overlapping the range.
  static bool overlapping(uint64_t address, uint64_t bytes, interp::MemoryRegion &out);
  uint64_t base_;
};

ForeignRegion::~ForeignRegion() {
  Registry &r = registry();
  std::lock_guard lock(r.mu);
  dropIfDead(r, base_); // a no-op when an acquire got there first
}

bool ForeignRegion::dropIfDead(Registry &r, uint64_t base) {
  auto it = r.entries.find(base);
  if (it == r.entries.end() || !it->second.region.expired()) return false;
  std::string name = std::move(it->second.name);
  r.entries.erase(it);
  // Unless the memory was freed and a host tensor registered it since.
  interp::MemoryRegion at;
  if (!interp::MemoryMap::global().nearest(base, at) || at.base != base || at.name != name) return false;
  interp::MemoryMap::global().remove(reinterpret_cast<const void *>(base));
  return true;
}

bool ForeignRegion::overlapping(uint64_t address, uint64_t bytes, interp::MemoryRegion &out) {
  // The region with the highest base inside or below the range overlaps it
  // when it starts inside or ends past address; none below it can.
  if (!interp::MemoryMap::global().nearest(address + bytes - 1, out)) return false;
  return out.base >= address || out.base + out.bytes > address;
}

std::shared_ptr<ForeignRegion> ForeignRegion::acquire(uint64_t address, uint64_t bytes, const std::string &name) {
  Registry &r = registry();
  std::lock_guard lock(r.mu);
  interp::MemoryRegion inside;
  while (interp::MemoryMap::global().find(address, bytes, inside)) {
    auto it = r.entries.find(inside.base);
    if (it != r.entries.end())
      if (auto live = it->second.region.lock()) return live;
    if (!dropIfDead(r, inside.base)) return nullptr; // a host tensor's memory
  }
  interp::MemoryRegion other;
  while (overlapping(address, bytes, other))
    if (!dropIfDead(r, other.base))
      throw Error(fmt::format("error: fromAddress range [0x{:x}, 0x{:x}) overlaps {} [0x{:x}, 0x{:x}) without lying "
                              "inside it: wrap the whole allocation once and take views of it\n",
                              address, address + bytes, other.name, other.base, other.base + other.bytes));
  interp::MemoryMap::global().add(reinterpret_cast<const void *>(address), bytes, name);
  auto region = std::make_shared<ForeignRegion>(address);
  r.entries[address] = Entry{region, name};
  return region;
}

// ------------------------------------------------------ gather and scatter

/// Calls f(pos, off) for each row of a non-empty view along its innermost
/// axis, in C order: pos is the C-order position of the row's first
/// element, off its element offset from the view's first element. A 0-d
/// view is one row of one element.
template <typename F> void forEachRow(const Shape &shape, const Shape &strides, F &&f) {
  int outer = static_cast<int>(shape.size()) - 1;
  int64_t rowLength = shape.empty() ? 1 : shape.back();
  std::vector<int64_t> index(shape.size(), 0);
  int64_t pos = 0, off = 0;
  while (true) {
    f(pos, off);
    pos += rowLength;
    int d = outer - 1;
    for (; d >= 0; --d) { // the odometer over the outer axes
      off += strides[size_t(d)];
      if (++index[size_t(d)] < shape[size_t(d)]) break;
      off -= strides[size_t(d)] * shape[size_t(d)];
      index[size_t(d)] = 0;
    }
    if (d < 0) return;
  }
}

/// One row: n elements of `elem` bytes, `stride` elements apart in the view,
/// packed in the host buffer.
void gatherRow(uint8_t *dst, const uint8_t *src, int64_t n, int64_t stride, size_t elem) {
  if (stride == 1) return (void)std::memcpy(dst, src, size_t(n) * elem);
  for (int64_t i = 0; i < n; ++i) std::memcpy(dst + size_t(i) * elem, src + size_t(i * stride) * elem, elem);
}

void scatterRow(uint8_t *dst, const uint8_t *src, int64_t n, int64_t stride, size_t elem) {
  if (stride == 1) return (void)std::memcpy(dst, src, size_t(n) * elem);
  for (int64_t i = 0; i < n; ++i) std::memcpy(dst + size_t(i * stride) * elem, src + size_t(i) * elem, elem);
}

/// Packs the view whose first element is at `first` into dst, C order.
void gather(const detail::TensorImpl &t, const uint8_t *first, uint8_t *dst) {
  int64_t n = t.shape.empty() ? 1 : t.shape.back();
  int64_t stride = t.shape.empty() ? 1 : t.strides.back();
  forEachRow(t.shape, t.strides, [&](int64_t pos, int64_t off) {
    gatherRow(dst + size_t(pos) * t.elemBytes, first + size_t(off) * t.elemBytes, n, stride, t.elemBytes);
  });
}

/// Writes C-order src into the view whose first element is at `first`.
void scatter(const detail::TensorImpl &t, uint8_t *first, const uint8_t *src) {
  int64_t n = t.shape.empty() ? 1 : t.shape.back();
  int64_t stride = t.shape.empty() ? 1 : t.strides.back();
  forEachRow(t.shape, t.strides, [&](int64_t pos, int64_t off) {
    scatterRow(first + size_t(off) * t.elemBytes, src + size_t(pos) * t.elemBytes, n, stride, t.elemBytes);
  });
}

uint8_t *hostPointer(const detail::TensorImpl &t) { return reinterpret_cast<uint8_t *>(t.address()); }

// ------------------------------------------------------------- GPU copies

void deviceToHost(const detail::TensorImpl &t, void *dst, size_t bytes) {
  cuda::Driver &drv = *t.ctx->driver;
  drv.makeCurrent();
  cuda::api::CUresult r = drv.api().memcpyDtoH(dst, cuda::api::CUdeviceptr(t.address()), bytes);
  // A synchronous copy is where an earlier kernel's fault usually surfaces.
  if (r != cuda::api::CudaSuccess) drv.failSync(r, "cuMemcpyDtoH");
}

void hostToDevice(const detail::TensorImpl &t, const void *src, size_t bytes) {
  cuda::Driver &drv = *t.ctx->driver;
  drv.makeCurrent();
  drv.check(drv.api().memcpyHtoD(cuda::api::CUdeviceptr(t.address()), src, bytes), "cuMemcpyHtoD");
}

/// The view's byte span, from its first element to its last, copied to host.
std::vector<uint8_t> readSpan(const detail::TensorImpl &t) {
  std::vector<uint8_t> staging(size_t(spanOf(t)) * t.elemBytes);
  deviceToHost(t, staging.data(), staging.size());
  return staging;
}

// ------------------------------------------------------------------ views

/// A new handle on t's storage with the same metadata, to be adjusted.
std::shared_ptr<detail::TensorImpl> viewOf(const detail::TensorImpl &t) {
  return std::make_shared<detail::TensorImpl>(t);
}

/// Python's clamping of a slice bound for a positive step.
int64_t clampBound(int64_t bound, int64_t n) {
  if (bound < 0) bound = bound < -n ? 0 : bound + n;
  return std::min(bound, n);
}

/// The one -1 of a reshape shape resolved against numel, checked.
Shape resolveShape(const Shape &shape, int64_t numel) {
  int64_t known = 1;
  int inferred = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (inferred >= 0)
        throw Error(fmt::format("error: reshape to {}: only one extent may be -1\n", host::shapeStr(shape)));
      inferred = int(i);
    } else if (shape[i] < 0) {
      throw Error(fmt::format("error: reshape to {}: negative extent {}\n", host::shapeStr(shape), shape[i]));
    } else if (__builtin_mul_overflow(known, shape[i], &known)) {
      throw Error(fmt::format("error: reshape to {}: too many elements\n", host::shapeStr(shape)));
    }
  }
  Shape out = shape;
  if (inferred >= 0 && known != 0 && numel % known == 0) out[size_t(inferred)] = numel / known;
  if (inferred >= 0 ? (known == 0 || numel % known != 0) : known != numel)
    throw Error(fmt::format("error: cannot reshape a tensor of {} elements into shape {}\n", numel,
                            host::shapeStr(shape)));
  return out;
}

// ------------------------------------------------------------ fromAddress

/// Checks fromAddress's arguments; returns the strides (C order if empty)
/// and the range's size in bytes.
Shape checkForeign(uint64_t address, const Shape &shape, DType dtype, const Shape &strides, uint64_t &bytes) {
  checkShape(shape, dtype);
  if (!strides.empty() && strides.size() != shape.size())
    throw Error(fmt::format("error: fromAddress with {} strides {} for the {}-d shape {}\n", strides.size(),
                            host::shapeStr(strides), shape.size(), host::shapeStr(shape)));
  for (int64_t s : strides)
    if (s < 0)
      throw Error(fmt::format("error: fromAddress with strides {}: negative strides are not supported\n",
                              host::shapeStr(strides)));
  Shape st = strides.empty() ? host::contiguousStrides(shape) : strides;
  int64_t span = 0;
  size_t elem = dtypeSize(dtype);
  if (!spanElements(shape, st, span) || uint64_t(span) > std::numeric_limits<uint64_t>::max() / elem ||
      address > std::numeric_limits<uint64_t>::max() - uint64_t(span) * elem)
    throw Error(fmt::format("error: fromAddress: shape {} with strides {} spans more memory than there is\n",
                            host::shapeStr(shape), host::shapeStr(st)));
  bytes = uint64_t(span) * elem;
  if (address == 0 && span > 0)
    throw Error(fmt::format("error: fromAddress of a null address for a {}{} tensor\n", dtypeName(dtype),
                            host::shapeStr(shape)));
  if (address % elem != 0)
    throw Error(fmt::format("error: fromAddress: address 0x{:x} is not a multiple of the {} element size ({} "
                            "bytes)\n",
                            address, dtypeName(dtype), elem));
  return st;
}

} // namespace

size_t dtypeSize(DType dtype) { return size_t(byteSize(info(dtype).scalar)); }
const char *dtypeName(DType dtype) { return info(dtype).name; }

Scalar detail::toScalar(DType d) { return info(d).scalar; }

int64_t detail::TensorImpl::numel() const { return host::shapeNumel(shape); }

std::shared_ptr<detail::TensorImpl> detail::ContextImpl::allocate(const Shape &shape, DType dtype) {
  checkShape(shape, dtype);
  auto t = std::make_shared<TensorImpl>();
  t->ctx = shared_from_this();
  t->dtype = dtype;
  t->elemBytes = uint32_t(dtypeSize(dtype));
  t->shape = shape;
  t->strides = host::contiguousStrides(shape);
  translateErrors([&] {
    if (kind == DeviceKind::Gpu) {
      driver->makeCurrent();
      auto buffer = std::make_shared<cuda::DeviceBuffer>(*driver, std::max<size_t>(t->bytes(), 1));
      buffer->fill(0);
      t->base = buffer->devicePtr();
      t->storage = std::move(buffer);
    } else {
      host::Tensor h = host::Tensor::zeros(shape, toScalar(dtype));
      t->base = h.address();
      t->storage = h.storage();
    }
  });
  return t;
}

const detail::TensorImpl &Tensor::impl() const {
  if (!impl_) throw Error("error: use of an undefined tile::Tensor\n");
  return *impl_;
}

DType Tensor::dtype() const { return impl().dtype; }
const Shape &Tensor::shape() const { return impl().shape; }
const Shape &Tensor::strides() const { return impl().strides; }
int64_t Tensor::dim(int axis) const { return impl().shape[size_t(normalizeAxis(axis, impl().shape.size()))]; }
int64_t Tensor::stride(int axis) const { return impl().strides[size_t(normalizeAxis(axis, impl().shape.size()))]; }
int64_t Tensor::numel() const { return impl().numel(); }
size_t Tensor::bytes() const { return impl().bytes(); }
uint64_t Tensor::address() const { return impl().address(); }
int64_t Tensor::offset() const { return impl().offset; }

bool Tensor::isContiguous() const {
  const detail::TensorImpl &t = impl();
  if (t.numel() == 0) return true;
  int64_t expect = 1;
  for (size_t i = t.shape.size(); i-- > 0;) {
    if (t.shape[i] != 1 && t.strides[i] != expect) return false;
    expect *= t.shape[i];
  }
  return true;
}

// ------------------------------------------------------------------ views

Tensor Tensor::slice(int axis, int64_t start, int64_t stop, int64_t step) const {
  const detail::TensorImpl &t = impl();
  int a = normalizeAxis(axis, t.shape.size());
  if (step < 1)
    throw Error(fmt::format("error: slice step must be at least 1, not {} (negative strides are not supported)\n",
                            step));
  int64_t n = t.shape[size_t(a)];
  int64_t lo = clampBound(start, n), hi = clampBound(stop, n);
  int64_t length = hi > lo ? (hi - lo - 1) / step + 1 : 0;
  auto v = viewOf(t);
  if (length > 0) v->offset += lo * t.strides[size_t(a)];
  v->shape[size_t(a)] = length;
  // A step past the end leaves one element, whose stride does not matter:
  // capping it keeps stride * step from overflowing.
  v->strides[size_t(a)] *= std::min(step, std::max<int64_t>(n, 1));
  return Tensor(std::move(v));
}

Tensor Tensor::select(int axis, int64_t index) const {
  const detail::TensorImpl &t = impl();
  int a = normalizeAxis(axis, t.shape.size());
  int64_t n = t.shape[size_t(a)];
  int64_t i = index < 0 ? index + n : index;
  if (i < 0 || i >= n)
    throw Error(fmt::format("error: index {} is out of range for axis {} of size {} (of a {})\n", index, a, n,
                            describe(t)));
  auto v = viewOf(t);
  v->offset += i * t.strides[size_t(a)];
  v->shape.erase(v->shape.begin() + a);
  v->strides.erase(v->strides.begin() + a);
  return Tensor(std::move(v));
}

Tensor Tensor::transpose(int axis0, int axis1) const {
  const detail::TensorImpl &t = impl();
  size_t a = size_t(normalizeAxis(axis0, t.shape.size())), b = size_t(normalizeAxis(axis1, t.shape.size()));
  auto v = viewOf(t);
  std::swap(v->shape[a], v->shape[b]);
  std::swap(v->strides[a], v->strides[b]);
  return Tensor(std::move(v));
}

Tensor Tensor::permute(const std::vector<int> &dims) const {
  const detail::TensorImpl &t = impl();
  if (dims.size() != t.shape.size())
    throw Error(fmt::format("error: permute of a {} needs {} axes, not {} ([{}])\n", describe(t), t.shape.size(),
                            dims.size(), fmt::join(dims, ", ")));
  std::vector<bool> seen(dims.size(), false);
  auto v = viewOf(t);
  for (size_t i = 0; i < dims.size(); ++i) {
    size_t src = size_t(normalizeAxis(dims[i], t.shape.size()));
    if (seen[src])
      throw Error(fmt::format("error: permute dims [{}] are not a permutation: axis {} appears twice\n",
                              fmt::join(dims, ", "), src));
    seen[src] = true;
    v->shape[i] = t.shape[src];
    v->strides[i] = t.strides[src];
  }
  return Tensor(std::move(v));
}

Tensor Tensor::reshape(const Shape &shape) const {
  const detail::TensorImpl &t = impl();
  Shape resolved = resolveShape(shape, t.numel());
  if (!isContiguous())
    throw Error(fmt::format("error: reshape of a non-contiguous {} (strides {}): copy it into a contiguous tensor "
                            "first (Context::zeros and copyToHost/copyFromHost)\n",
                            describe(t), host::shapeStr(t.strides)));
  auto v = viewOf(t);
  v->shape = resolved;
  v->strides = host::contiguousStrides(resolved);
  return Tensor(std::move(v));
}

// ------------------------------------------------------------------ copies

void Tensor::copyFromHost(const void *src, size_t bytes) {
  const detail::TensorImpl &t = impl();
  checkCopySize(t, bytes, "copy from host");
  if (bytes == 0) return;
  const auto *in = static_cast<const uint8_t *>(src);
  bool contiguous = isContiguous();
  detail::translateErrors([&] {
    if (!t.onGpu()) return contiguous ? (void)std::memcpy(hostPointer(t), in, bytes) : scatter(t, hostPointer(t), in);
    if (contiguous) return hostToDevice(t, in, bytes);
    // Read-modify-write of the span: elements between the view's own are
    // written back as read (not atomic with kernels running meanwhile).
    std::vector<uint8_t> staging = readSpan(t);
    scatter(t, staging.data(), in);
    hostToDevice(t, staging.data(), staging.size());
  });
}

void Tensor::copyToHost(void *dst, size_t bytes) const {
  const detail::TensorImpl &t = impl();
  checkCopySize(t, bytes, "copy to host");
  if (bytes == 0) return;
  auto *out = static_cast<uint8_t *>(dst);
  bool contiguous = isContiguous();
  detail::translateErrors([&] {
    if (!t.onGpu()) return contiguous ? (void)std::memcpy(out, hostPointer(t), bytes) : gather(t, hostPointer(t), out);
    if (contiguous) return deviceToHost(t, out, bytes);
    std::vector<uint8_t> staging = readSpan(t);
    gather(t, staging.data(), out);
  });
}

// ---------------------------------------------------------------- context

Tensor Context::zeros(const Shape &shape, DType dtype) const { return Tensor(impl_->allocate(shape, dtype)); }

void Context::checkHostSize(const Shape &shape, DType dtype, size_t bytes) const {
  checkShape(shape, dtype);   // a located error before the count can overflow
  size_t want = size_t(host::shapeNumel(shape)) * dtypeSize(dtype);
  if (bytes != want)
    throw Error(fmt::format("error: {} bytes of host data for a {}{} tensor of {} bytes\n", bytes, dtypeName(dtype),
                            host::shapeStr(shape), want));
}

Tensor Context::fromHost(const Shape &shape, DType dtype, const void *data) const {
  Tensor t = zeros(shape, dtype);
  t.copyFromHost(data, t.bytes());
  return t;
}

Tensor Context::fromAddress(uint64_t address, const Shape &shape, DType dtype, const Shape &strides) const {
  uint64_t bytes = 0;
  Shape st = checkForeign(address, shape, dtype, strides, bytes);
  auto t = std::make_shared<detail::TensorImpl>();
  t->ctx = impl_;
  t->dtype = dtype;
  t->elemBytes = uint32_t(dtypeSize(dtype));
  t->shape = shape;
  t->strides = std::move(st);
  t->base = address;
  if (impl_->kind != DeviceKind::Gpu && bytes > 0)
    t->storage = ForeignRegion::acquire(address, bytes,
                                        fmt::format("fromAddress {}{}", dtypeName(dtype), host::shapeStr(shape)));
  return Tensor(std::move(t));
}

} // namespace tile
