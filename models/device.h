// device.h — making the ComputeDevice a run trains on (kernels/common/device.h), from the backend
// and its options. The CPU device comes from kernels/cpu; the CUDA one from models/cuda/device.cpp,
// which CMake compiles only with the CUDA backend — a build without it links models/nocuda/ instead,
// whose make_cuda_device says that in one line. So no caller needs a build-time branch.
// What it deliberately does not do: decide which backend a run uses (train options) or which GPU a
// rank drives (the transports do).
#pragma once

#include <cstddef>
#include <memory>

#include "kernels/common/device.h"
#include "kernels/common/gpu_kernels.h"
#include "kernels/common/precision.h"
#include "models/ctx.h"

namespace scalebench {

struct DeviceOptions {
  Backend backend = Backend::cpu;
  int index = 0;                       // cuda: the GPU
  Precision precision = Precision::fp32;
  Layout layout = Layout::NCHW;        // activations (cuda)
  bool deterministic = false;          // cuda: deterministic cuDNN algorithms
  GpuKernels gpu_kernels = GpuKernels::cudnn;  // cuda: batch norm and max pooling (kernels/common/gpu_kernels.h)
  // cuda: the cuDNN workspace cap in bytes; kWorkspaceFromFreeMemory (the default): sized from the
  // GPU's free memory (kernels/cuda/workspace.h; models/cuda/device.cpp checks the two agree).
  static constexpr std::size_t kWorkspaceFromFreeMemory = ~std::size_t{0};
  std::size_t workspace_bytes = kWorkspaceFromFreeMemory;
};

std::unique_ptr<ComputeDevice> make_device(const DeviceOptions& o);
// CUDA builds: models/cuda/device.cpp; other builds: models/nocuda/device.cpp (throws the reason).
std::unique_ptr<ComputeDevice> make_cuda_device(const DeviceOptions& o);
bool cuda_backend_built();  // whether make_cuda_device can make one in this build

inline Backend backend_of(const ComputeDevice& d) { return d.where().is_cpu() ? Backend::cpu : Backend::cuda; }

}  // namespace scalebench
