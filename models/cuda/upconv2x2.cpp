// upconv2x2.cpp — U-Net up-convolution on the GPU: cuDNN's adjoint convolution
// (kernels/cudnn/upconv2x2.h), f32 bias through our bias kernels as in conv2d.cpp.
// The [c_in, c_out, 2, 2] weight is a filter [k, c, r, s] for GpuWeight (KRSC under NHWC).
// Not here: shape checks, parameter specs and FLOPs (the CPU twin's, through GpuLayer).
#include "kernels/cudnn/upconv2x2.h"
#include "models/cuda/layer_base.h"
#include "models/cuda/layers.h"

namespace scalebench::gpu_layers {
namespace {

class UpConvCuda final : public GpuLayer {
 public:
  UpConvCuda(const LayerDesc& d, GpuContext& g) : GpuLayer(d, g), wconv_(g, true) {}

  Shape setup(const std::vector<Shape>& in) override {
    const Shape out = twin_->setup(in);
    const Shape& s = in[0];
    s_.p = {int(s[0]), int(s[1]), int(s[2]), int(s[3]), d_.out_channels};
    s_.dtype = g_.act_dtype();
    s_.layout = g_.layout();
    s_.precision = g_.precision();
    s_.deterministic = g_.deterministic();
    return out;
  }
  void bind(std::vector<Tensor> params, std::vector<Tensor> grads) override {
    w_ = params[0], b_ = params[1], dw_ = grads[0], db_ = grads[1];
  }

  void forward(Ctx&, const TensorRefs& in, Tensor& out, bool) override {
    cudnn::upconv2x2_forward(g_.conv(), s_, in[0]->raw(), wconv_.forward(w_), out.raw());
    add_channel_bias(g_, out, b_);
  }
  void backward(Ctx&, const TensorRefs& in, const Tensor&, const Tensor& dout,
                const std::vector<Tensor*>& din) override {
    cudnn::upconv2x2_backward_filter(g_.conv(), s_, in[0]->raw(), dout.raw(), wconv_.grad_target(dw_));
    wconv_.store_grad(dw_);
    channel_bias_grad(g_, dout, db_);
    if (din[0]) cudnn::upconv2x2_backward_data(g_.conv(), s_, dout.raw(), wconv_.current(), din[0]->raw());
  }

 private:
  cudnn::UpConv2x2Spec s_;
  GpuWeight wconv_;
  Tensor w_, b_, dw_, db_;
};

}  // namespace

std::unique_ptr<Layer> upconv2x2(const LayerDesc& d, GpuContext& g) { return std::make_unique<UpConvCuda>(d, g); }

}  // namespace scalebench::gpu_layers
