// info.cpp — small GPU helpers of comm.h: DeviceBuffer (device floats for
// commbench and the tests), the visible device count, and the loaded NCCL version.
#include <fmt/format.h>

#include "harness/comm/nccl/check.h"
#include "harness/comm/nccl/comm.h"
#include "harness/comm/nccl/state.h"
#include "kernels/cuda/check.h"

namespace scalebench::comm {

using nccl_detail::DeviceGuard;

int cuda_device_count() noexcept {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

std::string nccl_version() {
  int v = 0;
  NCCL_CHECK(ncclGetVersion(&v));
  // Codes since 2.9 are MAJOR*10000 + MINOR*100 + PATCH; before, MAJOR*1000 + MINOR*100 + PATCH.
  if (v >= 10000) return fmt::format("{}.{}.{}", v / 10000, v / 100 % 100, v % 100);
  return fmt::format("{}.{}.{}", v / 1000, v / 100 % 10, v % 100);
}

// Stream-ordered allocation on the legacy default stream: unlike cudaFree, freeing never
// synchronises the device, so a buffer dropped while another communicator of the device still
// waits for a peer cannot hang the thread that drops it.
DeviceBuffer::DeviceBuffer(std::size_t count, int device) : count_(count), device_(device) {
  DeviceGuard g(device_);
  CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ptr_), std::max<std::size_t>(1, count) * sizeof(float),
                             cudaStreamLegacy));
  CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_ == nullptr) return;
  int prev = -1;
  (void)cudaGetDevice(&prev);
  (void)cudaSetDevice(device_);
  (void)cudaFreeAsync(ptr_, cudaStreamLegacy);
  if (prev >= 0) (void)cudaSetDevice(prev);
}

void DeviceBuffer::upload(const float* host, std::size_t n, std::size_t offset) {
  SB_CHECK(offset + n <= count_, "DeviceBuffer::upload of {} at {} exceeds {} elements", n, offset, count_);
  DeviceGuard g(device_);
  CUDA_CHECK(cudaMemcpy(ptr_ + offset, host, n * sizeof(float), cudaMemcpyHostToDevice));
}

void DeviceBuffer::download(float* host, std::size_t n, std::size_t offset) const {
  SB_CHECK(offset + n <= count_, "DeviceBuffer::download of {} at {} exceeds {} elements", n, offset, count_);
  DeviceGuard g(device_);
  CUDA_CHECK(cudaMemcpy(host, ptr_ + offset, n * sizeof(float), cudaMemcpyDeviceToHost));
}

void DeviceBuffer::zero(std::size_t n) {
  SB_CHECK(n <= count_, "DeviceBuffer::zero of {} exceeds {} elements", n, count_);
  DeviceGuard g(device_);
  // The legacy default stream: ordered with other legacy-stream work, not with the transport's
  // non-blocking streams, so this never waits on communication in flight.
  CUDA_CHECK(cudaMemsetAsync(ptr_, 0, n * sizeof(float), cudaStreamLegacy));
  CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
}

}  // namespace scalebench::comm
