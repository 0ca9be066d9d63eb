// handle.h — RAII for the two per-device resources every cuDNN call needs: a cudnnHandle_t bound to
// one CUDA stream, and a Workspace (device scratch that grows on demand up to a fixed cap).
// Not here: stream creation (the owner passes its stream), descriptors (descriptors.h), algorithm
// choice (conv_algo.h). Neither class is thread-safe; one of each per device and stream.
// The handle is created on the device current at construction; call from that device afterwards.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

struct cudnnContext;  // cudnn.h: typedef struct cudnnContext* cudnnHandle_t (kept out of this header)

namespace scalebench::cudnn {

class Handle {
 public:
  explicit Handle(cudaStream_t stream);  // cudnnCreate + cudnnSetStream
  ~Handle();
  Handle(Handle&& other) noexcept;
  Handle& operator=(Handle&& other) noexcept;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  cudnnContext* get() const { return handle_; }  // the cudnnHandle_t
  cudaStream_t stream() const { return stream_; }
  void set_stream(cudaStream_t stream);  // rebinds all later calls to `stream`

 private:
  cudnnContext* handle_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

// Device scratch for cuDNN algorithms. get(bytes) returns at least `bytes` of device memory, growing
// (free + cudaMalloc, after a device synchronize so no queued kernel still uses the old block) when
// needed; a request above the cap throws scalebench::Error naming the cap. Memory is never shrunk.
class Workspace {
 public:
  static constexpr std::size_t kDefaultCap = std::size_t(512) << 20;  // 512 MiB

  explicit Workspace(std::size_t cap_bytes = kDefaultCap);
  ~Workspace();
  Workspace(Workspace&& other) noexcept;
  Workspace& operator=(Workspace&& other) noexcept;
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  void* get(std::size_t bytes);  // nullptr when bytes == 0 and nothing was ever allocated
  void* data() const { return data_; }
  std::size_t size() const { return size_; }  // bytes currently allocated (<= cap)
  std::size_t cap() const { return cap_; }

 private:
  void release() noexcept;
  void* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t cap_ = 0;
  int device_ = -1;  // device of data_, checked on growth
};

}  // namespace scalebench::cudnn
