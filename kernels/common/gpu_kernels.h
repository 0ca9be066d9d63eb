// gpu_kernels.h — which kernels the cuda backend runs for batch norm and 2×2 max pooling
// (train --gpu-kernels): cudnn, cuDNN's (the default), or own, ours (kernels/cuda/batchnorm.h:
// batch statistics, normalisation and a fused ReLU in a forward of two passes over x, the ReLU's
// mask fused into the backward; kernels/cuda/maxpool2x2.h: the argmax kept, the backward routed by
// it); own also lets a convolution take the ReLU after it (cuDNN's fused convolution + bias + ReLU,
// kernels/cudnn/conv2d_bias_relu.h). The default stays cudnn until a GPU run measures own against
// it (docs/gpu.md).
// Deliberately CUDA-free: the CLI and run configs name it without the GPU backend built.
#pragma once

#include <array>

#include "kernels/common/enum_names.h"

namespace scalebench {

enum class GpuKernels { cudnn, own };
template <>
struct EnumNames<GpuKernels> {
  static constexpr std::array<EnumEntry<GpuKernels>, 2> entries{{{GpuKernels::cudnn, "cudnn"}, {GpuKernels::own, "own"}}};
};

}  // namespace scalebench
