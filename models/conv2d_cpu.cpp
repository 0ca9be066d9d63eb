// conv2d_cpu.cpp — Conv2d layer on the CPU: the reference (ctx.reference), im2col + OpenBLAS
// (kernels/cpu/conv2d.h) or oneDNN (kernels/onednn/conv2d.h), chosen by ctx.cpu_kernels and, for
// auto, by the per-layer rule below. Square kernel, symmetric stride and padding. Takes the ReLU
// after it (Layer::fuse_relu) except with the reference kernels: oneDNN clamps in its forward
// (a post-op), im2col clamps its output in place; the backward masks the output gradient in place
// (relu.h) before the convolution's backward — the separate ReLU's passes, one forward pass fewer.
#include <memory>

#include "kernels/cpu/conv2d.h"
#include "kernels/cpu/relu.h"
#include "kernels/onednn/conv2d.h"
#include "models/cpu_layers.h"

namespace scalebench::cpu_layers {
namespace {

// --cpu-kernels auto: oneDNN for 3x3 (and larger) convolutions with at least 8 input channels,
// im2col + sgemm for the rest. Measured per layer of the U-Net and VGG16 of tools/cpu_step_bench.py
// (kernels/bench/bench_conv_layers.cpp; docs/cpu.md, "Which kernels"): at 1 thread oneDNN's blocked
// direct convolution won every 3x3 layer with 16 or more input channels by 1.4-3.0x over forward
// and both backward passes; im2col won the first layer (1 input channel, oneDNN 0.45x) and the 1x1
// head (a plain GEMM on the image itself, oneDNN 0.22x).
bool auto_uses_onednn(const Conv2dParams& p) { return p.c_in >= 8 && p.k_h >= 3; }

// --cpu-kernels auto, on a oneDNN layer: its Winograd kernels where both channel counts are at least
// 32 and the output plane at least 16x16 (3x3, stride 1). Measured per pass of the U-Net's layers
// at batch 8, 1 thread (thread CPU time, min of 5; docs/cpu.md): Winograd took 0.5-0.8x the direct
// convolution's time on every such layer (32x32 at 64², 64x32 at 64², 128x64 at 32², 256x128 at
// 16²) and lost on 16-channel layers at 128² (backward data up to 1.7x) and on the 8x8 bottleneck.
bool auto_uses_winograd(const Conv2dParams& p) {
  return p.c_in >= 32 && p.c_out >= 32 && p.h_out() >= 16 && p.w_out() >= 16 && p.k_h == 3 && p.stride == 1;
}

bool uses_onednn(const Ctx& ctx, const Conv2dParams& p) {
  if (ctx.reference) return false;
  switch (ctx.cpu_kernels) {
    case CpuKernels::blas: return false;
    case CpuKernels::onednn: return true;
    case CpuKernels::automatic: return onednn::available() && auto_uses_onednn(p);
  }
  return false;
}

class Conv2dCpu final : public Layer {
 public:
  explicit Conv2dCpu(const LayerDesc& d) : d_(d) {}
  LayerKind kind() const override { return LayerKind::conv2d; }

  Shape setup(const std::vector<Shape>& in) override {
    require_nchw("conv2d", in);
    const Shape& s = in[0];
    SB_REQUIRE(c_in_ == 0 || c_in_ == s[1], "conv2d: input channels changed from {} to {}", c_in_, s[1]);
    c_in_ = static_cast<int>(s[1]);
    p_ = {static_cast<int>(s[0]), c_in_, static_cast<int>(s[2]), static_cast<int>(s[3]),
          d_.out_channels, d_.kernel, d_.kernel, d_.stride, d_.pad};
    SB_REQUIRE(p_.h_out() > 0 && p_.w_out() > 0, "conv2d: input {} too small for a {}x{} kernel (pad {})",
               to_string(s), d_.kernel, d_.kernel, d_.pad);
    return {s[0], d_.out_channels, p_.h_out(), p_.w_out()};
  }

