// device.cpp — the CUDA ComputeDevice (kernels/common/device.h): one GPU's GpuContext (stream,
// handles, workspace), its memory and copies (memory.h), the device loss (train.h), the fused
// optimizers (kernels/cuda/optimizers.h), LARS/LAMB with their norms on the device
// (kernels/cuda/layerwise.h) and the reductions (kernels/cuda/reduce.h). Everything is queued on the
// context's stream; scalars come back with one copy each call. Timing marks are CUDA events.
// CUDA builds only (models/nocuda/device.cpp stands in otherwise).
// What it deliberately does not do: choose a GPU (the caller's index), or own the layers.
#include <cuda_runtime.h>

#include <cmath>
#include <cstring>

#include "kernels/cuda/add.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/counters.h"
#include "kernels/cuda/device_buffer.h"
#include "kernels/cuda/layerwise.h"
#include "kernels/cuda/pinned.h"
#include "kernels/cuda/optimizers.h"
#include "kernels/cuda/reduce.h"
#include "kernels/cuda/workspace.h"
#include "models/cuda/context.h"
#include "models/cuda/memory.h"
#include "models/cuda/stager.h"
#include "models/cuda/train.h"
#include "models/device.h"

namespace scalebench {
std::unique_ptr<StepGraph> make_cuda_step_graph(GpuContext& g);  // step_graph.cpp

namespace {

struct EventMark final : DeviceMark {
  explicit EventMark(cudaStream_t s) {
    CUDA_CHECK(cudaEventCreate(&e));
    const cudaError_t st = cudaEventRecord(e, s);
    if (st != cudaSuccess) {
      cudaEventDestroy(e);
      CUDA_CHECK(st);
    }
  }
  ~EventMark() override { cudaEventDestroy(e); }  // a failing destroy at teardown has no one to report to
  cudaEvent_t e = nullptr;
};

class CudaDevice final : public ComputeDevice {
 public:
  explicit CudaDevice(const DeviceOptions& o)
      : g_(make_gpu_context(o.index, o.precision, o.layout, o.deterministic, o.workspace_bytes, o.gpu_kernels)),
        loss_(*g_),
        scratch_(std::size_t(2 * cuda::kReducePartials + 2) * sizeof(double), o.index) {
    static_assert(DeviceOptions::kWorkspaceFromFreeMemory == cuda::Workspace::kFromFreeMemory &&
                      DeviceOptions{}.workspace_bytes == cuda::Workspace::kDefaultCap,
                  "DeviceOptions' default cuDNN workspace cap differs from the cudnn room's");
  }

  Device where() const override { return Device::cuda(g_->device()); }
  GpuContext* gpu() override { return g_.get(); }
  DType act_dtype() const override { return g_->act_dtype(); }
  Layout act_layout() const override { return g_->layout(); }

  Tensor zeros(Shape shape, DType dtype, Layout layout) override { return gpu_zeros(*g_, std::move(shape), dtype, layout); }
  void upload(const Tensor& host, Tensor& dst) override { gpu_upload(*g_, host, dst); }
  // A slot is rewritten two calls after its copy was queued: its event is normally long done (a wait
  // for it is counted as a lagged wait, not a synchronisation).
  void upload_async(const Tensor& host, Tensor& dst) override {
    SB_CHECK(host.device().is_cpu() && !dst.device().is_cpu() && host.nbytes() == dst.nbytes(),
             "upload_async: {} host bytes into {} device bytes", host.nbytes(), dst.nbytes());
    InputSlot& sl = input_[next_input_];
    next_input_ ^= 1;
    if (sl.host.bytes() < host.nbytes()) {
      g_->synchronize();  // growing (warm-up only): the old block's copy may still be queued
      sl.host = cuda::PinnedBuffer(host.nbytes());
    } else {
      sl.copied.wait();
    }
    std::memcpy(sl.host.data(), host.raw(), host.nbytes());
    CUDA_CHECK(cudaMemcpyAsync(dst.raw(), sl.host.data(), host.nbytes(), cudaMemcpyHostToDevice, s()));
    sl.copied.record(s());
  }
  void download(const Tensor& src, Tensor& host) override { gpu_download(*g_, src, host); }
  void copy(const Tensor& src, Tensor& dst) override { gpu_copy(*g_, src, dst); }
  void convert(const Tensor& src, Tensor& dst) override { gpu_convert(*g_, src, dst); }

