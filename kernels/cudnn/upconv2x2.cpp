// upconv2x2.cpp — the 2×2/2 up-convolution as the adjoint convolution C (see upconv2x2.h
// for the mapping). In ConvProblem terms of C: prob.x is the up-conv output/dy [n, c_out, 2h, 2w],
// prob.y the up-conv input/dx [n, c_in, h, w], prob.w the weight [c_in, c_out, 2, 2].
// Not here: the bias (kernels/cuda/bias_act.h, bias_grad.h), algorithm choice (conv_algo.cpp).
#include "kernels/cudnn/upconv2x2.h"

#include "kernels/cudnn/check.h"
#include "kernels/cudnn/descriptors.h"

namespace scalebench::cudnn {
namespace {
constexpr float kOne = 1.0f, kZero = 0.0f;
}  // namespace

ConvKey upconv_key(const UpConv2x2Spec& s) {
  const UpConvParams& p = s.p;
  SB_CHECK(p.n > 0 && p.c_in > 0 && p.c_out > 0 && p.h_in > 0 && p.w_in > 0,
           "upconv2x2 (cuDNN): bad sizes n={} c_in={} c_out={} h_in={} w_in={}", p.n, p.c_in, p.c_out, p.h_in,
           p.w_in);
  ConvKey k;
  k.n = p.n, k.c = p.c_out, k.h = 2 * p.h_in, k.w = 2 * p.w_in;
  k.k = p.c_in, k.r = 2, k.s = 2;
  k.pad = 0, k.stride = 2;
  k.dtype = s.dtype, k.layout = s.layout, k.precision = s.precision, k.deterministic = s.deterministic;
  validate(k, "upconv2x2 (cuDNN)");
  return k;
}

void upconv2x2_forward(const ConvContext& ctx, const UpConv2x2Spec& s, const void* x, const void* w, void* y) {
  SB_CHECK(x && w && y, "upconv2x2_forward (cuDNN): null operand");
  const ConvProblem& prob = cached_conv_problem(upconv_key(s));
  // C backward-data: dy := x (C's output shape), dx := y (C's input shape).
  const AlgoChoice a = ctx.algos.backward_data(ctx.handle, ctx.workspace, prob, w, x, y);
  void* ws = ctx.workspace.get(a.workspace_bytes);
  CUDNN_CHECK(cudnnConvolutionBackwardData(ctx.handle.get(), &kOne, prob.w.get(), w, prob.y.get(), x,
                                           prob.conv.get(), static_cast<cudnnConvolutionBwdDataAlgo_t>(a.algo), ws,
                                           a.workspace_bytes, &kZero, prob.x.get(), y));
}

void upconv2x2_backward_data(const ConvContext& ctx, const UpConv2x2Spec& s, const void* dy, const void* w,
                             void* dx) {
  SB_CHECK(dy && w && dx, "upconv2x2_backward_data (cuDNN): null operand");
  const ConvProblem& prob = cached_conv_problem(upconv_key(s));
  // C forward: x := dy, y := dx.
  const AlgoChoice a = ctx.algos.forward(ctx.handle, ctx.workspace, prob, dy, w, dx);
  void* ws = ctx.workspace.get(a.workspace_bytes);
  CUDNN_CHECK(cudnnConvolutionForward(ctx.handle.get(), &kOne, prob.x.get(), dy, prob.w.get(), w, prob.conv.get(),
                                      static_cast<cudnnConvolutionFwdAlgo_t>(a.algo), ws, a.workspace_bytes, &kZero,
                                      prob.y.get(), dx));
}

void upconv2x2_backward_filter(const ConvContext& ctx, const UpConv2x2Spec& s, const void* x, const void* dy,
                               void* dw) {
  SB_CHECK(x && dy && dw, "upconv2x2_backward_filter (cuDNN): null operand");
  const ConvProblem& prob = cached_conv_problem(upconv_key(s));
  // C backward-filter: C's input := dy, C's output gradient := x.
  const AlgoChoice a = ctx.algos.backward_filter(ctx.handle, ctx.workspace, prob, dy, x, dw);
  void* ws = ctx.workspace.get(a.workspace_bytes);
  CUDNN_CHECK(cudnnConvolutionBackwardFilter(ctx.handle.get(), &kOne, prob.x.get(), dy, prob.y.get(), x,
                                             prob.conv.get(), static_cast<cudnnConvolutionBwdFilterAlgo_t>(a.algo),
                                             ws, a.workspace_bytes, &kZero, prob.w.get(), dw));
}

}  // namespace scalebench::cudnn
