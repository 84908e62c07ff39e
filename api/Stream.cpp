// Stream.cpp - tile::Stream: a blocking driver stream on the GPU (ordered
// with the default stream, so synchronous tensor copies wait for it),
// nothing on the interpreter, where launches run at once.
#include "Internal.h"

namespace tile {

struct detail::StreamImpl {
  std::shared_ptr<ContextImpl> ctx;
  std::unique_ptr<cuda::Stream> stream; ///< GPU contexts
  static const cuda::Stream *of(const Stream &s) { return s.impl_ ? s.impl_->stream.get() : nullptr; }
  static const StreamImpl *impl(const Stream &s) { return s.impl_.get(); }
};

Stream Context::createStream() const {
  auto s = std::make_shared<detail::StreamImpl>();
  s->ctx = impl_;
  if (impl_->kind == DeviceKind::Gpu)
    detail::translateErrors([&] { s->stream = std::make_unique<cuda::Stream>(*impl_->driver, /*blocking=*/true); });
  return Stream(std::move(s));
}

Stream Context::adoptStream(uint64_t handle) const {
  if (impl_->kind != DeviceKind::Gpu)
    throw Error("error: adoptStream needs a GPU context (the interpreter runs launches at once, on no stream)\n");
  if (handle == 0) return Stream();
  auto s = std::make_shared<detail::StreamImpl>();
  s->ctx = impl_;
  s->stream = std::make_unique<cuda::Stream>(
      cuda::Stream::adopt(*impl_->driver, reinterpret_cast<cuda::api::CUstream>(static_cast<uintptr_t>(handle))));
  return Stream(std::move(s));
}

uint64_t Stream::nativeHandle() const {
  if (!impl_ || !impl_->stream) return 0;
  return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(impl_->stream->handle()));
}

void Stream::synchronize() const {
  if (!impl_) throw Error("error: Stream::synchronize() on the default stream: use Context::synchronize()\n");
  if (!impl_->stream) return;
  detail::translateErrors([&] {
    impl_->ctx->driver->makeCurrent();
    impl_->stream->synchronize();
  });
}

const cuda::Stream *detail::cudaStream(const Stream &s, const ContextImpl *ctx) {
  const StreamImpl *impl = StreamImpl::impl(s);
  if (ctx && impl && impl->ctx.get() != ctx) throw Error("error: a launch on a stream of another tile::Context\n");
  return StreamImpl::of(s);
}

} // namespace tile
