// dropout.cpp — inverted dropout on the GPU drawing the CPU layer's mask bit for bit
// (kernels/cuda/dropout.h, seed from dropout_seed(), each sample at its global position). The mask
// is indexed in NCHW order, as on the CPU: an NHWC [n,c,h,w] activation is relaid to NCHW around the
// kernel, so masks do not depend on the layout. Identity when not training or p = 0.
#include "kernels/cuda/dropout.h"
#include "models/cuda/layer_base.h"
#include "models/cuda/layers.h"
#include "models/cuda/memory.h"

namespace scalebench::gpu_layers {
namespace {

class DropoutCuda final : public GpuLayer {
 public:
  using GpuLayer::GpuLayer;

  void forward(Ctx& ctx, const TensorRefs& in, Tensor& out, bool training) override {
    active_ = training && d_.dropout_p > 0.0f;
    if (!active_) {
      gpu_copy(g_, *in[0], out);
      return;
    }
    device_buffer(g_, mask_, out.shape(), DType::f32, Layout::NCHW);
    const bool relayout = out.rank() == 4 && out.layout() == Layout::NHWC;
    const void* x = relayout ? to_nchw(*in[0], x_nchw_) : in[0]->raw();
    void* y = relayout ? device_buffer(g_, y_nchw_, out.shape(), out.dtype(), Layout::NCHW).raw() : out.raw();
    const std::uint64_t seed = dropout_seed(ctx, d_.salt);
    const std::int64_t n = out.dim(0), per_sample = out.numel() / n, esize = std::int64_t(dtype_size(out.dtype()));
    auto* xb = static_cast<const std::byte*>(x);
    auto* yb = static_cast<std::byte*>(y);
    if (ctx.sample_stride == 1) {  // consecutive global positions: one launch
      cuda::dropout_forward(out.numel(), d_.dropout_p, seed, out.dtype(), x, y, mask_.f32(),
                            ctx.sample_offset * per_sample, g_.stream());
    } else {
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t at = i * per_sample, global = ctx.sample_offset + ctx.sample_stride * i;
        cuda::dropout_forward(per_sample, d_.dropout_p, seed, out.dtype(), xb + at * esize, yb + at * esize,
                              mask_.f32() + at, global * per_sample, g_.stream());
      }
    }
    if (relayout) gpu_convert(g_, y_nchw_, out);
  }
  void backward(Ctx&, const TensorRefs&, const Tensor&, const Tensor& dout, const std::vector<Tensor*>& din) override {
    if (!din[0]) return;
    if (!active_) {
      gpu_copy(g_, dout, *din[0]);
      return;
    }
    const bool relayout = dout.rank() == 4 && dout.layout() == Layout::NHWC;
    const void* dy = relayout ? to_nchw(dout, x_nchw_) : dout.raw();
    void* dx = relayout ? device_buffer(g_, y_nchw_, dout.shape(), dout.dtype(), Layout::NCHW).raw() : din[0]->raw();
    cuda::dropout_backward(dout.numel(), dout.dtype(), dy, mask_.f32(), dx, g_.stream());
    if (relayout) gpu_convert(g_, y_nchw_, *din[0]);
  }

 private:
  // t (NHWC) relaid into buf as NCHW (gpu_convert: a cudnnTransformTensor, no temporary).
  const void* to_nchw(const Tensor& t, Tensor& buf) {
    gpu_convert(g_, t, device_buffer(g_, buf, t.shape(), t.dtype(), Layout::NCHW));
    return buf.raw();
  }

  bool active_ = false;
  Tensor mask_;             // f32, NCHW order
  Tensor x_nchw_, y_nchw_;  // NHWC activations relaid for the kernel
};

}  // namespace

std::unique_ptr<Layer> dropout(const LayerDesc& d, GpuContext& g) { return std::make_unique<DropoutCuda>(d, g); }

}  // namespace scalebench::gpu_layers
