// device.cpp — the CPU ComputeDevice (see kernels/common/device.h): host memory, plain loops, the
// CPU kernels. It is the specification the CUDA device is tested against. Every loop is the one the
// training core ran inline before (same order, same float operations), so results are unchanged.
// What it deliberately does not do: threads or BLAS for these element-wise passes (memory-bound).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/common/device.h"
#include "kernels/cpu/nonfinite.h"
#include "kernels/common/softmax_xent_params.h"
#include "kernels/cpu/lamb.h"
#include "kernels/cpu/lars.h"
#include "kernels/cpu/optimizers.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/softmax_xent.h"

namespace scalebench::cpu {
namespace {

using Clock = std::chrono::steady_clock;

struct HostMark final : DeviceMark {
  Clock::time_point t = host_time;  // the host clock is this device's timeline
};

void require_host_f32(const Tensor& t, const char* what) {
  SB_CHECK(t.device().is_cpu(), "{}: tensor is not on the CPU", what);
}

void require_same_bytes(const Tensor& a, const Tensor& b, const char* what) {
  SB_CHECK(a.nbytes() == b.nbytes(), "{}: {} bytes into {}", what, a.nbytes(), b.nbytes());
}

class CpuDevice final : public ComputeDevice {
 public:
  Device where() const override { return Device::cpu(); }

  Tensor zeros(Shape shape, DType dtype, Layout layout) override {
    SB_CHECK(layout == Layout::NCHW || shape.size() != 4, "the CPU computes in NCHW only");
    return Tensor::zeros(std::move(shape), dtype, layout);
  }
  void upload(const Tensor& host, Tensor& dst) override { copy_bytes(host, dst, "upload"); }
  void download(const Tensor& src, Tensor& host) override { copy_bytes(src, host, "download"); }
  void copy(const Tensor& src, Tensor& dst) override {
    SB_CHECK(src.shape() == dst.shape() && src.dtype() == dst.dtype(), "copy: shapes or dtypes differ");
    copy_bytes(src, dst, "copy");
  }
  void convert(const Tensor& src, Tensor& dst) override {
    SB_CHECK(src.dtype() == dst.dtype() && src.layout() == dst.layout(),
             "convert: the CPU backend computes in f32 NCHW only");
    copy(src, dst);
  }

  void fill(float* x, std::int64_t n, float v) override { std::fill_n(x, n, v); }
  // Element ranges over the rank's threads (parallel.h): the fan-out gradient sums and the gradient
  // accumulation touch whole activations and the parameter arena.
  void scale(float* x, std::int64_t n, float s) override {
    parallel_for(n, kValuesPerThread, [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t i = b; i < e; ++i) x[i] *= s;
    });
  }
  void axpy(std::int64_t n, float a, const float* x, float* y) override {
    parallel_for(n, kValuesPerThread, [&](std::int64_t b, std::int64_t e) {
      if (a == 1.0f) {
        for (std::int64_t i = b; i < e; ++i) y[i] += x[i];
      } else {
        for (std::int64_t i = b; i < e; ++i) y[i] += a * x[i];
      }
    });
  }
  void add(Tensor& dst, const Tensor& src) override {
    SB_CHECK(dst.numel() == src.numel(), "add: {} and {} elements", dst.numel(), src.numel());
    axpy(dst.numel(), 1.0f, src.f32(), dst.f32());
  }

  double dot(std::int64_t n, const float* a, const float* b) override {
    double s = 0;
    for (std::int64_t i = 0; i < n; ++i) s += double(a[i]) * b[i];
    return s;
  }
  std::vector<double> sum_squares(const float* x, const std::vector<Segment>& segments) override {
    std::vector<double> out;
    for (const auto& s : segments) out.push_back(dot(s.count, x + s.offset, x + s.offset));
    return out;
  }
  NonFinite first_nonfinite(const float* x, std::int64_t n) override { return cpu::first_nonfinite(x, n); }

  double softmax_xent(const Tensor& logits, const std::int32_t* labels, const std::vector<float>& class_weights,
                      Tensor* dlogits) override {
    const auto p = xent_params_of(logits.shape());
    SB_CHECK(class_weights.empty() || int(class_weights.size()) == p.classes, "{} class weights for {} classes",
             class_weights.size(), p.classes);
    if (dlogits) dlogits->resize(logits.shape());
    return cpu::softmax_xent(p, logits.f32(), labels, class_weights.empty() ? nullptr : class_weights.data(),
                             dlogits ? dlogits->f32() : nullptr);
  }
  std::vector<std::int32_t> argmax_classes(const Tensor& logits) override {
    const auto p = xent_params_of(logits.shape());
    std::vector<std::int32_t> pred(std::size_t(p.n) * std::size_t(p.hw));
    cpu::argmax_classes(p, logits.f32(), pred.data());
    return pred;
  }

  void sgd_momentum_step(std::int64_t n, float* w, const float* g, float* m, float lr, float momentum,
                         float weight_decay, bool first_step) override {
    cpu::sgd_momentum_step(n, w, g, m, lr, momentum, weight_decay, first_step);
  }
  void adamw_step(std::int64_t n, float* w, const float* g, float* m, float* v, float lr, float beta1, float beta2,
                  float eps, float weight_decay, std::int64_t t) override {
    cpu::adamw_step(n, w, g, m, v, lr, beta1, beta2, eps, weight_decay, t);
  }
  double lars_step(std::int64_t n, float* w, const float* g, float* v, float lr, float momentum, float weight_decay,
                   float eta, bool adapt) override {
    return cpu::lars_step(n, w, g, v, lr, momentum, weight_decay, eta, adapt);
  }
  double lamb_step(std::int64_t n, float* w, const float* g, float* m, float* v, float lr, float beta1, float beta2,
                   float eps, float weight_decay, std::int64_t t, bool adapt) override {
    return cpu::lamb_step(n, w, g, m, v, lr, beta1, beta2, eps, weight_decay, t, adapt);
  }

  std::unique_ptr<DeviceStager> stager(double) override { return make_host_stager(); }
  void synchronize() override {}
  std::unique_ptr<DeviceMark> mark() override { return std::make_unique<HostMark>(); }
  double seconds_between(const DeviceMark& a, const DeviceMark& b) override {
    return std::chrono::duration<double>(static_cast<const HostMark&>(b).t - static_cast<const HostMark&>(a).t)
        .count();
  }

 private:
  static void copy_bytes(const Tensor& src, Tensor& dst, const char* what) {
    require_host_f32(src, what);
    require_host_f32(dst, what);
    require_same_bytes(src, dst, what);
    if (src.raw() != dst.raw() && src.nbytes()) std::memcpy(dst.raw(), src.raw(), src.nbytes());
  }
};

}  // namespace

std::unique_ptr<ComputeDevice> make_cpu_device() { return std::make_unique<CpuDevice>(); }

}  // namespace scalebench::cpu
