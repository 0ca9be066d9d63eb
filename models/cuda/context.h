// context.h — one GPU's working set for a Model on the cuda backend: the device, a non-blocking
// stream, the cuDNN and cuBLAS handles bound to it, the workspace (grown on demand up to a cap) that
// cuDNN and our own kernels borrow scratch from, the convolution algorithm cache, and the run's
// precision, activation layout and determinism.
// Every GPU layer of a Model holds a reference to the same GpuContext; one per device, one thread.
//
// The rules the GPU layers share (so a GPU model is comparable with the CPU reference at any time):
//   * Parameter and gradient arenas are f32 in the CPU's layout (conv weights KCRS), whatever the
//     precision and activation layout. A layer that computes on another form (bf16 copies, KRSC
//     filters for NHWC) converts into buffers of its own each step and converts its gradients back.
//   * Activations and their gradients have act_dtype() (bf16 for bf16, else f32) and the context's
//     layout; logical shapes stay [n, c, h, w].
//   * Work is queued on stream(); nothing synchronises except where a host value is needed.
// CUDA builds only (pulls in CUDA, cuDNN and cuBLAS headers): include from models/cuda/ sources and GPU
// tests. Plain C++ code names the type through models/cuda/memory.h.
#pragma once

#include <cstddef>
#include <memory>

#include "kernels/common/gpu_kernels.h"
#include "kernels/common/precision.h"
#include "kernels/common/tensor.h"
#include "kernels/cuda/cublas_handle.h"
#include "kernels/cuda/device_buffer.h"
#include "kernels/cuda/workspace.h"
#include "kernels/cudnn/conv_algo.h"
#include "kernels/cudnn/handle.h"

namespace scalebench {

struct GpuOptions {
  int device = 0;
  Precision precision = Precision::fp32;
  Layout layout = Layout::NCHW;  // of activations
  bool deterministic = false;    // deterministic cuDNN algorithms only (same losses run to run)
  std::size_t workspace_cap = cuda::Workspace::kDefaultCap;
  GpuKernels kernels = GpuKernels::cudnn;  // batch norm and max pooling: cuDNN's or ours
};

class ComputeDevice;
// The ComputeDevice (kernels/common/device.h) of a new GpuContext made with `options`; its gpu() is
// that context (models/cuda/device.cpp). For GPU tests and benchmarks that start from GpuOptions.
std::unique_ptr<ComputeDevice> make_cuda_device(const GpuOptions& options);

class GpuContext {
 public:
  explicit GpuContext(const GpuOptions& options);  // makes options.device current, creates the rest
  GpuContext(const GpuContext&) = delete;
  GpuContext& operator=(const GpuContext&) = delete;

  const GpuOptions& options() const { return options_; }
  int device() const { return options_.device; }
  Precision precision() const { return options_.precision; }
  Layout layout() const { return options_.layout; }
  bool deterministic() const { return options_.deterministic; }
  bool own_kernels() const { return options_.kernels == GpuKernels::own; }  // batch norm, max pooling
  DType act_dtype() const { return compute_dtype(options_.precision); }

  cudaStream_t stream() const { return stream_.get(); }
  cudnn::Handle& cudnn() { return cudnn_; }
  cuda::CublasHandle& cublas() { return cublas_; }
  // Scratch of every op on this context (cuDNN convolutions, bias gradients, linear, softmax).
  cuda::Workspace& workspace() { return workspace_; }
  cudnn::ConvAlgoCache& algos() { return algos_; }
  cudnn::ConvContext conv() { return {cudnn_, workspace_, algos_}; }
  // A kept buffer of at least `bytes` for a conversion's intermediate (gpu_convert's cast before a
  // relayout): grown (after a synchronize, so no queued work still uses the old block) when too
  // small, never freed per call, so a warm step neither allocates nor waits for it.
  void* convert_scratch(std::size_t bytes);

  void synchronize() const { stream_.synchronize(); }

 private:
  struct DeviceSelect {
    explicit DeviceSelect(int device);
  };
  GpuOptions options_;
  DeviceSelect select_;  // before the stream and handles: they belong to the current device
  cuda::Stream stream_;
  cudnn::Handle cudnn_;
  cuda::CublasHandle cublas_;
  cuda::Workspace workspace_;
  cudnn::ConvAlgoCache algos_;
  cuda::DeviceBuffer convert_scratch_;
};

}  // namespace scalebench
