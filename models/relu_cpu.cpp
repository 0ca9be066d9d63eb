// relu_cpu.cpp — ReLU on the CPU, any rank. Backward reads the output (y > 0), not the input.
#include "kernels/cpu/relu.h"
#include "models/cpu_layers.h"

namespace scalebench::cpu_layers {
namespace {

class ReluCpu final : public Layer {
 public:
  LayerKind kind() const override { return LayerKind::relu; }
  Shape setup(const std::vector<Shape>& in) override {
    SB_REQUIRE(in.size() == 1, "relu: expected 1 input, got {}", in.size());
    return in[0];
  }
  void forward(Ctx&, const TensorRefs& in, Tensor& out, bool) override {
    cpu::relu_forward(out.numel(), in[0]->f32(), out.f32());
  }
  void backward(Ctx&, const TensorRefs&, const Tensor& out, const Tensor& dout,
                const std::vector<Tensor*>& din) override {
    if (din[0]) cpu::relu_backward(out.numel(), out.f32(), dout.f32(), din[0]->f32());
  }
  double flops(const std::vector<Shape>& in) const override { return double(numel(in[0])); }
};

}  // namespace

std::unique_ptr<Layer> relu(const LayerDesc&) { return std::make_unique<ReluCpu>(); }

}  // namespace scalebench::cpu_layers
