// device_buffer.h — owning CUDA device memory (DeviceBuffer, move-only), a stream that is created
// and destroyed with its owner (Stream), explicit host<->device copies, and Workspace, the
// (pointer, bytes) pair the ops of this room take for their scratch memory.
// Not here: pinned host memory, memory pools, multi-device placement (allocations go to the current
// device), or any implicit copy. Includable by plain C++ (only cuda_runtime_api.h is pulled in).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace scalebench::cuda {

// Device memory of `bytes` bytes on the current device (cudaMalloc, 256-byte aligned), freed on
// destruction. A zero-byte buffer holds no allocation and data() is null.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* data() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
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

// Scratch device memory lent to an op for one call; each op has a *_workspace_bytes query.
struct Workspace {
  void* data = nullptr;
  std::size_t bytes = 0;
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
