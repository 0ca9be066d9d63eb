// upconv2x2_cpu.cpp — U-Net up-convolution (2×2 stride-2 transposed conv, bias) on the CPU.
#include "kernels/cpu/upconv2x2.h"
#include "models/cpu_layers.h"

namespace scalebench::cpu_layers {
namespace {

class UpConvCpu final : public Layer {
 public:
  explicit UpConvCpu(const LayerDesc& d) : d_(d) {}
  LayerKind kind() const override { return LayerKind::upconv2x2; }

  Shape setup(const std::vector<Shape>& in) override {
    require_nchw("upconv2x2", in);
    const Shape& s = in[0];
    c_in_ = static_cast<int>(s[1]);
    p_ = {static_cast<int>(s[0]), c_in_, static_cast<int>(s[2]), static_cast<int>(s[3]), d_.out_channels};
    return {s[0], d_.out_channels, 2 * s[2], 2 * s[3]};
  }
  std::vector<ParamSpec> param_specs() const override {
    // PyTorch's ConvTranspose2d computes fan_in from weight dim 1 (= c_out) × 4.
    const std::int64_t fan_in = std::int64_t{d_.out_channels} * 4;
    return {{"weight", {c_in_, d_.out_channels, 2, 2}, Init::he_normal, fan_in},
            {"bias", {d_.out_channels}, Init::zeros, fan_in}};
  }
  void bind(std::vector<Tensor> params, std::vector<Tensor> grads) override {
    w_ = params[0], b_ = params[1], dw_ = grads[0], db_ = grads[1];
  }
  void forward(Ctx& ctx, const TensorRefs& in, Tensor& out, bool) override {
    (ctx.reference ? cpu::upconv2x2_forward_ref : cpu::upconv2x2_forward_blas)(p_, in[0]->f32(), w_.f32(), b_.f32(),
                                                                              out.f32());
  }
  void backward(Ctx& ctx, const TensorRefs& in, const Tensor&, const Tensor& dout,
                const std::vector<Tensor*>& din) override {
    (ctx.reference ? cpu::upconv2x2_backward_filter_ref : cpu::upconv2x2_backward_filter_blas)(
        p_, in[0]->f32(), dout.f32(), dw_.f32(), db_.f32());
    if (din[0])
      (ctx.reference ? cpu::upconv2x2_backward_data_ref : cpu::upconv2x2_backward_data_blas)(p_, dout.f32(), w_.f32(),
                                                                                            din[0]->f32());
  }
  double flops(const std::vector<Shape>& in) const override {
    return 2.0 * 4 * double(in[0][0]) * in[0][1] * d_.out_channels * in[0][2] * in[0][3];
  }

 private:
  LayerDesc d_;
  int c_in_ = 0;
  UpConvParams p_;
  Tensor w_, b_, dw_, db_;
};

}  // namespace

std::unique_ptr<Layer> upconv2x2(const LayerDesc& d) { return std::make_unique<UpConvCpu>(d); }

}  // namespace scalebench::cpu_layers
