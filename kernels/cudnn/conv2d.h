// conv2d.h — 2-D convolution through cuDNN: forward (+ bias), backward data, backward filter
// (+ bias gradient), with the CPU reference's semantics (kernels/cpu/conv2d.h: cross-correlation,
// symmetric zero padding, floor output size, Conv2dParams) in NCHW or NHWC, f32 or bf16.
// Logical weight shape is the CPU's [c_out, c_in, k_h, k_w]; in memory it follows the activation
// layout: KCRS for NCHW (identical to the CPU arrays), KRSC for NHWC (cuDNN's channels-last filter).
// Every output is overwritten (beta = 0), never accumulated. Algorithms come from ctx.algos.
// Not here: dilation, groups, fused activation; descriptors are rebuilt per call (host-side, µs).
#pragma once

#include "kernels/common/conv2d_params.h"
#include "kernels/common/tensor.h"
#include "kernels/cudnn/conv_algo.h"
#include "kernels/cudnn/types.h"

namespace scalebench::cudnn {

struct Conv2dSpec {
  Conv2dParams p;  // sizes, k_h/k_w, stride, pad (as the CPU reference)
  DType dtype = DType::f32;  // data, weights and bias; must match precision (f32 for fp32/tf32, bf16 for bf16)
  Layout layout = Layout::NCHW;
  Precision precision = Precision::fp32;
  bool deterministic = false;  // choose only deterministic algorithms
};

// The algorithm-cache key of the spec (requires stride and pad equal in both dims, as Conv2dParams).
ConvKey conv_key(const Conv2dSpec& s);

// y [n, c_out, h_out, w_out] = conv(x [n, c_in, h_in, w_in], w [c_out, c_in, k_h, k_w]) + bias [c_out].
// bias may be null.
void conv2d_forward(const ConvContext& ctx, const Conv2dSpec& s, const void* x, const void* w, const void* bias,
                    void* y);
// dx [n, c_in, h_in, w_in] from dy [n, c_out, h_out, w_out] and w [c_out, c_in, k_h, k_w].
void conv2d_backward_data(const ConvContext& ctx, const Conv2dSpec& s, const void* dy, const void* w, void* dx);
// dw [c_out, c_in, k_h, k_w] from x [n, c_in, h_in, w_in] and dy [n, c_out, h_out, w_out];
// db [c_out] (nullable) = Σ dy over n, h, w.
void conv2d_backward_filter(const ConvContext& ctx, const Conv2dSpec& s, const void* x, const void* dy, void* dw,
                            void* db);

// Per-channel bias, shared with the up-convolution: y [n, c, h, w] += bias [c] (cudnnAddTensor), and
// db [c] = Σ_{n,h,w} dy [n, c, h, w] (overwrites; cudnnConvolutionBackwardBias for f32, our
// deterministic reduction in `workspace` plus one rounding for bf16/f16). bias/db have `dtype`.
void add_bias(Handle& handle, DType dtype, Layout layout, int n, int c, int h, int w, const void* bias, void* y);
void bias_backward(Handle& handle, Workspace& workspace, DType dtype, Layout layout, int n, int c, int h, int w,
                   const void* dy, void* db);

}  // namespace scalebench::cudnn
