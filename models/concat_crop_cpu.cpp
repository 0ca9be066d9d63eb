// concat_crop_cpu.cpp — U-Net skip join on the CPU: inputs (skip, up) → [crop(skip), up].
#include "kernels/cpu/concat_crop.h"
#include "models/cpu_layers.h"

namespace scalebench::cpu_layers {
namespace {

class ConcatCropCpu final : public Layer {
 public:
  LayerKind kind() const override { return LayerKind::concat_crop; }
  Shape setup(const std::vector<Shape>& in) override {
    require_nchw("concat_crop", in, 2);
    const Shape &sk = in[0], &up = in[1];
    SB_REQUIRE(sk[0] == up[0], "concat_crop: batch {} != {}", sk[0], up[0]);
    SB_REQUIRE(sk[2] >= up[2] && sk[3] >= up[3], "concat_crop: skip {} is smaller than the upsampled {}",
               to_string(sk), to_string(up));
    p_ = {int(sk[0]), int(sk[1]), int(sk[2]), int(sk[3]), int(up[1]), int(up[2]), int(up[3])};
    return {sk[0], sk[1] + up[1], up[2], up[3]};
  }
  void forward(Ctx&, const TensorRefs& in, Tensor& out, bool) override {
    cpu::concat_crop_forward(p_, in[0]->f32(), in[1]->f32(), out.f32());
  }
  void backward(Ctx&, const TensorRefs& in, const Tensor&, const Tensor& dout,
                const std::vector<Tensor*>& din) override {
    SB_CHECK(din[0] && din[1], "concat_crop: both inputs need gradients");
    cpu::concat_crop_backward(p_, dout.f32(), din[0]->f32(), din[1]->f32());
  }
  double flops(const std::vector<Shape>&) const override { return 0.0; }

 private:
  ConcatCropParams p_;
};

}  // namespace

std::unique_ptr<Layer> concat_crop(const LayerDesc&) { return std::make_unique<ConcatCropCpu>(); }

}  // namespace scalebench::cpu_layers
