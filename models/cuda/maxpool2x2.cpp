// maxpool2x2.cpp — 2×2 stride-2 max pooling on the GPU through cuDNN (kernels/cudnn/pooling.h)
// or, with --gpu-kernels own, our own kernel (kernels/cuda/maxpool2x2.h). cuDNN's backward needs the
// forward's input and output (no argmax is stored), and ties inside a window may route the gradient
// differently from the CPU's first-maximum rule; ours keeps the argmax (int32, a grow-only buffer
// of the layer) and routes ties as the CPU does.
#include "kernels/cuda/device_buffer.h"
#include "kernels/cuda/maxpool2x2.h"
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
    own_ = {s_.n, s_.c, s_.h, s_.w, s_.dtype, s_.layout};
    const std::size_t argmax_bytes = std::size_t(numel(out)) * sizeof(std::int32_t);
    if (g_.own_kernels() && argmax_.bytes() < argmax_bytes) {
      g_.synchronize();  // queued work on the stream may still use the old buffer (device_buffer.h)
      argmax_ = cuda::DeviceBuffer(argmax_bytes, g_.device());
    }
    return out;
  }
  void forward(Ctx&, const TensorRefs& in, Tensor& out, bool) override {
    if (g_.own_kernels())
      cuda::maxpool2x2_forward(own_, in[0]->raw(), out.raw(), argmax_.as<std::int32_t>(), g_.stream());
    else
      cudnn::maxpool2x2_forward(g_.cudnn(), s_, in[0]->raw(), out.raw());
  }
  void backward(Ctx&, const TensorRefs& in, const Tensor& out, const Tensor& dout,
                const std::vector<Tensor*>& din) override {
    if (!din[0]) return;
    if (g_.own_kernels())
      cuda::maxpool2x2_backward(own_, dout.raw(), argmax_.as<std::int32_t>(), din[0]->raw(), g_.stream());
    else
      cudnn::maxpool2x2_backward(g_.cudnn(), s_, in[0]->raw(), out.raw(), dout.raw(), din[0]->raw());
  }

 private:
  cudnn::Pool2x2Spec s_;
  cuda::Pool2x2Shape own_;     // the same shape for our own kernel
  cuda::DeviceBuffer argmax_;  // own kernel: int32 [n, c, h/2, w/2] of the last forward
};

}  // namespace

std::unique_ptr<Layer> maxpool2x2(const LayerDesc& d, GpuContext& g) { return std::make_unique<MaxPoolCuda>(d, g); }

}  // namespace scalebench::gpu_layers
