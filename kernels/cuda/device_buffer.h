// device_buffer.h — owning CUDA device memory (DeviceBuffer, move-only; the one device buffer of the
// suite: kernels, models, tests and the nccl transport), a stream that is created and destroyed with
// its owner (Stream), and explicit host<->device copies.
// Not here: pinned host memory, pool tuning, peer copies, op scratch (workspace.h), or any implicit
// copy. Includable by plain C++ (only cuda_runtime_api.h is pulled in).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace scalebench::cuda {

// Device memory of `bytes` bytes on `device` (-1: the current device); a zero-byte buffer holds no
// allocation and data() is null. Allocation and free are stream-ordered on the
// device's legacy default stream (cudaMallocAsync, then a wait for the allocation; cudaFreeAsync):
// unlike cudaFree, dropping a buffer never synchronises the device, so it cannot hang behind work
// that waits on another thread (a peer's NCCL collective in a device group). The free is ordered
// after legacy-stream work only: the owner finishes the work of its non-blocking streams that uses
// the buffer (a download, a synchronize, a host-synchronous collective) before dropping it.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes, int device = -1);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* data() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }
  int device() const { return device_; }  // -1 for an empty buffer made without a device
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }

  // Host copies into / out of the first `bytes` bytes and zeroing them, on this buffer's device and
  // its legacy default stream; each returns once complete. They never wait for work queued on
  // non-blocking streams (the nccl transport's, a GpuContext's): order such work yourself.
  void upload(const void* host, std::size_t bytes);
  void download(void* host, std::size_t bytes) const;
  void zero(std::size_t bytes);

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
  int device_ = -1;
};

// A non-blocking CUDA stream (cudaStreamNonBlocking: no implicit sync with the legacy default
// stream), destroyed with its owner. Move-only.
class Stream {
 public:
  Stream();
  ~Stream();
  Stream(Stream&& o) noexcept;
  Stream& operator=(Stream&& o) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  cudaStream_t get() const { return s_; }
  void synchronize() const;

 private:
  cudaStream_t s_ = nullptr;
};

// Copies between host and device memory, ordered on `stream`. copy_to_device / copy_to_host return
// once the copy is complete (they synchronise the stream), so the host buffer may be reused or read
// at once. copy_on_device and zero_on_device are asynchronous.
void copy_to_device(void* dst_device, const void* src_host, std::size_t bytes, cudaStream_t stream);
void copy_to_host(void* dst_host, const void* src_device, std::size_t bytes, cudaStream_t stream);
void copy_on_device(void* dst_device, const void* src_device, std::size_t bytes, cudaStream_t stream);
void zero_on_device(void* dst_device, std::size_t bytes, cudaStream_t stream);

// Typed conveniences for setup code and tests.
template <class T>
DeviceBuffer upload(const std::vector<T>& host, cudaStream_t stream) {
  DeviceBuffer b(host.size() * sizeof(T));
  copy_to_device(b.data(), host.data(), b.bytes(), stream);
  return b;
}
template <class T>
std::vector<T> download(const void* src_device, std::size_t count, cudaStream_t stream) {
  std::vector<T> host(count);
  copy_to_host(host.data(), src_device, count * sizeof(T), stream);
  return host;
}

}  // namespace scalebench::cuda
