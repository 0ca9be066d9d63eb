// step_io.cpp — the trainer's step on its device (see step_io.h).
#include "harness/train/step_io.h"

namespace scalebench {

static_assert(std::size_t(TrainConfig::kDefaultCudnnWorkspaceMib) << 20 == DeviceOptions{}.workspace_bytes,
              "train's default cuDNN workspace cap differs from the device's (models/device.h)");

StepIO::StepIO(const TrainConfig& cfg, int device)
    : dev_(make_device({.backend = cfg.backend, .index = device, .precision = cfg.precision, .layout = cfg.layout,
                        .deterministic = cfg.deterministic,
                        .workspace_bytes = std::size_t(cfg.cudnn_workspace_mib) << 20})) {}

const Tensor& StepIO::input(const Tensor& host_x) {
  if (host_x.device() == dev_->where()) return x_ = host_x;  // the CPU: no copy
  if (!x_.defined() || x_.shape() != host_x.shape()) x_ = dev_->zeros(host_x.shape());
  dev_->upload(host_x, x_);
  return x_;
}

}  // namespace scalebench
