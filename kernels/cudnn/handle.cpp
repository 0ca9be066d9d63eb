// handle.cpp — cudnnHandle_t RAII (see handle.h). The destructor never throws: a failing
// cudnnDestroy at teardown is ignored (the context is usually being torn down too).
#include "kernels/cudnn/handle.h"

#include <utility>

#include "kernels/cudnn/check.h"

namespace scalebench::cudnn {

Handle::Handle(cudaStream_t stream) : stream_(stream) {
  cudnnHandle_t h = nullptr;
  CUDNN_CHECK(cudnnCreate(&h));
  handle_ = h;
  try {
    CUDNN_CHECK(cudnnSetStream(handle_, stream_));
  } catch (...) {
    (void)cudnnDestroy(handle_);
    throw;
  }
}

Handle::~Handle() {
  if (handle_) (void)cudnnDestroy(handle_);
}

Handle::Handle(Handle&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), stream_(std::exchange(other.stream_, nullptr)) {}

Handle& Handle::operator=(Handle&& other) noexcept {
  if (this != &other) {
    if (handle_) (void)cudnnDestroy(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
    stream_ = std::exchange(other.stream_, nullptr);
  }
  return *this;
}

void Handle::set_stream(cudaStream_t stream) {
  SB_CHECK(handle_ != nullptr, "cudnn::Handle::set_stream on a moved-from handle");
  CUDNN_CHECK(cudnnSetStream(handle_, stream));
  stream_ = stream;
}

}  // namespace scalebench::cudnn
