// step_io.cpp — backend switch of the trainer's step (see step_io.h).
#include "harness/train/step_io.h"

#include "kernels/common/precision.h"
#include "models/cuda/train.h"
#include "models/loss.h"
#if SCALEBENCH_HAVE_CUDA
#include "kernels/cuda/workspace.h"
#endif

namespace scalebench {

StepIO::StepIO(const TrainConfig& cfg, int device) : backend_(cfg.backend) {
#if SCALEBENCH_HAVE_CUDA
  if (backend_ == Backend::cuda) {
    static_assert(std::size_t(TrainConfig::kDefaultCudnnWorkspaceMib) << 20 == cuda::Workspace::kDefaultCap,
                  "train's default cuDNN workspace cap differs from the cudnn room's");
    gpu_ = make_gpu_context(device, cfg.precision, cfg.layout,
                            cfg.deterministic, std::size_t(cfg.cudnn_workspace_mib) << 20);
    gpu_loss_ = std::make_shared<GpuLoss>(*gpu_);
  }
#else
  (void)device;
  SB_REQUIRE(backend_ == Backend::cpu, "--backend cuda: this build has no CUDA backend (configure with nvcc on PATH)");
#endif
}

StepIO::~StepIO() = default;

const Tensor& StepIO::input(const Tensor& host_x) {
  if (backend_ == Backend::cpu) return x_ = host_x;
#if SCALEBENCH_HAVE_CUDA
  if (!x_.defined() || x_.shape() != host_x.shape()) x_ = gpu_zeros(*gpu_, host_x.shape(), DType::f32, Layout::NCHW);
  gpu_upload(*gpu_, host_x, x_);
#endif
  return x_;
}

double StepIO::loss(const Tensor& logits, const std::vector<std::int32_t>& labels,
                    const std::vector<float>& class_weights, Tensor* dlogits) {
  if (backend_ == Backend::cpu) return softmax_cross_entropy(logits, labels.data(), class_weights, dlogits);
#if SCALEBENCH_HAVE_CUDA
  return (*gpu_loss_)(logits, labels.data(), class_weights, dlogits);
#else
  return 0;
#endif
}

std::vector<std::int32_t> StepIO::predict(const Tensor& logits) {
  if (backend_ == Backend::cpu) return predict_classes(logits);
#if SCALEBENCH_HAVE_CUDA
  return gpu_loss_->predict(logits);
#else
  return {};
#endif
}

Tensor StepIO::to_host(const Tensor& t) {
  Tensor h = Tensor::zeros(t.shape());
  if (backend_ == Backend::cpu) {
    std::copy(t.f32(), t.f32() + t.numel(), h.f32());
    return h;
  }
#if SCALEBENCH_HAVE_CUDA
  gpu_download(*gpu_, t, h);
#endif
  return h;
}

void StepIO::from_host(const Tensor& host, Tensor& t) {
  SB_CHECK(host.numel() == t.numel(), "from_host: {} values into a tensor of {}", host.numel(), t.numel());
  if (backend_ == Backend::cpu) {
    std::copy(host.f32(), host.f32() + host.numel(), t.f32());
    return;
  }
#if SCALEBENCH_HAVE_CUDA
  gpu_upload(*gpu_, host, t);
#endif
}

Tensor StepIO::host_params(Model& m) {
  if (backend_ == Backend::cpu) return m.params();
  Tensor h = Tensor::zeros(m.params().shape());
#if SCALEBENCH_HAVE_CUDA
  gpu_download(*gpu_, m.params(), h);
#endif
  return h;
}

}  // namespace scalebench
