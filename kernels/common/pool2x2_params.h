// pool2x2_params.h — the sizes and storage of one 2×2 stride-2 max pooling on a GPU: x [n, c, h, w]
// → y [n, c, h/2, w/2]. Shared by cuDNN's (kernels/cudnn/pooling.h) and ours (kernels/cuda/maxpool2x2.h),
// which the layer picks between by --gpu-kernels. Plain data: no validation.
#pragma once

#include "kernels/common/tensor.h"

namespace scalebench {

struct Pool2x2Params {
  int n = 1, c = 1, h = 2, w = 2;  // input x [n, c, h, w], h, w >= 2
  DType dtype = DType::f32;
  Layout layout = Layout::NCHW;
};

}  // namespace scalebench