  void fill(float* x, std::int64_t n, float v) override { cuda::fill(n, x, v, s()); }
  void scale(float* x, std::int64_t n, float v) override { cuda::scale_inplace(n, x, v, s()); }
  void axpy(std::int64_t n, float a, const float* x, float* y) override { cuda::axpy(n, a, x, y, s()); }
  void add(Tensor& dst, const Tensor& src) override { gpu_add(*g_, dst, src); }

  double dot(std::int64_t n, const float* a, const float* b) override {
    cuda::dot(n, a, b, out(), partials(), s());
    return download_doubles(1)[0];
  }
  std::vector<double> sum_squares(const float* x, const std::vector<Segment>& segments) override {
    std::vector<double> r;
    for (const auto& seg : segments) r.push_back(dot(seg.count, x + seg.offset, x + seg.offset));
    return r;
  }
  NonFinite first_nonfinite(const float* x, std::int64_t n) override {
    auto* index = static_cast<unsigned long long*>(static_cast<void*>(out()));
    const unsigned long long none = ~0ull;
    cuda::copy_to_device(index, &none, sizeof none, s());
    cuda::first_nonfinite(n, x, index, s());
    unsigned long long found = none;
    cuda::copy_to_host(&found, index, sizeof found, s());
    if (found == none) return {};
    float v = 0;
    cuda::copy_to_host(&v, x + found, sizeof v, s());
    return {std::int64_t(found), v};
  }

  double softmax_xent(const Tensor& logits, const std::int32_t* labels, const std::vector<float>& class_weights,
                      Tensor* dlogits) override {
    return loss_(logits, labels, class_weights, dlogits);
  }
  std::vector<std::int32_t> argmax_classes(const Tensor& logits) override { return loss_.predict(logits); }

  void sgd_momentum_step(std::int64_t n, float* w, const float* g, float* m, float lr, float momentum,
                         float weight_decay, bool first_step) override {
    cuda::sgd_momentum_step(n, w, g, m, lr, momentum, weight_decay, first_step, s());
  }
  void adamw_step(std::int64_t n, float* w, const float* g, float* m, float* v, float lr, float beta1, float beta2,
                  float eps, float weight_decay, std::int64_t t) override {
    cuda::adamw_step(n, w, g, m, v, lr, beta1, beta2, eps, weight_decay, t, s());
  }
  // The trust ratio from norms taken on the device, by the CPU's formula (kernels/cpu/lars.cpp).
  double lars_step(std::int64_t n, float* w, const float* g, float* v, float lr, float momentum, float weight_decay,
                   float eta, bool adapt) override {
    double trust = 1.0;
    if (adapt) {
      cuda::dot(n, w, w, out(), partials(), s());
      cuda::dot(n, g, g, out() + 1, partials(), s());
      const auto sums = download_doubles(2);
      const double wn = std::sqrt(sums[0]), gn = std::sqrt(sums[1]);
      if (wn > 0 && gn > 0) trust = eta * wn / (gn + weight_decay * wn);
    }
    cuda::lars_update(n, w, g, v, double(lr) * trust, momentum, weight_decay, s());
    return trust;
  }
  // kernels/cpu/lamb.cpp's steps: moments, the norms of w and of the direction, the update.
  double lamb_step(std::int64_t n, float* w, const float* g, float* m, float* v, float lr, float beta1, float beta2,
                   float eps, float weight_decay, std::int64_t t, bool adapt) override {
    SB_CHECK(t >= 1, "lamb_step: step t={} must be 1-based", t);
    const float inv_bc1 = float(1.0 / (1.0 - std::pow(double(beta1), double(t))));
    const float inv_bc2 = float(1.0 / (1.0 - std::pow(double(beta2), double(t))));
    cuda::lamb_moments(n, g, m, v, beta1, beta2, s());
    double trust = 1.0;
    if (adapt) {
      cuda::lamb_norms(n, w, m, v, inv_bc1, inv_bc2, eps, weight_decay, out(), partials(), s());
      const auto sums = download_doubles(2);
      if (sums[0] > 0 && sums[1] > 0) trust = std::sqrt(sums[0]) / std::sqrt(sums[1]);
    }
    cuda::lamb_update(n, w, m, v, inv_bc1, inv_bc2, eps, weight_decay, double(lr) * trust, s());
    return trust;
  }

