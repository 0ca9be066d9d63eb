// conv2d.cpp — Conv2d layer on the GPU: cuDNN forward / backward-data / backward-filter
// (kernels/cudnn/conv2d.h) on the context's dtype and layout. The bias is added and reduced
// by our own kernels (bias_act, bias_grad) so it stays f32 in every precision. Filters are
// converted from the f32 KCRS arena each step when the precision or layout asks (GpuWeight).
// With --gpu-kernels own the layer takes the ReLU after it (Layer::fuse_relu, as the CPU layer
// does): the forward is cuDNN's fused convolution + bias + ReLU where cuDNN allows it
// (kernels/cudnn/conv2d_bias_relu.h), else the convolution and one bias + ReLU pass; the backward
// masks the incoming gradient by the output (one pass, what the ReLU layer's backward did).
// Not here: shape checks, parameter specs and FLOPs (the CPU twin's, through GpuLayer).
#include "kernels/cudnn/conv2d.h"
#include "kernels/cudnn/conv2d_bias_relu.h"
#include "models/cuda/layer_base.h"
#include "models/cuda/layers.h"

namespace scalebench::gpu_layers {
namespace {

class Conv2dCuda final : public GpuLayer {
 public:
  Conv2dCuda(const LayerDesc& d, GpuContext& g) : GpuLayer(d, g), wconv_(g, true) {}

  Shape setup(const std::vector<Shape>& in) override {
    const Shape out = twin_->setup(in);
    const Shape& s = in[0];
    s_.p = {int(s[0]), int(s[1]), int(s[2]), int(s[3]), d_.out_channels, d_.kernel, d_.kernel, d_.stride, d_.pad};
    s_.dtype = g_.act_dtype();
    s_.layout = g_.layout();
    s_.precision = g_.precision();
    s_.deterministic = g_.deterministic();
    try_fused_ = true;  // a new problem: cuDNN may accept it
    return out;
  }
  void bind(std::vector<Tensor> params, std::vector<Tensor> grads) override {
    w_ = params[0], dw_ = grads[0];
    if (d_.bias) b_ = params[1], db_ = grads[1];
  }

  bool fuse_relu() override { return fuse_relu_ = g_.own_kernels(); }
  bool relu_fused(const Ctx& ctx) const override { return fuse_relu_ && !ctx.reference; }

  void forward(Ctx& ctx, const TensorRefs& in, Tensor& out, bool) override {
    const void* w = wconv_.forward(w_);
    if (relu_fused(ctx)) {
      // cuDNN's fused call needs a bias; a refusal is remembered (it would refuse every step).
      if (d_.bias && try_fused_ && cudnn::conv2d_bias_relu_applies(s_)) {
        if (cudnn::conv2d_bias_relu_forward(g_.conv(), s_, in[0]->raw(), w, b_.f32(), out.raw())) return;
        try_fused_ = false;
      }
      cudnn::conv2d_forward(g_.conv(), s_, in[0]->raw(), w, out.raw());
      cuda::bias_act_forward(channel_params(out), out.raw(), d_.bias ? b_.f32() : nullptr, cuda::Activation::relu,
                             out.raw(), g_.stream());
      return;
    }
    cudnn::conv2d_forward(g_.conv(), s_, in[0]->raw(), w, out.raw());
    if (d_.bias) add_channel_bias(g_, out, b_);
  }
  void backward(Ctx& ctx, const TensorRefs& in, const Tensor& out, const Tensor& dout,
                const std::vector<Tensor*>& din) override {
    // The fused ReLU's backward, in place on its output gradient (the ReLU layer's would have
    // written the same into this tensor, which the two share).
    if (relu_fused(ctx)) cuda::relu_backward(out.numel(), out.dtype(), out.raw(), dout.raw(), dout.raw(), g_.stream());
    cudnn::conv2d_backward_filter(g_.conv(), s_, in[0]->raw(), dout.raw(), wconv_.grad_target(dw_));
    wconv_.store_grad(dw_);
    if (d_.bias) channel_bias_grad(g_, dout, db_);
    if (din[0]) cudnn::conv2d_backward_data(g_.conv(), s_, dout.raw(), wconv_.current(), din[0]->raw());
  }

 private:
  cudnn::Conv2dSpec s_;
  GpuWeight wconv_;
  bool fuse_relu_ = false;  // the Model gave it the ReLU after it (--gpu-kernels own)
  bool try_fused_ = true;   // false once cuDNN refused the fused call for this layer's problem
  Tensor w_, b_, dw_, db_;
};

}  // namespace

std::unique_ptr<Layer> conv2d(const LayerDesc& d, GpuContext& g) { return std::make_unique<Conv2dCuda>(d, g); }

}  // namespace scalebench::gpu_layers
