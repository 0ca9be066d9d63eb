// conv2d_bias_relu.cpp — the fused convolution + bias + ReLU forward (see conv2d_bias_relu.h).
// The bias descriptor is [1, c_out, 1, 1] f32 (one value per channel is the same memory in NCHW and
// NHWC); z aliases y with alpha2 = 0 (cuDNN reads no z then, but wants a descriptor). The ReLU
// descriptor is made once per thread (as the cached descriptors of descriptors.h), so a warm step
// creates none.
#include "kernels/cudnn/conv2d_bias_relu.h"

#include "kernels/cudnn/check.h"
#include "kernels/cudnn/descriptors.h"

namespace scalebench::cudnn {
namespace {
constexpr float kOne = 1.0f, kZero = 0.0f;
}  // namespace

bool conv2d_bias_relu_applies(const Conv2dSpec& s) { return s.dtype == DType::f32; }

bool conv2d_bias_relu_forward(const ConvContext& ctx, const Conv2dSpec& s, const void* x, const void* w,
                              const float* bias, void* y) {
  SB_CHECK(x && w && bias && y, "conv2d_bias_relu_forward (cuDNN): null operand");
  SB_CHECK(conv2d_bias_relu_applies(s), "conv2d_bias_relu_forward (cuDNN): {} data is not fused here",
           to_string(s.dtype));
  const ConvProblem& prob = cached_conv_problem(conv_key(s));
  const TensorDesc& bias_desc = cached_tensor_desc(DType::f32, Layout::NCHW, 1, s.p.c_out, 1, 1);
  static thread_local const ActivationDesc relu(CUDNN_ACTIVATION_RELU);
  const AlgoChoice a = ctx.algos.forward(ctx.handle, ctx.workspace, prob, x, w, y);
  void* ws = ctx.workspace.get(a.workspace_bytes);
  const cudnnStatus_t st = cudnnConvolutionBiasActivationForward(
      ctx.handle.get(), &kOne, prob.x.get(), x, prob.w.get(), w, prob.conv.get(),
      static_cast<cudnnConvolutionFwdAlgo_t>(a.algo), ws, a.workspace_bytes, &kZero, prob.y.get(), y, bias_desc.get(),
      bias, relu.get(), prob.y.get(), y);
  if (CUDNN_STATUS_CATEGORY(st) == CUDNN_STATUS_NOT_SUPPORTED) return false;  // cuDNN 9: 3000-3999
  CUDNN_CHECK(st);
  return true;
}

}  // namespace scalebench::cudnn
