// train.h — the training pieces the cuda backend needs besides the Model, behind a CUDA-free
// header (defined in train.cpp, CUDA builds only; callers guard with SCALEBENCH_HAVE_CUDA):
//  * GpuLoss: softmax cross-entropy on the device (kernels/cuda/softmax_xent.h) with the CPU's
//    semantics (models/loss.h): labels arrive from the host (the data loader's), the loss comes back
//    as a double, dlogits stay on the device; argmax predictions come back to the host for metrics.
//  * GpuOptimizer: SGD-momentum / AdamW over the device arena in one fused kernel each step
//    (kernels/cuda/optimizers.h), same configuration and step count semantics as models/optimizer.h.
// Not here: loss scaling (bf16 needs none), gradient clipping, optimizer state in 16 bits.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/common/tensor.h"
#include "models/optimizer.h"

namespace scalebench {

class GpuContext;

class GpuLoss {
 public:
  explicit GpuLoss(GpuContext& g);
  ~GpuLoss();
  // logits [n, C, h, w] or [n, C] on the device (NCHW, f32 or bf16); labels_host [n·h·w] (or [n]).
  // class_weights empty: unweighted. dlogits (nullable) is (re)allocated like logits and overwritten.
  double operator()(const Tensor& logits, const std::int32_t* labels_host, const std::vector<float>& class_weights,
                    Tensor* dlogits);
  // Predicted class per position, [n·h·w] or [n], on the host.
  std::vector<std::int32_t> predict(const Tensor& logits);

 private:
  struct Buffers;
  GpuContext& g_;
  std::unique_ptr<Buffers> b_;
};

class GpuOptimizer {
 public:
  GpuOptimizer(GpuContext& g, const OptimizerConfig& cfg, std::int64_t count);  // validates cfg
  ~GpuOptimizer();
  // w, grad: device f32 [count]. Queued on the context's stream.
  void step(float* w, const float* grad, float lr);
  std::int64_t steps_taken() const { return t_; }
  // Checkpoints: moment k (0: m, 1: v; empty when absent) as a host copy, and back.
  std::vector<float> moment(int k) const;
  void restore(std::int64_t steps, const std::vector<float>& m, const std::vector<float>& v);

 private:
  GpuContext& g_;
  OptimizerConfig cfg_;
  std::int64_t count_, t_ = 0;
  Tensor m_, v_;  // device f32 [count]
};

// x *= s over a device f32 array of `count` (the strategies' gradient mean).
void gpu_scale(GpuContext& g, float* x, std::int64_t count, float s);

}  // namespace scalebench
