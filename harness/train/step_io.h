// step_io.h — where the trainer's step meets its device: the run's ComputeDevice (made from the
// backend options, kernels/common/device.h), the batch onto it, the loss and its gradient,
// predicted classes for metrics, and a host copy of the weights for --dump-weights. One object per
// rank, the same code on every backend: the batch goes up as f32 NCHW (the Model converts it; on the
// CPU the host batch is used as it is), the loss runs on the device and only scalars, labels and
// predictions cross to the host.
// Not here: data loading (harness/data), the optimizer or gradient exchange (harness/strategy).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "harness/train/train_config.h"
#include "kernels/common/tensor.h"
#include "models/device.h"
#include "models/model.h"

namespace scalebench {

class StepIO {
 public:
  // Makes the device for cfg's backend (GPU `device` on cuda, cfg's precision/layout/determinism).
  StepIO(const TrainConfig& cfg, int device);
  Backend backend() const { return backend_of(*dev_); }
  ComputeDevice& device() const { return *dev_; }

  // host_x [n, c, h, w] f32 → the tensor Model::forward takes on this device.
  const Tensor& input(const Tensor& host_x);
  // Loss of logits against host labels; writes dlogits (allocated to match) when non-null.
  double loss(const Tensor& logits, const std::vector<std::int32_t>& labels, const std::vector<float>& class_weights,
              Tensor* dlogits) {
    return dev_->softmax_xent(logits, labels.data(), class_weights, dlogits);
  }
  std::vector<std::int32_t> predict(const Tensor& logits) { return dev_->argmax_classes(logits); }
  // The parameter arena on the host (a copy), for --dump-weights. (Checkpoints: checkpoint.h.)
  Tensor host_params(Model& m) { return dev_->to_host(m.params()); }

 private:
  std::unique_ptr<ComputeDevice> dev_;
  Tensor x_;  // the last input (a device copy unless the host batch is already on the device)
};

}  // namespace scalebench
