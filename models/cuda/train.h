// train.h — the device loss of the cuda backend, behind a CUDA-free header (defined in train.cpp,
// CUDA builds only; models/cuda/device.cpp serves it as ComputeDevice::softmax_xent):
//  * GpuLoss: softmax cross-entropy on the device (kernels/cuda/softmax_xent.h) with the CPU's
//    semantics (models/loss.h): labels arrive from the host (the data loader's), the loss comes back
//    as a double, dlogits stay on the device; argmax predictions come back to the host for metrics.
//    queue() is the same loss for a step that must not wait (the allocation-free step): labels go up
//    asynchronously from page-locked memory, the sums come back behind the step, and the loss is
//    read one step late.
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
  // The same loss without a host synchronisation: copies labels_host into page-locked memory, queues
  // its upload, the loss and dlogits, and the sums' copy back, then returns the loss of the previous
  // queue() call (NaN for the first), waiting only for that earlier step's copy if it is not done.
  // Two slots alternate, so once sizes and class weights are stable nothing is allocated, no
  // descriptor is made and no stream is drained (tests/gpu/models/test_step_no_alloc.cpp). A bad
  // label throws one call late, naming it. Do not mix with operator() without last() in between.
  double queue(const Tensor& logits, const std::int32_t* labels_host, const std::vector<float>& class_weights,
               Tensor* dlogits);
  // queue() in three parts for a captured step (StepGraph): stage copies the labels into page-locked
  // memory and queues their upload into device memory at a fixed address (outside the capture);
  // compute queues the loss and dlogits from there into sums at a fixed address (capturable once
  // warm: nothing allocated or waited for); publish queues the sums' copy back and returns the
  // previous step's loss, as queue() does. queue() is stage, compute, publish.
  void stage(const std::int32_t* labels_host, std::int64_t positions);
  void compute(const Tensor& logits, const std::vector<float>& class_weights, Tensor* dlogits);
  double publish();
  // The loss of the last queue() call (waits for it; NaN when none is pending); the next queue()
  // then returns NaN for it.
  double last();
  // Predicted class per position, [n·h·w] or [n], on the host.
  std::vector<std::int32_t> predict(const Tensor& logits);

 private:
  struct Buffers;
  struct Queued;
  double read_slot(int slot);
  GpuContext& g_;
  std::unique_ptr<Buffers> b_;
  std::unique_ptr<Queued> q_;
};

}  // namespace scalebench
