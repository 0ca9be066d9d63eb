// train.h — the device loss of the cuda backend, behind a CUDA-free header (defined in train.cpp,
// CUDA builds only; models/cuda/device.cpp serves it as ComputeDevice::softmax_xent):
//  * GpuLoss: softmax cross-entropy on the device (kernels/cuda/softmax_xent.h) with the CPU's
//    semantics (models/loss.h): labels arrive from the host (the data loader's), the loss comes back
//    as a double, dlogits stay on the device; argmax predictions come back to the host for metrics.
// Not here: loss scaling (bf16 needs none); the optimizers (models/optimizer.h, on any device).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/common/tensor.h"

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

}  // namespace scalebench
