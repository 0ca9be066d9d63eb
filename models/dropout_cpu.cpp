// dropout_cpu.cpp — inverted dropout on the CPU. The mask is a pure function of
// (run seed, step, layer salt), so a run replays exactly; identity when not training or p = 0.
#include <algorithm>

#include "kernels/cpu/dropout.h"
#include "models/cpu_layers.h"

namespace scalebench::cpu_layers {
namespace {

class DropoutCpu final : public Layer {
 public:
  explicit DropoutCpu(const LayerDesc& d) : d_(d) {
    SB_REQUIRE(d.dropout_p >= 0.0f && d.dropout_p < 1.0f, "dropout: p must be in [0, 1), got {}", d.dropout_p);
  }
  LayerKind kind() const override { return LayerKind::dropout; }
  Shape setup(const std::vector<Shape>& in) override {
    SB_REQUIRE(in.size() == 1, "dropout: expected 1 input");
    return in[0];
  }
  void forward(Ctx& ctx, const TensorRefs& in, Tensor& out, bool training) override {
    active_ = training && d_.dropout_p > 0.0f;
    if (!active_) {
      std::copy_n(in[0]->f32(), out.numel(), out.f32());
      return;
    }
    mask_.resize(out.shape());
    const std::uint64_t seed = dropout_seed(ctx, d_.salt);
    // One call per sample, each drawn at the sample's global position (see Ctx::sample_stride).
    const std::int64_t n = out.dim(0), per_sample = out.numel() / n;
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t at = i * per_sample, global = ctx.sample_offset + ctx.sample_stride * i;
      cpu::dropout_forward(per_sample, d_.dropout_p, seed, in[0]->f32() + at, out.f32() + at, mask_.f32() + at,
                           global * per_sample);
    }
  }
  void backward(Ctx&, const TensorRefs&, const Tensor&, const Tensor& dout, const std::vector<Tensor*>& din) override {
    if (!din[0]) return;
    if (active_)
      cpu::dropout_backward(dout.numel(), dout.f32(), mask_.f32(), din[0]->f32());
    else
      std::copy_n(dout.f32(), dout.numel(), din[0]->f32());
  }
  double flops(const std::vector<Shape>& in) const override { return double(numel(in[0])); }

 private:
  LayerDesc d_;
  bool active_ = false;
  Tensor mask_;
};

}  // namespace

std::unique_ptr<Layer> dropout(const LayerDesc& d) { return std::make_unique<DropoutCpu>(d); }

}  // namespace scalebench::cpu_layers
