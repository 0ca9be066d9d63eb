// linear.cpp — fully connected layer on the GPU through cuBLAS (kernels/cuda/linear.h). The
// input [n, ...] is read as [n, features] in NCHW order, as on the CPU: an NHWC [n,c,h,w] input (the
// flatten after VGG's last pool) is relaid to NCHW first, and its gradient relaid back. Under bf16
// the f32 weight is cast each step (GpuWeight); dW and db are f32 in every precision.
// Not here: shape checks, parameter specs and FLOPs (the CPU twin's, through GpuLayer).
#include "kernels/cuda/linear.h"
#include "models/cuda/memory.h"
#include "models/cuda/layer_base.h"
#include "models/cuda/layers.h"

namespace scalebench::gpu_layers {
namespace {

class LinearCuda final : public GpuLayer {
 public:
  LinearCuda(const LayerDesc& d, GpuContext& g) : GpuLayer(d, g), wcast_(g, false) {}

  Shape setup(const std::vector<Shape>& in) override {
    const Shape out = twin_->setup(in);
    p_ = {int(in[0][0]), int(numel(in[0]) / in[0][0]), d_.out_channels};
    return out;
  }
  void bind(std::vector<Tensor> params, std::vector<Tensor> grads) override {
    w_ = params[0], dw_ = grads[0];
    if (d_.bias) b_ = params[1], db_ = grads[1];
  }

  void forward(Ctx&, const TensorRefs& in, Tensor& out, bool) override {
    cuda::linear_forward(g_.cublas(), g_.precision(), p_, flat_input(*in[0]), wcast_.forward(w_),
                         d_.bias ? b_.f32() : nullptr, out.raw());
  }
  void backward(Ctx&, const TensorRefs& in, const Tensor&, const Tensor& dout,
                const std::vector<Tensor*>& din) override {
    const void* x = nhwc(*in[0]) ? x_nchw_.raw() : in[0]->raw();  // the forward's flattening
    cuda::linear_backward_filter(g_.cublas(), g_.precision(), p_, x, dout.raw(), dw_.f32(),
                                 d_.bias ? db_.f32() : nullptr, g_.workspace());
    if (!din[0]) return;
    Tensor& dx = *din[0];
    if (!nhwc(dx)) {
      cuda::linear_backward_data(g_.cublas(), g_.precision(), p_, dout.raw(), wcast_.current(), dx.raw());
      return;
    }
    device_buffer(g_, dx_nchw_, dx.shape(), dx.dtype(), Layout::NCHW);
    cuda::linear_backward_data(g_.cublas(), g_.precision(), p_, dout.raw(), wcast_.current(), dx_nchw_.raw());
    gpu_convert(g_, dx_nchw_, dx);
  }

 private:
  static bool nhwc(const Tensor& t) { return t.rank() == 4 && t.layout() == Layout::NHWC; }
  const void* flat_input(const Tensor& x) {
    if (!nhwc(x)) return x.raw();
    gpu_convert(g_, x, device_buffer(g_, x_nchw_, x.shape(), x.dtype(), Layout::NCHW));
    return x_nchw_.raw();
  }

  LinearParams p_;
  GpuWeight wcast_;
  Tensor w_, b_, dw_, db_;
  Tensor x_nchw_, dx_nchw_;  // NHWC inputs flattened in NCHW order, and the gradient on its way back
};

}  // namespace

std::unique_ptr<Layer> linear(const LayerDesc& d, GpuContext& g) { return std::make_unique<LinearCuda>(d, g); }

}  // namespace scalebench::gpu_layers
