// relu.cpp — ReLU on the GPU (kernels/cuda/bias_act.h without a bias); the backward reads the
// forward's output, as the CPU layer does. Any rank, the context's dtype.
#include "models/cuda/layer_base.h"
#include "models/cuda/layers.h"

namespace scalebench::gpu_layers {
namespace {

class ReluCuda final : public GpuLayer {
 public:
  using GpuLayer::GpuLayer;
  void forward(Ctx&, const TensorRefs& in, Tensor& out, bool) override {
    cuda::bias_act_forward(channel_params(*in[0]), in[0]->raw(), nullptr, cuda::Activation::relu, out.raw(),
                           g_.stream());
  }
  void backward(Ctx&, const TensorRefs&, const Tensor& out, const Tensor& dout,
                const std::vector<Tensor*>& din) override {
    if (din[0]) cuda::relu_backward(out.numel(), out.dtype(), out.raw(), dout.raw(), din[0]->raw(), g_.stream());
  }
};

}  // namespace

std::unique_ptr<Layer> relu(const LayerDesc& d, GpuContext& g) { return std::make_unique<ReluCuda>(d, g); }

}  // namespace scalebench::gpu_layers
