// pinned.h — PinnedBuffer: page-locked host memory (cudaMallocHost), so a host-to-device copy from it
// runs asynchronously on a stream (a copy from pageable memory is staged and returns only once the
// source was read), and an Event (timing disabled) to know when such a copy is done. Move-only.
// Allocation is counted (counters.h). Not here: pools, mapped (zero-copy) memory, the staged
// transport's host blocks (models/cuda/stager.cpp keeps its own).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace scalebench::cuda {

class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t bytes);
  ~PinnedBuffer();
  PinnedBuffer(PinnedBuffer&& o) noexcept;
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  void* data() const { return p_; }
  std::size_t bytes() const { return bytes_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(p_);
  }

 private:
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

// A CUDA event without timing, created with its owner. record() queues it on a stream; done() asks
// without waiting; wait() blocks until it has happened (counted as a lagged wait when it had not:
// the caller waits for work queued earlier, not for the whole stream).
class Event {
 public:
  Event();
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  void record(cudaStream_t stream);
  bool done() const;
  void wait() const;

 private:
  cudaEvent_t e_ = nullptr;
};

}  // namespace scalebench::cuda
