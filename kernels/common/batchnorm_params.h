// batchnorm_params.h — one batch normalisation over (N, H·W) per channel: sizes, eps and the
// running-statistics momentum (PyTorch's convention). Shared by the CPU kernels
// (kernels/cpu/batchnorm.h) and cuDNN (kernels/cudnn/batchnorm.h).
// Plain data: no validation, layout or dtype (the cuDNN spec adds those).
#pragma once

namespace scalebench {

struct BatchNormParams {
  int n = 1, c = 1, hw = 1;  // x [n, c, hw]
  float eps = 1e-5f;
  float momentum = 0.1f;  // running = (1 - momentum)·running + momentum·batch
};

}  // namespace scalebench
