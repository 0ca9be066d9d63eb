// handle.h — RAII for the cudnnHandle_t every cuDNN call needs, bound to one CUDA stream.
// Not here: stream creation (the owner passes its stream), scratch memory (kernels/cuda/workspace.h),
// descriptors (descriptors.h), algorithm choice (conv_algo.h). Not thread-safe; one per device and
// stream.
// The handle is created on the device current at construction; call from that device afterwards.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

#include "kernels/cuda/workspace.h"

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

}  // namespace scalebench::cudnn
