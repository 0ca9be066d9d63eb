// conv2d_params.h — the sizes of one 2-D convolution (NCHW logical shapes, square stride and
// padding, floor output size), shared by the CPU kernels (kernels/cpu/conv2d.h) and cuDNN
// (kernels/cudnn/conv2d.h) so both backends describe a problem the same way.
// Plain data: no validation, no layout, dtype or algorithm choice; dilation and groups do not exist.
#pragma once

namespace scalebench {

struct Conv2dParams {
  int n = 1, c_in = 1, h_in = 1, w_in = 1;  // input  x [n, c_in, h_in, w_in]
  int c_out = 1, k_h = 3, k_w = 3;          // weight w [c_out, c_in, k_h, k_w], bias [c_out]
  int stride = 1, pad = 0;                  // same in both spatial dims
  int h_out() const { return (h_in + 2 * pad - k_h) / stride + 1; }
  int w_out() const { return (w_in + 2 * pad - k_w) / stride + 1; }
};

}  // namespace scalebench
