// upconv2x2_params.h — the sizes of one 2×2 stride-2 transposed convolution (the U-Net
// up-convolution): x [n, c_in, h, w] → y [n, c_out, 2h, 2w], weight [c_in, c_out, 2, 2]. Shared by
// the CPU kernels (kernels/cpu/upconv2x2.h) and cuDNN (kernels/cudnn/upconv2x2.h).
// Plain data: no validation; other kernel sizes, strides or output padding are not described.
#pragma once

namespace scalebench {

struct UpConvParams {
  int n = 1, c_in = 1, h_in = 1, w_in = 1, c_out = 1;  // x [n,c_in,h,w] -> y [n,c_out,2h,2w]
};

}  // namespace scalebench
