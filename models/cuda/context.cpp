// context.cpp — GpuContext construction (see context.h).
// Not here: the handles, stream and workspace themselves (kernels/cuda, kernels/cudnn).
#include "models/cuda/context.h"

#include "kernels/cuda/check.h"

namespace scalebench {

GpuContext::DeviceSelect::DeviceSelect(int device) {
  int count = 0;
  CUDA_CHECK(cudaGetDeviceCount(&count));
  SB_REQUIRE(device >= 0 && device < count, "GPU {} does not exist: this process sees {} CUDA device(s)", device,
             count);
  CUDA_CHECK(cudaSetDevice(device));
}

GpuContext::GpuContext(const GpuOptions& options)
    : options_(options),
      select_(options.device),
      stream_(),
      cudnn_(stream_.get()),
      cublas_(stream_.get()),
      workspace_(options.workspace_cap),
      algos_() {}

void* GpuContext::convert_scratch(std::size_t bytes) {
  if (convert_scratch_.bytes() < bytes) {
    synchronize();  // the old block's last users are queued on stream_; its free is not ordered after them
    convert_scratch_ = cuda::DeviceBuffer(bytes, options_.device);
  }
  return convert_scratch_.data();
}

}  // namespace scalebench
