// conv2d.h — 2-D convolution through cuDNN: forward, backward data, backward filter, with the CPU
// reference's semantics (kernels/cpu/conv2d.h: cross-correlation,
// symmetric zero padding, floor output size, Conv2dParams) in NCHW or NHWC, f32 or bf16.
// Logical weight shape is the CPU's [c_out, c_in, k_h, k_w]; in memory it follows the activation
// layout: KCRS for NCHW (identical to the CPU arrays), KRSC for NHWC (cuDNN's channels-last filter).
// Every output is overwritten (beta = 0), never accumulated. Algorithms come from ctx.algos.
// Not here: the bias and its gradient (f32 in every precision: kernels/cuda/bias_act.h and
// bias_grad.h, as the layers use them), dilation, groups, fused activation; descriptors are rebuilt
// per call (host-side, µs).
#pragma once

#include "kernels/common/conv2d_params.h"
#include "kernels/common/tensor.h"
#include "kernels/cudnn/conv_algo.h"
#include "kernels/cudnn/types.h"

namespace scalebench::cudnn {

struct Conv2dSpec {
  Conv2dParams p;  // sizes, k_h/k_w, stride, pad (as the CPU reference)
  DType dtype = DType::f32;  // data and weights; must match precision (f32 for fp32/tf32, bf16 for bf16)
  Layout layout = Layout::NCHW;
  Precision precision = Precision::fp32;
  bool deterministic = false;  // choose only deterministic algorithms
};

// The algorithm-cache key of the spec (requires stride and pad equal in both dims, as Conv2dParams).
ConvKey conv_key(const Conv2dSpec& s);

// y [n, c_out, h_out, w_out] = conv(x [n, c_in, h_in, w_in], w [c_out, c_in, k_h, k_w]).
void conv2d_forward(const ConvContext& ctx, const Conv2dSpec& s, const void* x, const void* w, void* y);
// dx [n, c_in, h_in, w_in] from dy [n, c_out, h_out, w_out] and w [c_out, c_in, k_h, k_w].
void conv2d_backward_data(const ConvContext& ctx, const Conv2dSpec& s, const void* dy, const void* w, void* dx);
// dw [c_out, c_in, k_h, k_w] from x [n, c_in, h_in, w_in] and dy [n, c_out, h_out, w_out].
void conv2d_backward_filter(const ConvContext& ctx, const Conv2dSpec& s, const void* x, const void* dy, void* dw);

}  // namespace scalebench::cudnn
