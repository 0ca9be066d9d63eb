// maxpool2x2.cpp — 2×2 stride-2 max pooling on the GPU through cuDNN (kernels/cudnn/
// pooling.h). The backward needs the forward's input and output (no argmax is stored); ties
// inside a window may route the gradient differently from the CPU's first-maximum rule.
#include "kernels/cudnn/pooling.h"
#include "models/cuda/layer_base.h"
#include "models/cuda/layers.h"

namespace scalebench::gpu_layers {
namespace {

class MaxPoolCuda final : public GpuLayer {
 public:
  using GpuLayer::GpuLayer;
  Shape setup(const std::vector<Shape>& in) override {
    const Shape out = twin_->setup(in);
    const Shape& s = in[0];
    s_ = {int(s[0]), int(s[1]), int(s[2]), int(s[3]), g_.act_dtype(), g_.layout()};
    return out;
  }
  void forward(Ctx&, const TensorRefs& in, Tensor& out, bool) override {
    cudnn::maxpool2x2_forward(g_.cudnn(), s_, in[0]->raw(), out.raw());
  }
  void backward(Ctx&, const TensorRefs& in, const Tensor& out, const Tensor& dout,
                const std::vector<Tensor*>& din) override {
    if (din[0]) cudnn::maxpool2x2_backward(g_.cudnn(), s_, in[0]->raw(), out.raw(), dout.raw(), din[0]->raw());
  }

 private:
  cudnn::Pool2x2Spec s_;
};

}  // namespace

std::unique_ptr<Layer> maxpool2x2(const LayerDesc& d, GpuContext& g) { return std::make_unique<MaxPoolCuda>(d, g); }

}  // namespace scalebench::gpu_layers
