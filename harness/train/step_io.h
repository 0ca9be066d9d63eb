// step_io.h — where the trainer's step meets the backend: the batch onto the model's device, the
// loss and its gradient, predicted classes for metrics, and the run's GPU context. One object per
// rank; the CPU backend is a pass-through (host tensors, models/loss.h). On cuda the batch is
// uploaded as f32 NCHW (the Model converts it), the loss runs on the device and only scalars,
// labels and predictions cross to the host.
// Not here: data loading (harness/data), the optimizer or gradient exchange (harness/strategy).
#pragma once

#include <cstdint>
#include <vector>

#include "harness/train/train_config.h"
#include "kernels/common/tensor.h"
#include "models/cuda/memory.h"
#include "models/model.h"

namespace scalebench {

class GpuLoss;

class StepIO {
 public:
  // Makes the GPU context for backend cuda (device `device`, cfg's precision/layout/determinism).
  StepIO(const TrainConfig& cfg, int device);
  ~StepIO();
  Backend backend() const { return backend_; }
  GpuContext* gpu() const { return gpu_.get(); }

  // host_x [n, c, h, w] f32 → the tensor Model::forward takes on this backend.
  const Tensor& input(const Tensor& host_x);
  // Loss of logits against host labels; writes dlogits (allocated to match) when non-null.
  double loss(const Tensor& logits, const std::vector<std::int32_t>& labels, const std::vector<float>& class_weights,
              Tensor* dlogits);
  std::vector<std::int32_t> predict(const Tensor& logits);
  // The parameter arena on the host (a copy on cuda), for --dump-weights.
  Tensor host_params(Model& m);
  // Checkpoints: a host copy of a tensor of the model's backend, and a host tensor back into one.
  Tensor to_host(const Tensor& t);
  void from_host(const Tensor& host, Tensor& t);

 private:
  Backend backend_;
  // shared_ptr: deleters are bound where they are made (CUDA builds only), so CPU builds link
  // without any GPU symbol.
  std::shared_ptr<GpuContext> gpu_;
  std::shared_ptr<GpuLoss> gpu_loss_;
  Tensor x_;  // the last input (cuda: the device copy)
};

}  // namespace scalebench
