// device_buffer.cpp — DeviceBuffer, Stream and the copy helpers (see device_buffer.h).
// Destructors cannot throw, so cudaFreeAsync / cudaStreamDestroy failures there are dropped (they
// only happen when the context is already gone, e.g. at process exit after a device error).
#include "kernels/cuda/device_buffer.h"

#include <utility>

#include "kernels/cuda/check.h"
#include "kernels/cuda/counters.h"
#include "kernels/cuda/device.h"

namespace scalebench::cuda {
namespace {

// Frees p (stream-ordered, on device's legacy stream) without throwing and without leaving
// another device current.
void release(void* p, int device) noexcept {
  if (p == nullptr) return;
  int prev = -1;
  (void)cudaGetDevice(&prev);
  if (prev != device) (void)cudaSetDevice(device);
  count_free();
  (void)cudaFreeAsync(p, cudaStreamLegacy);
  if (prev >= 0 && prev != device) (void)cudaSetDevice(prev);
}

void check_range(std::size_t bytes, std::size_t have, const char* what) {
  SB_CHECK(bytes <= have, "DeviceBuffer::{} of {} bytes exceeds its {} bytes", what, bytes, have);
}

}  // namespace

DeviceBuffer::DeviceBuffer(std::size_t bytes, int device) : bytes_(bytes), device_(device) {
  if (bytes == 0) return;  // no allocation, no device query (device() stays as given)
  if (device_ < 0) CUDA_CHECK(cudaGetDevice(&device_));
  DeviceGuard g(device_);
  count_allocation();
  count_sync();
  CUDA_CHECK(cudaMallocAsync(&ptr_, bytes, cudaStreamLegacy));
  const cudaError_t e = cudaStreamSynchronize(cudaStreamLegacy);
  if (e != cudaSuccess) {
    release(std::exchange(ptr_, nullptr), device_);
    CUDA_CHECK(e);
  }
}

DeviceBuffer::~DeviceBuffer() { release(ptr_, device_); }

DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept
    : ptr_(std::exchange(o.ptr_, nullptr)),
      bytes_(std::exchange(o.bytes_, 0)),
      device_(std::exchange(o.device_, -1)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    release(ptr_, device_);
    ptr_ = std::exchange(o.ptr_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
    device_ = std::exchange(o.device_, -1);
  }
  return *this;
}

void DeviceBuffer::upload(const void* host, std::size_t bytes) {
  check_range(bytes, bytes_, "upload");
  if (bytes == 0) return;
  DeviceGuard g(device_);
  copy_to_device(ptr_, host, bytes, cudaStreamLegacy);
}

void DeviceBuffer::download(void* host, std::size_t bytes) const {
  check_range(bytes, bytes_, "download");
  if (bytes == 0) return;
  DeviceGuard g(device_);
  copy_to_host(host, ptr_, bytes, cudaStreamLegacy);
}

void DeviceBuffer::zero(std::size_t bytes) {
  check_range(bytes, bytes_, "zero");
  if (bytes == 0) return;
  DeviceGuard g(device_);
  zero_on_device(ptr_, bytes, cudaStreamLegacy);
  count_sync();
  CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
}

Stream::Stream() { CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }

Stream::~Stream() {
  if (s_) (void)cudaStreamDestroy(s_);
}

Stream::Stream(Stream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}

Stream& Stream::operator=(Stream&& o) noexcept {
  if (this != &o) {
    if (s_) (void)cudaStreamDestroy(s_);
    s_ = std::exchange(o.s_, nullptr);
  }
  return *this;
}

void Stream::synchronize() const {
  count_sync();
  CUDA_CHECK(cudaStreamSynchronize(s_));
}

void copy_to_device(void* dst_device, const void* src_host, std::size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return;
  CUDA_CHECK(cudaMemcpyAsync(dst_device, src_host, bytes, cudaMemcpyHostToDevice, stream));
  count_sync();
  CUDA_CHECK(cudaStreamSynchronize(stream));
}

void copy_to_host(void* dst_host, const void* src_device, std::size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return;
  CUDA_CHECK(cudaMemcpyAsync(dst_host, src_device, bytes, cudaMemcpyDeviceToHost, stream));
  count_sync();
  CUDA_CHECK(cudaStreamSynchronize(stream));
}

void copy_on_device(void* dst_device, const void* src_device, std::size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return;
  CUDA_CHECK(cudaMemcpyAsync(dst_device, src_device, bytes, cudaMemcpyDeviceToDevice, stream));
}

void zero_on_device(void* dst_device, std::size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return;
  CUDA_CHECK(cudaMemsetAsync(dst_device, 0, bytes, stream));
}

}  // namespace scalebench::cuda
