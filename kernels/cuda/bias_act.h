// bias_act.h — per-channel bias plus optional ReLU in one pass over an activation, and the ReLU
// backward. Activations are NCHW [n, c, hw] or NHWC [n, hw, c] in f32, bf16 or f16 (math in fp32,
// one rounding on store); the bias is always f32. Same results as kernels/cpu/relu.h after a bias
// add (ReLU maps NaN and -0 to +0, as x > 0 ? x : 0 does). The bias gradient is in bias_grad.h.
// Not here: other activations, fused scaling, or residual adds.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/common/tensor.h"

namespace scalebench::cuda {

enum class Activation : std::uint8_t { none, relu };

// A per-channel view of an activation: [n, c, hw] (NCHW) or [n, hw, c] (NHWC), hw = h·w.
struct ChannelParams {
  int n = 1, c = 1;
  std::int64_t hw = 1;
  Layout layout = Layout::NCHW;
  DType dtype = DType::f32;  // of the activation (x, y, dy); bias and its gradient are f32
  std::int64_t count() const { return std::int64_t(n) * c * hw; }
};

// y = act(x + bias[channel]); bias may be null (activation only). x == y (in place) is allowed.
void bias_act_forward(const ChannelParams& p, const void* x, const float* bias, Activation act, void* y,
                      cudaStream_t stream);

// dx = y > 0 ? dy : 0 over `count` elements of `dtype` (uses the forward output; dy == dx allowed).
void relu_backward(std::int64_t count, DType dtype, const void* y, const void* dy, void* dx, cudaStream_t stream);

}  // namespace scalebench::cuda
