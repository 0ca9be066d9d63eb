// concat_crop.cpp — U-Net skip join on the GPU (kernels/cuda/concat_crop.h): out =
// [crop(skip), up] along channels, in the context's layout and dtype; a pure copy both ways.
// Not here: shape checks, parameter specs and FLOPs (the CPU twin's, through GpuLayer).
#include "kernels/cuda/concat_crop.h"
#include "models/cuda/layer_base.h"
#include "models/cuda/layers.h"

namespace scalebench::gpu_layers {
namespace {

class ConcatCropCuda final : public GpuLayer {
 public:
  using GpuLayer::GpuLayer;
  Shape setup(const std::vector<Shape>& in) override {
    const Shape out = twin_->setup(in);
    const Shape &sk = in[0], &up = in[1];
    p_ = {int(sk[0]), int(sk[1]), int(sk[2]), int(sk[3]), int(up[1]), int(up[2]), int(up[3])};
    return out;
  }
  void forward(Ctx&, const TensorRefs& in, Tensor& out, bool) override {
    cuda::concat_crop_forward(p_, g_.layout(), g_.act_dtype(), in[0]->raw(), in[1]->raw(), out.raw(), g_.stream());
  }
  void backward(Ctx&, const TensorRefs&, const Tensor&, const Tensor& dout,
                const std::vector<Tensor*>& din) override {
    SB_CHECK(din[0] && din[1], "concat_crop: both inputs need gradients");
    cuda::concat_crop_backward(p_, g_.layout(), g_.act_dtype(), dout.raw(), din[0]->raw(), din[1]->raw(),
                               g_.stream());
  }

 private:
  ConcatCropParams p_;
};

}  // namespace

std::unique_ptr<Layer> concat_crop(const LayerDesc& d, GpuContext& g) {
  return std::make_unique<ConcatCropCuda>(d, g);
}

}  // namespace scalebench::gpu_layers
