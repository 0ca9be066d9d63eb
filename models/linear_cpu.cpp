// linear_cpu.cpp — fully connected layer on the CPU. Any input [n, ...] is read as [n, features]
// (the flatten is free in NCHW), output [n, out].
#include "kernels/cpu/linear.h"
#include "models/cpu_layers.h"

namespace scalebench::cpu_layers {
namespace {

class LinearCpu final : public Layer {
 public:
  explicit LinearCpu(const LayerDesc& d) : d_(d) {}
  LayerKind kind() const override { return LayerKind::linear; }
  Shape setup(const std::vector<Shape>& in) override {
    SB_REQUIRE(in.size() == 1 && in[0].size() >= 2, "linear: expected one [n, ...] input");
    const int features = int(numel(in[0]) / in[0][0]);
    SB_REQUIRE(in_ == 0 || in_ == features, "linear: input features changed from {} to {}", in_, features);
    in_ = features;
    p_ = {int(in[0][0]), in_, d_.out_channels};
    return {in[0][0], d_.out_channels};
  }
  std::vector<ParamSpec> param_specs() const override {
    std::vector<ParamSpec> ps{{"weight", {d_.out_channels, in_}, Init::he_normal, in_}};
    if (d_.bias) ps.push_back({"bias", {d_.out_channels}, Init::zeros, in_});
    return ps;
  }
  void bind(std::vector<Tensor> params, std::vector<Tensor> grads) override {
    w_ = params[0], dw_ = grads[0];
    if (d_.bias) b_ = params[1], db_ = grads[1];
  }
  void forward(Ctx& ctx, const TensorRefs& in, Tensor& out, bool) override {
    (ctx.reference ? cpu::linear_forward_ref : cpu::linear_forward_blas)(p_, in[0]->f32(), w_.f32(),
                                                                        d_.bias ? b_.f32() : nullptr, out.f32());
  }
  void backward(Ctx& ctx, const TensorRefs& in, const Tensor&, const Tensor& dout,
                const std::vector<Tensor*>& din) override {
    (ctx.reference ? cpu::linear_backward_filter_ref : cpu::linear_backward_filter_blas)(
        p_, in[0]->f32(), dout.f32(), dw_.f32(), d_.bias ? db_.f32() : nullptr);
    if (din[0])
      (ctx.reference ? cpu::linear_backward_data_ref : cpu::linear_backward_data_blas)(p_, dout.f32(), w_.f32(),
                                                                                      din[0]->f32());
  }
  double flops(const std::vector<Shape>& in) const override {
    return 2.0 * double(in[0][0]) * in_ * d_.out_channels;
  }

 private:
  LayerDesc d_;
  int in_ = 0;
  LinearParams p_;
  Tensor w_, b_, dw_, db_;
};

}  // namespace

std::unique_ptr<Layer> linear(const LayerDesc& d) { return std::make_unique<LinearCpu>(d); }

}  // namespace scalebench::cpu_layers
