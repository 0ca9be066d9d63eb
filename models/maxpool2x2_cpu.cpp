// maxpool2x2_cpu.cpp — 2×2 max pooling on the CPU; keeps the argmax of the last forward.
#include <cstdint>
#include <vector>

#include "kernels/cpu/maxpool2x2.h"
#include "models/cpu_layers.h"

namespace scalebench::cpu_layers {
namespace {

class MaxPoolCpu final : public Layer {
 public:
  LayerKind kind() const override { return LayerKind::maxpool2x2; }
  Shape setup(const std::vector<Shape>& in) override {
    require_nchw("maxpool2x2", in);
    s_ = in[0];
    SB_REQUIRE(s_[2] >= 2 && s_[3] >= 2, "maxpool2x2: input {} is smaller than 2x2", to_string(s_));
    argmax_.resize(static_cast<std::size_t>(s_[0] * s_[1] * (s_[2] / 2) * (s_[3] / 2)));
    return {s_[0], s_[1], s_[2] / 2, s_[3] / 2};
  }
  void forward(Ctx&, const TensorRefs& in, Tensor& out, bool) override {
    cpu::maxpool2x2_forward(int(s_[0]), int(s_[1]), int(s_[2]), int(s_[3]), in[0]->f32(), out.f32(), argmax_.data());
  }
  void backward(Ctx&, const TensorRefs&, const Tensor&, const Tensor& dout, const std::vector<Tensor*>& din) override {
    if (din[0])
      cpu::maxpool2x2_backward(int(s_[0]), int(s_[1]), int(s_[2]), int(s_[3]), dout.f32(), argmax_.data(),
                               din[0]->f32());
  }
  double flops(const std::vector<Shape>& in) const override { return 3.0 * double(numel(in[0])) / 4; }

 private:
  Shape s_;
  std::vector<std::int32_t> argmax_;  // [n, c, h/2, w/2]
};

}  // namespace

std::unique_ptr<Layer> maxpool2x2(const LayerDesc&) { return std::make_unique<MaxPoolCpu>(); }

}  // namespace scalebench::cpu_layers
