// upconv2x2.h — the U-Net 2×2 stride-2 transposed convolution through cuDNN, matching
// kernels/cpu/upconv2x2.h: x [n, c_in, h, w] → y [n, c_out, 2h, 2w], weight [c_in, c_out, 2, 2]
// (PyTorch ConvTranspose2d order).
// It is the adjoint of the ordinary convolution C: input [n, c_out, 2h, 2w], filter
// [k = c_in, c = c_out, 2, 2], stride 2, pad 0, output [n, c_in, h, w]. C's filter descriptor
// [c_in, c_out, 2, 2] is exactly the up-conv weight array, so no transpose is needed:
//   up-conv forward         = C backward-data   (dy := x, w, dx := y)
//   up-conv backward-data   = C forward         (x := dy, w, y := dx)
//   up-conv backward-filter = C backward-filter (x := dy, dy := x, dw)
// In NHWC the weight is stored as C's channels-last filter: [c_in, 2, 2, c_out].
// Outputs are overwritten. Not here: the bias and its gradient (f32: kernels/cuda/bias_act.h and
// bias_grad.h, as the layer uses them), other kernel sizes, strides or output padding.
#pragma once

#include "kernels/common/upconv2x2_params.h"
#include "kernels/common/tensor.h"
#include "kernels/cudnn/conv_algo.h"
#include "kernels/cudnn/types.h"

namespace scalebench::cudnn {

struct UpConv2x2Spec {
  UpConvParams p;  // n, c_in, h_in, w_in, c_out
  DType dtype = DType::f32;  // must match precision, as for conv2d
  Layout layout = Layout::NCHW;
  Precision precision = Precision::fp32;
  bool deterministic = false;
};

// The key of the convolution C described above (what the algorithm cache stores).
ConvKey upconv_key(const UpConv2x2Spec& s);

// y [n, c_out, 2h, 2w] = upconv(x [n, c_in, h, w], w [c_in, c_out, 2, 2]).
void upconv2x2_forward(const ConvContext& ctx, const UpConv2x2Spec& s, const void* x, const void* w, void* y);
// dx [n, c_in, h, w] from dy [n, c_out, 2h, 2w] and w [c_in, c_out, 2, 2].
void upconv2x2_backward_data(const ConvContext& ctx, const UpConv2x2Spec& s, const void* dy, const void* w,
                             void* dx);
// dw [c_in, c_out, 2, 2] from x [n, c_in, h, w] and dy [n, c_out, 2h, 2w].
void upconv2x2_backward_filter(const ConvContext& ctx, const UpConv2x2Spec& s, const void* x, const void* dy,
                               void* dw);

}  // namespace scalebench::cudnn
