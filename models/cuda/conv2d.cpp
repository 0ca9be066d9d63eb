// conv2d.cpp — Conv2d layer on the GPU: cuDNN forward / backward-data / backward-filter
// (kernels/cudnn/conv2d.h) on the context's dtype and layout. The bias is added and reduced
// by our own kernels (bias_act, bias_grad) so it stays f32 in every precision. Filters are
// converted from the f32 KCRS arena each step when the precision or layout asks (GpuWeight).
// Not here: shape checks, parameter specs and FLOPs (the CPU twin's, through GpuLayer).
#include "kernels/cudnn/conv2d.h"
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
    return out;
  }
  void bind(std::vector<Tensor> params, std::vector<Tensor> grads) override {
    w_ = params[0], dw_ = grads[0];
    if (d_.bias) b_ = params[1], db_ = grads[1];
  }

  void forward(Ctx&, const TensorRefs& in, Tensor& out, bool) override {
    cudnn::conv2d_forward(g_.conv(), s_, in[0]->raw(), wconv_.forward(w_), out.raw());
    if (d_.bias) add_channel_bias(g_, out, b_);
  }
  void backward(Ctx&, const TensorRefs& in, const Tensor&, const Tensor& dout,
                const std::vector<Tensor*>& din) override {
    cudnn::conv2d_backward_filter(g_.conv(), s_, in[0]->raw(), dout.raw(), wconv_.grad_target(dw_));
    wconv_.store_grad(dw_);
    if (d_.bias) channel_bias_grad(g_, dout, db_);
    if (din[0]) cudnn::conv2d_backward_data(g_.conv(), s_, dout.raw(), wconv_.current(), din[0]->raw());
  }

 private:
  cudnn::Conv2dSpec s_;
  GpuWeight wconv_;
  Tensor w_, b_, dw_, db_;
};

}  // namespace

std::unique_ptr<Layer> conv2d(const LayerDesc& d, GpuContext& g) { return std::make_unique<Conv2dCuda>(d, g); }

}  // namespace scalebench::gpu_layers
