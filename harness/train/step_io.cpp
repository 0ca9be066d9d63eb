// step_io.cpp — the trainer's step on its device (see step_io.h).
#include "harness/train/step_io.h"

namespace scalebench {

static_assert(TrainConfig::kDefaultCudnnWorkspaceMib == TrainConfig::kCudnnWorkspaceFromFree &&
                  DeviceOptions{}.workspace_bytes == DeviceOptions::kWorkspaceFromFreeMemory,
              "train's default cuDNN workspace cap differs from the device's (models/device.h)");

namespace {
std::size_t workspace_bytes(int mib) {
  return mib == TrainConfig::kCudnnWorkspaceFromFree ? DeviceOptions::kWorkspaceFromFreeMemory
                                                     : std::size_t(mib) << 20;
}
}  // namespace

StepIO::StepIO(const TrainConfig& cfg, int device)
    : dev_(make_device({.backend = cfg.backend, .index = device, .precision = cfg.precision, .layout = cfg.layout,
                        .deterministic = cfg.deterministic, .gpu_kernels = cfg.gpu_kernels,
                        .workspace_bytes = workspace_bytes(cfg.cudnn_workspace_mib)})) {}

const Tensor& StepIO::input(const Tensor& host_x) {
  if (host_x.device() == dev_->where()) return x_ = host_x;  // the CPU: no copy
  if (!x_.defined() || x_.shape() != host_x.shape()) x_ = dev_->zeros(host_x.shape());
  dev_->upload_async(host_x, x_);  // cuda: queued from page-locked memory, no wait
  return x_;
}

}  // namespace scalebench
