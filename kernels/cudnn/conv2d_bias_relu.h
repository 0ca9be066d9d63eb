// conv2d_bias_relu.h — convolution + bias + ReLU forward in one cuDNN call
// (cudnnConvolutionBiasActivationForward: y = max(conv(x, w) + bias, 0)) where cuDNN allows it, for
// a convolution layer that took the ReLU after it (train --gpu-kernels own). Tried only for f32 data
// (fp32 and tf32 precisions): the bias here is f32 in every precision, and the fused call wants a
// bias of the data's type in its float configuration; with bf16 data the caller runs the separate
// path. A problem cuDNN refuses (CUDNN_STATUS_NOT_SUPPORTED, e.g. an algorithm the fused call does
// not implement) is reported, not raised, so the caller falls back and need not try again.
// Same algorithm, workspace and descriptors as conv2d_forward (conv2d.h); cuDNN's ReLU propagates
// NaN where the CPU's maps it to 0.
// Not here: the backward (the ReLU's mask is a pass of its own, kernels/cuda/bias_act.h), other
// activations, the residual input z (alpha2 = 0).
#pragma once

#include "kernels/cudnn/conv2d.h"

namespace scalebench::cudnn {

// Whether the fused call is worth trying for this spec (f32 data).
bool conv2d_bias_relu_applies(const Conv2dSpec& s);

// y [n, c_out, h_out, w_out] = max(conv(x, w) + bias [c_out] (f32, device), 0). Returns false, with
// nothing written, where cuDNN does not support the fused call for this problem; throws on any
// other failure.
bool conv2d_bias_relu_forward(const ConvContext& ctx, const Conv2dSpec& s, const void* x, const void* w,
                              const float* bias, void* y);

}  // namespace scalebench::cudnn
