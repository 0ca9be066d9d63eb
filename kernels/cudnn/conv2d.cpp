// conv2d.cpp — cuDNN convolution forward/backward (see conv2d.h).
// Each call: the key's descriptors (cached per thread: descriptors.h), the cached (or freshly found) algorithm, its workspace from
// ctx.workspace, then one cuDNN call with alpha = 1, beta = 0 (fp32 scaling factors, as cuDNN wants
// for f32/bf16/f16 data).
// Not here: the bias (kernels/cuda/bias_act.h, bias_grad.h), algorithm choice (conv_algo.cpp).
#include "kernels/cudnn/conv2d.h"

#include "kernels/cudnn/check.h"
#include "kernels/cudnn/descriptors.h"

namespace scalebench::cudnn {
namespace {
constexpr float kOne = 1.0f, kZero = 0.0f;
}  // namespace

ConvKey conv_key(const Conv2dSpec& s) {
  const Conv2dParams& p = s.p;
  SB_CHECK(p.k_h > 0 && p.k_w > 0, "conv2d (cuDNN): bad kernel {}x{}", p.k_h, p.k_w);
  ConvKey k;
  k.n = p.n, k.c = p.c_in, k.h = p.h_in, k.w = p.w_in;
  k.k = p.c_out, k.r = p.k_h, k.s = p.k_w;
  k.pad = p.pad, k.stride = p.stride;
  k.dtype = s.dtype, k.layout = s.layout, k.precision = s.precision, k.deterministic = s.deterministic;
  validate(k, "conv2d (cuDNN)");
  return k;
}

void conv2d_forward(const ConvContext& ctx, const Conv2dSpec& s, const void* x, const void* w, void* y) {
  SB_CHECK(x && w && y, "conv2d_forward (cuDNN): null operand");
  const ConvProblem& prob = cached_conv_problem(conv_key(s));
  const AlgoChoice a = ctx.algos.forward(ctx.handle, ctx.workspace, prob, x, w, y);
  void* ws = ctx.workspace.get(a.workspace_bytes);
  CUDNN_CHECK(cudnnConvolutionForward(ctx.handle.get(), &kOne, prob.x.get(), x, prob.w.get(), w, prob.conv.get(),
                                      static_cast<cudnnConvolutionFwdAlgo_t>(a.algo), ws, a.workspace_bytes, &kZero,
                                      prob.y.get(), y));
}

void conv2d_backward_data(const ConvContext& ctx, const Conv2dSpec& s, const void* dy, const void* w, void* dx) {
  SB_CHECK(dy && w && dx, "conv2d_backward_data (cuDNN): null operand");
  const ConvProblem& prob = cached_conv_problem(conv_key(s));
  const AlgoChoice a = ctx.algos.backward_data(ctx.handle, ctx.workspace, prob, w, dy, dx);
  void* ws = ctx.workspace.get(a.workspace_bytes);
  CUDNN_CHECK(cudnnConvolutionBackwardData(ctx.handle.get(), &kOne, prob.w.get(), w, prob.y.get(), dy,
                                           prob.conv.get(), static_cast<cudnnConvolutionBwdDataAlgo_t>(a.algo), ws,
                                           a.workspace_bytes, &kZero, prob.x.get(), dx));
}

void conv2d_backward_filter(const ConvContext& ctx, const Conv2dSpec& s, const void* x, const void* dy, void* dw) {
  SB_CHECK(x && dy && dw, "conv2d_backward_filter (cuDNN): null operand");
  const ConvProblem& prob = cached_conv_problem(conv_key(s));
  const AlgoChoice a = ctx.algos.backward_filter(ctx.handle, ctx.workspace, prob, x, dy, dw);
  void* ws = ctx.workspace.get(a.workspace_bytes);
  CUDNN_CHECK(cudnnConvolutionBackwardFilter(ctx.handle.get(), &kOne, prob.x.get(), x, prob.y.get(), dy,
                                             prob.conv.get(), static_cast<cudnnConvolutionBwdFilterAlgo_t>(a.algo),
                                             ws, a.workspace_bytes, &kZero, prob.w.get(), dw));
}

}  // namespace scalebench::cudnn
