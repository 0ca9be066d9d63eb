// batchnorm.cpp — batch normalisation on the GPU through cuDNN (kernels/cudnn/batchnorm.h) or, with
// --gpu-kernels own, our own kernels (kernels/cuda/batchnorm.h), for [n,c,h,w] in the context's
// layout and [n,c] (a plane of 1). Scale, shift, running statistics and their gradients stay f32
// whatever the activation dtype. Running statistics are device buffers (not trained, not in the
// gradient arena), initialised as on the CPU (mean 0, variance 1). With Ctx::replica_sum (--sync-bn)
// training runs SyncBatchNormGpu instead, so the statistics are the global batch's, as on the CPU.
// Our own kernels take the ReLU after the layer (Layer::fuse_relu), as the CPU layer does, except
// under --sync-bn (the Model then runs the ReLU node in place); cuDNN's path never takes it.
#include "kernels/cuda/batchnorm.h"
#include "kernels/cuda/device_buffer.h"
#include "kernels/cudnn/batchnorm.h"
#include "models/cuda/layer_base.h"
#include "models/cuda/layers.h"
#include "models/cuda/memory.h"
#include "models/cuda/sync_batchnorm.h"

namespace scalebench::gpu_layers {
namespace {

class BatchNormCuda final : public GpuLayer {
 public:
  using GpuLayer::GpuLayer;

  Shape setup(const std::vector<Shape>& in) override {
    const Shape out = twin_->setup(in);
    const Shape& s = in[0];
    const int c = int(s[1]);
    if (!running_mean_.defined()) {
      running_mean_ = gpu_zeros(g_, {c}, DType::f32, Layout::NCHW);
      running_var_ = gpu_zeros(g_, {c}, DType::f32, Layout::NCHW);
      Tensor ones = Tensor::zeros({c});
      ones.fill(1.0f);
      gpu_upload(g_, ones, running_var_);
      save_mean_ = gpu_zeros(g_, {c}, DType::f32, Layout::NCHW);
      save_invstd_ = gpu_zeros(g_, {c}, DType::f32, Layout::NCHW);
      save_scale_ = gpu_zeros(g_, {c}, DType::f32, Layout::NCHW);
      save_shift_ = gpu_zeros(g_, {c}, DType::f32, Layout::NCHW);
    }
    s_.p = {int(s[0]), c, s.size() == 4 ? int(s[2] * s[3]) : 1, d_.bn_eps, d_.bn_momentum};
    s_.dtype = g_.act_dtype();
    s_.layout = act_layout(g_, s);
    s_.deterministic = g_.deterministic();
    own_ = {s_.p, s_.dtype, s_.layout};
    return out;
  }
  void bind(std::vector<Tensor> params, std::vector<Tensor> grads) override {
    gamma_ = params[0], beta_ = params[1], dgamma_ = grads[0], dbeta_ = grads[1];
  }
  std::vector<std::pair<std::string, Tensor*>> buffers() override {
    return {{"running_mean", &running_mean_}, {"running_var", &running_var_}};
  }

  bool fuse_relu() override { return fuse_relu_ = g_.own_kernels(); }
  bool relu_fused(const Ctx& ctx) const override { return fuse_relu_ && !ctx.reference && !ctx.replica_sum; }

  void forward(Ctx& ctx, const TensorRefs& in, Tensor& out, bool training) override {
    const bool relu = relu_fused(ctx);
    if (training && ctx.replica_sum)
      sync_.forward_train(g_, s_.p, shape(), in[0]->raw(), out.raw(), tensors(), *ctx.replica_sum);
    else if (g_.own_kernels() && training)
      cuda::batchnorm_forward_train(own_, in[0]->raw(), gamma_.f32(), beta_.f32(), out.raw(), save_mean_.f32(),
                                    save_invstd_.f32(), save_scale_.f32(), save_shift_.f32(), running_mean_.f32(),
                                    running_var_.f32(), relu, g_.workspace(), g_.stream());
    else if (g_.own_kernels())
      cuda::batchnorm_forward_eval(own_, in[0]->raw(), gamma_.f32(), beta_.f32(), running_mean_.f32(),
                                   running_var_.f32(), out.raw(), relu, g_.workspace(), g_.stream());
    else if (training)
      cudnn::batchnorm_forward_train(g_.cudnn(), s_, in[0]->raw(), gamma_.f32(), beta_.f32(), out.raw(),
                                     save_mean_.f32(), save_invstd_.f32(), running_mean_.f32(), running_var_.f32());
    else
      cudnn::batchnorm_forward_eval(g_.cudnn(), s_, in[0]->raw(), gamma_.f32(), beta_.f32(), running_mean_.f32(),
                                    running_var_.f32(), out.raw());
  }
  void backward(Ctx& ctx, const TensorRefs& in, const Tensor&, const Tensor& dout,
                const std::vector<Tensor*>& din) override {
    SB_CHECK(din[0], "batchnorm: the input gradient is required");
    if (ctx.replica_sum)
      return sync_.backward(g_, s_.p, shape(), in[0]->raw(), dout.raw(), din[0]->raw(), tensors(), *ctx.replica_sum);
    if (g_.own_kernels()) {
      const bool relu = relu_fused(ctx);
      return cuda::batchnorm_backward(own_, in[0]->raw(), dout.raw(), gamma_.f32(), save_mean_.f32(),
                                      save_invstd_.f32(), relu ? save_scale_.f32() : nullptr,
                                      relu ? save_shift_.f32() : nullptr, din[0]->raw(), dgamma_.f32(), dbeta_.f32(),
                                      g_.workspace(), g_.stream());
    }
    cudnn::batchnorm_backward(g_.cudnn(), s_, in[0]->raw(), dout.raw(), gamma_.f32(), save_mean_.f32(),
                              save_invstd_.f32(), din[0]->raw(), dgamma_.f32(), dbeta_.f32());
  }

 private:
  cuda::BnShape shape() const { return {s_.p.n, s_.p.c, s_.p.hw, s_.layout, s_.dtype}; }
  SyncBatchNormGpu::Tensors tensors() {
    return {&gamma_, &beta_, &dgamma_, &dbeta_, &running_mean_, &running_var_, &save_mean_, &save_invstd_};
  }

  cudnn::BatchNormSpec s_;
  cuda::BatchNormSpec own_;  // the same sizes, dtype and layout for our own kernels
  bool fuse_relu_ = false;   // the Model gave it the ReLU after it (own kernels only)
  SyncBatchNormGpu sync_;
  Tensor gamma_, beta_, dgamma_, dbeta_;
  Tensor running_mean_, running_var_;  // [c] f32 on the device
  Tensor save_mean_, save_invstd_;     // [c], from the last training forward
  Tensor save_scale_, save_shift_;     // [c], own kernels: the affine of the last training forward
};

}  // namespace

std::unique_ptr<Layer> batchnorm(const LayerDesc& d, GpuContext& g) { return std::make_unique<BatchNormCuda>(d, g); }

}  // namespace scalebench::gpu_layers
