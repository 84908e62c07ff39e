// Memory.cpp - device buffers, streams and events: thin RAII wrappers over the
// driver calls, with destructors that never throw.
#include "cuda/Cuda.h"

#include <fmt/format.h>

namespace tile::cuda {

// --- DeviceBuffer ------------------------------------------------------------

DeviceBuffer::DeviceBuffer(Driver &driver, size_t bytes)
    : Drv(&driver), Bytes(bytes) {
  if (bytes == 0)
    return; // an empty buffer has a null pointer and needs no allocation
  driver.makeCurrent();
  api::CUresult result = driver.api().memAlloc(&Ptr, bytes);
  if (result != api::CudaSuccess)
    throw Error(fmt::format("cuMemAlloc failed for {} bytes: {} ({})", bytes,
                            driver.errorName(result),
                            driver.errorString(result)),
                result);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer &&other) noexcept
    : Drv(other.Drv), Ptr(other.Ptr), Bytes(other.Bytes) {
  other.Ptr = 0;
  other.Bytes = 0;
}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept {
  if (this == &other)
    return *this;
  release();
  Drv = other.Drv;
  Ptr = other.Ptr;
  Bytes = other.Bytes;
  other.Ptr = 0;
  other.Bytes = 0;
  return *this;
}

DeviceBuffer::~DeviceBuffer() { release(); }

void DeviceBuffer::release() {
  if (!Ptr)
    return;
  Drv->makeCurrentNoThrow();
  Drv->api().memFree(Ptr);
  Ptr = 0;
  Bytes = 0;
}

void DeviceBuffer::checkRange(const char *what, size_t bytes,
                              size_t offset) const {
  if (offset <= Bytes && bytes <= Bytes - offset)
    return;
  throw Error(fmt::format("{} of {} bytes at offset {} overruns a device "
                          "buffer of {} bytes",
                          what, bytes, offset, Bytes),
              api::CudaErrorInvalidValue);
}

void DeviceBuffer::copyFromHost(const void *src, size_t bytes, size_t offset) {
  checkRange("copy from host", bytes, offset);
  if (bytes == 0)
    return;
  Drv->makeCurrent();
  Drv->check(Drv->api().memcpyHtoD(Ptr + offset, src, bytes), "cuMemcpyHtoD");
}

void DeviceBuffer::copyToHost(void *dst, size_t bytes, size_t offset) const {
  checkRange("copy to host", bytes, offset);
  if (bytes == 0)
    return;
  Drv->makeCurrent();
  api::CUresult result = Drv->api().memcpyDtoH(dst, Ptr + offset, bytes);
  // A synchronous copy is where an earlier kernel's fault usually surfaces.
  if (result != api::CudaSuccess)
    Drv->failSync(result, "cuMemcpyDtoH");
}

void DeviceBuffer::copyFrom(const DeviceBuffer &src, size_t bytes) {
  checkRange("device copy", bytes, 0);
  src.checkRange("device copy", bytes, 0);
  if (bytes == 0)
    return;
  Drv->makeCurrent();
  Drv->check(Drv->api().memcpyDtoD(Ptr, src.Ptr, bytes), "cuMemcpyDtoD");
}

void DeviceBuffer::fill(uint8_t value) {
  if (Bytes == 0)
    return;
  Drv->makeCurrent();
  Drv->check(Drv->api().memsetD8(Ptr, value, Bytes), "cuMemsetD8");
}

void DeviceBuffer::fillAsync(uint32_t value, const Stream *stream) {
  if (Bytes < 4)
    return;
  Drv->makeCurrent();
  Drv->check(Drv->api().memsetD32Async(Ptr, value, Bytes / 4, stream ? stream->handle() : nullptr),
             "cuMemsetD32Async");
}

void copyToHost(Driver &driver, void *dst, api::CUdeviceptr src, size_t bytes) {
  if (bytes == 0)
    return;
  driver.makeCurrent();
  api::CUresult result = driver.api().memcpyDtoH(dst, src, bytes);
  if (result != api::CudaSuccess)
    driver.failSync(result, "cuMemcpyDtoH");
}

// --- Stream ------------------------------------------------------------------

Stream::Stream(Driver &driver, bool blocking) : Drv(&driver) {
  driver.makeCurrent();
  driver.check(driver.api().streamCreate(&Handle, blocking ? 0u : api::StreamNonBlocking),
               "cuStreamCreate");
}

Stream Stream::adopt(Driver &driver, api::CUstream handle) { return Stream(driver, handle); }

Stream::Stream(Stream &&other) noexcept : Drv(other.Drv), Handle(other.Handle), Owned(other.Owned) {
  other.Handle = nullptr;
}

Stream::~Stream() {
  if (!Handle || !Owned)
    return;
  Drv->makeCurrentNoThrow();
  Drv->api().streamDestroy(Handle);
}

void Stream::synchronize() const {
  Drv->makeCurrent();
  api::CUresult result = Drv->api().streamSynchronize(Handle);
  if (result != api::CudaSuccess)
    Drv->failSync(result, "cuStreamSynchronize");
}

// --- Event -------------------------------------------------------------------

Event::Event(Driver &driver) : Drv(&driver) {
  driver.makeCurrent();
  driver.check(driver.api().eventCreate(&Handle, api::EventDefault),
               "cuEventCreate");
}

Event::Event(Event &&other) noexcept : Drv(other.Drv), Handle(other.Handle) {
  other.Handle = nullptr;
}

Event::~Event() {
  if (!Handle)
    return;
  Drv->makeCurrentNoThrow();
  Drv->api().eventDestroy(Handle);
}

void Event::record(const Stream *stream) {
  Drv->makeCurrent();
  Drv->check(Drv->api().eventRecord(Handle, stream ? stream->handle() : nullptr),
             "cuEventRecord");
}

void Event::synchronize() const {
  Drv->makeCurrent();
  api::CUresult result = Drv->api().eventSynchronize(Handle);
  if (result != api::CudaSuccess)
    Drv->failSync(result, "cuEventSynchronize");
}

float Event::elapsedMsSince(const Event &start) const {
  Drv->makeCurrent();
  float ms = 0;
  Drv->check(Drv->api().eventElapsedTime(&ms, start.Handle, Handle),
             "cuEventElapsedTime");
  return ms;
}

} // namespace tile::cuda