  // The loss read one step late (GpuLoss::queue) and its three parts for a captured step.
  int loss_lag() const override { return 1; }
  double softmax_xent_late(const Tensor& logits, const std::int32_t* labels_host, const std::vector<float>& class_weights,
                           Tensor* dlogits) override {
    return loss_.queue(logits, labels_host, class_weights, dlogits);
  }
  double softmax_xent_last() override { return loss_.last(); }
  void softmax_xent_stage(const std::int32_t* labels_host, std::int64_t positions) override {
    loss_.stage(labels_host, positions);
  }
  void softmax_xent_compute(const Tensor& logits, const std::vector<float>& class_weights, Tensor* dlogits) override {
    loss_.compute(logits, class_weights, dlogits);
  }
  double softmax_xent_publish() override { return loss_.publish(); }
  std::unique_ptr<StepGraph> step_graph() override { return make_cuda_step_graph(*g_); }

  std::unique_ptr<DeviceStager> stager(double timeout_s) override {
    return make_cuda_stager(g_->device(), s(), timeout_s);
  }
  void synchronize() override { g_->synchronize(); }
  std::unique_ptr<DeviceMark> mark() override { return std::make_unique<EventMark>(s()); }
  double seconds_between(const DeviceMark& a, const DeviceMark& b) override {
    const auto& ea = static_cast<const EventMark&>(a);
    const auto& eb = static_cast<const EventMark&>(b);
    cuda::count_sync();  // a phase clock's lap drains the stream up to b
    CUDA_CHECK(cudaEventSynchronize(eb.e));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, ea.e, eb.e));
    return double(ms) * 1e-3;
  }

 private:
  cudaStream_t s() const { return g_->stream(); }
  // scratch_: [0, 2) results, then 2·kReducePartials partial sums.
  double* out() const { return scratch_.as<double>(); }
  double* partials() const { return scratch_.as<double>() + 2; }
  std::vector<double> download_doubles(int k) {
    std::vector<double> h(std::size_t(k), 0.0);
    cuda::copy_to_host(h.data(), out(), std::size_t(k) * sizeof(double), s());
    return h;
  }

  struct InputSlot {
    cuda::PinnedBuffer host;
    cuda::Event copied;
  };
  GpuContextPtr g_;
  InputSlot input_[2];  // upload_async's page-locked staging (destroyed before g_'s stream)
  int next_input_ = 0;
  GpuLoss loss_;
  cuda::DeviceBuffer scratch_;
};

}  // namespace

bool cuda_backend_built() { return true; }

std::unique_ptr<ComputeDevice> make_cuda_device(const DeviceOptions& o) { return std::make_unique<CudaDevice>(o); }

std::unique_ptr<ComputeDevice> make_cuda_device(const GpuOptions& g) {
  return make_cuda_device(DeviceOptions{.backend = Backend::cuda, .index = g.device, .precision = g.precision,
                                        .layout = g.layout, .deterministic = g.deterministic,
                                        .gpu_kernels = g.kernels, .workspace_bytes = g.workspace_cap});
}

}  // namespace scalebench
