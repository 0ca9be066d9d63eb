// layer_base.cpp — shared pieces of the cuda layers (see layer_base.h).
// Not here: any layer's arithmetic.
#include "models/cuda/layer_base.h"

#include "kernels/cuda/bias_grad.h"
#include "kernels/cuda/cast.h"
#include "kernels/cudnn/transform.h"
#include "models/cuda/memory.h"
#include "models/registry.h"

namespace scalebench::gpu_layers {

GpuLayer::GpuLayer(const LayerDesc& d, GpuContext& g) : d_(d), g_(g), twin_(make_layer(d, Backend::cpu)) {}

Layout act_layout(const GpuContext& g, const Shape& s) { return s.size() == 4 ? g.layout() : Layout::NCHW; }

cuda::ChannelParams channel_params(const Tensor& t) {
  cuda::ChannelParams p;
  p.n = int(t.dim(0));
  p.c = int(t.dim(1));
  p.hw = t.numel() / (std::int64_t(p.n) * p.c);
  p.layout = t.rank() == 4 ? t.layout() : Layout::NCHW;
  p.dtype = t.dtype();
  return p;
}

void add_channel_bias(GpuContext& g, Tensor& out, const Tensor& bias) {
  cuda::bias_act_forward(channel_params(out), out.raw(), bias.f32(), cuda::Activation::none, out.raw(), g.stream());
}

void channel_bias_grad(GpuContext& g, const Tensor& dout, Tensor& db) {
  const auto p = channel_params(dout);
  cuda::bias_grad(p, dout.raw(), db.f32(), g.workspace(), g.stream());
}

Tensor& device_buffer(GpuContext& g, Tensor& buf, const Shape& shape, DType dtype, Layout layout) {
  const std::size_t need = std::size_t(numel(shape)) * dtype_size(dtype);
  if (!buf.defined() || buf.dtype() != dtype || buf.layout() != layout || buf.nbytes() < need) {
    buf = gpu_zeros(g, shape, dtype, layout);
  } else {
    buf.resize(shape);
  }
  return buf;
}

Layout GpuWeight::form_layout(const Tensor& w) const {
  return filter_ && w.rank() == 4 ? g_.layout() : Layout::NCHW;
}

bool GpuWeight::converts(const Tensor& w) const {
  return g_.act_dtype() != DType::f32 || form_layout(w) != Layout::NCHW;
}

const void* GpuWeight::forward(const Tensor& w) {
  last_ = convert(w);
  return last_;
}

const void* GpuWeight::convert(const Tensor& w) {
  if (!converts(w)) return w.raw();
  const DType dt = g_.act_dtype();
  const void* src = w.raw();
  if (dt != DType::f32) {
    device_buffer(g_, cast_, w.shape(), dt, Layout::NCHW);
    cuda::cast(w.numel(), DType::f32, w.raw(), dt, cast_.raw(), g_.stream());
    src = cast_.raw();
  }
  if (form_layout(w) == Layout::NCHW) return src;
  device_buffer(g_, form_, w.shape(), dt, Layout::NHWC);
  cudnn::transform_layout(g_.cudnn(), dt, int(w.dim(0)), int(w.dim(1)), int(w.dim(2)), int(w.dim(3)), Layout::NCHW,
                          src, Layout::NHWC, form_.raw());
  return form_.raw();
}

void* GpuWeight::grad_target(const Tensor& dw) {
  if (!converts(dw)) return dw.raw();
  return device_buffer(g_, gform_, dw.shape(), g_.act_dtype(), form_layout(dw)).raw();
}

void GpuWeight::store_grad(Tensor& dw) {
  if (!converts(dw)) return;
  const DType dt = g_.act_dtype();
  const void* src = gform_.raw();
  if (form_layout(dw) != Layout::NCHW) {
    // Back to CPU order; straight into the arena when no cast follows.
    void* dst = dt == DType::f32 ? dw.raw() : device_buffer(g_, gcast_, dw.shape(), dt, Layout::NCHW).raw();
    cudnn::transform_layout(g_.cudnn(), dt, int(dw.dim(0)), int(dw.dim(1)), int(dw.dim(2)), int(dw.dim(3)),
                            Layout::NHWC, src, Layout::NCHW, dst);
    if (dt == DType::f32) return;
    src = dst;
  }
  cuda::cast(dw.numel(), dt, src, DType::f32, dw.raw(), g_.stream());
}

}  // namespace scalebench::gpu_layers
