// layer_base.h — what the cuda backend's layers (models/cuda/*.cpp) share:
//  * GpuLayer: a Layer whose shape logic is its CPU twin's. setup() validation, output shapes,
//    param_specs() and flops() are delegated to the CPU layer of the same description, so the two
//    backends cannot disagree on shapes, parameter order, initialisation or FLOP counts.
//  * GpuWeight: a parameter (f32, CPU order, in the arena) in the form a kernel computes on — cast to
//    the activation dtype and, for conv filters under NHWC, relaid KCRS → KRSC — and the way back for
//    its gradient. No conversion, no copy: fp32/tf32 NCHW layers read the arena directly.
//  * device_buffer(): grow-only device tensors a layer keeps between steps.
// CUDA builds only (include from models/cuda/). Not here: any layer's arithmetic.
#pragma once

#include <memory>
#include <vector>

#include "kernels/cuda/bias_act.h"
#include "models/cuda/context.h"
#include "models/layer.h"

namespace scalebench::gpu_layers {

class GpuLayer : public Layer {
 public:
  GpuLayer(const LayerDesc& d, GpuContext& g);
  LayerKind kind() const override { return d_.kind; }
  Shape setup(const std::vector<Shape>& in) override { return twin_->setup(in); }
  std::vector<ParamSpec> param_specs() const override { return twin_->param_specs(); }
  double flops(const std::vector<Shape>& in) const override { return twin_->flops(in); }

 protected:
  LayerDesc d_;
  GpuContext& g_;
  std::unique_ptr<Layer> twin_;  // the CPU layer: shapes and parameters only, never run
};

// The f32 per-channel bias of conv2d and upconv2x2 (any activation dtype and layout):
// out [n, c, ...] += bias [c]; db [c] = Σ dout over everything but the channel (overwrites).
void add_channel_bias(GpuContext& g, Tensor& out, const Tensor& bias);
void channel_bias_grad(GpuContext& g, const Tensor& dout, Tensor& db);

// Layout a tensor of this rank has on this context: the context's for [n,c,h,w], row-major otherwise.
Layout act_layout(const GpuContext& g, const Shape& s);
// Per-channel view of an activation: [n, c, h·w] (rank 4) or [n, c, 1] (rank 2).
cuda::ChannelParams channel_params(const Tensor& t);
// buf, reallocated on g's device when it is undefined or smaller than `shape` needs; else resized.
Tensor& device_buffer(GpuContext& g, Tensor& buf, const Shape& shape, DType dtype, Layout layout);

class GpuWeight {
 public:
  // `filter`: a [k, c, r, s] conv/up-conv filter follows the activation layout (KRSC under NHWC);
  // anything else (linear weights, biases) only changes dtype.
  GpuWeight(GpuContext& g, bool filter) : g_(g), filter_(filter) {}
  bool converts(const Tensor& w) const;
  // The compute form of w (f32, CPU order, on the device): w.raw() itself when nothing converts.
  const void* forward(const Tensor& w);
  // What the last forward() returned (the weights do not change between forward and backward).
  const void* current() const { return last_; }
  // Where a kernel writes the gradient in the compute form; then store_grad(dw) puts it into the
  // f32 arena slot dw. When nothing converts, this is dw.raw() and store_grad does nothing.
  void* grad_target(const Tensor& dw);
  void store_grad(Tensor& dw);

 private:
  Layout form_layout(const Tensor& w) const;
  const void* convert(const Tensor& w);
  GpuContext& g_;
  bool filter_;
  Tensor cast_, form_;    // compute dtype in CPU order; compute dtype in the compute layout
  Tensor gform_, gcast_;  // the gradient on its way back
  const void* last_ = nullptr;
};

}  // namespace scalebench::gpu_layers