  std::vector<ParamSpec> param_specs() const override {
    const std::int64_t fan_in = std::int64_t{c_in_} * d_.kernel * d_.kernel;
    std::vector<ParamSpec> ps{{"weight", {d_.out_channels, c_in_, d_.kernel, d_.kernel}, Init::he_normal, fan_in}};
    if (d_.bias) ps.push_back({"bias", {d_.out_channels}, Init::zeros, fan_in});
    return ps;
  }
  void bind(std::vector<Tensor> params, std::vector<Tensor> grads) override {
    w_ = params[0];
    dw_ = grads[0];
    if (d_.bias) b_ = params[1], db_ = grads[1];
  }

  bool fuse_relu() override { return fuse_relu_ = true; }
  bool relu_fused(const Ctx& ctx) const override { return fuse_relu_ && !ctx.reference; }

  void forward(Ctx& ctx, const TensorRefs& in, Tensor& out, bool) override {
    const float* bias = d_.bias ? b_.f32() : nullptr;
    winograd_ctx_ = ctx.cpu_kernels == CpuKernels::automatic;
    if (uses_onednn(ctx, p_)) return dnnl().forward(p_, in[0]->f32(), w_.f32(), bias, out.f32());
    (ctx.reference ? cpu::conv2d_forward_ref : cpu::conv2d_forward_blas)(p_, in[0]->f32(), w_.f32(), bias, out.f32());
    if (relu_fused(ctx)) cpu::relu_forward(out.numel(), out.f32(), out.f32());
  }
  void backward(Ctx& ctx, const TensorRefs& in, const Tensor& out, const Tensor& dout,
                const std::vector<Tensor*>& din) override {
    float* dbias = d_.bias ? db_.f32() : nullptr;
    // The fused ReLU's backward, in place: dout is the Model's gradient of this node (shared with
    // the ReLU node), read by nothing after this layer; masking twice gives the same values.
    if (relu_fused(ctx)) cpu::relu_backward(dout.numel(), out.f32(), dout.f32(), dout.f32());
    if (uses_onednn(ctx, p_))
      return dnnl().backward(p_, in[0]->f32(), w_.f32(), dout.f32(), dw_.f32(), dbias, din[0] ? din[0]->f32() : nullptr);
    (ctx.reference ? cpu::conv2d_backward_filter_ref : cpu::conv2d_backward_filter_blas)(
        p_, in[0]->f32(), dout.f32(), dw_.f32(), dbias);
    if (din[0])
      (ctx.reference ? cpu::conv2d_backward_data_ref : cpu::conv2d_backward_data_blas)(p_, dout.f32(), w_.f32(),
                                                                                      din[0]->f32());
  }
  double flops(const std::vector<Shape>& in) const override {
    const double out_px = double(in[0][0]) * p_.h_out() * p_.w_out();
    return 2.0 * d_.kernel * d_.kernel * double(in[0][1]) * d_.out_channels * out_px;
  }

 private:
  onednn::Conv2d& dnnl() {
    // Winograd is auto's choice (the layer's shape is fixed once set up: p_'s channels and plane).
    if (!onednn_)
      onednn_ = std::make_unique<onednn::Conv2d>(d_.bias, fuse_relu_,
                                                 winograd_ctx_ && auto_uses_winograd(p_));
    return *onednn_;
  }

  LayerDesc d_;
  std::unique_ptr<onednn::Conv2d> onednn_;  // made on first use: its primitives and blocked buffers
  bool fuse_relu_ = false;                  // the Model gave it the ReLU after it (oneDNN: a post-op)
  bool winograd_ctx_ = false;               // --cpu-kernels auto (oneDNN made on first use takes it)
  int c_in_ = 0;
  Conv2dParams p_;
  Tensor w_, b_, dw_, db_;
};

}  // namespace

std::unique_ptr<Layer> conv2d(const LayerDesc& d) { return std::make_unique<Conv2dCpu>(d); }

}  // namespace scalebench::cpu_layers
