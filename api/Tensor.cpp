// Tensor.cpp - tile::Tensor: allocation and host copies, in registered host
// memory on the interpreter (so kernels are bounds-checked against it) and
// in device memory on the GPU; dtype names and sizes.
#include "Internal.h"

#include <fmt/format.h>

#include <cstring>

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
      {Scalar::F32, "float32"}, {Scalar::F64, "float64"},
  };
  return table[static_cast<int>(d)];
}

int normalizeAxis(int axis, size_t ndim) {
  int n = static_cast<int>(ndim);
  int a = axis < 0 ? axis + n : axis;
  if (a < 0 || a >= n) throw Error(fmt::format("error: axis {} is out of range for a {}-d tensor", axis, n));
  return a;
}

void checkCopySize(const detail::TensorImpl &t, size_t bytes, const char *what) {
  if (bytes != t.bytes())
    throw Error(fmt::format("error: {} of {} bytes, but the tensor {}{} holds {} bytes", what, bytes,
                            dtypeName(t.dtype), host::shapeStr(t.shape), t.bytes()));
}

} // namespace

size_t dtypeSize(DType dtype) { return size_t(byteSize(info(dtype).scalar)); }
const char *dtypeName(DType dtype) { return info(dtype).name; }

Scalar detail::toScalar(DType d) { return info(d).scalar; }

int64_t detail::TensorImpl::numel() const { return host::shapeNumel(shape); }

uint64_t detail::TensorImpl::address() const {
  return device ? uint64_t(device->devicePtr()) : hostTensor.address();
}

std::shared_ptr<detail::TensorImpl> detail::ContextImpl::allocate(const Shape &shape, DType dtype) {
  for (int64_t d : shape)
    if (d < 0) throw Error(fmt::format("error: negative size in tensor shape {}", host::shapeStr(shape)));
  auto t = std::make_shared<TensorImpl>();
  t->ctx = shared_from_this();
  t->dtype = dtype;
  t->shape = shape;
  t->strides = host::contiguousStrides(shape);
  translateErrors([&] {
    if (kind == DeviceKind::Gpu) {
      driver->makeCurrent();
      t->device = std::make_shared<cuda::DeviceBuffer>(*driver, std::max<size_t>(t->bytes(), 1));
      t->device->fill(0);
    } else {
      t->hostTensor = host::Tensor::zeros(shape, toScalar(dtype));
    }
  });
  return t;
}

const detail::TensorImpl &Tensor::impl() const {
  if (!impl_) throw Error("error: use of an undefined tile::Tensor");
  return *impl_;
}

DType Tensor::dtype() const { return impl().dtype; }
const Shape &Tensor::shape() const { return impl().shape; }
const Shape &Tensor::strides() const { return impl().strides; }
int64_t Tensor::dim(int axis) const { return impl().shape[normalizeAxis(axis, impl().shape.size())]; }
int64_t Tensor::stride(int axis) const { return impl().strides[normalizeAxis(axis, impl().shape.size())]; }
int64_t Tensor::numel() const { return impl().numel(); }
size_t Tensor::bytes() const { return impl().bytes(); }
uint64_t Tensor::address() const { return impl().address(); }

void Tensor::copyFromHost(const void *src, size_t bytes) {
  const detail::TensorImpl &t = impl();
  checkCopySize(t, bytes, "copy from host");
  if (bytes == 0) return;
  detail::translateErrors([&] {
    if (t.device) {
      t.ctx->driver->makeCurrent();
      t.device->copyFromHost(src, bytes);
    } else {
      std::memcpy(t.hostTensor.data(), src, bytes);
    }
  });
}

void Tensor::copyToHost(void *dst, size_t bytes) const {
  const detail::TensorImpl &t = impl();
  checkCopySize(t, bytes, "copy to host");
  if (bytes == 0) return;
  detail::translateErrors([&] {
    if (t.device) {
      t.ctx->driver->makeCurrent();
      t.device->copyToHost(dst, bytes);
    } else {
      std::memcpy(dst, t.hostTensor.data(), bytes);
    }
  });
}

Tensor Context::zeros(const Shape &shape, DType dtype) const { return Tensor(impl_->allocate(shape, dtype)); }

void Context::checkHostSize(const Shape &shape, DType dtype, size_t bytes) const {
  size_t want = size_t(host::shapeNumel(shape)) * dtypeSize(dtype);
  if (bytes != want)
    throw Error(fmt::format("error: {} bytes of host data for a {}{} tensor of {} bytes", bytes, dtypeName(dtype),
                            host::shapeStr(shape), want));
}

Tensor Context::fromHost(const Shape &shape, DType dtype, const void *data) const {
  Tensor t = zeros(shape, dtype);
  t.copyFromHost(data, t.bytes());
  return t;
}

} // namespace tile
