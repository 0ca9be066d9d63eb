// batchnorm_cpu.cpp — batch normalisation on the CPU for [n,c,h,w] and [n,c] inputs.
// Running statistics are buffers (not trained, not in the gradient arena). With Ctx::replica_sum
// (--sync-bn) training statistics are the global batch's; the layer itself never communicates.
// Takes the ReLU after it (Layer::fuse_relu) except with the reference kernels, which run the
// separate ReLU: the composition the fused kernels are tested against.
#include <vector>

#include "kernels/cpu/batchnorm.h"
#include "models/cpu_layers.h"

namespace scalebench::cpu_layers {
namespace {

class BatchNormCpu final : public Layer {
 public:
  explicit BatchNormCpu(const LayerDesc& d) : d_(d) {}
  LayerKind kind() const override { return LayerKind::batchnorm; }

  Shape setup(const std::vector<Shape>& in) override {
    SB_REQUIRE(in.size() == 1 && (in[0].size() == 4 || in[0].size() == 2),
               "batchnorm: expected one [n,c,h,w] or [n,c] input");
    const Shape& s = in[0];
    const int c = int(s[1]);
    SB_REQUIRE(c_ == 0 || c_ == c, "batchnorm: channels changed from {} to {}", c_, c);
    if (c_ == 0) {
      running_mean_ = Tensor::zeros({c});
      running_var_ = Tensor::zeros({c});
      running_var_.fill(1.0f);
      save_mean_ = Tensor::zeros({c});
      save_invstd_ = Tensor::zeros({c});
      save_scale_ = Tensor::zeros({c});
      save_shift_ = Tensor::zeros({c});
    }
    c_ = c;
    p_ = {int(s[0]), c, s.size() == 4 ? int(s[2] * s[3]) : 1, d_.bn_eps, d_.bn_momentum};
    return s;
  }
  std::vector<ParamSpec> param_specs() const override {
    return {{"weight", {c_}, Init::ones, 1}, {"bias", {c_}, Init::zeros, 1}};
  }
  void bind(std::vector<Tensor> params, std::vector<Tensor> grads) override {
    gamma_ = params[0], beta_ = params[1], dgamma_ = grads[0], dbeta_ = grads[1];
  }
  std::vector<std::pair<std::string, Tensor*>> buffers() override {
    return {{"running_mean", &running_mean_}, {"running_var", &running_var_}};
  }

  bool fuse_relu() override { return fuse_relu_ = true; }
  bool relu_fused(const Ctx& ctx) const override { return fuse_relu_ && !ctx.reference; }

  void forward(Ctx& ctx, const TensorRefs& in, Tensor& out, bool training) override {
    const bool relu = relu_fused(ctx);
    if (training)
      cpu::batchnorm_forward_train(p_, in[0]->f32(), gamma_.f32(), beta_.f32(), out.f32(), save_mean_.f32(),
                                   save_invstd_.f32(), running_mean_.f32(), running_var_.f32(), stat_sum(ctx),
                                   relu ? cpu::FusedRelu{save_scale_.f32(), save_shift_.f32()} : cpu::FusedRelu{});
    else
      cpu::batchnorm_forward_eval(p_, in[0]->f32(), gamma_.f32(), beta_.f32(), running_mean_.f32(),
                                  running_var_.f32(), out.f32(), relu);
  }
  void backward(Ctx& ctx, const TensorRefs& in, const Tensor&, const Tensor& dout,
                const std::vector<Tensor*>& din) override {
    SB_CHECK(din[0], "batchnorm: the input gradient is required");
    cpu::batchnorm_backward(p_, in[0]->f32(), dout.f32(), gamma_.f32(), save_mean_.f32(), save_invstd_.f32(),
                            din[0]->f32(), dgamma_.f32(), dbeta_.f32(), stat_sum(ctx),
                            relu_fused(ctx) ? cpu::FusedReluSaved{save_scale_.f32(), save_shift_.f32()}
                                            : cpu::FusedReluSaved{});
  }
  double flops(const std::vector<Shape>& in) const override { return 5.0 * double(numel(in[0])); }

 private:
  static cpu::StatSum stat_sum(const Ctx& ctx) {
    if (!ctx.replica_sum) return {};
    return [r = ctx.replica_sum](double* v, std::size_t n) { r->sum(v, n); };
  }

  LayerDesc d_;
  int c_ = 0;
  BatchNormParams p_;
  Tensor gamma_, beta_, dgamma_, dbeta_;
  Tensor running_mean_, running_var_;  // [c]
  Tensor save_mean_, save_invstd_;     // [c], from the last training forward
  Tensor save_scale_, save_shift_;     // [c], the fused ReLU's affine from the last training forward
  bool fuse_relu_ = false;             // the Model gave it the ReLU after it
};

}  // namespace

std::unique_ptr<Layer> batchnorm(const LayerDesc& d) { return std::make_unique<BatchNormCpu>(d); }

}  // namespace scalebench::cpu_layers
